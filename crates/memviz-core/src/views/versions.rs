//! Address versions as memory_viz's `annotate_snapshot` assigns them, so that
//! `b7f064c000000_0` names "the block at 0x7f064c000000, the 0th time that
//! address was allocated" (`s...` for segments).
//!
//! One block-version space and one segment-version space for the whole
//! snapshot (all devices), walked in memory_viz's order: every device trace in
//! order, then the segments and their blocks.
//!
//! This is the one place versions are assigned: the timelines, the
//! Allocator State History (page and CLI), the event list and search all
//! read them from [`compute`] (or [`of_device`], the same walk keeping one
//! device's events).
//!
//! The legacy `free` action (snapshots older than free_requested /
//! free_completed) is not versioned by memory_viz's `annotate_snapshot`: it
//! neither takes nor bumps the address's version, so the block allocated
//! there next keeps the same `_N` (memory_viz prints the free itself as
//! `_undefined`; memviz shows the version it frees, the current one).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::model::{Action, EventTable, Snapshot};

#[derive(Debug, Clone, Default)]
pub struct Versions {
    /// `event[d][i]`: version of event `i` of device `d`'s trace (0 for
    /// actions memory_viz gives no version: oom, snapshot, annotate...).
    pub event: Vec<Vec<u32>>,
    /// Version of each segment in `Snapshot::segments`.
    pub segment: Vec<u32>,
    /// Version of each block in `Snapshot::blocks`.
    pub block: Vec<u32>,
}

impl Versions {
    /// Version of event `i` of `device`'s trace (0 when out of range).
    pub fn of_event(&self, device: u32, i: usize) -> u32 {
        self.event.get(device as usize).and_then(|v| v.get(i)).copied().unwrap_or(0)
    }

    /// Version of segment `i` of `Snapshot::segments` (0 when out of range).
    pub fn of_segment(&self, i: usize) -> u32 {
        self.segment.get(i).copied().unwrap_or(0)
    }

    /// Version of block `i` of `Snapshot::blocks` (0 when out of range).
    pub fn of_block(&self, i: usize) -> u32 {
        self.block.get(i).copied().unwrap_or(0)
    }
}

/// A fast hasher for address keys: the std SipHash costs more than the rest
/// of a 2,000,000-event replay. A folded 64x64->128 multiply spreads the
/// aligned (low-zero) address bits into both the low bits hashbrown indexes
/// with and the high bits it tags with.
#[derive(Default, Clone, Copy)]
pub struct AddrHasher(u64);

impl AddrHasher {
    #[inline]
    fn mix(&mut self, n: u64) {
        let x = ((self.0 ^ n) as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = (x as u64) ^ ((x >> 64) as u64);
    }
}

impl Hasher for AddrHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.mix(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }
    #[inline]
    fn write_u128(&mut self, n: u128) {
        self.mix(n as u64);
        if n >> 64 != 0 {
            self.mix((n >> 64) as u64);
        }
    }
}

/// HashMap keyed by addresses with [`AddrHasher`].
pub type AddrMap<V> = HashMap<u128, V, BuildHasherDefault<AddrHasher>>;

/// A map keyed by address that keeps addresses that fit in 64 bits (all
/// real ones) apart from wider ones: a `u64` key makes an entry of 16 bytes
/// instead of 32 and hashes in one multiply. The timeline's replay does an
/// insert or a remove per alloc or free, and the versions walk a table of
/// 1.6M addresses at random on a 16M-event trace.
#[derive(Debug, Clone)]
pub struct AddrTable<V> {
    narrow: HashMap<u64, V, BuildHasherDefault<AddrHasher>>,
    wide: AddrMap<V>,
}

impl<V> Default for AddrTable<V> {
    fn default() -> Self {
        AddrTable { narrow: HashMap::default(), wide: AddrMap::default() }
    }
}

impl<V> AddrTable<V> {
    #[inline]
    pub fn insert(&mut self, addr: u128, v: V) -> Option<V> {
        match u64::try_from(addr) {
            Ok(a) => self.narrow.insert(a, v),
            Err(_) => self.wide.insert(addr, v),
        }
    }

