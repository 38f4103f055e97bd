//! The page's API for many snapshots at once (www/ranks.js): overview rows,
//! rank order, diffs of two moments. Forwards to memviz_viewer's ranks.rs
//! (the logic and its tests are in memviz_core).

use crate::Viewer;
use memviz_core::analysis::diff::Side;
use memviz_viewer::ranks;
use wasm_bindgen::prelude::*;

fn js(e: String) -> JsError {
    JsError::new(&e)
}

/// One side of a diff, kept by the page: text-keyed sums that no longer
/// need their snapshot.
#[wasm_bindgen]
pub struct DiffSide(Side);

#[wasm_bindgen]
impl DiffSide {
    /// `{name, device, device_name, at, total_bytes, count}` as JSON.
    pub fn info_json(&self) -> String {
        ranks::side_info_json(&self.0)
    }
}

#[wasm_bindgen]
impl Viewer {
    /// Overview rows of open file `file` (one per device: `memviz
    /// summary`'s peaks, end, OOMs, a sparkline of at most `samples`
    /// points) as JSON: `{name, rank, rows: [...]}`.
    pub fn overview_json(&self, file: u32, samples: u32) -> Result<String, JsError> {
        self.inner.overview_json(file as usize, samples as usize).map_err(js)
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

    /// What was alive at `moment` (`peak`, `end`, `step:S`, an event...) on
    /// `device` of open file `file`, for [`diff_json`].
    pub fn diff_side(&mut self, file: u32, device: u32, moment: &str) -> Result<DiffSide, JsError> {
        self.inner.diff_side(file as usize, device, moment).map(DiffSide).map_err(js)
    }

    /// B against A grouped `by` (`stack`, `user`, `frame`, `category`) as JSON:
    /// the Diff (its `groups` cut to the `limit` largest changes, `group_count`
    /// says how many there were).
    pub fn diff_json(&self, a: &DiffSide, b: &DiffSide, by: &str, limit: u32) -> Result<String, JsError> {
        ranks::diff_json(&a.0, &b.0, by, limit as usize).map_err(js)
    }

    /// The merged stack tree of A and B for the two-colour icicle (nodes of
    /// at least `min_tree_bytes` on either side), as JSON `{frames, nodes}`
    /// (memviz_viewer::ranks::diff_tree_json).
    pub fn diff_tree_json(&self, a: &DiffSide, b: &DiffSide, min_tree_bytes: f64) -> String {
        ranks::diff_tree_json(&a.0, &b.0, min_tree_bytes as u64)
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
