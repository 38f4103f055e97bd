//! The page's API for torch.profiler memory exports (www/profiler.js):
//! `ProfilerView`, apart from `Viewer`, which holds snapshots; the page
//! falls back to it when the snapshot loader says the file is one of these.
//! Forwards to memviz_viewer's profiler.rs and moves the chart's pixels out.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct ProfilerView(memviz_viewer::ProfilerView);

#[wasm_bindgen]
impl ProfilerView {
    /// Reads a whole file; an error when it is no profiler export (a
    /// snapshot goes to `Viewer`) or a broken one (the message names the place).
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str, bytes: &[u8]) -> Result<ProfilerView, JsError> {
        memviz_viewer::ProfilerView::open(name, bytes).map(ProfilerView).map_err(|e| JsError::new(&e))
    }

    /// What the file is, in words.
    pub fn format(&self) -> String {
        self.0.format()
    }

    pub fn chart_titles(&self) -> Vec<String> {
        self.0.chart_titles()
    }

    pub fn warnings(&self) -> Vec<String> {
        self.0.warnings()
    }

    /// Picks a chart (a trace's device) and shows all of it.
    pub fn set_chart(&mut self, i: u32) {
        self.0.set_chart(i as usize);
    }

    pub fn reset_window(&mut self) {
        self.0.reset_window();
    }

    pub fn duration_s(&self) -> f64 {
        self.0.duration_s()
    }

    pub fn window_start(&self) -> f64 {
        self.0.window_start()
    }

    pub fn window_end(&self) -> f64 {
        self.0.window_end()
    }

    pub fn y_max(&self) -> f64 {
        self.0.y_max()
    }

    /// Zooms by `factor` (<1: in) around `frac` (0..1 of the plot's width),
    /// within the chart; at most to a microsecond.
    pub fn zoom_at(&mut self, factor: f64, frac: f64) {
        self.0.zoom_at(factor, frac);
    }

    /// Shows [t0, t1] seconds (a phase, a drag), clamped to the chart.
    pub fn set_window(&mut self, t0: f64, t1: f64) {
        self.0.set_window(t0, t1);
    }

    /// The plot's pixels (RGBA, `w` x `h`) for `putImageData`.
    pub fn render(&mut self, w: u32, h: u32) -> Vec<u8> {
        self.0.render(w, h).rgba.clone()
    }

    /// The legend: `[{name, color, max}]` of the curves that are not all zero.
    pub fn legend_json(&self) -> String {
        self.0.legend_json()
    }

    /// The y axis' ticks: `[[bytes, label]]`, every label in one unit.
    pub fn y_ticks_json(&self, target: u32) -> String {
        self.0.y_ticks_json(target)
    }

    /// The numbers `memviz summary --json` prints.
    pub fn summary_json(&self) -> String {
        self.0.summary_json()
    }

    /// Hover text of pixel column `x` (as last rendered): the time and the
    /// values there, "" outside the data.
    pub fn hover(&self, x: u32) -> String {
        self.0.hover(x)
    }

    /// Seconds of the peak (largest stacked total, or allocated) and its bytes.
    pub fn peak(&self) -> Vec<f64> {
        self.0.peak().map_or(vec![], |(s, b)| vec![s, b])
    }
}
