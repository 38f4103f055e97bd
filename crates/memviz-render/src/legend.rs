//! A legend drawn into a plot's pixel buffer: a swatch and a short label
//! per entry, in one row along the top right, where the plot's headroom
//! above the peak leaves the bands uncovered. Labels use a 5x7 bitmap font
//! of the characters pool names need (the plot has no text layer of its
//! own); any other character draws as a blank.

use crate::{Image, Rgba};

const INK: Rgba = [0x33, 0x33, 0x33, 255];
const PAPER: Rgba = [255, 255, 255, 255];
const EDGE: Rgba = [0x99, 0x99, 0x99, 255];

/// Rows of a glyph, top first, 5 columns each (bit 4: leftmost).
fn glyph(c: char) -> [u8; 7] {
    let rows: [&str; 7] = match c {
        'a' => [".....", ".....", ".###.", "....#", ".####", "#...#", ".####"],
        'd' => ["....#", "....#", ".##.#", "#..##", "#...#", "#...#", ".####"],
        'e' => [".....", ".....", ".###.", "#...#", "#####", "#....", ".###."],
        'f' => ["..##.", ".#..#", ".#...", "###..", ".#...", ".#...", ".#..."],
        'i' => ["..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###."],
        'l' => [".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."],
        'o' => [".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###."],
        'p' => [".....", ".....", "####.", "#...#", "####.", "#....", "#...."],
        'r' => [".....", ".....", "#.##.", "##..#", "#....", "#....", "#...."],
        's' => [".....", ".....", ".####", "#....", ".###.", "....#", "####."],
        't' => [".#...", ".#...", "###..", ".#...", ".#...", ".#..#", "..##."],
        'u' => [".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#"],
        'v' => [".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#.."],
        '0' => [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],
        '1' => ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],
        '2' => [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],
        '3' => ["#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."],
        '4' => ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."],
        '5' => ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."],
        '6' => ["..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."],
        '7' => ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."],
        '8' => [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."],
        '9' => [".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."],
        '(' => ["...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."],
        ')' => [".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."],
        ',' => [".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."],
        '-' => [".....", ".....", ".....", "#####", ".....", ".....", "....."],
        _ => ["....."; 7],
    };
    rows.map(|r| r.bytes().fold(0u8, |acc, b| (acc << 1) | (b == b'#') as u8))
}

/// Width in pixels of `text` at `scale` (6 columns a character).
pub fn text_width(text: &str, scale: u32) -> u32 {
    (text.chars().count() as u32 * 6).saturating_sub(1) * scale
}

/// Draws `text` with its top left at (x, y), clipped to the image.
pub fn draw_text(img: &mut Image, x: u32, y: u32, text: &str, scale: u32, color: Rgba) {
    for (i, c) in text.chars().enumerate() {
        let gx = x + i as u32 * 6 * scale;
        for (r, bits) in glyph(c).iter().enumerate() {
            for col in 0..5u32 {
                if bits & (0x10 >> col) != 0 {
                    fill(img, gx + col * scale, y + r as u32 * scale, scale, scale, color);
                }
            }
        }
    }
}

fn fill(img: &mut Image, x: u32, y: u32, w: u32, h: u32, c: Rgba) {
    for yy in y..(y + h).min(img.height) {
        for xx in x..(x + w).min(img.width) {
            img.put(xx, yy, c);
        }
    }
}

/// Draws the legend `entries` (swatch color, label) at the top right of
/// `img`, `scale` pixels per font pixel (the page's device pixel ratio);
/// returns its box (x, y, w, h), None when the image is too small for it.
pub fn draw_legend(img: &mut Image, entries: &[(Rgba, String)], scale: u32) -> Option<(u32, u32, u32, u32)> {
    let s = scale.max(1);
    let (pad, sw, gap) = (4 * s, 9 * s, 12 * s);
    let width: u32 = entries.iter().map(|(_, t)| sw + 4 * s + text_width(t, s)).sum::<u32>()
        + gap * (entries.len() as u32).saturating_sub(1)
        + 2 * pad;
    let height = 7 * s + 2 * pad;
    if entries.is_empty() || width + 2 * s > img.width || height + 2 * s > img.height {
        return None;
    }
    let (x0, y0) = (img.width - width - 2 * s, 2 * s);
    fill(img, x0, y0, width, height, EDGE);
    fill(img, x0 + 1, y0 + 1, width - 2, height - 2, PAPER);
    let mut x = x0 + pad;
    for (color, text) in entries {
        fill(img, x, y0 + pad, sw, 7 * s, *color);
        x += sw + 4 * s;
        draw_text(img, x, y0 + pad, text, s, INK);
        x += text_width(text, s) + gap;
    }
    Some((x0, y0, width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_draws_swatches_and_text_inside_its_box() {
        let mut img = Image::new(300, 60);
        img.reset(300, 60, [0, 0, 0, 255]);
        let red = [255, 0, 0, 255];
        let (x, y, w, h) = draw_legend(&mut img, &[(red, "default pool".into())], 1).unwrap();
        assert_eq!((y, h), (2, 15));
        assert_eq!(w, 4 + 9 + 4 + text_width("default pool", 1) + 4);
        assert_eq!(x + w + 2, 300);
        assert_eq!(img.get(x + 4, y + 4), red);
        // 'd' has ink in its top right corner; the space after "default" none.
        let tx = x + 4 + 9 + 4;
        assert_eq!(img.get(tx + 4, y + 4), INK);
        assert!((0..7).all(|r| (0..6).all(|c| img.get(tx + 7 * 6 + c, y + 4 + r) == PAPER)));
        // Outside the box the image is untouched.
        assert_eq!(img.get(x - 1, y), [0, 0, 0, 255]);
        assert!(draw_legend(&mut Image::new(20, 10), &[(red, "x".into())], 1).is_none());
    }
}
