//! The viewer as the page drives it, natively, on real snapshots from
//! ../shared/snapshots: numbers checked against tests/reference/expected/
//! (written by the independent tests/reference/memviz_reference.py), hit
//! testing, zoom and window, selection, jumps, search and view switching.

mod common;

use common::{bytes, expected, json, open, shares_to_done, FULLSTEP, H, W};

use memviz_render::OUTLINE;
use memviz_viewer::{Selection, ViewKind, Viewer};

/// tests/reference/expected/NAME.json.
/// The plot canvas the tests draw: device pixels, at devicePixelRatio 1.

#[test]
fn summary_of_both_timelines_is_the_reference() {
    let mut v = open(FULLSTEP);
    let reference = &expected(FULLSTEP)["summary"]["devices"]["0"];
    let s = json(&v.summary_json());
    for k in ["trace_events", "segments", "reserved_bytes", "allocated_bytes", "active_blocks"] {
        assert_eq!(s[k], reference[k], "{k}");
    }
    assert_eq!(s["view"], "Active Memory Timeline");
    for (view, name) in [(0, "active_memory"), (1, "segment_memory")] {
        v.set_view(view);
        let (tl, r) = (&json(&v.summary_json())["timeline"], &reference[name]);
        for k in ["start_bytes", "peak_bytes", "end_bytes", "elements"] {
            assert_eq!(tl[k], r[k], "{name} {k}");
        }
        assert_eq!(v.element_count() as u64, r["elements"].as_u64().unwrap());
        assert_eq!(v.peak_bytes(), r["peak_bytes"].as_u64().unwrap());
        // All drawn by default (fewer than the detail cap).
        assert_eq!(v.detail(), v.element_count());
    }
}

#[test]
fn chunks_give_the_same_file() {
    let whole = open(FULLSTEP);
    let mut v = Viewer::new();
    v.begin("chunked.pickle");
    for chunk in bytes(FULLSTEP).chunks(4099) {
        v.feed(chunk).unwrap();
    }
    assert_eq!(v.finish().unwrap(), 0);
    assert_eq!(json(&v.summary_json())["timeline"], json(&whole.summary_json())["timeline"]);
    // A broken file names itself and leaves the open ones.
    let err = v.open("cut.pickle", &bytes(FULLSTEP)[..1000]).unwrap_err();
    assert!(err.message.starts_with("cut.pickle: "), "{err}");
    assert_eq!(v.file_names(), ["chunked.pickle"]);
    assert_eq!(v.file_count(), 1);
    assert!(v.feed(b"x").is_err(), "feed without begin");
}

#[test]
fn the_largest_band_is_hit_where_it_is_located() {
    let mut v = open(FULLSTEP);
    let largest = &expected(FULLSTEP)["hover"]["0"]["elements"][0];
    let (elem, addr, size) = (
        largest["elem"].as_u64().unwrap() as u32,
        largest["addr"].as_str().unwrap(),
        largest["size"].as_u64().unwrap(),
    );
    assert_eq!(v.largest_element(), Some(elem));
    // Its life is a few steps: the jump zooms in on it (pinning it).
    v.show_element(elem);
    assert_eq!(v.pinned_element(), Some(elem));
    let w = v.window();
    assert_eq!(w.x1 - w.x0, 64.0, "a short life gets the 64-step minimum window");
    let frame = v.render_plot(W, H).expect("a timeline draws");
    assert!(frame.bands_drawn > 0);
    assert_eq!((frame.rect.x, frame.rect.y, frame.rect.w, frame.rect.h), (78, 14, W - 78 - 16, H - 14 - 40));
    let xy = v.locate(elem);
    assert_eq!(xy.len(), 2, "the largest band is drawn");
    assert_eq!(v.hit_at(xy[0], xy[1]), elem as i32);
    let text = v.hover(xy[0], xy[1]);
    assert!(text.starts_with(&format!("{elem} Addr: {addr}, Size: ")), "{text}");
    assert!(text.contains(&format!("{size} bytes")), "{text}");
    assert_eq!(text, v.element_text(elem));
    // The band under the pointer is outlined apart from the bands, over
    // the plot (its band's pixels are at the outline's corners), and the
    // bands are drawn without it.
    let Selection::At { x, y } = v.render_selection() else { panic!("the pinned band is outlined") };
    let sel = v.selection_image();
    let r = frame.rect;
    assert!(x >= r.x && y >= r.y && x + sel.width <= r.x + r.w && y + sel.height <= r.y + r.h);
    let black = sel.rgba.chunks(4).filter(|p| *p == OUTLINE).count();
    assert!(black >= 2 * sel.width as usize, "the top and bottom edges at least: {black}");
    assert!(sel.rgba.chunks(4).all(|p| p == OUTLINE || p[3] == 0), "outline or transparent");
    // Its middle (CSS pixels are device pixels at devicePixelRatio 1).
    let mid = ((x + sel.width / 2) as f64, (y + sel.height / 2) as f64);
    assert_eq!(v.hit_at(mid.0, mid.1), elem as i32, "the outline is around the band");
    let pinned = v.plot_image().rgba.clone();
    v.leave();
    v.click(1.0, 1.0); // outside the plot: unpins
    assert_eq!(v.pinned_element(), None);
    assert_eq!(v.render_selection(), Selection::Empty);
    v.render_plot(W, H);
    assert_eq!(pinned, v.plot_image().rgba);
    v.set_view(0);
    // Click pins; empty space then shows the pinned text.
    assert_eq!(v.click(xy[0], xy[1]), text);
    assert_eq!(v.pinned_element(), Some(elem));
    assert_eq!(v.hit_at(2.0, 2.0), -1, "outside the plot");
    assert_eq!(v.hover(2.0, 2.0), text);
    assert_eq!(v.leave(), text);
}

