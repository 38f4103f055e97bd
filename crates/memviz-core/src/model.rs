//! The snapshot model: what `torch.cuda.memory._dump_snapshot` wrote, kept
//! compact. Trace events are columnar (one `Vec` per field, no per-event heap
//! object); stack frames and whole stacks are interned once and shared by id,
//! the way the pickle memo shares them.

use std::collections::HashMap;

/// Index into [`Snapshot::strings`].
pub type StrId = u32;
/// Index into [`Snapshot::frames`].
pub type FrameId = u32;
/// Index into [`Snapshot::stacks`]. Stack 0 is always the empty stack.
pub type StackId = u32;

/// Marks a missing `time_us`.
pub const NO_TIME: i64 = i64::MIN;
/// Marks "no extra fields" in [`EventTable::extra`].
pub const NO_EXTRA: u32 = u32::MAX;

/// Interned strings. Id 0 is the empty string.
#[derive(Debug, Clone, PartialEq)]
pub struct Strings {
    // crate-visible for `wire` (the model's binary form), which copies them whole.
    pub(crate) buf: String,
    pub(crate) spans: Vec<(u32, u32)>,
}

impl Default for Strings {
    fn default() -> Self {
        Strings { buf: String::new(), spans: vec![(0, 0)] }
    }
}

impl Strings {
    pub fn push(&mut self, s: &str) -> StrId {
        if s.is_empty() {
            return 0;
        }
        let start = self.buf.len() as u32;
        self.buf.push_str(s);
        self.spans.push((start, s.len() as u32));
        (self.spans.len() - 1) as StrId
    }
    pub fn get(&self, id: StrId) -> &str {
        let (s, l) = self.spans[id as usize];
        &self.buf[s as usize..(s + l) as usize]
    }
    pub fn len(&self) -> usize {
        self.spans.len()
    }
    pub fn is_empty(&self) -> bool {
        self.spans.len() <= 1
    }
    pub fn heap_bytes(&self) -> usize {
        self.buf.capacity() + self.spans.capacity() * 8
    }
    /// Total bytes of all strings (offsets are 32-bit: the decoder keeps
    /// this below 4 GiB).
    pub fn byte_len(&self) -> usize {
        self.buf.len()
    }
}

/// One stack frame: `{filename, line, name}` plus the FX fields that
/// `_dump_snapshot(augment_with_fx_traces=True)` adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Frame {
    pub filename: StrId,
    pub line: i64,
    pub name: StrId,
    /// Index into [`Snapshot::frame_fx`], or `u32::MAX`.
    pub fx: u32,
}

/// FX graph information of a frame, present only when recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameFx {
    pub node_op: Option<StrId>,
    pub node_name: Option<StrId>,
    pub node_target: Option<StrId>,
    pub original_trace: Option<StrId>,
}

/// Interned stacks: each a run of frame ids, innermost frame first (as in the
/// snapshot).
#[derive(Debug, Clone, PartialEq)]
pub struct Stacks {
    pub(crate) frames: Vec<FrameId>,
    pub(crate) spans: Vec<(u32, u32)>,
}

impl Default for Stacks {
    fn default() -> Self {
        Stacks { frames: Vec::new(), spans: vec![(0, 0)] }
    }
}

impl Stacks {
    pub fn push(&mut self, frames: &[FrameId]) -> StackId {
        if frames.is_empty() {
            return 0;
        }
        let start = self.frames.len() as u32;
        self.frames.extend_from_slice(frames);
        self.spans.push((start, frames.len() as u32));
        (self.spans.len() - 1) as StackId
    }
    pub fn get(&self, id: StackId) -> &[FrameId] {
        let (s, l) = self.spans[id as usize];
        &self.frames[s as usize..(s + l) as usize]
    }
    pub fn len(&self) -> usize {
        self.spans.len()
    }
    pub fn is_empty(&self) -> bool {
        self.spans.len() <= 1
    }
    pub fn heap_bytes(&self) -> usize {
        self.frames.capacity() * 4 + self.spans.capacity() * 8
    }
}

/// The `action` of a trace event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Action {
    Alloc = 0,
    FreeRequested,
    FreeCompleted,
    /// Legacy single-step free (older snapshots).
    Free,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Annotate,
    /// An action this viewer does not know; its name is kept in
    /// [`EventTable::other_actions`].
    Other,
}

