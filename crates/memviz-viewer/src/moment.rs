//! The "Alive at" panel's data: `memviz_core::analysis` at one moment of
//! the Active Memory Timeline, as JSON for www/moment.js.

use memviz_core::analysis::{Analysis, Moment, Rules};
use memviz_core::timeline::TimelineKind;

use crate::Viewer;

/// The analysis of (file, device), built on first use.
#[derive(Default)]
pub(crate) struct MomentCache {
    analysis: Option<((usize, u32), Analysis)>,
}

impl Viewer {
    /// Whether the timeline shown is the Active Memory Timeline.
    pub fn is_active_memory(&self) -> bool {
        self.cx.timeline().is_some_and(|t| t.kind == TimelineKind::ActiveMemory)
    }

    /// The MomentView of `moment` (`peak`, `step:S`, `end`, ...) on the
    /// current file and device, as JSON: totals, groups (the `limit` largest
    /// of each) and the icicle tree (nodes of at least `min_tree_bytes`).
    pub fn moment_json(&mut self, moment: &str, limit: usize, min_tree_bytes: u64) -> Result<String, String> {
        let m = Moment::parse(moment)?;
        let Some(f) = self.cx.file() else { return Err("no file".into()) };
        let k = self.cx.key();
        let cache = &mut self.moment.analysis;
        if cache.as_ref().map(|a| a.0) != Some(k) {
            *cache = None;
            let rules = Rules::default();
            let a = match self.cx.timeline() {
                Some(tl) if tl.kind == TimelineKind::ActiveMemory => Analysis::new(&f.snap, tl, &rules),
                _ => Analysis::build(&f.snap, self.cx.device, &rules),
            };
            *cache = Some((k, a));
        }
        let Some((_, a)) = cache.as_ref() else { return Err("no analysis".into()) };
        let v = match self.views.state.history(&self.cx) {
            Some(h) => {
                let mut c = h.cursor();
                a.moment(&f.snap, Some((h, &mut c)), m, limit, min_tree_bytes)
            }
            None => a.moment(&f.snap, None, m, limit, min_tree_bytes),
        }?;
        serde_json::to_string(&v).map_err(|e| e.to_string())
    }
}