#[test]
fn zoom_pan_and_the_window_follow_the_steps() {
    let mut v = open(FULLSTEP);
    let n = v.n_steps() as f64;
    assert!(n > 0.0);
    assert_eq!((v.window().x0, v.window().x1), (0.0, n));
    v.render_plot(W, H);
    // The plot's middle (margins 78 left, 16 right, at dpr 1): the zoom
    // halves the span around it.
    let mid = 78.0 + (W - 94) as f64 / 2.0;
    v.zoom_at(0.5, mid);
    let w = v.window();
    assert!((w.x1 - w.x0 - n / 2.0).abs() < 1e-6, "{w:?}");
    assert!(((w.x0 + w.x1) / 2.0 - n / 2.0).abs() < 1e-6, "{w:?}");
    // Drag right by a tenth of the plot shows a tenth of the span earlier.
    let before = v.window();
    v.pan_by((W - 94) as f64 / 10.0);
    assert!((before.x0 - v.window().x0 - n / 20.0).abs() < 1e-6);
    // Clamped to the trace, at least 4 steps wide.
    v.set_window(-50.0, 1e12);
    assert_eq!((v.window().x0, v.window().x1), (0.0, n));
    v.set_window(10.0, 10.5);
    assert_eq!(v.window().x1 - v.window().x0, 4.0);
    v.reset_window();
    assert_eq!((v.window().x0, v.window().x1), (0.0, n));
    // The x axis maps back and forth.
    v.render_plot(W, H);
    let s = v.step_at_x(v.x_of_step(1000.0));
    assert_eq!(s, 1000);
    // Fewer bands drawn at a lower detail.
    let all = v.render_plot(W, H).unwrap().bands_drawn;
    v.set_detail(5);
    assert_eq!(v.drawn_count(), 5);
    let five = v.render_plot(W, H).unwrap().bands_drawn;
    assert!(five <= 6 && five < all, "{five} of {all}"); // 5 bands + the summarized one
}

