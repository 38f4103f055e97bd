//! `memviz diff` against the independent Python reference
//! (tests/reference/diff_reference.py) and against runs that differ by known
//! allocations (tests/reference/add_allocations.py); `memviz overview`
//! against `memviz summary` and the Python reference's summary. Needs
//! python3 and ../shared (override with MEMVIZ_SHARED): their absence fails
//! the tests.

mod common;

use common::{json, memviz, repo_root, shared_dir, snapshot};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn python(script: &str, args: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 (is it installed?): {e}"));
    assert!(out.status.success(), "{script} {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn reference(args: &[&str]) -> Value {
    python(repo_root().join("tests/reference/diff_reference.py").to_str().unwrap(), args)
}

/// A fresh directory for generated files.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("memviz-diff-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn gen(out: &Path, args: &[&str]) -> String {
    let script = shared_dir().join("tools/gen_snapshot.py");
    let st = Command::new("python3").arg(script).arg(out).args(args).output().unwrap();
    assert!(st.status.success(), "gen_snapshot: {}", String::from_utf8_lossy(&st.stderr));
    out.to_str().unwrap().to_string()
}

/// (key, bytes_a, bytes_b, count_a, count_b), sorted by key.
fn rows(groups: &Value) -> Vec<(String, u64, u64, u64, u64)> {
    let mut v: Vec<_> = groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let n = |k: &str| g[k].as_u64().unwrap();
            (g["key"].as_str().unwrap().to_string(), n("bytes_a"), n("bytes_b"), n("count_a"), n("count_b"))
        })
        .collect();
    v.sort();
    v
}

fn sums(d: &Value) -> (u64, u64) {
    let g = d["groups"].as_array().unwrap();
    (g.iter().map(|g| g["bytes_a"].as_u64().unwrap()).sum(), g.iter().map(|g| g["bytes_b"].as_u64().unwrap()).sum())
}

const WITH_TRACE: [&str; 8] = [
    "small_train_step.pickle",
    "transformer_forward_bf16.pickle",
    "transformer_fullstep_ctx128.pickle",
    "transformer_forward_mixed_ctx256.pickle",
    "compile_context_metadata.pickle",
    "llm_inference_no_timestamps.pickle",
    "oom_pickle_named_json.json",
    "expandable_segments_map_unmap.pickle",
];

/// A snapshot against itself: nothing changed, and each side's groups add
/// up to its live total, which at the peak is `summary`'s peak.
#[test]
fn diff_with_itself_is_empty() {
    for name in WITH_TRACE {
        let file = snapshot(name);
        let summary = json(&["summary", &file, "--json"]);
        for by in ["stack", "category", "user"] {
            let d = json(&["diff", &file, &file, "--by", by, "--json"]);
            assert_eq!(d["changed"], 0, "{name} by {by}");
            assert_eq!((d["only_in_a"].as_u64(), d["only_in_b"].as_u64()), (Some(0), Some(0)), "{name}");
            let total = d["total_bytes"]["a"].as_u64().unwrap();
            let dev = d["a"]["device_name"].as_str().unwrap();
            assert_eq!(Some(total), summary["devices"][dev]["active_memory"]["peak_bytes"].as_u64(), "{name}");
            assert_eq!(sums(&d), (total, total), "{name} by {by}: groups add up");
            assert!(!d["groups"].as_array().unwrap().is_empty() || total == 0, "{name}");
        }
        let text = memviz(&["diff", &file, &file]);
        assert!(String::from_utf8_lossy(&text.stdout).contains("no change"), "{name}");
    }
}

