//! Hostile and broken input: one test per case of issue 5. Every bad input
//! is made by code here (a small pickle writer, Python's pickle module, or
//! cuts of the real files in ../shared/snapshots); each test asserts the
//! exact error kind, message and byte offset, and that nothing panics or
//! grows out of proportion to the input (counted: lists, references, memo
//! entries). Time is not asserted here: the Criterion benchmarks (benches/)
//! and the fuzzers (fuzz/) hold the speed limits.

use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::model::Plain;
use memviz_core::{Error, ErrorKind, Loader, Snapshot};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn snapshot_path(name: &str) -> PathBuf {
    let p = root().join("../shared/snapshots").join(name);
    assert!(p.is_file(), "{} is missing (../shared must sit beside the repository)", p.display());
    p
}

fn real(name: &str) -> Vec<u8> {
    std::fs::read(snapshot_path(name)).unwrap()
}

fn load(bytes: &[u8]) -> Result<Snapshot, Error> {
    memviz_core::load(bytes)
}

fn err(bytes: &[u8]) -> Error {
    match load(bytes) {
        Ok(_) => panic!("expected an error for {:02x?}...", &bytes[..bytes.len().min(16)]),
        Err(e) => e,
    }
}

/// Asserts kind, offset and the whole message.
#[track_caller]
fn assert_err(e: &Error, kind: ErrorKind, offset: Option<u64>, message: &str) {
    assert_eq!((&e.kind, e.offset, e.message.as_str()), (&kind, offset, message), "{e}");
}

