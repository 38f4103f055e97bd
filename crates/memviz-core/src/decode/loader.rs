//! From decoded values to the [`Snapshot`] model, and [`Loader`], which
//! takes a file's bytes in chunks and picks the format (pickle, JSON, gzip
//! of either) from its first bytes.

use std::io::Write;

use crate::error::{Error, ErrorKind, Result};
use crate::model::{Block, BlockState, BuildWarnings, EventTable, Segment, SegmentType, Snapshot, StackId, NO_POOL};
use crate::pickle::{foreign_format, not_a_pickle, Arena, DictRec, ListValues, PickleDecoder, Value, SNIFF_TEXT};
use crate::problems::{a_value_of, frames_read_as, not_a, Collector, Found, Outcome, Problem};

/// The largest (decompressed) snapshot a [`Loader`] reads unless told
/// otherwise: ids in the model are 32-bit, and every id needs at least one
/// input byte, so below this size none can overflow.
pub const MAX_SNAPSHOT_BYTES: u64 = u32::MAX as u64;

/// gzip input goes to the decoder in pieces this large, so a corrupt stream
/// is reported within this many bytes of where it breaks.
const GZIP_PIECE: usize = 4096;

/// What a file turned out to be.
#[allow(clippy::large_enum_variant)] // one per file, moved once: boxing buys nothing
pub enum Loaded {
    Snapshot(Snapshot),
    Profiler(crate::profiler::ProfilerFile),
}

/// Reads a snapshot from chunks of bytes.
///
/// ```no_run
/// let mut loader = memviz_core::Loader::new();
/// loader.feed(&std::fs::read("snapshot.pickle")?)?;
/// let snapshot = loader.finish()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Loader {
    state: LoaderState,
    /// Bytes of (compressed) input seen so far.
    pub bytes_in: u64,
    max_bytes: u64,
    /// The file's size, if told ([`Loader::expect`]).
    expected: Option<u64>,
}

enum LoaderState {
    /// Fewer than two bytes seen: not yet known whether it is gzip.
    Start(Vec<u8>),
    Plain(Stream),
    Gzip(Box<flate2::write::MultiGzDecoder<Stream>>),
    Failed,
}

/// The (decompressed) snapshot stream: its decoder and how many bytes it took.
struct Stream {
    inner: Inner,
    bytes: u64,
    max_bytes: u64,
    gzip: bool,
    /// The stream's size, if known (a plain file's).
    expected: Option<u64>,
}

enum Inner {
    /// Only whitespace so far (JSON may start with some): the format is
    /// decided on the first other byte.
    Sniff(Vec<u8>),
    Pickle(Box<PickleDecoder>),
    /// JSON is parsed whole at the end (serde_json has no streaming parser
    /// for one document); it is bounded by `max_bytes` like any input.
    Json(Vec<u8>),
}

/// Leading whitespace kept while deciding the format; past it, the input is
/// handed to the pickle decoder, which calls it what it is.
const MAX_SNIFF: usize = 4096;
/// Bytes looked at for the magic of a file that is no snapshot (PNG, zip...).
const SNIFF_MAGIC: usize = 8;

impl Stream {
    fn new(max_bytes: u64, gzip: bool, expected: Option<u64>) -> Stream {
        Stream { inner: Inner::Sniff(Vec::new()), bytes: 0, max_bytes, gzip, expected }
    }

    /// Marks errors of the decompressed stream as such.
    fn tag(&self, mut e: Error) -> Error {
        if self.gzip {
            e.message.push_str(", in the decompressed gzip data");
        }
        e
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        self.bytes += chunk.len() as u64;
        if self.bytes > self.max_bytes {
            let what = if self.gzip { "the gzip data inflates to" } else { "the snapshot has" };
            return Err(Error::at(
                ErrorKind::TooLarge,
                self.max_bytes,
                format!("{what} more than {} bytes (the limit of this reader)", self.max_bytes),
            ));
        }
        self.feed_inner(chunk).map_err(|e| self.tag(e))
    }

    fn feed_inner(&mut self, chunk: &[u8]) -> Result<()> {
        if let Inner::Sniff(head) = &mut self.inner {
            let first = head.iter().chain(chunk).copied().find(|b| !b.is_ascii_whitespace());
            let len = head.len() + chunk.len();
            if (first.is_none() && len <= MAX_SNIFF) || len < SNIFF_MAGIC {
                head.extend_from_slice(chunk);
                return Ok(());
            }
            let head = std::mem::take(head);
            self.decide(first, head, Some(chunk))?;
        }
        match &mut self.inner {
            Inner::Pickle(p) => p.feed(chunk),
            Inner::Json(buf) => {
                buf.extend_from_slice(chunk);
                Ok(())
            }
            Inner::Sniff(_) => unreachable!("decided above"),
        }
    }

    /// Picks the decoder from the first non-whitespace byte and feeds it
    /// `head`; `next` (not fed) is looked at for a foreign file's magic.
    fn decide(&mut self, first: Option<u8>, head: Vec<u8>, next: Option<&[u8]>) -> Result<()> {
        let mut start = head.clone();
        start.extend(next.unwrap_or(&[]).iter().take(SNIFF_TEXT));
        if foreign_format(&start).is_some() {
            return Err(not_a_pickle(&start));
        }
        self.inner = match first {
            Some(b'{') | Some(b'[') => Inner::Json(head),
            _ => {
                let mut p = Box::new(PickleDecoder::new());
                if let Some(total) = self.expected {
                    p.expect(total);
                }
                p.feed(&head)?;
                Inner::Pickle(p)
            }
        };
        Ok(())
    }

