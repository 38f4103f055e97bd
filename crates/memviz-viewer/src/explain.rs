//! "Explain the memory" without a browser (www/explain.js over
//! memviz-wasm's explain.rs): Color by (allocation, category, stack frame)
//! and the stacked area of bytes per kind on the Active Memory Timeline,
//! the allocations of an icicle node highlighted, the peak and OOM markers
//! of the current timeline, the OOM / peak explanations and the leak report
//! as JSON. The logic lives in memviz_core::analysis and
//! memviz_render::explain, on the analysis moment.rs caches.

use memviz_core::analysis::series::KindSeries;
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
    /// The generation and trace event of the OOM last explained (the What if verdict for its advice).
    explained_oom: Option<(u32, u32)>,
    /// The generation and view the page's markers are of (its last Overview).
    overview_of: Option<(u32, usize)>,
}

pub(crate) fn css(c: [u8; 4]) -> String {
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

    /// The room the page keeps for the Findings strip from a file's first
    /// frame, before the analysis finds them (shown later without it, the
    /// strip moved the plot down 60-100 px a few frames after the plot was
    /// drawn). The device's Active Memory Timeline peak above zero is always
    /// a finding (its trace and blocks when that timeline is not built).
    pub fn findings_room(&self) -> FindingsRoom {
        let Some(f) = self.cx.file() else { return FindingsRoom::None };
        let d = self.cx.device;
        let some = match f.timeline(d, TimelineKind::ActiveMemory) {
            Some(t) => t.peak_bytes() > 0,
            None => !f.snap.trace(d).is_empty() || f.snap.device_segments(d).any(|s| s.allocated_size > 0),
        };
        match (some, self.findings_now()) {
            (false, _) => FindingsRoom::None,
            (true, true) => FindingsRoom::Findings,
            (true, false) => FindingsRoom::Link,
        }
    }

    /// Whether the findings are found with the file's first panels: a long
    /// trace's wait for a click (its analysis takes seconds).
    fn findings_now(&self) -> bool {
        self.cx.file().map_or(0, |f| f.snap.trace(self.cx.device).len()) <= FINDINGS_NOW_EVENTS
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

    /// The number of `oom` events of the current device.
    pub fn oom_count(&mut self) -> u32 {
        if !self.ensure_landmarks() {
            return 0;
        }
        self.moment.marks(self.cx.key()).map_or(0, |l| l.oom_events.len() as u32)
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

// ---- The analysis panels' typed boundary (issue 42): one command in, one
// view model out, every string the page shows formatted here.

use memviz_core::analysis::Group;
use memviz_core::format::{format_size, format_time_us, short_stack};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::boundary::{ErrorKind, PageError};
use crate::whatif::{WhatIfCommand, WhatIfFields, WhatIfView};

fn size(b: u64) -> String {
    format_size(b, false)
}

fn share(part: u64, whole: u64) -> String {
    format!("{:.1}%", 100.0 * part as f64 / whole.max(1) as f64)
}

/// A moment of the device's trace, as the page names one: `"peak"` or
/// `{ "step": 5 }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum MomentArg {
    Start,
    Peak,
    End,
    /// A step of the Active Memory Timeline.
    Step(u32),
    /// Right after a trace event.
    Event(u32),
    /// The K-th OOM of the device.
    Oom(u32),
}

impl From<MomentArg> for Moment {
    fn from(m: MomentArg) -> Moment {
        match m {
            MomentArg::Start => Moment::Start,
            MomentArg::Peak => Moment::Peak,
            MomentArg::End => Moment::End,
            MomentArg::Step(s) => Moment::Step(s),
            MomentArg::Event(e) => Moment::Event(e),
            MomentArg::Oom(k) => Moment::Oom(k),
        }
    }
}

/// Colors of the Active Memory Timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ColorMode {
    /// memory_viz's: one per allocation.
    Allocation,
    Category,
    /// The innermost user frame.
    Frame,
    /// The stacked area of bytes per kind.
    Area,
}

/// The "Alive at" table's grouping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RowsBy {
    UserFrame,
    Frame,
}

/// The "Alive at" table's sort column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RowsSort {
    Bytes,
    Count,
    Key,
}

