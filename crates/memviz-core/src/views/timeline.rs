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
//! Stacking is memory_viz's with the slide-down animation left out: the live
//! drawn bands at a step sit in push order (`Element::order`), each directly
//! on the one below, and the summarized band on top of them all.

use crate::intervals;
use crate::mapped::{self, MappedPieces, BEFORE_TRACE};
use crate::model::{Action, BlockState, EventTable, PoolFinder, Role, Snapshot, StackId};
use crate::versions::{AddrTable, Versions};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimelineKind {
    /// alloc / free_completed (and legacy free) over blocks.
    #[default]
    ActiveMemory,
    /// segment_alloc / segment_free over segments, plus (unlike memory_viz)
    /// the pieces that segment_map / segment_unmap map and unmap (see
    /// [`crate::mapped`]).
    CachedSegments,
}

/// Where an element came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementSource {
    /// An alloc (or segment_alloc / segment_map) event, by trace index. A
    /// segment_map may make several elements: one per piece of it that a
    /// later unmap cuts off.
    Alloc(u32),
    /// A free with no alloc in the trace: alive from the start; its stack is
    /// the free's. By trace index: the free_completed, or the free_requested
    /// directly before it that memory_viz merges it into.
    UnmatchedFree(u32),
    /// An `active_allocated` block in the dump with no live alloc in the
    /// trace ("ghost"): alive the whole time. By index in `Snapshot::blocks`.
    GhostBlock(u32),
    /// A segment in the dump never allocated in the trace. By index in
    /// `Snapshot::segments`.
    GhostSegment(u32),
}

impl ElementSource {
    /// The address version of the element it makes: its event's, or its
    /// dump segment's or block's (see `versions`).
    pub fn version(self, versions: &Versions, device: u32) -> u32 {
        match self {
            ElementSource::Alloc(i) | ElementSource::UnmatchedFree(i) => versions.of_event(device, i as usize),
            ElementSource::GhostSegment(si) => versions.of_segment(si as usize),
            ElementSource::GhostBlock(bi) => versions.of_block(bi as usize),
        }
    }
}

/// One allocation (or segment) drawn as a band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Element {
    pub source: ElementSource,
    pub addr: u128,
    pub size: u64,
    pub stream: u32,
    pub stack: StackId,
    /// First step it is alive on.
    pub x0: u32,
    /// One past the last step it is alive on.
    pub x1: u32,
    /// Position in the stack order (push order): lower sits lower.
    pub order: u32,
    /// memory_viz's "Total memory used after allocation". memory_viz takes it
    /// right after the element is pushed during its replay, counting only
    /// the elements the detail limit lets through plus the summarized ones
    /// seen so far, so its value shifts with the limit (and is never set for
    /// summarized elements). Here it is the limit-independent version: the
    /// total at the element's alloc step with everything counted (for an
    /// initially allocated element: the sum over `initially_allocated` up to
    /// and including it).
    pub total_after_alloc: u64,
}

/// The detail-independent result of replaying one device's trace.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    pub elements: Vec<Element>,
    /// Element index of each action (an index appears twice: alloc, free).
    pub actions: Vec<u32>,
    /// Trace event of each action (same length as `actions`; [`NO_EVENT`]
    /// for the one step of a trace-less plot). One event makes one action,
    /// except a segment_map / segment_unmap, which makes one per piece.
    pub events: Vec<u32>,
    /// Elements alive from the start, in memory_viz's order (after reverse).
    pub initially_allocated: Vec<u32>,
    /// (step, element) of the further pieces a segment_map maps or a
    /// segment_unmap unmaps, by step: one event is one step (an
    /// `empty_cache` unmap drops its memory at once, not over a step per
    /// piece), `actions` holding its first piece.
    pub co_actions: Vec<(u32, u32)>,
    /// Total bytes at each step (len == n_steps).
    pub total: Vec<u64>,
    /// Total bytes before the first action.
    pub start_bytes: u64,
    /// Total bytes after the last action.
    pub end_bytes: u64,
    /// Element indices by size, descending; ties keep element order (JS's
    /// stable sort).
    pub by_size: Vec<u32>,
    /// Element indices by `order` (push order, bottom of the stack first).
    pub by_order: Vec<u32>,
    /// The device this timeline replays.
    pub device: u32,
    pub kind: TimelineKind,
    /// The device's segments, for an element's pool ([`Timeline::pool_id`]):
    /// looked up when asked, not stored in each element (a third of an
    /// element's bytes, and a tenth of the replay's time).
    pools: PoolFinder,
    /// (step, bytes) of the peak, found as the totals are made: a scan of
    /// `total` took ~6 ms on 8M steps in the page, and the summary line,
    /// the markers and the explanations each asked for it.
    peak: (u32, u64),
}

/// No trace event.
pub const NO_EVENT: u32 = u32::MAX;

/// (is an alloc, is a free) of `kind`'s timeline, matched by address.
/// segment_map / segment_unmap are replayed as pieces instead (our addition:
/// memory_viz leaves expandable segments out of this view).
#[inline]
fn classify(kind: TimelineKind, a: Action) -> (bool, bool) {
    let role = match kind {
        TimelineKind::ActiveMemory => a.block_role(),
        TimelineKind::CachedSegments => a.segment_role(),
    };
    (role == Some(Role::Alloc), role == Some(Role::Free))
}

impl Timeline {
    /// Replays `device`'s trace for one of the two timelines (see the
    /// module doc). An element's address version is not kept: it is its
    /// source's ([`Timeline::version`]), so that a timeline can be drawn
    /// before the versions are computed.
    pub fn build(snap: &Snapshot, device: u32, kind: TimelineKind) -> Timeline {
        let mut b = TimelineBuilder::new(snap, device, kind);
        while !b.step(snap, usize::MAX) {}
        b.finish()
    }

    /// The address version of element `e` (see `versions`); 0 when out of range.
    pub fn version(&self, versions: &Versions, e: u32) -> u32 {
        self.elements.get(e as usize).map_or(0, |el| el.source.version(versions, self.device))
    }

    /// The private pool of element `e`: memory_viz's `find_pool_id`, the
    /// pool of the dump segment its address lies in (None outside them all).
    pub fn pool_id(&self, e: u32) -> Option<(i64, i64)> {
        self.elements.get(e as usize).and_then(|el| self.pools.find(el.addr))
    }

    pub fn n_steps(&self) -> u32 {
        self.total.len() as u32
    }

    /// Bytes it holds on the heap (what keeping it costs).
    pub fn heap_bytes(&self) -> usize {
        self.elements.capacity() * std::mem::size_of::<Element>()
            + (self.actions.capacity()
                + self.events.capacity()
                + self.initially_allocated.capacity()
                + self.by_size.capacity()
                + self.by_order.capacity()
                + self.co_actions.capacity() * 2)
                * 4
            + self.total.capacity() * 8
            + self.pools.heap_bytes()
    }

    /// max(start_bytes, max total).
    pub fn peak_bytes(&self) -> u64 {
        self.peak.1
    }
    /// Step at which the peak is first reached (0 if the start is the peak).
    pub fn peak_step(&self) -> u32 {
        self.peak.0
    }
}

/// [`Timeline::build`] in steps, so that a page can replay a large
/// trace between frames rather than in one long task: `new`, then `step`
/// until it returns true, then `finish`. Every call must be given the same
/// snapshot (the builder keeps indices into it, not references, so that it
/// can live beside the snapshot it replays).
pub struct TimelineBuilder {
    device: u32,
    kind: TimelineKind,
    pieces: MappedPieces,
    replayed: ReplayState,
    stage: Stage,
    /// The result so far, once the replay is over.
    timeline: Option<Timeline>,
}

