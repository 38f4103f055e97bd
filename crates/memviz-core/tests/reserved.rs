//! Reserved memory agrees everywhere (issue 9): after every trace event of
//! every real and generated snapshot, the Active Cached Segment Timeline and
//! the Allocator State History give the reserved bytes that independent
//! Python computes from the dump alone (tests/reference/reserved_reference.py:
//! the dump's reserved bytes minus what later events mapped plus what they
//! unmapped), starting from that and ending at the dump's reserved bytes.
//! Expandable segments with holes (gen_snapshot.py --expandable, the real
//! torch_npu recording) are the case this guards.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::pools::PrivatePools;
use memviz_core::state::StateHistory;
use memviz_core::timeline::{Timeline, TimelineKind, NO_EVENT};
use memviz_core::Snapshot;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python(args: &[&str]) -> String {
    let out = Command::new("python3").args(args).output().expect("python3 must be installed for this test");
    assert!(out.status.success(), "python3 {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Reserved bytes after each event: element `i + 1` is after event `i`,
/// element 0 before the first event.
fn timeline_reserved(snap: &Snapshot, device: u32, name: &str) -> Vec<u64> {
    let tl = Timeline::build(snap, device, TimelineKind::CachedSegments);
    let n = snap.trace(device).len();
    let mut after = vec![0u64; n + 1];
    let mut running = tl.start_bytes;
    let mut live = vec![false; tl.elements.len()];
    for &e in &tl.initially_allocated {
        live[e as usize] = true;
    }
    // A trace with no segment event gets one step with no event (memory_viz
    // pops an initial element so the plot is not blank): it holds memory
    // from the start.
    let mut k = 0;
    while k < tl.actions.len() && tl.events[k] == NO_EVENT {
        let e = tl.actions[k] as usize;
        running += tl.elements[e].size;
        live[e] = true;
        k += 1;
    }
    after[0] = running;
    let mut c = 0;
    for i in 0..n {
        while k < tl.actions.len() && tl.events[k] == i as u32 {
            // The step's action, then the other pieces of its map or unmap.
            let mut elems = vec![tl.actions[k] as usize];
            while c < tl.co_actions.len() && tl.co_actions[c].0 == k as u32 {
                elems.push(tl.co_actions[c].1 as usize);
                c += 1;
            }
            for e in elems {
                let size = tl.elements[e].size;
                if live[e] {
                    running -= size;
                } else {
                    running += size;
                }
                live[e] = !live[e];
            }
            k += 1;
        }
        after[i + 1] = running;
    }
    assert_eq!(k, tl.actions.len(), "{name} device {device}: steps left over");
    assert_eq!(c, tl.co_actions.len(), "{name} device {device}: pieces left over");
    assert_eq!(running, tl.end_bytes, "{name} device {device}");
    after
}

fn check(path: &Path) -> usize {
    let snap = memviz_core::load(&std::fs::read(path).unwrap()).unwrap();
    let want: BTreeMap<String, Vec<u64>> = serde_json::from_str(&python(&[
        repo().join("tests/reference/reserved_reference.py").to_str().unwrap(),
        path.to_str().unwrap(),
    ]))
    .unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    for (d, want) in &want {
        let d: u32 = d.parse().unwrap();
        let dump: u64 = snap.device_segments(d).map(|s| s.total_size).sum();
        assert_eq!(*want.last().unwrap(), dump, "{name}: python's end is the dump");
        let tl = timeline_reserved(&snap, d, &name);
        let h = StateHistory::new(&snap, d);
        let mut c = h.cursor();
        for (i, &w) in want.iter().enumerate() {
            assert_eq!(tl[i], w, "{name} device {d}: segment timeline after {} events", i);
            c.seek_position(&h, &snap, i);
            assert_eq!(c.totals().reserved_bytes, w, "{name} device {d}: state history after {i} events");
        }
    }
    want.len()
}

#[test]
fn every_real_snapshot() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("../shared/snapshots"))
        .expect("../shared/snapshots beside the repository")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.sort();
    assert!(files.len() >= 11, "snapshots missing: {files:?}");
    let devices: usize = files.iter().map(|f| check(f)).sum();
    assert!(devices >= 9, "only {devices} traced devices checked");
}

#[test]
fn generated_snapshots() {
    let gen = repo().join("../shared/tools/gen_snapshot.py");
    for (name, opts) in [
        ("plain", &["--events", "6000", "--devices", "2", "--seed", "11"][..]),
        ("expandable", &["--events", "8000", "--expandable", "--seed", "12"]),
        (
            "expandable_oom_3dev",
            &["--events", "9000", "--devices", "3", "--expandable", "--oom", "--iters", "4", "--seed", "13"],
        ),
        ("expandable_p5", &["--events", "4000", "--expandable", "--protocol", "5", "--seed", "14"]),
    ] {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("reserved_{name}.pickle"));
        let mut args = vec![gen.to_str().unwrap(), out.to_str().unwrap()];
        args.extend_from_slice(opts);
        python(&args);
        assert!(check(&out) >= 1, "{name}");
    }
    let pools = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reserved_private_pool.pickle");
    python(&[repo().join("tests/reference/gen_private_pool.py").to_str().unwrap(), pools.to_str().unwrap()]);
    assert_eq!(check(&pools), 1);
    check_pools(&pools);
}

