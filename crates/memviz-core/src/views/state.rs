//! Allocator State History: the segments and blocks of one device right after
//! trace event `i`, as memory_viz's `simulate_memory` obtains them: start from
//! the final state in the dump and undo events from the last one down to
//! `i + 1` (see ../shared/docs/memory_viz_reference.md §2.4).
//!
//! Undoing is not invertible by itself (an undone alloc deletes a block whose
//! size came from a later free), so [`StateHistory::new`] walks the trace
//! backwards once and records, per event, what the undo changed: for a block
//! event the block at that address before and after it, for a segment event
//! the segments it removed and added. A [`Cursor`] then moves either way in
//! O(log m) per event, and a step forward lands on exactly the state that
//! undoing from the final dump gives. Full copies of the state are kept every
//! `K` events (K grows until they fit a memory budget) so that a far seek
//! replays at most K/2 events.
//!
//! Positions: position `t` (0..=n) is the state after `t` events, so the state
//! right after event `i` is position `i + 1` and position 0 is "before the
//! first event". Position n is the final dump.
//!
//! ```no_run
//! use memviz_core::state::StateHistory;
//! let snap = memviz_core::load(&std::fs::read("snapshot.pickle").unwrap()).unwrap();
//! let h = StateHistory::new(&snap, 0); // once per device, O(n)
//! let mut c = h.cursor(); // at the final dump
//! c.seek(&h, &snap, 1234); // right after event 1234
//! c.step_back(&h, &snap); // ArrowUp: now right after event 1233
//! let t = c.totals(); // "(allocated / reserved)", O(1)
//! let state = c.state(&h, &snap); // segments, blocks, free space: O(m)
//! # let _ = (t, state);
//! ```
//!
//! Differences from memory_viz, all on inconsistent input (ring-buffer
//! overflow): nothing throws; each oddity is counted by [`Inconsistency`]
//! kind and the walk goes on (memory_viz throws on an unknown
//! `free_requested` and on a `segment_map` outside every segment, and removes
//! the wrong segment on an unknown `segment_alloc`).

use std::collections::BTreeMap;
use std::ops::Bound;

use serde::Serialize;

use crate::model::{Action, BlockState, Snapshot, StackId};
use crate::versions::Versions;

const NONE: u32 = u32::MAX;
/// Checkpoints (full state copies) may use about this many bytes.
const CHECKPOINT_BUDGET: usize = 16 << 20;
/// Smallest checkpoint interval, in events.
const MIN_CHECKPOINT_EVERY: usize = 1024;

/// A kind of disagreement between the trace and the dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Inconsistency {
    /// Undoing an `alloc`: no block at that address to delete.
    AllocWithoutBlock,
    /// Undoing a `free_requested`: no block at that address.
    FreeRequestedUnknownBlock,
    /// Undoing a `free_requested`: the block there is not pending.
    FreeRequestedNotPending,
    /// Undoing a free: a block already sits at that address (it is replaced).
    FreeOverLiveBlock,
    /// A block that is not inside any segment.
    BlockOutsideSegment,
    /// A block that overlaps another block.
    BlockOverlap,
    /// A re-inserted segment that overlaps another segment.
    SegmentOverlap,
    /// Undoing a `segment_alloc`: no segment at that address.
    SegmentAllocUnknown,
    /// Undoing a `segment_map`: no segment contains the mapped range.
    SegmentMapUnknown,
    /// Undoing a `segment_alloc` / `segment_map` removes memory that still
    /// holds blocks.
    SegmentRemovedWithBlocks,
}

impl Inconsistency {
    pub const ALL: [Inconsistency; 10] = [
        Inconsistency::AllocWithoutBlock,
        Inconsistency::FreeRequestedUnknownBlock,
        Inconsistency::FreeRequestedNotPending,
        Inconsistency::FreeOverLiveBlock,
        Inconsistency::BlockOutsideSegment,
        Inconsistency::BlockOverlap,
        Inconsistency::SegmentOverlap,
        Inconsistency::SegmentAllocUnknown,
        Inconsistency::SegmentMapUnknown,
        Inconsistency::SegmentRemovedWithBlocks,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Inconsistency::AllocWithoutBlock => "alloc_without_block",
            Inconsistency::FreeRequestedUnknownBlock => "free_requested_unknown_block",
            Inconsistency::FreeRequestedNotPending => "free_requested_not_pending",
            Inconsistency::FreeOverLiveBlock => "free_over_live_block",
            Inconsistency::BlockOutsideSegment => "block_outside_segment",
            Inconsistency::BlockOverlap => "block_overlap",
            Inconsistency::SegmentOverlap => "segment_overlap",
            Inconsistency::SegmentAllocUnknown => "segment_alloc_unknown",
            Inconsistency::SegmentMapUnknown => "segment_map_unknown",
            Inconsistency::SegmentRemovedWithBlocks => "segment_removed_with_blocks",
        }
    }
}

/// Counts of each [`Inconsistency`] met while walking the whole trace back
/// from the dump, with the lowest trace index of each (`None` when it was
/// found in the dump itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inconsistencies {
    count: [u64; 10],
    first: [u32; 10],
}

impl Default for Inconsistencies {
    fn default() -> Self {
        Inconsistencies { count: [0; 10], first: [NONE; 10] }
    }
}

impl Inconsistencies {
    fn note(&mut self, kind: Inconsistency, event: Option<usize>) {
        let k = kind as usize;
        self.count[k] += 1;
        if let Some(e) = event {
            // The walk goes backwards: the last one noted is the first in the trace.
            self.first[k] = e as u32;
        }
    }
    pub fn count(&self, kind: Inconsistency) -> u64 {
        self.count[kind as usize]
    }
    pub fn first_event(&self, kind: Inconsistency) -> Option<usize> {
        let f = self.first[kind as usize];
        (f != NONE).then_some(f as usize)
    }
    pub fn total(&self) -> u64 {
        self.count.iter().sum()
    }
    /// Kinds that occurred: (kind, count, first event).
    pub fn iter(&self) -> impl Iterator<Item = (Inconsistency, u64, Option<usize>)> + '_ {
        Inconsistency::ALL.iter().filter(|k| self.count(**k) > 0).map(|&k| (k, self.count(k), self.first_event(k)))
    }
    /// `{name: count}` for the kinds that occurred.
    pub fn to_map(&self) -> BTreeMap<&'static str, u64> {
        self.iter().map(|(k, c, _)| (k.name(), c)).collect()
    }
}

/// A live segment in the walk. `origin` < number of final segments: that
/// final segment (local index); otherwise the trace event `origin - nfinal`
/// that (re)created it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SegVal {
    size: u64,
    stream: u32,
    origin: u32,
}

/// A block is kept as a descriptor `source << 1 | pending`: `source` < number
/// of final blocks is that final block (local index), otherwise the trace
/// event `source - nfinal` whose undo re-added it (sizes, stack and version
/// come from there).
type Desc = u32;

/// A segment at its address.
type SegEntry = (u128, SegVal);

struct Checkpoint {
    pos: usize,
    blocks: Vec<(u128, Desc)>,
    segs: Vec<(u128, SegVal)>,
    totals: Totals,
}

