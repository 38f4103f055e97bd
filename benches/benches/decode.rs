//! Decode + build the model, and decode + summarize (what `memviz summary`
//! does: both timelines of every device), on the largest real snapshot and on
//! a 2,000,000-event synthetic one.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use memviz_benches::{real, synthetic, wanted};

fn decode(c: &mut Criterion) {
    let cases: [(&str, fn() -> std::path::PathBuf); 2] = [
        ("transformer_fullstep_ctx128", || real("transformer_fullstep_ctx128.pickle")),
        ("synthetic_2M_events", || synthetic(2_000_000)),
    ];
    let mut g = c.benchmark_group("decode");
    g.sample_size(10);
    for (name, path) in cases {
        if !wanted(name) {
            continue;
        }
        let bytes = std::fs::read(path()).unwrap();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(format!("{name}/decode"), |b| b.iter(|| memviz_core::load(&bytes).unwrap()));
        g.bench_function(format!("{name}/decode+summarize"), |b| {
            b.iter(|| memviz_core::summary::summarize(&memviz_core::load(&bytes).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
