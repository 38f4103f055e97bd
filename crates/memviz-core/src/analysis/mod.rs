//! Explaining the memory: what is alive at any moment, by code and by kind;
//! the peak, every OOM and every leak explained.
//!
//! [`Analysis::new`] runs once per device over the Active Memory Timeline
//! (O(n log n)); then each moment is a cheap query:
//!
//! ```no_run
//! use memviz_core::analysis::{Analysis, GroupBy, Moment, Rules};
//! use memviz_core::state::StateHistory;
//! let snap = memviz_core::load(&std::fs::read("snapshot.pickle").unwrap()).unwrap();
//! let device = snap.default_device().unwrap();
//! let a = Analysis::build(&snap, device, &Rules::default());
//! let at = a.resolve(Moment::Peak).unwrap(); // or Step(s), Event(i), Oom(k), End
//! let live = a.live(at.position); // element indices of the timeline
//! let by_kind = a.groups(&live, GroupBy::Category);
//! let icicle = a.tree(&live, 1 << 20);
//! let h = StateHistory::new(&snap, device); // reserved, free pieces at the moment
//! let mut cursor = h.cursor();
//! let totals = a.state_totals(&snap, &h, &mut cursor, &at);
//! // Or all of it at once, as plain data (50 groups each, tree nodes >= 1 MiB):
//! let view = a.moment(&snap, Some((&h, &mut cursor)), Moment::Step(1234), 50, Some(1 << 20));
//! # let _ = (by_kind, icicle, totals, view);
//! ```
//!
//! **Positions.** A position `p` (0..=n, n = the timeline's actions) is the
//! state after `p` alloc/free actions. Element `e` is alive at `p` when
//! `born[e] <= p < dies[e]`. The timeline's step `s` shows the state after
//! its action when that is an alloc, before it when a free, so step `s` is
//! position `s + 1` or `s`; a trace event `i` is the position after the
//! actions up to and including it. At every step, the live bytes equal the
//! Active Memory Timeline's total there; at the peak, its peak.
//!
//! Modules: [`category`] (kinds and the rules that infer them), [`live`]
//! (the index and the groupings), [`oom`] (the OOMs and the peak explained),
//! [`leaks`] (alive at the end, growth across iterations, frees left
//! pending), [`series`] (bytes per kind over the timeline, per-element
//! facts for coloring, peak and OOM markers).

mod build;
pub mod category;
pub mod diff;
pub mod findings;
pub mod leaks;
pub mod live;
pub mod oom;
pub mod over_time;
pub mod series;

use serde::Serialize;

pub use build::AnalysisBuilder;
pub use category::{Kind, Phase, Rule, Rules};
pub use live::{Group, GroupBy, TreeNode, NO_FRAMES};

use build::Described;
use category::{Facts, StackFacts};
use live::{FrameTable, LiveIndex, StackTree, NONE};

use crate::model::{Action, EventTable, Snapshot};
use crate::state::{Cursor, StateHistory};
use crate::timeline::{ElementSource, EventLinks, Timeline, TimelineKind, NO_EVENT};

/// A moment to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// Before the first alloc/free.
    Start,
    /// A step of the Active Memory Timeline.
    Step(u32),
    /// Right after a trace event (index in the device's trace).
    Event(u32),
    /// Where the Active Memory Timeline peaks (first time).
    Peak,
    /// The `k`-th `oom` event of the device (0-based).
    Oom(u32),
    /// After the last event.
    End,
}

impl Moment {
    /// `start`, `peak`, `end`, `oom` (the first), `oom:K`, `step:S`, or an
    /// event index `N`.
    pub fn parse(s: &str) -> Result<Moment, String> {
        let num = |t: &str| {
            t.parse::<u32>()
                .map_err(|_| format!("not a moment: {s:?} (peak, oom, oom:K, end, start, step:S or an event index)"))
        };
        Ok(match s {
            "start" => Moment::Start,
            "peak" => Moment::Peak,
            "end" => Moment::End,
            "oom" => Moment::Oom(0),
            _ => match s.split_once(':') {
                Some(("oom", k)) => Moment::Oom(num(k)?),
                Some(("step", k)) => Moment::Step(num(k)?),
                Some(("event", k)) => Moment::Event(num(k)?),
                _ => Moment::Event(num(s)?),
            },
        })
    }
}

