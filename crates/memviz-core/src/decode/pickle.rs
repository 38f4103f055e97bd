//! A pickle decoder built for memory snapshots.
//!
//! It runs the pickle machine over data opcodes only (protocols 0 to 5) and
//! refuses every opcode that would build or call an arbitrary Python object:
//! nothing is ever executed. Values live in arenas and are referred to by id,
//! so a memo reference (BINGET) shares the value instead of copying it: the
//! real files reference one frame dict hundreds of thousands of times, and a
//! "billion laughs" pickle stays linear.
//!
//! Because a snapshot is mostly trace events and stack frames, the decoder
//! turns each dict that is a trace event (it has an `action` key) into a row
//! of a columnar [`EventTable`] and each frame dict into a [`Frame`] as soon as
//! the dict is complete, and interns each frames list into a stack. The
//! generic dict storage is dropped right away, so memory stays proportional
//! to the model, not to a tree of Python objects.
//!
//! Input can be fed in chunks ([`PickleDecoder::feed`]): an opcode cut by a
//! chunk boundary waits for the next chunk.

use std::borrow::Cow;
use std::cell::Cell;
use std::hash::Hasher as _;

use super::fast_hash::{FastMap, FxHasher};

use crate::error::{Error, ErrorKind, Result};
use crate::model::{
    Action, EventExtra, EventTable, Frame, FrameFx, FrameId, Plain, StackId, Stacks, StrId, Strings, UserMetadata,
    NO_EXTRA, NO_POOL, NO_TIME,
};
use crate::problems::{frames_read_as, Found, Outcome, Problem};

/// A value on the pickle stack or in a container. Containers are ids into the
/// decoder's arenas, so copying a `Value` never copies a container.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    /// An integer that needs more than 64 bits: index into `bigs`.
    Big(u32),
    Float(f64),
    Str(StrId),
    Bytes(u32),
    List(u32),
    Tuple(u32),
    Dict(u32),
    /// A trace event dict read as one unit ([`PickleDecoder::event_at`]):
    /// its global event index. It never gets a dict record (8 bytes an
    /// event); a dict that became an event item by item stays a `Dict`
    /// whose record says [`DictRec::Event`] ([`Arena::event_of`] reads both).
    Event(u32),
}

impl Value {
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "None",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::Big(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) | Value::Event(_) => "dict",
        }
    }
}

/// A list (or tuple, or set) in the arena.
#[derive(Debug, Clone)]
pub enum ListRec {
    Empty,
    /// Index into `Arena::list_store`.
    Items(u32),
    /// A frames list already interned as a stack.
    Stack(StackId),
    /// Trace events in a row (index into `Arena::event_runs`): a device's
    /// trace as the pickler writes it, its items never stored one by one
    /// (8 bytes an event, and their copies as the list grew).
    Events(u32),
    /// The items are in `Arena::pending`: the last list that APPENDS filled
    /// while it was empty (at most one list at a time). A frames list is
    /// filled once and interned right after, so its items never get a
    /// `Vec` of their own (one allocation and one free less per event).
    Pending,
}

/// [`Arena::list_values`].
pub enum ListValues<'a> {
    Items(Cow<'a, [Value]>),
    Events(std::ops::Range<u32>),
}

impl ListValues<'_> {
    /// The items in order.
    pub fn iter(&self) -> impl Iterator<Item = Value> + '_ {
        let (items, events) = match self {
            ListValues::Items(v) => (&v[..], 0..0),
            ListValues::Events(r) => (&[][..], r.clone()),
        };
        items.iter().copied().chain(events.map(Value::Event))
    }
}

/// Trace events `first .. first + len` (global indices), in that order.
#[derive(Debug, Clone, Copy)]
struct EventRun {
    first: u32,
    len: u32,
}

/// A dict in the arena.
#[derive(Debug, Clone)]
pub enum DictRec {
    Empty,
    /// Index into `Arena::dict_store`.
    Items(u32),
    /// A trace event, moved into the event table (global event index).
    Event(u32),
    /// A stack frame, moved into the frame table.
    Frame(FrameId),
}

/// Keys the decoder recognises, found by string id without comparing text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum DictKind {
    Event,
    Frame,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Key {
    None = 0,
    Action,
    Addr,
    Size,
    Stream,
    TimeUs,
    Frames,
    CompileContext,
    UserMetadata,
    InternalMetadata,
    PoolId,
    ForwardFrames,
    DeviceFree,
    Filename,
    Line,
    Name,
    FxNodeOp,
    FxNodeName,
    FxNodeTarget,
    FxOriginalTrace,
}

fn key_of(s: &str) -> Key {
    match s {
        "action" => Key::Action,
        "addr" => Key::Addr,
        "size" => Key::Size,
        "stream" => Key::Stream,
        "time_us" => Key::TimeUs,
        "frames" => Key::Frames,
        "compile_context" => Key::CompileContext,
        "user_metadata" => Key::UserMetadata,
        "internal_metadata" => Key::InternalMetadata,
        "pool_id" => Key::PoolId,
        "forward_frames" => Key::ForwardFrames,
        "device_free" => Key::DeviceFree,
        "filename" => Key::Filename,
        "line" => Key::Line,
        "name" => Key::Name,
        "fx_node_op" => Key::FxNodeOp,
        "fx_node_name" => Key::FxNodeName,
        "fx_node_target" => Key::FxNodeTarget,
        "fx_original_trace" => Key::FxOriginalTrace,
        _ => Key::None,
    }
}

/// No integer in a snapshot needs more than 16 bytes (addresses above 2^64
/// fit); a longer one is refused rather than carried as a bignum.
const MAX_INT_BYTES: usize = 16;
const HIGHEST_PROTOCOL: u8 = 5;
/// Longest string or bytes value: string offsets in the model are 32-bit.
const MAX_PAYLOAD: u64 = u32::MAX as u64;

/// The decoder's arenas and the model parts it fills while decoding.
#[derive(Debug)]
pub struct Arena {
    pub strings: Strings,
    str_key: Vec<Key>,
    /// The action each string names, so events need no string compare.
    str_action: Vec<Action>,
    last_stream: Option<(u64, u32)>,
    pub bigs: Vec<i128>,
    pub bytes: Vec<Vec<u8>>,
    /// One small record per list / dict; items live apart so the records
    /// of converted events and frames cost 8 bytes each.
    pub lists: Vec<ListRec>,
    pub dicts: Vec<DictRec>,
    pub list_store: Vec<Vec<Value>>,
    /// The trace events of each [`ListRec::Events`] list.
    event_runs: Vec<EventRun>,
    /// Items of the one [`ListRec::Pending`] list, and which list that is.
    pending: Vec<Value>,
    pending_list: Option<u32>,
    pub dict_store: Vec<Vec<(Value, Value)>>,
    pub frames: Vec<Frame>,
    pub frame_fx: Vec<FrameFx>,
    pub stacks: Stacks,
    stack_index: FastMap<u64, StackId>,
    /// Frame ids of the stack being interned (reused: no allocation per event).
    stack_scratch: Vec<FrameId>,
    /// Trace events in decode order, in tables: `events` takes new ones;
    /// `sealed` holds the tables closed where a run of events (a device's
    /// trace) began, so that each device's columns are apart when the model
    /// is built ([`Arena::take_events`]) and need no copy then (37 MB on
    /// the 2-device 2M-event file). `events_base`: the global index of
    /// `events`' first event.
    events: EventTable,
    sealed: Vec<EventTable>,
    events_base: u32,
    pub extras: Vec<EventExtra>,
    /// The extra of the events that have only a compile_context, by its text.
    context_extras: FastMap<String, u32>,
    /// The last of them: the same context event after event, as a rule.
    last_context: Option<(StrId, u32)>,
    /// Raw stream handles in order of first appearance.
    pub raw_streams: Vec<u64>,
    stream_index: FastMap<u64, u32>,
    pool_index: FastMap<(i64, i64), u32>,
    /// Fields of trace events that could not be read as they are, by
    /// global event index (ascending): where the event is in the file is
    /// known only when the model is built.
    pub event_problems: Vec<(u32, Problem)>,
    /// Items added to an event or frames list after it was complete (the
    /// memo fetched it again): not part of the model.
    pub late_items: u64,
    pub unknown_event_keys: u64,
    /// Bytes that may still be copied out of shared values into owned text
    /// (allocator settings, user metadata, forward frames, action names).
    /// It grows with the input, so a value referenced a million times
    /// through the memo cannot be copied a million times.
    copy_left: Cell<u64>,
    /// Copies refused because `copy_left` ran out.
    pub elided_copies: Cell<u64>,
    /// How the decoder's tables grow ([`Growth`]).
    growth: Growth,
    /// Input offset of the first trace event: the event columns grow at
    /// the rate of the bytes since.
    events_from: u64,
}

/// How the decoder's large tables (the event columns, the memo, the list
/// and dict records, a trace's list) grow once full. With the input's size
/// known ([`PickleDecoder::expect`]), to what the whole input will need at
/// the rate the bytes so far needed, a little over: a table is then copied
/// once or twice, not on every doubling (in wasm a doubling copies: 12% of
/// the 2M-event file's decode), and holds little unused room at the end.
/// Without it, as `Vec` grows.
#[derive(Debug, Default, Clone, Copy)]
struct Growth {
    /// Input bytes decoded so far (as of the last trace event or opcode
    /// `step` ran: the hot opcodes in between are a few events' worth).
    decoded: u64,
    /// The input's whole size, if known.
    expected: Option<u64>,
}

impl Growth {
    /// Inputs, and tables, smaller than these grow as `Vec` does: the
    /// rate is not yet worth a guess.
    const MIN_DECODED: u64 = 1 << 20;
    const MIN_LEN: usize = 4096;

    /// Room for `more` items in `v`, made by `room` when it lacks it.
    #[inline(always)]
    fn reserve<T>(self, v: &mut Vec<T>, more: usize) {
        self.reserve_from(v, more, 0);
    }

    /// `reserve` of a table whose items start at input offset `from` (`room`).
    #[inline(always)]
    fn reserve_from<T>(self, v: &mut Vec<T>, more: usize, from: u64) {
        if v.capacity() - v.len() < more {
            self.room(v, more, from);
        }
    }

    /// Makes room for `more` items in `v`, whose items come from input
    /// offset `from` on: the rate is that of the bytes since then. The
    /// event columns start there at the first event, since the segments
    /// before them hold none (the 2M-event file's columns reserved 83% of
    /// their need, then were copied again: 62 MB of fresh memory).
    #[cold]
    #[inline(never)]
    fn room<T>(self, v: &mut Vec<T>, more: usize, from: u64) {
        let (len, need) = (v.len(), v.len().saturating_add(more));
        let want = match self.expected {
            Some(total)
                if self.decoded >= from.saturating_add(Self::MIN_DECODED) && total > from && len >= Self::MIN_LEN =>
            {
                let (total, decoded) = (total - from, self.decoded - from);
                let est = (len as u128 * total as u128 / decoded as u128).min(usize::MAX as u128) as usize;
                // A sixteenth over the estimate; at least a quarter more
                // (an estimate too low must not make a copy per item); at
                // most an item per 16 input bytes (no table has more in a
                // snapshot: a start dense in items must not reserve room
                // for a whole file of them).
                let most = need.max((total / 16).min(usize::MAX as u64) as usize);
                est.saturating_add(est / 16).max(need.max(len + len / 4)).min(most)
            }
            _ => {
                v.reserve(more);
                return;
            }
        };
        if v.try_reserve_exact(want - len).is_err() {
            v.reserve(more);
        }
    }
}

