//! "Explain the memory" as the page drives it (www/explain.js), natively on
//! real snapshots from ../shared/snapshots: Color by and the highlight
//! change the bands' pixels and back, the stacked area's hover text, the
//! peak / OOM markers, the OOM count against tests/reference/expected/
//! (Python's pickle), the leak report, and one analysis shared with the
//! "Alive at" panel.

mod common;

use common::{expected, json, open, FULLSTEP, H, W};

use memviz_viewer::explain::{MomentArg, PanelCommand, PanelView};
use memviz_viewer::page::ViewCommand;
use memviz_viewer::Viewer;

const OOM: &str = "oom_pickle_named_json.json";

fn draw(v: &mut Viewer) -> Vec<u8> {
    v.render_plot(W, H).expect("a timeline draws");
    v.plot_image().rgba.clone()
}

#[test]
fn color_by_changes_the_bands_and_allocation_restores_them() {
    let mut v = open(FULLSTEP);
    let plain = draw(&mut v);
    for mode in ["category", "frame"] {
        v.set_color_by(mode).unwrap();
        assert_ne!(draw(&mut v), plain, "{mode}");
    }
    v.set_color_by("allocation").unwrap();
    assert_eq!(draw(&mut v), plain);
    assert!(v.set_color_by("rainbow").is_err());
    // The segment timeline keeps memory_viz's colors in every mode.
    v.set_view(1);
    let segments = draw(&mut v);
    v.set_color_by("category").unwrap();
    assert_eq!(draw(&mut v), segments);
}

#[test]
fn a_highlighted_node_dims_the_rest_and_clearing_it_restores() {
    let mut v = open(FULLSTEP);
    let plain = draw(&mut v);
    v.moment_json("peak", 10).unwrap();
    let m = json(&v.moment_tree_json(0).unwrap());
    let nodes = m["nodes"].as_array().expect("the icicle's nodes");
    assert!(nodes.len() > 2, "{}", nodes.len());
    // A node with part of the bytes: only its allocations keep their colors.
    // Nodes: [id, parent, depth, frame, bytes, count].
    let all = nodes.iter().map(|n| n[4].as_u64().unwrap()).max().unwrap();
    let part = nodes.iter().find(|n| n[4].as_u64().unwrap() < all / 2).expect("a smaller node");
    let id = part[0].as_u64().unwrap() as u32;
    v.highlight_node(Some(id));
    assert_ne!(draw(&mut v), plain);
    v.highlight_node(None);
    assert_eq!(draw(&mut v), plain);
}

#[test]
fn the_stacked_area_is_drawn_and_hovered() {
    let mut v = open(FULLSTEP);
    let plain = draw(&mut v);
    assert_eq!(v.area_text(600.0, 250.0), "", "not in the area mode");
    v.set_color_by("area").unwrap();
    assert!(v.area_mode());
    assert_ne!(draw(&mut v), plain);
    // At the peak's x, near the bottom of the plot: some kind is under the pointer.
    let x = v.x_of_step(v.peak_step() as f64);
    let t = v.area_text(x, H as f64 - 60.0);
    assert!(t.starts_with("step "), "{t}");
    assert!(t.contains("alive; under the pointer: "), "{t}");
    assert_eq!(v.area_text(-5.0, -5.0), "", "outside the plot");
    // The page hears of it as the pointer's hover (pointer.rs), no band's card.
    let on = memviz_viewer::pointer::PointerOn::Move;
    let p =
        v.command(ViewCommand::Pointer { on, mini: false, x, y: H as f64 - 60.0, width: W as f64, dy: 0.0 }).unwrap();
    let p = p.pointer.unwrap();
    assert_eq!((p.hit, p.changed, p.context, p.card), (-2, true, t, None));
    let PanelView::Overview(o) = v.panel(PanelCommand::Overview).unwrap() else { panic!("an overview") };
    assert!(o.kinds.iter().all(|k| k.css.len() == 7 && k.css.starts_with('#')), "{:?}", o.kinds);
}

