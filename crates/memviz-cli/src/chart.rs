//! `memviz render`: one timeline drawn into a PNG or SVG file, for CI
//! reports and READMEs.
//!
//! PNG: the bands are memviz-render's pixels (the page's rasterizer, one
//! pass per column), then plotters draws the axes, labels and markers on the
//! same buffer. SVG: the bands are rectangles, a column's runs merged with
//! the next columns' while they stay put, drawn by plotters with the rest.
//! Text: DejaVu Sans compiled in, measured by plotters' ab_glyph font
//! backend, drawn into the PNG by crate::glyphs (the SVG names the font and
//! the viewer's browser draws it): no fontconfig, no installed font (README,
//! design notes).

use std::collections::HashMap;
use std::sync::Once;

use memviz_core::model::Action;
use memviz_core::phases::{self, TimeAxis};
use memviz_core::timeline::{DetailView, Timeline, TimelineKind};
use memviz_core::Snapshot;
use memviz_render::axis::{peak_marker, size_chart, step_ticks, Look};
use memviz_render::mapped_x::pick_columns_at;
use memviz_render::{self as render, BandIndex, BandSource, Image, PlotStyle, TimelineBands, Window, NO_STEP};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Serialize;

use crate::glyphs::GlyphText;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Svg,
}

pub struct Request<'a> {
    pub kind: TimelineKind,
    pub device: u32,
    pub width: u32,
    pub height: u32,
    pub format: Format,
    /// First line of the title (the file name).
    pub title: &'a str,
    /// x in wall-clock time (time_us, idle gaps compressed) instead of steps.
    pub x_time: bool,
}

/// Smallest image with room for the axes and a plot; the largest keeps the
/// buffers (RGBA plot + RGB image, 7 bytes a pixel) near 200 MB.
pub const MIN_SIZE: (u32, u32) = (320, 200);
pub const MAX_SIDE: u32 = 16384;
pub const MAX_PIXELS: u64 = 32 << 20;

/// Space around the plot: left (y labels), right, top (title), bottom (x labels).
pub(crate) const MARGIN: (u32, u32, u32, u32) = (84, 28, 40, 48);
pub(crate) const FONT: &str = "sans-serif";
pub(crate) const TEXT: RGBColor = RGBColor(60, 60, 60);
/// OOM markers: a color no band has (Tableau10 has no dark purple).
pub const OOM: [u8; 3] = [0x5b, 0x1a, 0x8c];

/// What was drawn where (`memviz render --json`): the tests check the
/// markers' pixels against it.
#[derive(Debug, Serialize)]
pub struct Info {
    pub device: u32,
    pub view: &'static str,
    pub width: u32,
    pub height: u32,
    /// The plot area in image pixels: left, top, width, height. Step `s`
    /// spans x from `left + s * width / n_steps`.
    pub plot: [u32; 4],
    pub n_steps: u32,
    /// Bytes at the plot's top edge.
    pub y_max: u64,
    pub peak_step: u32,
    pub peak_bytes: u64,
    /// Per `oom` trace event: the actions before it (its line is drawn at
    /// that step boundary).
    pub oom_steps: Vec<u32>,
    pub elements: u32,
    /// Elements that got at least one pixel (PNG) or rectangle (SVG).
    pub bands_drawn: u32,
    /// `step` or `time` (asked for time and the file has no time_us: `step`).
    pub x_axis: &'static str,
    /// Idle gaps drawn compressed (time axis): image x where each starts
    /// and ends, and its real length.
    pub gaps: Vec<GapMark>,
    /// record_function phases drawn (torch.compile's own left out): name
    /// and image x range.
    pub phases: Vec<PhaseMark>,
}

#[derive(Debug, Serialize)]
pub struct GapMark {
    pub x0: f64,
    pub x1: f64,
    pub real_s: f64,
}

#[derive(Debug, Serialize)]
pub struct PhaseMark {
    pub name: String,
    pub x0: f64,
    pub x1: f64,
}

pub fn view_name(kind: TimelineKind) -> &'static str {
    match kind {
        TimelineKind::ActiveMemory => "Active Memory Timeline",
        TimelineKind::CachedSegments => "Active Cached Segment Timeline",
    }
}

