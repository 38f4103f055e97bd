//! `memviz summary`: per-device numbers, as JSON (`serde`) or text.

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::format::format_size;
use crate::mapped::MappedPieces;
use crate::model::{BlockState, EventTable, Role, Snapshot};
use crate::timeline::{Timeline, TimelineKind};
use crate::versions::AddrHasher;

/// One of the two timelines, reduced to its totals.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TimelineSummary {
    pub start_bytes: u64,
    pub peak_bytes: u64,
    pub end_bytes: u64,
    pub elements: u64,
    pub actions: u64,
    pub initially_allocated: u64,
}

impl TimelineSummary {
    pub fn of(tl: &Timeline) -> TimelineSummary {
        TimelineSummary {
            start_bytes: tl.start_bytes,
            peak_bytes: tl.peak_bytes(),
            end_bytes: tl.end_bytes,
            elements: tl.elements.len() as u64,
            actions: tl.actions.len() as u64,
            initially_allocated: tl.initially_allocated.len() as u64,
        }
    }

    /// Both timelines of `device` (`[ActiveMemory, CachedSegments]`) reduced
    /// to their totals in one pass over the trace, without building elements
    /// (no versions, pools, orders or per-step totals): the same figures as
    /// [`TimelineSummary::of`] on [`Timeline::build`], several times
    /// faster. It mirrors build's replay step by step; see there for
    /// why each rule is what it is.
    pub fn replay(snap: &Snapshot, device: u32) -> [TimelineSummary; 2] {
        // Addresses below 2^64 (all real ones) take the narrower map.
        let exact = if snap.trace(device).addr_hi.is_empty() {
            replay_as::<u64>(snap, device)
        } else {
            replay_as::<u128>(snap, device)
        };
        if let [Some(a), Some(s)] = exact {
            // Expandable segments are replayed as pieces (crate::mapped),
            // which only the full timeline does; they are few, so it is cheap.
            if MappedPieces::build(snap, device).is_empty() {
                return [a, s];
            }
            return [a, TimelineSummary::of(&Timeline::build(snap, device, TimelineKind::CachedSegments))];
        }
        // A total over 2^64 (sizes no real file has): the full replay gives
        // the wrapped figures.
        [TimelineKind::ActiveMemory, TimelineKind::CachedSegments]
            .map(|k| TimelineSummary::of(&Timeline::build(snap, device, k)))
    }
}

/// An address as a map key: `u64` when the whole trace fits.
trait AddrKey: std::hash::Hash + Eq + Copy {
    fn of(addr: u128) -> Option<Self>;
    /// Address of event `i`.
    fn at(trace: &EventTable, i: usize) -> Self;
}
impl AddrKey for u64 {
    /// Only used when the trace has no address above 2^64.
    #[inline]
    fn at(trace: &EventTable, i: usize) -> u64 {
        trace.addr_lo[i]
    }
    #[inline]
    fn of(addr: u128) -> Option<u64> {
        u64::try_from(addr).ok()
    }
}
impl AddrKey for u128 {
    #[inline]
    fn at(trace: &EventTable, i: usize) -> u128 {
        trace.addr(i)
    }
    #[inline]
    fn of(addr: u128) -> Option<u128> {
        Some(addr)
    }
}

/// [`TimelineSummary::replay`] with `K` keys; `None` where a total exceeds u64.
fn replay_as<K: AddrKey>(snap: &Snapshot, device: u32) -> [Option<TimelineSummary>; 2] {
    let trace = snap.trace(device);
    let mut lean = [Lean::<K>::default(), Lean::<K>::default()];
    let [blocks, segs] = &mut lean;
    for (i, a) in trace.action.iter().enumerate() {
        // segment_map / segment_unmap: see `replay`.
        let (l, role) = match (a.block_role(), a.segment_role()) {
            (Some(r), _) => (&mut *blocks, r),
            (_, Some(r)) => (&mut *segs, r),
            _ => continue,
        };
        let alloc = role == Role::Alloc;
        let key = K::at(trace, i);
        if alloc {
            l.alloc(key, trace.size[i]);
        } else if !l.free(key) {
            // Unmatched: memory_viz shows the merged free_requested.
            l.unmatched_free(trace.size[trace.shown_event(i)]);
        }
    }
    let live = |l: &Lean<K>, addr: u128| K::of(addr).is_some_and(|k| l.live.contains_key(&k));
    for seg in snap.device_segments(device) {
        if !live(segs, seg.address) {
            segs.ghost(seg.total_size);
        }
        // Clamped as build does (a malformed model may point past).
        let end = (seg.blocks.end as usize).min(snap.blocks.len());
        for b in &snap.blocks[(seg.blocks.start as usize).min(end)..end] {
            if b.state == BlockState::ActiveAllocated && !live(blocks, b.address) {
                blocks.ghost(b.requested_size);
            }
        }
    }
    lean.map(|l| l.finish())
}