/// Runs Python (the reference pickler) and returns what it wrote to stdout.
fn python(code: &str) -> Vec<u8> {
    let out = Command::new("python3").arg("-c").arg(code).output().expect("python3 is needed by these tests");
    assert!(out.status.success(), "python failed: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// A pickle written opcode by opcode.
#[derive(Default)]
struct P(Vec<u8>);

impl P {
    fn proto(v: u8) -> P {
        P(vec![0x80, v])
    }
    fn op(mut self, op: u8) -> P {
        self.0.push(op);
        self
    }
    fn raw(mut self, b: &[u8]) -> P {
        self.0.extend_from_slice(b);
        self
    }
    /// SHORT_BINUNICODE
    fn str(mut self, s: &str) -> P {
        self.0.push(0x8c);
        self.0.push(s.len() as u8);
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    /// BININT1 / BININT
    fn int(mut self, v: u32) -> P {
        if v < 256 {
            self.0.extend_from_slice(&[b'K', v as u8]);
        } else {
            self.0.push(b'J');
            self.0.extend_from_slice(&(v as i32).to_le_bytes());
        }
        self
    }
    /// LONG1 of a non-negative value (two's complement, minimal length).
    fn long(mut self, v: u128) -> P {
        let mut b = v.to_le_bytes().to_vec();
        while b.len() > 1 && b[b.len() - 1] == 0 && b[b.len() - 2] & 0x80 == 0 {
            b.pop();
        }
        if b[b.len() - 1] & 0x80 != 0 {
            b.push(0);
        }
        self.0.extend_from_slice(&[0x8a, b.len() as u8]);
        self.0.extend_from_slice(&b);
        self
    }
    fn memoize(self) -> P {
        self.op(0x94)
    }
    /// BINGET / LONG_BINGET
    fn get(mut self, idx: u32) -> P {
        if idx < 256 {
            self.0.extend_from_slice(&[b'h', idx as u8]);
        } else {
            self.0.push(b'j');
            self.0.extend_from_slice(&idx.to_le_bytes());
        }
        self
    }
    fn stop(self) -> Vec<u8> {
        self.op(b'.').0
    }
}

// ---------------------------------------------------------------------------
// Truncation, random bytes, files that are not snapshots

#[test]
fn truncation_at_every_byte_of_a_real_file() {
    let bytes = real("small_train_step.pickle");
    assert_err(&err(&[]), ErrorKind::NotASnapshot, Some(0), "the file is empty");
    let mut inside = 0;
    for n in 1..bytes.len() {
        let e = err(&bytes[..n]);
        assert_eq!(e.kind, ErrorKind::Truncated, "cut at {n}: {e}");
        assert_eq!(e.offset, Some(n as u64), "cut at {n}: {e}");
        assert!(e.message.starts_with("truncated file: the "), "cut at {n}: {e}");
        inside += (e.message.ends_with(") is cut off") || e.message.ends_with("bytes of data; the file ends")) as usize;
    }
    // Most cuts land inside an opcode's operands; the rest between opcodes.
    assert!(inside > bytes.len() / 2, "{inside} of {} cuts inside an opcode", bytes.len());
    // Exact messages at known places: the PROTO operand, and the frame
    // header (FRAME 0x95 at offset 2 with an 8-byte length).
    assert_err(
        &err(&bytes[..1]),
        ErrorKind::Truncated,
        Some(1),
        "truncated file: the opcode PROTO (0x80) from byte 0 is cut off",
    );
    // What the user reads: the offset said once, where the file ends.
    assert_eq!(
        err(&bytes[..1]).to_string(),
        "truncated file: the opcode PROTO (0x80) from byte 0 is cut off at byte offset 1"
    );
    assert_eq!(bytes[2], 0x95);
    assert_err(
        &err(&bytes[..5]),
        ErrorKind::Truncated,
        Some(5),
        "truncated file: the opcode FRAME (0x95) from byte 2 is cut off",
    );
    // Cut right before the final STOP: every opcode is whole, STOP is missing.
    assert_eq!(bytes[bytes.len() - 1], b'.');
    assert_err(
        &err(&bytes[..bytes.len() - 1]),
        ErrorKind::Truncated,
        Some(bytes.len() as u64 - 1),
        "truncated file: the pickle ends before its STOP opcode",
    );
    // The whole file still opens.
    assert!(load(&bytes).is_ok());
}

#[test]
fn truncated_gzip_and_corrupt_gzip() {
    use std::io::Write;
    let bytes = real("small_train_step.pickle");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bytes).unwrap();
    let gz = gz.finish().unwrap();
    assert!(load(&gz).is_ok());
    for n in [2, 10, 100, gz.len() / 2, gz.len() - 8, gz.len() - 1] {
        let e = err(&gz[..n]);
        assert!(matches!(e.kind, ErrorKind::Truncated | ErrorKind::Gzip), "gzip cut at {n}: {e}");
        assert_eq!(e.offset, Some(n as u64), "gzip cut at {n}: {e}");
    }
    // Corrupt the CRC in the trailer: the data inflates, the check fails.
    let mut bad = gz.clone();
    let crc = bad.len() - 8;
    bad[crc] ^= 0xff;
    let e = err(&bad);
    assert_eq!(e.kind, ErrorKind::Gzip, "{e}");
    assert_eq!(e.message, "corrupt gzip data: corrupt gzip stream does not have a matching checksum");
    assert_eq!(e.offset, Some(bad.len() as u64));
}

/// xorshift64*: deterministic random bytes without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545f4914f6cdd1d)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let mut kinds = std::collections::BTreeMap::new();
    for i in 0..3000 {
        let n = (rng.next() % 2048) as usize;
        let mut b = rng.bytes(n);
        // A third start like a pickle, a third like gzip, to get past the sniffing.
        match i % 3 {
            0 if n >= 2 => b[..2].copy_from_slice(&[0x80, 4]),
            1 if n >= 2 => b[..2].copy_from_slice(&[0x1f, 0x8b]),
            _ => {}
        }
        if let Err(e) = load(&b) {
            assert!(
                e.offset.is_none_or(|o| o <= n as u64 || e.message.contains("in the decompressed gzip data")),
                "{e}"
            );
            *kinds.entry(format!("{:?}", e.kind)).or_insert(0) += 1;
        }
        // The same bytes in small chunks.
        let mut l = Loader::new();
        let r = b.chunks(7).try_for_each(|c| l.feed(c)).and_then(|_| l.finish());
        assert_eq!(r.is_ok(), load(&b).is_ok());
    }
    assert!(kinds.len() >= 4, "random input reached only {kinds:?}");
}

/// A PNG file: signature and an IHDR chunk, as any PNG starts.
fn png() -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.extend_from_slice(&13u32.to_be_bytes());
    b.extend_from_slice(b"IHDR");
    b.extend_from_slice(&[0, 0, 0, 16, 0, 0, 0, 16, 8, 6, 0, 0, 0]);
    b.extend_from_slice(&[0x1f, 0xf3, 0xff, 0x61]);
    b
}

