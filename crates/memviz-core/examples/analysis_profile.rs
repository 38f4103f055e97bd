//! Profiling aid: decode a file, build the analysis of its default device,
//! then answer N moments (all groupings, top 50 each, and the tree), as the
//! page would while the user drags the moment. Prints the mean per moment.
//!
//!     cargo run --release -p memviz-core --example analysis_profile -- FILE [N]

use memviz_core::analysis::{Analysis, GroupBy, Moment, Rules};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let n: u32 = args.next().map_or(1000, |s| s.parse().expect("N"));
    let snap = memviz_core::load(&std::fs::read(&path).unwrap()).unwrap();
    let device = snap.default_device().unwrap();
    let t = std::time::Instant::now();
    let a = Analysis::build(&snap, device, &Rules::default());
    eprintln!(
        "build (timeline + analysis): {:?}, analysis heap {:.1} MB (file {:.1} MB)",
        t.elapsed(),
        a.heap_bytes() as f64 / 1e6,
        std::fs::metadata(&path).unwrap().len() as f64 / 1e6
    );
    let steps = a.last_position().max(1);
    let t = std::time::Instant::now();
    let mut sink = 0usize;
    let mut live_total = 0usize;
    for i in 0..n {
        let s = (i as u64 * 7919 * 104729 % steps as u64) as u32;
        let at = a.resolve(Moment::Step(s.min(steps - 1))).unwrap();
        let live = a.live(at.position);
        live_total += live.len();
        let total = a.bytes_of(&live);
        for by in [GroupBy::Category, GroupBy::Stack, GroupBy::UserFrame, GroupBy::Frame] {
            sink += a.top_groups(&live, by, 50).len();
        }
        sink += a.tree(&live, total / 1000).len();
    }
    let dt = t.elapsed();
    eprintln!("{n} moments: {:?} each, {} live on average ({sink})", dt / n, live_total / n as usize);
}