/// Where a [`TimelineBuilder`] is.
enum Stage {
    /// Phase 1, at this trace event.
    Replay(usize),
    /// Phase 3, at this action (phase 2 is done on entering it).
    Stack(StackState),
    /// Phase 4, a pass of the size sort per step.
    BySize(SizeSort),
    Done,
}

impl TimelineBuilder {
    pub fn new(snap: &Snapshot, device: u32, kind: TimelineKind) -> TimelineBuilder {
        let pieces = match kind {
            TimelineKind::CachedSegments => MappedPieces::build(snap, device),
            TimelineKind::ActiveMemory => MappedPieces::default(),
        };
        let mut replayed = ReplayState::sized(snap, device, kind, &pieces);
        Replay::new(snap, device, &pieces, &mut replayed).pieces_before_trace();
        TimelineBuilder { device, kind, pieces, replayed, stage: Stage::Replay(0), timeline: None }
    }

    /// Does about `budget` units of work (trace events replayed, or actions
    /// stacked; the size sort is one step of its own); true once all is done.
    pub fn step(&mut self, snap: &Snapshot, budget: usize) -> bool {
        let (device, kind) = (self.device, self.kind);
        match &mut self.stage {
            Stage::Replay(next) => {
                if *next == snap.trace(device).len() {
                    // Phase 2 in a step of its own: with the last replay
                    // step it made a 75 ms task in the page on the 950 MB
                    // file (alone, 60 ms).
                    self.stage = Stage::Stack(self.dump(snap));
                    return false;
                }
                let mut replay = Replay::new(snap, device, &self.pieces, &mut self.replayed);
                let end = next.saturating_add(budget).min(replay.trace.len());
                // Phase 1: match allocs to frees by address. free_requested is not a
                // free here (matching it too would free twice).
                for i in *next..end {
                    if kind == TimelineKind::CachedSegments && mapped::is_map_or_unmap(replay.trace.action[i]) {
                        replay.map_or_unmap(i);
                    } else {
                        replay.alloc_or_free(kind, i);
                    }
                }
                *next = end;
            }
            Stage::Stack(st) => {
                let tl = self.timeline.as_mut().expect("the timeline is made on entering the stack stage");
                if st.stack(&mut tl.elements, &tl.actions, &tl.co_actions, budget) {
                    let sort = SizeSort::new(&tl.elements);
                    let Stage::Stack(st) = std::mem::replace(&mut self.stage, Stage::BySize(sort)) else {
                        unreachable!()
                    };
                    st.done(tl);
                }
            }
            Stage::BySize(sort) => {
                let tl = self.timeline.as_mut().expect("the timeline is made on entering the stack stage");
                if let Some(order) = sort.pass(&tl.elements) {
                    tl.by_size = order;
                    self.stage = Stage::Done;
                }
            }
            Stage::Done => {}
        }
        matches!(self.stage, Stage::Done)
    }

    /// Phase 2, once the trace is replayed: what the dump holds that the
    /// trace never allocated; then the timeline's lists stand, and the
    /// stack's replay can start.
    fn dump(&mut self, snap: &Snapshot) -> StackState {
        let ReplayState { mut elements, mut actions, mut events, mut initially, addr_to_alloc, piece_elem, co, .. } =
            std::mem::take(&mut self.replayed);
        for &p in &self.pieces.before_trace {
            initially.push(piece_elem[p as usize]);
        }
        let dump =
            Dump { snap, device: self.device, kind: self.kind, pieces: &self.pieces, addr_to_alloc: &addr_to_alloc };
        dump.ghosts(&mut elements, &mut initially);

        // Ghosts end up at the bottom, frees that come first at the top.
        initially.reverse();
        if actions.is_empty() {
            // A flat plot rather than a blank one.
            if let Some(e) = initially.pop() {
                actions.push(e);
                events.push(NO_EVENT);
            }
        }
        let st = StackState::new(&mut elements, &initially, &actions);
        self.timeline = Some(Timeline {
            elements,
            actions,
            initially_allocated: initially,
            co_actions: co,
            events,
            device: self.device,
            kind: self.kind,
            pools: PoolFinder::new(snap, self.device),
            ..Timeline::default()
        });
        st
    }

    /// The timeline, once `step` has returned true.
    pub fn finish(self) -> Timeline {
        assert!(matches!(self.stage, Stage::Done), "TimelineBuilder::finish before the last step");
        self.timeline.expect("the timeline is made before the last step")
    }
}

/// What phase 1 builds, kept between the steps of a [`TimelineBuilder`].
#[derive(Default)]
struct ReplayState {
    elements: Vec<Element>,
    actions: Vec<u32>,
    events: Vec<u32>,
    initially: Vec<u32>,
    /// `Timeline::co_actions`.
    co: Vec<(u32, u32)>,
    /// Live allocations by address.
    addr_to_alloc: AddrTable<u32>,
    /// Element of each piece of an expandable segment (`u32::MAX`: none yet).
    piece_elem: Vec<u32>,
    /// The next piece in `pieces.by_map` / `pieces.by_unmap`.
    next_map: usize,
    next_unmap: usize,
}

/// Phase 1 of [`Timeline::build`]: the replay of the trace's events,
/// and the elements, actions and initially allocated ones made so far.
struct Replay<'a> {
    snap: &'a Snapshot,
    trace: &'a EventTable,
    pieces: &'a MappedPieces,
    s: &'a mut ReplayState,
}

impl ReplayState {
    /// Sized up front: doubling a vector of 100-byte elements would copy
    /// them and leave up to half its capacity unused. Frees add elements
    /// only when unmatched (rare: the vector grows then).
    fn sized(snap: &Snapshot, device: u32, kind: TimelineKind, pieces: &MappedPieces) -> ReplayState {
        let trace = snap.trace(device);
        let (mut n_allocs, mut n_frees) = (0usize, 0usize);
        for &a in &trace.action {
            match classify(kind, a) {
                (true, _) => n_allocs += 1,
                (_, true) => n_frees += 1,
                _ => {}
            }
        }
        n_allocs += pieces.pieces.len();
        n_frees += pieces.by_unmap.len();
        let ghosts = match kind {
            TimelineKind::CachedSegments => snap.device_segments(device).count(),
            TimelineKind::ActiveMemory => snap
                .device_segments(device)
                .map(|s| s.blocks.end.saturating_sub(s.blocks.start) as usize)
                .sum::<usize>(),
        };
        ReplayState {
            elements: Vec::with_capacity(n_allocs + ghosts.min(snap.blocks.len())),
            actions: Vec::with_capacity(n_allocs + n_frees + 1),
            events: Vec::with_capacity(n_allocs + n_frees + 1),
            initially: Vec::new(),
            co: Vec::new(),
            addr_to_alloc: AddrTable::default(),
            piece_elem: vec![u32::MAX; pieces.pieces.len()],
            next_map: 0,
            next_unmap: 0,
        }
    }
}

