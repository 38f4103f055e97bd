//! Allocated Memory (incl. Private Pools): the Active Memory Timeline with
//! each private pool (`segment_pool_id` other than (0, 0): CUDA graphs,
//! `MemPool`) drawn as an envelope of its reserved memory, its active blocks
//! inside as stripes. memory_viz's `process_alloc_data(...,
//! include_private_inactive=true)` rules (../shared/docs/memory_viz_reference.md
//! §2.3), on our x axis (one step per action, see `timeline`):
//!
//! * one envelope per (pool, stream) of the elements' pool and stream;
//! * its height is the high-water mark of max(active, reserved) and never
//!   shrinks; it is created by the pool's first element (at step 0 for
//!   elements alive from the start) and only grows from then on;
//! * reserved starts at the dump's `total_size` sum of the pool's segments
//!   minus the net `segment_alloc`/`segment_map` − `segment_free`/
//!   `segment_unmap` sizes of the trace (segments found in the dump only,
//!   as `find_pool_id` does), and those deltas apply just before the action
//!   that follows them; deltas after the last action apply at the last step;
//! * the envelope sits in the stack where its first element was pushed;
//!   drawn pool elements are stripes packed from its bottom in push order,
//!   the pool's small (summarized) ones one stripe on top of them.
//!
//! The 3-step animations of memory_viz are left out, as in `timeline`.

use std::collections::HashMap;

use crate::format::format_size;
use crate::model::{Action, PoolFinder, Snapshot};
use crate::timeline::{DetailView, Timeline, TimelineKind};

/// No pool.
pub const NO_POOL: u32 = u32::MAX;

/// One private pool (on one stream) and its envelope over the steps.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolEnvelope {
    pub pool_id: (i64, i64),
    pub stream: u32,
    /// First step it is drawn on.
    pub first_step: u32,
    /// Stack position: the `order` of the element that created it.
    pub order: u32,
    /// (step, height from that step on), steps ascending.
    pub heights: Vec<(u32, u64)>,
    /// Reserved bytes before the first action (can be negative on a trace
    /// that disagrees with the dump).
    pub reserved_start: i128,
    /// The pool's segment events: (trace index, change of its reserved
    /// bytes), in trace order.
    pub reserved_changes: Vec<(u32, i128)>,
}

impl PoolEnvelope {
    /// Height at `step` (0 before `first_step`).
    pub fn height_at(&self, step: u32) -> u64 {
        let k = self.heights.partition_point(|&(s, _)| s <= step);
        k.checked_sub(1).map(|k| self.heights[k].1).unwrap_or(0)
    }
    /// memory_viz's "capacity": the final height.
    pub fn capacity(&self) -> u64 {
        self.heights.last().map(|h| h.1).unwrap_or(0)
    }
    /// memory_viz's key `a,b,sN`.
    pub fn key(&self) -> String {
        format!("{},{},s{}", self.pool_id.0, self.pool_id.1, self.stream)
    }
    /// memory_viz's envelope hover: `Private Pool (a,b,sN): capacity <size>`.
    pub fn text(&self) -> String {
        format!("Private Pool ({}): capacity {}", self.key(), format_size(self.capacity(), true))
    }
}

/// The private pools of an Active Memory timeline.
#[derive(Debug, Clone, Default)]
pub struct PrivatePools {
    pub pools: Vec<PoolEnvelope>,
    /// Per element: its pool in `pools`, or [`NO_POOL`].
    pub pool_of: Vec<u32>,
    /// Bytes drawn at each step: elements outside pools plus the envelopes.
    pub total: Vec<u64>,
    /// Same, before the first action.
    pub start_bytes: u64,
}

/// Bytes as drawn: sums over a hostile file (sizes near 2^64, frees of more
/// than was allocated) stay in 0..=u64::MAX instead of wrapping.
fn to_u64(x: i128) -> u64 {
    x.clamp(0, u64::MAX as i128) as u64
}

/// The private pools met so far, (pool_id, stream) -> index, in order of
/// first appearance.
#[derive(Default)]
struct PoolKeys {
    index: HashMap<((i64, i64), u32), u32>,
    keys: Vec<((i64, i64), u32)>,
}

