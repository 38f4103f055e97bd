//! The time axis (time_us, idle gaps compressed) and the record_function
//! phases of every real snapshot equal tests/reference/phases_reference.py's,
//! computed from the pickle with Python's own pickle module.

use std::path::PathBuf;
use std::process::Command;

use memviz_core::phases::{filter_phases, first_time, phases, step_range, to_json, TimeAxis};
use memviz_core::timeline::{Timeline, TimelineKind};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn reference(file: &PathBuf, device: u32) -> Value {
    let script = root().join("tests/reference/phases_reference.py");
    let out = Command::new("python3").arg(script).arg(file).arg(device.to_string()).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn real_snapshots_match_the_python_reference() {
    let dir = root().join("../shared/snapshots");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("../shared/snapshots beside the repository")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pickle"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{} snapshots", files.len());
    let (mut with_time, mut with_phases, mut with_gaps) = (0, 0, 0);
    for f in &files {
        let snap = memviz_core::load(&std::fs::read(f).unwrap()).unwrap();
        let Some(device) = snap.default_device() else { continue };
        let tl = Timeline::build(&snap, device, TimelineKind::ActiveMemory);
        let want = reference(f, device);
        let name = f.file_name().unwrap().to_string_lossy();
        let axis = TimeAxis::build(&snap, &tl, None);
        match (&axis, &want["time_axis"]) {
            (None, Value::Null) => {}
            (Some(a), w) if w.is_object() => {
                with_time += 1;
                assert_eq!(a.n_steps() as u64, want["n_steps"].as_u64().unwrap(), "{name}: steps");
                assert_eq!(a.t0_us, w["t0_us"].as_i64().unwrap(), "{name}: t0");
                let close = |x: f64, y: &Value| (x - y.as_f64().unwrap()).abs() < 1e-9;
                assert!(close(a.threshold_s, &w["threshold_s"]), "{name}: threshold {}", a.threshold_s);
                assert!(close(a.span(), &w["span_s"]), "{name}: span {} vs {}", a.span(), w["span_s"]);
                let wg = w["gaps"].as_array().unwrap();
                assert_eq!(a.gaps.len(), wg.len(), "{name}: gaps");
                with_gaps += (!wg.is_empty()) as u32;
                for (g, e) in a.gaps.iter().zip(wg) {
                    assert_eq!(g.step as u64, e["step"].as_u64().unwrap(), "{name}");
                    assert!(close(g.real_s, &e["real_s"]), "{name}");
                    assert!(close(g.shown_s, &w["shown_s"]), "{name}");
                }
                // The mapping and its inverse agree (steps at one time share an x).
                for s in (0..=a.n_steps()).step_by(97) {
                    let x = a.x_of_step(s as f64);
                    assert!((a.x_of_step(a.step_of_x(x)) - x).abs() < 1e-12, "{name}: step {s}");
                }
            }
            (a, w) => panic!("{name}: time axis {:?} vs reference {w}", a.is_some()),
        }
        let got = phases(&snap, device);
        let wp = want["phases"].as_array().unwrap();
        assert_eq!(got.len(), wp.len(), "{name}: phases");
        with_phases += (!wp.is_empty()) as u32;
        for (p, w) in got.iter().zip(wp) {
            assert_eq!(p.name, w["name"].as_str().unwrap());
            assert_eq!((p.start_us, p.end_us), (w["start_us"].as_i64().unwrap(), w["end_us"].as_i64().unwrap()));
            let steps = axis.as_ref().and_then(|a| step_range(a, p)).map(|(a, b)| vec![a as u64, b as u64]);
            let want_steps = w["steps"].as_array().map(|v| v.iter().map(|x| x.as_u64().unwrap()).collect::<Vec<_>>());
            assert_eq!(steps, want_steps, "{name}: {}", p.name);
        }
        // What the page is handed: whether there is time (from the first
        // timed step, without building the axis), and the phases at their steps.
        assert_eq!(first_time(&snap, &tl), want["time_axis"]["t0_us"].as_i64(), "{name}: first time");
        let js = to_json(&snap, &tl);
        assert_eq!(js["has_time"], want["time_axis"].is_object(), "{name}: has_time");
        let jp = js["phases"].as_array().unwrap();
        assert_eq!(jp.len(), if axis.is_some() { wp.len() } else { 0 }, "{name}: phases listed");
        for (p, w) in jp.iter().zip(wp) {
            assert_eq!(p["name"], w["name"], "{name}");
            if let Some(ws) = w["steps"].as_array() {
                assert_eq!([&p["step0"], &p["step1"]], [&ws[0], &ws[1]], "{name}: {}", p["name"]);
            }
        }
    }
    // The real files have all three; a reference that finds none checks nothing.
    assert!(with_time >= 5 && with_phases >= 2 && with_gaps >= 2, "{with_time} {with_phases} {with_gaps}");
}

#[test]
fn phases_pair_nest_filter_and_stay_open() {
    let json = r###"{"segments": [], "device_traces": [[
        {"action": "alloc", "addr": 4096, "size": 512, "stream": 0, "time_us": 100, "frames": []},
        {"action": "free_completed", "addr": 4096, "size": 512, "stream": 0, "time_us": 400, "frames": []}
      ]],
      "external_annotations": [
        {"stage": "START", "name": "## forward ##", "device": 0, "time_us": 90},
        {"stage": "START", "name": "Torch-Compiled Region: 0/0", "device": 0, "time_us": 95},
        {"stage": "END", "name": "Torch-Compiled Region: 0/0", "device": 0, "time_us": 200},
        {"stage": "END", "name": "## forward ##", "device": 0, "time_us": 210},
        {"stage": "START", "name": "Optimizer.step#SGD.step", "device": 0, "time_us": 300},
        {"stage": "START", "name": "other device", "device": 1, "time_us": 300},
        {"stage": "END", "name": "never started", "device": 0, "time_us": 5}
      ] }"###;
    let snap = memviz_core::load(json.as_bytes()).unwrap();
    let all = phases(&snap, 0);
    let names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["## forward ##", "Torch-Compiled Region: 0/0", "Optimizer.step#SGD.step"]);
    assert_eq!((all[1].depth, all[1].internal), (1, true));
    // No END: open until the last event.
    assert!(all[2].open);
    assert_eq!(all[2].end_us, 400);
    let shown: Vec<&str> = filter_phases(&all, false, "").iter().map(|p| p.name.as_str()).collect();
    assert_eq!(shown, ["## forward ##", "Optimizer.step#SGD.step"]);
    assert_eq!(filter_phases(&all, true, "REGION").len(), 1);
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let axis = TimeAxis::build(&snap, &tl, None).unwrap();
    assert_eq!(step_range(&axis, &all[0]), Some((0, 1)));
    assert_eq!(step_range(&axis, &all[2]), Some((1, 2)));
    // The forward phase ends at 210 us: 110 us after the first event.
    assert!((axis.x_of_time(210) - 110e-6).abs() < 1e-12);
}
