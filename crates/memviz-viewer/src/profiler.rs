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
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Wheel zoom: by `factor` (<1: in) around the pointer at CSS `x` on the canvas.
#[derive(Deserialize, TS, Debug, Clone, Copy)]
pub struct ProfilerZoom {
    pub factor: f64,
    pub x: f64,
}

/// The chart's margins around the plot, CSS px (left, right, top, bottom):
/// the tick labels' room.
const MARGIN: (f64, f64, f64, f64) = (70.0, 12.0, 8.0, 26.0);

/// The plot inside a canvas `w` x `h` device pixels (`dpr` a CSS pixel):
/// x, y, width, height in device pixels.
fn plot_rect(w: u32, h: u32, dpr: f64) -> (u32, u32, u32, u32) {
    let m = |v: f64| (v * dpr).round() as u32;
    let (l, r, t, b) = MARGIN;
    (m(l), m(t), w.saturating_sub(m(l + r)).max(1), h.saturating_sub(m(t + b)).max(1))
}

/// The chart panel's command: what changed, and the canvas' size (device
/// pixels, `dpr` of them a CSS pixel) the plot and ticks are laid out for.
#[derive(Deserialize, TS, Debug, Clone, Default)]
pub struct ProfilerCommand {
    /// Another chart (a trace's device), shown whole.
    #[serde(default)]
    pub chart: Option<u32>,
    /// The whole run again.
    #[serde(default)]
    pub reset: bool,
    #[serde(default)]
    pub zoom: Option<ProfilerZoom>,
    pub width: u32,
    pub height: u32,
    pub dpr: f64,
    /// The CSS x of the pointer on the canvas.
    #[serde(default)]
    pub hover_x: Option<f64>,
    /// The plot's pixels wanted too (a hover only moves the readout).
    #[serde(default)]
    pub draw: bool,
}

/// A curve of the legend.
#[derive(Serialize, TS, Debug, Clone)]
pub struct LegendItem {
    pub name: String,
    /// CSS colour: memviz's colour of the kind the category is.
    pub color: String,
    #[ts(type = "number")]
    pub max: i64,
    /// "name (max 1.5MiB)".
    pub label: String,
}

/// An axis tick: `pos` 0..1 along the axis (y: from the bottom).
#[derive(Serialize, TS, Debug, Clone)]
pub struct ProfilerTick {
    /// Where on the axis, 0..1.
    pub pos: f64,
    pub label: String,
    /// Its place over the canvas (CSS px), anchored at its end (y) or middle (x).
    pub style: String,
}

/// The chart panel's view model.
#[derive(Serialize, TS, Debug, Clone)]
pub struct ProfilerModel {
    /// The file's name and what it is.
    pub title: String,
    /// What the file is, in words.
    pub format: String,
    pub charts: Vec<String>,
    pub chart: u32,
    pub warnings: Vec<String>,
    pub legend: Vec<LegendItem>,
    pub y_ticks: Vec<ProfilerTick>,
    pub x_ticks: Vec<ProfilerTick>,
    /// The time and the values at the hovered column; "" outside the data.
    pub hover: String,
}

/// A time label on an axis spanning `span` seconds.
fn time_label(s: f64, span: f64) -> String {
    if span < 2e-3 {
        format!("{:.0} µs", s * 1e6)
    } else if span < 0.02 {
        format!("{:.2} ms", s * 1e3)
    } else if span < 2.0 {
        format!("{:.0} ms", s * 1e3)
    } else {
        format!("{s:.1} s")
    }
}

/// One profiler export: the chart shown, its time window and y scale, the
/// columns last drawn (for hover).
pub struct ProfilerView {
    name: String,
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
        let mut v = ProfilerView {
            name: name.to_string(),
            file,
            chart: 0,
            t0: 0.0,
            t1: 1.0,
            y_max: 1.0,
            cols: Vec::new(),
            img: Image::new(1, 1),
        };
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

    /// The y axis' ticks (bytes) for a plot `rh` device pixels high: about one per 50 CSS px.
    fn y_ticks(&self, rh: u32, dpr: f64) -> Vec<f64> {
        memviz_render::axis::size_ticks(self.y_max, ((rh as f64 / (50.0 * dpr)) as usize).max(2))
    }

