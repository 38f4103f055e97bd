//! The viewer's state without any browser type: open snapshots, the chosen
//! file / device / view / detail / window, the last rendered columns (for
//! hit testing) and the pixel buffers. `Viewer` (lib.rs) wraps it for JS.

use memviz_core::timeline::{DetailView, Hit, Timeline, TimelineKind};
use memviz_core::versions::{self, Versions};
use memviz_core::{Loader, Snapshot};
use memviz_render::{self as render, BandIndex, Columns, Image, PlotStats, PlotStyle, TimelineBands, Window};

/// The timeline views the selector offers. Views of other kinds (Allocator
/// State History, Settings) get their own variants here.
pub const VIEWS: [(&str, TimelineKind); 2] = [
    ("Active Memory Timeline", TimelineKind::ActiveMemory),
    ("Active Cached Segment Timeline", TimelineKind::CachedSegments),
];

/// Detail limit a fresh view starts with: every element, up to this many.
pub const DEFAULT_DETAIL_CAP: u32 = 50_000;

/// Space around the plot inside the canvas, in CSS pixels: left (y labels),
/// right, top, bottom (x labels).
pub const MARGIN: (f64, f64, f64, f64) = (78.0, 16.0, 14.0, 40.0);

/// Minimap columns of (file, device, view, width), then their max, the
/// number of steps and the peak step: O(steps) to compute, so kept.
type MinimapCache = ((usize, u32, usize, u32), Vec<u64>, u64, u32, u32);

pub struct OpenFile {
    pub name: String,
    pub snap: Snapshot,
    /// Address versions, computed once per file (every timeline needs them).
    pub versions: Versions,
    /// Built timelines: (device, view index).
    timelines: Vec<((u32, usize), Timeline)>,
}

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
}

#[derive(Default)]
pub struct App {
    pub files: Vec<OpenFile>,
    pub current: usize,
    pub device: u32,
    pub view: usize,
    pub detail: Option<DetailView>,
    /// The drawn bands of `detail`, laid out for the renderer's sweep.
    pub bands: BandIndex,
    pub limit: u32,
    pub window: Window,
    pub cols: Columns,
    pub y_max: u64,
    pub rect: Option<PlotRect>,
    pub plot: Image,
    pub minimap: Image,
    minimap_cache: Option<MinimapCache>,
    /// Element under the pointer, and the one pinned by a click.
    pub hovered: Option<Hit>,
    pub pinned: Option<Hit>,
    pub loading: Option<(String, Loader, u64)>,
    pub last_stats: PlotStats,
    /// A color per element of the current Active Memory Timeline ("Color
    /// by", set by explain.rs); empty: memory_viz's colors.
    pub colors: Vec<render::Rgba>,
}