impl Action {
    pub const ALL: [Action; 12] = [
        Action::Alloc,
        Action::FreeRequested,
        Action::FreeCompleted,
        Action::Free,
        Action::SegmentAlloc,
        Action::SegmentFree,
        Action::SegmentMap,
        Action::SegmentUnmap,
        Action::Snapshot,
        Action::Oom,
        Action::Annotate,
        Action::Other,
    ];

    pub fn from_name(s: &str) -> Action {
        match s {
            "alloc" => Action::Alloc,
            "free_requested" => Action::FreeRequested,
            "free_completed" => Action::FreeCompleted,
            "free" => Action::Free,
            "segment_alloc" => Action::SegmentAlloc,
            "segment_free" => Action::SegmentFree,
            "segment_map" => Action::SegmentMap,
            "segment_unmap" => Action::SegmentUnmap,
            "snapshot" => Action::Snapshot,
            "oom" => Action::Oom,
            "annotate" => Action::Annotate,
            _ => Action::Other,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Action::Alloc => "alloc",
            Action::FreeRequested => "free_requested",
            Action::FreeCompleted => "free_completed",
            Action::Free => "free",
            Action::SegmentAlloc => "segment_alloc",
            Action::SegmentFree => "segment_free",
            Action::SegmentMap => "segment_map",
            Action::SegmentUnmap => "segment_unmap",
            Action::Snapshot => "snapshot",
            Action::Oom => "oom",
            Action::Annotate => "annotate",
            Action::Other => "other",
        }
    }

    /// Segment-level actions get the `s` address prefix.
    pub fn is_segment(self) -> bool {
        matches!(self, Action::SegmentAlloc | Action::SegmentFree | Action::SegmentMap | Action::SegmentUnmap)
    }

    /// Block-level actions: alloc and the three frees (each needs an address
    /// and a size).
    pub fn is_block(self) -> bool {
        matches!(self, Action::Alloc | Action::FreeRequested | Action::FreeCompleted | Action::Free)
    }

    /// What the action is to the Active Memory timeline's blocks: `alloc`
    /// allocates, `free_completed` / `free` free (`free_requested` only
    /// marks the block pending).
    pub fn block_role(self) -> Option<Role> {
        match self {
            Action::Alloc => Some(Role::Alloc),
            Action::FreeCompleted | Action::Free => Some(Role::Free),
            _ => None,
        }
    }

    /// What the action is to the segment timeline's whole segments
    /// (segment_map / segment_unmap change pieces of one instead).
    pub fn segment_role(self) -> Option<Role> {
        match self {
            Action::SegmentAlloc => Some(Role::Alloc),
            Action::SegmentFree => Some(Role::Free),
            _ => None,
        }
    }
}

/// An action's part in a timeline: it starts an element or ends one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Alloc,
    Free,
}

/// `user_metadata`: a string or a dict of key/value strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserMetadata {
    Text(String),
    Map(Vec<(String, String)>),
}

impl UserMetadata {
    pub fn is_empty(&self) -> bool {
        match self {
            UserMetadata::Text(s) => s.is_empty(),
            UserMetadata::Map(m) => m.is_empty(),
        }
    }
}

/// The rarely present fields of a trace event, stored out of line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventExtra {
    pub compile_context: Option<StrId>,
    /// `user_metadata`; for an `annotate` event, the annotation itself.
    pub user_metadata: Option<UserMetadata>,
    /// `internal_metadata` (PyTorch 2.15): what PyTorch itself attached.
    pub internal_metadata: Option<UserMetadata>,
    /// `forward_frames`: preformatted strings that memory_viz joins.
    pub forward_frames: Vec<String>,
    /// `oom` events: bytes the device had free.
    pub device_free: Option<u64>,
}

