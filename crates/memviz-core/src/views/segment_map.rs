//! The Allocator State History's segment map and texts: memory_viz's
//! `MemoryView.draw` layout of one [`State`] as plain rectangles in abstract
//! units (x in bytes, y in rows) that a renderer scales to pixels, hit
//! testing, and the hover / event-list texts (see
//! ../shared/docs/memory_viz_reference.md §2.4).
//!
//! Packing: segments sorted by size ascending (ties by address) go left to
//! right into rows whose width is the largest segment's size; a segment that
//! would overflow the row starts a new one. memory_viz leaves 1 px of its
//! 200-unit-wide view between segments, i.e. `row_width / 200` bytes; that
//! padding is kept so positions match. Each block sits at its segment's x
//! plus (block address - segment address), `requested_size` wide, followed by
//! a "rounding waste" rectangle `size - requested_size` wide.

use crate::annotations::{self, Target};
use crate::format::{
    format_addr, format_annotations, format_event, format_event_as, format_forward_frames, format_frames,
    format_metadata, format_size, format_user_metadata,
};
use crate::model::{Snapshot, UserMetadata};
use crate::state::{Cursor, State, StateBlock, StateHistory, StateSegment, Totals};
use crate::versions::Versions;

/// Share of a row's height that rectangles fill (memory_viz: 4/5).
pub const ROW_FILL: f64 = 0.8;
/// memory_viz's view is 200 units wide and pads segments by one unit.
const PADDING_DIVISOR: f64 = 200.0;

/// What a rectangle shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RectKind {
    /// A segment (memory_viz: white with a black outline).
    Segment,
    /// An allocated block (Tableau10 color `color`).
    Block,
    /// A block freed but waiting on another stream (`active_pending_free`;
    /// red).
    PendingFree,
    /// Rounding waste `size - requested_size` after a block (red).
    Waste,
}

/// One rectangle: row `row`, x from `x` to `x + width` in bytes of the row.
/// `segment` indexes `State::segments`; `block` indexes that segment's
/// `blocks` (`u32::MAX` for a segment rectangle).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapRect {
    pub kind: RectKind,
    pub row: u32,
    pub x: f64,
    pub width: f64,
    pub segment: u32,
    pub block: u32,
    /// Tableau10 index for blocks (memory_viz's `hashCode(addr) % 10`).
    pub color: u8,
}

/// Where a segment was packed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentPlace {
    pub row: u32,
    pub x: f64,
}

/// The laid-out map of one state.
#[derive(Debug, Clone, Default)]
pub struct SegmentMap {
    /// Row width in bytes: the largest segment's size (0 without segments).
    pub row_width: u64,
    /// Gap after each segment, in bytes.
    pub padding: f64,
    /// Number of rows (memory_viz draws `rows` rows even when empty: 1).
    pub rows: u32,
    /// Placement of each segment, by index in `State::segments`.
    pub places: Vec<SegmentPlace>,
    /// Segment indices in packing order (row by row, x ascending).
    pub order: Vec<u32>,
    /// Start of each row in `order` (len `rows + 1`).
    row_start: Vec<u32>,
    /// Segment rectangles first, then per block its block and waste
    /// rectangles (zero-width waste left out): the drawing order.
    pub rects: Vec<MapRect>,
    /// "X allocated / Y reserved": sum of block requested sizes, of segment
    /// sizes.
    pub allocated_bytes: u64,
    pub reserved_bytes: u64,
    /// Blocks that run past their segment's end (inconsistent input): their
    /// rectangles are cut at the segment's end, so that they neither cover
    /// the next segment nor leave the row.
    pub clipped_blocks: usize,
}

/// What lies under a point of the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapHit {
    Segment(u32),
    /// (segment, block in the segment)
    Block(u32, u32),
    /// Rounding waste of (segment, block).
    Waste(u32, u32),
}

