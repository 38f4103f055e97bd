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
}
