//! The Active Memory Timeline explained: bands colored by allocation, by
//! kind or by innermost user frame (one color per element, looked up while
//! rasterizing), the allocations of one stack-tree node highlighted and the
//! rest dimmed, and the categorized stacked area (bytes per kind over the
//! steps).

use memviz_core::analysis::{Analysis, Kind};

use crate::{band_color, Columns, Image, Rgba, BACKGROUND, NO_STEP};

/// One color per kind, in [`Kind::ALL`]'s order (parameter, gradient,
/// optimizer state, activation, autograd saved, temporary, other).
pub const KIND_COLORS: [Rgba; Kind::ALL.len()] = [
    [0x4e, 0x79, 0xa7, 255],
    [0xf2, 0x8e, 0x2c, 255],
    [0x59, 0xa1, 0x4f, 255],
    [0xe1, 0x57, 0x59, 255],
    [0xb0, 0x7a, 0xa1, 255],
    [0xed, 0xc9, 0x49, 255],
    [0xba, 0xb0, 0xab, 255],
];

/// Bands outside the highlighted stack-tree node.
pub const DIMMED: Rgba = [0xe8, 0xe8, 0xe8, 255];

/// Tableau20: stack-frame colors (more than ten, so neighbors rarely share).
const TABLEAU20: [Rgba; 20] = [
    [0x1f, 0x77, 0xb4, 255],
    [0xae, 0xc7, 0xe8, 255],
    [0xff, 0x7f, 0x0e, 255],
    [0xff, 0xbb, 0x78, 255],
    [0x2c, 0xa0, 0x2c, 255],
    [0x98, 0xdf, 0x8a, 255],
    [0xd6, 0x27, 0x28, 255],
    [0xff, 0x98, 0x96, 255],
    [0x94, 0x67, 0xbd, 255],
    [0xc5, 0xb0, 0xd5, 255],
    [0x8c, 0x56, 0x4b, 255],
    [0xc4, 0x9c, 0x94, 255],
    [0xe3, 0x77, 0xc2, 255],
    [0xf7, 0xb6, 0xd2, 255],
    [0x7f, 0x7f, 0x7f, 255],
    [0xc7, 0xc7, 0xc7, 255],
    [0xbc, 0xbd, 0x22, 255],
    [0xdb, 0xdb, 0x8d, 255],
    [0x17, 0xbe, 0xcf, 255],
    [0x9e, 0xda, 0xe5, 255],
];

/// The color of a frame id (stable within one analysis).
pub fn frame_color(frame: u32) -> Rgba {
    // A multiplicative hash: consecutive ids land far apart in the palette.
    TABLEAU20[(frame.wrapping_mul(0x9e37_79b9) >> 27) as usize % TABLEAU20.len()]
}

/// What a band's color says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorBy {
    /// memory_viz's colors: element index mod 10.
    #[default]
    Allocation,
    /// The kind (parameter, gradient, ...).
    Category,
    /// The innermost user frame.
    Frame,
}

impl ColorBy {
    /// `allocation`, `category` (or `kind`), `frame` (or `stack`).
    pub fn from_name(s: &str) -> Option<ColorBy> {
        Some(match s {
            "allocation" => ColorBy::Allocation,
            "category" | "kind" => ColorBy::Category,
            "frame" | "stack" | "stack_frame" => ColorBy::Frame,
            _ => return None,
        })
    }
}

/// One color per element of `a` (the Active Memory Timeline's elements):
/// by `by`, and where `highlight` is given, [`DIMMED`] for every element it
/// does not mark.
pub fn element_colors(a: &Analysis, by: ColorBy, highlight: Option<&[bool]>) -> Vec<Rgba> {
    (0..a.element_count())
        .map(|e| {
            if highlight.is_some_and(|h| !h.get(e as usize).copied().unwrap_or(false)) {
                return DIMMED;
            }
            match by {
                ColorBy::Allocation => band_color(e),
                ColorBy::Category => a.kind_of(e).map_or(DIMMED, |(k, _)| KIND_COLORS[k as usize]),
                ColorBy::Frame => a.user_frame_of(e).map_or(DIMMED, frame_color),
            }
        })
        .collect()
}

