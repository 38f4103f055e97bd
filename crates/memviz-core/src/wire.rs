//! The model's binary form: a [`Snapshot`] as bytes and back, so that a
//! snapshot decoded in one wasm instance (the page's Web Worker) moves to
//! another (the page's viewer) as one transferable buffer instead of being
//! decoded twice.
//!
//! The model is columnar, so the form is mostly its columns, little-endian:
//! `MVZWIRE\0`, a `u32` version, then the snapshot's parts in a fixed order
//! (see [`Snapshot::to_wire`]). The integer event columns go packed (see
//! [`Packed`]): about half the bytes for the worker to copy out and the page
//! to copy in. Reading
//! checks every length against what is left and every id against the table
//! it points into, so that bad bytes are an [`Error`] naming the byte offset,
//! never a panic later in a view.

use crate::annotations::{Annotation, Target};
use std::borrow::Cow;

use crate::error::{Error, ErrorKind, Result};
use crate::model::*;
use crate::versions::Versions;

const MAGIC: &[u8; 8] = b"MVZWIRE\0";
/// Bumped whenever the layout changes (the writer and the reader are always
/// the same build on the page, but a stale buffer must not be misread).
const VERSION: u32 = 4;
/// An event column goes out in pieces of at most this many bytes, each
/// ending a chunk: the page reads a chunk in one task, and one this size in
/// a few ms (a 61 MB column took 66-99 ms, measured on the 950 MB file).
const PIECE_BYTES: usize = 4 << 20;
/// `Plain` values nest; the loader elides deeper ones, so deeper is bad input.
const MAX_DEPTH: u32 = 256;

impl Snapshot {
    /// The snapshot as bytes for [`Snapshot::from_wire`]: the chunks of
    /// [`Snapshot::wire_chunks`] joined.
    pub fn to_wire(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.wire_size_hint());
        self.wire_chunks(|c| out.extend_from_slice(&c));
        out
    }

    /// The snapshot as bytes, handed to `sink` in chunks of at most a few
    /// MiB: a sink that moves each chunk elsewhere (the page's worker: out
    /// of its wasm memory) never holds much more than the model, which it
    /// keeps (the worker computes the address versions from it while the
    /// page reads the chunks). A chunk ends between whole parts (a column
    /// with its length), which [`Snapshot::from_wire_chunks`] relies on.
    pub fn wire_chunks(&self, sink: impl FnMut(Vec<u8>)) {
        self.wire_chunks_of(PIECE_BYTES, sink);
    }

    /// [`Snapshot::wire_chunks`] with event columns in pieces of at
    /// most `piece_bytes`, extras in pieces of about a quarter of that (for
    /// tests: small pieces on small files).
    pub fn wire_chunks_of(&self, piece_bytes: usize, mut sink: impl FnMut(Vec<u8>)) {
        let Snapshot {
            segments,
            blocks,
            traces,
            extras,
            strings,
            frames,
            frame_fx,
            stacks,
            allocator_settings,
            external_annotations,
            bare_segment_list,
            protocol,
            json,
            warnings,
            host_device,
            annotations,
        } = self;
        let mut w = Writer(Vec::new());
        let mut cut = |w: &mut Writer| {
            if !w.0.is_empty() {
                sink(std::mem::take(&mut w.0));
            }
        };
        w.0.extend_from_slice(MAGIC);
        w.u32(VERSION);
        w.strings(strings);
        cut(&mut w);
        w.len(frames.len());
        for f in frames {
            w.u32(f.filename);
            w.i64(f.line);
            w.u32(f.name);
            w.u32(f.fx);
        }
        w.len(frame_fx.len());
        for fx in frame_fx {
            for s in [fx.node_op, fx.node_name, fx.node_target, fx.original_trace] {
                w.opt_u32(s);
            }
        }
        cut(&mut w);
        w.col_u32(&stacks.frames);
        w.spans(&stacks.spans);
        cut(&mut w);
        w.len(segments.len());
        for s in segments {
            w.segment(s);
        }
        cut(&mut w);
        w.len(blocks.len());
        for b in blocks {
            w.u128(b.address);
            w.u64(b.size);
            w.u64(b.requested_size);
            w.u8(b.state as u8);
            w.u32(b.stack);
            w.opt_meta(&b.user_metadata);
        }
        cut(&mut w);
        // The traces' count opens a list that spans chunks (read by `count`).
        w.len(traces.len());
        for t in traces {
            // Each event column in chunks of its own (pieces).
            w.col_pieces(&t.action, |a| [a as u8], piece_bytes, &mut cut);
            cut(&mut w);
            w.packed_pieces(&t.addr_lo, piece_bytes, &mut cut);
            // Sorted: the same model always gives the same bytes.
            let mut hi: Vec<_> = t.addr_hi.iter().collect();
            hi.sort_unstable();
            w.len(hi.len());
            for (&i, &h) in hi {
                w.u32(i);
                w.u64(h);
            }
            cut(&mut w);
            w.packed_pieces(&t.size, piece_bytes, &mut cut);
            cut(&mut w);
            w.packed_pieces(&t.stream, piece_bytes, &mut cut);
            cut(&mut w);
            w.packed_pieces(&t.time_us, piece_bytes, &mut cut);
            cut(&mut w);
            w.packed_pieces(&t.stack, piece_bytes, &mut cut);
            cut(&mut w);
            w.packed_pieces(&t.extra, piece_bytes, &mut cut);
            let mut other: Vec<_> = t.other_actions.iter().collect();
            other.sort_unstable();
            w.len(other.len());
            for (&i, name) in other {
                w.u32(i);
                w.str(name);
            }
            cut(&mut w);
            w.packed_pieces(&t.pool, piece_bytes, &mut cut);
            w.len(t.pool_ids.len());
            for &(a, b) in &t.pool_ids {
                w.i64(a);
                w.i64(b);
            }
            cut(&mut w);
        }
        // The extras: their count, then pieces (a count and the items) each
        // ending a chunk, as an event column's; a quarter of a column's
        // piece, as an extra costs far more to read than a column item
        // (the 950 MB file's 11 MB of extras took 90 ms natively in one part).
        w.len(extras.len());
        let mut rest = &extras[..];
        loop {
            let at = w.0.len();
            w.len(0);
            let mut k = 0;
            while k < rest.len() && w.0.len() - at < (piece_bytes / 4).max(1) {
                w.extra(&rest[k]);
                k += 1;
            }
            w.0[at..at + 8].copy_from_slice(&(k as u64).to_le_bytes());
            rest = &rest[k..];
            if rest.is_empty() {
                break;
            }
            cut(&mut w);
        }
        w.opt_plain(allocator_settings);
        w.opt_plain(external_annotations);
        w.u8(*bare_segment_list as u8);
        w.u8(*protocol);
        w.u8(*json as u8);
        w.u64(warnings.unknown_keys);
        w.len(warnings.list.len());
        for x in &warnings.list {
            w.str(&x.location);
            w.str(&x.problem);
            w.u64(x.count);
            w.u8(x.skipped as u8);
        }
        w.opt_u32(*host_device);
        w.len(annotations.len());
        for a in annotations {
            w.u32(a.device);
            w.u32(a.event);
            let (tag, v) = match a.target {
                Target::Alloc(i) => (0, i),
                Target::Freed(i) => (1, i),
                Target::Block(i) => (2, i),
                Target::Nothing => (3, 0),
            };
            w.u8(tag);
            w.u32(v);
        }
        cut(&mut w);
    }

    /// Reads what [`Snapshot::to_wire`] wrote. Bad bytes (wrong magic or
    /// version, a cut buffer, an id past its table) are an error naming the
    /// byte offset.
    pub fn from_wire(bytes: &[u8]) -> Result<Snapshot> {
        Reader::new(bytes).snapshot()
    }

    /// Reads what [`Snapshot::wire_chunks`] wrote, pulling the chunks
    /// one at a time from `next` (None: no more): only the chunk being read
    /// is held, besides the model. The errors are [`Snapshot::from_wire`]'s,
    /// with byte offsets into the chunks joined.
    pub fn from_wire_chunks(next: &mut dyn FnMut() -> Option<Vec<u8>>) -> Result<Snapshot> {
        Reader { b: Cow::Borrowed(&[]), pos: 0, base: 0, more: Some(next) }.snapshot()
    }

    fn wire_size_hint(&self) -> usize {
        let events: usize = self.traces.iter().map(|t| t.len()).sum();
        64 + self.strings.byte_len()
            + self.strings.len() * 8
            + self.frames.len() * 20
            + self.stacks.frames.len() * 4
            + self.stacks.len() * 8
            + self.segments.len() * 80
            + self.blocks.len() * 48
            + events * 41
    }
}