    fn finish(mut self) -> Result<Loaded> {
        if let Inner::Sniff(head) = &mut self.inner {
            // A short file (under SNIFF_MAGIC bytes) is decided at its end.
            if head.iter().any(|b| !b.is_ascii_whitespace()) {
                let head = std::mem::take(head);
                let first = head.iter().copied().find(|b| !b.is_ascii_whitespace());
                self.decide(first, head, None).map_err(|e| self.tag(e))?;
            }
        }
        let gzip = self.gzip;
        let tag = |mut e: Error| {
            if gzip {
                e.message.push_str(", in the decompressed gzip data");
            }
            e
        };
        match self.inner {
            Inner::Sniff(head) if head.is_empty() => Err(Error::at(
                ErrorKind::NotASnapshot,
                0,
                if gzip { "the gzip data decompresses to nothing" } else { "the file is empty" },
            )),
            Inner::Sniff(head) => Err(tag(Error::at(
                ErrorKind::NotASnapshot,
                head.len() as u64,
                "not a memory snapshot: the file holds only whitespace",
            ))),
            Inner::Pickle(p) => {
                let (top, arena, protocol) = p.finish().map_err(tag)?;
                build(top, arena, protocol).map(Loaded::Snapshot)
            }
            Inner::Json(buf) => {
                // torch.profiler's memory exports are JSON too: they go their own way.
                if let Some(r) = crate::profiler::decode_json(&buf) {
                    return r.map(Loaded::Profiler).map_err(tag);
                }
                let (top, arena) = crate::json::decode(&buf).map_err(tag)?;
                build(top, arena, 0).map(|snap| Loaded::Snapshot(Snapshot { json: true, ..snap }))
            }
        }
    }
}

/// Carries decoder errors through flate2's `Write` interface.
struct InnerError(Error);
impl std::fmt::Display for InnerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
impl std::fmt::Debug for InnerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
impl std::error::Error for InnerError {}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.feed(buf).map_err(|e| std::io::Error::other(InnerError(e)))?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn gzip_error(e: std::io::Error, offset: u64) -> Error {
    if let Some(inner) = e.get_ref().and_then(|x| x.downcast_ref::<InnerError>()) {
        return inner.0.clone();
    }
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        return Error::at(ErrorKind::Truncated, offset, format!("truncated gzip data: {e}"));
    }
    Error::at(ErrorKind::Gzip, offset, format!("corrupt gzip data: {e}"))
}

impl Default for Loader {
    fn default() -> Self {
        Self::new()
    }
}

impl Loader {
    pub fn new() -> Self {
        Self::with_max_bytes(MAX_SNAPSHOT_BYTES)
    }

    /// A loader that refuses (with [`ErrorKind::TooLarge`]) a snapshot whose
    /// decompressed data is larger than `max_bytes` (at most
    /// [`MAX_SNAPSHOT_BYTES`]): the page sets it from what the browser can hold.
    pub fn with_max_bytes(max_bytes: u64) -> Self {
        Loader {
            state: LoaderState::Start(Vec::new()),
            bytes_in: 0,
            max_bytes: max_bytes.min(MAX_SNAPSHOT_BYTES),
            expected: None,
        }
    }

    /// Says the file's size before the first chunk, so that the decoder's
    /// tables grow to what it will need rather than by doubling (the
    /// page's worker, which knows it; a gzip file's inflated size is not
    /// known, so it goes without).
    pub fn expect(&mut self, file_bytes: u64) {
        self.expected = Some(file_bytes);
    }

    /// Feeds the next chunk of the file.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        let at = self.bytes_in;
        self.bytes_in += chunk.len() as u64;
        let r = self.feed_inner(chunk, at);
        if r.is_err() {
            self.state = LoaderState::Failed;
        }
        r
    }

    fn feed_inner(&mut self, chunk: &[u8], at: u64) -> Result<()> {
        match &mut self.state {
            LoaderState::Start(head) => {
                if head.len() + chunk.len() < 2 {
                    head.extend_from_slice(chunk);
                    return Ok(());
                }
                let head = std::mem::take(head);
                let is_gzip = head.iter().chain(chunk).take(2).eq([0x1f, 0x8b].iter());
                self.state = if is_gzip {
                    LoaderState::Gzip(Box::new(flate2::write::MultiGzDecoder::new(Stream::new(
                        self.max_bytes,
                        true,
                        None,
                    ))))
                } else {
                    LoaderState::Plain(Stream::new(self.max_bytes, false, self.expected))
                };
                let at = at - head.len() as u64;
                self.feed_inner(&head, at)?;
                self.feed_inner(chunk, at + head.len() as u64)
            }
            LoaderState::Plain(s) => s.feed(chunk),
            LoaderState::Gzip(gz) => {
                for (i, piece) in chunk.chunks(GZIP_PIECE).enumerate() {
                    let at = at + (i * GZIP_PIECE) as u64;
                    gz.write_all(piece).map_err(|e| gzip_error(e, at))?;
                }
                Ok(())
            }
            LoaderState::Failed => Err(Error::new(ErrorKind::Malformed, None, "the loader already failed")),
        }
    }

    /// Ends the input and builds the model. A torch.profiler export is an
    /// error here that says what it is ([`Loader::finish_any`] reads it).
    pub fn finish(self) -> Result<Snapshot> {
        match self.finish_any()? {
            Loaded::Snapshot(s) => Ok(s),
            Loaded::Profiler(p) => Err(Error::new(
                ErrorKind::NotSnapshotShaped,
                None,
                format!(
                    "not a memory snapshot but a {}: memviz shows it as a chart (the page, `memviz summary`, `memviz render`)",
                    p.format.describe()
                ),
            )),
        }
    }

    /// Ends the input and builds the model, or the profiler export's charts.
    pub fn finish_any(self) -> Result<Loaded> {
        match self.state {
            LoaderState::Start(head) => {
                if head.is_empty() {
                    return Err(Error::at(ErrorKind::NotASnapshot, 0, "the file is empty"));
                }
                let mut s = Stream::new(self.max_bytes, false, self.expected);
                s.feed(&head)?;
                s.finish()
            }
            LoaderState::Plain(s) => s.finish(),
            LoaderState::Gzip(gz) => {
                let total = self.bytes_in;
                let s = gz.finish().map_err(|e| gzip_error(e, total))?;
                s.finish()
            }
            LoaderState::Failed => Err(Error::new(ErrorKind::Malformed, None, "the loader already failed")),
        }
    }
}

