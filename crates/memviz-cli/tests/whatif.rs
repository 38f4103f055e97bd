//! `memviz whatif`: the JSON shape scripts rely on (issue 39), its figures
//! on a real recording, the text's verdict, --sweep, and bad input.

mod common;

use common::{json, memviz, shared_dir};
use serde_json::Value;

fn recording(name: &str) -> String {
    shared_dir().join("recordings").join(name).to_str().unwrap().to_string()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn json_has_exactly_the_issues_shape() {
    let file = recording("oom_fragmentation_2gib.pickle");
    let v = json(&["whatif", &file, "--set", "expandable_segments:True", "--json"]);
    assert_eq!(keys(&v), ["capacity", "device", "predicted", "recorded", "self_check", "settings"]);
    assert_eq!(v["device"], "0");
    assert_eq!(v["settings"]["expandable_segments"], true);
    assert_eq!(keys(&v["self_check"]), ["events", "exact", "first_divergence", "matched"]);
    assert_eq!(v["self_check"]["exact"], true);
    assert!(v["self_check"]["first_divergence"].is_null());
    assert_eq!(v["self_check"]["events"], v["self_check"]["matched"]);
    assert_eq!(keys(&v["recorded"]), ["oom_events", "peak_reserved_bytes"]);
    // The recording itself: one segment of 2 GiB, the OOM is its last event.
    assert_eq!(v["recorded"]["peak_reserved_bytes"], 2u64 << 30);
    assert_eq!(v["recorded"]["oom_events"], serde_json::json!([44]));
    let p = &v["predicted"];
    assert_eq!(keys(p), ["end_reserved_bytes", "min_capacity_bytes", "ooms", "peak_reserved_bytes"]);
    let oom = &p["ooms"][0];
    assert_eq!(keys(oom), ["event", "happens", "largest_free_bytes", "recorded", "request_bytes", "reserved_bytes"]);
    assert_eq!(
        (oom["event"].as_u64(), oom["recorded"].as_bool(), oom["happens"].as_bool()),
        (Some(44), Some(true), Some(false))
    );
    assert_eq!(oom["request_bytes"], 600u64 << 20);
    assert_eq!(keys(&v["capacity"]), ["bytes", "cap_bounds", "source"]);
    assert_eq!(v["capacity"]["source"], "inferred_cap");
    assert_eq!(v["capacity"]["cap_bounds"], serde_json::json!([2u64 << 30, (2u64 << 30) + (600u64 << 20)]));
}

#[test]
fn text_says_the_verdict_and_the_assumption_once() {
    let file = recording("oom_fragmentation_2gib.pickle");
    let out = memviz(&["whatif", &file, "--set", "max_split_size_mb:512"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("the OOM at event 44 would not have happened"), "{text}");
    assert!(text.contains("the model reproduces this recording: 23 of 23 events"), "{text}");
    assert_eq!(text.matches("assumes the program makes the same allocations").count(), 1, "{text}");
    // --capacity: the flag is the source.
    let v = json(&["whatif", &file, "--capacity", "2.3GiB", "--json"]);
    assert_eq!(v["capacity"]["source"], "flag");
    assert_eq!(v["capacity"]["bytes"], (2.3 * (1u64 << 30) as f64) as u64);
}

#[test]
fn sweep_ranks_configurations_by_peak_reserved() {
    let file = recording("oom_fragmentation_2gib.pickle");
    let v = json(&["whatif", &file, "--sweep", "--json"]);
    let list = v.as_array().unwrap();
    // Seven configurations: the capacity is known, so garbage_collection_threshold is among them.
    assert_eq!(list.len(), 7);
    // No OOM first (expandable_segments, max_split_size_mb avoid this one), then by peak.
    let rank: Vec<(bool, u64)> = list
        .iter()
        .map(|p| {
            let oom = p["predicted"]["ooms"].as_array().unwrap().iter().any(|o| o["happens"] == true);
            (oom, p["predicted"]["peak_reserved_bytes"].as_u64().unwrap())
        })
        .collect();
    assert!(rank.windows(2).all(|w| w[0] <= w[1]), "{rank:?}");
    assert!(!rank[0].0 && rank[6].0, "{rank:?}");
    assert_eq!(list[0]["settings"]["expandable_segments"], true);
}

#[test]
fn bad_settings_and_capacities_are_named() {
    let file = recording("oom_fragmentation_2gib.pickle");
    for (args, says) in [
        (vec!["--set", "max_split_size_mb:10"], "max_split_size_mb must be above 20"),
        (vec!["--set", "foo:1"], "unknown allocator setting \"foo\""),
        (vec!["--set", "expandable_segments"], "expected KEY:VALUE"),
        (vec!["--capacity", "80 parsecs"], "unknown unit"),
        (vec!["--capacity", "-1"], "must be a positive size"),
    ] {
        let mut a = vec!["whatif", file.as_str()];
        a.extend(args);
        let out = memviz(&a);
        assert!(!out.status.success(), "{a:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{a:?}: {err}");
    }
}
