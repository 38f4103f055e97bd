//! The viewer core's typed command surface (page.rs) on a real snapshot:
//! the numbers and texts the page shows, checked against what Python's
//! pickle reads from the same file (tests/reference/expected/ and the
//! figures in the comments, computed with a few lines of Python).

mod common;

use common::{expected, open, FULLSTEP, H, W};
use memviz_viewer::page::{SearchBy, ViewCommand as C, ViewId};
use memviz_viewer::ViewKind;

#[test]
fn summary_line_is_formatted_from_the_recording() {
    let mut v = open(FULLSTEP);
    let p = v.command(C::Get).unwrap();
    let r = &expected(FULLSTEP)["summary"]["devices"]["0"];
    let get = |k: &str| p.summary.iter().find(|i| i.key == k).unwrap_or_else(|| panic!("{k} missing")).clone();
    // Exact values as the reference (Python's pickle) has them.
    for (k, rk) in [
        ("trace_events", &r["trace_events"]),
        ("segments", &r["segments"]),
        ("reserved_bytes", &r["reserved_bytes"]),
        ("allocated_bytes", &r["allocated_bytes"]),
        ("timeline.peak_bytes", &r["active_memory"]["peak_bytes"]),
        ("timeline.elements", &r["active_memory"]["elements"]),
    ] {
        assert_eq!(get(k).value, rk.as_f64().unwrap(), "{k}");
    }
    // memory_viz's formatSize in Python: f"{n / 1024**k:.1f}{unit}".
    assert_eq!(get("reserved_bytes").text, "56.9GiB");
    assert_eq!(get("allocated_bytes").text, "51.1GiB");
    assert_eq!(get("timeline.start_bytes").text, "12.7GiB");
    assert_eq!(get("timeline.end_bytes").text, "50.8GiB");
    assert!(get("timeline.peak_bytes").text.starts_with("51.0GiB at step "), "{:?}", get("timeline.peak_bytes"));
    assert_eq!(get("trace_events").text, "19342");
    assert_eq!(get("timeline.elements").label, "allocations");
    assert_eq!(p.kind, ViewKind::Timeline);
    assert_eq!(p.view, ViewId::ActiveMemory);
    assert_eq!(p.files, vec![FULLSTEP.to_string()]);
    assert_eq!(p.devices.len(), 1);
    assert_eq!(p.devices[0].label, "cuda:0");
    assert_eq!(p.detail_text, "7095 of 7095");
    assert_eq!(p.views.iter().map(|c| c.id).collect::<Vec<_>>(), ViewId::ALL.to_vec());

    // The segments timeline: its own totals, a label of its own.
    let p = v.command(C::SetView { view: ViewId::CachedSegments }).unwrap();
    let get = |k: &str| p.summary.iter().find(|i| i.key == k).unwrap().clone();
    assert_eq!(get("timeline.elements").value, r["segment_memory"]["elements"].as_f64().unwrap());
    assert_eq!(get("timeline.elements").label, "segments drawn");
    assert_eq!(p.detail_unit, "segments");
}

#[test]
fn generation_changes_with_the_device_not_with_the_window() {
    let mut v = open(FULLSTEP);
    let g = v.command(C::Get).unwrap().generation;
    let p = v.command(C::Zoom { factor: 0.5, x: 100.0 }).unwrap();
    assert_eq!(p.generation, g);
    assert!(p.window[1] - p.window[0] < p.steps as f64, "{:?}", p.window);
    let p = v.command(C::ResetWindow).unwrap();
    assert_eq!(p.window, [0.0, p.steps as f64]);
    let p = v.command(C::SetDevice { device: 0 }).unwrap();
    assert_ne!(p.generation, g);
}

