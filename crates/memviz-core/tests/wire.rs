//! The model's binary form (`Snapshot::to_wire` / `from_wire`, what the
//! page's worker hands its viewer): every real snapshot and generated ones
//! with every optional part (annotations, pool ids, host memory, warnings,
//! expandable segments, OOMs, two devices) come back equal to the model the
//! decoder built, field by field; cut or damaged bytes are an error with a
//! byte offset, never a panic.

use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::model::EventExtra;
use memviz_core::versions::{self, Versions};
use memviz_core::{ErrorKind, Snapshot, VersionsReader, WireReader};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file in ../shared/snapshots (missing data fails the test).
fn real_files() -> Vec<PathBuf> {
    let dir = root().join("../shared/snapshots");
    assert!(dir.is_dir(), "../shared/snapshots is missing beside the repository: {}", dir.display());
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pickle" || e == "pkl" || e == "json"))
        .collect();
    v.sort();
    assert_eq!(v.len(), 11, "expected the 11 real snapshots in {}, found {v:?}", dir.display());
    v
}

fn load(path: &Path) -> Snapshot {
    memviz_core::load(&std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs a generator script (python3 is required: no silent skip) with `args`,
/// the output path last.
fn generate(script: &str, args: &[&str], name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memviz-wire-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    let mut cmd = Command::new("python3");
    cmd.arg(root().join(script)).args(args).arg(&out);
    let res = cmd.output().unwrap_or_else(|e| panic!("python3 is needed by this test: {e}"));
    assert!(res.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&res.stderr));
    out
}

fn round_trip(path: &Path) -> (Snapshot, Vec<u8>) {
    let snap = load(path);
    let wire = snap.to_wire();
    let back = Snapshot::from_wire(&wire).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(back == snap, "{}: the model read back differs", path.display());
    // The same model always gives the same bytes (hash maps written sorted).
    assert_eq!(back.to_wire(), wire, "{}", path.display());
    // In chunks (the worker's form): the same bytes, read back one chunk at
    // a time to the same model.
    let chunks = chunks_of(&snap);
    assert_eq!(chunks.concat(), wire, "{}", path.display());
    let back = fed(&chunks).unwrap_or_else(|e| panic!("{}: fed chunks: {e}", path.display()));
    assert!(back == snap, "{}: the model read back from fed chunks differs", path.display());
    let back = from_chunks(chunks.clone()).unwrap_or_else(|e| panic!("{}: chunks: {e}", path.display()));
    assert!(back == snap, "{}: the model read back from chunks differs", path.display());
    // Event columns in pieces (the page's are 4 MiB, most columns here are
    // smaller): the same model, fed, pulled or joined.
    let pieced = pieced_chunks_of(&snap, 1000);
    let events = snap.traces.iter().map(|t| t.len()).max().unwrap_or(0);
    assert!(pieced.len() >= chunks.len() + 3 * (events * 8 / 1000), "{}: {} pieces", path.display(), pieced.len());
    let back = fed(&pieced).unwrap_or_else(|e| panic!("{}: fed pieces: {e}", path.display()));
    assert!(back == snap, "{}: the model read back from fed pieces differs", path.display());
    let back = Snapshot::from_wire(&pieced.concat()).unwrap_or_else(|e| panic!("{}: pieces: {e}", path.display()));
    assert!(back == snap, "{}: the model read back from joined pieces differs", path.display());
    // The address versions, which travel apart, whole or in pieces fed one
    // at a time.
    let v = versions::compute(&snap);
    let vb = Versions::from_wire(&v.to_wire(), &back).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!((&vb.event, &vb.segment, &vb.block), (&v.event, &v.segment, &v.block), "{}", path.display());
    let mut pieces = Vec::new();
    v.wire_chunks_of(1000, |c| pieces.push(c));
    assert!(pieces.len() > events * 4 / 1000, "{}: {} pieces of versions", path.display(), pieces.len());
    let vb = versions_fed(&pieces, &back).unwrap_or_else(|e| panic!("{}: versions fed: {e}", path.display()));
    assert_eq!((&vb.event, &vb.segment, &vb.block), (&v.event, &v.segment, &v.block), "{}", path.display());
    (snap, wire)
}

fn chunks_of(snap: &Snapshot) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    snap.wire_chunks(|c| chunks.push(c));
    chunks
}