/// What a repeated reference is called in a warning.
const SHARED: &str = "the same object as an earlier entry (a snapshot has each in one place)";

/// The builder's state: the decoded values and what it has to say about them.
struct Ctx<'a> {
    arena: &'a mut Arena,
    warn: Collector,
    unknown_keys: u64,
    /// Dicts and lists already used as a segment, block, blocks list or
    /// trace: the format has each in one place, and a hostile file that
    /// references one a million times (through the memo) must not make a
    /// million copies.
    used_dicts: Vec<bool>,
    used_lists: Vec<bool>,
}

impl Ctx<'_> {
    /// True the first time a container is used; a later use is reported at
    /// `loc` and skipped.
    fn first_use(&mut self, v: &Value, loc: &dyn Fn() -> String) -> bool {
        let slot = match *v {
            Value::Dict(id) => self.used_dicts.get_mut(id as usize),
            Value::List(id) | Value::Tuple(id) => self.used_lists.get_mut(id as usize),
            _ => return true,
        };
        match slot {
            Some(u) if *u => {
                self.warn.add(&loc(), SHARED.to_string(), true);
                false
            }
            Some(u) => {
                *u = true;
                true
            }
            None => true,
        }
    }

    /// Reads a non-negative integer field; a bad one is reported at `loc`
    /// with `outcome`. `None` when it is bad.
    fn unsigned(&mut self, loc: &dyn Fn() -> String, field: &'static str, v: &Value, outcome: Outcome) -> Option<u128> {
        match self.arena.read_unsigned(v) {
            (n, None) => Some(n),
            (_, Some(found)) => {
                self.warn.add_problem(&loc(), &Problem { field, found, expected: "an int", outcome });
                None
            }
        }
    }

    fn problem(
        &mut self,
        loc: &dyn Fn() -> String,
        field: &'static str,
        found: Found,
        expected: &'static str,
        outcome: Outcome,
    ) {
        self.warn.add_problem(&loc(), &Problem { field, found, expected, outcome });
    }

    fn str_of(&self, v: &Value) -> Option<&str> {
        match v {
            Value::Str(s) => Some(self.arena.str(*s)),
            _ => None,
        }
    }

    fn items(&self, v: &Value) -> Vec<(Value, Value)> {
        self.arena.dict_items(v).map(|x| x.to_vec()).unwrap_or_default()
    }

    /// What a value that should have been the dict of a `role` is, for a
    /// warning: `a list, not a dict`, `a trace entry, not a segment`.
    fn not_a(&self, role: &str, v: &Value) -> String {
        match *v {
            Value::Dict(id) => match self.arena.dicts[id as usize] {
                DictRec::Event(_) => format!("a trace entry, not {role}"),
                DictRec::Frame(_) => format!("a stack frame, not {role}"),
                _ => format!("not {role}"),
            },
            Value::Event(_) => format!("a trace entry, not {role}"),
            other => not_a("a dict", other.type_name()),
        }
    }
}

/// Why a dict in a trace is no trace entry.
fn not_an_event(arena: &Arena, v: &Value) -> String {
    let Value::Dict(id) = *v else { return not_a("a dict", v.type_name()) };
    match arena.dicts[id as usize] {
        DictRec::Frame(_) => "a stack frame, not a trace entry".to_string(),
        DictRec::Empty => "an empty dict, not a trace entry".to_string(),
        _ => {
            let items = arena.dict_items(v).unwrap_or(&[]);
            let is_action = |k: &Value| matches!(k, Value::Str(s) if arena.str(*s) == "action");
            match items.iter().find(|(k, _)| is_action(k)) {
                Some((_, Value::Str(_))) => {
                    format!("a dict of {} keys, not a trace entry (those have a dozen)", items.len())
                }
                Some((_, a)) => format!("'action' is {}, not a str", a_value_of(a.type_name())),
                None => "no 'action'".to_string(),
            }
        }
    }
}

/// One device's trace events (global indices), in order: as a rule the
/// run its list is (events in a row, as the pickler writes a trace), kept
/// as that range rather than an id per event (8 MB, and 6 of the 10 ms of
/// the model's build, on the 2M-event file).
#[derive(Debug, Clone)]
enum TraceIds {
    Run(std::ops::Range<u32>),
    List(Vec<u32>),
}

impl Default for TraceIds {
    fn default() -> Self {
        TraceIds::List(Vec::new())
    }
}

