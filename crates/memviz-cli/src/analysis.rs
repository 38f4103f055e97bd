//! `memviz top`, `memviz oom`, `memviz leaks`, `memviz findings`: the analysis of
//! `memviz_core::analysis` in a terminal.

use memviz_core::analysis::{live::short_stack, Analysis, GroupBy, Moment, Rules};
use memviz_core::format::format_size;
use memviz_core::state::StateHistory;
use memviz_core::Snapshot;

use crate::{load, pick_device, Opts};

pub(crate) fn run(cmd: &str, file: &str, opts: &Opts) -> Result<(), String> {
    let rules = Rules::parse(&opts.categories)?;
    let snap = load(file)?;
    match cmd {
        "top" => top(&snap, file, opts, &rules),
        "oom" => oom(&snap, file, opts, &rules),
        "findings" => findings(&snap, file, opts, &rules),
        _ => leaks(&snap, file, opts, &rules),
    }
}

/// `--device D`, else every device with a trace (oom, leaks).
fn devices(snap: &Snapshot, file: &str, device: Option<&str>) -> Result<Vec<u32>, String> {
    if device.is_some() {
        return Ok(vec![pick_device(snap, file, device)?]);
    }
    let with_trace: Vec<u32> = snap.devices().into_iter().filter(|&d| !snap.trace(d).is_empty()).collect();
    if with_trace.is_empty() {
        return Err(format!("{file}: no device has a trace (nothing happened to explain)"));
    }
    Ok(with_trace)
}

fn top(snap: &Snapshot, file: &str, opts: &Opts, rules: &Rules) -> Result<(), String> {
    let device = pick_device(snap, file, opts.device.as_deref())?;
    let at_spec = opts.at.as_deref().unwrap_or("peak");
    let moment = Moment::parse(at_spec)?;
    let by_spec = opts.by.as_deref().unwrap_or("stack");
    let by = GroupBy::from_name(by_spec)
        .ok_or_else(|| format!("--by {by_spec:?}: expected stack, user, frame or category"))?;
    let a = Analysis::build(snap, device, rules);
    let at = a.resolve(moment).map_err(|e| format!("{file}: {e}"))?;
    let live = a.live(at.position);
    let total = a.bytes_of(&live);
    let mut groups = a.groups(&live, by);
    let shown = opts.limit.unwrap_or(if opts.json { usize::MAX } else { 20 });
    let n_groups = groups.len();
    groups.truncate(shown);
    let h = StateHistory::new(snap, device);
    let mut cursor = h.cursor();
    let totals = a.state_totals(snap, &h, &mut cursor, &at);
    if opts.json {
        let out = serde_json::json!({
            "device": device,
            "at": at_spec,
            "at_event": at.event,
            "position": at.position,
            "step": at.step,
            "total_bytes": total,
            "count": live.len(),
            "reserved_bytes": totals.reserved_bytes,
            "gap_bytes": totals.gap_bytes,
            "free_bytes": totals.free_bytes,
            "free_pieces": totals.free_pieces,
            "largest_free_bytes": totals.largest_free_bytes,
            "by": by,
            "group_count": n_groups,
            "groups": groups,
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(());
    }
    let size = |b: u64| format_size(b, false);
    let ev = at.event.map_or("before the first event".to_string(), |e| format!("after event {e}"));
    println!("{file}, device {device}, {at_spec} ({ev})");
    println!("  allocated  {} in {} allocations", size(total), live.len());
    println!(
        "  reserved   {} ({} not allocated; {} free in {} pieces, largest {})",
        size(totals.reserved_bytes),
        size(totals.gap_bytes),
        size(totals.free_bytes),
        totals.free_pieces,
        size(totals.largest_free_bytes)
    );
    println!(
        "  by {by_spec}: {n_groups} groups{}",
        if n_groups > shown { format!(", the largest {shown}") } else { String::new() }
    );
    let lines = if by == GroupBy::Stack { 4 } else { 1 };
    for g in &groups {
        let share = if total > 0 { g.bytes as f64 * 100.0 / total as f64 } else { 0.0 };
        let key = short_stack(&g.key, lines).replace('\n', "\n                                  ");
        println!("  {:>10} {:>5.1}% {:>7}x  {key}", size(g.bytes), share, g.count);
    }
    Ok(())
}

fn oom(snap: &Snapshot, file: &str, opts: &Opts, rules: &Rules) -> Result<(), String> {
    let mut all = Vec::new();
    for d in devices(snap, file, opts.device.as_deref())? {
        let a = Analysis::build(snap, d, rules);
        let h = StateHistory::new(snap, d);
        let mut ex = a.explain_all(snap, &h);
        let peak = ex.pop();
        all.push((d, ex, peak));
    }
    if opts.json {
        let out: Vec<serde_json::Value> =
            all.iter().map(|(d, ooms, peak)| serde_json::json!({"device": d, "ooms": ooms, "peak": peak})).collect();
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "devices": out })).unwrap_or_default());
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

fn leaks(snap: &Snapshot, file: &str, opts: &Opts, rules: &Rules) -> Result<(), String> {
    let mut reports = Vec::new();
    for d in devices(snap, file, opts.device.as_deref())? {
        let a = Analysis::build(snap, d, rules);
        let r = a.leaks();
        reports.push((a, r));
    }
    if opts.json {
        let out: Vec<_> = reports.iter().map(|(_, r)| r).collect();
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "devices": out })).unwrap_or_default());
        return Ok(());
    }
    println!("{file}");
    for (a, r) in &reports {
        print!("{}", r.to_text(a));
    }
    Ok(())
}

fn findings(snap: &Snapshot, file: &str, opts: &Opts, rules: &Rules) -> Result<(), String> {
    let d = pick_device(snap, file, opts.device.as_deref())?;
    let a = Analysis::build(snap, d, rules);
    let f = a.findings(snap, &StateHistory::new(snap, d));
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&f).unwrap_or_default());
    } else {
        print!("{file}\n{}", f.to_text());
    }
    Ok(())
}