impl PoolKeys {
    fn key(&mut self, k: ((i64, i64), u32)) -> u32 {
        let keys = &mut self.keys;
        *self.index.entry(k).or_insert_with(|| {
            keys.push(k);
            (keys.len() - 1) as u32
        })
    }
}

/// Segment events of private pools: (steps before it, pool, change of
/// reserved bytes, trace index); a step is an alloc or free of a block.
fn private_segment_events(
    snap: &Snapshot,
    device: u32,
    key_of: &mut impl FnMut(((i64, i64), u32)) -> u32,
) -> Vec<(usize, u32, i128, u32)> {
    let trace = snap.trace(device);
    let finder = PoolFinder::new(snap, device);
    let mut seg_events = Vec::new();
    let mut k = 0usize;
    for i in 0..trace.len() {
        let a = trace.action[i];
        if a.block_role().is_some() {
            k += 1;
        } else if a.is_segment() {
            let p = finder.find(trace.addr(i));
            if let (true, Some(p)) = (is_private(p), p) {
                let add = matches!(a, Action::SegmentAlloc | Action::SegmentMap);
                let d = trace.size[i] as i128;
                seg_events.push((k, key_of((p, trace.stream[i])), if add { d } else { -d }, i as u32));
            }
        }
    }
    seg_events
}

/// One pool while [`PrivatePools::build`] replays the steps.
struct Run {
    /// The envelope's height so far.
    max: i128,
    active: i128,
    reserved: i128,
    /// Drawn: its first block was allocated.
    created: bool,
}

/// Sets the height of `pool` from step `step` on (it only grows).
fn grow(pool: &mut PoolEnvelope, run: &mut Run, target: i128, step: u32, envelopes: &mut i128) {
    if target > run.max {
        *envelopes += target - run.max;
        run.max = target;
        let height = to_u64(target);
        match pool.heights.last_mut() {
            Some(h) if h.0 == step => h.1 = height,
            _ => pool.heights.push((step, height)),
        }
    }
}
/// A segment event of `pool`: its reserved bytes change; a pool already
/// drawn grows to fit them.
fn reserve(pool: &mut PoolEnvelope, run: &mut Run, delta: i128, step: u32, envelopes: &mut i128) {
    run.reserved += delta;
    if run.created {
        let target = run.reserved;
        grow(pool, run, target, step, envelopes);
    }
}

fn is_private(p: Option<(i64, i64)>) -> bool {
    matches!(p, Some(p) if p != (0, 0))
}

