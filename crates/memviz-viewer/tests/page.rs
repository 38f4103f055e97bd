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
