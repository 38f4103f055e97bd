//! The page's API for "Explain the memory" (www/explain.js): Color by, the
//! stacked area, the icicle highlight, the peak and OOM markers, the OOM /
//! peak explanations and the leak report. Forwards to memviz_viewer's
//! explain.rs, which holds the state; `render` draws in the chosen colors.

use crate::Viewer;
use wasm_bindgen::prelude::*;

fn js(e: String) -> JsError {
    JsError::new(&e)
}

#[wasm_bindgen]
impl Viewer {
    /// Colors of the Active Memory Timeline: `allocation` (memory_viz's),
    /// `category`, `frame` (innermost user frame) or `area` (the stacked
    /// area of bytes per kind). Takes effect at the next render.
    pub fn set_color_by(&mut self, mode: &str) -> Result<(), JsError> {
        self.inner.set_color_by(mode).map_err(js)
    }

    /// Highlights the allocations under icicle node `node` (a TreeNode id
    /// of the current file and device) and dims the others; a negative
    /// node clears it. Takes effect at the next render.
    pub fn highlight_node(&mut self, node: f64) {
        self.inner.highlight_node((node >= 0.0 && node < u32::MAX as f64).then_some(node as u32));
    }

    /// The KIND_COLORS as CSS colors, with the kinds' names:
    /// `[[name, "#rrggbb"], ...]` (the legend).
    pub fn kind_colors_json(&self) -> Result<String, JsError> {
        self.inner.kind_colors_json().map_err(js)
    }

    /// In the stacked-area mode, the hover text for CSS (x, y) on the plot
    /// canvas: the step, the kind under the pointer and every kind's bytes
    /// there; "" in any other mode or outside the plot (the page then shows
    /// the band's text as usual).
    pub fn area_text(&mut self, x: f64, y: f64) -> String {
        self.at_dpr().area_text(x, y)
    }

    /// The CSS color of a user frame's bands in the `frame` mode (`id`: a
    /// by_user_frame group id).
    pub fn frame_color_css(&self, id: u32) -> String {
        self.inner.frame_color_css(id)
    }

    /// The peak and every OOM on the current timeline:
    /// `[{what, k, event, x}]`, x in steps (`x_of_step(x)` places it).
    pub fn markers_json(&mut self) -> Result<String, JsError> {
        self.inner.markers_json().map_err(js)
    }

    /// An OOM (`oom:K`) or the peak (`peak`) explained
    /// (memviz_core::analysis::oom::Explanation as JSON).
    pub fn explain_json(&mut self, moment: &str) -> Result<String, JsError> {
        self.inner.explain_json(moment).map_err(js)
    }

    /// The number of `oom` events of the current device.
    pub fn oom_count(&mut self) -> u32 {
        self.inner.oom_count()
    }

    /// The findings of the current device, most important first
    /// (memviz_core::analysis::findings::Findings as JSON: the page's
    /// Findings strip).
    pub fn findings_json(&mut self) -> Result<String, JsError> {
        self.inner.findings_json().map_err(js)
    }

    /// The leak report of the current device (memviz_core::analysis::leaks::
    /// LeakReport as JSON, plus `pending_keys`: the stack of each pending
    /// free listed).
    pub fn leaks_json(&mut self) -> Result<String, JsError> {
        self.inner.leaks_json().map_err(js)
    }
}
