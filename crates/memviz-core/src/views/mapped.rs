//! Expandable segments as PyTorch records them: mapped pieces.
//!
//! With `expandable_segments:True` the allocator reserves one virtual range
//! per pool and stream and backs it page by page: the trace holds no
//! `segment_alloc`, only `segment_map` (pages mapped) and `segment_unmap`
//! (free pages released by `empty_cache`). An unmap need not equal any
//! earlier map: it can cover parts of several maps, or the middle of one. A
//! dump segment is a *mapped run*, so a hole splits one range into two dump
//! segments.
//!
//! Matching unmaps to maps by address (what memory_viz does for
//! segment_alloc / segment_free) therefore cannot work. Instead the mapped
//! memory of a device is replayed as a set of address ranges:
//!
//! 1. the ranges mapped at the end are the dump's expandable segments (those
//!    flagged `is_expandable`, or touched by a map or unmap);
//! 2. walking the trace backwards (undo a map: remove its range; undo an
//!    unmap: add it back) gives the ranges mapped before the first event;
//! 3. walking forwards again, each map adds what it maps as a piece, and each
//!    unmap cuts the pieces it covers: the covered part is freed then, the
//!    parts left and right of it stay mapped.
//!
//! A piece therefore has one map (or was mapped before the trace) and at most
//! one unmap, which is what a timeline band needs. Reserved memory after each
//! event is exact: the dump's reserved bytes minus what the trace mapped plus
//! what it unmapped, at the start, and the dump's reserved bytes at the end.

use std::collections::BTreeMap;

use crate::model::{Action, Snapshot};

/// Mapped before the first trace event.
pub const BEFORE_TRACE: u32 = u32::MAX;

/// A range of mapped memory with one map and at most one unmap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub addr: u128,
    pub size: u64,
    /// Trace index of the `segment_map` that mapped it, or [`BEFORE_TRACE`].
    pub map_event: u32,
    /// Trace index of the `segment_unmap` that unmapped it, if any.
    pub unmap_event: Option<u32>,
    /// The dump segment (index in `Snapshot::segments`) holding it at the
    /// end, for pieces mapped before the trace and never unmapped.
    pub dump_segment: Option<u32>,
}

/// The pieces of one device's expandable segments, in the orders a replay
/// consumes them.
#[derive(Debug, Clone, Default)]
pub struct MappedPieces {
    pub pieces: Vec<Piece>,
    /// Pieces mapped by trace events, by (map event, address).
    pub by_map: Vec<u32>,
    /// Pieces unmapped by trace events, by (unmap event, address).
    pub by_unmap: Vec<u32>,
    /// Pieces mapped before the trace, by address.
    pub before_trace: Vec<u32>,
    /// Dump segments (indices in `Snapshot::segments`) that are expandable:
    /// the pieces stand for them, so a replay must not count them again.
    pub dump_segments: Vec<u32>,
}

/// Disjoint half-open address ranges: start -> end.
type Ranges = BTreeMap<u128, u128>;

/// Removes `[a, b)` from `set`, keeping what lies outside it.
fn remove(set: &mut Ranges, a: u128, b: u128) {
    let hit: Vec<(u128, u128)> = overlapping(set, a, b).collect();
    for (s, e) in hit {
        set.remove(&s);
        if s < a {
            set.insert(s, a);
        }
        if e > b {
            set.insert(b, e);
        }
    }
}

/// The ranges of `set` that overlap `[a, b)`, by address.
fn overlapping(set: &Ranges, a: u128, b: u128) -> impl Iterator<Item = (u128, u128)> + '_ {
    // The range starting before `a` may reach into it; the rest start inside.
    let first = set.range(..a).next_back().filter(|&(_, &e)| e > a).map(|(&s, &e)| (s, e));
    first.into_iter().chain(set.range(a..b).map(|(&s, &e)| (s, e)))
}

/// `[addr, addr + size)`, saturating at the top of the address space.
fn span(addr: u128, size: u64) -> (u128, u128) {
    (addr, addr.saturating_add(size as u128))
}

/// Whether `action` maps or unmaps pages of an expandable segment.
pub fn is_map_or_unmap(action: Action) -> bool {
    matches!(action, Action::SegmentMap | Action::SegmentUnmap)
}