impl TraceIds {
    fn len(&self) -> usize {
        match self {
            TraceIds::Run(r) => r.len(),
            TraceIds::List(v) => v.len(),
        }
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let (list, run) = match self {
            TraceIds::Run(r) => (&[][..], r.clone()),
            TraceIds::List(v) => (&v[..], 0..0),
        };
        list.iter().copied().chain(run)
    }

    /// Whether the ids are `first, first + 1, ...`.
    fn in_row_from(&self, first: u32) -> bool {
        match self {
            TraceIds::Run(r) => r.start == first || r.is_empty(),
            TraceIds::List(v) => v.iter().zip(first..).all(|(&e, want)| e == want),
        }
    }
}

/// A trace list's events as a run when they are one that no other trace
/// used and none of whose events has a problem to report (marked used);
/// else None, and `trace_events` goes through them one by one.
fn clean_run(arena: &Arena, items: &ListValues<'_>, used_events: &mut [bool]) -> Option<TraceIds> {
    let ListValues::Events(r) = items else { return None };
    let used = &mut used_events[r.start as usize..r.end as usize];
    let p = &arena.event_problems;
    let first_problem = p.partition_point(|x| x.0 < r.start);
    if used.contains(&true) || p.get(first_problem).is_some_and(|x| x.0 < r.end) {
        return None;
    }
    used.fill(true);
    Some(TraceIds::Run(r.clone()))
}

/// The trace events of one trace list, in order, leaving out (and reporting
/// at `loc(i)`) what is no usable event. Borrows the arena and the warnings
/// apart so a trace of millions of events is not copied.
fn trace_events(
    arena: &Arena,
    warn: &mut Collector,
    items: impl Iterator<Item = Value>,
    used_events: &mut [bool],
    loc: &dyn Fn(usize) -> String,
    ids: &mut Vec<u32>,
) {
    for (i, e) in items.enumerate() {
        let ev = match arena.event_of(&e) {
            Some(ev) => ev,
            None if matches!(e, Value::Dict(_)) => {
                warn.add(&loc(i), not_an_event(arena, &e), true);
                continue;
            }
            None => {
                warn.add(&loc(i), not_a("a dict", e.type_name()), true);
                continue;
            }
        };
        if used_events[ev as usize] {
            warn.add(&loc(i), SHARED.to_string(), true);
            continue;
        }
        used_events[ev as usize] = true;
        let problems = arena.problems_of(ev);
        if problems.is_empty() {
            ids.push(ev);
            continue;
        }
        let here = loc(i);
        let mut skip = false;
        for (_, p) in problems {
            warn.add_problem(&here, p);
            skip |= p.skips();
        }
        if !skip {
            ids.push(ev);
        }
    }
}

fn build(top: Value, mut arena: Arena, protocol: u8) -> Result<Snapshot> {
    let used_dicts = vec![false; arena.dicts.len()];
    let used_lists = vec![false; arena.lists.len()];
    let mut ctx = Ctx { arena: &mut arena, warn: Collector::default(), unknown_keys: 0, used_dicts, used_lists };
    let mut snap = Snapshot { protocol, ..Default::default() };

    let TopLevel { segments: segments_v, traces: traces_v, host_segments: host_segments_v, host_traces: host_traces_v } =
        top_level(&mut ctx, &mut snap, top)?;

    let bare = snap.bare_segment_list;
    if let Some(v) = segments_v {
        let Some(list) = ctx.arena.list_items(&v).map(|x| x.to_vec()) else {
            return Err(Error::new(
                ErrorKind::NotSnapshotShaped,
                None,
                format!("not a memory snapshot: 'segments' is a {}, not a list", v.type_name()),
            ));
        };
        for (i, s) in list.iter().enumerate() {
            let loc = move || if bare { format!("[{i}]") } else { format!("segments[{i}]") };
            build_segment(&mut ctx, &mut snap, s, &loc, None);
        }
    }

    // Trace events were moved into tables while decoding (one per device's
    // trace, as a rule); each device's events go to its own table.
    let mut used_events = vec![false; ctx.arena.event_count()];
    let mut per_device: Vec<TraceIds> = Vec::new();
    if let Some(v) = traces_v {
        let Some(devs) = ctx.arena.list_items(&v).map(|x| x.to_vec()) else {
            return Err(Error::new(
                ErrorKind::NotSnapshotShaped,
                None,
                format!("not a memory snapshot: 'device_traces' is a {}, not a list", v.type_name()),
            ));
        };
        for (d, dv) in devs.iter().enumerate() {
            let mut ids = TraceIds::default();
            // A skipped device keeps its place: device numbers are indices.
            if ctx.first_use(dv, &|| format!("device_traces[{d}]")) {
                match ctx.arena.list_values(dv) {
                    Some(items) => match clean_run(ctx.arena, &items, &mut used_events) {
                        Some(run) => ids = run,
                        None => {
                            let mut list = Vec::new();
                            trace_events(
                                ctx.arena,
                                &mut ctx.warn,
                                items.iter(),
                                &mut used_events,
                                &|i| format!("device_traces[{d}][{i}]"),
                                &mut list,
                            );
                            ids = TraceIds::List(list);
                        }
                    },
                    None => ctx.warn.add(&format!("device_traces[{d}]"), not_a("a list", dv.type_name()), true),
                }
            }
            per_device.push(ids);
        }
    }

    host_memory(&mut ctx, &mut snap, host_segments_v, host_traces_v, &mut used_events, &mut per_device);

    // The generic values are done with: free them before the event columns
    // are split, the moment of the load's peak memory.
    for store in [
        &mut ctx.arena.list_store as &mut dyn Release,
        &mut ctx.arena.dict_store,
        &mut ctx.arena.lists,
        &mut ctx.arena.dicts,
    ] {
        store.release();
    }
    snap.traces = split_events(ctx.arena.take_events(), &per_device);

    number_streams(&mut snap, &std::mem::take(&mut ctx.arena.raw_streams));

    if ctx.arena.late_items > 0 {
        ctx.warn.add_file(format!(
            "{} values were added to a trace entry or frames list after it was complete: ignored",
            ctx.arena.late_items
        ));
    }
    let elided = ctx.arena.elided_copies.get();
    if elided > 0 {
        ctx.warn.add_file(format!(
            "{elided} repeated text values (settings, metadata, action names) were shortened to \"…\": \
             together they are far larger than the file"
        ));
    }
    let nothing_left = ctx.warn.skipped_any() && snap.segments.is_empty() && snap.traces.iter().all(|t| t.is_empty());
    let warnings = ctx.warn.into_list();
    if nothing_left {
        // Everything was skipped: a file of bad entries is no snapshot.
        let shown: Vec<String> = warnings.iter().filter(|w| w.skipped).take(3).map(|w| w.to_string()).collect();
        return Err(Error::new(
            ErrorKind::NotSnapshotShaped,
            None,
            format!("not a memory snapshot: nothing usable is left: {}", shown.join("; ")),
        ));
    }
    snap.warnings = BuildWarnings { unknown_keys: ctx.unknown_keys + arena.unknown_event_keys, list: warnings };
    snap.extras = arena.extras;
    snap.strings = arena.strings;
    snap.frames = arena.frames;
    snap.frame_fx = arena.frame_fx;
    snap.stacks = arena.stacks;
    snap.annotations = crate::annotations::link(&snap);
    Ok(snap)
}