fn pieced_chunks_of(snap: &Snapshot, piece_bytes: usize) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    snap.wire_chunks_of(piece_bytes, |c| chunks.push(c));
    chunks
}

/// Reads `chunks` pulled one at a time, as the page does.
fn from_chunks(chunks: Vec<Vec<u8>>) -> memviz_core::Result<Snapshot> {
    let mut it = chunks.into_iter();
    Snapshot::from_wire_chunks(&mut || it.next())
}

/// Reads `chunks` given one at a time (`WireReader`), as the page does.
fn fed(chunks: &[Vec<u8>]) -> memviz_core::Result<Snapshot> {
    let mut r = WireReader::new();
    for c in chunks {
        r.feed(c)?;
    }
    r.finish()
}

/// Reads the versions' `chunks` given one at a time, as the page does.
fn versions_fed(chunks: &[Vec<u8>], snap: &Snapshot) -> memviz_core::Result<Versions> {
    let mut r = VersionsReader::new();
    for c in chunks {
        r.feed(c, snap)?;
    }
    r.finish()
}

#[test]
fn every_real_snapshot_comes_back_equal() {
    let mut events = 0;
    for path in real_files() {
        let (snap, _) = round_trip(&path);
        events += snap.traces.iter().map(|t| t.len()).sum::<usize>();
    }
    // Not an empty comparison: the real files hold ~40k trace events.
    assert!(events > 20_000, "{events}");
}

#[test]
fn generated_snapshots_with_every_optional_part_come_back_equal() {
    let big = generate(
        "../shared/tools/gen_snapshot.py",
        &["--events", "30000", "--devices", "2", "--oom", "--expandable"],
        "gen.pickle",
    );
    let (snap, _) = round_trip(&big);
    assert_eq!(snap.traces.len(), 2);
    assert!(snap.traces.iter().all(|t| t.len() > 10_000));
    // Column by column: no chunk holds more than the largest event column
    // (8 bytes an event, plus its length), and each trace is 7 chunks.
    let chunks = chunks_of(&snap);
    let most = snap.traces.iter().map(|t| t.len()).max().unwrap();
    assert!(chunks.iter().all(|c| c.len() <= 8 * most + 64), "{:?}", chunks.iter().map(Vec::len).collect::<Vec<_>>());
    assert!(chunks.len() >= 5 + 7 * snap.traces.len(), "{} chunks", chunks.len());

    // PyTorch 2.15's fields: annotations, pool_id, internal_metadata, host memory.
    let new = generate("tests/reference/gen_fields.py", &["new-fields"], "new.pickle");
    let (snap, _) = round_trip(&new);
    assert!(!snap.annotations.is_empty() && snap.host_device.is_some());
    assert!(snap.traces.iter().any(|t| !t.pool.is_empty()));

    // Broken entries: the warnings travel too.
    let src = root().join("../shared/snapshots/small_train_step.pickle");
    let bad = generate("tests/reference/gen_fields.py", &["bad-entries", src.to_str().unwrap()], "bad.pickle");
    let (snap, _) = round_trip(&bad);
    assert!(!snap.warnings.list.is_empty());
}

/// Byte positions to try: every one near both ends (headers, the small parts
/// after the columns) and ~3000 spread over the rest (each try reads the
/// whole buffer).
fn positions(len: usize) -> impl Iterator<Item = usize> {
    let step = (len / 3000).max(1);
    (0..len).filter(move |&i| i < 4096 || i + 4096 >= len || i % step == 0)
}