impl MappedPieces {
    /// Replays `device`'s `segment_map` / `segment_unmap` events (see the
    /// module doc). Empty when the device has no expandable segment.
    pub fn build(snap: &Snapshot, device: u32) -> MappedPieces {
        let trace = snap.trace(device);
        let events: Vec<usize> = (0..trace.len()).filter(|&i| is_map_or_unmap(trace.action[i])).collect();
        let span_of = |i: usize| span(trace.addr(i), trace.size[i]);
        let (dump_segments, end) = expandable_at_end(snap, device, events.iter().map(|&i| span_of(i)));
        if events.is_empty() && dump_segments.is_empty() {
            return MappedPieces { dump_segments, ..MappedPieces::default() };
        }
        let mapped = mapped_before_trace(end, events.iter().rev().map(|&i| (span_of(i), trace.action[i])));
        let mut replay =
            Replay { out: MappedPieces { dump_segments, ..MappedPieces::default() }, live: BTreeMap::new() };
        replay.before_trace(snap, &mapped);
        for &i in &events {
            let (a, b) = span_of(i);
            if a < b {
                replay.event(i as u32, trace.action[i] == Action::SegmentMap, a, b);
            }
        }
        replay.out.finish();
        replay.out
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty() && self.dump_segments.is_empty()
    }

    /// Phase 4: the orders a replay consumes the pieces in (a piece mapped
    /// before the trace and cut by an unmap loses its dump segment: only
    /// what is still mapped at the end lies in one).
    fn finish(&mut self) {
        for p in &mut self.pieces {
            if p.unmap_event.is_some() {
                p.dump_segment = None;
            }
        }
        let mut by_map: Vec<u32> = Vec::new();
        let mut by_unmap: Vec<u32> = Vec::new();
        for (id, p) in self.pieces.iter().enumerate() {
            if p.map_event == BEFORE_TRACE {
                self.before_trace.push(id as u32);
            } else {
                by_map.push(id as u32);
            }
            if p.unmap_event.is_some() {
                by_unmap.push(id as u32);
            }
        }
        let pieces = &self.pieces;
        by_map.sort_by_key(|&p| (pieces[p as usize].map_event, pieces[p as usize].addr));
        by_unmap.sort_by_key(|&p| (pieces[p as usize].unmap_event, pieces[p as usize].addr));
        self.before_trace.sort_by_key(|&p| pieces[p as usize].addr);
        self.by_map = by_map;
        self.by_unmap = by_unmap;
    }
}

/// Phase 1 (step 1 of the module doc): the device's expandable dump
/// segments, and the ranges they map at the end. `spans` are the ranges the
/// trace's maps and unmaps touch: a dump segment overlapping one is
/// expandable even when the file lacks `is_expandable`.
fn expandable_at_end(snap: &Snapshot, device: u32, spans: impl Iterator<Item = (u128, u128)>) -> (Vec<u32>, Ranges) {
    let mut touched = Ranges::new();
    for (a, b) in spans {
        if a < b {
            let lo = overlapping(&touched, a, b).fold(a, |lo, (s, _)| lo.min(s));
            let hi = overlapping(&touched, a, b).fold(b, |hi, (_, e)| hi.max(e));
            remove(&mut touched, lo, hi);
            touched.insert(lo, hi);
        }
    }
    let mut dump_segments = Vec::new();
    let mut end = Ranges::new();
    for (si, seg) in snap.segments.iter().enumerate() {
        if seg.device != device {
            continue;
        }
        let (a, b) = span(seg.address, seg.total_size);
        if seg.is_expandable || overlapping(&touched, a, b).next().is_some() {
            dump_segments.push(si as u32);
            if a < b {
                remove(&mut end, a, b);
                end.insert(a, b);
            }
        }
    }
    (dump_segments, end)
}

/// Phase 2 (step 2 of the module doc): undoes the maps and unmaps, last
/// first (`undo`: span and action), from the ranges mapped at the end.
fn mapped_before_trace(end: Ranges, undo: impl Iterator<Item = ((u128, u128), Action)>) -> Ranges {
    let mut mapped = end;
    for ((a, b), action) in undo {
        if a >= b {
            continue;
        }
        remove(&mut mapped, a, b);
        if action == Action::SegmentUnmap {
            mapped.insert(a, b);
        }
    }
    mapped
}