#[test]
fn a_png_a_zip_and_json_that_is_not_a_snapshot() {
    assert_err(
        &err(&png()),
        ErrorKind::NotASnapshot,
        Some(0),
        "not a memory snapshot (expected a pickle, JSON or gzip file): a PNG image",
    );
    // A zip, as torch.save writes: made by Python's zipfile.
    let zip = python(
        "import io, sys, zipfile\n\
         b = io.BytesIO()\n\
         with zipfile.ZipFile(b, 'w') as z: z.writestr('archive/data.pkl', b'\\x80\\x02}q\\x00.')\n\
         sys.stdout.buffer.write(b.getvalue())",
    );
    assert_err(
        &err(&zip),
        ErrorKind::NotASnapshot,
        Some(0),
        "not a memory snapshot (expected a pickle, JSON or gzip file): a zip archive (torch.save writes those; \
         a memory snapshot is the pickle that torch.cuda.memory._dump_snapshot writes)",
    );
    // Text dropped by mistake: its first line named, not a pickle error at
    // its first letter (a script's "i" is INST, a note's "h" BINGET).
    for (text, line) in [
        (&b"hello world, this is not a pickle\nsecond line"[..], "hello world, this is not a pickle"),
        (b"import torch\ntorch.cuda.memory._dump_snapshot('x.pickle')\n", "import torch"),
        (b"step,bytes\r\n1,2\r\n", "step,bytes"),
        (
            b"<!doctype html><html><head><title>memory_viz</title></head><body></body></html>",
            "<!doctype html><html><head><title>memory",
        ),
    ] {
        assert_err(
            &err(text),
            ErrorKind::NotASnapshot,
            Some(0),
            &format!("not a memory snapshot (expected a pickle, JSON or gzip file): it starts with the text {line:?}"),
        );
    }
    // Bytes that are no text and begin with no opcode: the first four shown.
    assert_err(
        &err(b"\x01\x02\x03\x04\x05"),
        ErrorKind::NotASnapshot,
        Some(0),
        "not a memory snapshot (expected a pickle, JSON or gzip file): it starts with bytes 01 02 03 04",
    );
    // A pickle of protocols 0 and 1 (no PROTO opcode) still decodes.
    for protocol in [0, 1] {
        let snap = python(&format!(
            "import pickle, sys; sys.stdout.buffer.write(pickle.dumps({{'segments': [], 'device_traces': []}}, {protocol}))"
        ));
        assert!(load(&snap).is_ok(), "protocol {protocol}");
    }
    assert_err(
        &err(br#"{"name": "memviz", "version": "0.1.0"}"#),
        ErrorKind::NotSnapshotShaped,
        None,
        "not a memory snapshot: a dict without 'segments' or 'device_traces'",
    );
    assert_err(
        &err(b"[1, 2, 3]"),
        ErrorKind::NotSnapshotShaped,
        None,
        "not a memory snapshot: the file holds a list of int values (expected the dict that \
         torch.cuda.memory._dump_snapshot writes or a list of segment dicts)",
    );
    assert_err(
        &err(b"{\"segments\": [}"),
        ErrorKind::Json,
        Some(14),
        "invalid JSON: expected value at line 1 column 15",
    );
    assert_err(
        &err(b"  \n\t "),
        ErrorKind::NotASnapshot,
        Some(5),
        "not a memory snapshot: the file holds only whitespace",
    );
    // A pickle of something else (a string) is a pickle, but no snapshot.
    assert_err(
        &err(&python("import pickle, sys; sys.stdout.buffer.write(pickle.dumps('hello', 4))")),
        ErrorKind::NotSnapshotShaped,
        None,
        "not a memory snapshot: the file holds a str (expected the dict that \
         torch.cuda.memory._dump_snapshot writes or a list of segments)",
    );
}

// ---------------------------------------------------------------------------
// Opcodes that would run code, broken memo, amplification

#[test]
fn object_building_opcodes_are_refused_never_run() {
    let marker = std::env::temp_dir().join(format!("memviz-hostile-ran-{}", std::process::id()));
    let cmd = format!("touch {}", marker.display());
    let refused = |op: &str, byte: u8| {
        format!(
            "refused pickle opcode {op} (0x{byte:02x}): it would build an arbitrary Python object, \
             which a memory snapshot never contains; nothing was executed"
        )
    };
    // The classic: GLOBAL os.system, REDUCE (protocol 0 text, as Python writes it).
    let mut global = b"cos\nsystem\n(V".to_vec();
    global.extend_from_slice(cmd.as_bytes());
    global.extend_from_slice(b"\ntR.");
    assert_err(&err(&global), ErrorKind::RefusedOpcode, Some(0), &refused("GLOBAL", b'c'));
    // REDUCE and BUILD with harmless operands, so that they are reached.
    let reduce = P::proto(2).op(b']').op(b')').op(b'R').stop();
    assert_err(&err(&reduce), ErrorKind::RefusedOpcode, Some(4), &refused("REDUCE", b'R'));
    let build = P::proto(2).op(b']').op(b'}').op(b'b').stop();
    assert_err(&err(&build), ErrorKind::RefusedOpcode, Some(4), &refused("BUILD", b'b'));
    let mut inst = b"(V".to_vec();
    inst.extend_from_slice(cmd.as_bytes());
    inst.extend_from_slice(b"\nios\nsystem\n.");
    assert_err(&err(&inst), ErrorKind::RefusedOpcode, Some(cmd.len() as u64 + 3), &refused("INST", b'i'));
    // What Python writes for objects of other programs: STACK_GLOBAL + REDUCE.
    let other = python(
        "import pickle, sys, fractions\n\
         sys.stdout.buffer.write(pickle.dumps({'segments': [fractions.Fraction(1, 3)]}, 4))",
    );
    let e = err(&other);
    assert_eq!(e.kind, ErrorKind::RefusedOpcode, "{e}");
    assert_eq!(e.message, refused("STACK_GLOBAL", 0x93));
    assert_eq!(other[e.offset.unwrap() as usize], 0x93);
    assert!(!marker.exists(), "a refused pickle ran a command");
}

#[test]
fn memo_references_to_nothing() {
    let e = err(&P::proto(2).get(5).stop());
    assert_err(&e, ErrorKind::Malformed, Some(2), "memo reference 5 refers to nothing");
    let e = err(&P::proto(4).op(b']').memoize().get(70_000).stop());
    assert_err(&e, ErrorKind::Malformed, Some(4), "memo reference 70000 refers to nothing");
    // A PUT far ahead does not allocate the memo up to it (the arena's side:
    // decode/pickle.rs's unit tests); the list read back is a bare segment
    // list, empty.
    let far = P::proto(4).op(b']').raw(b"r\xff\xff\xff\xff").get(u32::MAX).stop();
    assert_eq!(load(&far).unwrap().segments.len(), 0);
}

/// Appends `levels` + 1 lists, each holding the previous one twice through
/// BINGET (memo 0..=levels): 2^levels leaves when copied, `levels` + 1
/// lists when shared.
fn laughs(p: P, levels: u32) -> P {
    let mut p = p.op(b']').memoize();
    for k in 1..=levels {
        p = p.op(b'(').get(k - 1).get(k - 1).op(b'l').memoize();
    }
    p
}

#[test]
fn billion_laughs_stays_linear() {
    let levels = 40;
    // As allocator_settings (converted for display with a budget), and as
    // the one device trace; one sound segment keeps the file usable.
    let p = P::proto(4).op(b'}').op(b'(').str("allocator_settings");
    let segment =
        |p: P| p.op(b'(').op(b'}').op(b'(').str("address").int(4096).str("total_size").int(4096).op(b'u').op(b'l');
    let with_mark =
        segment(laughs(p, levels).str("segments")).str("device_traces").op(b'(').get(levels).op(b'l').op(b'u').stop();
    assert!(with_mark.len() < 400, "{} bytes", with_mark.len());
    // Shared, not copied, in the decoder's arena: decode/pickle.rs's unit
    // tests count its lists. Here: the model stays small.
    let snap = load(&with_mark).unwrap();
    fn count(p: &Plain) -> usize {
        match p {
            Plain::List(v) => 1 + v.iter().map(count).sum::<usize>(),
            Plain::Map(v) => 1 + v.iter().map(|(a, b)| count(a) + count(b)).sum::<usize>(),
            _ => 1,
        }
    }
    let settings = snap.allocator_settings.as_ref().unwrap();
    let n = count(settings);
    assert!(n <= 100_001 * 2 + 64, "allocator_settings expanded to {n} nodes");
    assert!(snap.heap_bytes() < 64 << 20, "model of {} bytes", snap.heap_bytes());
    // The trace is a list of lists, not events: left out, and said so.
    assert_eq!(snap.traces.len(), 1);
    assert_eq!(snap.traces[0].len(), 0);
    assert_eq!(snap.segments.len(), 1);
    let warnings: Vec<String> = snap.warnings.list.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings, ["device_traces[0][0]: a list, not a dict; 2 entries like it skipped"]);
}