impl PrivatePools {
    /// Pools of `tl`, an Active Memory timeline of `snap`. Empty (no pools,
    /// `total == tl.total`) when nothing is in a private pool.
    pub fn build(snap: &Snapshot, tl: &Timeline) -> PrivatePools {
        let n_steps = tl.n_steps() as usize;
        let mut pp = PrivatePools { pool_of: vec![NO_POOL; tl.elements.len()], ..Default::default() };
        if tl.kind != TimelineKind::ActiveMemory {
            pp.total = tl.total.clone();
            pp.start_bytes = tl.start_bytes;
            return pp;
        }
        let mut pool_keys = PoolKeys::default();
        let mut key_of = |k| pool_keys.key(k);
        // An element's pool is its segment's: none to look up when no
        // segment is in a private pool (most files).
        if snap.device_segments(tl.device).any(|s| is_private(s.pool_id)) {
            for (e, el) in tl.elements.iter().enumerate() {
                if let Some(p) = tl.pool_id(e as u32).filter(|&p| p != (0, 0)) {
                    pp.pool_of[e] = key_of((p, el.stream));
                }
            }
        }
        let seg_events = private_segment_events(snap, tl.device, &mut key_of);
        // The dump's reserved bytes per pool (one pass: a file may hold a
        // pool per segment, 100,000 of them).
        let mut snap_reserved: HashMap<u32, i128> = HashMap::new();
        for s in snap.device_segments(tl.device) {
            if is_private(s.pool_id) {
                let key = key_of((s.pool_id.unwrap(), s.stream));
                *snap_reserved.entry(key).or_insert(0) += s.total_size as i128;
            }
        }
        let keys = pool_keys.keys;
        let mut snap_reserved: Vec<(u32, i128)> = snap_reserved.into_iter().collect();
        snap_reserved.sort_unstable();
        let mut net_of: HashMap<u32, i128> = HashMap::new();
        // Each pool's segment events, in one pass (not one pass per pool).
        let mut changes_of: Vec<Vec<(u32, i128)>> = vec![Vec::new(); keys.len()];
        for &(_, key, d, i) in &seg_events {
            *net_of.entry(key).or_insert(0) += d;
            changes_of[key as usize].push((i, d));
        }
        if keys.is_empty() {
            pp.total = tl.total.clone();
            pp.start_bytes = tl.start_bytes;
            return pp;
        }

        let mut runs: Vec<Run> = keys.iter().map(|_| Run { max: 0, active: 0, reserved: 0, created: false }).collect();
        pp.pools = keys
            .iter()
            .zip(changes_of)
            .map(|(&(pool_id, stream), reserved_changes)| PoolEnvelope {
                pool_id,
                stream,
                first_step: 0,
                order: 0,
                heights: Vec::new(),
                reserved_start: 0,
                reserved_changes,
            })
            .collect();
        let mut envelopes: i128 = 0;
        let mut pool_live: i128 = 0;
        // Elements alive from the start, pre-loaded at step 0.
        let mut alive = vec![false; tl.elements.len()];
        for &e in &tl.initially_allocated {
            let p = pp.pool_of[e as usize];
            if p == NO_POOL {
                continue;
            }
            alive[e as usize] = true;
            let el = &tl.elements[e as usize];
            let (pool, run) = (&mut pp.pools[p as usize], &mut runs[p as usize]);
            if !run.created {
                run.created = true;
                pool.first_step = 0;
                pool.order = el.order;
            }
            run.active += el.size as i128;
            pool_live += el.size as i128;
            let target = run.active.max(run.reserved);
            grow(pool, run, target, 0, &mut envelopes);
        }
        for &(key, total) in &snap_reserved {
            let net = net_of.get(&key).copied().unwrap_or(0);
            let (pool, run) = (&mut pp.pools[key as usize], &mut runs[key as usize]);
            run.reserved = total - net;
            pool.reserved_start = run.reserved;
            if run.created {
                let target = run.reserved;
                grow(pool, run, target, 0, &mut envelopes);
            }
        }
        let base = tl.start_bytes as i128 - pool_live;
        pp.start_bytes = to_u64(base + envelopes);
        let mut total = Vec::with_capacity(n_steps);
        let mut se = 0usize;
        let last = n_steps.saturating_sub(1) as u32;
        for (step, &e) in tl.actions.iter().enumerate() {
            let step32 = step as u32;
            while se < seg_events.len() && seg_events[se].0 <= step {
                let (_, key, d, _) = seg_events[se];
                reserve(&mut pp.pools[key as usize], &mut runs[key as usize], d, step32, &mut envelopes);
                se += 1;
            }
            let p = pp.pool_of.get(e as usize).copied().unwrap_or(NO_POOL);
            let el = &tl.elements[e as usize];
            let is_alloc = el.x0 == step32 && !alive[e as usize];
            let mut live_here = pool_live;
            if p != NO_POOL {
                let (pool, run) = (&mut pp.pools[p as usize], &mut runs[p as usize]);
                if is_alloc {
                    alive[e as usize] = true;
                    if !run.created {
                        run.created = true;
                        pool.first_step = step32;
                        pool.order = el.order;
                    }
                    run.active += el.size as i128;
                    pool_live += el.size as i128;
                    live_here = pool_live;
                    let target = run.active.max(run.reserved);
                    grow(pool, run, target, step32, &mut envelopes);
                } else {
                    // A free: the element is still drawn on this step.
                    run.active -= el.size as i128;
                    pool_live -= el.size as i128;
                }
            }
            if step32 == last {
                // Segment events after the last action.
                while se < seg_events.len() {
                    let (_, key, d, _) = seg_events[se];
                    reserve(&mut pp.pools[key as usize], &mut runs[key as usize], d, step32, &mut envelopes);
                    se += 1;
                }
            }
            total.push(to_u64(tl.total[step] as i128 - live_here + envelopes));
        }
        pp.total = total;
        pp
    }

    pub fn peak_bytes(&self) -> u64 {
        self.total.iter().copied().max().unwrap_or(0).max(self.start_bytes)
    }
}