/// memory_viz's `hashCode(addr)` on the decimal string, `abs % 10`.
pub fn block_color(addr: u128) -> u8 {
    // Decimal digits into a stack buffer: no allocation per block per frame.
    let mut digits = [0u8; 40];
    let mut n = 0;
    let mut a = addr;
    loop {
        digits[n] = b'0' + (a % 10) as u8;
        n += 1;
        a /= 10;
        if a == 0 {
            break;
        }
    }
    let mut h: i32 = 0;
    for &c in digits[..n].iter().rev() {
        h = h.wrapping_mul(31).wrapping_add(c as i32);
    }
    ((h as i64).abs() % 10) as u8
}

impl SegmentMap {
    /// Lays out `state` as memory_viz does. O(s log s + b).
    pub fn layout(state: &State) -> SegmentMap {
        let segs = &state.segments;
        let mut order: Vec<u32> = (0..segs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| (segs[i as usize].size, segs[i as usize].address));
        let row_width = order.last().map(|&i| segs[i as usize].size).unwrap_or(0);
        let padding = row_width as f64 / PADDING_DIVISOR;
        let mut places = vec![SegmentPlace { row: 0, x: 0.0 }; segs.len()];
        let mut row_start = vec![0u32];
        let (mut row, mut cur) = (0u32, 0f64);
        for (k, &i) in order.iter().enumerate() {
            let size = segs[i as usize].size as f64;
            if cur + size > row_width as f64 {
                cur = 0.0;
                row += 1;
                row_start.push(k as u32);
            }
            places[i as usize] = SegmentPlace { row, x: cur };
            cur += size + padding;
        }
        row_start.push(order.len() as u32);
        let nblocks: usize = segs.iter().map(|s| s.blocks.len()).sum();
        let mut rects = Vec::with_capacity(segs.len() + 2 * nblocks);
        let (mut allocated, mut reserved, mut clipped) = (0u64, 0u64, 0usize);
        for &i in &order {
            let s = &segs[i as usize];
            let p = places[i as usize];
            reserved = reserved.wrapping_add(s.size);
            rects.push(MapRect {
                kind: RectKind::Segment,
                row: p.row,
                x: p.x,
                width: s.size as f64,
                segment: i,
                block: u32::MAX,
                color: 0,
            });
        }
        for &i in &order {
            let s = &segs[i as usize];
            let p = places[i as usize];
            for (j, b) in s.blocks.iter().enumerate() {
                allocated = allocated.wrapping_add(b.requested_size);
                // A state's blocks start inside their segment; on
                // inconsistent input they may end past it: cut them there.
                let off = b.address.saturating_sub(s.address);
                let room = (s.size as u128).saturating_sub(off);
                if b.size.max(b.requested_size) as u128 > room {
                    clipped += 1;
                }
                let requested = (b.requested_size as u128).min(room);
                let x = p.x + off as f64;
                let kind = if b.pending { RectKind::PendingFree } else { RectKind::Block };
                let color = block_color(b.address);
                rects.push(MapRect {
                    kind,
                    row: p.row,
                    x,
                    width: requested as f64,
                    segment: i,
                    block: j as u32,
                    color,
                });
                let waste = (b.size.saturating_sub(b.requested_size) as u128).min(room - requested);
                if waste > 0 {
                    rects.push(MapRect {
                        kind: RectKind::Waste,
                        row: p.row,
                        x: x + requested as f64,
                        width: waste as f64,
                        segment: i,
                        block: j as u32,
                        color,
                    });
                }
            }
        }
        SegmentMap {
            row_width,
            padding,
            rows: row + 1,
            places,
            order,
            row_start,
            rects,
            allocated_bytes: allocated,
            reserved_bytes: reserved,
            clipped_blocks: clipped,
        }
    }

