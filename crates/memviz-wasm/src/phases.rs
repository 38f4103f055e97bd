//! Time and phases for the page (www/phases.js): the current timeline's
//! record_function phases (memviz_core::phases, from `external_annotations`)
//! with the steps they cover, its `annotate` markers, and the wall-clock
//! time of any step (time_us; idle gaps listed). The page draws them over
//! the plot at `Viewer::x_of_step` and zooms to a phase with `set_window`.

use crate::Viewer;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// JSON: `{has_time, span_s, gaps: [{step, real_s}], phases: [{name,
    /// internal, open, depth, start_s, end_s, step0, step1}], markers:
    /// [{step, event}]}` for the current file, device and view. Phases
    /// outside every step get `step0 == step1` at the edge they are beyond.
    pub fn phases_json(&self) -> String {
        let (Some(f), Some(tl)) = (self.app.file(), self.app.timeline()) else { return "{}".to_string() };
        memviz_core::phases::to_json(&f.snap, tl).to_string()
    }

    /// Seconds from the first event at step `s` of the current timeline
    /// (NaN when the file has no time_us).
    pub fn time_at_step(&self, s: f64) -> f64 {
        let (Some(f), Some(tl)) = (self.app.file(), self.app.timeline()) else { return f64::NAN };
        memviz_core::phases::seconds_at_step(&f.snap, tl, s).unwrap_or(f64::NAN)
    }
}