/// What [`StateHistory::new`] precomputes for one device: enough to move a
/// [`Cursor`] to any position.
pub struct StateHistory {
    device: u32,
    n: usize,
    /// Snapshot block index of each final block source.
    final_blocks: Vec<u32>,
    /// Snapshot segment index of each final segment origin.
    final_segs: Vec<u32>,
    /// Per event. Block events: [desc at the address before, after] (NONE:
    /// no block). Segment events: [start in `seglog`, removed << 16 | added].
    link: Vec<[u32; 2]>,
    /// Segment changes: for each segment event the segments present after it
    /// but not before ("removed" by undo), then those present before but not
    /// after ("added" by undo).
    seglog: Vec<(u128, SegVal)>,
    /// Per block source: the alloc event that created that block, or NONE.
    alloc_of: Vec<u32>,
    /// Version of each event of this device (memory_viz's `_N` suffix).
    ev_version: Vec<u32>,
    final_block_version: Vec<u32>,
    final_seg_version: Vec<u32>,
    checkpoints: Vec<Checkpoint>,
    checkpoint_every: usize,
    checkpoint_budget: usize,
    issues: Inconsistencies,
}

/// Cheap totals of a state, kept up to date at every step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Sum of segment sizes (memory_viz's "reserved").
    pub reserved_bytes: u64,
    /// Sum of requested sizes of active and pending-free blocks (memory_viz's
    /// "allocated").
    pub allocated_bytes: u64,
    pub segments: usize,
    pub blocks: usize,
    pub pending_free_blocks: usize,
}

/// A movable view of one state of a [`StateHistory`].
#[derive(Clone)]
pub struct Cursor {
    pos: usize,
    blocks: BTreeMap<u128, Desc>,
    segs: BTreeMap<u128, SegVal>,
    totals: Totals,
}

/// One block of a state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StateBlock {
    pub address: u128,
    pub size: u64,
    pub requested_size: u64,
    /// Freed but waiting (`active_pending_free`; memory_viz draws it red).
    pub pending: bool,
    pub version: u32,
    pub stack: StackId,
    /// The trace event that allocated it, when the trace holds it.
    pub alloc_event: Option<usize>,
    /// The snapshot block it is (still alive at the dump), if any.
    pub final_block: Option<usize>,
    /// The free event it was rebuilt from, if any.
    pub free_event: Option<usize>,
}

/// One segment of a state and its blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateSegment {
    pub address: u128,
    pub size: u64,
    pub stream: u32,
    /// Known for segments of the dump; `None` for segments rebuilt from events.
    pub pool_id: Option<(i64, i64)>,
    pub is_expandable: bool,
    pub version: u32,
    pub stack: StackId,
    /// The snapshot segment it is (possibly resized by map/unmap), if any.
    pub final_segment: Option<usize>,
    /// The trace event it was rebuilt from, if any.
    pub event: Option<usize>,
    pub blocks: Vec<StateBlock>,
    /// memory_viz's "free": size minus the requested sizes of its blocks.
    pub free_bytes: u64,
    /// Rounding waste: sum of (size - requested_size) of its blocks.
    pub internal_bytes: u64,
    /// memory_viz's "(X% internal)": internal / free * 100, when internal > 0.
    pub internal_percent: Option<f64>,
    /// Bytes not covered by any block.
    pub gap_bytes: u64,
    pub largest_gap: u64,
    pub gap_pieces: usize,
}

/// Everything about one state, segments sorted by address.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct State {
    pub device: u32,
    /// Events applied: 0 = before the first event.
    pub position: usize,
    /// The selected event (`position - 1`), `None` before the first event.
    pub event: Option<usize>,
    pub segments: Vec<StateSegment>,
    /// Blocks outside every segment (inconsistent input only).
    pub orphan_blocks: Vec<StateBlock>,
    pub totals: Totals,
    /// Bytes inside segments not covered by blocks.
    pub free_bytes: u64,
    pub largest_free_bytes: u64,
    pub free_pieces: usize,
}

/// What `memviz state` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StateSummary {
    pub device: u32,
    /// `None`: before the first event.
    pub event: Option<usize>,
    pub action: Option<String>,
    pub reserved_bytes: u64,
    pub allocated_bytes: u64,
    pub segments: usize,
    pub blocks: usize,
    pub pending_free_blocks: usize,
    pub free_bytes: u64,
    pub largest_free_bytes: u64,
    pub free_pieces: usize,
    /// Over the whole trace of the device (kinds that occurred).
    pub inconsistencies: BTreeMap<&'static str, u64>,
}

/// The state of `device` right after event `event` (`None`: before the first
/// event; an index past the end selects the final state).
pub fn summary(snap: &Snapshot, device: u32, event: Option<usize>) -> StateSummary {
    let h = StateHistory::new(snap, device);
    let mut c = h.cursor();
    match event {
        Some(i) => c.seek(&h, snap, i),
        None => c.seek_position(&h, snap, 0),
    }
    c.summary(&h, snap)
}

impl StateHistory {
    /// Precomputes the history of `device`; versions are computed here.
    pub fn new(snap: &Snapshot, device: u32) -> StateHistory {
        Self::with_versions(snap, device, None)
    }

    /// As [`StateHistory::new`], taking versions from `versions::compute` when
    /// given (they must belong to `snap`).
    pub fn with_versions(snap: &Snapshot, device: u32, versions: Option<&Versions>) -> StateHistory {
        Self::tuned(snap, device, versions, MIN_CHECKPOINT_EVERY, CHECKPOINT_BUDGET)
    }

    fn tuned(snap: &Snapshot, device: u32, versions: Option<&Versions>, every: usize, budget: usize) -> StateHistory {
        StateHistoryBuilder::tuned(snap, device, versions, every, budget).finish(snap)
    }
}

/// [`StateHistory::with_versions`] in steps, so that a page can walk a large
/// trace between frames rather than in one long task (~320 ms on the
/// 2M-event file in wasm): `new`, then `step` until it returns true, then
/// `finish`. Every call must be given the same snapshot.
pub struct StateHistoryBuilder {
    h: StateHistory,
    c: Cursor,
    /// Events `0..left` are still to walk (back from the final state).
    left: usize,
}

impl StateHistoryBuilder {
    pub fn new(snap: &Snapshot, device: u32, versions: Option<&Versions>) -> StateHistoryBuilder {
        Self::tuned(snap, device, versions, MIN_CHECKPOINT_EVERY, CHECKPOINT_BUDGET)
    }

    fn tuned(
        snap: &Snapshot,
        device: u32,
        versions: Option<&Versions>,
        every: usize,
        budget: usize,
    ) -> StateHistoryBuilder {
        let trace = snap.trace(device);
        let n = trace.len();
        let final_segs: Vec<u32> =
            (0..snap.segments.len() as u32).filter(|&s| snap.segments[s as usize].device == device).collect();
        let mut final_blocks = Vec::new();
        for &s in &final_segs {
            let seg = &snap.segments[s as usize];
            for b in seg.blocks.clone() {
                if snap.blocks.get(b as usize).is_some_and(|b| b.state != BlockState::Inactive) {
                    final_blocks.push(b);
                }
            }
        }

        let (ev_version, final_seg_version, final_block_version) = match versions {
            Some(v)
                if v.event.get(device as usize).is_some_and(|e| e.len() == n)
                    && v.segment.len() == snap.segments.len()
                    && v.block.len() == snap.blocks.len() =>
            {
                (
                    v.event[device as usize].clone(),
                    final_segs.iter().map(|&s| v.segment[s as usize]).collect(),
                    final_blocks.iter().map(|&b| v.block[b as usize]).collect(),
                )
            }
            // The one version function (versions.rs), this device's events only.
            _ => {
                let v = crate::versions::of_device(snap, device);
                let seg = final_segs.iter().map(|&s| v.of_segment(s as usize)).collect();
                let blk = final_blocks.iter().map(|&b| v.of_block(b as usize)).collect();
                (v.event.into_iter().nth(device as usize).unwrap_or_default(), seg, blk)
            }
        };

        let mut h = StateHistory {
            device,
            n,
            final_blocks,
            final_segs,
            link: vec![[NONE, NONE]; n],
            seglog: Vec::new(),
            alloc_of: Vec::new(),
            ev_version,
            final_block_version,
            final_seg_version,
            checkpoints: Vec::new(),
            checkpoint_every: every.max(1),
            checkpoint_budget: budget,
            issues: Inconsistencies::default(),
        };
        h.alloc_of = vec![NONE; h.final_blocks.len() + n];
        let c = h.final_cursor(snap);
        h.save_checkpoint(&c);
        StateHistoryBuilder { h, c, left: n }
    }