impl<'a> Replay<'a> {
    fn new(snap: &'a Snapshot, device: u32, pieces: &'a MappedPieces, s: &'a mut ReplayState) -> Replay<'a> {
        Replay { snap, trace: snap.trace(device), pieces, s }
    }

    /// The element of event `i` (`addr` is its address, read once per event
    /// by the caller).
    fn element_of(&self, i: usize, addr: u128, source: ElementSource) -> Element {
        let trace = self.trace;
        Element {
            source,
            addr,
            size: trace.size[i],
            stream: trace.stream[i],
            stack: trace.stack[i],
            x0: 0,
            x1: 0,
            order: 0,
            total_after_alloc: 0,
        }
    }

    /// The element of a piece of an expandable segment.
    fn piece_element(&self, p: &mapped::Piece) -> Element {
        let trace = self.trace;
        let (source, stream, stack) = if p.map_event != BEFORE_TRACE {
            let i = p.map_event as usize;
            (ElementSource::Alloc(p.map_event), trace.stream[i], trace.stack[i])
        } else if let Some(u) = p.unmap_event {
            // Mapped before recording: like an unmatched free, it shows
            // the stack of the unmap.
            let u = u as usize;
            (ElementSource::UnmatchedFree(u as u32), trace.stream[u], trace.stack[u])
        } else {
            let si = p.dump_segment.unwrap_or(u32::MAX);
            let seg = self.snap.segments.get(si as usize);
            (ElementSource::GhostSegment(si), seg.map_or(0, |s| s.stream), 0)
        };
        Element { source, addr: p.addr, size: p.size, stream, stack, x0: 0, x1: 0, order: 0, total_after_alloc: 0 }
    }

    /// Pieces of expandable segments: the elements of those mapped before
    /// the trace come first (they join the initially allocated ones in
    /// phase 2), then the others as their maps come.
    fn pieces_before_trace(&mut self) {
        for &p in &self.pieces.before_trace {
            self.s.piece_elem[p as usize] = self.s.elements.len() as u32;
            let e = self.piece_element(&self.pieces.pieces[p as usize]);
            self.s.elements.push(e);
        }
    }

    /// A segment_map / segment_unmap: one step, whose action is the first
    /// piece it maps or unmaps; the other pieces go to `co` at that step.
    fn map_or_unmap(&mut self, i: usize) {
        let pieces = self.pieces;
        let at = |list: &[u32], k: usize, of: fn(&mapped::Piece) -> Option<u32>| {
            list.get(k).filter(|&&p| of(&pieces.pieces[p as usize]) == Some(i as u32)).copied()
        };
        let step = self.s.actions.len() as u32;
        let act = |s: &mut ReplayState, e: u32| {
            if s.actions.len() as u32 == step {
                s.actions.push(e);
                s.events.push(i as u32);
            } else {
                s.co.push((step, e));
            }
        };
        while let Some(p) = at(&pieces.by_map, self.s.next_map, |p| Some(p.map_event)) {
            self.s.next_map += 1;
            let e = self.s.elements.len() as u32;
            self.s.piece_elem[p as usize] = e;
            act(self.s, e);
            let el = self.piece_element(&pieces.pieces[p as usize]);
            self.s.elements.push(el);
        }
        while let Some(p) = at(&pieces.by_unmap, self.s.next_unmap, |p| p.unmap_event) {
            self.s.next_unmap += 1;
            let e = self.s.piece_elem[p as usize];
            act(self.s, e);
        }
    }

    /// Any other event: an alloc or a free of `kind`'s timeline makes one
    /// action; the rest none.
    fn alloc_or_free(&mut self, kind: TimelineKind, i: usize) {
        let (is_alloc, is_free) = classify(kind, self.trace.action[i]);
        if !(is_alloc || is_free) {
            return;
        }
        self.s.events.push(i as u32);
        let addr = self.trace.addr(i);
        if is_alloc {
            let e = self.s.elements.len() as u32;
            let elem = self.element_of(i, addr, ElementSource::Alloc(i as u32));
            self.s.elements.push(elem);
            // A second alloc at a live address replaces the mapping; the
            // first element then stays alive to the end, as in memory_viz.
            self.s.addr_to_alloc.insert(addr, e);
            self.s.actions.push(e);
        } else {
            match self.s.addr_to_alloc.remove(addr) {
                Some(e) => self.s.actions.push(e),
                None => {
                    // Alloc before recording started (or lost from the
                    // ring buffer): alive from the start, free's stack.
                    // memory_viz merged a free_requested directly before
                    // this free_completed into one `free` event and shows
                    // that one (its stack, size, time).
                    let src = self.trace.shown_event(i);
                    let e = self.s.elements.len() as u32;
                    let elem = self.element_of(src, addr, ElementSource::UnmatchedFree(src as u32));
                    self.s.elements.push(elem);
                    self.s.initially.push(e);
                    self.s.actions.push(e);
                }
            }
        }
    }
}

/// What phase 2 reads: the dump of one device and what the trace allocated.
struct Dump<'a> {
    snap: &'a Snapshot,
    device: u32,
    kind: TimelineKind,
    pieces: &'a MappedPieces,
    /// Addresses the trace allocated (and did not free).
    addr_to_alloc: &'a AddrTable<u32>,
}

impl Dump<'_> {
    /// Phase 2: what the dump holds that the trace never allocated (its
    /// segments, or its active blocks), alive from the start.
    fn ghosts(&self, elements: &mut Vec<Element>, initially: &mut Vec<u32>) {
        for (si, seg) in self.snap.segments.iter().enumerate() {
            if seg.device != self.device {
                continue;
            }
            match self.kind {
                TimelineKind::CachedSegments => {
                    // Expandable segments are counted as pieces above.
                    let expandable = self.pieces.dump_segments.binary_search(&(si as u32)).is_ok();
                    if !expandable && !self.addr_to_alloc.contains(seg.address) {
                        initially.push(elements.len() as u32);
                        elements.push(Element {
                            source: ElementSource::GhostSegment(si as u32),
                            addr: seg.address,
                            size: seg.total_size,
                            stream: seg.stream,
                            stack: 0,
                            x0: 0,
                            x1: 0,
                            order: 0,
                            total_after_alloc: 0,
                        });
                    }
                }
                TimelineKind::ActiveMemory => {
                    let end = (seg.blocks.end as usize).min(self.snap.blocks.len());
                    for bi in (seg.blocks.start as usize).min(end)..end {
                        let b = &self.snap.blocks[bi];
                        if b.state == BlockState::ActiveAllocated && !self.addr_to_alloc.contains(b.address) {
                            initially.push(elements.len() as u32);
                            elements.push(Element {
                                source: ElementSource::GhostBlock(bi as u32),
                                addr: b.address,
                                size: b.requested_size,
                                stream: seg.stream,
                                stack: b.stack,
                                x0: 0,
                                x1: 0,
                                order: 0,
                                total_after_alloc: 0,
                            });
                        }
                    }
                }
            }
        }
    }
}

/// Phase 3: pushes the initially allocated elements, then replays
/// `actions` (an element's first appearance allocates it, its second frees
/// it), giving each element its steps and place in the stack; in steps
/// ([`StackState::stack`]).
struct StackState {
    by_order: Vec<u32>,
    /// 0: not yet pushed, 1: alive, 2: freed.
    state: Vec<u8>,
    running: u64,
    start_bytes: u64,
    total: Vec<u64>,
    /// (step, bytes) of the first largest total so far; (0, start_bytes)
    /// while none is above the start.
    peak: (u32, u64),
    /// The next action, and the next of `Timeline::co_actions`.
    next: usize,
    next_co: usize,
}

impl StackState {
    /// Pushes the initially allocated elements.
    fn new(elements: &mut [Element], initially: &[u32], actions: &[u32]) -> StackState {
        let n_steps = actions.len() as u32;
        let mut by_order = Vec::with_capacity(elements.len());
        let mut state = vec![0u8; elements.len()];
        let mut running: u64 = 0;
        for &e in initially {
            let el = &mut elements[e as usize];
            state[e as usize] = 1;
            el.x0 = 0;
            el.x1 = n_steps;
            el.order = by_order.len() as u32;
            by_order.push(e);
            running = running.wrapping_add(el.size);
            el.total_after_alloc = running;
        }
        StackState {
            by_order,
            state,
            running,
            start_bytes: running,
            total: Vec::with_capacity(actions.len()),
            peak: (0, running),
            next: 0,
            next_co: 0,
        }
    }

