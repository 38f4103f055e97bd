//! Many snapshots at once (one per rank of a distributed run): the rank a
//! file name carries, and one overview row per file and device.
//!
//! The row's numbers are `memviz summary`'s ([`crate::summary::summarize`]),
//! so the overview and the CLI can never disagree; the sparkline is the
//! Active Memory Timeline's per-step totals reduced to a few samples.

use serde::Serialize;

use crate::model::Snapshot;
use crate::summary::summarize;
use crate::timeline::{Timeline, TimelineKind};

/// The rank a file name carries, if any: `rank3` / `rank_3` / `RANK-3`, else
/// `r3` between separators (`snap_r3_.pickle`, `x.r3.pkl`), else a number
/// between a dash and a dot (`snapshot-3.pickle`). Only the last path
/// component counts; within a rule, the last match wins (`run2_rank5`: 5).
pub fn rank_of(path: &str) -> Option<u32> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    let b = lower.as_bytes();
    let digits = |from: usize| -> Option<(u32, usize)> {
        let end = from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        if end == from {
            return None;
        }
        Some((lower[from..end].parse().ok()?, end))
    };
    let sep = |c: u8| !c.is_ascii_alphanumeric();
    // rank3, rank_3, rank-3, rank=3
    let mut found = None;
    for (i, _) in lower.match_indices("rank") {
        let mut j = i + 4;
        if j < b.len() && matches!(b[j], b'_' | b'-' | b'=') {
            j += 1;
        }
        if j < b.len() {
            if let Some((r, _)) = digits(j) {
                found = Some(r);
            }
        }
    }
    if found.is_some() {
        return found;
    }
    // _r3_, -r3., .r3_ ... (a separator before the r and after the digits)
    for i in 1..b.len() {
        if b[i] == b'r' && sep(b[i - 1]) && i + 1 < b.len() {
            if let Some((r, end)) = digits(i + 1) {
                if end == b.len() || sep(b[end]) {
                    found = Some(r);
                }
            }
        }
    }
    if found.is_some() {
        return found;
    }
    // -3.
    for i in 0..b.len() {
        if b[i] == b'-' && i + 1 < b.len() {
            if let Some((r, end)) = digits(i + 1) {
                if b.get(end) == Some(&b'.') {
                    found = Some(r);
                }
            }
        }
    }
    found
}

/// The order to show files in: those with a rank by rank (then name), then
/// the others by name. Returns indices into `names`.
pub fn rank_order(names: &[&str]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..names.len()).collect();
    idx.sort_by(|&x, &y| {
        let key = |i: usize| (rank_of(names[i]).map_or((1, 0), |r| (0, r)), names[i]);
        key(x).cmp(&key(y)).then(x.cmp(&y))
    });
    idx
}

/// One row of the overview: one device of one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverviewRow {
    pub device: u32,
    /// `0`, `1`, ... or `host`.
    pub device_name: String,
    /// The Active Memory Timeline's peak and end (`memviz summary`'s).
    pub peak_active_bytes: u64,
    pub end_bytes: u64,
    /// The Active Cached Segment Timeline's peak: reserved memory.
    pub peak_reserved_bytes: u64,
    pub end_reserved_bytes: u64,
    /// `oom` events in the trace.
    pub ooms: u64,
    pub trace_events: u64,
    /// Steps of the Active Memory Timeline.
    pub steps: u32,
    /// The Active Memory Timeline in at most `samples` buckets of steps,
    /// each the largest total in its bucket (so the peak always shows).
    pub sparkline: Vec<u64>,
}

/// One row per device (as `memviz summary` lists them) with a sparkline of
/// at most `samples` points.
pub fn overview(snap: &Snapshot, samples: usize) -> Vec<OverviewRow> {
    overview_using(snap, samples, None)
}

/// [`overview`], taking the Active Memory Timeline of one device from
/// `built` when the caller has it (the page has just built it for the view;
/// a second one would only raise the page's peak memory).
pub fn overview_using(snap: &Snapshot, samples: usize, built: Option<&Timeline>) -> Vec<OverviewRow> {
    let summary = summarize(snap);
    summary
        .devices
        .0
        .iter()
        .map(|(d, s)| {
            let own;
            let tl = match built {
                Some(t) if t.device == *d && t.kind == TimelineKind::ActiveMemory => t,
                _ => {
                    own = Timeline::build(snap, *d, TimelineKind::ActiveMemory);
                    &own
                }
            };
            OverviewRow {
                device: *d,
                device_name: summary.devices.name(*d),
                peak_active_bytes: s.active_memory.peak_bytes,
                end_bytes: s.active_memory.end_bytes,
                peak_reserved_bytes: s.segment_memory.peak_bytes,
                end_reserved_bytes: s.segment_memory.end_bytes,
                ooms: s.actions.get("oom").copied().unwrap_or(0),
                trace_events: s.trace_events,
                steps: tl.n_steps(),
                sparkline: sparkline(tl.start_bytes, &tl.total, samples),
            }
        })
        .collect()
}