pub fn check_size(width: u32, height: u32) -> Result<(), String> {
    if width < MIN_SIZE.0 || height < MIN_SIZE.1 {
        return Err(format!(
            "{width}x{height} is too small for a chart: at least {}x{} pixels",
            MIN_SIZE.0, MIN_SIZE.1
        ));
    }
    if width > MAX_SIDE || height > MAX_SIDE || width as u64 * height as u64 > MAX_PIXELS {
        return Err(format!(
            "{width}x{height} is too large: at most {MAX_SIDE} pixels a side and {}M pixels in all",
            MAX_PIXELS >> 20
        ));
    }
    Ok(())
}

/// The x axis, in steps. plotters maps a range onto the plot's pixels
/// `[left, right - 1]`; the bands put step `s` at `left + s * width / n`
/// (memviz-render's columns), and the markers must land on the same pixels.
/// With a time axis a step goes through its display position (seconds,
/// gaps compressed) instead, and the key points are round seconds.
struct StepAxis<'a> {
    n: f64,
    time: Option<&'a TimeAxis>,
}

impl StepAxis<'_> {
    /// Fraction of the plot's width where step `v` starts.
    fn frac(&self, v: f64) -> f64 {
        match self.time {
            Some(t) => t.x_of_step(v) / t.span().max(1e-12),
            None => v / self.n,
        }
    }
}

impl Ranged for StepAxis<'_> {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;
    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let width = (limit.1 - limit.0 + 1) as f64;
        limit.0 + (self.frac(*v) * width).floor() as i32
    }
    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        match self.time {
            Some(t) => {
                RangedCoordf64::from(0.0..t.span()).key_points(hint).into_iter().map(|x| t.step_of_x(x)).collect()
            }
            None => step_ticks(0.0, self.n, hint.max_num_points()),
        }
    }
    fn range(&self) -> std::ops::Range<f64> {
        0.0..self.n
    }
}

pub(crate) fn register_font() {
    static FONT_ONCE: Once = Once::new();
    FONT_ONCE.call_once(|| {
        // DejaVu Sans is a valid font: this cannot fail.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, crate::glyphs::font_bytes());
    });
}

/// The timeline, everything drawn (no detail limit: the rasterizer's cost
/// is per pixel column, not per band).
struct Prepared {
    tl: Timeline,
    dv: DetailView,
    ix: BandIndex,
}

fn prepare(snap: &Snapshot, device: u32, kind: TimelineKind) -> Prepared {
    let tl = Timeline::build(snap, device, kind);
    let dv = DetailView::new(&tl, tl.elements.len() as u32);
    let ix = BandIndex::new(&tl, &dv);
    Prepared { tl, dv, ix }
}

/// Steps at which the device's `oom` events happened: the number of actions
/// before each.
fn oom_steps(snap: &Snapshot, device: u32, tl: &Timeline) -> Vec<u32> {
    let t = snap.trace(device);
    (0..t.len())
        .filter(|&i| t.action[i] == Action::Oom)
        .map(|i| tl.events.partition_point(|&e| e < i as u32) as u32)
        .collect()
}

