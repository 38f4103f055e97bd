//! The CLI on what PyTorch 2.15 writes and on broken files: the host device
//! named `host`, and one stderr line per warning while stdout stays the
//! plain result. Files and expected values come from
//! tests/reference/gen_fields.py (Python's pickle and an independent replay).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs gen_fields.py (python3 is required: no silent skip).
fn generate(args: &[&str], name: &str) -> (PathBuf, Value) {
    let dir = std::env::temp_dir().join(format!("memviz-cli-fields-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    let mut cmd = Command::new("python3");
    cmd.arg(root().join("tests/reference/gen_fields.py")).args(args).arg(&out);
    let res = cmd.output().unwrap_or_else(|e| panic!("python3 is needed by this test: {e}"));
    assert!(res.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&res.stderr));
    (out, serde_json::from_slice(&res.stdout).unwrap())
}

fn memviz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memviz")).args(args).output().unwrap()
}

fn ok_json(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn warnings_go_to_stderr_one_line_each() {
    let src = root().join("../shared/snapshots/small_train_step.pickle");
    assert!(src.is_file(), "{} is missing", src.display());
    let (file, want) = generate(&["bad-entries", src.to_str().unwrap()], "bad.pickle");
    let path = file.to_str().unwrap();
    let out = memviz(&["summary", path, "--json"]);
    assert_eq!(ok_json(&out), want["summary"], "the sound entries are all kept");
    let lines: String = want["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| format!("memviz: {path}: warning: {}\n", w.as_str().unwrap()))
        .collect();
    assert_eq!(String::from_utf8_lossy(&out.stderr), lines);
    assert!(lines.contains(&format!(
        "memviz: {path}: warning: device_traces[0][17]: an int, not a dict; 3 entries like it skipped\n"
    )));
    // info lists them too.
    let info = ok_json(&memviz(&["info", path, "--json"]));
    assert_eq!(info["warnings"], want["warnings"]);
    // A sound file says nothing on stderr.
    let clean = memviz(&["summary", src.to_str().unwrap()]);
    assert_eq!(clean.status.code(), Some(0));
    assert!(clean.stderr.is_empty(), "{}", String::from_utf8_lossy(&clean.stderr));
}

#[test]
fn nothing_usable_left_is_one_error_line() {
    let (file, want) = generate(&["nothing-usable"], "nothing.pickle");
    let path = file.to_str().unwrap();
    let out = memviz(&["summary", path]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("memviz: {path}: {}\n", want["error"].as_str().unwrap()));
    assert!(out.stdout.is_empty());
}

#[test]
fn pinned_host_memory_is_the_device_named_host() {
    let (file, want) = generate(&["new-fields"], "host.pickle");
    let path = file.to_str().unwrap();
    let summary = ok_json(&memviz(&["summary", path, "--json"]));
    assert_eq!(summary, want["summary"]);
    let keys: Vec<&String> = summary["devices"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["0", "host"]);
    let text = memviz(&["summary", path]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("\ndevice host\n  trace events      9\n"));

    let st = ok_json(&memviz(&["state", path, "--device", "host", "--event", "4", "--json"]));
    assert_eq!(st["device_name"], "host");
    assert_eq!(st["action"], "free_completed");
    assert_eq!(st["inconsistencies"], serde_json::json!({}));
    let line = memviz(&["state", path, "--device", "host", "--event", "4"]);
    assert!(String::from_utf8_lossy(&line.stdout)
        .starts_with(&format!("{path}, device host, after event 4 (free_completed)\n")));
    // The host's internal number is not a CUDA device.
    let n = want["summary"]["devices"].as_object().unwrap().len() - 1;
    let bad = memviz(&["state", path, "--device", &n.to_string(), "--event", "0"]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr),
        format!("memviz: {path}: no device {n} (devices with segments or a trace: 0, host)\n")
    );
    let info = ok_json(&memviz(&["info", path, "--json"]));
    assert_eq!(info["devices"], serde_json::json!(["0", "host"]));
}