/// What the page asks of the analysis panels (Explain, Findings, Alive at).
#[derive(Debug, Clone, PartialEq, Deserialize, TS)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum PanelCommand {
    /// The generation alone: what the page's panels show belongs to it.
    Generation,
    /// The markers of the timeline shown, the OOM list, the kinds' colors.
    Overview,
    /// Takes effect at the next draw.
    ColorBy {
        mode: ColorMode,
    },
    /// The allocations under icicle node `node` highlighted (null: none).
    Highlight {
        node: Option<u32>,
    },
    /// Color by's legend at the moment shown.
    Legend,
    /// Where each marker of the timeline shown goes on the plot, `width` CSS px wide.
    MarkerPlaces {
        width: f64,
    },
    Explain {
        moment: MomentArg,
    },
    Findings,
    Leaks,
    /// The "Alive at" panel at `moment`.
    Moment {
        moment: MomentArg,
    },
    /// The icicle tree at the moment shown: nodes of at least `min_bytes`
    /// (null: the icicle's own, about a pixel of it); the icicle draws it.
    Tree {
        #[ts(type = "number | null")]
        min_bytes: Option<u64>,
    },
    /// The icicle's tree built for the moment shown (its drawing comes after).
    IcicleTree,
    /// The icicle's tooltip at CSS (x, y) on it ("": none).
    IcicleTip {
        x: f64,
        y: f64,
    },
    /// A click at CSS (x, y) on the icicle: zooms into the frame there (its
    /// top row: out) and highlights its allocations.
    IcicleClick {
        x: f64,
        y: f64,
    },
    /// The table's rows at the moment shown.
    /// `sort`: a click on that column's head: sorts by it, a second click the
    /// other way (null: as before; at first by bytes, largest first).
    /// `limit`: rows at most (null: a page, [`TABLE_PAGE`]).
    Rows {
        by: RowsBy,
        filter: String,
        sort: Option<RowsSort>,
        offset: u32,
        limit: Option<u32>,
    },
    /// The settings the What if panel replays under (null: the recording's own).
    WhatIfSet {
        fields: Option<WhatIfFields>,
    },
    /// The OOM panel's advice: the recording's settings with expandable_segments:True.
    WhatIfAdvise,
    /// About `budget` trace events of the replay.
    WhatIfStep {
        budget: u32,
    },
    WhatIfView,
    /// The timings line of the last open and `redraw` (no file needed).
    Timings {
        open: crate::timings::OpenTimings,
        redraw: crate::timings::RedrawTimings,
    },
    /// The state history's timings line: its redraw took `redraw_ms`, `map_ms` of it the segment map.
    StateTimings {
        redraw_ms: f64,
        map_ms: f64,
    },
}

/// What the page asks drawn into one of the panels' canvases (sizes in CSS px).
#[derive(Debug, Clone, PartialEq, Deserialize, TS)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum PanelDraw {
    /// The "Alive at" icicle, `width` wide (its height is its levels').
    Icicle { width: f64 },
    /// The What if chart: recorded and predicted reserved memory, the capacity and the OOMs.
    WhatIfChart { width: f64, height: f64 },
    /// The prediction over the Active Cached Segment Timeline, the plot's size.
    WhatIfOverlay { width: f64, height: f64 },
}

/// What a [`PanelDraw`] drew.
#[derive(Debug, Clone, PartialEq, Default, Serialize, TS)]
pub struct PanelDrawn {
    pub generation: u32,
    /// False: nothing to show (the page hides the canvas).
    pub drawn: bool,
    /// CSS pixels.
    pub height: f64,
    /// Boxes of the icicle, predicted columns of the chart, points of the overlay.
    pub count: u32,
    /// The overlay's legend ("" when none).
    pub label: String,
}

/// A panel's drawing: pixels, then texts over them by the page's canvas.
#[derive(Debug, Clone)]
pub struct Picture {
    /// Device pixels; transparent where nothing is drawn.
    pub image: memviz_render::Image,
    /// At CSS (x, y): left edge, middle.
    pub texts: Vec<memviz_render::icicle::Label>,
    /// A CSS font family, at [`memviz_render::icicle::FONT_PX`] CSS px.
    pub font: &'static str,
    /// A CSS colour.
    pub color: &'static str,
    /// Device pixels a CSS pixel.
    pub dpr: f64,
}

impl Picture {
    pub(crate) fn empty() -> Picture {
        Picture::empty_with(memviz_render::Image::new(0, 0))
    }
    /// `image` with no texts.
    pub(crate) fn empty_with(image: memviz_render::Image) -> Picture {
        Picture { image, texts: Vec::new(), font: "sans-serif", color: "#333", dpr: 1.0 }
    }
}

/// A marker on the timeline shown: its own peak, or an OOM.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct MarkerView {
    /// `peak` or `oom`.
    pub what: String,
    pub label: String,
    pub title: String,
    pub event: u32,
    #[ts(type = "number")]
    pub bytes: u64,
    /// On the timeline's x axis, in steps (`x_of_step` places it).
    pub x: f64,
    /// What a click explains.
    pub moment: MomentArg,
}

