//! The findings (issue 40) on the real recordings (../shared/recordings,
//! H100) and snapshots (../shared/snapshots), against
//! tests/reference/findings_reference.py (Python's pickle module, a replay
//! by address) and memviz_reference.py's summary (the peak); and on traces
//! tests/reference/gen_findings_traces.py writes to the shapes (a
//! leaking plain loop, a healthy one, a model made on the device).
//!
//! Needs python3 and ../shared (override with MEMVIZ_SHARED); missing,
//! the tests fail.

mod common;

use common::{repo_root, shared_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::analysis::findings::{Finding, FindingKind, Findings};
use memviz_core::analysis::{Analysis, Kind, Rules};
use memviz_core::state::StateHistory;
use memviz_core::timeline::{ElementSource, Timeline, TimelineKind};
use memviz_core::Snapshot;
use serde_json::Value;

fn python(args: &[&str]) -> Value {
    let out = Command::new("python3")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 {args:?} (is python3 installed?): {e}"));
    assert!(out.status.success(), "python3 {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the reference prints JSON")
}

fn reference(script: &str, args: &[&str]) -> Value {
    let s = repo_root().join("tests/reference").join(script);
    let mut all = vec![s.to_str().unwrap()];
    all.extend_from_slice(args);
    python(&all)
}

fn load(path: &Path) -> Snapshot {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    memviz_core::load(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn findings_of(snap: &Snapshot) -> (Analysis, Findings) {
    let d = snap.default_device().expect("a device");
    let a = Analysis::build(snap, d, &Rules::default());
    let f = a.findings(snap, &StateHistory::new(snap, d));
    (a, f)
}

fn of(f: &Findings, kind: FindingKind) -> Vec<&Finding> {
    f.findings.iter().filter(|x| x.kind == kind).collect()
}

fn recording(name: &str) -> PathBuf {
    shared_dir().join("recordings").join(name)
}

/// Every real file (both folders, pickles and JSON).
fn real_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["recordings", "snapshots"] {
        for e in std::fs::read_dir(shared_dir().join(dir)).unwrap() {
            let p = e.unwrap().path();
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            let snapshot =
                n.ends_with(".pickle") || n.ends_with(".pkl") || (dir == "snapshots" && n.ends_with(".json"));
            if snapshot {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 22, "expected the 11 real snapshots and 11 recordings, found {}", out.len());
    out
}

#[test]
fn peak_is_the_summary_peak_on_every_real_file() {
    for path in real_files() {
        let snap = load(&path);
        let (a, f) = findings_of(&snap);
        let want = reference("memviz_reference.py", &["summary", path.to_str().unwrap()]);
        let dev = &want["devices"][a.device.to_string()];
        let peak = dev["active_memory"]["peak_bytes"].as_u64();
        let peaks = of(&f, FindingKind::Peak);
        match peak {
            Some(p) if p > 0 => {
                assert_eq!(peaks.len(), 1, "{}: one peak finding", path.display());
                assert_eq!(peaks[0].bytes, Some(p), "{}: the peak", path.display());
                assert!(peaks[0].title.contains(&memviz_core::format::format_size(p, false)), "{}", peaks[0].title);
            }
            _ => assert!(peaks.is_empty(), "{}: no allocations, no peak", path.display()),
        }
        // Most important first: every OOM before the peak.
        let pos = |k| f.findings.iter().position(|x| x.kind == k);
        if let (Some(o), Some(p)) = (pos(FindingKind::Oom), pos(FindingKind::Peak)) {
            assert!(o < p, "{}", path.display());
        }
    }
}

#[test]
fn gradients_kept_without_zero_grad_only() {
    let bad = recording("resnet50_no_zero_grad.pickle");
    let want = reference("findings_reference.py", &[bad.to_str().unwrap()]);
    let kept = want["gradients_kept_bytes"].as_u64().unwrap();
    assert!(kept > 90 << 20, "the reference sees the ResNet50's ~97.5 MiB of gradients: {kept}");
    let (_, f) = findings_of(&load(&bad));
    let g = of(&f, FindingKind::GradientsKept);
    assert_eq!(g.len(), 1, "{:?}", f.findings);
    assert_eq!(g[0].bytes, Some(kept));
    assert!(g[0].title.starts_with("Gradients kept into the next forward"), "{}", g[0].title);

    let good = recording("resnet50_zero_grad.pickle");
    assert_eq!(reference("findings_reference.py", &[good.to_str().unwrap()])["gradients_kept_bytes"], 0);
    let (_, f) = findings_of(&load(&good));
    assert!(of(&f, FindingKind::GradientsKept).is_empty(), "{:?}", f.findings);
    // Nor in the other healthy training runs.
    for n in ["profiler_resnet50_snapshot.pickle", "expandable_gpt2_varlen.pickle", "ddp_gpt2_rank0.pickle"] {
        let (_, f) = findings_of(&load(&recording(n)));
        assert!(of(&f, FindingKind::GradientsKept).is_empty(), "{n}: {:?}", f.findings);
    }
}

#[test]
fn oom_fragmentation_and_capped() {
    let path = recording("oom_fragmentation_2gib.pickle");
    let want = reference("findings_reference.py", &[path.to_str().unwrap()]);
    let r = &want["ooms"][0];
    let (_, f) = findings_of(&load(&path));
    let ooms = of(&f, FindingKind::Oom);
    assert_eq!(ooms.len(), want["ooms"].as_array().unwrap().len());
    let o = ooms[0];
    assert_eq!(o.event, r["event"].as_u64().map(|e| e as u32));
    assert_eq!(o.bytes, r["bytes"].as_u64());
    assert_eq!(o.detail["usable_free_bytes"], r["free_bytes"]);
    assert_eq!(o.detail["largest_usable_bytes"], r["largest_free_bytes"]);
    assert_eq!(o.detail["device_free_bytes"], r["device_free"]);
    let causes: Vec<&str> = o.detail["causes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(causes, ["fragmentation", "capped"]);
    // Free far above the request: a cap (2.3 GiB by set_per_process_memory_fraction).
    assert!(r["device_free"].as_u64().unwrap() > r["bytes"].as_u64().unwrap());
    let c = of(&f, FindingKind::Capped);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].event, o.event);
    assert_eq!(f.findings[0].kind, FindingKind::Oom);
    assert_eq!(f.findings[1].kind, FindingKind::Capped);
}

#[test]
fn optimizer_state_step_up() {
    // (file, what its optimizer keeps per parameter: SGD momentum 1x, Adam/AdamW 2x)
    let cases = [
        (recording("resnet50_zero_grad.pickle"), 1.0),
        (recording("resnet50_no_zero_grad.pickle"), 1.0),
        (recording("profiler_resnet50_snapshot.pickle"), 1.0),
        (recording("ddp_gpt2_rank0.pickle"), 2.0),
        (recording("ddp_gpt2_rank3.pickle"), 2.0),
        (recording("expandable_gpt2_varlen.pickle"), 2.0),
        (recording("compile_mlp_adam.pickle"), 2.0),
        (shared_dir().join("snapshots/transformer_fullstep_ctx128.pickle"), 2.0),
    ];
    for (path, times) in cases {
        let want = reference("findings_reference.py", &[path.to_str().unwrap()]);
        let (state, grads) =
            (want["optimizer_state_bytes"].as_u64().unwrap(), want["gradient_bytes_before_step"].as_u64().unwrap());
        assert_eq!(state as f64 / grads as f64, times, "{}: the reference's ratio", path.display());
        let (_, f) = findings_of(&load(&path));
        let o = of(&f, FindingKind::OptimizerState);
        assert_eq!(o.len(), 1, "{}: {:?}", path.display(), f.findings);
        assert_eq!(o[0].bytes, Some(state), "{}", path.display());
        assert_eq!(o[0].detail["against_bytes"].as_u64(), Some(grads), "{}", path.display());
        assert!(o[0].title.contains(&format!("{times:.2}x")), "{}", o[0].title);
    }
    // No optimizer, no finding.
    let (_, f) = findings_of(&load(&recording("linear_10k_50k_forward.pickle")));
    assert!(of(&f, FindingKind::OptimizerState).is_empty());
}

fn generated(kind: &str) -> (PathBuf, Value) {
    let dir = std::env::temp_dir().join(format!("memviz-findings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{kind}.pickle"));
    let want = reference("gen_findings_traces.py", &[kind, path.to_str().unwrap()]);
    (path, want)
}

#[test]
fn growth_in_a_plain_loop_until_the_oom() {
    let (path, want) = generated("leak");
    let snap = load(&path);
    let (a, f) = findings_of(&snap);
    // Two tensors an iteration from two lines of one loop body: one finding.
    let g = of(&f, FindingKind::Growth);
    assert_eq!(g.len(), 1, "one a growing user frame: {:?}", f.findings);
    let x = g[0];
    let rate = want["rate_bytes"].as_u64().unwrap();
    assert_eq!(x.bytes, Some(rate), "bytes per iteration");
    let lines: Vec<&str> = want["leak_lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let stacks = x.detail["stacks"].as_array().unwrap();
    let frames: Vec<&str> = stacks.iter().map(|s| s["user_frame"].as_str().unwrap()).collect();
    assert_eq!(frames.len(), lines.len(), "{frames:?}");
    for l in &lines {
        assert!(frames.iter().any(|f| f.contains(l)), "the user's line {l}, not torch's: {frames:?}");
    }
    assert_eq!(stacks.iter().map(|s| s["rate_bytes"].as_u64().unwrap()).sum::<u64>(), rate);
    let frame = x.detail["user_frame"].as_str().unwrap();
    assert!(frame.contains(lines[0]), "named by the loop body's first line: {frame}");
    assert_eq!(x.detail["oom_event"], want["oom_event"]);
    assert_eq!(x.detail["repetitions_from"], "pattern");
    assert_eq!(x.detail["repetitions"], want["iterations"]);
    let head = format!(
        "Grows {} per iteration at {frame}, until the OOM at event {}",
        memviz_core::format::format_size(rate, false),
        want["oom_event"]
    );
    assert!(x.title.starts_with(&head), "{}\nwant {head}", x.title);
    for cause in ["reference cycles", "observe_tensor_cycles", "kept in a list", "loss accumulated with its graph"] {
        assert!(x.title.contains(cause), "{}", x.title);
    }
    // One leak, one kind: its collected half and the rest alike.
    let tl = Timeline::build(&snap, a.device, TimelineKind::ActiveMemory);
    let kinds: std::collections::BTreeSet<Kind> = (0..tl.elements.len() as u32)
        .filter(|&e| matches!(tl.elements[e as usize].source, ElementSource::Alloc(_)))
        .map(|e| a.kind_of(e).unwrap().0)
        .collect();
    assert_eq!(kinds.len(), 1, "{kinds:?}");
}

/// The leak report samples the same repetitions as the findings: the
/// plain loop (no phases) shows its growth there too, as
/// analysis_reference.py finds it.
#[test]
fn leak_report_of_a_plain_loop() {
    leak_report_of("leak", "pattern", "(repetitions of the allocation pattern); 2 stacks grow");
    // Each iteration a ProfilerStep#N range: the range's starts.
    leak_report_of("leak_steps", "annotations", "(starts of a repeating record_function range); 2 stacks grow");
}

fn leak_report_of(kind: &str, from: &str, line: &str) {
    let (path, want) = generated(kind);
    let snap = load(&path);
    let (a, _) = findings_of(&snap);
    let r = a.leaks(&snap);
    let rf = reference("analysis_reference.py", &[path.to_str().unwrap()]);
    let lk = &rf["devices"][a.device.to_string()]["leaks"];
    assert_eq!(lk["iterations_from"], from);
    assert_eq!(r.iterations_from, from);
    assert_eq!(serde_json::json!(r.samples), lk["samples"]);
    assert_eq!(r.samples.len() as u64, want["iterations"].as_u64().unwrap(), "each start after the first, the end");
    let got: Vec<Value> =
        r.growing.iter().map(|g| serde_json::json!({"key": g.key, "live_bytes": g.live_bytes})).collect();
    let exp: Vec<Value> = lk["growing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| serde_json::json!({"key": g["key"], "live_bytes": g["live_bytes"]}))
        .collect();
    assert_eq!(got, exp);
    for line in want["leak_lines"].as_array().unwrap() {
        let line = line.as_str().unwrap();
        assert!(r.growing.iter().any(|g| g.key.contains(line)), "{line}: {:?}", r.growing);
    }
    let text = r.to_text(&a);
    assert!(text.contains(line), "{text}");
}

#[test]
fn no_growth_in_healthy_loops() {
    let (path, _) = generated("healthy");
    let (_, f) = findings_of(&load(&path));
    assert!(of(&f, FindingKind::Growth).is_empty(), "{:?}", f.findings);
    for n in ["resnet50_zero_grad.pickle", "resnet50_no_zero_grad.pickle", "ddp_gpt2_rank0.pickle"] {
        let (_, f) = findings_of(&load(&recording(n)));
        assert!(of(&f, FindingKind::Growth).is_empty(), "{n}: {:?}", f.findings);
    }
}

#[test]
fn model_made_on_the_device_is_parameter() {
    let (path, want) = generated("on_device");
    let snap = load(&path);
    let (a, _) = findings_of(&snap);
    let tl = Timeline::build(&snap, a.device, TimelineKind::ActiveMemory);
    let weights: Vec<u64> = want["weight_addrs"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let mut seen = 0;
    for (e, el) in tl.elements.iter().enumerate() {
        if weights.contains(&(el.addr as u64)) {
            seen += 1;
            assert_eq!(a.kind_of(e as u32).unwrap().0, Kind::Parameter, "weight at {:#x}", el.addr);
            // Never freed: from its birth before the first forward to the
            // end, a constant band at the bottom.
            assert_eq!(a.lifetime(e as u32).unwrap().1, a.last_position() + 1);
        }
    }
    assert_eq!(seen, weights.len());
}