/// Containers that hold themselves (a list appended to itself through the
/// memo), as settings, as a frames list and as the segment list: walks stop.
#[test]
fn self_referencing_containers() {
    // L = []; L.append(L); M = []; M.append(M); {'allocator_settings': L,
    // 'segments': L, 'device_traces': [[{'action': 'alloc', 'addr': 1,
    // 'size': 1, 'frames': M}]]}
    let bytes = P::proto(4)
        .op(b'}')
        .op(b'(')
        .str("allocator_settings")
        .op(b']')
        .memoize()
        .get(0)
        .op(b'a')
        .str("segments")
        .get(0)
        .str("device_traces")
        .op(b']')
        .op(b'(')
        .op(b']')
        .op(b'(')
        .op(b'}')
        .op(b'(')
        .str("action")
        .str("alloc")
        .str("addr")
        .int(1)
        .str("size")
        .int(1)
        .str("frames")
        .op(b']')
        .memoize()
        .get(1)
        .op(b'a')
        .op(b'u')
        .op(b'e')
        .op(b'e')
        .op(b'u')
        .stop();
    let snap = load(&bytes).unwrap();
    // Shown 65 levels deep, then elided.
    fn depth(p: &Plain) -> usize {
        match p {
            Plain::List(v) => 1 + v.first().map(depth).unwrap_or(0),
            _ => 0,
        }
    }
    assert_eq!(depth(snap.allocator_settings.as_ref().unwrap()), 65);
    assert_eq!(snap.traces[0].len(), 1);
    assert_eq!(snap.stack(snap.traces[0].stack[0]), &[] as &[u32], "a list of lists is no stack");
    assert!(snap.segments.is_empty());
    let warnings: Vec<String> = snap.warnings.list.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "segments[0]: a list, not a dict; skipped",
            "device_traces[0][0]: 'frames' holds values that are not frames (read as the frames among them)",
        ]
    );
}

