//! The plot's x axis in wall-clock time (xaxis.rs) on real snapshots:
//! one monotone mapping, the event under a pixel is the core TimeAxis's,
//! an allocation sits where Python's pickle module puts its time
//! (tests/reference/time_axis_reference.py), zoom works in display x, the
//! mode is kept across views and files, and a file without time_us falls
//! back to steps and says why.

mod common;

use common::{repo, snapshot, FULLSTEP, H, W};
use std::process::Command;

use memviz_core::phases::TimeAxis;
use memviz_core::timeline::Hit;
use memviz_viewer::{Axes, Viewer, XMode};
use serde_json::Value;

fn open(name: &str) -> Viewer {
    let p = snapshot(name);
    let bytes =
        std::fs::read(&p).unwrap_or_else(|e| panic!("{} (../shared must sit beside the repository): {e}", p.display()));
    let mut v = Viewer::new();
    v.open(name, &bytes).unwrap();
    v
}

/// tests/reference/time_axis_reference.py's answer for `name`.
fn reference(name: &str, elems: &[&str]) -> Value {
    let out = Command::new("python3")
        .arg(repo().join("tests/reference/time_axis_reference.py"))
        .arg(snapshot(name))
        .args(elems)
        .output()
        .expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

const NO_TIME: &str = "llm_inference_no_timestamps.pickle";

/// The core's own axis of the viewer's current timeline.
fn core_axis(v: &Viewer) -> TimeAxis {
    TimeAxis::build(&v.cx.file().unwrap().snap, v.cx.timeline().unwrap(), None).unwrap()
}

#[test]
fn the_time_axis_is_monotone_and_puts_the_core_axis_step_under_each_pixel() {
    let mut v = open(FULLSTEP);
    assert!(v.set_x_axis(XMode::Time));
    assert_eq!(v.x_axis(), XMode::Time);
    let frame = v.render_plot(W, H).unwrap();
    let r = frame.rect;
    let axis = core_axis(&v);
    // Idle gaps as Python finds them (two: 55 and 43 ms).
    let py = reference(FULLSTEP, &[]);
    let gaps: Vec<(u32, f64)> = axis.gaps.iter().map(|g| (g.step, g.real_s)).collect();
    let want: Vec<(u32, f64)> = py["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["step"].as_u64().unwrap() as u32, g["real_s"].as_f64().unwrap()))
        .collect();
    assert_eq!(gaps.len(), 2);
    for (a, b) in gaps.iter().zip(&want) {
        assert_eq!(a.0, b.0);
        assert!((a.1 - b.1).abs() < 1e-9, "{a:?} {b:?}");
    }
    let span = py["span_s"].as_f64().unwrap();
    assert!((axis.span() - span).abs() < 1e-9);
    // The x labels: round real times, each where Python puts that time
    // (real time less the compressed part of the gaps before it).
    let Axes::Draw(spec) = frame.axes.clone() else { panic!("axes") };
    let ticks = spec.time.expect("time ticks").ticks;
    assert!(ticks.len() >= 5, "{ticks:?}");
    let shown = py["shown_s"].as_f64().unwrap();
    let display = |r: f64| {
        let mut cut = 0.0;
        for g in py["gaps"].as_array().unwrap() {
            let (gx, real) = (g["x_s"].as_f64().unwrap(), g["real_s"].as_f64().unwrap());
            if r >= gx + cut + real {
                cut += real - shown;
            }
        }
        r - cut
    };
    for (f, label) in &ticks {
        let ms: f64 = label.strip_suffix(" ms").and_then(|m| m.parse().ok()).unwrap_or_else(|| panic!("{label}"));
        assert_eq!(ms % 50.0, 0.0, "{label}: round");
        let want = display(ms / 1000.0) / span;
        assert!((f - want).abs() * (r.w as f64) < 0.5, "{label} at {f}, Python {want}");
    }
    // Monotone both ways.
    let steps: Vec<u32> = (0..r.w).map(|c| v.step_at_x(r.x as f64 + c as f64 + 0.5)).collect();
    assert!(steps.windows(2).all(|w| w[0] <= w[1]));
    let xs: Vec<f64> = (0..=v.n_steps()).step_by(7).map(|s| v.x_of_step(s as f64)).collect();
    assert!(xs.windows(2).all(|w| w[0] <= w[1]));
    // Not linear in steps: the first 60 steps (before both gaps' ends) take
    // far more than 60 / 12665 of the width.
    assert!(v.x_of_step(60.0) - r.x as f64 > 0.1 * r.w as f64);
    // Each column with a single step in it shows the core axis' step at its
    // left edge, and the band hit there is alive at that step.
    let tl = v.cx.timeline().unwrap();
    let mut single = 0;
    for c in 0..r.w {
        let (a, b) = (c as f64 / r.w as f64 * axis.span(), (c + 1) as f64 / r.w as f64 * axis.span());
        let (s0, s1) = (axis.step_of_x(a), axis.step_of_x(b));
        let step = v.cx.cols.step[c as usize];
        assert!(step as f64 >= s0.floor() && (step as f64) < s1.ceil().max(s0.floor() + 1.0), "column {c}");
        if s1.ceil() <= s0.floor() + 1.0 {
            single += 1;
            assert_eq!(step, s0.floor() as u32, "column {c}");
            let y = r.h as f64 - 2.0;
            if let Some(Hit::Element(e)) = v.cx.hit(c as f64 + 0.5, y) {
                let el = &tl.elements[e as usize];
                assert!(el.x0 <= step && step < el.x1, "column {c}: element {e} not alive at {step}");
            }
        }
    }
    assert!(single > 50, "{single} single-step columns");
}

#[test]
fn an_allocation_is_hovered_where_python_puts_its_time() {
    // The largest allocation made in the trace, and a window of steps where
    // Python puts the middle of its life at different x on the two axes.
    let py = reference(FULLSTEP, &["pick"]);
    let p = &py["picked"];
    let e = p["elem"].as_i64().unwrap() as i32;
    let win: Vec<f64> = p["window"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let mut v = open(FULLSTEP);
    v.set_x_axis(XMode::Time);
    v.set_window(win[0], win[1]);
    let r = v.render_plot(W, H).unwrap().rect;
    let at = |f: &Value| r.x as f64 + f.as_f64().unwrap() * r.w as f64;
    let (x_time, x_step) = (at(&p["time_frac"]), at(&p["step_frac"]));
    let column = |v: &mut Viewer, x: f64| (0..r.h).map(|y| v.hit_at(x, (r.y + y) as f64)).collect::<Vec<i32>>();
    let hits = column(&mut v, x_time);
    let y = hits.iter().position(|&h| h == e).unwrap_or_else(|| panic!("element {e} not under x = {x_time}"));
    let text = v.hover(x_time, (r.y + y as u32) as f64);
    assert!(text.starts_with(&format!("{e} ")), "{text}");
    assert!(text.contains(p["addr"].as_str().unwrap()), "{text}");
    assert!(text.contains(&format!("({} bytes)", p["size"])), "{text}");
    // Not at its place on the step axis; on the step axis, the other way round.
    assert!(!column(&mut v, x_step).contains(&e));
    v.set_x_axis(XMode::Step);
    v.render_plot(W, H).unwrap();
    assert!(column(&mut v, x_step).contains(&e));
    assert!(!column(&mut v, x_time).contains(&e));
}

#[test]
fn zoom_and_pan_work_in_display_x_and_switching_keeps_the_window() {
    let mut v = open(FULLSTEP);
    v.set_x_axis(XMode::Time);
    let r = v.render_plot(W, H).unwrap().rect;
    let x = r.x as f64 + r.w as f64 * 0.42;
    let before = v.step_at_x(x);
    v.zoom_at(0.25, x);
    v.render_plot(W, H).unwrap();
    // The step under the pointer stays under it.
    assert!((v.step_at_x(x) as i64 - before as i64).abs() <= 2, "{} vs {before}", v.step_at_x(x));
    // A quarter of the display width, not of the steps.
    let axis = core_axis(&v);
    let w = v.window();
    let shown = axis.x_of_step(w.x1) - axis.x_of_step(w.x0);
    assert!((shown / axis.span() - 0.25).abs() < 1e-6, "{shown}");
    // Pan by a tenth of the plot: display width kept.
    v.pan_by(-(r.w as f64) / 10.0);
    let w2 = v.window();
    let shown2 = axis.x_of_step(w2.x1) - axis.x_of_step(w2.x0);
    assert!((shown2 - shown).abs() < 1e-9 && w2.x0 > w.x0);
    // Switching the axis keeps the same events in view.
    assert!(v.set_x_axis(XMode::Step));
    assert_eq!(v.window(), w2);
    assert!(v.set_x_axis(XMode::Time));
    assert_eq!(v.window(), w2);
}

#[test]
fn the_mode_is_kept_across_views_and_files_and_steps_without_time_us() {
    let mut v = open(FULLSTEP);
    v.set_x_axis(XMode::Time);
    for view in [1, 2, 0] {
        v.set_view(view);
        assert_eq!(v.x_axis(), XMode::Time, "view {view}");
        let frame = v.render_plot(W, H).unwrap_or_else(|| panic!("view {view} draws"));
        let Axes::Draw(spec) = frame.axes else { panic!("view {view}: axes") };
        let t = spec.time.unwrap_or_else(|| panic!("view {view}: time ticks"));
        assert!(t.ticks.len() >= 2 && t.ticks.iter().all(|(_, l)| l.ends_with(" ms")), "{:?}", t.ticks);
        // Both gaps labelled with their real length (the segment timeline
        // has its own steps, so its own gaps).
        let labels: Vec<&str> = t.gaps.iter().map(|g| g.2.as_str()).collect();
        if view == 1 {
            assert!(!labels.is_empty() && labels.iter().all(|l| l.starts_with("idle ")));
        } else {
            assert_eq!(labels, ["idle 55 ms", "idle 43 ms"], "view {view}");
        }
        assert_eq!(spec.x_desc, "time from the first event (idle gaps compressed)");
    }
    // The stacked area (Color by) draws over the same columns.
    v.set_view(0);
    v.set_color_by("area").unwrap();
    let r = v.render_plot(W, H).unwrap().rect;
    let x = r.x as f64 + r.w as f64 * 0.42;
    let text = v.area_text(x, (r.y + r.h - 3) as f64);
    assert!(text.starts_with(&format!("step {}:", v.cx.cols.step[(r.w as f64 * 0.42) as usize])), "{text}");
    v.set_color_by("allocation").unwrap();
    // A file without time_us: steps, and why; the choice comes back with time.
    let p = snapshot(NO_TIME);
    v.open(NO_TIME, &std::fs::read(&p).unwrap()).unwrap();
    assert_eq!(v.x_axis(), XMode::Step);
    assert_eq!(v.x_axis_asked(), XMode::Time);
    assert_eq!(v.x_axis_reason(), "this file has no time_us: steps only");
    assert!(!v.set_x_axis(XMode::Time));
    let frame = v.render_plot(W, H).unwrap();
    if let Axes::Draw(spec) = frame.axes {
        assert!(spec.time.is_none());
        assert_eq!(spec.x_desc, "alloc / free action (step): the file has no time_us");
    }
    v.select_file(0);
    assert_eq!(v.x_axis(), XMode::Time);
    assert_eq!(v.x_axis_reason(), "");
}

#[test]
fn gaps_are_veiled_in_the_plot() {
    let mut v = open(FULLSTEP);
    v.set_x_axis(XMode::Time);
    v.render_plot(W, H).unwrap();
    let py = reference(FULLSTEP, &[]);
    let span = py["span_s"].as_f64().unwrap();
    let img = v.plot_image();
    let gap = &py["gaps"][0];
    // The middle of the first gap, near the bottom (memory held through it):
    // lighter than the bands on either side, never white.
    let shown = py["shown_s"].as_f64().unwrap();
    let c = ((gap["x_s"].as_f64().unwrap() + shown / 2.0) / span * img.width as f64) as u32;
    let px = img.get(c, img.height - 2);
    assert!(px[..3].iter().all(|&v| v >= 0x80) && px[..3] != [255, 255, 255], "{px:?}");
}

/// Snapshots with odd `time_us` (written by Python's pickle): all equal, near
/// i64's ends, negative and running backwards, one event, half missing, an
/// hour idle. The time axis takes each: draw, zoom, pan, hover, minimap and
/// ticks never panic and stay monotone.
#[test]
fn odd_times_never_break_the_time_axis() {
    let script = r#"
import pickle, sys
def snap(times):
    tr = []
    for i, t in enumerate(times):
        e = {'action': 'alloc' if i % 2 == 0 else 'free_completed', 'addr': 0x7000 + (i // 2) * 512,
             'size': 512, 'stream': 0, 'frames': []}
        if t is not None:
            e['time_us'] = t
        tr.append(e)
    return {'segments': [], 'device_traces': [tr]}
big = 2**63 - 1
cases = {
    'equal': [5] * 40,
    'ends': [big - 10, big - 5, -big, big, 0, big - 1, big, big],
    'backwards': [100 - 7 * i for i in range(40)],
    'one': [1],
    'half': [None if i % 2 else 1000 + i * 10 for i in range(40)],
    'idle_hour': [i * 10 for i in range(20)] + [3_600_000_000 + i * 10 for i in range(20)],
}
for k, v in cases.items():
    with open(sys.argv[1] + '/' + k + '.pickle', 'wb') as f:
        pickle.dump(snap(v), f)
"#;
    let dir = std::env::temp_dir().join(format!("memviz-odd-times-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let st = Command::new("python3").arg("-c").arg(script).arg(&dir).status().expect("python3");
    assert!(st.success());
    for name in ["equal", "ends", "backwards", "one", "half", "idle_hour"] {
        let bytes = std::fs::read(dir.join(format!("{name}.pickle"))).unwrap();
        let mut v = Viewer::new();
        v.open(name, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(v.set_x_axis(XMode::Time), "{name}: {}", v.x_axis_reason());
        for (w, h) in [(1200, 500), (97, 61), (3, 3)] {
            let Some(frame) = v.render_plot(w, h) else { continue };
            let r = frame.rect;
            v.render_minimap(w, 40);
            let steps: Vec<u32> = (0..r.w).map(|c| v.step_at_x(r.x as f64 + c as f64 + 0.5)).collect();
            assert!(steps.windows(2).all(|s| s[0] <= s[1]), "{name}");
            for f in [0.0, 0.5, 1.0] {
                let x = r.x as f64 + f * r.w as f64;
                v.hover(x, (r.y + r.h / 2) as f64);
                v.zoom_at(0.01, x);
                v.render_plot(w, h);
                v.pan_by(r.w as f64 * 3.0);
                v.render_plot(w, h);
                v.zoom_at(1e6, x);
            }
            let _ = v.x_axis_json();
            v.center_window(v.minimap_step(0.7));
            v.render_plot(w, h);
        }
        if name == "idle_hour" {
            let j: Value = serde_json::from_str(&v.x_axis_json()).unwrap();
            assert_eq!(j["gaps"][0]["label"], "idle 3600.0 s", "{j}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The time under the pointer (asked at every pointer move) is the core's
/// `seconds_at_step` on both axes, for each real snapshot and timeline.
#[test]
fn time_at_step_is_the_core_answer_on_both_axes() {
    let dir = repo().join("../shared/snapshots");
    let mut names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.retain(|n| n.ends_with(".pickle"));
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    let mut with_time = 0;
    for name in &names {
        let mut v = open(name);
        for view in [0, 1] {
            v.set_view(view);
            let n = v.n_steps() as f64;
            let (f, tl) = (v.cx.file().unwrap(), v.cx.timeline().unwrap());
            let points = [0.0, 0.5, 1.0, n * 0.37, n * 0.5 + 0.25, n - 1.5, n - 0.5, n, n + 3.0, -1.0];
            let want: Vec<Option<f64>> =
                points.iter().map(|&s| memviz_core::phases::seconds_at_step(&f.snap, tl, s)).collect();
            with_time += want[0].is_some() as u32;
            for mode in [XMode::Step, XMode::Time, XMode::Step] {
                v.set_x_axis(mode);
                for (&s, w) in points.iter().zip(&want) {
                    let got = v.time_at_step(s);
                    match (got, w) {
                        (Some(a), Some(b)) => {
                            assert!((a - b).abs() < 1e-9, "{name} view {view} {mode:?} s={s}: {a} vs {b}")
                        }
                        _ => assert_eq!(got, *w, "{name} view {view} {mode:?} s={s}"),
                    }
                }
            }
        }
    }
    assert!(with_time >= 4, "{with_time} timelines with time_us");
}