#[test]
fn cut_or_damaged_bytes_are_an_error_with_an_offset() {
    let (_, wire) = round_trip(&root().join("../shared/snapshots/small_train_step.pickle"));
    // Every cut: an error at or before the cut, never a model.
    for n in positions(wire.len()) {
        match Snapshot::from_wire(&wire[..n]) {
            Ok(_) => panic!("cut at {n} of {} read as a snapshot", wire.len()),
            Err(e) => assert!(e.offset.is_some_and(|o| o <= n as u64), "cut at {n}: {e}"),
        }
    }
    let mut bad = wire.clone();
    bad[0] = b'X';
    let e = Snapshot::from_wire(&bad).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::NotASnapshot, Some(0)));
    let mut bad = wire.clone();
    bad[8] = 99;
    let e = Snapshot::from_wire(&bad).unwrap_err();
    assert_eq!(e.offset, Some(12), "{e}");
    assert!(e.to_string().contains("version 99"), "{e}");
    let mut bad = wire.clone();
    bad.push(0);
    let e = Snapshot::from_wire(&bad).unwrap_err();
    assert_eq!(e.offset, Some(wire.len() as u64), "{e}");
    // An action byte past the known actions: the error names it and its
    // offset (found by the first trace's actions as they are written: the
    // index of each in `Action::ALL`).
    let snap0 = Snapshot::from_wire(&wire).unwrap();
    let actions: Vec<u8> = snap0.traces[0].action[..32]
        .iter()
        .map(|a| memviz_core::model::Action::ALL.iter().position(|x| x == a).unwrap() as u8)
        .collect();
    let col = wire.windows(actions.len()).position(|w| w == &actions[..]).expect("the action column");
    for k in [0, 5, 31] {
        let mut bad = wire.clone();
        bad[col + k] = 0xee;
        let e = Snapshot::from_wire(&bad).unwrap_err();
        assert_eq!((&e.kind, e.offset), (&ErrorKind::Malformed, Some((col + k) as u64)), "{e}");
        assert!(e.to_string().contains("action 238"), "{e}");
    }
    // One byte damaged: an error or some model, never a panic (an id past
    // its table is caught here, not in a view).
    let mut errors = 0;
    for i in positions(wire.len()) {
        for x in [0xff, 0x80, 0x01] {
            let mut bad = wire.clone();
            bad[i] ^= x;
            if let Err(e) = Snapshot::from_wire(&bad) {
                assert!(e.offset.is_some_and(|o| o <= wire.len() as u64), "byte {i}: {e}");
                errors += 1;
            }
        }
    }
    assert!(errors > 100, "{errors}");

    // In chunks: a chunk missing, or cut, is an error at an offset inside
    // the chunks given, joined; chunks may be pulled from none.
    let snap = Snapshot::from_wire(&wire).unwrap();
    // Columns in pieces, and extras in pieces (5163 of them in
    // compile_context_metadata once each event has its own, 16 bytes or
    // more each: 2 KiB pieces of extras hold at most 128): a piece missing
    // or cut is an error too.
    for (name, at_least) in
        [("transformer_fullstep_ctx128.pickle", 60), ("compile_context_metadata.pickle", 14 + 5163 / 128)]
    {
        let mut snap = load(&root().join("../shared/snapshots").join(name));
        // Its events share one extra (each has only a compile_context);
        // an extra per event, as events with metadata of their own have.
        if let Some(shared) = snap.extras.first().cloned() {
            let n = snap.traces[0].len();
            snap.extras = (0..n as u64).map(|i| EventExtra { device_free: Some(i), ..shared.clone() }).collect();
            snap.traces[0].extra = (0..n as u32).collect();
        }
        let pieced = pieced_chunks_of(&snap, 8192);
        let joined = pieced.iter().map(Vec::len).sum::<usize>() as u64;
        assert!(pieced.len() > at_least, "{name}: {}", pieced.len());
        for i in 0..pieced.len() {
            let mut less = pieced.clone();
            less.remove(i);
            let e = fed(&less).unwrap_err();
            assert!(e.offset.is_some_and(|o| o <= joined), "{name}: piece {i} missing, fed: {e}");
            let mut cut = pieced.clone();
            let half = cut[i].len() / 2;
            cut[i].truncate(half);
            assert!(fed(&cut).is_err(), "{name}: piece {i} cut");
        }
    }
    let chunks = chunks_of(&snap);
    assert!(chunks.len() > 5, "{}", chunks.len());
    for i in 0..chunks.len() {
        let mut less = chunks.clone();
        less.remove(i);
        let e = fed(&less).unwrap_err();
        assert!(e.offset.is_some_and(|o| o <= wire.len() as u64), "chunk {i} missing, fed: {e}");
        let e = from_chunks(less).unwrap_err();
        assert!(e.offset.is_some_and(|o| o <= wire.len() as u64), "chunk {i} missing: {e}");
        let mut cut = chunks.clone();
        let n = cut[i].len() / 2;
        cut[i].truncate(n);
        let given = cut.iter().map(Vec::len).sum::<usize>() as u64;
        // Fed, the part cut is an error at the chunk's end at the latest.
        let at = (chunks[..i].iter().map(Vec::len).sum::<usize>() + n) as u64;
        let e = fed(&cut).unwrap_err();
        assert!(e.offset.is_some_and(|o| o <= at), "chunk {i} cut at {n}, fed: {e}");
        let e = from_chunks(cut).unwrap_err();
        assert!(e.offset.is_some_and(|o| o <= given), "chunk {i} cut at {n}: {e}");
    }
    let e = from_chunks(Vec::new()).unwrap_err();
    assert!(e.kind == ErrorKind::Truncated && e.offset == Some(0), "{e}");
    let e = fed(&[]).unwrap_err();
    assert!(e.kind == ErrorKind::Truncated && e.offset == Some(0), "{e}");
    let mut more = chunks.clone();
    more.push(vec![0; 3]);
    assert_eq!(fed(&more).unwrap_err().offset, Some(wire.len() as u64));
    assert_eq!(from_chunks(more).unwrap_err().offset, Some(wire.len() as u64));
    // The chunks joined into one, fed at once: the same model.
    assert!(fed(std::slice::from_ref(&wire)).unwrap() == snap);

    // Versions that do not fit the snapshot (another file's), cut or too long.
    let snap = Snapshot::from_wire(&wire).unwrap();
    let v = versions::compute(&snap).to_wire();
    let other = load(&root().join("../shared/snapshots/transformer_forward_bf16.pickle"));
    let e = Versions::from_wire(&versions::compute(&other).to_wire(), &snap).unwrap_err();
    assert!(e.to_string().contains("a column of"), "{e}");
    for n in positions(v.len()) {
        assert!(Versions::from_wire(&v[..n], &snap).is_err(), "versions cut at {n}");
    }
    let mut long = v.clone();
    long.push(0);
    assert_eq!(Versions::from_wire(&long, &snap).unwrap_err().offset, Some(v.len() as u64));
    // In pieces: one missing or cut is an error, as is no piece at all.
    let ctx = load(&root().join("../shared/snapshots/transformer_fullstep_ctx128.pickle"));
    let mut pieces = Vec::new();
    versions::compute(&ctx).wire_chunks_of(8192, |c| pieces.push(c));
    assert!(pieces.len() > 9, "{}", pieces.len());
    for i in 0..pieces.len() {
        let mut less = pieces.clone();
        less.remove(i);
        assert!(versions_fed(&less, &ctx).is_err(), "versions piece {i} missing");
        let mut cut = pieces.clone();
        let half = cut[i].len() / 2;
        cut[i].truncate(half);
        assert!(versions_fed(&cut, &ctx).is_err(), "versions piece {i} cut");
    }
    let e = versions_fed(&[], &ctx).unwrap_err();
    assert!(e.kind == ErrorKind::Truncated && e.offset == Some(0), "{e}");
}