/// Pinned host memory (PyTorch 2.15): one more device, numbered past the
/// CUDA devices, so that every view and the CLI treat it like the others.
fn host_memory(
    ctx: &mut Ctx,
    snap: &mut Snapshot,
    host_segments_v: Option<Value>,
    host_traces_v: Option<Value>,
    used_events: &mut [bool],
    per_device: &mut Vec<TraceIds>,
) {
    let first_host_segment = snap.segments.len();
    let host = {
        let mut h = per_device.len() as u32;
        let cuda: std::collections::HashSet<u32> = snap.segments.iter().map(|s| s.device).collect();
        while cuda.contains(&h) {
            h += 1;
        }
        h
    };
    if let Some(v) = host_segments_v {
        match ctx.arena.list_items(&v).map(|x| x.to_vec()) {
            Some(list) => {
                for (i, s) in list.iter().enumerate() {
                    build_segment(ctx, snap, s, &|| format!("host_segments[{i}]"), Some(host));
                }
            }
            None => ctx.warn.add("host_segments", not_a("a list", v.type_name()), true),
        }
    }
    let mut host_ids = Vec::new();
    if let Some(v) = host_traces_v {
        // A list of traces (like device_traces) or one trace: both are written.
        let nested =
            ctx.arena.list_values(&v).is_some_and(|l| l.iter().any(|x| matches!(x, Value::List(_) | Value::Tuple(_))));
        match ctx.arena.list_values(&v) {
            Some(items) if nested => {
                for (k, tv) in items.iter().collect::<Vec<_>>().iter().enumerate() {
                    if !ctx.first_use(tv, &|| format!("host_traces[{k}]")) {
                        continue;
                    }
                    match ctx.arena.list_values(tv) {
                        Some(list) => trace_events(
                            ctx.arena,
                            &mut ctx.warn,
                            list.iter(),
                            used_events,
                            &|i| format!("host_traces[{k}][{i}]"),
                            &mut host_ids,
                        ),
                        None => ctx.warn.add(&format!("host_traces[{k}]"), not_a("a list", tv.type_name()), true),
                    }
                }
            }
            Some(items) => trace_events(
                ctx.arena,
                &mut ctx.warn,
                items.iter(),
                used_events,
                &|i| format!("host_traces[{i}]"),
                &mut host_ids,
            ),
            None => ctx.warn.add("host_traces", not_a("a list", v.type_name()), true),
        }
    }
    if snap.segments.len() > first_host_segment || !host_ids.is_empty() {
        per_device.resize(host as usize, TraceIds::default());
        per_device.push(TraceIds::List(host_ids));
        snap.host_device = Some(host);
    }
}

/// The parts of the file's top level the model is built from.
struct TopLevel {
    segments: Option<Value>,
    traces: Option<Value>,
    host_segments: Option<Value>,
    host_traces: Option<Value>,
}