/// Draws the chart; returns the file's bytes and what it shows.
pub fn render(snap: &Snapshot, req: &Request) -> Result<(Vec<u8>, Info), String> {
    check_size(req.width, req.height)?;
    register_font();
    let p = prepare(snap, req.device, req.kind);
    let n_steps = p.tl.n_steps();
    let view = view_name(req.kind);
    if n_steps == 0 || p.tl.elements.is_empty() {
        return Err(format!("device {} has nothing to draw in the {view}", req.device));
    }
    let (l, r, t, b) = MARGIN;
    let plot = [l, t, req.width - l - r, req.height - t - b];
    let src = TimelineBands::new(&p.tl, &p.dv, &p.ix);
    let time = if req.x_time { TimeAxis::build(snap, &p.tl, None) } else { None };
    let cols = match &time {
        // Each column's left edge as a step: equal widths of display time.
        Some(t) => {
            let edges: Vec<f64> = (0..=plot[2]).map(|c| t.step_of_x(c as f64 * t.span() / plot[2] as f64)).collect();
            pick_columns_at(&src, &edges)
        }
        None => render::pick_columns(&src, Window::full(n_steps), plot[2]),
    };
    // Headroom above the peak, as on the page.
    let y_max = ((cols.max_total.max(p.tl.peak_bytes()) as f64) * 1.06).ceil().max(1.0) as u64;
    let mut info = Info {
        device: req.device,
        view,
        width: req.width,
        height: req.height,
        plot,
        n_steps,
        y_max,
        peak_step: p.tl.peak_step(),
        peak_bytes: p.tl.peak_bytes(),
        oom_steps: oom_steps(snap, req.device, &p.tl),
        elements: p.tl.elements.len() as u32,
        bands_drawn: 0,
        x_axis: if time.is_some() { "time" } else { "step" },
        gaps: Vec::new(),
        phases: Vec::new(),
    };
    let axis = StepAxis { n: n_steps as f64, time: time.as_ref() };
    let px_of = |s: f64| plot[0] as f64 + axis.frac(s) * plot[2] as f64;
    if let Some(t) = &time {
        info.gaps = t
            .gaps
            .iter()
            .map(|g| GapMark { x0: px_of(t.step_of_x(g.x)), x1: px_of(g.step as f64), real_s: g.real_s })
            .collect();
    }
    // Phases need times: on the step axis they cover the steps inside them.
    if let Some(t) = time.clone().or_else(|| TimeAxis::build(snap, &p.tl, Some(f64::INFINITY))) {
        let all = phases::phases(snap, req.device);
        for ph in phases::filter_phases(&all, false, "") {
            let (a, b) = if time.is_some() {
                (t.step_of_x(t.x_of_time(ph.start_us)), t.step_of_x(t.x_of_time(ph.end_us)))
            } else {
                let (a, b) = phases::placed_steps(&t, ph);
                (a as f64, b as f64)
            };
            info.phases.push(PhaseMark { name: ph.name.clone(), x0: px_of(a), x1: px_of(b) });
        }
    }
    let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
    let bytes = match req.format {
        Format::Png => {
            let mut img = Image::new(plot[2], plot[3]);
            let style = PlotStyle { y_max, selected: None, outline: 1 };
            info.bands_drawn = render::render_plot(&src, &cols, style, &mut img).bands_drawn;
            let mut rgb = plot_on_white(&img, plot, req.width, req.height);
            {
                let backend = BitMapBackend::with_buffer(&mut rgb, (req.width, req.height));
                let root = GlyphText(backend).into_drawing_area();
                decorate(&root, &info, req, &axis).map_err(|e| err(&e))?;
                root.present().map_err(|e| err(&e))?;
            }
            encode_png(&rgb, req.width, req.height)?
        }
        Format::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (req.width, req.height)).into_drawing_area();
                root.fill(&WHITE).map_err(|e| err(&e))?;
                info.bands_drawn = svg_bands(&root, &src, &cols, &info).map_err(|e| err(&e))?;
                decorate(&root, &info, req, &axis).map_err(|e| err(&e))?;
                root.present().map_err(|e| err(&e))?;
            }
            svg.into_bytes()
        }
    };
    Ok((bytes, info))
}

pub(crate) fn encode_png(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    // Flat bands compress well at the fast setting; the best one costs 3x
    // the time for a few percent.
    enc.set_compression(png::Compression::Fast);
    let mut w = enc.write_header().map_err(|e| format!("PNG: {e}"))?;
    w.write_image_data(rgb).map_err(|e| format!("PNG: {e}"))?;
    w.finish().map_err(|e| format!("PNG: {e}"))?;
    Ok(out)
}