    #[inline]
    pub fn remove(&mut self, addr: u128) -> Option<V> {
        match u64::try_from(addr) {
            Ok(a) => self.narrow.remove(&a),
            Err(_) => self.wide.remove(&addr),
        }
    }

    #[inline]
    pub fn get(&self, addr: u128) -> Option<&V> {
        match u64::try_from(addr) {
            Ok(a) => self.narrow.get(&a),
            Err(_) => self.wide.get(&addr),
        }
    }

    #[inline]
    pub fn contains(&self, addr: u128) -> bool {
        match u64::try_from(addr) {
            Ok(a) => self.narrow.contains_key(&a),
            Err(_) => self.wide.contains_key(&addr),
        }
    }
}

/// memory_viz's `version_space`: the current version of an address, optionally
/// bumped after reading.
#[derive(Default)]
struct VersionSpace(AddrTable<u32>);

impl VersionSpace {
    fn take(&mut self, addr: u128, increment: bool) -> u32 {
        let t = &mut self.0;
        let v = match u64::try_from(addr) {
            Ok(a) => t.narrow.entry(a).or_insert(0),
            Err(_) => t.wide.entry(addr).or_insert(0),
        };
        let r = *v;
        if increment {
            *v = v.wrapping_add(1);
        }
        r
    }
}

/// Versions of every device's events, every segment and every block.
pub fn compute(snap: &Snapshot) -> Versions {
    annotate(snap, None)
}

/// As [`compute`], keeping the events of `device` only (`event[d]` is empty
/// for the others): the same walk, a fraction of the memory.
pub fn of_device(snap: &Snapshot, device: u32) -> Versions {
    annotate(snap, Some(device))
}

/// memory_viz's `annotate_snapshot` walk.
fn annotate(snap: &Snapshot, only: Option<u32>) -> Versions {
    let mut blocks = VersionSpace::default();
    let mut segments = VersionSpace::default();
    let mut out = Versions::default();
    for (d, t) in snap.traces.iter().enumerate() {
        let keep = only.is_none_or(|o| o as usize == d);
        let mut v = Vec::with_capacity(if keep { t.len() } else { 0 });
        for i in 0..t.len() {
            let addr = t.addr(i);
            let version = match t.action[i] {
                Action::FreeCompleted => blocks.take(addr, true),
                // Legacy `free`: not versioned by memory_viz (no bump; see
                // the module doc).
                Action::Alloc | Action::FreeRequested | Action::Free => blocks.take(addr, false),
                Action::SegmentFree | Action::SegmentUnmap => segments.take(addr, true),
                Action::SegmentAlloc | Action::SegmentMap => segments.take(addr, false),
                _ => 0,
            };
            if keep {
                v.push(version);
            }
        }
        out.event.push(v);
    }
    out.block = vec![0; snap.blocks.len()];
    for seg in &snap.segments {
        out.segment.push(segments.take(seg.address, false));
        let r = seg.blocks.start as usize..(seg.blocks.end as usize).min(snap.blocks.len());
        for bi in r {
            out.block[bi] = blocks.take(snap.blocks[bi].address, false);
        }
    }
    // Blocks outside every segment's range (malformed models) keep version 0.
    out
}

/// memory_viz merges a `free_requested` immediately followed by the
/// `free_completed` of the same address into one `free` event (shown at the
/// free_requested's place). `merged_free(t)[i]` is true for each such
/// free_completed, which memory_viz drops from its event list; the
/// free_requested just before it is the one shown as `free`.
pub fn merged_free(t: &EventTable) -> Vec<bool> {
    (0..t.len()).map(|i| t.completes_requested_free(i)).collect()
}

/// Builders for hand-made snapshots in unit tests.
#[cfg(test)]
pub(crate) mod test_util {
    use crate::model::*;

    pub(crate) fn push(t: &mut EventTable, a: Action, addr: u128, size: u64) {
        t.action.push(a);
        t.addr_lo.push(addr as u64);
        if addr >> 64 != 0 {
            t.addr_hi.insert((t.action.len() - 1) as u32, (addr >> 64) as u64);
        }
        t.size.push(size);
        t.stream.push(0);
        t.time_us.push(crate::model::NO_TIME);
        t.stack.push(0);
        t.extra.push(crate::model::NO_EXTRA);
    }

