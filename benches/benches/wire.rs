//! The worker path's native parts (www/decode-worker.js, `Viewer::adopt_chunk`):
//! the model to its wire form column by column (`wire_chunks`, the
//! worker) and read back a chunk at a time (`WireReader`, the page), beside
//! the address versions the worker computes while the page reads.
//!
//! Only the synthetic file: `cargo bench -p memviz-benches --bench wire -- synthetic`.

use criterion::{criterion_group, criterion_main, Criterion};
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
            b.iter(|| {
                let mut n = 0;
                snap.wire_chunks(|c| n += c.len());
                n
            })
        });
        let mut chunks = Vec::new();
        snap.wire_chunks(|c| chunks.push(c));
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
