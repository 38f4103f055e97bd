//! The wasm API in headless Chromium (wasm-bindgen-test; scripts/test-web.sh
//! runs it with chromedriver). Uses the built-in example, the real recording
//! resnet50_no_zero_grad (example/README.md); the expected numbers are what
//! tests/reference/memviz_reference.py (Python's pickle module) reads in it.
#![cfg(target_arch = "wasm32")]

use memviz_wasm::{Viewer, EXAMPLE, EXAMPLE_NAME};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

mod common;

use common::canvas;

wasm_bindgen_test_configure!(run_in_browser);

/// The current device's numbers (`memviz summary --json`).
fn summary(v: &mut Viewer) -> serde_json::Value {
    page_cmd(v, r#"{"cmd": "numbers"}"#)["numbers"].clone()
}

/// The page view as it is.
fn get(v: &mut Viewer) -> serde_json::Value {
    page_cmd(v, r#"{"cmd": "get"}"#)
}

/// Pointer at CSS (x, y) of the plot: what is under it, and its text (or the pinned one's).
fn hover(v: &mut Viewer, x: f64, y: f64) -> (i64, String) {
    // After a leave the pointer is over nothing, with the leave's text (the pinned band's).
    let left = page_cmd(v, r#"{"cmd": "leave"}"#)["pointer"]["context"].clone();
    let p = page_cmd(v, &format!(r#"{{"cmd": "hover", "x": {x}, "y": {y}}}"#))["pointer"].clone();
    let text = if p["changed"] == true { &p["context"] } else { &left };
    (p["hit"].as_i64().unwrap(), text.as_str().unwrap().to_string())
}

/// Runs a viewer command (`{"cmd": ...}` as the page writes it) and returns its page view.
fn page_cmd(v: &mut Viewer, c: &str) -> serde_json::Value {
    let out = v.command(js_sys::JSON::parse(c).unwrap()).unwrap_or_else(|e| panic!("{c}: {e:?}"));
    serde_json::from_str(&js_sys::JSON::stringify(&out).unwrap().as_string().unwrap()).unwrap()
}

/// Pixels of `c` that are not fully transparent or white.
fn inked(c: &HtmlCanvasElement) -> usize {
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let d = ctx.get_image_data(0.0, 0.0, c.width() as f64, c.height() as f64).unwrap().data();
    d.chunks(4).filter(|p| p[3] != 0 && (p[0] < 250 || p[1] < 250 || p[2] < 250)).count()
}

struct Canvases {
    plot: HtmlCanvasElement,
    /// The hovered band's outline, between the bands and the axes.
    sel: HtmlCanvasElement,
    axes: HtmlCanvasElement,
    mini: HtmlCanvasElement,
}

fn canvases() -> Canvases {
    Canvases { plot: canvas(900, 400), sel: canvas(900, 400), axes: canvas(900, 400), mini: canvas(900, 50) }
}

/** An open command (`OpenCommand`) as the page writes it. */
fn cmd(json: &str) -> wasm_bindgen::JsValue {
    js_sys::JSON::parse(json).unwrap()
}

/** A field of a JS object (an `OpenReply`, a `PageError`). */
fn field(v: &wasm_bindgen::JsValue, name: &str) -> wasm_bindgen::JsValue {
    js_sys::Reflect::get(v, &name.into()).unwrap()
}

fn example() -> Viewer {
    let mut v = Viewer::new();
    assert_eq!(field(&v.open(cmd(r#"{"cmd": "example"}"#), None).unwrap(), "file"), 0);
    v
}

/// Opens `bytes` as the page does a small file: begin, feed, finish.
fn open(v: &mut Viewer, name: &str, bytes: &[u8]) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> {
    v.open(cmd(&format!(r#"{{"cmd": "begin", "name": "{name}"}}"#)), None)?;
    v.feed(bytes)?;
    v.open(cmd(r#"{"cmd": "finish"}"#), None)
}

/// A refusal's message (a `PageError`: it has a kind, it is no JS Error).
fn error_message(e: wasm_bindgen::JsValue) -> String {
    assert!(field(&e, "kind").is_string(), "a PageError");
    field(&e, "message").as_string().unwrap()
}

#[wasm_bindgen_test]
fn example_opens_with_its_numbers() {
    let mut v = example();
    let p = get(&mut v);
    assert_eq!(p["files"], serde_json::json!([EXAMPLE_NAME]));
    assert_eq!(p["devices"], serde_json::json!([{"value": 0, "label": "cuda:0"}]));
    assert_eq!(
        (&p["views"][0]["name"], &p["views"][1]["name"]),
        (&"Active Memory Timeline".into(), &"Active Cached Segment Timeline".into())
    );
    let s = summary(&mut v);
    // memviz_reference.py summary: 9870 trace events; the Active Memory
    // Timeline from 137650152 bytes (324 blocks allocated before the trace:
    // the model was moved to the device first), peak 470210256, end
    // 375664840, 3821 elements.
    assert_eq!(s["trace_events"], 9870, "{s}");
    assert_eq!(s["timeline"]["elements"], 3821, "{s}");
    assert_eq!(s["timeline"]["elements"], p["elements"]);
    assert_eq!(p["detail"], p["elements"], "all drawn by default");
    assert_eq!(s["timeline"]["start_bytes"], 137650152u64);
    assert_eq!(s["timeline"]["peak_bytes"], 470210256u64);
    assert_eq!(s["timeline"]["end_bytes"], 375664840u64);
    assert_eq!((&s["reserved_bytes"], &s["allocated_bytes"]), (&494927872u64.into(), &381113856u64.into()), "{s}");
    let page = p;
    let peak = page["summary"].as_array().unwrap().iter().find(|i| i["key"] == "timeline.peak_bytes").unwrap().clone();
    let step: u32 = peak["text"].as_str().unwrap().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(step > 0 && step < page["steps"].as_u64().unwrap() as u32, "{peak}");
    assert_eq!(s["peak_step"], step);
}

#[wasm_bindgen_test]
fn streaming_loader_equals_whole_file() {
    let mut whole = example();
    let mut v = Viewer::new();
    v.open(cmd(r#"{"cmd": "begin", "name": "chunked.pickle.gz"}"#), None).unwrap();
    for chunk in EXAMPLE.chunks(777) {
        v.feed(chunk).unwrap();
    }
    assert_eq!(field(&v.open(cmd(r#"{"cmd": "finish"}"#), None).unwrap(), "file"), 0);
    let (a, b) = (summary(&mut whole), summary(&mut v));
    assert_eq!(a["timeline"], b["timeline"]);
    assert_eq!(a["trace_events"], b["trace_events"]);
    assert_eq!(a["reserved_bytes"], b["reserved_bytes"]);
}

#[wasm_bindgen_test]
fn bad_file_is_an_error_naming_it_and_open_files_stay() {
    let mut v = example();
    let png = [0x89u8, b'P', b'N', b'G', 13, 10, 26, 10, 0, 0, 0, 13];
    let e = open(&mut v, "picture.png", &png).expect_err("a PNG is no snapshot");
    let msg = error_message(e.clone());
    assert!(msg.starts_with("picture.png: "), "{msg}");
    assert!(msg.contains("byte offset"), "{msg}");
    assert_eq!(field(&e, "kind"), "not_a_snapshot");
    // A truncated pickle: its kind, and the offset where the 13 bytes end.
    let cut = [0x80u8, 4, 0x95, 0, 0, 0, 0, 0, 0, 0, 0, b'}', 0x94];
    let e = open(&mut v, "cut.pickle", &cut).expect_err("truncated");
    assert!(error_message(e.clone()).starts_with("cut.pickle: "));
    assert_eq!(field(&e, "kind"), "truncated");
    assert_eq!(field(&e, "offset"), 13);
    assert_eq!(get(&mut v)["files"], serde_json::json!([EXAMPLE_NAME]));
    assert_eq!(v.file_count(), 1);
    assert!(summary(&mut v)["trace_events"].as_u64().unwrap() > 0);
}

#[wasm_bindgen_test]
fn render_draws_bands_axes_and_minimap() {
    let mut v = example();
    let c = canvases();
    let st = v.render(&c.plot, &c.sel, &c.axes, &c.mini).unwrap();
    assert!(st.bands_drawn > 20, "{}", st.bands_drawn);
    assert!(st.columns > 700);
    assert!(inked(&c.plot) > 50_000);
    assert!(inked(&c.axes) > 500, "plotters drew labels");
    assert!(inked(&c.mini) > 5_000);
    // Axes are drawn again only when they change.
    let st2 = v.render(&c.plot, &c.sel, &c.axes, &c.mini).unwrap();
    assert_eq!(st2.axes_ms, 0.0);
    assert_eq!(st2.bands_drawn, st.bands_drawn);
}

#[wasm_bindgen_test]
fn hover_pin_and_hit_follow_the_bands() {
    let mut v = example();
    let c = canvases();
    v.render(&c.plot, &c.sel, &c.axes, &c.mini).unwrap();
    let big = get(&mut v)["largest"].as_i64().expect("a largest element");
    let el = page_cmd(&mut v, &format!(r#"{{"cmd": "element", "element": {big}}}"#));
    let xy = page_cmd(&mut v, &format!(r#"{{"cmd": "locate", "element": {big}}}"#))["point"]
        .as_array()
        .expect("largest element visible")
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect::<Vec<_>>();
    let (hit, text) = hover(&mut v, xy[0], xy[1]);
    assert_eq!(hit, big);
    // memviz_reference.py hover: the largest element is 267, block
    // b7fe757e00000_0 of 33554432 bytes, cuBLAS's workspace.
    assert_eq!(big, 267);
    assert!(text.starts_with("267 Addr: b7fe757e00000_0"), "{text}");
    assert!(text.contains("(33554432 bytes)") && text.contains("setWorkspaceForHandle"), "{text}");
    assert_eq!(text, el["text"].as_str().unwrap());
    // The hovered band's outline goes on its own canvas, not on the bands.
    assert_eq!(inked(&c.sel), 0, "nothing hovered at the render");
    let bands = inked(&c.plot);
    assert!(v.render_selection(&c.sel).unwrap(), "the timeline draws its outline apart");
    assert!(inked(&c.sel) > 20, "outline pixels: {}", inked(&c.sel));
    assert_eq!(inked(&c.plot), bands);
    // Pin, then hover empty space (top left of the plot: nothing allocated yet).
    page_cmd(&mut v, &format!(r#"{{"cmd": "click", "x": {}, "y": {}}}"#, xy[0], xy[1]));
    assert_eq!(hover(&mut v, 80.0, 16.0), (-1, text.clone()));
    assert_eq!(page_cmd(&mut v, r#"{"cmd": "leave"}"#)["pointer"]["context"], text.as_str());
    assert!(v.render_selection(&c.sel).unwrap());
    assert!(inked(&c.sel) > 20, "the pinned band stays outlined");
    page_cmd(&mut v, r#"{"cmd": "click", "x": 2.0, "y": 2.0}"#); // unpins
    assert!(v.render_selection(&c.sel).unwrap());
    assert_eq!(inked(&c.sel), 0, "nothing selected: an empty overlay");
    // Outside the plot: nothing.
    assert_eq!(hover(&mut v, 2.0, 2.0).0, -1);
}

#[wasm_bindgen_test]
fn detail_zoom_pan_and_views() {
    let mut v = example();
    let c = canvases();
    let all = v.render(&c.plot, &c.sel, &c.axes, &c.mini).unwrap().bands_drawn;
    assert_eq!(page_cmd(&mut v, r#"{"cmd": "set_detail", "detail": 5}"#)["drawn"], 5);
    let five = v.render(&c.plot, &c.sel, &c.axes, &c.mini).unwrap().bands_drawn;
    assert!(five <= 5 && five < all, "{five} {all}");
    let p = page_cmd(&mut v, r#"{"cmd": "set_detail", "detail": 4294967295}"#);
    assert_eq!(p["detail"], p["elements"]);

    let n = p["steps"].as_f64().unwrap();
    let window = |p: serde_json::Value| (p["window"][0].as_f64().unwrap(), p["window"][1].as_f64().unwrap());
    assert_eq!(window(p), (0.0, n));
    let (a, b) = window(page_cmd(&mut v, r#"{"cmd": "zoom", "factor": 0.5, "x": 481.0}"#)); // middle of the plot
    let span = b - a;
    assert!((span - n / 2.0).abs() < 1e-6, "{span}");
    assert!(window(page_cmd(&mut v, r#"{"cmd": "pan", "dx": -100.0}"#)).0 > a);
    assert_eq!(window(page_cmd(&mut v, r#"{"cmd": "set_window", "x0": -50.0, "x1": 1e12}"#)), (0.0, n));

    let active = summary(&mut v);
    page_cmd(&mut v, r#"{"cmd": "set_view", "view": "cached_segments"}"#);
    let seg = summary(&mut v);
    assert_eq!(seg["view"], "Active Cached Segment Timeline");
    assert_ne!(seg["timeline"], active["timeline"]);
    // No segment is freed in the example (memviz_reference.py: 27
    // segment_alloc, no segment_free): the segment timeline ends at the
    // reserved total of the dump.
    assert_eq!(seg["timeline"]["end_bytes"], seg["reserved_bytes"]);
    let st = v.render(&c.plot, &c.sel, &c.axes, &c.mini).unwrap();
    assert!(st.bands_drawn > 3);
    let text = page_cmd(&mut v, r#"{"cmd": "element", "element": 0}"#)["text"].clone();
    assert!(text.as_str().unwrap().starts_with("0 Addr: s"), "{text}");
}

/// Why bands are not drawn by plotters: plotters-canvas issues one canvas
/// call per rectangle. Measured here against the pixel-buffer path on the
/// same canvas size and printed only (see the README's design notes): a
/// wall-clock comparison is no correctness check, timings belong in
/// benches/. What is checked is that both paths drew.
#[wasm_bindgen_test]
fn plotters_rectangles_and_the_pixel_buffer_both_draw() {
    use plotters::prelude::*;
    use plotters_canvas::CanvasBackend;
    let perf = web_sys::window().unwrap().performance().unwrap();
    let c = canvas(1264, 450);
    let n = 20_000u32;
    let t0 = perf.now();
    {
        let root = CanvasBackend::with_canvas_object(c.clone()).unwrap().into_drawing_area();
        let colors = [RGBColor(0x4e, 0x79, 0xa7), RGBColor(0xf2, 0x8e, 0x2c), RGBColor(0xe1, 0x57, 0x59)];
        for i in 0..n {
            let x = (i % 1264) as i32;
            let y = ((i * 7) % 440) as i32;
            root.draw(&Rectangle::new([(x, y), (x + 1, y + 3)], colors[i as usize % 3].filled())).unwrap();
        }
        root.present().unwrap();
    }
    let plotters_ms = perf.now() - t0;
    let mut v = example();
    let cs =
        Canvases { plot: canvas(1264, 450), sel: canvas(1264, 450), axes: canvas(1264, 450), mini: canvas(1264, 50) };
    v.render(&cs.plot, &cs.sel, &cs.axes, &cs.mini).unwrap();
    let t1 = perf.now();
    let st = v.render(&cs.plot, &cs.sel, &cs.axes, &cs.mini).unwrap();
    let buffer_ms = perf.now() - t1;
    console_log!(
        "plotters-canvas: {n} rectangles {plotters_ms:.1} ms; pixel buffer: whole plot ({} columns, {} bands) {buffer_ms:.1} ms",
        st.columns,
        st.bands_drawn
    );
    assert!(inked(&c) > 5_000, "plotters drew its rectangles");
    assert!(st.bands_drawn > 20 && inked(&cs.plot) > 50_000, "the pixel buffer drew the plot");
}

/// A file with a broken entry opens and says what was skipped; pinned host
/// memory is one more device, labelled `host`.
#[wasm_bindgen_test]
fn warnings_and_the_host_device() {
    let mut v = Viewer::new();
    let file = br#"{"segments": [7, {"device": 0, "address": 4096, "total_size": 8192, "blocks": []}],
        "device_traces": [[{"action": "alloc", "addr": 4096, "size": 512}]],
        "host_segments": [{"device": -1, "address": 65536, "total_size": 4096, "blocks": []}]}"#;
    open(&mut v, "odd.json", file).unwrap();
    let p = get(&mut v);
    assert_eq!(p["warnings"], serde_json::json!(["odd.json: warning: segments[0]: an int, not a dict; skipped"]));
    assert_eq!(p["devices"], serde_json::json!([{"value": 0, "label": "cuda:0"}, {"value": 1, "label": "host"}]));
    assert_eq!(p["device"], 0, "a CUDA device first");
    page_cmd(&mut v, r#"{"cmd": "set_device", "device": 1}"#);
    assert_eq!(summary(&mut v)["device_name"], "host");
    assert_eq!(summary(&mut v)["reserved_bytes"], 4096);
    assert_eq!(get(&mut example())["warnings"], serde_json::json!([]));
}

/// Distinct RGB colors of a canvas.
fn colors(c: &HtmlCanvasElement) -> std::collections::HashSet<[u8; 3]> {
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let d = ctx.get_image_data(0.0, 0.0, c.width() as f64, c.height() as f64).unwrap().data();
    d.chunks(4).filter(|p| p[3] != 0).map(|p| [p[0], p[1], p[2]]).collect()
}

/// Explain the memory (explain.rs): Color by category draws kind colors only,
/// the stacked area too, a highlight grays the rest; markers, the peak
/// explained and the leak report parse; bad modes are errors.
#[wasm_bindgen_test]
fn explain_api_on_the_example() {
    let mut v = example();
    let c = canvases();
    let panel = |v: &mut Viewer, cmd: serde_json::Value| -> Result<serde_json::Value, wasm_bindgen::JsValue> {
        v.panel(memviz_wasm::boundary::to_js(&cmd)).map(|x| memviz_wasm::boundary::from_js(&x).unwrap())
    };
    let over = panel(&mut v, serde_json::json!({"cmd": "overview"})).unwrap();
    let kinds = over["kinds"].as_array().unwrap().clone();
    assert_eq!(kinds.len(), 7);
    let rgb = |s: &str| {
        let n = u32::from_str_radix(&s[1..], 16).unwrap();
        [(n >> 16) as u8, (n >> 8) as u8, n as u8]
    };
    let mut allowed: std::collections::HashSet<[u8; 3]> =
        kinds.iter().map(|k| rgb(k["css"].as_str().unwrap())).collect();
    allowed.extend([[255, 255, 255], [0xd9, 0xd9, 0xd9], [0xc4, 0xc4, 0xc4]]);
    let color_by = |v: &mut Viewer, mode: &str| {
        v.panel(memviz_wasm::boundary::to_js(&serde_json::json!({"cmd": "color_by", "mode": mode})))
    };
    color_by(&mut v, "category").unwrap();
    v.render(&c.plot, &c.sel, &c.axes, &c.mini).unwrap();
    let got = colors(&c.plot);
    assert!(got.iter().all(|x| allowed.contains(x)), "{got:?}");
    assert!(got.len() >= 3, "{got:?}");
    color_by(&mut v, "area").unwrap();
    v.render(&c.plot, &c.sel, &c.axes, &c.mini).unwrap();
    let got = colors(&c.plot);
    assert!(got.iter().all(|x| allowed.contains(x)), "{got:?}");
    // A hover of the stacked area names a kind (hit -2), not a band.
    let area = |v: &mut Viewer, x: f64, y: f64| {
        let cmd = serde_json::json!({"cmd": "pointer", "on": "move", "mini": false, "x": x, "y": y, "width": 900.0, "dy": 0.0});
        let p = v.command(memviz_wasm::boundary::to_js(&cmd)).unwrap();
        let p = &memviz_wasm::boundary::from_js::<serde_json::Value>(&p).unwrap()["pointer"];
        p["hit"] == -2 && p["context"].as_str().is_some_and(|t| t.contains("under the pointer"))
    };
    assert!(area(&mut v, 450.0, 390.0) || area(&mut v, 450.0, 300.0));
    color_by(&mut v, "allocation").unwrap();
    assert!(!area(&mut v, 450.0, 390.0) && !area(&mut v, 450.0, 300.0));
    // A stack-tree node holding part of the peak: the rest is grayed, its
    // allocations keep their colors.
    panel(&mut v, serde_json::json!({"cmd": "moment", "moment": "peak"})).unwrap();
    let m = panel(&mut v, serde_json::json!({"cmd": "tree", "min_bytes": 0})).unwrap();
    // Nodes: 6 numbers each: id, parent, depth, frame, bytes, count.
    let nodes: Vec<u64> = m["nodes"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as u64).collect();
    let tree: Vec<&[u64]> = nodes.chunks(6).collect();
    let part = tree.iter().find(|n| n[2] >= 1 && n[4] != tree[0][4]).unwrap();
    panel(&mut v, serde_json::json!({"cmd": "highlight", "node": part[0]})).unwrap();
    v.render(&c.plot, &c.sel, &c.axes, &c.mini).unwrap();
    let got = colors(&c.plot);
    assert!(got.contains(&[0xe8, 0xe8, 0xe8]), "{got:?}");
    let plain = [[0xe8, 0xe8, 0xe8], [255, 255, 255], [0xd9, 0xd9, 0xd9], [0xc4, 0xc4, 0xc4], [0, 0, 0]];
    assert!(got.iter().any(|x| !plain.contains(x)), "{got:?}");
    panel(&mut v, serde_json::json!({"cmd": "highlight", "node": null})).unwrap();
    let refusal = color_by(&mut v, "rainbow").unwrap_err();
    let message = js_sys::Reflect::get(&refusal, &"message".into()).unwrap().as_string().unwrap();
    assert!(message.contains("rainbow"), "{message}");

    let over = panel(&mut v, serde_json::json!({"cmd": "overview"})).unwrap();
    assert_eq!(over["markers"][0]["what"], "peak");
    let peak = panel(&mut v, serde_json::json!({"cmd": "explain", "moment": "peak"})).unwrap();
    assert_eq!(peak["what"], "peak");
    let allocated =
        peak["facts"].as_array().unwrap().iter().find(|f| f["key"] == "allocated").unwrap()["value"].clone();
    assert_eq!(allocated, summary(&mut v)["timeline"]["peak_bytes"]);
    let leaks = panel(&mut v, serde_json::json!({"cmd": "leaks"})).unwrap();
    assert_eq!(
        leaks["pending"].as_array().unwrap().len().min(1),
        (leaks["pending_count"].as_f64().unwrap() as usize).min(1)
    );
    assert!(panel(&mut v, serde_json::json!({"cmd": "explain", "moment": {"oom": 99}})).is_err());
}

/// The wasm memory's size in bytes.
fn memory_bytes() -> f64 {
    let mem: js_sys::WebAssembly::Memory = wasm_bindgen::memory().dyn_into().unwrap();
    mem.buffer().dyn_into::<js_sys::ArrayBuffer>().unwrap().byte_length() as f64
}

/// Memory written ahead ('model' plan: the size of the file, 2 MiB a
/// step); once let go, what the model's reading allocates comes out of it
/// instead of growing the memory.
#[wasm_bindgen_test]
fn memory_touched_ahead_is_reused() {
    const MIB: f64 = (1 << 20) as f64;
    let mut v = Viewer::new();
    let before = memory_bytes();
    let step =
        |v: &mut Viewer| v.open(cmd(r#"{"cmd": "ahead", "plan": "model", "file_bytes": 6291456}"#), None).unwrap();
    assert_eq!(field(&step(&mut v), "done"), false);
    assert_eq!(field(&step(&mut v), "done"), false);
    let r = step(&mut v);
    assert_eq!(
        (field(&r, "done"), field(&r, "written")),
        (true.into(), (6.0 * MIB).into()),
        "three steps of 2 MiB make 6"
    );
    // The memory grows by the 6 MiB unless earlier tests of this instance
    // left that much free (then the plan writes into it): not less than before.
    let grown = memory_bytes();
    assert!(grown >= before, "memory {before} -> {grown}");
    v.open(cmd(r#"{"cmd": "adopt_begin", "name": "x.pickle"}"#), None).unwrap(); // lets it go
    let reused: Vec<u8> = vec![1; 5 << 20];
    assert_eq!(memory_bytes(), grown, "a 5 MiB allocation after it grew the memory");
    drop(reused);
    let r = v.open(cmd(r#"{"cmd": "ahead", "plan": "release"}"#), None).unwrap();
    assert_eq!(field(&r, "written"), 0);
}
