//! Columns for an x axis that is not linear in steps (wall-clock time with
//! idle gaps compressed: `memviz_core::phases::TimeAxis`): the caller gives
//! each column's left edge as a fractional step, the rest is
//! [`pick_columns`](crate::pick_columns)'s rule (the step with the largest
//! total among those starting in the column, at least the one under its left
//! edge), so a peak is never lost and the drawing code is the same. Idle
//! gaps are veiled and their edges zigzagged ([`veil_gap`]) on the page's
//! plot.

use crate::{tallest_step, BandSource, Columns, Image, Rgba, NO_STEP};
use memviz_core::phases::TimeAxis;

/// Left edges (fractional steps) of `width` columns showing display
/// positions `[d0, d1)` of `axis` (seconds, gaps compressed), plus the
/// right edge of the last: what [`pick_columns_at`] takes.
pub fn time_edges(axis: &TimeAxis, d0: f64, d1: f64, width: u32) -> Vec<f64> {
    let per = (d1 - d0) / width.max(1) as f64;
    (0..=width).map(|c| axis.step_of_x(d0 + c as f64 * per)).collect()
}

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
        let (best, best_total) = tallest_step(src, lo, hi);
        cols.step[c] = best;
        cols.max_total = cols.max_total.max(best_total);
    }
    cols
}

/// The minimap's columns for uneven edges (as [`pick_columns_at`] takes):
/// the largest total among the steps in each column, and the largest of
/// all (with `start_bytes`).
pub fn minimap_columns_at(totals: &[u64], start_bytes: u64, edges: &[f64]) -> (Vec<u64>, u64) {
    let n = totals.len();
    let cols: Vec<u64> = edges
        .windows(2)
        .map(|e| {
            if n == 0 {
                return 0;
            }
            let lo = (e[0].floor().max(0.0) as usize).min(n - 1);
            let hi = (e[1].ceil() as usize).clamp(lo + 1, n);
            totals[lo..hi].iter().copied().max().unwrap_or(0)
        })
        .collect();
    let max = cols.iter().copied().max().unwrap_or(0).max(start_bytes);
    (cols, max)
}

/// What a compressed gap's edges are drawn in.
pub const GAP_EDGE: Rgba = [150, 150, 150, 255];

/// An idle gap over columns `[x0, x1)` of a plot: the memory stays drawn
/// (it was held) under a white veil (55%, as the CLI's chart), and both
/// edges are zigzag lines (a broken axis). `unit`: device pixels per CSS
/// pixel, so the zigzag keeps its size on a dense screen.
pub fn veil_gap(img: &mut Image, x0: i64, x1: i64, unit: u32) {
    let (w, h) = (img.width as i64, img.height as i64);
    let x1 = x1.max(x0 + 2 * unit as i64);
    for x in x0.max(0)..x1.min(w) {
        for y in 0..h {
            let i = (y as usize * w as usize + x as usize) * 4;
            for k in 0..3 {
                let c = img.rgba[i + k] as u32;
                img.rgba[i + k] = ((c * 45 + 255 * 55) / 100) as u8;
            }
        }
    }
    // A zigzag of period 12 CSS px, 2 px either side of each edge.
    let (amp, half) = (2 * unit as i64, 6 * unit as i64);
    for edge in [x0, x1] {
        for y in 0..h {
            let ph = y % (2 * half);
            let off = if ph < half { -amp + 2 * amp * ph / half } else { amp - 2 * amp * (ph - half) / half };
            for d in 0..unit as i64 {
                let x = edge + off + d;
                if x >= 0 && x < w {
                    img.put(x as u32, y as u32, GAP_EDGE);
                }
            }
        }
    }
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

    #[test]
    fn minimap_columns_at_take_the_max_of_each_column() {
        let (cols, max) = minimap_columns_at(&[1, 9, 2, 3, 4, 5], 0, &[0.0, 4.0, 5.0, 6.0]);
        assert_eq!(cols, vec![9, 4, 5]);
        assert_eq!(max, 9);
    }

    #[test]
    fn a_veiled_gap_is_lighter_inside_and_untouched_outside() {
        let mut img = Image::new(40, 30);
        for p in img.rgba.chunks_exact_mut(4) {
            p.copy_from_slice(&[0, 0, 0, 255]);
        }
        veil_gap(&mut img, 10, 30, 1);
        assert_eq!(img.get(20, 15)[0], 140);
        assert_eq!(img.get(2, 15), [0, 0, 0, 255]);
        assert_eq!(img.get(38, 15), [0, 0, 0, 255]);
        // Each edge is drawn on every row.
        assert!((0..30).all(|y| (7..=13).any(|x| img.get(x, y) == GAP_EDGE)));
    }
}
