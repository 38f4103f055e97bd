//! The plot's steps and the analysis' build for every panel on the Active
//! Memory Timeline (moment.js, phases.js, ranks.js, app.js's withAnalysis):
//! these belong with the axes and the one scheduler (issue 42), not with
//! the panels, whose one export is `panel` (explain.rs).

use wasm_bindgen::prelude::*;

use crate::Viewer;

#[wasm_bindgen]
impl Viewer {
    /// Step of the plot under CSS x (rounded; clamped to the timeline).
    pub fn step_at_x(&mut self, x: f64) -> u32 {
        self.at_dpr().step_at_x(x)
    }

    /// CSS x of step `s` on the plot as last drawn (NaN before a draw).
    pub fn x_of_step(&mut self, s: f64) -> f64 {
        self.at_dpr().x_of_step(s)
    }

    /// Whether the current view is the Active Memory Timeline.
    pub fn is_active_memory(&self) -> bool {
        self.inner.is_active_memory()
    }

    /// Whether the analysis of the current file and device is built.
    pub fn analysis_built(&self) -> bool {
        self.inner.analysis_built()
    }

    /// Builds the analysis and, when `state`, the state history a step of
    /// about `budget` trace events or elements: the share done, 1 once built
    /// (`withAnalysis` in www/app.js calls it a slice a frame).
    pub fn prepare_analysis_step(&mut self, budget: u32, state: bool) -> f64 {
        self.inner.prepare_analysis_step(budget as usize, state)
    }
}
