//! The page's API for time and phases (www/phases.js): forwards to
//! memviz_viewer's phases.rs, and the x axis in steps or time (xaxis.rs).

use crate::Viewer;
use memviz_viewer::XMode;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// JSON: `{has_time, phases: [{name, internal, open, depth, start_s,
    /// end_s, step0, step1}], markers: [{step, event}]}` for the current file, device and view. Phases
    /// with no step inside get `step0 == step1` at the step their time falls at.
    pub fn phases_json(&self) -> String {
        self.inner.phases_json()
    }

    /// Seconds from the first event at step `s` of the current timeline
    /// (NaN when the file has no time_us).
    pub fn time_at_step(&mut self, s: f64) -> f64 {
        self.inner.time_at_step(s).unwrap_or(f64::NAN)
    }

    /// Asks for the plot's x axis: "step" or "time" (wall-clock time from
    /// time_us, idle gaps compressed). True when the plot now shows it; a
    /// timeline without time_us stays in steps (`x_axis_reason` says why).
    /// The choice is kept across views, devices and files.
    pub fn set_x_axis(&mut self, mode: &str) -> Result<bool, JsError> {
        let m = XMode::from_name(mode).ok_or_else(|| JsError::new(&format!("x axis {mode:?}: step or time")))?;
        Ok(self.inner.set_x_axis(m))
    }

    /// The x axis the plot shows now: "step" or "time".
    pub fn x_axis(&self) -> String {
        self.inner.x_axis().as_str().into()
    }

    /// Why the current timeline cannot be shown in time; empty when it can.
    pub fn x_axis_reason(&self) -> String {
        self.inner.x_axis_reason()
    }

    /// CSS x of `s` seconds from the first event on the time axis (NaN on
    /// the step axis).
    pub fn x_of_seconds(&self, s: f64) -> f64 {
        self.inner.x_of_seconds(s)
    }

    /// The x axis as last drawn, as JSON: `{axis, reason, ticks: [{x,
    /// label}], gaps: [{x0, x1, label}]}` (CSS x; ticks and gaps on the
    /// time axis only).
    pub fn x_axis_json(&self) -> String {
        self.inner.x_axis_json()
    }

    /// Step at fraction `f` of the minimap's width (it follows the x axis).
    pub fn minimap_step(&self, f: f64) -> f64 {
        self.inner.minimap_step(f)
    }

    /// Centers the window on step `s`, keeping its width on the x axis.
    pub fn center_window(&mut self, s: f64) {
        self.inner.center_window(s);
    }
}
