//! Many snapshots at once (www/ranks.js over memviz-wasm's ranks.rs): the
//! overview row of each open file, the rank order of file names, and diffs
//! of two moments (`memviz_core::ranks`, `memviz_core::analysis::diff`).
//! The logic and its tests are in the core.

use memviz_core::analysis::diff::{self, Side};
use memviz_core::analysis::{GroupBy, Moment};
use memviz_core::ranks;

use crate::{OpenFile, Viewer};

impl Viewer {
    /// Open file `i`; the error names the index.
    fn ranks_file(&self, i: usize) -> Result<&OpenFile, String> {
        self.cx.files.get(i).ok_or_else(|| format!("no file {i}"))
    }

    /// Open file `i`, which has `device`; the error names the file or the
    /// device.
    fn diff_file(&self, i: usize, device: u32) -> Result<&OpenFile, String> {
        let f = self.ranks_file(i)?;
        if !f.snap.devices().contains(&device) {
            return Err(format!("{}: no device {device}", f.name));
        }
        Ok(f)
    }

    /// Whether (file, device) `k` is the one shown and has its analysis
    /// (the "Alive at" panel or Explain built it): a diff side takes it.
    fn shown_analysis(&self, k: (usize, u32)) -> bool {
        self.analysis_built() && self.cx.key() == k
    }

    /// Overview rows of open file `file` (one per device: `memviz
    /// summary`'s peaks, end, OOMs, a sparkline of at most `samples`
    /// points) as JSON: `{name, rank, rows: [...]}`.
    pub fn overview_json(&self, file: usize, samples: usize) -> Result<String, String> {
        let f = self.ranks_file(file)?;
        // The file just read is the current one: its timeline is built.
        let built = if self.cx.current == file { self.cx.timeline() } else { None };
        let rows = ranks::overview_using(&f.snap, samples, built);
        let v = serde_json::json!({ "name": f.name, "rank": ranks::rank_of(&f.name), "rows": rows });
        Ok(v.to_string())
    }

    /// Frees the timelines of the files not shown, but for the most
    /// recently shown ones while they hold at most as many bytes as the
    /// largest open model: with many ranks open, the others keep only their
    /// models (a timeline is built again when its file is shown again), and
    /// going back to the rank shown before replays nothing (a replay is
    /// ~27 ms a device on the 2M-event file; its timeline ~35 MB, the
    /// model's 83 MB).
    pub fn trim_hidden_views(&mut self) {
        let files = &mut self.cx.files;
        let budget = files.iter().map(|f| f.snap.heap_bytes()).max().unwrap_or(0);
        let mut hidden: Vec<usize> = (0..files.len()).filter(|&i| i != self.cx.current).collect();
        hidden.sort_by_key(|&i| std::cmp::Reverse(files[i].shown));
        let mut kept = 0;
        for i in hidden {
            kept += files[i].timeline_bytes();
            if kept > budget {
                files[i].drop_timelines();
            }
        }
    }

    /// Replays the timeline that showing open file `file` on `device` (None:
    /// its default one) needs, about `budget` trace events a call, so that
    /// the page can show a rank whose timeline was freed over a few frames
    /// rather than in one long task; true once it is built (at once when
    /// it was kept). The error names the file or the device.
    pub fn prepare_file_step(&mut self, file: usize, device: Option<u32>, budget: usize) -> Result<bool, String> {
        let kind = self.cx.kind;
        let f = self.cx.files.get_mut(file).ok_or_else(|| format!("no file {file}"))?;
        let d = device.unwrap_or_else(|| f.first_device());
        if !f.snap.devices().contains(&d) {
            return Err(format!("{}: no device {d}", f.name));
        }
        Ok(f.build_timeline_step(d, kind, budget))
    }

    /// Bytes held by the timelines of open file `file` (0 once freed).
    pub fn timeline_bytes(&self, file: usize) -> usize {
        self.cx.files.get(file).map_or(0, |f| f.timeline_bytes())
    }

