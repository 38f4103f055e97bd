//! `memviz top`, `memviz oom`, `memviz leaks` and `memviz findings` against the independent
//! Python reference (tests/reference/analysis_reference.py) and against
//! `memviz summary`; and their errors. Needs python3 and ../shared (override
//! with MEMVIZ_SHARED): their absence fails the tests.

mod common;

use common::{json, memviz, repo_root, snapshot};
use std::process::Command;

use serde_json::Value;

fn reference(file: &str) -> Value {
    let out = Command::new("python3")
        .arg(repo_root().join("tests/reference/analysis_reference.py"))
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 (is it installed?): {e}"));
    assert!(out.status.success(), "the reference failed on {file}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn keyed(groups: &Value) -> Vec<(String, u64, u64)> {
    groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["key"].as_str().unwrap().to_string(), g["bytes"].as_u64().unwrap(), g["count"].as_u64().unwrap()))
        .collect()
}

/// At the peak, `top`'s total is `summary`'s active memory peak, on every
/// real snapshot with a trace.
#[test]
fn top_at_the_peak_is_the_summary_peak() {
    for name in [
        "small_train_step.pickle",
        "transformer_forward_bf16.pickle",
        "transformer_fullstep_ctx128.pickle",
        "transformer_forward_mixed_ctx256.pickle",
        "compile_context_metadata.pickle",
        "llm_inference_no_timestamps.pickle",
        "oom_pickle_named_json.json",
        "expandable_segments_map_unmap.pickle",
    ] {
        let file = snapshot(name);
        let summary = json(&["summary", &file, "--json"]);
        let top = json(&["top", &file, "--json"]);
        let d = top["device"].as_u64().unwrap().to_string();
        assert_eq!(top["total_bytes"], summary["devices"][&d]["active_memory"]["peak_bytes"], "{name}");
        let sum: u64 = top["groups"].as_array().unwrap().iter().map(|g| g["bytes"].as_u64().unwrap()).sum();
        assert_eq!(top["total_bytes"].as_u64(), Some(sum), "{name}: groups add up");
        assert_eq!(top["group_count"].as_u64(), Some(top["groups"].as_array().unwrap().len() as u64));
    }
}

/// `top --by ...` at each moment the reference computes, on the real OOM.
#[test]
fn top_groups_against_reference() {
    let file = snapshot("oom_pickle_named_json.json");
    let expected = reference(&file);
    let dev = &expected["devices"]["0"];
    let moments = dev["moments"].as_array().unwrap();
    assert!(!moments.is_empty(), "the reference lists no moments");
    for m in moments {
        let at = m["at"].as_str().unwrap();
        for (by, key) in [("stack", "stack"), ("user", "user_frame"), ("frame", "frame"), ("category", "category")] {
            let top = json(&["top", &file, "--at", at, "--by", by, "--json"]);
            assert_eq!(top["total_bytes"], m["total_bytes"], "{at}");
            assert_eq!(top["at_event"], m["event"], "{at}");
            assert_eq!(top["reserved_bytes"], m["state"]["reserved_bytes"], "{at}");
            assert_eq!(top["largest_free_bytes"], m["state"]["free"]["largest"], "{at}");
            assert_eq!(keyed(&top["groups"]), keyed(&m["groups"][key]), "{at} by {by}");
        }
    }
    let limited = json(&["top", &file, "--at", "oom", "--by", "frame", "--limit", "3", "--json"]);
    assert_eq!(limited["groups"].as_array().unwrap().len(), 3);
}

/// The real OOM: 384 MiB asked for, 252 MiB free on the device.
#[test]
fn oom_explained() {
    let file = snapshot("oom_pickle_named_json.json");
    let out = json(&["oom", &file, "--json"]);
    let dev = &out["devices"][0];
    let oom = &dev["ooms"][0];
    assert_eq!(oom["request"]["bytes"], 402653184u64);
    assert_eq!(oom["request"]["device_free_bytes"], 264634368u64);
    assert_eq!(oom["at"]["event"], 1117);
    let expected = reference(&file);
    let m =
        expected["devices"]["0"]["moments"].as_array().unwrap().iter().find(|m| m["at"] == "oom:0").unwrap().clone();
    assert_eq!(oom["totals"]["reserved_bytes"], m["state"]["reserved_bytes"]);
    assert_eq!(oom["totals"]["allocated_bytes"], m["total_bytes"]);
    assert_eq!(oom["totals"]["free_pieces"], m["state"]["free"]["pieces"]);
    assert_eq!(oom["usable"]["largest"], m["state"]["usable"]["largest"]);
    let advice: Vec<&str> = oom["advice"].as_array().unwrap().iter().map(|a| a["kind"].as_str().unwrap()).collect();
    assert_eq!(advice, vec!["live_tensors"]);
    assert_eq!(dev["peak"]["what"], "peak");
    let text = String::from_utf8(memviz(&["oom", &file]).stdout).unwrap();
    assert!(
        text.contains(
            "OOM on device 0 at event 1117\n  requested      384.0MiB on stream 0\n  device free    252.4MiB\n"
        ),
        "{text}"
    );
    // No OOM in the trace: said so, and the peak still explained.
    let text = String::from_utf8(memviz(&["oom", &snapshot("small_train_step.pickle")]).stdout).unwrap();
    assert!(text.contains("device 0: no oom event in the trace\nPeak on device 0: 3.0GiB"), "{text}");
}

