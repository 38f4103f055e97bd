//! The decoder's hot loop (`PickleDecoder::run_hot`) against its opcode by
//! opcode path (`step`). The hot loop runs only while 16 bytes or more are
//! left in a chunk, so input fed one byte at a time never takes it: the two
//! feedings of the same bytes must give the same model, and the same error
//! with the same message and offset.

mod common;

use common::real_pickles;

use memviz_core::{Error, Loader, Snapshot};

fn load_in_chunks(bytes: &[u8], chunk: usize) -> Result<Snapshot, Error> {
    let mut l = Loader::new();
    for c in bytes.chunks(chunk) {
        l.feed(c)?;
    }
    l.finish()
}

/// Whole (hot loop) against one byte at a time (`step` only).
#[track_caller]
fn same_both_ways(bytes: &[u8]) -> Result<Snapshot, Error> {
    let whole = load_in_chunks(bytes, bytes.len().max(1));
    let slow = load_in_chunks(bytes, 1);
    match (&whole, &slow) {
        (Ok(a), Ok(b)) => assert!(a == b, "the hot loop and step give different models"),
        (Err(a), Err(b)) => assert_eq!(
            (&a.kind, a.offset, a.message.as_str()),
            (&b.kind, b.offset, b.message.as_str()),
            "the hot loop and step give different errors"
        ),
        _ => panic!("whole: {whole:?}\nbyte by byte: {slow:?}"),
    }
    whole
}