/// One device's trace, columnar. Event `i` is `(action[i], addr(i), size[i], ...)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventTable {
    pub action: Vec<Action>,
    /// Low 64 bits of the address; see [`EventTable::addr`].
    pub addr_lo: Vec<u64>,
    /// Addresses that need more than 64 bits (event index, high bits). Rare.
    pub addr_hi: HashMap<u32, u64>,
    pub size: Vec<u64>,
    /// Stream as memory_viz numbers it: 0 stays 0, others 1, 2, ... in order of
    /// first appearance (traces first, then segments).
    pub stream: Vec<u32>,
    /// `time_us`, or [`NO_TIME`].
    pub time_us: Vec<i64>,
    pub stack: Vec<StackId>,
    /// Index into [`Snapshot::extras`], or [`NO_EXTRA`].
    pub extra: Vec<u32>,
    /// Names of [`Action::Other`] events, by event index.
    pub other_actions: HashMap<u32, String>,
    /// `pool_id` (PyTorch 2.15) per event: an index into `pool_ids`, or
    /// [`NO_POOL`]. Empty when no event has one (read it with
    /// [`EventTable::pool_id`]): 4 bytes per event only in files that have it.
    pub pool: Vec<u32>,
    /// The distinct `(owner, id)` pairs `pool` points to.
    pub pool_ids: Vec<(i64, i64)>,
}

/// Marks "no pool_id" in [`EventTable::pool`].
pub const NO_POOL: u32 = u32::MAX;

impl EventTable {
    pub fn len(&self) -> usize {
        self.action.len()
    }
    pub fn is_empty(&self) -> bool {
        self.action.is_empty()
    }
    pub fn addr(&self, i: usize) -> u128 {
        let lo = self.addr_lo[i] as u128;
        match self.addr_hi.get(&(i as u32)) {
            Some(hi) => lo | ((*hi as u128) << 64),
            None => lo,
        }
    }
    /// Events `at..` as a table of their own, their sparse fields keyed
    /// from 0 again; this table keeps `..at` and its room. Pool ids stay
    /// here (the caller says whom they go to).
    pub fn split_off(&mut self, at: usize) -> EventTable {
        fn rekey<T>(from: &mut HashMap<u32, T>, at: u32) -> HashMap<u32, T> {
            if from.is_empty() {
                return HashMap::new();
            }
            let keys: Vec<u32> = from.keys().copied().filter(|&k| k >= at).collect();
            keys.into_iter().filter_map(|k| Some((k - at, from.remove(&k)?))).collect()
        }
        let at = at.min(self.len());
        EventTable {
            action: self.action.split_off(at),
            addr_lo: self.addr_lo.split_off(at),
            addr_hi: rekey(&mut self.addr_hi, at as u32),
            size: self.size.split_off(at),
            stream: self.stream.split_off(at),
            time_us: self.time_us.split_off(at),
            stack: self.stack.split_off(at),
            extra: self.extra.split_off(at),
            other_actions: rekey(&mut self.other_actions, at as u32),
            // Empty, or one per event.
            pool: self.pool.split_off(at.min(self.pool.len())),
            pool_ids: Vec::new(),
        }
    }

    /// `other`'s events after this table's, their sparse fields keyed on
    /// from here (the inverse of [`EventTable::split_off`]). Pool ids stay
    /// as they are (the caller says whose they are).
    pub fn append(&mut self, mut other: EventTable) {
        let base = self.len() as u32;
        // The pool column is empty, or one per event: padded where one
        // table has it and the other not.
        if !self.pool.is_empty() || !other.pool.is_empty() {
            self.pool.resize(self.len(), NO_POOL);
            other.pool.resize(other.len(), NO_POOL);
        }
        self.action.append(&mut other.action);
        self.addr_lo.append(&mut other.addr_lo);
        self.size.append(&mut other.size);
        self.stream.append(&mut other.stream);
        self.time_us.append(&mut other.time_us);
        self.stack.append(&mut other.stack);
        self.extra.append(&mut other.extra);
        self.pool.append(&mut other.pool);
        self.addr_hi.extend(other.addr_hi.into_iter().map(|(i, h)| (i + base, h)));
        self.other_actions.extend(other.other_actions.into_iter().map(|(i, n)| (i + base, n)));
    }

    /// Gives back the columns' unused room.
    pub fn shrink_to_fit(&mut self) {
        self.action.shrink_to_fit();
        self.addr_lo.shrink_to_fit();
        self.size.shrink_to_fit();
        self.stream.shrink_to_fit();
        self.time_us.shrink_to_fit();
        self.stack.shrink_to_fit();
        self.extra.shrink_to_fit();
        self.pool.shrink_to_fit();
    }

