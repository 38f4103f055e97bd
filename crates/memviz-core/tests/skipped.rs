//! Nothing is dropped without a word: a segment, block or trace entry that
//! is not a dict, or whose required field is missing or of the wrong type, is
//! left out and named in the snapshot's warnings (first place + count); a
//! wrong optional field is read as a default, also named. What is sound is
//! kept. A file with nothing usable left is an error.
//!
//! Files are written by Python's pickle (tests/reference/gen_fields.py, which
//! breaks a real snapshot at known places and says what must come out) and
//! by serde-pickle here.

use std::path::PathBuf;
use std::process::Command;

use memviz_core::summary::summarize;
use memviz_core::{ErrorKind, Snapshot};
use serde_json::{json, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn real(name: &str) -> PathBuf {
    let p = root().join("../shared/snapshots").join(name);
    assert!(p.is_file(), "{} is missing (../shared must sit beside the repository)", p.display());
    p
}

/// Runs gen_fields.py (python3 is required: no silent skip).
fn generate(args: &[&str], name: &str) -> (Vec<u8>, Value) {
    let dir = std::env::temp_dir().join(format!("memviz-skipped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    let mut cmd = Command::new("python3");
    cmd.arg(root().join("tests/reference/gen_fields.py")).args(args).arg(&out);
    let res = cmd.output().unwrap_or_else(|e| panic!("python3 is needed by this test: {e}"));
    assert!(res.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&res.stderr));
    (std::fs::read(&out).unwrap(), serde_json::from_slice(&res.stdout).unwrap())
}

fn warnings(snap: &Snapshot) -> Vec<String> {
    snap.warnings.list.iter().map(|w| w.to_string()).collect()
}

fn pickle(v: &Value) -> Vec<u8> {
    serde_pickle::to_vec(v, serde_pickle::SerOptions::new()).unwrap()
}

#[test]
fn broken_entries_are_named_and_the_sound_ones_kept() {
    let src = real("small_train_step.pickle");
    let (bytes, want) = generate(&["bad-entries", src.to_str().unwrap()], "bad.pickle");
    let snap = memviz_core::load(&bytes).unwrap();
    let want_warnings: Vec<String> =
        want["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect();
    assert_eq!(warnings(&snap), want_warnings);
    assert_eq!(snap.trace(0).len() as u64, want["kept_events"].as_u64().unwrap());
    // Everything sound is there: the numbers are those of the intact file.
    assert_eq!(serde_json::to_value(summarize(&snap)).unwrap(), want["summary"]);
    // The grouped warning: its first place, and how many.
    let w = &snap.warnings.list[3];
    assert_eq!(
        (w.location.as_str(), w.problem.as_str(), w.count, w.skipped),
        ("device_traces[0][17]", "an int, not a dict", 3, true)
    );
}

#[test]
fn a_file_with_nothing_usable_left_is_an_error() {
    let (bytes, want) = generate(&["nothing-usable"], "nothing.pickle");
    let e = memviz_core::load(&bytes).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotSnapshotShaped);
    assert_eq!(e.to_string(), want["error"].as_str().unwrap());
    // Empty lists are still an (empty) snapshot: nothing was skipped.
    let empty = memviz_core::load(&pickle(&json!({"segments": [], "device_traces": []}))).unwrap();
    assert!(empty.devices().is_empty() && empty.warnings.list.is_empty());
}

#[test]
fn wrong_optional_fields_are_read_as_defaults_and_said() {
    let frame = json!({"filename": "a.py", "line": 1, "name": "f"});
    let ev = |action: &str, addr: u64, extra: Value| {
        let mut e = json!({"action": action, "addr": addr, "size": 512, "stream": 0, "frames": [frame]});
        e.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        e
    };
    let snap_v = json!({
        "segments": [{
            "device": 0, "address": 4096, "total_size": 8192, "stream": "s", "is_expandable": "yes",
            "segment_pool_id": "default",
            "blocks": [
                {"address": 4096, "size": 512, "state": "gone", "frames": []},
                {"address": 4608, "size": 512, "requested_size": "all", "state": "active_allocated", "frames": "none"},
                {"address": 5120, "size": -3, "state": "inactive"},
                [1, 2],
            ],
        }, {"device": "cuda:1", "address": 0, "total_size": 1}],
        "device_traces": [[
            ev("alloc", 4608, json!({"stream": -1})),
            ev("alloc", 5632, json!({"frames": "f", "pool_id": [1], "time_us": 2.5})),
            ev("free_completed", 5632, json!({"compile_context": 3})),
            json!({"action": 7, "addr": 1}),
            json!({"action": "alloc", "size": 8}),
            ev("oom", 0, json!({"device_free": "lots"})),
        ], "trace"],
        "host_traces": 5,
        "host_segments": [],
    });
    let snap = memviz_core::load(&pickle(&snap_v)).unwrap();
    // serde-pickle writes dict keys in sorted order; the problems of one
    // entry come in that order.
    assert_eq!(
        warnings(&snap),
        [
            "segments[0]: 'is_expandable' is a str, not a bool (read as False)",
            "segments[0]: 'segment_pool_id' is a str, not an (owner, id) pair (read as unknown)",
            "segments[0]: 'stream' is a str, not an int (read as 0)",
            "segments[0]['blocks'][0]: 'state' is not active_allocated, active_pending_free or inactive (read as inactive)",
            "segments[0]['blocks'][1]: 'frames' is a str, not a list (read as no frames)",
            "segments[0]['blocks'][1]: 'requested_size' is a str, not an int (read as its size)",
            "segments[0]['blocks'][2]: 'size' is negative; skipped",
            "segments[0]['blocks'][3]: a list, not a dict; skipped",
            "segments[1]: 'device' is a str, not an int; skipped",
            "device_traces[0][0]: 'stream' is negative (read as 0)",
            "device_traces[0][1]: 'frames' is a str, not a list (read as no frames)",
            "device_traces[0][1]: 'pool_id' is a list, not an (owner, id) pair (read as unknown)",
            "device_traces[0][1]: 'time_us' is a float, not an int (read as no time)",
            "device_traces[0][2]: 'compile_context' is an int, not a str (read as None)",
            "device_traces[0][3]: 'action' is an int, not a str; skipped",
            "device_traces[0][4]: no 'addr'; skipped",
            "device_traces[0][5]: 'device_free' is a str, not an int (read as 0)",
            "device_traces[1]: a str, not a list; skipped",
            "host_traces: an int, not a list; skipped",
        ]
    );
    // Kept: one segment with two of its blocks, four events.
    assert_eq!(snap.segments.len(), 1);
    assert_eq!(snap.blocks.len(), 2);
    assert_eq!(snap.blocks[1].requested_size, 512);
    assert_eq!(snap.trace(0).len(), 4);
    assert_eq!(snap.host_device, None);
    assert_eq!(snap.devices(), [0]);
}