#[test]
fn real_snapshots_give_the_same_model_through_the_hot_loop_and_step() {
    for path in real_pickles(&[("snapshots", 8), ("recordings", 10)]) {
        let bytes = std::fs::read(&path).unwrap();
        let whole = same_both_ways(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Chunk ends in the middle of hot runs, and tails shorter than the
        // hot loop's margin at every chunk end.
        for chunk in [17usize, 1000, 1 << 20] {
            let snap = load_in_chunks(&bytes, chunk).unwrap();
            assert!(snap == whole, "{}: chunks of {chunk} give another model", path.display());
        }
    }
}

/// A protocol 4 snapshot, `{"segments": [], "device_traces": [[events]]}`,
/// of `n` trace events made only of hot opcodes (strings, ints of every
/// width, memo references, None, booleans, empty containers, a frames list
/// of frame dicts), with `bad` spliced in before event `at`; and where `bad`
/// is. The header (PROTO, FRAME) is 11 bytes.
fn hot_pickle(n: usize, at: usize, bad: &[u8]) -> (Vec<u8>, usize) {
    let s = |p: &mut Vec<u8>, t: &str| {
        p.extend_from_slice(&[0x8c, t.len() as u8]);
        p.extend_from_slice(t.as_bytes());
    };
    let mut p = vec![0x80, 4, 0x95];
    p.extend_from_slice(&0u64.to_le_bytes());
    p.extend_from_slice(&[b'}', 0x94, b'(']);
    s(&mut p, "segments");
    p.extend_from_slice(&[b']', 0x94]);
    s(&mut p, "device_traces");
    // memo 0: the top dict, 1: [], 2: "device_traces", 3: the device
    // list, 4: device 0's events, 5: event 0
    p.extend_from_slice(&[0x94, b']', 0x94, b']', 0x94, b'(']);
    let mut bad_at = 0;
    for i in 0..n {
        if i == at {
            bad_at = p.len();
            p.extend_from_slice(bad);
        }
        p.extend_from_slice(&[b'}', 0x94, b'(']);
        if i == 0 {
            // memo 6: "action", 7: "alloc", 8: "size", 9: 300 (BININT2)
            s(&mut p, "action");
            p.push(0x94);
            s(&mut p, "alloc");
            p.push(0x94);
            s(&mut p, "size");
            p.extend_from_slice(&[0x94, b'M', 44, 1, 0x94]);
        } else {
            p.extend_from_slice(&[b'h', 6, b'h', 7, b'h', 8, b'j', 9, 0, 0, 0]);
        }
        s(&mut p, "addr");
        p.extend_from_slice(&[0x8a, 8]);
        p.extend_from_slice(&(0x7fff_0000_0000_0000u64 + 512 * i as u64).to_le_bytes());
        s(&mut p, "stream");
        p.extend_from_slice(&[b'K', i as u8 % 3]);
        s(&mut p, "time_us");
        p.push(b'J');
        p.extend_from_slice(&(i as i32 * 70_000).to_le_bytes());
        s(&mut p, "frames");
        p.extend_from_slice(&[b']', 0x94, b'(']);
        for f in 0..3 {
            p.extend_from_slice(&[b'}', 0x94, b'(']);
            s(&mut p, "filename");
            s(&mut p, &format!("f{}.py", (i + f) % 5));
            s(&mut p, "line");
            p.extend_from_slice(&[0x8a, 3, f as u8, 0xff, 0x7f]);
            s(&mut p, "name");
            s(&mut p, "");
            p.push(b'u');
        }
        p.push(b'e');
        // Keys no event has: counted, their values not kept.
        for (k, v) in [("l0", &[0x8a, 0][..]), ("n", b"N"), ("t", b"\x88"), ("f", b"\x89"), ("e", b")")] {
            s(&mut p, k);
            p.extend_from_slice(v);
        }
        p.extend_from_slice(&[0x8c, 1, b'd', b'}', 0x8c, 1, b'l', b']', b'q', 200]);
        p.push(b'u');
    }
    // APPENDS the events, APPEND their list to the devices, SETITEMS the top dict, STOP.
    p.extend_from_slice(b"eau.");
    (p, bad_at)
}

#[test]
fn hot_opcodes_give_the_same_model_as_step() {
    let (bytes, _) = hot_pickle(300, usize::MAX, &[]);
    let whole = same_both_ways(&bytes).unwrap();
    assert_eq!(whole.trace(0).len(), 300);
    assert!(whole.stacks.len() > 1, "the frames lists became stacks");
    for chunk in [16usize, 17, 31, 100] {
        let snap = load_in_chunks(&bytes, chunk).unwrap();
        assert!(snap == whole, "chunks of {chunk}");
    }
}

/// A bad opcode in the middle of a hot run: the same error, message and
/// offset as when `step` alone reads it.
#[test]
fn a_bad_opcode_inside_a_hot_run_keeps_its_error_and_offset() {
    let bads: &[(&[u8], &str)] = &[
        (b"h\xf0", "memo reference 240 refers to nothing"),
        (b"j\x70\x11\x01\x00", "memo reference 70000 refers to nothing"),
        (b"\x8a\x11", "integer of 17 bytes refused"),
        (b"\xff", "unknown pickle opcode 0xff"),
        (b"c", "refused pickle opcode GLOBAL"),
    ];
    for &(bad, message) in bads {
        let (bytes, offset) = hot_pickle(50, 20, bad);
        let e = same_both_ways(&bytes).unwrap_err();
        assert!(e.message.contains(message), "{bad:02x?}: {e}");
        assert_eq!(e.offset, Some(offset as u64), "{bad:02x?}: {e}");
    }
    // Memo stores with nothing on the stack, right after PROTO and FRAME
    // (11 bytes), with a long hot run after them.
    for bad in [&b"\x94"[..], b"q\x05"] {
        let (body, _) = hot_pickle(50, usize::MAX, &[]);
        let bytes = [&body[..11], bad, &body[11..]].concat();
        let e = same_both_ways(&bytes).unwrap_err();
        assert!(e.message.contains("memo store with an empty stack"), "{bad:02x?}: {e}");
        assert_eq!(e.offset, Some(11), "{bad:02x?}: {e}");
    }
}

/// A LONG1 of 9 to 16 bytes leaves the hot loop and is still read.
#[test]
fn long1_above_8_bytes_inside_a_hot_run() {
    let mut big = vec![0x8a, 9];
    big.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 1]);
    big.push(b'0'); // POP it again
    same_both_ways(&hot_pickle(40, 10, &big).0).unwrap();
}

/// Writes a pickle as Python's pickler does, numbering the memo.
struct Pickle {
    b: Vec<u8>,
    memo: u32,
}