/// Where a marker goes: CSS px from the plot's left; its label's top (a
/// label closer than [`MARKER_GAP`] px to one before goes a row lower).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
pub struct MarkerPlace {
    pub x: f64,
    pub top: f64,
}

/// The legend's note before t is set.
const LEGEND_NOTE: &str = "(click the timeline for bytes at t)";
/// Labels closer than this (CSS px) stack: an OOM just after the peak had covered its button.
const MARKER_GAP: f64 = 48.0;
/// A stacked label's row height (CSS px).
const MARKER_ROW: f64 = 16.0;

/// A button of the OOM list.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ListItem {
    pub label: String,
    pub moment: MomentArg,
}

/// A kind and its color.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct KindColor {
    pub name: String,
    pub css: String,
}

/// What the page shows for the file and device without the analysis.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct OverviewView {
    pub generation: u32,
    pub markers: Vec<MarkerView>,
    /// "1 OOM:" or "No OOM in this trace."
    pub list_title: String,
    pub list: Vec<ListItem>,
    /// OOMs left out of the list ("" when none).
    pub list_more: String,
    pub kinds: Vec<KindColor>,
    /// The legend's note before t is set.
    pub legend_note: String,
    /// Whether the findings are worth finding at once (a short trace).
    pub findings_now: bool,
}

/// A piece of a line: text, or a value the tests read (`data-key`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Piece {
    pub text: String,
    pub key: Option<String>,
    #[ts(type = "number | null")]
    pub value: Option<u64>,
}

fn text(s: impl Into<String>) -> Piece {
    Piece { text: s.into(), key: None, value: None }
}

fn val(key: &str, value: u64, s: impl Into<String>) -> Piece {
    Piece { text: s.into(), key: Some(key.into()), value: Some(value) }
}

/// One line of facts: a label and its value, in pieces.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Fact {
    pub key: String,
    pub label: String,
    #[ts(type = "number")]
    pub value: u64,
    pub pieces: Vec<Piece>,
}

fn fact(key: &str, label: &str, value: u64, pieces: Vec<Piece>) -> Fact {
    Fact { key: key.into(), label: label.into(), value, pieces }
}

/// A row of a table of groups.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Row {
    /// The whole key (a stack: every frame).
    pub key: String,
    /// What the cell shows.
    pub text: String,
    #[ts(type = "number")]
    pub bytes: u64,
    pub size: String,
    #[ts(type = "number")]
    pub count: u64,
    pub share: String,
    /// The band color of the group in the legend ("" when none).
    pub css: String,
}

fn row(g: &Group, shown: String, whole: u64) -> Row {
    Row {
        key: g.key.clone(),
        text: shown,
        bytes: g.bytes,
        size: size(g.bytes),
        count: g.count,
        share: share(g.bytes, whole),
        css: String::new(),
    }
}

fn rows(gs: &[Group], whole: u64, stacks: bool) -> Vec<Row> {
    gs.iter().map(|g| row(g, if stacks { short_stack(&g.key, 3) } else { g.key.clone() }, whole)).collect()
}

/// An advice line.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AdviceLine {
    pub kind: String,
    pub text: String,
}

/// An OOM or a moment explained.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ExplainView {
    pub generation: u32,
    pub moment: MomentArg,
    /// `oom` or `peak`.
    pub what: String,
    pub event: Option<u32>,
    pub heading: String,
    pub facts: Vec<Fact>,
    pub advice: Vec<AdviceLine>,
    pub by_category: Vec<Row>,
    pub by_user_frame: Vec<Row>,
    pub by_stack: Vec<Row>,
}

/// A finding: its line and what a click opens.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FindingView {
    pub kind: String,
    pub title: String,
    #[ts(type = "number | null")]
    pub bytes: Option<u64>,
    pub event: Option<u32>,
    /// `explain`, `leaks` or `moment`: the panel with its evidence.
    pub open: String,
    /// Where t goes (explained there, for `explain`).
    pub moment: Option<MomentArg>,
}

/// The room the page keeps for the Findings strip from a file's first frame
/// ([`Viewer::findings_room`]; style.css sizes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FindingsRoom {
    /// None will come: the device has no block at any time.
    None,
    /// A long trace: the strip's one line, its link that finds them.
    Link,
    /// Found at once: the heading and two findings of a line (the most common).
    Findings,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FindingsView {
    pub generation: u32,
    /// The strip shows: there are findings.
    pub shown: bool,
    /// False: found (the strip's "find them" link is for a long trace not yet analysed).
    pub compute: bool,
    pub findings: Vec<FindingView>,
}