/// Phase 1: the top level, a dict (or a bare list of segments); the
/// allocator settings and external annotations go straight to `snap`.
fn top_level(ctx: &mut Ctx, snap: &mut Snapshot, top: Value) -> Result<TopLevel> {
    // One budget for all free-form values, however often they repeat.
    let mut budget = 100_000;
    let mut host_segments = None;
    let mut host_traces = None;
    let (segments, traces) = match top {
        Value::List(_) | Value::Tuple(_) => {
            // torch.cuda.memory_snapshot() returns a list of segment dicts; a
            // list holding no dict at all is something else.
            let items = ctx.arena.list_items(&top).unwrap_or_default();
            if let Some(x) =
                items.first().filter(|_| !items.iter().any(|x| matches!(x, Value::Dict(_) | Value::Event(_))))
            {
                return Err(Error::new(
                    ErrorKind::NotSnapshotShaped,
                    None,
                    format!(
                        "not a memory snapshot: the file holds a list of {} values (expected the dict that \
                         torch.cuda.memory._dump_snapshot writes or a list of segment dicts)",
                        x.type_name()
                    ),
                ));
            }
            snap.bare_segment_list = true;
            (Some(top), None)
        }
        // An event read as one unit is a dict too: it has neither key.
        Value::Dict(_) | Value::Event(_) => {
            let mut segs = None;
            let mut traces = None;
            for (k, v) in ctx.items(&top) {
                match ctx.str_of(&k) {
                    Some("segments") => segs = Some(v),
                    Some("device_traces") | Some("traces") => traces = Some(v),
                    Some("host_segments") => host_segments = Some(v),
                    Some("host_traces") => host_traces = Some(v),
                    Some("allocator_settings") => {
                        snap.allocator_settings = Some(ctx.arena.plain(&v, &mut budget, 0));
                    }
                    Some("external_annotations") => {
                        snap.external_annotations = Some(ctx.arena.plain(&v, &mut budget, 0));
                    }
                    _ => ctx.unknown_keys += 1,
                }
            }
            if segs.is_none() && traces.is_none() && host_segments.is_none() && host_traces.is_none() {
                return Err(Error::new(
                    ErrorKind::NotSnapshotShaped,
                    None,
                    "not a memory snapshot: a dict without 'segments' or 'device_traces'",
                ));
            }
            (segs, traces)
        }
        other => {
            return Err(Error::new(
                ErrorKind::NotSnapshotShaped,
                None,
                format!(
                    "not a memory snapshot: the file holds a {} (expected the dict that \
                     torch.cuda.memory._dump_snapshot writes or a list of segments)",
                    other.type_name()
                ),
            ))
        }
    };
    Ok(TopLevel { segments, traces, host_segments, host_traces })
}

/// memory_viz numbers streams in order of first appearance over all traces,
/// then the segments; raw stream 0 stays 0. `raw` holds the file's stream
/// values by the ids the events and segments carry now.
fn number_streams(snap: &mut Snapshot, raw: &[u64]) {
    let mut display = vec![u32::MAX; raw.len()];
    let mut next = 1u32;
    let mut name = |i: u32, display: &mut Vec<u32>| -> u32 {
        let i = i as usize;
        if display[i] == u32::MAX {
            display[i] = if raw[i] == 0 {
                0
            } else {
                next += 1;
                next - 1
            };
        }
        display[i]
    };
    for t in &mut snap.traces {
        for s in t.stream.iter_mut() {
            *s = name(*s, &mut display);
        }
    }
    for seg in &mut snap.segments {
        seg.stream = name(seg.stream, &mut display);
    }
}

/// Splits the decode-order event tables (`Arena::take_events`: closed
/// where a trace began) into per-device tables. As a rule each device's
/// events are one whole table, in order: it is moved as is. Else the tables
/// are joined and each device's events taken from the whole.
fn split_events(tables: Vec<EventTable>, per_device: &[TraceIds]) -> Vec<EventTable> {
    let any_pool = tables.iter().any(|t| !t.pool.is_empty());
    // The table that took the last events interned every pool id.
    let pool_ids = tables.last().map(|t| t.pool_ids.clone()).unwrap_or_default();
    let mut out = match whole_tables(tables, per_device) {
        Ok(out) => out,
        Err(tables) => split_joined(join_tables(tables), per_device),
    };
    // When one event has a pool id, every device's table has the column
    // and all the ids.
    for t in &mut out {
        if any_pool {
            t.pool.resize(t.len(), NO_POOL);
            t.pool_ids = pool_ids.clone();
        } else {
            t.pool = Vec::new();
            t.pool_ids = Vec::new();
        }
    }
    out
}

/// Each device's events as one of `tables` taken whole, if that is what
/// they are (each device's ids the events of one table, in order); else
/// the tables back.
fn whole_tables(
    tables: Vec<EventTable>,
    per_device: &[TraceIds],
) -> std::result::Result<Vec<EventTable>, Vec<EventTable>> {
    let mut bases = Vec::with_capacity(tables.len());
    let mut next = 0usize;
    for t in &tables {
        bases.push(next);
        next += t.len();
    }
    let mut used = vec![false; tables.len()];
    let mut which = Vec::with_capacity(per_device.len());
    for ids in per_device {
        let Some(first) = ids.iter().next() else {
            which.push(None);
            continue;
        };
        let k = bases.partition_point(|&b| b < first as usize);
        let whole = k < tables.len()
            && bases[k] == first as usize
            && !used[k]
            && tables[k].len() == ids.len()
            && ids.in_row_from(first);
        if !whole {
            return Err(tables);
        }
        used[k] = true;
        which.push(Some(k));
    }
    let mut slots: Vec<Option<EventTable>> = tables.into_iter().map(Some).collect();
    Ok(which
        .into_iter()
        .map(|k| {
            let mut t = k.and_then(|k| slots[k].take()).unwrap_or_default();
            t.shrink_to_fit();
            t
        })
        .collect())
}

/// The tables as one, in order.
fn join_tables(tables: Vec<EventTable>) -> EventTable {
    let mut tables = tables.into_iter();
    let mut all = tables.next().unwrap_or_default();
    for t in tables {
        all.append(t);
    }
    all
}