    /// Walks back about `budget` more events; true once the whole trace is
    /// walked.
    pub fn step(&mut self, snap: &Snapshot, budget: usize) -> bool {
        let to = self.left.saturating_sub(budget);
        self.h.walk_back(snap, &mut self.c, to..self.left);
        self.left = to;
        self.left == 0
    }

    /// Events walked so far, of [`StateHistory::len`].
    pub fn walked(&self) -> usize {
        self.h.n - self.left
    }

    /// The history (the rest of the trace walked first, if any).
    pub fn finish(mut self, snap: &Snapshot) -> StateHistory {
        while !self.step(snap, usize::MAX) {}
        if self.h.checkpoints.last().is_none_or(|ck| ck.pos != 0) {
            self.h.save_checkpoint(&self.c);
        }
        self.h
    }
}

impl StateHistory {
    pub fn device(&self) -> u32 {
        self.device
    }
    /// Number of trace events.
    pub fn len(&self) -> usize {
        self.n
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    pub fn inconsistencies(&self) -> &Inconsistencies {
        &self.issues
    }
    /// Bytes this history keeps on the heap (approximate).
    pub fn heap_bytes(&self) -> usize {
        self.link.capacity() * 8
            + self.seglog.capacity() * std::mem::size_of::<(u128, SegVal)>()
            + (self.alloc_of.capacity() + self.ev_version.capacity()) * 4
            + (self.final_blocks.capacity() + self.final_segs.capacity()) * 8
            + self
                .checkpoints
                .iter()
                .map(|ck| ck.blocks.capacity() * 32 + ck.segs.capacity() * 32 + std::mem::size_of::<Checkpoint>())
                .sum::<usize>()
    }

    /// A cursor on the final state (position `len()`).
    pub fn cursor(&self) -> Cursor {
        let ck = &self.checkpoints[0];
        debug_assert_eq!(ck.pos, self.n);
        self.restore(ck)
    }

    fn nfinal_blocks(&self) -> u32 {
        self.final_blocks.len() as u32
    }

    fn block_sizes(&self, snap: &Snapshot, d: Desc) -> (u64, u64) {
        let src = d >> 1;
        if src < self.nfinal_blocks() {
            let b = &snap.blocks[self.final_blocks[src as usize] as usize];
            (b.size, b.requested_size)
        } else {
            let s = snap.trace(self.device).size[(src - self.nfinal_blocks()) as usize];
            (s, s)
        }
    }

    fn final_cursor(&mut self, snap: &Snapshot) -> Cursor {
        let mut c = Cursor { pos: self.n, blocks: BTreeMap::new(), segs: BTreeMap::new(), totals: Totals::default() };
        for (o, &s) in self.final_segs.iter().enumerate() {
            let seg = &snap.segments[s as usize];
            let v = SegVal { size: seg.total_size, stream: seg.stream, origin: o as u32 };
            if self.seg_overlaps(&c, seg.address, seg.total_size) {
                self.issues.note(Inconsistency::SegmentOverlap, None);
            }
            c.seg_set(seg.address, Some(v));
        }
        for k in 0..self.final_blocks.len() {
            let b = self.final_blocks[k];
            let blk = &snap.blocks[b as usize];
            let pending = blk.state == BlockState::ActivePendingFree;
            let d = (k as u32) << 1 | pending as u32;
            self.check_block_place(snap, &c, blk.address, blk.size, None);
            if c.blocks.contains_key(&blk.address) {
                self.issues.note(Inconsistency::BlockOverlap, None);
            }
            c.block_set(self, snap, blk.address, d);
        }
        c
    }

    fn seg_overlaps(&self, c: &Cursor, addr: u128, size: u64) -> bool {
        let end = end_of(addr, size);
        if let Some((&a, v)) = c.segs.range(..=addr).next_back() {
            if end_of(a, v.size) > addr {
                return true;
            }
        }
        c.segs.range((Bound::Excluded(addr), Bound::Unbounded)).next().is_some_and(|(&a, _)| a < end)
    }

    /// Notes a block [addr, addr+size) that lies outside every segment or
    /// overlaps a neighbouring block (other than one at `addr` itself).
    fn check_block_place(&mut self, snap: &Snapshot, c: &Cursor, addr: u128, size: u64, event: Option<usize>) {
        let end = end_of(addr, size);
        let inside = c.segs.range(..=addr).next_back().is_some_and(|(&a, v)| end <= end_of(a, v.size));
        if !inside {
            self.issues.note(Inconsistency::BlockOutsideSegment, event);
        }
        let prev =
            c.blocks.range(..addr).next_back().is_some_and(|(&a, &d)| end_of(a, self.block_sizes(snap, d).0) > addr);
        let next = c.blocks.range((Bound::Excluded(addr), Bound::Unbounded)).next().is_some_and(|(&a, _)| a < end);
        if prev || next {
            self.issues.note(Inconsistency::BlockOverlap, event);
        }
    }

    fn blocks_in(&self, snap: &Snapshot, c: &Cursor, addr: u128, size: u64) -> bool {
        let end = end_of(addr, size);
        c.blocks.range(..end).next_back().is_some_and(|(&a, &d)| end_of(a, self.block_sizes(snap, d).0) > addr)
    }

    fn save_checkpoint(&mut self, c: &Cursor) {
        self.checkpoints.push(Checkpoint {
            pos: c.pos,
            blocks: c.blocks.iter().map(|(&a, &d)| (a, d)).collect(),
            segs: c.segs.iter().map(|(&a, &v)| (a, v)).collect(),
            totals: c.totals,
        });
        let bytes = |ck: &Checkpoint| ck.blocks.len() * 32 + ck.segs.len() * 32 + 64;
        let mut total: usize = self.checkpoints.iter().map(bytes).sum();
        while total > self.checkpoint_budget && self.checkpoints.len() > 2 {
            // Thin out: keep every other one (and always the final state).
            self.checkpoint_every *= 2;
            let (n, every) = (self.n, self.checkpoint_every);
            self.checkpoints.retain(|ck| ck.pos == n || ck.pos % every == 0);
            total = self.checkpoints.iter().map(bytes).sum();
        }
    }

    fn restore(&self, ck: &Checkpoint) -> Cursor {
        Cursor {
            pos: ck.pos,
            blocks: ck.blocks.iter().copied().collect(),
            segs: ck.segs.iter().copied().collect(),
            totals: ck.totals,
        }
    }

    /// The backward walk from the final state to position 0: records `link`,
    /// `seglog`, `alloc_of`, checkpoints and inconsistencies.
    /// Walks events `range` back, last first (from the state after them).
    fn walk_back(&mut self, snap: &Snapshot, c: &mut Cursor, range: std::ops::Range<usize>) {
        let trace = snap.trace(self.device);
        let nfb = self.nfinal_blocks();
        let nfs = self.final_segs.len() as u32;
        let mut touched: Vec<(u128, Option<SegVal>)> = Vec::new();
        for i in range.rev() {
            let action = trace.action[i];
            let addr = trace.addr(i);
            let size = trace.size[i];
            if action.is_block() {
                let cur = c.blocks.get(&addr).copied();
                let new = match action {
                    Action::Alloc => {
                        match cur {
                            Some(d) => self.alloc_of[(d >> 1) as usize] = i as u32,
                            None => self.issues.note(Inconsistency::AllocWithoutBlock, Some(i)),
                        }
                        NONE
                    }
                    Action::FreeRequested => match cur {
                        None => {
                            self.issues.note(Inconsistency::FreeRequestedUnknownBlock, Some(i));
                            NONE
                        }
                        Some(d) => {
                            if d & 1 == 0 {
                                self.issues.note(Inconsistency::FreeRequestedNotPending, Some(i));
                            }
                            d & !1
                        }
                    },
                    _ => {
                        if cur.is_some() {
                            self.issues.note(Inconsistency::FreeOverLiveBlock, Some(i));
                        }
                        // memory_viz merges free_requested + free_completed into one
                        // `free` event carrying the free_requested's fields.
                        let src = trace.shown_event(i);
                        let bsize = trace.size[src];
                        self.check_block_place(snap, c, addr, bsize, Some(i));
                        (nfb + src as u32) << 1 | (action == Action::FreeCompleted) as u32
                    }
                };
                self.link[i] = [new, cur.unwrap_or(NONE)];
                c.block_set(self, snap, addr, new);
            } else if action.is_segment() {
                touched.clear();
                let stream = trace.stream[i];
                let ev = SegVal { size, stream, origin: nfs + i as u32 };
                let end = end_of(addr, size);
                match action {
                    Action::SegmentFree | Action::SegmentUnmap => {
                        if self.seg_overlaps(c, addr, size) {
                            self.issues.note(Inconsistency::SegmentOverlap, Some(i));
                        }
                        touch(&mut touched, c, addr);
                        c.seg_set(addr, Some(ev));
                        if action == Action::SegmentUnmap {
                            // Expandable segments: join address-adjacent pieces on the same stream.
                            let mut cur = ev;
                            if let Some((&na, &nv)) = c.segs.range((Bound::Excluded(addr), Bound::Unbounded)).next() {
                                if na == end && nv.stream == stream {
                                    touch(&mut touched, c, na);
                                    c.seg_set(na, None);
                                    cur.size = cur.size.saturating_add(nv.size);
                                    c.seg_set(addr, Some(cur));
                                }
                            }
                            if let Some((&pa, &pv)) = c.segs.range(..addr).next_back() {
                                if end_of(pa, pv.size) == addr && pv.stream == stream {
                                    touch(&mut touched, c, pa);
                                    c.seg_set(addr, None);
                                    c.seg_set(pa, Some(SegVal { size: pv.size.saturating_add(cur.size), ..pv }));
                                }
                            }
                        }
                    }
                    Action::SegmentAlloc => match c.segs.get(&addr).copied() {
                        None => self.issues.note(Inconsistency::SegmentAllocUnknown, Some(i)),
                        Some(v) => {
                            if self.blocks_in(snap, c, addr, v.size) {
                                self.issues.note(Inconsistency::SegmentRemovedWithBlocks, Some(i));
                            }
                            touch(&mut touched, c, addr);
                            c.seg_set(addr, None);
                        }
                    },
                    _ => {
                        // segment_map: shrink or split the segment containing the range.
                        let found = c.segs.range(..=addr).next_back().map(|(&a, &v)| (a, v));
                        match found {
                            Some((ea, ev0)) if end <= end_of(ea, ev0.size) => {
                                if self.blocks_in(snap, c, addr, size) {
                                    self.issues.note(Inconsistency::SegmentRemovedWithBlocks, Some(i));
                                }
                                let eend = end_of(ea, ev0.size);
                                touch(&mut touched, c, ea);
                                if ea == addr {
                                    c.seg_set(ea, None);
                                    if ev0.size > size {
                                        touch(&mut touched, c, end);
                                        c.seg_set(end, Some(SegVal { size: ev0.size - size, ..ev0 }));
                                    }
                                } else if eend == end {
                                    c.seg_set(ea, Some(SegVal { size: ev0.size - size, ..ev0 }));
                                } else {
                                    c.seg_set(ea, Some(SegVal { size: (addr - ea) as u64, ..ev0 }));
                                    touch(&mut touched, c, end);
                                    c.seg_set(end, Some(SegVal { size: (eend - end) as u64, ..ev }));
                                }
                            }
                            _ => self.issues.note(Inconsistency::SegmentMapUnknown, Some(i)),
                        }
                    }
                }
                // Net change: removed (present after event i) then added (present before it).
                let start = self.seglog.len();
                for &(a, old) in &touched {
                    if let Some(o) = old {
                        if c.segs.get(&a) != Some(&o) {
                            self.seglog.push((a, o));
                        }
                    }
                }
                let removed = self.seglog.len() - start;
                for &(a, old) in &touched {
                    if let Some(&nv) = c.segs.get(&a) {
                        if old != Some(nv) {
                            self.seglog.push((a, nv));
                        }
                    }
                }
                let added = self.seglog.len() - start - removed;
                self.link[i] = [start as u32, (removed as u32) << 16 | added as u32];
            }
            c.pos = i;
            if i % self.checkpoint_every == 0 {
                self.save_checkpoint(c);
            }
        }
    }

    fn seg_changes(&self, i: usize) -> (&[SegEntry], &[SegEntry]) {
        let [start, counts] = self.link[i];
        let (start, removed, added) = (start as usize, (counts >> 16) as usize, (counts & 0xffff) as usize);
        (&self.seglog[start..start + removed], &self.seglog[start + removed..start + removed + added])
    }

    fn make_block(&self, snap: &Snapshot, addr: u128, d: Desc) -> StateBlock {
        let src = d >> 1;
        let nfb = self.nfinal_blocks();
        let alloc = self.alloc_of[src as usize];
        let alloc_event = (alloc != NONE).then_some(alloc as usize);
        if src < nfb {
            let bi = self.final_blocks[src as usize] as usize;
            let b = &snap.blocks[bi];
            StateBlock {
                address: addr,
                size: b.size,
                requested_size: b.requested_size,
                pending: d & 1 == 1,
                version: self.final_block_version[src as usize],
                stack: b.stack,
                alloc_event,
                final_block: Some(bi),
                free_event: None,
            }
        } else {
            let j = (src - nfb) as usize;
            let t = snap.trace(self.device);
            StateBlock {
                address: addr,
                size: t.size[j],
                requested_size: t.size[j],
                pending: d & 1 == 1,
                version: self.ev_version[j],
                stack: t.stack[j],
                alloc_event,
                final_block: None,
                free_event: Some(j),
            }
        }
    }

    fn make_segment(&self, snap: &Snapshot, addr: u128, v: SegVal) -> StateSegment {
        let nfs = self.final_segs.len() as u32;
        let mut s = StateSegment {
            address: addr,
            size: v.size,
            stream: v.stream,
            pool_id: None,
            is_expandable: false,
            version: 0,
            stack: 0,
            final_segment: None,
            event: None,
            blocks: Vec::new(),
            free_bytes: v.size,
            internal_bytes: 0,
            internal_percent: None,
            gap_bytes: 0,
            largest_gap: 0,
            gap_pieces: 0,
        };
        if v.origin < nfs {
            let si = self.final_segs[v.origin as usize] as usize;
            let seg = &snap.segments[si];
            s.pool_id = seg.pool_id;
            s.is_expandable = seg.is_expandable;
            s.version = self.final_seg_version[v.origin as usize];
            s.stack = seg.stack;
            s.final_segment = Some(si);
        } else {
            let j = (v.origin - nfs) as usize;
            let t = snap.trace(self.device);
            s.is_expandable = matches!(t.action[j], Action::SegmentMap | Action::SegmentUnmap);
            s.version = self.ev_version[j];
            s.stack = t.stack[j];
            s.event = Some(j);
        }
        s
    }
}

/// End of [addr, addr + size), saturating (garbage addresses must not panic).
fn end_of(addr: u128, size: u64) -> u128 {
    addr.saturating_add(size as u128)
}

fn touch(touched: &mut Vec<(u128, Option<SegVal>)>, c: &Cursor, addr: u128) {
    if !touched.iter().any(|(a, _)| *a == addr) {
        touched.push((addr, c.segs.get(&addr).copied()));
    }
}

impl Cursor {
    /// Events applied: 0 = before the first event, `len()` = final state.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// The selected event (`position - 1`), `None` before the first event.
    pub fn event(&self) -> Option<usize> {
        self.pos.checked_sub(1)
    }
    pub fn totals(&self) -> Totals {
        self.totals
    }

