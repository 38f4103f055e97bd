//! Where an ArrowDown's time goes on a big file:
//! `cargo run --release -p memviz-core --example arrow_profile -- FILE`
use std::time::Instant;

use memviz_core::segment_map::SegmentMap;
use memviz_core::state::StateHistory;

fn main() {
    let path = std::env::args().nth(1).expect("usage: arrow_profile FILE");
    let snap = memviz_core::load(&std::fs::read(&path).unwrap()).unwrap();
    let d = snap.default_device().unwrap();
    let h = StateHistory::new(&snap, d);
    let mut c = h.cursor();
    c.seek(&h, &snap, h.len() / 2);
    let (mut ts, mut tst, mut tl) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..1000 {
        let t = Instant::now();
        c.step_forward(&h, &snap);
        ts.push(t.elapsed().as_micros());
        let t = Instant::now();
        let st = c.state(&h, &snap);
        tst.push(t.elapsed().as_micros());
        let t = Instant::now();
        let m = SegmentMap::layout(&st);
        tl.push(t.elapsed().as_micros());
        std::hint::black_box(m);
    }
    for (name, mut v) in [("step", ts), ("state", tst), ("layout", tl)] {
        v.sort();
        println!("{name}: median {}us p99 {}us max {}us", v[500], v[990], v[999]);
    }
}
