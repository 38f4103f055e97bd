//! `memviz top`, `memviz oom`, `memviz leaks`, `memviz findings`: the analysis of
//! `memviz_core::analysis` in a terminal.

use memviz_core::analysis::{live::short_stack, GroupBy};
use memviz_core::format::format_size;
use memviz_core::Snapshot;

use crate::{api, load, Opts};

pub(crate) fn run(cmd: &str, file: &str, opts: &Opts) -> Result<(), String> {
    // A bad --category is the user's typo: said before reading a large file.
    memviz_core::analysis::Rules::parse(&opts.categories)?;
    let snap = load(file)?;
    match cmd {
        "top" => top(&snap, file, opts),
        "oom" => oom(&snap, file, opts),
        "findings" => findings(&snap, file, opts),
        _ => leaks(&snap, file, opts),
    }
}

fn top(snap: &Snapshot, file: &str, opts: &Opts) -> Result<(), String> {
    let mut opts = opts.clone();
    if !opts.json {
        opts.limit = opts.limit.or(Some(20));
    }
    let t = api::top(snap, file, &opts)?;
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&t.to_json()).unwrap_or_default());
        return Ok(());
    }
    let size = |b: u64| format_size(b, false);
    let ev = t.at.event.map_or("before the first event".to_string(), |e| format!("after event {e}"));
    println!("{file}, device {}, {} ({ev})", t.device, t.at_spec);
    println!("  allocated  {} in {} allocations", size(t.total_bytes), t.count);
    println!(
        "  reserved   {} ({} not allocated; {} free in {} pieces, largest {})",
        size(t.totals.reserved_bytes),
        size(t.totals.gap_bytes),
        size(t.totals.free_bytes),
        t.totals.free_pieces,
        size(t.totals.largest_free_bytes)
    );
    let shown = t.groups.len();
    println!(
        "  by {}: {} groups{}",
        t.by_spec,
        t.group_count,
        if t.group_count > shown { format!(", the largest {shown}") } else { String::new() }
    );
    let lines = if t.by == GroupBy::Stack { 4 } else { 1 };
    for g in &t.groups {
        let share = if t.total_bytes > 0 { g.bytes as f64 * 100.0 / t.total_bytes as f64 } else { 0.0 };
        let key = short_stack(&g.key, lines).replace('\n', "\n                                  ");
        println!("  {:>10} {:>5.1}% {:>7}x  {key}", size(g.bytes), share, g.count);
    }
    Ok(())
}

fn oom(snap: &Snapshot, file: &str, opts: &Opts) -> Result<(), String> {
    let all = api::oom(snap, file, opts)?;
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&api::oom_json(&all)).unwrap_or_default());
        return Ok(());
    }
    println!("{file}");
    for (d, ooms, peak) in &all {
        if ooms.is_empty() {
            println!("device {d}: no oom event in the trace");
        }
        for e in ooms.iter().chain(peak) {
            print!("{}", e.to_text());
        }
    }
    Ok(())
}

fn leaks(snap: &Snapshot, file: &str, opts: &Opts) -> Result<(), String> {
    let reports = api::leaks(snap, file, opts)?;
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&api::leaks_json(&reports)).unwrap_or_default());
        return Ok(());
    }
    println!("{file}");
    for (a, r) in &reports {
        print!("{}", r.to_text(a));
    }
    Ok(())
}

fn findings(snap: &Snapshot, file: &str, opts: &Opts) -> Result<(), String> {
    let f = api::findings(snap, file, opts)?;
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&f).unwrap_or_default());
    } else {
        print!("{file}\n{}", f.to_text());
    }
    Ok(())
}