#[test]
fn leaks_reported() {
    let fixture = repo_root().join("tests/reference/fixtures/leak_growth.json");
    let out = json(&["leaks", fixture.to_str().unwrap(), "--json"]);
    let dev = &out["devices"][0];
    assert_eq!(dev["growing"].as_array().unwrap().len(), 1);
    assert_eq!(dev["growing"][0]["live_bytes"], serde_json::json!([1048576, 2097152, 3145728, 4194304]));
    assert_eq!(dev["pending_free_count"], 1);
    let expected = reference(fixture.to_str().unwrap());
    let lk = &expected["devices"]["0"]["leaks"];
    assert_eq!(keyed(&dev["alive_at_end"]), keyed(&lk["alive_at_end"]));
    assert_eq!(dev["samples"], lk["samples"]);
    let text = String::from_utf8(memviz(&["leaks", fixture.to_str().unwrap()]).stdout).unwrap();
    assert!(text.contains("  growth: 4 samples (iteration starts: a forward pass after a backward or optimizer step); 1 stacks grow\n    +3.0MiB (1.0MiB → 2.0MiB → 3.0MiB → 4.0MiB)\n        /home/me/proj/model.py:30:cache_append\n"), "{text}");
}

#[test]
fn category_rules_apply() {
    let file = snapshot("transformer_fullstep_ctx128.pickle");
    let top = json(&["top", &file, "--by", "category", "--category", "optimizers\\.py:8[24]=other", "--json"]);
    let other = keyed(&top["groups"]).into_iter().find(|g| g.0 == "other").unwrap();
    let plain = json(&["top", &file, "--by", "category", "--json"]);
    let before = keyed(&plain["groups"]).into_iter().find(|g| g.0 == "other").map_or(0, |g| g.2);
    // The two Adam moments (12.7 GiB each) now count as other.
    assert_eq!(other.2, 2 * 291 + before);
}

#[track_caller]
fn fails(args: &[&str], contains: &str) {
    let out = memviz(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "memviz {args:?}: {stderr}");
    assert!(stderr.starts_with("memviz: ") && stderr.contains(contains) && stderr.lines().count() == 1, "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn errors() {
    let file = snapshot("small_train_step.pickle");
    fails(&["top", &file, "--at", "soon"], "not a moment: \"soon\"");
    fails(&["top", &file, "--at", "oom"], "device 0 has no oom event");
    fails(&["top", &file, "--at", "99999"], "no event 99999: device 0 has 97 trace events");
    fails(&["top", &file, "--at", "step:99999"], "no step 99999");
    fails(&["top", &file, "--by", "color"], "--by \"color\": expected stack, user, frame or category");
    fails(&["top", &file, "--category", "x=nothing"], "unknown kind \"nothing\"");
    fails(&["top", &file, "--category", "(=other"], "category rule \"(=other\": error: unclosed group");
    fails(&["top", &file, "--device", "3"], "no device 3");
    fails(&["top", &file, "--limit", "many"], "--limit needs a number");
    fails(&["leaks", &snapshot("segments_only_list.pkl")], "no device has a trace");
}

/// `memviz findings --json`: the shape, the OOM's numbers as
/// `memviz oom` gives them, and the text one line a finding.
#[test]
fn findings_json_and_text() {
    let file = snapshot("oom_pickle_named_json.json");
    let f = json(&["findings", &file, "--json"]);
    assert_eq!(f["device"], 0);
    let list = f["findings"].as_array().unwrap();
    for x in list {
        let keys: Vec<&str> = x.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, ["bytes", "detail", "event", "kind", "title"], "{x}");
        assert!(!x["title"].as_str().unwrap().contains('\n'));
    }
    let oom = json(&["oom", &file, "--json"]);
    let o = &oom["devices"][0]["ooms"][0];
    assert_eq!(list[0]["kind"], "oom");
    assert_eq!(list[0]["bytes"], o["request"]["bytes"]);
    assert_eq!(list[0]["event"], o["at"]["event"]);
    assert_eq!(list[0]["detail"]["causes"], serde_json::json!(["live_tensors"]));
    let peak = list.iter().find(|x| x["kind"] == "peak").unwrap();
    let summary = json(&["summary", &file, "--json"]);
    assert_eq!(peak["bytes"], summary["devices"]["0"]["active_memory"]["peak_bytes"]);
    let text = String::from_utf8(memviz(&["findings", &file]).stdout).unwrap();
    assert_eq!(text.lines().count(), 2 + list.len(), "{text}");
    assert!(text.contains("\n  oom              OOM at event"), "{text}");
}