#[test]
fn markers_ooms_and_leaks() {
    let mut v = open(OOM);
    let r = &expected(OOM)["summary"]["devices"]["0"];
    assert_eq!(v.oom_count() as u64, r["actions"]["oom"].as_u64().unwrap());
    let markers = v.view_markers();
    let peak: Vec<_> = markers.iter().filter(|m| m.what == "peak").collect();
    assert_eq!(peak.len(), 1);
    assert_eq!(peak[0].x, v.peak_step() as f64 + 0.5);
    assert_eq!(markers.iter().filter(|m| m.what == "oom").count() as u64, r["actions"]["oom"].as_u64().unwrap());
    // The page shows these as a file opens: they must not build the analysis.
    assert!(!v.analysis_built(), "markers and the OOM count built the analysis");
    let e = v.panel(PanelCommand::Explain { moment: MomentArg::Oom(0) }).unwrap();
    assert!(v.analysis_built());
    assert_eq!(v.view_markers(), markers, "the analysis's own landmarks");
    assert!(matches!(e, PanelView::Explain(_)));
    assert!(v.panel(PanelCommand::Explain { moment: MomentArg::Peak }).is_ok());
    let leaks = json(&v.leaks_json().unwrap());
    assert_eq!(leaks["pending_keys"].as_array().unwrap().len(), leaks["pending_frees"].as_array().unwrap().len());
    assert!(leaks.get("samples").is_none() && leaks["sample_count"].is_u64(), "a count, not the samples");
}

#[test]
fn no_file_no_analysis() {
    let mut v = Viewer::new();
    assert!(v.view_markers().is_empty());
    assert_eq!(v.oom_count(), 0);
    assert!(v.leaks_json().is_err());
    assert!(v.panel(PanelCommand::Explain { moment: MomentArg::Peak }).is_err());
    assert!(v.moment_json("peak", 10).is_err());
    assert!(v.moment_tree_json(0).is_err());
    assert_eq!(v.phases_json(), "{}");
    assert_eq!(v.time_at_step(0.0), None);
}

/// The Findings strip's room, kept from a file's first frame, says what
/// comes: on every device of every real snapshot and H100 recording, the
/// analysis finds some exactly where the room is kept for them (none of
/// these traces is long enough to wait for a click).
#[test]
fn the_findings_room_is_kept_exactly_where_findings_come() {
    use memviz_viewer::explain::FindingsRoom;
    let shared = common::repo().join("../shared");
    let mut files: Vec<_> = ["snapshots", "recordings"]
        .iter()
        .flat_map(|d| std::fs::read_dir(shared.join(d)).unwrap_or_else(|e| panic!("{}: {e}", shared.join(d).display())))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pickle" || x == "pkl" || x == "json"))
        .collect();
    files.sort();
    let mut rooms = [0usize; 2];
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut v = Viewer::new();
        if v.open(&name, &std::fs::read(path).unwrap()).is_err() {
            assert!(name.ends_with(".json"), "{name} does not open"); // a profiler export beside the recordings
            continue;
        }
        for d in v.devices() {
            v.set_device(d);
            let room = v.findings_room();
            let found = match v.panel(PanelCommand::Findings) {
                Ok(PanelView::Findings(f)) => f.findings.len(),
                Ok(other) => panic!("{name}: {other:?}"),
                Err(e) => panic!("{name} device {d}: {e:?}"),
            };
            assert_ne!(room, FindingsRoom::Link, "{name} device {d}");
            assert_eq!(room == FindingsRoom::Findings, found > 0, "{name} device {d}: {room:?}, {found} findings");
            rooms[usize::from(found > 0)] += 1;
        }
    }
    // Both kinds of device were seen: two_devices_state_only's device 0 has no block at any time.
    assert!(rooms[0] >= 1 && rooms[1] >= 20, "devices without / with findings: {rooms:?} in {} files", files.len());
}