/// Copy budget every input starts with, and what each input byte adds.
const COPY_BASE: u64 = 16 << 20;
const COPY_PER_INPUT_BYTE: u64 = 4;
/// Events and frames have a dozen keys; a dict with more is neither, and is
/// not scanned again each time an item is added or it is referenced.
const MAX_RECORD_KEYS: usize = 64;
/// Protocol 0 text opcodes (INT, FLOAT, UNICODE, PUT...) end at a newline;
/// no line in a memory snapshot comes near this.
const MAX_LINE: usize = 1 << 20;
/// Most key / value pairs a trace event read as one unit
/// ([`PickleDecoder::event_at`]) has: PyTorch 2.11 writes 8.
const EVENT_AT_PAIRS: usize = 12;
/// Memo indices are sequential in every pickle Python writes; a PUT that
/// skips ahead more than this goes to the sparse map instead of growing the
/// dense memo (8 bytes a slot: a gap of 4096 per 5-byte LONG_BINPUT would
/// make a 1 MB file take 6.5 GB).
const MEMO_DENSE_GAP: u64 = 8;

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl Arena {
    pub fn new() -> Self {
        Arena {
            strings: Strings::default(),
            str_key: vec![Key::None],
            str_action: vec![Action::Other],
            last_stream: None,
            bigs: Vec::new(),
            bytes: Vec::new(),
            lists: Vec::new(),
            dicts: Vec::new(),
            list_store: Vec::new(),
            pending: Vec::new(),
            pending_list: None,
            event_runs: Vec::new(),
            events_from: 0,
            dict_store: Vec::new(),
            frames: Vec::new(),
            frame_fx: Vec::new(),
            stacks: Stacks::default(),
            stack_index: FastMap::default(),
            stack_scratch: Vec::new(),
            events: EventTable::default(),
            sealed: Vec::new(),
            events_base: 0,
            extras: Vec::new(),
            context_extras: FastMap::default(),
            last_context: None,
            raw_streams: Vec::new(),
            stream_index: FastMap::default(),
            pool_index: FastMap::default(),
            event_problems: Vec::new(),
            late_items: 0,
            unknown_event_keys: 0,
            copy_left: Cell::new(COPY_BASE),
            elided_copies: Cell::new(0),
            growth: Growth::default(),
        }
    }

    /// Adds the copy budget that `n` more input bytes earn.
    pub fn credit_input(&mut self, n: u64) {
        let c = self.copy_left.get_mut();
        *c = c.saturating_add(n.saturating_mul(COPY_PER_INPUT_BYTE));
    }

    /// Takes `n` bytes from the copy budget; false (and counted) when spent.
    fn charge(&self, n: usize) -> bool {
        let left = self.copy_left.get();
        if (n as u64) <= left {
            self.copy_left.set(left - n as u64);
            true
        } else {
            self.elided_copies.set(self.elided_copies.get() + 1);
            false
        }
    }

    /// An owned copy of a string, within the copy budget ("…" beyond it).
    fn copy_str(&self, id: StrId) -> String {
        let s = self.str(id);
        if self.charge(s.len() + 16) {
            s.to_string()
        } else {
            "…".to_string()
        }
    }

    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    fn push_str(&mut self, s: &str) -> StrId {
        // A short text written out again right after itself (PyTorch 2.5's
        // compile_context "N/A": a new str object per event, so not
        // memoized) takes the last one's id again: ~13 bytes an event less.
        let last = (self.strings.len() - 1) as StrId;
        if s.len() <= 16 && last != 0 && self.strings.get(last) == s {
            return last;
        }
        let id = self.strings.push(s);
        if id as usize == self.str_key.len() {
            self.str_key.push(if s.len() <= 20 { key_of(s) } else { Key::None });
            self.str_action.push(if s.len() <= 16 { Action::from_name(s) } else { Action::Other });
        }
        id
    }

    fn key(&self, v: &Value) -> Key {
        match v {
            Value::Str(id) => self.str_key[*id as usize],
            _ => Key::None,
        }
    }

    pub fn int(&self, v: &Value) -> Option<i128> {
        match *v {
            Value::Int(i) => Some(i as i128),
            Value::Big(b) => Some(self.bigs[b as usize]),
            Value::Bool(b) => Some(b as i128),
            _ => None,
        }
    }

    pub fn intern_stream(&mut self, raw: u64) -> u32 {
        if let Some((r, i)) = self.last_stream {
            if r == raw {
                return i;
            }
        }
        if let Some(&i) = self.stream_index.get(&raw) {
            self.last_stream = Some((raw, i));
            return i;
        }
        let i = self.raw_streams.len() as u32;
        self.raw_streams.push(raw);
        self.stream_index.insert(raw, i);
        i
    }

    /// Items of a list-like value (list, tuple or set), if it is one; a
    /// run of trace events is written out (`event_range` reads it as is).
    pub fn list_items(&self, v: &Value) -> Option<Cow<'_, [Value]>> {
        match *v {
            Value::List(id) | Value::Tuple(id) => Some(match self.lists[id as usize] {
                ListRec::Items(i) => Cow::Borrowed(&self.list_store[i as usize]),
                ListRec::Pending => Cow::Borrowed(&self.pending),
                ListRec::Empty | ListRec::Stack(_) => Cow::Borrowed(&[]),
                ListRec::Events(r) => Cow::Owned(self.run_items(r)),
            }),
            _ => None,
        }
    }

    /// Items of a list-like value one by one, a run of trace events
    /// without writing it out (a device's trace).
    pub fn list_values(&self, v: &Value) -> Option<ListValues<'_>> {
        Some(match self.event_range(v) {
            Some(r) => ListValues::Events(r),
            None => ListValues::Items(self.list_items(v)?),
        })
    }

    /// The trace events a list holds, when they are a run (a device's
    /// trace as the pickler writes it).
    pub fn event_range(&self, v: &Value) -> Option<std::ops::Range<u32>> {
        match *v {
            Value::List(id) | Value::Tuple(id) => match self.lists[id as usize] {
                ListRec::Events(r) => {
                    let EventRun { first, len } = self.event_runs[r as usize];
                    Some(first..first + len)
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The trace event a value is, if it is one.
    #[inline]
    pub fn event_of(&self, v: &Value) -> Option<u32> {
        match *v {
            Value::Event(ev) => Some(ev),
            Value::Dict(id) => match self.dicts[id as usize] {
                DictRec::Event(ev) => Some(ev),
                _ => None,
            },
            _ => None,
        }
    }

    /// The first of `items` if they are trace events in a row.
    fn event_run_start(&self, items: &[Value]) -> Option<u32> {
        let first = self.event_of(items.first()?)?;
        let in_row = items.iter().zip(first..).all(|(v, ev)| self.event_of(v) == Some(ev));
        in_row.then_some(first)
    }

    /// Trace events decoded so far (the next one's global index).
    pub fn event_count(&self) -> usize {
        self.events_base as usize + self.events.len()
    }

    /// A run of trace events (a device's trace) begins at event `start`:
    /// the events before it go into a table of their own (`sealed`). A
    /// small part stays where it is (a file of many short traces keeps one
    /// table; `split_events` copies what is not one device's whole table).
    fn seal_events_at(&mut self, start: u32) {
        const MIN_EVENTS: usize = 4096;
        let Some(at) = start.checked_sub(self.events_base).map(|a| a as usize) else { return };
        let ev = &mut self.events;
        if at < MIN_EVENTS || at > ev.len() {
            return;
        }
        // The events after `start` (those of the batch the pickler appends
        // at once, ~1000) begin the next table; the room reserved for the
        // whole input's events goes back, untouched, for it to take.
        let mut rest = ev.split_off(at);
        ev.shrink_to_fit();
        // The pool ids are interned in the table that takes new events.
        rest.pool_ids = std::mem::take(&mut ev.pool_ids);
        // The next table grows at the rate of the bytes since its first
        // event, which lies about as far back as its events take.
        let (decoded, from, n) = (self.growth.decoded, self.events_from, (at + rest.len()) as u64);
        self.events_from = decoded - (decoded.saturating_sub(from) * rest.len() as u64 / n.max(1));
        self.sealed.push(std::mem::replace(ev, rest));
        self.events_base = start;
    }

    /// The trace event tables in decode order (see `Arena::events`); the
    /// arena keeps none.
    pub fn take_events(&mut self) -> Vec<EventTable> {
        let mut tables = std::mem::take(&mut self.sealed);
        tables.push(std::mem::take(&mut self.events));
        self.events_base = 0;
        tables
    }

    fn run_items(&self, r: u32) -> Vec<Value> {
        let EventRun { first, len } = self.event_runs[r as usize];
        (first..first + len).map(Value::Event).collect()
    }

    /// Adds `items` to the list `id` (a fresh one or a run of events) as a
    /// run of events if they continue it: false, with nothing changed, if not.
    fn extend_run(&mut self, id: u32, items: &[Value]) -> bool {
        let Some(start) = self.event_run_start(items) else { return false };
        let n = items.len() as u32;
        match self.lists[id as usize] {
            ListRec::Empty => {
                self.seal_events_at(start);
                self.event_runs.push(EventRun { first: start, len: n });
                self.lists[id as usize] = ListRec::Events((self.event_runs.len() - 1) as u32);
                true
            }
            ListRec::Events(r) => {
                let run = &mut self.event_runs[r as usize];
                if start != run.first + run.len {
                    return false;
                }
                run.len += n;
                true
            }
            _ => false,
        }
    }

    pub fn dict_items(&self, v: &Value) -> Option<&[(Value, Value)]> {
        match *v {
            Value::Dict(id) => match self.dicts[id as usize] {
                DictRec::Items(i) => Some(&self.dict_store[i as usize]),
                DictRec::Empty => Some(&[]),
                _ => None,
            },
            // An event or a frame: not a generic dict.
            _ => None,
        }
    }

    /// Interns a frames list as a stack (once per list object: the list
    /// record is replaced by the stack id, dropping its items). Values that
    /// are not frames are left out, and said so the first time.
    pub fn stack_of(&mut self, v: &Value) -> (StackId, Option<Found>) {
        let id = match *v {
            Value::List(id) | Value::Tuple(id) => id,
            Value::None => return (0, None),
            other => return (0, Some(Found::Type(other.type_name()))),
        };
        let (items, pending) = match self.lists[id as usize] {
            ListRec::Stack(s) => return (s, None),
            ListRec::Empty => (Vec::new(), false),
            ListRec::Items(i) => (std::mem::take(&mut self.list_store[i as usize]), false),
            ListRec::Pending => (std::mem::take(&mut self.pending), true),
            ListRec::Events(r) => (self.run_items(r), false),
        };
        let mut frame_ids = std::mem::take(&mut self.stack_scratch);
        frame_ids.clear();
        let mut bad = false;
        for it in &items {
            match it {
                Value::Dict(d) => match self.dicts[*d as usize] {
                    DictRec::Frame(f) => frame_ids.push(f),
                    _ => bad = true,
                },
                _ => bad = true,
            }
        }
        let sid = self.intern_stack(&frame_ids);
        self.stack_scratch = frame_ids;
        self.lists[id as usize] = ListRec::Stack(sid);
        if pending {
            // The buffer is kept for the next list.
            self.pending = items;
            self.pending.clear();
            self.pending_list = None;
        }
        (sid, bad.then_some(Found::NotFrames))
    }

    fn intern_stack(&mut self, frames: &[FrameId]) -> StackId {
        self.intern_stack_hashed(frames, hash_u32s(frames))
    }

    /// [`Arena::intern_stack`] with the frames' [`hash_u32s`] already made.
    fn intern_stack_hashed(&mut self, frames: &[FrameId], h: u64) -> StackId {
        if frames.is_empty() {
            return 0;
        }
        if let Some(&sid) = self.stack_index.get(&h) {
            if same_frames(self.stacks.get(sid), frames) {
                return sid;
            }
            // A hash collision: keep the stack unshared rather than chain.
            return self.stacks.push(frames);
        }
        let sid = self.stacks.push(frames);
        self.stack_index.insert(h, sid);
        sid
    }

    /// A readable copy of a small value (allocator settings, metadata), with
    /// a budget so shared or cyclic structures cannot blow up.
    pub fn plain(&self, v: &Value, budget: &mut usize, depth: usize) -> Plain {
        if *budget == 0 || depth > 64 || !self.charge(16) {
            return Plain::Elided;
        }
        *budget -= 1;
        match *v {
            Value::None => Plain::None,
            Value::Bool(b) => Plain::Bool(b),
            Value::Int(i) => Plain::Int(i as i128),
            Value::Big(b) => Plain::Int(self.bigs[b as usize]),
            Value::Float(f) => Plain::Float(f),
            Value::Str(s) => Plain::Str(self.copy_str(s)),
            Value::Bytes(b) => {
                let b = &self.bytes[b as usize];
                if self.charge(b.len()) {
                    Plain::Bytes(b.clone())
                } else {
                    Plain::Elided
                }
            }
            // Containers stop at the budget with one Elided for the rest.
            Value::List(_) | Value::Tuple(_) => match self.list_items(v) {
                Some(items) => {
                    let mut out = Vec::with_capacity(items.len().min(*budget));
                    for x in items.iter() {
                        if *budget == 0 {
                            out.push(Plain::Elided);
                            break;
                        }
                        out.push(self.plain(x, budget, depth + 1));
                    }
                    Plain::List(out)
                }
                None => Plain::Elided,
            },
            Value::Dict(_) | Value::Event(_) => match self.dict_items(v) {
                Some(items) => {
                    let mut out = Vec::with_capacity(items.len().min(*budget));
                    for (k, x) in items {
                        if *budget == 0 {
                            out.push((Plain::Elided, Plain::Elided));
                            break;
                        }
                        out.push((self.plain(k, budget, depth + 1), self.plain(x, budget, depth + 1)));
                    }
                    Plain::Map(out)
                }
                _ => Plain::Elided,
            },
        }
    }

    pub fn user_metadata(&self, v: &Value) -> Option<UserMetadata> {
        match v {
            // PyTorch 2.11 writes an empty one for each event: no copy.
            Value::Str(s) if self.str(*s).is_empty() => None,
            Value::Str(s) => Some(UserMetadata::Text(self.copy_str(*s))),
            Value::Dict(_) | Value::Event(_) => {
                let items = self.dict_items(v)?;
                let mut budget = 10_000;
                Some(UserMetadata::Map(
                    items
                        .iter()
                        .map(|(k, x)| (self.plain(k, &mut budget, 0).text(), self.plain(x, &mut budget, 0).text()))
                        .collect(),
                ))
            }
            Value::None => None,
            other => {
                let mut budget = 10_000;
                Some(UserMetadata::Text(self.plain(other, &mut budget, 0).text()))
            }
        }
        .filter(|m| !m.is_empty())
    }

    /// Moves the pending list's items into a `Vec` of their own (another
    /// list is about to be pending).
    fn park_pending(&mut self) {
        if let Some(p) = self.pending_list.take() {
            let items = self.pending.clone();
            self.pending.clear();
            self.lists[p as usize] = self.store_list(items);
        }
    }

    /// What a complete dict's flat `k, v, k, v...` items make it.
    fn classify(&self, flat: &[Value]) -> DictKind {
        let mut is_event = false;
        let mut frame_keys = 0;
        let mut other_keys = 0;
        for kv in flat.chunks_exact(2) {
            match self.key(&kv[0]) {
                Key::Action if matches!(kv[1], Value::Str(_)) => is_event = true,
                Key::Filename | Key::Name => frame_keys += 1,
                Key::Line | Key::FxNodeOp | Key::FxNodeName | Key::FxNodeTarget | Key::FxOriginalTrace => {}
                _ => other_keys += 1,
            }
        }
        if is_event {
            DictKind::Event
        } else if frame_keys == 2 && other_keys == 0 {
            DictKind::Frame
        } else {
            DictKind::Other
        }
    }

    /// Turns a complete dict into a trace event or a frame when it is one.
    /// Returns false when it stays a generic dict.
    fn convert_dict(&mut self, id: u32, flat: &[Value]) -> bool {
        if let Some(ev) = self.push_plain_event(flat).or_else(|| self.push_context_event(flat)) {
            self.dicts[id as usize] = DictRec::Event(ev);
            return true;
        }
        match self.classify(flat) {
            DictKind::Event => {
                let ev = self.push_event(flat);
                self.dicts[id as usize] = DictRec::Event(ev);
                true
            }
            DictKind::Frame => {
                let f = self.push_frame(flat);
                self.dicts[id as usize] = DictRec::Frame(f);
                true
            }
            DictKind::Other => false,
        }
    }

    /// Called when a dict built item by item is complete (it went into a
    /// container, or is the result): trace events and frames leave the
    /// generic arena for their tables.
    fn finish_dict(&mut self, id: u32) {
        let flat: Vec<Value> = match self.dicts[id as usize] {
            DictRec::Items(i) if self.dict_store[i as usize].len() <= MAX_RECORD_KEYS => {
                self.dict_store[i as usize].iter().flat_map(|(k, v)| [*k, *v]).collect()
            }
            _ => return,
        };
        self.convert_dict(id, &flat);
    }

    fn push_frame(&mut self, flat: &[Value]) -> FrameId {
        let mut frame = Frame { fx: u32::MAX, ..Default::default() };
        let mut fx = FrameFx::default();
        let mut has_fx = false;
        for kv in flat.chunks_exact(2) {
            let (k, v) = (&kv[0], &kv[1]);
            let s = match v {
                Value::Str(s) => Some(*s),
                _ => None,
            };
            match self.key(k) {
                Key::Filename => frame.filename = s.unwrap_or(0),
                Key::Name => frame.name = s.unwrap_or(0),
                Key::Line => frame.line = self.int(v).map(|i| i as i64).unwrap_or(0),
                Key::FxNodeOp => (fx.node_op, has_fx) = (s, true),
                Key::FxNodeName => (fx.node_name, has_fx) = (s, true),
                Key::FxNodeTarget => (fx.node_target, has_fx) = (s, true),
                Key::FxOriginalTrace => (fx.original_trace, has_fx) = (s, true),
                _ => {}
            }
        }
        if has_fx {
            frame.fx = self.frame_fx.len() as u32;
            self.frame_fx.push(fx);
        }
        self.frames.push(frame);
        (self.frames.len() - 1) as FrameId
    }

    fn push_event(&mut self, flat: &[Value]) -> u32 {
        let idx = self.event_count() as u32;
        let mut action = Action::Other;
        let mut action_name = None;
        let (mut addr, mut size, mut stream, mut time, mut stack) = (0u128, 0u64, 0u64, NO_TIME, 0);
        // addr and size are checked once the action is known (it may come
        // after them): whether a bad one makes the event unusable depends on it.
        let (mut addr_found, mut size_found) = (Some(Found::Missing), Some(Found::Missing));
        let mut pool = NO_POOL;
        let mut extra: Option<EventExtra> = None;
        for kv in flat.chunks_exact(2) {
            let (k, v) = (&kv[0], &kv[1]);
            match self.key(k) {
                Key::Action => {
                    if let Value::Str(s) = v {
                        action = self.str_action[*s as usize];
                        if action == Action::Other {
                            action_name = Some(self.copy_str(*s));
                        }
                    }
                }
                Key::Addr => (addr, addr_found) = self.read_unsigned(v),
                Key::Size => {
                    let (n, f) = self.read_unsigned(v);
                    (size, size_found) = (n as u64, f);
                }
                Key::Stream => {
                    let (n, f) = self.read_unsigned(v);
                    stream = n as u64;
                    self.event_problem(idx, "stream", f, "an int", "0");
                }
                Key::TimeUs => match self.int(v) {
                    Some(t) => time = t.clamp(i64::MIN as i128 + 1, i64::MAX as i128) as i64,
                    None if *v == Value::None => {}
                    None => self.event_problem(idx, "time_us", Some(Found::Type(v.type_name())), "an int", "no time"),
                },
                Key::Frames => {
                    let (st, f) = self.stack_of(v);
                    stack = st;
                    if let Some(f) = f {
                        self.event_problem(idx, "frames", Some(f), "a list", frames_read_as(f));
                    }
                }
                Key::CompileContext => match v {
                    Value::Str(s) => extra.get_or_insert_with(Default::default).compile_context = Some(*s),
                    Value::None => {}
                    other => self.event_problem(
                        idx,
                        "compile_context",
                        Some(Found::Type(other.type_name())),
                        "a str",
                        "None",
                    ),
                },
                Key::UserMetadata => {
                    if let Some(m) = self.user_metadata(v) {
                        extra.get_or_insert_with(Default::default).user_metadata = Some(m);
                    }
                }
                Key::InternalMetadata => {
                    if let Some(m) = self.user_metadata(v) {
                        extra.get_or_insert_with(Default::default).internal_metadata = Some(m);
                    }
                }
                Key::PoolId => match self.pool_pair(v) {
                    Some(p) => pool = self.intern_pool(p),
                    None if *v == Value::None => {}
                    None => self.event_problem(
                        idx,
                        "pool_id",
                        Some(Found::Type(v.type_name())),
                        "an (owner, id) pair",
                        "unknown",
                    ),
                },
                Key::ForwardFrames => {
                    let lines: Vec<String> = self
                        .list_items(v)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|x| match x {
                            Value::Str(s) => Some(self.copy_str(*s)),
                            _ => None,
                        })
                        .collect();
                    if !lines.is_empty() {
                        extra.get_or_insert_with(Default::default).forward_frames = lines;
                    }
                }
                Key::DeviceFree => {
                    let (n, f) = self.read_unsigned(v);
                    extra.get_or_insert_with(Default::default).device_free = Some(n as u64);
                    self.event_problem(idx, "device_free", f, "an int", "0");
                }
                _ => self.unknown_event_keys += 1,
            }
        }
        // The fields an action cannot do without: an alloc at a made-up
        // address 0 would be drawn and matched like a real one.
        let (needs_addr, needs_size) = match action {
            a if a.is_segment() => (true, true),
            a if a.is_block() => (true, true),
            Action::Annotate => (true, false),
            _ => (false, false),
        };
        for (field, found, needed) in [("addr", addr_found, needs_addr), ("size", size_found, needs_size)] {
            match found {
                Some(Found::Missing) if !needed => {}
                Some(f) => {
                    let outcome = if needed { Outcome::Skip } else { Outcome::ReadAs("0") };
                    self.event_problems.push((idx, Problem { field, found: f, expected: "an int", outcome }));
                }
                None => {}
            }
        }
        self.push_row(Row { action, addr, size, stream, time, stack, pool }, action_name, extra);
        idx
    }

    /// The trace event PyTorch writes for nearly every allocator call:
    /// exactly `action, addr, size, stream, time_us, frames`, in that
    /// order, with a known action and ints that need no checking. One pass
    /// over it with no branch per key (the general loop's per-key dispatch
    /// is most of its time). None, and nothing changed, for any other
    /// dict: [`Arena::push_event`] reads those.
    fn push_plain_event(&mut self, flat: &[Value]) -> Option<u32> {
        let &[ka, Value::Str(a), kaddr, Value::Int(addr), ksize, Value::Int(size), kstream, Value::Int(stream), ktime, Value::Int(time), kframes, frames] =
            flat
        else {
            return None;
        };
        let is = |k: Value, want: Key| self.key(&k) == want;
        if !(is(ka, Key::Action)
            && is(kaddr, Key::Addr)
            && is(ksize, Key::Size)
            && is(kstream, Key::Stream)
            && is(ktime, Key::TimeUs)
            && is(kframes, Key::Frames))
        {
            return None;
        }
        let (idx, row) = self.plain_row(a, [addr, size, stream, time], frames)?;
        self.push_row(row, None, None);
        Some(idx)
    }

    /// The row of an event whose keys were read by [`Arena::push_plain_event`]
    /// or [`Arena::push_context_event`]: `ints` are addr, size, stream and
    /// time_us. None, and nothing changed, when addr, size or stream is
    /// negative or the action is one [`Arena::push_event`] must copy.
    #[inline(always)]
    fn plain_row(&mut self, action: StrId, ints: [i64; 4], frames: Value) -> Option<(u32, Row)> {
        let [addr, size, stream, time] = ints;
        if !self.plain_ok(action, ints) {
            return None;
        }
        let action = self.str_action[action as usize];
        let idx = self.event_count() as u32;
        let (stack, found) = self.stack_of(&frames);
        if let Some(f) = found {
            self.event_problem(idx, "frames", Some(f), "a list", frames_read_as(f));
        }
        // As push_event's clamp: i64::MIN is no time of its own.
        let time = time.max(i64::MIN + 1);
        let row =
            Row { action, addr: addr as u128, size: size as u64, stream: stream as u64, time, stack, pool: NO_POOL };
        Some((idx, row))
    }

    /// Whether [`Arena::plain_row`] makes a row of these: addr, size and
    /// stream not negative, an action it knows (another's name is copied by
    /// [`Arena::push_event`]).
    #[inline(always)]
    fn plain_ok(&self, action: StrId, [addr, size, stream, _]: [i64; 4]) -> bool {
        (addr | size | stream) >= 0 && self.str_action[action as usize] != Action::Other
    }

    /// A trace event of PyTorch 2.5 on: the six keys of
    /// [`Arena::push_plain_event`] in any order, with `compile_context` (a
    /// str or None) and `user_metadata` (None or an empty str), each at most
    /// once, and values that need no checking. What [`Arena::push_event`]
    /// makes of it, without its general per-key reader and without an
    /// [`EventExtra`] made and dropped per event (a shared context's is
    /// found by its text). None, and nothing changed, for any other dict.
    fn push_context_event(&mut self, flat: &[Value]) -> Option<u32> {
        let (mut action, mut addr, mut size, mut stream, mut time) = (0, 0i64, 0i64, 0i64, 0i64);
        let (mut frames, mut context) = (Value::None, None);
        let mut seen = 0u32;
        for kv in flat.chunks_exact(2) {
            let key = self.key(&kv[0]);
            let bit = 1u32 << key as u32;
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            match (key, kv[1]) {
                (Key::Action, Value::Str(a)) => action = a,
                (Key::Addr, Value::Int(i)) => addr = i,
                (Key::Size, Value::Int(i)) => size = i,
                (Key::Stream, Value::Int(i)) => stream = i,
                (Key::TimeUs, Value::Int(i)) => time = i,
                (Key::Frames, v) => frames = v,
                (Key::CompileContext, Value::Str(c)) => context = Some(c),
                (Key::CompileContext | Key::UserMetadata, Value::None) => {}
                (Key::UserMetadata, Value::Str(m)) if self.str(m).is_empty() => {}
                _ => return None,
            }
        }
        const NEEDED: u32 = (1 << Key::Action as u32)
            | (1 << Key::Addr as u32)
            | (1 << Key::Size as u32)
            | (1 << Key::Stream as u32)
            | (1 << Key::TimeUs as u32)
            | (1 << Key::Frames as u32);
        if seen & NEEDED != NEEDED {
            return None;
        }
        let (idx, row) = self.plain_row(action, [addr, size, stream, time], frames)?;
        self.push_context_row(row, context);
        Some(idx)
    }

    /// Appends the row of a 2.5-on event whose only extra is its
    /// compile_context `context` (when a str).
    #[inline(always)]
    fn push_context_row(&mut self, row: Row, context: Option<StrId>) {
        match context {
            None => self.push_row(row, None, None),
            Some(c) => match self.known_context(c) {
                Some(i) => {
                    self.push_row(row, None, None);
                    *self.events.extra.last_mut().expect("a row was pushed") = i;
                }
                None => self.push_row(row, None, Some(EventExtra { compile_context: Some(c), ..Default::default() })),
            },
        }
    }

    /// The shared extra of events whose only extra is compile_context `c`
    /// (by its text), when one was made.
    fn known_context(&mut self, c: StrId) -> Option<u32> {
        let known = match self.last_context {
            Some((lc, i)) if lc == c || self.strings.get(lc) == self.strings.get(c) => Some(i),
            _ => self.context_extras.get(self.strings.get(c)).copied(),
        };
        if let Some(i) = known {
            self.last_context = Some((c, i));
        }
        known
    }

    /// Appends one event's columns.
    fn push_row(&mut self, row: Row, action_name: Option<String>, extra: Option<EventExtra>) {
        let Row { action, addr, size, stream, time, stack, pool } = row;
        let stream = self.intern_stream(stream);
        let ev = &mut self.events;
        if ev.action.is_empty() && self.sealed.is_empty() {
            self.events_from = self.growth.decoded;
        }
        if ev.action.len() == ev.action.capacity() {
            let (g, from) = (self.growth, self.events_from);
            g.room(&mut ev.action, 1, from);
            g.reserve_from(&mut ev.addr_lo, 1, from);
            g.reserve_from(&mut ev.size, 1, from);
            g.reserve_from(&mut ev.stream, 1, from);
            g.reserve_from(&mut ev.time_us, 1, from);
            g.reserve_from(&mut ev.stack, 1, from);
            g.reserve_from(&mut ev.extra, 1, from);
        }
        let idx = ev.action.len() as u32;
        ev.action.push(action);
        ev.addr_lo.push(addr as u64);
        if addr >> 64 != 0 {
            ev.addr_hi.insert(idx, (addr >> 64) as u64);
        }
        ev.size.push(size);
        ev.stream.push(stream);
        ev.time_us.push(time);
        ev.stack.push(stack);
        if let Some(name) = action_name {
            ev.other_actions.insert(idx, name);
        }
        // The pool column exists only once an event has a pool_id.
        if pool != NO_POOL || !ev.pool.is_empty() {
            ev.pool.resize(idx as usize, NO_POOL);
            ev.pool.push(pool);
        }
        let Some(x) = extra else {
            ev.extra.push(NO_EXTRA);
            return;
        };
        // PyTorch 2.5 on gives every event a compile_context ("N/A" outside
        // torch.compile) and often nothing else: such events share one
        // extra per context text (an extra is ~110 bytes; a 500k-event
        // file's model took 78 MB instead of 21). By text: the pickler
        // writes the string out again for each event.
        let only_context = x.compile_context.filter(|_| {
            x.user_metadata.is_none()
                && x.internal_metadata.is_none()
                && x.forward_frames.is_empty()
                && x.device_free.is_none()
        });
        if let Some(i) = only_context.and_then(|c| self.known_context(c)) {
            self.events.extra.push(i);
            return;
        }
        let i = self.extras.len() as u32;
        self.events.extra.push(i);
        self.extras.push(x);
        if let Some(c) = only_context {
            self.context_extras.insert(self.strings.get(c).to_string(), i);
            self.last_context = Some((c, i));
        }
    }

    /// Notes a problem with an optional field of event `idx`, kept and read as `read_as`.
    fn event_problem(
        &mut self,
        idx: u32,
        field: &'static str,
        found: Option<Found>,
        expected: &'static str,
        read_as: &'static str,
    ) {
        if let Some(found) = found {
            self.event_problems.push((idx, Problem { field, found, expected, outcome: Outcome::ReadAs(read_as) }));
        }
    }

    /// A non-negative integer field: its value, or 0 and what was wrong.
    pub fn read_unsigned(&self, v: &Value) -> (u128, Option<Found>) {
        match self.int(v) {
            Some(i) if i >= 0 => (i as u128, None),
            Some(_) => (0, Some(Found::Negative)),
            None => (0, Some(Found::Type(v.type_name()))),
        }
    }

    /// An `(owner, id)` pair (`pool_id`, `segment_pool_id`): a tuple or list
    /// of two integers.
    pub fn pool_pair(&self, v: &Value) -> Option<(i64, i64)> {
        match &*self.list_items(v)? {
            [a, b] => Some((i64::try_from(self.int(a)?).ok()?, i64::try_from(self.int(b)?).ok()?)),
            _ => None,
        }
    }

    fn intern_pool(&mut self, p: (i64, i64)) -> u32 {
        let ids = &mut self.events.pool_ids;
        *self.pool_index.entry(p).or_insert_with(|| {
            ids.push(p);
            (ids.len() - 1) as u32
        })
    }

    /// The problems of event `ev` (global index).
    pub fn problems_of(&self, ev: u32) -> &[(u32, Problem)] {
        let p = &self.event_problems;
        if p.is_empty() {
            return &[];
        }
        let a = p.partition_point(|x| x.0 < ev);
        let b = a + p[a..].partition_point(|x| x.0 == ev);
        &p[a..b]
    }
}

/// One trace event's column values, as read from its dict.
struct Row {
    action: Action,
    addr: u128,
    size: u64,
    stream: u64,
    time: i64,
    stack: StackId,
    pool: u32,
}

/// Whether two stacks hold the same frames. Not `==`, which on wasm32 is a
/// byte-at-a-time `memcmp` (11% of a real file's decode in V8): this takes a
/// word a step, and with no early exit (stacks that hash alike are nearly
/// always equal) it vectorizes natively.
fn same_frames(a: &[FrameId], b: &[FrameId]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |d, (x, y)| d | (x ^ y)) == 0
}

// FNV-1a over u32 words: fast and good enough to find shared stacks (a
// colliding stack is compared, and kept unshared).
const FNV_OFFSET: u64 = 0xcbf29ce484222325;

#[inline(always)]
fn fnv_step(h: u64, x: u32) -> u64 {
    (h ^ x as u64).wrapping_mul(0x100000001b3)
}

#[inline(always)]
fn fnv_finish(h: u64, len: usize) -> u64 {
    h ^ (len as u64).wrapping_mul(0x9e3779b97f4a7c15)
}

fn hash_u32s(xs: &[u32]) -> u64 {
    fnv_finish(xs.iter().fold(FNV_OFFSET, |h, &x| fnv_step(h, x)), xs.len())
}

/// The memo's dense part, 8 bytes a slot rather than an `Option<Value>`'s
/// 16: a snapshot memoizes every dict (each trace event's), so the memo is
/// one of the decoder's largest tables, and in a fresh wasm memory every
/// byte of it costs its first write (~0.7 ms a MB in the worker). A slot
/// is a [`Value`] packed into its low 4 bits (the kind) and the 60 above;
/// values that do not fit (a float, an int of 60 bits or more) go to
/// `wide`, their slot holding their index there. 0 is an empty slot.
#[derive(Default)]
struct Memo {
    slots: Vec<u64>,
    wide: Vec<Value>,
    /// How many filled slots were stored again (a PUT to a used index):
    /// what was read through them may have changed.
    rewrites: u64,
}

mod slot {
    pub const EMPTY: u64 = 0;
    pub const NONE: u64 = 1;
    pub const BOOL: u64 = 2;
    pub const INT: u64 = 3;
    pub const BIG: u64 = 4;
    pub const STR: u64 = 5;
    pub const BYTES: u64 = 6;
    pub const LIST: u64 = 7;
    pub const TUPLE: u64 = 8;
    pub const DICT: u64 = 9;
    pub const WIDE: u64 = 10;
    pub const EVENT: u64 = 11;
}

impl Memo {
    fn len(&self) -> usize {
        self.slots.len()
    }

    /// The slot for `v`.
    #[inline(always)]
    fn pack(&mut self, v: Value) -> u64 {
        let (kind, x) = match v {
            Value::Dict(id) => (slot::DICT, id as u64),
            Value::Event(ev) => (slot::EVENT, ev as u64),
            Value::Str(id) => (slot::STR, id as u64),
            Value::List(id) => (slot::LIST, id as u64),
            Value::Tuple(id) => (slot::TUPLE, id as u64),
            Value::Bytes(id) => (slot::BYTES, id as u64),
            Value::Big(id) => (slot::BIG, id as u64),
            Value::None => (slot::NONE, 0),
            Value::Bool(b) => (slot::BOOL, b as u64),
            // Sign-extended back by an arithmetic shift (`get`).
            Value::Int(i) if (i << 4) >> 4 == i => (slot::INT, i as u64 & (u64::MAX >> 4)),
            Value::Int(_) | Value::Float(_) => {
                self.wide.push(v);
                (slot::WIDE, (self.wide.len() - 1) as u64)
            }
        };
        kind | x << 4
    }

    /// The value in slot `idx`, if it holds one.
    #[inline(always)]
    fn get(&self, idx: usize) -> Option<Value> {
        let s = *self.slots.get(idx)?;
        let x = (s >> 4) as u32;
        Some(match s & 15 {
            slot::DICT => Value::Dict(x),
            slot::EVENT => Value::Event(x),
            slot::STR => Value::Str(x),
            slot::LIST => Value::List(x),
            slot::TUPLE => Value::Tuple(x),
            slot::BYTES => Value::Bytes(x),
            slot::BIG => Value::Big(x),
            slot::NONE => Value::None,
            slot::BOOL => Value::Bool(x != 0),
            slot::INT => Value::Int((s as i64) >> 4),
            slot::WIDE => self.wide[x as usize],
            _ => return None,
        })
    }

    /// Stores `v` at the next index (MEMOIZE).
    #[inline(always)]
    fn push(&mut self, v: Value) {
        let s = self.pack(v);
        self.slots.push(s);
    }

    /// Stores `v` at `idx`, which is at most the next index.
    fn set(&mut self, idx: usize, v: Value) {
        let s = self.pack(v);
        if idx < self.slots.len() {
            self.rewrites += (self.slots[idx] != slot::EMPTY) as u64;
            self.slots[idx] = s;
        } else {
            self.slots.resize(idx, slot::EMPTY);
            self.slots.push(s);
        }
    }
}

/// Why an opcode could not run yet.
enum Stall {
    /// More input is needed to finish this opcode.
    NeedMore,
    /// Boxed so the hot path's Result stays two words.
    Fail(Box<Error>),
}

impl From<Error> for Stall {
    #[cold]
    fn from(e: Error) -> Self {
        Stall::Fail(Box::new(e))
    }
}

/// The streaming pickle machine.
pub struct PickleDecoder {
    pub arena: Arena,
    stack: Vec<Value>,
    marks: Vec<usize>,
    memo: Memo,
    memo_sparse: FastMap<u64, Value>,
    /// Unconsumed input carried over from the previous chunk.
    carry: Vec<u8>,
    /// Absolute offset of `carry[0]`.
    base: u64,
    pub protocol: u8,
    result: Option<Value>,
    /// The opcode at `carry[0]` and the data length its length field
    /// claims, for the truncation message.
    stalled: Option<(u8, Option<u64>)>,
    /// Bitset of dicts that took items by SETITEM(S) and have not gone into
    /// a container yet (see `finish_dicts`), and how many there are.
    open: Vec<u64>,
    open_count: usize,
    /// A text-line opcode that stalled: its offset, and how many bytes after
    /// it are known to hold no newline.
    line_searched: (u64, usize),
    lists_seen: ListCache,
    shape: EventShape,
}

/// The stacks of frames lists written out before, by the list's bytes (its
/// memo references between `MARK` and `APPENDS`): a real recording writes
/// the same few hundred stacks out again for each event, ~36 references
/// each, and a list seen before needs no memo lookup, frame check or stack
/// hash per reference, only its bytes hashed and compared. The bytes name
/// the same frames while no used memo slot is stored again
/// (`Memo::rewrites`: the cache is then emptied); a frame dict stays one.
/// A training loop writes its stacks in the same order each iteration, so
/// the list that followed the last one the time before is tried first, by
/// its bytes alone (69-82% of the lists of the H100 recordings, which then
/// need no walk over their opcodes and no hash).
struct ListCache {
    /// Hash of a list's bytes → its entry.
    index: FastMap<u64, u32>,
    /// (start in `bytes`, length, stack, the entry that came next the last
    /// time this one came: `NO_ENTRY` none).
    entries: Vec<(u32, u32, StackId, u32)>,
    bytes: Vec<u8>,
    /// The entry of the last list read (`NO_ENTRY`: none, or not kept).
    last: u32,
    /// `Memo::rewrites` when the entries were read.
    rewrites: u64,
}

const NO_ENTRY: u32 = u32::MAX;

/// Most items Python's pickler writes in one APPENDS (`_BATCHSIZE`).
const FRAMES_BATCH: usize = 1000;

impl Default for ListCache {
    fn default() -> Self {
        ListCache { index: FastMap::default(), entries: Vec::new(), bytes: Vec::new(), last: NO_ENTRY, rewrites: 0 }
    }
}

impl ListCache {
    /// Entry `e` is the list read now: it follows the last one.
    fn came(&mut self, e: u32) {
        if let Some(prev) = self.entries.get_mut(self.last as usize) {
            prev.3 = e;
        }
        self.last = e;
    }
}

/// The keys of the last trace event [`PickleDecoder::event_at`] read as a
/// 2.5-on event (`Arena::push_context_event`'s shape, the six plain keys
/// among them), by their memo references' bytes: PyTorch's pickler writes
/// every event's keys as the same references in the same order, so the
/// next event's keys are checked by their bytes and its values read by
/// what each key is, with no memo lookup, key dispatch or dict check per
/// pair ([`PickleDecoder::shaped_event_at`]). The bytes name the same keys
/// while no used memo slot is stored again (`Memo::rewrites`).
struct EventShape {
    /// Each key's BINGET / LONG_BINGET opcode as a little-endian word (the
    /// bytes after it masked off: one compare, not a memcmp call), its
    /// length, and what it names; `n` of them (0: none).
    keys: [(u64, u8, Key); EVENT_AT_PAIRS],
    n: usize,
    /// `Memo::rewrites` when the keys were read.
    rewrites: u64,
}

impl Default for EventShape {
    fn default() -> Self {
        EventShape { keys: [(0, 0, Key::None); EVENT_AT_PAIRS], n: 0, rewrites: 0 }
    }
}

/// The 8 bytes at `data[p]` as a little-endian word (None: fewer left).
#[inline(always)]
fn word_at(data: &[u8], p: usize) -> Option<u64> {
    Some(u64::from_le_bytes(data.get(p..p + 8)?.try_into().ok()?))
}

/// The low `len` bytes of a word.
#[inline(always)]
fn low_bytes(w: u64, len: u8) -> u64 {
    w & (u64::MAX >> (64 - 8 * len as u32))
}

/// At most this many bytes of lists are kept (a file whose stacks are all
/// different stops adding at this).
const LIST_CACHE_BYTES: usize = 1 << 20;

/// What [`PickleDecoder::frames_at`] read.
#[derive(Clone, Copy)]
enum ListFrames {
    /// A list seen before: its stack.
    Known(StackId),
    /// A new one: its frames in `Arena::stack_scratch`, their stack hash,
    /// and its bytes' hash and place in the input (for the cache once the
    /// event is sure).
    Read { hash: u64, key: u64, start: usize, end: usize },
}

/// Whether `a` and `b` hold the same bytes (frames lists, 100-200 bytes).
/// On wasm32 a slice's `==` is compiler-builtins' memcmp, a byte at a time:
/// a word at a time there decodes real recordings 10-14% faster; natively
/// libc's memcmp is faster still (3% fewer instructions than words).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if cfg!(target_arch = "wasm32") {
        same_words(a, b)
    } else {
        a == b
    }
}

