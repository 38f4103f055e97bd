//! A torch.profiler memory export as www/profiler.js drives the viewer's
//! ProfilerView, natively on the files tests/reference/gen_profiler.py
//! wrote: the summary is the script's numbers, the chart draws and hovers,
//! the window zooms and clamps, a snapshot is refused.

use std::path::PathBuf;

use memviz_viewer::ProfilerView;
use serde_json::Value;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/reference/fixtures/profiler")
}

fn open(name: &str) -> ProfilerView {
    let bytes = std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    ProfilerView::open(name, &bytes).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_generated_file_opens_draws_and_hovers() {
    let expected: Value = serde_json::from_slice(&std::fs::read(dir().join("expected.json")).unwrap()).unwrap();
    let files = expected.as_object().unwrap();
    assert_eq!(files.len(), 5);
    for (name, want) in files {
        let mut v = open(name);
        let s: Value = serde_json::from_str(&v.summary_json()).unwrap();
        assert_eq!(s["format"], want["format"], "{name}");
        assert_eq!(v.chart_titles().len(), want["charts"].as_array().unwrap().len(), "{name}");
        let img = v.render(400, 200);
        assert_eq!((img.width, img.height), (400, 200));
        assert!(img.rgba.chunks(4).any(|p| p != img.rgba[..4].as_ref()), "{name}: something drawn");
        let hovered = (0..400).map(|x| v.hover(x)).filter(|t| t.starts_with("t = ")).count();
        assert!(hovered > 0, "{name}");
        assert_eq!(v.hover(10_000), "");
        let (_, peak) = v.peak().expect("a peak");
        assert_eq!(peak as u64, want["charts"][0]["peak_bytes"].as_u64().unwrap(), "{name}");
        let cmd = memviz_viewer::profiler::ProfilerCommand { width: 400, height: 200, dpr: 1.0, ..Default::default() };
        let m = v.update(&cmd);
        let legend: std::collections::BTreeMap<String, i64> =
            m.legend.iter().map(|l| (l.name.clone(), l.max)).collect();
        let want_max: std::collections::BTreeMap<String, i64> = want["charts"][0]["max"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, x)| (k.clone(), x.as_i64().unwrap()))
            .filter(|(_, x)| *x != 0)
            .collect();
        assert_eq!(legend, want_max, "{name}");
        assert!(m.y_ticks.len() >= 2 && m.x_ticks.len() >= 3, "{name}");
        assert!(m.title.starts_with(&format!("{name}: torch.profiler ")), "{}", m.title);
        // The canvas: its margins (70 and 12 CSS px) left for the labels, the plot (318 px) between.
        let img = v.render_canvas(400, 200, 1.0);
        assert_eq!(img.rgba[..4], [0, 0, 0, 0], "{name}");
        assert_eq!(img.rgba[399 * 4 + 3], 0, "{name}");
        let row = &img.rgba[100 * 400 * 4..101 * 400 * 4];
        assert!(row[70 * 4..388 * 4].chunks(4).all(|p| p[3] > 0), "{name}: the plot opaque");
        // A hover at CSS x on the canvas: the plot's column 60% in; none over the margin.
        let mut at =
            |x: f64| v.update(&memviz_viewer::profiler::ProfilerCommand { hover_x: Some(x), ..cmd.clone() }).hover;
        assert!(at(70.0 + 318.0 * 0.6).starts_with("t = "), "{name}");
        assert_eq!(at(30.0), "");
    }
}

#[test]
fn the_window_zooms_and_clamps() {
    let mut v = open("train.trace.json");
    let d = v.duration_s();
    assert!(d > 0.0);
    assert_eq!((v.window_start(), v.window_end()), (0.0, d));
    v.zoom_at(0.5, 0.5);
    assert!((v.window_end() - v.window_start() - d / 2.0).abs() < 1e-9);
    v.set_window(-5.0, d * 10.0);
    assert_eq!((v.window_start(), v.window_end()), (0.0, d));
    v.set_window(d / 4.0, d / 4.0);
    assert_eq!((v.window_start(), v.window_end()), (0.0, d), "an empty window is ignored");
    v.set_chart(99);
    assert_eq!(v.window_end(), v.duration_s());
}

#[test]
fn a_snapshot_is_not_a_profiler_export() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/snapshots/small_train_step.pickle");
    let e = ProfilerView::open("s.pickle", &std::fs::read(p).unwrap()).err().expect("refused");
    assert!(e.contains("a snapshot"), "{e}");
}
