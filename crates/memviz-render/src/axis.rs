//! Tick values of the byte axis and of a time axis, shared by the page's
//! axes overlay and the CLI's charts.

use memviz_core::phases::TimeAxis;

/// Axis tick values: multiples of 1, 2 or 5 times a power of ten of the
/// unit `max` is written in (`memviz_core::format::axis_unit`), so that every
/// label of the axis reads round in that one unit (`0.5GiB 1.0GiB`, not
/// `1000.0MiB 2.0GiB`); about `target` (at most 10) of them over `[0, max]`.
pub fn size_ticks(max: f64, target: usize) -> Vec<f64> {
    if max <= 0.0 || !max.is_finite() {
        return vec![0.0];
    }
    let raw = max / target.clamp(1, 10) as f64;
    let unit = 1024f64.powi(memviz_core::format::axis_unit(max) as i32);
    let in_unit = raw / unit;
    let pow = 10f64.powf(in_unit.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * pow).find(|s| *s >= in_unit).unwrap_or(10.0 * pow) * unit;
    let step = step.max(1.0);
    (0..).map(|i| i as f64 * step).take_while(|v| *v <= max).collect()
}

/// Round tick values (1, 2 or 5 times a power of ten) inside `[lo, hi]`,
/// about `target` of them: a time axis' key points in seconds.
pub fn decimal_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if hi <= lo || !lo.is_finite() || !hi.is_finite() {
        return vec![];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let pow = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * pow).find(|s| *s >= raw).unwrap_or(10.0 * pow);
    let first = (lo / step).ceil() as i64;
    (first..).map(|i| i as f64 * step).take_while(|v| *v <= hi + step * 1e-9).take(1000).collect()
}

/// Whole-number tick values inside `[lo, hi]`, about `target` of them (at
/// most `target + 1`): an axis of steps, which are counted, so a window of
/// a few steps never labels fractions (rounded, they read `0 0 1 1`).
pub fn step_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if hi < lo || !lo.is_finite() || !hi.is_finite() {
        return vec![];
    }
    let raw = ((hi - lo) / target.max(1) as f64).max(1.0);
    let pow = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * pow).find(|s| *s >= raw).unwrap_or(10.0 * pow);
    let first = (lo / step).ceil() as i64;
    (first..).map(|i| i as f64 * step).take_while(|v| *v <= hi).take(1000).collect()
}

/// Ticks of a time axis over display positions `[d0, d1]` (seconds, idle
/// gaps compressed): at round real times (1, 2 or 5 times a power of ten
/// seconds from the first event, the step chosen for about `target` ticks
/// over the display width), in each stretch between gaps, so the labels
/// stay round after a gap; none inside a gap, none closer than half a step
/// to the one before. Returns (display position, real seconds).
pub fn time_ticks(axis: &TimeAxis, d0: f64, d1: f64, target: usize) -> Vec<(f64, f64)> {
    let Some(&step) = decimal_ticks(0.0, d1 - d0, target).get(1) else { return vec![] };
    // Stretches of display x without a gap: [start, end).
    let mut stretches = Vec::with_capacity(axis.gaps.len() + 1);
    let mut start = 0.0;
    for g in &axis.gaps {
        stretches.push((start, g.x));
        start = g.x + g.shown_s;
    }
    stretches.push((start, axis.span()));
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (a, b) in stretches {
        let (a, b) = (a.max(d0), b.min(d1));
        if a > b {
            continue;
        }
        let (r0, r1) = (axis.seconds_at(a), axis.seconds_at(b));
        // Bounded: real and display time agree between gaps, but not to the
        // last bit on a hostile file's times near 2^63 us.
        let k0 = (r0 / step).ceil() as i64;
        let k1 = ((r1 / step + 1e-9).floor() as i64).min(k0.saturating_add(10_000));
        for k in k0..=k1 {
            let r = k as f64 * step;
            let d = axis.x_of_time(axis.t0_us.saturating_add((r * 1e6).round() as i64));
            if d < a - 1e-12 || d > b + 1e-12 || out.last().is_some_and(|l| d - l.0 < step / 2.0) {
                continue;
            }
            out.push((d, r));
            if out.len() > 1000 {
                return out;
            }
        }
    }
    out
}