/// One timeline's replay reduced to counts and exact (i128) byte figures
/// relative to the start, which is only known once the ghosts are counted.
struct Lean<K> {
    /// Live trace allocations: address -> size.
    live: HashMap<K, u64, BuildHasherDefault<AddrHasher>>,
    allocs: u64,
    matched_frees: u64,
    unmatched: u64,
    ghosts: u64,
    /// Size of the first ghost: the one popped into the actions when there
    /// are no actions at all.
    first_ghost: Option<u64>,
    /// Bytes alive from the start (unmatched frees and ghosts).
    initial: i128,
    /// Running total minus the start, and the max of the steps' totals
    /// minus the start. The running total is the sum of the live sizes, so
    /// it never drops below 0 and never exceeds max(start, peak).
    rel: i128,
    /// `i128::MIN` before the first step.
    max_rel: i128,
}

impl<K> Default for Lean<K> {
    fn default() -> Self {
        Lean {
            live: HashMap::default(),
            allocs: 0,
            matched_frees: 0,
            unmatched: 0,
            ghosts: 0,
            first_ghost: None,
            initial: 0,
            rel: 0,
            max_rel: i128::MIN,
        }
    }
}

impl<K: AddrKey> Lean<K> {
    #[inline]
    fn step_total(&mut self) {
        self.max_rel = self.max_rel.max(self.rel);
    }

