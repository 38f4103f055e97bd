//! torch.profiler memory exports ([`memviz_core::profiler::Chart`]) as
//! pixels: a memory timeline's categories stacked (in memviz's colours of
//! kinds), a trace's allocated bytes filled and reserved bytes as a line.
//!
//! x is time in seconds from the chart's first point, linear; a value holds
//! from its point to the next. Like the snapshot timelines, each pixel
//! column shows the point with the largest total among those it covers, so
//! no peak disappears when zoomed out.

use memviz_core::analysis::Kind;
use memviz_core::profiler::Chart;

use crate::explain::KIND_COLORS;

use crate::{Image, Rgba, BACKGROUND};

/// A trace's allocated bytes (filled) and reserved bytes (line).
pub const ALLOCATED: Rgba = [0x4e, 0x79, 0xa7, 255];
pub const RESERVED: Rgba = [0xe1, 0x57, 0x59, 255];

/// The memviz kind a torch.profiler category (PARAMETER, OPTIMIZER_STATE,
/// INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, UNKNOWN, as the
/// core names its curves) is drawn as. Eight categories on seven kinds: a
/// batch's inputs feed the first layer, what memviz calls activations.
pub fn category_kind(name: &str) -> Option<Kind> {
    Some(match name {
        "parameter" => Kind::Parameter,
        "optimizer state" => Kind::OptimizerState,
        "input" | "activation" => Kind::Activation,
        "temporary" => Kind::Temporary,
        "gradient" => Kind::Gradient,
        "autograd detail" | "autograd saved" => Kind::AutogradSaved,
        "unknown" | "other" => Kind::Other,
        _ => return None,
    })
}

/// The colour of curve `i` of `chart` (legend and pixels agree).
pub fn curve_color(chart: &Chart, i: usize) -> Rgba {
    if chart.stacked {
        // One palette of kinds everywhere (page, CLI, render): a profiler
        // category is drawn in the colour of the memviz kind it is.
        let kind = chart.curves.get(i).and_then(|c| category_kind(&c.name));
        kind.map_or(KIND_COLORS[i % KIND_COLORS.len()], |k| KIND_COLORS[k as usize])
    } else if i == 0 {
        ALLOCATED
    } else {
        RESERVED
    }
}

/// Which point each pixel column shows: the one with the largest total among
/// the points that hold somewhere in the column's time range ([t0, t1] in
/// seconds from the first point, `width` columns). None left of the first point.
pub fn columns(chart: &Chart, t0: f64, t1: f64, width: u32) -> Vec<Option<usize>> {
    let n = chart.times_us.len();
    let mut out = Vec::with_capacity(width as usize);
    if n == 0 || width == 0 {
        out.resize(width as usize, None);
        return out;
    }
    let span = (t1 - t0).max(1e-12);
    let secs: Vec<f64> = (0..n).map(|i| chart.seconds(i)).collect();
    // The first point at or after a time; points before `i` hold until it.
    let first_at = |t: f64| secs.partition_point(|&s| s < t);
    for x in 0..width {
        let a = t0 + span * x as f64 / width as f64;
        let b = t0 + span * (x + 1) as f64 / width as f64;
        let lo = first_at(a);
        // The point holding at `a` (the last one before it) counts too.
        let start = if lo < n && secs[lo] <= a { lo } else { lo.saturating_sub(1) };
        if lo == 0 && secs[0] >= b {
            out.push(None);
            continue;
        }
        let end = first_at(b).max(start + 1).min(n);
        let best = (start..end).max_by_key(|&i| (chart.total_at(i), std::cmp::Reverse(i)));
        out.push(best);
    }
    out
}

