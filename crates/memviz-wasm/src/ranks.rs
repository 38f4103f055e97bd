//! The page's API for many snapshots at once (www/ranks.js): overview rows,
//! rank order, diffs of two moments. Forwards to memviz_viewer's ranks.rs
//! (the logic and its tests are in memviz_core).

use crate::boundary::{error, from_js, to_js};
use crate::Viewer;
use memviz_viewer::ranks;
use wasm_bindgen::prelude::*;

fn js(e: String) -> JsError {
    JsError::new(&e)
}

#[wasm_bindgen]
impl Viewer {
    /// The overview rows of open file `file` (an `OverviewView`).
    pub fn overview(&self, file: u32) -> Result<JsValue, JsValue> {
        self.inner.overview(file as usize).map(|v| to_js(&v)).map_err(error)
    }

    /// Frees the timelines of the files not shown but the most recently
    /// shown (www/ranks.js, after reading each file of a batch and after
    /// showing one): with many ranks open, most keep only their models.
    pub fn trim_hidden_views(&mut self) {
        self.inner.trim_hidden_views();
    }

    /// Replays about `budget` trace events of the timeline that showing
    /// file `file` on `device` (undefined: its default) needs; true once it
    /// is built (at once when it was kept). www/ranks.js calls it a few
    /// times a frame before showing a rank whose timeline was freed.
    pub fn prepare_file_step(&mut self, file: u32, device: Option<u32>, budget: u32) -> Result<bool, JsError> {
        self.inner.prepare_file_step(file as usize, device, budget as usize).map_err(js)
    }

    /// Bytes held by the timelines of file `file` (0 once freed).
    pub fn timeline_bytes(&self, file: u32) -> f64 {
        self.inner.timeline_bytes(file as usize) as f64
    }

    /// Builds what `diff_side(file, device, ..)` needs, about `budget` trace
    /// events or elements a call: the share done, 1 once built (at once
    /// when it was). www/ranks.js calls it a slice a frame before a Diff.
    pub fn prepare_diff_side_step(&mut self, file: u32, device: u32, budget: u32) -> Result<f64, JsError> {
        self.inner.prepare_diff_side_step(file as usize, device, budget as usize).map_err(js)
    }

    /// The Diff panel: B against A (`DiffCommand`: two sides, a grouping,
    /// the table or the icicle) as a `DiffView`.
    pub fn diff(&mut self, cmd: JsValue) -> Result<JsValue, JsValue> {
        let cmd: ranks::DiffCommand = from_js(&cmd)?;
        self.inner.diff(&cmd).map(|v| to_js(&v)).map_err(error)
    }

    /// The order to show files in: ranked names by rank, then the rest by name
    /// (indices into `names`).
    pub fn rank_order(&self, names: Vec<String>) -> Vec<u32> {
        ranks::rank_order(&names)
    }

    /// The rank a file name carries (-1: none).
    pub fn rank_of(&self, name: &str) -> i32 {
        ranks::rank_of(name).unwrap_or(-1)
    }

    /// How far each peak is from the median peak, as a fraction of it.
    pub fn distance_from_median(&self, peaks: Vec<f64>) -> Vec<f64> {
        ranks::distance_from_median(&peaks)
    }
}