    /// What lies at `x` bytes along row `row`, `y_in_row` (0..1) down it
    /// (rectangles fill the top [`ROW_FILL`] of a row). O(log s + log b).
    pub fn hit(&self, state: &State, row: u32, x: f64, y_in_row: f64) -> Option<MapHit> {
        if !(0.0..ROW_FILL).contains(&y_in_row) || row >= self.rows || x.is_nan() {
            return None;
        }
        let (a, b) = (self.row_start[row as usize] as usize, self.row_start[row as usize + 1] as usize);
        let in_row = &self.order[a..b];
        // Last segment starting at or before x.
        let k = in_row.partition_point(|&i| self.places[i as usize].x <= x);
        let si = *in_row.get(k.checked_sub(1)?)?;
        let seg = state.segments.get(si as usize)?;
        let off = x - self.places[si as usize].x;
        if off >= seg.size as f64 {
            return None;
        }
        // Blocks are in address order and do not overlap on consistent input.
        let j = seg.blocks.partition_point(|bl| (bl.address.saturating_sub(seg.address) as f64) <= off);
        if let Some(j) = j.checked_sub(1) {
            let bl = &seg.blocks[j];
            let rel = off - bl.address.saturating_sub(seg.address) as f64;
            if rel < bl.requested_size as f64 {
                return Some(MapHit::Block(si, j as u32));
            }
            if rel < bl.size as f64 {
                return Some(MapHit::Waste(si, j as u32));
            }
        }
        Some(MapHit::Segment(si))
    }
}

fn pool_suffix(seg: &StateSegment) -> String {
    match seg.pool_id {
        Some((a, b)) if (a, b) != (0, 0) => format!(", pool_id ({a}, {b})"),
        _ => String::new(),
    }
}

/// JS `Number.toString` for a percentage (shortest round-trip, as Rust's
/// `Display` for finite values in the usual range).
fn js_number(v: f64) -> String {
    if v.is_infinite() {
        return if v > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if v.is_nan() {
        return "NaN".into();
    }
    format!("{v}")
}

/// memory_viz's segment hover: `s<hex>_<v>: segment <size> allocated, <free>
/// free (X% internal) (stream N, pool_id (a, b))` then the frames. "free" is
/// size minus the blocks' requested sizes; "internal" is the rounding waste
/// as a share of it.
pub fn segment_text(snap: &Snapshot, seg: &StateSegment) -> String {
    let requested: u64 = seg.blocks.iter().map(|b| b.requested_size).fold(0, u64::wrapping_add);
    let waste: u64 = seg.blocks.iter().map(|b| b.size.wrapping_sub(b.requested_size)).fold(0, u64::wrapping_add);
    let free = seg.size.wrapping_sub(requested);
    let internal = if waste > 0 {
        format!(" ({}% internal)", js_number(waste as f64 / free as f64 * 100.0))
    } else {
        String::new()
    };
    format!(
        "{}: segment {} allocated, {} free{internal} (stream {}{})\n{}",
        format_addr(true, seg.address, seg.version),
        format_size(seg.size, true),
        format_size(free, true),
        seg.stream,
        pool_suffix(seg),
        format_frames(snap, seg.stack)
    )
}

/// The user metadata and forward frames of a block of a state: the dump
/// block's when it is still alive at the dump, else the trace event it was
/// rebuilt from (memory_viz takes them from that free event).
fn block_extras<'a>(snap: &'a Snapshot, device: u32, b: &StateBlock) -> (Option<&'a UserMetadata>, &'a [String]) {
    if let Some(bi) = b.final_block {
        return (snap.blocks.get(bi).and_then(|x| x.user_metadata.as_ref()), &[]);
    }
    match b.free_event.and_then(|i| snap.extra(device, i)) {
        Some(x) => (x.user_metadata.as_ref(), &x.forward_frames),
        None => (None, &[]),
    }
}

/// The annotations of a block of a state made up to that state (see
/// [`crate::annotations`]); "" when there are none.
fn block_annotations(snap: &Snapshot, state: &State, b: &StateBlock) -> String {
    let target = if let Some(i) = b.alloc_event {
        Target::Alloc(i as u32)
    } else if let Some(bi) = b.final_block {
        Target::Block(bi as u32)
    } else if let Some(f) = b.free_event {
        Target::freed_by(snap.trace(state.device), f)
    } else {
        Target::Nothing
    };
    let upto = state.event;
    format_annotations(
        snap,
        annotations::of_target(snap, state.device, target).filter(|a| upto.is_some_and(|e| a.event as usize <= e)),
    )
}