/// Draws `chart` over [t0, t1] seconds into `img` (its whole size), y from 0
/// to `y_max` bytes. Returns the columns (for hover).
pub fn render_chart(chart: &Chart, t0: f64, t1: f64, y_max: u64, img: &mut Image) -> Vec<Option<usize>> {
    let (w, h) = (img.width, img.height);
    img.reset(w, h, BACKGROUND);
    let cols = columns(chart, t0, t1, w);
    let y_max = y_max.max(1) as f64;
    // Pixel row of a byte value (0 at the bottom).
    let y_of = |v: i64| -> u32 {
        let f = (v.max(0) as f64 / y_max).min(1.0);
        h - (f * h as f64).round() as u32
    };
    let mut prev_line: Option<u32> = None;
    for (x, col) in cols.iter().enumerate() {
        let x = x as u32;
        let Some(i) = *col else {
            prev_line = None;
            continue;
        };
        if chart.stacked {
            let mut base = 0i64;
            for (c, curve) in chart.curves.iter().enumerate() {
                let v = curve.values[i].max(0);
                if v == 0 {
                    continue;
                }
                let (top, bottom) = (y_of(base.saturating_add(v)), y_of(base));
                for y in top..bottom {
                    img.put(x, y, curve_color(chart, c));
                }
                base = base.saturating_add(v);
            }
        } else {
            if let Some(alloc) = chart.curves.first() {
                for y in y_of(alloc.values[i])..h {
                    img.put(x, y, [0xa6, 0xbc, 0xd3, 255]);
                }
                let top = y_of(alloc.values[i]).min(h - 1);
                img.put(x, top, ALLOCATED);
            }
            if let Some(res) = chart.curves.get(1) {
                // A 2-pixel line, joined to the previous column's height.
                let y = y_of(res.values[i]).min(h - 1);
                let (a, b) = match prev_line {
                    Some(p) => (p.min(y), p.max(y)),
                    None => (y, y),
                };
                for yy in a.saturating_sub(1)..=b.min(h - 1) {
                    img.put(x, yy, RESERVED);
                }
                prev_line = Some(y);
            }
        }
    }
    cols
}

#[cfg(test)]
mod tests {
    use super::*;
    use memviz_core::profiler::Curve;

    fn chart(stacked: bool) -> Chart {
        Chart {
            title: "t".into(),
            // 0 s, 1 s, 2 s, 3 s
            times_us: vec![0.0, 1e6, 2e6, 3e6],
            curves: vec![
                Curve { name: "a".into(), values: vec![10, 40, 20, 0] },
                Curve { name: "b".into(), values: vec![10, 0, 60, 0] },
            ],
            stacked,
            x_steps: false,
        }
    }

    #[test]
    fn a_column_shows_its_largest_point() {
        let c = chart(true);
        // One column over everything: point 2 (80 bytes) wins.
        assert_eq!(columns(&c, 0.0, 3.0, 1), vec![Some(2)]);
        // Three columns of 1 s each: the point holding at each start.
        assert_eq!(columns(&c, 0.0, 3.0, 3), vec![Some(0), Some(1), Some(2)]);
        // Before the first point: nothing.
        assert_eq!(columns(&c, -2.0, 0.0, 2), vec![None, None]);
    }

    #[test]
    fn stacked_bands_have_the_category_colors_and_heights() {
        let c = chart(true);
        let mut img = Image::new(3, 100);
        render_chart(&c, 0.0, 3.0, 100, &mut img);
        // Column 2 (point 2): a = 20 bytes at the bottom, b = 60 above it.
        assert_eq!(img.get(2, 99), KIND_COLORS[0]);
        assert_eq!(img.get(2, 80), KIND_COLORS[0]);
        assert_eq!(img.get(2, 79), KIND_COLORS[1]);
        assert_eq!(img.get(2, 20), KIND_COLORS[1]);
        assert_eq!(img.get(2, 19), BACKGROUND);
    }

    #[test]
    fn profiler_categories_take_the_colours_of_memviz_kinds() {
        // The core's curve names of torch.profiler's categories, and the
        // kind each one is (indices into Kind::ALL: parameter, gradient,
        // optimizer state, activation, autograd saved, temporary, other).
        let want = [
            ("parameter", 0),
            ("optimizer state", 2),
            ("input", 3),
            ("temporary", 5),
            ("activation", 3),
            ("gradient", 1),
            ("autograd detail", 4),
            ("unknown", 6),
        ];
        let mut c = chart(true);
        c.curves = want.iter().map(|(n, _)| Curve { name: n.to_string(), values: vec![1, 1, 1, 1] }).collect();
        for (i, (name, k)) in want.iter().enumerate() {
            assert_eq!(curve_color(&c, i), KIND_COLORS[*k], "{name}");
        }
    }

    #[test]
    fn curves_draw_allocated_filled_and_reserved_as_a_line() {
        let c = chart(false);
        let mut img = Image::new(3, 100);
        render_chart(&c, 0.0, 3.0, 100, &mut img);
        // Column 1: allocated 40 (fill below row 60), reserved 0 (line at the bottom).
        assert_eq!(img.get(1, 60), ALLOCATED);
        assert_ne!(img.get(1, 70), BACKGROUND);
        assert_eq!(img.get(1, 50), BACKGROUND);
        assert_eq!(img.get(2, 40), RESERVED);
    }
}