    /// The whole canvas (`w` x `h` device pixels, `dpr` a CSS pixel): the
    /// plot inside its margins (left transparent: the page's labels go
    /// there) and a light grid line at each y tick.
    pub fn render_canvas(&mut self, w: u32, h: u32, dpr: f64) -> Image {
        let (w, h) = (w.clamp(1, 16384), h.clamp(1, 16384));
        let dpr = if dpr > 0.0 { dpr } else { 1.0 };
        let (rx, ry, rw, rh) = plot_rect(w, h, dpr);
        let mut out = Image::new(w, h);
        out.reset(w, h, [0, 0, 0, 0]);
        let plot = self.render(rw, rh);
        let n = (plot.width.min(w.saturating_sub(rx)) * 4) as usize;
        for y in 0..plot.height.min(h.saturating_sub(ry)) {
            let src = (y * plot.width * 4) as usize;
            let dst = (((ry + y) * w + rx) * 4) as usize;
            out.rgba[dst..dst + n].copy_from_slice(&plot.rgba[src..src + n]);
        }
        for v in self.y_ticks(rh, dpr) {
            let y = ((ry + rh) as f64 - v / self.y_max * rh as f64).round() as u32;
            for x in rx..(rx + rw).min(w) {
                // rgba(0,0,0,0.15) over what is there.
                if y < h {
                    let i = ((y * w + x) * 4) as usize;
                    let p = &mut out.rgba[i..i + 4];
                    for c in &mut p[..3] {
                        *c = (*c as f64 * 0.85).round() as u8;
                    }
                    p[3] = p[3].max(38);
                }
            }
        }
        out
    }

    /// Applies the panel's command and returns what it shows.
    pub fn update(&mut self, cmd: &ProfilerCommand) -> ProfilerModel {
        if let Some(c) = cmd.chart {
            self.set_chart(c as usize);
        }
        if cmd.reset {
            self.reset_window();
        }
        let dpr = if cmd.dpr > 0.0 { cmd.dpr } else { 1.0 };
        let (rx, ry, rw, rh) = plot_rect(cmd.width, cmd.height, dpr);
        // CSS x on the canvas to the plot's pixel column.
        let column = |x: f64| (x * dpr - rx as f64).floor();
        if let Some(z) = cmd.zoom {
            self.zoom_at(z.factor, (column(z.x) / rw as f64).clamp(0.0, 1.0));
        }
        let ticks = self.y_ticks(rh, dpr);
        let unit = memviz_core::format::axis_unit(ticks.last().copied().unwrap_or(0.0));
        let css = |v: f64| v / dpr;
        let y_ticks = ticks
            .iter()
            .map(|&v| {
                let y = (ry + rh) as f64 - v / self.y_max * rh as f64;
                ProfilerTick {
                    pos: v / self.y_max,
                    label: memviz_core::format::format_size_in(v, unit),
                    style: format!(
                        "left:{:.1}px;top:{:.1}px;transform:translate(-100%,-50%)",
                        css(rx as f64) - 6.0,
                        css(y)
                    ),
                }
            })
            .collect();
        let n = ((rw as f64 / (110.0 * dpr)) as usize).max(2);
        let span = self.duration_s().max(1e-9);
        let x_ticks = (0..=n)
            .map(|i| {
                let f = i as f64 / n as f64;
                // The last label ends at the plot's edge.
                let shift = if i == n { "-100%" } else { "-50%" };
                let (x, y) = (css(rx as f64 + rw as f64 * f), css((ry + rh) as f64) + 6.0);
                ProfilerTick {
                    pos: f,
                    label: time_label(self.t0 + (self.t1 - self.t0) * f, span),
                    style: format!("left:{x:.1}px;top:{y:.1}px;transform:translateX({shift})"),
                }
            })
            .collect();
        let c = &self.file.charts[self.chart];
        let legend = c
            .curves
            .iter()
            .enumerate()
            .filter(|(_, cv)| cv.values.iter().any(|&v| v != 0))
            .map(|(i, cv)| {
                let [r, g, b, _] = curve_color(c, i);
                let max = cv.values.iter().copied().max().unwrap_or(0);
                LegendItem {
                    name: cv.name.clone(),
                    color: format!("#{r:02x}{g:02x}{b:02x}"),
                    max,
                    label: format!("{} (max {})", cv.name, size(max)),
                }
            })
            .collect();
        let hover = cmd.hover_x.map(column).filter(|&c| c >= 0.0 && c < rw as f64);
        ProfilerModel {
            title: format!("{}: {}", self.name, self.format()),
            format: self.format(),
            charts: self.chart_titles(),
            chart: self.chart as u32,
            warnings: self.warnings(),
            legend,
            y_ticks,
            x_ticks,
            hover: hover.map(|c| self.hover(c as u32)).unwrap_or_default(),
        }
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
