//! The wasm API of the views beyond the timelines (views.rs) in headless
//! Chromium, on the built-in example: state history, pools, settings,
//! search, jumps.
#![cfg(target_arch = "wasm32")]

use memviz_wasm::Viewer;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

wasm_bindgen_test_configure!(run_in_browser);

fn canvas(w: u32, h: u32) -> HtmlCanvasElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let c: HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    c.set_width(w);
    c.set_height(h);
    doc.body().unwrap().append_child(&c).unwrap();
    c
}

fn inked(c: &HtmlCanvasElement) -> usize {
    let ctx: CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let d = ctx.get_image_data(0.0, 0.0, c.width() as f64, c.height() as f64).unwrap().data();
    d.chunks(4).filter(|p| p[3] != 0 && (p[0] < 250 || p[1] < 250 || p[2] < 250)).count()
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap()
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
    let events = json(&v.summary_json())["trace_events"].as_u64().unwrap() as u32;
    let names = v.view_names();
    assert_eq!(names[2..], ["Allocated Memory (incl. Private Pools)", "Allocator State History", "Allocator Settings"]);
    v.set_view(3);
    assert_eq!((v.view(), v.view_kind().as_str()), (3, "state"));
    assert_eq!(v.state_len(), events);
    assert_eq!(v.state_selected(), events as i32 - 1);
    cmd(&mut v, r#"{"cmd": "state_step", "delta": -1}"#);
    assert_eq!(v.state_selected(), events as i32 - 2);
    v.state_select(0);
    assert_eq!(v.state_selected(), 0);
    // After event 0 of the example (memviz_reference.py state --event 0,
    // Python's pickle module): an alloc of 3211264 bytes on top of the 324
    // blocks from before the trace, 140861416 bytes in 38 segments of 253755392.
    assert_eq!(events, 9870);
    let st = json(&v.state_json());
    assert_eq!((&st["allocated_bytes"], &st["reserved_bytes"]), (&140861416u64.into(), &253755392u64.into()));
    let totals = &cmd(&mut v, r#"{"cmd": "get"}"#)["state"]["totals"];
    assert_eq!(totals, "134.3MiB (140861416 bytes) allocated / 242.0MiB (253755392 bytes) reserved");
    // Lines of the visible rows only, one per event.
    assert_eq!(v.state_lines(0, 5).lines().count(), 5.min(events as usize));
    assert!(v.state_event_text(0).starts_with('('));
    let c = canvas(600, 300);
    v.state_render(&c).unwrap();
    assert!(inked(&c) > 1000);
    // A segment is hoverable where state_locate says.
    let xy = v.state_locate(false);
    assert_eq!(xy.len(), 2);
    assert!(v.state_hover(xy[0], xy[1]).contains(": segment "));
    // Settings and back to a timeline.
    v.set_view(4);
    assert_eq!(v.view_kind(), "settings");
    assert!(!cmd(&mut v, r#"{"cmd": "get"}"#)["settings"].as_str().unwrap().is_empty());
    v.set_view(1);
    assert_eq!((v.view(), v.view_kind().as_str()), (1, "timeline"));
}

#[wasm_bindgen_test]
fn search_and_jumps() {
    let mut v = Viewer::new();
    v.open(js_sys::JSON::parse(r#"{"cmd": "example"}"#).unwrap(), None).unwrap();
    let big = v.largest_element();
    assert!(big >= 0);
    let text = v.element_text(big as u32);
    let addr = text.split("Addr: ").nth(1).unwrap().split(',').next().unwrap().to_string();
    let n = v.search("address", &addr);
    assert!(n >= 1);
    assert!(v.search_list(10).lines().any(|l| l.starts_with(&format!("{big}\t"))));
    let first = cmd(&mut v, r#"{"cmd": "search_next", "backwards": false}"#)["search"]["current"].as_i64().unwrap();
    assert_eq!(v.pinned_element() as i64, first);
    // Pin the largest and jump to its alloc event, and back.
    v.show_element(big as u32);
    // The largest element (267, memviz_reference.py hover) was allocated in
    // the trace, at step 318: it has its alloc event.
    assert_eq!(big, 267);
    let ev = cmd(&mut v, r#"{"cmd": "show_in_state"}"#)["target"].as_u64().expect("an alloc event") as u32;
    v.set_view(3);
    v.state_select(ev);
    assert!(v.state_lines(ev, 1).contains(&addr));
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
    v.set_view(2);
    assert_eq!(v.view_kind(), "pools");
    v.reset_window();
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
    let texts: Vec<String> = (0..200).flat_map(|i| [876.0, 880.0].map(|x| v.hover(x, i as f64 * 2.0))).collect();
    assert!(texts.iter().any(|t| t.starts_with("Private Pool (1,0,")), "{texts:?}");
}
