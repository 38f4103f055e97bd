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

    /// CSS x on the plot of `s` seconds from the first event, on the time
    /// axis: where that instant lies (inside a step or a compressed gap).
    /// NaN on the step axis (phases are placed at their steps there) or
    /// before a draw.
    pub fn x_of_seconds(&self, s: f64) -> f64 {
        let Some(a) = self.cx.time_axis() else { return f64::NAN };
        self.x_of_step(a.step_of_x(a.x_of_time(a.t0_us.saturating_add((s * 1e6).round() as i64))))
    }

    /// The x axis as last drawn, as JSON: `{axis: "step" | "time", reason,
    /// ticks: [{x, label}], gaps: [{x0, x1, label}]}` (CSS x on the plot
    /// canvas; ticks and gaps on the time axis only: the step axis' labels
    /// are plotters' own).
    pub fn x_axis_json(&self) -> String {
        let css = |r: crate::PlotRect, f: f64| (r.x as f64 + f * r.w as f64) / self.cx.dpr;
        let (ticks, gaps) = match (self.cx.rect, self.cx.time_axis()) {
            (Some(r), Some(_)) => {
                let t = self.cx.axes_spec(r, self.cx.y_max, None, "").time.unwrap_or_default();
                let ticks: Vec<_> =
                    t.ticks.iter().map(|(f, l)| serde_json::json!({"x": css(r, *f), "label": l})).collect();
                let gaps: Vec<_> = t
                    .gaps
                    .iter()
                    .map(|(a, b, l)| serde_json::json!({"x0": css(r, *a), "x1": css(r, *b), "label": l}))
                    .collect();
                (ticks, gaps)
            }
            _ => (vec![], vec![]),
        };
        let axis = self.cx.x_shown().as_str();
        serde_json::json!({"axis": axis, "reason": self.cx.x_reason(), "ticks": ticks, "gaps": gaps}).to_string()
    }

    /// Seconds from the first event at step `s` of the current timeline
    /// (None when the file has no time_us).
    pub fn time_at_step(&self, s: f64) -> Option<f64> {
        let (f, tl) = (self.cx.file()?, self.cx.timeline()?);
        memviz_core::phases::seconds_at_step(&f.snap, tl, s)
    }
}