/// Every group of either side, as the Python reference computes it.
#[test]
fn diff_against_reference() {
    let dir = temp_dir("reference");
    let two = gen(&dir.join("two_devices.pickle"), &["--events", "3000", "--devices", "2", "--seed", "3"]);
    let (bf16, mixed) =
        (snapshot("transformer_forward_bf16.pickle"), snapshot("transformer_forward_mixed_ctx256.pickle"));
    let (full, small) = (snapshot("transformer_fullstep_ctx128.pickle"), snapshot("small_train_step.pickle"));
    let oom = snapshot("oom_pickle_named_json.json");
    // FX frames: keys leave their FX lines out.
    let compiled = snapshot("compile_context_metadata.pickle");
    let cases: Vec<Vec<&str>> = vec![
        vec![&bf16, &mixed, "--by", "stack"],
        vec![&bf16, &mixed, "--by", "frame"],
        vec![&bf16, &mixed, "--by", "category"],
        vec![&full, &full, "--at-a", "start", "--at-b", "peak", "--by", "stack"],
        vec![&full, &full, "--at-a", "5000", "--at-b", "end", "--by", "frame"],
        vec![&small, &small, "--at-a", "40", "--at-b", "end", "--by", "category"],
        vec![&oom, &small, "--at-a", "oom", "--by", "stack"],
        vec![&compiled, &compiled, "--at-a", "start", "--by", "stack"],
        vec![&compiled, &full, "--at-b", "end", "--by", "frame"],
        vec![&two, &two, "--device-a", "0", "--device-b", "1", "--by", "stack"],
        vec![&two, &two, "--device-a", "0", "--device-b", "1", "--at", "end", "--by", "user"],
    ];
    for args in cases {
        let mut cli: Vec<&str> = vec!["diff"];
        cli.extend(&args);
        cli.push("--json");
        let got = json(&cli);
        let want = reference(&args);
        assert_eq!(got["total_bytes"]["a"], want["a"]["total_bytes"], "{args:?}");
        assert_eq!(got["total_bytes"]["b"], want["b"]["total_bytes"], "{args:?}");
        assert_eq!((&got["a"]["count"], &got["b"]["count"]), (&want["a"]["count"], &want["b"]["count"]), "{args:?}");
        let (g, w) = (rows(&got["groups"]), rows(&want["groups"]));
        assert!(!w.is_empty(), "{args:?}: the reference found no group");
        assert_eq!(g, w, "{args:?}");
        if !args.contains(&"frame") {
            let t = (want["a"]["total_bytes"].as_u64().unwrap(), want["b"]["total_bytes"].as_u64().unwrap());
            assert_eq!(sums(&got), t, "{args:?}: groups add up");
        }
        // Largest change first.
        let deltas: Vec<u64> = got["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g["bytes_b"].as_i64().unwrap() - g["bytes_a"].as_i64().unwrap()).unsigned_abs())
            .collect();
        let changed = got["changed"].as_u64().unwrap() as usize;
        assert!(deltas[..changed].windows(2).all(|w| w[0] >= w[1]), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Run B is run A plus three known allocations at the end: the diff at the
/// end finds exactly those, by stack and in total; reversed, they are only
/// in A.
#[test]
fn diff_finds_the_added_allocations() {
    let dir = temp_dir("added");
    for (seed, events) in [("1", "4000"), ("7", "20000")] {
        let a = gen(&dir.join(format!("a{seed}.pickle")), &["--events", events, "--seed", seed, "--iters", "4"]);
        let b = dir.join(format!("b{seed}.pickle")).to_str().unwrap().to_string();
        let script = repo_root().join("tests/reference/add_allocations.py");
        let added = python(script.to_str().unwrap(), &[&a, &b, "--count", "3"]);
        let want: Vec<(String, u64, u64, u64, u64)> = {
            let mut v: Vec<_> = added["added"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| (g["key"].as_str().unwrap().to_string(), 0, g["bytes"].as_u64().unwrap(), 0, 1))
                .collect();
            v.sort();
            v
        };
        assert_eq!(want.len(), 3);
        // By default rows line up by the innermost user frame: the added
        // stacks are all user code, so each is its first line.
        let d = json(&["diff", &a, &b, "--at", "end", "--json"]);
        let changed: Vec<_> = rows(&d["groups"]).into_iter().filter(|r| (r.1, r.3) != (r.2, r.4)).collect();
        let by_user: Vec<_> =
            want.iter().map(|w| (w.0.lines().next().unwrap().to_string(), w.1, w.2, w.3, w.4)).collect();
        assert_eq!(changed, by_user, "seed {seed}");
        let d = json(&["diff", &a, &b, "--at", "end", "--by", "stack", "--json"]);
        let changed: Vec<_> = rows(&d["groups"]).into_iter().filter(|r| (r.1, r.3) != (r.2, r.4)).collect();
        assert_eq!(changed, want, "seed {seed}");
        assert_eq!(d["changed"], 3);
        assert_eq!((d["only_in_b"].as_u64(), d["only_in_a"].as_u64()), (Some(3), Some(0)));
        let total = added["total_bytes"].as_u64().unwrap();
        assert_eq!(d["only_in_b_bytes"].as_u64(), Some(total));
        let (ta, tb) = (d["total_bytes"]["a"].as_u64().unwrap(), d["total_bytes"]["b"].as_u64().unwrap());
        assert_eq!(tb - ta, total);
        assert_eq!(sums(&d), (ta, tb));
        // By kind, the change is the added bytes and nothing else.
        let d = json(&["diff", &a, &b, "--at", "end", "--by", "category", "--json"]);
        let delta: i64 = d["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["bytes_b"].as_i64().unwrap() - g["bytes_a"].as_i64().unwrap())
            .sum();
        assert_eq!(delta, total as i64);
        let r = json(&["diff", &b, &a, "--at", "end", "--by", "stack", "--json"]);
        assert_eq!((r["only_in_a"].as_u64(), r["only_in_a_bytes"].as_u64()), (Some(3), Some(total)));
        // The largest of them comes first in the text too.
        let text = String::from_utf8_lossy(&memviz(&["diff", &a, &b, "--at", "end"]).stdout).to_string();
        assert!(text.contains("3 of") && text.contains("added.py:102:extra_2"), "{text}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The overview's numbers are `memviz summary`'s and the Python reference's;
/// files in rank order.
#[test]
fn overview_peaks_are_summary_peaks() {
    let dir = temp_dir("overview");
    let mut files = Vec::new();
    for r in [3, 0, 2, 1] {
        let mut args = vec!["--events", "3000", "--iters", "3"];
        let seed = (r + 20).to_string();
        args.extend(["--seed", &seed]);
        if r == 2 {
            args.push("--oom");
        }
        files.push(gen(&dir.join(format!("snap_rank{r}.pickle")), &args));
    }
    files.push(snapshot("two_devices_state_only.pickle"));
    files.push(snapshot("transformer_fullstep_ctx128.pickle"));
    let mut args = vec!["overview"];
    args.extend(files.iter().map(String::as_str));
    args.push("--json");
    let rows = json(&args)["rows"].as_array().unwrap().clone();
    let order: Vec<(Option<u64>, String)> =
        rows.iter().map(|r| (r["rank"].as_u64(), r["device_name"].as_str().unwrap().to_string())).collect();
    let want: Vec<(Option<u64>, String)> = vec![
        (Some(0), "0".into()),
        (Some(1), "0".into()),
        (Some(2), "0".into()),
        (Some(3), "0".into()),
        (None, "0".into()),
        (None, "0".into()),
        (None, "1".into()),
    ];
    // The two files without a rank come by name: transformer_... < two_...
    assert_eq!(order, want);
    assert!(rows[4]["file"].as_str().unwrap().ends_with("transformer_fullstep_ctx128.pickle"));
    let mut ooms = 0;
    for r in &rows {
        let file = r["file"].as_str().unwrap();
        let dev = r["device_name"].as_str().unwrap();
        let summary = &json(&["summary", file, "--json"])["devices"][dev];
        let script = repo_root().join("tests/reference/memviz_reference.py");
        let refs = &python(script.to_str().unwrap(), &["summary", file])["devices"][dev];
        for (s, label) in [(summary, "summary"), (refs, "reference")] {
            assert_eq!(r["peak_active_bytes"], s["active_memory"]["peak_bytes"], "{file} {dev} {label}");
            assert_eq!(r["end_bytes"], s["active_memory"]["end_bytes"], "{file} {dev} {label}");
            assert_eq!(r["peak_reserved_bytes"], s["segment_memory"]["peak_bytes"], "{file} {dev} {label}");
            assert_eq!(r["ooms"].as_u64().unwrap(), s["actions"]["oom"].as_u64().unwrap_or(0), "{file} {label}");
        }
        ooms += r["ooms"].as_u64().unwrap();
        let spark: Vec<u64> = r["sparkline"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        assert!(!spark.is_empty() && spark.len() <= 64);
        assert_eq!(
            spark.iter().max().copied(),
            r["peak_active_bytes"].as_u64(),
            "{file}: the sparkline shows the peak"
        );
    }
    assert_eq!(ooms, 1, "one generated rank ends in an OOM");
    let _ = std::fs::remove_dir_all(dir);
}

fn fails(args: &[&str], contains: &str) {
    let out = memviz(args);
    assert_eq!(out.status.code(), Some(1), "memviz {args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(contains), "memviz {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn errors() {
    let small = snapshot("small_train_step.pickle");
    fails(&["diff", &small], "two files are needed");
    fails(&["diff", &small, &small, &small], "more than two files");
    fails(&["diff", &small, &small, "--at", "soon"], "not a moment");
    fails(&["diff", &small, &small, "--at-b", "99999999"], "no event 99999999");
    fails(&["diff", &small, &small, "--by", "colour"], "--by");
    fails(&["diff", &small, "/nonexistent/b.pickle"], "/nonexistent/b.pickle");
    fails(&["diff", &small, &small, "--device-b", "7"], "no device 7");
    fails(&["summary", &small, &small], "more than one FILE");
    fails(&["overview", &small, "/nonexistent/c.pickle"], "/nonexistent/c.pickle");
}