/// A moment resolved against one device's trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct At {
    /// Alloc/free actions applied (see the module doc).
    pub position: u32,
    /// The timeline step whose total is this moment's live bytes, when one
    /// is (a position between two frees followed by an alloc has none).
    pub step: Option<u32>,
    /// The trace event right after which this moment is (the last alloc or
    /// free up to it; for the end, the last event); `None` before the first
    /// alloc/free.
    pub event: Option<u32>,
}

/// Where an allocation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Origin {
    /// An alloc event of the trace.
    Trace,
    /// A block of the dump the trace never allocated: alive throughout.
    BeforeTraceAlive,
    /// A free without its alloc (allocated before the trace).
    BeforeTraceFreed,
}

/// Per element of the Active Memory Timeline (same indices), columnar.
#[derive(Debug, Clone, Default)]
pub(crate) struct Elems {
    pub(crate) born: Vec<u32>,
    pub(crate) dies: Vec<u32>,
    pub(crate) size: Vec<u64>,
    /// Stack-tree node of its shown stack.
    pub(crate) leaf: Vec<u32>,
    /// Canonical innermost user frame (NONE: no frames).
    pub(crate) user: Vec<u32>,
    pub(crate) kind: Vec<Kind>,
    pub(crate) rule: Vec<Rule>,
    pub(crate) origin: Vec<Origin>,
}

/// A free that waited: requested on one event, completed many events later
/// (memory_viz merges a free_requested directly followed by its
/// free_completed; these are the others).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingFree {
    pub element: u32,
    pub size: u64,
    pub stream: u32,
    pub free_requested_event: u32,
    /// `None`: still pending at the end of the trace.
    pub free_completed_event: Option<u32>,
    /// Events between the two.
    pub events: u32,
    /// Microseconds between the two, when both have `time_us`.
    pub time_us: Option<i64>,
    pub stack: u32,
}

/// Where the trace's landmarks are on the Active Memory Timeline of one
/// device: the position of each action, the peak and every `oom` event. One
/// pass over the actions and none over stacks: the page marks the peak and
/// the OOMs as soon as a file is shown, while the full [`Analysis`] (its
/// stack facts: 0.7 s on 2,000,000 events in the page) waits until asked for.
#[derive(Debug, Clone)]
pub struct Landmarks {
    pub device: u32,
    n_actions: u32,
    trace_events: usize,
    /// Trace event of each action.
    action_event: Vec<u32>,
    /// Action k allocates its element (else it frees it).
    action_alloc: Vec<bool>,
    /// `oom` events of the trace.
    pub oom_events: Vec<u32>,
    pub start_bytes: u64,
    pub peak_bytes: u64,
    pub end_bytes: u64,
    peak_position: u32,
}

/// The explanation machinery for one device (see the module doc). It
/// extends the device's [`Landmarks`] (which it dereferences to) with what
/// each allocation is and where it came from.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub marks: Landmarks,
    pub(crate) el: Elems,
    pub(crate) frames: FrameTable,
    pub(crate) tree: StackTree,
    index: LiveIndex,
    /// Per run: its last event with a phase, and the phase (for the leak
    /// report's iterations).
    pub(crate) phase_runs: Vec<(u32, Phase)>,
    pub(crate) pending: Vec<PendingFree>,
}

impl std::ops::Deref for Analysis {
    type Target = Landmarks;
    fn deref(&self) -> &Landmarks {
        &self.marks
    }
}

impl Landmarks {
    /// The landmarks of an Active Memory Timeline (`tl.kind` must be `ActiveMemory`).
    pub fn new(snap: &Snapshot, tl: &Timeline) -> Landmarks {
        Landmarks::with(snap, tl, actions_allocating(tl))
    }

    fn with(snap: &Snapshot, tl: &Timeline, action_alloc: Vec<bool>) -> Landmarks {
        let trace = snap.trace(tl.device);
        let counted = |a: Action| a.block_role().is_some();
        let oom_events = (0..trace.len() as u32).filter(|&i| trace.action[i as usize] == Action::Oom).collect();
        // The timeline knows each action's event (one counted event, one
        // action: the Active Memory replay's own rule); the one step of a
        // trace-less plot has none. A pass over the trace for them was
        // most of this call (39 ms on the 950 MB file).
        let action_event = if tl.events.first() == Some(&NO_EVENT) {
            Vec::new()
        } else if tl.kind == TimelineKind::ActiveMemory && tl.events.len() == tl.actions.len() {
            tl.events.clone()
        } else {
            (0..trace.len() as u32).filter(|&i| counted(trace.action[i as usize])).collect()
        };
        Landmarks {
            device: tl.device,
            n_actions: tl.actions.len() as u32,
            trace_events: trace.len(),
            action_event,
            peak_position: peak_position(tl, &action_alloc),
            action_alloc,
            oom_events,
            start_bytes: tl.start_bytes,
            peak_bytes: tl.peak_bytes(),
            end_bytes: tl.end_bytes,
        }
    }

