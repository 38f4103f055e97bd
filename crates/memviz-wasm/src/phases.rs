//! The page's API for time and phases (www/phases.js): forwards to
//! memviz_viewer's phases.rs.

use crate::Viewer;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// JSON: `{has_time, span_s, gaps: [{step, real_s}], phases: [{name,
    /// internal, open, depth, start_s, end_s, step0, step1}], markers:
    /// [{step, event}]}` for the current file, device and view. Phases
    /// outside every step get `step0 == step1` at the edge they are beyond.
    pub fn phases_json(&self) -> String {
        self.inner.phases_json()
    }

    /// Seconds from the first event at step `s` of the current timeline
    /// (NaN when the file has no time_us).
    pub fn time_at_step(&self, s: f64) -> f64 {
        self.inner.time_at_step(s).unwrap_or(f64::NAN)
    }
}
