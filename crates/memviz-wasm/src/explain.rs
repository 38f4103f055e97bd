//! "Explain the memory" for www/explain.js: Color by (allocation, category,
//! stack frame) and the categorized stacked area on the Active Memory
//! Timeline, the allocations of an icicle node highlighted, the peak and OOM
//! markers of the current timeline, the OOM / peak explanations and the leak
//! report as JSON. The logic lives in memviz_core::analysis and
//! memviz_render::explain; this is the glue.

use crate::Viewer;
use memviz_core::analysis::series::{markers, KindSeries};
use memviz_core::analysis::{Kind, Moment};
use memviz_core::timeline::TimelineKind;
use memviz_render::explain::{element_colors, render_area, ColorBy, KIND_COLORS};
use wasm_bindgen::prelude::*;

/// (file, device): what an analysis, its colors and its series belong to.
type Key = (usize, u32);

#[derive(Default)]
pub struct ExplainState {
    color_by: ColorBy,
    /// Draw the stacked area by kind instead of the bands.
    area: bool,
    /// The highlighted stack-tree node, for the analysis of (file, device).
    highlight: Option<(Key, u32)>,
    /// What `App::colors` holds now.
    colors_for: Option<(Key, ColorBy, Option<u32>)>,
    series: Option<(Key, KindSeries)>,
}

impl Viewer {
    fn key(&self) -> Key {
        (self.app.current, self.app.device)
    }

    fn on_active_memory(&self) -> bool {
        self.app.timeline().is_some_and(|t| t.kind == TimelineKind::ActiveMemory)
    }

    /// Before the bands are drawn: the per-element colors of the mode (or
    /// none, for memory_viz's colors).
    pub(crate) fn explain_colors(&mut self) {
        let k = self.key();
        let hl = self.explain.highlight.filter(|h| h.0 == k).map(|h| h.1);
        let by = self.explain.color_by;
        if !self.on_active_memory() || (by == ColorBy::Allocation && hl.is_none()) {
            self.app.colors.clear();
            self.explain.colors_for = None;
            return;
        }
        if self.explain.colors_for == Some((k, by, hl)) || !self.ensure_analysis() {
            return;
        }
        let Some((_, a)) = self.moment.analysis.as_ref() else { return };
        let under = hl.map(|n| a.elements_under(n));
        self.app.colors = element_colors(a, by, under.as_deref());
        self.explain.colors_for = Some((k, by, hl));
    }

    /// After the bands are drawn: in the stacked-area mode, the plot is
    /// redrawn as bytes per kind over the same columns and y axis.
    pub(crate) fn explain_area(&mut self) {
        if !self.explain.area || !self.on_active_memory() || !self.ensure_analysis() {
            return;
        }
        let k = self.key();
        let Some((_, a)) = self.moment.analysis.as_ref() else { return };
        if self.explain.series.as_ref().map(|s| s.0) != Some(k) {
            self.explain.series = Some((k, KindSeries::new(a)));
        }
        let Some((_, series)) = self.explain.series.as_ref() else { return };
        render_area(&self.app.cols, |s| series.at_step(a, s), &KIND_COLORS, self.app.y_max, &mut self.app.plot);
    }
}

/// Serializes to JSON for the page (a macro: this crate does not name
/// serde itself).
macro_rules! json {
    ($v:expr) => {
        serde_json::to_string($v).map_err(|e| JsError::new(&e.to_string()))
    };
}

#[wasm_bindgen]
impl Viewer {
    /// Colors of the Active Memory Timeline: `allocation` (memory_viz's),
    /// `category`, `frame` (innermost user frame) or `area` (the stacked
    /// area of bytes per kind). Takes effect at the next render.
    pub fn set_color_by(&mut self, mode: &str) -> Result<(), JsError> {
        if mode == "area" {
            self.explain.area = true;
            self.explain.color_by = ColorBy::Category;
            return Ok(());
        }
        let by = ColorBy::from_name(mode).ok_or_else(|| JsError::new(&format!("no color mode {mode:?}")))?;
        self.explain.area = false;
        self.explain.color_by = by;
        Ok(())
    }