    pub fn action_name(&self, i: usize) -> &str {
        match self.action[i] {
            Action::Other => self.other_actions.get(&(i as u32)).map(|s| s.as_str()).unwrap_or("other"),
            a => a.name(),
        }
    }
    pub fn time_us(&self, i: usize) -> Option<i64> {
        let t = self.time_us[i];
        (t != NO_TIME).then_some(t)
    }
    /// Whether event `i` is a `free_completed` directly after the
    /// `free_requested` of the same address: memory_viz merges the pair into
    /// one `free` event carrying the `free_requested`'s fields.
    pub fn completes_requested_free(&self, i: usize) -> bool {
        i > 0
            && i < self.len()
            && self.action[i] == Action::FreeCompleted
            && self.action[i - 1] == Action::FreeRequested
            && self.addr(i) == self.addr(i - 1)
    }

    /// The event memory_viz shows for event `i`: the `free_requested` of a
    /// merged pair (see [`EventTable::completes_requested_free`]), else `i`.
    pub fn shown_event(&self, i: usize) -> usize {
        if self.completes_requested_free(i) {
            i - 1
        } else {
            i
        }
    }

    /// The `pool_id` event `i` carries, if any.
    pub fn pool_id(&self, i: usize) -> Option<(i64, i64)> {
        let p = *self.pool.get(i)?;
        self.pool_ids.get(p as usize).copied()
    }
    pub fn heap_bytes(&self) -> usize {
        self.action.capacity()
            + self.addr_lo.capacity() * 8
            + self.size.capacity() * 8
            + self.stream.capacity() * 4
            + self.time_us.capacity() * 8
            + self.stack.capacity() * 4
            + self.extra.capacity() * 4
            + self.pool.capacity() * 4
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockState {
    ActiveAllocated,
    ActivePendingFree,
    Inactive,
}

impl BlockState {
    pub fn name(self) -> &'static str {
        match self {
            BlockState::ActiveAllocated => "active_allocated",
            BlockState::ActivePendingFree => "active_pending_free",
            BlockState::Inactive => "inactive",
        }
    }
}

/// A block inside a segment at dump time.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub address: u128,
    pub size: u64,
    pub requested_size: u64,
    pub state: BlockState,
    pub stack: StackId,
    pub user_metadata: Option<UserMetadata>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SegmentType {
    Large,
    Small,
    Unknown,
}

/// A segment (one cudaMalloc, or one expandable range) at dump time.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub device: u32,
    pub address: u128,
    pub total_size: u64,
    pub allocated_size: u64,
    pub active_size: u64,
    pub requested_size: u64,
    /// Stream as memory_viz numbers it (see [`EventTable::stream`]).
    pub stream: u32,
    pub segment_type: SegmentType,
    /// `segment_pool_id`; `None` in files that predate it.
    pub pool_id: Option<(i64, i64)>,
    pub is_expandable: bool,
    pub stack: StackId,
    /// Range into [`Snapshot::blocks`].
    pub blocks: std::ops::Range<u32>,
}

/// A value of `allocator_settings` (or any other small free-form part of the
/// snapshot), kept for display.
#[derive(Debug, Clone, PartialEq)]
pub enum Plain {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Plain>),
    Map(Vec<(Plain, Plain)>),
    /// Left out: nested too deep or too large to display.
    Elided,
}

impl Plain {
    /// On one line as Python's `repr` writes it (`True`, `None`, `'text'`,
    /// `[1, 2]`, `{'a': 1}`): allocator settings.
    pub fn repr(&self) -> String {
        self.render(true)
    }

    /// On one line as Python's `str` writes a scalar (strings unquoted, also
    /// inside lists and dicts): user metadata.
    pub fn text(&self) -> String {
        self.render(false)
    }