/// One band of the pools view at a step, bottom to top; offsets and sizes
/// in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolBand {
    /// A drawn element outside every private pool.
    Element { elem: u32, offset: u64, size: u64 },
    /// A pool's envelope (memory_viz: gray, black outline).
    Envelope { pool: u32, offset: u64, size: u64 },
    /// A drawn element of a pool, inside its envelope (50% opacity).
    Stripe { elem: u32, pool: u32, offset: u64, size: u64 },
    /// The pool's small elements, on top of its stripes (30% opacity).
    PoolSummarized { pool: u32, offset: u64, size: u64 },
}

/// What lies under a point of the pools view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolHit {
    Element(u32),
    Envelope(u32),
    PoolSummarized(u32),
    Summarized,
}

/// The pools view at a detail limit: per-pool summarized bytes, as the steps
/// where they change (O(elements) memory, not pools x steps: a file may hold
/// 50,000 pools over 100,000 steps), and the pools in stack order.
#[derive(Debug, Clone, Default)]
pub struct PoolDetail {
    /// Pool `p`'s changes are `points[at[p]..at[p + 1]]`: (step, live
    /// non-drawn bytes from that step on), steps ascending.
    at: Vec<u32>,
    points: Vec<(u32, u64)>,
    /// Pools by `order` (their place in the stack).
    by_order: Vec<u32>,
    /// For views with more than [`SWEEP_POOLS`] pools: the stack as slots
    /// whose sizes change at known steps (see [`PoolSweep`]).
    pub sweep: Option<PoolSweep>,
}

/// Views with more private pools than this get a [`PoolSweep`]: every
/// envelope is a band at every step after its creation, so walking the
/// bands costs O(pools) per pixel column (50,000 pools: seconds a frame).
pub const SWEEP_POOLS: usize = 64;

/// A slot of the pools view's stack, bottom to top.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A pool's envelope (its stripes and small blocks inside it).
    Envelope(u32),
    /// A drawn element outside every pool.
    Element(u32),
}

/// What changes at a step of a [`PoolSweep`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepChange {
    /// The size of slot `top[slot]` changes by `delta`.
    Top { slot: u32, delta: i128 },
    /// The size of the drawn pool element `inner[slot]` changes by `delta`.
    Inner { slot: u32, delta: i128 },
    /// The pools' small (not drawn) bytes, all pools together.
    PoolSummarized { delta: i128 },
}

/// The pools view as slots in stack order whose sizes change at known
/// steps: envelopes and drawn elements outside pools in `top`, drawn pool
/// elements (stripes) per pool in `inner`. A renderer that replays `changes`
/// left to right keeps prefix sums over the slots and finds the band under
/// each pixel row in O(log slots), so a column costs O(rows log slots)
/// instead of O(pools + bands). Same bands, offsets and sizes as
/// [`PoolDetail::bands_at`].
#[derive(Debug, Clone, Default)]
pub struct PoolSweep {
    pub top: Vec<Slot>,
    /// Drawn pool elements by (pool, order); pool `p`'s are
    /// `inner[inner_at[p]..inner_at[p + 1]]`.
    pub inner: Vec<u32>,
    pub inner_at: Vec<u32>,
    /// (step, change), steps ascending: a change applies from its step on.
    pub changes: Vec<(u32, SweepChange)>,
}