#[inline]
fn same_words(a: &[u8], b: &[u8]) -> bool {
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
    let (wa, wb) = (a.chunks_exact(8), b.chunks_exact(8));
    a.len() == b.len() && wa.remainder() == wb.remainder() && wa.zip(wb).all(|(x, y)| word(x) == word(y))
}

impl Default for PickleDecoder {
    fn default() -> Self {
        Self::new()
    }
}

/// The pickle opcodes (Python's `pickletools` names them).
mod op {
    pub const MARK: u8 = b'(';
    pub const STOP: u8 = b'.';
    pub const POP: u8 = b'0';
    pub const POP_MARK: u8 = b'1';
    pub const DUP: u8 = b'2';
    pub const FLOAT: u8 = b'F';
    pub const INT: u8 = b'I';
    pub const BININT: u8 = b'J';
    pub const BININT1: u8 = b'K';
    pub const LONG: u8 = b'L';
    pub const BININT2: u8 = b'M';
    pub const NONE: u8 = b'N';
    pub const PERSID: u8 = b'P';
    pub const BINPERSID: u8 = b'Q';
    pub const REDUCE: u8 = b'R';
    pub const STRING: u8 = b'S';
    pub const BINSTRING: u8 = b'T';
    pub const SHORT_BINSTRING: u8 = b'U';
    pub const UNICODE: u8 = b'V';
    pub const BINUNICODE: u8 = b'X';
    pub const APPEND: u8 = b'a';
    pub const BUILD: u8 = b'b';
    pub const GLOBAL: u8 = b'c';
    pub const DICT: u8 = b'd';
    pub const EMPTY_DICT: u8 = b'}';
    pub const APPENDS: u8 = b'e';
    pub const GET: u8 = b'g';
    pub const BINGET: u8 = b'h';
    pub const INST: u8 = b'i';
    pub const LONG_BINGET: u8 = b'j';
    pub const LIST: u8 = b'l';
    pub const EMPTY_LIST: u8 = b']';
    pub const OBJ: u8 = b'o';
    pub const PUT: u8 = b'p';
    pub const BINPUT: u8 = b'q';
    pub const LONG_BINPUT: u8 = b'r';
    pub const SETITEM: u8 = b's';
    pub const TUPLE: u8 = b't';
    pub const EMPTY_TUPLE: u8 = b')';
    pub const SETITEMS: u8 = b'u';
    pub const BINFLOAT: u8 = b'G';
    pub const PROTO: u8 = 0x80;
    pub const NEWOBJ: u8 = 0x81;
    pub const EXT1: u8 = 0x82;
    pub const EXT2: u8 = 0x83;
    pub const EXT4: u8 = 0x84;
    pub const TUPLE1: u8 = 0x85;
    #[allow(dead_code)] // inside TUPLE1..=TUPLE3
    pub const TUPLE2: u8 = 0x86;
    pub const TUPLE3: u8 = 0x87;
    pub const NEWTRUE: u8 = 0x88;
    pub const NEWFALSE: u8 = 0x89;
    pub const LONG1: u8 = 0x8a;
    pub const LONG4: u8 = 0x8b;
    pub const BINBYTES: u8 = b'B';
    pub const SHORT_BINBYTES: u8 = b'C';
    pub const SHORT_BINUNICODE: u8 = 0x8c;
    pub const BINUNICODE8: u8 = 0x8d;
    pub const BINBYTES8: u8 = 0x8e;
    pub const EMPTY_SET: u8 = 0x8f;
    pub const ADDITEMS: u8 = 0x90;
    pub const FROZENSET: u8 = 0x91;
    pub const NEWOBJ_EX: u8 = 0x92;
    pub const STACK_GLOBAL: u8 = 0x93;
    pub const MEMOIZE: u8 = 0x94;
    pub const FRAME: u8 = 0x95;
    pub const BYTEARRAY8: u8 = 0x96;
    pub const NEXT_BUFFER: u8 = 0x97;
    pub const READONLY_BUFFER: u8 = 0x98;
}