    fn render(&self, repr: bool) -> String {
        let each = |p: &Plain| p.render(repr);
        match self {
            Plain::None => "None".into(),
            Plain::Bool(b) => if *b { "True" } else { "False" }.into(),
            Plain::Int(i) => i.to_string(),
            Plain::Float(f) if repr => format!("{f:?}"),
            Plain::Float(f) => f.to_string(),
            Plain::Str(s) if repr => format!("'{s}'"),
            Plain::Str(s) => s.clone(),
            Plain::Bytes(b) if repr => format!("b'{}'", String::from_utf8_lossy(b)),
            Plain::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            Plain::List(l) => format!("[{}]", l.iter().map(each).collect::<Vec<_>>().join(", ")),
            Plain::Map(m) => {
                format!(
                    "{{{}}}",
                    m.iter().map(|(k, v)| format!("{}: {}", each(k), each(v))).collect::<Vec<_>>().join(", ")
                )
            }
            Plain::Elided => "…".into(),
        }
    }
}

/// Something in the file that was left out or read as a default, and where.
/// Identical problems are one warning: the first place and how many.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// Python-style path of the first entry with this problem
    /// (`device_traces[0][17]`, `segments[3]['blocks'][2]`); empty when it
    /// concerns the file as a whole.
    pub location: String,
    /// What is wrong (`not a dict`, `'addr' is a str, not an int`) and, for a
    /// kept entry, what was read instead.
    pub problem: String,
    /// Entries with this problem, the first one included.
    pub count: u64,
    /// The entries were left out of the model (else kept, the bad value read
    /// as the problem says).
    pub skipped: bool,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.location.is_empty() {
            write!(f, "{}: ", self.location)?;
        }
        f.write_str(&self.problem)?;
        match (self.skipped, self.count) {
            (true, 1) => f.write_str("; skipped"),
            (true, n) => write!(f, "; {n} entries like it skipped"),
            (false, 1) => Ok(()),
            (false, n) => write!(f, "; {n} entries like it"),
        }
    }
}

/// What was odd but not fatal while building the model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildWarnings {
    /// Keys this viewer does not read (top level, segment, block, event):
    /// counted only, newer PyTorch versions add keys all the time.
    pub unknown_keys: u64,
    /// What was left out or read as a default, in the order first met.
    pub list: Vec<Warning>,
}

/// The name of `device` when `host` is the host's device number: `0`, `1`,
/// ..., or `host`.
pub fn device_name(device: u32, host: Option<u32>) -> String {
    if Some(device) == host {
        "host".to_string()
    } else {
        device.to_string()
    }
}

/// Everything one snapshot file holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub segments: Vec<Segment>,
    pub blocks: Vec<Block>,
    /// `device_traces[d]` (empty for a bare segment list), and at
    /// [`Snapshot::host_device`] the pinned host memory's trace.
    pub traces: Vec<EventTable>,
    pub extras: Vec<EventExtra>,
    pub strings: Strings,
    pub frames: Vec<Frame>,
    pub frame_fx: Vec<FrameFx>,
    pub stacks: Stacks,
    pub allocator_settings: Option<Plain>,
    pub external_annotations: Option<Plain>,
    /// True when the file was the bare list `torch.cuda.memory_snapshot()` returns.
    pub bare_segment_list: bool,
    /// The pickle protocol (0 also for protocol 1, which has no PROTO
    /// opcode, and for JSON: see `json`).
    pub protocol: u8,
    /// The file was JSON (possibly gzip-compressed), not a pickle.
    pub json: bool,
    pub warnings: BuildWarnings,
    /// The device number given to pinned host memory (`host_segments` /
    /// `host_traces`, PyTorch 2.15), when the file has any: the first number
    /// past the CUDA devices, so every view treats it as one more device.
    pub host_device: Option<u32>,
    /// `annotate` events and the allocations they attach to (see
    /// [`crate::annotations`]), ordered by device and event.
    pub annotations: Vec<crate::annotations::Annotation>,
}

impl Snapshot {
    /// Devices memory_viz offers: those with segments or a non-empty trace,
    /// CUDA devices ascending, then the host (pinned memory) if any.
    pub fn devices(&self) -> Vec<u32> {
        // From the devices present, not 0..max: a file may name device 4e9.
        let mut devs: Vec<u32> =
            (0..self.traces.len() as u32).filter(|&d| !self.traces[d as usize].is_empty()).collect();
        devs.extend(self.segments.iter().map(|s| s.device));
        devs.sort_unstable_by_key(|&d| (Some(d) == self.host_device, d));
        devs.dedup();
        devs
    }

