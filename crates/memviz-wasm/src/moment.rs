//! The page's API for the "Alive at" panel (www/moment.js): forwards to
//! memviz_viewer's moment.rs.

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

    /// Whether the analysis of the current file and device is built. The
    /// first moment, explanation, leak report or color by kind builds it:
    /// the page a slice a frame first (`prepare_analysis_step`,
    /// `withAnalysis` in www/app.js).
    pub fn analysis_built(&self) -> bool {
        self.inner.analysis_built()
    }

    /// Builds the analysis and, when `state`, the state history a step of
    /// about `budget` trace events or elements: the share done, 1 once
    /// built (the page calls it a slice a frame before the analysis panels'
    /// first use; the leak report and Color by need no state history).
    pub fn prepare_analysis_step(&mut self, budget: u32, state: bool) -> f64 {
        self.inner.prepare_analysis_step(budget as usize, state)
    }

    /// The MomentView (memviz_core::analysis) of `moment` (`peak`, `step:S`,
    /// `end`, ...) on the current file and device, as JSON: totals and
    /// groups (the `limit` largest of each); its icicle tree comes apart
    /// (moment_tree_json).
    pub fn moment_json(&mut self, moment: &str, limit: u32) -> Result<String, JsError> {
        self.inner.moment_json(moment, limit as usize).map_err(|e| JsError::new(&e))
    }

    /// The icicle tree at the moment last shown (nodes of at least
    /// `min_tree_bytes`) as JSON `{frames, nodes}`, each node `[id, parent,
    /// depth, frame, bytes, count]`, its frame an index into `frames`.
    pub fn moment_tree_json(&mut self, min_tree_bytes: f64) -> Result<String, JsError> {
        self.inner.moment_tree_json(min_tree_bytes as u64).map_err(|e| JsError::new(&e))
    }

    /// The panel's table at the moment last shown: the groups `by`
    /// (`user_frame`, `frame`) whose key contains `filter`, sorted by `sort`
    /// (`bytes`, `count`, `key`), `limit` of them from the `offset`th, as
    /// JSON `{rows, matched, groups}` (memviz_viewer's moment.rs).
    pub fn moment_rows_json(
        &mut self,
        by: &str,
        filter: &str,
        sort: &str,
        descending: bool,
        offset: u32,
        limit: u32,
    ) -> Result<String, JsError> {
        self.inner
            .moment_rows_json(by, filter, sort, descending, offset as usize, limit as usize)
            .map_err(|e| JsError::new(&e))
    }
}