/// memory_viz's block hover: `b<hex>_<v> <requested> allocation (block freed
/// but waiting due to record_stream) (stream N)` then user metadata, the
/// annotations made so far, and frames.
pub fn block_text(snap: &Snapshot, state: &State, seg: &StateSegment, b: &StateBlock) -> String {
    let waiting = if b.pending { " (block freed but waiting due to record_stream)" } else { "" };
    let (um, fwd) = block_extras(snap, state.device, b);
    let mut notes = String::new();
    for n in [format_user_metadata(um), block_annotations(snap, state, b)] {
        if !n.is_empty() {
            notes.push_str(&n);
            notes.push('\n');
        }
    }
    format!(
        "{} {} allocation{waiting} (stream {}{})\n{notes}{}{}",
        format_addr(false, b.address, b.version),
        format_size(b.requested_size, true),
        seg.stream,
        pool_suffix(seg),
        format_frames(snap, b.stack),
        format_forward_frames(fwd)
    )
}

/// memory_viz's rounding-waste hover: `Free space lost due to rounding <size>
/// (stream N)` then the block's metadata and frames.
pub fn waste_text(snap: &Snapshot, state: &State, seg: &StateSegment, b: &StateBlock) -> String {
    let (um, fwd) = block_extras(snap, state.device, b);
    let um = format_user_metadata(um);
    format!(
        "Free space lost due to rounding {} (stream {})\n{}{}{}",
        format_size(b.size.saturating_sub(b.requested_size), true),
        seg.stream,
        if um.is_empty() { String::new() } else { um + "\n" },
        format_frames(snap, b.stack),
        format_forward_frames(fwd)
    )
}

/// The hover text of whatever `hit` names ("" when out of range).
pub fn hit_text(snap: &Snapshot, state: &State, hit: MapHit) -> String {
    let seg_of = |s: u32| state.segments.get(s as usize);
    match hit {
        MapHit::Segment(s) => seg_of(s).map(|seg| segment_text(snap, seg)).unwrap_or_default(),
        MapHit::Block(s, b) | MapHit::Waste(s, b) => {
            let Some(seg) = seg_of(s) else { return String::new() };
            let Some(bl) = seg.blocks.get(b as usize) else { return String::new() };
            if matches!(hit, MapHit::Block(..)) {
                block_text(snap, state, seg, bl)
            } else {
                waste_text(snap, state, seg, bl)
            }
        }
    }
}

/// "X allocated / Y reserved" above the map (memory_viz's words and sizes).
pub fn totals_text(t: &Totals) -> String {
    format!("{} allocated / {} reserved", format_size(t.allocated_bytes, true), format_size(t.reserved_bytes, true))
}

/// The fragmentation line of a state: the largest free piece and how the free
/// bytes (inside segments, not covered by any block) are split.
pub fn fragmentation_text(state: &State) -> String {
    format!(
        "Largest free block {}; {} free in {} piece{}",
        format_size(state.largest_free_bytes, true),
        format_size(state.free_bytes, true),
        state.free_pieces,
        if state.free_pieces == 1 { "" } else { "s" }
    )
}

/// How the event list shows one raw trace event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventLineKind {
    /// A line of its own.
    Plain,
    /// A free_requested that memory_viz merges with the free_completed after
    /// it and shows as `free`.
    MergedFree,
    /// That free_completed: shown as a continuation of the line above.
    Continuation,
}

/// Kind of event `i` of `device` in the list (see [`EventLineKind`]).
pub fn event_line_kind(snap: &Snapshot, device: u32, i: usize) -> EventLineKind {
    let t = snap.trace(device);
    if i >= t.len() {
        EventLineKind::Plain
    } else if t.completes_requested_free(i + 1) {
        EventLineKind::MergedFree
    } else if t.completes_requested_free(i) {
        EventLineKind::Continuation
    } else {
        EventLineKind::Plain
    }
}