impl Pickle {
    fn new() -> Pickle {
        let mut b = vec![0x80, 4, 0x95];
        b.extend_from_slice(&0u64.to_le_bytes());
        Pickle { b, memo: 0 }
    }
    fn op(&mut self, bytes: &[u8]) -> &mut Self {
        self.b.extend_from_slice(bytes);
        self
    }
    /// MEMOIZE: the memo index the top of the stack gets.
    fn memoize(&mut self) -> u32 {
        self.b.push(0x94);
        self.memo += 1;
        self.memo - 1
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.b.extend_from_slice(&[0x8c, s.len() as u8]);
        self.b.extend_from_slice(s.as_bytes());
        self
    }
    /// A string memoized and popped again: its memo index.
    fn define(&mut self, s: &str) -> u32 {
        self.str(s);
        let m = self.memoize();
        self.b.push(b'0');
        m
    }
    /// Three frame dicts (filename f0.py, f1.py, f2.py; line 10, 11, 12;
    /// name ""), memoized and popped: their memo indices.
    fn frame_dicts(&mut self) -> Vec<u32> {
        let (filename, line, name, empty) =
            (self.define("filename"), self.define("line"), self.define("name"), self.define(""));
        let mut fr = Vec::new();
        for f in 0..3u8 {
            self.op(b"}");
            fr.push(self.memoize());
            self.op(b"(").get(filename).str(&format!("f{f}.py")).get(line).op(&[b'K', 10 + f]).get(name).get(empty);
            self.op(b"u0");
        }
        fr
    }
    /// `{"segments": [], "device_traces": [[` with MARK: device 0's events
    /// follow (`eau.` ends them).
    fn open_trace(&mut self) {
        self.op(b"}");
        self.memoize();
        self.op(b"(").str("segments").op(b"]");
        self.memoize();
        self.str("device_traces").op(b"]");
        self.memoize();
        self.op(b"]");
        self.memoize();
        self.op(b"(");
    }
    /// BINGET or LONG_BINGET.
    fn get(&mut self, m: u32) -> &mut Self {
        if m < 256 {
            self.op(&[b'h', m as u8])
        } else {
            self.b.push(b'j');
            self.op(&m.to_le_bytes())
        }
    }
}

/// Trace events as PyTorch's pickler writes them (keys and repeated values
/// as memo references, the frames list written out or one written out
/// before), in the
/// shapes the decoder reads as one unit (`PickleDecoder::event_at`) and
/// in shapes it must leave to the opcodes one by one: a list of one frame
/// (APPEND), more keys, the keys in another order, an action written out.
fn event_pickle(n: usize) -> Vec<u8> {
    let mut p = Pickle::new();
    let k: Vec<u32> = ["action", "addr", "size", "stream", "time_us", "frames", "compile_context", "user_metadata"]
        .iter()
        .map(|s| p.define(s))
        .collect();
    let [action, addr, size, stream, time_us, frames, context, metadata] = k[..] else { unreachable!() };
    let (alloc, free, empty) = (p.define("alloc"), p.define("free_completed"), p.define(""));
    let extra: Vec<u32> = (0..17).map(|j| p.define(&format!("x{j}"))).collect();
    let fr = p.frame_dicts();
    // A shared frames list.
    p.op(b"]");
    let shared = p.memoize();
    p.op(b"(").get(fr[0]).get(fr[1]).op(b"e0");
    p.open_trace();
    // The frames list the last event of shape 2 wrote out: shape 0 shares
    // it (a memo index counted after the strings and lists memoized since).
    let mut last_list = shared;
    for i in 0..n {
        p.op(b"}");
        p.memoize();
        p.op(b"(").get(action);
        if i == 7 {
            p.str("alloc"); // written out: the opcodes one by one
            p.memoize();
        } else {
            p.get(if i % 2 == 0 { alloc } else { free });
        }
        let a = (0x7f00_0000_0000u64 + 512 * (i as u64 / 2)).to_le_bytes();
        let sz = (512u16 + i as u16).to_le_bytes();
        if i % 12 == 11 {
            // The plain keys in another order, a frames list written out.
            p.get(size).op(b"M").op(&sz).get(addr).op(&[0x8a, 8]).op(&a);
        } else {
            p.get(addr).op(&[0x8a, 8]).op(&a).get(size).op(b"M").op(&sz);
        }
        p.get(stream).op(&[b'K', (i % 3) as u8]);
        match i % 6 {
            0 => {
                p.get(time_us).op(b"J").op(&(i as i32 * 1000).to_le_bytes());
                p.get(frames).get(last_list);
            }
            1 => {
                p.get(time_us).op(b"N").get(frames).op(b"]");
                p.memoize();
            }
            2 => {
                p.get(time_us).op(&[0x8a, 3, 1, 2, 3]).get(frames).op(b"]");
                last_list = p.memoize();
                p.op(b"(").get(fr[0]).get(fr[1]).get(fr[2]).op(b"e");
            }
            3 => {
                p.get(time_us).op(&[b'K', 9]).get(frames).op(b"]");
                p.memoize();
                p.get(fr[1]).op(b"a");
            }
            4 => {
                p.get(time_us).op(b"J").op(&(i as i32).to_le_bytes());
                p.get(context).str("N/A");
                p.memoize();
                p.get(metadata).get(empty).get(frames).op(b"]");
                p.memoize();
                p.op(b"(").get(fr[2]).get(fr[0]).op(b"e");
            }
            _ if i % 12 == 11 => {
                p.get(time_us).op(&[b'K', 1]).get(frames).op(b"]");
                p.memoize();
                p.op(b"(").get(fr[1]).get(fr[2]).op(b"e");
            }
            _ => {
                for (j, &x) in extra.iter().enumerate() {
                    p.get(x).op(&[b'K', j as u8]);
                }
            }
        }
        p.op(b"u");
    }
    p.op(b"eau.");
    p.b
}

