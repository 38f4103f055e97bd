//! What every view sees: the open files, the chosen file and device, and
//! the band plot the timelines and the pools view share (which timeline,
//! detail, window, the columns last drawn, the hovered and pinned band).

use memviz_core::timeline::{DetailView, Hit, Timeline, TimelineKind};
use memviz_render::{self as render, BandIndex, Columns, Image, PlotStats, PlotStyle, TimelineBands, Window};

use crate::files::OpenFile;
use crate::xaxis::{TimeCache, XMode};

/// Detail limit a fresh view starts with: every element, up to this many.
pub const DEFAULT_DETAIL_CAP: u32 = 50_000;

/// Space around the plot inside the canvas, in CSS pixels: left (y labels),
/// right, top, bottom (x labels).
pub const MARGIN: (f64, f64, f64, f64) = (78.0, 16.0, 14.0, 40.0);

/// The hover text of the summarized band (memory_viz's words).
pub const SUMMARIZED_TEXT: &str = "Small tensors that were not plotted to cutdown on render time.\n\
     Use detail slider to see smaller allocations.";

/// Minimap columns of (file, device, timeline, width, x axis), then their
/// max and the peak step: O(steps) to compute, so kept.
type MinimapCache = ((usize, u32, TimelineKind, u32, XMode), Vec<u64>, u64, u32);

/// (file, device, timeline) and its peak's (step, bytes).
type PeakCache = ((usize, u32, TimelineKind), (u32, u64));

/// A plot rectangle in device pixels inside the canvas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotRect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

impl PlotRect {
    pub fn in_canvas(width: u32, height: u32, dpr: f64) -> PlotRect {
        let (l, r, t, b) = MARGIN;
        let x = (l * dpr).round() as u32;
        let y = (t * dpr).round() as u32;
        let w = width.saturating_sub(x + (r * dpr).round() as u32).max(1);
        let h = height.saturating_sub(y + (b * dpr).round() as u32).max(1);
        PlotRect { x, y, w, h }
    }

    /// The plot pixel under CSS point (x, y) of the canvas, None outside.
    pub fn pixel_of_css(&self, x: f64, y: f64, dpr: f64) -> Option<(f64, f64)> {
        let (px, py) = (x * dpr - self.x as f64, y * dpr - self.y as f64);
        if px < 0.0 || py < 0.0 || px >= self.w as f64 || py >= self.h as f64 {
            return None;
        }
        Some((px, py))
    }
}

/// y scale of a plot whose tallest column is `max_total`: headroom above
/// the peak so that it does not touch the top edge.
pub(crate) fn y_max_above(max_total: u64) -> u64 {
    ((max_total as f64) * 1.06).ceil().max(1.0) as u64
}

pub struct Context {
    pub files: Vec<OpenFile>,
    pub current: usize,
    /// How many times a file was shown (`OpenFile::shown`).
    pub(crate) shows: u64,
    /// Bumped whenever what the page shows belongs to another file, device
    /// or set of files: a view model carries it, and the page drops one whose
    /// generation is not the viewer's (no staleness keys in JavaScript).
    pub generation: u32,
    pub device: u32,
    /// Device pixels per CSS pixel (the page's devicePixelRatio).
    pub dpr: f64,
    /// The timeline under the plot (the pools view and the state history
    /// run on the Active Memory timeline).
    pub kind: TimelineKind,
    pub detail: Option<DetailView>,
    /// The drawn bands of `detail`, laid out for the renderer's sweep.
    pub bands: BandIndex,
    pub limit: u32,
    pub window: Window,
    /// Columns and y scale of the last drawn plot (for hit testing).
    pub cols: Columns,
    pub y_max: u64,
    pub rect: Option<PlotRect>,
    pub plot: Image,
    /// The outline of the hovered or pinned band, drawn apart from `plot`
    /// (`render_selection`).
    pub selection: Image,
    pub minimap: Image,
    minimap_cache: Option<MinimapCache>,
    /// What the axes overlay shows now (timeline views).
    pub(crate) axes_key: Option<crate::views::timeline::AxesKey>,
    /// CSS px from the plot canvas' top that the phase rows cover (phases.rs
    /// as last laid out; 0: none): the peak's label goes below them.
    pub(crate) phase_band: f64,
    /// `phase_band` as the axes last drawn took it (`Viewer::render_plot`).
    pub(crate) axes_band: f64,
    /// Band under the pointer, and the one pinned by a click.
    pub hovered: Option<Hit>,
    pub pinned: Option<Hit>,
    /// A color per element of the Active Memory Timeline ("Color by", set
    /// by explain.rs); empty: memory_viz's colors.
    pub colors: Vec<render::Rgba>,
    /// The x axis asked for (xaxis.rs), kept across views and files.
    pub x_mode: XMode,
    /// The current timeline's time axis (built in time mode).
    pub(crate) time: Option<TimeCache>,
    /// (step, bytes) of the current timeline's peak, of (file, device,
    /// timeline): O(steps) to find, and the axes show it at every zoom.
    peak: Option<PeakCache>,
}