/// A stack growing from one iteration to the next.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct GrowthRow {
    pub key: String,
    pub text: String,
    #[ts(type = "number")]
    pub growth_bytes: u64,
    pub growth: String,
    /// Live bytes at each sample, "a → b → c".
    pub samples: String,
}

/// A free left pending on another stream.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PendingRow {
    #[ts(type = "number")]
    pub bytes: u64,
    pub size: String,
    pub stream: u32,
    pub events: String,
    pub waited: String,
    pub key: String,
    pub text: String,
}

/// The leak report.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LeaksView {
    pub generation: u32,
    #[ts(type = "number")]
    pub alive_at_end_bytes: u64,
    #[ts(type = "number")]
    pub alive_at_end_count: u64,
    pub alive_line: String,
    pub alive: Vec<Row>,
    pub iterations_from: String,
    pub growth_line: String,
    pub growing: Vec<GrowthRow>,
    pub pending_count: u32,
    pub pending_line: String,
    pub pending: Vec<PendingRow>,
}

/// The "Alive at" panel at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct MomentPanelView {
    pub generation: u32,
    pub moment: MomentArg,
    pub at: AtView,
    /// "step 5" or "position 3".
    pub at_text: String,
    pub totals: Vec<Piece>,
    /// Bytes by kind, every kind (the legend's), in KIND_COLORS order.
    pub kinds: Vec<Row>,
    /// The kinds alive then (the panel's "by kind" line).
    pub alive_kinds: Vec<Row>,
    /// The largest innermost user frames, with their band colors.
    pub frames: Vec<Row>,
    /// The legend's note ("(at step 5; click the timeline to move t)").
    pub note: String,
}

/// Where a moment is: alloc/free actions applied, its step of the Active
/// Memory Timeline and the trace event it follows, where they are.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
pub struct AtView {
    pub position: u32,
    pub step: Option<u32>,
    pub event: Option<u32>,
}

/// The icicle tree: nodes parents first, 6 numbers each: id, parent
/// (u32::MAX: the root), depth, frame (an index into `frames`), bytes, count.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TreeView {
    pub generation: u32,
    pub frames: Vec<String>,
    #[ts(type = "number[]")]
    pub nodes: Vec<u64>,
}

/// A page of the "Alive at" table.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RowsView {
    pub generation: u32,
    pub head: String,
    pub rows: Vec<Row>,
    pub matched: u32,
    /// "30 of 120 rows: scroll the table for more" ("" when all shown).
    pub more: String,
}

/// What a command answers.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "view", rename_all = "snake_case")]
pub enum PanelView {
    Overview(OverviewView),
    Done {
        generation: u32,
    },
    Text {
        generation: u32,
        text: String,
    },
    Explain(ExplainView),
    Findings(FindingsView),
    Leaks(LeaksView),
    Moment(MomentPanelView),
    Tree(TreeView),
    Rows(RowsView),
    /// The share of the work done (1: done), and the busy line saying it.
    Progress {
        generation: u32,
        done: f64,
        text: String,
    },
    WhatIf(Box<WhatIfView>),
    Legend {
        generation: u32,
        rows: Vec<Row>,
        note: String,
    },
    /// A marker's place on the plot, in its order (null: off the plot);
    /// `stale`: the markers shown are of another view (the page asks the Overview).
    Places {
        generation: u32,
        places: Vec<Option<MarkerPlace>>,
        stale: bool,
    },
    /// After a hover or click on the icicle: its tooltip ("": none) and
    /// where it goes (CSS `left` and `top` on the icicle), the node zoomed into.
    Icicle {
        generation: u32,
        tip: String,
        left: String,
        top: String,
        zoom: Option<u32>,
    },
}

/// Findings are found at once on a trace of at most this many events; a
/// longer one waits for a click (the analysis is built first).
const FINDINGS_NOW_EVENTS: usize = 100_000;
/// Rows of the "Alive at" table a page: a few more than its box shows; scrolling adds as many.
pub const TABLE_PAGE: u32 = 30;
/// OOM buttons in the list.
const LIST_OOMS: u32 = 50;

fn recording(m: impl Into<String>) -> PageError {
    PageError::new(ErrorKind::Recording, m)
}