    /// Replays up to `budget` more actions; true once all are.
    fn stack(&mut self, elements: &mut [Element], actions: &[u32], co: &[(u32, u32)], budget: usize) -> bool {
        let n_steps = actions.len() as u32;
        let end = self.next.saturating_add(budget).min(actions.len());
        let (state, total, by_order, peak) = (&mut self.state, &mut self.total, &mut self.by_order, &mut self.peak);
        let mut running = self.running;
        let mut next_co = self.next_co;
        for (k, &e) in actions.iter().enumerate().take(end).skip(self.next) {
            let before = running;
            // The action's element, then the other pieces of its map or unmap.
            let mut is_alloc = None;
            let mut elem = e;
            loop {
                let el = &mut elements[elem as usize];
                match state[elem as usize] {
                    0 => {
                        state[elem as usize] = 1;
                        running = running.wrapping_add(el.size);
                        el.x0 = k as u32;
                        el.x1 = n_steps;
                        el.order = by_order.len() as u32;
                        el.total_after_alloc = running;
                        by_order.push(elem);
                        is_alloc.get_or_insert(true);
                    }
                    1 => {
                        state[elem as usize] = 2;
                        el.x1 = k as u32 + 1;
                        running = running.wrapping_sub(el.size);
                        is_alloc.get_or_insert(false);
                    }
                    // Cannot happen (an element is in `actions` at most twice);
                    // keep the step anyway so steps stay action indices.
                    _ => {}
                }
                match co.get(next_co) {
                    Some(&(s, c)) if s as usize == k => {
                        next_co += 1;
                        elem = c;
                    }
                    _ => break,
                }
            }
            // The total at step k: after an alloc, before a free.
            let at_step = if is_alloc == Some(false) { before } else { running };
            total.push(at_step);
            if at_step > peak.1 {
                *peak = (k as u32, at_step);
            }
        }
        self.running = running;
        self.next = end;
        self.next_co = next_co;
        end == actions.len()
    }

    /// Phase 3's result into `tl`: the stack of elements and the total at each step.
    fn done(self, tl: &mut Timeline) {
        (tl.by_order, tl.total, tl.start_bytes, tl.end_bytes, tl.peak) =
            (self.by_order, self.total, self.start_bytes, self.running, self.peak);
    }
}

/// Phase 4: element indices by size, descending; ties by index (JS's
/// stable sort), a pass per call, so that a builder's step stays short (the
/// 950 MB file's 2.7M elements took 128-163 ms to sort in one). When every
/// size fits in 32 bits (nearly always), a stable radix sort of the
/// `(!size, element)` keys, each one u64 (wasm has no 128-bit compare), on
/// the size's four bytes, low first: the keys start in element order, so
/// ties stay in it. Wider sizes take [`by_size`] at once.
enum SizeSort {
    /// The keys made so far, `per_step` elements a step (reading a size
    /// from each 100-byte element is a cache miss: 2.7M of them took 40 ms
    /// natively in one step), and the radix passes' scratch, grown with
    /// them: its first writes in one pass made a 68 ms step in the page on
    /// the 950 MB file (fresh wasm memory).
    Keys {
        keyed: Vec<u64>,
        scratch: Vec<u64>,
        per_step: usize,
    },
    Radix {
        keyed: Vec<u64>,
        scratch: Vec<u64>,
        pass: u32,
        per_step: usize,
    },
    /// The sorted keys' element indices, `per_step` a step (as one step:
    /// 30 ms in the page on the 950 MB file, fresh memory again).
    Order {
        keyed: Vec<u64>,
        order: Vec<u32>,
        per_step: usize,
    },
}

const KEYS_PER_STEP: usize = 1 << 19;

impl SizeSort {
    fn new(elements: &[Element]) -> SizeSort {
        let n = elements.len();
        SizeSort::Keys { keyed: Vec::with_capacity(n), scratch: Vec::with_capacity(n), per_step: KEYS_PER_STEP }
    }

    /// The next step (some keys, a pass or some of the order); the order
    /// once done.
    fn pass(&mut self, elements: &[Element]) -> Option<Vec<u32>> {
        match self {
            SizeSort::Keys { keyed, scratch, per_step } => {
                let from = keyed.len();
                for (i, e) in elements.iter().enumerate().skip(from).take(*per_step) {
                    if e.size > u32::MAX as u64 {
                        return Some(by_size(elements)); // wider sizes: at once
                    }
                    keyed.push(((!(e.size as u32) as u64) << 32) | i as u64);
                }
                scratch.resize(keyed.len(), 0);
                if keyed.len() == elements.len() {
                    let (keyed, scratch) = (std::mem::take(keyed), std::mem::take(scratch));
                    *self = SizeSort::Radix { keyed, scratch, pass: 0, per_step: *per_step };
                }
                None
            }
            SizeSort::Radix { keyed, scratch, pass, per_step } => {
                crate::radix::pass(keyed, scratch, 32 + 8 * *pass);
                *pass += 1;
                if *pass == 4 {
                    let keyed = std::mem::take(keyed);
                    *self = SizeSort::Order { order: Vec::with_capacity(keyed.len()), keyed, per_step: *per_step };
                }
                None
            }
            SizeSort::Order { keyed, order, per_step } => {
                let from = order.len();
                order.extend(keyed[from..].iter().take(*per_step).map(|&k| k as u32));
                (order.len() == keyed.len()).then(|| std::mem::take(order))
            }
        }
    }
}

/// [`SizeSort`]'s order in one sort, done unstably on compact keys (an
/// indirect stable sort misses the cache on 1M items), each one integer so
/// a comparison is one compare: for sizes of any width.
fn by_size(elements: &[Element]) -> Vec<u32> {
    let mut keyed: Vec<u128> =
        elements.iter().enumerate().map(|(i, e)| ((!e.size as u128) << 32) | i as u128).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|k| k as u32).collect()
}

/// Elements (drawn ones) stored at the canonical nodes of a segment tree over
/// leaf buckets of steps, in compressed rows; each row is in stack order.
#[derive(Debug, Clone, Default)]
struct IntervalIndex {
    /// Leaves in the tree (a power of two).
    leaves: u32,
    /// `start[node]..start[node + 1]` is the node's slice of `items`.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl IntervalIndex {
    fn build(tl: &Timeline, drawn: &[bool], by_size: &[u32]) -> IntervalIndex {
        let limit = by_size.len();
        // The drawn elements in stack order: for a small limit, sorting them
        // beats walking every element in `by_order`.
        let in_order: Vec<u32> = if limit.saturating_mul(4) < tl.elements.len() {
            let mut v: Vec<(u32, u32)> = by_size.iter().map(|&e| (tl.elements[e as usize].order, e)).collect();
            v.sort_unstable();
            v.into_iter().map(|(_, e)| e).collect()
        } else {
            tl.by_order.iter().copied().filter(|&e| drawn[e as usize]).collect()
        };
        let n_steps = tl.n_steps();
        if n_steps == 0 {
            return IntervalIndex::default();
        }
        let leaves = intervals::leaves(n_steps);
        let nodes = 2 * leaves as usize;
        // Live ranges read once, in stack order: the two passes below then
        // stream through them instead of hopping over 100-byte elements.
        let spans: Vec<(u32, u32, u32)> = in_order
            .iter()
            .map(|&e| {
                let el = &tl.elements[e as usize];
                (el.x0, el.x1, e)
            })
            .filter(|&(x0, x1, _)| x0 < x1)
            .collect();
        drop(in_order);
        let mut count = vec![0u32; nodes + 1];
        for sp in &spans {
            intervals::cover(sp.0, sp.1, leaves, &mut |n| count[n + 1] += 1);
        }
        for i in 1..count.len() {
            count[i] += count[i - 1];
        }
        let start = count.clone();
        let mut fill = count;
        let mut items = vec![0u32; *start.last().unwrap() as usize];
        for sp in &spans {
            intervals::cover(sp.0, sp.1, leaves, &mut |n| {
                items[fill[n] as usize] = sp.2;
                fill[n] += 1;
            });
        }
        IntervalIndex { leaves, start, items }
    }

