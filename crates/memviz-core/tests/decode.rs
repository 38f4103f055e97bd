//! The decoder against Python's own pickle module: every real snapshot in
//! ../shared/snapshots, re-encoded as every protocol, JSON and gzip, must give
//! the model the facts that tests/reference/decode_facts.py reads with
//! Python.

mod common;

use common::{real_pickles, repo_root as root, shared_dir as shared};
use std::path::Path;
use std::process::Command;

use memviz_core::model::{Action, BlockState, Snapshot};
use serde_json::Value as J;

fn python(args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(root().join("tests/reference/decode_facts.py"))
        .args(args)
        .output()
        .expect("python3 is needed for the reference side of this test");
    assert!(out.status.success(), "decode_facts.py failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn facts(path: &Path) -> J {
    serde_json::from_str(&python(&[path.to_str().unwrap()])).unwrap()
}

fn load(path: &Path) -> Snapshot {
    let bytes = std::fs::read(path).unwrap();
    memviz_core::load(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn frames_text(snap: &Snapshot, stack: u32) -> J {
    J::Array(
        snap.stack(stack)
            .iter()
            .map(|&f| {
                let f = snap.frame(f);
                serde_json::json!([snap.str(f.filename), f.line, snap.str(f.name)])
            })
            .collect(),
    )
}

/// Compares the model with Python's facts; returns how many values matched.
fn check(snap: &Snapshot, facts: &J, what: &str) -> usize {
    let mut n = 0;
    let mut eq = |a: J, b: &J, name: &str| {
        assert_eq!(&a, b, "{what}: {name}");
        n += 1;
    };
    eq(J::from(snap.segments.len()), &facts["segments"], "segments");
    eq(J::from(snap.blocks.len()), &facts["blocks"], "blocks");
    eq(J::from(snap.segments.iter().map(|s| s.total_size).sum::<u64>()), &facts["total_size"], "total_size");
    eq(
        J::from(snap.segments.iter().map(|s| s.allocated_size).sum::<u64>()),
        &facts["allocated_size"],
        "allocated_size",
    );
    eq(J::from(snap.allocator_settings.is_some()), &facts["has_settings"], "allocator_settings present");
    let devs = facts["devices"].as_array().unwrap();
    eq(J::from(snap.traces.len()), &J::from(devs.len()), "device_traces");
    for (d, fd) in devs.iter().enumerate() {
        let t = &snap.traces[d];
        eq(J::from(t.len()), &fd["events"], "events");
        let mut acts = serde_json::Map::new();
        for i in 0..t.len() {
            let e = acts.entry(t.action_name(i).to_string()).or_insert(J::from(0));
            *e = J::from(e.as_u64().unwrap() + 1);
        }
        eq(J::Object(acts), &fd["actions"], "actions");
        let refs: usize = t.stack.iter().map(|&s| snap.stack(s).len()).sum();
        eq(J::from(refs), &fd["frame_refs"], "frame references");
        eq(J::from(t.size.iter().sum::<u64>()), &fd["size_sum"], "size sum");
        for s in fd["samples"].as_array().unwrap() {
            let i = s["i"].as_u64().unwrap() as usize;
            eq(J::from(t.action_name(i)), &s["action"], "sample action");
            eq(J::from(t.addr(i).to_string()), &s["addr"], "sample addr");
            eq(J::from(t.size[i]), &s["size"], "sample size");
            eq(t.time_us(i).map(J::from).unwrap_or(J::Null), &s["time_us"], "sample time_us");
            eq(frames_text(snap, t.stack[i]), &s["frames"], "sample frames");
        }
    }
    for s in facts["segment_samples"].as_array().unwrap() {
        let seg = &snap.segments[s["i"].as_u64().unwrap() as usize];
        eq(J::from(seg.address.to_string()), &s["address"], "segment address");
        eq(J::from(seg.total_size), &s["total_size"], "segment total_size");
        eq(J::from(seg.device), &s["device"], "segment device");
        let blocks = snap.segment_blocks(seg);
        eq(J::from(blocks.len()), &s["n_blocks"], "segment blocks");
        // Python gives null for a segment without blocks.
        eq(blocks.first().map(|b| b.size).into(), &s["block0_size"], "block size");
        eq(blocks.first().map(|b| b.state.name()).into(), &s["block0_state"], "block state");
    }
    n
}

#[test]
fn real_snapshots_match_python() {
    for path in real_pickles(&[("snapshots", 8)]) {
        let snap = load(&path);
        let n = check(&snap, &facts(&path), &path.display().to_string());
        assert!(n > 8, "{}: only {n} values compared", path.display());
    }
}

#[test]
fn every_protocol_json_and_gzip_give_the_same_model() {
    let dir = std::env::temp_dir().join(format!("memviz-decode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = shared().join("snapshots/transformer_forward_bf16.pickle");
    let want = facts(&src);
    for fmt in ["p2", "p3", "p4", "p5", "json", "p4.gz", "json.gz"] {
        let out = dir.join(format!("x.{fmt}"));
        python(&["--rewrite", src.to_str().unwrap(), out.to_str().unwrap(), fmt]);
        let snap = load(&out);
        check(&snap, &want, fmt);
        let expect_protocol = match fmt {
            "json" | "json.gz" => 0,
            f => f[1..2].parse().unwrap(),
        };
        assert_eq!(snap.protocol, expect_protocol, "{fmt}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn chunked_feeding_gives_the_same_model_at_any_chunk_size() {
    let path = shared().join("snapshots/small_train_step.pickle");
    let bytes = std::fs::read(&path).unwrap();
    let want = facts(&path);
    for chunk in [1usize, 2, 3, 7, 64, 4096] {
        let mut loader = memviz_core::Loader::new();
        for c in bytes.chunks(chunk) {
            loader.feed(c).unwrap();
        }
        let snap = loader.finish().unwrap();
        check(&snap, &want, &format!("chunks of {chunk}"));
    }
}

/// The page's worker tells the decoder the file's size (`Loader::expect`)
/// so that its tables grow to what the file needs: the model is Python's,
/// whether the size told is right, far too small or far too large.
#[test]
fn a_told_file_size_gives_the_same_model() {
    for name in ["transformer_fullstep_ctx128.pickle", "small_train_step.pickle"] {
        let path = shared().join("snapshots").join(name);
        let bytes = std::fs::read(&path).unwrap();
        // Over the 1 MiB and 4096 items the estimate waits for.
        if name.starts_with("transformer") {
            assert!(bytes.len() > 2 << 20, "{}", bytes.len());
        }
        let want = facts(&path);
        for told in [bytes.len() as u64, 0, bytes.len() as u64 / 10, bytes.len() as u64 * 10] {
            let mut loader = memviz_core::Loader::new();
            loader.expect(told);
            for c in bytes.chunks(64 << 10) {
                loader.feed(c).unwrap();
            }
            let snap = loader.finish().unwrap();
            assert!(snap.traces[0].len() > 90, "{name}");
            check(&snap, &want, &format!("{name}, told {told} bytes"));
        }
    }
}

#[test]
fn legacy_blocks_get_addresses_from_their_segment() {
    // llm_inference_no_timestamps.pickle (PyTorch 2.0 era): blocks carry no
    // address, history[0] holds frames and real_size.
    let snap = load(&shared().join("snapshots/llm_inference_no_timestamps.pickle"));
    for seg in &snap.segments {
        let mut addr = seg.address;
        for b in snap.segment_blocks(seg) {
            assert_eq!(b.address, addr);
            addr += b.size as u128;
        }
        assert_eq!(addr, seg.address + seg.total_size as u128, "blocks tile the segment");
    }
    let t = &snap.traces[0];
    assert_eq!(t.action[0], Action::FreeCompleted);
    assert_eq!(t.time_us(0), None, "this file predates time_us");
    let with_frames = snap.blocks.iter().filter(|b| b.state == BlockState::ActiveAllocated && b.stack != 0).count();
    assert!(with_frames > 700, "history[0].frames read for active blocks: {with_frames}");
}

#[test]
fn streams_are_numbered_like_memory_viz() {
    let snap = load(&shared().join("snapshots/transformer_fullstep_ctx128.pickle"));
    // Everything runs on the default stream in this file.
    assert!(snap.traces[0].stream.iter().all(|&s| s == 0));
    assert!(snap.segments.iter().all(|s| s.stream == 0));
    let dir = std::env::temp_dir().join(format!("memviz-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("g.pickle");
    let st = Command::new("python3")
        .arg(shared().join("tools/gen_snapshot.py"))
        .args([out.to_str().unwrap(), "--events", "3000", "--protocol", "5"])
        .status()
        .unwrap();
    assert!(st.success());
    let snap = load(&out);
    assert_eq!(snap.protocol, 5);
    // gen_snapshot.py uses raw streams 0 and 7: memory_viz shows 0 and 1.
    let mut seen: Vec<u32> = snap.traces[0].stream.clone();
    seen.sort();
    seen.dedup();
    assert_eq!(seen, vec![0, 1]);
    std::fs::remove_dir_all(&dir).ok();
}

/// `bytes` fed to a `Loader` that knows their size, `chunk` bytes a call.
fn load_in_chunks(bytes: &[u8], chunk: usize) -> Snapshot {
    let mut loader = memviz_core::Loader::new();
    loader.expect(bytes.len() as u64);
    for c in bytes.chunks(chunk) {
        loader.feed(c).unwrap();
    }
    loader.finish().unwrap()
}

/// Runs the Python program `py`, which writes `n` pickles (each after its
/// length, 8 bytes little-endian) then JSON: the pickles and the JSON.
fn python_pickles(py: &str, n: usize) -> (Vec<Vec<u8>>, J) {
    let out = Command::new("python3").args(["-c", py]).output().expect("python3 writes the pickles");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut rest = &out.stdout[..];
    let mut pickles = Vec::new();
    for _ in 0..n {
        let len = u64::from_le_bytes(rest[..8].try_into().unwrap()) as usize;
        pickles.push(rest[8..8 + len].to_vec());
        rest = &rest[8 + len..];
    }
    (pickles, serde_json::from_slice(rest).unwrap())
}

/// A device's trace as the pickler writes it (events in a row, batches of
/// 1000) is held as a run of events, not item by item; anything that
/// breaks the row must give what Python reads: every event once, in order,
/// the bad entries named by their index. Batches of device 0: a row, then
/// a row of events seen before (not the one that follows), then a
/// non-event; of device 1: a row, then events out of order.
#[test]
fn device_traces_broken_mid_row_keep_every_event_in_order() {
    const PY: &str = r#"
import json, pickle, sys
def ev(i, base):
    return dict(action='alloc' if i % 2 == 0 else 'free_completed', addr=base + 512 * (i // 2),
                size=512 + i, stream=0, time_us=1000 + i, frames=[])
evs = [ev(i, 0x7f0000000000) for i in range(2500)]
dev1 = [ev(i, 0x7e0000000000) for i in range(1200)]
traces = [evs[:1000] + evs[3:1003] + evs[1003:2200] + [7] + evs[2200:],
          dev1[:1000] + dev1[1000:1100] + [dev1[5]] + dev1[1100:]]
for proto in (2, 4):
    b = pickle.dumps({'segments': [], 'device_traces': traces}, protocol=proto)
    sys.stdout.buffer.write(len(b).to_bytes(8, 'little') + b)
seen, devices, first_bad = set(), [], {}
for d, t in enumerate(traces):
    kept = []
    for i, e in enumerate(t):
        why = 'not a dict' if not isinstance(e, dict) else 'shared' if id(e) in seen else None
        if why:
            first_bad.setdefault(why, f'device_traces[{d}][{i}]')
            continue
        seen.add(id(e))
        kept.append([e['addr'], e['size'], e['time_us']])
    devices.append(kept)
sys.stdout.buffer.write(json.dumps({'devices': devices, 'bad': list(first_bad.values())}).encode())
"#;
    let (pickles, facts) = python_pickles(PY, 2);
    // The second batch of device 0 shares its first event: the first problem.
    assert_eq!(facts["bad"][0], "device_traces[0][1000]");
    assert_eq!(facts["bad"].as_array().unwrap().len(), 2, "{}", facts["bad"]);
    for bytes in &pickles {
        for chunk in [bytes.len(), 4096, 61] {
            let snap = load_in_chunks(bytes, chunk);
            for (d, want) in facts["devices"].as_array().unwrap().iter().enumerate() {
                let t = snap.trace(d as u32);
                let want = want.as_array().unwrap();
                let got: Vec<J> =
                    (0..t.len()).map(|i| serde_json::json!([t.addr(i) as u64, t.size[i], t.time_us[i]])).collect();
                let differ = got.iter().zip(want).position(|(a, b)| a != b);
                assert!(
                    got.len() == want.len() && differ.is_none(),
                    "device {d}, chunks of {chunk}: {} events against Python's {}, first different at {differ:?}",
                    got.len(),
                    want.len()
                );
            }
            let warnings: Vec<J> = snap.warnings.list.iter().map(|w| J::String(w.location.clone())).collect();
            assert_eq!(J::Array(warnings), facts["bad"], "chunks of {chunk}");
        }
    }
}

/// The decoder keeps each device's trace in a table of its own as it
/// reads (no copy when the model is built); a trace that is not one such
/// table (events read earlier, out of order) is taken from them all. Both
/// must give what Python reads, fields kept apart from the columns
/// included: addresses past 64 bits, actions of other names, pool ids on
/// some devices (interned once for all). Two files: three traces, each a run of its own; and
/// the same with device 1's events read first (under an unknown key) and
/// listed in reverse.
#[test]
fn each_device_trace_reads_as_python_reads_it() {
    const PY: &str = r#"
import json, pickle, sys
def ev(i, base, n):
    e = dict(action=('alloc', 'free_completed', 'snapshot')[i % 3], addr=base + 512 * i,
             size=512 + i, stream=0, time_us=1000 + i, frames=[])
    if i in (0, n - 1, 4097):
        e['addr'] = (1 << 64) * (i + 1) + e['addr']
    return e
dev0 = [ev(i, 0x7f0000000000, 6000) for i in range(6000)]
early = [ev(i, 0x7e0000000000, 5000) for i in range(5000)]
dev2 = [ev(i, 0x7d0000000000, 4500) for i in range(4500)]
for i, e in enumerate(dev0):
    if i % 7 == 0 and i >= 2000:  # past the first batch the pickler appends
        e['pool_id'] = (1, i % 3)
for i, e in enumerate(dev2):
    if i % 5 == 0:
        e['pool_id'] = (2, i % 4)
tops = [{'segments': [], 'device_traces': [dev0, early, dev2]},
        {'early': early, 'segments': [], 'device_traces': [dev0, early[::-1], dev2]}]
for top in tops:
    for proto in (2, 4):
        b = pickle.dumps(top, protocol=proto)
        sys.stdout.buffer.write(len(b).to_bytes(8, 'little') + b)
devices = [[[[str(e['addr']), e['size'], e['time_us'], e['action'], e.get('pool_id')] for e in t]
            for t in top['device_traces']] for top in tops]
sys.stdout.buffer.write(json.dumps(devices).encode())
"#;
    let (pickles, files) = python_pickles(PY, 4);
    for (k, bytes) in pickles.iter().enumerate() {
        let devices = files[k / 2].as_array().unwrap();
        assert_eq!(devices.iter().map(|d| d.as_array().unwrap().len()).collect::<Vec<_>>(), [6000, 5000, 4500]);
        for chunk in [bytes.len(), 4096, 61] {
            let snap = load_in_chunks(bytes, chunk);
            assert_eq!(snap.traces.len(), 3);
            for (d, want) in devices.iter().enumerate() {
                let t = snap.trace(d as u32);
                let want = want.as_array().unwrap();
                let got: Vec<J> = (0..t.len())
                    .map(|i| {
                        let pool = t.pool_id(i).map(|(a, b)| serde_json::json!([a, b]));
                        serde_json::json!([t.addr(i).to_string(), t.size[i], t.time_us[i], t.action_name(i), pool])
                    })
                    .collect();
                let differ = got.iter().zip(want).position(|(a, b)| a != b);
                assert!(
                    got.len() == want.len() && differ.is_none(),
                    "file {}, device {d}, chunks of {chunk}: {} events against Python's {}, first different at {differ:?}: {:?} against {:?}",
                    k / 2,
                    got.len(),
                    want.len(),
                    differ.map(|i| &got[i]),
                    differ.map(|i| &want[i]),
                );
            }
        }
    }
}

/// A device's trace that lists the events of another again (new list,
/// the same event objects: the pickler writes them as memo references, in
/// a row) is not taken as that run: each is the same object as an earlier
/// entry, left out and reported, as memory_viz never sees them twice.
#[test]
fn a_trace_listing_another_traces_events_again_leaves_them_out() {
    const PY: &str = r#"
import json, pickle, sys
evs = [dict(action='alloc', addr=0x7f0000000000 + 512 * i, size=512, stream=0, time_us=i, frames=[])
       for i in range(5000)]
top = {'segments': [], 'device_traces': [evs, list(evs), evs[:10] + [dict(evs[0])]]}
b = pickle.dumps(top, protocol=4)
seen, kept, first_shared = set(), [], None
for d, t in enumerate(top['device_traces']):
    n = 0
    for i, e in enumerate(t):
        if id(e) in seen:
            first_shared = first_shared or f'device_traces[{d}][{i}]'
            continue
        seen.add(id(e))
        n += 1
    kept.append(n)
sys.stdout.buffer.write(len(b).to_bytes(8, 'little') + b + json.dumps([kept, first_shared]).encode())
"#;
    let (pickles, facts) = python_pickles(PY, 1);
    let bytes = &pickles[0];
    assert_eq!(facts[0], serde_json::json!([5000, 0, 1]));
    assert_eq!(facts[1], "device_traces[1][0]");
    let snap = memviz_core::load(bytes).unwrap();
    let kept: Vec<usize> = (0..3).map(|d| snap.trace(d).len()).collect();
    assert_eq!(serde_json::json!(kept), facts[0]);
    assert_eq!(snap.trace(2).time_us[0], 0, "device 2's own event is the copy of event 0");
    let shared: Vec<&str> = snap.warnings.list.iter().map(|w| w.location.as_str()).collect();
    assert_eq!(shared.first().copied(), facts[1].as_str(), "{shared:?}");
}

/// PyTorch 2.5 on writes `compile_context` ("N/A" outside torch.compile)
/// and `user_metadata` into every trace event: the events that carry
/// nothing else share one extra per context (not ~110 bytes an event), and
/// each still reads its own context.
#[test]
fn events_with_only_a_compile_context_share_their_extra() {
    const PY: &str = r#"
import json, pickle, sys
d = pickle.load(open(sys.argv[1], 'rb'))
evs = [e for t in d['device_traces'] for e in t]
def alone(e):
    return not e.get('user_metadata') and not e.get('internal_metadata') and not e.get('forward_frames') \
        and 'device_free' not in e and e.get('compile_context') is not None
alone_contexts = {e['compile_context'] for e in evs if alone(e)}
others = sum(1 for e in evs if not alone(e) and (e.get('compile_context') is not None or e.get('user_metadata')))
print(json.dumps({'extras': len(alone_contexts) + others, 'contexts': [e.get('compile_context') for e in d['device_traces'][0]]}))
"#;
    let path = shared().join("snapshots/compile_context_metadata.pickle");
    let out = Command::new("python3").args(["-c", PY, path.to_str().unwrap()]).output().expect("python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let want: J = serde_json::from_slice(&out.stdout).unwrap();
    let snap = load(&path);
    let contexts = want["contexts"].as_array().unwrap();
    assert!(contexts.len() > 5000, "{}", contexts.len());
    assert_eq!(snap.extras.len() as u64, want["extras"].as_u64().unwrap());
    let t = snap.trace(0);
    assert_eq!(t.len(), contexts.len());
    // The pickler writes "N/A" out again for each event: one text kept,
    // not one per event.
    assert!(snap.strings.len() < contexts.len() / 2, "{} strings for {} events", snap.strings.len(), contexts.len());
    for (i, c) in contexts.iter().enumerate() {
        let got = snap.extra(0, i).and_then(|x| x.compile_context).map(|s| snap.str(s));
        assert_eq!(got, c.as_str(), "event {i}");
    }
}

/// A block's frames list is read as its stack when it is written out
/// (segments and blocks of a state snapshot): lists of every length around
/// the pickler's batch of 1000 (one APPENDS, several), frames written out
/// inside a list or referenced, a list shared by two blocks, an empty one,
/// and one with an item that is not a frame. Each block's frames must be
/// Python's, in order, whatever the chunks, and the bad item named.
#[test]
fn block_frames_lists_of_any_length_keep_every_frame() {
    const PY: &str = r#"
import json, pickle, sys
fr = [dict(filename=f'/src/m{i % 7}.py', line=i, name=f'f{i}') for i in range(40)]
def frames(n, k):
    return [fr[(k * 3 + j) % len(fr)] for j in range(n)]
shared = frames(14, 5)
lens = [0, 1, 14, 14, 999, 1000, 1001, 2000, 2500, 3]
lists = [frames(n, k) for k, n in enumerate(lens)] + [shared, shared, frames(5, 2) + [7] + frames(4, 1)]
blocks = [dict(address=0x7f0000000000 + 4096 * i, size=4096, requested_size=4000, state='active_allocated',
               frames=f) for i, f in enumerate(lists)]
seg = dict(device=0, address=0x7f0000000000, total_size=4096 * len(blocks), allocated_size=4096 * len(blocks),
           active_size=4096 * len(blocks), requested_size=4000 * len(blocks), stream=0, segment_type='large',
           segment_pool_id=(0, 0), is_expandable=False, frames=frames(3, 9), blocks=blocks)
for proto in (2, 4, 5):
    b = pickle.dumps({'segments': [seg], 'device_traces': [[]]}, protocol=proto)
    sys.stdout.buffer.write(len(b).to_bytes(8, 'little') + b)
text = lambda f: [[x['filename'], x['line'], x['name']] for x in f if isinstance(x, dict)]
sys.stdout.buffer.write(json.dumps({'blocks': [text(f) for f in lists], 'segment': text(seg['frames'])}).encode())
"#;
    let (pickles, facts) = python_pickles(PY, 3);
    let want = facts["blocks"].as_array().unwrap();
    assert_eq!(want[8].as_array().unwrap().len(), 2500, "Python's side: a list of 2500 frames");
    for bytes in &pickles {
        for chunk in [bytes.len(), 4096, 61] {
            let snap = load_in_chunks(bytes, chunk);
            assert_eq!(snap.blocks.len(), want.len(), "chunks of {chunk}");
            for (i, (b, w)) in snap.blocks.iter().zip(want).enumerate() {
                assert_eq!(&frames_text(&snap, b.stack), w, "block {i}, chunks of {chunk}");
            }
            assert_eq!(frames_text(&snap, snap.segments[0].stack), facts["segment"], "chunks of {chunk}");
            assert_eq!(snap.blocks[10].stack, snap.blocks[11].stack, "a shared list is one stack");
            let bad: Vec<&str> = snap.warnings.list.iter().map(|w| w.location.as_str()).collect();
            assert_eq!(bad, ["segments[0]['blocks'][12]"], "chunks of {chunk}");
        }
    }
}

/// Every block's frames in every real snapshot and recording, against
/// Python's: how many, and the CRC-32 of their text (`filename NUL line NUL
/// name NUL` each), by device and address. The decoder reads most of these
/// lists as stacks straight from their bytes.
#[test]
fn real_blocks_keep_their_frames() {
    const PY: &str = r#"
import json, pickle, sys, zlib
out, n = [], 0
for path in sys.argv[1:]:
    d = pickle.load(open(path, 'rb'))
    segs = d['segments'] if isinstance(d, dict) else d
    blocks = {}
    for s in segs:
        for b in s['blocks']:
            if 'frames' in b:
                fs = b['frames'] or []
                text = ''.join(f"{f['filename']}\0{f['line']}\0{f['name']}\0" for f in fs)
                blocks[f"{s['device']}:{b['address']}"] = [len(fs), zlib.crc32(text.encode('utf-8', 'surrogatepass'))]
                n += len(fs)
    out.append(blocks)
print(json.dumps({'files': out, 'frames': n}))
"#;
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in bytes {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 };
            }
        }
        !c
    }
    let paths = real_pickles(&[("snapshots", 8), ("recordings", 10)]);
    let mut cmd = Command::new("python3");
    cmd.args(["-c", PY]).args(&paths);
    let out = cmd.output().expect("python3 reads the blocks");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let facts: J = serde_json::from_slice(&out.stdout).unwrap();
    assert!(facts["frames"].as_u64().unwrap() > 100_000, "Python's side: {} block frames", facts["frames"]);
    for (path, want) in paths.iter().zip(facts["files"].as_array().unwrap()) {
        let snap = load(path);
        let want = want.as_object().unwrap();
        let mut seen = 0;
        for seg in &snap.segments {
            for b in &snap.blocks[seg.blocks.start as usize..seg.blocks.end as usize] {
                let Some(w) = want.get(&format!("{}:{}", seg.device, b.address)) else { continue };
                let mut text = Vec::new();
                for &f in snap.stack(b.stack) {
                    let f = snap.frame(f);
                    text.extend_from_slice(
                        format!("{}\0{}\0{}\0", snap.str(f.filename), f.line, snap.str(f.name)).as_bytes(),
                    );
                }
                let got = serde_json::json!([snap.stack(b.stack).len(), crc32(&text)]);
                assert_eq!(&got, w, "{}: the block at {:#x} on device {}", path.display(), b.address, seg.device);
                seen += 1;
            }
        }
        assert_eq!(seen, want.len(), "{}: blocks with frames in the model against Python's", path.display());
    }
}