impl Viewer {
    /// The analysis panels' one command (www/explain.js, findings.js, moment.js).
    pub fn panel(&mut self, cmd: PanelCommand) -> Result<PanelView, PageError> {
        let generation = self.generation();
        let fileless = matches!(
            cmd,
            PanelCommand::Generation
                | PanelCommand::Legend
                | PanelCommand::MarkerPlaces { .. }
                | PanelCommand::Timings { .. }
        );
        if self.cx.file().is_none() && !fileless {
            return Err(PageError::no_file());
        }
        Ok(match cmd {
            PanelCommand::Generation => PanelView::Done { generation },
            PanelCommand::Overview => {
                self.explain.overview_of = Some((generation, self.view()));
                PanelView::Overview(self.overview())
            }
            PanelCommand::ColorBy { mode } => {
                self.explain.area = mode == ColorMode::Area;
                self.explain.color_by = match mode {
                    ColorMode::Allocation => ColorBy::Allocation,
                    ColorMode::Category | ColorMode::Area => ColorBy::Category,
                    ColorMode::Frame => ColorBy::Frame,
                };
                PanelView::Done { generation }
            }
            PanelCommand::Highlight { node } => {
                self.highlight_node(node);
                PanelView::Done { generation }
            }
            PanelCommand::Legend => self.legend(),
            PanelCommand::MarkerPlaces { width } => match self.explain.overview_of {
                Some((g, view)) if g == generation && view != self.view() => {
                    PanelView::Places { generation, places: Vec::new(), stale: true }
                }
                Some((g, _)) if g == generation => {
                    PanelView::Places { generation, places: self.marker_places(width), stale: false }
                }
                _ => PanelView::Places { generation, places: Vec::new(), stale: false },
            },
            PanelCommand::Timings { open, redraw } => {
                PanelView::Text { generation, text: crate::timings::timings_text(&open, &redraw) }
            }
            PanelCommand::StateTimings { redraw_ms, map_ms } => {
                let (sel, len) = (self.views.state.selected(&self.cx), self.views.state.len(&self.cx));
                PanelView::Text { generation, text: crate::timings::state_timings_text(redraw_ms, map_ms, sel, len) }
            }
            PanelCommand::Explain { moment } => PanelView::Explain(self.explain_view(moment)?),
            PanelCommand::Findings => PanelView::Findings(self.findings_view()?),
            PanelCommand::Leaks => PanelView::Leaks(self.leaks_view()?),
            PanelCommand::Moment { moment } => PanelView::Moment(self.moment_view(moment)?),
            PanelCommand::Tree { min_bytes } => PanelView::Tree(self.tree_view(min_bytes)?),
            PanelCommand::IcicleTree => {
                self.icicle_tree()?;
                PanelView::Done { generation }
            }
            PanelCommand::IcicleTip { x, y } => {
                // Beside the pointer, kept off the icicle's right edge (the tip is about 300 px wide).
                let right = self.icicle_width() - 300.0;
                let (left, top) = (format!("{}px", (x + 12.0).min(right)), format!("{}px", y + 14.0));
                PanelView::Icicle { generation, tip: self.icicle_tip(x, y), left, top, zoom: self.icicle_zoom() }
            }
            PanelCommand::IcicleClick { x, y } => {
                let zoom = self.icicle_click(x, y);
                PanelView::Icicle { generation, tip: String::new(), left: String::new(), top: String::new(), zoom }
            }
            PanelCommand::Rows { by, filter, sort, offset, limit } => {
                if let Some(k) = sort {
                    self.moment.sort = self.moment.sort.click(k);
                }
                let s = self.moment.sort;
                let limit = limit.unwrap_or(TABLE_PAGE);
                PanelView::Rows(self.rows_view(by, &filter, s.key, s.descending, offset, limit)?)
            }
            PanelCommand::WhatIfSet { fields } => {
                self.whatif_set(WhatIfCommand { fields })?;
                PanelView::Done { generation }
            }
            PanelCommand::WhatIfAdvise => {
                self.whatif_advise()?;
                PanelView::Done { generation }
            }
            PanelCommand::WhatIfStep { budget } => {
                let done = self.whatif_step(budget as usize);
                let busy = if self.whatif.busy.is_empty() { "replaying" } else { &self.whatif.busy };
                PanelView::Progress { generation, done, text: format!("{busy}: {}%", (done * 100.0).round()) }
            }
            PanelCommand::WhatIfView => {
                let mut v = self.whatif_view()?;
                self.whatif.busy = v.busy.clone();
                // The OOM panel's advice: the verdict of the OOM it explains.
                if let Some((_, e)) = self.explain.explained_oom.filter(|o| o.0 == generation) {
                    v.advice = v.ooms.iter().find(|o| o.event == e as usize).map(|o| o.text.clone());
                }
                PanelView::WhatIf(Box::new(v))
            }
        })
    }