/// Address versions travel apart from the model (the page's worker computes
/// them while the page reads the model): the version, the number of
/// devices' traces, a `u32` column per trace in pieces (as an event
/// column), then the segments' and the blocks' columns.
impl Versions {
    /// The chunks of [`Versions::wire_chunks`] joined.
    pub fn to_wire(&self) -> Vec<u8> {
        let n: usize = self.event.iter().map(|e| e.len()).sum::<usize>() + self.segment.len() + self.block.len();
        let mut out = Vec::with_capacity(16 + 16 * self.event.len() + 4 * n);
        self.wire_chunks(|c| out.extend_from_slice(&c));
        out
    }

    /// The versions as bytes, handed to `sink` in chunks of at most about
    /// 4 MiB (the 950 MB file's 64 MB in one took the page 114 ms to read),
    /// for [`VersionsReader`].
    pub fn wire_chunks(&self, sink: impl FnMut(Vec<u8>)) {
        self.wire_chunks_of(PIECE_BYTES, sink);
    }

    /// [`Versions::wire_chunks`] in pieces of at most `piece_bytes` (for tests).
    pub fn wire_chunks_of(&self, piece_bytes: usize, mut sink: impl FnMut(Vec<u8>)) {
        let mut w = Writer(Vec::new());
        let mut cut = |w: &mut Writer| sink(std::mem::take(&mut w.0));
        w.u32(VERSION);
        w.len(self.event.len());
        for e in &self.event {
            w.packed_pieces(e, piece_bytes, &mut cut);
        }
        w.col_u32(&self.segment);
        w.col_u32(&self.block);
        cut(&mut w);
    }

    /// Reads what [`Versions::to_wire`] wrote for `snap`: a column that does
    /// not fit the snapshot (another file's versions) is an error.
    pub fn from_wire(bytes: &[u8], snap: &Snapshot) -> Result<Versions> {
        let mut r = VersionsReader::new();
        r.feed(bytes, snap)?;
        r.finish()
    }
}

/// Reads [`Versions::wire_chunks`]'s chunks as they are given (the
/// page: a task each), checking them against the snapshot they belong to.
#[derive(Default)]
pub struct VersionsReader {
    v: Versions,
    /// The header (version, traces' count) is read.
    header: bool,
    /// Items still to come in the trace's column being read (None: the
    /// next column's header comes next).
    col_left: Option<u64>,
    done: bool,
    /// The bytes given so far.
    base: usize,
}

impl VersionsReader {
    pub fn new() -> VersionsReader {
        VersionsReader::default()
    }

    /// Reads the next chunk (whole pieces only).
    pub fn feed(&mut self, chunk: &[u8], snap: &Snapshot) -> Result<()> {
        let mut r = Reader { b: Cow::Borrowed(chunk), pos: 0, base: self.base, more: None };
        while r.pos < chunk.len() {
            self.step(&mut r, snap)?;
        }
        self.base += chunk.len();
        Ok(())
    }

    fn step(&mut self, r: &mut Reader, snap: &Snapshot) -> Result<()> {
        if self.done {
            return Err(r.bad(format!("{} bytes after the versions", r.b.len() - r.pos)));
        }
        if !self.header {
            let v = r.u32()?;
            if v != VERSION {
                return Err(r.bad(format!("versions wire form version {v}, this build reads {VERSION}")));
            }
            let n = r.u64()?;
            if n != snap.traces.len() as u64 {
                return Err(r.bad(format!("versions of {n} traces for {} traces", snap.traces.len())));
            }
            self.header = true;
            return Ok(());
        }
        // A column per trace, each begun when the last is whole.
        if self.col_left.is_some() || self.v.event.len() < snap.traces.len() {
            if self.col_left.is_none() {
                self.v.event.push(Vec::new());
            }
            let n = snap.traces[self.v.event.len() - 1].len();
            let col = self.v.event.last_mut().expect("pushed above");
            packed_piece(r, &mut self.col_left, col, Some(n), "version")?;
            return Ok(());
        }
        self.v.segment = r.column(snap.segments.len(), Reader::col_u32)?;
        self.v.block = r.column(snap.blocks.len(), Reader::col_u32)?;
        self.done = true;
        Ok(())
    }

