//! Allocator State History on real snapshots and on gen_snapshot.py files:
//! the backward replay is consistent at every event, stepping either way
//! equals undoing from the dump, and states match independent Python
//! computations (tests/reference/state_*.py).

mod common;

use common::{real_pickles, repo_root as repo, shared_dir as shared};
use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::state::{Cursor, State, StateHistory, Totals};
use memviz_core::Snapshot;

fn load(path: &Path) -> Snapshot {
    memviz_core::load(&std::fs::read(path).unwrap()).unwrap()
}

fn python(args: &[&str]) -> String {
    let out = Command::new("python3").args(args).output().expect("python3 runs");
    assert!(out.status.success(), "python3 {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Writes gen_snapshot.py output once per option set into the target tmp dir.
fn gen(name: &str, opts: &[&str]) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("state_{name}.pickle"));
    let gen = shared().join("tools/gen_snapshot.py");
    let mut args = vec![gen.to_str().unwrap(), path.to_str().unwrap()];
    args.extend_from_slice(opts);
    python(&args);
    path
}

const GEN: &[(&str, &[&str])] = &[
    ("p4_oom_2dev", &["--events", "4000", "--devices", "2", "--oom", "--seed", "1"]),
    ("p5_expandable", &["--events", "3000", "--protocol", "5", "--expandable", "--seed", "2"]),
    ("p4_expandable_oom_2dev", &["--events", "3000", "--devices", "2", "--expandable", "--oom", "--seed", "3"]),
];

/// Invariants of one state, checked cheaply: blocks inside segments, no
/// overlaps, allocated <= reserved, totals add up.
fn check_state(h: &StateHistory, snap: &Snapshot, c: &Cursor, what: &str) {
    let mut segs = Vec::new();
    c.for_each_segment(|a, s, _| segs.push((a, a + s as u128)));
    let mut reserved = 0u64;
    for w in segs.windows(2) {
        assert!(w[0].1 <= w[1].0, "{what}: overlapping segments {w:x?}");
    }
    for &(a, e) in &segs {
        reserved += (e - a) as u64;
    }
    let (mut allocated, mut blocks, mut pending) = (0u64, 0usize, 0usize);
    let mut prev_end = 0u128;
    let mut si = 0;
    c.for_each_block(h, snap, |a, size, req, p| {
        assert!(a >= prev_end, "{what}: overlapping block at {a:x}");
        prev_end = a + size as u128;
        while si < segs.len() && segs[si].1 <= a {
            si += 1;
        }
        assert!(si < segs.len() && segs[si].0 <= a && prev_end <= segs[si].1, "{what}: block {a:x} outside segments");
        assert!(req <= size, "{what}: requested > size at {a:x}");
        allocated += req;
        blocks += 1;
        pending += p as usize;
    });
    let t = c.totals();
    assert_eq!(
        t,
        Totals {
            reserved_bytes: reserved,
            allocated_bytes: allocated,
            segments: segs.len(),
            blocks,
            pending_free_blocks: pending
        },
        "{what}"
    );
    assert!(t.allocated_bytes <= t.reserved_bytes, "{what}: allocated > reserved");
}

/// Full replay checks for one device; returns the totals at every position.
fn replay(snap: &Snapshot, device: u32, what: &str) -> (StateHistory, Vec<Totals>) {
    let h = StateHistory::new(snap, device);
    assert_eq!(h.inconsistencies().total(), 0, "{what} device {device}: {:?}", h.inconsistencies());
    let n = h.len();
    // Backward, one undo at a time, from the dump.
    let mut c = h.cursor();
    let mut back = vec![Totals::default(); n + 1];
    loop {
        check_state(&h, snap, &c, &format!("{what} dev {device} pos {}", c.position()));
        back[c.position()] = c.totals();
        if !c.step_back(&h, snap) {
            break;
        }
    }
    assert_eq!(c.position(), 0);
    // Forward, one redo at a time: the same totals, and full states equal to
    // undo-from-the-dump at sampled positions.
    let step = (n / 40).max(1);
    let mut fresh_states: Vec<(usize, State)> = Vec::new();
    for p in (0..=n).step_by(step) {
        let mut f = h.cursor();
        while f.position() > p {
            f.step_back(&h, snap);
        }
        fresh_states.push((p, f.state(&h, snap)));
    }
    let mut k = 0;
    loop {
        let p = c.position();
        assert_eq!(c.totals(), back[p], "{what} dev {device}: redo at {p}");
        if k < fresh_states.len() && fresh_states[k].0 == p {
            assert_eq!(c.state(&h, snap), fresh_states[k].1, "{what} dev {device}: redo state at {p}");
            k += 1;
        }
        if !c.step_forward(&h, snap) {
            break;
        }
    }
    assert_eq!(c.position(), n);
    // Far seeks (checkpoints) land on the same states.
    for (p, st) in fresh_states.iter().rev() {
        c.seek_position(&h, snap, *p);
        assert_eq!(&c.state(&h, snap), st, "{what} dev {device}: seek to {p}");
    }
    (h, back)
}