/// Note on selection: memory_viz's merged `free` line shows the state after
/// both halves; selecting the raw free_requested here shows the block still
/// pending (red) and the continuation row the state after the free. A page
/// that wants memory_viz's exact picture selects `i + 1` for a
/// [`EventLineKind::MergedFree`] row.
///
/// The event list's text for raw event `i`: memory_viz's `formatEvent`, with
/// a merged free_requested shown as `free` and its free_completed as a
/// continuation `  └ free_completed ...` (raw indices stay those of the
/// trace, so seeks and the CLI agree).
pub fn event_line(snap: &Snapshot, versions: &Versions, device: u32, i: usize) -> String {
    match event_line_kind(snap, device, i) {
        EventLineKind::Plain => format_event(snap, versions, device, i),
        EventLineKind::MergedFree => format_event_as(snap, versions, device, i, "free"),
        EventLineKind::Continuation => format!("  └ {}", format_event(snap, versions, device, i)),
    }
}

/// memory_viz's `eventStack`: the text under the list for event `i`, with
/// `(X allocated / Y reserved)` first when the event is the selected one
/// (`totals` of the state after it).
pub fn event_text(snap: &Snapshot, versions: &Versions, device: u32, i: usize, totals: Option<&Totals>) -> String {
    let t = snap.trace(device);
    if i >= t.len() {
        return String::new();
    }
    let mut s = String::new();
    if let Some(tt) = totals {
        s.push_str(&format!("({})\n", totals_text(tt)));
    }
    s.push_str(&event_line(snap, versions, device, i));
    s.push('\n');
    let extra = snap.extra(device, i);
    let um = format_user_metadata(extra.and_then(|x| x.user_metadata.as_ref()));
    let im = format_metadata("Internal Metadata:", extra.and_then(|x| x.internal_metadata.as_ref()));
    for note in [um, im] {
        if !note.is_empty() {
            s.push_str(&note);
            s.push('\n');
        }
    }
    s.push_str(&format_frames(snap, t.stack[i]));
    if let Some(x) = extra {
        s.push_str(&format_forward_frames(&x.forward_frames));
    }
    s
}

/// Everything the Allocator State History view keeps for one device: the
/// precomputed history, a cursor on the selected event, that state and its
/// laid-out map. One call per selection change ([`StateView::select`]); the
/// rest are reads.
pub struct StateView {
    pub history: StateHistory,
    cursor: Cursor,
    pub state: State,
    pub map: SegmentMap,
}

impl StateView {
    /// The view of `device`, on the last event as memory_viz starts (the
    /// final state when the trace is empty).
    pub fn new(snap: &Snapshot, versions: &Versions, device: u32) -> StateView {
        StateView::of(snap, StateHistory::with_versions(snap, device, Some(versions)))
    }

    /// The view of a history built already (`StateHistoryBuilder`).
    pub fn of(snap: &Snapshot, history: StateHistory) -> StateView {
        let cursor = history.cursor();
        let state = cursor.state(&history, snap);
        let map = SegmentMap::layout(&state);
        StateView { history, cursor, state, map }
    }

    /// Number of trace events (rows of the event list).
    pub fn len(&self) -> usize {
        self.history.len()
    }
    pub fn is_empty(&self) -> bool {
        self.history.is_empty()
    }

    /// The selected event (`None`: before the first one / empty trace).
    pub fn selected(&self) -> Option<usize> {
        self.cursor.event()
    }

    /// Selects the state right after event `i` (clamped to the last event).
    /// Cheap for neighbours (ArrowUp / ArrowDown): one undo or redo, then
    /// the state and its layout are rebuilt.
    pub fn select(&mut self, snap: &Snapshot, i: usize) {
        let i = i.min(self.history.len().saturating_sub(1));
        if self.cursor.event() == Some(i) && !self.history.is_empty() {
            return;
        }
        self.cursor.seek(&self.history, snap, i);
        self.state = self.cursor.state(&self.history, snap);
        self.map = SegmentMap::layout(&self.state);
    }

    /// Moves the selection by `delta` events (ArrowDown: +1, ArrowUp: -1),
    /// clamped to the trace.
    pub fn step(&mut self, snap: &Snapshot, delta: i64) {
        let cur = self.selected().unwrap_or(0) as i64;
        let last = self.history.len().saturating_sub(1) as i64;
        self.select(snap, (cur + delta).clamp(0, last.max(0)) as usize);
    }

