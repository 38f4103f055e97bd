//! What the timelines need from the analysis: bytes per kind at any position
//! (the categorized stacked area), per-element facts for coloring bands
//! (kind, innermost user frame, under a stack-tree node), and where the peak
//! and the OOMs fall on any timeline of the device (markers).

use serde::Serialize;

use super::live::NONE;
use super::{Analysis, Kind, Landmarks, Moment};
use crate::timeline::{Timeline, TimelineKind, NO_EVENT};

/// Actions between two stored totals: a query replays at most this many.
const CHECKPOINT: usize = 256;

/// Live bytes per kind at every position, as checkpoints plus the actions
/// between them: O(n / 256) memory beside one element id per action, and
/// a query costs at most 256 steps of replay.
#[derive(Debug, Clone, Default)]
pub struct KindSeries {
    /// Element of each action.
    action_elem: Vec<u32>,
    /// Bytes per kind at positions 0, CHECKPOINT, 2·CHECKPOINT, ...
    checkpoints: Vec<[u64; Kind::ALL.len()]>,
}

impl KindSeries {
    pub fn new(a: &Analysis) -> KindSeries {
        let n = a.last_position() as usize;
        let mut action_elem = vec![NONE; n];
        let mut start = [0u64; Kind::ALL.len()];
        for e in 0..a.el.size.len() {
            let (b, d) = (a.el.born[e] as usize, a.el.dies[e] as usize);
            if b == 0 {
                if d > 0 {
                    let k = a.el.kind[e] as usize;
                    start[k] = start[k].wrapping_add(a.el.size[e]);
                }
            } else if let Some(s) = action_elem.get_mut(b - 1) {
                *s = e as u32;
            }
            if d >= 1 {
                if let Some(s) = action_elem.get_mut(d - 1) {
                    *s = e as u32;
                }
            }
        }
        let mut s = KindSeries { action_elem, checkpoints: Vec::with_capacity(n / CHECKPOINT + 1) };
        let mut cur = start;
        for k in 0..n {
            if k.is_multiple_of(CHECKPOINT) {
                s.checkpoints.push(cur);
            }
            s.apply(a, k, &mut cur);
        }
        if n.is_multiple_of(CHECKPOINT) {
            s.checkpoints.push(cur);
        }
        s
    }

    fn apply(&self, a: &Analysis, k: usize, cur: &mut [u64; Kind::ALL.len()]) {
        let e = self.action_elem[k];
        let Some(&size) = a.el.size.get(e as usize) else { return };
        let slot = &mut cur[a.el.kind[e as usize] as usize];
        // An action allocates its element when the element is born right
        // after it.
        *slot = if a.el.born[e as usize] as usize == k + 1 { slot.wrapping_add(size) } else { slot.wrapping_sub(size) };
    }

    /// Live bytes per kind (indexed like [`Kind::ALL`]) at position `p`
    /// (clamped to the last position).
    pub fn at(&self, a: &Analysis, p: u32) -> [u64; Kind::ALL.len()] {
        let p = (p as usize).min(self.action_elem.len());
        let c = p / CHECKPOINT;
        let Some(&base) = self.checkpoints.get(c) else { return [0; Kind::ALL.len()] };
        let mut cur = base;
        for k in c * CHECKPOINT..p {
            self.apply(a, k, &mut cur);
        }
        cur
    }

    /// Live bytes per kind at every position `0..=last_position`, in order:
    /// one replay of the whole series (the stacked chart of every position).
    pub fn every_position<'a>(&'a self, a: &'a Analysis) -> impl Iterator<Item = [u64; Kind::ALL.len()]> + 'a {
        let mut cur = self.checkpoints.first().copied().unwrap_or_default();
        (0..=self.action_elem.len()).map(move |p| {
            if p > 0 {
                self.apply(a, p - 1, &mut cur);
            }
            cur
        })
    }

    /// Bytes per kind shown at timeline step `s` (see the module doc of
    /// `analysis`: an alloc step shows the state after it, a free before).
    pub fn at_step(&self, a: &Analysis, s: u32) -> [u64; Kind::ALL.len()] {
        match a.resolve(Moment::Step(s)) {
            Ok(at) => self.at(a, at.position),
            Err(_) => self.at(a, a.last_position()),
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.action_elem.capacity() * 4 + self.checkpoints.capacity() * 8 * Kind::ALL.len()
    }
}

impl Analysis {
    /// The innermost user frame of element `e` (a frame id of this analysis,
    /// as [`super::Group::id`] for `GroupBy::UserFrame`; `u32::MAX`: none).
    pub fn user_frame_of(&self, e: u32) -> Option<u32> {
        self.el.user.get(e as usize).copied()
    }

    /// Per element: whether its stack passes through stack-tree node `node`
    /// (an icicle node; 0, the root, holds every element).
    pub fn elements_under(&self, node: u32) -> Vec<bool> {
        let depth = |n: u32| self.tree.depth.get(n as usize).copied();
        let Some(target_depth) = depth(node) else { return vec![false; self.el.size.len()] };
        // Per stack-tree node, memoized: 0 unknown, 1 under, 2 not.
        let mut memo = vec![0u8; self.tree.len()];
        self.el
            .leaf
            .iter()
            .map(|&leaf| {
                let Some(m) = memo.get(leaf as usize).copied() else { return false };
                if m != 0 {
                    return m == 1;
                }
                // Walk up to the target's depth: the node there is it or not.
                let mut n = leaf;
                while depth(n).is_some_and(|d| d > target_depth) {
                    n = self.tree.parent[n as usize];
                }
                let under = n == node;
                memo[leaf as usize] = if under { 1 } else { 2 };
                under
            })
            .collect()
    }
}

/// A marker on a timeline: the peak or an OOM.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Marker {
    /// `peak` or `oom`.
    pub what: &'static str,
    /// For an OOM: its index among the device's OOMs (`oom:K`).
    pub k: u32,
    /// The trace event.
    pub event: u32,
    /// Where on the timeline's x axis, in steps: the middle of the peak's
    /// step on the Active Memory Timeline; elsewhere the boundary right
    /// after the last action of an event at or before this one.
    pub x: f64,
}

/// Steps of `tl` whose event is at or before trace event `i` (the x of a
/// boundary right after them).
pub fn steps_through_event(tl: &Timeline, i: u32) -> u32 {
    tl.events.partition_point(|&e| e != NO_EVENT && e <= i) as u32
}

/// The peak of the Active Memory Timeline and every OOM of `a`'s device, on
/// timeline `tl` of the same device (either kind).
pub fn markers(a: &Landmarks, tl: &Timeline) -> Vec<Marker> {
    let mut out = Vec::new();
    if let Ok(at) = a.resolve(Moment::Peak) {
        if let (Some(step), Some(event)) = (at.step, at.event) {
            let x = match tl.kind {
                TimelineKind::ActiveMemory => step as f64 + 0.5,
                _ => steps_through_event(tl, event) as f64,
            };
            if a.peak_bytes > a.start_bytes {
                out.push(Marker { what: "peak", k: 0, event, x });
            }
        }
    }
    for (k, &event) in a.oom_events.iter().enumerate() {
        out.push(Marker { what: "oom", k: k as u32, event, x: steps_through_event(tl, event) as f64 });
    }
    out
}
