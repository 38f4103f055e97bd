//! The Allocator State History's segment map: decode, then for each device
//! select events (the one the input's last bytes choose, the first, the
//! last; stepping both ways), lay the state out, draw it at the canvas size,
//! outline and scroll offset the input chooses (NaN and infinities too),
//! with some rectangles hovered, and hover it all over. Nothing may panic,
//! the image must be exactly the canvas, the scroll finite and in range.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use memviz_core::segment_map::{MapHit, StateView};
use memviz_render::segment_map::{render_segment_map, MapGeometry};
use memviz_render::Image;

fuzz_target!(|data: &[u8]| {
    let Ok(snap) = memviz_core::load(data) else { return };
    let p = common::Params::of(data);
    let v = memviz_core::versions::compute(&snap);
    for d in snap.devices().into_iter().take(4) {
        let mut sv = StateView::new(&snap, &v, d);
        let n = sv.len();
        for i in [p.event % (n + 1), 0, n.saturating_sub(1)] {
            sv.select(&snap, i);
            sv.step(&snap, -1);
            sv.step(&snap, 1);
            let _ = (sv.totals_text(), sv.fragmentation_text(), sv.issues_text());
            let _ = sv.event_text(&snap, &v, i);
            let map = &sv.map;
            let max_row = 48.0 * p.outline as f64;
            let probe = MapGeometry::new(map, p.w, p.h, max_row, 6.0 * p.outline as f64, 0.0);
            let hovered: Vec<usize> = (0..map.rects.len()).step_by(1 + p.event % 7).take(64).collect();
            for y_off in [p.scroll, probe.total_h - p.h as f64, probe.total_h / 3.0] {
                let mut img = Image::new(p.w, p.h);
                let g = render_segment_map(map, &mut img, max_row, p.outline, Some(&hovered), y_off);
                assert_eq!(img.rgba.len(), p.w as usize * p.h as usize * 4);
                assert!(g.y_off.is_finite() && g.y_off >= 0.0);
                let (a, b) = g.visible_rows(p.h);
                assert!(a <= b && b <= g.rows.max(1));
                for (x, y) in p.points() {
                    let Some((row, bytes, frac)) = g.to_map(x, y) else { continue };
                    if let Some(hit) = sv.hit(row, bytes, frac) {
                        let t = sv.hit_text(&snap, hit);
                        assert!(!t.is_empty());
                    }
                }
            }
        }
        for hit in [MapHit::Segment(p.limit), MapHit::Block(p.limit, 0), MapHit::Waste(0, p.limit)] {
            let _ = sv.hit_text(&snap, hit);
        }
    }
});
