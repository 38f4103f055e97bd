//! The "Alive at" panel's data: `memviz_core::analysis` at one moment of the
//! Active Memory Timeline, as JSON for www/moment.js.

use crate::Viewer;
use memviz_core::analysis::{Analysis, Moment, Rules};
use memviz_core::timeline::TimelineKind;
use wasm_bindgen::prelude::*;

/// The analysis of (file, device), built on first use.
#[derive(Default)]
pub struct MomentCache {
    pub(crate) analysis: Option<((usize, u32), Analysis)>,
}

impl Viewer {
    /// Builds the analysis of the current (file, device) unless it is built;
    /// false without a file.
    pub(crate) fn ensure_analysis(&mut self) -> bool {
        let Some(f) = self.app.file() else { return false };
        let k = (self.app.current, self.app.device);
        if self.moment.analysis.as_ref().map(|a| a.0) != Some(k) {
            self.moment.analysis = None;
            let rules = Rules::default();
            let a = match self.app.timeline() {
                Some(tl) if tl.kind == TimelineKind::ActiveMemory => Analysis::new(&f.snap, tl, &rules),
                _ => Analysis::build(&f.snap, self.app.device, &rules),
            };
            self.moment.analysis = Some((k, a));
        }
        true
    }
}

#[wasm_bindgen]
impl Viewer {
    /// Step of the plot under CSS x (rounded; clamped to the timeline).
    pub fn step_at_x(&self, x: f64) -> u32 {
        let w = self.app.window;
        let s = w.x0 + self.plot_frac(x) * (w.x1 - w.x0);
        let n = self.app.n_steps();
        (s.round().max(0.0) as u32).min(n.saturating_sub(1))
    }

    /// CSS x of step `s` on the plot as last drawn (NaN before a draw).
    pub fn x_of_step(&self, s: f64) -> f64 {
        let (w, Some(r)) = (self.app.window, self.app.rect) else { return f64::NAN };
        let frac = (s - w.x0) / (w.x1 - w.x0).max(1e-9);
        (r.x as f64 + frac * r.w as f64) / self.dpr()
    }

    /// Whether the current view is the Active Memory Timeline.
    pub fn is_active_memory(&self) -> bool {
        self.app.timeline().is_some_and(|t| t.kind == TimelineKind::ActiveMemory)
    }

    /// The MomentView (memviz_core::analysis) of `moment` (`peak`, `step:S`,
    /// `end`, ...) on the current file and device, as JSON: totals, groups
    /// (the `limit` largest of each) and the icicle tree (nodes of at least
    /// `min_tree_bytes`).
    pub fn moment_json(&mut self, moment: &str, limit: u32, min_tree_bytes: f64) -> Result<String, JsError> {
        let m = Moment::parse(moment).map_err(|e| JsError::new(&e))?;
        if !self.ensure_analysis() {
            return Err(JsError::new("no file"));
        }
        let Some(f) = self.app.file() else { return Err(JsError::new("no file")) };
        let a = &self.moment.analysis.as_ref().expect("built above").1;
        let sv = self.views.state_history(&self.app);
        let v = match sv {
            Some(h) => {
                let mut c = h.cursor();
                a.moment(&f.snap, Some((h, &mut c)), m, limit as usize, min_tree_bytes as u64)
            }
            None => a.moment(&f.snap, None, m, limit as usize, min_tree_bytes as u64),
        }
        .map_err(|e| JsError::new(&e))?;
        serde_json::to_string(&v).map_err(|e| JsError::new(&e.to_string()))
    }
}
