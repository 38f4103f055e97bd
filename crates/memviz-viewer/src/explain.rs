//! "Explain the memory" without a browser (www/explain.js over
//! memviz-wasm's explain.rs): Color by (allocation, category, stack frame)
//! and the stacked area of bytes per kind on the Active Memory Timeline,
//! the allocations of an icicle node highlighted, the peak and OOM markers
//! of the current timeline, the OOM / peak explanations and the leak report
//! as JSON. The logic lives in memviz_core::analysis and
//! memviz_render::explain, on the analysis moment.rs caches.

use memviz_core::analysis::series::{markers, KindSeries};
use memviz_core::analysis::{Kind, Moment};
use memviz_core::timeline::TimelineKind;
use memviz_render::explain::{element_colors, render_area, ColorBy, KIND_COLORS};

use crate::Viewer;

/// (file, device): what an analysis, its colors and its series belong to.
type Key = (usize, u32);

/// The colour mode, the highlight and what was computed for them.
#[derive(Default)]
pub(crate) struct ExplainState {
    color_by: ColorBy,
    /// Draw the stacked area by kind instead of the bands.
    area: bool,
    /// The highlighted stack-tree node, for the analysis of (file, device).
    highlight: Option<(Key, u32)>,
    /// What `Context::colors` holds now.
    colors_for: Option<(Key, ColorBy, Option<u32>)>,
    series: Option<(Key, KindSeries)>,
}

