//! Decode + build the model, and decode + summarize (what `memviz summary`
//! does: both timelines of every device), on the largest real snapshot and on
//! a 2,000,000-event synthetic one.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use memviz_benches::{cases, wanted};

fn decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode");
    g.sample_size(10);
    for (name, path) in cases() {
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
