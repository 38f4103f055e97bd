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
    /// hover) and what it shows (`ProfilerModel`).
    pub fn update(&mut self, cmd: JsValue) -> Result<JsValue, JsValue> {
        let cmd: memviz_viewer::profiler::ProfilerCommand = from_js(&cmd)?;
        Ok(to_js(&self.0.update(&cmd)))
    }

    /// The plot's pixels (RGBA, `w` x `h`) for `putImageData`.
    pub fn pixels(&mut self, w: u32, h: u32) -> Vec<u8> {
        self.0.render(w, h).rgba.clone()
    }
}
