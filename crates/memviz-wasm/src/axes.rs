//! The axes overlay, drawn by plotters through plotters-canvas: y axis in
//! bytes (ticks at round binary sizes), x axis in steps or in wall-clock
//! time (ticks and gap labels from memviz-viewer's xaxis.rs), a light grid
//! and the peak marker. It runs only when the window, the y scale or the canvas
//! size changes: a few ms, against 100-200 ms if plotters drew the bands.

use crate::ctx2d;
use memviz_core::format::format_size;
use memviz_render::axis::{size_ticks, step_ticks, GivenAxis};
use memviz_viewer::AxesSpec;
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsError;
use web_sys::HtmlCanvasElement;

pub fn draw(canvas: &HtmlCanvasElement, spec: &AxesSpec) -> Result<(), JsError> {
    let ctx = ctx2d(canvas)?;
    ctx.clear_rect(0.0, 0.0, canvas.width() as f64, canvas.height() as f64);
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or_else(|| JsError::new("canvas"))?;
    let root = backend.into_drawing_area();
    let err = |e: &dyn std::fmt::Display| JsError::new(&format!("axes: {e}"));
    match &spec.time {
        None => {
            let (win, peak) = (spec.window, spec.peak);
            let label = |v: &f64| format!("{}", v.round() as i64);
            // The peak at the middle of its step, when in view.
            let peak = peak.map(|(s, b)| (s as f64 + 0.5, b)).filter(|(x, _)| *x >= win.x0 && *x <= win.x1);
            let right = |x: f64| x > win.x0 + (win.x1 - win.x0) * 0.8;
            let x = GivenAxis { range: win.x0..win.x1, ticks: step_ticks(win.x0, win.x1, x_labels(spec)) };
            chart(&root, spec, x, &label, peak, &right).map_err(|e| err(&e))?;
        }
        Some(t) => {
            let x = GivenAxis { range: 0.0..1.0, ticks: t.ticks.iter().map(|p| p.0).collect() };
            // Labels by position: plotters hands back the key points it was given.
            let label = |v: &f64| {
                t.ticks
                    .iter()
                    .min_by(|a, b| (a.0 - v).abs().total_cmp(&(b.0 - v).abs()))
                    .map_or(String::new(), |p| p.1.clone())
            };
            let peak = t.peak.zip(spec.peak).map(|(x, (_, b))| (x, b)).filter(|(x, _)| (0.0..=1.0).contains(x));
            chart(&root, spec, x, &label, peak, &|x| x > 0.8).map_err(|e| err(&e))?;
            gap_labels(&root, spec, &t.gaps).map_err(|e| err(&e))?;
        }
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// About how many x labels fit: one per 110 CSS pixels.
fn x_labels(spec: &AxesSpec) -> usize {
    ((spec.rect.w as f64 / spec.dpr) / 110.0).max(2.0) as usize
}

type Root = DrawingArea<CanvasBackend, plotters::coord::Shift>;
type DrawResult = Result<(), DrawingAreaErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>>;

/// The mesh, the labels and the peak's dashed line (at `peak`: x, bytes;
/// its label on the left of the line when `right(x)`).
fn chart<X>(
    root: &Root,
    spec: &AxesSpec,
    x: X,
    x_label: &dyn Fn(&f64) -> String,
    peak: Option<(f64, u64)>,
    right: &dyn Fn(f64) -> bool,
) -> DrawResult
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let &AxesSpec { rect, dpr, y_max, x_desc, .. } = spec;
    let (w, h) = root.dim_in_pixel();
    let y_max = y_max as f64;
    let ticks = size_ticks(y_max, ((rect.h as f64 / dpr) / 60.0).clamp(2.0, 10.0) as usize);
    // Every label in the unit of the largest tick (one rule: format::axis_unit).
    let unit = memviz_core::format::axis_unit(ticks.last().copied().unwrap_or(0.0));
    let font = (dpr * 12.0).round() as u32;
    let mut chart = ChartBuilder::on(root)
        .margin_top(rect.y)
        .margin_right(w.saturating_sub(rect.x + rect.w))
        .y_label_area_size(rect.x)
        .x_label_area_size(h.saturating_sub(rect.y + rect.h))
        .build_cartesian_2d(x, GivenAxis { range: 0.0..y_max, ticks })?;
    let grid = RGBColor(0, 0, 0).mix(0.12);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(grid.stroke_width(1))
        .light_line_style(TRANSPARENT)
        .y_label_formatter(&|v| memviz_core::format::format_size_in(*v, unit))
        .x_label_formatter(x_label)
        .x_labels(x_labels(spec))
        .x_desc(x_desc)
        .label_style(("sans-serif", font).into_font().color(&RGBColor(60, 60, 60)))
        .axis_desc_style(("sans-serif", font).into_font().color(&RGBColor(90, 90, 90)))
        .axis_style(RGBColor(120, 120, 120).stroke_width(1))
        .draw()?;
    // The peak: a dashed vertical line and its value.
    if let Some((px, bytes)) = peak {
        let pb = (bytes as f64).min(y_max);
        let red = RGBColor(0xd6, 0x27, 0x28);
        let style = red.stroke_width(dpr.round().max(1.0) as u32);
        let dash = DashedPathElement::new(vec![(px, 0.0), (px, pb)], (5.0 * dpr) as u32, (3.0 * dpr) as u32, style);
        chart.draw_series(std::iter::once(dash))?;
        let label = format!("peak {}", format_size(bytes, false));
        let pos = Pos::new(if right(px) { HPos::Right } else { HPos::Left }, VPos::Bottom);
        let style = ("sans-serif", font).into_font().color(&red).pos(pos);
        chart.draw_series(std::iter::once(Text::new(label, (px, pb), style)))?;
    }
    Ok(())
}

/// Each idle gap's real length under it, at the bottom of the plot (the
/// veil and the zigzag edges are in the plot's pixels: memviz-render's
/// mapped_x.rs); alternate rows when they are close.
fn gap_labels(root: &Root, spec: &AxesSpec, gaps: &[(f64, f64, String)]) -> DrawResult {
    let (r, dpr) = (spec.rect, spec.dpr);
    let font = (dpr * 11.0).round() as u32;
    let style = ("sans-serif", font).into_font().color(&RGBColor(90, 90, 90)).pos(Pos::new(HPos::Center, VPos::Bottom));
    for (i, (a, b, label)) in gaps.iter().enumerate() {
        let x = r.x as f64 + (a + b) / 2.0 * r.w as f64;
        let y = (r.y + r.h) as f64 - 2.0 * dpr - (i % 2) as f64 * 13.0 * dpr;
        root.draw(&Text::new(label.clone(), (x.round() as i32, y.round() as i32), style.clone()))?;
    }
    Ok(())
}