    /// Positions run from 0 to this.
    pub fn last_position(&self) -> u32 {
        self.n_actions
    }

    /// The position of a moment (errors say what range is valid).
    pub fn resolve(&self, m: Moment) -> Result<At, String> {
        let n = self.n_actions;
        let p = match m {
            Moment::Start => 0,
            Moment::End => n,
            Moment::Peak => self.peak_position,
            Moment::Step(s) => {
                if s >= n {
                    return Err(format!("no step {s}: the Active Memory Timeline has {n} steps"));
                }
                if self.action_alloc[s as usize] {
                    s + 1
                } else {
                    s
                }
            }
            Moment::Event(i) => return self.at_event(i),
            Moment::Oom(k) => {
                let i = self.oom_events.get(k as usize).copied().ok_or_else(|| match self.oom_events.len() {
                    0 => format!("device {} has no oom event", self.device),
                    c => format!("no oom {k}: device {} has {c} (0 to {})", self.device, c - 1),
                })?;
                return self.at_event(i);
            }
        };
        let event = match m {
            // The end is after the last event, whatever it is (segment
            // frees may follow the last free).
            Moment::End => (self.trace_events as u32).checked_sub(1),
            _ => p.checked_sub(1).and_then(|k| self.action_event.get(k as usize).copied()),
        };
        Ok(At { position: p, step: self.step_of(p), event })
    }

    pub(crate) fn at_event(&self, i: u32) -> Result<At, String> {
        let len = self.trace_len();
        if i as usize >= len {
            return Err(format!("no event {i}: device {} has {len} trace events", self.device));
        }
        let p = self.action_event.partition_point(|&e| e <= i) as u32;
        Ok(At { position: p.min(self.n_actions), step: self.step_of(p), event: Some(i) })
    }

    fn trace_len(&self) -> usize {
        self.trace_events
    }

    /// The timeline step that shows position `p`, if one does.
    fn step_of(&self, p: u32) -> Option<u32> {
        if p > 0 && self.action_alloc.get(p as usize - 1).copied().unwrap_or(false) {
            Some(p - 1)
        } else if p < self.n_actions && !self.action_alloc[p as usize] {
            Some(p)
        } else {
            None
        }
    }
}

impl Analysis {
    /// Builds the Active Memory Timeline of `device` and the analysis on it.
    pub fn build(snap: &Snapshot, device: u32, rules: &Rules) -> Analysis {
        let tl = Timeline::build(snap, device, TimelineKind::ActiveMemory);
        Analysis::new(snap, &tl, rules)
    }

    /// The analysis of an Active Memory Timeline (`tl.kind` must be
    /// `ActiveMemory`; another kind gives an analysis of its elements that
    /// means little). [`AnalysisBuilder`] builds it in steps.
    pub fn new(snap: &Snapshot, tl: &Timeline, rules: &Rules) -> Analysis {
        AnalysisBuilder::new(rules).finish(snap, tl)
    }

    /// Elements (those of the Active Memory Timeline, same indices).
    pub fn element_count(&self) -> u32 {
        self.el.size.len() as u32
    }

    /// The kind of element `e` and the rule that decided it.
    pub fn kind_of(&self, e: u32) -> Option<(Kind, Rule)> {
        Some((*self.el.kind.get(e as usize)?, self.el.rule[e as usize]))
    }

    /// Where element `e` came from.
    pub fn origin_of(&self, e: u32) -> Option<Origin> {
        self.el.origin.get(e as usize).copied()
    }

    /// `[born, dies)` of element `e` in positions.
    pub fn lifetime(&self, e: u32) -> Option<(u32, u32)> {
        Some((*self.el.born.get(e as usize)?, self.el.dies[e as usize]))
    }

    /// Frees that waited (see [`PendingFree`]), longest first.
    pub fn pending_frees(&self) -> &[PendingFree] {
        &self.pending
    }

    /// Bytes of the analysis on the heap (approximate, for benchmarks).
    pub fn heap_bytes(&self) -> usize {
        self.el.born.capacity() * 27
            + self.marks.action_event.capacity() * 5
            + self.index.heap_bytes()
            + self.tree.heap_bytes()
            + self.frames.heap_bytes()
    }