    fn block_set(&mut self, h: &StateHistory, snap: &Snapshot, addr: u128, d: Desc) {
        let old = if d == NONE { self.blocks.remove(&addr) } else { self.blocks.insert(addr, d) };
        if let Some(o) = old {
            self.totals.allocated_bytes = self.totals.allocated_bytes.wrapping_sub(h.block_sizes(snap, o).1);
            self.totals.pending_free_blocks -= (o & 1) as usize;
        }
        if d != NONE {
            self.totals.allocated_bytes = self.totals.allocated_bytes.wrapping_add(h.block_sizes(snap, d).1);
            self.totals.pending_free_blocks += (d & 1) as usize;
        }
        self.totals.blocks = self.blocks.len();
    }

    fn seg_set(&mut self, addr: u128, v: Option<SegVal>) {
        let old = match v {
            Some(v) => self.segs.insert(addr, v),
            None => self.segs.remove(&addr),
        };
        if let Some(o) = old {
            self.totals.reserved_bytes = self.totals.reserved_bytes.wrapping_sub(o.size);
        }
        if let Some(v) = v {
            self.totals.reserved_bytes = self.totals.reserved_bytes.wrapping_add(v.size);
        }
        self.totals.segments = self.segs.len();
    }

    /// Moves to the state right after event `i` (past the end: the final state).
    pub fn seek(&mut self, h: &StateHistory, snap: &Snapshot, i: usize) {
        self.seek_position(h, snap, i.saturating_add(1));
    }