/// Phase 3 (step 3 of the module doc): the forward replay, the pieces made
/// so far and those mapped now.
struct Replay {
    out: MappedPieces,
    /// Live pieces by start address -> (end, piece).
    live: BTreeMap<u128, (u128, u32)>,
}

impl Replay {
    fn push(&mut self, p: Piece) {
        let id = self.out.pieces.len() as u32;
        self.live.insert(p.addr, (p.addr + p.size as u128, id));
        self.out.pieces.push(p);
    }

    /// The pieces mapped before the trace: one per mapped run and dump
    /// segment it lies in, so a hover can name the segment.
    fn before_trace(&mut self, snap: &Snapshot, mapped: &Ranges) {
        // The expandable dump segments by address, to name the one a piece
        // mapped before the trace lies in.
        let mut dump: Vec<(u128, u128, u32)> = self
            .out
            .dump_segments
            .iter()
            .map(|&si| {
                let s = &snap.segments[si as usize];
                let (a, b) = span(s.address, s.total_size);
                (a, b, si)
            })
            .collect();
        dump.sort_unstable();
        // Adjacent ranges are one mapping: split only where a dump segment
        // starts or ends.
        let mut runs: Vec<(u128, u128)> = Vec::new();
        for (&a, &b) in mapped {
            match runs.last_mut() {
                Some(last) if last.1 == a => last.1 = b,
                _ => runs.push((a, b)),
            }
        }
        for (a, b) in runs {
            // One piece per dump segment it lies in, so its hover can name it.
            let mut at = a;
            while at < b {
                let k = dump.partition_point(|d| d.0 <= at);
                let inside = k.checked_sub(1).map(|k| dump[k]).filter(|d| at < d.1);
                let (stop, seg) = match inside {
                    Some((_, e, si)) => (e.min(b), Some(si)),
                    // Up to the next dump segment, or the range's end.
                    None => (dump.get(k).map_or(b, |d| d.0).min(b), None),
                };
                let size = u64::try_from(stop - at).unwrap_or(u64::MAX);
                self.push(Piece { addr: at, size, map_event: BEFORE_TRACE, unmap_event: None, dump_segment: seg });
                at = at.saturating_add(size as u128).max(stop);
            }
        }
    }

    /// Trace event `i` maps (`is_map`) or unmaps `[a, b)` (non-empty).
    fn event(&mut self, i: u32, is_map: bool, a: u128, b: u128) {
        let live = &self.live;
        let hit: Vec<(u128, u128, u32)> = {
            let first = live.range(..a).next_back().filter(|&(_, &(e, _))| e > a).map(|(&s, &(e, p))| (s, e, p));
            first.into_iter().chain(live.range(a..b).map(|(&s, &(e, p))| (s, e, p))).collect()
        };
        if is_map {
            // Only what is not mapped yet (a consistent trace never maps
            // twice; counting it twice would overstate reserved memory).
            let mut at = a;
            for &(s, e, _) in hit.iter().chain(std::iter::once(&(b, b, 0))) {
                if s > at {
                    let size = (s.min(b) - at) as u64;
                    self.push(Piece { addr: at, size, map_event: i, unmap_event: None, dump_segment: None });
                }
                at = at.max(e);
            }
        } else {
            for (s, e, p) in hit {
                self.live.remove(&s);
                let whole = self.out.pieces[p as usize];
                if s < a {
                    self.push(Piece { size: (a - s) as u64, ..whole });
                }
                if e > b {
                    self.push(Piece { addr: b, size: (e - b) as u64, ..whole });
                }
                let (cs, ce) = (s.max(a), e.min(b));
                self.out.pieces[p as usize] =
                    Piece { addr: cs, size: (ce - cs) as u64, unmap_event: Some(i), dump_segment: None, ..whole };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_keeps_the_outside() {
        let mut s = Ranges::new();
        s.insert(0, 10);
        s.insert(20, 30);
        remove(&mut s, 5, 25);
        assert_eq!(s.into_iter().collect::<Vec<_>>(), vec![(0, 5), (25, 30)]);
        let mut s = Ranges::new();
        s.insert(0, 100);
        remove(&mut s, 40, 60);
        assert_eq!(s.into_iter().collect::<Vec<_>>(), vec![(0, 40), (60, 100)]);
    }
}
