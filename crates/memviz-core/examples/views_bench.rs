//! Times the views on one snapshot file:
//! `cargo run --release -p memviz-core --example views_bench -- FILE`
use std::time::Instant;

use memviz_core::timeline::{DetailView, Timeline, TimelineKind};

fn main() {
    let path = std::env::args().nth(1).expect("usage: views_bench FILE");
    let bytes = std::fs::read(&path).expect("read");
    let t = Instant::now();
    let snap = memviz_core::load(&bytes).expect("load");
    println!("load: {:?}", t.elapsed());
    let t = Instant::now();
    let v = memviz_core::versions::compute(&snap);
    println!("versions: {:?}", t.elapsed());
    for d in snap.devices() {
        for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
            let t = Instant::now();
            let tl = Timeline::build(&snap, d, kind);
            let build = t.elapsed();
            let t = Instant::now();
            let tl2 = Timeline::build(&snap, d, kind);
            let build_full = t.elapsed();
            assert_eq!(tl.total, tl2.total);
            println!(
                "device {d} {kind:?}: {} events, {} elements, {} steps; build {build:?} (with versions {build_full:?})",
                snap.trace(d).len(),
                tl.elements.len(),
                tl.n_steps()
            );
            if kind == TimelineKind::ActiveMemory {
                let t = Instant::now();
                let idx = memviz_core::search::SearchIndex::new(&snap);
                let index_t = t.elapsed();
                let t = Instant::now();
                let a = idx.search_elements(&snap, &v, &tl, memviz_core::search::SearchKind::Address, "7f0");
                let addr_t = t.elapsed();
                let t = Instant::now();
                let f = idx.search_elements(&snap, &v, &tl, memviz_core::search::SearchKind::Frame, "forward");
                println!(
                    "  search: index {index_t:?}; address '7f0' {addr_t:?} ({} hits); frame 'forward' {:?} ({} hits)",
                    a.len(),
                    t.elapsed(),
                    f.len()
                );
                let t = Instant::now();
                let links = memviz_core::timeline::EventLinks::new(&snap, &tl);
                println!("  EventLinks::new {:?} ({:?})", t.elapsed(), links.element_of_event(0));
                let t = Instant::now();
                let pp = memviz_core::pools::PrivatePools::build(&snap, &tl);
                println!("  PrivatePools::build {:?} ({} pools)", t.elapsed(), pp.pools.len());
                let t = Instant::now();
                let mut sv = memviz_core::segment_map::StateView::new(&snap, &v, d);
                let new_t = t.elapsed();
                let t = Instant::now();
                sv.select(&snap, sv.len() / 2);
                let seek_t = t.elapsed();
                let t = Instant::now();
                let mut worst = std::time::Duration::ZERO;
                let mut slow = 0;
                for _ in 0..1000 {
                    let s = Instant::now();
                    sv.step(&snap, 1);
                    let e = s.elapsed();
                    worst = worst.max(e);
                    slow += (e.as_micros() > 2000) as u32;
                }
                println!("  ArrowDown steps over 2 ms: {slow}");
                println!(
                    "  StateView::new {new_t:?}; select middle {seek_t:?}; 1000 ArrowDown {:?} (worst {worst:?}; {} segments, {} rects)",
                    t.elapsed(),
                    sv.state.segments.len(),
                    sv.map.rects.len()
                );
            }
            for limit in [15000u32, u32::MAX] {
                let t = Instant::now();
                let dv = DetailView::new(&tl, limit);
                let new = t.elapsed();
                // 1024 columns, as a renderer would query them.
                let t = Instant::now();
                let mut bands = 0u64;
                let n = tl.n_steps().max(1);
                for c in 0..1024u32 {
                    let step = (c as u64 * n as u64 / 1024) as u32;
                    dv.bands_at(&tl, step, |_| bands += 1);
                }
                println!(
                    "  DetailView::new(limit {}) {new:?}; 1024 bands_at {:?} ({bands} bands)",
                    dv.drawn_count(),
                    t.elapsed()
                );
            }
        }
    }
    let t = Instant::now();
    let s = memviz_core::summary::summarize(&snap);
    println!("summarize: {:?}", t.elapsed());
    print!("{}", s.to_text());
}