    /// The versions, once every chunk was given.
    pub fn finish(self) -> Result<Versions> {
        if !self.done {
            return Err(Error::at(
                ErrorKind::Truncated,
                self.base as u64,
                "memviz wire form: the chunks end before the versions do",
            ));
        }
        Ok(self.v)
    }
}

/// Reads [`Snapshot::wire_chunks`]'s chunks as they are given, so that
/// its caller may do other work between two of them (the page: a task per
/// chunk); only the chunk given is held besides the model. The errors are
/// [`Snapshot::from_wire`]'s, with byte offsets into the chunks joined.
#[derive(Default)]
pub struct WireReader {
    parts: Parts,
    /// The bytes given so far.
    base: usize,
}

impl WireReader {
    pub fn new() -> WireReader {
        WireReader::default()
    }

    /// Reads the next chunk (whole parts only: a part cut at the chunk's end
    /// is an error).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        let mut r = Reader { b: Cow::Borrowed(chunk), pos: 0, base: self.base, more: None };
        while r.pos < chunk.len() {
            self.parts.step(&mut r)?;
        }
        self.base += chunk.len();
        Ok(())
    }

    /// The model, once every chunk was given.
    pub fn finish(self) -> Result<Snapshot> {
        if self.parts.stage != Stage::Done {
            return Err(Error::at(
                ErrorKind::Truncated,
                self.base as u64,
                format!("memviz wire form: the chunks end before the snapshot does ({:?})", self.parts.stage),
            ));
        }
        Ok(self.parts.snap)
    }
}

/// Where reading is: the parts of the form in [`Snapshot::wire_chunks`]'s
/// order, each begun at a chunk's start or after the part before it in the
/// same chunk (a part never spans chunks), so that reading can stop between
/// any two chunks ([`WireReader`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum Stage {
    #[default]
    Header,
    Frames,
    Stacks,
    Segments,
    Blocks,
    TraceCount,
    /// The columns of trace `Parts::snap.traces.len()`.
    Action,
    AddrLo,
    Size,
    Stream,
    Time,
    Stack,
    Extra,
    Pool,
    /// The event extras, in pieces.
    Extras,
    Tail,
    Done,
}

/// The model as read so far.
#[derive(Default)]
struct Parts {
    snap: Snapshot,
    stage: Stage,
    n_traces: u64,
    /// The trace being read.
    t: EventTable,
    /// Items still to come in the event column being read (None: its
    /// header comes next).
    col_left: Option<u64>,
}