    /// Reserved memory and its free space at `at` (from the Allocator State
    /// History; the cursor moves there).
    pub fn state_totals(&self, snap: &Snapshot, h: &StateHistory, cursor: &mut Cursor, at: &At) -> StateTotals {
        match at.event {
            Some(i) => cursor.seek(h, snap, i as usize),
            None => cursor.seek_position(h, snap, 0),
        }
        let live = self.bytes_of(&self.live(at.position));
        let t = cursor.totals();
        let free = free_space(h, snap, cursor, |_, _| true);
        StateTotals {
            allocated_bytes: live,
            reserved_bytes: t.reserved_bytes,
            gap_bytes: t.reserved_bytes.saturating_sub(live),
            state_allocated_bytes: t.allocated_bytes,
            segments: t.segments,
            free_bytes: free.bytes,
            free_pieces: free.pieces,
            largest_free_bytes: free.largest,
        }
    }
}

/// Everything a panel shows for one moment, as plain data (what
/// [`Analysis::moment`] returns; serializable for the page).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MomentView {
    pub at: At,
    /// Live bytes and allocations.
    pub bytes: u64,
    pub count: u64,
    /// Reserved memory and free pieces; `None` without a state history.
    pub totals: Option<StateTotals>,
    pub by_category: Vec<Group>,
    /// The `limit` largest of each of these.
    pub by_stack: Vec<Group>,
    pub by_user_frame: Vec<Group>,
    pub by_frame: Vec<Group>,
    /// The icicle: stack-tree nodes of at least `min_tree_bytes`; empty
    /// when not asked for (the page asks [`Analysis::tree`] a frame later).
    pub tree: Vec<TreeNode>,
}

impl Analysis {
    /// One moment for a panel: the live set's groupings (the `limit`
    /// largest groups of each; all kinds), the icicle tree (nodes of at
    /// least `min_tree_bytes`, if given) and, given the state history and a cursor
    /// (which moves there), the reserved memory and its free pieces.
    pub fn moment(
        &self,
        snap: &Snapshot,
        state: Option<(&StateHistory, &mut Cursor)>,
        moment: Moment,
        limit: usize,
        min_tree_bytes: Option<u64>,
    ) -> Result<MomentView, String> {
        let at = self.resolve(moment)?;
        let live = self.live(at.position);
        Ok(MomentView {
            at,
            bytes: self.bytes_of(&live),
            count: live.len() as u64,
            totals: state.map(|(h, c)| self.state_totals(snap, h, c, &at)),
            by_category: self.groups(&live, GroupBy::Category),
            by_stack: self.top_groups(&live, GroupBy::Stack, limit),
            by_user_frame: self.top_groups(&live, GroupBy::UserFrame, limit),
            by_frame: self.top_groups(&live, GroupBy::Frame, limit),
            tree: min_tree_bytes.map_or_else(Vec::new, |min| self.tree(&live, min)),
        })
    }
}

/// Totals at a moment: the live bytes and the reserved memory around them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StateTotals {
    /// Live bytes (the Active Memory Timeline's total there).
    pub allocated_bytes: u64,
    /// Sum of the segments (memory_viz's "reserved").
    pub reserved_bytes: u64,
    /// reserved − allocated: what the caching allocator holds unused (free
    /// pieces plus rounding).
    pub gap_bytes: u64,
    /// The state history's "allocated" (requested sizes of active and
    /// pending-free blocks).
    pub state_allocated_bytes: u64,
    pub segments: usize,
    /// Bytes inside segments no block covers.
    pub free_bytes: u64,
    pub free_pieces: usize,
    pub largest_free_bytes: u64,
}

/// Free space inside segments: bytes, pieces, largest piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct FreeSpace {
    pub bytes: u64,
    pub pieces: usize,
    pub largest: u64,
}

