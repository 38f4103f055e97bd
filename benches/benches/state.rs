//! Allocator State History on the 2,000,000-event synthetic snapshot: what one
//! ArrowDown costs (step the cursor one event, build the state, lay out the
//! segment map), timed over 1,000 consecutive events, and a seek to the
//! middle of the trace.

use criterion::{criterion_group, criterion_main, Criterion};
use memviz_benches::synthetic;
use memviz_core::segment_map::SegmentMap;
use memviz_core::state::StateHistory;

fn state(c: &mut Criterion) {
    let bytes = std::fs::read(synthetic(2_000_000)).unwrap();
    let snap = memviz_core::load(&bytes).unwrap();
    let device = snap.default_device().unwrap();
    let h = StateHistory::new(&snap, device);
    let mid = h.len() / 2;
    let mut g = c.benchmark_group("state_history_2M");
    g.sample_size(10);
    // One iteration = 1,000 ArrowDowns; divide by 1,000 for a frame's cost.
    g.bench_function("1000_arrow_down_step+state+layout", |b| {
        let mut cur = h.cursor();
        cur.seek(&h, &snap, mid);
        let start = cur.clone();
        b.iter(|| {
            cur = start.clone();
            let mut rects = 0usize;
            for _ in 0..1000 {
                cur.step_forward(&h, &snap);
                let st = cur.state(&h, &snap);
                rects += SegmentMap::layout(&st).rects.len();
            }
            rects
        })
    });
    g.bench_function("seek_middle_from_end", |b| {
        b.iter(|| {
            let mut cur = h.cursor();
            cur.seek(&h, &snap, mid);
            cur.totals()
        })
    });
    g.bench_function("seek_middle_from_start", |b| {
        let mut start = h.cursor();
        start.seek_position(&h, &snap, 0);
        b.iter(|| {
            let mut cur = start.clone();
            cur.seek(&h, &snap, mid);
            cur.totals()
        })
    });
    g.finish();
}

criterion_group!(benches, state);
criterion_main!(benches);
