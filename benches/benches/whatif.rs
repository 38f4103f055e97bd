//! memviz whatif's replay on the 2,000,000-event synthetic snapshot: the
//! trace through the allocator model under other settings (a prediction),
//! and under its own (the self-check), in trace events a second (target:
//! 5 million). Also what one page slice of 50,000 events costs.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use memviz_allocator::{Replay, Settings, WhatIf};
use memviz_benches::synthetic;

fn whatif(c: &mut Criterion) {
    let bytes = std::fs::read(synthetic(2_000_000)).unwrap();
    let snap = memviz_core::load(&bytes).unwrap();
    let device = snap.default_device().unwrap();
    let w = WhatIf::new(&snap, device, None).unwrap();
    let n = snap.trace(device).len() as u64;
    let mut g = c.benchmark_group("whatif_2M");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n));
    for conf in ["expandable_segments:False", "expandable_segments:True", "max_split_size_mb:128"] {
        let mut s = Settings::default();
        s.set(conf).unwrap();
        g.bench_function(format!("predict {conf}"), |b| b.iter(|| w.replay(s.clone()).finish().peak_reserved_bytes));
    }
    g.bench_function("self_check", |b| {
        b.iter(|| Replay::self_check(&snap, &w.recording).finish().check.map(|c| c.matched))
    });
    g.throughput(Throughput::Elements(50_000));
    g.bench_function("one_slice_of_50000", |b| {
        let mut r = w.replay(Settings::default());
        b.iter(|| {
            if r.step(50_000) {
                r = w.replay(Settings::default());
            }
            r.position()
        })
    });
    g.finish();
}

criterion_group!(benches, whatif);
criterion_main!(benches);
