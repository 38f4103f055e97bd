//! The memviz page's API: a `Viewer` that holds the open snapshots and draws
//! the chosen timeline into three canvases (bands, axes overlay, minimap).
//! The page's JavaScript only wires DOM events to these methods.
//!
//! Bands are rasterized by memviz-render into a pixel buffer and put on the
//! canvas in one `putImageData`; plotters (through plotters-canvas) draws
//! only the axes, grid and labels on a transparent overlay canvas, and only
//! when they change (window, y scale or size), not on hover.

pub mod app;
mod axes;
mod explain;
mod moment;
mod phases;
mod profiler;
mod ranks;
pub mod text;
mod views;

use app::{App, PlotRect, VIEWS};
use memviz_core::timeline::{Hit, TimelineKind};
use memviz_render::Window;
use wasm_bindgen::prelude::*;
use wasm_bindgen::Clamped;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

/// The message of the last panic of this instance ("" when none).
static LAST_PANIC: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Runs when the module is instantiated: installs the panic hook.
///
/// wasm32 has no unwinding: a panic aborts the call with an `unreachable`
/// trap, and the instance is not to be trusted afterwards (the Viewer stays
/// borrowed, the shadow stack is not unwound, memory held by the open files
/// is never freed). The hook keeps the panic's message where
/// [`panic_message`] finds it and logs it; the page (www/app.js) then shows
/// "internal error in memviz: <message>" and starts a fresh instance of the
/// module (www/boot.js keeps the compiled module for that).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let text = match (info.payload().downcast_ref::<&str>(), info.payload().downcast_ref::<String>()) {
            (Some(s), _) => s.to_string(),
            (_, Some(s)) => s.clone(),
            _ => "panic".to_string(),
        };
        let msg = match info.location() {
            Some(l) => format!("{text} (at {}:{})", l.file(), l.line()),
            None => text,
        };
        web_sys::console::error_1(&JsValue::from_str(&format!("memviz: internal error: {msg}")));
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = msg;
        }
    }));
}

/// The message of this instance's last panic, if any (read by the page
/// after a call threw `RuntimeError: unreachable`).
#[wasm_bindgen]
pub fn panic_message() -> Option<String> {
    let last = LAST_PANIC.lock().ok()?;
    (!last.is_empty()).then(|| last.clone())
}

/// The built-in example: two training steps of a small transformer, written
/// by build.rs with the project's own allocator simulation (gzip pickle).
pub static EXAMPLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/example.pickle.gz"));
pub const EXAMPLE_NAME: &str = "example_training_step.pickle.gz";

/// What one `render` call did, for the page's timings line.
#[wasm_bindgen]
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderStats {
    /// Milliseconds spent rasterizing bands (incl. putImageData).
    pub bands_ms: f64,
    /// Milliseconds spent in plotters for the axes (0 when unchanged).
    pub axes_ms: f64,
    /// Distinct bands that got at least one pixel.
    pub bands_drawn: u32,
    /// Pixel columns of the plot.
    pub columns: u32,
}

#[wasm_bindgen]
pub struct Viewer {
    app: App,
    /// What the axes overlay shows now; redrawn only when this changes.
    axes_key: Option<(u64, u64, u64, u32, u32, u64, usize)>,
    /// Pools, state history, settings, search, jumps (views.rs).
    views: views::Views,
    /// The "Alive at" panel's analysis (moment.rs).
    moment: moment::MomentCache,
    /// Color by, highlight, stacked area (explain.rs).
    explain: explain::ExplainState,
}

