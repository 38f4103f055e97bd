//! torch.profiler memory exports without a browser (www/profiler.js over
//! memviz-wasm's profiler.rs): a memory timeline (`export_memory_timeline`
//! .json / .raw.json.gz) stacked by category, a Chrome trace's `[memory]`
//! events as allocated / reserved per device. Its own object, apart from
//! [`Viewer`](crate::Viewer), which holds snapshots: the page falls back to
//! it when the snapshot loader says the file is one of these
//! (memviz_core::Loader::finish_any).

use memviz_core::format::format_size;
use memviz_core::profiler::ProfilerFile;
use memviz_core::Loaded;
use memviz_render::profiler::{curve_color, render_chart};
use memviz_render::Image;

/// One profiler export: the chart shown, its time window and y scale, the
/// columns last drawn (for hover).
pub struct ProfilerView {
    file: ProfilerFile,
    chart: usize,
    /// The window in seconds from the chart's first point.
    t0: f64,
    t1: f64,
    y_max: f64,
    cols: Vec<Option<usize>>,
    img: Image,
}

fn size(b: i64) -> String {
    if b < 0 {
        format!("-{}", format_size(b.unsigned_abs(), false))
    } else {
        format_size(b as u64, false)
    }
}

impl ProfilerView {
    /// Reads a whole file; an error when it is no profiler export (a
    /// snapshot goes to `Viewer`) or a broken one (the message names the place).
    pub fn open(name: &str, bytes: &[u8]) -> Result<ProfilerView, String> {
        let file = match memviz_core::load_any(bytes) {
            Ok(Loaded::Profiler(p)) => p,
            Ok(Loaded::Snapshot(_)) => return Err(format!("{name}: a snapshot, not a profiler export")),
            Err(e) => return Err(format!("{name}: {e}")),
        };
        let mut v =
            ProfilerView { file, chart: 0, t0: 0.0, t1: 1.0, y_max: 1.0, cols: Vec::new(), img: Image::new(1, 1) };
        v.set_chart(0);
        Ok(v)
    }

    /// What the file is, in words.
    pub fn format(&self) -> String {
        self.file.format.describe().to_string()
    }

    pub fn chart_titles(&self) -> Vec<String> {
        self.file.charts.iter().map(|c| c.title.clone()).collect()
    }

    pub fn warnings(&self) -> Vec<String> {
        self.file.warnings.clone()
    }

    /// Picks a chart (a trace's device) and shows all of it.
    pub fn set_chart(&mut self, i: usize) {
        self.chart = i.min(self.file.charts.len().saturating_sub(1));
        let c = &self.file.charts[self.chart];
        self.y_max = (c.max_drawn().max(1) as f64 * 1.06).ceil();
        self.reset_window();
    }

    pub fn reset_window(&mut self) {
        self.t0 = 0.0;
        self.t1 = self.duration_s().max(1e-6);
    }

    pub fn duration_s(&self) -> f64 {
        self.file.charts[self.chart].duration_s()
    }

    pub fn window_start(&self) -> f64 {
        self.t0
    }

    pub fn window_end(&self) -> f64 {
        self.t1
    }

    pub fn y_max(&self) -> f64 {
        self.y_max
    }

    /// Zooms by `factor` (<1: in) around `frac` (0..1 of the plot's width),
    /// within the chart; at most to a microsecond.
    pub fn zoom_at(&mut self, factor: f64, frac: f64) {
        let full = self.duration_s().max(1e-6);
        let span = ((self.t1 - self.t0) * factor).clamp(1e-6, full);
        let at = self.t0 + frac.clamp(0.0, 1.0) * (self.t1 - self.t0);
        let t0 = (at - frac * span).clamp(0.0, full - span);
        self.t0 = t0;
        self.t1 = t0 + span;
    }

    /// Shows [t0, t1] seconds (a phase, a drag), clamped to the chart.
    pub fn set_window(&mut self, t0: f64, t1: f64) {
        let full = self.duration_s().max(1e-6);
        let (a, b) = (t0.clamp(0.0, full), t1.clamp(0.0, full));
        if b - a >= 1e-6 {
            self.t0 = a;
            self.t1 = b;
        }
    }

    /// Draws the plot (`w` x `h` pixels, clamped to 1..16384) and returns it.
    pub fn render(&mut self, w: u32, h: u32) -> &Image {
        let (w, h) = (w.clamp(1, 16384), h.clamp(1, 16384));
        self.img = Image::new(w, h);
        let chart = &self.file.charts[self.chart];
        self.cols = render_chart(chart, self.t0, self.t1, self.y_max as u64, &mut self.img);
        &self.img
    }

    /// The legend: `[{name, color, max}]` of the curves that are not all zero.
    pub fn legend_json(&self) -> String {
        let c = &self.file.charts[self.chart];
        let items: Vec<serde_json::Value> = c
            .curves
            .iter()
            .enumerate()
            .filter(|(_, cv)| cv.values.iter().any(|&v| v != 0))
            .map(|(i, cv)| {
                let [r, g, b, _] = curve_color(c, i);
                serde_json::json!({
                    "name": cv.name,
                    "color": format!("#{r:02x}{g:02x}{b:02x}"),
                    "max": cv.values.iter().copied().max().unwrap_or(0),
                    "max_text": size(cv.values.iter().copied().max().unwrap_or(0)),
                })
            })
            .collect();
        serde_json::Value::Array(items).to_string()
    }

    /// The y axis' ticks, about `target` of them: `[[bytes, label]]`, every
    /// label in one unit (the page's, CLI's and render's rule: memviz-render's
    /// `size_ticks`, memviz_core's `axis_unit`).
    pub fn y_ticks_json(&self, target: u32) -> String {
        let ticks = memviz_render::axis::size_ticks(self.y_max, target as usize);
        let unit = memviz_core::format::axis_unit(ticks.last().copied().unwrap_or(0.0));
        let items: Vec<serde_json::Value> =
            ticks.iter().map(|&v| serde_json::json!([v, memviz_core::format::format_size_in(v, unit)])).collect();
        serde_json::Value::Array(items).to_string()
    }

    /// The numbers `memviz summary --json` prints.
    pub fn summary_json(&self) -> String {
        self.file.to_json().to_string()
    }

    /// Hover text of pixel column `x` (as last rendered): the time and the
    /// values there, "" outside the data.
    pub fn hover(&self, x: u32) -> String {
        let c = &self.file.charts[self.chart];
        let Some(Some(i)) = self.cols.get(x as usize) else { return String::new() };
        let mut s = format!("t = {:.6} s (point {i} of {})", c.seconds(*i), c.times_us.len());
        if c.stacked {
            s.push_str(&format!("\ntotal {}", size(c.total_at(*i))));
        }
        for cv in &c.curves {
            if !c.stacked || cv.values[*i] != 0 {
                s.push_str(&format!("\n{} {}", cv.name, size(cv.values[*i])));
            }
        }
        s
    }

    /// Seconds of the peak (largest stacked total, or allocated) and its bytes.
    pub fn peak(&self) -> Option<(f64, f64)> {
        let c = &self.file.charts[self.chart];
        c.peak().map(|i| (c.seconds(i), c.total_at(i) as f64))
    }
}
