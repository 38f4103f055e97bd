//! Tick values of the byte axis, shared by the page's axes overlay and the
//! CLI's charts.

/// Axis tick values: multiples of 1, 2 or 5 times a power of 1024 unit
/// (so labels read `256MiB`, not `268435456`), about `target` of them over
/// `[0, max]`.
pub fn size_ticks(max: f64, target: usize) -> Vec<f64> {
    if max <= 0.0 || !max.is_finite() {
        return vec![0.0];
    }
    let raw = max / target.max(1) as f64;
    let unit = [1.0, 1024.0, 1024.0 * 1024.0, 1024f64.powi(3), 1024f64.powi(4)]
        .into_iter()
        .rev()
        .find(|u| raw >= *u)
        .unwrap_or(1.0);
    let in_unit = raw / unit;
    let pow = 10f64.powf(in_unit.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * pow).find(|s| *s >= in_unit).unwrap_or(10.0 * pow) * unit;
    let step = step.max(1.0);
    (0..).map(|i| i as f64 * step).take_while(|v| *v <= max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_in_binary_units() {
        let t = size_ticks(1000.0 * 1024.0 * 1024.0, 6);
        assert_eq!(t[1], 200.0 * 1024.0 * 1024.0);
        assert_eq!(t.len(), 5 + 1);
        assert_eq!(size_ticks(0.0, 5), vec![0.0]);
    }
}
