//! Long work a slice a frame, one mechanism (issue 42): what showing a
//! view needs built (the state history's walk of the trace, the pools) and
//! the analysis panels' analysis. Each builder keeps its own place, so the
//! page only calls [`Viewer::tick`] in one loop, a frame's slice at a
//! time, until it says the work is done; the progress note's text comes
//! from here.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::page::ViewId;
use crate::ranks::DiffForm;
use crate::Viewer;

/// Something to build ahead of its use.
#[derive(Deserialize, TS, Debug, Clone, PartialEq)]
#[serde(tag = "work", rename_all = "snake_case")]
pub enum Work {
    /// What showing `view` needs.
    View { view: ViewId },
    /// The analysis and, when `state`, the state history (the moment's
    /// reserved memory; the leak report and Color by need none).
    Analysis { state: bool },
    /// The timeline showing open `file` on `device` (none: its default)
    /// needs, replayed where it was freed (a rank's row clicked).
    RankShow { file: u32, device: Option<u32> },
    /// What the Diff's two sides need (their moments play no part).
    DiffSides { form: DiffForm },
}

/// Where a [`Work`] stands after a tick.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct Progress {
    /// More ticks are needed.
    pub busy: bool,
    /// The share done, 1 once built.
    pub share: f64,
    /// "Building the Allocator State History of f.pickle: 42%…".
    pub label: String,
    /// [`Viewer::generation`]: the work is stale once it changes.
    pub generation: u32,
}

/// Trace events (or elements) a tick takes: a few ms of work at most.
pub const TICK_EVENTS: usize = 1 << 12;

impl Viewer {
    /// One step of `work`, about [`TICK_EVENTS`] trace events.
    pub fn tick(&mut self, work: Work) -> Progress {
        let file = self.cx.file().map_or(String::new(), |f| f.name.clone());
        let (share, label) = match work {
            Work::View { view } => {
                let i = view.index();
                let share = self.prepare_view_step(i, TICK_EVENTS);
                (share, building(self.views.get(i).name(), &file, share))
            }
            Work::Analysis { state } => {
                let share = self.prepare_analysis_step(TICK_EVENTS, state);
                (share, building("analysis", &file, share))
            }
            Work::RankShow { file, device } => self.rank_show_step(file, device, TICK_EVENTS << 3),
            Work::DiffSides { form } => self.diff_sides_step(&form, TICK_EVENTS),
        };
        Progress { busy: share < 1.0, share, label, generation: self.generation() }
    }
}

/// The busy note: "Building the {what} of {file}: 42%…".
pub(crate) fn building(what: &str, file: &str, share: f64) -> String {
    format!("Building the {what} of {file}: {}%…", (share * 100.0).floor())
}
