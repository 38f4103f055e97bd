//! Drawing and hovering the timelines: decode, then for each device both
//! timelines at the detail limit, canvas size and window the input's last
//! bytes choose, rasterized (with the largest band outlined) and hovered on
//! a grid of pixels; the hover text of every hit, the minimap, and the links
//! between elements and trace events. Nothing may panic; every pixel of a
//! hit lies on the canvas and its element is drawn.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use memviz_core::format::hover_text;
use memviz_core::timeline::{DetailView, EventLinks, Hit, Timeline, TimelineKind};
use memviz_render::{
    minimap_columns, pick_columns, pixel_to_point, render_minimap, render_plot, BandIndex, Image, PlotStyle,
    TimelineBands,
};

fuzz_target!(|data: &[u8]| {
    let Ok(snap) = memviz_core::load(data) else { return };
    let p = common::Params::of(data);
    let v = memviz_core::versions::compute(&snap);
    for d in snap.devices().into_iter().take(4) {
        for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
            let tl = Timeline::build_with(&snap, &v, d, kind);
            let n = tl.n_steps();
            let dv = DetailView::new(&tl, p.limit % (tl.elements.len() as u32 + 1));
            let ix = BandIndex::new(&tl, &dv);
            let src = TimelineBands::new(&tl, &dv, &ix);
            let win = p.window(n);
            let cols = pick_columns(&src, win, p.w);
            assert_eq!(cols.step.len(), p.w as usize);
            let y_max = ((cols.max_total as f64) * 1.06).ceil().max(1.0) as u64;
            let mut img = Image::new(p.w, p.h);
            let style = PlotStyle { y_max, selected: tl.by_size.first().copied(), outline: p.outline };
            render_plot(&src, &cols, style, &mut img);
            assert_eq!(img.rgba.len(), p.w as usize * p.h as usize * 4);
            for (x, y) in p.points() {
                let Some((step, bytes)) = pixel_to_point(&cols, y_max, p.h, x, y) else { continue };
                assert!(step < n);
                match dv.hit(&tl, step, bytes) {
                    Some(Hit::Element(e)) => {
                        assert!(dv.is_drawn(e));
                        assert!(!hover_text(&snap, &tl, e).is_empty());
                    }
                    Some(Hit::Summarized) | None => {}
                }
            }
            let (mc, max) = minimap_columns(&tl.total, tl.start_bytes, p.w);
            let mut mini = Image::new(p.w, p.h.min(80));
            render_minimap(&mc, max, n, win, Some(tl.peak_step()), &mut mini);
            let links = EventLinks::new(&snap, &tl);
            for i in [0, p.event, snap.trace(d).len().saturating_sub(1)] {
                if let Some(e) = links.element_of_event(i) {
                    assert!((e as usize) < tl.elements.len());
                    let _ = links.event_for_element(&tl, e);
                }
            }
        }
    }
});
