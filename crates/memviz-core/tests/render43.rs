//! Issue 43 on the real recordings in ../shared/recordings, checked against
//! tests/render43_reference.py (a standard-library replay of the pickle):
//! the detail slider picks by size among what the window shows, and an
//! unmap or a segment free is drawn at its own step.

use std::path::PathBuf;
use std::process::Command;

use memviz_core::timeline::{DetailView, EventLinks, Timeline, TimelineKind};

fn recording(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/recordings").join(name)
}

fn load(name: &str) -> memviz_core::Snapshot {
    load_path(&recording(name))
}

fn load_path(path: &std::path::Path) -> memviz_core::Snapshot {
    let name = path.display();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    memviz_core::load(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn reference(name: &str, args: &[&str]) -> serde_json::Value {
    reference_path(&recording(name), args)
}

fn reference_path(path: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let name = path.display();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/render43_reference.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("python3 is needed for the reference numbers: {e}"));
    assert!(out.status.success(), "{name}: reference script failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn drawn(tl: &Timeline, dv: &DetailView) -> Vec<u64> {
    let mut v: Vec<u64> = (0..tl.elements.len() as u32).filter(|&e| dv.is_drawn(e)).map(u64::from).collect();
    v.sort_unstable();
    v
}

/// resnet50 without zero_grad: five identical iterations. At a detail below
/// the element count, the whole plot draws the largest; zoomed into the
/// last iteration, the same limit goes to what lives there, so that its
/// small allocations are drawn again.
#[test]
fn detail_picks_the_largest_live_in_the_window() {
    let name = "resnet50_no_zero_grad.pickle";
    let snap = load(name);
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let n = tl.n_steps();
    for (limit, x0, x1) in [(500u32, 0u32, n), (500, n - 1300, n), (1200, 2000, 2600), (3000, 5000, 5001)] {
        let want = reference(name, &["--detail", "0", &limit.to_string(), &x0.to_string(), &x1.to_string()]);
        assert_eq!(want["elements"], tl.elements.len() as u64, "{name}");
        assert_eq!(want["steps"], n as u64, "{name}");
        let dv = DetailView::in_window(&tl, limit, x0, x1);
        let got = drawn(&tl, &dv);
        let want_drawn: Vec<u64> = serde_json::from_value(want["drawn"].clone()).unwrap();
        assert_eq!(got.len(), want_drawn.len(), "{name} limit {limit} steps {x0}..{x1}");
        assert_eq!(got, want_drawn, "{name} limit {limit} steps {x0}..{x1}");
        assert_eq!(dv.drawn_count() as usize, got.len());
        if x0 > 0 {
            // Zoomed: it draws some that the whole plot at this limit sums.
            let plain = DetailView::new(&tl, limit);
            assert!(got.iter().any(|&e| !plain.is_drawn(e as u32)), "limit {limit} steps {x0}..{x1}");
        }
        // What is not drawn is summed: drawn + summarized = total in the window.
        for step in (x0..x1).step_by(97) {
            assert_eq!(dv.drawn_total_at(&tl, step) + dv.summarized_at(&tl, step), tl.total[step as usize]);
        }
    }
    // The zoomed window fits everything live there at a limit the whole plot
    // does not: every live element drawn, nothing summarized.
    let (x0, x1) = (n - 1300, n);
    let want = reference(name, &["--detail", "0", "100000", &x0.to_string(), &x1.to_string()]);
    let live = want["live"].as_u64().unwrap() as u32;
    assert!(live < tl.elements.len() as u32, "{live}");
    let dv = DetailView::in_window(&tl, live, x0, x1);
    // ... where the whole plot at that limit sums some of them.
    let plain = DetailView::new(&tl, live);
    assert!((x0..x1).any(|s| plain.summarized_at(&tl, s) > 0), "limit {live} sums nothing in {x0}..{x1}");
    for step in x0..x1 {
        assert_eq!(dv.summarized_at(&tl, step), 0, "step {step}");
    }
    // The whole window is the plain detail view.
    let whole = DetailView::in_window(&tl, 500, 0, n);
    assert_eq!(drawn(&tl, &whole), drawn(&tl, &DetailView::new(&tl, 500)));
}

/// An `empty_cache` unmap (expandable segments) or segment_free drops its
/// memory at its own step: every segment event is one step of the Active
/// Cached Segment Timeline, however many mapped pieces it unmaps, and all
/// its pieces end there.
#[test]
fn unmap_and_segment_free_at_their_own_step() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files = [
        (recording("expandable_gpt2_varlen.pickle"), 9),
        (repo.join("tests/whatif/data/capped_expandable.pickle"), 5),
        (repo.join("tests/whatif/data/capped_default.pickle"), 37),
    ];
    for (path, n_frees) in files {
        let name = path.display().to_string();
        let snap = load_path(&path);
        let tl = Timeline::build(&snap, 0, TimelineKind::CachedSegments);
        let links = EventLinks::new(&snap, &tl);
        let want = reference_path(&path, &["--unmaps", "0"]);
        assert_eq!(tl.n_steps() as u64, want["steps"], "{name}: one step per segment event");
        let totals: Vec<u64> = serde_json::from_value(want["totals"].clone()).unwrap();
        assert_eq!(tl.total, totals, "{name}: the total at each step");
        let frees = want["frees"].as_array().unwrap();
        assert_eq!(frees.len(), n_frees, "{name}");
        for f in frees {
            let (i, step, size) =
                (f["event"].as_u64().unwrap() as u32, f["step"].as_u64().unwrap() as u32, f["size"].as_u64().unwrap());
            assert_eq!(tl.events[step as usize], i, "{name}: event {i}");
            // The pieces it frees: all end at its step, and make its size.
            let freed: Vec<u32> = (0..tl.elements.len() as u32).filter(|&e| links.free_event(e) == Some(i)).collect();
            assert!(!freed.is_empty(), "{name}: event {i} frees nothing");
            for &e in &freed {
                assert_eq!(tl.elements[e as usize].x1, step + 1, "{name}: event {i} element {e}");
            }
            assert_eq!(freed.iter().map(|&e| tl.elements[e as usize].size).sum::<u64>(), size, "{name}: event {i}");
            // Drawn at once: the total falls by its size from this step to the next,
            // when the next step is not itself a free.
            if let Some(&next) = tl.total.get(step as usize + 1) {
                let here = tl.total[step as usize];
                if tl.elements[tl.actions[step as usize + 1] as usize].x0 == step + 1 {
                    let alloc = tl.elements[tl.actions[step as usize + 1] as usize].size;
                    let co: u64 =
                        tl.co_actions.iter().filter(|c| c.0 == step + 1).map(|c| tl.elements[c.1 as usize].size).sum();
                    assert_eq!(next, here - size + alloc + co, "{name}: event {i} at step {step}");
                }
            }
        }
    }
}