impl Parts {
    /// Reads the next part.
    fn step(&mut self, r: &mut Reader) -> Result<()> {
        let s = &mut self.snap;
        let n_str = s.strings.len();
        let n_stacks = s.stacks.len();
        let n = self.t.action.len();
        self.stage = match self.stage {
            Stage::Header => {
                if r.take(8)? != MAGIC {
                    return Err(Error::at(
                        ErrorKind::NotASnapshot,
                        0,
                        "not memviz's wire form of a snapshot (bad magic)",
                    ));
                }
                let v = r.u32()?;
                if v != VERSION {
                    return Err(r.bad(format!("wire form version {v}, this build reads {VERSION}")));
                }
                s.strings = r.strings()?;
                Stage::Frames
            }
            Stage::Frames => {
                let n = r.len(20)?;
                s.frames.reserve(n);
                for _ in 0..n {
                    let filename = r.id(n_str, "string")?;
                    let line = r.i64()?;
                    let name = r.id(n_str, "string")?;
                    let fx = r.u32()?;
                    s.frames.push(Frame { filename, line, name, fx });
                }
                let n = r.len(4)?;
                for _ in 0..n {
                    let mut ids = [None; 4];
                    for id in &mut ids {
                        *id = r.opt_id(n_str, "string")?;
                    }
                    let [node_op, node_name, node_target, original_trace] = ids;
                    s.frame_fx.push(FrameFx { node_op, node_name, node_target, original_trace });
                }
                let at = r.at();
                if let Some(f) = s.frames.iter().find(|f| f.fx != u32::MAX && f.fx as usize >= s.frame_fx.len()) {
                    return Err(Error::at(
                        ErrorKind::Malformed,
                        at as u64,
                        format!("frame fx {} past {} entries", f.fx, s.frame_fx.len()),
                    ));
                }
                Stage::Stacks
            }
            Stage::Stacks => {
                let at = r.at();
                let frames = r.col_u32()?;
                check_ids(&frames, s.frames.len(), "frame", at)?;
                let spans = r.spans(frames.len())?;
                s.stacks = Stacks { frames, spans };
                Stage::Segments
            }
            Stage::Segments => {
                let n = r.len(60)?;
                s.segments.reserve(n);
                for _ in 0..n {
                    s.segments.push(r.segment(n_stacks)?);
                }
                Stage::Blocks
            }
            Stage::Blocks => {
                let n = r.len(38)?;
                s.blocks.reserve(n);
                for _ in 0..n {
                    let address = r.u128()?;
                    let size = r.u64()?;
                    let requested_size = r.u64()?;
                    let state = match r.u8()? {
                        0 => BlockState::ActiveAllocated,
                        1 => BlockState::ActivePendingFree,
                        2 => BlockState::Inactive,
                        x => return Err(r.bad(format!("block state {x}"))),
                    };
                    let stack = r.id(n_stacks, "stack")?;
                    let user_metadata = r.opt_meta()?;
                    s.blocks.push(Block { address, size, requested_size, state, stack, user_metadata });
                }
                if let Some(seg) =
                    s.segments.iter().find(|g| g.blocks.start > g.blocks.end || g.blocks.end as usize > s.blocks.len())
                {
                    return Err(r.bad(format!("segment blocks {:?} past {} blocks", seg.blocks, s.blocks.len())));
                }
                Stage::TraceCount
            }
            Stage::TraceCount => {
                // Spans chunks, so not checked against the bytes of this one;
                // each trace reads at least 8 bytes, so a false count ends as a cut.
                self.n_traces = r.u64()?;
                if self.n_traces == 0 {
                    Stage::Extras
                } else {
                    Stage::Action
                }
            }
            Stage::Action => {
                if self.col_left.is_none() {
                    self.t = EventTable::default();
                }
                let whole = col_piece(r, &mut self.col_left, &mut self.t.action, None, "action", |[a]| {
                    Action::ALL.get(a as usize).copied()
                })?;
                if whole {
                    Stage::AddrLo
                } else {
                    Stage::Action
                }
            }
            Stage::AddrLo => {
                let t = &mut self.t;
                if !packed_piece(r, &mut self.col_left, &mut t.addr_lo, Some(n), "address")? {
                    return Ok(());
                }
                let k = r.len(12)?;
                for _ in 0..k {
                    let i = r.u32()?;
                    t.addr_hi.insert(i, r.u64()?);
                }
                Stage::Size
            }
            Stage::Size => {
                if !packed_piece(r, &mut self.col_left, &mut self.t.size, Some(n), "size")? {
                    return Ok(());
                }
                Stage::Stream
            }
            Stage::Stream => {
                if !packed_piece(r, &mut self.col_left, &mut self.t.stream, Some(n), "stream")? {
                    return Ok(());
                }
                Stage::Time
            }
            Stage::Time => {
                if !packed_piece(r, &mut self.col_left, &mut self.t.time_us, Some(n), "time")? {
                    return Ok(());
                }
                Stage::Stack
            }
            Stage::Stack => {
                let (at, before) = (r.at(), self.t.stack.len());
                let whole = packed_piece(r, &mut self.col_left, &mut self.t.stack, Some(n), "stack id")?;
                check_ids(&self.t.stack[before..], n_stacks, "stack", at)?;
                if !whole {
                    return Ok(());
                }
                Stage::Extra
            }
            Stage::Extra => {
                let t = &mut self.t;
                if !packed_piece(r, &mut self.col_left, &mut t.extra, Some(n), "extra")? {
                    return Ok(());
                }
                let k = r.len(12)?;
                for _ in 0..k {
                    let i = r.u32()?;
                    t.other_actions.insert(i, r.string()?);
                }
                Stage::Pool
            }
            Stage::Pool => {
                let t = &mut self.t;
                let at = r.at();
                if !packed_piece(r, &mut self.col_left, &mut t.pool, None, "pool")? {
                    return Ok(());
                }
                // None, or one an event.
                if !t.pool.is_empty() && t.pool.len() != n {
                    return Err(Error::at(
                        ErrorKind::Malformed,
                        at as u64,
                        format!("memviz wire form: {} pools for {n} events", t.pool.len()),
                    ));
                }
                let k = r.len(16)?;
                for _ in 0..k {
                    t.pool_ids.push((r.i64()?, r.i64()?));
                }
                if let Some(p) = t.pool.iter().find(|&&p| p != NO_POOL && p as usize >= t.pool_ids.len()) {
                    return Err(Error::at(
                        ErrorKind::Malformed,
                        at as u64,
                        format!("memviz wire form: pool {p} past {}", t.pool_ids.len()),
                    ));
                }
                s.traces.push(std::mem::take(t));
                if (s.traces.len() as u64) < self.n_traces {
                    Stage::Action
                } else {
                    Stage::Extras
                }
            }
            Stage::Extras => {
                // In pieces as an event column (`piece`), of items of 5 bytes or more.
                let (k, _, whole) = piece(r, &mut self.col_left, &mut s.extras, None, "extra", 5)?;
                for _ in 0..k {
                    s.extras.push(r.extra(n_str)?);
                }
                if whole {
                    Stage::Tail
                } else {
                    Stage::Extras
                }
            }
            Stage::Tail => {
                Self::tail(s, r)?;
                Stage::Done
            }
            Stage::Done => return Err(r.bad(format!("{} bytes after the snapshot", r.b.len() - r.pos))),
        };
        Ok(())
    }

    /// The small parts after the traces.
    fn tail(s: &mut Snapshot, r: &mut Reader) -> Result<()> {
        for (d, t) in s.traces.iter().enumerate() {
            if let Some(x) = t.extra.iter().find(|&&x| x != NO_EXTRA && x as usize >= s.extras.len()) {
                return Err(r.bad(format!("device {d}: extra {x} past {} extras", s.extras.len())));
            }
        }
        s.allocator_settings = r.opt_plain()?;
        s.external_annotations = r.opt_plain()?;
        s.bare_segment_list = r.bool()?;
        s.protocol = r.u8()?;
        s.json = r.bool()?;
        s.warnings.unknown_keys = r.u64()?;
        let n = r.len(17)?;
        for _ in 0..n {
            let location = r.string()?;
            let problem = r.string()?;
            let count = r.u64()?;
            let skipped = r.bool()?;
            s.warnings.list.push(Warning { location, problem, count, skipped });
        }
        s.host_device = r.opt_u32()?;
        let n = r.len(13)?;
        s.annotations.reserve(n);
        for _ in 0..n {
            let device = r.u32()?;
            let event = r.u32()?;
            let events = s.traces.get(device as usize).map_or(0, |t| t.len());
            if event as usize >= events {
                return Err(r.bad(format!("annotation of event {event} on device {device}, which has {events}")));
            }
            let (tag, v) = (r.u8()?, r.u32()?);
            let target = match tag {
                0 if (v as usize) < events => Target::Alloc(v),
                1 if (v as usize) < events => Target::Freed(v),
                2 if (v as usize) < s.blocks.len() => Target::Block(v),
                3 => Target::Nothing,
                _ => return Err(r.bad(format!("annotation target {tag}:{v}"))),
            };
            s.annotations.push(Annotation { device, event, target });
        }
        Ok(())
    }
}