/// The bands as SVG rectangles. Each column's runs are computed as
/// `render_plot` fills pixels (a row belongs to the band covering its
/// center, the summarized band on top), and a run that continues unchanged
/// into the next column extends its rectangle instead of starting one.
fn svg_bands<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    src: &TimelineBands,
    cols: &render::Columns,
    info: &Info,
) -> Result<u32, DrawingAreaErrorKind<DB::ErrorType>> {
    const SUMMARIZED: u32 = u32::MAX;
    let [px, py, w, h] = info.plot;
    let px_per_byte = h as f64 / info.y_max as f64;
    let reach = |row: u32| ((row as f64 + 0.5) / px_per_byte).floor() as u64;
    // (element, bottom row, top row) -> first column.
    let mut open: HashMap<(u32, u32, u32), u32> = HashMap::new();
    let mut runs: Vec<(u32, u32, u32)> = Vec::new();
    let mut drawn = std::collections::HashSet::new();
    let mut rects: Vec<(u32, u32, u32, u32, u32)> = Vec::new(); // elem, c0, c1, lo, hi
    for c in 0..=w {
        runs.clear();
        let step = if c < w { cols.step[c as usize] } else { NO_STEP };
        if step != NO_STEP {
            let mut next_row = 0u32;
            let mut threshold = reach(0);
            src.bands_reaching(step, None, |elem, offset, size| {
                if offset + size < threshold {
                    return threshold;
                }
                let top = (offset + size) as f64 * px_per_byte;
                let end = ((top + 0.5).floor() as i64).clamp(0, h as i64) as u32;
                if end > next_row {
                    runs.push((elem, next_row, end));
                    next_row = end;
                    threshold = reach(next_row);
                }
                threshold
            });
            let total = src.total(step);
            let summ = src.summarized(step).min(total);
            let end = ((total as f64 * px_per_byte + 0.5).floor() as i64).clamp(0, h as i64) as u32;
            let summ_bot = ((total - summ) as f64 * px_per_byte + 0.5).floor() as u32;
            if summ > 0 && end > next_row {
                runs.push((SUMMARIZED, next_row.min(summ_bot), end));
            }
        }
        // Close the rectangles this column does not continue.
        let mut keep: HashMap<(u32, u32, u32), u32> = HashMap::with_capacity(runs.len());
        for &run in &runs {
            keep.insert(run, open.remove(&run).unwrap_or(c));
        }
        for ((e, lo, hi), c0) in open.drain() {
            rects.push((e, c0, c, lo, hi));
        }
        open = keep;
    }
    // Stable output: left to right, bottom to top.
    rects.sort_unstable_by_key(|&(e, c0, _, lo, _)| (c0, lo, e));
    for (e, c0, c1, lo, hi) in rects {
        let color = if e == SUMMARIZED {
            RGBColor(render::SUMMARIZED[0][0], render::SUMMARIZED[0][1], render::SUMMARIZED[0][2])
        } else {
            drawn.insert(e);
            let [r, g, b, _] = render::band_color(e);
            RGBColor(r, g, b)
        };
        let (x0, x1) = ((px + c0) as i32, (px + c1) as i32);
        let (y0, y1) = ((py + h - hi) as i32, (py + h - lo) as i32);
        root.draw(&Rectangle::new([(x0, y0), (x1, y1)], color.filled()))?;
    }
    Ok(drawn.len() as u32)
}

/// A `width` x `height` RGB image, white, with the plot's pixels `img` at `plot` (x, y, w, h).
pub(crate) fn plot_on_white(img: &Image, plot: [u32; 4], width: u32, height: u32) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let mut rgb = vec![255u8; w * h * 3];
    for y in 0..plot[3] as usize {
        let row = &img.rgba[y * plot[2] as usize * 4..(y + 1) * plot[2] as usize * 4];
        let at = ((plot[1] as usize + y) * w + plot[0] as usize) * 3;
        for (i, px) in row.chunks_exact(4).enumerate() {
            rgb[at + i * 3..at + i * 3 + 3].copy_from_slice(&px[..3]);
        }
    }
    rgb
}

/// The CLI's images' text: memviz-render's charts in the CLI's font, at one
/// device pixel a CSS pixel.
pub(crate) const LOOK: Look = Look { family: FONT, font: 13, label: [60; 3], desc: [60; 3], scale: 1.0 };