#[test]
fn trace_events_read_as_one_unit_give_the_same_model_as_step() {
    let n = 300;
    let bytes = event_pickle(n);
    let whole = same_both_ways(&bytes).unwrap();
    assert_eq!(whole.trace(0).len(), n);
    // Ends of chunks inside every part of an event.
    for chunk in 16..=90 {
        let snap = load_in_chunks(&bytes, chunk).unwrap();
        assert!(snap == whole, "chunks of {chunk}");
    }
}

/// A memo reference to nothing in the middle of an event: the same error,
/// message and offset as when `step` alone reads it.
#[test]
fn a_bad_memo_reference_inside_an_event_keeps_its_error_and_offset() {
    let bytes = event_pickle(40);
    // The 30th event's opening (EMPTY_DICT MEMOIZE MARK), its action key's
    // memo reference (BINGET 0) made one to nothing.
    let at = bytes.windows(5).enumerate().filter(|(_, w)| w == b"}\x94(h\x00").nth(29).unwrap().0 + 4;
    let mut bad = bytes.clone();
    bad[at] = 250;
    let e = same_both_ways(&bad).unwrap_err();
    assert!(e.message.contains("memo reference 250 refers to nothing"), "{e}");
    assert_eq!(e.offset, Some(at as u64 - 1), "{e}");
}

/// A frames list written out again with the same bytes names the frames
/// its memo references name now: after a BINPUT stores another frame at
/// one of them, the same bytes are another stack (the decoder keeps the
/// stacks of lists it has read by their bytes, and forgets them then).
#[test]
fn the_same_list_bytes_after_a_memo_store_are_the_frames_stored() {
    let mut p = Pickle::new();
    let w = PlainEvents::open(&mut p);
    w.event(&mut p, 1, &[0, 1]);
    w.event(&mut p, 2, &[0, 1]);
    // Memo slot fr[0] now holds frame f2 (BINPUT), then the same bytes.
    p.get(w.fr[2]).op(&[b'q', w.fr[0] as u8, b'0']);
    w.event(&mut p, 3, &[0, 1]);
    p.op(b"eau.");
    let snap = same_both_ways(&p.b).unwrap();
    assert_eq!(stack_files(&snap, 0), ["f0.py", "f1.py"]);
    assert_eq!(stack_files(&snap, 1), ["f0.py", "f1.py"]);
    assert_eq!(stack_files(&snap, 2), ["f2.py", "f1.py"]);
}

/// A snapshot being written with PyTorch's six plain keys, "alloc" and three
/// frame dicts (f0.py, f1.py, f2.py) memoized, device 0's events open.
struct PlainEvents {
    keys: [u32; 6],
    alloc: u32,
    /// The frame dicts' memo indices.
    fr: Vec<u32>,
}

impl PlainEvents {
    fn open(p: &mut Pickle) -> PlainEvents {
        let keys = ["action", "addr", "size", "stream", "time_us", "frames"].map(|s| p.define(s));
        let alloc = p.define("alloc");
        let fr = p.frame_dicts();
        p.open_trace();
        PlainEvents { keys, alloc, fr }
    }

    /// An alloc of 1 byte at addr `i`, time `i`, its frames list written out
    /// with frame dicts `list` (indices into `fr`).
    fn event(&self, p: &mut Pickle, i: u8, list: &[usize]) {
        let [action, addr, size, stream, time_us, frames] = self.keys;
        p.op(b"}");
        p.memoize();
        p.op(b"(").get(action).get(self.alloc).get(addr).op(&[b'K', i]).get(size).op(&[b'K', 1]);
        p.get(stream).op(&[b'K', 0]).get(time_us).op(&[b'K', i]).get(frames).op(b"]");
        p.memoize();
        p.op(b"(");
        for &f in list {
            p.get(self.fr[f]);
        }
        p.op(b"eu");
    }
}