#[test]
fn views_switch_and_the_state_history_is_the_reference() {
    let mut v = open(FULLSTEP);
    let e = expected(FULLSTEP);
    assert_eq!(
        v.view_names(),
        [
            "Active Memory Timeline",
            "Active Cached Segment Timeline",
            "Allocated Memory (incl. Private Pools)",
            "Allocator State History",
            "Allocator Settings"
        ]
    );
    let kinds: Vec<ViewKind> = (0..5)
        .map(|i| {
            v.set_view(i);
            assert_eq!(v.view(), i);
            v.view_kind()
        })
        .collect();
    assert_eq!(kinds, [ViewKind::Timeline, ViewKind::Timeline, ViewKind::Pools, ViewKind::State, ViewKind::Settings]);
    assert!(!v.allocator_settings_text().is_empty());
    // Settings and the state history draw no band plot.
    assert!(v.render_plot(W, H).is_none());

    v.set_view(3);
    let events = e["summary"]["devices"]["0"]["trace_events"].as_u64().unwrap() as usize;
    let cx = &v.cx;
    let state = &mut v.views.state;
    assert_eq!(state.len(cx), events);
    assert_eq!(state.selected(cx), Some(events - 1));
    for st in e["states"].as_array().unwrap() {
        let event = st["event"].as_u64().unwrap() as usize;
        state.select(cx, event);
        let got = json(&state.json(cx));
        assert_eq!(got["event"], st["event"]);
        for k in ["reserved_bytes", "allocated_bytes", "segments", "blocks", "pending_free_blocks"] {
            assert_eq!(got[k], st[k], "event {event} {k}");
        }
    }
    state.step(cx, -1);
    assert_eq!(state.selected(cx), Some(events - 2));
    assert_eq!(state.lines(cx, 0, 5).lines().count(), 5);
    // The segment map is hit where locate says.
    let img = state.draw(cx, 600, 300).expect("a map");
    assert!(img.rgba.chunks(4).filter(|p| p[..3] != [255, 255, 255]).count() > 1000);
    let xy = state.locate(cx, false);
    assert_eq!(xy.len(), 2);
    assert!(state.hover(cx, xy[0], xy[1]).contains(": segment "));
    let xy = state.locate(cx, true);
    assert_eq!(xy.len(), 2);
    assert!(matches!(state.hit(cx, xy[0], xy[1]), Some(memviz_core::segment_map::MapHit::Block(..))));

    // Back to a timeline: the selector and the timeline underneath agree.
    v.set_view(1);
    assert_eq!(json(&v.summary_json())["view"], "Active Cached Segment Timeline");
    v.set_view(2);
    assert_eq!(json(&v.summary_json())["view"], "Active Memory Timeline");
    let frame = v.render_plot(W, H).expect("pools draw");
    assert!(frame.bands_drawn > 0);
}

#[test]
fn jumps_link_an_element_and_its_alloc_event() {
    let mut v = open(FULLSTEP);
    let largest = &expected(FULLSTEP)["hover"]["0"]["elements"][0];
    let (elem, addr) = (largest["elem"].as_u64().unwrap() as u32, largest["addr"].as_str().unwrap());
    v.show_element(elem);
    let ev = v.show_in_state().expect("the largest element was allocated in the trace");
    assert_eq!(v.view_kind(), ViewKind::State);
    let cx = &v.cx;
    let line = v.views.state.lines(cx, ev as usize, 1);
    assert!(line.contains(addr) && line.contains("alloc"), "{line}");
    assert_eq!(v.state_linked_element(), Some(elem));
    assert_eq!(v.show_in_timeline(), Some(elem));
    assert_eq!((v.view(), v.pinned_element()), (0, Some(elem)));
}

#[test]
fn search_finds_an_address_in_the_timeline_and_the_state_history() {
    let mut v = open(FULLSTEP);
    let largest = &expected(FULLSTEP)["hover"]["0"]["elements"][0];
    let (elem, addr) = (largest["elem"].as_u64().unwrap() as u32, largest["addr"].as_str().unwrap());
    let n = v.search("address", addr);
    assert!(n >= 1);
    assert!(v.search_is_match(elem));
    assert!(v.search_list(100).lines().any(|l| l.starts_with(&format!("{elem}\t{elem} Addr: {addr}"))));
    let first = v.search_next(false).unwrap();
    assert_eq!((v.pinned_element(), v.search_current()), (Some(first), Some(first)));
    // Matches belong to the view they were made in.
    v.set_view(3);
    assert_eq!(v.search_count(), 0);
    let n = v.search("address", addr);
    assert!(n >= 1);
    for line in v.search_list(100).lines() {
        assert!(line.contains(addr), "{line}");
    }
    let ev = v.search_next(false).unwrap();
    assert_eq!(v.views.state.selected(&v.cx), Some(ev as usize));
}