    /// Draws one of the panels' canvases (the page puts the picture and its texts).
    pub fn panel_draw(&mut self, cmd: PanelDraw, char_w: f64) -> Result<(Picture, PanelDrawn), PageError> {
        let generation = self.generation();
        let none = || (Picture::empty(), PanelDrawn { generation, ..PanelDrawn::default() });
        if self.cx.file().is_none() {
            return Ok(none());
        }
        let dpr = self.cx.dpr;
        let (mut pic, drawn) = match cmd {
            PanelDraw::Icicle { width } => self.icicle_picture(width, char_w)?.unwrap_or_else(none),
            PanelDraw::WhatIfChart { width, height } => {
                self.whatif_chart_picture(width, height, dpr).unwrap_or_else(none)
            }
            PanelDraw::WhatIfOverlay { width, height } => {
                self.whatif_overlay_picture(width, height, dpr).unwrap_or_else(none)
            }
        };
        pic.dpr = dpr;
        Ok((pic, drawn))
    }

    /// Color by's legend: the kinds or frames at the moment shown, else the kinds' colours alone.
    fn legend(&self) -> PanelView {
        let generation = self.generation();
        let shown = self.moment.shown.as_ref().filter(|v| v.generation == generation);
        let (rows, note) = match (self.explain.color_by, shown) {
            (ColorBy::Allocation, _) => (Vec::new(), String::new()),
            (ColorBy::Frame, Some(v)) => (v.frames.clone(), v.note.clone()),
            (_, Some(v)) => (v.kinds.clone(), v.note.clone()),
            (ColorBy::Frame, None) => (Vec::new(), LEGEND_NOTE.into()),
            (_, None) => {
                let row = |(k, c): (&Kind, [u8; 4])| Row {
                    key: k.name().into(),
                    text: k.name().into(),
                    bytes: 0,
                    size: String::new(),
                    count: 0,
                    share: String::new(),
                    css: css(c),
                };
                (Kind::ALL.iter().zip(KIND_COLORS).map(row).collect(), LEGEND_NOTE.into())
            }
        };
        PanelView::Legend { generation, rows, note }
    }

    /// [`MarkerPlace`]s of the timeline shown's markers on a plot `width` CSS px wide.
    fn marker_places(&mut self, width: f64) -> Vec<Option<MarkerPlace>> {
        let on = self.view_kind() == crate::ViewKind::Timeline && self.n_steps() > 0;
        let mut placed: Vec<(f64, f64)> = Vec::new();
        let mut place = |x: f64| {
            if !(on && (0.0..=width).contains(&x)) {
                return None;
            }
            let mut row = 0.0;
            while placed.iter().any(|&(px, r)| r == row && (px - x).abs() < MARKER_GAP) {
                row += 1.0;
            }
            placed.push((x, row));
            Some(MarkerPlace { x, top: row * MARKER_ROW - 2.0 })
        };
        self.view_markers().iter().map(|m| place(self.x_of_step(m.x))).collect()
    }

    fn overview(&mut self) -> OverviewView {
        let generation = self.generation();
        let kinds =
            Kind::ALL.iter().zip(KIND_COLORS).map(|(k, c)| KindColor { name: k.name().into(), css: css(c) }).collect();
        let markers = self.view_markers();
        let ooms = self.oom_count();
        let mut list: Vec<ListItem> = (0..ooms.min(LIST_OOMS))
            .map(|k| ListItem { label: format!("OOM {k}"), moment: MomentArg::Oom(k) })
            .collect();
        list.push(ListItem { label: "Peak".into(), moment: MomentArg::Peak });
        let list_title = match ooms {
            0 => "No OOM in this trace.".into(),
            1 => "1 OOM:".into(),
            n => format!("{n} OOMs:"),
        };
        let list_more = if ooms > LIST_OOMS {
            format!("({} more OOMs: memviz oom lists them all)", ooms - LIST_OOMS)
        } else {
            String::new()
        };
        OverviewView {
            generation,
            markers,
            list_title,
            list,
            list_more,
            kinds,
            legend_note: LEGEND_NOTE.into(),
            findings_now: self.findings_now(),
        }
    }