/// The gaps between blocks inside the segments `keep(segment size, stream)`
/// accepts, at the cursor's state.
pub(crate) fn free_space(h: &StateHistory, snap: &Snapshot, c: &Cursor, keep: impl Fn(u64, u32) -> bool) -> FreeSpace {
    let mut blocks: Vec<(u128, u64)> = Vec::with_capacity(c.totals().blocks);
    c.for_each_block(h, snap, |a, size, _, _| blocks.push((a, size)));
    let mut out = FreeSpace::default();
    let mut bi = 0usize;
    c.for_each_segment(|sa, size, stream| {
        let end = sa.saturating_add(size as u128);
        while bi < blocks.len() && blocks[bi].0 < sa {
            bi += 1;
        }
        let mut at = sa;
        let gap = |from: u128, to: u128, out: &mut FreeSpace| {
            if to > from {
                let g = (to - from) as u64;
                out.bytes = out.bytes.saturating_add(g);
                out.pieces += 1;
                out.largest = out.largest.max(g);
            }
        };
        let take = keep(size, stream);
        while bi < blocks.len() && blocks[bi].0 < end {
            let (ba, bs) = blocks[bi];
            if take {
                gap(at, ba, &mut out);
            }
            at = at.max(ba.saturating_add(bs as u128));
            bi += 1;
        }
        if take {
            gap(at, end, &mut out);
        }
    });
    out
}

/// Phase 1 of [`Analysis::new`]: each element's lifetime in positions, and
/// which actions allocate ([`actions_allocating`]).
struct Lifetimes {
    born: Vec<u32>,
    dies: Vec<u32>,
    action_alloc: Vec<bool>,
}

impl Lifetimes {
    fn of(tl: &Timeline) -> Lifetimes {
        let n = tl.actions.len() as u32;
        let ne = tl.elements.len();
        let action_alloc = actions_allocating(tl);
        let mut born = vec![0u32; ne];
        let mut dies = vec![n + 1; ne];
        for (k, (&e, &alloc)) in tl.actions.iter().zip(&action_alloc).enumerate() {
            if let Some(b) = born.get_mut(e as usize) {
                if alloc {
                    *b = k as u32 + 1;
                } else {
                    dies[e as usize] = k as u32 + 1;
                }
            }
        }
        Lifetimes { born, dies, action_alloc }
    }
}

/// Whether each action of `tl` allocates: the first action on an element
/// allocates it unless it is initially allocated; the next frees it.
/// (The landmarks need only this, not the lifetimes.)
fn actions_allocating(tl: &Timeline) -> Vec<bool> {
    let mut seen = vec![false; tl.elements.len()];
    for &e in &tl.initially_allocated {
        if let Some(s) = seen.get_mut(e as usize) {
            *s = true;
        }
    }
    tl.actions
        .iter()
        .map(|&e| match seen.get_mut(e as usize) {
            Some(s) if !*s => {
                *s = true;
                true
            }
            _ => false,
        })
        .collect()
}

/// Phase 2 of [`Analysis::new`]: each element's first free_requested event
/// (NONE: none), where the program let go of it.
fn first_free_requests(trace: &EventTable, links: &EventLinks, ne: usize) -> Vec<u32> {
    let mut free_req = vec![NONE; ne];
    for (i, &a) in trace.action.iter().enumerate() {
        if a == Action::FreeRequested {
            if let Some(e) = links.element_of_event(i) {
                if let Some(slot) = free_req.get_mut(e as usize) {
                    if *slot == NONE {
                        *slot = i as u32;
                    }
                }
            }
        }
    }
    free_req
}

/// Phase 3 of [`Analysis::new`]: what it needs to describe each element
/// (stack, kind, origin) and to find the frees that waited.
struct Describe<'a> {
    snap: &'a Snapshot,
    tl: &'a Timeline,
    trace: &'a EventTable,
    /// Actions of the timeline.
    n: u32,
    phases: &'a [Phase],
    runs: &'a [u32],
    links: &'a EventLinks,
    free_req: &'a [u32],
    frames: &'a FrameTable,
    /// The trace's first event in a forward phase.
    first_forward: Option<u32>,
}

