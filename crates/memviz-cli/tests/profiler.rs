//! `memviz summary` / `memviz render` on torch.profiler memory exports
//! written by tests/reference/gen_profiler.py; the numbers come from that
//! script (expected.json), the pixels are read back from the PNG.

use std::path::PathBuf;
use std::process::Command;

mod common;

use common::{json_of, memviz, Rgb};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(name: &str) -> String {
    root().join("tests/reference/fixtures/profiler").join(name).to_str().unwrap().to_string()
}

fn expected() -> Value {
    serde_json::from_slice(&std::fs::read(fixture("expected.json")).unwrap()).unwrap()
}

fn tmp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("memviz-cli-profiler-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

#[test]
fn summary_gives_the_reference_peaks() {
    for (name, want) in expected().as_object().unwrap() {
        let got = json_of(memviz(&["summary", &fixture(name), "--json"]));
        assert_eq!(got["format"], want["format"], "{name}");
        for (g, w) in got["charts"].as_array().unwrap().iter().zip(want["charts"].as_array().unwrap()) {
            assert_eq!(g["title"], w["title"], "{name}");
            assert_eq!(g["peak_bytes"], w["peak_bytes"], "{name} {}", w["title"]);
            assert_eq!(g["at_end"], w["at_end"], "{name} {}", w["title"]);
        }
    }
    let text = memviz(&["summary", &fixture("train.raw.json.gz")]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("raw memory timeline") && text.contains("optimizer state"), "{text}");
}

#[test]
fn categories_png_stacks_to_the_reference_peak() {
    let out = tmp("cat.png");
    let info =
        json_of(memviz(&["render", &fixture("train.raw.json.gz"), "--view", "categories", "-o", &out, "--json"]));
    let want = &expected()["train.raw.json.gz"]["charts"][0];
    assert_eq!(info["peak_bytes"], want["peak_bytes"]);
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.len() > 5_000, "{} bytes", bytes.len());
    let img = Rgb::decode(&bytes);
    assert_eq!((img.w, img.h), (1200, 600));
    let p: Vec<u32> = info["plot"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
    // The peak's column: the stack (non-white, not the dashed peak line's
    // red) rises to peak_bytes / y_max of the plot's height.
    let dur = info["duration_s"].as_f64().unwrap();
    let x = p[0]
        + ((want["duration_s"].as_f64().unwrap() - 1e-9).min(info["peak_s"].as_f64().unwrap()) / dur * p[2] as f64)
            as u32;
    let x = x.min(p[0] + p[2] - 1);
    let filled = (p[1]..p[1] + p[3]).filter(|&y| img.at(x, y) != [255, 255, 255]).count() as f64;
    let height = want["peak_bytes"].as_f64().unwrap() / info["y_max"].as_f64().unwrap() * p[3] as f64;
    assert!((filled - height).abs() <= 3.0, "column {x}: {filled} px drawn, {height:.1} expected");
    // The parameters fill the bottom of every column after the start, in
    // memviz's colour of the parameter kind (#4e79a7: one palette of kinds
    // for snapshots and profiler exports).
    let param = [0x4e, 0x79, 0xa7];
    let bottom = p[1] + p[3] - 3; // above the x axis line
    let green = (p[0] + 5..p[0] + p[2] - 5).filter(|&x| img.at(x, bottom) == param).count();
    assert!(green as u32 > p[2] - 20, "{green} of {} columns start with parameter", p[2]);
    // Each category the file has is in the legend.
    assert_eq!(info["legend"].as_array().unwrap().len(), 7, "{}", info["legend"]);
}

#[test]
fn trace_renders_per_device_and_names_the_devices() {
    let out = tmp("trace.svg");
    let info = json_of(memviz(&[
        "render",
        &fixture("train.trace.json.gz"),
        "--view",
        "categories",
        "--device",
        "cuda:1",
        "-o",
        &out,
        "--json",
    ]));
    let want = &expected()["train.trace.json.gz"]["charts"][1];
    assert_eq!(info["chart"], "cuda:1");
    assert_eq!(info["peak_bytes"], want["peak_bytes"]);
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg") && svg.matches("<rect").count() > 20, "{} bytes", svg.len());
    let bad =
        memviz(&["render", &fixture("train.trace.json"), "--view", "categories", "--device", "cuda:7", "-o", &out]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("cuda:0, cuda:1, cpu"), "{err}");
}

#[test]
fn snapshot_commands_on_a_profiler_file_say_why_not() {
    let o = memviz(&["top", &fixture("train.memory_timeline.json")]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a memory snapshot but a torch.profiler memory timeline"));
}

#[test]
fn categories_of_a_snapshot_stack_the_kinds_python_infers_and_mark_the_oom() {
    let snap = root().join("../shared/snapshots/oom_pickle_named_json.json");
    assert!(snap.exists(), "../shared/snapshots missing");
    let snap = snap.to_str().unwrap();
    let out = tmp("kinds.png");
    let info = json_of(memviz(&["render", snap, "--view", "categories", "-o", &out, "--json"]));
    let script = root().join("tests/reference/analysis_reference.py");
    let o = Command::new("python3").arg(script).arg(snap).output().expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reference: Value = serde_json::from_slice(&o.stdout).unwrap();
    let dev = &reference["devices"]["0"];
    let peak = dev["moments"].as_array().unwrap().iter().find(|m| m["at"] == "peak").expect("peak moment");
    assert_eq!(info["peak_bytes"], dev["peak_bytes"]);
    // Bytes by kind at the peak: the reference's groups by category.
    let mut want = serde_json::Map::new();
    for g in peak["groups"]["category"].as_array().unwrap() {
        want.insert(g["key"].as_str().unwrap().replace('_', " "), g["bytes"].clone());
    }
    let got: serde_json::Map<String, Value> = info["at_peak"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| v.as_i64() != Some(0))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert_eq!(got, want);
    // The OOM: one line, after the actions before the oom event.
    assert_eq!(info["ooms"].as_array().unwrap().len(), 1);
    let img = Rgb::decode(&std::fs::read(&out).unwrap());
    let p: Vec<u32> = info["plot"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
    let n = (info["points"].as_u64().unwrap() - 1) as f64;
    let x = p[0] + (info["ooms"][0].as_f64().unwrap() / n * p[2] as f64) as u32;
    let oom = [0x5b, 0x1a, 0x8c];
    let hit = (x.saturating_sub(2)..=x + 2).any(|c| (p[1]..p[1] + p[3]).filter(|&y| img.at(c, y) == oom).count() > 50);
    assert!(hit, "no OOM line near x {x}");
}