#[test]
fn pointer_and_card_name_the_band() {
    let mut v = open(FULLSTEP);
    v.render_plot(W, H).unwrap();
    let largest = v.largest_element().unwrap();
    let [x, y] = v.locate(largest)[..] else { panic!("largest not drawn") };
    let p = v.command(C::Hover { x, y }).unwrap().pointer.unwrap();
    assert_eq!(p.hit, largest as i32);
    assert!(p.changed);
    let card = p.card.unwrap();
    assert!(card.head.starts_with(&format!("{largest} ")), "{}", card.head);
    assert!(!card.frames.is_empty());
    assert!(p.context.contains(&format!("{largest} ")) || !p.context.is_empty());
    // The same band again: nothing new to draw.
    let p = v.command(C::Hover { x, y }).unwrap().pointer.unwrap();
    assert!(!p.changed);
    // Pinned: the jump to the state history applies, and finds its event.
    let p = v.command(C::Click { x, y }).unwrap();
    assert_eq!(p.pinned, Some(largest));
    assert!(p.to_state);
    let p = v.command(C::ShowInState).unwrap();
    match p.target {
        // Its alloc event (else its free): a row of the list naming the action.
        Some(ev) => {
            v.command(C::SetView { view: ViewId::State }).unwrap();
            let s = v.command(C::StateRows { first: ev as usize, count: 1 }).unwrap().state.unwrap();
            assert!(s.rows[0].text.contains("alloc") || s.rows[0].text.contains("free"), "{}", s.rows[0].text);
        }
        None => assert!(p.note.unwrap().contains("no trace event")),
    }
}

#[test]
fn state_rows_are_typed_records() {
    let mut v = open(FULLSTEP);
    let p = v.command(C::SetView { view: ViewId::State }).unwrap();
    assert_eq!(p.kind, ViewKind::State);
    let s = v.command(C::StateRows { first: 0, count: 3 }).unwrap().state.unwrap();
    assert_eq!(s.len, 19342); // len(device_traces[0]) in Python
    assert_eq!(s.rows.iter().map(|r| r.index).collect::<Vec<_>>(), vec![0, 1, 2]);
    // Python: events 0-2 are segment_alloc 20971520, alloc 5242880, alloc 2048.
    assert!(s.rows[0].text.starts_with("0  ") && s.rows[0].text.contains("segment_alloc"), "{}", s.rows[0].text);
    assert!(s.rows[0].text.contains("20.0MiB"), "{}", s.rows[0].text);
    assert!(s.rows[1].text.contains("5.0MiB"), "{}", s.rows[1].text);
    assert!(s.rows[2].text.contains("2.0KiB"), "{}", s.rows[2].text);
    let s = v.command(C::StateSelect { event: 1 }).unwrap().state.unwrap();
    assert_eq!(s.selected, Some(1));
    assert!(s.event_text.contains("5.0MiB"), "{}", s.event_text);
    let s = v.command(C::StateStep { delta: 1 }).unwrap().state.unwrap();
    assert_eq!(s.selected, Some(2));
    let s = v.command(C::StateRows { first: 19340, count: 10 }).unwrap().state.unwrap();
    assert_eq!(s.rows.len(), 2);
}

#[test]
fn search_lists_matches_typed() {
    let mut v = open(FULLSTEP);
    let p = v.command(C::Search { by: SearchBy::Frame, text: "transformer.py".into() }).unwrap();
    let s = p.search.unwrap();
    assert!(s.count > 0);
    assert_eq!(s.matches.len(), (s.count as usize).min(200));
    assert!(s.count_text.ends_with("(Enter: next)"), "{}", s.count_text);
    let s = v.command(C::SearchNext { backwards: false }).unwrap().search.unwrap();
    assert_eq!(s.current, Some(s.matches[0].index));
    let s = v.command(C::Search { by: SearchBy::Frame, text: "  ".into() }).unwrap().search.unwrap();
    assert_eq!((s.count, s.count_text.as_str()), (0, ""));
}

#[test]
fn no_file_is_a_refusal() {
    let mut v = memviz_viewer::Viewer::new();
    let e = v.command(C::SetView { view: ViewId::State }).unwrap_err();
    assert_eq!(e.kind, memviz_viewer::boundary::ErrorKind::NoFile);
    // The pointer over the empty plot is no error: nothing under it.
    let p = v.command(C::Hover { x: 10.0, y: 10.0 }).unwrap();
    assert_eq!(p.pointer.unwrap().hit, -1);
    assert!(p.files.is_empty());
}

#[test]
fn work_ticks_to_done_with_its_label() {
    use memviz_viewer::work::Work;
    let mut v = open(FULLSTEP);
    let mut shares = Vec::new();
    loop {
        let p = v.tick(Work::View { view: ViewId::State });
        assert!(p.label.starts_with(&format!("Building the Allocator State History of {FULLSTEP}: ")), "{}", p.label);
        shares.push(p.share);
        if !p.busy {
            break;
        }
        assert!(shares.len() < 100_000, "never done");
    }
    assert!(shares.windows(2).all(|w| w[0] <= w[1]), "{shares:?}");
    // 19342 events (Python: len(device_traces[0])) take several ticks of 4096.
    assert!(shares.len() >= 19342 / memviz_viewer::work::TICK_EVENTS, "{shares:?}");
    assert_eq!(*shares.last().unwrap(), 1.0);
    // Built: showing it is at once, and its rows are there.
    let s = v.command(C::SetView { view: ViewId::State }).unwrap().state.unwrap();
    assert_eq!(s.len, 19342);
    let p = v.tick(Work::Analysis { state: false });
    assert!(p.share > 0.0 && p.label.contains("analysis"), "{p:?}");
}