/// Each device's events taken from the one decode-order table: moved
/// without a copy per event when each device's are contiguous, in order.
fn split_joined(mut all: EventTable, per_device: &[TraceIds]) -> Vec<EventTable> {
    let contiguous = {
        let mut next = 0u32;
        per_device.iter().all(|ids| {
            let ok = ids.in_row_from(next);
            next += ids.len() as u32;
            ok
        })
    };
    let total: usize = per_device.iter().map(|d| d.len()).sum();
    if contiguous && total == all.len() {
        let mut out = Vec::with_capacity(per_device.len());
        // Split from the back so each split copies only its own events;
        // the first device takes the columns themselves (no copy).
        for ids in per_device.iter().rev() {
            let start = all.len() - ids.len();
            let mut t = if start == 0 { std::mem::take(&mut all) } else { all.split_off(start) };
            t.shrink_to_fit();
            out.push(t);
        }
        out.reverse();
        return out;
    }
    per_device
        .iter()
        .map(|ids| {
            let mut t = EventTable::default();
            for (i, e) in ids.iter().enumerate() {
                let e = e as usize;
                t.action.push(all.action[e]);
                t.addr_lo.push(all.addr_lo[e]);
                t.size.push(all.size[e]);
                t.stream.push(all.stream[e]);
                t.time_us.push(all.time_us[e]);
                t.stack.push(all.stack[e]);
                t.extra.push(all.extra[e]);
                if !all.pool.is_empty() {
                    t.pool.push(all.pool.get(e).copied().unwrap_or(NO_POOL));
                }
                if let Some(h) = all.addr_hi.get(&(e as u32)) {
                    t.addr_hi.insert(i as u32, *h);
                }
                if let Some(n) = all.other_actions.get(&(e as u32)) {
                    t.other_actions.insert(i as u32, n.clone());
                }
            }
            t
        })
        .collect()
}

/// Builds the segment at `loc` and its blocks; `host` gives pinned host
/// memory's device number (its own `device` field is not a CUDA device).
fn build_segment(ctx: &mut Ctx, snap: &mut Snapshot, v: &Value, loc: &dyn Fn() -> String, host: Option<u32>) {
    if !ctx.first_use(v, loc) {
        return;
    }
    if ctx.arena.dict_items(v).is_none() {
        let what = ctx.not_a("a segment", v);
        ctx.warn.add(&loc(), what, true);
        return;
    }
    let items = ctx.items(v);
    let mut seg = Segment {
        device: host.unwrap_or(0),
        address: 0,
        total_size: 0,
        allocated_size: 0,
        active_size: 0,
        requested_size: 0,
        stream: 0,
        segment_type: SegmentType::Unknown,
        pool_id: None,
        is_expandable: false,
        stack: 0,
        blocks: 0..0,
    };
    let mut raw_stream = 0u64;
    let mut blocks_v = None;
    let (mut address, mut total_size) = (None, None);
    // A segment without its place, size or device cannot be drawn.
    let mut usable = true;
    let zero = Outcome::ReadAs("0");
    for (k, x) in &items {
        match ctx.str_of(k) {
            Some("device") if host.is_none() => match ctx.unsigned(loc, "device", x, Outcome::Skip) {
                Some(d) => seg.device = d.min(u32::MAX as u128) as u32,
                None => usable = false,
            },
            Some("device") => {}
            Some("address") => address = Some(ctx.unsigned(loc, "address", x, Outcome::Skip)),
            Some("total_size") => total_size = Some(ctx.unsigned(loc, "total_size", x, Outcome::Skip)),
            Some("allocated_size") => {
                seg.allocated_size = ctx.unsigned(loc, "allocated_size", x, zero).unwrap_or(0) as u64
            }
            Some("active_size") => seg.active_size = ctx.unsigned(loc, "active_size", x, zero).unwrap_or(0) as u64,
            Some("requested_size") => {
                seg.requested_size = ctx.unsigned(loc, "requested_size", x, zero).unwrap_or(0) as u64
            }
            Some("stream") => raw_stream = ctx.unsigned(loc, "stream", x, zero).unwrap_or(0) as u64,
            Some("segment_type") => {
                seg.segment_type = match ctx.str_of(x) {
                    Some("large") => SegmentType::Large,
                    Some("small") => SegmentType::Small,
                    Some(_) => SegmentType::Unknown,
                    None => {
                        ctx.problem(
                            loc,
                            "segment_type",
                            Found::Type(x.type_name()),
                            "a str",
                            Outcome::ReadAs("unknown"),
                        );
                        SegmentType::Unknown
                    }
                }
            }
            Some("segment_pool_id") => match ctx.arena.pool_pair(x) {
                Some(p) => seg.pool_id = Some(p),
                None if *x == Value::None => {}
                None => ctx.problem(
                    loc,
                    "segment_pool_id",
                    Found::Type(x.type_name()),
                    "an (owner, id) pair",
                    Outcome::ReadAs("unknown"),
                ),
            },
            Some("is_expandable") => match ctx.arena.int(x) {
                Some(b) => seg.is_expandable = b != 0,
                None => {
                    ctx.problem(loc, "is_expandable", Found::Type(x.type_name()), "a bool", Outcome::ReadAs("False"))
                }
            },
            Some("frames") => {
                let (st, bad) = ctx.arena.stack_of(x);
                seg.stack = st;
                if let Some(f) = bad {
                    ctx.problem(loc, "frames", f, "a list", Outcome::ReadAs(frames_read_as(f)));
                }
            }
            Some("blocks") => blocks_v = Some(*x),
            _ => ctx.unknown_keys += 1,
        }
    }
    for (field, v) in [("address", address), ("total_size", total_size)] {
        match v {
            Some(Some(_)) => {}
            Some(None) => usable = false,
            None => {
                ctx.problem(loc, field, Found::Missing, "an int", Outcome::Skip);
                usable = false;
            }
        }
    }
    if !usable {
        return;
    }
    seg.address = address.flatten().unwrap_or(0);
    seg.total_size = total_size.flatten().unwrap_or(0) as u64;
    seg.stream = ctx.arena.intern_stream(raw_stream);
    let first = snap.blocks.len() as u32;
    let blocks_loc = || format!("{}['blocks']", loc());
    if let Some(bv) = blocks_v.filter(|bv| ctx.first_use(bv, &blocks_loc)) {
        match ctx.arena.list_items(&bv).map(|x| x.to_vec()) {
            Some(list) => {
                // Old files have no block address: it is the segment's address
                // plus the sizes of the blocks before it.
                let mut next_addr = seg.address;
                for (i, b) in list.iter().enumerate() {
                    let bloc = || format!("{}['blocks'][{i}]", loc());
                    if let Some(block) = build_block(ctx, b, next_addr, &bloc) {
                        next_addr = block.address.wrapping_add(block.size as u128);
                        snap.blocks.push(block);
                    }
                }
            }
            None if bv == Value::None => {}
            None => ctx.problem(loc, "blocks", Found::Type(bv.type_name()), "a list", Outcome::ReadAs("no blocks")),
        }
    }
    seg.blocks = first..snap.blocks.len() as u32;
    snap.segments.push(seg);
}