/// The stacked area: for each column, `values(step)` (bytes per layer,
/// bottom first) stacked with `colors`; `y_max` bytes at the top edge.
/// Rows are filled like the bands (a row takes the layer covering its
/// center), so the area's outline is the timeline's total.
pub fn render_area<const K: usize>(
    cols: &Columns,
    mut values: impl FnMut(u32) -> [u64; K],
    colors: &[Rgba; K],
    y_max: u64,
    img: &mut Image,
) {
    let (w, h) = (img.width, img.height);
    img.reset(w, h, BACKGROUND);
    if h == 0 || y_max == 0 {
        return;
    }
    let px_per_byte = h as f64 / y_max as f64;
    let mut prev: Option<(u32, [u32; K])> = None;
    for c in 0..w.min(cols.step.len() as u32) {
        let step = cols.step[c as usize];
        if step == NO_STEP {
            continue;
        }
        // Row where each layer ends (from the bottom), reused while zoomed in
        // past one step per column.
        let ends = match prev {
            Some((s, ends)) if s == step => ends,
            _ => {
                let v = values(step);
                let mut ends = [0u32; K];
                let mut top = 0u64;
                for (i, b) in v.iter().enumerate() {
                    top = top.saturating_add(*b);
                    ends[i] = ((top as f64 * px_per_byte + 0.5).floor() as i64).clamp(0, h as i64) as u32;
                }
                prev = Some((step, ends));
                ends
            }
        };
        let mut from = 0u32;
        for (i, &end) in ends.iter().enumerate() {
            for r in from..end {
                img.put(c, h - 1 - r, colors[i]);
            }
            from = from.max(end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area_stacks_layers_bottom_first() {
        // 4 columns, one step each; 100 bytes over 100 rows.
        let cols = Columns { step: vec![0, 1, 2, NO_STEP], max_total: 60 };
        let v = |s: u32| -> [u64; 3] {
            match s {
                0 => [10, 20, 30],
                1 => [0, 0, 50],
                _ => [40, 0, 0],
            }
        };
        let colors = [[1, 0, 0, 255], [0, 1, 0, 255], [0, 0, 1, 255]];
        let mut img = Image::new(4, 100);
        render_area(&cols, v, &colors, 100, &mut img);
        let at = |x: u32, r: u32| img.get(x, 99 - r); // r: row from the bottom
        assert_eq!(at(0, 0), colors[0]);
        assert_eq!(at(0, 9), colors[0]);
        assert_eq!(at(0, 10), colors[1]);
        assert_eq!(at(0, 29), colors[1]);
        assert_eq!(at(0, 30), colors[2]);
        assert_eq!(at(0, 59), colors[2]);
        assert_eq!(at(0, 60), BACKGROUND);
        assert_eq!(at(1, 0), colors[2]);
        assert_eq!(at(1, 49), colors[2]);
        assert_eq!(at(1, 50), BACKGROUND);
        assert_eq!(at(2, 39), colors[0]);
        assert_eq!(at(2, 40), BACKGROUND);
        assert!((0..100).all(|r| at(3, r) == BACKGROUND));
        // Sizes near 2^64 saturate instead of wrapping.
        let mut img = Image::new(1, 10);
        render_area(
            &Columns { step: vec![0], max_total: 0 },
            |_| [u64::MAX, u64::MAX],
            &colors[..2].try_into().unwrap(),
            10,
            &mut img,
        );
        assert_eq!(img.get(0, 0), colors[0]);
    }

    #[test]
    fn names_and_frame_colors() {
        assert_eq!(ColorBy::from_name("category"), Some(ColorBy::Category));
        assert_eq!(ColorBy::from_name("frame"), Some(ColorBy::Frame));
        assert_eq!(ColorBy::from_name("allocation"), Some(ColorBy::Allocation));
        assert_eq!(ColorBy::from_name("x"), None);
        assert_eq!(frame_color(7), frame_color(7));
        assert_ne!(frame_color(1), frame_color(2));
    }
}
