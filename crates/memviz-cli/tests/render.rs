//! `memviz render` from the outside: the files it writes, checked with
//! independent readers (the PNG header by hand and the png crate's decoder,
//! the SVG with Python's xml.etree) against independent numbers (peak step
//! from crates/memviz-core/tests/views_reference.py, OOM steps from
//! tests/render_reference.py). Real snapshots from ../shared/snapshots;
//! missing data or python3 fails the tests.
#![cfg(feature = "render")]

mod common;

use common::{fails, json_of, memviz, python, tmp, Rgb};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Colors the chart promises: the peak (memviz-render's PEAK), OOM lines.
const PEAK: [u8; 3] = [0xd6, 0x27, 0x28];
const OOM: [u8; 3] = [0x5b, 0x1a, 0x8c];
const OOM_FILE: &str = "oom_pickle_named_json.json";
const BIG: &str = "transformer_fullstep_ctx128.pickle";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn snapshot(name: &str) -> PathBuf {
    let p = root().join("../shared/snapshots").join(name);
    assert!(p.is_file(), "{} is missing (../shared/snapshots beside the repository)", p.display());
    p
}

/// memory_viz's numbers for device 0: {"active_memory": {.., "peak_step"}, "segment_memory": ..}.
fn views_reference(file: &Path) -> Value {
    let script = root().join("crates/memviz-core/tests/views_reference.py");
    python(&[script.to_str().unwrap(), file.to_str().unwrap()])["devices"]["0"].clone()
}

fn oom_reference(file: &Path, kind: &str) -> Value {
    let script = root().join("crates/memviz-cli/tests/render_reference.py");
    python(&[script.to_str().unwrap(), "oom", file.to_str().unwrap(), "0", kind])
}

/// Width and height from the IHDR chunk, read by hand.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |o: usize| u32::from_be_bytes(bytes[o..o + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The plot rectangle the CLI reports: left, top, width, height.
fn plot_rect(info: &Value) -> [u32; 4] {
    let p: Vec<u32> = info["plot"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
    [p[0], p[1], p[2], p[3]]
}

/// The column of the plot with the most pixels of exactly `color`, and
/// how many it has.
fn column_of(img: &Rgb, plot: [u32; 4], color: [u8; 3]) -> (u32, u32) {
    let [x, y, w, h] = plot;
    (x..x + w)
        .map(|c| (c, (y..y + h).filter(|&r| img.at(c, r) == color).count() as u32))
        .max_by_key(|&(c, n)| (n, std::cmp::Reverse(c)))
        .unwrap()
}

/// Pixel x of step boundary `s` (plus `frac` of a step) in the plot.
fn x_of(plot: [u32; 4], n_steps: u64, s: f64) -> f64 {
    plot[0] as f64 + s * plot[2] as f64 / n_steps as f64
}

#[test]
fn png_of_a_real_training_step_draws_bands_and_marks_the_peak_where_python_puts_it() {
    let file = snapshot(BIG);
    let out = tmp("ctx128.png");
    let info = json_of(memviz(&[
        "render",
        file.to_str().unwrap(),
        "--view",
        "active",
        "--width",
        "1000",
        "--height",
        "500",
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(png_size(&bytes), (1000, 500));
    assert_eq!(info["bytes"], bytes.len());

    let py = &views_reference(&file)["active_memory"];
    assert_eq!(info["peak_step"], py["peak_step"]);
    assert_eq!(info["peak_bytes"], py["peak_bytes"]);
    assert_eq!(info["n_steps"], py["actions"]);
    assert_eq!(info["elements"], py["elements"]);

    let img = Rgb::decode(&bytes);
    let plot = plot_rect(&info);
    let [px, py_, pw, ph] = plot;
    // Bands: the area under 51 GiB of a 54 GiB axis from a 12.7 GiB start
    // is well over a third of the plot; above the peak it is background.
    let inked = (px..px + pw)
        .flat_map(|x| (py_..py_ + ph).map(move |y| (x, y)))
        .filter(|&(x, y)| img.at(x, y) != [255, 255, 255])
        .count();
    assert!(inked > (pw * ph / 3) as usize, "{inked} inked pixels of {}", pw * ph);
    assert_eq!(img.at(px + pw / 4, py_ + 2), [255, 255, 255], "above the curve");
    // The peak marker: the column with the most PEAK pixels is the peak step's.
    let (col, n) = column_of(&img, plot, PEAK);
    let want = x_of(plot, py["actions"].as_u64().unwrap(), py["peak_step"].as_f64().unwrap() + 0.5);
    assert!((col as f64 - want).abs() <= 1.0, "peak marker at x={col}, python's peak step at x={want:.1}");
    assert!(n > ph / 3, "dashed line: {n} pixels");
    // Axis text exists (dark pixels left of the plot: the y labels).
    let text =
        (0..px).flat_map(|x| (py_..py_ + ph).map(move |y| (x, y))).filter(|&(x, y)| img.at(x, y)[0] < 128).count();
    assert!(text > 200, "y labels: {text} dark pixels");
}

#[test]
fn png_marks_the_oom_at_the_step_python_counts() {
    let file = snapshot(OOM_FILE);
    let out = tmp("oom.png");
    let info =
        json_of(memviz(&["render", file.to_str().unwrap(), "--view", "active", "-o", out.to_str().unwrap(), "--json"]));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(png_size(&bytes), (1200, 600));
    let py = oom_reference(&file, "active");
    assert_eq!(info["oom_steps"], py["oom_steps"]);
    assert_eq!(py["oom_steps"].as_array().unwrap().len(), 1, "the file has one OOM");
    let img = Rgb::decode(&bytes);
    let plot = plot_rect(&info);
    let (col, n) = column_of(&img, plot, OOM);
    let want = x_of(plot, py["actions"].as_u64().unwrap(), py["oom_steps"][0].as_f64().unwrap());
    assert!((col as f64 - want).abs() <= 1.0, "OOM line at x={col}, python's step at x={want:.1}");
    assert!(n >= plot[3] * 9 / 10, "a solid line over the plot's height: {n} of {}", plot[3]);
}

#[test]
fn svg_parses_and_puts_peak_and_oom_where_python_does() {
    let file = snapshot(OOM_FILE);
    let out = tmp("oom.svg");
    let info = json_of(memviz(&[
        "render",
        file.to_str().unwrap(),
        "--view",
        "segments",
        "--width",
        "900",
        "--height",
        "450",
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]));
    let script = root().join("crates/memviz-cli/tests/render_reference.py");
    let svg = python(&[script.to_str().unwrap(), "svg", out.to_str().unwrap()]);
    assert_eq!((svg["width"].as_u64(), svg["height"].as_u64()), (Some(900), Some(450)));
    // One rectangle per band run (merged across columns), background included.
    let rects = svg["rects"].as_u64().unwrap();
    assert!(rects > 100 && rects < 20_000, "{rects} rects");
    let texts: Vec<&str> = svg["texts"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().trim()).collect();
    assert!(texts.contains(&"OOM"), "{texts:?}");
    assert!(texts.iter().any(|t| t.starts_with("peak ") && t.ends_with("GiB")), "{texts:?}");
    assert!(texts.iter().any(|t| t.ends_with("GiB") && !t.starts_with("peak")), "GiB ticks: {texts:?}");

    let views = views_reference(&file);
    let seg = &views["segment_memory"];
    let ooms = oom_reference(&file, "segments");
    assert_eq!(info["n_steps"], seg["actions"]);
    let plot = plot_rect(&info);
    let n = seg["actions"].as_u64().unwrap();
    let xs = |stroke: &str| -> Vec<f64> {
        svg["lines"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["stroke"].as_str().unwrap_or("").eq_ignore_ascii_case(stroke))
            .flat_map(|l| l["points"].as_array().unwrap().iter().map(|p| p[0].as_f64().unwrap()))
            .collect()
    };
    let peak_xs = xs("#D62728");
    let want = x_of(plot, n, seg["peak_step"].as_f64().unwrap() + 0.5);
    assert!(!peak_xs.is_empty() && peak_xs.iter().all(|x| (x - want).abs() <= 1.0), "peak {peak_xs:?}, want {want:.1}");
    let oom_xs = xs("#5B1A8C");
    let want = x_of(plot, n, ooms["oom_steps"][0].as_f64().unwrap());
    assert!(!oom_xs.is_empty() && oom_xs.iter().all(|x| (x - want).abs() <= 1.0), "OOM {oom_xs:?}, want {want:.1}");
}

#[test]
fn every_real_snapshot_renders_both_views() {
    let dir = root().join("../shared/snapshots");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            continue;
        }
        for view in ["active", "segments"] {
            let out = tmp(&format!("{}-{view}.png", p.file_name().unwrap().to_string_lossy()));
            let o = memviz(&[
                "render",
                p.to_str().unwrap(),
                "--view",
                view,
                "--width",
                "400",
                "--height",
                "240",
                "-o",
                out.to_str().unwrap(),
            ]);
            let err = String::from_utf8_lossy(&o.stderr);
            if o.status.success() {
                assert_eq!(png_size(&std::fs::read(&out).unwrap()), (400, 240));
                n += 1;
            } else {
                // A view with nothing in it says so; nothing else may fail.
                assert!(err.contains("has nothing to draw"), "{}: {err}", p.display());
            }
        }
    }
    assert!(n >= 18, "{n} charts");
}

#[test]
fn render_refuses_bad_requests_with_a_message() {
    let f = snapshot("small_train_step.pickle");
    let f = f.to_str().unwrap();
    let png = tmp("x.png");
    let png = png.to_str().unwrap();
    fails(&["render", f, "-o", png], "--view active|segments is needed");
    fails(&["render", f, "--view", "memory", "-o", png], "--view must be active or segments");
    fails(&["render", f, "--view", "active"], "-o OUT.png or -o OUT.svg is needed");
    fails(&["render", f, "--view", "active", "-o", "x.jpg"], "must end in .png or .svg");
    fails(&["render", f, "--view", "active", "-o", png, "--width", "10"], "too small");
    fails(&["render", f, "--view", "active", "-o", png, "--width", "100000"], "too large");
    fails(&["render", f, "--view", "active", "-o", png, "--height", "tall"], "--height needs a number of pixels");
    fails(&["render", f, "--view", "active", "-o", png, "--device", "7"], "no device 7");
    fails(&["render", f, "--view", "active", "-o", "/nonexistent/dir/x.png"], "/nonexistent/dir/x.png");
    let garbage = tmp("garbage.pickle");
    std::fs::write(&garbage, b"\x80\x04\x95garbage").unwrap();
    fails(&["render", garbage.to_str().unwrap(), "--view", "active", "-o", png], "garbage.pickle: ");
}

/// The y axis reads in one unit (`0.5GiB 1.0GiB 1.5GiB`, never
/// `1000.0MiB 2.0GiB`), on the real H100 OOM recording (2.3 GiB reserved)
/// and a file under 1 GiB: the rule the page and the profiler charts share
/// (memviz_core::format::axis_unit).
#[test]
fn y_ticks_in_one_unit() {
    let script = root().join("crates/memviz-cli/tests/render_reference.py");
    let recordings = root().join("../shared/recordings");
    for (name, view, unit) in
        [("oom_fragmentation_2gib.pickle", "segments", "GiB"), ("resnet50_zero_grad.pickle", "active", "MiB")]
    {
        let file = recordings.join(name);
        assert!(file.is_file(), "{} is missing", file.display());
        let out = tmp(&format!("units-{name}.svg"));
        let args = ["render", file.to_str().unwrap(), "--view", view, "-o", out.to_str().unwrap()];
        assert!(memviz(&args).status.success(), "{name}");
        let svg = python(&[script.to_str().unwrap(), "svg", out.to_str().unwrap()]);
        let ticks: Vec<String> = svg["texts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().trim().to_string())
            .filter(|t| {
                t.ends_with('B') && !t.starts_with("peak") && t.chars().next().is_some_and(|c| c.is_ascii_digit())
            })
            .collect();
        assert!(ticks.len() >= 3, "{name}: {ticks:?}");
        assert!(ticks.iter().all(|t| t.ends_with(unit)), "{name}: {ticks:?}");
    }
}
