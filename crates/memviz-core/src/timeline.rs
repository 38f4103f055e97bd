//! Active Memory Timeline and Active Cached Segment Timeline.
//!
//! Semantics follow memory_viz's `process_alloc_data` (see
//! ../shared/docs/memory_viz_reference.md §2.1, §2.2) with one deliberate
//! change of axis: the x axis is the *action index* (one step per replayed
//! alloc/free action), not memory_viz's animated "timestep" (which inserts 3
//! extra steps after every free below the top of the stack and so changes
//! with the detail limit). An element allocated by action `k` and freed by
//! action `j` occupies steps `k..=j` (x range `[k, j+1)`); an initially
//! allocated element starts at step 0; one never freed ends at `n_steps`.
//! `total(step)` is memory_viz's `max_at_time` for that action: after an
//! alloc, before a free.
//!
//! TODO(views helper): implement everything marked todo!().

use crate::model::{Snapshot, StackId};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimelineKind {
    /// alloc / free_completed (and legacy free) over blocks.
    ActiveMemory,
    /// segment_alloc / segment_free, plus (unlike memory_viz) segment_map /
    /// segment_unmap, over segments.
    CachedSegments,
}

/// Where an element came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementSource {
    /// An alloc (or segment_alloc / segment_map) event, by trace index.
    Alloc(u32),
    /// A free with no alloc in the trace: alive from the start; its stack is
    /// the free's. By trace index.
    UnmatchedFree(u32),
    /// An `active_allocated` block in the dump with no live alloc in the
    /// trace ("ghost"): alive the whole time. By index in `Snapshot::blocks`.
    GhostBlock(u32),
    /// A segment in the dump never allocated in the trace. By index in
    /// `Snapshot::segments`.
    GhostSegment(u32),
}

/// One allocation (or segment) drawn as a band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Element {
    pub source: ElementSource,
    pub addr: u128,
    /// Address version (see `versions`).
    pub version: u32,
    pub size: u64,
    pub stream: u32,
    pub pool_id: Option<(i64, i64)>,
    pub stack: StackId,
    /// First step it is alive on.
    pub x0: u32,
    /// One past the last step it is alive on.
    pub x1: u32,
    /// Position in the stack order (push order): lower sits lower.
    pub order: u32,
    /// memory_viz's "Total memory used after allocation".
    pub total_after_alloc: u64,
}

/// The detail-independent result of replaying one device's trace.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    pub elements: Vec<Element>,
    /// Element index of each action (an index appears twice: alloc, free).
    pub actions: Vec<u32>,
    /// Elements alive from the start, in memory_viz's order (after reverse).
    pub initially_allocated: Vec<u32>,
    /// Total bytes at each step (len == n_steps).
    pub total: Vec<u64>,
    /// Total bytes before the first action.
    pub start_bytes: u64,
    /// Total bytes after the last action.
    pub end_bytes: u64,
    /// Element indices by size, descending; ties keep element order (JS's
    /// stable sort).
    pub by_size: Vec<u32>,
}

impl Timeline {
    pub fn build(_snap: &Snapshot, _device: u32, _kind: TimelineKind) -> Timeline {
        todo!()
    }
    pub fn n_steps(&self) -> u32 {
        self.total.len() as u32
    }
    /// max(start_bytes, max total).
    pub fn peak_bytes(&self) -> u64 {
        todo!()
    }
    /// Step at which the peak is first reached (0 if the start is the peak).
    pub fn peak_step(&self) -> u32 {
        todo!()
    }
}

/// What a point of the plot hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    Element(u32),
    /// The summarized band (allocations below the detail limit).
    Summarized,
}

/// One band live at a step: element index, offset from the bottom, size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BandAt {
    pub elem: u32,
    pub offset: u64,
    pub size: u64,
}

/// A timeline at a detail limit: the `limit` largest elements are drawn as
/// bands, the rest summed into one summarized band on top. Cheap to rebuild
/// when the limit changes (no re-decode, no re-replay).
#[derive(Debug, Clone, Default)]
pub struct DetailView {
    pub limit: u32,
    /// Bytes in the summarized band at each step.
    pub summarized: Vec<u64>,
    // implementation-defined: drawn flags, an interval index for stabbing
    // queries so `bands_at` costs O(log n + live), not O(n).
}

impl DetailView {
    pub fn new(_tl: &Timeline, _limit: u32) -> DetailView {
        todo!()
    }
    pub fn is_drawn(&self, _elem: u32) -> bool {
        todo!()
    }
    /// Number of elements drawn as their own band.
    pub fn drawn_count(&self) -> u32 {
        todo!()
    }
    /// Calls `f` for each drawn band live at `step`, bottom to top.
    pub fn bands_at(&self, _tl: &Timeline, _step: u32, _f: impl FnMut(BandAt)) {
        todo!()
    }
    /// What lies at (`step`, `bytes` from the bottom).
    pub fn hit(&self, _tl: &Timeline, _step: u32, _bytes: u64) -> Option<Hit> {
        todo!()
    }
}