/// Compares totals with tests/reference/state_replay.py at a few positions.
fn check_python(path: &Path, h: &StateHistory, snap: &Snapshot, back: &[Totals]) -> usize {
    let device = h.device();
    let n = back.len() - 1;
    let positions_n: Vec<usize> =
        [0, 1, n / 5, n / 3, n / 2, 2 * n / 3, n.saturating_sub(1), n].iter().map(|&p| p.min(n)).collect();
    let positions: Vec<String> = positions_n.iter().map(|p| p.to_string()).collect();
    let script = repo().join("tests/reference/state_replay.py");
    let mut args = vec![script.to_str().unwrap().to_string(), path.to_str().unwrap().to_string(), device.to_string()];
    args.extend(positions);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = python(&args);
    let mut checked = 0;
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let p = v["position"].as_u64().unwrap() as usize;
        let t = back[p];
        let got =
            (t.reserved_bytes, t.allocated_bytes, t.segments as u64, t.blocks as u64, t.pending_free_blocks as u64);
        let want = (
            v["reserved"].as_u64().unwrap(),
            v["allocated"].as_u64().unwrap(),
            v["segments"].as_u64().unwrap(),
            v["blocks"].as_u64().unwrap(),
            v["pending"].as_u64().unwrap(),
        );
        assert_eq!(got, want, "{} device {device} position {p}", path.display());
        let mut c = h.cursor();
        c.seek_position(h, snap, p);
        let st = c.state(h, snap);
        let got = (st.free_bytes, st.largest_free_bytes, st.free_pieces as u64);
        let want =
            (v["free"].as_u64().unwrap(), v["largest_free"].as_u64().unwrap(), v["free_pieces"].as_u64().unwrap());
        assert_eq!(got, want, "{} device {device} position {p}: free space", path.display());
        checked += 1;
    }
    let mut distinct = positions_n.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(checked, distinct.len());
    checked
}