/// Reads the next piece of an event column (`Writer::col_pieces`) into
/// `out`, the column's header first when `left` is None (`n`: the length
/// it must have, if known); true once the column is whole. `item` reads an
/// item's bytes; None makes an error naming `what` and the item's offset.
fn col_piece<const N: usize, T>(
    r: &mut Reader,
    left: &mut Option<u64>,
    out: &mut Vec<T>,
    n: Option<usize>,
    what: &str,
    item: impl Fn([u8; N]) -> Option<T>,
) -> Result<bool> {
    let (k, at, whole) = piece(r, left, out, n, what, N)?;
    let raw = r.take(k * N)?;
    let arr = |b: &[u8]| -> [u8; N] { b.try_into().expect("chunks of N") };
    // Checked first, then converted in one `extend` of known length: no
    // capacity check per item (the push loop's was most of a piece's time;
    // for items that cannot fail the check compiles to nothing).
    if let Some(i) = raw.chunks_exact(N).position(|b| item(arr(b)).is_none()) {
        let v = raw[i * N..(i + 1) * N].iter().rev().fold(0u64, |x, &b| x << 8 | b as u64);
        return Err(Error::at(ErrorKind::Malformed, (at + 8 + i * N) as u64, format!("memviz wire form: {what} {v}")));
    }
    out.extend(raw.chunks_exact(N).map(|b| item(arr(b)).expect("checked above")));
    Ok(whole)
}

/// An integer event column's items, packed per piece: each as its offset
/// from the piece's base (see `packing`), in 1, 2, 4 or 8 bytes. Sizes,
/// stream numbers, stack ids and the times and addresses within one piece
/// are close together, so most take 1, 2 or 4 bytes instead of 8.
trait Packed: Copy {
    /// The item's own width, which sets a piece's count of items.
    const WIDTH: usize;
    /// The largest key an item has.
    const MAX_KEY: u64;
    /// An order-keeping map into u64.
    fn key(self) -> u64;
    /// The item of a key of at most `MAX_KEY`.
    fn from_key(k: u64) -> Self;
}

impl Packed for u64 {
    const WIDTH: usize = 8;
    const MAX_KEY: u64 = u64::MAX;
    fn key(self) -> u64 {
        self
    }
    fn from_key(k: u64) -> u64 {
        k
    }
}

impl Packed for u32 {
    const WIDTH: usize = 4;
    const MAX_KEY: u64 = u32::MAX as u64;
    fn key(self) -> u64 {
        self as u64
    }
    fn from_key(k: u64) -> u32 {
        k as u32
    }
}

impl Packed for i64 {
    const WIDTH: usize = 8;
    const MAX_KEY: u64 = u64::MAX;
    fn key(self) -> u64 {
        (self as u64) ^ (1 << 63)
    }
    fn from_key(k: u64) -> i64 {
        (k ^ (1 << 63)) as i64
    }
}

/// [`col_piece`] for a column written by `Writer::packed_pieces`: each
/// piece's count, its items' width and base, then the items.
fn packed_piece<T: Packed>(
    r: &mut Reader,
    left: &mut Option<u64>,
    out: &mut Vec<T>,
    n: Option<usize>,
    what: &str,
) -> Result<bool> {
    let (k, _, whole) = piece(r, left, out, n, what, 1)?;
    let width = r.u8()?;
    if !matches!(width, 1 | 2 | 4 | 8) {
        r.pos -= 1;
        return Err(r.bad(format!("{what}s packed in {width} bytes each")));
    }
    let base = r.u64()?;
    let at = r.at();
    // k is at most the bytes left, so k * 8 fits a usize on 64-bit hosts;
    // on wasm32 it may not, and that is a cut piece.
    let len = k.checked_mul(width as usize).ok_or_else(|| r.bad(format!("{k} {what}s of {width} bytes")))?;
    let raw = r.take(len)?;
    match width {
        1 => unpack::<1, T>(raw, base, out, at, what),
        2 => unpack::<2, T>(raw, base, out, at, what),
        4 => unpack::<4, T>(raw, base, out, at, what),
        _ => unpack::<8, T>(raw, base, out, at, what),
    }?;
    Ok(whole)
}

/// The items of a packed piece (`W` bytes each, at offset `at`) into `out`.
fn unpack<const W: usize, T: Packed>(raw: &[u8], base: u64, out: &mut Vec<T>, at: usize, what: &str) -> Result<()> {
    let off = |b: &[u8]| {
        let mut a = [0u8; 8];
        a[..W].copy_from_slice(b);
        u64::from_le_bytes(a)
    };
    // When the largest offset of this width fits, every item does: no check
    // per item (the loop is then plain widening adds).
    let max_off = if W == 8 { u64::MAX } else { (1u64 << (8 * W)) - 1 };
    if base.checked_add(max_off).is_none_or(|top| top > T::MAX_KEY) {
        let bad = |b: &[u8]| base.checked_add(off(b)).is_none_or(|k| k > T::MAX_KEY);
        if let Some(i) = raw.chunks_exact(W).position(bad) {
            let v = off(&raw[i * W..(i + 1) * W]);
            return Err(Error::at(
                ErrorKind::Malformed,
                (at + i * W) as u64,
                format!("memviz wire form: {what} {base} + {v} out of range"),
            ));
        }
    }
    out.extend(raw.chunks_exact(W).map(|b| T::from_key(base.wrapping_add(off(b)))));
    Ok(())
}

/// The head of a column's next piece: the column's length first when
/// `left` is None (checked against `n`, if known; room for all of it made
/// in `out` at once), then the piece's count of items of at least `min`
/// bytes. Returns that count, the piece's offset, and whether the column
/// ends with this piece (`left` then says what is still to come).
fn piece<T>(
    r: &mut Reader,
    left: &mut Option<u64>,
    out: &mut Vec<T>,
    n: Option<usize>,
    what: &str,
    min: usize,
) -> Result<(usize, usize, bool)> {
    let to_come = match *left {
        Some(l) => l,
        None => {
            let at = r.at();
            let m = r.u64()?;
            if let Some(n) = n.filter(|&n| n as u64 != m) {
                return Err(Error::at(
                    ErrorKind::Malformed,
                    at as u64,
                    format!("memviz wire form: a column of {m} for {n} events"),
                ));
            }
            // A false length is an error, not an abort: the pieces are
            // checked against the bytes as they come, this is not.
            if usize::try_from(m).ok().and_then(|m| out.try_reserve_exact(m).ok()).is_none() {
                return Err(Error::at(
                    ErrorKind::Malformed,
                    at as u64,
                    format!("memviz wire form: a column of {m} {what}s does not fit in memory"),
                ));
            }
            m
        }
    };
    let at = r.at();
    let k = r.len(min)?;
    if k as u64 > to_come || (k == 0 && to_come > 0) {
        return Err(Error::at(
            ErrorKind::Malformed,
            at as u64,
            format!("memviz wire form: a piece of {k} {what}s where {to_come} are to come"),
        ));
    }
    let rest = to_come - k as u64;
    *left = (rest > 0).then_some(rest);
    Ok((k, at, rest == 0))
}

