//! Allocated Memory (incl. Private Pools): decode, then for each device the
//! pools of its Active Memory timeline at a detail limit, drawn both ways
//! (walking every band, and the prefix-sum sweep views with many pools use)
//! at the canvas size and window the input's last bytes choose, and hovered.
//! Nothing may panic, and both drawings must fill exactly the canvas.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use memviz_core::format::hover_text;
use memviz_core::pools::{PoolDetail, PoolHit, PrivatePools};
use memviz_core::timeline::{DetailView, Timeline, TimelineKind};
use memviz_render::pools::{render_pools, PoolTotals};
use memviz_render::{pick_columns, pixel_to_point, Image};

fuzz_target!(|data: &[u8]| {
    let Ok(snap) = memviz_core::load(data) else { return };
    let p = common::Params::of(data);
    let v = memviz_core::versions::compute(&snap);
    for d in snap.devices().into_iter().take(4) {
        let tl = Timeline::build_with(&snap, &v, d, TimelineKind::ActiveMemory);
        let pp = PrivatePools::build(&snap, &tl);
        assert_eq!(pp.total.len(), tl.n_steps() as usize);
        let limit = p.limit % (tl.elements.len() as u32 + 1);
        let dv = DetailView::new(&tl, limit);
        for pd in [PoolDetail::new(&tl, &pp, &dv), PoolDetail::with_sweep(&tl, &pp, &dv)] {
            let cols = pick_columns(&PoolTotals(&pp), p.window(tl.n_steps()), p.w);
            let y_max = ((cols.max_total as f64) * 1.06).ceil().max(1.0) as u64;
            let mut img = Image::new(p.w, p.h);
            render_pools(&tl, &pp, &pd, &dv, &cols, y_max, tl.by_size.first().copied(), &mut img);
            assert_eq!(img.rgba.len(), p.w as usize * p.h as usize * 4);
            for (x, y) in p.points() {
                let Some((step, bytes)) = pixel_to_point(&cols, y_max, p.h, x, y) else { continue };
                match pd.hit(&tl, &pp, &dv, step, bytes) {
                    Some(PoolHit::Element(e)) => {
                        let _ = hover_text(&snap, &tl, e);
                    }
                    Some(PoolHit::Envelope(k)) | Some(PoolHit::PoolSummarized(k)) => {
                        let _ = pp.pools[k as usize].text();
                    }
                    _ => {}
                }
                let _ = pd.pool_summarized_at(p.event as u32, step);
            }
        }
    }
});
