//! The views on an already decoded model: what the page redoes when the user
//! switches device or view (Timeline::build + DetailView::new) or moves the
//! detail slider (DetailView::new alone), at the default detail (15000, as
//! memory_viz) and at "all"; plus summarize alone. On the largest real
//! snapshot and on the 2,000,000-event synthetic one (device 0, whose trace
//! is as long as device 1's).
//!
//! Only the real file: `cargo bench -p memviz-benches --bench views -- transformer`.

use criterion::{criterion_group, criterion_main, Criterion};
use memviz_benches::{cases, wanted};
use memviz_core::timeline::{DetailView, Timeline, TimelineKind};

const DEFAULT_DETAIL: u32 = 15000;

fn views(c: &mut Criterion) {
    let mut g = c.benchmark_group("views");
    g.sample_size(10);
    for (name, path) in cases() {
        if !wanted(name) {
            continue;
        }
        let snap = memviz_core::load(&std::fs::read(path()).unwrap()).unwrap();
        let device = snap.default_device().unwrap();
        g.bench_function(format!("{name}/summarize"), |b| b.iter(|| memviz_core::summary::summarize(&snap)));
        g.bench_function(format!("{name}/versions"), |b| b.iter(|| memviz_core::versions::compute(&snap)));
        for (kind, k) in [(TimelineKind::ActiveMemory, "active"), (TimelineKind::CachedSegments, "segments")] {
            g.bench_function(format!("{name}/{k}/timeline_build"), |b| b.iter(|| Timeline::build(&snap, device, kind)));
            let tl = Timeline::build(&snap, device, kind);
            for (limit, l) in [(DEFAULT_DETAIL, "15000"), (u32::MAX, "all")] {
                g.bench_function(format!("{name}/{k}/detail_view_{l}"), |b| b.iter(|| DetailView::new(&tl, limit)));
                // A device or view switch: replay plus detail.
                g.bench_function(format!("{name}/{k}/switch_{l}"), |b| {
                    b.iter(|| DetailView::new(&Timeline::build(&snap, device, kind), limit))
                });
            }
        }
    }
    g.finish();
}

criterion_group!(benches, views);
criterion_main!(benches);