/// A time in seconds with a unit that suits the axis' span.
pub fn fmt_time(s: f64, span: f64) -> String {
    if span < 2e-3 {
        format!("{:.0} µs", s * 1e6)
    } else if span < 2.0 {
        let ms = s * 1e3;
        if span < 0.02 {
            format!("{ms:.2} ms")
        } else {
            format!("{ms:.0} ms")
        }
    } else {
        format!("{s:.1} s")
    }
}

/// A plotters axis whose key points are given: sizes (round KiB/MiB/GiB
/// values, `0..max`: plotters' own f64 axis picks decimal ticks,
/// 100,000,000, which read badly as sizes), steps (whole numbers, which its
/// f64 axis does not keep to in a window of a few steps), or wall-clock
/// time (memviz-viewer's xaxis.rs: fractions of the plot width).
#[cfg(feature = "plotters")]
pub struct GivenAxis {
    pub range: std::ops::Range<f64>,
    pub ticks: Vec<f64>,
}

#[cfg(feature = "plotters")]
impl plotters::coord::ranged1d::Ranged for GivenAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;
    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let f = if span > 0.0 { (v - self.range.start) / span } else { 0.0 };
        limit.0 + (f * (limit.1 - limit.0) as f64).round() as i32
    }
    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.max_num_points() == 0 {
            return Vec::new();
        }
        self.ticks.clone()
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

/// How many x labels fit `width` device pixels at `scale` of them a CSS
/// pixel: one per 110 CSS pixels, at least 2.
pub fn x_label_count(width: u32, scale: f64) -> usize {
    ((width as f64 / scale) / 110.0).max(2.0) as usize
}

/// How a chart's text and lines look: the font family and size (device
/// pixels), the labels' and the axis descriptions' colours, and the device
/// pixels per CSS pixel (the page's canvas at its devicePixelRatio; 1 for
/// the CLI's images). Everything else about the chart is [`size_chart`]'s.
#[cfg(feature = "plotters")]
#[derive(Clone, Copy)]
pub struct Look<'a> {
    pub family: &'a str,
    pub font: u32,
    pub label: [u8; 3],
    pub desc: [u8; 3],
    pub scale: f64,
}

/// A chart whose y axis is bytes ([`size_chart`]).
#[cfg(feature = "plotters")]
pub type SizeChart<'a, DB, X> =
    plotters::chart::ChartContext<'a, DB, plotters::coord::cartesian::Cartesian2d<X, GivenAxis>>;

/// The chart of the page's axes overlay and of the CLI's images: over
/// `plot` ([x, y, w, h] in `root`'s pixels), `x` as given, y in bytes from
/// 0 to `y_max` on size ticks (one per 60 CSS pixels, 2 to 10), every label
/// in the unit of the largest (one rule: format::axis_unit), x labels as
/// [`x_label_count`] says, the grid and both axes drawn.
#[cfg(feature = "plotters")]
pub fn size_chart<'a, DB, X>(
    root: &'a plotters::drawing::DrawingArea<DB, plotters::coord::Shift>,
    plot: [u32; 4],
    y_max: f64,
    x: X,
    x_label: &dyn Fn(&f64) -> String,
    x_desc: &str,
    look: &Look,
) -> Result<SizeChart<'a, DB, X>, plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: plotters::prelude::DrawingBackend,
    X: plotters::coord::ranged1d::Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
{
    use plotters::prelude::*;
    let [px, py, pw, ph] = plot;
    let (w, h) = root.dim_in_pixel();
    let ticks = size_ticks(y_max, ((ph as f64 / look.scale) / 60.0).clamp(2.0, 10.0) as usize);
    let unit = memviz_core::format::axis_unit(ticks.last().copied().unwrap_or(0.0));
    let [l, d] = [look.label, look.desc];
    let mut chart = ChartBuilder::on(root)
        .margin_top(py)
        .margin_right(w.saturating_sub(px + pw))
        .y_label_area_size(px)
        .x_label_area_size(h.saturating_sub(py + ph))
        .build_cartesian_2d(x, GivenAxis { range: 0.0..y_max, ticks })?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(RGBColor(0, 0, 0).mix(0.12).stroke_width(1))
        .light_line_style(TRANSPARENT)
        .y_label_formatter(&|v| memviz_core::format::format_size_in(*v, unit))
        .x_label_formatter(x_label)
        .x_labels(x_label_count(pw, look.scale))
        .x_desc(x_desc)
        .label_style((look.family, look.font).into_font().color(&RGBColor(l[0], l[1], l[2])))
        .axis_desc_style((look.family, look.font).into_font().color(&RGBColor(d[0], d[1], d[2])))
        .axis_style(RGBColor(120, 120, 120).stroke_width(1))
        .draw()?;
    Ok(chart)
}

