//! The segment map's pixels (the state history's list, search and the
//! jumps between views are `command`s), long work a slice at a time, and
//! the phase bar with the x axis in steps or time (memviz_viewer's phases.rs).

use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::{now_ms, put, Viewer};

#[wasm_bindgen]
impl Viewer {
    /// One step of long work (memviz_viewer::work): a `Work` in, its
    /// `Progress` out; the page calls it a slice a frame while busy.
    pub fn tick(&mut self, work: JsValue) -> Result<JsValue, JsValue> {
        let work = crate::boundary::from_js(&work)?;
        Ok(crate::boundary::to_js(&self.inner.tick(work)))
    }

    /// Draws the selected state's segment map into `canvas` (sized in device
    /// pixels by the page); returns the milliseconds it took.
    pub fn state_render(&mut self, canvas: &HtmlCanvasElement) -> Result<f64, JsError> {
        let t0 = now_ms();
        let v = self.at_dpr();
        if let Some(img) = v.views.state.draw(&v.cx, canvas.width(), canvas.height()) {
            put(canvas, img, 0, 0)?;
            return Ok(now_ms() - t0);
        }
        Ok(0.0)
    }

    /// The phase bar (`PhasesCommand`: filter, x axis asked for, hover) and
    /// the x axis as last drawn: a `PhasesView`.
    pub fn phases(&mut self, cmd: JsValue) -> Result<JsValue, JsValue> {
        let cmd: memviz_viewer::phases::PhasesCommand = crate::boundary::from_js(&cmd)?;
        Ok(crate::boundary::to_js(&self.inner.phases(&cmd)))
    }
}