fn op_name(op: u8) -> &'static str {
    match op {
        op::GLOBAL => "GLOBAL",
        op::STACK_GLOBAL => "STACK_GLOBAL",
        op::REDUCE => "REDUCE",
        op::BUILD => "BUILD",
        op::INST => "INST",
        op::OBJ => "OBJ",
        op::NEWOBJ => "NEWOBJ",
        op::NEWOBJ_EX => "NEWOBJ_EX",
        op::PERSID => "PERSID",
        op::BINPERSID => "BINPERSID",
        op::EXT1 => "EXT1",
        op::EXT2 => "EXT2",
        op::EXT4 => "EXT4",
        op::NEXT_BUFFER => "NEXT_BUFFER",
        op::READONLY_BUFFER => "READONLY_BUFFER",
        op::PROTO => "PROTO",
        op::FRAME => "FRAME",
        op::STOP => "STOP",
        op::LONG1 => "LONG1",
        op::LONG4 => "LONG4",
        op::SHORT_BINUNICODE => "SHORT_BINUNICODE",
        op::BINUNICODE => "BINUNICODE",
        op::BINUNICODE8 => "BINUNICODE8",
        op::SHORT_BINSTRING => "SHORT_BINSTRING",
        op::BINSTRING => "BINSTRING",
        op::SHORT_BINBYTES => "SHORT_BINBYTES",
        op::BINBYTES => "BINBYTES",
        op::BINBYTES8 => "BINBYTES8",
        op::BYTEARRAY8 => "BYTEARRAY8",
        op::BININT => "BININT",
        op::BININT1 => "BININT1",
        op::BININT2 => "BININT2",
        op::BINFLOAT => "BINFLOAT",
        op::INT => "INT",
        op::LONG => "LONG",
        op::FLOAT => "FLOAT",
        op::UNICODE => "UNICODE",
        op::STRING => "STRING",
        op::PUT => "PUT",
        op::GET => "GET",
        op::BINPUT => "BINPUT",
        op::LONG_BINPUT => "LONG_BINPUT",
        op::BINGET => "BINGET",
        op::LONG_BINGET => "LONG_BINGET",
        _ => "?",
    }
}

/// The bytes after one opcode, read by [`PickleDecoder::step`]'s phases:
/// each reader is NeedMore when the chunk ends inside the opcode.
#[derive(Clone, Copy)]
struct Operands<'a> {
    data: &'a [u8],
    /// Where the opcode is, and its first operand byte.
    pos: usize,
    p: usize,
    /// The opcode's offset in the whole input.
    at: u64,
    /// Bytes after `p` already searched for a newline when this opcode
    /// stalled before.
    searched: usize,
}

impl<'a> Operands<'a> {
    /// The next `n` bytes.
    fn need(&self, n: usize) -> std::result::Result<&'a [u8], Stall> {
        self.data.get(self.p..self.p + n).ok_or(Stall::NeedMore)
    }

    /// A text line. Only the bytes not searched before are searched, or a
    /// long line arriving in small chunks would be searched again for each.
    fn line(&self) -> std::result::Result<&'a [u8], Stall> {
        let (data, p) = (self.data, self.p);
        let end = data.len().min(p + MAX_LINE);
        let from = (p + self.searched).min(end);
        let rest = &data[p..end];
        match data[from..end].iter().position(|&b| b == b'\n') {
            Some(i) => Ok(&data[p..from + i]),
            None if rest.len() == MAX_LINE => Err(Stall::from(Error::at(
                ErrorKind::TooLarge,
                self.at,
                format!("a text line of more than {MAX_LINE} bytes (opcode {})", op_name(data[self.pos])),
            ))),
            None => Err(Stall::NeedMore),
        }
    }

    /// A length-prefixed payload after `len_bytes` of length: the claimed
    /// length is checked against what the input could still hold before
    /// waiting for it.
    fn payload(&self, len_bytes: usize, len: u64) -> std::result::Result<(usize, usize), Stall> {
        if len > MAX_PAYLOAD {
            return Err(Stall::from(Error::at(
                ErrorKind::TooLarge,
                self.at,
                format!(
                    "the opcode {} claims {len} bytes of data (this reader's limit is {MAX_PAYLOAD})",
                    op_name(self.data[self.pos])
                ),
            )));
        }
        let start = self.p + len_bytes;
        // In u64: on wasm32 a usize sum could wrap.
        let end = start as u64 + len;
        if end > self.data.len() as u64 {
            return Err(Stall::NeedMore);
        }
        Ok((start, end as usize))
    }

    /// `op` is no opcode: the first byte of a file that is no pickle, or an
    /// unknown opcode later.
    fn unknown(&self, op: u8) -> Stall {
        Stall::from(if self.at == 0 {
            not_a_pickle(self.data)
        } else {
            Error::at(ErrorKind::UnknownOpcode, self.at, format!("unknown pickle opcode 0x{op:02x}"))
        })
    }
}

impl PickleDecoder {
    pub fn new() -> Self {
        PickleDecoder {
            arena: Arena::new(),
            stack: Vec::new(),
            marks: Vec::new(),
            memo: Memo::default(),
            memo_sparse: FastMap::default(),
            carry: Vec::new(),
            base: 0,
            protocol: 0,
            result: None,
            stalled: None,
            open: Vec::new(),
            open_count: 0,
            line_searched: (u64::MAX, 0),
            lists_seen: ListCache::default(),
            shape: EventShape::default(),
        }
    }

    /// Says how many bytes the whole input has (a file's size), so that the
    /// tables grow to what it will need ([`Growth`]); optional.
    pub fn expect(&mut self, total: u64) {
        self.arena.growth.expected = Some(total);
    }