    pub(crate) fn segment(device: u32, address: u128, total_size: u64, blocks: std::ops::Range<u32>) -> Segment {
        Segment {
            device,
            address,
            total_size,
            allocated_size: 0,
            active_size: 0,
            requested_size: 0,
            stream: 0,
            segment_type: SegmentType::Large,
            pool_id: Some((0, 0)),
            is_expandable: false,
            stack: 0,
            blocks,
        }
    }

    pub(crate) fn block(address: u128, size: u64, requested_size: u64, state: BlockState) -> Block {
        Block { address, size, requested_size, state, stack: 0, user_metadata: None }
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::*;
    use super::*;
    use crate::model::BlockState;

    #[test]
    fn versions_follow_annotate_snapshot() {
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        push(&mut t, Action::SegmentAlloc, 0x1000, 4096); // s 0
        push(&mut t, Action::Alloc, 0x1000, 512); // b 0
        push(&mut t, Action::FreeRequested, 0x1000, 512); // b 0
        push(&mut t, Action::FreeCompleted, 0x1000, 512); // b 0, then 1
        push(&mut t, Action::Alloc, 0x1000, 512); // b 1
        push(&mut t, Action::Free, 0x1000, 512); // legacy: b 1, no bump
        push(&mut t, Action::Alloc, 0x1000, 512); // b 1 again
        push(&mut t, Action::SegmentFree, 0x2000, 4096); // s 0 at 0x2000, then 1
        push(&mut t, Action::SegmentMap, 0x2000, 4096); // s 1
        push(&mut t, Action::Oom, 12, 4096); // none
        snap.traces.push(t);
        let mut t1 = EventTable::default();
        push(&mut t1, Action::FreeCompleted, 0x1000, 512); // shared space: b 1, then 2
        snap.traces.push(t1);
        snap.blocks.push(block(0x1000, 512, 512, BlockState::ActiveAllocated));
        snap.segments.push(segment(0, 0x1000, 4096, 0..1));
        let v = compute(&snap);
        assert_eq!(v.event[0], vec![0, 0, 0, 0, 1, 1, 1, 0, 1, 0]);
        assert_eq!(v.event[1], vec![1]);
        assert_eq!(v.segment, vec![0]); // 0x1000 was never freed as a segment
        assert_eq!(v.block, vec![2]);
        // One device's walk: the same versions, the other device's events left out.
        let one = of_device(&snap, 1);
        assert_eq!(
            (one.event[0].len(), &one.event[1], &one.segment, &one.block),
            (0, &v.event[1], &v.segment, &v.block)
        );
        assert_eq!(
            merged_free(&snap.traces[0]),
            vec![false, false, false, true, false, false, false, false, false, false]
        );
    }

    #[test]
    fn addresses_past_64_bits_have_their_own_versions() {
        // Same low 64 bits, one of them wider: two addresses (the version
        // space keeps narrow and wide ones in two tables).
        let (a, wide) = (0x1000u128, 0x1000u128 | 1 << 64);
        let mut t = EventTable::default();
        push(&mut t, Action::Alloc, wide, 512); // wide 0
        push(&mut t, Action::FreeCompleted, wide, 512); // wide 0, then 1
        push(&mut t, Action::Alloc, a, 512); // narrow 0
        push(&mut t, Action::FreeCompleted, a, 512); // narrow 0, then 1
        push(&mut t, Action::Alloc, wide, 512); // wide 1
        push(&mut t, Action::FreeCompleted, wide, 512); // wide 1, then 2
        push(&mut t, Action::Alloc, wide, 512); // wide 2
        push(&mut t, Action::Alloc, a, 512); // narrow 1
        let snap = Snapshot { traces: vec![t], ..Snapshot::default() };
        assert_eq!(compute(&snap).event[0], vec![0, 0, 0, 0, 1, 1, 2, 1]);
    }
}
