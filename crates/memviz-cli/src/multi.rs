//! Many snapshots at once: `memviz diff A B` (what changed between two
//! snapshots, two devices or two moments: `memviz_core::analysis::diff`) and
//! `memviz overview FILE...` (`memviz_core::ranks`).

use memviz_core::analysis::diff::{self, to_text};
use memviz_core::analysis::{GroupBy, Moment};
use memviz_core::format::format_size;
use memviz_core::ranks;

use crate::{api, load, Opts};

pub(crate) fn diff(file_a: &str, opts: &Opts) -> Result<(), String> {
    let file_b = match opts.more_files.as_slice() {
        [b] => b.clone(),
        [] => return Err("diff: two files are needed: memviz diff A B (the same file twice for two moments)".into()),
        _ => return Err("diff: more than two files given: memviz diff A B".into()),
    };
    memviz_core::analysis::Rules::parse(&opts.categories)?;
    // Rows line up by the user's code: stacks that differ only below it
    // (another kernel, another allocator path) are one row.
    let by_spec = opts.by.as_deref().unwrap_or(api::DIFF_BY);
    let by = GroupBy::from_name(by_spec)
        .ok_or_else(|| format!("--by {by_spec:?}: expected stack, user, frame or category"))?;
    let (at_a, at_b) = api::diff_moments(opts);
    Moment::parse(&at_a)?;
    Moment::parse(&at_b)?;
    // One side at a time: only the side's text-keyed sums outlive its file.
    let snap_a = load(file_a)?;
    let a = api::diff_side(&snap_a, file_a, opts, false)?;
    let b = if file_b == file_a {
        api::diff_side(&snap_a, &file_b, opts, true)?
    } else {
        drop(snap_a);
        let snap_b = load(&file_b)?;
        api::diff_side(&snap_b, &file_b, opts, true)?
    };
    let d = diff::diff(&a, &b, by);
    if opts.json {
        println!("{}", serde_json::to_string_pretty(&api::diff_json(&d, opts)).unwrap_or_default());
    } else {
        print!("{}", to_text(&d, opts.limit.unwrap_or(20)));
    }
    Ok(())
}

/// Sparkline points per row in `--json` (the page asks for its own).
const SPARKLINE: usize = 64;

pub(crate) fn overview(first: &str, opts: &Opts) -> Result<(), String> {
    let mut files: Vec<&str> = vec![first];
    files.extend(opts.more_files.iter().map(String::as_str));
    let order = ranks::rank_order(&files);
    // One file at a time: only its rows outlive it.
    let mut rows = Vec::new();
    for &i in &order {
        let snap = load(files[i])?;
        for r in ranks::overview(&snap, SPARKLINE) {
            rows.push((files[i], ranks::rank_of(files[i]), r));
        }
    }
    let peaks: Vec<u64> = rows.iter().map(|(_, _, r)| r.peak_active_bytes).collect();
    let dist = ranks::distance_from_median(&peaks);
    if opts.json {
        let out: Vec<serde_json::Value> = rows
            .iter()
            .zip(&dist)
            .map(|((file, rank, r), d)| {
                let mut v = serde_json::to_value(r).unwrap_or_default();
                v["file"] = (*file).into();
                v["rank"] = (*rank).into();
                v["distance_from_median"] = (*d).into();
                v
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "rows": out })).unwrap_or_default());
        return Ok(());
    }
    let size = |b: u64| format_size(b, false);
    println!(
        "{:>5} {:>6} {:>11} {:>13} {:>11} {:>5} {:>8}  file",
        "rank", "device", "peak active", "peak reserved", "end", "OOMs", "vs median"
    );
    for ((file, rank, r), d) in rows.iter().zip(&dist) {
        println!(
            "{:>5} {:>6} {:>11} {:>13} {:>11} {:>5} {:>+8.1}%  {file}",
            rank.map_or("-".to_string(), |r| r.to_string()),
            r.device_name,
            size(r.peak_active_bytes),
            size(r.peak_reserved_bytes),
            size(r.end_bytes),
            r.ooms,
            d * 100.0
        );
    }
    Ok(())
}
