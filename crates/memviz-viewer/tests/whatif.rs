//! The "What if" panel's controller on a real recording
//! (../shared/recordings/oom_fragmentation_2gib.pickle: a 600 MiB request
//! refused by fragmentation under a per-process cap). The events the
//! self-check compares and the recorded reserved memory are counted by
//! Python's own pickle module; that expandable segments avoid this OOM is
//! what PyTorch documents them for (the file's README says why it ran out).

mod common;

use std::process::Command;

use memviz_viewer::whatif::{WhatIfCommand, WhatIfView};
use memviz_viewer::{Axes, Viewer};

const FILE: &str = "oom_fragmentation_2gib.pickle";

fn path() -> std::path::PathBuf {
    common::repo().join("../shared/recordings").join(FILE)
}

fn open() -> Viewer {
    let p = path();
    let bytes =
        std::fs::read(&p).unwrap_or_else(|e| panic!("{} (../shared must sit beside the repository): {e}", p.display()));
    let mut v = Viewer::new();
    assert_eq!(v.open(FILE, &bytes).unwrap(), 0);
    v
}

/// Device 0's events the self-check compares (segment events, allocs,
/// OOMs), the highest reserved memory and the OOM events' indices, by Python.
fn python() -> (u64, u64, Vec<u64>) {
    let script = r#"
import json, pickle, sys
d = pickle.load(open(sys.argv[1], 'rb'))
t = d['device_traces'][0]
n = sum(1 for e in t if e['action'] in ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap', 'alloc', 'oom'))
sign = {'segment_alloc': 1, 'segment_map': 1, 'segment_free': -1, 'segment_unmap': -1}
net = sum(sign.get(e['action'], 0) * e['size'] for e in t)
reserved = sum(s['total_size'] for s in d['segments'] if s['device'] == 0) - net
peak = reserved
for e in t:
    reserved += sign.get(e['action'], 0) * e['size']
    peak = max(peak, reserved)
print(json.dumps([n, peak, [i for i, e in enumerate(t) if e['action'] == 'oom']]))
"#;
    let out = Command::new("python3").arg("-c").arg(script).arg(path()).output().expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Steps the panel's work in small slices until done; the view then.
fn run(v: &mut Viewer) -> WhatIfView {
    common::shares_to_done(|| v.whatif_step(7));
    v.whatif_view().unwrap()
}

#[test]
fn the_panel_reproduces_the_recording_then_expandable_segments_avoid_its_oom() {
    let (events, peak, ooms) = python();
    let mut v = open();
    v.whatif_set(WhatIfCommand::default()).unwrap();
    let first = v.whatif_view().unwrap();
    assert_ne!(first.stage, "done");
    let own = run(&mut v);
    assert_eq!(own.stage, "done");
    assert_eq!(
        own.self_check.as_deref(),
        Some(
            format!(
                "self-check: the model reproduces this recording: {events} of {events} events (segment events, OOMs, block addresses)"
            )
            .as_str()
        )
    );
    assert_eq!(own.self_check_exact, Some(true));
    // Prefilled with the recording's own settings (PyTorch's defaults here).
    assert!(!own.fields.expandable_segments);
    assert_eq!(own.fields.max_split_size_mb, "");
    assert_eq!(own.recorded_settings, "the default settings");
    // Under its own settings the recorded OOM happens again.
    assert_eq!(own.ooms.iter().map(|o| o.event as u64).collect::<Vec<_>>(), ooms);
    assert!(own.ooms[0].happens, "{:?}", own.ooms);
    assert!(own.ooms[0].text.contains("still happens"), "{}", own.ooms[0].text);
    // The cap is inferred (device_free had room): the capacity field holds it.
    assert!(own.capacity.as_deref().unwrap().contains("something capped the process"), "{:?}", own.capacity);
    let cap: u64 = own.fields.capacity_bytes.parse().unwrap();
    assert!(cap >= peak, "{cap} < {peak}");
    // The chart: the recorded line's highest point is the recorded peak.
    let chart = own.chart.as_ref().unwrap();
    let top = chart.recorded.iter().copied().fold(0f32, f32::max) as f64 * chart.top_bytes as f64;
    assert!((top - peak as f64).abs() <= peak as f64 * 1e-6, "{top} vs {peak}");
    assert_eq!(chart.predicted.len(), chart.recorded.len());

    // expandable_segments:True: the OOM is avoided, and the OOM panel's advice says so.
    let mut fields = own.fields.clone();
    fields.expandable_segments = true;
    v.whatif_set(WhatIfCommand { fields: Some(fields.clone()) }).unwrap();
    let exp = run(&mut v);
    assert_eq!(exp.ooms.len(), 1);
    assert!(!exp.ooms[0].happens, "{:?}", exp.ooms);
    let advice = exp.advice.as_deref().unwrap();
    assert!(advice.starts_with("with expandable_segments:True the replay peaks at "), "{advice}");
    assert!(advice.contains("would not have happened"), "{advice}");
    assert!(
        exp.headline.as_deref().unwrap().starts_with("predicted with expandable_segments:True"),
        "{:?}",
        exp.headline
    );
    assert!(exp.needs_bytes.unwrap() <= cap, "{:?}", exp.needs);
    assert_eq!(exp.self_check, own.self_check, "the self-check is the recording's, whatever the fields say");
    assert_eq!(exp.capacity, own.capacity, "the prefilled capacity is still the trace's");
    // A capacity typed in is the user's, in bytes or as a size.
    fields.capacity_bytes = (3u64 << 30).to_string();
    v.whatif_set(WhatIfCommand { fields: Some(fields.clone()) }).unwrap();
    let typed = run(&mut v);
    assert_eq!(typed.capacity.as_deref(), Some("capacity: 3.0GiB (the capacity you gave)"));
    fields.capacity_bytes = "2.5GiB".into();
    v.whatif_set(WhatIfCommand { fields: Some(fields) }).unwrap();
    let typed = run(&mut v);
    assert_eq!(typed.capacity.as_deref(), Some("capacity: 2.5GiB (the capacity you gave)"));
    assert_eq!(typed.capacity_size.as_deref(), Some("2.5GiB"));

    // Back to the recording's settings: cached, done at once.
    v.whatif_set(WhatIfCommand { fields: None }).unwrap();
    assert_eq!(v.whatif_step(1), 1.0);
    assert_eq!(v.whatif_view().unwrap().ooms, own.ooms);
}

#[test]
fn a_bad_field_is_an_error_naming_it_and_the_settings_before_stay() {
    let mut v = open();
    run(&mut v);
    let mut fields = v.whatif_view().unwrap().fields;
    fields.max_split_size_mb = "ten".into();
    let e = v.whatif_set(WhatIfCommand { fields: Some(fields.clone()) }).unwrap_err();
    assert_eq!((e.kind, e.field), (memviz_viewer::boundary::ErrorKind::Setting, Some("max_split_size_mb".to_string())));
    assert!(e.message.contains("ten"), "{}", e.message);
    fields.max_split_size_mb = String::new();
    fields.capacity_bytes = "-3".into();
    let e = v.whatif_set(WhatIfCommand { fields: Some(fields.clone()) }).unwrap_err();
    assert_eq!((e.kind, e.field), (memviz_viewer::boundary::ErrorKind::Capacity, Some("capacity_bytes".to_string())));
    assert_eq!(e.message, "capacity \"-3\": must be a positive size");
    fields.capacity_bytes = "2 parsecs".into();
    let e = v.whatif_set(WhatIfCommand { fields: Some(fields) }).unwrap_err();
    assert!(e.message.starts_with("capacity \"2 parsecs\": unknown unit"), "{}", e.message);
    assert_eq!(v.whatif_view().unwrap().stage, "done");
}

#[test]
fn without_a_file_the_panel_says_so() {
    let mut v = Viewer::new();
    assert_eq!(v.whatif_view().unwrap_err().kind, memviz_viewer::boundary::ErrorKind::NoFile);
    assert_eq!(v.whatif_set(WhatIfCommand::default()).unwrap_err().kind, memviz_viewer::boundary::ErrorKind::NoFile);
}

/// A prediction under other settings names the capacity the recorded
/// settings need too: that search is stepped like the rest (a stage of its
/// own, a slice a call), searched once per recording, and its text is the
/// one memviz-allocator's unstepped `WhatIf::verdict` writes.
#[test]
fn the_recorded_settings_capacity_is_searched_in_steps_and_once() {
    let mut v = open();
    v.whatif_set(WhatIfCommand::default()).unwrap();
    let own = run(&mut v);
    let mut fields = own.fields.clone();
    fields.expandable_segments = true;
    v.whatif_set(WhatIfCommand { fields: Some(fields.clone()) }).unwrap();
    // Fresh viewer: the recorded settings' search has not run there.
    let mut fresh = open();
    fresh.whatif_set(WhatIfCommand { fields: Some(fields.clone()) }).unwrap();
    let mut stepped = 0;
    while fresh.whatif_step(64) < 1.0 {
        if fresh.whatif_view().unwrap().busy.starts_with("finding the capacity the recorded settings") {
            stepped += 1;
        }
    }
    assert!(stepped > 1, "the recorded settings' capacity took {stepped} calls");
    let stepped_view = fresh.whatif_view().unwrap();
    // The unstepped text from memviz-allocator.
    let p = path();
    let snap = memviz_core::load(&std::fs::read(&p).unwrap()).unwrap();
    let w = memviz_allocator::WhatIf::new(&snap, 0, None).unwrap();
    let mut s = w.recording.settings.clone();
    s.set("expandable_segments:True").unwrap();
    let text = w.verdict(&w.predict(s));
    assert_eq!(stepped_view.needs.as_deref(), text.lines().last().map(str::trim));
    assert!(
        stepped_view.needs.as_deref().unwrap().contains("under the recorded (default) settings"),
        "{:?}",
        stepped_view.needs
    );
    // In the viewer whose own prediction searched it already: no second search.
    let mut again = 0;
    while v.whatif_step(64) < 1.0 {
        if v.whatif_view().unwrap().busy.starts_with("finding the capacity the recorded settings") {
            again += 1;
        }
    }
    assert_eq!(again, 0);
    assert_eq!(v.whatif_view().unwrap().needs, stepped_view.needs);
}

/// The OOM panel's advice replays by itself: the recording's own settings
/// with expandable_segments:True, chosen before the recording is read.
#[test]
fn the_advice_replays_with_expandable_segments() {
    let mut v = open();
    v.whatif_advise().unwrap();
    let early = v.whatif_view().unwrap();
    assert!(early.fields.expandable_segments || early.stage == "recording", "{early:?}");
    let a = run(&mut v);
    assert!(a.fields.expandable_segments);
    assert_eq!(a.recorded_settings, "the default settings");
    let advice = a.advice.as_deref().unwrap();
    assert!(advice.starts_with("with expandable_segments:True the replay peaks at "), "{advice}");
    assert!(advice.contains("would not have happened"), "{advice}");
    // The panel's own settings afterwards: the recording's (the OOM again).
    v.whatif_set(WhatIfCommand::default()).unwrap();
    let own = run(&mut v);
    assert!(!own.fields.expandable_segments);
    assert!(own.ooms[0].happens);
    assert!(Viewer::new().whatif_advise().is_err());
}

/// The predicted reserved memory drawn over the Active Cached Segment
/// Timeline: on the plot's own byte scale (the timeline's peak is the
/// recorded peak reserved, by Python), its highest level the predicted peak
/// (memviz-allocator's replay), from the timeline's first step to its last.
#[test]
fn the_overlay_is_on_the_segment_timelines_axes() {
    let (_, peak, _) = python();
    let mut v = open();
    let mut fields = run(&mut v).fields;
    fields.expandable_segments = true;
    v.whatif_set(WhatIfCommand { fields: Some(fields) }).unwrap();
    run(&mut v);
    // The Active Memory Timeline: no overlay.
    v.render_plot(1200, 500).unwrap();
    assert_eq!(v.whatif_overlay(), None);
    v.set_view(1);
    let frame = v.render_plot(1200, 500).unwrap();
    let Axes::Draw(spec) = frame.axes else { panic!("the segment timeline draws its axes: {:?}", frame.axes) };
    assert_eq!(spec.peak.map(|p| p.1), Some(peak), "the segment timeline's scale is reserved memory");
    let o = v.whatif_overlay().expect("a prediction over the segment timeline");
    assert_eq!(o.label, "predicted with expandable_segments:True");
    let snap = memviz_core::load(&std::fs::read(path()).unwrap()).unwrap();
    let w = memviz_allocator::WhatIf::new(&snap, 0, None).unwrap();
    let mut s = w.recording.settings.clone();
    s.set("expandable_segments:True").unwrap();
    let predicted_peak = w.predict(s).outcome.peak_reserved_bytes;
    let r = spec.rect;
    let want = (r.y + r.h) as f64 - (predicted_peak as f64 / spec.y_max as f64).min(1.0) * r.h as f64;
    let top = o.points.iter().skip(1).step_by(2).copied().fold(f32::MAX, f32::min) as f64;
    assert!((top * spec.dpr - want).abs() < 1.0, "{top} vs {want}");
    let xs: Vec<f32> = o.points.iter().step_by(2).copied().collect();
    assert!((xs[0] as f64 - r.x as f64 / spec.dpr).abs() < 1.0, "{:?}", &xs[..4]);
    let end = (r.x + r.w) as f64 / spec.dpr;
    assert!((*xs.last().unwrap() as f64 - end).abs() < 1.0, "{:?} vs {end}", xs.last());
    assert!(xs.windows(2).all(|p| p[0] <= p[1]), "left to right");
}
