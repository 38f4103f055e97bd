//! Columns for an x axis that is not linear in steps (wall-clock time with
//! idle gaps compressed: `memviz_core::phases::TimeAxis`): the caller gives
//! each column's left edge as a fractional step, the rest is
//! [`pick_columns`](crate::pick_columns)'s rule (the step with the largest
//! total among those starting in the column, at least the one under its left
//! edge), so a peak is never lost and the drawing code is the same.

use crate::{BandSource, Columns, NO_STEP};

/// `edges`: `width + 1` fractional steps, non-decreasing; column `c` covers
/// `[edges[c], edges[c + 1])`.
pub fn pick_columns_at<S: BandSource>(src: &S, edges: &[f64]) -> Columns {
    let n = src.n_steps();
    let width = edges.len().saturating_sub(1);
    let mut cols = Columns { step: vec![NO_STEP; width], max_total: 0 };
    if n == 0 {
        return cols;
    }
    for c in 0..width {
        let lo = edges[c].floor().max(0.0);
        if lo >= n as f64 {
            continue;
        }
        let hi = edges[c + 1].ceil().max(lo + 1.0).min(n as f64);
        let (lo, hi) = (lo as u32, hi as u32);
        let mut best = lo;
        let mut best_total = src.total(lo);
        for s in lo + 1..hi {
            let t = src.total(s);
            if t > best_total {
                best = s;
                best_total = t;
            }
        }
        cols.step[c] = best;
        cols.max_total = cols.max_total.max(best_total);
    }
    cols
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Totals(Vec<u64>);
    impl BandSource for Totals {
        fn n_steps(&self) -> u32 {
            self.0.len() as u32
        }
        fn total(&self, s: u32) -> u64 {
            self.0[s as usize]
        }
        fn summarized(&self, _: u32) -> u64 {
            0
        }
        fn bands_at<F: FnMut(u32, u64, u64)>(&self, _: u32, _: F) {}
    }

    #[test]
    fn uneven_edges_keep_the_peak_and_equal_edges_match_pick_columns() {
        let src = Totals(vec![1, 9, 2, 3, 4, 5]);
        // Column 0 squeezes steps 0-3 (peak 9 at step 1); column 1 is step 4 alone.
        let cols = pick_columns_at(&src, &[0.0, 4.0, 5.0]);
        assert_eq!(cols.step, vec![1, 4]);
        assert_eq!(cols.max_total, 9);
        let even: Vec<f64> = (0..=6).map(|c| c as f64).collect();
        let a = pick_columns_at(&src, &even);
        let b = crate::pick_columns(&src, crate::Window { x0: 0.0, x1: 6.0 }, 6);
        assert_eq!(a, b);
    }
}
