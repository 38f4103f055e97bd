//! The kinds (category.rs) over the whole Active Memory Timeline: bytes of
//! each kind alive at every position, as a stacked
//! [`Chart`](crate::profiler::Chart) (the one torch.profiler's memory
//! timeline draws, here from a snapshot), for `memviz render --view
//! categories`.

use crate::analysis::category::Kind;
use crate::analysis::Analysis;
use crate::profiler::{Chart, Curve};
use crate::timeline::Timeline;

/// Bytes by kind at positions `0..=last_position` (position p: after p
/// actions). x counts positions (`Chart::x_steps`).
pub fn kinds_chart(a: &Analysis, tl: &Timeline) -> Chart {
    let n = a.last_position() as usize;
    // Per kind, +size where an element is born and -size where it dies.
    let mut delta = vec![vec![0i64; n + 2]; Kind::ALL.len()];
    for e in 0..tl.elements.len() as u32 {
        let (Some((born, dies)), Some((kind, _))) = (a.lifetime(e), a.kind_of(e)) else { continue };
        let size = tl.elements[e as usize].size.min(i64::MAX as u64) as i64;
        let (b, d) = ((born as usize).min(n + 1), (dies as usize).min(n + 1));
        if b >= d {
            continue;
        }
        delta[kind as usize][b] = delta[kind as usize][b].saturating_add(size);
        delta[kind as usize][d] = delta[kind as usize][d].saturating_sub(size);
    }
    let curves = Kind::ALL
        .iter()
        .map(|&k| {
            let mut run = 0i64;
            let values = delta[k as usize][..=n]
                .iter()
                .map(|&d| {
                    run = run.saturating_add(d);
                    run
                })
                .collect();
            Curve { name: k.name().replace('_', " "), values }
        })
        .collect();
    Chart {
        title: "memory by kind".into(),
        times_us: (0..=n).map(|p| p as f64).collect(),
        curves,
        stacked: true,
        x_steps: true,
    }
}
