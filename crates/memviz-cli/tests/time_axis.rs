//! `memviz render --x time` and the phases on the chart, against
//! tests/reference/phases_reference.py (Python's own pickle module).

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn snapshot(name: &str) -> String {
    let p = root().join("../shared/snapshots").join(name);
    assert!(p.exists(), "{} is missing", p.display());
    p.to_str().unwrap().to_string()
}

fn tmp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("memviz-cli-time-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

fn json_of(out: Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn memviz(args: &[&str]) -> Value {
    json_of(Command::new(env!("CARGO_BIN_EXE_memviz")).args(args).output().unwrap())
}

fn reference(file: &str) -> Value {
    let script = root().join("tests/reference/phases_reference.py");
    json_of(Command::new("python3").arg(script).arg(file).output().expect("python3"))
}

fn plot(info: &Value) -> Vec<f64> {
    info["plot"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect()
}

#[test]
fn time_axis_compresses_and_marks_the_idle_gaps_python_finds() {
    let file = snapshot("small_train_step.pickle");
    let out = tmp("small.png");
    let info = memviz(&["render", &file, "--view", "active", "--x", "time", "-o", &out, "--json"]);
    let want = reference(&file);
    assert_eq!(info["x_axis"], "time");
    let p = plot(&info);
    let span = want["time_axis"]["span_s"].as_f64().unwrap();
    let gaps = info["gaps"].as_array().unwrap();
    let wg = want["time_axis"]["gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), wg.len());
    assert!(!wg.is_empty());
    let png = std::fs::read(&out).unwrap();
    let mut dec = png::Decoder::new(std::io::Cursor::new(&png[..])).read_info().unwrap();
    let mut px = vec![0; dec.output_buffer_size().unwrap()];
    let frame = dec.next_frame(&mut px).unwrap();
    let at = |x: u32, y: u32| {
        let i = (y * frame.width + x) as usize * 3;
        [px[i], px[i + 1], px[i + 2]]
    };
    for (g, w) in gaps.iter().zip(wg) {
        assert_eq!(g["real_s"], w["real_s"]);
        let x = p[0] + w["x_s"].as_f64().unwrap() / span * p[2];
        assert!((g["x0"].as_f64().unwrap() - x).abs() < 1.5, "gap at {} vs {x}", g["x0"]);
        // Its zigzag edge is drawn there (grey 150), within 3 pixels.
        let y = (p[1] + p[3] / 2.0) as u32;
        let found = (x as u32 - 3..=x as u32 + 3).any(|c| (y - 6..y + 6).any(|r| at(c, r) == [150, 150, 150]));
        assert!(found, "no gap edge near x {x}");
    }
}

#[test]
fn phases_sit_on_the_steps_python_puts_them_and_files_without_time_keep_steps() {
    let file = snapshot("transformer_fullstep_ctx128.pickle");
    let info = memviz(&["render", &file, "--view", "active", "-o", &tmp("ctx.svg"), "--json"]);
    let want = reference(&file);
    let p = plot(&info);
    let n = info["n_steps"].as_f64().unwrap();
    let phases = info["phases"].as_array().unwrap();
    let wp = want["phases"].as_array().unwrap();
    assert_eq!(phases.len(), wp.len());
    assert!(!wp.is_empty());
    for (g, w) in phases.iter().zip(wp) {
        assert_eq!(g["name"], w["name"]);
        if let Some(steps) = w["steps"].as_array() {
            let a = steps[0].as_f64().unwrap();
            let b = steps[1].as_f64().unwrap();
            assert!((g["x0"].as_f64().unwrap() - (p[0] + a * p[2] / n).floor()).abs() <= 1.0, "{g}");
            assert!((g["x1"].as_f64().unwrap() - (p[0] + b * p[2] / n).floor()).abs() <= 1.0, "{g}");
        }
    }
    let svg = std::fs::read_to_string(tmp("ctx.svg")).unwrap();
    assert!(svg.contains("Optimizer.step#AdamW.step"));
    let none = memviz(&[
        "render",
        &snapshot("llm_inference_no_timestamps.pickle"),
        "--view",
        "active",
        "--x",
        "time",
        "-o",
        &tmp("llm.png"),
        "--json",
    ]);
    assert_eq!(none["x_axis"], "step");
}