    #[inline]
    fn alloc(&mut self, addr: K, size: u64) {
        self.allocs += 1;
        // A second alloc at a live address replaces the mapping; the first
        // stays alive to the end.
        self.live.insert(addr, size);
        self.rel += size as i128;
        self.step_total();
    }
    #[inline]
    fn free(&mut self, addr: K) -> bool {
        let Some(size) = self.live.remove(&addr) else { return false };
        self.matched_frees += 1;
        self.step_total();
        self.rel -= size as i128;
        true
    }
    fn unmatched_free(&mut self, size: u64) {
        self.unmatched += 1;
        self.initial += size as i128;
        self.step_total();
        self.rel -= size as i128;
    }
    fn ghost(&mut self, size: u64) {
        self.ghosts += 1;
        self.initial += size as i128;
        self.first_ghost.get_or_insert(size);
    }
    /// The summary, or `None` when a total exceeds u64 (build's
    /// wrapping sums would differ from exact ones).
    fn finish(self) -> Option<TimelineSummary> {
        let mut actions = self.allocs + self.matched_frees + self.unmatched;
        let mut initially = self.unmatched + self.ghosts;
        let (mut start, mut max_rel, mut rel) = (self.initial, self.max_rel, self.rel);
        if actions == 0 {
            if let Some(g) = self.first_ghost {
                // The flat plot: the popped ghost is "allocated" at step 0.
                actions = 1;
                initially -= 1;
                start -= g as i128;
                rel = g as i128;
                max_rel = rel;
            }
        }
        // No step: max_rel + start stays far below start.
        let peak = start.max(start + max_rel);
        (peak <= u64::MAX as i128).then(|| TimelineSummary {
            start_bytes: start as u64,
            peak_bytes: peak as u64,
            end_bytes: (start + rel) as u64,
            elements: self.allocs + self.unmatched + self.ghosts,
            actions,
            initially_allocated: initially,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceSummary {
    pub trace_events: u64,
    /// Count of each action name in the trace, as named in the file.
    pub actions: BTreeMap<String, u64>,
    pub segments: u64,
    /// Sum of the device's segments' `total_size`.
    pub reserved_bytes: u64,
    /// Sum of the device's segments' `allocated_size`.
    pub allocated_bytes: u64,
    /// Blocks in state `active_allocated`.
    pub active_blocks: u64,
    /// Active Memory Timeline.
    pub active_memory: TimelineSummary,
    /// Active Cached Segment Timeline.
    pub segment_memory: TimelineSummary,
}

/// Devices in [`Snapshot::devices`] order (CUDA ascending, then the host),
/// and the host's device number if any; serialized as a map keyed by the
/// device's name (the decimal number, or `host`), in that order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Devices(pub Vec<(u32, DeviceSummary)>, pub Option<u32>);

impl Devices {
    /// `0`, `1`, ... or `host` (see [`Snapshot::device_name`]).
    pub fn name(&self, d: u32) -> String {
        crate::model::device_name(d, self.1)
    }
}

impl Serialize for Devices {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (d, v) in &self.0 {
            m.serialize_entry(&self.name(*d), v)?;
        }
        m.end()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub devices: Devices,
}

pub fn summarize(snap: &Snapshot) -> Summary {
    let mut devices = Vec::new();
    for d in snap.devices() {
        let trace = snap.trace(d);
        let mut actions: BTreeMap<String, u64> = BTreeMap::new();
        // Count by enum first; only unknown actions need their names.
        let mut by_action = [0u64; crate::model::Action::ALL.len()];
        for (i, a) in trace.action.iter().enumerate() {
            if *a == crate::model::Action::Other {
                *actions.entry(trace.action_name(i).to_string()).or_default() += 1;
            } else {
                by_action[*a as usize] += 1;
            }
        }
        for a in crate::model::Action::ALL {
            if a != crate::model::Action::Other && by_action[a as usize] > 0 {
                *actions.entry(a.name().to_string()).or_default() += by_action[a as usize];
            }
        }
        let mut s = DeviceSummary { trace_events: trace.len() as u64, actions, ..Default::default() };
        for seg in snap.device_segments(d) {
            s.segments += 1;
            s.reserved_bytes = s.reserved_bytes.wrapping_add(seg.total_size);
            s.allocated_bytes = s.allocated_bytes.wrapping_add(seg.allocated_size);
            s.active_blocks +=
                snap.segment_blocks(seg).iter().filter(|b| b.state == BlockState::ActiveAllocated).count() as u64;
        }
        [s.active_memory, s.segment_memory] = TimelineSummary::replay(snap, d);
        devices.push((d, s));
    }
    Summary { devices: Devices(devices, snap.host_device) }
}

impl Summary {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Human-readable rendering, sizes as memory_viz's axis prints them
    /// ("1.5GiB").
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.devices.0.is_empty() {
            out.push_str("no devices (no segments and no trace events)\n");
        }
        for (d, s) in &self.devices.0 {
            let sz = |b: u64| format_size(b, false);
            out.push_str(&format!("device {}\n", self.devices.name(*d)));
            out.push_str(&format!("  trace events      {}\n", s.trace_events));
            for (name, n) in &s.actions {
                out.push_str(&format!("    {name:<16} {n}\n"));
            }
            out.push_str(&format!(
                "  segments          {} ({} reserved, {} allocated)\n",
                s.segments,
                sz(s.reserved_bytes),
                sz(s.allocated_bytes)
            ));
            out.push_str(&format!("  active blocks     {}\n", s.active_blocks));
            for (label, t) in [("active memory", &s.active_memory), ("cached segments", &s.segment_memory)] {
                out.push_str(&format!(
                    "  {label:<17} start {}, peak {}, end {} ({} elements, {} actions, {} initially allocated)\n",
                    sz(t.start_bytes),
                    sz(t.peak_bytes),
                    sz(t.end_bytes),
                    t.elements,
                    t.actions,
                    t.initially_allocated
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Action, EventTable};
    use crate::versions::test_util::*;

    #[test]
    fn json_shape_and_numbers() {
        let mut snap = Snapshot::default();
        snap.traces.push(EventTable::default()); // device 0: nothing
        let mut t = EventTable::default();
        push(&mut t, Action::SegmentAlloc, 0x1000, 4096);
        push(&mut t, Action::Alloc, 0x1000, 512);
        push(&mut t, Action::Alloc, 0x1200, 1024);
        push(&mut t, Action::FreeRequested, 0x1000, 512);
        push(&mut t, Action::FreeCompleted, 0x1000, 512);
        push(&mut t, Action::Other, 0, 0);
        t.other_actions.insert(5, "mystery".into());
        snap.traces.push(t);
        snap.blocks.push(block(0x1000, 512, 512, BlockState::Inactive));
        snap.blocks.push(block(0x1200, 1024, 1024, BlockState::ActiveAllocated));
        snap.blocks.push(block(0x1600, 2560, 2560, BlockState::Inactive));
        let mut seg = segment(1, 0x1000, 4096, 0..3);
        seg.allocated_size = 1024;
        snap.segments.push(seg);
        let mut s10 = segment(10, 0x90000, 8192, 3..3);
        s10.allocated_size = 0;
        snap.segments.push(s10);
        let json = serde_json::to_string(&summarize(&snap)).unwrap();
        let expected = concat!(
            r#"{"devices":{"1":{"trace_events":6,"actions":{"alloc":2,"free_completed":1,"free_requested":1,"mystery":1,"segment_alloc":1},"#,
            r#""segments":1,"reserved_bytes":4096,"allocated_bytes":1024,"active_blocks":1,"#,
            r#""active_memory":{"start_bytes":0,"peak_bytes":1536,"end_bytes":1024,"elements":2,"actions":3,"initially_allocated":0},"#,
            r#""segment_memory":{"start_bytes":0,"peak_bytes":4096,"end_bytes":4096,"elements":1,"actions":1,"initially_allocated":0}},"#,
            r#""10":{"trace_events":0,"actions":{},"segments":1,"reserved_bytes":8192,"allocated_bytes":0,"active_blocks":0,"#,
            r#""active_memory":{"start_bytes":0,"peak_bytes":0,"end_bytes":0,"elements":0,"actions":0,"initially_allocated":0},"#,
            r#""segment_memory":{"start_bytes":0,"peak_bytes":8192,"end_bytes":8192,"elements":1,"actions":1,"initially_allocated":0}}}}"#
        );
        assert_eq!(json, expected);
        let text = summarize(&snap).to_text();
        assert!(text.contains("device 10\n"), "{text}");
        assert!(text.contains("segments          1 (4.0KiB reserved, 1.0KiB allocated)"), "{text}");
    }

    /// The one-pass replay gives what the full one does, on random traces
    /// with every case: duplicate allocs, unmatched (and merged) frees,
    /// ghosts, segment map/unmap, addresses above 2^64, wrapping sizes.
    #[test]
    fn replay_matches_full_timeline() {
        let mut x = 0x9E3779B97F4A7C15u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..400 {
            let mut snap = Snapshot::default();
            let n = (rnd() % 60) as usize;
            let wide = case % 7 == 3;
            let huge = case % 11 == 5;
            let addr = |r: u64| {
                let a = 0x1000 * (1 + (r % 12) as u128);
                if wide && r.is_multiple_of(3) {
                    a | (1u128 << 70)
                } else {
                    a
                }
            };
            let mut t = EventTable::default();
            for _ in 0..n {
                let r = rnd();
                let a = match r % 10 {
                    0..=2 => Action::Alloc,
                    3 => Action::FreeRequested,
                    4 | 5 => Action::FreeCompleted,
                    6 => Action::Free,
                    7 => Action::SegmentAlloc,
                    8 => [Action::SegmentFree, Action::SegmentMap, Action::SegmentUnmap][(r / 10 % 3) as usize],
                    _ => Action::Oom,
                };
                let size = if huge { u64::MAX / 3 + rnd() % 100 } else { rnd() % 5000 };
                push(&mut t, a, addr(rnd()), size);
            }
            snap.traces.push(t);
            let nseg = (rnd() % 4) as u32;
            for si in 0..nseg {
                let b0 = snap.blocks.len() as u32;
                for _ in 0..rnd() % 4 {
                    let st = [BlockState::ActiveAllocated, BlockState::Inactive, BlockState::ActivePendingFree]
                        [(rnd() % 3) as usize];
                    let sz = if huge { u64::MAX / 2 } else { rnd() % 3000 };
                    snap.blocks.push(block(addr(rnd()), sz, sz, st));
                }
                let dev = if si == 2 { 1 } else { 0 };
                snap.segments.push(segment(dev, addr(rnd()), rnd() % 9000, b0..snap.blocks.len() as u32));
            }
            for d in snap.devices() {
                let want = [TimelineKind::ActiveMemory, TimelineKind::CachedSegments]
                    .map(|k| TimelineSummary::of(&Timeline::build(&snap, d, k)));
                assert_eq!(TimelineSummary::replay(&snap, d), want, "case {case} device {d}");
            }
        }
    }
}