#[test]
fn the_pools_view_pins_in_the_timeline_too() {
    let name = "cuda_graph_private_pools_state_only.pickle";
    let mut v = open(name);
    let reference = &expected(name)["summary"]["devices"]["0"]["active_memory"];
    v.set_view(2);
    assert_eq!(v.element_count() as u64, reference["elements"].as_u64().unwrap());
    let frame = v.render_plot(W, H).expect("pools draw");
    assert!(frame.bands_drawn > 0);
    // The largest block (the reference's first hover element) is somewhere
    // on the plot; clicking it pins it here and in the timeline underneath.
    let elem = expected(name)["hover"]["0"]["elements"][0]["elem"].as_u64().unwrap() as i32;
    let r = frame.rect;
    let at = (r.x..r.x + r.w)
        .step_by(20)
        .flat_map(|x| (r.y..r.y + r.h).step_by(4).map(move |y| (x as f64, y as f64)))
        .find(|&(x, y)| v.hit_at(x, y) == elem)
        .expect("the largest block is drawn");
    let text = v.click(at.0, at.1);
    assert_eq!(text, v.element_text(elem as u32));
    assert_eq!(v.pinned_element(), Some(elem as u32));
    v.set_view(0);
    assert_eq!(v.pinned_element(), None, "entering a timeline starts unpinned");
}

#[test]
fn the_pools_view_without_private_pools_is_the_timeline_and_outlines_apart() {
    // Files with no private pool: the same pixels as the Active Memory
    // Timeline (drawn the timeline's way), the hovered band's outline apart.
    for name in [FULLSTEP, "small_train_step.pickle", "expandable_segments_map_unmap.pickle"] {
        let mut v = open(name);
        let elem = expected(name)["hover"]["0"]["elements"][0]["elem"].as_u64().unwrap() as u32;
        v.show_element(elem); // zoomed in on it
        v.render_plot(W, H).expect("a timeline draws");
        let timeline = v.plot_image().rgba.clone();
        let xy = v.locate(elem);
        assert_eq!(xy.len(), 2, "{name}: the largest band is drawn");
        v.set_view(2);
        let frame = v.render_plot(W, H).expect("pools draw");
        assert!(frame.bands_drawn > 0, "{name}");
        assert!(v.plot_image().rgba == timeline, "{name}: the pools view is the timeline");
        assert_eq!(v.hover(xy[0], xy[1]), v.element_text(elem), "{name}");
        let Selection::At { .. } = v.render_selection() else { panic!("{name}: the hovered band is outlined apart") };
        assert!(v.selection_image().rgba.chunks(4).any(|p| p == OUTLINE));
        assert!(v.plot_image().rgba == timeline, "{name}: the bands are drawn without it");
    }
    // With private pools the view draws its own envelopes and outline.
    let mut v = open("cuda_graph_private_pools_state_only.pickle");
    v.set_view(2);
    v.render_plot(W, H).expect("pools draw");
    assert_eq!(v.render_selection(), Selection::InPlot);
}

#[test]
fn the_pools_view_built_in_steps_draws_as_the_one_built_at_once() {
    let name = "cuda_graph_private_pools_state_only.pickle";
    let mut stepped = open(name);
    // Pools, their detail, then the sweep: a call each, shares rising.
    let shares: Vec<f64> = (0..3).map(|_| stepped.prepare_view_step(2, 1)).collect();
    assert_eq!(shares, [1.0 / 3.0, 2.0 / 3.0, 1.0]);
    assert_eq!(stepped.prepare_view_step(2, 1), 1.0, "built once");
    stepped.set_view(2);
    let mut at_once = open(name);
    at_once.set_view(2);
    let [a, b] = [&mut stepped, &mut at_once].map(|v| {
        let frame = v.render_plot(W, H).expect("pools draw");
        (frame.bands_drawn, v.plot_image().rgba.clone())
    });
    assert!(a.0 > 0);
    assert!(a == b, "the same pixels");
    // Entered from another timeline, the view replays the Active Memory
    // one first: nothing is built ahead on the timeline shown.
    let mut cached = open(name);
    cached.set_view(1);
    assert_eq!(cached.prepare_view_step(2, 1), 1.0);
    cached.set_view(2);
    cached.render_plot(W, H).expect("pools draw");
    assert!(cached.plot_image().rgba == b.1, "the same pixels from the cached timeline");
}

/// Builds `v`'s analysis (and its state history, when `state`) 1000 events
/// or elements a call; how many calls it took.
fn analysis_in_steps(v: &mut Viewer, state: bool) -> usize {
    shares_to_done(|| v.prepare_analysis_step(1000, state)).len()
}

