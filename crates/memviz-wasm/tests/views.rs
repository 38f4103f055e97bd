//! The wasm API of the views beyond the timelines (views.rs) in headless
//! Chromium, on the built-in example: state history, pools, settings,
//! search, jumps.
#![cfg(target_arch = "wasm32")]

use memviz_wasm::Viewer;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

mod common;

use common::canvas;

wasm_bindgen_test_configure!(run_in_browser);

fn inked(c: &HtmlCanvasElement) -> usize {
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let d = ctx.get_image_data(0.0, 0.0, c.width() as f64, c.height() as f64).unwrap().data();
    d.chunks(4).filter(|p| p[3] != 0 && (p[0] < 250 || p[1] < 250 || p[2] < 250)).count()
}

/// Runs a viewer command (`{"cmd": ...}` as the page writes it) and returns its page view.
fn cmd(v: &mut Viewer, c: &str) -> serde_json::Value {
    let out = v.command(js_sys::JSON::parse(c).unwrap()).unwrap_or_else(|e| panic!("{c}: {e:?}"));
    serde_json::from_str(&js_sys::JSON::stringify(&out).unwrap().as_string().unwrap()).unwrap()
}

#[wasm_bindgen_test]
fn state_history_selects_and_draws() {
    let mut v = Viewer::new();
    v.open(js_sys::JSON::parse(r#"{"cmd": "example"}"#).unwrap(), None).unwrap();
    let events = cmd(&mut v, r#"{"cmd": "numbers"}"#)["numbers"]["trace_events"].as_u64().unwrap();
    let names: Vec<_> =
        cmd(&mut v, r#"{"cmd": "get"}"#)["views"].as_array().unwrap().iter().map(|c| c["name"].clone()).collect();
    assert_eq!(names[2..], ["Allocated Memory (incl. Private Pools)", "Allocator State History", "Allocator Settings"]);
    let p = cmd(&mut v, r#"{"cmd": "set_view", "view": "state"}"#);
    assert_eq!((&p["view"], &p["kind"]), (&"state".into(), &"state".into()));
    assert_eq!(p["state"]["len"], events);
    assert_eq!(p["state"]["selected"], events - 1);
    let p = cmd(&mut v, r#"{"cmd": "state_step", "delta": -1}"#);
    assert_eq!(p["state"]["selected"], events - 2);
    let p = cmd(&mut v, r#"{"cmd": "state_select", "event": 0}"#);
    assert_eq!(p["state"]["selected"], 0);
    // After event 0 of the example (memviz_reference.py state --event 0,
    // Python's pickle module): an alloc of 3211264 bytes on top of the 324
    // blocks from before the trace, 140861416 bytes in 38 segments of 253755392.
    assert_eq!(events, 9870);
    let st = &p["state"]["numbers"];
    assert_eq!((&st["allocated_bytes"], &st["reserved_bytes"]), (&140861416u64.into(), &253755392u64.into()));
    let totals = &cmd(&mut v, r#"{"cmd": "get"}"#)["state"]["totals"];
    assert_eq!(totals, "134.3MiB (140861416 bytes) allocated / 242.0MiB (253755392 bytes) reserved");
    // Lines of the visible rows only, one per event.
    let rows = cmd(&mut v, r#"{"cmd": "state_rows", "first": 0, "count": 5}"#)["state"]["rows"].clone();
    assert_eq!(rows.as_array().unwrap().len(), 5.min(events as usize));
    let text = cmd(&mut v, r#"{"cmd": "state_event", "event": 0}"#)["state"]["event_text"].clone();
    assert!(text.as_str().unwrap().starts_with('('), "{text}");
    let c = canvas(600, 300);
    v.state_render(&c).unwrap();
    assert!(inked(&c) > 1000);
    // A segment is hoverable where state_locate says.
    let xy = cmd(&mut v, r#"{"cmd": "state_locate", "block": false}"#)["point"].clone();
    let hover = cmd(&mut v, &format!(r#"{{"cmd": "state_hover", "x": {}, "y": {}}}"#, xy[0], xy[1]))["text"].clone();
    assert!(hover.as_str().unwrap().contains(": segment "), "{hover}");
    // Settings and back to a timeline.
    let p = cmd(&mut v, r#"{"cmd": "set_view", "view": "settings"}"#);
    assert_eq!(p["kind"], "settings");
    assert!(!p["settings"].as_str().unwrap().is_empty());
    let p = cmd(&mut v, r#"{"cmd": "set_view", "view": "cached_segments"}"#);
    assert_eq!((&p["view"], &p["kind"]), (&"cached_segments".into(), &"timeline".into()));
}

#[wasm_bindgen_test]
fn search_and_jumps() {
    let mut v = Viewer::new();
    v.open(js_sys::JSON::parse(r#"{"cmd": "example"}"#).unwrap(), None).unwrap();
    let big = cmd(&mut v, r#"{"cmd": "get"}"#)["largest"].as_u64().expect("a largest element");
    let text = cmd(&mut v, &format!(r#"{{"cmd": "element", "element": {big}}}"#))["text"].as_str().unwrap().to_string();
    let addr = text.split("Addr: ").nth(1).unwrap().split(',').next().unwrap().to_string();
    let found = cmd(&mut v, &format!(r#"{{"cmd": "search", "by": "address", "text": "{addr}"}}"#))["search"].clone();
    assert!(found["count"].as_u64().unwrap() >= 1);
    assert!(found["matches"].as_array().unwrap().iter().any(|m| m["index"] == big), "{found}");
    let p = cmd(&mut v, r#"{"cmd": "search_next", "backwards": false}"#);
    assert_eq!(p["pinned"], p["search"]["current"]);
    // Pin the largest and jump to its alloc event, and back.
    cmd(&mut v, &format!(r#"{{"cmd": "show_element", "element": {big}}}"#));
    // The largest element (267, memviz_reference.py hover) was allocated in
    // the trace, at step 318: it has its alloc event.
    assert_eq!(big, 267);
    let ev = cmd(&mut v, r#"{"cmd": "show_in_state"}"#)["target"].as_u64().expect("an alloc event");
    cmd(&mut v, r#"{"cmd": "set_view", "view": "state"}"#);
    cmd(&mut v, &format!(r#"{{"cmd": "state_select", "event": {ev}}}"#));
    let row =
        cmd(&mut v, &format!(r#"{{"cmd": "state_rows", "first": {ev}, "count": 1}}"#))["state"]["rows"][0].clone();
    assert!(row["text"].as_str().unwrap().contains(&addr), "{row}");
    assert_eq!(cmd(&mut v, r#"{"cmd": "get"}"#)["to_timeline"], true);
    assert_eq!(cmd(&mut v, r#"{"cmd": "show_in_timeline"}"#)["target"], big);
}

/// The pools view on a real CUDA-graph recording (the example has no private
/// pool): ../shared/recordings/cuda_graphs_two_graphs_shared_pool.pickle,
/// whose dump has, as Python's pickle module reads it, 4 segments in the
/// private pool (1, 0) that both graphs share.
#[wasm_bindgen_test]
fn pools_view_draws_private_pools() {
    const GRAPHS: &[u8] = include_bytes!("../../../../shared/recordings/cuda_graphs_two_graphs_shared_pool.pickle");
    let mut v = Viewer::new();
    v.open(
        js_sys::JSON::parse(r#"{"cmd": "begin", "name": "cuda_graphs_two_graphs_shared_pool.pickle"}"#).unwrap(),
        None,
    )
    .unwrap();
    v.feed(GRAPHS).unwrap();
    v.open(js_sys::JSON::parse(r#"{"cmd": "finish"}"#).unwrap(), None).unwrap();
    assert_eq!(cmd(&mut v, r#"{"cmd": "set_view", "view": "pools"}"#)["kind"], "pools");
    cmd(&mut v, r#"{"cmd": "reset_window"}"#);
    let (p, s, a, m) = (canvas(900, 400), canvas(900, 400), canvas(900, 400), canvas(900, 50));
    let st = v.render(&p, &s, &a, &m).unwrap();
    assert!(st.bands_drawn > 0);
    assert!(inked(&p) > 1000);
    // With a private pool the view draws its envelopes and its outline with
    // the bands, none apart (tests/real_snapshots.rs: a file without pools
    // is drawn as the timeline, its outline apart).
    assert!(!v.render_selection(&s).unwrap());
    assert_eq!(inked(&s), 0);
    // Its envelope is at the end of the trace, above the default pool's
    // bands: some point of the plot's last column hovers it.
    let mut hover = |x: f64, y: f64| {
        cmd(&mut v, r#"{"cmd": "leave"}"#);
        cmd(&mut v, &format!(r#"{{"cmd": "hover", "x": {x}, "y": {y}}}"#))["pointer"]["context"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let texts: Vec<String> = (0..200).flat_map(|i| [876.0, 880.0].map(|x| hover(x, i as f64 * 2.0))).collect();
    assert!(texts.iter().any(|t| t.starts_with("Private Pool (1,0,")), "{texts:?}");
}