    /// What lies under (`row`, `x` bytes, `y_in_row`) of the map.
    pub fn hit(&self, row: u32, x: f64, y_in_row: f64) -> Option<MapHit> {
        self.map.hit(&self.state, row, x, y_in_row)
    }

    /// Hover text of a hit (segment, block, rounding waste).
    pub fn hit_text(&self, snap: &Snapshot, hit: MapHit) -> String {
        hit_text(snap, &self.state, hit)
    }

    /// "X allocated / Y reserved" of the selected state.
    pub fn totals_text(&self) -> String {
        totals_text(&self.state.totals)
    }

    /// The fragmentation line of the selected state.
    pub fn fragmentation_text(&self) -> String {
        fragmentation_text(&self.state)
    }

    /// What the map of the selected state cannot show as the file says, ""
    /// when nothing: blocks outside every segment (not drawn), blocks past
    /// their segment's end (cut there), and how often the trace disagrees
    /// with the dump (the whole trace, by kind).
    pub fn issues_text(&self) -> String {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        let mut parts = Vec::new();
        let o = self.state.orphan_blocks.len();
        if o > 0 {
            parts.push(format!("{o} block{} outside every segment (not drawn)", s(o)));
        }
        let c = self.map.clipped_blocks;
        if c > 0 {
            parts.push(format!(
                "{c} block{} running past {} segment's end (cut there)",
                s(c),
                if c == 1 { "its" } else { "their" }
            ));
        }
        let issues = self.history.inconsistencies();
        if issues.total() > 0 {
            let kinds: Vec<String> = issues.iter().map(|(k, n, _)| format!("{} {n}", k.name())).collect();
            parts.push(format!("the trace disagrees with the dump {} times: {}", issues.total(), kinds.join(", ")));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("Inconsistent input: {}", parts.join("; "))
        }
    }

    /// The text under the list: the selected event with the totals, or
    /// another (hovered) event without them.
    pub fn event_text(&self, snap: &Snapshot, versions: &Versions, i: usize) -> String {
        let totals = (self.selected() == Some(i)).then_some(&self.state.totals);
        event_text(snap, versions, self.history.device(), i, totals)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Action, BlockState, EventTable};
    use crate::state::StateHistory;
    use crate::versions::test_util::*;

    #[test]
    fn js_hash_colors() {
        // hashCode("0") = 48 -> 8; "10" = 49*31+48 = 1567 -> 7.
        assert_eq!(block_color(0), 8);
        assert_eq!(block_color(10), 7);
        // A realistic address overflows i32 and stays in 0..10.
        assert!(block_color(0x7f064c000000) < 10);
        // Against the string version for many addresses.
        for a in (0..2000u128).map(|i| i * 0x1000_0003 + 0x7f00_0000_0000) {
            let mut h: i32 = 0;
            for c in a.to_string().bytes() {
                h = h.wrapping_mul(31).wrapping_add(c as i32);
            }
            assert_eq!(block_color(a), ((h as i64).abs() % 10) as u8);
        }
    }

