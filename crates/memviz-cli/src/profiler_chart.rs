//! `memviz render` of a torch.profiler memory export: the memory timeline's
//! categories stacked (`--view categories`), or a Chrome trace's allocated /
//! reserved curves of one device (`--device cuda:0`), time in seconds on x.
//!
//! The pixels are memviz-render's (`profiler::render_chart`, one pass per
//! column, peaks kept); an SVG gets them as rectangles, each column's runs
//! merged with the next columns' while they stay put. plotters draws the
//! axes, legend, title and the peak marker, as in chart.rs.

use std::collections::HashMap;

use memviz_core::profiler::{Chart, ProfilerFile};
use memviz_render::axis::{peak_marker, size_chart};
use memviz_render::profiler::{curve_color, render_chart};
use memviz_render::{Image, BACKGROUND};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Serialize;

use crate::chart::{check_size, encode_png, plot_on_white, register_font, Format, FONT, LOOK, MARGIN, TEXT};
use crate::glyphs::GlyphText;

#[derive(Debug, Serialize)]
pub struct Info {
    pub view: &'static str,
    /// The chart drawn: `memory by category`, or a trace's device (`cuda:0`).
    pub chart: String,
    pub width: u32,
    pub height: u32,
    /// Plot rectangle in image pixels: left, top, width, height; time t
    /// seconds is at x = left + t * width / duration_s.
    pub plot: [u32; 4],
    pub points: usize,
    pub duration_s: f64,
    pub y_max: u64,
    pub peak_s: f64,
    pub peak_bytes: i64,
    /// Curves with a non-zero value somewhere (the legend's entries).
    pub legend: Vec<String>,
    /// Each curve's bytes at the peak.
    pub at_peak: std::collections::BTreeMap<String, i64>,
    /// The peak's position (alloc / free actions before it) on a step axis.
    pub peak_position: Option<u64>,
    /// x of each OOM line: seconds, or positions for a snapshot's kinds.
    pub ooms: Vec<f64>,
    /// `time` (seconds from the first event) or `step` (alloc / free positions).
    pub x_axis: &'static str,
}

/// x in seconds, mapped as the rasterizer's columns are: t at
/// `left + t * width / span`.
struct TimeAxis {
    span: f64,
}

impl Ranged for TimeAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;
    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let width = (limit.1 - limit.0 + 1) as f64;
        limit.0 + (v / self.span * width).floor() as i32
    }
    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        RangedCoordf64::from(0.0..self.span).key_points(hint)
    }
    fn range(&self) -> std::ops::Range<f64> {
        0.0..self.span
    }
}

/// A time in seconds with a unit that suits the axis' span (shared with
/// the page's time axis).
pub use memviz_render::axis::fmt_time;

/// Picks the chart: `--device` names it (`cuda:0`, `cpu`), else the first.
pub fn pick<'a>(p: &'a ProfilerFile, file: &str, device: Option<&str>) -> Result<&'a Chart, String> {
    match device {
        None => p.charts.first().ok_or_else(|| format!("{file}: nothing to draw")),
        Some(d) => p.charts.iter().find(|c| c.title == d || c.title == format!("cuda:{d}")).ok_or_else(|| {
            let names: Vec<&str> = p.charts.iter().map(|c| c.title.as_str()).collect();
            format!("{file}: no chart {d:?}; the file has {}", names.join(", "))
        }),
    }
}

pub fn render(chart: &Chart, width: u32, height: u32, format: Format, title: &str) -> Result<(Vec<u8>, Info), String> {
    render_with(chart, width, height, format, title, &[])
}

/// As [`render`], with OOM lines at x values `ooms` (the chart's seconds,
/// or positions when `chart.x_steps`).
pub fn render_with(
    chart: &Chart,
    width: u32,
    height: u32,
    format: Format,
    title: &str,
    ooms: &[f64],
) -> Result<(Vec<u8>, Info), String> {
    check_size(width, height)?;
    register_font();
    if chart.times_us.is_empty() {
        return Err(format!("{}: no points to draw", chart.title));
    }
    let (l, r, t, b) = MARGIN;
    // The legend sits between the title and the plot.
    let plot = [l, t + 12, width - l - r, height - t - 12 - b];
    // A single point (or all at one time) still gets a visible width.
    let span = chart.duration_s().max(1e-6);
    let peak = chart.peak().unwrap_or(0);
    let y_max = ((chart.max_drawn().max(1) as f64) * 1.06).ceil() as u64;
    let legend: Vec<String> =
        chart.curves.iter().filter(|c| c.values.iter().any(|&v| v != 0)).map(|c| c.name.clone()).collect();
    let info = Info {
        view: if chart.stacked { "categories" } else { "trace" },
        chart: chart.title.clone(),
        width,
        height,
        plot,
        points: chart.times_us.len(),
        duration_s: chart.duration_s(),
        y_max,
        peak_s: chart.seconds(peak),
        peak_bytes: chart.total_at(peak),
        legend,
        at_peak: chart.curves.iter().map(|c| (c.name.clone(), c.values[peak])).collect(),
        peak_position: chart.x_steps.then_some(peak as u64),
        ooms: ooms.to_vec(),
        x_axis: if chart.x_steps { "step" } else { "time" },
    };
    let mut img = Image::new(plot[2], plot[3]);
    render_chart(chart, 0.0, span, y_max, &mut img);
    let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
    let bytes = match format {
        Format::Png => {
            let mut rgb = plot_on_white(&img, plot, width, height);
            {
                let root = GlyphText(BitMapBackend::with_buffer(&mut rgb, (width, height))).into_drawing_area();
                decorate(&root, chart, &info, span, title).map_err(|e| err(&e))?;
                root.present().map_err(|e| err(&e))?;
            }
            encode_png(&rgb, width, height)?
        }
        Format::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
                root.fill(&WHITE).map_err(|e| err(&e))?;
                svg_pixels(&root, &img, plot).map_err(|e| err(&e))?;
                decorate(&root, chart, &info, span, title).map_err(|e| err(&e))?;
                root.present().map_err(|e| err(&e))?;
            }
            svg.into_bytes()
        }
    };
    Ok((bytes, info))
}