impl PoolSweep {
    fn build(tl: &Timeline, pp: &PrivatePools, dv: &DetailView, pd: &PoolDetail) -> PoolSweep {
        let np = pp.pools.len();
        let pool_of = |e: usize| pp.pool_of.get(e).copied().filter(|&p| (p as usize) < np);
        // Top-level slots by stack order: an envelope before elements of
        // the same order (its own first element is a stripe).
        let mut top: Vec<(u32, u8, Slot)> =
            pp.pools.iter().enumerate().map(|(p, e)| (e.order, 0, Slot::Envelope(p as u32))).collect();
        let mut inner: Vec<(u32, u32, u32)> = Vec::new();
        for (e, el) in tl.elements.iter().enumerate() {
            if !dv.is_drawn(e as u32) || el.x0 >= el.x1 {
                continue;
            }
            match pool_of(e) {
                None => top.push((el.order, 1, Slot::Element(e as u32))),
                Some(p) => inner.push((p, el.order, e as u32)),
            }
        }
        top.sort_unstable_by_key(|t| (t.0, t.1));
        inner.sort_unstable_by_key(|t| (t.0, t.1));
        let mut inner_at = vec![0u32; np + 1];
        for &(p, _, _) in &inner {
            inner_at[p as usize + 1] += 1;
        }
        for p in 0..np {
            inner_at[p + 1] += inner_at[p];
        }
        let mut changes: Vec<(u32, SweepChange)> = Vec::new();
        for (slot, &(_, _, t)) in top.iter().enumerate() {
            let slot = slot as u32;
            match t {
                Slot::Envelope(p) => {
                    let env = &pp.pools[p as usize];
                    let mut prev = 0u64;
                    for &(step, h) in &env.heights {
                        // bands_at draws an envelope from its first step on.
                        let step = step.max(env.first_step);
                        changes.push((step, SweepChange::Top { slot, delta: h as i128 - prev as i128 }));
                        prev = h;
                    }
                }
                Slot::Element(e) => {
                    let el = &tl.elements[e as usize];
                    changes.push((el.x0, SweepChange::Top { slot, delta: el.size as i128 }));
                    changes.push((el.x1, SweepChange::Top { slot, delta: -(el.size as i128) }));
                }
            }
        }
        for (slot, &(_, _, e)) in inner.iter().enumerate() {
            let el = &tl.elements[e as usize];
            let slot = slot as u32;
            changes.push((el.x0, SweepChange::Inner { slot, delta: el.size as i128 }));
            changes.push((el.x1, SweepChange::Inner { slot, delta: -(el.size as i128) }));
        }
        for p in 0..np {
            let mut prev = 0u64;
            for &(step, v) in &pd.points[pd.at[p] as usize..pd.at[p + 1] as usize] {
                changes.push((step, SweepChange::PoolSummarized { delta: v as i128 - prev as i128 }));
                prev = v;
            }
        }
        changes.sort_by_key(|c| c.0);
        PoolSweep {
            top: top.into_iter().map(|t| t.2).collect(),
            inner: inner.into_iter().map(|t| t.2).collect(),
            inner_at,
            changes,
        }
    }
}

impl PoolDetail {
    pub fn new(tl: &Timeline, pp: &PrivatePools, dv: &DetailView) -> PoolDetail {
        let n = tl.n_steps();
        let np = pp.pools.len();
        // (pool, step, delta) of every non-drawn pool element's start and end.
        let mut deltas: Vec<(u32, u32, i128)> = Vec::new();
        for (e, el) in tl.elements.iter().enumerate() {
            let p = pp.pool_of.get(e).copied().unwrap_or(NO_POOL);
            let (x0, x1) = (el.x0.min(n), el.x1.min(n));
            if p == NO_POOL || p as usize >= np || dv.is_drawn(e as u32) || x0 >= x1 {
                continue;
            }
            deltas.push((p, x0, el.size as i128));
            deltas.push((p, x1, -(el.size as i128)));
        }
        deltas.sort_unstable_by_key(|d| (d.0, d.1));
        let mut at = vec![0u32; np + 1];
        let mut points: Vec<(u32, u64)> = Vec::new();
        let mut k = 0;
        for p in 0..np as u32 {
            let mut acc = 0i128;
            while k < deltas.len() && deltas[k].0 == p {
                let step = deltas[k].1;
                while k < deltas.len() && deltas[k].0 == p && deltas[k].1 == step {
                    acc += deltas[k].2;
                    k += 1;
                }
                let v = to_u64(acc);
                if points.last().map(|l| l.1) != Some(v) || at[p as usize] as usize == points.len() {
                    points.push((step, v));
                }
            }
            at[p as usize + 1] = points.len() as u32;
        }
        let mut by_order: Vec<u32> = (0..np as u32).collect();
        by_order.sort_by_key(|&p| pp.pools[p as usize].order);
        let mut pd = PoolDetail { at, points, by_order, sweep: None };
        if np > SWEEP_POOLS {
            pd.sweep = Some(PoolSweep::build(tl, pp, dv, &pd));
        }
        pd
    }

    /// As [`PoolDetail::new`], with a [`PoolSweep`] however few the pools
    /// (tests compare both ways of drawing).
    pub fn with_sweep(tl: &Timeline, pp: &PrivatePools, dv: &DetailView) -> PoolDetail {
        let mut pd = PoolDetail::new(tl, pp, dv);
        pd.ensure_sweep(tl, pp, dv);
        pd
    }

