//! The memviz page's API: a façade over `memviz_viewer::Viewer`, which holds
//! the open snapshots, the chosen view, window and selection and draws
//! every view into pixel buffers without a browser. This crate only moves
//! bytes in, pixels out to the canvases (bands, axes overlay, minimap,
//! segment map) and the page's devicePixelRatio in. The page's JavaScript
//! wires DOM events to these methods.
//!
//! Bands are put on the canvas in one `putImageData`; plotters (through
//! plotters-canvas) draws only the axes, grid and labels on a transparent
//! overlay canvas (axes.rs), and only when they change (window, y scale or
//! size), not on hover.
//!
//! - lib.rs: the viewer core's one typed command (`ViewCommand` in,
//!   `PageView` out: files, device, view, detail, window, pointer, search,
//!   the state history, steps and x) and the band plot's pixels;
//! - views.rs: the segment map's pixels, long work in slices (`tick`),
//!   record_function phases and wall-clock time;
//! - explain.rs: the analysis panels' one command (Explain, Findings,
//!   Alive at, What if);
//! - profiler.rs: torch.profiler memory exports (`ProfilerView`, apart from
//!   `Viewer`);
//! - ranks.rs: many files at once: overview rows, rank order, diffs.

mod axes;
pub mod boundary;
mod decode;
mod explain;
mod profiler;
mod ranks;
mod views;

/// The decode worker's entry (www/decode-worker.js), exported from this module.
pub use memviz_worker::{decode_worker, decode_workers};

use memviz_render::Image;
use memviz_viewer::{Axes, Selection};
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

/// The built-in example: a real recording, ResNet50 trained without
/// `zero_grad` on an H100 (example/README.md says where it came from).
pub static EXAMPLE: &[u8] = include_bytes!("../example/resnet50_no_zero_grad.pickle.gz");
pub const EXAMPLE_NAME: &str = "resnet50_no_zero_grad.pickle.gz";

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
#[derive(Default)]
pub struct Viewer {
    inner: memviz_viewer::Viewer,
    /// Memory taken and touched ahead for a file a worker decodes
    /// (`open({cmd: 'ahead'})`); let go when its model comes.
    ahead: memviz_viewer::MemoryAhead,
    /// A file the browser benches decode (`open({cmd: 'decode'})`, decode.rs).
    decoder: Option<memviz_viewer::Decoder>,
    /// Where the time went adopting the last worker's decode (decode.rs).
    adopted: memviz_viewer::WorkerTimings,
    /// The selection canvas holds an outline (else it is clear and is left
    /// alone: a canvas touched is copied to the compositor at the next frame).
    selection_drawn: bool,
    /// The idle warm-up's rounds so far (decode.rs `warm_boundary`).
    warm_rounds: u32,
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

fn clear(c: &HtmlCanvasElement) -> Result<(), JsError> {
    ctx2d(c)?.clear_rect(0.0, 0.0, c.width() as f64, c.height() as f64);
    Ok(())
}

/// Puts `img` on `canvas` with its top left corner at device pixel (x, y).
pub(crate) fn put(canvas: &HtmlCanvasElement, img: &Image, x: u32, y: u32) -> Result<(), JsError> {
    let data = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&img.rgba), img.width, img.height)
        .map_err(|_| JsError::new("ImageData"))?;
    ctx2d(canvas)?.put_image_data(&data, x as f64, y as f64).map_err(|_| JsError::new("putImageData"))
}

impl Viewer {
    /// Clears the selection canvas if it holds an outline. A canvas resized
    /// by the page is cleared by the browser, so the flag errs only towards
    /// one clear too many.
    fn clear_selection(&mut self, selection: &HtmlCanvasElement) -> Result<(), JsError> {
        if std::mem::take(&mut self.selection_drawn) {
            clear(selection)?;
        }
        Ok(())
    }

    /// The viewer state with the page's current devicePixelRatio: every
    /// call that takes CSS coordinates goes through here.
    pub(crate) fn at_dpr(&mut self) -> &mut memviz_viewer::Viewer {
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(0.5);
        self.inner.set_dpr(dpr);
        &mut self.inner
    }
}

#[wasm_bindgen]
impl Viewer {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Viewer {
        Viewer::default()
    }

    /// How many files are open (the load path and every panel ask it
    /// before anything else).
    pub fn file_count(&self) -> u32 {
        self.inner.file_count() as u32
    }

    /// Draws the current view: bands into `plot` (sized in device pixels by
    /// the page), the hovered or pinned band's outline into `selection`
    /// and axes into `axes` (same size, transparent, on top, in that
    /// order) and the minimap into `minimap`.
    pub fn render(
        &mut self,
        plot: &HtmlCanvasElement,
        selection: &HtmlCanvasElement,
        axes: &HtmlCanvasElement,
        minimap: &HtmlCanvasElement,
    ) -> Result<RenderStats, JsError> {
        let (w, h) = (plot.width(), plot.height());
        let t0 = now_ms();
        let frame = self.at_dpr().render_plot(w, h);
        clear(plot)?;
        let Some(frame) = frame else {
            self.clear_selection(selection)?;
            return Ok(RenderStats::default());
        };
        let r = frame.rect;
        put(plot, self.inner.plot_image(), r.x, r.y)?;
        let t1 = now_ms();
        let a0 = now_ms();
        let axes_ms = match frame.axes {
            Axes::Unchanged => 0.0,
            Axes::Clear => clear(axes).map(|()| now_ms() - a0)?,
            Axes::Draw(spec) => {
                axes::draw(axes, &spec)?;
                now_ms() - a0
            }
        };
        put(minimap, self.inner.render_minimap(minimap.width(), minimap.height()), 0, 0)?;
        self.render_selection(selection)?;
        Ok(RenderStats { bands_ms: t1 - t0, axes_ms, bands_drawn: frame.bands_drawn, columns: r.w })
    }

    /// Draws the hovered or pinned band's outline into `selection` (the
    /// overlay above the plot, same size), over the bands as last drawn.
    /// False when the current view draws it with its bands: then a change
    /// of the hovered band needs `render`. A hover costs this alone, not a
    /// new plot (issue 13: 24-47 ms per hover on a 2M-event file with
    /// every band drawn).
    pub fn render_selection(&mut self, selection: &HtmlCanvasElement) -> Result<bool, JsError> {
        self.clear_selection(selection)?;
        Ok(match self.inner.render_selection() {
            Selection::InPlot => false,
            Selection::Empty => true,
            Selection::At { x, y } => {
                put(selection, self.inner.selection_image(), x, y)?;
                self.selection_drawn = true;
                true
            }
        })
    }

    /// Changes with the file or device (memviz_viewer's `generation`): work
    /// started before is stale once it differs.
    pub fn generation(&self) -> u32 {
        self.inner.generation()
    }

    /// The viewer core's one typed command (memviz_viewer::page): a
    /// `ViewCommand` in, the `PageView` out (a `PageError` thrown).
    pub fn command(&mut self, cmd: JsValue) -> Result<JsValue, JsValue> {
        let cmd = boundary::from_js(&cmd)?;
        self.at_dpr().command(cmd).map(|p| boundary::to_js(&p)).map_err(boundary::error)
    }
}