    /// Feeds the next chunk of input.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<()> {
        if self.result.is_some() {
            return Ok(()); // bytes after STOP are ignored, as pickle.load does
        }
        self.arena.credit_input(chunk.len() as u64);
        // An opcode cut by the last chunk boundary: complete it from the
        // front of this chunk, copying only as much as it needs.
        let mut take = 64usize;
        while !self.carry.is_empty() && !chunk.is_empty() {
            let old = self.carry.len();
            let add = take.min(chunk.len());
            self.carry.extend_from_slice(&chunk[..add]);
            let data = std::mem::take(&mut self.carry);
            let used = self.run(&data, self.base)?;
            self.base += used as u64;
            if self.result.is_some() {
                return Ok(());
            }
            if used > old {
                // The pending opcode is done; the rest of the chunk needs no copy.
                chunk = &chunk[used - old..];
                break;
            }
            self.carry = data;
            self.carry.drain(..used);
            self.carry.truncate(self.carry.len() - add);
            if add == chunk.len() {
                self.carry.extend_from_slice(chunk);
                return Ok(());
            }
            take = take.saturating_mul(4);
        }
        if self.carry.is_empty() && !chunk.is_empty() {
            let used = self.run(chunk, self.base)?;
            self.base += used as u64;
            if self.result.is_none() {
                self.carry.extend_from_slice(&chunk[used..]);
            }
        }
        Ok(())
    }

    /// Ends the input and returns the unpickled top value.
    pub fn finish(mut self) -> Result<(Value, Arena, u8)> {
        match self.result.take() {
            Some(v) => Ok((v, self.arena, self.protocol)),
            None => {
                let end = self.base + self.carry.len() as u64;
                if end == 0 {
                    return Err(Error::at(ErrorKind::NotASnapshot, 0, "the file is empty"));
                }
                let what = match (self.carry.first(), self.stalled) {
                    (None, _) => "the pickle ends before its STOP opcode".to_string(),
                    (Some(&op), Some((_, Some(claim)))) => format!(
                        "the opcode {} (0x{op:02x}) from byte {} claims {claim} bytes of data; the file ends",
                        op_name(op),
                        self.base,
                    ),
                    (Some(&op), _) => {
                        format!("the opcode {} (0x{op:02x}) from byte {} is cut off", op_name(op), self.base)
                    }
                };
                // Display appends " at byte offset {end}": each wording above ends where it reads on.
                Err(Error::at(ErrorKind::Truncated, end, format!("truncated file: {what}")))
            }
        }
    }

    #[inline(always)]
    fn memo_get(&self, idx: u64, at: u64) -> Result<Value> {
        if let Some(v) = self.memo.get(idx as usize) {
            return Ok(v);
        }
        self.memo_get_slow(idx, at)
    }

    #[cold]
    fn memo_get_slow(&self, idx: u64, at: u64) -> Result<Value> {
        let v = if (idx as usize) < self.memo.len() { None } else { self.memo_sparse.get(&idx).copied() };
        v.ok_or_else(|| Error::at(ErrorKind::Malformed, at, format!("memo reference {idx} refers to nothing")))
    }

    fn memo_put(&mut self, idx: u64, at: u64) -> Result<()> {
        let v =
            *self.stack.last().ok_or_else(|| Error::at(ErrorKind::Malformed, at, "memo store with an empty stack"))?;
        let len = self.memo.len() as u64;
        if idx < len + MEMO_DENSE_GAP {
            self.memo.set(idx as usize, v);
        } else {
            // Far-off indices go to a map so a hostile index cannot make us
            // allocate gigabytes.
            self.memo_sparse.insert(idx, v);
        }
        Ok(())
    }

    fn pop(&mut self, at: u64) -> Result<Value> {
        if self.marks.last().is_some_and(|&m| m >= self.stack.len()) {
            return Err(Error::at(ErrorKind::Malformed, at, "stack underflow (the top of the stack is a MARK)"));
        }
        self.stack.pop().ok_or_else(|| Error::at(ErrorKind::Malformed, at, "stack underflow"))
    }

    fn pop_mark(&mut self, at: u64) -> Result<usize> {
        self.marks.pop().ok_or_else(|| Error::at(ErrorKind::Malformed, at, "no MARK on the stack"))
    }

    fn top_container(&self, at: u64) -> Result<Value> {
        let floor = self.marks.last().copied().unwrap_or(0);
        if self.stack.len() <= floor {
            return Err(Error::at(ErrorKind::Malformed, at, "stack underflow: no container to add to"));
        }
        Ok(self.stack[self.stack.len() - 1])
    }

    fn new_list(&mut self, items: Vec<Value>) -> u32 {
        self.finish_dicts(&items);
        let rec = self.arena.store_list(items);
        let a = &mut self.arena;
        a.growth.reserve(&mut a.lists, 1);
        a.lists.push(rec);
        (a.lists.len() - 1) as u32
    }

    fn new_dict(&mut self, items: Vec<(Value, Value)>) -> u32 {
        let rec = self.arena.store_dict(items);
        let a = &mut self.arena;
        a.growth.reserve(&mut a.dicts, 1);
        a.dicts.push(rec);
        (a.dicts.len() - 1) as u32
    }

    /// Dicts that go into a container are complete: events and frames among
    /// them that were built item by item move to their tables now (not at
    /// their first SETITEM: protocols 0 and 1 add items one at a time).
    fn finish_dicts(&mut self, items: &[Value]) {
        if self.open_count == 0 {
            return; // the usual case: events and frames took the fast path
        }
        for v in items {
            if let Value::Dict(d) = *v {
                let (w, bit) = (d as usize / 64, 1u64 << (d % 64));
                if self.open.get(w).is_some_and(|x| x & bit != 0) {
                    self.open[w] &= !bit;
                    self.open_count -= 1;
                    self.arena.finish_dict(d);
                }
            }
        }
    }

    /// Marks a dict that took items by SETITEM(S) as open (not yet complete).
    fn mark_open(&mut self, d: u32) {
        let (w, bit) = (d as usize / 64, 1u64 << (d % 64));
        if w >= self.open.len() {
            self.open.resize(w + 1, 0);
        }
        if self.open[w] & bit == 0 {
            self.open[w] |= bit;
            self.open_count += 1;
        }
    }

    fn append_items(&mut self, target: Value, items: Vec<Value>, at: u64) -> Result<()> {
        self.finish_dicts(&items);
        match target {
            Value::List(id) => {
                if self.arena.extend_run(id, &items) {
                    return Ok(());
                }
                match self.arena.lists[id as usize] {
                    ListRec::Empty => self.arena.lists[id as usize] = self.arena.store_list(items),
                    ListRec::Items(i) => {
                        let a = &mut self.arena;
                        let list = &mut a.list_store[i as usize];
                        a.growth.reserve(list, items.len());
                        list.extend(items)
                    }
                    ListRec::Pending => self.arena.pending.extend(items),
                    // Items added to a frames list after it became a stack.
                    ListRec::Stack(_) => self.arena.late_items += 1,
                    // Something that does not continue the run: its
                    // events written out, then the rest as for any list.
                    ListRec::Events(r) => {
                        let mut all = self.arena.run_items(r);
                        all.extend(items);
                        self.arena.lists[id as usize] = self.arena.store_list(all);
                    }
                }
                Ok(())
            }
            other => Err(Error::at(
                ErrorKind::Malformed,
                at,
                format!("APPEND to a {} (only lists can be appended to)", other.type_name()),
            )),
        }
    }

    /// APPENDS fast path: the items on the stack above mark `m` go to a list
    /// that is empty or pending, into the pending buffer (no `Vec` of their
    /// own). False when the slow path must run (another target, open dicts
    /// among the items, or an error to report).
    fn append_pending(&mut self, m: usize) -> bool {
        let floor = self.marks.last().copied().unwrap_or(0);
        if self.open_count > 0 || m <= floor || m > self.stack.len() {
            return false;
        }
        let Value::List(id) = self.stack[m - 1] else { return false };
        let a = &mut self.arena;
        if a.extend_run(id, &self.stack[m..]) {
            self.stack.truncate(m);
            return true;
        }
        match a.lists[id as usize] {
            ListRec::Pending => {}
            ListRec::Empty => {
                a.park_pending();
                a.lists[id as usize] = ListRec::Pending;
                a.pending_list = Some(id);
            }
            _ => return false,
        }
        a.pending.extend_from_slice(&self.stack[m..]);
        self.stack.truncate(m);
        true
    }

    /// SETITEMS fast path: a fresh dict whose items on the stack make a
    /// trace event or a frame goes straight to its table, without building
    /// the generic dict first; any other (a segment, a block) is stored as
    /// it is, not open: it was just classified, and a SETITEM(S) that comes
    /// later opens it again (`set_items`), to be classified when it is
    /// complete. A state snapshot's blocks were classified twice, and each
    /// kept the lists' and dicts' fast paths off until its batch was done.
    fn convert_from_stack(&mut self, m: usize) -> bool {
        if m == 0 || self.marks.last().is_some_and(|&f| f >= m) || !(self.stack.len() - m).is_multiple_of(2) {
            return false;
        }
        let Value::Dict(id) = self.stack[m - 1] else { return false };
        if !matches!(self.arena.dicts[id as usize], DictRec::Empty) {
            return false;
        }
        if self.open_count > 0 {
            // Dicts among the values (user_metadata) are complete too.
            let dicts: Vec<Value> = self.stack[m..].iter().copied().filter(|v| matches!(v, Value::Dict(_))).collect();
            self.finish_dicts(&dicts);
        }
        if !self.arena.convert_dict(id, &self.stack[m..]) {
            let pairs = self.stack[m..].chunks_exact(2).map(|kv| (kv[0], kv[1])).collect();
            self.arena.dicts[id as usize] = self.arena.store_dict(pairs);
        }
        self.stack.truncate(m);
        true
    }

    fn set_items(&mut self, target: Value, items: Vec<Value>, at: u64) -> Result<()> {
        let id = match target {
            Value::Dict(id) => id,
            // As for a dict that became an event item by item, below.
            Value::Event(_) => {
                self.arena.late_items += 1;
                return Ok(());
            }
            other => {
                return Err(Error::at(
                    ErrorKind::Malformed,
                    at,
                    format!("SETITEM on a {} (only dicts take items)", other.type_name()),
                ))
            }
        };
        if !items.len().is_multiple_of(2) {
            return Err(Error::at(ErrorKind::Malformed, at, "SETITEMS with an odd number of items"));
        }
        self.finish_dicts(&items);
        let mut pairs = Vec::with_capacity(items.len() / 2);
        let mut it = items.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            pairs.push((k, v));
        }
        match self.arena.dicts[id as usize] {
            DictRec::Empty => self.arena.dicts[id as usize] = self.arena.store_dict(pairs),
            DictRec::Items(i) => self.arena.dict_store[i as usize].extend(pairs),
            // Items added to an event or frame after it was complete
            // (fetched again from the memo): not part of the model.
            _ => {
                self.arena.late_items += 1;
                return Ok(());
            }
        }
        self.mark_open(id);
        Ok(())
    }

    fn push_string(&mut self, raw: &[u8]) -> Value {
        let id = match std::str::from_utf8(raw) {
            Ok(s) => self.arena.push_str(s),
            Err(_) => self.arena.push_str(&python_str_lossy(raw)),
        };
        Value::Str(id)
    }

    fn push_int(&mut self, v: i128) {
        if let Ok(i) = i64::try_from(v) {
            self.stack.push(Value::Int(i));
        } else {
            self.arena.bigs.push(v);
            self.stack.push(Value::Big((self.arena.bigs.len() - 1) as u32));
        }
    }

    /// Runs opcodes over `data` (which starts at absolute offset `base`);
    /// returns how many bytes were consumed (whole opcodes only).
    fn run(&mut self, data: &[u8], base: u64) -> Result<usize> {
        let mut pos = 0usize;
        self.stalled = None;
        while pos < data.len() {
            // Protocol 0 and 1 input (and the first byte, which says which)
            // stays on `step` alone.
            if self.protocol >= 2 {
                pos = self.run_hot(data, pos, base);
                if pos >= data.len() {
                    break;
                }
            }
            match self.step(data, pos, base) {
                Ok(next) => {
                    pos = next;
                    if self.result.is_some() {
                        return Ok(pos);
                    }
                }
                Err(Stall::NeedMore) => {
                    let claim = self.stalled.and_then(|s| s.1);
                    self.stalled = Some((data[pos], claim));
                    if matches!(
                        data[pos],
                        op::INT | op::LONG | op::FLOAT | op::UNICODE | op::STRING | op::PUT | op::GET
                    ) {
                        self.line_searched = (base + pos as u64, data.len() - pos - 1);
                    }
                    return Ok(pos);
                }
                Err(Stall::Fail(e)) => return Err(*e),
            }
        }
        Ok(pos)
    }

    /// Runs the opcodes that make up nearly all of a snapshot (memo
    /// references, small ints, short strings, empty containers) straight
    /// from the slice, while a whole opcode surely fits in what is left;
    /// returns where it stopped. Anything else, and anything that would be
    /// an error, stops it untouched, so `step` runs that opcode and every
    /// error keeps its message and offset.
    fn run_hot(&mut self, data: &[u8], mut pos: usize, base: u64) -> usize {
        // The longest opcode taken here without a length check of its own
        // (LONG1 of 8 bytes, FRAME) is 10 bytes.
        const HOT_TAIL: usize = 16;
        let end = data.len().saturating_sub(HOT_TAIL);
        while pos < end {
            let b = &data[pos..pos + HOT_TAIL];
            match b[0] {
                // Read from the window: its length is known, so the
                // helpers' bounds checks fold away.
                op::BINGET | op::LONG_BINGET => {
                    let mut n = 0;
                    let Some(v) = memo_ref(&self.memo, b, &mut n) else { break };
                    self.stack.push(v);
                    pos += n;
                }
                op::MEMOIZE => match self.stack.last() {
                    // MEMOIZE stores at the next index: always a push.
                    Some(&v) => {
                        self.arena.growth.reserve(&mut self.memo.slots, 1);
                        self.memo.push(v);
                        pos += 1;
                    }
                    None => break,
                },
                op::BINPUT => {
                    if self.stack.is_empty() {
                        break;
                    }
                    // Cannot fail with a value on the stack.
                    let _ = self.memo_put(b[1] as u64, 0);
                    pos += 2;
                }
                op::MARK => {
                    self.marks.push(self.stack.len());
                    pos += 1;
                }
                op::BININT1 | op::BININT2 | op::BININT | op::LONG1 => {
                    let mut n = 0;
                    let Some(v) = inline_int(b, &mut n) else { break };
                    self.stack.push(v);
                    pos += n;
                }
                op::SHORT_BINUNICODE => {
                    let n = b[1] as usize;
                    let Some(raw) = data.get(pos + 2..pos + 2 + n) else { break };
                    if (self.arena.strings.byte_len() + n) as u64 > MAX_PAYLOAD {
                        break;
                    }
                    let v = self.push_string(raw);
                    self.stack.push(v);
                    pos += 2 + n;
                }
                op::EMPTY_DICT => {
                    if let Some(next) = self.event_at(data, pos) {
                        // The tables' growth goes by it (`step` sets it too).
                        self.arena.growth.decoded = base + pos as u64;
                        pos = next;
                        continue;
                    }
                    let id = self.new_dict(Vec::new());
                    self.stack.push(Value::Dict(id));
                    pos += 1;
                }
                op::EMPTY_LIST => {
                    if let Some(next) = self.frames_list_at(data, pos) {
                        self.arena.growth.decoded = base + pos as u64;
                        pos = next;
                        continue;
                    }
                    let id = self.new_list(Vec::new());
                    self.stack.push(Value::List(id));
                    pos += 1;
                }
                op::EMPTY_TUPLE => {
                    let id = self.new_list(Vec::new());
                    self.stack.push(Value::Tuple(id));
                    pos += 1;
                }
                op::NONE => {
                    self.stack.push(Value::None);
                    pos += 1;
                }
                op::NEWTRUE => {
                    self.stack.push(Value::Bool(true));
                    pos += 1;
                }
                op::NEWFALSE => {
                    self.stack.push(Value::Bool(false));
                    pos += 1;
                }
                // Framing is only a hint for buffered readers.
                op::FRAME => pos += 9,
                _ => break,
            }
        }
        pos
    }

    /// A trace event dict from the bytes at `pos` as one unit: `EMPTY_DICT
    /// MEMOIZE MARK`, then up to [`EVENT_AT_PAIRS`] key / value pairs, then
    /// `SETITEMS`. Each key is a memo reference; each value a memo
    /// reference, an inline int, None or a bool, a short string (memoized
    /// or not: PyTorch 2.5 on writes compile_context's "N/A" out for each
    /// event), or the frames list written out here (`EMPTY_LIST MEMOIZE`,
    /// then `MARK`, its frames, all memo references to frames already read,
    /// and `APPENDS`, unless it is empty). The list's frames are interned as
    /// a stack as they are read, never put on the stack or in a list's
    /// items. Its effect is that of running those opcodes (the dict, the
    /// strings and the list memoized in that order, the event converted as
    /// SETITEMS converts it, the dict left on the stack), without a stack
    /// push and a dispatch per opcode: most of a snapshot is these events
    /// and their frame references (PyTorch 2.11's events, 8 keys and ~36
    /// frames each, ran opcode by opcode: 2.5x slower than 6-key ones).
    /// The position after it, or None, with the memo and the lists as they
    /// were, for anything else: the opcodes then run one by one.
    #[inline]
    fn event_at(&mut self, data: &[u8], pos: usize) -> Option<usize> {
        if self.open_count != 0 || data.get(pos + 1..pos + 3)? != [op::MEMOIZE, op::MARK] {
            return None;
        }
        if let Some(next) = self.shaped_event_at(data, pos) {
            return Some(next);
        }
        // First read without a change (a give-up leaves nothing behind):
        // strings and the list are written down and made once it is sure.
        let mut p = pos + 3;
        let mut flat = [Value::None; 2 * EVENT_AT_PAIRS];
        let mut n = 0;
        // Strings and the list in order (their memo slots come in it):
        // where each value goes in `flat`, and a string's bytes and
        // whether it is memoized (a list's `len` is u32::MAX).
        let mut made = [(0u8, 0u32, 0u32, false); EVENT_AT_PAIRS];
        let mut n_made = 0;
        let mut list_frames = None;
        // Where each key's memo reference is, and its length (the shape).
        let mut key_at = [(0u32, 0u8); EVENT_AT_PAIRS];
        while data.get(p) != Some(&op::SETITEMS) {
            if n == flat.len() {
                return None;
            }
            let kp = p;
            let k @ Value::Str(_) = memo_ref(&self.memo, data, &mut p)? else { return None };
            // PyTorch writes `action` first: a block or a frame is left at
            // its first key, before its frames list is read twice.
            if n == 0 && self.arena.key(&k) != Key::Action {
                return None;
            }
            key_at[n / 2] = (kp as u32, (p - kp) as u8);
            let v = match *data.get(p)? {
                op::BINGET | op::LONG_BINGET => memo_ref(&self.memo, data, &mut p)?,
                op::BININT1 | op::BININT2 | op::BININT | op::LONG1 => inline_int(data, &mut p)?,
                op::NONE => (p += 1, Value::None).1,
                op::NEWTRUE => (p += 1, Value::Bool(true)).1,
                op::NEWFALSE => (p += 1, Value::Bool(false)).1,
                op::SHORT_BINUNICODE => {
                    let (start, len, memoized) = written_str(data, &mut p)?;
                    made[n_made] = ((n + 1) as u8, start, len, memoized);
                    n_made += 1;
                    Value::Str(0)
                }
                op::EMPTY_LIST if list_frames.is_none() && data.get(p + 1) == Some(&op::MEMOIZE) => {
                    list_frames = Some(self.written_list(data, &mut p)?);
                    made[n_made] = ((n + 1) as u8, 0, u32::MAX, true);
                    n_made += 1;
                    Value::List(0)
                }
                _ => return None,
            };
            flat[n] = k;
            flat[n + 1] = v;
            n += 2;
        }
        if n_made == 0 {
            // Nothing to make (a 6-key event whose frames list was read
            // before): `flat` is final, and the plain event needs no
            // classify first.
            if let Some(ev) = self.arena.push_plain_event(&flat[..n]) {
                self.keep_shape(data, &key_at[..n / 2], &flat[..n]);
                self.arena.growth.reserve(&mut self.memo.slots, 1);
                self.memo.push(Value::Event(ev));
                self.stack.push(Value::Event(ev));
                return Some(p + 1);
            }
        }
        let str_bytes: usize = made[..n_made].iter().filter(|m| m.2 != u32::MAX).map(|m| m.2 as usize).sum();
        if (self.arena.strings.byte_len() + str_bytes) as u64 > MAX_PAYLOAD
            || self.arena.classify(&flat[..n]) != DictKind::Event
        {
            return None;
        }
        // Sure: the dict's memo slot (filled once it is an event), then the
        // strings and the list in their order.
        self.arena.growth.reserve(&mut self.memo.slots, 1 + n_made);
        let dict_slot = self.memo.len();
        self.memo.push(Value::None);
        for &(at, start, len, memoized) in &made[..n_made] {
            let v = if len == u32::MAX {
                self.make_list(data, list_frames.flatten())
            } else {
                self.push_string(&data[start as usize..(start + len) as usize])
            };
            flat[at as usize] = v;
            if memoized {
                self.memo.push(v);
            }
        }
        let flat = &flat[..n];
        let a = &mut self.arena;
        let ev = match a.push_plain_event(flat).or_else(|| a.push_context_event(flat)) {
            Some(ev) => {
                self.keep_shape(data, &key_at[..n / 2], flat);
                ev
            }
            None => a.push_event(flat),
        };
        let s = self.memo.pack(Value::Event(ev));
        self.memo.slots[dict_slot] = s;
        self.stack.push(Value::Event(ev));
        Some(p + 1)
    }

    /// A frames list written out as the value of a dict's `frames` key that
    /// is not read as a trace event (a segment's or a block's: `EMPTY_LIST
    /// MEMOIZE MARK` at `pos`, the key on the stack), read as one unit as
    /// [`PickleDecoder::event_at`] reads an event's. Its effect is that of
    /// running those opcodes, whose APPENDS interns the list's stack
    /// ([`PickleDecoder::intern_frames_batch`]), without a push per frame: a
    /// state snapshot's blocks are ~14 frame references each, and each list
    /// went the slow way (the blocks before it in their batch are open
    /// dicts). The position after it, or None, with nothing changed, for
    /// anything else (a reference to a dict that is not a frame, the list
    /// cut by the chunk's end, or 2000 bytes and more: `step` counts those).
    #[inline]
    fn frames_list_at(&mut self, data: &[u8], pos: usize) -> Option<usize> {
        if data.get(pos + 1..pos + 3)? != [op::MEMOIZE, op::MARK] {
            return None;
        }
        let &Value::Str(k) = self.stack.last()? else { return None };
        if self.arena.str_key[k as usize] != Key::Frames {
            return None;
        }
        let mut p = pos + 3;
        let frames = self.frames_at(data, &mut p)?;
        // Memo references are 2 bytes or more: fewer bytes, fewer items
        // than a batch.
        if p - 1 - (pos + 3) >= 2 * FRAMES_BATCH {
            return None;
        }
        self.arena.growth.reserve(&mut self.memo.slots, 1);
        let v = self.make_list(data, Some(frames));
        self.memo.push(v);
        self.stack.push(v);
        Some(p)
    }

    /// APPENDS of frames to a fresh list that is a dict's `frames` value
    /// (the key below the list on the stack, `m` the items' mark): the
    /// list becomes its interned stack now, as [`PickleDecoder::frames_list_at`]
    /// makes it, so that both ways give the stacks in the same order. Only a
    /// batch shorter than Python's pickler writes at most (1000): a longer
    /// list comes in batches, and becomes a stack when it is read. False,
    /// nothing changed, for anything else.
    fn intern_frames_batch(&mut self, m: usize) -> bool {
        let n = self.stack.len().wrapping_sub(m);
        if m < 2 || n >= FRAMES_BATCH {
            return false;
        }
        let (Value::List(id), Value::Str(k)) = (self.stack[m - 1], self.stack[m - 2]) else { return false };
        let a = &mut self.arena;
        if a.str_key[k as usize] != Key::Frames || !matches!(a.lists[id as usize], ListRec::Empty) {
            return false;
        }
        let mut ids = std::mem::take(&mut a.stack_scratch);
        ids.clear();
        for v in &self.stack[m..] {
            match *v {
                Value::Dict(d) => match a.dicts[d as usize] {
                    DictRec::Frame(f) => ids.push(f),
                    _ => break,
                },
                _ => break,
            }
        }
        if ids.len() == n {
            a.lists[id as usize] = ListRec::Stack(a.intern_stack(&ids));
            self.stack.truncate(m);
        }
        a.stack_scratch = ids;
        self.stack.len() == m
    }

    /// A frames list written out in an event (`EMPTY_LIST MEMOIZE` at
    /// `data[*p]`, which the caller checked, then `MARK`, its frames and
    /// `APPENDS`, or nothing when empty): its frames as
    /// [`PickleDecoder::frames_at`] reads them (None: empty), `*p` moved past
    /// it. None for anything else (the event is then given up).
    #[inline(always)]
    fn written_list(&mut self, data: &[u8], p: &mut usize) -> Option<Option<ListFrames>> {
        *p += 2;
        if data.get(*p) != Some(&op::MARK) {
            return Some(None);
        }
        *p += 1;
        Some(Some(self.frames_at(data, p)?))
    }

    /// The list a frames list read by [`PickleDecoder::frames_at`] makes
    /// (none read: an empty one), its stack interned and its bytes kept.
    fn make_list(&mut self, data: &[u8], frames: Option<ListFrames>) -> Value {
        let rec = match frames {
            Some(ListFrames::Known(sid)) => ListRec::Stack(sid),
            Some(ListFrames::Read { hash, key, start, end }) => {
                let a = &mut self.arena;
                let ids = std::mem::take(&mut a.stack_scratch);
                let sid = a.intern_stack_hashed(&ids, hash);
                a.stack_scratch = ids;
                self.remember_list(&data[start..end], key, sid);
                ListRec::Stack(sid)
            }
            None => ListRec::Empty,
        };
        let a = &mut self.arena;
        a.growth.reserve(&mut a.lists, 1);
        a.lists.push(rec);
        Value::List((a.lists.len() - 1) as u32)
    }

    /// Keeps the keys of an event read as a 2.5-on one (`flat` its pairs,
    /// `key_at` where each key's memo reference is) as [`EventShape`].
    fn keep_shape(&mut self, data: &[u8], key_at: &[(u32, u8)], flat: &[Value]) {
        let sh = &mut self.shape;
        sh.n = 0;
        for (i, &(at, len)) in key_at.iter().enumerate() {
            let mut w = [0u8; 8];
            w[..len as usize].copy_from_slice(&data[at as usize..at as usize + len as usize]);
            sh.keys[i] = (u64::from_le_bytes(w), len, self.arena.key(&flat[2 * i]));
        }
        sh.n = key_at.len();
        sh.rewrites = self.memo.rewrites;
    }

    /// The trace event at `pos` (after its `EMPTY_DICT MEMOIZE MARK`, which
    /// the caller checked) when its keys are [`EventShape`]'s: each value
    /// read by what its key is, the effect that of [`PickleDecoder::event_at`]
    /// (the same memo slots in the same order, the same row). None, and
    /// nothing changed, for any other event, or values that
    /// `Arena::push_context_event` leaves to `Arena::push_event` or
    /// `plain_row` refuses: `event_at` reads those.
    #[inline]
    fn shaped_event_at(&mut self, data: &[u8], pos: usize) -> Option<usize> {
        let n = self.shape.n;
        if n == 0 || self.shape.rewrites != self.memo.rewrites {
            return None;
        }
        let mut p = pos + 3;
        let (mut action, mut ints, mut frames, mut context) = (0, [0i64; 4], Value::None, None);
        // Values written out here, in order: what each is (0 the frames
        // list, 1 compile_context, 2 user_metadata), a string's bytes and
        // whether it is memoized.
        let mut made = [(0u8, 0u32, 0u32, false); 3];
        let mut n_made = 0;
        let mut list_frames = None;
        for i in 0..n {
            let (want, len, key) = self.shape.keys[i];
            if low_bytes(word_at(data, p)?, len) != want {
                return None;
            }
            p += len as usize;
            let at = *data.get(p)?;
            match key {
                Key::Action => {
                    let Value::Str(a) = memo_ref(&self.memo, data, &mut p)? else { return None };
                    action = a;
                }
                Key::Addr | Key::Size | Key::Stream | Key::TimeUs => {
                    let Value::Int(i) = inline_int(data, &mut p)? else { return None };
                    ints[key as usize - Key::Addr as usize] = i;
                }
                Key::Frames => match at {
                    op::BINGET | op::LONG_BINGET => frames = memo_ref(&self.memo, data, &mut p)?,
                    op::EMPTY_LIST if data.get(p + 1) == Some(&op::MEMOIZE) => {
                        list_frames = self.written_list(data, &mut p)?;
                        made[n_made] = (0, 0, 0, true);
                        n_made += 1;
                    }
                    _ => return None,
                },
                Key::CompileContext | Key::UserMetadata => match at {
                    op::NONE => p += 1,
                    op::SHORT_BINUNICODE => {
                        let (start, len, memoized) = written_str(data, &mut p)?;
                        if key == Key::UserMetadata && len != 0 {
                            return None;
                        }
                        made[n_made] = (1 + (key == Key::UserMetadata) as u8, start, len, memoized);
                        n_made += 1;
                    }
                    _ => match memo_ref(&self.memo, data, &mut p)? {
                        Value::None => {}
                        Value::Str(c) if key == Key::CompileContext => context = Some(c),
                        Value::Str(m) if self.arena.str(m).is_empty() => {}
                        _ => return None,
                    },
                },
                _ => return None,
            }
        }
        if data.get(p) != Some(&op::SETITEMS) || !self.arena.plain_ok(action, ints) {
            return None;
        }
        let str_bytes: usize = made[..n_made].iter().map(|m| m.2 as usize).sum();
        if (self.arena.strings.byte_len() + str_bytes) as u64 > MAX_PAYLOAD {
            return None;
        }
        // Sure: as event_at makes them, the dict's memo slot, then the list
        // and the strings in their order.
        self.arena.growth.reserve(&mut self.memo.slots, 1 + n_made);
        let dict_slot = self.memo.len();
        self.memo.push(Value::None);
        for &(what, start, len, memoized) in &made[..n_made] {
            let v = if what == 0 {
                frames = self.make_list(data, list_frames);
                frames
            } else {
                let v = self.push_string(&data[start as usize..(start + len) as usize]);
                if let (1, Value::Str(c)) = (what, v) {
                    context = Some(c);
                }
                v
            };
            if memoized {
                self.memo.push(v);
            }
        }
        let a = &mut self.arena;
        let (ev, row) = a.plain_row(action, ints, frames).expect("plain_ok said so");
        a.push_context_row(row, context);
        let s = self.memo.pack(Value::Event(ev));
        self.memo.slots[dict_slot] = s;
        self.stack.push(Value::Event(ev));
        Some(p + 1)
    }

    /// The frames of a list being written out (after its `MARK`), all memo
    /// references to frames, up to its `APPENDS`: the stack of a list with
    /// the same bytes seen before ([`ListCache`]), else the frames into
    /// `Arena::stack_scratch` and their stack hash ([`hash_u32s`]'s, made as
    /// they are read); `*p` moved past the `APPENDS`. None for anything
    /// else (`*p` then no matter: the caller gives up the event). Reads
    /// the memo's slots directly: these lists are most of a real
    /// recording's bytes.
    #[inline]
    fn frames_at(&mut self, data: &[u8], p: &mut usize) -> Option<ListFrames> {
        let start = *p;
        let c = &mut self.lists_seen;
        if c.rewrites != self.memo.rewrites {
            c.index.clear();
            c.entries.clear();
            c.bytes.clear();
            c.last = NO_ENTRY;
            c.rewrites = self.memo.rewrites;
        }
        // A program allocates in the same order each iteration: the list
        // that came after the last one last time is tried first, by its
        // bytes and the APPENDS after them (the same bytes parse the same).
        if let Some(&(_, _, _, next)) = c.entries.get(c.last as usize) {
            if let Some(&(at, len, sid, _)) = c.entries.get(next as usize) {
                let (end, known) = (start + len as usize, &c.bytes[at as usize..(at + len) as usize]);
                // Its first word first: a miss costs no memcmp call.
                if (len < 8 || word_at(known, 0) == word_at(data, start))
                    && data.get(start..end).is_some_and(|d| same_bytes(d, known))
                    && data.get(end) == Some(&op::APPENDS)
                {
                    c.last = next;
                    *p = end + 1;
                    return Some(ListFrames::Known(sid));
                }
            }
        }
        // Its end found and its references hashed in one walk (a list of
        // another order missed above: most of a random order's lists).
        let mut q = start;
        let mut key = FxHasher::default();
        loop {
            let memo_ref = match *data.get(q)? {
                op::BINGET => {
                    q += 2;
                    *data.get(q - 1)? as u64
                }
                op::LONG_BINGET => {
                    q += 5;
                    u32::from_le_bytes(data.get(q - 4..q)?.try_into().ok()?) as u64 | 1 << 32
                }
                op::APPENDS => break,
                _ => return None,
            };
            key.write_u64(memo_ref);
        }
        let (body, key) = (&data[start..q], key.finish());
        if let Some(&e) = c.index.get(&key) {
            let (at, len, sid, _) = c.entries[e as usize];
            if same_bytes(&c.bytes[at as usize..(at + len) as usize], body) {
                c.came(e);
                *p = q + 1;
                return Some(ListFrames::Known(sid));
            }
        }
        let a = &mut self.arena;
        let slots = &self.memo.slots;
        a.stack_scratch.clear();
        let mut h = FNV_OFFSET;
        let mut r = start;
        while r < q {
            // The opcodes and their lengths were checked above.
            let idx = if body[r - start] == op::BINGET {
                r += 2;
                data[r - 1] as usize
            } else {
                r += 5;
                u32::from_le_bytes([data[r - 4], data[r - 3], data[r - 2], data[r - 1]]) as usize
            };
            let s = *slots.get(idx)?;
            if s & 15 != slot::DICT {
                return None;
            }
            let DictRec::Frame(f) = *a.dicts.get((s >> 4) as usize)? else { return None };
            a.stack_scratch.push(f);
            h = fnv_step(h, f);
        }
        *p = q + 1;
        Some(ListFrames::Read { hash: fnv_finish(h, a.stack_scratch.len()), key, start, end: q })
    }

    /// Keeps a new list's stack for its bytes, within [`LIST_CACHE_BYTES`].
    fn remember_list(&mut self, body: &[u8], key: u64, sid: StackId) {
        let c = &mut self.lists_seen;
        if c.bytes.len() + body.len() > LIST_CACHE_BYTES || body.len() > u32::MAX as usize {
            c.last = NO_ENTRY;
            return;
        }
        let e = c.entries.len() as u32;
        // Another list with this hash: the newer one is kept.
        c.index.insert(key, e);
        c.entries.push((c.bytes.len() as u32, body.len() as u32, sid, NO_ENTRY));
        c.bytes.extend_from_slice(body);
        c.came(e);
    }

    /// Executes the opcode at `data[pos]`; returns the position after it.
    fn step(&mut self, data: &[u8], pos: usize, base: u64) -> std::result::Result<usize, Stall> {
        let at = base + pos as u64;
        self.arena.growth.decoded = at;
        let op = data[pos];
        let p = pos + 1;
        // When this opcode stalled in a text line before, the bytes already
        // searched hold no newline.
        let searched = if self.line_searched.0 == at { self.line_searched.1 } else { 0 };
        let o = Operands { data, pos, p, at, searched };
        if self.protocol == 0 && pos == 0 && base == 0 && op != op::PROTO {
            // Protocols 0 and 1 have no PROTO opcode; accept them but make a
            // first byte that cannot start a pickle a clear "not a pickle"
            // (a text file's "h" is BINGET: "memo reference 101 refers to
            // nothing" said nothing useful).
            if !starts_a_pickle(op) {
                return Err(Stall::from(not_a_pickle(data)));
            }
        }
        match op {
            op::PROTO => {
                let v = o.need(1)?[0];
                if v > HIGHEST_PROTOCOL {
                    return Err(Stall::from(Error::at(
                        ErrorKind::UnknownOpcode,
                        at,
                        format!("unsupported pickle protocol {v} (this reader knows 0 to {HIGHEST_PROTOCOL})"),
                    )));
                }
                self.protocol = v;
                Ok(p + 1)
            }
            op::FRAME => {
                // FRAME: framing is only a hint for buffered readers.
                o.need(8)?;
                Ok(p + 8)
            }
            op::STOP => {
                let v = self.pop(at)?;
                self.finish_dicts(&[v]);
                self.result = Some(v);
                Ok(p)
            }
            op::MARK => {
                self.marks.push(self.stack.len());
                Ok(p)
            }
            op::POP => {
                // POP: a MARK on top is popped as a mark
                if self.marks.last() == Some(&self.stack.len()) {
                    self.marks.pop();
                } else {
                    self.pop(at)?;
                }
                Ok(p)
            }
            op::POP_MARK => {
                let m = self.pop_mark(at)?;
                self.stack.truncate(m);
                Ok(p)
            }
            op::DUP => {
                let v = self.top_container(at)?;
                self.stack.push(v);
                Ok(p)
            }
            op::GLOBAL
            | op::STACK_GLOBAL
            | op::REDUCE
            | op::BUILD
            | op::INST
            | op::OBJ
            | op::NEWOBJ
            | op::NEWOBJ_EX
            | op::PERSID
            | op::BINPERSID
            | op::EXT1..=op::EXT4
            | op::NEXT_BUFFER
            | op::READONLY_BUFFER => Err(Stall::from(Error::at(
                ErrorKind::RefusedOpcode,
                at,
                format!(
                    "refused pickle opcode {} (0x{op:02x}): it would build an arbitrary Python object, \
                         which a memory snapshot never contains; nothing was executed",
                    op_name(op)
                ),
            ))),
            op::NONE
            | op::NEWTRUE
            | op::NEWFALSE
            | op::BININT
            | op::BININT1
            | op::BININT2
            | op::LONG1
            | op::LONG4
            | op::INT
            | op::LONG
            | op::BINFLOAT
            | op::FLOAT => self.op_number(op, &o),
            op::SHORT_BINUNICODE
            | op::BINUNICODE
            | op::BINUNICODE8
            | op::SHORT_BINSTRING
            | op::BINSTRING
            | op::SHORT_BINBYTES
            | op::BINBYTES
            | op::BINBYTES8
            | op::BYTEARRAY8
            | op::UNICODE
            | op::STRING => self.op_text(op, &o),
            op::EMPTY_LIST
            | op::EMPTY_TUPLE
            | op::EMPTY_DICT
            | op::EMPTY_SET
            | op::APPEND
            | op::APPENDS
            | op::ADDITEMS
            | op::LIST
            | op::TUPLE
            | op::FROZENSET
            | op::TUPLE1..=op::TUPLE3
            | op::SETITEM
            | op::SETITEMS
            | op::DICT => self.op_container(op, &o),
            op::MEMOIZE | op::BINPUT | op::LONG_BINPUT | op::BINGET | op::LONG_BINGET | op::PUT | op::GET => {
                self.op_memo(op, &o)
            }
            _ => Err(o.unknown(op)),
        }
    }

    /// Numbers and constants: None, booleans, ints (binary, LONG1/4, protocol 0 text), floats.
    #[inline]
    fn op_number(&mut self, op: u8, o: &Operands) -> std::result::Result<usize, Stall> {
        let Operands { p, at, data, .. } = *o;
        match op {
            op::NONE => {
                self.stack.push(Value::None);
                Ok(p)
            }
            op::NEWTRUE => {
                self.stack.push(Value::Bool(true));
                Ok(p)
            }
            op::NEWFALSE => {
                self.stack.push(Value::Bool(false));
                Ok(p)
            }
            op::BININT => {
                let b = o.need(4)?;
                self.stack.push(Value::Int(i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64));
                Ok(p + 4)
            }
            op::BININT1 => {
                let b = o.need(1)?;
                self.stack.push(Value::Int(b[0] as i64));
                Ok(p + 1)
            }
            op::BININT2 => {
                let b = o.need(2)?;
                self.stack.push(Value::Int(u16::from_le_bytes([b[0], b[1]]) as i64));
                Ok(p + 2)
            }
            op::LONG1 | op::LONG4 => {
                // LONG1 / LONG4: little-endian two's complement
                let (len_bytes, n) = if op == op::LONG1 {
                    (1, o.need(1)?[0] as u64)
                } else {
                    let b = o.need(4)?;
                    let n = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    if n < 0 {
                        return Err(Stall::from(Error::at(ErrorKind::Malformed, at, "LONG4 with a negative length")));
                    }
                    (4, n as u64)
                };
                if n as usize > MAX_INT_BYTES {
                    return Err(Stall::from(Error::at(
                        ErrorKind::TooLarge,
                        at,
                        format!("integer of {n} bytes refused (no address or size needs more than {MAX_INT_BYTES})"),
                    )));
                }
                let (s, e) = o.payload(len_bytes, n)?;
                let v = le_signed(&data[s..e]);
                self.push_int(v);
                Ok(e)
            }
            op::INT | op::LONG => {
                // INT / LONG (protocol 0 text)
                let l = o.line()?;
                let end = p + l.len() + 1;
                let text = std::str::from_utf8(l).unwrap_or("").trim_end_matches('L');
                match text {
                    "01" if op == op::INT => self.stack.push(Value::Bool(true)),
                    "00" if op == op::INT => self.stack.push(Value::Bool(false)),
                    _ => {
                        if text.len() > 40 {
                            return Err(Stall::from(Error::at(
                                ErrorKind::TooLarge,
                                at,
                                format!(
                                    "integer literal of {} digits refused (no address or size needs more than 39)",
                                    text.len()
                                ),
                            )));
                        }
                        let v: i128 = text.parse().map_err(|_| {
                            Error::at(ErrorKind::Malformed, at, format!("bad integer literal {text:?}"))
                        })?;
                        self.push_int(v);
                    }
                }
                Ok(end)
            }
            op::BINFLOAT => {
                let b = o.need(8)?;
                self.stack.push(Value::Float(f64::from_be_bytes(b.try_into().unwrap())));
                Ok(p + 8)
            }
            op::FLOAT => {
                let l = o.line()?;
                let end = p + l.len() + 1;
                let v: f64 = std::str::from_utf8(l)
                    .ok()
                    .and_then(|t| t.trim().parse().ok())
                    .ok_or_else(|| Error::at(ErrorKind::Malformed, at, "bad float literal"))?;
                self.stack.push(Value::Float(v));
                Ok(end)
            }
            _ => Err(o.unknown(op)),
        }
    }

    /// Strings and bytes: length-prefixed (binary) or a text line (protocol 0).
    #[inline]
    fn op_text(&mut self, op: u8, o: &Operands) -> std::result::Result<usize, Stall> {
        let Operands { p, at, data, .. } = *o;
        match op {
            op::SHORT_BINUNICODE
            | op::BINUNICODE
            | op::BINUNICODE8
            | op::SHORT_BINSTRING
            | op::BINSTRING
            | op::SHORT_BINBYTES
            | op::BINBYTES
            | op::BINBYTES8
            | op::BYTEARRAY8 => {
                let (len_bytes, n) = match op {
                    op::SHORT_BINUNICODE | op::SHORT_BINSTRING | op::SHORT_BINBYTES => (1, o.need(1)?[0] as u64),
                    op::BINUNICODE | op::BINSTRING | op::BINBYTES => {
                        let b = o.need(4)?;
                        (4, u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)
                    }
                    _ => (8, u64::from_le_bytes(o.need(8)?.try_into().unwrap())),
                };
                let (s, e) = match o.payload(len_bytes, n) {
                    Err(Stall::NeedMore) => {
                        self.stalled = Some((op, Some(n)));
                        return Err(Stall::NeedMore);
                    }
                    r => r?,
                };
                let raw = &data[s..e];
                if matches!(
                    op,
                    op::SHORT_BINUNICODE | op::BINUNICODE | op::BINUNICODE8 | op::SHORT_BINSTRING | op::BINSTRING
                ) && (self.arena.strings.byte_len() + raw.len()) as u64 > MAX_PAYLOAD
                {
                    return Err(Stall::from(Error::at(
                        ErrorKind::TooLarge,
                        at,
                        format!(
                            "the strings of this file add up to more than {MAX_PAYLOAD} bytes (this reader's limit)"
                        ),
                    )));
                }
                let v = match op {
                    op::SHORT_BINUNICODE | op::BINUNICODE | op::BINUNICODE8 | op::SHORT_BINSTRING | op::BINSTRING => {
                        self.push_string(raw)
                    }
                    _ => {
                        self.arena.bytes.push(raw.to_vec());
                        Value::Bytes((self.arena.bytes.len() - 1) as u32)
                    }
                };
                self.stack.push(v);
                Ok(e)
            }
            op::UNICODE => {
                // UNICODE (protocol 0): raw-unicode-escape text.
                let l = o.line()?;
                let end = p + l.len() + 1;
                let id = self.arena.push_str(&raw_unicode_escape(l));
                self.stack.push(Value::Str(id));
                Ok(end)
            }
            op::STRING => {
                // STRING (protocol 0 bytes, quoted): kept as text, escapes
                // undecoded (Python 3 never writes it for a str).
                let l = o.line()?;
                let end = p + l.len() + 1;
                let l = if l.len() >= 2 { &l[1..l.len() - 1] } else { l };
                let v = self.push_string(l);
                self.stack.push(v);
                Ok(end)
            }
            _ => Err(o.unknown(op)),
        }
    }

    /// Lists, tuples, sets and dicts: new ones and items added to the one on top.
    #[inline]
    fn op_container(&mut self, op: u8, o: &Operands) -> std::result::Result<usize, Stall> {
        let Operands { p, at, .. } = *o;
        match op {
            op::EMPTY_LIST => {
                let id = self.new_list(Vec::new());
                self.stack.push(Value::List(id));
                Ok(p)
            }
            op::EMPTY_TUPLE => {
                let id = self.new_list(Vec::new());
                self.stack.push(Value::Tuple(id));
                Ok(p)
            }
            op::EMPTY_DICT => {
                let id = self.new_dict(Vec::new());
                self.stack.push(Value::Dict(id));
                Ok(p)
            }
            op::EMPTY_SET => {
                // EMPTY_SET: a set is shown as a list
                let id = self.new_list(Vec::new());
                self.stack.push(Value::List(id));
                Ok(p)
            }
            op::APPEND => {
                let v = self.pop(at)?;
                let target = self.top_container(at)?;
                self.append_items(target, vec![v], at)?;
                Ok(p)
            }
            op::APPENDS | op::ADDITEMS => {
                let m = self.pop_mark(at)?;
                if op == op::APPENDS && self.intern_frames_batch(m) || self.append_pending(m) {
                    return Ok(p);
                }
                let items = self.stack.split_off(m);
                let target = self.top_container(at)?;
                self.append_items(target, items, at)?;
                Ok(p)
            }
            op::LIST | op::TUPLE | op::FROZENSET => {
                let m = self.pop_mark(at)?;
                let items = self.stack.split_off(m);
                let id = self.new_list(items);
                self.stack.push(if op == op::TUPLE { Value::Tuple(id) } else { Value::List(id) });
                Ok(p)
            }
            op::TUPLE1..=op::TUPLE3 => {
                let n = (op - op::TUPLE1 + 1) as usize;
                let floor = self.marks.last().copied().unwrap_or(0);
                if self.stack.len() < floor + n {
                    return Err(Stall::from(Error::at(ErrorKind::Malformed, at, "stack underflow in TUPLE")));
                }
                let items = self.stack.split_off(self.stack.len() - n);
                let id = self.new_list(items);
                self.stack.push(Value::Tuple(id));
                Ok(p)
            }
            op::SETITEM => {
                let v = self.pop(at)?;
                let k = self.pop(at)?;
                let target = self.top_container(at)?;
                self.set_items(target, vec![k, v], at)?;
                Ok(p)
            }
            op::SETITEMS => {
                let m = self.pop_mark(at)?;
                if self.convert_from_stack(m) {
                    return Ok(p);
                }
                let items = self.stack.split_off(m);
                let target = self.top_container(at)?;
                self.set_items(target, items, at)?;
                Ok(p)
            }
            op::DICT => {
                let m = self.pop_mark(at)?;
                let items = self.stack.split_off(m);
                let id = self.new_dict(Vec::new());
                self.set_items(Value::Dict(id), items, at)?;
                self.stack.push(Value::Dict(id));
                Ok(p)
            }
            _ => Err(o.unknown(op)),
        }
    }

    /// The memo: PUT stores the top of the stack, GET pushes it again (shared, not copied).
    #[inline]
    fn op_memo(&mut self, op: u8, o: &Operands) -> std::result::Result<usize, Stall> {
        let Operands { p, at, .. } = *o;
        match op {
            op::MEMOIZE => {
                let idx = self.memo.len() as u64;
                self.memo_put(idx, at)?;
                Ok(p)
            }
            op::BINPUT => {
                let idx = o.need(1)?[0] as u64;
                self.memo_put(idx, at)?;
                Ok(p + 1)
            }
            op::LONG_BINPUT => {
                let b = o.need(4)?;
                self.memo_put(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64, at)?;
                Ok(p + 4)
            }
            op::BINGET => {
                let idx = o.need(1)?[0] as u64;
                let v = self.memo_get(idx, at)?;
                self.stack.push(v);
                Ok(p + 1)
            }
            op::LONG_BINGET => {
                let b = o.need(4)?;
                let v = self.memo_get(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64, at)?;
                self.stack.push(v);
                Ok(p + 4)
            }
            op::PUT | op::GET => {
                // PUT / GET (protocol 0 text)
                let l = o.line()?;
                let end = p + l.len() + 1;
                let idx: u64 = std::str::from_utf8(l)
                    .ok()
                    .and_then(|t| t.trim().parse().ok())
                    .ok_or_else(|| Error::at(ErrorKind::Malformed, at, "bad memo index"))?;
                if op == op::PUT {
                    self.memo_put(idx, at)?;
                } else {
                    let v = self.memo_get(idx, at)?;
                    self.stack.push(v);
                }
                Ok(end)
            }
            _ => Err(o.unknown(op)),
        }
    }
}