fn css(c: [u8; 4]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// Serializes to JSON (a macro: this crate does not name serde itself).
macro_rules! json {
    ($v:expr) => {
        serde_json::to_string($v).map_err(|e| e.to_string())
    };
}

impl Viewer {
    fn on_active_memory(&self) -> bool {
        self.is_active_memory()
    }

    /// Before the bands are drawn: the per-element colors of the mode into
    /// `Context::colors` (empty for memory_viz's colors).
    pub(crate) fn explain_colors(&mut self) {
        let k = self.cx.key();
        let hl = self.explain.highlight.filter(|h| h.0 == k).map(|h| h.1);
        let by = self.explain.color_by;
        if !self.on_active_memory() || (by == ColorBy::Allocation && hl.is_none()) {
            self.cx.colors.clear();
            self.explain.colors_for = None;
            return;
        }
        if self.explain.colors_for == Some((k, by, hl)) || !self.ensure_analysis() {
            return;
        }
        let Some(a) = self.moment.get() else { return };
        let under = hl.map(|n| a.elements_under(n));
        self.cx.colors = element_colors(a, by, under.as_deref());
        self.explain.colors_for = Some((k, by, hl));
    }

    /// The stacked-area mode covers the Active Memory Timeline's bands.
    pub(crate) fn area_shown(&self) -> bool {
        self.explain.area && self.on_active_memory()
    }

    /// After the bands are drawn: in the stacked-area mode, the plot is
    /// redrawn as bytes per kind over the same columns and y axis.
    pub(crate) fn explain_area(&mut self) {
        if !self.area_shown() || !self.ensure_analysis() {
            return;
        }
        let k = self.cx.key();
        let Some(a) = self.moment.get() else { return };
        if self.explain.series.as_ref().map(|s| s.0) != Some(k) {
            self.explain.series = Some((k, KindSeries::new(a)));
        }
        let Some((_, series)) = self.explain.series.as_ref() else { return };
        let cx = &mut self.cx;
        render_area(&cx.cols, |s| series.at_step(a, s), &KIND_COLORS, cx.y_max, &mut cx.plot);
    }

    /// Colors of the Active Memory Timeline: `allocation` (memory_viz's),
    /// `category`, `frame` (innermost user frame) or `area` (the stacked
    /// area of bytes per kind). Takes effect at the next draw.
    pub fn set_color_by(&mut self, mode: &str) -> Result<(), String> {
        if mode == "area" {
            self.explain.area = true;
            self.explain.color_by = ColorBy::Category;
            return Ok(());
        }
        let by = ColorBy::from_name(mode).ok_or_else(|| format!("no color mode {mode:?}"))?;
        self.explain.area = false;
        self.explain.color_by = by;
        Ok(())
    }

    /// Whether the stacked area is drawn instead of the bands.
    pub fn area_mode(&self) -> bool {
        self.explain.area
    }

    /// Highlights the allocations under icicle node `node` (a TreeNode id of
    /// the current file and device) and dims the others; None clears it.
    /// Takes effect at the next draw.
    pub fn highlight_node(&mut self, node: Option<u32>) {
        self.explain.highlight = node.map(|n| (self.cx.key(), n));
    }

    /// The KIND_COLORS as CSS colors, with the kinds' names:
    /// `[[name, "#rrggbb"], ...]` (the legend).
    pub fn kind_colors_json(&self) -> Result<String, String> {
        let v: Vec<(&str, String)> = Kind::ALL.iter().zip(KIND_COLORS).map(|(k, c)| (k.name(), css(c))).collect();
        json!(&v)
    }

    /// In the stacked-area mode, the hover text for CSS (x, y) on the plot
    /// canvas: the step, the kind under the pointer and every kind's bytes
    /// there; "" in any other mode or outside the plot (the page then shows
    /// the band's text as usual).
    pub fn area_text(&self, x: f64, y: f64) -> String {
        if !self.explain.area || !self.on_active_memory() {
            return String::new();
        }
        let (Some(r), Some((_, series)), Some(a)) = (self.cx.rect, self.explain.series.as_ref(), self.moment.get())
        else {
            return String::new();
        };
        let Some((px, py)) = r.pixel_of_css(x, y, self.cx.dpr) else { return String::new() };
        let Some((step, bytes)) = memviz_render::pixel_to_point(&self.cx.cols, self.cx.y_max, r.h, px, py) else {
            return String::new();
        };
        let kinds = series.at_step(a, step);
        let total: u64 = kinds.iter().fold(0u64, |s, &b| s.saturating_add(b));
        let size = |b: u64| memviz_core::format::format_size(b, false);
        let mut under = None;
        let mut top = 0u64;
        for (i, &b) in kinds.iter().enumerate() {
            top = top.saturating_add(b);
            if under.is_none() && b > 0 && bytes < top {
                under = Some(i);
            }
        }
        let mut s = format!("step {step}: {} alive", size(total));
        if let Some(i) = under {
            let share = kinds[i] as f64 * 100.0 / total.max(1) as f64;
            s.push_str(&format!("; under the pointer: {} {} ({share:.1}%)", Kind::ALL[i].name(), size(kinds[i])));
        }
        for (k, &b) in Kind::ALL.iter().zip(&kinds).filter(|(_, &b)| b > 0) {
            s.push_str(&format!("\n  {:<16} {}", k.name(), size(b)));
        }
        s
    }

    /// The CSS color of a user frame's bands in the `frame` mode (`id`: a
    /// by_user_frame group id).
    pub fn frame_color_css(&self, id: u32) -> String {
        css(memviz_render::explain::frame_color(id))
    }

    /// The peak and every OOM on the current timeline:
    /// `[{what, k, event, x}]`, x in steps.
    pub fn markers_json(&mut self) -> Result<String, String> {
        if self.cx.timeline().is_none() || !self.ensure_landmarks() {
            return Ok("[]".into());
        }
        let (Some(l), Some(tl)) = (self.moment.marks(self.cx.key()), self.cx.timeline()) else {
            return Ok("[]".into());
        };
        json!(&markers(l, tl))
    }

    /// An OOM (`oom:K`) or the peak (`peak`) explained
    /// (memviz_core::analysis::oom::Explanation as JSON).
    pub fn explain_json(&mut self, moment: &str) -> Result<String, String> {
        let m = Moment::parse(moment)?;
        if !self.ensure_analysis() {
            return Err("no file".into());
        }
        let Some(h) = self.views.state.history(&self.cx) else { return Err("no trace".into()) };
        let (Some(f), Some(a)) = (self.cx.file(), self.moment.get()) else { return Err("no file".into()) };
        let mut c = h.cursor();
        json!(&a.explain(&f.snap, h, &mut c, m)?)
    }

    /// The number of `oom` events of the current device.
    pub fn oom_count(&mut self) -> u32 {
        if !self.ensure_landmarks() {
            return 0;
        }
        self.moment.marks(self.cx.key()).map_or(0, |l| l.oom_events.len() as u32)
    }

    /// The findings of the current device (memviz_core::analysis::findings::
    /// Findings as JSON: `{device, findings: [{kind, title, bytes, event,
    /// detail}]}`, most important first).
    pub fn findings_json(&mut self) -> Result<String, String> {
        if !self.ensure_analysis() {
            return Err("no file".into());
        }
        let Some(h) = self.views.state.history(&self.cx) else { return Err("no trace".into()) };
        let (Some(f), Some(a)) = (self.cx.file(), self.moment.get()) else { return Err("no file".into()) };
        json!(&a.findings(&f.snap, h))
    }

    /// The leak report of the current device (memviz_core::analysis::leaks::
    /// LeakReport as JSON, plus `pending_keys`: the stack of each pending
    /// free listed, and `growth_line`: the growth part's headline), its
    /// `samples` replaced by `sample_count`: the page
    /// shows how many, and a trace may have 100k+ iterations.
    pub fn leaks_json(&mut self) -> Result<String, String> {
        if !self.ensure_analysis() {
            return Err("no file".into());
        }
        let (Some(f), Some(a)) = (self.cx.file(), self.moment.get()) else { return Err("no file".into()) };
        let mut r = a.leaks(&f.snap);
        let sample_count = std::mem::take(&mut r.samples).len();
        let keys: Vec<String> = r.pending_frees.iter().map(|p| a.stack_key(p.stack)).collect();
        let mut v = serde_json::to_value(&r).map_err(|e| e.to_string())?;
        v["pending_keys"] = serde_json::json!(keys);
        v["sample_count"] = serde_json::json!(sample_count);
        v["growth_line"] = serde_json::json!(r.growth_line());
        if let Some(o) = v.as_object_mut() {
            o.remove("samples");
        }
        json!(&v)
    }
}

/// Whether `colors` (one per element) apply to timeline kind `kind` with
/// `n` elements.
pub(crate) fn colors_apply(colors: &[memviz_render::Rgba], kind: TimelineKind, n: usize) -> bool {
    !colors.is_empty() && colors.len() == n && kind == TimelineKind::ActiveMemory
}