    /// The markers of the timeline shown (issue 43: one peak per view, the
    /// view's own): its own peak (the Active Memory Timeline's is the
    /// allocated peak, the segment timeline's the reserved one), where the
    /// axes draw it, and every OOM.
    pub fn view_markers(&mut self) -> Vec<MarkerView> {
        if self.cx.timeline().is_none() || !self.ensure_landmarks() {
            return Vec::new();
        }
        let (Some(l), Some(tl)) = (self.moment.marks(self.cx.key()), self.cx.timeline()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let step = tl.peak_step();
        let event = tl.events.get(step as usize).copied().filter(|&e| e != memviz_core::timeline::NO_EVENT);
        if let (Some(event), true) = (event, tl.peak_bytes() > tl.start_bytes) {
            let (label, moment) = match tl.kind {
                TimelineKind::ActiveMemory => ("allocated peak", MomentArg::Peak),
                TimelineKind::CachedSegments => ("reserved peak", MomentArg::Event(event)),
            };
            out.push(MarkerView {
                what: "peak".into(),
                label: "peak".into(),
                title: format!("The {label}, {} at trace event {event}: explain", size(tl.peak_bytes())),
                event,
                bytes: tl.peak_bytes(),
                x: step as f64 + 0.5,
                moment,
            });
        }
        let n = l.oom_events.len();
        for (k, &event) in l.oom_events.iter().enumerate() {
            out.push(MarkerView {
                what: "oom".into(),
                label: if n > 1 { format!("OOM {k}") } else { "OOM".into() },
                title: format!("OOM at trace event {event}: explain"),
                event,
                bytes: 0,
                x: memviz_core::analysis::series::steps_through_event(tl, event) as f64,
                moment: MomentArg::Oom(k as u32),
            });
        }
        out
    }

    fn explain_view(&mut self, moment: MomentArg) -> Result<ExplainView, PageError> {
        let generation = self.generation();
        if !self.ensure_analysis() {
            return Err(PageError::no_file());
        }
        let Some(h) = self.views.state.history(&self.cx) else { return Err(recording("the recording has no trace")) };
        let (Some(f), Some(a)) = (self.cx.file(), self.moment.get()) else { return Err(PageError::no_file()) };
        let mut c = h.cursor();
        let x = a.explain(&f.snap, h, &mut c, moment.into()).map_err(recording)?;
        let t = &x.totals;
        let mut facts = Vec::new();
        if let Some(r) = &x.request {
            facts.push(fact(
                "request",
                "requested",
                r.bytes,
                vec![
                    text(format!("{} on stream ", size(r.bytes))),
                    val("stream", r.stream.into(), r.stream.to_string()),
                ],
            ));
            if let Some(free) = r.device_free_bytes {
                facts.push(fact("device-free", "device had free", free, vec![text(size(free))]));
            }
            if let Some(lim) = x.device_limit_bytes {
                let s = format!("{} (reserved + device free)", size(lim));
                facts.push(fact("device-limit", "most this process could hold", lim, vec![text(s)]));
            }
        }
        facts.push(fact("reserved", "reserved", t.reserved_bytes, vec![text(size(t.reserved_bytes))]));
        facts.push(fact(
            "allocated",
            "allocated (live tensors)",
            t.allocated_bytes,
            vec![text(size(t.allocated_bytes))],
        ));
        let gap = format!("{} (reserved − allocated)", size(t.gap_bytes));
        facts.push(fact("gap", "cached, not allocated", t.gap_bytes, vec![text(gap)]));
        let pieces = |bytes: u64, pk: &str, n: usize, lk: &str, largest: u64, tail: &str| {
            vec![
                text(format!("{} in ", size(bytes))),
                val(pk, n as u64, n.to_string()),
                text(" pieces, the largest "),
                val(lk, largest, size(largest)),
                text(tail),
            ]
        };
        let free = pieces(t.free_bytes, "free-pieces", t.free_pieces, "largest-free", t.largest_free_bytes, "");
        facts.push(fact("free-bytes", "free inside segments", t.free_bytes, free));
        if let Some(u) = &x.usable {
            let p = pieces(u.bytes, "usable-pieces", u.pieces, "usable-largest", u.largest, " (same stream and pool)");
            facts.push(fact("usable-bytes", "usable for this request", u.bytes, p));
        }
        let mut advice: Vec<AdviceLine> = x
            .advice
            .iter()
            .map(|a| AdviceLine {
                kind: serde_json::to_value(a.kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
                text: a.text.clone(),
            })
            .collect();
        if advice.is_empty() {
            advice.push(AdviceLine {
                kind: "none".into(),
                text: "No advice: the numbers show no allocator problem here.".into(),
            });
        }
        if x.what == "oom" {
            // The What if replay's verdict of this OOM: filled by the page once its replay is done.
            advice.push(AdviceLine { kind: "whatif".into(), text: String::new() });
        }
        let ev = x.at.event.map_or("before the first event".into(), |e| format!("trace event {e}"));
        let what = match moment {
            MomentArg::Oom(_) => "OOM",
            MomentArg::Peak => "Peak",
            _ => "Memory",
        };
        let mut heading = format!("{what} on device {}, at {ev}", x.device);
        if let Some(us) = x.time_us {
            heading.push_str(&format!(" ({} UTC)", format_time_us(us).replace('T', " ").trim_end_matches('Z')));
        }
        let whole = t.allocated_bytes;
        let oom = (x.what == "oom").then_some(x.at.event).flatten().map(|e| (generation, e));
        let view = ExplainView {
            generation,
            moment,
            what: x.what.into(),
            event: x.at.event,
            heading,
            facts,
            advice,
            by_category: rows(&x.by_category, whole, false),
            by_user_frame: rows(&x.by_user_frame, whole, false),
            by_stack: rows(&x.by_stack, whole, true),
        };
        self.explain.explained_oom = oom;
        Ok(view)
    }

    fn findings_view(&mut self) -> Result<FindingsView, PageError> {
        let generation = self.generation();
        if !self.ensure_analysis() {
            return Err(PageError::no_file());
        }
        let Some(h) = self.views.state.history(&self.cx) else { return Err(recording("the recording has no trace")) };
        let (Some(f), Some(a)) = (self.cx.file(), self.moment.get()) else { return Err(PageError::no_file()) };
        let findings: Vec<FindingView> = a
            .findings(&f.snap, h)
            .findings
            .into_iter()
            .map(|x| {
                use memviz_core::analysis::findings::FindingKind as K;
                let at = x.event.map(MomentArg::Event);
                let (open, moment) = match x.kind {
                    K::Oom | K::Capped => {
                        let k = x.detail.get("oom").and_then(|v| v.as_u64()).unwrap_or(0) as u32;
                        ("explain", Some(MomentArg::Oom(k)))
                    }
                    K::Peak | K::Caching => ("explain", Some(MomentArg::Peak)),
                    K::Growth => ("leaks", at),
                    _ => ("moment", at),
                };
                FindingView {
                    kind: x.kind.name().into(),
                    title: x.title,
                    bytes: x.bytes,
                    event: x.event,
                    open: open.into(),
                    moment,
                }
            })
            .collect();
        Ok(FindingsView { generation, shown: !findings.is_empty(), compute: false, findings })
    }

    fn leaks_view(&mut self) -> Result<LeaksView, PageError> {
        let generation = self.generation();
        if !self.ensure_analysis() {
            return Err(PageError::no_file());
        }
        let (Some(f), Some(a)) = (self.cx.file(), self.moment.get()) else { return Err(PageError::no_file()) };
        let r = a.leaks(&f.snap);
        let shown = |key: &str| short_stack(key, 2);
        let alive_line = format!(
            "{} in {} allocations made during it (and {} in {} from before it).",
            size(r.alive_at_end_bytes),
            r.alive_at_end_count,
            size(r.before_trace_bytes),
            r.before_trace_count
        );
        let alive = r.alive_at_end.iter().map(|g| row(g, shown(&g.key), r.alive_at_end_bytes)).collect();
        let growing = r
            .growing
            .iter()
            .map(|g| GrowthRow {
                key: g.key.clone(),
                text: shown(&g.key),
                growth_bytes: g.growth_bytes,
                growth: format!("+{}", size(g.growth_bytes)),
                samples: g.live_bytes.iter().map(|&b| size(b)).collect::<Vec<_>>().join(" → "),
            })
            .collect();
        let n = r.pending_free_count;
        let mut pending_line = format!("{n} frees waited between free_requested and free_completed");
        if n > r.pending_frees.len() {
            pending_line.push_str(&format!(" (the {} longest below)", r.pending_frees.len()));
        }
        pending_line.push('.');
        let pending = r
            .pending_frees
            .iter()
            .map(|p| {
                let key = a.stack_key(p.stack);
                let done = p.free_completed_event.map_or("never".into(), |e| e.to_string());
                let us = p.time_us.map_or(String::new(), |t| format!("{t} µs, "));
                PendingRow {
                    bytes: p.size,
                    size: size(p.size),
                    stream: p.stream,
                    events: format!("event {} → {done}", p.free_requested_event),
                    waited: format!("{us}{} events", p.events),
                    text: shown(&key),
                    key,
                }
            })
            .collect();
        Ok(LeaksView {
            generation,
            alive_at_end_bytes: r.alive_at_end_bytes,
            alive_at_end_count: r.alive_at_end_count,
            alive_line,
            alive,
            iterations_from: r.iterations_from.into(),
            growth_line: format!("{}.", r.growth_line()),
            growing,
            pending_count: n as u32,
            pending_line,
            pending,
        })
    }
}