/// Axes, grid, title, the peak marker and the OOM markers, over the bands.
fn decorate<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    info: &Info,
    req: &Request,
    axis: &StepAxis,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let [px, py, _, _] = info.plot;
    let w = info.width;
    let n = info.n_steps as f64;
    let y_max = info.y_max as f64;
    let x_desc = match (req.kind, axis.time.is_some()) {
        (_, true) => "time from the first event (idle gaps compressed)",
        (_, false) if req.x_time => "alloc / free action (step): the file has no time_us",
        (TimelineKind::ActiveMemory, false) => "alloc / free action (step)",
        (TimelineKind::CachedSegments, false) => "segment alloc / free action (step)",
    };
    let time = axis.time;
    let x_label = |v: &f64| match time {
        Some(t) => crate::profiler_chart::fmt_time(t.seconds_at(t.x_of_step(*v)), t.seconds_at(t.span())),
        None => format!("{}", v.round() as i64),
    };
    let mut chart = size_chart(root, info.plot, y_max, StepAxis { n, time: axis.time }, &x_label, x_desc, &LOOK)?;
    marks(root, info)?;
    // OOM: a solid line at the step boundary where it happened.
    let oom = RGBColor(OOM[0], OOM[1], OOM[2]);
    let mut last_label = f64::NEG_INFINITY;
    for &s in &info.oom_steps {
        let x = s as f64;
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, 0.0), (x, y_max)], oom.stroke_width(1))))?;
        // Its label sits above the plot, clear of the peak's (which is near
        // the top: the axis ends 6% above the peak).
        let at = chart.backend_coord(&(x, y_max));
        if (at.0 as f64) - last_label > 40.0 {
            last_label = at.0 as f64;
            let style = (FONT, 13).into_font().color(&oom).pos(Pos::new(HPos::Center, VPos::Bottom));
            root.draw(&Text::new("OOM", (at.0.clamp(14, w as i32 - 14), py as i32 - 1), style))?;
        }
    }
    // The peak: a dashed line up to it at the middle of its step, and its value.
    let ps = info.peak_step as f64 + 0.5;
    peak_marker(&mut chart, ps, info.peak_bytes, y_max, "peak", ps > n * 0.8, None, &LOOK)?;
    // Title: file, device, view.
    let title = format!("{}  ·  cuda:{}  ·  {}", req.title, info.device, info.view);
    root.draw(&Text::new(title, (px as i32, 6), (FONT, 15).into_font().color(&RGBColor(30, 30, 30))))?;
    Ok(())
}

/// Idle gaps (a light band with zigzag edges and the real length) and
/// record_function phases (a tinted band with its name along the top).
fn marks<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    info: &Info,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let [_, py, _, ph] = info.plot;
    let (top, bottom) = (py as i32, (py + ph) as i32);
    for (i, g) in info.gaps.iter().enumerate() {
        let (x0, x1) = (g.x0.round() as i32, (g.x1.round() as i32).max(g.x0.round() as i32 + 2));
        // The memory stays drawn through the gap (it was held), veiled.
        root.draw(&Rectangle::new([(x0, top), (x1, bottom)], WHITE.mix(0.55).filled()))?;
        for x in [x0, x1] {
            let zig: Vec<(i32, i32)> =
                (0..=(bottom - top) / 6).map(|i| (x + if i % 2 == 0 { -2 } else { 2 }, top + i * 6)).collect();
            root.draw(&PathElement::new(zig, RGBColor(150, 150, 150).stroke_width(1)))?;
        }
        let style = (FONT, 11).into_font().color(&RGBColor(110, 110, 110)).pos(Pos::new(HPos::Center, VPos::Bottom));
        let label = format!("idle {}", crate::profiler_chart::fmt_time(g.real_s, g.real_s));
        root.draw(&Text::new(label, ((x0 + x1) / 2, bottom - 2 - (i as i32 % 2) * 13), style))?;
    }
    for (i, p) in info.phases.iter().enumerate() {
        let (x0, x1) = (p.x0.round() as i32, p.x1.round() as i32);
        let color = PHASE_COLORS[i % PHASE_COLORS.len()];
        if x1 > x0 + 1 {
            root.draw(&Rectangle::new([(x0, top), (x1, bottom)], color.mix(0.10).filled()))?;
        }
        root.draw(&PathElement::new(vec![(x0, top), (x0, bottom)], color.stroke_width(1)))?;
        let style = (FONT, 11).into_font().color(&color).pos(Pos::new(HPos::Left, VPos::Top));
        // Labels above the plot, under the title: clear of the peak's label.
        let style = style.pos(Pos::new(HPos::Left, VPos::Bottom));
        root.draw(&Text::new(p.name.clone(), (x0 + 1, top - 2), style))?;
    }
    Ok(())
}

/// Phase colours: none of them a band colour's twin or the peak's red.
const PHASE_COLORS: [RGBColor; 4] =
    [RGBColor(0x2b, 0x6c, 0x3f), RGBColor(0x1f, 0x4e, 0x9a), RGBColor(0x8a, 0x4b, 0x08), RGBColor(0x6b, 0x2d, 0x7a)];
