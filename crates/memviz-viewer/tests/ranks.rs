//! Many files at once as www/ranks.js drives the viewer, natively on real
//! snapshots: overview rows against tests/reference/expected/ (Python's
//! pickle), the timelines of files not shown kept or dropped and built again, diff
//! sides and the diff JSON, rank order.

mod common;

use common::{bytes, expected, json, shares_to_done};

use memviz_viewer::{ranks, Viewer};

const A: &str = "transformer_fullstep_ctx128.pickle";
const B: &str = "small_train_step.pickle";

fn two() -> Viewer {
    let mut v = Viewer::new();
    assert_eq!(v.open(&format!("rank1_{A}"), &bytes(A)).unwrap(), 0);
    assert_eq!(v.open(&format!("rank0_{B}"), &bytes(B)).unwrap(), 1);
    v
}

#[test]
fn overview_rows_are_the_reference_and_survive_dropped_timelines() {
    let mut v = two();
    for (i, name) in [(0, A), (1, B)] {
        let o = json(&v.overview_json(i, 64).unwrap());
        let r = &expected(name)["summary"]["devices"]["0"];
        let row = &o["rows"][0];
        assert_eq!(row["peak_active_bytes"], r["active_memory"]["peak_bytes"], "{name}");
        assert_eq!(row["end_bytes"], r["active_memory"]["end_bytes"], "{name}");
        assert_eq!(row["trace_events"], r["trace_events"], "{name}");
        assert!(row["sparkline"].as_array().unwrap().len() <= 64);
    }
    assert_eq!(json(&v.overview_json(0, 8).unwrap())["rank"], 1);
    assert!(v.overview_json(2, 8).is_err());
    // File 1 is shown; file 0, shown before it, keeps its timeline.
    let peak1 = v.peak_bytes();
    v.trim_hidden_views();
    assert_eq!(v.peak_bytes(), peak1);
    assert!(v.timeline_bytes(0) > 0);
    v.select_file(0);
    assert_eq!(v.peak_bytes(), expected(A)["summary"]["devices"]["0"]["active_memory"]["peak_bytes"].as_u64().unwrap());
}

#[test]
fn hidden_files_keep_their_timelines_most_recent_first_within_the_largest_model() {
    // A's timeline is over half its model (the largest): two hidden ones do
    // not fit, B's small one does.
    let mut v = two();
    assert_eq!(v.open(&format!("rank2_{A}"), &bytes(A)).unwrap(), 2);
    assert_eq!(v.open(&format!("rank3_{A}"), &bytes(A)).unwrap(), 3);
    let a = v.timeline_bytes(3);
    assert!(a > 0 && v.timeline_bytes(1) < a);
    v.trim_hidden_views();
    // Shown last to first: 3 (current), 2, 1, 0.
    assert_eq!([v.timeline_bytes(0), v.timeline_bytes(2), v.timeline_bytes(3)], [0, a, a]);
    assert!(v.timeline_bytes(1) > 0);
    // Showing 1: 3 and 2 do not both fit; 3, shown after 2, stays.
    v.select_file(1);
    v.trim_hidden_views();
    assert_eq!([v.timeline_bytes(0), v.timeline_bytes(2), v.timeline_bytes(3)], [0, 0, a]);
    // A file freed is replayed again in steps before it is shown (the
    // page's slices), then shown without a replay: Python's peak.
    assert!(v.prepare_file_step(0, Some(7), 1).unwrap_err().contains("no device 7"));
    assert!(v.prepare_file_step(9, None, 1).is_err());
    let mut calls = 1;
    while !v.prepare_file_step(0, None, 1000).unwrap() {
        calls += 1;
    }
    assert!(calls > 10, "{calls} steps of 1000 events");
    assert_eq!(v.timeline_bytes(0), a);
    assert!(v.prepare_file_step(0, None, 1).unwrap());
    v.select_file(0);
    assert_eq!(v.peak_bytes(), expected(A)["summary"]["devices"]["0"]["active_memory"]["peak_bytes"].as_u64().unwrap());
    assert_eq!(v.timeline_bytes(0), a);
}

