//! The page's API for torch.profiler memory exports (www/profiler.js):
//! `ProfilerView`, apart from `Viewer`, which holds snapshots; the page
//! falls back to it when the snapshot loader says the file is one of these.
//! Forwards to memviz_viewer's profiler.rs and puts the chart's pixels.

use crate::boundary::{from_js, to_js};
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

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
    /// hover, draw) and what it shows (`ProfilerModel`); with `draw`, the
    /// chart is drawn into `canvas` (sized `width` x `height` by the page).
    pub fn update(&mut self, cmd: JsValue, canvas: Option<HtmlCanvasElement>) -> Result<JsValue, JsValue> {
        let cmd: memviz_viewer::profiler::ProfilerCommand = from_js(&cmd)?;
        let out = to_js(&self.0.update(&cmd));
        if let (true, Some(c)) = (cmd.draw, canvas) {
            crate::put(&c, &self.0.render_canvas(cmd.width, cmd.height, cmd.dpr), 0, 0)?;
        }
        Ok(out)
    }
}