/// One segment dict referenced through the memo over and over, and one long
/// text referenced by every event: the model keeps one segment and stops
/// copying the text once it is far larger than the file.
#[test]
fn shared_segments_and_texts_are_not_multiplied() {
    let refs = 50_000u32;
    let mut p = P::proto(4).op(b'}').op(b'(').str("segments").op(b']').op(b'(');
    // memo 0: the segment, with 1000 blocks
    p = p
        .op(b'}')
        .memoize()
        .op(b'(')
        .str("address")
        .int(4096)
        .str("total_size")
        .int(1 << 20)
        .str("blocks")
        .op(b']')
        .op(b'(');
    for i in 0..1000u32 {
        p = p
            .op(b'}')
            .op(b'(')
            .str("size")
            .int(1024)
            .str("address")
            .int(4096 + i * 1024)
            .str("state")
            .str("active_allocated")
            .op(b'u');
    }
    p = p.op(b'e').op(b'u');
    for _ in 1..refs {
        p = p.get(0);
    }
    p = p.op(b'e');
    // every event's user_metadata is the same 60 kB text
    let text = "x".repeat(60_000);
    p = p.str("device_traces").op(b']').op(b'(').op(b']').op(b'(');
    p.0.push(b'X');
    p.0.extend_from_slice(&(text.len() as u32).to_le_bytes());
    p.0.extend_from_slice(text.as_bytes());
    p = p.memoize().op(b'0');
    let text_memo = 1;
    for i in 0..20_000u32 {
        p = p
            .op(b'}')
            .op(b'(')
            .str("action")
            .str("alloc")
            .str("addr")
            .int(4096 + i)
            .str("size")
            .int(8)
            .str("user_metadata")
            .get(text_memo)
            .op(b'u');
    }
    p = p.op(b'e').op(b'e').op(b'u');
    let bytes = p.stop();
    let snap = load(&bytes).unwrap();
    assert_eq!(snap.segments.len(), 1);
    assert_eq!(snap.blocks.len(), 1000);
    assert_eq!(snap.traces[0].len(), 20_000);
    assert_eq!(
        snap.warnings.list[0].to_string(),
        format!(
            "segments[1]: the same object as an earlier entry (a snapshot has each in one place); \
             {} entries like it skipped",
            refs - 1
        )
    );
    // 20,000 x 60 kB would be 1.2 GB of copies; the budget is 16 MiB plus
    // 4 bytes per input byte.
    let copied: usize = snap
        .extras
        .iter()
        .filter_map(|x| match &x.user_metadata {
            Some(memviz_core::model::UserMetadata::Text(t)) if t != "…" => Some(t.len()),
            _ => None,
        })
        .sum();
    assert!(copied <= (16 << 20) + 4 * bytes.len(), "{copied} bytes of metadata copied");
    assert!(copied >= 16 << 20, "the first copies are kept: {copied}");
    assert!(snap.warnings.list[1]
        .to_string()
        .ends_with("were shortened to \"…\": together they are far larger than the file"));
}

