//! Valid but inconsistent snapshots, as real ones are after the trace ring
//! buffer overflowed: made from ../shared/snapshots/small_train_step.pickle
//! by Python (dropping the oldest events, adding events and blocks that do
//! not fit). The views show what can be shown and count what did not fit.

use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::model::{Action, Snapshot};
use memviz_core::state::{Inconsistency, StateHistory};
use memviz_core::timeline::{ElementSource, Timeline, TimelineKind};

fn small() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/snapshots/small_train_step.pickle");
    assert!(p.is_file(), "{} is missing", p.display());
    p
}

/// Loads small_train_step.pickle in Python as `s`, runs `edit`, loads the
/// pickle it writes.
fn edited(edit: &str) -> Snapshot {
    let code = format!(
        "import pickle, sys\ns = pickle.load(open({:?}, 'rb'))\nt = s['device_traces'][0]\n{edit}\n\
         sys.stdout.buffer.write(pickle.dumps(s, 4))",
        small().to_str().unwrap()
    );
    let out = Command::new("python3").arg("-c").arg(&code).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    memviz_core::load(&out.stdout).unwrap()
}

#[test]
fn ring_buffer_overflow_frees_without_alloc() {
    let full = memviz_core::load(&std::fs::read(small()).unwrap()).unwrap();
    let ft = &full.traces[0];
    // The buffer kept only the newest 60 of the 97 events.
    let drop = ft.len() - 60;
    let snap = edited(&format!("s['device_traces'][0] = t[{drop}:]"));
    assert_eq!(snap.traces[0].len(), 60);

    // Expected, from the full trace: frees kept whose alloc was dropped.
    let mut last_alloc = std::collections::HashMap::new();
    let mut unmatched = 0;
    for i in 0..ft.len() {
        match ft.action[i] {
            Action::Alloc => {
                last_alloc.insert(ft.addr(i), i);
            }
            Action::FreeCompleted if i >= drop && last_alloc.get(&ft.addr(i)).is_none_or(|&a| a < drop) => {
                unmatched += 1;
            }
            _ => {}
        }
    }
    assert!(unmatched > 0, "the cut must leave frees without their alloc");
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let shown = tl.elements.iter().filter(|e| matches!(e.source, ElementSource::UnmatchedFree(_))).count();
    assert_eq!(shown, unmatched, "each free without alloc is shown alive from the start");
    // Every allocation of the full timeline that is still freed or alive in
    // the kept part is there: the end total is the same.
    let full_tl = Timeline::build(&full, 0, TimelineKind::ActiveMemory);
    assert_eq!(tl.end_bytes, full_tl.end_bytes);

    // Undoing from the dump needs only the newest events: nothing is
    // inconsistent for the state history.
    let h = StateHistory::new(&snap, 0);
    assert_eq!(h.inconsistencies().total(), 0, "{:?}", h.inconsistencies().to_map());
    let mut c = h.cursor();
    c.seek(&h, &snap, 0);
    let st = c.state(&h, &snap);
    assert!(!st.segments.is_empty());
}

#[test]
fn events_and_blocks_that_fit_nowhere_are_counted() {
    let snap = edited(
        "base = t[-1]['time_us']\n\
         ev = lambda a, addr, size, dt: {'action': a, 'addr': addr, 'size': size, 'stream': 0, 'time_us': base + dt, 'frames': []}\n\
         t.append(ev('free_requested', 0xdead000, 512, 1))\n\
         t.append(ev('alloc', 0x7777000000, 1024, 2))\n\
         t.append(ev('free_completed', 0x5555000000, 2048, 3))\n\
         b = dict(s['segments'][0]['blocks'][0])\n\
         b['address'] = 0x9999000000\n\
         s['segments'][0]['blocks'].append(b)",
    );
    let t = &snap.traces[0];
    assert_eq!(t.len(), 100);
    // The views build; what could not be placed is counted, with where.
    let h = StateHistory::new(&snap, 0);
    let issues = h.inconsistencies();
    assert_eq!(issues.count(Inconsistency::FreeRequestedUnknownBlock), 1, "{:?}", issues.to_map());
    assert_eq!(issues.first_event(Inconsistency::FreeRequestedUnknownBlock), Some(97));
    assert_eq!(issues.count(Inconsistency::AllocWithoutBlock), 1, "{:?}", issues.to_map());
    assert_eq!(issues.first_event(Inconsistency::AllocWithoutBlock), Some(98));
    assert_eq!(issues.count(Inconsistency::BlockOutsideSegment), 1, "{:?}", issues.to_map());
    assert_eq!(
        issues.to_map().into_iter().collect::<Vec<_>>(),
        vec![("alloc_without_block", 1), ("block_outside_segment", 1), ("free_requested_unknown_block", 1)]
    );
    // The state summary (memviz state) reports them by name.
    let sum = memviz_core::state::summary(&snap, 0, Some(50));
    assert_eq!(sum.inconsistencies.get("free_requested_unknown_block"), Some(&1));
    assert_eq!(sum.inconsistencies.get("alloc_without_block"), Some(&1));
    // Every position can still be shown.
    let mut c = h.cursor();
    for i in [0, 50, 96, 97, 98, 99] {
        c.seek(&h, &snap, i);
        let st = c.state(&h, &snap);
        assert!(!st.segments.is_empty(), "event {i}");
    }
    // The timeline shows the alloc outside every segment, and the free of a
    // block it never saw as alive from the start.
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    assert!(tl.elements.iter().any(|e| e.source == ElementSource::Alloc(98) && e.addr == 0x7777000000));
    assert!(tl.elements.iter().any(|e| matches!(e.source, ElementSource::UnmatchedFree(_)) && e.addr == 0x5555000000));
    let summary = memviz_core::summary::summarize(&snap);
    assert_eq!(summary.devices.0.len(), 1);
}
