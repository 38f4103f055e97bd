//! Decode + build the model, and decode + summarize (what `memviz summary`
//! does: both timelines of every device), on the largest real snapshot and on
//! a 2,000,000-event synthetic one; decode alone of the largest H100
//! recordings (PyTorch 2.11's events: their bytes are mostly stack frames).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use memviz_benches::{cases, recording, wanted};

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
    for name in ["profiler_resnet50_snapshot.pickle", "expandable_gpt2_varlen.pickle"] {
        let case = format!("recording_{}", name.trim_end_matches(".pickle"));
        if !wanted(&case) {
            continue;
        }
        let bytes = std::fs::read(recording(name)).unwrap();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(format!("{case}/decode"), |b| b.iter(|| memviz_core::load(&bytes).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
