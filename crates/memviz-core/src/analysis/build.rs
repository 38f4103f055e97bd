//! [`Analysis::new`] in steps: a page builds the analysis a slice a frame
//! (on the 2M-event file it took ~180 ms in one wasm call, during which the
//! page could not paint), a native caller runs the steps at once. One path
//! for both: [`Analysis::new`] is this builder run to its end.

use std::collections::HashMap;

use super::category::{EventPhases, StackFacts};
use super::live::{FrameTable, LiveIndexBuilder, StackTree};
use super::{
    first_free_requests, phase_runs, sort_pending, Analysis, Describe, Elems, Landmarks, Lifetimes, PendingFree, Rules,
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
    marks: Option<Landmarks>,
    frames: Option<FrameTable>,
    phases: EventPhases,
    links: Option<EventLinksBuilder>,
    linked: Option<EventLinks>,
    free_req: Vec<u32>,
    described: Option<Described>,
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
            marks: None,
            frames: None,
            phases: EventPhases::default(),
            links: None,
            linked: None,
            free_req: Vec::new(),
            described: None,
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
        // The lifetimes and landmarks, then the frame table: a call each
        // (a few ms each on 2M events).
        if self.marks.is_none() {
            let Lifetimes { born, dies, action_alloc } = Lifetimes::of(tl);
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
        if self.phase_runs.is_none() {
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
            };
            if !describe.step(&mut self.facts, &self.rules, d, budget) {
                return 0.3 + 0.3 * d.el.size.len() as f64 / n_elements;
            }
            d.tree.finish();
            sort_pending(&mut d.pending);
            self.phase_runs = Some(phase_runs(&self.phases.phases, &self.phases.runs));
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