impl Default for Context {
    fn default() -> Self {
        Context {
            files: Vec::new(),
            current: 0,
            shows: 0,
            generation: 0,
            device: 0,
            dpr: 1.0,
            kind: TimelineKind::ActiveMemory,
            detail: None,
            bands: BandIndex::default(),
            limit: 0,
            window: Window::default(),
            cols: Columns::default(),
            y_max: 0,
            rect: None,
            plot: Image::default(),
            selection: Image::default(),
            minimap: Image::default(),
            minimap_cache: None,
            axes_key: None,
            phase_band: 0.0,
            axes_band: 0.0,
            hovered: None,
            pinned: None,
            colors: Vec::new(),
            x_mode: XMode::Step,
            time: None,
            peak: None,
        }
    }
}

impl Context {
    pub fn file(&self) -> Option<&OpenFile> {
        self.files.get(self.current)
    }

    /// (file, device): what the per-device caches belong to.
    pub fn key(&self) -> (usize, u32) {
        (self.current, self.device)
    }

    pub fn timeline(&self) -> Option<&Timeline> {
        self.file()?.timeline(self.device, self.kind)
    }

    /// New file / device / timeline: replay (once, cached) and reset
    /// detail, window and selection.
    pub fn rebuild(&mut self) {
        let (device, kind) = (self.device, self.kind);
        let Some(f) = self.files.get_mut(self.current) else {
            return;
        };
        f.build_timeline(device, kind);
        self.peak = None;
        self.refresh_time();
        self.limit = self.element_count().min(DEFAULT_DETAIL_CAP);
        self.window = Window::full(self.n_steps());
        self.pinned = None;
        self.hovered = None;
        self.set_detail_view();
    }

    /// Puts the Active Memory timeline underneath (the views that are not
    /// timelines run on it), replaying only when it was another one.
    pub fn use_active_memory(&mut self) {
        if self.kind != TimelineKind::ActiveMemory {
            self.kind = TimelineKind::ActiveMemory;
            self.rebuild();
        }
    }

    fn set_detail_view(&mut self) {
        self.detail = self.timeline().map(|tl| DetailView::new(tl, self.limit));
        self.bands = match (self.timeline(), &self.detail) {
            (Some(tl), Some(d)) => BandIndex::new(tl, d),
            _ => BandIndex::default(),
        };
    }

    /// (step, bytes) of the current timeline's peak (kept per timeline).
    pub fn peak(&mut self) -> Option<(u32, u64)> {
        let key = (self.current, self.device, self.kind);
        if self.peak.map(|p| p.0) != Some(key) {
            let tl = self.timeline()?;
            self.peak = Some((key, (tl.peak_step(), tl.peak_bytes())));
        }
        self.peak.map(|p| p.1)
    }

    pub fn element_count(&self) -> u32 {
        self.timeline().map_or(0, |t| t.elements.len() as u32)
    }

    pub fn n_steps(&self) -> u32 {
        self.timeline().map_or(0, |t| t.n_steps())
    }

