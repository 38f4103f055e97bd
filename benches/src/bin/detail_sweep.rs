//! The detail slider at every position: DetailView::new for each limit from
//! 0 to the element count (a stride on very large timelines), on every
//! device and view, printing the slowest and the median; and the device /
//! view switch (Timeline::build + DetailView::new at 15000).
//!
//! cargo run --release -p memviz-benches --bin detail_sweep -- FILE [MAX_LIMITS]

use std::time::{Duration, Instant};

use memviz_core::timeline::{DetailView, Timeline, TimelineKind};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: detail_sweep FILE [MAX_LIMITS]");
        std::process::exit(2);
    };
    let max_limits: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(20000);
    let snap = memviz_core::load(&std::fs::read(&path).unwrap()).unwrap();
    let t = Instant::now();
    std::hint::black_box(memviz_core::versions::compute(&snap));
    println!("{path}: versions {:.2} ms (once per file)", ms(t.elapsed()));
    for d in snap.devices() {
        for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
            let t = Instant::now();
            let tl = Timeline::build(&snap, d, kind);
            let build = t.elapsed();
            let t = Instant::now();
            let dv = DetailView::new(&tl, 15000);
            let switch = build + t.elapsed();
            std::hint::black_box(&dv);
            let n = tl.elements.len() as u64;
            let stride = (n + 1).div_ceil(max_limits).max(1);
            let mut times: Vec<(Duration, u64)> = (0..=n)
                .step_by(stride as usize)
                .map(|limit| {
                    let t = Instant::now();
                    std::hint::black_box(DetailView::new(&tl, limit as u32));
                    (t.elapsed(), limit)
                })
                .collect();
            times.sort();
            let (worst, at) = times[times.len() - 1];
            println!(
                "device {d} {kind:?}: {n} elements; build {:.2} ms, switch (build + detail 15000) {:.2} ms; \
                 DetailView::new at {} limits (stride {stride}): median {:.3} ms, p99 {:.3} ms, max {:.3} ms (limit {at})",
                ms(build),
                ms(switch),
                times.len(),
                ms(times[times.len() / 2].0),
                ms(times[times.len() * 99 / 100].0),
                ms(worst)
            );
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