    #[test]
    fn packing_and_hits() {
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        push(&mut t, Action::Alloc, 0x1000, 100);
        snap.traces.push(t);
        // Segments of 400, 1000, 400, 200 bytes.
        snap.blocks.push(block(0x1000, 128, 100, BlockState::ActiveAllocated));
        snap.blocks.push(block(0x1080, 256, 256, BlockState::ActivePendingFree));
        snap.segments.push(segment(0, 0x1000, 400, 0..2));
        snap.segments.push(segment(0, 0x10000, 1000, 2..2));
        snap.segments.push(segment(0, 0x20000, 400, 2..2));
        let mut s4 = segment(0, 0x30000, 200, 2..2);
        s4.pool_id = Some((1, 7));
        snap.segments.push(s4);
        let h = StateHistory::new(&snap, 0);
        let c = h.cursor();
        let st = c.state(&h, &snap);
        let m = SegmentMap::layout(&st);
        assert_eq!(m.row_width, 1000);
        assert_eq!(m.padding, 5.0);
        // Order: 200 (0x30000), 400 (0x1000), 400 (0x20000), 1000.
        let addr = |i: u32| st.segments[i as usize].address;
        let order: Vec<u128> = m.order.iter().map(|&i| addr(i)).collect();
        assert_eq!(order, vec![0x30000, 0x1000, 0x20000, 0x10000]);
        // Row 0: 200 at 0, 400 at 205; the next 400 would end at 1010 > 1000: row 1.
        let place = |a: u128| m.places[st.segments.iter().position(|s| s.address == a).unwrap()];
        assert_eq!(place(0x30000), SegmentPlace { row: 0, x: 0.0 });
        assert_eq!(place(0x1000), SegmentPlace { row: 0, x: 205.0 });
        assert_eq!(place(0x20000), SegmentPlace { row: 1, x: 0.0 });
        // 405 + 1000 > 1000: the largest gets a row of its own.
        assert_eq!(place(0x10000), SegmentPlace { row: 2, x: 0.0 });
        assert_eq!(m.rows, 3);
        assert_eq!(m.reserved_bytes, 2000);
        assert_eq!(m.allocated_bytes, 356);
        let s0 = st.segments.iter().position(|s| s.address == 0x1000).unwrap() as u32;
        let blocks: Vec<_> = m.rects.iter().filter(|r| r.kind != RectKind::Segment).copied().collect();
        assert_eq!(blocks.len(), 3);
        assert_eq!((blocks[0].kind, blocks[0].x, blocks[0].width), (RectKind::Block, 205.0, 100.0));
        assert_eq!((blocks[1].kind, blocks[1].x, blocks[1].width), (RectKind::Waste, 305.0, 28.0));
        assert_eq!((blocks[2].kind, blocks[2].x, blocks[2].width), (RectKind::PendingFree, 333.0, 256.0));
        assert_eq!(m.hit(&st, 0, 205.0, 0.1), Some(MapHit::Block(s0, 0)));
        assert_eq!(m.hit(&st, 0, 310.0, 0.1), Some(MapHit::Waste(s0, 0)));
        assert_eq!(m.hit(&st, 0, 400.0, 0.1), Some(MapHit::Block(s0, 1)));
        assert_eq!(m.hit(&st, 0, 600.0, 0.1), Some(MapHit::Segment(s0)));
        assert_eq!(m.hit(&st, 0, 606.0, 0.1), None); // padding
        assert_eq!(m.hit(&st, 0, 400.0, 0.9), None); // below the rectangles
        assert_eq!(m.hit(&st, 1, 399.0, 0.5).map(|h| matches!(h, MapHit::Segment(_))), Some(true));
        assert_eq!(m.hit(&st, 1, 401.0, 0.5), None);
        assert_eq!(m.hit(&st, 2, 999.0, 0.5).map(|h| matches!(h, MapHit::Segment(_))), Some(true));
        assert_eq!(m.hit(&st, 3, 1.0, 0.5), None);
        let seg = &st.segments[s0 as usize];
        assert_eq!(
            segment_text(&snap, seg).lines().next().unwrap(),
            "s1000_0: segment 400.0B (400 bytes) allocated, 44.0B (44 bytes) free (63.63636363636363% internal) (stream 0)"
        );
        let p = st.segments.iter().find(|s| s.address == 0x30000).unwrap();
        assert!(segment_text(&snap, p).starts_with(
            "s30000_0: segment 200.0B (200 bytes) allocated, 200.0B (200 bytes) free (stream 0, pool_id (1, 7))\n"
        ));
        assert!(hit_text(&snap, &st, MapHit::Block(s0, 1)).starts_with(
            "b1080_0 256.0B (256 bytes) allocation (block freed but waiting due to record_stream) (stream 0)\n"
        ));
        assert!(hit_text(&snap, &st, MapHit::Waste(s0, 0))
            .starts_with("Free space lost due to rounding 28.0B (28 bytes) (stream 0)\n"));
        assert_eq!(totals_text(&st.totals), "356.0B (356 bytes) allocated / 2.0KiB (2000 bytes) reserved");
        // Before the alloc: the block at 0x1000 is gone.
        let mut c0 = h.cursor();
        c0.seek_position(&h, &snap, 0);
        let st0 = c0.state(&h, &snap);
        assert_eq!(SegmentMap::layout(&st0).allocated_bytes, 256);
        // Empty state.
        let e = SegmentMap::layout(&State { segments: vec![], ..st0.clone() });
        assert_eq!((e.rows, e.row_width, e.rects.len()), (1, 0, 0));
        assert_eq!(e.hit(&st0, 0, 0.0, 0.0), None);
    }