/// The questions the page asks by command (issue 42: no getter exports):
/// each answer agrees with the viewer's own state and the reference.
#[test]
fn questions_answered_by_command() {
    let mut v = open(FULLSTEP);
    let r = &expected(FULLSTEP)["summary"]["devices"]["0"];
    let n = v.command(C::Numbers).unwrap().numbers.unwrap();
    // Python's pickle read of the same file.
    assert_eq!(n["trace_events"], r["trace_events"]);
    assert_eq!(n["reserved_bytes"], r["reserved_bytes"]);
    assert_eq!(n["timeline"]["peak_bytes"], r["active_memory"]["peak_bytes"]);
    v.render_plot(W, H).unwrap();
    let p = v.command(C::Get).unwrap();
    assert!(p.active_memory);
    let largest = p.largest.expect("a largest element");
    let [x, y] = v.command(C::Locate { element: largest }).unwrap().point.expect("largest drawn");
    assert_eq!(v.command(C::HitAt { x, y }).unwrap().value, Some(largest as f64));
    let text = v.command(C::Element { element: largest }).unwrap().text.unwrap();
    assert!(text.starts_with(&format!("{largest} Addr: ")), "{text}");
    // Step and x map back onto each other on the plot as drawn.
    let step = v.command(C::StepAtX { x }).unwrap().value.unwrap();
    let back = v.command(C::XOfStep { step }).unwrap().value.unwrap();
    assert!((back - x).abs() <= 1.0 + W as f64 / p.steps as f64, "{x} -> {step} -> {back}");
    // From above the plot the next band down is the topmost band at x.
    let down = v.command(C::NextBand { x, y: -1.0, dir: 1, height: H as f64 }).unwrap().value.expect("a band below");
    let top = v.command(C::HitAt { x, y: down }).unwrap().value.unwrap();
    assert!(top >= 0.0 || top == -2.0, "{top}");
    for a in 0..down as i32 {
        assert_eq!(v.command(C::HitAt { x, y: a as f64 }).unwrap().value, Some(-1.0), "empty above the first band");
    }
    // The minimap dragged over its left half: half the steps.
    assert_eq!(v.command(C::Brush { from: 0.3, to: 0.3 }).unwrap().value, Some(0.0), "less than a step");
    let p = v.command(C::Brush { from: 0.0, to: 0.5 }).unwrap();
    assert_eq!(p.value, Some(1.0));
    assert_eq!(p.window[0], 0.0);
    assert!((p.window[1] - p.steps as f64 / 2.0).abs() <= 1.0, "{:?} of {}", p.window, p.steps);
}