/// The peak on a [`size_chart`]: a dashed line at `x` up to `bytes` (at
/// most `y_max`) and "`what` 1.2 GiB" beside its top, on the line's left
/// when `left`; hanging from `hang` (bytes) instead when the line reaches
/// above it (the page's phase rows cover the plot's top). The page, the
/// CLI's timeline and its profiler chart draw it.
#[cfg(feature = "plotters")]
#[allow(clippy::too_many_arguments)]
pub fn peak_marker<DB, X>(
    chart: &mut SizeChart<'_, DB, X>,
    x: f64,
    bytes: u64,
    y_max: f64,
    what: &str,
    left: bool,
    hang: Option<f64>,
    look: &Look,
) -> Result<(), plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: plotters::prelude::DrawingBackend,
    X: plotters::coord::ranged1d::Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
{
    use plotters::element::DashedPathElement;
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let red = RGBColor(crate::PEAK[0], crate::PEAK[1], crate::PEAK[2]);
    let top = (bytes as f64).min(y_max);
    let (dash, gap, width) = ((5.0 * look.scale) as u32, (3.0 * look.scale) as u32, look.scale.round().max(1.0) as u32);
    chart.draw_series(std::iter::once(DashedPathElement::new(
        vec![(x, 0.0), (x, top)],
        dash,
        gap,
        red.stroke_width(width),
    )))?;
    let label = format!("{what} {}", memviz_core::format::format_size(bytes, false));
    // Over the line's top, or hanging from `hang` when the line reaches above it.
    let (y, v) = match hang {
        Some(h) if top > h => (h, VPos::Top),
        _ => (top, VPos::Bottom),
    };
    let pos = Pos::new(if left { HPos::Right } else { HPos::Left }, v);
    let style = (look.family, look.font).into_font().color(&red).pos(pos);
    chart.draw_series(std::iter::once(Text::new(label, (x, y), style)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_in_binary_units() {
        let t = size_ticks(1000.0 * 1024.0 * 1024.0, 6);
        assert_eq!(t[1], 200.0 * 1024.0 * 1024.0);
        assert_eq!(t.len(), 5 + 1);
        assert_eq!(size_ticks(0.0, 5), vec![0.0]);
    }

    #[test]
    fn decimal_ticks_are_round_and_inside() {
        let t = decimal_ticks(0.0, 1.0, 5);
        assert_eq!(t.len(), 6);
        assert!(t.iter().enumerate().all(|(i, v)| (v - i as f64 * 0.2).abs() < 1e-12));
        let t = decimal_ticks(0.013, 0.061, 5);
        assert_eq!(t.len(), 5);
        assert!((t[0] - 0.02).abs() < 1e-12 && (t[4] - 0.06).abs() < 1e-12);
        assert!(decimal_ticks(1.0, 1.0, 5).is_empty());
        assert_eq!(fmt_time(0.0551, 0.2), "55 ms");
        assert_eq!(fmt_time(3.04, 10.0), "3.0 s");
    }

    #[test]
    fn step_ticks_are_whole_numbers() {
        // One step in view (a file with no trace): its two ends, no fractions.
        assert_eq!(step_ticks(0.0, 1.0, 5), vec![0.0, 1.0]);
        assert_eq!(step_ticks(0.0, 3.0, 10), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(step_ticks(0.0, 19342.0, 5), vec![0.0, 5000.0, 10000.0, 15000.0]);
        assert_eq!(step_ticks(12.5, 17.5, 2), vec![15.0]);
        assert!(step_ticks(2.0, 1.0, 5).is_empty());
    }
}