/// The filenames of event `e`'s stack (device 0), innermost first.
fn stack_files(snap: &Snapshot, e: usize) -> Vec<&str> {
    snap.stack(snap.trace(0).stack[e]).iter().map(|&f| snap.str(snap.frame(f).filename)).collect()
}

/// Events of PyTorch 2.11's eight keys, the same memo references each
/// (`PickleDecoder::shaped_event_at` reads them by the first one's key
/// bytes): after a BINPUT stores another string at the "addr" key's slot,
/// the same bytes name that key, no longer addr; and times written as LONG1
/// of every width from 1 to 8 bytes, negative and positive, read as written.
#[test]
fn events_read_by_their_keys_bytes_follow_the_memo_and_every_long1_width() {
    let mut p = Pickle::new();
    let keys = ["action", "addr", "size", "stream", "time_us", "compile_context", "user_metadata", "frames"];
    let k: Vec<u32> = keys.iter().map(|s| p.define(s)).collect();
    let [action, addr, size, stream, time_us, context, metadata, frames] = k[..] else { unreachable!() };
    let (alloc, na, empty, other) = (p.define("alloc"), p.define("N/A"), p.define(""), p.define("not_a_key"));
    p.open_trace();
    // (width, time): LONG1 two's complement, the extremes of each width.
    let mut times = Vec::new();
    for w in 1..=8u32 {
        let half = 1i128 << (8 * w - 1);
        times.extend([(w, -half as i64), (w, (half - 1) as i64), (w, -1)]);
    }
    let event = |p: &mut Pickle, i: usize, (w, t): (u32, i64)| {
        p.op(b"}");
        p.memoize();
        p.op(b"(").get(action).get(alloc).get(addr).op(b"J").op(&(512 * i as i32).to_le_bytes());
        p.get(size).op(&[b'K', 8]).get(stream).op(&[b'K', 0]).get(time_us).op(&[0x8a, w as u8]);
        p.op(&t.to_le_bytes()[..w as usize]);
        p.get(context).get(na).get(metadata).get(empty).get(frames).op(b"]");
        p.memoize();
        p.op(b"u");
    };
    for (i, &t) in times.iter().enumerate() {
        event(&mut p, i, t);
    }
    // The "addr" key's slot now holds "not_a_key"; the same bytes follow.
    p.get(other).op(&[b'q', addr as u8, b'0']);
    event(&mut p, times.len(), (1, 5));
    p.op(b"eau.");
    let snap = same_both_ways(&p.b).unwrap();
    let tr = snap.trace(0);
    // i64::MIN is read as MIN + 1 (the model keeps MIN for "no time").
    let want: Vec<i64> = times.iter().map(|&(_, t)| t.max(i64::MIN + 1)).collect();
    assert_eq!(tr.time_us, want);
    assert_eq!(tr.addr_lo[times.len() - 1], 512 * (times.len() as u64 - 1));
    // The last event's "addr" is not_a_key: an alloc with no addr, left out
    // (read by the stale keys, it would be a 25th at 512 * 24).
    assert_eq!(tr.len(), times.len());
}

/// Frames lists written out in a repeating order (the decoder first tries
/// the list that followed the last one the time before, by its bytes):
/// a list that is a prefix of the one tried, or has it as a prefix, is its
/// own stack, not the one tried.
#[test]
fn a_list_tried_by_the_order_lists_came_in_is_taken_only_when_whole() {
    let mut p = Pickle::new();
    let w = PlainEvents::open(&mut p);
    let lists: [&[usize]; 8] = [&[0, 1], &[0, 1, 2], &[0, 1], &[0, 1, 2], &[0, 1], &[0, 1], &[0, 1, 2, 0], &[0]];
    for (i, list) in lists.iter().enumerate() {
        w.event(&mut p, i as u8, list);
    }
    p.op(b"eau.");
    let snap = same_both_ways(&p.b).unwrap();
    for (e, list) in lists.iter().enumerate() {
        let want: Vec<String> = list.iter().map(|f| format!("f{f}.py")).collect();
        assert_eq!(stack_files(&snap, e), want, "event {e}");
    }
}