#[test]
fn real_snapshots_replay_consistently_and_match_python() {
    let mut positions = 0;
    let mut devices = 0;
    for path in real_pickles(&[("snapshots", 8)]) {
        let snap = load(&path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for d in snap.devices() {
            let (h, back) = replay(&snap, d, &name);
            check_python(&path, &h, &snap, &back);
            positions += back.len();
            devices += 1;
        }
    }
    assert!(devices >= 9 && positions > 34000, "{devices} devices, {positions} positions");
}

#[test]
fn real_snapshot_known_states() {
    // small_train_step: the trace starts with the first segment_alloc, so
    // nothing is reserved before it; at the end the dump's 9 segments.
    let snap = load(&shared().join("snapshots/small_train_step.pickle"));
    let h = StateHistory::new(&snap, 0);
    let mut c = h.cursor();
    assert_eq!(c.totals().segments, 9);
    assert_eq!(c.totals().reserved_bytes, snap.segments.iter().map(|s| s.total_size).sum::<u64>());
    c.seek_position(&h, &snap, 0);
    assert_eq!(c.totals(), Totals::default());
    // After the first event (segment_alloc) exactly that one segment.
    c.seek(&h, &snap, 0);
    let st = c.state(&h, &snap);
    let t = snap.trace(0);
    assert_eq!(st.segments.len(), 1);
    assert_eq!((st.segments[0].address, st.segments[0].size), (t.addr(0), t.size[0]));
    // Never freed: it is the dump's segment.
    assert_eq!(st.segments[0].event, None);
    let fs = st.segments[0].final_segment.unwrap();
    assert_eq!(snap.segments[fs].address, t.addr(0));
    // llm_inference: one free_completed without alloc: before it, the block
    // is there (pending, rebuilt from the event), after it the dump.
    let snap = load(&shared().join("snapshots/llm_inference_no_timestamps.pickle"));
    let h = StateHistory::new(&snap, 0);
    let mut c = h.cursor();
    let fin = c.totals();
    c.seek_position(&h, &snap, 0);
    let t = snap.trace(0);
    assert_eq!(c.totals().blocks, fin.blocks + 1);
    assert_eq!(c.totals().pending_free_blocks, 1);
    assert_eq!(c.totals().allocated_bytes, fin.allocated_bytes + t.size[0]);
    let st = c.state(&h, &snap);
    let b = st.segments.iter().flat_map(|s| &s.blocks).find(|b| b.pending).unwrap();
    assert_eq!((b.address, b.free_event, b.alloc_event), (t.addr(0), Some(0), None));
    let sum = c.summary(&h, &snap);
    assert_eq!(sum.event, None);
    assert!(sum.inconsistencies.is_empty());
}

#[test]
fn generated_snapshots_replay_consistently() {
    let gen_py = shared().join("tools/gen_snapshot.py");
    for (name, opts) in GEN {
        let path = gen(name, opts);
        let snap = load(&path);
        let initial: serde_json::Value = serde_json::from_str(&python(
            &[repo().join("tests/reference/state_gen_initial.py").to_str().unwrap(), gen_py.to_str().unwrap()]
                .iter()
                .copied()
                .chain(opts.iter().copied())
                .collect::<Vec<_>>(),
        ))
        .unwrap();
        let devs = snap.devices();
        assert_eq!(devs.len(), initial.as_array().unwrap().len(), "{name}");
        for d in devs {
            let (h, back) = replay(&snap, d, name);
            assert!(h.len() > 1000, "{name}: {} events", h.len());
            check_python(&path, &h, &snap, &back);
            // The state before the first event is what the generator's
            // allocator held after the 20 parameter allocations.
            let mut c = h.cursor();
            c.seek_position(&h, &snap, 0);
            let st = c.state(&h, &snap);
            let want = &initial[d as usize]["segments"];
            let got: Vec<serde_json::Value> = st
                .segments
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "address": s.address as u64, "size": s.size, "stream": s.stream,
                        "blocks": s.blocks.iter().map(|b| serde_json::json!([b.address as u64, b.size, b.requested_size])).collect::<Vec<_>>(),
                    })
                })
                .collect();
            assert_eq!(&serde_json::Value::Array(got), want, "{name} device {d}: initial state");
            assert_eq!(st.totals.blocks, 20, "{name} device {d}: the 20 parameters");
            assert!(st
                .segments
                .iter()
                .flat_map(|s| &s.blocks)
                .all(|b| b.alloc_event.is_none() && b.final_block.is_some()));
            // Every block alive at the end that the trace allocated names its alloc.
            let fin = h.cursor().state(&h, &snap);
            let t = snap.trace(d);
            let mut named = 0;
            for b in fin.segments.iter().flat_map(|s| &s.blocks) {
                if let Some(a) = b.alloc_event {
                    assert_eq!((t.action[a].name(), t.addr(a), t.size[a]), ("alloc", b.address, b.requested_size));
                    named += 1;
                }
            }
            assert!(named > 0, "{name} device {d}: no block alive at the end names its alloc");
            if opts.contains(&"--oom") && d == 0 {
                let sum = {
                    let mut c = h.cursor();
                    c.seek(&h, &snap, h.len() - 2);
                    c.summary(&h, &snap)
                };
                assert_eq!(sum.action.as_deref(), Some("oom"));
            }
        }
    }
}

/// The versions StateHistory computes itself equal those of
/// `versions::compute` (memory_viz's `_N` suffixes).
#[test]
fn own_versions_match_versions_module() {
    let mut files = real_pickles(&[("snapshots", 8)]);
    files.push(gen("p4_oom_2dev_versions", &["--events", "3000", "--devices", "2", "--oom", "--seed", "4"]));
    let (mut compared, mut max_version) = (0, 0);
    for path in files {
        let snap = load(&path);
        let v = memviz_core::versions::compute(&snap);
        for d in snap.devices() {
            let own = StateHistory::new(&snap, d);
            let given = StateHistory::with_versions(&snap, d, Some(&v));
            let n = own.len();
            let (mut a, mut b) = (own.cursor(), given.cursor());
            for p in [n, n * 3 / 4, n / 2, n / 4, 0] {
                a.seek_position(&own, &snap, p);
                b.seek_position(&given, &snap, p);
                let (sa, sb) = (a.state(&own, &snap), b.state(&given, &snap));
                assert_eq!(sa, sb, "{} device {d} position {p}", path.display());
                compared += sa.segments.len() + sa.totals.blocks;
                for s in &sa.segments {
                    max_version = s.blocks.iter().map(|b| b.version).fold(max_version.max(s.version), u32::max);
                }
            }
        }
    }
    assert!(compared > 10000, "{compared}");
    assert!(max_version > 2, "versions all trivial: {max_version}");
}
