//! The worker path's native parts (www/decode-worker.js, `Viewer::adopt_chunk`):
//! the model to its wire form column by column (`wire_chunks`, the
//! worker; the model's copy made outside the timing) and read back a chunk
//! at a time (`WireReader`, the page), beside the address versions the
//! worker computes first.
//!
//! Only the synthetic file: `cargo bench -p memviz-benches --bench wire -- synthetic`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use memviz_benches::{cases, wanted};
use memviz_core::{Snapshot, WireReader};

fn wire(c: &mut Criterion) {
    let mut g = c.benchmark_group("wire");
    g.sample_size(10);
    for (name, path) in cases() {
        if !wanted(name) {
            continue;
        }
        let snap = memviz_core::load(&std::fs::read(path()).unwrap()).unwrap();
        g.bench_function(format!("{name}/versions"), |b| b.iter(|| memviz_core::versions::compute(&snap)));
        g.bench_function(format!("{name}/wire_chunks"), |b| {
            b.iter_batched(
                || snap.clone(),
                |s| {
                    let mut n = 0;
                    s.wire_chunks(|c| n += c.len());
                    n
                },
                BatchSize::PerIteration,
            )
        });
        let mut chunks = Vec::new();
        snap.clone().wire_chunks(|c| chunks.push(c));
        g.bench_function(format!("{name}/wire_reader"), |b| {
            b.iter(|| {
                let mut r = WireReader::new();
                for c in &chunks {
                    r.feed(c).unwrap();
                }
                r.finish().unwrap()
            })
        });
        let joined: Vec<u8> = chunks.concat();
        g.bench_function(format!("{name}/from_wire"), |b| b.iter(|| Snapshot::from_wire(&joined).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, wire);
criterion_main!(benches);