/// The integer event columns go packed per piece: each item as its offset
/// from the high bits the piece's items share, in the fewest of 1, 2, 4 or
/// 8 bytes that hold the bits in which they differ. Extremes come back
/// exact, each piece takes the width it needs (the length against the same
/// model with one value throughout, every piece 1 byte an item), and a bad
/// width or an item out of its column's range is an error at its offset.
#[test]
fn event_columns_are_packed_and_come_back_exact() {
    let base = load(&root().join("../shared/snapshots/small_train_step.pickle"));
    assert!(base.traces[0].len() >= 64, "{}", base.traces[0].len());
    // Pieces of 64 bytes: 8 items of a u64 or i64 column, 16 of a u32 one.
    let wire_len = |s: &Snapshot| pieced_chunks_of(s, 64).concat().len();
    let mut flat = base.clone();
    let t = &mut flat.traces[0];
    let n = t.len();
    t.size = vec![7; n];
    t.time_us = vec![-5; n];
    t.addr_lo = vec![0x7f00_0000_0000; n];
    t.stream = vec![0; n];
    let mut wide = flat.clone();
    let t = &mut wide.traces[0];
    // Size pieces 0..4: items differing in 8, 9, 32 and 64 bits, which
    // need 1, 2, 4 and 8 bytes.
    t.size[..8].copy_from_slice(&[7, 8, 255, 0, 7, 7, 7, 7]);
    t.size[8..16].copy_from_slice(&[7, 7 + 256, 7, 7, 7, 7, 7, 7]);
    t.size[16..24].copy_from_slice(&[
        1 << 20,
        (1 << 20) + (1 << 31),
        1 << 20,
        1 << 20,
        1 << 20,
        1 << 20,
        1 << 20,
        1 << 20,
    ]);
    t.size[24..32].copy_from_slice(&[0, u64::MAX, 5, 5, 5, 5, 5, 5]);
    // Time pieces 0 and 1: negative and i64 extremes (8 bytes each).
    t.time_us[..8].copy_from_slice(&[i64::MIN, i64::MAX, -1, 0, 1, -5, -5, -5]);
    t.time_us[8..16].copy_from_slice(&[-(1 << 40), 1 << 40, -5, -5, -5, -5, -5, -5]);
    // Address piece 0 spans more than 4 GiB; stream piece 0 holds u32::MAX (16 items).
    t.addr_lo[3] = u64::MAX;
    t.stream[15] = u32::MAX;
    let size_extra = 8 * (1 + 3 + 7);
    let time_extra = 8 * 7 * 2;
    let addr_extra = 8 * 7;
    let stream_extra = 16 * 3;
    assert_eq!(wire_len(&wide) - wire_len(&flat), size_extra + time_extra + addr_extra + stream_extra);
    for s in [&flat, &wide] {
        let back = fed(&pieced_chunks_of(s, 64)).unwrap();
        assert!(back == *s, "read back with extremes");
        assert!(Snapshot::from_wire(&s.to_wire()).unwrap() == *s);
    }
    // One value throughout: one byte an item (and 17 a piece's head), not 8.
    let one = flat.to_wire().len();
    let mut apart = flat.clone();
    apart.traces[0].size = (0..n as u64).map(|i| i << 40).collect();
    assert_eq!(apart.to_wire().len() - one, 7 * n, "{n} sizes 8 bytes apart, against 1");

    // The versions' column of trace 0 (the simplest form): a u32 version,
    // the traces' count, the column's length, then its first piece's
    // count (8), width (1) and base (8).
    let v = versions::compute(&base);
    let bytes = v.to_wire();
    let width_at = 4 + 8 + 8 + 8;
    assert_eq!(bytes[width_at], 1, "versions of small_train_step fit a byte each");
    let mut bad = bytes.clone();
    bad[width_at] = 3;
    let e = Versions::from_wire(&bad, &base).unwrap_err();
    assert_eq!((&e.kind, e.offset), (&ErrorKind::Malformed, Some(width_at as u64)), "{e}");
    assert!(e.to_string().contains("versions packed in 3 bytes"), "{e}");
    // A base that puts an item past u32::MAX: the error names the first
    // such item (one with a nonzero offset) at its offset.
    let mut bad = bytes.clone();
    bad[width_at + 1..width_at + 9].copy_from_slice(&(u32::MAX as u64).to_le_bytes());
    let items = width_at + 9;
    let first = (0..v.event[0].len()).find(|&i| bad[items + i] != 0).unwrap();
    let e = Versions::from_wire(&bad, &base).unwrap_err();
    assert_eq!(e.offset, Some((items + first) as u64), "{e}");
    assert!(e.to_string().contains("out of range"), "{e}");
}