/// Whether a pickle can begin with opcode `op`: one that pushes a value
/// (or a mark) without taking one from the stack or the memo. PROTO and
/// FRAME begin protocols 2 and up.
fn starts_a_pickle(op: u8) -> bool {
    matches!(
        op,
        op::PROTO
            | op::FRAME
            | op::MARK
            | op::NONE
            | op::NEWTRUE
            | op::NEWFALSE
            | op::INT
            | op::BININT
            | op::BININT1
            | op::BININT2
            | op::LONG
            | op::LONG1
            | op::LONG4
            | op::FLOAT
            | op::BINFLOAT
            | op::STRING
            | op::BINSTRING
            | op::SHORT_BINSTRING
            | op::UNICODE
            | op::BINUNICODE
            | op::SHORT_BINUNICODE
            | op::BINUNICODE8
            | op::BINBYTES
            | op::SHORT_BINBYTES
            | op::BINBYTES8
            | op::BYTEARRAY8
            | op::EMPTY_DICT
            | op::EMPTY_LIST
            | op::EMPTY_TUPLE
            | op::EMPTY_SET
            | op::GLOBAL
            | op::PERSID
            | op::EXT1
            | op::EXT2
            | op::EXT4
    )
}

/// Names what the bytes are when they are not a pickle at all.
pub fn not_a_pickle(data: &[u8]) -> Error {
    let what = foreign_format(data).unwrap_or_else(|| match text_start(data) {
        Some(text) => format!("it starts with the text {text:?}"),
        None => {
            let head: Vec<String> = data.iter().take(4).map(|b| format!("{b:02x}")).collect();
            format!("it starts with bytes {}", head.join(" "))
        }
    });
    Error::at(
        ErrorKind::NotASnapshot,
        0,
        format!("not a memory snapshot (expected a pickle, JSON or gzip file): {what}"),
    )
}