    pub fn set_detail(&mut self, limit: u32) {
        self.limit = limit.min(self.element_count());
        self.set_detail_view();
        // A pinned band that is now summarized is no longer one.
        let drawn = |h: Option<Hit>, d: &DetailView| match h {
            Some(Hit::Element(e)) if !d.is_drawn(e) => None,
            h => h,
        };
        if let Some(d) = &self.detail {
            self.pinned = drawn(self.pinned, d);
            self.hovered = drawn(self.hovered, d);
        }
    }

    pub fn drawn_count(&self) -> u32 {
        self.detail.as_ref().map_or(0, |d| d.drawn_count())
    }

    fn min_span(&self) -> f64 {
        4.0f64.min(self.n_steps().max(1) as f64)
    }

    pub fn set_window(&mut self, w: Window) {
        self.window = w.clamped(self.n_steps(), self.min_span());
    }

    /// Fraction of the plot width at CSS x (0.5 before the first draw).
    pub fn plot_frac(&self, x_css: f64) -> f64 {
        match self.rect {
            Some(r) => ((x_css * self.dpr - r.x as f64) / r.w as f64).clamp(0.0, 1.0),
            None => 0.5,
        }
    }

    /// Picks columns and fills the plot pixel buffer with the timeline's
    /// bands for a plot of `rect`.
    pub fn render_timeline(&mut self, rect: PlotRect) -> PlotStats {
        self.rect = Some(rect);
        let (Some(f), Some(d)) = (self.files.get(self.current), self.detail.as_ref()) else {
            self.plot.reset(rect.w, rect.h, render::BACKGROUND);
            self.cols = Columns::default();
            return PlotStats::default();
        };
        let Some(tl) = f.timeline(self.device, self.kind) else {
            self.plot.reset(rect.w, rect.h, render::BACKGROUND);
            return PlotStats::default();
        };
        self.plot.resize(rect.w, rect.h); // render_plot writes every pixel
        let src = TimelineBands::new(tl, d, &self.bands);
        self.cols = self.pick_columns(&src, rect.w);
        self.y_max = y_max_above(self.cols.max_total);
        // The selected band's outline is drawn apart (`render_selection`).
        let style = PlotStyle { y_max: self.y_max, selected: None, outline: 1 };
        if crate::explain::colors_apply(&self.colors, tl.kind, tl.elements.len()) {
            let colors = &self.colors;
            render::render_plot_with(&src, &self.cols, style, |e| colors[e as usize], &mut self.plot)
        } else {
            render::render_plot(&src, &self.cols, style, &mut self.plot)
        }
    }

    /// Draws the outline of the hovered (else the pinned) band over the
    /// plot as last drawn into `self.selection`: its top left corner in
    /// the canvas' device pixels, None when there is none to draw.
    pub fn render_selection(&mut self) -> Option<(u32, u32)> {
        self.render_selection_of(self.hovered.or(self.pinned))
    }

    /// [`Context::render_selection`] of `hit` (a view that keeps its own).
    pub(crate) fn render_selection_of(&mut self, hit: Option<Hit>) -> Option<(u32, u32)> {
        let Some(Hit::Element(e)) = hit else { return None };
        let (rect, d) = (self.rect?, self.detail.as_ref()?);
        let tl = self.files.get(self.current)?.timeline(self.device, self.kind)?;
        let src = TimelineBands::new(tl, d, &self.bands);
        let t = self.dpr.round().max(1.0) as u32;
        let at = render::render_selection(&src, &self.cols, self.y_max, rect.h, e, t, &mut self.selection)?;
        Some((rect.x + at.x, rect.y + at.y))
    }

    pub fn render_minimap(&mut self, w: u32, h: u32) {
        self.minimap.reset(w, h, render::BACKGROUND);
        let key = (self.current, self.device, self.kind, w, self.x_shown());
        if self.minimap_cache.as_ref().map(|c| c.0) != Some(key) {
            let Some((cols, max)) = self.minimap_columns(w) else { return };
            let peak = self.timeline().map_or(0, |t| t.peak_step());
            self.minimap_cache = Some((key, cols, max, peak));
        }
        if let Some((_, cols, max, peak)) = &self.minimap_cache {
            // In steps, or in columns on the time axis (xaxis.rs).
            let (n, win, peak) = self.minimap_frame(w, *peak);
            render::render_minimap(cols, *max, n, win, Some(peak), &mut self.minimap);
        }
    }