    /// Builds the [`PoolSweep`] if there is none: a page draws with it
    /// whatever the pool count (walking the bands per pixel column cost
    /// 24 ms a frame on a real file of 7,000 allocations, the sweep 7 ms).
    pub fn ensure_sweep(&mut self, tl: &Timeline, pp: &PrivatePools, dv: &DetailView) {
        if self.sweep.is_none() {
            self.sweep = Some(PoolSweep::build(tl, pp, dv, self));
        }
    }

    /// Non-drawn live bytes of pool `p` at `step`. O(log changes).
    pub fn pool_summarized_at(&self, p: u32, step: u32) -> u64 {
        let (Some(&a), Some(&b)) = (self.at.get(p as usize), self.at.get(p as usize + 1)) else { return 0 };
        let pts = &self.points[a as usize..b as usize];
        let k = pts.partition_point(|&(s, _)| s <= step);
        k.checked_sub(1).map_or(0, |k| pts[k].1)
    }

    /// Calls `f` with each band at `step`, bottom to top; returns (top of the
    /// bands, bytes of the global summarized band on top of them).
    pub fn bands_at(
        &self,
        tl: &Timeline,
        pp: &PrivatePools,
        dv: &DetailView,
        step: u32,
        mut f: impl FnMut(PoolBand),
    ) -> (u64, u64) {
        if step >= tl.n_steps() {
            return (0, 0);
        }
        let envs: Vec<u32> = self
            .by_order
            .iter()
            .copied()
            .filter(|&p| pp.pools.get(p as usize).is_some_and(|e| e.first_step <= step))
            .collect();
        let mut base = vec![0u64; pp.pools.len()];
        let mut inner = vec![0u64; pp.pools.len()];
        let mut stripes: Vec<(u32, u32, u64)> = Vec::new();
        let mut offset = 0u64;
        let mut next_env = 0usize;
        let mut pool_summarized_total = 0u64;
        let emit_env = |p: u32, offset: &mut u64, base: &mut Vec<u64>, f: &mut dyn FnMut(PoolBand)| {
            let h = pp.pools[p as usize].height_at(step);
            base[p as usize] = *offset;
            f(PoolBand::Envelope { pool: p, offset: *offset, size: h });
            *offset = offset.saturating_add(h);
        };
        dv.bands_at(tl, step, |b| {
            let Some(el) = tl.elements.get(b.elem as usize) else { return };
            while next_env < envs.len() && pp.pools[envs[next_env] as usize].order < el.order {
                emit_env(envs[next_env], &mut offset, &mut base, &mut f);
                next_env += 1;
            }
            let p = pp.pool_of.get(b.elem as usize).copied().unwrap_or(NO_POOL);
            if p == NO_POOL || p as usize >= base.len() {
                f(PoolBand::Element { elem: b.elem, offset, size: b.size });
                offset = offset.saturating_add(b.size);
            } else {
                stripes.push((b.elem, p, b.size));
            }
        });
        while next_env < envs.len() {
            emit_env(envs[next_env], &mut offset, &mut base, &mut f);
            next_env += 1;
        }
        for (elem, p, size) in stripes {
            let o = base[p as usize].saturating_add(inner[p as usize]);
            inner[p as usize] = inner[p as usize].saturating_add(size);
            f(PoolBand::Stripe { elem, pool: p, offset: o, size });
        }
        for &p in &envs {
            let s = self.pool_summarized_at(p, step);
            pool_summarized_total = pool_summarized_total.saturating_add(s);
            if s > 0 {
                let offset = base[p as usize].saturating_add(inner[p as usize]);
                f(PoolBand::PoolSummarized { pool: p, offset, size: s });
            }
        }
        (offset, dv.summarized_at(tl, step).saturating_sub(pool_summarized_total))
    }

