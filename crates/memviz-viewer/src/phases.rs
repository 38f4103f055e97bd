//! Time and phases (www/phases.js over memviz-wasm's phases.rs): the
//! current timeline's record_function phases (memviz_core::phases, from
//! `external_annotations`) with the steps they cover, its `annotate`
//! markers, and the wall-clock time of any step (time_us; idle gaps
//! listed). The page draws them over the plot at `Viewer::x_of_step` and
//! zooms to a phase with `set_window`.

use crate::Viewer;

impl Viewer {
    /// JSON: `{has_time, span_s, gaps: [{step, real_s}], phases: [{name,
    /// internal, open, depth, start_s, end_s, step0, step1}], markers:
    /// [{step, event}]}` for the current file, device and view; `{}` without
    /// a timeline. Phases outside every step get `step0 == step1` at the
    /// edge they are beyond.
    pub fn phases_json(&self) -> String {
        let (Some(f), Some(tl)) = (self.cx.file(), self.cx.timeline()) else { return "{}".to_string() };
        memviz_core::phases::to_json(&f.snap, tl).to_string()
    }

    /// Seconds from the first event at step `s` of the current timeline
    /// (None when the file has no time_us).
    pub fn time_at_step(&self, s: f64) -> Option<f64> {
        let (f, tl) = (self.cx.file()?, self.cx.timeline()?);
        memviz_core::phases::seconds_at_step(&f.snap, tl, s)
    }
}
