//! Time and phases for the page (www/phases.js): the current timeline's
//! record_function phases (memviz_core::phases, from `external_annotations`)
//! with the steps they cover, its `annotate` markers, and the wall-clock
//! time of any step (time_us; idle gaps listed). The page draws them over
//! the plot at `Viewer::x_of_step` and zooms to a phase with `set_window`.

use crate::Viewer;
use memviz_core::phases::{markers, phases, step_range, TimeAxis};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// JSON: `{has_time, span_s, gaps: [{step, real_s}], phases: [{name,
    /// internal, open, depth, start_s, end_s, step0, step1}], markers:
    /// [{step, event}]}` for the current file, device and view. Phases
    /// outside every step get `step0 == step1` at the edge they are beyond.
    pub fn phases_json(&self) -> String {
        let (Some(f), Some(tl)) = (self.app.file(), self.app.timeline()) else { return "{}".to_string() };
        let snap = &f.snap;
        let axis = TimeAxis::build(snap, tl, None);
        let n = tl.n_steps();
        let mut out = serde_json::json!({
            "has_time": axis.is_some(),
            "span_s": axis.as_ref().map(|a| a.seconds_at(a.span())),
            "gaps": axis.as_ref().map_or(vec![], |a| a.gaps.iter().map(|g| serde_json::json!({"step": g.step, "real_s": g.real_s})).collect()),
            "markers": markers(snap, tl).iter().map(|(s, e)| serde_json::json!({"step": s, "event": e})).collect::<Vec<_>>(),
        });
        let list: Vec<serde_json::Value> = match &axis {
            None => vec![],
            Some(a) => phases(snap, tl.device)
                .iter()
                .map(|p| {
                    let (s0, s1) = match step_range(a, p) {
                        Some(r) => r,
                        None if p.end_us < a.t0_us => (0, 0),
                        None => (n, n),
                    };
                    serde_json::json!({
                        "name": p.name,
                        "internal": p.internal,
                        "open": p.open,
                        "depth": p.depth,
                        "start_s": (p.start_us - a.t0_us) as f64 / 1e6,
                        "end_s": (p.end_us - a.t0_us) as f64 / 1e6,
                        "step0": s0,
                        "step1": s1,
                    })
                })
                .collect(),
        };
        out["phases"] = list.into();
        out.to_string()
    }

    /// Seconds from the first event at step `s` of the current timeline
    /// (NaN when the file has no time_us).
    pub fn time_at_step(&self, s: f64) -> f64 {
        let (Some(f), Some(tl)) = (self.app.file(), self.app.timeline()) else { return f64::NAN };
        // Phases are drawn on the step axis: no gap is compressed here.
        TimeAxis::build(&f.snap, tl, Some(f64::INFINITY)).map_or(f64::NAN, |a| a.seconds_at(a.x_of_step(s)))
    }
}
