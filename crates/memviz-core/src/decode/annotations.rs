//! `annotate` trace events (`torch.cuda.memory._annotate_tensor`, PyTorch
//! 2.15) and the allocations they attach to.
//!
//! An annotation names an address; it belongs to the allocation live at that
//! address when the annotation happens. That allocation is, in order:
//! * the latest `alloc` of the address not yet freed (`free_completed` or a
//!   legacy `free`; a `free_requested` block is still live), as the Active
//!   Memory Timeline matches allocs and frees;
//! * else one allocated before recording started: the first later free of
//!   the address that matches no alloc (the timeline draws it from the start
//!   until that free);
//! * else a block still allocated at the dump that the trace never
//!   allocated (the timeline's "ghost" block).
//!
//! The link is made once, when the snapshot is loaded (only devices with
//! annotate events pay for the walk), so the views just look it up.

use std::collections::HashMap;

use crate::model::{Action, BlockState, EventTable, Snapshot};

/// Only devices with annotate events are walked: the standard hasher is fine.
type AddrMap<V> = HashMap<u128, V>;

/// The allocation an annotation belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Allocated in the trace: its `alloc` event.
    Alloc(u32),
    /// Allocated before recording started: the free (`free_completed` or
    /// `free`) that ends it.
    Freed(u32),
    /// Alive at the dump, never allocated in the trace: index in
    /// [`Snapshot::blocks`].
    Block(u32),
    /// No allocation is live at the address.
    Nothing,
}

impl Target {
    /// The target of an allocation known by a free event `f` of `trace`: a
    /// `free_requested` directly followed by its `free_completed` (memory_viz
    /// shows the pair as one `free`) counts as that `free_completed`.
    pub fn freed_by(trace: &EventTable, f: usize) -> Target {
        let pair = trace.completes_requested_free(f + 1);
        Target::Freed(if pair { f + 1 } else { f } as u32)
    }
}

/// One `annotate` event and the allocation it attaches to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotation {
    pub device: u32,
    /// Index of the `annotate` event in the device's trace.
    pub event: u32,
    pub target: Target,
}

/// Links every `annotate` event of the snapshot, ordered by device and event.
pub fn link(snap: &Snapshot) -> Vec<Annotation> {
    let mut out = Vec::new();
    for (d, trace) in snap.traces.iter().enumerate() {
        if trace.action.contains(&Action::Annotate) {
            link_device(snap, d as u32, trace, &mut out);
        }
    }
    out
}

fn link_device(snap: &Snapshot, device: u32, trace: &EventTable, out: &mut Vec<Annotation>) {
    let mut live: AddrMap<u32> = AddrMap::default();
    // Frees that match no alloc, per address, in trace order.
    let mut unmatched: AddrMap<Vec<u32>> = AddrMap::default();
    let first = out.len();
    for i in 0..trace.len() {
        match trace.action[i] {
            Action::Alloc => {
                live.insert(trace.addr(i), i as u32);
            }
            Action::FreeCompleted | Action::Free => {
                let a = trace.addr(i);
                if live.remove(&a).is_none() {
                    unmatched.entry(a).or_default().push(i as u32);
                }
            }
            Action::Annotate => {
                let target = match live.get(&trace.addr(i)) {
                    Some(&a) => Target::Alloc(a),
                    None => Target::Nothing, // resolved below
                };
                out.push(Annotation { device, event: i as u32, target });
            }
            _ => {}
        }
    }
    if out[first..].iter().all(|a| a.target != Target::Nothing) {
        return;
    }
    // Blocks alive at the dump that no alloc of the trace accounts for.
    let mut ghosts: AddrMap<u32> = AddrMap::default();
    for seg in snap.device_segments(device) {
        let end = (seg.blocks.end as usize).min(snap.blocks.len());
        for bi in (seg.blocks.start as usize).min(end)..end {
            let b = &snap.blocks[bi];
            if b.state == BlockState::ActiveAllocated && !live.contains_key(&b.address) {
                ghosts.entry(b.address).or_insert(bi as u32);
            }
        }
    }
    for a in &mut out[first..] {
        if a.target != Target::Nothing {
            continue;
        }
        let addr = trace.addr(a.event as usize);
        let later_free = unmatched.get(&addr).and_then(|fs| {
            let k = fs.partition_point(|&f| f < a.event);
            fs.get(k).copied()
        });
        a.target = match (later_free, ghosts.get(&addr)) {
            (Some(f), _) => Target::Freed(f),
            (None, Some(&b)) => Target::Block(b),
            (None, None) => Target::Nothing,
        };
    }
}