#[test]
fn plot_keys_move_the_keyboard_cursor_and_the_window() {
    use memviz_viewer::keys::KeyDid;
    let mut v = open(FULLSTEP);
    // devicePixelRatio 1: CSS px are device px.
    let cols = v.render_plot(W, H).unwrap().rect.w as f64;
    let (w, h) = (W as f64, H as f64);
    let key = |v: &mut memviz_viewer::Viewer, k: &str, shift: bool| {
        v.command(C::PlotKey { key: k.into(), shift, width: w, height: h }).unwrap()
    };
    // The cursor starts mid-plot on the first band from the top there.
    let p = key(&mut v, "", false);
    let k = p.key.unwrap();
    assert_eq!((k.did, k.at[0]), (KeyDid::Hover, 600.0));
    let top = p.pointer.unwrap().hit;
    assert!(top >= 0, "on a band: {top}");
    assert!((0..k.at[1] as i32).all(|y| [-1, top].contains(&v.hit_at(600.0, y as f64))));
    // + zooms in 1.5x around the cursor, → pans, Home: the whole trace.
    let n = p.steps as f64;
    let p = key(&mut v, "+", false);
    assert_eq!(p.key.unwrap().did, KeyDid::Moved);
    let span = p.window[1] - p.window[0];
    assert!((span - n / 1.5).abs() < 1e-6 * n, "{:?} of {n}", p.window);
    let q = key(&mut v, "ArrowRight", false);
    // A tenth of the canvas: 120 px of the plot's columns.
    assert!((q.window[0] - p.window[0] - span * 120.0 / cols).abs() < 1e-6 * n, "{:?} -> {:?}", p.window, q.window);
    assert_eq!(key(&mut v, "Home", false).window, [0.0, n]);
    v.render_plot(W, H).unwrap();
    // Shift+→ moves the cursor a 50th of the plot; ↓ to the next band below.
    let a = key(&mut v, "ArrowRight", true).key.unwrap().at;
    assert_eq!(a[0], 624.0);
    let h1 = v.hit_at(a[0], a[1]);
    let p = key(&mut v, "ArrowDown", false);
    let b = p.key.unwrap().at;
    let h2 = p.pointer.unwrap().hit;
    assert!(b[1] > a[1] && h2 >= 0 && h2 != h1, "{h1}@{a:?} -> {h2}@{b:?}");
    // Enter pins the band under the cursor, Escape unpins; other keys are not the plot's.
    assert_eq!(key(&mut v, "Enter", false).pinned, Some(h2 as u32));
    let p = key(&mut v, "Escape", false);
    assert_eq!((p.key.unwrap().did, p.pinned), (KeyDid::Unpin, None));
    assert_eq!(key(&mut v, "a", false).key.unwrap().did, KeyDid::None);
}

#[test]
fn state_list_rows_scroll_and_keys() {
    use memviz_viewer::views::state::ListGeom;
    let mut v = open(FULLSTEP);
    v.command(C::SetView { view: ViewId::State }).unwrap();
    let list = |v: &mut memviz_viewer::Viewer, top: f64, follow: bool| {
        v.command(C::StateList { scroll_top: top, height: 400.0, follow }).unwrap().state.unwrap()
    };
    // 19342 events (len(device_traces[0]) in Python), 18 px a row: 348156 px.
    let s = list(&mut v, 0.0, false);
    let l = s.list.unwrap();
    assert_eq!((l.spacer.as_str(), l.first, l.scroll_top), ("348156px", 0, None));
    // 400 px hold 23 rows (22.2), and one more for the cut one.
    assert_eq!(s.rows.iter().map(|r| r.index).collect::<Vec<_>>(), (0..24).collect::<Vec<_>>());
    // Following the selection, the last event (memory_viz starts there):
    // its row's bottom at the list's, 19342 * 18 - 400.
    let s = list(&mut v, 0.0, true);
    let l = s.list.unwrap();
    assert_eq!((l.scroll_top, l.first), (Some(347756.0), 19319));
    assert_eq!(l.transform, "translateY(347742px)");
    let last = s.rows.last().unwrap();
    assert_eq!((last.index, last.mark.as_str()), (19341, "sel"));
    // Keys: Home the first event, PageDown a screen less a row, End the last.
    let key = |v: &mut memviz_viewer::Viewer, k: &str| {
        let p = v.command(C::StateKey { key: k.into(), height: 400.0 }).unwrap();
        (p.value, p.state.unwrap().selected)
    };
    assert_eq!(key(&mut v, "Home"), (Some(1.0), Some(0)));
    assert_eq!(key(&mut v, "PageDown"), (Some(1.0), Some(22)));
    assert_eq!(key(&mut v, "ArrowUp"), (Some(1.0), Some(21)));
    assert_eq!(key(&mut v, "End"), (Some(1.0), Some(19341)));
    assert_eq!(key(&mut v, "x"), (Some(0.0), Some(19341)));
    // Not in the state history: the keys are not its.
    v.command(C::SetView { view: ViewId::ActiveMemory }).unwrap();
    assert_eq!(v.command(C::StateKey { key: "Home".into(), height: 400.0 }).unwrap().value, Some(0.0));
    // 2,000,000 events pass the browsers' height cap: the 4,000,000 px
    // spacer maps its scroll onto rows, the bottom onto the last screen.
    let g = ListGeom::new(2_000_000, 400.0);
    assert_eq!(g.spacer, 4e6);
    assert_eq!(g.rows(4e6 - 400.0), (2_000_000 - 23, 23));
    assert_eq!(g.rows(0.0), (0, 24));
    assert_eq!(g.follow(1_000_000, 0.0), Some((1_000_000 - 21) as f64 / (2_000_000 - 23) as f64 * (4e6 - 400.0)));
}