/// The first line of `data` (at most 40 characters) when `data` starts
/// like text: printable UTF-8 up to a line end or 40 characters.
fn text_start(data: &[u8]) -> Option<String> {
    let head = &data[..data.len().min(160)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    let line: String = text.chars().take_while(|&c| c != '\n' && c != '\r').take(40).collect();
    let printable = |c: char| !c.is_control() || c == '\t';
    (line.chars().count() >= 4 && line.chars().all(printable)).then_some(line)
}

/// The kind of file that `data` starts like, for files that are often
/// dropped by mistake. Some (PNG: 0x89 is NEWFALSE) begin with a byte that is
/// also a pickle opcode, so the loader asks this before decoding.
pub fn foreign_format(data: &[u8]) -> Option<String> {
    let what = if data.starts_with(b"\x89PNG") {
        "a PNG image".to_string()
    } else if data.starts_with(b"PK\x03\x04") {
        "a zip archive (torch.save writes those; a memory snapshot is the pickle that \
         torch.cuda.memory._dump_snapshot writes)"
            .to_string()
    } else if data.starts_with(b"%PDF") {
        "a PDF document".to_string()
    } else if data.starts_with(b"\xff\xd8\xff") {
        "a JPEG image".to_string()
    } else if data.starts_with(b"GIF8") {
        "a GIF image".to_string()
    } else if data.starts_with(b"BZh") {
        "a bzip2 file (only gzip is supported)".to_string()
    } else if data.starts_with(b"\xfd7zXZ") {
        "an xz file (only gzip is supported)".to_string()
    } else if data.starts_with(b"\x28\xb5\x2f\xfd") {
        "a zstd file (only gzip is supported)".to_string()
    } else if is_profiler_html(data) {
        PROFILER_HTML.to_string()
    } else {
        return None;
    };
    Some(what)
}

/// What the loader says of torch.profiler's `export_memory_timeline(".html")`:
/// a page holding a PNG of the chart, none of its numbers.
pub const PROFILER_HTML: &str = "this is the profiler's picture export: open its .json or .raw.json.gz \
(export_memory_timeline's .html holds an image of the chart, not its data)";

/// torch.profiler's memory timeline picture: an HTML page (after blanks)
/// whose head names it "GPU Memory Timeline" (torch/profiler/_memory_profiler.py).
pub(crate) fn is_profiler_html(data: &[u8]) -> bool {
    let head = &data[..data.len().min(SNIFF_TEXT)];
    let text = String::from_utf8_lossy(head).trim_start().to_ascii_lowercase();
    (text.starts_with("<html") || text.starts_with("<!doctype html")) && text.contains("gpu memory timeline")
}

/// Bytes of a file's start that [`foreign_format`] reads (its magic, or
/// the head of an HTML page).
pub const SNIFF_TEXT: usize = 160;

/// Text of a pickled `str` that is not valid UTF-8. Python pickles file
/// names it could not decode as lone surrogates (U+DC80..U+DCFF), written
/// with 'surrogatepass' as the three bytes ED B0..BF 80..BF: each becomes one
/// U+FFFD, as does every other invalid sequence.
pub fn python_str_lossy(mut raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    while !raw.is_empty() {
        match std::str::from_utf8(raw) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let (good, bad) = raw.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                out.push('\u{FFFD}');
                let surrogate = matches!(bad, [0xed, 0xa0..=0xbf, 0x80..=0xbf, ..]);
                let skip = if surrogate { 3 } else { e.error_len().unwrap_or(bad.len()) };
                raw = &bad[skip..];
            }
        }
    }
    out
}

/// Protocol 0's UNICODE text (Python's raw-unicode-escape): bytes are
/// Latin-1 characters, except `\uXXXX` and `\UXXXXXXXX` escapes, which
/// Python writes for characters above U+00FF and for `\` and newlines.
/// Lone surrogates (undecodable file names) become U+FFFD.
fn raw_unicode_escape(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let digits = match b.get(i..i + 2) {
            Some(b"\\u") => 4,
            Some(b"\\U") => 8,
            _ => 0,
        };
        let hex = b.get(i + 2..i + 2 + digits).and_then(|h| std::str::from_utf8(h).ok());
        match hex.and_then(|h| u32::from_str_radix(h, 16).ok()).filter(|_| digits > 0) {
            Some(c) => {
                out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                i += 2 + digits;
            }
            None => {
                out.push(b[i] as char);
                i += 1;
            }
        }
    }
    out
}

/// The value a BINGET or LONG_BINGET at `data[*p]` fetches from the memo,
/// and `*p` moved past it; None, `*p` unmoved, for any other opcode or an
/// empty slot (`PickleDecoder::run_hot`, `PickleDecoder::event_at`).
#[inline(always)]
fn memo_ref(memo: &Memo, data: &[u8], p: &mut usize) -> Option<Value> {
    let (idx, len) = match *data.get(*p)? {
        op::BINGET => (*data.get(*p + 1)? as usize, 2),
        op::LONG_BINGET => {
            let b = data.get(*p + 1..*p + 5)?;
            (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 5)
        }
        _ => return None,
    };
    let v = memo.get(idx)?;
    *p += len;
    Some(v)
}

/// A SHORT_BINUNICODE at `data[*p]` written out in a trace event: where its
/// text starts, its length and whether a MEMOIZE follows; `*p` moved past
/// them. None when the bytes are not all there (`PickleDecoder::event_at`).
#[inline(always)]
fn written_str(data: &[u8], p: &mut usize) -> Option<(u32, u32, bool)> {
    let len = *data.get(*p + 1)? as usize;
    data.get(*p + 2..*p + 2 + len)?;
    let memoized = data.get(*p + 2 + len) == Some(&op::MEMOIZE);
    let start = *p + 2;
    *p = start + len + memoized as usize;
    Some((start as u32, len as u32, memoized))
}