    /// Moves to position `t` (events applied; 0 = before the first event).
    pub fn seek_position(&mut self, h: &StateHistory, snap: &Snapshot, t: usize) {
        let t = t.min(h.n);
        let dist = t.abs_diff(self.pos);
        if dist > h.checkpoint_every / 2 {
            // Checkpoints are in decreasing position order.
            let k = h.checkpoints.partition_point(|ck| ck.pos > t);
            let mut best: Option<&Checkpoint> = None;
            for ck in [k.checked_sub(1).map(|j| &h.checkpoints[j]), h.checkpoints.get(k)].into_iter().flatten() {
                if best.is_none_or(|b| ck.pos.abs_diff(t) < b.pos.abs_diff(t)) {
                    best = Some(ck);
                }
            }
            if let Some(ck) = best {
                if ck.pos.abs_diff(t) < dist {
                    *self = h.restore(ck);
                }
            }
        }
        while self.pos > t {
            self.step_back(h, snap);
        }
        while self.pos < t {
            self.step_forward(h, snap);
        }
    }

    /// Undoes event `position - 1`. Returns false at position 0.
    pub fn step_back(&mut self, h: &StateHistory, snap: &Snapshot) -> bool {
        if self.pos == 0 {
            return false;
        }
        let i = self.pos - 1;
        let t = snap.trace(h.device);
        let a = t.action[i];
        if a.is_block() {
            let d = h.link[i][0];
            self.block_set(h, snap, t.addr(i), d);
        } else if a.is_segment() {
            let (removed, added) = h.seg_changes(i);
            for &(addr, _) in removed {
                self.seg_set(addr, None);
            }
            for &(addr, v) in added {
                self.seg_set(addr, Some(v));
            }
        }
        self.pos = i;
        true
    }

    /// Redoes event `position`. Returns false at the final state.
    pub fn step_forward(&mut self, h: &StateHistory, snap: &Snapshot) -> bool {
        if self.pos >= h.n {
            return false;
        }
        let i = self.pos;
        let t = snap.trace(h.device);
        let a = t.action[i];
        if a.is_block() {
            let d = h.link[i][1];
            self.block_set(h, snap, t.addr(i), d);
        } else if a.is_segment() {
            let (removed, added) = h.seg_changes(i);
            for &(addr, _) in added {
                self.seg_set(addr, None);
            }
            for &(addr, v) in removed {
                self.seg_set(addr, Some(v));
            }
        }
        self.pos = i + 1;
        true
    }

    /// Block addresses and sizes in address order, without building a
    /// [`State`] (for drawing).
    pub fn for_each_block(&self, h: &StateHistory, snap: &Snapshot, mut f: impl FnMut(u128, u64, u64, bool)) {
        for (&a, &d) in &self.blocks {
            let (s, r) = h.block_sizes(snap, d);
            f(a, s, r, d & 1 == 1);
        }
    }

    /// Segment addresses, sizes and streams in address order.
    pub fn for_each_segment(&self, mut f: impl FnMut(u128, u64, u32)) {
        for (&a, v) in &self.segs {
            f(a, v.size, v.stream);
        }
    }

    /// The block whose range [address, address + size) holds `addr` (for
    /// hovering), O(log m).
    pub fn block_at(&self, h: &StateHistory, snap: &Snapshot, addr: u128) -> Option<StateBlock> {
        let (&a, &d) = self.blocks.range(..=addr).next_back()?;
        (addr < end_of(a, h.block_sizes(snap, d).0)).then(|| h.make_block(snap, a, d))
    }

    /// The segment holding `addr` with its blocks and free-space figures.
    pub fn segment_at(&self, h: &StateHistory, snap: &Snapshot, addr: u128) -> Option<StateSegment> {
        let (&a, &v) = self.segs.range(..=addr).next_back()?;
        if addr >= end_of(a, v.size) {
            return None;
        }
        let mut st = self.fill_segment(h, snap, a, v, self.blocks.range(a..end_of(a, v.size)).map(|(&a, &d)| (a, d)));
        st.blocks.shrink_to_fit();
        Some(st)
    }