    /// (step, bytes) under the plot pixel (x, y) as last drawn.
    pub fn point_at(&self, x: f64, y: f64) -> Option<(u32, u64)> {
        let rect = self.rect?;
        render::pixel_to_point(&self.cols, self.y_max, rect.h, x, y)
    }

    /// The band under the plot pixel (x, y) (device pixels inside the plot).
    pub fn hit(&self, x: f64, y: f64) -> Option<Hit> {
        let (step, bytes) = self.point_at(x, y)?;
        let tl = self.timeline()?;
        self.detail.as_ref()?.hit(tl, step, bytes)
    }

    /// The band under CSS point (x, y) of the plot canvas.
    pub fn hit_css(&self, x: f64, y: f64) -> Option<Hit> {
        let (px, py) = self.rect?.pixel_of_css(x, y, self.dpr)?;
        self.hit(px, py)
    }

    /// Hover text of a band.
    pub fn hit_text(&self, hit: Option<Hit>) -> String {
        let (Some(f), Some(tl)) = (self.file(), self.timeline()) else {
            return String::new();
        };
        match hit {
            Some(Hit::Element(e)) => memviz_core::format::hover_text(&f.snap, f.versions_now(), tl, e),
            Some(Hit::Summarized) => SUMMARIZED_TEXT.to_string(),
            None => String::new(),
        }
    }

    /// CSS point of the plot canvas where element `elem` can be hovered
    /// (the middle of its band at the first column where it is drawn):
    /// `[x, y]`, empty when it is not drawn in the window.
    pub fn locate(&self, elem: u32) -> Vec<f64> {
        let Some(r) = self.rect else {
            return vec![];
        };
        let is_elem = |c: usize, y: f64| self.hit(c as f64 + 0.5, y) == Some(Hit::Element(elem));
        for c in 0..self.cols.step.len() {
            for y in 0..r.h {
                if is_elem(c, y as f64 + 0.5) {
                    // Scan to the band's middle in this column.
                    let mut y1 = y;
                    while y1 + 1 < r.h && is_elem(c, y1 as f64 + 1.5) {
                        y1 += 1;
                    }
                    let ym = (y + y1) as f64 / 2.0 + 0.5;
                    return vec![(r.x as f64 + c as f64 + 0.5) / self.dpr, (r.y as f64 + ym) / self.dpr];
                }
            }
        }
        vec![]
    }

    /// Pins element `e` and pans the window so that its life is in the
    /// middle third (keeping the zoom when it fits); draws every element up
    /// to it when it was summarized.
    pub fn show_element(&mut self, e: u32) {
        let Some(tl) = self.timeline() else { return };
        let Some(el) = tl.elements.get(e as usize) else { return };
        let n = tl.n_steps() as f64;
        let (a, b) = (el.x0 as f64, (el.x1 as f64).min(n).max(el.x0 as f64 + 1.0));
        let rank = tl.by_size.iter().position(|&x| x == e);
        // Zoom so that its life is about a third of the window (at least 64
        // steps), unless the current zoom already shows it whole.
        let (cur, life) = (self.window.x1 - self.window.x0, b - a);
        let want = (life * 3.0).max(64.0);
        let span = if cur >= life * 1.2 { cur.min(want) } else { want };
        let mid = (a + b) / 2.0;
        self.set_window(Window { x0: mid - span / 2.0, x1: mid + span / 2.0 });
        let summarized = self.detail.as_ref().is_some_and(|d| !d.is_drawn(e));
        if let (true, Some(rank)) = (summarized, rank) {
            self.set_detail(rank as u32 + 1);
        }
        self.pinned = Some(Hit::Element(e));
        self.hovered = None;
    }
}