/// The rasterized plot as rectangles: per column, runs of one colour;
/// a run that continues unchanged into the next column widens its rectangle.
fn svg_pixels<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    img: &Image,
    plot: [u32; 4],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = (img.width, img.height);
    let mut open: HashMap<([u8; 4], u32, u32), u32> = HashMap::new();
    let mut rects = Vec::new();
    for x in 0..=w {
        let mut runs = Vec::new();
        if x < w {
            let mut y = 0;
            while y < h {
                let c = img.get(x, y);
                let start = y;
                while y < h && img.get(x, y) == c {
                    y += 1;
                }
                if c != BACKGROUND {
                    runs.push((c, start, y));
                }
            }
        }
        let mut keep = HashMap::with_capacity(runs.len());
        for run in runs {
            keep.insert(run, open.remove(&run).unwrap_or(x));
        }
        rects.extend(open.drain().map(|((c, y0, y1), x0)| (x0, y0, x, y1, c)));
        open = keep;
    }
    rects.sort_unstable_by_key(|r| (r.0, r.1));
    for (x0, y0, x1, y1, c) in rects {
        let (px, py) = (plot[0] as i32, plot[1] as i32);
        let rect = [(px + x0 as i32, py + y0 as i32), (px + x1 as i32, py + y1 as i32)];
        root.draw(&Rectangle::new(rect, RGBColor(c[0], c[1], c[2]).filled()))?;
    }
    Ok(())
}

fn decorate<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart,
    info: &Info,
    span: f64,
    title: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let [px, py, _, _] = info.plot;
    let y_max = info.y_max as f64;
    let x_label = |v: &f64| if chart.x_steps { format!("{}", (v * 1e6).round() as i64) } else { fmt_time(*v, span) };
    let x_desc = if chart.x_steps { "alloc / free action (step)" } else { "time from the first event" };
    let mut c = size_chart(root, info.plot, y_max, TimeAxis { span }, &x_label, x_desc, &LOOK)?;
    // OOM: a solid line where each happened, labelled above the plot.
    let oom = RGBColor(crate::chart::OOM[0], crate::chart::OOM[1], crate::chart::OOM[2]);
    for &o in &info.ooms {
        // Positions sit on the chart's x as microseconds.
        let x = if chart.x_steps { o / 1e6 } else { o };
        c.draw_series(std::iter::once(PathElement::new(vec![(x, 0.0), (x, y_max)], oom.stroke_width(1))))?;
        let at = c.backend_coord(&(x, y_max));
        let style = (FONT, 13).into_font().color(&oom).pos(Pos::new(HPos::Center, VPos::Bottom));
        root.draw(&Text::new("OOM", (at.0, py as i32 - 1), style))?;
    }
    // The peak: dashed line at its time up to its value, and the value.
    let what = if chart.stacked { "peak" } else { "peak allocated" };
    let ps = info.peak_s;
    peak_marker(&mut c, ps, info.peak_bytes.max(0) as u64, y_max, what, ps > span * 0.8, None, &LOOK)?;
    // Legend: a swatch and the name of each curve drawn, in one row.
    let mut x = px as i32;
    let y = py as i32 - 18;
    for (i, cv) in chart.curves.iter().enumerate() {
        if !info.legend.contains(&cv.name) {
            continue;
        }
        let [r, g, b, _] = curve_color(chart, i);
        root.draw(&Rectangle::new([(x, y - 5), (x + 10, y + 5)], RGBColor(r, g, b).filled()))?;
        let style = (FONT, 12).into_font().color(&TEXT).pos(Pos::new(HPos::Left, VPos::Center));
        root.draw(&Text::new(cv.name.clone(), (x + 14, y), style))?;
        x += 24 + 7 * cv.name.len() as i32;
    }
    let source = if chart.x_steps { "kinds inferred from the stacks" } else { "torch.profiler" };
    let head = format!("{title}  ·  {}  ·  {source}", chart.title);
    root.draw(&Text::new(head, (px as i32, 6), (FONT, 15).into_font().color(&RGBColor(30, 30, 30))))?;
    Ok(())
}
