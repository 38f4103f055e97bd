//! The axes overlay, drawn by plotters through plotters-canvas: y axis in
//! bytes (ticks at round binary sizes), x axis in steps, a light grid and
//! the peak marker. It runs only when the window, the y scale or the canvas
//! size changes: a few ms, against 100-200 ms if plotters drew the bands.

use crate::{ctx2d, text};
use memviz_core::format::format_size;
use memviz_viewer::AxesSpec;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_canvas::CanvasBackend;
use std::ops::Range;
use wasm_bindgen::JsError;
use web_sys::HtmlCanvasElement;

/// A y axis in bytes whose key points are given (round KiB/MiB/GiB values):
/// plotters' own f64 axis picks decimal ticks (100,000,000), which read
/// badly as sizes.
struct SizeAxis {
    max: f64,
    ticks: Vec<f64>,
}

impl Ranged for SizeAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;
    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let f = if self.max > 0.0 { v / self.max } else { 0.0 };
        limit.0 + (f * (limit.1 - limit.0) as f64).round() as i32
    }
    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.max_num_points() == 0 {
            return Vec::new();
        }
        self.ticks.clone()
    }
    fn range(&self) -> Range<f64> {
        0.0..self.max
    }
}

pub fn draw(canvas: &HtmlCanvasElement, spec: &AxesSpec) -> Result<(), JsError> {
    let &AxesSpec { rect, dpr, window: win, y_max, peak, x_desc } = spec;
    let ctx = ctx2d(canvas)?;
    let (w, h) = (canvas.width(), canvas.height());
    ctx.clear_rect(0.0, 0.0, w as f64, h as f64);
    let err = |e: &dyn std::fmt::Display| JsError::new(&format!("axes: {e}"));
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).ok_or_else(|| JsError::new("canvas"))?;
    let root = backend.into_drawing_area();
    let y_max = y_max as f64;
    let ticks = text::size_ticks(y_max, ((rect.h as f64 / dpr) / 60.0).clamp(2.0, 10.0) as usize);
    let font = (dpr * 12.0).round() as u32;
    let mut chart = ChartBuilder::on(&root)
        .margin_top(rect.y)
        .margin_right(w.saturating_sub(rect.x + rect.w))
        .y_label_area_size(rect.x)
        .x_label_area_size(h.saturating_sub(rect.y + rect.h))
        .build_cartesian_2d(win.x0..win.x1, SizeAxis { max: y_max, ticks })
        .map_err(|e| err(&e))?;
    let grid = RGBColor(0, 0, 0).mix(0.12);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(grid.stroke_width(1))
        .light_line_style(TRANSPARENT)
        .y_label_formatter(&|v| format_size(*v as u64, false))
        .x_label_formatter(&|v| format!("{}", v.round() as i64))
        .x_labels(((rect.w as f64 / dpr) / 110.0).max(2.0) as usize)
        .x_desc(x_desc)
        .label_style(("sans-serif", font).into_font().color(&RGBColor(60, 60, 60)))
        .axis_desc_style(("sans-serif", font).into_font().color(&RGBColor(90, 90, 90)))
        .axis_style(RGBColor(120, 120, 120).stroke_width(1))
        .draw()
        .map_err(|e| err(&e))?;
    // The peak: a dashed vertical line and its value, when in view.
    if let Some((step, bytes)) = peak {
        let (ps, pb) = (step as f64 + 0.5, (bytes as f64).min(y_max));
        if ps >= win.x0 && ps <= win.x1 {
            let red = RGBColor(0xd6, 0x27, 0x28);
            let style = red.stroke_width(dpr.round().max(1.0) as u32);
            let dash = DashedPathElement::new(vec![(ps, 0.0), (ps, pb)], (5.0 * dpr) as u32, (3.0 * dpr) as u32, style);
            chart.draw_series(std::iter::once(dash)).map_err(|e| err(&e))?;
            let label = format!("peak {}", format_size(bytes, false));
            let right = ps > win.x0 + (win.x1 - win.x0) * 0.8;
            let pos = Pos::new(if right { HPos::Right } else { HPos::Left }, VPos::Bottom);
            let style = ("sans-serif", font).into_font().color(&red).pos(pos);
            chart.draw_series(std::iter::once(Text::new(label, (ps, pb), style))).map_err(|e| err(&e))?;
        }
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
