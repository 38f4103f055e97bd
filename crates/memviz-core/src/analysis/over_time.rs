//! The kinds (category.rs) over the whole Active Memory Timeline: bytes of
//! each kind alive at every position, as a stacked
//! [`Chart`](crate::profiler::Chart) (the one torch.profiler's memory
//! timeline draws, here from a snapshot), for `memviz render --view
//! categories`.

use crate::analysis::category::Kind;
use crate::analysis::series::KindSeries;
use crate::analysis::Analysis;
use crate::profiler::{Chart, Curve};

/// Bytes by kind at positions `0..=last_position` (position p: after p
/// actions), replayed from the same [`KindSeries`] the page's stacked area
/// reads. x counts positions (`Chart::x_steps`).
pub fn kinds_chart(a: &Analysis) -> Chart {
    let series = KindSeries::new(a);
    let mut values: Vec<Vec<i64>> = vec![Vec::with_capacity(a.last_position() as usize + 1); Kind::ALL.len()];
    for bytes in series.every_position(a) {
        for (v, b) in values.iter_mut().zip(bytes) {
            v.push(b.min(i64::MAX as u64) as i64);
        }
    }
    let n = values[0].len();
    let curves =
        Kind::ALL.iter().zip(values).map(|(k, values)| Curve { name: k.name().replace('_', " "), values }).collect();
    Chart {
        title: "memory by kind".into(),
        times_us: (0..n).map(|p| p as f64).collect(),
        curves,
        stacked: true,
        x_steps: true,
    }
}