/// The private-pools view's reserved bytes per pool and stream, after every
/// event, against Python and the state history's segments of that pool.
fn check_pools(path: &Path) {
    let snap = memviz_core::load(&std::fs::read(path).unwrap()).unwrap();
    let want: BTreeMap<String, BTreeMap<String, Vec<i128>>> = serde_json::from_str(&python(&[
        repo().join("tests/reference/reserved_reference.py").to_str().unwrap(),
        path.to_str().unwrap(),
        "--pools",
    ]))
    .unwrap();
    let want = &want["0"];
    assert!(want.len() >= 2, "the file has two private pools: {:?}", want.keys());
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let pp = PrivatePools::build(&snap, &tl);
    let h = StateHistory::new(&snap, 0);
    let mut c = h.cursor();
    for pool in &pp.pools {
        let w = &want[&pool.key()];
        let mut reserved = pool.reserved_start;
        let mut changes = pool.reserved_changes.iter().peekable();
        for (i, &w) in w.iter().enumerate() {
            // After i events: the changes of events 0..i.
            while let Some(&(_, d)) = changes.next_if(|&&(e, _)| (e as usize) < i) {
                reserved += d;
            }
            assert_eq!(reserved, w, "pools view, pool {} after {i} events", pool.key());
            c.seek_position(&h, &snap, i);
            let state: i128 = c
                .state(&h, &snap)
                .segments
                .iter()
                .filter(|s| s.pool_id == Some(pool.pool_id) && s.stream == pool.stream)
                .map(|s| s.size as i128)
                .sum();
            assert_eq!(state, w, "state history, pool {} after {i} events", pool.key());
        }
    }
}

/// A piece of an expandable segment that an unmap cut out of a larger map
/// (the middle of an 8 MiB map unmapped, as empty_cache does): its band and
/// hover text give the piece's own address and size and the stack of the
/// map (pieces from tests/reference/expandable.py).
#[test]
fn expandable_piece_hover() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reserved_hole.pickle");
    let script = r#"
import pickle, sys
sys.path.insert(0, sys.argv[2])
from expandable import pieces
MB, a = 1 << 20, 0x7f5000000000
fr = lambda n, l: [{'filename': '/src/%s.py' % n, 'line': l, 'name': n}]
seg = lambda x, n: {'device': 0, 'address': x, 'total_size': n, 'allocated_size': 0, 'active_size': 0,
                    'requested_size': 0, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
                    'is_expandable': True, 'frames': [], 'blocks': [{'address': x, 'size': n, 'requested_size': 0,
                    'state': 'inactive', 'frames': []}]}
ev = lambda act, x, n, f: {'action': act, 'addr': x, 'size': n, 'stream': 0, 'frames': f}
snap = {'segments': [seg(a, 3 * MB), seg(a + 5 * MB, 3 * MB)],
        'device_traces': [[ev('segment_map', a, 8 * MB, fr('grow', 7)), ev('segment_unmap', a + 3 * MB, 2 * MB, fr('empty_cache', 9))]]}
pickle.dump(snap, open(sys.argv[1], 'wb'), protocol=4)
ps, _ = pieces(snap, 0)
trace = snap['device_traces'][0]
cut = [p for p in ps if p['map'] is not None and p['size'] < trace[p['map']]['size']]
p = max(cut, key=lambda p: (p['size'], -p['addr']))
f = trace[p['map']]['frames'][0]
print(len(ps), len(cut), '%x' % p['addr'], p['size'], '%s:%d:%s' % (f['filename'], f['line'], f['name']))
"#;
    let out = python(&["-c", script, path.to_str().unwrap(), repo().join("tests/reference").to_str().unwrap()]);
    let f: Vec<&str> = out.split_whitespace().collect();
    let (n_pieces, n_cut, addr, size, frame) = (f[0], f[1], f[2], f[3].parse::<u64>().unwrap(), f[4]);
    assert_eq!((n_pieces, n_cut), ("3", "3"), "left, hole and right of the map");
    check(&path);
    let snap = memviz_core::load(&std::fs::read(&path).unwrap()).unwrap();
    let tl = Timeline::build(&snap, 0, TimelineKind::CachedSegments);
    assert_eq!(tl.elements.len().to_string(), n_pieces);
    let e =
        tl.elements.iter().position(|e| format!("{:x}", e.addr) == addr && e.size == size).expect("the piece's band");
    let v = memviz_core::versions::compute(&snap);
    let text = memviz_core::format::hover_text(&snap, Some(&v), &tl, e as u32);
    assert!(text.contains(&format!("Addr: s{addr}_")), "{text}");
    assert!(text.contains(&format!("({size} bytes) allocation")), "{text}");
    assert!(text.contains(frame), "{text}");
    // The state history shows the hole as a hole: two segments after the unmap.
    let h = StateHistory::new(&snap, 0);
    let mut c = h.cursor();
    c.seek(&h, &snap, 1);
    assert_eq!(c.totals().segments, 2);
    c.seek(&h, &snap, 0);
    assert_eq!(c.totals().segments, 1);
}
