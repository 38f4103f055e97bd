//! The page's API for torch.profiler memory exports (www/profiler.js):
//! `ProfilerView`, apart from `Viewer`, which holds snapshots; the page
//! falls back to it when the snapshot loader says the file is one of these.
//! Forwards to memviz_viewer's profiler.rs and moves the chart's pixels out.

use crate::boundary::{from_js, to_js};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct ProfilerView(memviz_viewer::ProfilerView);

#[wasm_bindgen]
impl ProfilerView {
    /// Reads a whole file; an error when it is no profiler export (a
    /// snapshot goes to `Viewer`) or a broken one (the message names the place).
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str, bytes: &[u8]) -> Result<ProfilerView, JsError> {
        memviz_viewer::ProfilerView::open(name, bytes).map(ProfilerView).map_err(|e| JsError::new(&e))
    }

    /// The panel's command (`ProfilerCommand`: chart, zoom, reset, size,
    /// hover, draw) and what it shows (`ProfilerModel`); with `draw`, also
    /// `pixels`: the plot's RGBA (`width` x `height`) for `putImageData`.
    pub fn update(&mut self, cmd: JsValue) -> Result<JsValue, JsValue> {
        let cmd: memviz_viewer::profiler::ProfilerCommand = from_js(&cmd)?;
        let out = to_js(&self.0.update(&cmd));
        if cmd.draw {
            let px = js_sys::Uint8Array::from(&self.0.render(cmd.width, cmd.height).rgba[..]);
            // Setting a property on a fresh plain object cannot fail.
            let _ = js_sys::Reflect::set(&out, &JsValue::from_str("pixels"), &px);
        }
        Ok(out)
    }
}