    /// What lies at (`step`, `bytes` from the bottom): stripes before their
    /// envelope.
    pub fn hit(&self, tl: &Timeline, pp: &PrivatePools, dv: &DetailView, step: u32, bytes: u64) -> Option<PoolHit> {
        let mut found: Option<PoolHit> = None;
        let mut env_hit: Option<PoolHit> = None;
        let inside = |o: u64, s: u64| bytes >= o && bytes - o < s;
        let (top, summarized) = self.bands_at(tl, pp, dv, step, |b| match b {
            PoolBand::Element { elem, offset, size } | PoolBand::Stripe { elem, offset, size, .. }
                if inside(offset, size) =>
            {
                found = Some(PoolHit::Element(elem))
            }
            PoolBand::PoolSummarized { pool, offset, size } if inside(offset, size) => {
                found = Some(PoolHit::PoolSummarized(pool))
            }
            PoolBand::Envelope { pool, offset, size } if inside(offset, size) => {
                env_hit = Some(PoolHit::Envelope(pool))
            }
            _ => {}
        });
        found.or(env_hit).or_else(|| inside(top, summarized).then_some(PoolHit::Summarized))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BlockState, EventTable};
    use crate::versions::test_util::*;

    #[test]
    fn envelope_grows_with_reserved_and_active() {
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        push(&mut t, Action::Alloc, 0x10000, 100); // e0, pool, step 0
        push(&mut t, Action::Alloc, 0x50000, 50); // e1, no segment: not a pool, step 1
        push(&mut t, Action::SegmentMap, 0x10800, 0x800); // inside the pool's final segment
        push(&mut t, Action::Alloc, 0x10100, 300); // e2, pool, step 2
        push(&mut t, Action::FreeCompleted, 0x10000, 100); // step 3
        snap.traces.push(t);
        snap.blocks.push(block(0x10100, 512, 300, BlockState::ActiveAllocated));
        let mut s = segment(0, 0x10000, 0x1000, 0..1);
        s.pool_id = Some((1, 7));
        snap.segments.push(s);
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        let pp = PrivatePools::build(&snap, &tl);
        assert_eq!(pp.pools.len(), 1);
        let env = &pp.pools[0];
        assert_eq!((env.pool_id, env.stream, env.first_step, env.order), ((1, 7), 0, 0, 0));
        // 4096 in the dump minus the 2048 mapped in the trace.
        assert_eq!(env.reserved_start, 2048);
        assert_eq!(env.heights, vec![(0, 2048), (2, 4096)]);
        assert_eq!(env.text(), "Private Pool (1,7,s0): capacity 4.0KiB (4096 bytes)");
        assert_eq!(pp.pool_of, vec![0, NO_POOL, 0]);
        assert_eq!(pp.total, vec![2048, 2098, 4146, 4146]);
        assert_eq!(pp.start_bytes, 0);

        let bands = |limit: u32, step: u32| {
            let dv = DetailView::new(&tl, limit);
            let pd = PoolDetail::new(&tl, &pp, &dv);
            let mut v = Vec::new();
            let r = pd.bands_at(&tl, &pp, &dv, step, |b| v.push(b));
            (
                v,
                r,
                pd.hit(&tl, &pp, &dv, step, 150),
                pd.hit(&tl, &pp, &dv, step, 2000),
                pd.hit(&tl, &pp, &dv, step, 4100),
            )
        };
        let (v, r, h150, h2000, h4100) = bands(10, 2);
        assert_eq!(
            v,
            vec![
                PoolBand::Envelope { pool: 0, offset: 0, size: 4096 },
                PoolBand::Element { elem: 1, offset: 4096, size: 50 },
                PoolBand::Stripe { elem: 0, pool: 0, offset: 0, size: 100 },
                PoolBand::Stripe { elem: 2, pool: 0, offset: 100, size: 300 },
            ]
        );
        assert_eq!(r, (4146, 0));
        assert_eq!(
            (h150, h2000, h4100),
            (Some(PoolHit::Element(2)), Some(PoolHit::Envelope(0)), Some(PoolHit::Element(1)))
        );
        // Limit 1: only e2 drawn; e0 in the pool's summarized stripe, e1 in
        // the global summarized band.
        let (v, r, h150, _, h4100) = bands(1, 2);
        assert_eq!(
            v,
            vec![
                PoolBand::Envelope { pool: 0, offset: 0, size: 4096 },
                PoolBand::Stripe { elem: 2, pool: 0, offset: 0, size: 300 },
                PoolBand::PoolSummarized { pool: 0, offset: 300, size: 100 },
            ]
        );
        assert_eq!(r, (4096, 50));
        assert_eq!((h150, h4100), (Some(PoolHit::Element(2)), Some(PoolHit::Summarized)));
        // Past the end: nothing.
        assert_eq!(bands(10, 9).1, (0, 0));
    }
}