/// The annotations of `device` that attach to `target`, in trace order.
pub fn of_target(snap: &Snapshot, device: u32, target: Target) -> impl Iterator<Item = &Annotation> {
    device_annotations(snap, device).iter().filter(move |a| a.target == target && target != Target::Nothing)
}

/// The annotation that `annotate` event `event` of `device` is, if it is one.
pub fn of_event(snap: &Snapshot, device: u32, event: usize) -> Option<&Annotation> {
    let list = device_annotations(snap, device);
    let k = list.partition_point(|a| (a.event as usize) < event);
    list.get(k).filter(|a| a.event as usize == event)
}

fn device_annotations(snap: &Snapshot, device: u32) -> &[Annotation] {
    let list = &snap.annotations;
    let a = list.partition_point(|x| x.device < device);
    let b = a + list[a..].partition_point(|x| x.device == device);
    &list[a..b]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BlockState, EventTable};
    use crate::versions::test_util::*;

    #[test]
    fn annotations_attach_to_the_allocation_live_at_their_address() {
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        push(&mut t, Action::Annotate, 0x1000, 0); // 0: before recording -> the free at 3
        push(&mut t, Action::Alloc, 0x2000, 64); // 1
        push(&mut t, Action::Annotate, 0x2000, 0); // 2: -> alloc 1
        push(&mut t, Action::FreeCompleted, 0x1000, 64); // 3: unmatched
        push(&mut t, Action::FreeRequested, 0x2000, 64); // 4
        push(&mut t, Action::Annotate, 0x2000, 0); // 5: still live (free only requested) -> alloc 1
        push(&mut t, Action::FreeCompleted, 0x2000, 64); // 6
        push(&mut t, Action::Annotate, 0x2000, 0); // 7: nothing live
        push(&mut t, Action::Annotate, 0x3000, 0); // 8: the ghost block
        push(&mut t, Action::Alloc, 0x2000, 32); // 9
        push(&mut t, Action::Annotate, 0x2000, 0); // 10: -> alloc 9
        snap.traces.push(t);
        snap.blocks.push(block(0x3000, 512, 512, BlockState::ActiveAllocated));
        snap.blocks.push(block(0x2000, 32, 32, BlockState::ActiveAllocated));
        snap.segments.push(segment(0, 0x2000, 8192, 0..2));
        let got: Vec<(u32, Target)> = link(&snap).iter().map(|a| (a.event, a.target)).collect();
        assert_eq!(
            got,
            [
                (0, Target::Freed(3)),
                (2, Target::Alloc(1)),
                (5, Target::Alloc(1)),
                (7, Target::Nothing),
                (8, Target::Block(0)),
                (10, Target::Alloc(9)),
            ]
        );
        snap.annotations = link(&snap);
        assert_eq!(of_target(&snap, 0, Target::Alloc(1)).map(|a| a.event).collect::<Vec<_>>(), [2, 5]);
        assert_eq!(of_target(&snap, 0, Target::Nothing).count(), 0);
        assert_eq!(of_event(&snap, 0, 8).map(|a| a.target), Some(Target::Block(0)));
        assert_eq!(of_event(&snap, 0, 9), None);
        assert_eq!(of_event(&snap, 1, 8), None);
    }
}