/// `[start, totals...]` in at most `samples` buckets, each its maximum.
pub fn sparkline(start: u64, totals: &[u64], samples: usize) -> Vec<u64> {
    let n = totals.len() + 1;
    let k = samples.clamp(1, n);
    let at = |i: usize| if i == 0 { start } else { totals[i - 1] };
    (0..k)
        .map(|j| {
            let (lo, hi) = (j * n / k, ((j + 1) * n / k).max(j * n / k + 1));
            (lo..hi).map(at).max().unwrap_or(0)
        })
        .collect()
}

/// How far each peak is from the median peak, as a fraction of the median
/// (0: at the median, 0.5: 50 % above, -0.5: 50 % below); 0 for all when
/// the median is 0. Colours the outlier ranks.
pub fn distance_from_median(peaks: &[u64]) -> Vec<f64> {
    if peaks.is_empty() {
        return Vec::new();
    }
    let mut s: Vec<u64> = peaks.to_vec();
    s.sort_unstable();
    let m = s.len() / 2;
    let median = if s.len() % 2 == 1 { s[m] as f64 } else { (s[m - 1] as f64 + s[m] as f64) / 2.0 };
    peaks.iter().map(|&p| if median > 0.0 { (p as f64 - median) / median } else { 0.0 }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_from_names() {
        let cases: &[(&str, Option<u32>)] = &[
            ("snapshot_rank3.pickle", Some(3)),
            ("rank_12.pkl", Some(12)),
            ("RANK-0.pickle", Some(0)),
            ("/runs/r9_/run2_rank5.pickle", Some(5)),
            ("mem_r3_.pickle", Some(3)),
            ("mem.r14.pickle.gz", Some(14)),
            ("mem_r3", Some(3)),
            ("snapshot-3.pickle", Some(3)),
            ("2024-06-01-7.pickle", Some(7)),
            ("C:\\snaps\\memory-11.json", Some(11)),
            ("transformer_fullstep_ctx128.pickle", None),
            ("error3.pickle", None),
            ("ranking.pickle", None),
            ("r3.pickle", None),
            ("snapshot-3x.pickle", None),
            ("", None),
            ("rank99999999999999999999.pkl", None),
        ];
        for &(name, want) in cases {
            assert_eq!(rank_of(name), want, "{name}");
        }
        let names = ["b.pickle", "x_rank10.pickle", "a.pickle", "x_rank2.pickle", "x_rank1.pickle"];
        assert_eq!(rank_order(&names), vec![4, 3, 1, 2, 0]);
    }

    #[test]
    fn sparkline_keeps_the_peak() {
        let totals: Vec<u64> = (0..1000).map(|i| if i == 637 { 99 } else { i % 7 }).collect();
        let s = sparkline(3, &totals, 50);
        assert_eq!(s.len(), 50);
        assert_eq!(s.iter().max(), Some(&99));
        assert_eq!(sparkline(5, &[], 50), vec![5]);
        assert_eq!(sparkline(1, &[2, 3], 10), vec![1, 2, 3]);
        assert_eq!(sparkline(1, &[2, 3], 0), vec![3]);
    }

    #[test]
    fn a_built_timeline_gives_the_same_rows() {
        let json = r#"{"segments": [], "device_traces": [[
            {"action": "alloc", "addr": 4096, "size": 100, "stream": 0},
            {"action": "alloc", "addr": 8192, "size": 50, "stream": 0},
            {"action": "free_completed", "addr": 4096, "size": 100, "stream": 0},
            {"action": "oom", "addr": 0, "size": 1000, "stream": 0}]]}"#;
        let snap = crate::load(json.as_bytes()).unwrap();
        let rows = overview(&snap, 10);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.peak_active_bytes, r.end_bytes, r.ooms, r.steps), (150, 50, 1, 3));
        assert_eq!(r.sparkline, vec![0, 100, 150, 150]);
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        assert_eq!(overview_using(&snap, 10, Some(&tl)), rows);
        let other = Timeline::build(&snap, 0, TimelineKind::CachedSegments);
        assert_eq!(overview_using(&snap, 10, Some(&other)), rows);
    }

    #[test]
    fn distance() {
        assert_eq!(distance_from_median(&[10, 10, 20, 5]), vec![0.0, 0.0, 1.0, -0.5]);
        assert_eq!(distance_from_median(&[0, 0]), vec![0.0, 0.0]);
        assert!(distance_from_median(&[]).is_empty());
    }
}