    /// Builds what [`Viewer::diff_side`] needs of `device` of open file
    /// `file`, about `budget` trace events or elements a call, so that the
    /// page can do it a slice a frame before a Diff (its analysis: ~170 ms
    /// in one call on the 2M-event file). The share done, 1.0 once built (at
    /// once when it was). The error names the file or the device.
    pub fn prepare_diff_side_step(&mut self, file: usize, device: u32, budget: usize) -> Result<f64, String> {
        self.diff_file(file, device)?;
        let k = (file, device);
        if self.shown_analysis(k) || self.analyses.get(k).is_some() {
            return Ok(1.0);
        }
        Ok(self.analyses.step(k, &self.cx.files[file], budget))
    }

    /// What was alive at `moment` (`peak`, `end`, `step:S`, an event...) on
    /// `device` of open file `file`, for [`diff_json`].
    pub fn diff_side(&mut self, file: usize, device: u32, moment: &str) -> Result<Side, String> {
        let m = Moment::parse(moment)?;
        self.diff_file(file, device)?;
        let k = (file, device);
        // Others than the shown one's are kept for the next diff.
        let shown = self.shown_analysis(k);
        if !shown {
            self.analyses.ensure(k, &self.cx.files[file]);
        }
        let a = match self.moment.get() {
            Some(a) if shown => a,
            _ => self.analyses.get(k).expect("ensured"),
        };
        let f = &self.cx.files[file];
        let label = format!("{} (device {})", f.name, f.snap.device_name(device));
        Side::new(&f.snap, a, m, &label).map_err(|e| format!("{}: {e}", f.name))
    }
}

/// B against A grouped `by` (`stack`, `user`, `frame`, `category`) as JSON:
/// the Diff (its `groups` cut to the `limit` largest changes, `group_count`
/// says how many there were).
pub fn diff_json(a: &Side, b: &Side, by: &str, limit: usize) -> Result<String, String> {
    let by = GroupBy::from_name(by).ok_or_else(|| format!("no grouping {by:?}"))?;
    let mut d = diff::diff(a, b, by);
    let count = d.groups.len();
    d.groups.truncate(limit);
    let mut v = serde_json::to_value(&d).map_err(|e| e.to_string())?;
    v["group_count"] = count.into();
    Ok(v.to_string())
}

/// The merged stack tree of A and B for the two-colour icicle (nodes of at
/// least `min_tree_bytes` on either side) as JSON `{frames, nodes}`
/// ([`crate::moment::tree_json`]): each node `[id, parent, depth, frame,
/// bytes_a, bytes_b]`. Apart from [`diff_json`]: the page draws the table
/// first and the icicle in the next frame.
pub fn diff_tree_json(a: &Side, b: &Side, min_tree_bytes: u64) -> String {
    let tree = diff::diff_tree(a, b, min_tree_bytes);
    crate::moment::tree_json(tree.iter().map(|n| ((n.id, n.parent, n.depth), n.frame.as_str(), [n.bytes_a, n.bytes_b])))
}

/// A diff side's `{name, device, device_name, at, total_bytes, count}` as JSON.
pub fn side_info_json(s: &Side) -> String {
    serde_json::to_string(&s.info).unwrap_or_default()
}

/// The order to show files in: ranked names by rank, then the rest by name
/// (indices into `names`).
pub fn rank_order(names: &[String]) -> Vec<u32> {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    ranks::rank_order(&refs).into_iter().map(|i| i as u32).collect()
}

/// The rank a file name carries (None: none, or past i32).
pub fn rank_of(name: &str) -> Option<i32> {
    ranks::rank_of(name).and_then(|r| i32::try_from(r).ok())
}

/// How far each peak is from the median peak, as a fraction of it.
pub fn distance_from_median(peaks: &[f64]) -> Vec<f64> {
    let p: Vec<u64> = peaks.iter().map(|&x| x.max(0.0) as u64).collect();
    ranks::distance_from_median(&p)
}