/// Protocol 0 adds a dict's items one SETITEM at a time: 200,000 of them
/// into one dict must not rescan the dict each time.
#[test]
fn a_dict_built_item_by_item_is_linear() {
    let py = python(
        "import pickle, sys\n\
         s = {'segments': [], 'allocator_settings': {str(i): i for i in range(200000)}}\n\
         sys.stdout.buffer.write(pickle.dumps(s, 0))",
    );
    let snap = load(&py).unwrap();
    match snap.allocator_settings.as_ref().unwrap() {
        Plain::Map(m) => {
            // The display budget (100,000 values: the map, then 2 a pair)
            // ends it with one elided pair.
            assert_eq!(m.len(), 50_001);
            assert_eq!(m[0], (Plain::Str("0".into()), Plain::Int(0)));
            assert_eq!(m[49_998], (Plain::Str("49998".into()), Plain::Int(49_998)));
            assert_eq!(m[50_000], (Plain::Elided, Plain::Elided));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_length_field_claiming_gigabytes() {
    // BINUNICODE8 claiming 2^60 bytes: refused at once, nothing allocated.
    let bytes = P::proto(4).op(0x8d).raw(&(1u64 << 60).to_le_bytes()).raw(b"abc").stop();
    assert_err(
        &err(&bytes),
        ErrorKind::TooLarge,
        Some(2),
        "the opcode BINUNICODE8 claims 1152921504606846976 bytes of data (this reader's limit is 4294967295)",
    );
    // BINBYTES claiming 4 GiB - 1 in a 20-byte file: truncated, and said so.
    let bytes = P::proto(4).op(b'B').raw(&u32::MAX.to_le_bytes()).raw(b"abcdefghijklm").0;
    assert_eq!(bytes.len(), 20);
    assert_err(
        &err(&bytes),
        ErrorKind::Truncated,
        Some(20),
        "truncated file: the opcode BINBYTES (0x42) from byte 2 claims 4294967295 bytes of data; \
         the file ends",
    );
    // Fed in 4 kB chunks, 16 MB of such a payload is collected once, not
    // re-parsed on every chunk (which would copy gigabytes).
    let mut big = P::proto(4).op(b'X').raw(&u32::MAX.to_le_bytes()).0;
    big.resize(16 << 20, b'a');
    let mut l = Loader::new();
    for c in big.chunks(4096) {
        l.feed(c).unwrap();
    }
    let e = l.finish().unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, Some(16 << 20)));
}

/// Protocol 0 text opcodes end at a newline: a line that never ends, fed in
/// small chunks, is searched once (found by the decode fuzzer: a long line
/// inside gzip data was searched again for every chunk), and one longer than
/// 1 MiB is refused.
#[test]
fn a_text_line_without_end() {
    let mut line = vec![b'I'];
    line.resize(900_000, b'7');
    let mut l = Loader::new();
    for c in line.chunks(64) {
        l.feed(c).unwrap();
    }
    assert_err(
        &l.finish().unwrap_err(),
        ErrorKind::Truncated,
        Some(900_000),
        "truncated file: the opcode INT (0x49) from byte 0 is cut off",
    );
    line.resize(2 << 20, b'7');
    let mut l = Loader::new();
    let e = line.chunks(4096).try_for_each(|c| l.feed(c)).unwrap_err();
    assert_err(&e, ErrorKind::TooLarge, Some(0), "a text line of more than 1048576 bytes (opcode INT)");
}

#[test]
fn nesting_100000_deep() {
    let depth = 100_000;
    let wrap = |value: Vec<u8>| {
        // {'segments': [], 'allocator_settings': VALUE}
        let mut b = P::proto(4).op(b'}').op(b'(').str("segments").op(b']').str("allocator_settings").0;
        b.extend_from_slice(&value);
        b.extend_from_slice(b"u.");
        b
    };
    fn depth_of(p: &Plain) -> usize {
        match p {
            Plain::List(v) => 1 + v.first().map(depth_of).unwrap_or(0),
            _ => 0,
        }
    }
    // EMPTY_LIST x N, then APPEND x N-1: each list inside the one before.
    let mut v = vec![b']'; depth];
    v.extend(std::iter::repeat_n(b'a', depth - 1));
    // MARK x N, then LIST x N.
    let mut m = vec![b'('; depth];
    m.extend(std::iter::repeat_n(b'l', depth));
    for (what, value) in [("EMPTY_LIST/APPEND", v), ("MARK/LIST", m)] {
        let snap = load(&wrap(value)).unwrap_or_else(|e| panic!("{what}: {e}"));
        // Shown down to 65 levels (depth 0 to 64), the rest elided.
        assert_eq!(depth_of(snap.allocator_settings.as_ref().unwrap()), 65, "{what}");
    }
    // JSON nested as deep: serde_json's recursion limit, a clean error.
    let json = "[".repeat(depth);
    assert_err(
        &err(json.as_bytes()),
        ErrorKind::Json,
        Some(127),
        "invalid JSON: recursion limit exceeded at line 1 column 128",
    );
}

#[test]
fn integers_of_100_bytes_are_refused() {
    let mut long1 = P::proto(2).op(0x8a).op(100).0;
    long1.extend(std::iter::repeat_n(0x11, 100));
    long1.push(b'.');
    assert_err(
        &err(&long1),
        ErrorKind::TooLarge,
        Some(2),
        "integer of 100 bytes refused (no address or size needs more than 16)",
    );
    // What Python writes for 2**800 (LONG1 of 101 bytes).
    let py = python("import pickle, sys; sys.stdout.buffer.write(pickle.dumps({'segments': [2**800]}, 2))");
    let e = err(&py);
    assert_eq!(
        (e.kind, e.message.as_str()),
        (ErrorKind::TooLarge, "integer of 101 bytes refused (no address or size needs more than 16)")
    );
    assert_eq!(py[e.offset.unwrap() as usize], 0x8a);
    // LONG4 and the protocol 0 text form.
    let long4 = P::proto(2).op(0x8b).raw(&100i32.to_le_bytes()).0;
    assert_eq!(err(&long4).kind, ErrorKind::TooLarge);
    let text = format!("I{}\n.", "9".repeat(100));
    assert_err(
        &err(text.as_bytes()),
        ErrorKind::TooLarge,
        Some(0),
        "integer literal of 100 digits refused (no address or size needs more than 39)",
    );
}

// ---------------------------------------------------------------------------
// Unusual but valid input

/// The facts a test compares between encodings of one snapshot.
fn facts(s: &Snapshot) -> (usize, usize, Vec<usize>, u64, u128, u64) {
    (
        s.segments.len(),
        s.blocks.len(),
        s.traces.iter().map(|t| t.len()).collect(),
        s.traces.iter().flat_map(|t| t.size.iter()).sum(),
        (0..s.traces[0].len()).map(|i| s.traces[0].addr(i)).sum(),
        s.blocks.iter().map(|b| b.size).sum(),
    )
}

#[test]
fn every_protocol_from_0_to_5_and_gzip() {
    let path = snapshot_path("small_train_step.pickle");
    let want = facts(&load(&real("small_train_step.pickle")).unwrap());
    assert_eq!(want.2, vec![97]);
    for proto in 0..=5 {
        let code = format!(
            "import pickle, sys; sys.stdout.buffer.write(pickle.dumps(pickle.load(open({:?}, 'rb')), {proto}))",
            path.to_str().unwrap()
        );
        let bytes = python(&code);
        let snap = load(&bytes).unwrap_or_else(|e| panic!("protocol {proto}: {e}"));
        // Protocols 0 and 1 add a dict's items one SETITEM at a time.
        assert_eq!(facts(&snap), want, "protocol {proto}");
        assert_eq!(snap.protocol, if proto < 2 { 0 } else { proto }, "protocol {proto}");
        assert!(!snap.json);
    }
    let gz = python(&format!(
        "import gzip, sys; sys.stdout.buffer.write(gzip.compress(open({:?}, 'rb').read()))",
        path.to_str().unwrap()
    ));
    assert_eq!(facts(&load(&gz).unwrap()), want);
    // Two gzip members back to back (as `cat a.gz b.gz` makes) inflate as one stream.
    let half = python(&format!(
        "import gzip, sys; b = open({:?}, 'rb').read(); \
         sys.stdout.buffer.write(gzip.compress(b[:1000]) + gzip.compress(b[1000:]))",
        path.to_str().unwrap()
    ));
    assert_eq!(facts(&load(&half).unwrap()), want);
}

#[test]
fn addresses_above_2_63_and_2_64_are_exact() {
    let a63 = (1u128 << 63) + 0x2000_0000;
    let a64 = (1u128 << 64) + 0x1234_5000;
    let bytes = P::proto(4)
        .op(b'}')
        .op(b'(')
        .str("segments")
        .op(b']')
        .op(b'(')
        .op(b'}')
        .op(b'(')
        .str("device")
        .int(0)
        .str("address")
        .long(a63)
        .str("total_size")
        .int(2 << 20)
        .str("blocks")
        .op(b']')
        .op(b'(')
        .op(b'}')
        .op(b'(')
        .str("address")
        .long(a63)
        .str("size")
        .int(2 << 20)
        .str("state")
        .str("active_allocated")
        .op(b'u')
        .op(b'e')
        .op(b'u')
        .op(b'e')
        .str("device_traces")
        .op(b']')
        .op(b'(')
        .op(b']')
        .op(b'(')
        .op(b'}')
        .op(b'(')
        .str("action")
        .str("alloc")
        .str("addr")
        .long(a64)
        .str("size")
        .int(512)
        .op(b'u')
        .op(b'}')
        .op(b'(')
        .str("action")
        .str("alloc")
        .str("addr")
        .long(a63)
        .str("size")
        .int(512)
        .op(b'u')
        .op(b'e')
        .op(b'e')
        .op(b'u')
        .stop();
    let snap = load(&bytes).unwrap();
    assert_eq!(snap.segments[0].address, a63);
    assert_eq!(snap.blocks[0].address, a63);
    assert_eq!(snap.traces[0].addr(0), a64);
    assert_eq!(snap.traces[0].addr(1), a63);
    // The same values as Python pickles them.
    let py = python(&format!(
        "import pickle, sys; sys.stdout.buffer.write(pickle.dumps({{'segments': [], 'device_traces': [[\
         {{'action': 'alloc', 'addr': {a64}, 'size': 1}}, {{'action': 'free_requested', 'addr': {a63}, 'size': 1}}]]}}, 2))"
    ));
    let snap = load(&py).unwrap();
    assert_eq!((snap.traces[0].addr(0), snap.traces[0].addr(1)), (a64, a63));
}

#[test]
fn strings_that_are_not_utf8_show_a_replacement_character() {
    // Python pickles names it could not decode as lone surrogates
    // (surrogatepass: ED B3 A9 for U+DCE9): one U+FFFD each.
    let py = python(
        "import pickle, sys\n\
         frame = {'filename': '/data/caf\\udce9.py', 'line': 7, 'name': 'f\\udcff\\udcfeg'}\n\
         s = {'segments': [], 'device_traces': [[{'action': 'alloc', 'addr': 4096, 'size': 8, 'frames': [frame]}]]}\n\
         sys.stdout.buffer.write(pickle.dumps(s, 4))",
    );
    assert!(py.windows(3).any(|w| w == [0xed, 0xb3, 0xa9]), "Python wrote the surrogate as ED B3 A9");
    let snap = load(&py).unwrap();
    let f = snap.frame(snap.stack(snap.traces[0].stack[0])[0]);
    assert_eq!(snap.str(f.filename), "/data/caf\u{FFFD}.py");
    assert_eq!(snap.str(f.name), "f\u{FFFD}\u{FFFD}g");
    assert_eq!(f.line, 7);
    // The same in protocol 0 (raw-unicode-escape text: \\udce9, Latin-1
    // bytes, escaped backslashes) and in JSON (json.dumps writes \\udce9).
    for form in ["pickle.dumps(s, 0)", "json.dumps(s).encode()"] {
        let py = python(&format!(
            "import json, pickle, sys\n\
             frame = {{'filename': 'C:\\\\t\\\\caf\\udce9-\\u00e9-\\u4e2d-\\U0001F600.py', 'line': 7, 'name': 'f'}}\n\
             s = {{'segments': [], 'device_traces': [[{{'action': 'alloc', 'addr': 4096, 'size': 8, 'frames': [frame]}}]]}}\n\
             sys.stdout.buffer.write({form})"
        ));
        let snap = load(&py).unwrap_or_else(|e| panic!("{form}: {e}"));
        let f = snap.frame(snap.stack(snap.traces[0].stack[0])[0]);
        assert_eq!(snap.str(f.filename), "C:\\t\\caf\u{FFFD}-\u{e9}-\u{4e2d}-\u{1F600}.py", "{form}");
    }
}

// ---------------------------------------------------------------------------
// Limits

#[test]
fn size_limits_are_explicit() {
    use std::io::Write;
    // A small gzip file that inflates to 8 MiB against a 1 MiB limit: the
    // loader stops at the limit instead of inflating it all.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&[0x80, 4]).unwrap();
    gz.write_all(&vec![b'N'; 8 << 20]).unwrap();
    let gz = gz.finish().unwrap();
    assert!(gz.len() < 64 << 10);
    let mut l = Loader::with_max_bytes(1 << 20);
    let e = l.feed(&gz).unwrap_err();
    assert_err(
        &e,
        ErrorKind::TooLarge,
        Some(1 << 20),
        "the gzip data inflates to more than 1048576 bytes (the limit of this reader)",
    );
    // Uncompressed too, and for JSON, which is held whole until parsed.
    let mut l = Loader::with_max_bytes(1000);
    l.feed(b"{\"segments\": [").unwrap();
    let e = l.feed(&vec![b' '; 1000]).unwrap_err();
    assert_err(&e, ErrorKind::TooLarge, Some(1000), "the snapshot has more than 1000 bytes (the limit of this reader)");
    assert_eq!(memviz_core::MAX_SNAPSHOT_BYTES, u32::MAX as u64);
}

// ---------------------------------------------------------------------------
// Fuzzer finds

/// Every input the fuzzers (fuzz/, scripts/fuzz.sh) crashed on, kept in
/// tests/regressions/: each must load or fail cleanly, whole and in chunks,
/// with the same outcome.
#[test]
fn fuzzer_regressions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let whole = load(&bytes);
        for size in [1, 3, 61] {
            let mut l = Loader::new();
            let r = bytes.chunks(size).try_for_each(|c| l.feed(c)).and_then(|_| l.finish());
            assert_eq!(r.is_ok(), whole.is_ok(), "{}: chunks of {size}", path.display());
        }
        if let Ok(s) = &whole {
            let _ = s.devices();
        }
        // What the decode target did with it: the first byte picks the
        // chunk size for the rest.
        if let Some((&c, rest)) = bytes.split_first() {
            let mut l = Loader::new();
            let r = rest.chunks(1 + c as usize % 61).try_for_each(|c| l.feed(c)).and_then(|_| l.finish());
            assert_eq!(r.is_ok(), load(rest).is_ok(), "{}: as the fuzz target fed it", path.display());
        }
        n += 1;
    }
    assert!(n >= 1, "no regression inputs in {}", dir.display());
}