impl App {
    /// Starts reading a file chunk by chunk.
    pub fn begin(&mut self, name: &str) {
        self.loading = Some((name.to_string(), Loader::new(), 0));
    }

    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), String> {
        let Some((name, loader, fed)) = self.loading.as_mut() else {
            return Err("feed without begin".into());
        };
        *fed += chunk.len() as u64;
        match loader.feed(chunk) {
            Ok(()) => Ok(()),
            Err(e) => {
                let msg = format!("{name}: {e}");
                self.loading = None;
                Err(msg)
            }
        }
    }

    /// Finishes the file being read; on success it becomes the current one.
    pub fn finish(&mut self) -> Result<usize, String> {
        let Some((name, loader, _)) = self.loading.take() else {
            return Err("finish without begin".into());
        };
        let snap = loader.finish().map_err(|e| format!("{name}: {e}"))?;
        Ok(self.add(name, snap))
    }

    pub fn open(&mut self, name: &str, bytes: &[u8]) -> Result<usize, String> {
        let snap = memviz_core::load(bytes).map_err(|e| format!("{name}: {e}"))?;
        Ok(self.add(name.to_string(), snap))
    }

    fn add(&mut self, name: String, snap: Snapshot) -> usize {
        let versions = versions::compute(&snap);
        self.files.push(OpenFile { name, snap, versions, timelines: Vec::new() });
        let i = self.files.len() - 1;
        self.select_file(i);
        i
    }

    pub fn select_file(&mut self, i: usize) {
        if i >= self.files.len() {
            return;
        }
        self.current = i;
        self.device = self.files[i].snap.default_device().unwrap_or(0);
        self.rebuild();
    }

    /// Frees the timelines built for the files not shown: a batch of ranks
    /// keeps only their compact models, and a file's timeline is built again
    /// when it is shown again.
    pub fn drop_other_timelines(&mut self) {
        let current = self.current;
        for (i, f) in self.files.iter_mut().enumerate() {
            if i != current {
                f.timelines = Vec::new();
            }
        }
    }

    pub fn set_device(&mut self, d: u32) {
        self.device = d;
        self.rebuild();
    }

    pub fn set_view(&mut self, v: usize) {
        if v < VIEWS.len() {
            self.view = v;
            self.rebuild();
        }
    }

    pub fn file(&self) -> Option<&OpenFile> {
        self.files.get(self.current)
    }

    pub fn timeline(&self) -> Option<&Timeline> {
        let f = self.file()?;
        f.timelines.iter().find(|(k, _)| *k == (self.device, self.view)).map(|(_, t)| t)
    }

    pub fn kind(&self) -> TimelineKind {
        VIEWS[self.view].1
    }

    /// New file / device / view: replay (once, cached) and reset detail and
    /// window.
    fn rebuild(&mut self) {
        let (device, view) = (self.device, self.view);
        let Some(f) = self.files.get_mut(self.current) else {
            return;
        };
        if !f.timelines.iter().any(|(k, _)| *k == (device, view)) {
            let tl = Timeline::build_with(&f.snap, &f.versions, device, VIEWS[view].1);
            f.timelines.push(((device, view), tl));
        }
        let n = self.element_count();
        self.limit = n.min(DEFAULT_DETAIL_CAP);
        self.window = Window::full(self.n_steps());
        self.pinned = None;
        self.hovered = None;
        self.set_detail_view();
    }

    fn set_detail_view(&mut self) {
        self.detail = self.timeline().map(|tl| DetailView::new(tl, self.limit));
        self.bands = match (self.timeline(), &self.detail) {
            (Some(tl), Some(d)) => BandIndex::new(tl, d),
            _ => BandIndex::default(),
        };
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

    /// Zoom by `factor` around the point at fraction `at` of the plot width.
    pub fn zoom(&mut self, factor: f64, at: f64) {
        self.set_window(self.window.zoom(factor, at.clamp(0.0, 1.0)));
    }

    pub fn pan(&mut self, frac: f64) {
        self.set_window(self.window.pan(frac));
    }

    /// Picks columns and fills the plot pixel buffer for a plot of `rect`.
    pub fn render_plot(&mut self, rect: PlotRect, dpr: f64) -> PlotStats {
        self.rect = Some(rect);
        self.plot.reset(rect.w, rect.h, render::BACKGROUND);
        let (Some(f), Some(d)) = (self.files.get(self.current), self.detail.as_ref()) else {
            self.cols = Columns::default();
            self.last_stats = PlotStats::default();
            return self.last_stats;
        };
        let Some(tl) = f.timelines.iter().find(|(k, _)| *k == (self.device, self.view)).map(|(_, t)| t) else {
            return PlotStats::default();
        };
        let src = TimelineBands::new(tl, d, &self.bands);
        self.cols = render::pick_columns(&src, self.window, rect.w);
        // Headroom above the window's peak so it does not touch the top edge.
        self.y_max = ((self.cols.max_total as f64) * 1.06).ceil().max(1.0) as u64;
        let selected = match self.hovered.or(self.pinned) {
            Some(Hit::Element(e)) => Some(e),
            _ => None,
        };
        let style = PlotStyle { y_max: self.y_max, selected, outline: dpr.round().max(1.0) as u32 };
        let colors = &self.colors;
        self.last_stats = if colors.len() == tl.elements.len() && tl.kind == TimelineKind::ActiveMemory {
            render::render_plot_with(&src, &self.cols, style, |e| colors[e as usize], &mut self.plot)
        } else {
            render::render_plot(&src, &self.cols, style, &mut self.plot)
        };
        self.last_stats
    }

    pub fn render_minimap(&mut self, w: u32, h: u32) {
        self.minimap.reset(w, h, render::BACKGROUND);
        let key = (self.current, self.device, self.view, w);
        if self.minimap_cache.as_ref().map(|c| c.0) != Some(key) {
            let Some(tl) = self.timeline() else { return };
            let (cols, max) = render::minimap_columns(&tl.total, tl.start_bytes, w);
            self.minimap_cache = Some((key, cols, max, tl.n_steps(), tl.peak_step()));
        }
        if let Some((_, cols, max, n, peak)) = &self.minimap_cache {
            render::render_minimap(cols, *max, *n, self.window, Some(*peak), &mut self.minimap);
        }
    }

    /// What lies under the plot pixel (x, y) (device pixels inside the plot).
    pub fn hit(&self, x: f64, y: f64) -> Option<Hit> {
        let rect = self.rect?;
        let (step, bytes) = render::pixel_to_point(&self.cols, self.y_max, rect.h, x, y)?;
        let tl = self.timeline()?;
        self.detail.as_ref()?.hit(tl, step, bytes)
    }

    /// Hover text of a hit.
    pub fn hit_text(&self, hit: Option<Hit>) -> String {
        let (Some(f), Some(tl)) = (self.file(), self.timeline()) else {
            return String::new();
        };
        match hit {
            Some(Hit::Element(e)) => memviz_core::format::hover_text(&f.snap, tl, e),
            Some(Hit::Summarized) => "Small tensors that were not plotted to cutdown on render time.\n\
                 Use detail slider to see smaller allocations."
                .to_string(),
            None => String::new(),
        }
    }
}
