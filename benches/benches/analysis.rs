//! The analysis panels (issue 10): what moving the moment costs. On the
//! largest real snapshot and on the 2,000,000-event synthetic one (default
//! device).
//!
//! * `build`: `Analysis::new` on an existing Active Memory Timeline (once
//!   per device and set of category rules);
//! * `moment`: one moment, everything a panel shows: resolve a step, the
//!   live set, the 50 largest groups of each of the 50 largest groups of each of the four groupings and the icicle tree (nodes of at least
//!   0.1% of the live bytes); positions spread over the whole trace, so each
//!   iteration is a jump;
//! * `drag`: a slider drag, 1/1000 of the trace per move: `Analysis::moment`
//!   (the same, with every tree node, plus the reserved memory and free
//!   pieces from the state history; the cursor follows);
//! * `oom_and_peak`: `explain_all` (every OOM and the peak; builds its own
//!   cursor);
//! * `leaks`: the leak report (the Leaks and growth panel, the CLI's
//!   `leaks`): alive at the end by stack, growth per iteration, pending
//!   frees;
//! * `diff_side`: one side of the diff panel (www/ranks.js) at a step
//!   spread over the trace: its live set grouped by text;
//! * `diff`: B − A by stack of two such sides and the merged icicle tree
//!   (the diff panel's Diff button, after its sides).
//!
//! Only the real file: `cargo bench -p memviz-benches --bench analysis -- transformer`.

use criterion::{criterion_group, criterion_main, Criterion};
use memviz_benches::{cases, wanted};
use memviz_core::analysis::diff::{diff, diff_tree, Side};
use memviz_core::analysis::{Analysis, GroupBy, Moment, Rules};
use memviz_core::state::StateHistory;
use memviz_core::timeline::{Timeline, TimelineKind};

/// Groups a panel lists per grouping.
const TOP: usize = 50;

/// Work for one moment, returning something so nothing is optimised away.
fn panel(a: &Analysis, step: u32) -> usize {
    let at = a.resolve(Moment::Step(step)).unwrap();
    let live = a.live(at.position);
    let total = a.bytes_of(&live);
    let mut n = 0;
    for by in [GroupBy::Category, GroupBy::Stack, GroupBy::UserFrame, GroupBy::Frame] {
        n += a.top_groups(&live, by, TOP).len();
    }
    n + a.tree(&live, total / 1000).len()
}

fn analysis(c: &mut Criterion) {
    let mut g = c.benchmark_group("analysis");
    g.sample_size(10);
    for (name, path) in cases() {
        if !wanted(name) {
            continue;
        }
        let snap = memviz_core::load(&std::fs::read(path()).unwrap()).unwrap();
        let device = snap.default_device().unwrap();
        let tl = Timeline::build(&snap, device, TimelineKind::ActiveMemory);
        let rules = Rules::default();
        g.bench_function(format!("{name}/build"), |b| b.iter(|| Analysis::new(&snap, &tl, &rules)));
        let a = Analysis::new(&snap, &tl, &rules);
        let n = tl.n_steps();
        // A fixed pseudo-random walk over the steps.
        let mut x = 0x9E37_79B9u64;
        g.bench_function(format!("{name}/moment"), |b| {
            b.iter(|| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                panel(&a, ((x >> 33) % n as u64) as u32)
            })
        });
        let h = StateHistory::new(&snap, device);
        let mut cursor = h.cursor();
        let stride = (n / 1000).max(1);
        let mut s = 0u32;
        g.bench_function(format!("{name}/drag"), |b| {
            b.iter(|| {
                s = (s + stride) % n;
                let v = a.moment(&snap, Some((&h, &mut cursor)), Moment::Step(s), TOP, Some(0)).unwrap();
                v.tree.len() + v.totals.map_or(0, |t| t.free_pieces)
            })
        });
        g.bench_function(format!("{name}/oom_and_peak"), |b| b.iter(|| a.explain_all(&snap, &h).len()));
        g.bench_function(format!("{name}/leaks"), |b| b.iter(|| a.leaks(&snap).growing.len()));
        g.bench_function(format!("{name}/diff_side"), |b| {
            b.iter(|| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                Side::new(&snap, &a, Moment::Step(((x >> 33) % n as u64) as u32), "side").unwrap()
            })
        });
        let peak = Side::new(&snap, &a, Moment::Peak, "A").unwrap();
        let other = Side::new(&snap, &a, Moment::Step(n / 3), "B").unwrap();
        g.bench_function(format!("{name}/diff"), |b| {
            b.iter(|| diff(&peak, &other, GroupBy::Stack).groups.len() + diff_tree(&peak, &other, 0).len())
        });
    }
    g.finish();
}

criterion_group!(benches, analysis);
criterion_main!(benches);