/// The same moments (panel and icicle tree) on `a` and `b`.
fn same_moments(a: &mut Viewer, b: &mut Viewer, moments: &[&str]) {
    for m in moments {
        let [a, b] = [&mut *a, &mut *b].map(|v| v.moment_json(m, 10).unwrap() + &v.moment_tree_json(1 << 20).unwrap());
        assert_eq!(a, b, "{m}");
    }
}

#[test]
fn the_analysis_built_in_steps_is_the_one_built_at_once() {
    let name = FULLSTEP;
    let exp = &expected(name)["summary"]["devices"]["0"];
    let events = exp["trace_events"].as_u64().unwrap() as usize;
    let mut stepped = open(name);
    // The analysis walks the trace twice (phases, links) and the state
    // history once, 1000 events a call.
    let calls = analysis_in_steps(&mut stepped, true);
    assert!(calls >= 3 * events.div_ceil(1000), "{calls} calls");
    assert!(stepped.analysis_built());
    assert_eq!(stepped.prepare_analysis_step(1000, true), 1.0, "built once");
    same_moments(&mut stepped, &mut open(name), &["peak", "end", &format!("event:{}", events / 2)]);
    // The peak's bytes, as Python's replay counts them.
    let peak = json(&stepped.moment_json("peak", 10).unwrap());
    assert_eq!(peak["bytes"], exp["active_memory"]["peak_bytes"]);
}

#[test]
fn off_the_active_memory_timeline_the_analysis_is_built_in_steps_too() {
    let name = FULLSTEP;
    let events = expected(name)["summary"]["devices"]["0"]["trace_events"].as_u64().unwrap() as usize;
    let mut stepped = open(name);
    // The segment timeline shown: the Active Memory one is replayed first.
    // Without the state history (the leak report, Color by): the replay,
    // then the analysis's two walks of the trace.
    stepped.set_view(1);
    let calls = analysis_in_steps(&mut stepped, false);
    assert!(calls >= 3 * events.div_ceil(1000), "{calls} calls");
    assert!(stepped.analysis_built());
    assert!(stepped.prepare_analysis_step(1000, true) < 1.0, "the state history was not built");
    let mut at_once = open(name);
    same_moments(&mut stepped, &mut at_once, &["peak", &format!("event:{}", events / 3)]);
    // A diff side's analysis of the file shown is taken, not built again.
    let mut diffed = open(name);
    while diffed.prepare_diff_side_step(0, 0, usize::MAX).unwrap() < 1.0 {}
    assert!(!diffed.analysis_built());
    assert_eq!(diffed.prepare_analysis_step(1, false), 1.0, "taken at once");
    assert_eq!(diffed.moment_json("peak", 10), at_once.moment_json("peak", 10));
}

#[test]
fn the_state_history_built_in_steps_is_the_one_built_at_once() {
    let name = FULLSTEP;
    let events = expected(name)["summary"]["devices"]["0"]["trace_events"].as_u64().unwrap() as usize;
    let mut stepped = open(name);
    let shares = shares_to_done(|| stepped.prepare_view_step(3, 1000));
    // 1000 events a call, then one for the first state and its map, the
    // links to the timeline 1000 events a call, and the last says it is ready.
    assert_eq!(shares.len(), 2 * events.div_ceil(1000) + 2, "{shares:?}");
    assert_eq!(stepped.prepare_view_step(3, 1000), 1.0, "built once");
    assert_eq!(stepped.prepare_view_step(0, 1), 1.0, "a timeline needs nothing");
    stepped.set_view(3);
    let mut at_once = open(name);
    at_once.set_view(3);
    for v in [&mut stepped, &mut at_once] {
        assert_eq!(v.views.state.len(&v.cx), events);
    }
    let mut linked = 0;
    for ev in [0, events / 3, events / 2, events - 1] {
        let [a, b] = [&mut stepped, &mut at_once].map(|v| {
            v.views.state.select(&v.cx, ev);
            let sv = v.views.state.view(&v.cx).unwrap();
            let totals = (sv.totals_text(), sv.map.rects.len());
            (totals, v.views.state.lines(&v.cx, ev.saturating_sub(2), 5), v.state_linked_element())
        });
        linked += a.2.is_some() as usize;
        assert_eq!(a, b, "event {ev}");
    }
    assert!(linked >= 2, "{linked} of the events chosen link to an element");
}
