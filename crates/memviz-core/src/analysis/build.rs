//! [`Analysis::new`] in steps: a page builds the analysis a slice a frame
//! (on the 2M-event file it took ~180 ms in one wasm call, during which the
//! page could not paint), a native caller runs the steps at once. One path
//! for both: [`Analysis::new`] is this builder run to its end.

use std::collections::HashMap;

use super::category::{EventPhases, StackFacts};
use super::live::{FrameTable, LiveIndexBuilder, StackTree};
use super::{
    first_free_requests, sort_pending, Analysis, Describe, Elems, Landmarks, Lifetimes, PendingFree, PhaseRuns, Rules,
};
use crate::model::Snapshot;
use crate::timeline::{EventLinks, EventLinksBuilder, Timeline};

/// What [`Describe::step`] has built so far.
pub(super) struct Described {
    pub(super) el: Elems,
    pub(super) tree: StackTree,
    /// Stack -> (tree leaf, innermost user frame).
    pub(super) stack_cache: HashMap<u32, (u32, u32)>,
    pub(super) pending: Vec<PendingFree>,
}

/// Builds the [`Analysis`] of an Active Memory Timeline in steps of about
/// `budget` trace events or elements: the events' phases, the links from
/// events to elements, each element's description, then the live index.
/// Every step takes the same snapshot and timeline.
pub struct AnalysisBuilder {
    rules: Rules,
    facts: StackFacts,
    lifetimes: Option<Lifetimes>,
    marks: Option<Landmarks>,
    frames: Option<FrameTable>,
    phases: EventPhases,
    links: Option<EventLinksBuilder>,
    linked: Option<EventLinks>,
    free_req: Vec<u32>,
    /// The first forward event, found once the phases are.
    first_forward: Option<Option<u32>>,
    described: Option<Described>,
    /// What is done of the description's end, a call each: 1 the tree
    /// finished, 2 the pending frees sorted; then the phases' runs.
    described_end: u8,
    runs_found: PhaseRuns,
    /// Set once the phases' runs are found and the tree finished.
    phase_runs: Option<Vec<(u32, super::Phase)>>,
    index: Option<LiveIndexBuilder>,
    done: Option<Analysis>,
}

impl AnalysisBuilder {
    pub fn new(rules: &Rules) -> AnalysisBuilder {
        AnalysisBuilder {
            rules: rules.clone(),
            facts: StackFacts::default(),
            lifetimes: None,
            marks: None,
            frames: None,
            phases: EventPhases::default(),
            links: None,
            linked: None,
            free_req: Vec::new(),
            first_forward: None,
            described: None,
            described_end: 0,
            runs_found: PhaseRuns::default(),
            phase_runs: None,
            index: None,
            done: None,
        }
    }

    /// One step: the share done, 1.0 once the analysis is built.
    pub fn step(&mut self, snap: &Snapshot, tl: &Timeline, budget: usize) -> f64 {
        if self.done.is_some() {
            return 1.0;
        }
        let device = tl.device;
        let n_events = snap.trace(device).len().max(1) as f64;
        let n_elements = tl.elements.len().max(1) as f64;
        // The lifetimes, the landmarks, the links' start, then the frame
        // table: a call each (a few ms each on 2M events; the first three
        // were one 49 ms call on the 950 MB file).
        if self.marks.is_none() {
            let Some(Lifetimes { born, dies, action_alloc }) = self.lifetimes.take() else {
                self.lifetimes = Some(Lifetimes::of(tl));
                return 0.0;
            };
            self.marks = Some(Landmarks::with(snap, tl, action_alloc));
            let ne = tl.elements.len();
            let el = Elems {
                born,
                dies,
                size: Vec::with_capacity(ne),
                leaf: Vec::with_capacity(ne),
                user: Vec::with_capacity(ne),
                kind: Vec::with_capacity(ne),
                rule: Vec::with_capacity(ne),
                origin: Vec::with_capacity(ne),
            };
            let (tree, stack_cache, pending) = Default::default();
            self.described = Some(Described { el, tree, stack_cache, pending });
            return 0.0;
        }
        if self.links.is_none() && self.linked.is_none() {
            self.links = Some(EventLinksBuilder::new(snap, tl));
            return 0.0;
        }
        let Some(frames) = &self.frames else {
            self.frames = Some(FrameTable::new(snap));
            return 0.0;
        };
        // Shares, as the parts took on the 2M-event file: phases 15%, links
        // 15%, elements 30%, runs 5%, the index 35%.
        if !self.phases.step(snap, device, &mut self.facts, budget) {
            return 0.15 * self.phases.phases.len() as f64 / n_events;
        }
        if let Some(b) = &mut self.links {
            if !b.step(snap, tl, budget) {
                return 0.15 + 0.15 * b.linked() as f64 / n_events;
            }
            let links = self.links.take().expect("building").finish(snap, tl);
            self.free_req = first_free_requests(snap.trace(device), &links, tl.elements.len());
            self.linked = Some(links);
            return 0.3;
        }
        let links = self.linked.as_ref().expect("linked above");
        let d = self.described.as_mut().expect("made with the lifetimes");
        let first_forward = *self.first_forward.get_or_insert_with(|| {
            self.phases.phases.iter().position(|&p| p == super::Phase::Forward).map(|i| i as u32)
        });
        if self.phase_runs.is_none() {
            if d.el.size.len() < tl.elements.len() {
                let describe = Describe {
                    snap,
                    tl,
                    trace: snap.trace(device),
                    n: tl.actions.len() as u32,
                    phases: &self.phases.phases,
                    runs: &self.phases.runs,
                    links,
                    free_req: &self.free_req,
                    frames,
                    first_forward,
                };
                describe.step(&mut self.facts, &self.rules, d, budget);
                return 0.3 + 0.3 * d.el.size.len() as f64 / n_elements;
            }
            // Then the tree finished and the pending frees sorted, a call
            // each, and the phases' runs found in steps (with the runs, 47
            // ms in one call on the 950 MB file).
            if self.described_end < 2 {
                self.described_end += 1;
                match self.described_end {
                    1 => d.tree.finish(),
                    _ => sort_pending(&mut d.pending),
                }
                return 0.6;
            }
            if !self.runs_found.step(&self.phases.phases, &self.phases.runs, budget) {
                return 0.6 + 0.05 * self.runs_found.next as f64 / n_events;
            }
            self.phase_runs = Some(std::mem::take(&mut self.runs_found.runs));
            return 0.65;
        }
        let index = self.index.get_or_insert_with(|| LiveIndexBuilder::new(tl.actions.len() as u32 + 1));
        if !index.step(&d.el.born, &d.el.dies, budget) {
            return 0.65 + 0.35 * index.share(d.el.born.len());
        }
        let d = self.described.take().expect("described");
        let index = self.index.take().expect("built").finish();
        self.done = Some(Analysis {
            marks: self.marks.take().expect("built first"),
            el: d.el,
            frames: self.frames.take().expect("built"),
            tree: d.tree,
            index,
            phase_runs: self.phase_runs.take().unwrap_or_default(),
            pending: d.pending,
        });
        1.0
    }

    /// The analysis (its remaining steps run first).
    pub fn finish(mut self, snap: &Snapshot, tl: &Timeline) -> Analysis {
        while self.step(snap, tl, usize::MAX) < 1.0 {}
        self.done.expect("built")
    }
}