fn check_ids(ids: &[u32], n: usize, what: &str, at: usize) -> Result<()> {
    match ids.iter().find(|&&i| i as usize >= n) {
        Some(i) => Err(Error::at(ErrorKind::Malformed, at as u64, format!("{what} id {i} past {n} entries"))),
        None => Ok(()),
    }
}

/// The base and the width (1, 2, 4 or 8 bytes) of a packed piece: the
/// base is the high bits all of `p`'s keys share, so that each key less it
/// fits the width. An OR of XORs, which compilers vectorize; a min and a
/// max of u64s they do not (it made the writer 40% slower). A range that
/// crosses a power of two may take the next width: rare within a piece.
fn packing<T: Packed>(p: &[T]) -> (u64, usize) {
    let k0 = p.first().map_or(0, |v| v.key());
    let differ = p.iter().fold(0, |acc, v| acc | (v.key() ^ k0));
    let bits = 64 - differ.leading_zeros();
    let base = if bits == 64 { 0 } else { k0 >> bits << bits };
    let width = match bits {
        0..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        _ => 8,
    };
    (base, width)
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u128(&mut self, v: u128) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
    fn extra(&mut self, x: &EventExtra) {
        self.opt_u32(x.compile_context);
        self.opt_meta(&x.user_metadata);
        self.opt_meta(&x.internal_metadata);
        self.len(x.forward_frames.len());
        for f in &x.forward_frames {
            self.str(f);
        }
        self.opt_u64(x.device_free);
    }
    fn opt_u32(&mut self, v: Option<u32>) {
        match v {
            Some(v) => {
                self.u8(1);
                self.u32(v);
            }
            None => self.u8(0),
        }
    }
    fn opt_u64(&mut self, v: Option<u64>) {
        match v {
            Some(v) => {
                self.u8(1);
                self.u64(v);
            }
            None => self.u8(0),
        }
    }
    fn opt_pool(&mut self, v: Option<(i64, i64)>) {
        match v {
            Some((a, b)) => {
                self.u8(1);
                self.i64(a);
                self.i64(b);
            }
            None => self.u8(0),
        }
    }
    fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    /// A column: its length, then each value's little-endian bytes, written
    /// into space made once (a loop the compiler turns into plain copies).
    fn col<const N: usize, T: Copy>(&mut self, c: &[T], bytes: impl Fn(T) -> [u8; N]) {
        self.len(c.len());
        let at = self.0.len();
        self.0.resize(at + c.len() * N, 0);
        for (d, &v) in self.0[at..].chunks_exact_mut(N).zip(c) {
            d.copy_from_slice(&bytes(v));
        }
    }
    fn col_u32(&mut self, c: &[u32]) {
        self.col(c, u32::to_le_bytes);
    }
    /// An event column (read by `col_piece`): its length, then one or more
    /// pieces of at most `piece_bytes` (each a column: a length and the
    /// items), `cut` after each but the last; what follows the column goes
    /// with its last piece.
    fn col_pieces<const N: usize, T: Copy>(
        &mut self,
        c: &[T],
        bytes: impl Fn(T) -> [u8; N],
        piece_bytes: usize,
        cut: &mut dyn FnMut(&mut Writer),
    ) {
        self.pieces(c, piece_bytes / N, cut, |w, p| w.col(p, &bytes));
    }
    /// An integer event column packed (read by `packed_piece`): as
    /// `col_pieces`, each piece a count, the items' width, their base and
    /// the items.
    fn packed_pieces<T: Packed>(&mut self, c: &[T], piece_bytes: usize, cut: &mut dyn FnMut(&mut Writer)) {
        self.pieces(c, piece_bytes / T::WIDTH, cut, Writer::packed);
    }
    /// An event column's length, then its pieces of `per_piece` items (at
    /// least one piece, even empty), each written by `piece`, `cut` after
    /// each but the last.
    fn pieces<T>(
        &mut self,
        c: &[T],
        per_piece: usize,
        cut: &mut dyn FnMut(&mut Writer),
        mut piece: impl FnMut(&mut Writer, &[T]),
    ) {
        self.len(c.len());
        let mut pieces = c.chunks(per_piece.max(1)).peekable();
        if pieces.peek().is_none() {
            piece(self, c);
        }
        while let Some(p) = pieces.next() {
            piece(self, p);
            if pieces.peek().is_some() {
                cut(self);
            }
        }
    }
    fn packed<T: Packed>(&mut self, p: &[T]) {
        let (base, width) = packing(p);
        self.len(p.len());
        self.u8(width as u8);
        self.u64(base);
        // A loop per width, each a plain narrowing store the compiler vectorizes.
        match width {
            1 => self.offsets(p, |v| [(v.key() - base) as u8]),
            2 => self.offsets(p, |v| ((v.key() - base) as u16).to_le_bytes()),
            4 => self.offsets(p, |v| ((v.key() - base) as u32).to_le_bytes()),
            _ => self.offsets(p, |v| (v.key() - base).to_le_bytes()),
        }
    }
    fn offsets<const W: usize, T: Packed>(&mut self, p: &[T], bytes: impl Fn(T) -> [u8; W]) {
        // Through a block on the stack: the output is written once, not
        // zeroed first and then written (a memset was a tenth of the time).
        const BLOCK: usize = 256;
        self.0.reserve(p.len() * W);
        let mut buf = [[0u8; W]; BLOCK];
        for block in p.chunks(BLOCK) {
            for (d, &v) in buf.iter_mut().zip(block) {
                *d = bytes(v);
            }
            self.0.extend_from_slice(buf[..block.len()].as_flattened());
        }
    }
    fn spans(&mut self, spans: &[(u32, u32)]) {
        self.len(spans.len());
        for &(s, l) in spans {
            self.u32(s);
            self.u32(l);
        }
    }
    fn strings(&mut self, s: &Strings) {
        self.str(&s.buf);
        self.spans(&s.spans);
    }
    fn segment(&mut self, s: &Segment) {
        self.u32(s.device);
        self.u128(s.address);
        for v in [s.total_size, s.allocated_size, s.active_size, s.requested_size] {
            self.u64(v);
        }
        self.u32(s.stream);
        self.u8(match s.segment_type {
            SegmentType::Large => 0,
            SegmentType::Small => 1,
            SegmentType::Unknown => 2,
        });
        self.opt_pool(s.pool_id);
        self.u8(s.is_expandable as u8);
        self.u32(s.stack);
        self.u32(s.blocks.start);
        self.u32(s.blocks.end);
    }
    fn opt_meta(&mut self, m: &Option<UserMetadata>) {
        match m {
            None => self.u8(0),
            Some(UserMetadata::Text(s)) => {
                self.u8(1);
                self.str(s);
            }
            Some(UserMetadata::Map(kv)) => {
                self.u8(2);
                self.len(kv.len());
                for (k, v) in kv {
                    self.str(k);
                    self.str(v);
                }
            }
        }
    }
    fn opt_plain(&mut self, p: &Option<Plain>) {
        match p {
            None => self.u8(0),
            Some(p) => {
                self.u8(1);
                self.plain(p);
            }
        }
    }
    fn plain(&mut self, p: &Plain) {
        match p {
            Plain::None => self.u8(0),
            Plain::Bool(b) => {
                self.u8(1);
                self.u8(*b as u8);
            }
            Plain::Int(i) => {
                self.u8(2);
                self.0.extend_from_slice(&i.to_le_bytes());
            }
            Plain::Float(f) => {
                self.u8(3);
                self.u64(f.to_bits());
            }
            Plain::Str(s) => {
                self.u8(4);
                self.str(s);
            }
            Plain::Bytes(b) => {
                self.u8(5);
                self.bytes(b);
            }
            Plain::List(l) => {
                self.u8(6);
                self.len(l.len());
                for x in l {
                    self.plain(x);
                }
            }
            Plain::Map(m) => {
                self.u8(7);
                self.len(m.len());
                for (k, v) in m {
                    self.plain(k);
                    self.plain(v);
                }
            }
            Plain::Elided => self.u8(8),
        }
    }
}