    fn fill_segment(
        &self,
        h: &StateHistory,
        snap: &Snapshot,
        sa: u128,
        sv: SegVal,
        blocks: impl Iterator<Item = (u128, Desc)>,
    ) -> StateSegment {
        let mut seg = h.make_segment(snap, sa, sv);
        seg.blocks.extend(blocks.map(|(a, d)| h.make_block(snap, a, d)));
        let send = end_of(sa, sv.size);
        let mut requested = 0u64;
        let mut at = sa;
        let gap = |from: u128, to: u128, seg: &mut StateSegment| {
            if to > from {
                let g = (to - from) as u64;
                seg.gap_bytes = seg.gap_bytes.saturating_add(g);
                seg.largest_gap = seg.largest_gap.max(g);
                seg.gap_pieces += 1;
            }
        };
        for i in 0..seg.blocks.len() {
            let (ba, bs, br) = (seg.blocks[i].address, seg.blocks[i].size, seg.blocks[i].requested_size);
            requested = requested.saturating_add(br);
            seg.internal_bytes = seg.internal_bytes.saturating_add(bs.saturating_sub(br));
            gap(at, ba, &mut seg);
            at = at.max(end_of(ba, bs));
        }
        gap(at, send, &mut seg);
        seg.free_bytes = sv.size.saturating_sub(requested);
        if seg.internal_bytes > 0 && seg.free_bytes > 0 {
            seg.internal_percent = Some(seg.internal_bytes as f64 / seg.free_bytes as f64 * 100.0);
        }
        seg
    }

    /// The whole state: segments with their blocks and free-space figures.
    pub fn state(&self, h: &StateHistory, snap: &Snapshot) -> State {
        let mut st = State {
            device: h.device,
            position: self.pos,
            event: self.event(),
            segments: Vec::with_capacity(self.segs.len()),
            orphan_blocks: Vec::new(),
            totals: self.totals,
            free_bytes: 0,
            largest_free_bytes: 0,
            free_pieces: 0,
        };
        let mut blocks = self.blocks.iter().peekable();
        for (&sa, &sv) in &self.segs {
            let send = end_of(sa, sv.size);
            // Blocks below this segment's start lie outside every segment.
            while let Some((&ba, &d)) = blocks.peek() {
                if ba >= sa {
                    break;
                }
                st.orphan_blocks.push(h.make_block(snap, ba, d));
                blocks.next();
            }
            let mut mine = Vec::new();
            while let Some((&ba, &d)) = blocks.peek() {
                if ba >= send {
                    break;
                }
                mine.push((ba, d));
                blocks.next();
            }
            let seg = self.fill_segment(h, snap, sa, sv, mine.into_iter());
            st.free_bytes = st.free_bytes.saturating_add(seg.gap_bytes);
            st.largest_free_bytes = st.largest_free_bytes.max(seg.largest_gap);
            st.free_pieces += seg.gap_pieces;
            st.segments.push(seg);
        }
        for (&ba, &d) in blocks {
            st.orphan_blocks.push(h.make_block(snap, ba, d));
        }
        st
    }

