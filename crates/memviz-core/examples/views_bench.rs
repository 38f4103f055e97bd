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
            let tl = Timeline::build_with(&snap, &v, d, kind);
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
