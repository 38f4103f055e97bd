//! Many snapshots at once (www/ranks.js): the overview row of each open
//! file, the rank order of file names, and diffs of two moments
//! (`memviz_core::ranks`, `memviz_core::analysis::diff`). Thin: the logic
//! and its tests are in the core.

use crate::Viewer;
use memviz_core::analysis::diff::{self, Side};
use memviz_core::analysis::{Analysis, GroupBy, Moment, Rules};
use memviz_core::ranks;
use wasm_bindgen::prelude::*;

/// One side of a diff, kept by the page: text-keyed sums that no longer
/// need their snapshot.
#[wasm_bindgen]
pub struct DiffSide(Side);

#[wasm_bindgen]
impl DiffSide {
    /// `{name, device, device_name, at, total_bytes, count}` as JSON.
    pub fn info_json(&self) -> String {
        serde_json::to_string(&self.0.info).unwrap_or_default()
    }
}

impl Viewer {
    /// Open file `i`; the error names the index.
    fn ranks_file(&self, i: u32) -> Result<&crate::app::OpenFile, JsError> {
        self.app.files.get(i as usize).ok_or_else(|| JsError::new(&format!("no file {i}")))
    }
}

#[wasm_bindgen]
impl Viewer {
    /// Overview rows of open file `file` (one per device: `memviz
    /// summary`'s peaks, end, OOMs, a sparkline of at most `samples`
    /// points) as JSON: `{name, rank, rows: [...]}`.
    pub fn overview_json(&self, file: u32, samples: u32) -> Result<String, JsError> {
        let f = self.ranks_file(file)?;
        // The file just read is the current one: its timeline is built.
        let built = if self.app.current == file as usize { self.app.timeline() } else { None };
        let rows = ranks::overview_using(&f.snap, samples as usize, built);
        let v = serde_json::json!({ "name": f.name, "rank": ranks::rank_of(&f.name), "rows": rows });
        Ok(v.to_string())
    }

    /// Frees the timelines of the files not shown (www/ranks.js, after
    /// reading each file of a batch and after showing one): with many ranks
    /// open, only their models stay.
    pub fn keep_only_current_views(&mut self) {
        self.app.drop_other_timelines();
    }

    /// What was alive at `moment` (`peak`, `end`, `step:S`, an event...) on
    /// `device` of open file `file`, for [`diff_json`].
    pub fn diff_side(&self, file: u32, device: u32, moment: &str) -> Result<DiffSide, JsError> {
        let m = Moment::parse(moment).map_err(|e| JsError::new(&e))?;
        let f = self.ranks_file(file)?;
        if !f.snap.devices().contains(&device) {
            return Err(JsError::new(&format!("{}: no device {device}", f.name)));
        }
        let a = Analysis::build(&f.snap, device, &Rules::default());
        let label = format!("{} (device {})", f.name, f.snap.device_name(device));
        Side::new(&f.snap, &a, m, &label).map(DiffSide).map_err(|e| JsError::new(&format!("{}: {e}", f.name)))
    }

    /// B against A grouped `by` (`stack`, `user`, `frame`, `category`) as JSON:
    /// the Diff (its `groups` cut to the `limit` largest changes, `group_count`
    /// says how many there were) and `tree`, the merged stack tree for the
    /// two-colour icicle (nodes of at least `min_tree_bytes` on either side).
    pub fn diff_json(
        &self,
        a: &DiffSide,
        b: &DiffSide,
        by: &str,
        limit: u32,
        min_tree_bytes: f64,
    ) -> Result<String, JsError> {
        let by = GroupBy::from_name(by).ok_or_else(|| JsError::new(&format!("no grouping {by:?}")))?;
        let mut d = diff::diff(&a.0, &b.0, by);
        let count = d.groups.len();
        d.groups.truncate(limit as usize);
        let tree = diff::diff_tree(&a.0, &b.0, min_tree_bytes as u64);
        let mut v = serde_json::to_value(&d).map_err(|e| JsError::new(&e.to_string()))?;
        v["group_count"] = count.into();
        v["tree"] = serde_json::to_value(&tree).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(v.to_string())
    }

    /// The order to show files in: ranked names by rank, then the rest by name
    /// (indices into `names`).
    pub fn rank_order(&self, names: Vec<String>) -> Vec<u32> {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        ranks::rank_order(&refs).into_iter().map(|i| i as u32).collect()
    }

    /// The rank a file name carries (-1: none).
    pub fn rank_of(&self, name: &str) -> i32 {
        ranks::rank_of(name).and_then(|r| i32::try_from(r).ok()).unwrap_or(-1)
    }

    /// How far each peak is from the median peak, as a fraction of it.
    pub fn distance_from_median(&self, peaks: Vec<f64>) -> Vec<f64> {
        let p: Vec<u64> = peaks.iter().map(|&x| x.max(0.0) as u64).collect();
        ranks::distance_from_median(&p)
    }
}