    pub fn summary(&self, h: &StateHistory, snap: &Snapshot) -> StateSummary {
        let st = self.state(h, snap);
        let t = snap.trace(h.device);
        StateSummary {
            device: h.device,
            event: st.event,
            action: st.event.map(|i| t.action_name(i).to_string()),
            reserved_bytes: st.totals.reserved_bytes,
            allocated_bytes: st.totals.allocated_bytes,
            segments: st.totals.segments,
            blocks: st.totals.blocks,
            pending_free_blocks: st.totals.pending_free_blocks,
            free_bytes: st.free_bytes,
            largest_free_bytes: st.largest_free_bytes,
            free_pieces: st.free_pieces,
            inconsistencies: h.issues.to_map(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Block, EventTable, Segment, SegmentType, NO_EXTRA, NO_TIME};
    use std::collections::HashMap;

    const MB: u64 = 1 << 20;

    /// (address, total size, stream, expandable, [(size, requested, state)]).
    type SegSpec<'a> = (u128, u64, u32, bool, &'a [(u64, u64, BlockState)]);

    fn build(events: &[(Action, u128, u64, u32)], segs: &[SegSpec]) -> Snapshot {
        let mut t = EventTable::default();
        for (i, &(a, addr, size, stream)) in events.iter().enumerate() {
            t.action.push(a);
            t.addr_lo.push(addr as u64);
            if addr >> 64 != 0 {
                t.addr_hi.insert(i as u32, (addr >> 64) as u64);
            }
            t.size.push(size);
            t.stream.push(stream);
            t.time_us.push(NO_TIME);
            t.stack.push(i as u32 + 1);
            t.extra.push(NO_EXTRA);
        }
        let mut snap = Snapshot { traces: vec![t], ..Snapshot::default() };
        for &(addr, size, stream, exp, blocks) in segs {
            let start = snap.blocks.len() as u32;
            let mut a = addr;
            for &(bs, req, state) in blocks {
                snap.blocks.push(Block {
                    address: a,
                    size: bs,
                    requested_size: req,
                    state,
                    stack: 0,
                    user_metadata: None,
                });
                a = a.wrapping_add(bs as u128);
            }
            snap.segments.push(Segment {
                device: 0,
                address: addr,
                total_size: size,
                allocated_size: 0,
                active_size: 0,
                requested_size: 0,
                stream,
                segment_type: SegmentType::Large,
                pool_id: Some((0, 0)),
                is_expandable: exp,
                stack: 0,
                blocks: start..snap.blocks.len() as u32,
            });
        }
        snap
    }

    type Flat = (Vec<(u128, u64, u32)>, Vec<(u128, u64, u64, bool)>);

    /// memory_viz's simulate_memory written plainly (a fresh undo from the dump
    /// every time), except that nothing throws on unknown blocks/segments.
    fn naive(snap: &Snapshot, pos: usize) -> Flat {
        let t = &snap.traces[0];
        let mut segs: BTreeMap<u128, (u64, u32)> = BTreeMap::new();
        let mut blocks: HashMap<u128, (u64, u64, bool)> = HashMap::new();
        for s in &snap.segments {
            segs.insert(s.address, (s.total_size, s.stream));
            for b in snap.segment_blocks(s) {
                if b.state != BlockState::Inactive {
                    blocks.insert(b.address, (b.size, b.requested_size, b.state == BlockState::ActivePendingFree));
                }
            }
        }
        for i in (pos..t.len()).rev() {
            let (addr, size, stream) = (t.addr(i), t.size[i], t.stream[i]);
            match t.action[i] {
                Action::Free => {
                    blocks.insert(addr, (size, size, false));
                }
                Action::FreeCompleted => {
                    blocks.insert(addr, (size, size, true));
                }
                Action::FreeRequested => {
                    if let Some(b) = blocks.get_mut(&addr) {
                        b.2 = false;
                    }
                }
                Action::Alloc => {
                    blocks.remove(&addr);
                }
                Action::SegmentFree => {
                    segs.insert(addr, (size, stream));
                }
                Action::SegmentUnmap => {
                    let mut me = (addr, size);
                    let next = segs.range(addr + 1..).next().map(|(&a, &v)| (a, v));
                    if let Some((na, (ns, nst))) = next {
                        if na == addr + size as u128 && nst == stream {
                            segs.remove(&na);
                            me.1 += ns;
                        }
                    }
                    let prev = segs.range(..addr).next_back().map(|(&a, &v)| (a, v));
                    match prev {
                        Some((pa, (ps, pst))) if pa + ps as u128 == addr && pst == stream => {
                            segs.remove(&addr);
                            segs.insert(pa, (ps + me.1, pst));
                        }
                        _ => {
                            segs.insert(addr, (me.1, stream));
                        }
                    }
                }
                Action::SegmentAlloc => {
                    segs.remove(&addr);
                }
                Action::SegmentMap => {
                    let end = addr + size as u128;
                    let found = segs.range(..=addr).next_back().map(|(&a, &v)| (a, v));
                    if let Some((ea, (es, est))) = found {
                        let eend = ea + es as u128;
                        if end <= eend {
                            if ea == addr {
                                segs.remove(&ea);
                                if es > size {
                                    segs.insert(end, (es - size, est));
                                }
                            } else if eend == end {
                                segs.insert(ea, (es - size, est));
                            } else {
                                segs.insert(ea, ((addr - ea) as u64, est));
                                segs.insert(end, ((eend - end) as u64, stream));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let mut b: Vec<_> = blocks.into_iter().map(|(a, (s, r, p))| (a, s, r, p)).collect();
        b.sort();
        (segs.into_iter().map(|(a, (s, st))| (a, s, st)).collect(), b)
    }

    fn flat(st: &State) -> Flat {
        let mut b = Vec::new();
        for s in &st.segments {
            b.extend(s.blocks.iter().map(|b| (b.address, b.size, b.requested_size, b.pending)));
        }
        b.extend(st.orphan_blocks.iter().map(|b| (b.address, b.size, b.requested_size, b.pending)));
        b.sort();
        (st.segments.iter().map(|s| (s.address, s.size, s.stream)).collect(), b)
    }

    fn check_totals(st: &State) {
        let reserved: u64 = st.segments.iter().map(|s| s.size).sum();
        let blocks: Vec<&StateBlock> = st.segments.iter().flat_map(|s| &s.blocks).chain(&st.orphan_blocks).collect();
        assert_eq!(st.totals.reserved_bytes, reserved);
        assert_eq!(st.totals.segments, st.segments.len());
        assert_eq!(st.totals.blocks, blocks.len());
        assert_eq!(st.totals.allocated_bytes, blocks.iter().map(|b| b.requested_size).sum::<u64>());
        assert_eq!(st.totals.pending_free_blocks, blocks.iter().filter(|b| b.pending).count());
    }

    /// Every position reached by stepping forward, stepping back and far seeks
    /// equals a fresh undo from the dump.
    fn check_all(snap: &Snapshot) -> StateHistory {
        check_all_with(snap, StateHistory::new(snap, 0))
    }

    fn check_all_with(snap: &Snapshot, h: StateHistory) -> StateHistory {
        let n = h.len();
        let want: Vec<Flat> = (0..=n).map(|p| naive(snap, p)).collect();
        let mut c = h.cursor();
        assert_eq!(c.position(), n);
        for p in (0..=n).rev() {
            c.seek_position(&h, snap, p);
            let st = c.state(&h, snap);
            assert_eq!(flat(&st), want[p], "stepping back to {p}");
            check_totals(&st);
        }
        for (p, w) in want.iter().enumerate() {
            c.seek_position(&h, snap, p);
            let st = c.state(&h, snap);
            assert_eq!(&flat(&st), w, "stepping forward to {p}");
            check_totals(&st);
        }
        let mut x = 12345u64;
        for _ in 0..50 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let p = (x >> 33) as usize % (n + 1);
            let mut fresh = h.cursor();
            fresh.seek_position(&h, snap, p);
            c.seek_position(&h, snap, p);
            assert_eq!(flat(&c.state(&h, snap)), want[p], "seek to {p}");
            assert_eq!(flat(&fresh.state(&h, snap)), want[p], "fresh seek to {p}");
            assert_eq!(c.totals(), fresh.totals());
        }
        h
    }

    use Action::{Alloc, Free, FreeCompleted, FreeRequested, Oom, SegmentAlloc, SegmentFree, SegmentMap, SegmentUnmap};
    use BlockState::{ActiveAllocated as AA, ActivePendingFree as PF, Inactive as IN};

    fn simple() -> Snapshot {
        let s = 0x7f00_0000_0000u128;
        let events = [
            (SegmentAlloc, s, 2 * MB, 0),
            (Alloc, s, 1024, 0),
            (Alloc, s + 1024, 512, 0),
            (FreeRequested, s, 1024, 0),
            (FreeCompleted, s, 1024, 0),
            (Alloc, s, 512, 0),
            (FreeRequested, s + 1024, 512, 0),
            (Oom, 0, 1 << 40, 0),
            (SegmentAlloc, s + 4 * MB as u128, 2 * MB, 1),
            (Alloc, s + 4 * MB as u128, 4096, 1),
            (Free, s + 4 * MB as u128, 4096, 1),
            (SegmentFree, s + 4 * MB as u128, 2 * MB, 1),
            (Action::Snapshot, 0, 0, 0),
        ];
        build(
            &events,
            &[(s, 2 * MB, 0, false, &[(512, 500, AA), (512, 0, IN), (512, 512, PF), (2 * MB - 1536, 0, IN)])],
        )
    }

    #[test]
    fn simple_history_matches_fresh_undo() {
        let snap = simple();
        let h = check_all(&snap);
        assert_eq!(h.inconsistencies().total(), 0, "{:?}", h.inconsistencies());
        let s = 0x7f00_0000_0000u128;
        let mut c = h.cursor();
        // Final: the dump's blocks, rounding kept.
        let st = c.state(&h, &snap);
        assert_eq!(
            st.totals,
            Totals { reserved_bytes: 2 * MB, allocated_bytes: 1012, segments: 1, blocks: 2, pending_free_blocks: 1 }
        );
        assert_eq!(st.segments[0].internal_bytes, 12);
        assert_eq!(st.segments[0].free_bytes, 2 * MB - 1012);
        assert_eq!(st.free_pieces, 2);
        assert_eq!(st.largest_free_bytes, 2 * MB - 1536);
        assert_eq!(st.free_bytes, 2 * MB - 1024);
        assert_eq!(st.segments[0].blocks[0].alloc_event, Some(5));
        // Hover lookups agree with the full state.
        assert_eq!(c.block_at(&h, &snap, s + 100).as_ref(), Some(&st.segments[0].blocks[0]));
        assert_eq!(c.block_at(&h, &snap, s + 600), None);
        assert_eq!(c.segment_at(&h, &snap, s + 600).as_ref(), Some(&st.segments[0]));
        assert_eq!(c.segment_at(&h, &snap, s + 2 * MB as u128), None);
        assert_eq!(st.segments[0].blocks[1].alloc_event, Some(2));
        // After event 3 (free_requested of the first block): rebuilt from the
        // merged free (event 3's fields), pending.
        c.seek(&h, &snap, 3);
        let st = c.state(&h, &snap);
        let b = &st.segments[0].blocks[0];
        assert_eq!((b.address, b.size, b.requested_size, b.pending), (s, 1024, 1024, true));
        assert_eq!((b.free_event, b.alloc_event, b.stack), (Some(3), Some(1), 4));
        // Version: the first life of that address is _0; the dump's block _1.
        assert_eq!(b.version, 0);
        assert_eq!(h.cursor().state(&h, &snap).segments[0].blocks[0].version, 1);
        // After event 10 (free of the stream-1 block): two segments.
        c.seek(&h, &snap, 10);
        let st = c.state(&h, &snap);
        assert_eq!(st.totals.segments, 2);
        assert_eq!(st.segments[1].stream, 1);
        assert_eq!(st.segments[1].event, Some(11));
        assert!(st.segments[1].blocks.is_empty());
        c.seek(&h, &snap, 9);
        assert_eq!(c.state(&h, &snap).segments[1].blocks[0].free_event, Some(10));
        c.seek_position(&h, &snap, 0);
        let st = c.state(&h, &snap);
        assert_eq!(st.totals, Totals::default());
        let sum = c.summary(&h, &snap);
        assert_eq!(sum.event, None);
        c.seek(&h, &snap, 7);
        let sum = c.summary(&h, &snap);
        assert_eq!(sum.action.as_deref(), Some("oom"));
        assert_eq!(sum.allocated_bytes, 500 + 512);
        let js = serde_json::to_string(&sum).unwrap();
        assert!(js.contains("\"inconsistencies\":{}"), "{js}");
    }

    #[test]
    fn expandable_map_unmap_merge_and_split() {
        let b = 0x7f00_0000_0000u128;
        let m = MB as u128;
        let events = [
            (SegmentMap, b, 2 * MB, 0),
            (Alloc, b, MB, 0),
            (SegmentMap, b + 4 * m, 2 * MB, 0),
            (SegmentMap, b + 2 * m, 2 * MB, 0), // joins the two: split on undo
            (SegmentMap, b + 6 * m, 2 * MB, 0),
            (Alloc, b + 6 * m, MB, 0),
            (FreeRequested, b + 6 * m, MB, 0),
            (FreeCompleted, b + 6 * m, MB, 0),
            (SegmentUnmap, b + 6 * m, 2 * MB, 0), // merged back on undo
            (SegmentMap, b + 20 * m, 2 * MB, 1),
            (SegmentMap, b + 22 * m, 2 * MB, 2), // other stream: no merge
            (SegmentUnmap, b + 22 * m, 2 * MB, 2),
        ];
        let snap = build(
            &events,
            &[(b, 6 * MB, 0, true, &[(MB, MB, AA), (5 * MB, 0, IN)]), (b + 20 * m, 2 * MB, 1, true, &[])],
        );
        let h = check_all(&snap);
        assert_eq!(h.inconsistencies().total(), 0, "{:?}", h.inconsistencies());
        let mut c = h.cursor();
        c.seek(&h, &snap, 2);
        let st = c.state(&h, &snap);
        let segs: Vec<_> = st.segments.iter().map(|s| (s.address, s.size, s.event)).collect();
        assert_eq!(segs, vec![(b, 2 * MB, None), (b + 4 * m, 2 * MB, Some(3))]);
        c.seek(&h, &snap, 7);
        let st = c.state(&h, &snap);
        assert_eq!(st.segments.len(), 1);
        assert_eq!(st.segments[0].size, 8 * MB);
        assert_eq!(st.totals.pending_free_blocks, 0);
        // The free_completed is undone into a pending block.
        c.seek(&h, &snap, 6);
        assert_eq!(c.totals().pending_free_blocks, 1);
        assert_eq!(c.totals().allocated_bytes, 2 * MB);
        c.seek(&h, &snap, 10);
        assert_eq!(c.totals().segments, 3);
        assert_eq!(c.totals().reserved_bytes, 10 * MB);
    }

    #[test]
    fn inconsistent_input_is_counted_not_fatal() {
        let s = 0x1000_0000u128;
        let events = [
            (FreeRequested, s + 0x100, 256, 0),     // unknown block
            (Alloc, s + 0x900, 256, 0),             // no block there
            (SegmentAlloc, s + 0x10_0000, MB, 0),   // unknown segment
            (FreeCompleted, s + 0x50_0000, 512, 0), // outside every segment
            (SegmentMap, s + 0x90_0000, MB, 0),     // outside every segment
            (FreeCompleted, s, 512, 0),             // over a live block
            (Alloc, s, 512, 0),
        ];
        let snap = build(&events, &[(s, 2 * MB, 0, false, &[(512, 512, AA), (2 * MB - 512, 0, IN)])]);
        let h = check_all(&snap);
        let inc = h.inconsistencies();
        assert_eq!(inc.count(Inconsistency::FreeRequestedUnknownBlock), 1);
        assert_eq!(inc.first_event(Inconsistency::FreeRequestedUnknownBlock), Some(0));
        assert_eq!(inc.count(Inconsistency::AllocWithoutBlock), 1);
        assert_eq!(inc.first_event(Inconsistency::AllocWithoutBlock), Some(1));
        assert_eq!(inc.count(Inconsistency::SegmentAllocUnknown), 1);
        assert_eq!(inc.count(Inconsistency::BlockOutsideSegment), 1);
        assert_eq!(inc.first_event(Inconsistency::BlockOutsideSegment), Some(3));
        assert_eq!(inc.count(Inconsistency::SegmentMapUnknown), 1);
        assert_eq!(inc.count(Inconsistency::FreeOverLiveBlock), 0);
        assert_eq!(inc.total(), 5);
        let mut c = h.cursor();
        c.seek(&h, &snap, 2);
        assert_eq!(c.state(&h, &snap).orphan_blocks.len(), 1);
        let sum = c.summary(&h, &snap);
        assert_eq!(sum.inconsistencies.get("segment_map_unknown"), Some(&1));
    }

    /// Random garbage traces: whatever they mean, stepping and seeking must
    /// agree with a fresh undo and never panic.
    #[test]
    fn random_traces_step_like_fresh_undo() {
        let mut x = 7u64;
        let mut rnd = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let acts =
            [Alloc, FreeRequested, FreeCompleted, Free, SegmentAlloc, SegmentFree, SegmentMap, SegmentUnmap, Oom];
        for _ in 0..150 {
            let n = 1 + rnd(120) as usize;
            let events: Vec<_> = (0..n)
                .map(|_| {
                    let a = acts[rnd(acts.len() as u64) as usize];
                    let addr = 0x10_0000u128 * rnd(8) as u128 + 0x400 * rnd(4) as u128;
                    let size = if a.is_segment() { 0x10_0000 * (1 + rnd(2)) } else { 0x400 * (1 + rnd(2)) };
                    (a, addr, size, rnd(2) as u32)
                })
                .collect();
            let snap = build(
                &events,
                &[
                    (0x10_0000, 0x10_0000, 0, false, &[(0x400, 0x300, AA), (0x400, 0x400, PF), (0xf_f800, 0, IN)]),
                    (0x30_0000, 0x20_0000, 1, true, &[(0x800, 0x800, AA), (0x1f_f800, 0, IN)]),
                ],
            );
            check_all(&snap);
            // Dense checkpoints, thinned by a tiny budget.
            let h = StateHistory::tuned(&snap, 0, None, 2, 600);
            assert!(h.checkpoints.len() >= 2);
            check_all_with(&snap, h);
        }
    }

    #[test]
    fn garbage_addresses_and_sizes_do_not_panic() {
        let top = u128::MAX - 100;
        let events = [
            (SegmentFree, top, u64::MAX, 0),
            (SegmentUnmap, top - 5, u64::MAX, 0),
            (FreeCompleted, top, u64::MAX, 0),
            (Free, u128::MAX, u64::MAX, 0),
            (SegmentMap, top, u64::MAX, 0),
            (Alloc, u128::MAX, 1, 0),
            (SegmentAlloc, top, 1, 0),
        ];
        let snap = build(&events, &[(top, u64::MAX, 0, true, &[(u64::MAX, u64::MAX, AA)])]);
        let h = StateHistory::new(&snap, 0);
        assert!(h.inconsistencies().total() > 0);
        let mut c = h.cursor();
        for p in (0..=events.len()).rev().chain(0..=events.len()) {
            c.seek_position(&h, &snap, p);
            let _ = c.state(&h, &snap);
            let _ = c.summary(&h, &snap);
        }
    }
}