#[test]
fn diff_of_two_files_and_of_a_file_with_itself() {
    let mut v = two();
    let a = v.diff_side(0, 0, "peak").unwrap();
    let b = v.diff_side(1, 0, "peak").unwrap();
    let info = json(&ranks::side_info_json(&a));
    assert_eq!(info["total_bytes"], expected(A)["summary"]["devices"]["0"]["active_memory"]["peak_bytes"]);
    let d = json(&ranks::diff_json(&a, &b, "stack", 5).unwrap());
    let tree = json(&ranks::diff_tree_json(&a, &b, 0));
    assert!(d["groups"].as_array().unwrap().len() <= 5);
    assert!(d["group_count"].as_u64().unwrap() >= d["groups"].as_array().unwrap().len() as u64);
    // The icicle's tree: frames written once, nodes pointing at them; the
    // root holds each side's live bytes (Python's peaks).
    let frames = tree["frames"].as_array().unwrap();
    let nodes = tree["nodes"].as_array().unwrap();
    assert!(nodes.len() > frames.len(), "{} nodes share {} frames", nodes.len(), frames.len());
    assert!(nodes.iter().all(|n| (n[3].as_u64().unwrap() as usize) < frames.len()));
    let root = &nodes[0];
    assert_eq!(frames[root[3].as_u64().unwrap() as usize], "all");
    let peak = |name: &str| expected(name)["summary"]["devices"]["0"]["active_memory"]["peak_bytes"].clone();
    assert_eq!((root[4].clone(), root[5].clone()), (peak(A), peak(B)));
    let same = json(&ranks::diff_json(&a, &a, "category", 100).unwrap());
    assert_eq!(same["changed"], 0);
    assert!(ranks::diff_json(&a, &b, "colour", 5).is_err());
    assert!(v.diff_side(0, 7, "peak").is_err());
    assert!(v.diff_side(0, 0, "nonsense").is_err());
}

#[test]
fn diff_sides_are_the_same_from_kept_and_shown_analyses() {
    let mut v = two();
    let sides = [(0, "peak"), (1, "peak"), (0, "step:100"), (1, "end"), (0, "peak")];
    // Each side's info and its diff against file 0's peak.
    let all = |v: &mut Viewer| -> Vec<(String, String)> {
        let base = v.diff_side(0, 0, "peak").unwrap();
        sides
            .iter()
            .map(|&(f, m)| {
                let s = v.diff_side(f, 0, m).unwrap();
                (
                    ranks::side_info_json(&s),
                    ranks::diff_json(&base, &s, "frame", 50).unwrap() + &ranks::diff_tree_json(&base, &s, 0),
                )
            })
            .collect()
    };
    // Built for the diff (and kept: A and B), then from the analysis of the
    // file shown, which the "Alive at" panel built.
    let kept = all(&mut v);
    v.moment_json("peak", 10).unwrap();
    assert!(v.analysis_built());
    assert_eq!(all(&mut v), kept);
    let peak_b = json(&kept[1].0)["total_bytes"].clone();
    assert_eq!(peak_b, expected(B)["summary"]["devices"]["0"]["active_memory"]["peak_bytes"]);
    assert_ne!(kept[0].1, kept[2].1, "another moment, another diff");
}

#[test]
fn diff_sides_built_in_steps_are_the_ones_built_at_once() {
    // File 0 (A) is hidden once file 1 is shown: its timeline kept, or
    // freed; either way its side is built in steps, then diffed.
    let mut at_once = two();
    let want: Vec<String> = ["peak", "step:100", "end"]
        .iter()
        .map(|m| ranks::side_info_json(&at_once.diff_side(0, 0, m).unwrap()))
        .collect();
    let events = expected(A)["summary"]["devices"]["0"]["trace_events"].as_u64().unwrap() as usize;
    for freed in [false, true] {
        let mut v = two();
        if freed {
            // Two more copies of A shown after it: its timeline does not fit.
            v.open(&format!("rank2_{A}"), &bytes(A)).unwrap();
            v.open(&format!("rank3_{A}"), &bytes(A)).unwrap();
            v.trim_hidden_views();
            assert_eq!(v.timeline_bytes(0), 0, "file 0's timeline freed");
        } else {
            assert!(v.timeline_bytes(0) > 0, "file 0's timeline kept");
        }
        assert!(v.prepare_diff_side_step(0, 7, 1).unwrap_err().contains("no device 7"));
        assert!(v.prepare_diff_side_step(9, 0, 1).is_err());
        let shares = shares_to_done(|| v.prepare_diff_side_step(0, 0, 1000).unwrap());
        // The phases and links walk the trace twice, 1000 events a call
        // (and the replay once more when the timeline was freed).
        let walks = if freed { 3 } else { 2 };
        assert!(shares.len() >= walks * events.div_ceil(1000), "freed {freed}: {} calls", shares.len());
        assert_eq!(v.prepare_diff_side_step(0, 0, 1000).unwrap(), 1.0, "kept");
        let got: Vec<String> =
            ["peak", "step:100", "end"].iter().map(|m| ranks::side_info_json(&v.diff_side(0, 0, m).unwrap())).collect();
        assert_eq!(got, want, "freed {freed}");
        // Python's peak.
        assert_eq!(json(&got[0])["total_bytes"], expected(A)["summary"]["devices"]["0"]["active_memory"]["peak_bytes"]);
    }
}

#[test]
fn rank_order_and_median() {
    let names: Vec<String> = ["b.pickle", "rank10.pickle", "rank2.pickle", "a.pickle"].map(String::from).to_vec();
    assert_eq!(ranks::rank_order(&names), vec![2, 1, 3, 0]);
    assert_eq!(ranks::rank_of("rank2.pickle"), Some(2));
    assert_eq!(ranks::rank_of("a.pickle"), None);
    assert_eq!(ranks::distance_from_median(&[100.0, 200.0, 300.0])[1], 0.0);
}