impl Describe<'_> {
    /// Describes up to `budget` more elements into `d` (columns, stack
    /// tree, pending frees); all are once `d.el` has a row each.
    fn step(&self, facts: &mut StackFacts, rules: &Rules, d: &mut Described, budget: usize) {
        let (snap, tl, trace, n) = (self.snap, self.tl, self.trace, self.n);
        let Described { el, tree, stack_cache, pending } = d;
        let from = el.size.len();
        let end = from.saturating_add(budget).min(tl.elements.len());
        for (e, elem) in tl.elements.iter().enumerate().take(end).skip(from) {
            let (leaf, user) = *stack_cache.entry(elem.stack).or_insert_with(|| {
                (tree.insert(snap, self.frames, elem.stack), self.frames.user_frame(snap, elem.stack))
            });
            let free_event = self.links.free_event(e as u32);
            // Where the program let go: the free_requested, else the free.
            let let_go = match self.free_req[e] {
                NONE => free_event,
                r => Some(r),
            };
            let at = |i: u32| {
                (
                    self.phases.get(i as usize).copied().unwrap_or_default(),
                    self.runs.get(i as usize).copied().unwrap_or(0),
                )
            };
            let (origin, alloc) = match elem.source {
                ElementSource::Alloc(i) => (Origin::Trace, Some(at(i))),
                ElementSource::UnmatchedFree(_) => (Origin::BeforeTraceFreed, None),
                _ => (Origin::BeforeTraceAlive, None),
            };
            let f = Facts {
                alloc,
                free: if el.dies[e] <= n { let_go.map(at) } else { None },
                stack_phase: facts.phase(snap, elem.stack).0,
                freed_by_zero_grad: let_go
                    .is_some_and(|i| facts.phase(snap, trace.stack.get(i as usize).copied().unwrap_or(0)).1),
                workspace: facts.workspace(snap, elem.stack),
                before_first_forward: matches!((elem.source, self.first_forward), (ElementSource::Alloc(i), Some(f)) if i < f),
            };
            let (kind, rule) = match facts.user_kind(snap, rules, elem.stack) {
                Some(k) => (k, Rule::User),
                None => category::infer(&f),
            };
            pending.extend(self.pending_free(e, free_event, leaf));
            el.size.push(elem.size);
            el.leaf.push(leaf);
            el.user.push(user);
            el.kind.push(kind);
            el.rule.push(rule);
            el.origin.push(origin);
        }
    }

    /// Element `e`'s free, when it waited more than one event between its
    /// free_requested and its free (`free_event`).
    fn pending_free(&self, e: usize, free_event: Option<u32>, leaf: u32) -> Option<PendingFree> {
        let elem = &self.tl.elements[e];
        let trace = self.trace;
        let r = self.free_req.get(e).copied().filter(|&r| r != NONE)?;
        let ElementSource::Alloc(_) = elem.source else {
            return None;
        };
        let done = free_event.filter(|&c| c > r);
        let waited = done.map_or(trace.len() as u32 - r, |c| c - r);
        if waited <= 1 {
            return None;
        }
        let time_us = done.and_then(|c| trace.time_us(c as usize)?.checked_sub(trace.time_us(r as usize)?));
        Some(PendingFree {
            element: e as u32,
            size: elem.size,
            stream: elem.stream,
            free_requested_event: r,
            free_completed_event: done,
            events: waited,
            time_us,
            stack: leaf,
        })
    }
}

/// Phase 4 of [`Analysis::new`]: runs as (last event with the run's phase,
/// phase), the iterations of the leak report; found a range of events a
/// step (45 ms in one call on the 950 MB file's 8M events a device).
#[derive(Default)]
struct PhaseRuns {
    runs: Vec<(u32, Phase)>,
    current: Option<u32>,
    /// The next event to look at.
    next: usize,
}

impl PhaseRuns {
    /// Looks at up to `budget` more events; true once all are.
    fn step(&mut self, phases: &[Phase], runs: &[u32], budget: usize) -> bool {
        let n = phases.len().min(runs.len());
        let end = self.next.saturating_add(budget).min(n);
        for i in self.next..end {
            let (p, r) = (phases[i], runs[i]);
            if p == Phase::None {
                continue;
            }
            if self.current != Some(r) {
                self.current = Some(r);
                self.runs.push((i as u32, p));
            } else if let Some(last) = self.runs.last_mut() {
                last.0 = i as u32;
            }
        }
        self.next = end;
        end == n
    }
}

/// Phase 5 of [`Analysis::new`]: the position of the timeline's (first)
/// peak: after its step's action when that allocates, before it when it
/// frees.
fn peak_position(tl: &Timeline, action_alloc: &[bool]) -> u32 {
    if tl.actions.is_empty() || tl.start_bytes >= tl.peak_bytes() {
        return 0;
    }
    let s = tl.peak_step();
    if action_alloc.get(s as usize).copied().unwrap_or(false) {
        s + 1
    } else {
        s
    }
}

/// Phase 6 of [`Analysis::new`]: longest wait first: time where both events
/// have one, else events.
fn sort_pending(pending: &mut [PendingFree]) {
    pending.sort_by(|a, b| {
        (b.time_us.unwrap_or(-1), b.events, b.size)
            .cmp(&(a.time_us.unwrap_or(-1), a.events, a.size))
            .then(a.element.cmp(&b.element))
    });
}