fn build_block(ctx: &mut Ctx, v: &Value, default_addr: u128, loc: &dyn Fn() -> String) -> Option<Block> {
    if !ctx.first_use(v, loc) {
        return None;
    }
    if ctx.arena.dict_items(v).is_none() {
        let what = ctx.not_a("a block", v);
        ctx.warn.add(&loc(), what, true);
        return None;
    }
    let items = ctx.items(v);
    let mut address = None;
    let mut size = None;
    let mut requested = None;
    let mut bad_requested = false;
    let mut state = BlockState::Inactive;
    let mut stack: Option<StackId> = None;
    let mut history = None;
    let mut user_metadata = None;
    let mut usable = true;
    for (k, x) in &items {
        match ctx.str_of(k) {
            Some("address") | Some("addr") => match ctx.unsigned(loc, "address", x, Outcome::Skip) {
                Some(a) => address = Some(a),
                None => usable = false,
            },
            Some("size") => match ctx.unsigned(loc, "size", x, Outcome::Skip) {
                Some(n) => size = Some(n as u64),
                None => usable = false,
            },
            Some("requested_size") => match ctx.unsigned(loc, "requested_size", x, Outcome::ReadAs("its size")) {
                Some(n) => requested = Some(n as u64),
                None => bad_requested = true,
            },
            Some("state") => {
                state = match ctx.str_of(x) {
                    Some("active_allocated") => BlockState::ActiveAllocated,
                    Some("active_pending_free") => BlockState::ActivePendingFree,
                    Some("inactive") => BlockState::Inactive,
                    other => {
                        let found = if other.is_some() { Found::UnknownValue } else { Found::Type(x.type_name()) };
                        let expected =
                            if other.is_some() { "active_allocated, active_pending_free or inactive" } else { "a str" };
                        ctx.problem(loc, "state", found, expected, Outcome::ReadAs("inactive"));
                        BlockState::Inactive
                    }
                }
            }
            Some("frames") => {
                let (st, bad) = ctx.arena.stack_of(x);
                stack = Some(st);
                if let Some(f) = bad {
                    ctx.problem(loc, "frames", f, "a list", Outcome::ReadAs(frames_read_as(f)));
                }
            }
            Some("history") => history = Some(*x),
            Some("user_metadata") => user_metadata = ctx.arena.user_metadata(x),
            _ => ctx.unknown_keys += 1,
        }
    }
    let Some(size) = size else {
        if usable {
            ctx.problem(loc, "size", Found::Missing, "an int", Outcome::Skip);
        }
        return None;
    };
    if !usable {
        return None;
    }
    if bad_requested {
        requested = Some(size);
    }
    // Legacy blocks (no 'frames') keep frames and the requested size in
    // history[0]; memory_viz reads them from there, as we do.
    if stack.is_none() {
        let h0 = history.and_then(|h| ctx.arena.list_items(&h).and_then(|l| l.first().copied()));
        let mut real_size = None;
        if let Some(h0) = h0 {
            for (k, x) in ctx.items(&h0) {
                match ctx.str_of(&k) {
                    Some("real_size") => real_size = ctx.arena.read_unsigned(&x).0.try_into().ok(),
                    Some("frames") => stack = Some(ctx.arena.stack_of(&x).0),
                    _ => {}
                }
            }
        }
        if requested.unwrap_or(0) == 0 {
            requested = if history.is_some() { real_size.or(requested) } else { Some(size) };
        }
    }
    Some(Block {
        address: address.unwrap_or(default_addr),
        size,
        requested_size: requested.unwrap_or(size),
        state,
        stack: stack.unwrap_or(0),
        user_metadata,
    })
}

/// Frees a store of decoded values once the model no longer needs it.
trait Release {
    fn release(&mut self);
}

impl<T> Release for Vec<T> {
    fn release(&mut self) {
        *self = Vec::new();
    }
}