    /// Rows (each in stack order) whose elements may be live at `step`.
    fn rows(&self, step: u32) -> impl Iterator<Item = &[u32]> {
        let mut node = if self.leaves == 0 { 0 } else { intervals::leaf(step, self.leaves) };
        std::iter::from_fn(move || {
            if node == 0 || node + 1 >= self.start.len() {
                return None;
            }
            let row = &self.items[self.start[node] as usize..self.start[node + 1] as usize];
            node >>= 1;
            Some(row)
        })
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
/// when the limit changes (no re-decode, no re-replay): O(elements), the
/// per-step arrays built on first use.
#[derive(Debug, Clone, Default)]
pub struct DetailView {
    pub limit: u32,
    /// The steps `[x0, x1)` whose live elements compete for the `limit`
    /// (all of them unless zoomed: [`DetailView::in_window`]).
    window: (u32, u32),
    /// The drawn elements by size when zoomed; empty when they are the
    /// first `drawn_count` of `Timeline::by_size`.
    picked: Vec<u32>,
    drawn_count: u32,
    /// By element index.
    drawn: Vec<bool>,
    /// Bytes in the summarized band at each step. Built on the first
    /// `summarized`: the band plot takes them from its sweep instead
    /// (memviz-render), so moving the detail slider, or opening a file, does
    /// not pay O(steps) for them (measured: most of `DetailView::new` on a
    /// 16M-step file, 66 ms in the page).
    summarized: std::sync::OnceLock<Vec<u64>>,
    /// Drawn elements by live step range, for `bands_at` in O(log n + live).
    /// Built on the first `bands_at` or `hit`: drawing goes through
    /// `BandIndex` instead, so opening a file or moving the detail slider
    /// does not wait for it (measured: 2/3 of `DetailView::new` on the
    /// 2M-event file).
    index: std::sync::OnceLock<IntervalIndex>,
}

impl DetailView {
    pub fn new(tl: &Timeline, limit: u32) -> DetailView {
        DetailView::in_window(tl, limit, 0, tl.n_steps())
    }

    /// The detail of a plot zoomed to steps `[x0, x1)`: the `limit` largest
    /// elements live there (ties in element order) are drawn, so that
    /// zooming in brings back what the whole plot had to sum. With the whole
    /// plot in the window this is [`DetailView::new`].
    pub fn in_window(tl: &Timeline, limit: u32, x0: u32, x1: u32) -> DetailView {
        let n = tl.elements.len();
        let mut drawn = vec![false; n];
        let whole = x0 == 0 && x1 >= tl.n_steps();
        let mut picked = Vec::new();
        let drawn_count = if whole {
            let c = n.min(limit as usize);
            for &e in &tl.by_size[..c] {
                drawn[e as usize] = true;
            }
            c
        } else {
            // Walks the size order until `limit` live ones are found: those
            // outside the window are not drawn there, so they take no slot.
            for &e in &tl.by_size {
                if picked.len() == limit as usize {
                    break;
                }
                let el = &tl.elements[e as usize];
                if el.x0 < el.x1 && el.x0 < x1 && el.x1 > x0 {
                    drawn[e as usize] = true;
                    picked.push(e);
                }
            }
            picked.len()
        };
        DetailView {
            limit,
            window: (x0, x1.min(tl.n_steps()).max(x0)),
            picked,
            drawn_count: drawn_count as u32,
            drawn,
            summarized: Default::default(),
            index: Default::default(),
        }
    }

    /// The steps `[x0, x1)` it was made for.
    pub fn window(&self) -> (u32, u32) {
        self.window
    }

    /// Bytes in the summarized band at each step of `tl` (the timeline this
    /// view was made from).
    pub fn summarized(&self, tl: &Timeline) -> &[u64] {
        self.summarized.get_or_init(|| {
            let (n, drawn_count) = (tl.elements.len(), self.drawn_count as usize);
            let n_steps = tl.n_steps() as usize;
            // Sum the smaller side with a difference array (+ at the first
            // live step, - one past the last): the summarized elements
            // directly, or the drawn ones and subtract from the total (which
            // is the sum of the live sizes at each step), so neither end of
            // the slider walks every element.
            let zoomed = !self.picked.is_empty();
            let direct = !zoomed && n - drawn_count <= drawn_count;
            let side = if direct { &tl.by_size[drawn_count..] } else { self.drawn_by_size(tl) };
            let mut diff = vec![0u64; n_steps + 1];
            for &e in side {
                let el = &tl.elements[e as usize];
                if el.x0 < el.x1 {
                    let (a, b) = ((el.x0 as usize).min(n_steps), (el.x1 as usize).min(n_steps));
                    diff[a] = diff[a].wrapping_add(el.size);
                    diff[b] = diff[b].wrapping_sub(el.size);
                }
            }
            let mut acc = 0u64;
            for (d, &t) in diff[..n_steps].iter_mut().zip(&tl.total) {
                acc = acc.wrapping_add(*d);
                *d = if direct { acc } else { t.wrapping_sub(acc) };
            }
            diff.truncate(n_steps);
            diff
        })
    }
    pub fn is_drawn(&self, elem: u32) -> bool {
        self.drawn.get(elem as usize).copied().unwrap_or(false)
    }
    /// Number of elements drawn as their own band.
    pub fn drawn_count(&self) -> u32 {
        self.drawn_count
    }
    /// Builds the index that `bands_at` and `hit` use now, if they have not:
    /// a page builds it while idle, so that the first hover does not wait.
    pub fn prepare(&self, tl: &Timeline) {
        self.index(tl);
    }
    fn index(&self, tl: &Timeline) -> &IntervalIndex {
        self.index.get_or_init(|| IntervalIndex::build(tl, &self.drawn, self.drawn_by_size(tl)))
    }
    /// The drawn elements, largest first.
    pub fn drawn_by_size<'a>(&'a self, tl: &'a Timeline) -> &'a [u32] {
        if self.picked.is_empty() {
            &tl.by_size[..self.drawn_count as usize]
        } else {
            &self.picked
        }
    }
    /// Calls `f` for each drawn band live at `step`, bottom to top.
    pub fn bands_at(&self, tl: &Timeline, step: u32, mut f: impl FnMut(BandAt)) {
        self.drawn_total_and_bands(tl, step, &mut f);
    }
    /// Bytes of the drawn bands live at `step` (where the summarized band
    /// starts).
    pub fn drawn_total_at(&self, tl: &Timeline, step: u32) -> u64 {
        self.drawn_total_and_bands(tl, step, &mut |_| {})
    }
    /// Bytes in the summarized band at `step` of `tl` (0 past the end).
    pub fn summarized_at(&self, tl: &Timeline, step: u32) -> u64 {
        self.summarized(tl).get(step as usize).copied().unwrap_or(0)
    }
    /// What lies at (`step`, `bytes` from the bottom).
    pub fn hit(&self, tl: &Timeline, step: u32, bytes: u64) -> Option<Hit> {
        let mut found = None;
        let top = self.drawn_total_and_bands(tl, step, &mut |b| {
            if found.is_none() && bytes >= b.offset && bytes - b.offset < b.size {
                found = Some(Hit::Element(b.elem));
            }
        });
        if found.is_some() {
            return found;
        }
        // What is live and not drawn (the total is the sum of the live sizes):
        // no per-step array for one point.
        let s = tl.total.get(step as usize).map_or(0, |t| t.wrapping_sub(top));
        (bytes >= top && bytes - top < s).then_some(Hit::Summarized)
    }

    /// Merges the tree rows on `step`'s path (each in stack order) and calls
    /// `f` on the live bands, bottom to top; returns their total.
    fn drawn_total_and_bands(&self, tl: &Timeline, step: u32, f: &mut dyn FnMut(BandAt)) -> u64 {
        if step >= tl.n_steps() {
            return 0;
        }
        // At most log2(leaves) + 1 rows: a linear pick of the smallest head
        // beats a heap at this size.
        let index = self.index(tl);
        let mut rows: Vec<&[u32]> = index.rows(step).filter(|r| !r.is_empty()).collect();
        let mut offset = 0u64;
        loop {
            let mut best: Option<(u32, usize)> = None;
            for (ri, r) in rows.iter().enumerate() {
                let o = tl.elements[r[0] as usize].order;
                if best.is_none_or(|(bo, _)| o < bo) {
                    best = Some((o, ri));
                }
            }
            let Some((_, ri)) = best else { break };
            let e = rows[ri][0];
            rows[ri] = &rows[ri][1..];
            if rows[ri].is_empty() {
                rows.swap_remove(ri);
            }
            let el = &tl.elements[e as usize];
            if el.x0 <= step && step < el.x1 {
                f(BandAt { elem: e, offset, size: el.size });
                offset = offset.wrapping_add(el.size);
            }
        }
        offset
    }
}

/// Links between a timeline's elements and its device's trace events, for
/// jumping between the timeline and the Allocator State History. Built in
/// O(n) from the same alloc/free matching as [`Timeline::build`].
#[derive(Debug, Clone, Default)]
pub struct EventLinks {
    /// Per trace event: the element it allocates, frees or requests to free
    /// (`NO_ELEMENT` for others: segment events in the Active Memory
    /// timeline, oom, ...).
    elem_of_event: Vec<u32>,
    /// Per element: the event that freed it (`u32::MAX`: never freed in the
    /// trace).
    free_of_elem: Vec<u32>,
}

/// No element / no event.
pub(crate) const NO_ELEMENT: u32 = u32::MAX;

impl EventLinks {
    pub fn new(snap: &Snapshot, tl: &Timeline) -> EventLinks {
        EventLinksBuilder::new(snap, tl).finish(snap, tl)
    }

    /// The element trace event `i` allocates, frees or requests to free.
    pub fn element_of_event(&self, i: usize) -> Option<u32> {
        self.elem_of_event.get(i).copied().filter(|&e| e != NO_ELEMENT)
    }

    /// The trace event that freed element `e` (free_completed, free, or
    /// segment_free/unmap), if the trace holds it.
    pub fn free_event(&self, e: u32) -> Option<u32> {
        self.free_of_elem.get(e as usize).copied().filter(|&i| i != NO_ELEMENT)
    }

    /// The event the State History should select for element `e`: its alloc,
    /// else its free (allocated before recording), else `None` (a ghost from
    /// the dump: the final state shows it).
    pub fn event_for_element(&self, tl: &Timeline, e: u32) -> Option<u32> {
        match tl.elements.get(e as usize)?.source {
            ElementSource::Alloc(i) => Some(i),
            _ => self.free_event(e),
        }
    }
}

/// [`EventLinks::new`] in steps of trace events, so that a page can build
/// them between frames (~40 ms on the 2M-event file in wasm): `new`, `step`
/// until true, then `finish`. Every call must be given the same snapshot
/// and timeline.
pub struct EventLinksBuilder {
    links: EventLinks,
    /// A free_requested links to the element then live at its address.
    live: AddrTable<u32>,
    /// The next trace event, and the timeline step it starts at.
    i: usize,
    next_step: usize,
    /// The next of `Timeline::co_actions`.
    next_co: usize,
}

impl EventLinksBuilder {
    pub fn new(snap: &Snapshot, tl: &Timeline) -> EventLinksBuilder {
        let n = snap.trace(tl.device).len();
        let links =
            EventLinks { elem_of_event: vec![NO_ELEMENT; n], free_of_elem: vec![NO_ELEMENT; tl.elements.len()] };
        EventLinksBuilder { links, live: AddrTable::default(), i: 0, next_step: 0, next_co: 0 }
    }

    /// Links about `budget` more trace events; true once all are.
    pub fn step(&mut self, snap: &Snapshot, tl: &Timeline, budget: usize) -> bool {
        let trace = snap.trace(tl.device);
        let EventLinks { elem_of_event, free_of_elem } = &mut self.links;
        let (live, next_step, next_co) = (&mut self.live, &mut self.next_step, &mut self.next_co);
        let end = self.i.saturating_add(budget).min(trace.len());
        for i in self.i..end {
            let a = trace.action[i];
            // The step of event i: its action, then the other pieces of a
            // map / unmap (`co_actions`).
            let mut first = true;
            while *next_step < tl.actions.len() && tl.events[*next_step] == i as u32 {
                let step = *next_step as u32;
                let co = &tl.co_actions;
                let elems = std::iter::once(tl.actions[*next_step]).chain(std::iter::from_fn(|| {
                    let &(s, c) = co.get(*next_co).filter(|&&(s, _)| s == step)?;
                    debug_assert_eq!(s, step);
                    *next_co += 1;
                    Some(c)
                }));
                *next_step += 1;
                for e in elems {
                    let Some(el) = tl.elements.get(e as usize) else { continue };
                    if first {
                        elem_of_event[i] = e;
                        first = false;
                    }
                    if matches!(el.source, ElementSource::Alloc(j) if j as usize == i) {
                        live.insert(el.addr, e);
                    } else {
                        free_of_elem[e as usize] = i as u32;
                        live.remove(el.addr);
                        // An unmatched free made from the free_requested
                        // before it: that event is this element too.
                        if let ElementSource::UnmatchedFree(j) = el.source {
                            if let Some(x) = elem_of_event.get_mut(j as usize) {
                                *x = e;
                            }
                        }
                    }
                }
            }
            if a == Action::FreeRequested && tl.kind == TimelineKind::ActiveMemory {
                if let Some(&e) = live.get(trace.addr(i)) {
                    elem_of_event[i] = e;
                }
            }
        }
        self.i = end;
        end == trace.len()
    }

    /// Trace events linked so far.
    pub fn linked(&self) -> usize {
        self.i
    }

    /// The links (the rest linked first, if any).
    pub fn finish(mut self, snap: &Snapshot, tl: &Timeline) -> EventLinks {
        while !self.step(snap, tl, usize::MAX) {}
        self.links
    }
}

impl Element {
    /// The trace event that allocated it, when the trace holds it.
    pub fn alloc_event(&self) -> Option<u32> {
        match self.source {
            ElementSource::Alloc(i) => Some(i),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EventTable, Snapshot};
    use crate::versions::test_util::*;

    /// Replays by brute force: the live elements at each step in order.
    fn brute_bands(tl: &Timeline, dv: &DetailView, step: u32) -> Vec<BandAt> {
        let mut v = Vec::new();
        let mut off = 0;
        for &e in &tl.by_order {
            let el = &tl.elements[e as usize];
            if dv.is_drawn(e) && el.x0 <= step && step < el.x1 {
                v.push(BandAt { elem: e, offset: off, size: el.size });
                off += el.size;
            }
        }
        v
    }

    /// Largest first, ties in element order, whether every size fits in
    /// 32 bits (the u64 keys) or not (the u128 keys): against a stable sort.
    #[test]
    fn by_size_is_largest_first_ties_in_element_order() {
        let el = |size: u64| Element {
            source: ElementSource::Alloc(0),
            addr: 0,
            size,
            stream: 0,
            stack: 0,
            x0: 0,
            x1: 0,
            order: 0,
            total_after_alloc: 0,
        };
        // Sizes that differ only in some of their bytes (each byte is a
        // pass of the sort).
        let bytes: Vec<u64> =
            (0..300u64).map(|i| (((i * 7919) % 5) << 24) | (((i * 104729) % 3) << 8) | (i % 2)).collect();
        for sizes in [
            bytes,
            vec![5, 9, 5, 0, 9, u32::MAX as u64, 1, 5],
            vec![5, 9, 5, 0, 9, u32::MAX as u64 + 1, 1, 5, u64::MAX, u64::MAX],
        ] {
            let elements: Vec<Element> = sizes.iter().map(|&s| el(s)).collect();
            let mut want: Vec<u32> = (0..sizes.len() as u32).collect();
            want.sort_by_key(|&i| std::cmp::Reverse(sizes[i as usize]));
            assert_eq!(by_size(&elements), want, "{sizes:?}");
            // The builder's sort, a step per call: the same order, with the
            // keys made in one step or in steps of 7 elements.
            for per_step in [KEYS_PER_STEP, 7] {
                let mut sort = SizeSort::Keys { keyed: Vec::new(), scratch: Vec::new(), per_step };
                let mut steps = 1;
                let got = loop {
                    match sort.pass(&elements) {
                        Some(order) => break order,
                        None => steps += 1,
                    }
                };
                assert_eq!(got, want, "{sizes:?}");
                // The keys' steps, four byte passes, the order's steps (at
                // least one); wider sizes at once, where the first is met.
                let narrow = sizes.iter().all(|&s| s <= u32::MAX as u64);
                let key_steps = sizes.len().div_ceil(per_step);
                let first_wide = sizes.iter().position(|&s| s > u32::MAX as u64).unwrap_or(0);
                let order_steps = sizes.len().div_ceil(per_step).max(1);
                let want_steps = if narrow { key_steps + 4 + order_steps } else { first_wide / per_step + 1 };
                assert_eq!(steps, want_steps, "{sizes:?}");
            }
        }
    }

    fn small_snapshot() -> Snapshot {
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        push(&mut t, Action::SegmentAlloc, 0x10000, 0x10000); // not a block action
        push(&mut t, Action::Alloc, 0x10000, 100); // e0, step 0
        push(&mut t, Action::Alloc, 0x10100, 200); // e1, step 1
        push(&mut t, Action::FreeRequested, 0x10000, 100); // ignored
        push(&mut t, Action::FreeCompleted, 0x10000, 100); // step 2 frees e0
        push(&mut t, Action::FreeCompleted, 0x30000, 50); // e2 unmatched, step 3
        push(&mut t, Action::Alloc, 0x10000, 300); // e3, step 4
        push(&mut t, Action::Free, 0x10100, 200); // legacy free of e1, step 5
        push(&mut t, Action::FreeRequested, 0x40000, 70);
        push(&mut t, Action::FreeCompleted, 0x40000, 70); // e4 unmatched, step 6
        t.stack[9] = 0; // the free_completed's stack
        t.stack[8] = 5; // the free_requested's: the one memory_viz shows
        snap.traces.push(t);
        // Dump: segment with e3 live plus a ghost block; a second segment
        // with a ghost block in another pool.
        snap.blocks.push(block(0x10000, 512, 300, BlockState::ActiveAllocated));
        snap.blocks.push(block(0x10200, 1024, 1000, BlockState::ActiveAllocated)); // ghost e5
        snap.blocks.push(block(0x10600, 512, 512, BlockState::Inactive));
        snap.blocks.push(block(0x20000, 4096, 4000, BlockState::ActiveAllocated)); // ghost e6
        snap.blocks.push(block(0x21000, 512, 512, BlockState::ActivePendingFree));
        snap.segments.push(segment(0, 0x10000, 0x10000, 0..3));
        let mut s2 = segment(0, 0x20000, 0x2000, 3..5);
        s2.pool_id = Some((1, 7));
        s2.stream = 2;
        snap.segments.push(s2);
        snap
    }

    #[test]
    fn active_memory_replay() {
        let snap = small_snapshot();
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        let sizes: Vec<u64> = tl.elements.iter().map(|e| e.size).collect();
        assert_eq!(sizes, vec![100, 200, 50, 300, 70, 1000, 4000]);
        assert_eq!(tl.actions, vec![0, 1, 0, 2, 3, 1, 4]);
        // initially (trace order 2, 4, then ghosts 5, 6) reversed.
        assert_eq!(tl.initially_allocated, vec![6, 5, 4, 2]);
        assert_eq!(tl.start_bytes, 5120);
        assert_eq!(tl.total, vec![5220, 5420, 5420, 5320, 5570, 5570, 5370]);
        assert_eq!(tl.end_bytes, 5300);
        assert_eq!(tl.peak_bytes(), 5570);
        assert_eq!(tl.peak_step(), 4);
        let e = |i: usize| tl.elements[i];
        assert_eq!((e(0).x0, e(0).x1), (0, 3));
        assert_eq!((e(1).x0, e(1).x1), (1, 6));
        assert_eq!((e(2).x0, e(2).x1), (0, 4));
        assert_eq!((e(3).x0, e(3).x1), (4, 7));
        assert_eq!((e(4).x0, e(4).x1), (0, 7));
        assert_eq!((e(6).x0, e(6).x1), (0, 7));
        assert_eq!(e(6).source, ElementSource::GhostBlock(3));
        assert_eq!(tl.pool_id(6), Some((1, 7)));
        assert_eq!(e(6).stream, 2);
        assert_eq!(e(2).source, ElementSource::UnmatchedFree(5));
        assert_eq!(e(4).source, ElementSource::UnmatchedFree(8));
        assert_eq!(e(4).stack, 5);
        assert_eq!(tl.pool_id(2), None); // 0x30000 lies in no segment
        assert_eq!(tl.pool_id(0), Some((0, 0)));
        assert_eq!(tl.pool_id(7), None); // no such element
                                         // Orders: initially 6,5,4,2 then allocs 0,1,3.
        assert_eq!(tl.by_order, vec![6, 5, 4, 2, 0, 1, 3]);
        assert_eq!(e(2).order, 3);
        assert_eq!(e(3).order, 6);
        assert_eq!(e(6).total_after_alloc, 4000);
        assert_eq!(e(2).total_after_alloc, 5120);
        assert_eq!(e(3).total_after_alloc, 5570);
        assert_eq!(tl.by_size, vec![6, 5, 3, 1, 0, 4, 2]);
        // Versions: e3 is the second alloc at 0x10000; the ghost at 0x10200 first.
        let v = crate::versions::compute(&snap);
        assert_eq!(tl.version(&v, 3), 1);
        assert_eq!(tl.version(&v, 0), 0);
    }

    #[test]
    fn detail_view_matches_brute_force() {
        let snap = small_snapshot();
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        for limit in 0..=8 {
            let dv = DetailView::new(&tl, limit);
            assert_eq!(dv.drawn_count(), limit.min(7));
            for step in 0..tl.n_steps() {
                let mut got = Vec::new();
                dv.bands_at(&tl, step, |b| got.push(b));
                let want = brute_bands(&tl, &dv, step);
                assert_eq!(got, want, "limit {limit} step {step}");
                let drawn: u64 = want.iter().map(|b| b.size).sum();
                assert_eq!(drawn + dv.summarized(&tl)[step as usize], tl.total[step as usize]);
                for b in &want {
                    assert_eq!(dv.hit(&tl, step, b.offset), Some(Hit::Element(b.elem)));
                    assert_eq!(dv.hit(&tl, step, b.offset + b.size - 1), Some(Hit::Element(b.elem)));
                }
                let s = dv.summarized(&tl)[step as usize];
                if s > 0 {
                    assert_eq!(dv.hit(&tl, step, drawn), Some(Hit::Summarized));
                    assert_eq!(dv.hit(&tl, step, drawn + s - 1), Some(Hit::Summarized));
                }
                assert_eq!(dv.hit(&tl, step, drawn + s), None);
            }
        }
    }

    #[test]
    fn detail_view_random_long() {
        // A long synthetic trace so the tree has many leaves and levels.
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        let mut live: Vec<u128> = Vec::new();
        let mut next = 0x1000u128;
        let mut x = 12345u64;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20000 {
            let r = rnd();
            if live.is_empty() || r % 3 != 0 {
                push(&mut t, Action::Alloc, next, 1 + rnd() % 5000);
                live.push(next);
                next += 0x10000;
            } else {
                let i = (rnd() as usize) % live.len();
                let a = live.swap_remove(i);
                push(&mut t, Action::FreeCompleted, a, 0);
            }
        }
        push(&mut t, Action::FreeCompleted, 0x9, 77); // unmatched
        snap.traces.push(t);
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        // The free's own size (0) is not used: matched frees reuse the alloc.
        for limit in [0u32, 1, 50, 1000, 100000] {
            let dv = DetailView::new(&tl, limit);
            for step in (0..tl.n_steps()).step_by(97).chain([tl.n_steps() - 1]) {
                let mut got = Vec::new();
                dv.bands_at(&tl, step, |b| got.push(b));
                assert_eq!(got, brute_bands(&tl, &dv, step), "limit {limit} step {step}");
                let drawn: u64 = got.iter().map(|b| b.size).sum();
                assert_eq!(drawn + dv.summarized(&tl)[step as usize], tl.total[step as usize]);
            }
        }
    }

    #[test]
    fn cached_segments_and_map_unmap() {
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        push(&mut t, Action::SegmentAlloc, 0x100000, 2 << 20); // e0
        push(&mut t, Action::Alloc, 0x100000, 512);
        push(&mut t, Action::SegmentMap, 0x400000, 4 << 20); // e1
        push(&mut t, Action::SegmentUnmap, 0x400000, 4 << 20); // frees e1
        push(&mut t, Action::SegmentFree, 0x900000, 1 << 20); // e2 unmatched
        snap.traces.push(t);
        snap.segments.push(segment(0, 0x100000, 2 << 20, 0..0)); // allocated in trace
        snap.segments.push(segment(0, 0x800000, 8 << 20, 0..0)); // ghost e3
        snap.segments.push(segment(1, 0x100000, 1 << 20, 0..0)); // other device
        let tl = Timeline::build(&snap, 0, TimelineKind::CachedSegments);
        let sizes: Vec<u64> = tl.elements.iter().map(|e| e.size).collect();
        assert_eq!(sizes, vec![2 << 20, 4 << 20, 1 << 20, 8 << 20]);
        assert_eq!(tl.actions, vec![0, 1, 1, 2]);
        assert_eq!(tl.initially_allocated, vec![3, 2]);
        assert_eq!(tl.start_bytes, 9 << 20);
        assert_eq!(tl.total, vec![11 << 20, 15 << 20, 15 << 20, 11 << 20]);
        assert_eq!(tl.end_bytes, 10 << 20);
        assert_eq!(tl.elements[3].source, ElementSource::GhostSegment(1));
        assert_eq!(tl.elements[3].stack, 0);
        // No events and no ghosts on device 1 for blocks; one ghost segment,
        // popped into the actions so the plot is not blank.
        let tl1 = Timeline::build(&snap, 1, TimelineKind::CachedSegments);
        assert_eq!(tl1.actions, vec![0]);
        assert!(tl1.initially_allocated.is_empty());
        assert_eq!(tl1.start_bytes, 0);
        assert_eq!(tl1.total, vec![1 << 20]);
        assert_eq!(tl1.peak_step(), 0);
        let empty = Timeline::build(&snap, 1, TimelineKind::ActiveMemory);
        assert_eq!(empty.n_steps(), 0);
        assert_eq!(empty.peak_bytes(), 0);
        let dv = DetailView::new(&empty, 10);
        assert_eq!(dv.hit(&empty, 0, 0), None);
        dv.bands_at(&empty, 5, |_| panic!());
    }

    #[test]
    fn hover_text_parts() {
        let snap = small_snapshot();
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        let v = crate::versions::compute(&snap);
        let t = crate::format::context_for_element(&snap, Some(&v), &tl, 2);
        assert!(t.starts_with("Addr: b30000_0, Size: 50.0B (50 bytes) allocation, Total memory used after allocation: 5.0KiB (5120 bytes), Compile context: None, stream 0, pool_id unknown\nalloc not recorded, stack trace for free:\nThis block has no frames."), "{t}");
        let g = crate::format::context_for_element(&snap, Some(&v), &tl, 6);
        assert!(g.contains(", stream 2, pool_id (1, 7)\n[Ghost block] This block exists"), "{g}");
        assert_eq!(crate::format::context_for_element(&snap, Some(&v), &tl, 99), "");
    }

    #[test]
    fn event_links_both_ways() {
        let snap = small_snapshot();
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        let l = EventLinks::new(&snap, &tl);
        let by_event: Vec<Option<u32>> = (0..snap.traces[0].len()).map(|i| l.element_of_event(i)).collect();
        // seg_alloc, alloc e0, alloc e1, free_req e0, free_c e0, free_c e2,
        // alloc e3, free e1, free_req e4 (unmatched pair), free_c e4.
        assert_eq!(
            by_event,
            vec![None, Some(0), Some(1), Some(0), Some(0), Some(2), Some(3), Some(1), Some(4), Some(4)]
        );
        assert_eq!(l.free_event(0), Some(4));
        assert_eq!(l.free_event(1), Some(7));
        assert_eq!(l.free_event(3), None);
        assert_eq!(l.free_event(4), Some(9));
        assert_eq!(l.event_for_element(&tl, 3), Some(6));
        assert_eq!(l.event_for_element(&tl, 2), Some(5));
        assert_eq!(l.event_for_element(&tl, 6), None); // ghost
        assert_eq!(tl.elements[1].alloc_event(), Some(2));
        assert_eq!(l.element_of_event(99), None);
        let seg = Timeline::build(&snap, 0, TimelineKind::CachedSegments);
        let ls = EventLinks::new(&snap, &seg);
        assert_eq!(ls.element_of_event(0), Some(0));
        assert_eq!(ls.element_of_event(1), None);
    }
}
