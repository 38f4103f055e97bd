//! The "Alive at" panel's table as www/moment.js asks for it
//! (`Viewer::moment_rows_json`), natively on a real snapshot: every group of
//! the moment, filtered, sorted and paged, against the groups that
//! tests/reference/analysis_reference.py (Python's own pickle) computes at
//! the peak.

mod common;

use std::process::Command;

use common::{json, open, repo, snapshot, FULLSTEP};
use serde_json::Value;

/// The reference's groups at the peak of device 0: (key, bytes, count).
fn reference_groups(by: &str) -> Vec<(String, u64, u64)> {
    let path = snapshot(FULLSTEP);
    let out = Command::new("python3")
        .arg(repo().join("tests/reference/analysis_reference.py"))
        .arg(&path)
        .output()
        .expect("python3 runs tests/reference/analysis_reference.py");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let peak = r["devices"]["0"]["moments"].as_array().unwrap().iter().find(|m| m["at"] == "peak").unwrap().clone();
    peak["groups"][by]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["key"].as_str().unwrap().to_string(), g["bytes"].as_u64().unwrap(), g["count"].as_u64().unwrap()))
        .collect()
}

fn rows(
    v: &mut memviz_viewer::Viewer,
    by: &str,
    filter: &str,
    sort: &str,
    desc: bool,
    offset: usize,
    limit: usize,
) -> (Vec<(String, u64, u64)>, u64) {
    let r = json(&v.moment_rows_json(by, filter, sort, desc, offset, limit).unwrap());
    let rows = r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["key"].as_str().unwrap().to_string(), g["bytes"].as_u64().unwrap(), g["count"].as_u64().unwrap()))
        .collect();
    (rows, r["matched"].as_u64().unwrap())
}

#[test]
fn table_rows_are_the_references_groups_filtered_sorted_and_paged() {
    let want = reference_groups("frame");
    assert!(want.len() > 60, "{} frames", want.len());
    let mut v = open(FULLSTEP);
    assert!(v.moment_rows_json("frame", "", "bytes", true, 0, 30).is_err(), "no moment yet");
    v.moment_json("peak", 10).unwrap();

    // Every group, a page at a time, largest first.
    let mut all = Vec::new();
    for page in 0.. {
        let (r, matched) = rows(&mut v, "frame", "", "bytes", true, page * 30, 30);
        assert_eq!(matched as usize, want.len());
        if r.is_empty() {
            break;
        }
        all.extend(r);
    }
    let mut sorted = want.clone();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
    assert_eq!(all, sorted);

    // The filter ignores case and searches the whole key.
    let needle = "Linear";
    let (r, matched) = rows(&mut v, "frame", &needle.to_uppercase(), "bytes", true, 0, 1000);
    let hits: Vec<_> = sorted.iter().filter(|g| g.0.to_lowercase().contains(&needle.to_lowercase())).cloned().collect();
    assert!(!hits.is_empty(), "no frame contains {needle}");
    assert_eq!((r, matched as usize), (hits.clone(), hits.len()));

    // By count, fewest first; by key, A to Z ignoring case.
    let (r, _) = rows(&mut v, "frame", "", "count", false, 0, 1000);
    assert_eq!(r.iter().map(|g| g.2).collect::<Vec<_>>(), {
        let mut c: Vec<u64> = want.iter().map(|g| g.2).collect();
        c.sort_unstable();
        c
    });
    let (r, _) = rows(&mut v, "frame", "", "key", true, 0, 1000);
    let mut keys: Vec<String> = want.iter().map(|g| g.0.to_lowercase()).collect();
    keys.sort_unstable();
    keys.reverse();
    assert_eq!(r.iter().map(|g| g.0.to_lowercase()).collect::<Vec<_>>(), keys);

    // By innermost user frame: all of the reference's.
    let user = reference_groups("user_frame");
    let (r, matched) = rows(&mut v, "user_frame", "", "bytes", true, 0, 1000);
    assert_eq!(r.iter().map(|g| g.1).collect::<Vec<_>>(), user.iter().map(|g| g.1).collect::<Vec<_>>());
    assert_eq!(matched as usize, user.len());

    // A page past the end is empty; a bad grouping or sort names itself.
    assert_eq!(rows(&mut v, "frame", "", "bytes", true, 100_000, 30).0, vec![]);
    assert!(v.moment_rows_json("frames", "", "bytes", true, 0, 30).unwrap_err().contains("\"frames\""));
    assert!(v.moment_rows_json("frame", "", "size", true, 0, 30).unwrap_err().contains("\"size\""));
}

/// The reference's (total bytes, count) at the peak of device 0.
fn reference_peak() -> (u64, u64) {
    let out = Command::new("python3")
        .arg(repo().join("tests/reference/analysis_reference.py"))
        .arg(snapshot(FULLSTEP))
        .output()
        .expect("python3 runs tests/reference/analysis_reference.py");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let peak = r["devices"]["0"]["moments"].as_array().unwrap().iter().find(|m| m["at"] == "peak").unwrap().clone();
    (peak["total_bytes"].as_u64().unwrap(), peak["count"].as_u64().unwrap())
}

#[test]
fn the_icicle_tree_comes_apart_with_each_frame_once() {
    let mut v = open(FULLSTEP);
    assert!(v.moment_tree_json(0).unwrap_err().contains("set one first"));
    let m = json(&v.moment_json("peak", 10).unwrap());
    assert!(m["tree"].as_array().unwrap().is_empty(), "the moment's own JSON leaves the tree out");
    let (total, count) = reference_peak();
    let t = json(&v.moment_tree_json(0).unwrap());
    let frames: Vec<&str> = t["frames"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    // [id, parent, depth, frame, bytes, count]
    let nodes: Vec<[u64; 6]> =
        t["nodes"].as_array().unwrap().iter().map(|n| std::array::from_fn(|i| n[i].as_u64().unwrap())).collect();
    assert_eq!(nodes[0], [0, u32::MAX as u64, 0, 0, total, count], "the root holds everything alive at the peak");
    assert_eq!(frames[0], "all");
    let mut distinct = frames.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), frames.len(), "each frame's text once");
    assert!(frames.len() < nodes.len(), "{} frames, {} nodes: nodes share frames", frames.len(), nodes.len());
    // Parents first, and each holds at least what its children hold.
    let at: std::collections::HashMap<u64, usize> = nodes.iter().enumerate().map(|(i, n)| (n[0], i)).collect();
    let mut under = vec![0u64; nodes.len()];
    for (i, n) in nodes.iter().enumerate().skip(1) {
        let p = at[&n[1]];
        assert!(p < i && nodes[p][2] + 1 == n[2], "node {} after its parent, one level down", n[0]);
        under[p] += n[4];
    }
    assert!(nodes.iter().zip(&under).all(|(n, u)| n[4] >= *u));
    // A floor keeps the root and the nodes that reach it.
    let floor = total / 100;
    let cut = json(&v.moment_tree_json(floor).unwrap());
    let kept: Vec<u64> = cut["nodes"].as_array().unwrap().iter().skip(1).map(|n| n[4].as_u64().unwrap()).collect();
    assert_eq!(kept.len(), nodes.iter().skip(1).filter(|n| n[4] >= floor).count());
    assert!(kept.iter().all(|&b| b >= floor));
}