    /// The CUDA device with the longest trace (memory_viz's default), else
    /// the first device with segments; the host only when it is the only one.
    pub fn default_device(&self) -> Option<u32> {
        let devs = self.devices();
        devs.iter().copied().max_by_key(|&d| (Some(d) != self.host_device, self.trace(d).len(), std::cmp::Reverse(d)))
    }

    /// A device as the CLI and the summary name it: `0`, `1`, ..., `host`.
    pub fn device_name(&self, device: u32) -> String {
        device_name(device, self.host_device)
    }

    /// A device as the page's selector shows it: `cuda:0`, ..., `host`.
    pub fn device_label(&self, device: u32) -> String {
        if Some(device) == self.host_device {
            "host".to_string()
        } else {
            format!("cuda:{device}")
        }
    }

    /// The device a [`Snapshot::device_name`] (or `cuda:N` label) names,
    /// if the snapshot has it.
    pub fn device_by_name(&self, name: &str) -> Option<u32> {
        let d = match name {
            "host" => self.host_device?,
            n => {
                let d: u32 = n.strip_prefix("cuda:").unwrap_or(n).parse().ok()?;
                // The host's number is an implementation detail, not a CUDA device.
                if Some(d) == self.host_device {
                    return None;
                }
                d
            }
        };
        self.devices().contains(&d).then_some(d)
    }

    pub fn trace(&self, device: u32) -> &EventTable {
        static EMPTY: std::sync::OnceLock<EventTable> = std::sync::OnceLock::new();
        self.traces.get(device as usize).unwrap_or_else(|| EMPTY.get_or_init(EventTable::default))
    }

    pub fn device_segments(&self, device: u32) -> impl Iterator<Item = &Segment> {
        self.segments.iter().filter(move |s| s.device == device)
    }

    pub fn segment_blocks(&self, seg: &Segment) -> &[Block] {
        &self.blocks[seg.blocks.start as usize..seg.blocks.end as usize]
    }

    pub fn stack(&self, id: StackId) -> &[FrameId] {
        self.stacks.get(id)
    }

    pub fn frame(&self, id: FrameId) -> &Frame {
        &self.frames[id as usize]
    }

    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    pub fn extra(&self, device: u32, i: usize) -> Option<&EventExtra> {
        let x = *self.trace(device).extra.get(i)?;
        (x != NO_EXTRA).then(|| &self.extras[x as usize])
    }

    /// Bytes the model keeps on the heap (approximate, for benchmarks).
    pub fn heap_bytes(&self) -> usize {
        self.segments.capacity() * std::mem::size_of::<Segment>()
            + self.blocks.capacity() * std::mem::size_of::<Block>()
            + self.traces.iter().map(|t| t.heap_bytes()).sum::<usize>()
            + self.extras.capacity() * std::mem::size_of::<EventExtra>()
            + self.strings.heap_bytes()
            + self.frames.capacity() * std::mem::size_of::<Frame>()
            + self.stacks.heap_bytes()
    }
}

/// A device's segments sorted by address, for memory_viz's `find_pool_id`:
/// (start, end, pool) kept compact so the binary search stays in cache.
/// Also the what-if replay's rule for the private pool of an allocation.
#[derive(Debug, Clone, Default)]
pub struct PoolFinder {
    segs: Vec<SegRange>,
}

/// (start, end, pool) of a segment.
type SegRange = (u128, u128, Option<(i64, i64)>);

impl PoolFinder {
    /// Whether any segment is in a pool other than the default `(0, 0)`.
    pub fn has_private(&self) -> bool {
        self.segs.iter().any(|s| matches!(s.2, Some(p) if p != (0, 0)))
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.segs.capacity() * std::mem::size_of::<SegRange>()
    }

    pub fn new(snap: &Snapshot, device: u32) -> Self {
        let mut segs: Vec<_> = snap
            .device_segments(device)
            .map(|s| (s.address, s.address.saturating_add(s.total_size as u128), s.pool_id))
            .collect();
        segs.sort_by_key(|s| s.0);
        PoolFinder { segs }
    }
    /// Pool of the segment holding `addr`, `None` when no segment does.
    pub fn find(&self, addr: u128) -> Option<(i64, i64)> {
        let i = self.segs.partition_point(|s| s.0 <= addr);
        let s = self.segs.get(i.checked_sub(1)?)?;
        (addr < s.1).then_some(s.2).flatten()
    }
}