impl Default for Viewer {
    fn default() -> Self {
        Viewer::new()
    }
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

pub(crate) fn ctx2d(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, JsError> {
    canvas
        .get_context("2d")
        .map_err(|_| JsError::new("no 2d context"))?
        .ok_or_else(|| JsError::new("no 2d context"))?
        .dyn_into::<CanvasRenderingContext2d>()
        .map_err(|_| JsError::new("no 2d context"))
}

#[wasm_bindgen]
impl Viewer {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Viewer {
        Viewer {
            app: App::default(),
            axes_key: None,
            views: Default::default(),
            moment: Default::default(),
            explain: Default::default(),
        }
    }

    /// Starts reading a file that arrives in chunks (`feed`, then `finish`).
    pub fn begin(&mut self, name: &str) {
        self.app.begin(name);
    }

    /// Decodes the next chunk. The error names the file and the byte offset.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), JsError> {
        self.app.feed(chunk).map_err(|e| JsError::new(&e))
    }

    /// Ends the file; returns its index (it becomes the current file).
    pub fn finish(&mut self) -> Result<u32, JsError> {
        self.axes_key = None;
        self.app.finish().map(|i| i as u32).map_err(|e| JsError::new(&e))
    }

    /// Opens a whole file at once.
    pub fn open(&mut self, name: &str, bytes: &[u8]) -> Result<u32, JsError> {
        self.axes_key = None;
        self.app.open(name, bytes).map(|i| i as u32).map_err(|e| JsError::new(&e))
    }

    /// Opens the built-in example.
    pub fn open_example(&mut self) -> Result<u32, JsError> {
        self.open(EXAMPLE_NAME, EXAMPLE)
    }

    pub fn file_names(&self) -> Vec<String> {
        self.app.files.iter().map(|f| f.name.clone()).collect()
    }

    pub fn current_file(&self) -> u32 {
        self.app.current as u32
    }

    pub fn select_file(&mut self, i: u32) {
        self.app.select_file(i as usize);
    }

    /// Devices memory_viz offers for the current file.
    pub fn devices(&self) -> Vec<u32> {
        self.app.file().map_or(Vec::new(), |f| f.snap.devices())
    }

    /// The selector's text for each of [`Viewer::devices`]: `cuda:0`, ...,
    /// `host` (pinned host memory).
    pub fn device_labels(&self) -> Vec<String> {
        self.app.file().map_or(Vec::new(), |f| f.snap.devices().into_iter().map(|d| f.snap.device_label(d)).collect())
    }

    /// What reading the current file left out or read as a default, one
    /// line each (`device_traces[0][17]: not a dict; 3 entries like it
    /// skipped`); empty for a sound file.
    pub fn warnings(&self) -> Vec<String> {
        self.app.file().map_or(Vec::new(), |f| f.snap.warnings.list.iter().map(|w| w.to_string()).collect())
    }

    pub fn device(&self) -> u32 {
        self.app.device
    }

    pub fn set_device(&mut self, d: u32) {
        self.app.set_device(d);
    }

    pub fn view_names(&self) -> Vec<String> {
        VIEWS.iter().map(|(n, _)| *n).chain(views::EXTRA_VIEWS).map(str::to_string).collect()
    }

    pub fn view(&self) -> u32 {
        self.view_index() as u32
    }

    pub fn set_view(&mut self, v: u32) {
        self.select_view(v as usize);
    }

    /// Elements of the current view (the detail slider's maximum).
    pub fn element_count(&self) -> u32 {
        self.app.element_count()
    }

    pub fn detail(&self) -> u32 {
        self.app.limit
    }

    /// Draws the `n` largest elements as bands, the rest summarized.
    pub fn set_detail(&mut self, n: u32) {
        self.app.set_detail(n);
    }

    /// Elements drawn as their own band at the current detail.
    pub fn drawn_count(&self) -> u32 {
        self.app.drawn_count()
    }

    pub fn n_steps(&self) -> u32 {
        self.app.n_steps()
    }

    pub fn window_start(&self) -> f64 {
        self.app.window.x0
    }

    pub fn window_end(&self) -> f64 {
        self.app.window.x1
    }

    /// Shows steps `[x0, x1)` (clamped to the trace).
    pub fn set_window(&mut self, x0: f64, x1: f64) {
        self.app.set_window(Window { x0, x1 });
    }

    pub fn reset_window(&mut self) {
        self.app.set_window(Window::full(self.app.n_steps()));
    }

    /// Zooms by `factor` (< 1 zooms in) around the CSS x coordinate `x` of
    /// the plot canvas.
    pub fn zoom_at(&mut self, factor: f64, x: f64) {
        let at = self.plot_frac(x);
        self.app.zoom(factor, at);
    }

    /// Pans by `dx` CSS pixels of the plot canvas (drag right shows earlier
    /// steps).
    pub fn pan_by(&mut self, dx: f64) {
        if let Some(r) = self.app.rect {
            self.app.pan(-dx * self.dpr() / r.w as f64);
        }
    }

    fn dpr(&self) -> f64 {
        web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(0.5)
    }

    fn plot_frac(&self, x_css: f64) -> f64 {
        match self.app.rect {
            Some(r) => ((x_css * self.dpr() - r.x as f64) / r.w as f64).clamp(0.0, 1.0),
            None => 0.5,
        }
    }

    /// Peak of the current view: bytes and step.
    pub fn peak_bytes(&self) -> f64 {
        self.app.timeline().map_or(0.0, |t| t.peak_bytes() as f64)
    }

    pub fn peak_step(&self) -> u32 {
        self.app.timeline().map_or(0, |t| t.peak_step())
    }

    /// Draws the current view: bands into `plot` (sized in device pixels by
    /// the page), axes into `axes` (same size, transparent, on top) and the
    /// minimap into `minimap`.
    pub fn render(
        &mut self,
        plot: &HtmlCanvasElement,
        axes: &HtmlCanvasElement,
        minimap: &HtmlCanvasElement,
    ) -> Result<RenderStats, JsError> {
        if self.views.mode == views::Mode::Pools {
            return self.render_pools_view(plot, axes, minimap);
        }
        let dpr = self.dpr();
        let (w, h) = (plot.width(), plot.height());
        let rect = PlotRect::in_canvas(w, h, dpr);
        let t0 = now_ms();
        self.explain_colors();
        let stats = self.app.render_plot(rect, dpr);
        self.explain_area();
        self.decorate_plot();
        let ctx = ctx2d(plot)?;
        ctx.clear_rect(0.0, 0.0, w as f64, h as f64);
        let img = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&self.app.plot.rgba), rect.w, rect.h)
            .map_err(|_| JsError::new("ImageData"))?;
        ctx.put_image_data(&img, rect.x as f64, rect.y as f64).map_err(|_| JsError::new("putImageData"))?;
        let t1 = now_ms();
        let key = (
            self.app.window.x0.to_bits(),
            self.app.window.x1.to_bits(),
            self.app.y_max,
            w,
            h,
            dpr.to_bits(),
            self.app.view,
        );
        let mut axes_ms = 0.0;
        if self.axes_key != Some(key) {
            self.axes_key = Some(key);
            let a0 = now_ms();
            let peak = self.app.timeline().map(|t| (t.peak_step(), t.peak_bytes()));
            if self.app.n_steps() > 0 {
                let x_desc = match self.app.kind() {
                    TimelineKind::ActiveMemory => "alloc / free action (step)",
                    TimelineKind::CachedSegments => "segment alloc / free action (step)",
                };
                axes::draw(axes, rect, dpr, self.app.window, self.app.y_max, peak, x_desc)?;
            } else {
                ctx2d(axes)?.clear_rect(0.0, 0.0, axes.width() as f64, axes.height() as f64);
            }
            axes_ms = now_ms() - a0;
        }
        let (mw, mh) = (minimap.width(), minimap.height());
        self.app.render_minimap(mw, mh);
        let mctx = ctx2d(minimap)?;
        let mimg = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&self.app.minimap.rgba), mw, mh)
            .map_err(|_| JsError::new("ImageData"))?;
        mctx.put_image_data(&mimg, 0.0, 0.0).map_err(|_| JsError::new("putImageData"))?;
        Ok(RenderStats { bands_ms: t1 - t0, axes_ms, bands_drawn: stats.bands_drawn, columns: rect.w })
    }

    /// Pointer at CSS (x, y) of the plot canvas: returns the text of what is
    /// under it, or of the pinned band when it is over empty space.
    pub fn hover(&mut self, x: f64, y: f64) -> String {
        if self.views.mode == views::Mode::Pools {
            let hit = self.pools_hit(x, y);
            self.views.pool_hovered = hit;
            return self.pools_text(hit.or(self.views.pool_pinned));
        }
        let hit = self.hit_css(x, y);
        self.app.hovered = hit;
        self.app.hit_text(hit.or(self.app.pinned))
    }

    /// Pointer left the plot: the pinned band stays selected.
    pub fn leave(&mut self) -> String {
        if self.views.mode == views::Mode::Pools {
            self.views.pool_hovered = None;
            return self.pools_text(self.views.pool_pinned);
        }
        self.app.hovered = None;
        self.app.hit_text(self.app.pinned)
    }

    /// Click: pins what is under the pointer (or unpins on empty space).
    pub fn click(&mut self, x: f64, y: f64) -> String {
        if self.views.mode == views::Mode::Pools {
            let hit = self.pools_hit(x, y);
            self.views.pool_pinned = hit;
            self.app.pinned = match hit {
                Some(memviz_core::pools::PoolHit::Element(e)) => Some(Hit::Element(e)),
                _ => None,
            };
            return self.pools_text(hit);
        }
        let hit = self.hit_css(x, y);
        self.app.pinned = hit;
        self.app.hit_text(hit)
    }

    /// Element index under the pointer, -1 for none, -2 for the summarized band.
    pub fn hit_at(&mut self, x: f64, y: f64) -> i32 {
        if self.views.mode == views::Mode::Pools {
            let hit = self.pools_hit(x, y);
            return Self::pools_code(hit);
        }
        match self.hit_css(x, y) {
            Some(Hit::Element(e)) => e as i32,
            Some(Hit::Summarized) => -2,
            None => -1,
        }
    }

    /// CSS coordinates on the plot canvas where `elem` can be hovered (the
    /// middle of its band at the column where it is thickest), if it is
    /// drawn in the current window: `[x, y]`.
    pub fn locate(&self, elem: u32) -> Vec<f64> {
        let dpr = self.dpr();
        let Some(r) = self.app.rect else {
            return vec![];
        };
        for c in 0..self.app.cols.step.len() {
            for y in 0..r.h {
                if self.app.hit(c as f64 + 0.5, y as f64 + 0.5) == Some(Hit::Element(elem)) {
                    // Scan to the band's middle in this column.
                    let mut y1 = y;
                    while y1 + 1 < r.h && self.app.hit(c as f64 + 0.5, y1 as f64 + 1.5) == Some(Hit::Element(elem)) {
                        y1 += 1;
                    }
                    let ym = (y + y1) as f64 / 2.0 + 0.5;
                    return vec![(r.x as f64 + c as f64 + 0.5) / dpr, (r.y as f64 + ym) / dpr];
                }
            }
        }
        vec![]
    }

    fn hit_css(&self, x: f64, y: f64) -> Option<Hit> {
        let r = self.app.rect?;
        let dpr = self.dpr();
        let (px, py) = (x * dpr - r.x as f64, y * dpr - r.y as f64);
        if px < 0.0 || py < 0.0 || px >= r.w as f64 || py >= r.h as f64 {
            return None;
        }
        self.app.hit(px, py)
    }

    /// Numbers shown in the page's summary line, as JSON: the current
    /// device's numbers as `memviz summary --json` names them, and the
    /// current view's timeline totals under `timeline`.
    pub fn summary_json(&self) -> String {
        use memviz_core::model::BlockState;
        use memviz_core::summary::TimelineSummary;
        let Some(f) = self.app.file() else {
            return "{}".into();
        };
        let (snap, d) = (&f.snap, self.app.device);
        let segs = || snap.device_segments(d);
        let active_blocks: usize = segs()
            .map(|s| snap.segment_blocks(s).iter().filter(|b| b.state == BlockState::ActiveAllocated).count())
            .sum();
        let tl = self.app.timeline().map(TimelineSummary::of).unwrap_or_default();
        serde_json::json!({
            "file": f.name,
            "device": d,
            "device_name": snap.device_name(d),
            "view": VIEWS[self.app.view].0,
            "trace_events": snap.trace(d).len(),
            "segments": segs().count(),
            // Wrapping as `memviz summary` sums them (a hostile file's sizes
            // may add up past 2^64; `sum` would panic in a debug build).
            "reserved_bytes": segs().fold(0u64, |a, s| a.wrapping_add(s.total_size)),
            "allocated_bytes": segs().fold(0u64, |a, s| a.wrapping_add(s.allocated_size)),
            "active_blocks": active_blocks,
            "timeline": tl,
            "peak_step": self.app.timeline().map_or(0, |t| t.peak_step()),
            "steps": self.app.n_steps(),
        })
        .to_string()
    }

    /// The text of element `elem` of the current view.
    pub fn element_text(&self, elem: u32) -> String {
        self.app.hit_text(Some(Hit::Element(elem)))
    }

    /// Index of the largest element (the first drawn band).
    pub fn largest_element(&self) -> i32 {
        self.app.timeline().and_then(|t| t.by_size.first()).map_or(-1, |&e| e as i32)
    }

    /// Panics with `msg`, as a bug would: for the tests of the page's
    /// recovery (tests/e2e/hostile.test.mjs); the page never calls it.
    pub fn debug_panic(&mut self, msg: &str) {
        panic!("{msg}");
    }
}
