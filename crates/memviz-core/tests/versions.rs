//! Issue 9: one function gives address versions (`b7f…_N`) to every view.
//! A snapshot with legacy `free` events, written with Python's pickle, and
//! the versions memory_viz's annotate_snapshot gives it, computed in Python
//! from its JS (tests/versions_reference.py): the event list, the Allocator
//! State History of the CLI (`StateHistory::new`) and of the page
//! (`StateView`, versions given), the Active Memory Timeline and search must
//! all name each block as memory_viz does.

use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::format::format_event;
use memviz_core::model::Action;
use memviz_core::search::{SearchIndex, SearchKind};
use memviz_core::segment_map::StateView;
use memviz_core::state::StateHistory;
use memviz_core::timeline::{ElementSource, Timeline, TimelineKind};
use memviz_core::versions;
use serde_json::Value;

fn reference() -> (memviz_core::Snapshot, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out: PathBuf = std::env::temp_dir().join(format!("memviz-legacy-free-{}.pickle", std::process::id()));
    let o = Command::new("python3")
        .arg(dir.join("tests/versions_reference.py"))
        .arg(&out)
        .output()
        .expect("python3 is needed for the reference side of this test");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let snap = memviz_core::load(&std::fs::read(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).ok();
    (snap, serde_json::from_slice(&o.stdout).unwrap())
}

fn u32s(v: &Value) -> Vec<Option<u32>> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().map(|x| x as u32)).collect()
}

#[test]
fn legacy_free_versions_are_memory_vizs_in_every_view() {
    let (snap, want) = reference();
    let v = versions::compute(&snap);
    let (mut frees, mut reused) = (0, 0);
    for d in 0..2u32 {
        let t = snap.trace(d);
        let mv = u32s(&want["events"][d as usize]);
        let shown = u32s(&want["shown"][d as usize]);
        assert_eq!(mv.len(), t.len());
        for i in 0..t.len() {
            // memory_viz's version where it gives one, else the one memviz shows.
            match (t.action[i], mv[i]) {
                (Action::Free, None) => frees += 1,
                (Action::Free, Some(_)) => panic!("memory_viz versions a legacy free"),
                (_, Some(x)) => assert_eq!(v.of_event(d, i), x, "device {d} event {i}"),
                (_, None) => {}
            }
            assert_eq!(Some(v.of_event(d, i)), shown[i], "device {d} event {i}");
            let text = format_event(&snap, &v, d, i);
            assert!(text.contains(&format!("{:x}_{}", t.addr(i), shown[i].unwrap())), "{text}");
        }
        // A block freed by a legacy free and allocated again keeps its `_N`.
        for i in 1..t.len() {
            if t.action[i] == Action::Alloc {
                if let Some(j) = (0..i).rev().find(|&j| t.addr(j) == t.addr(i) && t.action[j] != Action::Alloc) {
                    if t.action[j] == Action::Free {
                        assert_eq!(v.of_event(d, i), v.of_event(d, j));
                        reused += 1;
                    }
                }
            }
        }
        // The dump's blocks (address = segment address + sizes before it).
        let blocks: Vec<Vec<Option<u32>>> = want["blocks"].as_array().unwrap().iter().map(u32s).collect();
        for (si, seg) in snap.segments.iter().enumerate() {
            for (k, bi) in (seg.blocks.start..seg.blocks.end).enumerate() {
                assert_eq!(Some(v.block[bi as usize]), blocks[si][k], "segment {si} block {k}");
            }
        }

        // The state history, as the CLI builds it (its own versions) and as
        // the page does (versions given): right after each alloc, the block
        // at its address carries the alloc's version.
        let cli = StateHistory::new(&snap, d);
        let mut page = StateView::new(&snap, &v, d);
        let mut c = cli.cursor();
        let mut checked = 0;
        for i in (0..t.len()).filter(|&i| t.action[i] == Action::Alloc).step_by(7) {
            let want_v = mv[i].unwrap();
            c.seek(&cli, &snap, i);
            let b = c.block_at(&cli, &snap, t.addr(i)).expect("the block just allocated");
            assert_eq!((b.address, b.version), (t.addr(i), want_v), "CLI state after event {i}");
            page.select(&snap, i);
            let pb = page.state.segments.iter().flat_map(|s| &s.blocks).find(|b| b.address == t.addr(i)).unwrap();
            assert_eq!(pb.version, want_v, "page state after event {i}");
            checked += 1;
        }
        assert!(checked > 10);
        // Blocks rebuilt by undoing a legacy free show the version it freed.
        for i in (0..t.len()).filter(|&i| t.action[i] == Action::Free).take(20) {
            c.seek_position(&cli, &snap, i); // before the free
            let b = c.block_at(&cli, &snap, t.addr(i)).expect("the block the free frees");
            assert_eq!(b.version, shown[i].unwrap(), "before legacy free {i}");
        }

        // Active Memory Timeline: an allocation's version is its alloc's.
        let tl = Timeline::build(&snap, d, TimelineKind::ActiveMemory);
        let mut allocs = 0;
        for (e, el) in tl.elements.iter().enumerate() {
            if let ElementSource::Alloc(i) = el.source {
                assert_eq!(tl.version(&v, e as u32), mv[i as usize].unwrap(), "element {e}");
                allocs += 1;
            }
        }
        assert!(allocs > 10, "only {allocs} elements from an alloc");

        // Search by the versioned name finds exactly the events memory_viz
        // names so.
        let ix = SearchIndex::new(&snap);
        let a = t.addr(t.len() / 2);
        for ver in 0..3u32 {
            let q = format!("b{a:x}_{ver}");
            let got = ix.search_events(&snap, &v, d, SearchKind::Address, &q);
            let expect: Vec<u32> = (0..t.len() as u32)
                .filter(|&i| {
                    let act = t.action[i as usize];
                    !act.is_segment() && t.addr(i as usize) == a && shown[i as usize] == Some(ver)
                })
                .collect();
            assert_eq!(got, expect, "{q}");
        }
    }
    assert!(frees > 100 && reused > 50, "{frees} legacy frees, {reused} reused");
}
