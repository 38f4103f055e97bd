//! Decode + build the model (+ summarize, once the views exist) on the
//! largest real snapshot and on a 2,000,000-event synthetic one.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use memviz_benches::{real, synthetic};

fn decode(c: &mut Criterion) {
    let cases = [
        ("transformer_fullstep_ctx128", real("transformer_fullstep_ctx128.pickle")),
        ("synthetic_2M_events", synthetic(2_000_000)),
    ];
    let mut g = c.benchmark_group("decode");
    g.sample_size(10);
    for (name, path) in cases {
        let bytes = std::fs::read(&path).unwrap();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name, |b| b.iter(|| memviz_core::load(&bytes).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
