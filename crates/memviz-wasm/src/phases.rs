//! The page's API for time and phases (www/phases.js): forwards to
//! memviz_viewer's phases.rs, and the x axis in steps or time (xaxis.rs).

use crate::boundary::{from_js, to_js};
use crate::Viewer;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// The phase bar (`PhasesCommand`: filter, x axis asked for, hover) and
    /// the x axis as last drawn: a `PhasesView`.
    pub fn phases(&mut self, cmd: JsValue) -> Result<JsValue, JsValue> {
        let cmd: memviz_viewer::phases::PhasesCommand = from_js(&cmd)?;
        Ok(to_js(&self.inner.phases(&cmd)))
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