    /// Highlights the allocations under icicle node `node` (a TreeNode id
    /// of the current file and device) and dims the others; a negative
    /// node clears it. Takes effect at the next render.
    pub fn highlight_node(&mut self, node: f64) {
        self.explain.highlight = (node >= 0.0 && node < u32::MAX as f64).then(|| (self.key(), node as u32));
    }

    /// The KIND_COLORS as CSS colors, with the kinds' names:
    /// `[[name, "#rrggbb"], ...]` (the legend).
    pub fn kind_colors_json(&self) -> Result<String, JsError> {
        let v: Vec<(&str, String)> = Kind::ALL
            .iter()
            .zip(KIND_COLORS)
            .map(|(k, c)| (k.name(), format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])))
            .collect();
        json!(&v)
    }

    /// In the stacked-area mode, the hover text for CSS (x, y) on the plot
    /// canvas: the step, the kind under the pointer and every kind's bytes
    /// there; "" in any other mode or outside the plot (the page then shows
    /// the band's text as usual).
    pub fn area_text(&mut self, x: f64, y: f64) -> String {
        if !self.explain.area || !self.on_active_memory() {
            return String::new();
        }
        let (Some(r), Some((_, series))) = (self.app.rect, self.explain.series.as_ref()) else { return String::new() };
        let Some((_, a)) = self.moment.analysis.as_ref() else { return String::new() };
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(0.5);
        let (px, py) = (x * dpr - r.x as f64, y * dpr - r.y as f64);
        if px < 0.0 || py < 0.0 || px >= r.w as f64 || py >= r.h as f64 {
            return String::new();
        }
        let Some((step, bytes)) = memviz_render::pixel_to_point(&self.app.cols, self.app.y_max, r.h, px, py) else {
            return String::new();
        };
        let kinds = series.at_step(a, step);
        let total: u64 = kinds.iter().sum();
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
        let c = memviz_render::explain::frame_color(id);
        format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
    }

    /// The peak and every OOM on the current timeline:
    /// `[{what, k, event, x}]`, x in steps (`x_of_step(x)` places it).
    pub fn markers_json(&mut self) -> Result<String, JsError> {
        if self.app.timeline().is_none() || !self.ensure_analysis() {
            return Ok("[]".into());
        }
        let (Some((_, a)), Some(tl)) = (self.moment.analysis.as_ref(), self.app.timeline()) else {
            return Ok("[]".into());
        };
        json!(&markers(a, tl))
    }

    /// An OOM (`oom:K`) or the peak (`peak`) explained
    /// (memviz_core::analysis::oom::Explanation as JSON).
    pub fn explain_json(&mut self, moment: &str) -> Result<String, JsError> {
        let m = Moment::parse(moment).map_err(|e| JsError::new(&e))?;
        if !self.ensure_analysis() {
            return Err(JsError::new("no file"));
        }
        let Some(h) = self.views.state_history(&self.app) else { return Err(JsError::new("no trace")) };
        let (Some(f), Some((_, a))) = (self.app.file(), self.moment.analysis.as_ref()) else {
            return Err(JsError::new("no file"));
        };
        let mut c = h.cursor();
        json!(&a.explain(&f.snap, h, &mut c, m).map_err(|e| JsError::new(&e))?)
    }

    /// The number of `oom` events of the current device.
    pub fn oom_count(&mut self) -> u32 {
        if !self.ensure_analysis() {
            return 0;
        }
        self.moment.analysis.as_ref().map_or(0, |(_, a)| a.oom_events.len() as u32)
    }

    /// The leak report of the current device (memviz_core::analysis::leaks::
    /// LeakReport as JSON, plus `pending_keys`: the stack of each pending
    /// free listed).
    pub fn leaks_json(&mut self) -> Result<String, JsError> {
        if !self.ensure_analysis() {
            return Err(JsError::new("no file"));
        }
        let Some((_, a)) = self.moment.analysis.as_ref() else { return Err(JsError::new("no file")) };
        let r = a.leaks();
        let keys: Vec<String> = r.pending_frees.iter().map(|p| a.stack_key(p.stack)).collect();
        let mut v = serde_json::to_value(&r).map_err(|e| JsError::new(&e.to_string()))?;
        v["pending_keys"] = serde_json::json!(keys);
        json!(&v)
    }
}
