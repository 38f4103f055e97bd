//! The axes overlay, drawn by plotters through plotters-canvas: y axis in
//! bytes (ticks at round binary sizes), x axis in steps or in wall-clock
//! time (ticks and gap labels from memviz-viewer's xaxis.rs), a light grid
//! and the peak marker. It runs only when the window, the y scale or the canvas
//! size changes: a few ms, against 100-200 ms if plotters drew the bands.

use crate::ctx2d;
use memviz_render::axis::{peak_marker, size_chart, step_ticks, x_label_count, GivenAxis, Look};
use memviz_viewer::AxesSpec;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
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
            let x = GivenAxis {
                range: win.x0..win.x1,
                ticks: step_ticks(win.x0, win.x1, x_label_count(spec.rect.w, spec.dpr)),
            };
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

type Root = DrawingArea<CanvasBackend, plotters::coord::Shift>;
type DrawResult = Result<(), DrawingAreaErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>>;

/// memviz-render's size chart and peak marker on the page's canvas, at its
/// devicePixelRatio (at `peak`: x, bytes; its label on the left when `left(x)`).
fn chart<X>(
    root: &Root,
    spec: &AxesSpec,
    x: X,
    x_label: &dyn Fn(&f64) -> String,
    peak: Option<(f64, u64)>,
    left: &dyn Fn(f64) -> bool,
) -> DrawResult
where
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let &AxesSpec { rect, dpr, y_max, x_desc, label_below, .. } = spec;
    let look =
        Look { family: "sans-serif", font: (dpr * 12.0).round() as u32, label: [60; 3], desc: [90; 3], scale: dpr };
    let y_max = y_max as f64;
    let mut chart = size_chart(root, [rect.x, rect.y, rect.w, rect.h], y_max, x, x_label, x_desc, &look)?;
    // The bytes at the phase rows' bottom edge (device px below the plot's top).
    let below = ((label_below + 2.0) * dpr - rect.y as f64).max(0.0);
    let hang = (label_below > 0.0).then(|| y_max * (1.0 - below / rect.h.max(1) as f64));
    match peak {
        Some((px, bytes)) => peak_marker(&mut chart, px, bytes, y_max, "peak", left(px), hang, &look),
        None => Ok(()),
    }
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