/// The int a BININT1, BININT2, BININT or LONG1 of at most 8 bytes at
/// `data[*p]` pushes, and `*p` moved past it; None, `*p` unmoved, for
/// anything else.
#[inline(always)]
fn inline_int(data: &[u8], p: &mut usize) -> Option<Value> {
    let (v, len) = match *data.get(*p)? {
        op::BININT1 => (*data.get(*p + 1)? as i64, 2),
        op::BININT2 => {
            let b = data.get(*p + 1..*p + 3)?;
            (u16::from_le_bytes([b[0], b[1]]) as i64, 3)
        }
        op::BININT => {
            let b = data.get(*p + 1..*p + 5)?;
            (i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64, 5)
        }
        op::LONG1 => {
            let n = *data.get(*p + 1)? as usize;
            if n > 8 {
                return None;
            }
            // An address or a time (6 to 8 bytes, one per trace event) from
            // one word when 8 bytes are there, sign-extended.
            let v = match word_at(data, *p + 2) {
                Some(w) if n > 0 => ((w << (64 - 8 * n)) as i64) >> (64 - 8 * n),
                _ => le_signed(data.get(*p + 2..*p + 2 + n)?) as i64,
            };
            (v, 2 + n)
        }
        _ => return None,
    };
    *p += len;
    Some(Value::Int(v))
}

#[inline]
fn le_signed(b: &[u8]) -> i128 {
    if b.is_empty() {
        return 0;
    }
    // Addresses and times (LONG1 of 6 to 8 bytes, one per trace event) in
    // one 64-bit word: a variable-length copy into 16 bytes is a memcpy call.
    if b.len() <= 8 {
        let mut w = 0u64;
        for (i, &x) in b.iter().enumerate() {
            w |= (x as u64) << (8 * i);
        }
        let shift = 64 - 8 * b.len() as u32;
        return ((w << shift) as i64 >> shift) as i128;
    }
    let mut buf = if b[b.len() - 1] & 0x80 != 0 { [0xffu8; 16] } else { [0u8; 16] };
    buf[..b.len()].copy_from_slice(b);
    i128::from_le_bytes(buf)
}

/// Builders used by other front ends (JSON) to fill the same arena.
impl Arena {
    fn store_list(&mut self, items: Vec<Value>) -> ListRec {
        if items.is_empty() {
            return ListRec::Empty;
        }
        self.list_store.push(items);
        ListRec::Items((self.list_store.len() - 1) as u32)
    }
    fn store_dict(&mut self, items: Vec<(Value, Value)>) -> DictRec {
        if items.is_empty() {
            return DictRec::Empty;
        }
        self.dict_store.push(items);
        DictRec::Items((self.dict_store.len() - 1) as u32)
    }
    pub fn push_big(&mut self, v: i128) -> Value {
        if let Ok(i) = i64::try_from(v) {
            return Value::Int(i);
        }
        self.bigs.push(v);
        Value::Big((self.bigs.len() - 1) as u32)
    }
    pub fn push_value_str(&mut self, s: &str) -> Value {
        Value::Str(self.push_str(s))
    }
    pub fn push_list(&mut self, items: Vec<Value>) -> Value {
        let rec = self.store_list(items);
        self.lists.push(rec);
        Value::List((self.lists.len() - 1) as u32)
    }
    /// Adds a complete dict (trace events and frames are moved to their tables).
    pub fn push_dict(&mut self, items: Vec<(Value, Value)>) -> Value {
        let rec = self.store_dict(items);
        self.dicts.push(rec);
        let id = (self.dicts.len() - 1) as u32;
        self.finish_dict(id);
        Value::Dict(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wasm32 comparison agrees with `==` on every length around a word
    /// and a difference at every position (the word part and the tail).
    #[test]
    fn same_words_agrees_with_slice_equality() {
        for len in 0..=25usize {
            let a: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37)).collect();
            assert!(same_words(&a, &a.clone()), "len {len}");
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 0x80;
                assert!(!same_words(&a, &b), "len {len}, differs at {at}");
            }
            if len > 0 {
                assert!(!same_words(&a, &a[..len - 1]), "len {len} against its prefix");
            }
        }
    }

    /// Every kind of value comes back out of a memo slot as it went in,
    /// at the edges of what a slot holds inline.
    #[test]
    fn memo_slots_keep_every_value() {
        let mut values =
            vec![Value::None, Value::Bool(false), Value::Bool(true), Value::Float(-0.5), Value::Float(f64::NAN)];
        for i in [0, 1, -1, (1i64 << 59) - 1, -(1i64 << 59), 1i64 << 59, -(1i64 << 59) - 1, i64::MAX, i64::MIN] {
            values.push(Value::Int(i));
        }
        for id in [0, 1, u32::MAX] {
            values.extend([
                Value::Big(id),
                Value::Str(id),
                Value::Bytes(id),
                Value::List(id),
                Value::Tuple(id),
                Value::Dict(id),
            ]);
        }
        let mut m = Memo::default();
        for &v in &values {
            m.push(v);
        }
        m.set(values.len() + 2, Value::Int(7)); // a gap: empty slots
        for (i, v) in values.iter().enumerate() {
            let got = m.get(i).unwrap();
            // NaN is not equal to itself: compare the bits.
            match (got, *v) {
                (Value::Float(a), Value::Float(b)) => assert_eq!(a.to_bits(), b.to_bits()),
                _ => assert_eq!(got, *v, "slot {i}"),
            }
        }
        assert_eq!(m.get(values.len()), None);
        assert_eq!(m.get(values.len() + 1), None);
        assert_eq!(m.get(values.len() + 2), Some(Value::Int(7)));
        assert_eq!(m.get(values.len() + 3), None);
        // Only the floats and the ints of 60 bits or more took a wide slot.
        assert_eq!(m.wide.len(), 2 + 4);
    }

    #[test]
    fn same_frames_is_slice_equality() {
        assert!(same_frames(&[], &[]));
        assert!(same_frames(&[1, 2, 3], &[1, 2, 3]));
        assert!(!same_frames(&[1, 2, 3], &[1, 2, 4]));
        assert!(!same_frames(&[7, 2, 3], &[1, 2, 3]));
        assert!(!same_frames(&[1, 2], &[1, 2, 3]));
        assert!(!same_frames(&[0], &[]));
    }

    /// A full table grows to the estimate of what the input needs (a
    /// sixteenth over), at least by a quarter, at most to an item per 16
    /// input bytes; without the input's size, as `Vec` grows.
    #[test]
    fn tables_grow_to_what_the_input_needs() {
        let full = |n: usize| {
            let mut v = vec![0u32; n];
            v.shrink_to_fit();
            v
        };
        let room_from = |decoded: u64, expected: Option<u64>, n: usize, from: u64| {
            let mut v = full(n);
            Growth { decoded, expected }.room(&mut v, 1, from);
            assert_eq!(v.len(), n);
            v.capacity()
        };
        let room = |decoded, expected, n| room_from(decoded, expected, n, 0);
        // 8192 items in the first 2 MiB of 64 MiB: 262144 in all, 278528 reserved.
        assert_eq!(room(2 << 20, Some(64 << 20), 8192), 262_144 + 16_384);
        // Near the end (256000 to come): a quarter more, not a doubling.
        assert_eq!(room(60 << 20, Some(64 << 20), 240_000), 300_000);
        // An estimate below what is there: a quarter more too.
        assert_eq!(room(64 << 20, Some(1 << 20), 8192), 10_240);
        // A dense start: at most an item per 16 bytes of the 64 MiB.
        assert_eq!(room(1 << 20, Some(64 << 20), 1 << 20), (64 << 20) / 16);
        // Too early to judge (under 1 MiB or 4096 items), or no size: as Vec.
        for (decoded, expected, n) in
            [(1 << 19, Some(64 << 20), 8192), (2 << 20, Some(64 << 20), 100), (2 << 20, None, 8192)]
        {
            let got = room(decoded, expected, n);
            assert!(got > n && got <= 2 * n.max(4), "{decoded} {expected:?} {n}: {got}");
        }
        // Items from 1 MiB on (the event columns after the segments): 8192
        // in the 2 MiB since, 63 MiB to come: 258048, 274176 reserved.
        assert_eq!(room_from(3 << 20, Some(64 << 20), 8192, 1 << 20), 258_048 + 16_128);
        // Under 1 MiB since they started: as Vec.
        let got = room_from(3 << 20, Some(64 << 20), 8192, 5 << 19);
        assert!(got > 8192 && got <= 2 * 8192, "{got}");
    }

    /// Decodes a whole pickle; its arena.
    fn arena_of(bytes: &[u8]) -> Arena {
        let mut d = PickleDecoder::new();
        d.feed(bytes).unwrap();
        d.finish().unwrap().1
    }

    /// Python's repr of a value made of ints and lists.
    fn repr(a: &Arena, v: &Value) -> String {
        match v {
            Value::Int(i) => i.to_string(),
            Value::List(_) => {
                let items: Vec<String> = a.list_items(v).unwrap().iter().map(|x| repr(a, x)).collect();
                format!("[{}]", items.join(", "))
            }
            other => format!("<{}>", other.type_name()),
        }
    }

    fn top_repr(bytes: &[u8]) -> String {
        let mut d = PickleDecoder::new();
        d.feed(bytes).unwrap();
        let (v, a, _) = d.finish().unwrap();
        repr(&a, &v)
    }

    /// Lists filled by APPENDS while empty share one pending buffer; each
    /// keeps its items when the next one takes the buffer, and takes more
    /// later. Expected values: Python's `repr(pickle.loads(bytes))`.
    #[test]
    fn pending_lists_keep_their_items() {
        // pickle.dumps([[1, 2], [3], [[5, 6], 7]], protocol=4)
        let nested = [
            128, 4, 149, 32, 0, 0, 0, 0, 0, 0, 0, 93, 148, 40, 93, 148, 40, 75, 1, 75, 2, 101, 93, 148, 75, 3, 97, 93,
            148, 40, 93, 148, 40, 75, 5, 75, 6, 101, 75, 7, 101, 101, 46,
        ];
        assert_eq!(top_repr(&nested), "[[1, 2], [3], [[5, 6], 7]]");
        // A filled, B filled (A leaves the buffer), B popped, A appended to twice.
        let again = [
            0x80, 4, 0x5d, 0x94, 0x28, 0x4b, 1, 0x4b, 2, 0x65, 0x5d, 0x94, 0x28, 0x4b, 3, 0x65, 0x30, 0x28, 0x4b, 4,
            0x65, 0x28, 0x4b, 5, 0x65, 0x2e,
        ];
        assert_eq!(top_repr(&again), "[1, 2, 4, 5]");
        // B (still pending) APPENDed into A, then A appended to.
        let inner = [
            0x80, 4, 0x5d, 0x94, 0x28, 0x4b, 1, 0x4b, 2, 0x65, 0x5d, 0x94, 0x28, 0x4b, 3, 0x65, 0x61, 0x28, 0x4b, 4,
            0x65, 0x2e,
        ];
        assert_eq!(top_repr(&inner), "[1, 2, [3], 4]");
    }

    #[test]
    fn le_signed_matches_twos_complement() {
        // Python's int.to_bytes(n, 'little', signed=True) for each length.
        for v in [0i128, 1, -1, 127, -128, 128, 255, -256, 1 << 40, -(1 << 40), i64::MAX as i128, i64::MIN as i128] {
            let full = v.to_le_bytes();
            for n in 1..=16usize {
                let back = le_signed(&full[..n]);
                let fits = n == 16 || (-(1i128 << (8 * n - 1))..(1i128 << (8 * n - 1))).contains(&v);
                if fits {
                    assert_eq!(back, v, "{v} in {n} bytes");
                }
            }
        }
        assert_eq!(le_signed(&[0xff, 0x7f]), 0x7fff);
        assert_eq!(le_signed(&[0x00, 0x80]), -0x8000);
        assert_eq!(le_signed(&[0x00; 9]), 0);
    }

    /// BINGET / LONG_BINGET of memo `idx`.
    fn get(out: &mut Vec<u8>, idx: u32) {
        if idx < 256 {
            out.extend_from_slice(&[op::BINGET, idx as u8]);
        } else {
            out.push(op::LONG_BINGET);
            out.extend_from_slice(&idx.to_le_bytes());
        }
    }

    #[test]
    fn a_put_far_ahead_allocates_no_memo() {
        let mut p = vec![op::PROTO, 4, op::EMPTY_LIST, op::LONG_BINPUT, 0xff, 0xff, 0xff, 0xff];
        get(&mut p, u32::MAX);
        p.push(op::STOP);
        assert_eq!(arena_of(&p).lists.len(), 1);
    }

    /// Lists holding the previous one twice through the memo are shared,
    /// not copied: `levels` + 1 lists of two references, not 2^levels leaves.
    #[test]
    fn billion_laughs_stay_shared() {
        let levels = 40u32;
        let mut p = vec![op::PROTO, 4, op::EMPTY_LIST, op::MEMOIZE];
        for k in 1..=levels {
            p.push(op::MARK);
            get(&mut p, k - 1);
            get(&mut p, k - 1);
            p.extend_from_slice(&[op::LIST, op::MEMOIZE]);
        }
        p.push(op::STOP);
        let arena = arena_of(&p);
        assert_eq!(arena.lists.len(), levels as usize + 1);
        assert_eq!(arena.list_store.iter().map(|v| v.len()).sum::<usize>(), 2 * levels as usize);
    }

    /// The plain-event shortcut reads an event as the general loop does,
    /// and leaves every other shape to it untouched.
    #[test]
    fn plain_events_read_as_push_event_reads_them() {
        let keys = ["action", "addr", "size", "stream", "time_us", "frames"];
        let cases: Vec<(&str, [Value; 5], bool)> = vec![
            ("alloc", [Value::Int(1 << 40), Value::Int(512), Value::Int(7), Value::Int(i64::MIN), Value::None], true),
            ("free", [Value::Int(0), Value::Int(0), Value::Int(0), Value::Int(-5), Value::Int(3)], true),
            ("alloc", [Value::Int(-1), Value::Int(512), Value::Int(0), Value::Int(1), Value::None], false),
            ("alloc", [Value::Int(8), Value::None, Value::Int(0), Value::Int(1), Value::None], false),
            ("snapshot_x", [Value::Int(8), Value::Int(1), Value::Int(0), Value::Int(1), Value::None], false),
        ];
        for (action, vals, plain) in cases {
            let build = |a: &mut Arena| {
                let mut flat = Vec::new();
                for (k, v) in keys.iter().zip([Value::None].iter().chain(&vals)) {
                    flat.push(a.push_value_str(k));
                    flat.push(*v);
                }
                flat[1] = a.push_value_str(action);
                flat
            };
            let (mut fast, mut slow) = (Arena::new(), Arena::new());
            let (ff, sf) = (build(&mut fast), build(&mut slow));
            assert_eq!(fast.push_plain_event(&ff).is_some(), plain, "{action} {vals:?}");
            if !plain {
                fast.push_event(&ff);
            }
            slow.push_event(&sf);
            assert_eq!(format!("{:?}", fast.events), format!("{:?}", slow.events), "{action} {vals:?}");
            assert_eq!(fast.event_problems, slow.event_problems, "{action} {vals:?}");
        }
    }

    /// The 2.5-on shortcut (keys in any order, compile_context and an
    /// empty user_metadata) reads an event as the general loop does, and
    /// leaves every other shape to it untouched.
    #[test]
    fn context_events_read_as_push_event_reads_them() {
        let s = |a: &mut Arena, t: &str| a.push_value_str(t);
        type Case = (Vec<(&'static str, Option<&'static str>, Value)>, bool);
        let base = |extra: Vec<(&'static str, Option<&'static str>, Value)>| {
            let mut v = vec![
                ("time_us", None, Value::Int(5)),
                ("frames", None, Value::None),
                ("action", Some("alloc"), Value::None),
                ("addr", None, Value::Int(1 << 40)),
                ("size", None, Value::Int(512)),
                ("stream", None, Value::Int(3)),
            ];
            v.extend(extra);
            v
        };
        let cases: Vec<Case> = vec![
            (base(vec![("compile_context", Some("N/A"), Value::None), ("user_metadata", Some(""), Value::None)]), true),
            (base(vec![("compile_context", Some("N/A"), Value::None)]), true),
            (base(vec![("compile_context", None, Value::None), ("user_metadata", None, Value::None)]), true),
            (base(vec![("compile_context", Some("fwd 0"), Value::None)]), true),
            (base(vec![("user_metadata", Some("tag"), Value::None)]), false),
            (base(vec![("compile_context", None, Value::Int(3))]), false),
            (base(vec![("pool_id", None, Value::None)]), false),
            (base(vec![("size", None, Value::Int(1))]), false),
            (base(vec![("addr", None, Value::Int(-1))]), false),
            (base(vec![]).into_iter().skip(1).collect(), false),
        ];
        for (pairs, fast_ok) in cases {
            let build = |a: &mut Arena| {
                let mut flat = Vec::new();
                for &(k, text, v) in &pairs {
                    flat.push(s(a, k));
                    flat.push(text.map_or(v, |t| s(a, t)));
                }
                flat
            };
            let (mut fast, mut slow) = (Arena::new(), Arena::new());
            // Two events each: the second finds the first's shared context.
            for _ in 0..2 {
                let (ff, sf) = (build(&mut fast), build(&mut slow));
                assert_eq!(fast.push_context_event(&ff).is_some(), fast_ok, "{pairs:?}");
                if !fast_ok {
                    fast.push_event(&ff);
                }
                slow.push_event(&sf);
            }
            assert_eq!(format!("{:?}", fast.events), format!("{:?}", slow.events), "{pairs:?}");
            assert_eq!(format!("{:?}", fast.extras), format!("{:?}", slow.extras), "{pairs:?}");
            assert_eq!(fast.event_problems, slow.event_problems, "{pairs:?}");
        }
    }

    #[test]
    fn invalid_utf8_is_one_replacement_per_bad_byte() {
        assert_eq!(python_str_lossy(b"caf\xe9 \xff"), "caf\u{FFFD} \u{FFFD}");
    }
}