    #[test]
    fn merged_free_lines() {
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        push(&mut t, Action::Alloc, 0x1000, 512);
        push(&mut t, Action::FreeRequested, 0x1000, 512);
        push(&mut t, Action::FreeCompleted, 0x1000, 512);
        push(&mut t, Action::FreeCompleted, 0x2000, 512);
        snap.traces.push(t);
        let v = crate::versions::compute(&snap);
        let kinds: Vec<_> = (0..4).map(|i| event_line_kind(&snap, 0, i)).collect();
        assert_eq!(
            kinds,
            vec![EventLineKind::Plain, EventLineKind::MergedFree, EventLineKind::Continuation, EventLineKind::Plain]
        );
        assert!(event_line(&snap, &v, 0, 1).starts_with("free           b1000_0"));
        assert!(event_line(&snap, &v, 0, 2).starts_with("  └ free_completed b1000_0"));
        let tt = Totals { reserved_bytes: 1 << 20, allocated_bytes: 512, ..Default::default() };
        assert!(event_text(&snap, &v, 0, 0, Some(&tt))
            .starts_with("(512.0B (512 bytes) allocated / 1.0MiB (1048576 bytes) reserved)\nalloc          b1000_0"));
        assert_eq!(event_text(&snap, &v, 0, 9, None), "");
    }

    #[test]
    fn state_view_steps() {
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        push(&mut t, Action::Alloc, 0x1000, 100);
        push(&mut t, Action::Alloc, 0x1200, 200);
        snap.traces.push(t);
        snap.blocks.push(block(0x1000, 512, 100, BlockState::ActiveAllocated));
        snap.blocks.push(block(0x1200, 512, 200, BlockState::ActiveAllocated));
        snap.segments.push(segment(0, 0x1000, 4096, 0..2));
        let v = crate::versions::compute(&snap);
        let mut sv = StateView::new(&snap, &v, 0);
        assert_eq!((sv.len(), sv.selected()), (2, Some(1)));
        assert_eq!(sv.map.allocated_bytes, 300);
        sv.step(&snap, -1);
        assert_eq!((sv.selected(), sv.map.allocated_bytes), (Some(0), 100));
        sv.step(&snap, -5);
        assert_eq!(sv.selected(), Some(0));
        sv.step(&snap, 9);
        assert_eq!((sv.selected(), sv.map.allocated_bytes), (Some(1), 300));
        assert!(sv
            .event_text(&snap, &v, 1)
            .starts_with("(300.0B (300 bytes) allocated / 4.0KiB (4096 bytes) reserved)\nalloc"));
        assert!(sv.event_text(&snap, &v, 0).starts_with("alloc"));
        assert_eq!(sv.hit(0, 10.0, 0.5), Some(MapHit::Block(0, 0)));
        assert!(sv.hit_text(&snap, MapHit::Block(0, 0)).starts_with("b1000_0 100.0B"));
        assert_eq!(
            sv.fragmentation_text(),
            "Largest free block 3.0KiB (3072 bytes); 3.0KiB (3072 bytes) free in 1 piece"
        );
        assert_eq!(sv.issues_text(), "");
        // An empty trace: the final state, nothing selected.
        let mut empty = Snapshot::default();
        empty.segments.push(segment(0, 0x1000, 4096, 0..0));
        let ev = crate::versions::compute(&empty);
        let mut sv = StateView::new(&empty, &ev, 0);
        sv.step(&empty, 1);
        assert_eq!((sv.selected(), sv.map.reserved_bytes), (None, 4096));
    }
}