/// Reads the wire form from one buffer, or from chunks pulled one at a time
/// (`more`): an item never spans two chunks (see `wire_chunks`).
struct Reader<'a> {
    /// The chunk being read.
    b: Cow<'a, [u8]>,
    pos: usize,
    /// Where `b` starts in the whole form (for the errors' offsets).
    base: usize,
    more: Option<&'a mut dyn FnMut() -> Option<Vec<u8>>>,
}

impl<'a> Reader<'a> {
    /// The whole snapshot from here (the chunks pulled as needed).
    fn snapshot(mut self) -> Result<Snapshot> {
        let mut st = Parts::default();
        while st.stage != Stage::Done {
            st.step(&mut self)?;
        }
        let left = self.left();
        if left > 0 {
            return Err(self.bad(format!("{left} bytes after the snapshot")));
        }
        Ok(st.snap)
    }
    fn new(b: &'a [u8]) -> Reader<'a> {
        Reader { b: Cow::Borrowed(b), pos: 0, base: 0, more: None }
    }
    /// The offset in the whole form.
    fn at(&self) -> usize {
        self.base + self.pos
    }
    fn bad(&self, what: impl Into<String>) -> Error {
        Error::at(ErrorKind::Malformed, self.at() as u64, format!("memviz wire form: {}", what.into()))
    }
    /// The bytes left in this chunk; at its end, the next chunk's (0 when
    /// there is none).
    fn left(&mut self) -> usize {
        while self.pos == self.b.len() {
            match self.more.as_mut().and_then(|next| next()) {
                Some(c) => {
                    self.base += self.b.len();
                    self.b = Cow::Owned(c);
                    self.pos = 0;
                }
                None => break,
            }
        }
        self.b.len() - self.pos
    }
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let rest = if n == 0 { 0 } else { self.left() };
        if n > rest {
            return Err(Error::at(
                ErrorKind::Truncated,
                self.at() as u64,
                format!("memviz wire form: {n} bytes wanted, {rest} left"),
            ));
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn arr<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            x => {
                self.pos -= 1;
                Err(self.bad(format!("flag {x}, not 0 or 1")))
            }
        }
    }
    fn u32(&mut self) -> Result<u32> {
        self.arr().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Result<u64> {
        self.arr().map(u64::from_le_bytes)
    }
    fn i64(&mut self) -> Result<i64> {
        self.arr().map(i64::from_le_bytes)
    }
    fn u128(&mut self) -> Result<u128> {
        self.arr().map(u128::from_le_bytes)
    }
    fn extra(&mut self, n_str: usize) -> Result<EventExtra> {
        let compile_context = self.opt_id(n_str, "string")?;
        let user_metadata = self.opt_meta()?;
        let internal_metadata = self.opt_meta()?;
        let k = self.len(8)?;
        let mut forward_frames = Vec::with_capacity(k);
        for _ in 0..k {
            forward_frames.push(self.string()?);
        }
        let device_free = self.opt_u64()?;
        Ok(EventExtra { compile_context, user_metadata, internal_metadata, forward_frames, device_free })
    }
    /// A count of items of at least `min` bytes each: more than the bytes
    /// left could hold is an error before anything is allocated.
    fn len(&mut self, min: usize) -> Result<usize> {
        let n = self.u64()?;
        let rest = (self.b.len() - self.pos) as u64;
        if n.saturating_mul(min.max(1) as u64) > rest {
            self.pos -= 8;
            return Err(self.bad(format!("{n} items of {min} bytes, {rest} bytes left")));
        }
        Ok(n as usize)
    }
    fn id(&mut self, n: usize, what: &str) -> Result<u32> {
        let i = self.u32()?;
        if i as usize >= n {
            self.pos -= 4;
            return Err(self.bad(format!("{what} id {i} past {n} entries")));
        }
        Ok(i)
    }
    fn opt_id(&mut self, n: usize, what: &str) -> Result<Option<u32>> {
        Ok(match self.bool()? {
            true => Some(self.id(n, what)?),
            false => None,
        })
    }
    fn opt_u32(&mut self) -> Result<Option<u32>> {
        Ok(match self.bool()? {
            true => Some(self.u32()?),
            false => None,
        })
    }
    fn opt_u64(&mut self) -> Result<Option<u64>> {
        Ok(match self.bool()? {
            true => Some(self.u64()?),
            false => None,
        })
    }
    fn opt_pool(&mut self) -> Result<Option<(i64, i64)>> {
        Ok(match self.bool()? {
            true => Some((self.i64()?, self.i64()?)),
            false => None,
        })
    }
    fn bytes(&mut self) -> Result<&[u8]> {
        let n = self.len(1)?;
        self.take(n)
    }
    fn str(&mut self) -> Result<&str> {
        let at = self.at();
        let b = self.bytes()?;
        std::str::from_utf8(b).map_err(|e| {
            Error::at(ErrorKind::Malformed, (at + 8 + e.valid_up_to()) as u64, "memviz wire form: text is not UTF-8")
        })
    }
    fn string(&mut self) -> Result<String> {
        self.str().map(str::to_string)
    }
    fn col<const N: usize, T>(&mut self, f: impl Fn([u8; N]) -> T) -> Result<Vec<T>> {
        let n = self.len(N)?;
        let raw = self.take(n * N)?;
        Ok(raw
            .chunks_exact(N)
            .map(|c| {
                let mut a = [0; N];
                a.copy_from_slice(c);
                f(a)
            })
            .collect())
    }
    fn col_u32(&mut self) -> Result<Vec<u32>> {
        self.col(u32::from_le_bytes)
    }
    /// (start, len) spans into a buffer of `total` items; span 0 is the
    /// empty one (`Strings` and `Stacks` keep id 0 empty).
    fn spans(&mut self, total: usize) -> Result<Vec<(u32, u32)>> {
        let at = self.at();
        let spans = self.col(|a: [u8; 8]| {
            let [s0, s1, s2, s3, l0, l1, l2, l3] = a;
            (u32::from_le_bytes([s0, s1, s2, s3]), u32::from_le_bytes([l0, l1, l2, l3]))
        })?;
        if spans.first() != Some(&(0, 0)) {
            return Err(Error::at(
                ErrorKind::Malformed,
                at as u64,
                "memviz wire form: the first span is not the empty one",
            ));
        }
        if let Some((i, s)) = spans.iter().enumerate().find(|(_, &(s, l))| s as usize + l as usize > total) {
            return Err(Error::at(
                ErrorKind::Malformed,
                (at + 8 + i * 8) as u64,
                format!("memviz wire form: span {s:?} past {total} items"),
            ));
        }
        Ok(spans)
    }
    fn strings(&mut self) -> Result<Strings> {
        let buf = self.string()?;
        let at = self.at();
        let spans = self.spans(buf.len())?;
        let cut = |&(s, l): &(u32, u32)| !buf.is_char_boundary(s as usize) || !buf.is_char_boundary((s + l) as usize);
        if let Some(i) = spans.iter().position(cut) {
            return Err(Error::at(
                ErrorKind::Malformed,
                (at + 8 + i * 8) as u64,
                "memviz wire form: a string span cuts a character",
            ));
        }
        Ok(Strings { buf, spans })
    }
    fn segment(&mut self, n_stacks: usize) -> Result<Segment> {
        let device = self.u32()?;
        let address = self.u128()?;
        let total_size = self.u64()?;
        let allocated_size = self.u64()?;
        let active_size = self.u64()?;
        let requested_size = self.u64()?;
        let stream = self.u32()?;
        let segment_type = match self.u8()? {
            0 => SegmentType::Large,
            1 => SegmentType::Small,
            2 => SegmentType::Unknown,
            x => return Err(self.bad(format!("segment type {x}"))),
        };
        let pool_id = self.opt_pool()?;
        let is_expandable = self.bool()?;
        let stack = self.id(n_stacks, "stack")?;
        let blocks = self.u32()?..self.u32()?;
        Ok(Segment {
            device,
            address,
            total_size,
            allocated_size,
            active_size,
            requested_size,
            stream,
            segment_type,
            pool_id,
            is_expandable,
            stack,
            blocks,
        })
    }
    /// One event column: as many values as the trace has events.
    fn column<T>(&mut self, n: usize, read: fn(&mut Self) -> Result<Vec<T>>) -> Result<Vec<T>> {
        let at = self.at();
        let c = read(self)?;
        if c.len() != n {
            return Err(Error::at(
                ErrorKind::Malformed,
                at as u64,
                format!("memviz wire form: a column of {} for {n} events", c.len()),
            ));
        }
        Ok(c)
    }
    fn opt_meta(&mut self) -> Result<Option<UserMetadata>> {
        Ok(match self.u8()? {
            0 => None,
            1 => Some(UserMetadata::Text(self.string()?)),
            2 => {
                let n = self.len(16)?;
                let mut kv = Vec::with_capacity(n);
                for _ in 0..n {
                    kv.push((self.string()?, self.string()?));
                }
                Some(UserMetadata::Map(kv))
            }
            x => {
                self.pos -= 1;
                return Err(self.bad(format!("metadata tag {x}")));
            }
        })
    }
    fn opt_plain(&mut self) -> Result<Option<Plain>> {
        Ok(match self.bool()? {
            true => Some(self.plain(0)?),
            false => None,
        })
    }
    fn plain(&mut self, depth: u32) -> Result<Plain> {
        if depth > MAX_DEPTH {
            return Err(self.bad("values nested too deep"));
        }
        Ok(match self.u8()? {
            0 => Plain::None,
            1 => Plain::Bool(self.bool()?),
            2 => Plain::Int(i128::from_le_bytes(self.arr()?)),
            3 => Plain::Float(f64::from_bits(self.u64()?)),
            4 => Plain::Str(self.string()?),
            5 => Plain::Bytes(self.bytes()?.to_vec()),
            6 => {
                let n = self.len(1)?;
                let mut l = Vec::with_capacity(n);
                for _ in 0..n {
                    l.push(self.plain(depth + 1)?);
                }
                Plain::List(l)
            }
            7 => {
                let n = self.len(2)?;
                let mut m = Vec::with_capacity(n);
                for _ in 0..n {
                    m.push((self.plain(depth + 1)?, self.plain(depth + 1)?));
                }
                Plain::Map(m)
            }
            8 => Plain::Elided,
            x => {
                self.pos -= 1;
                return Err(self.bad(format!("value tag {x}")));
            }
        })
    }
}
