//! Rasterizes the Allocator State History's segment map (memviz_core's
//! [`SegmentMap`]: rectangles in bytes along rows) into an RGBA image, and
//! maps pixels back to rows and bytes for hit testing.

use memviz_core::segment_map::{MapRect, RectKind, SegmentMap, ROW_FILL};

use crate::{Image, Rgba, BACKGROUND, OUTLINE, TABLEAU10};

/// Rounding waste and blocks waiting on another stream (memory_viz: red).
pub const WASTE: Rgba = [0xd6, 0x27, 0x28, 255];
/// Segment fill (memory_viz: white with a black outline).
pub const SEGMENT_FILL: Rgba = [255, 255, 255, 255];
/// A segment too narrow to outline.
pub const NARROW_SEGMENT: Rgba = [0x88, 0x88, 0x88, 255];
/// Outline of the hovered rectangle.
pub const HOVER: Rgba = [0xff, 0x7f, 0x0e, 255];

/// Pixel geometry of a drawn map: x pixels per byte, the row height and the
/// vertical scroll (maps with hundreds of rows scroll instead of shrinking
/// rows to nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MapGeometry {
    pub px_per_byte: f64,
    pub row_h: f64,
    pub rows: u32,
    /// Pixels scrolled down from the top row.
    pub y_off: f64,
    /// Height of the whole map in pixels.
    pub total_h: f64,
}

impl MapGeometry {
    /// Rows share the height, none taller than `max_row_h` nor shorter than
    /// `min_row_h` pixels; `y_off` is clamped to the scrollable range.
    pub fn new(map: &SegmentMap, width: u32, height: u32, max_row_h: f64, min_row_h: f64, y_off: f64) -> MapGeometry {
        let rows = map.rows.max(1);
        let px_per_byte = if map.row_width == 0 { 0.0 } else { width as f64 / map.row_width as f64 };
        let row_h = (height as f64 / rows as f64).min(max_row_h).max(min_row_h).max(1.0);
        let total_h = row_h * rows as f64;
        let y_off = if y_off.is_nan() { 0.0 } else { y_off };
        let y_off = y_off.clamp(0.0, (total_h - height as f64).max(0.0)).round();
        MapGeometry { px_per_byte, row_h, rows, y_off, total_h }
    }

    /// (row, bytes along the row, fraction down the row) of a pixel.
    pub fn to_map(&self, x: f64, y: f64) -> Option<(u32, f64, f64)> {
        let y = y + self.y_off;
        if x < 0.0 || y < 0.0 || self.px_per_byte <= 0.0 {
            return None;
        }
        let row = (y / self.row_h).floor();
        if row >= self.rows as f64 {
            return None;
        }
        Some((row as u32, x / self.px_per_byte, y / self.row_h - row))
    }

    /// Pixel box (x0, y0, x1, y1) of a rectangle in the scrolled image: at
    /// least one pixel wide so that small blocks stay visible. `None` when
    /// it is scrolled out of view (above).
    pub fn rect_px(&self, r: &MapRect) -> Option<(u32, u32, u32, u32)> {
        let x0 = (r.x * self.px_per_byte).floor().max(0.0);
        let x1 = ((r.x + r.width) * self.px_per_byte).round().max(x0 + 1.0);
        let y0 = (r.row as f64 * self.row_h).floor() - self.y_off;
        let y1 = (y0 + (self.row_h * ROW_FILL).max(1.0)).round();
        (y1 > 0.0).then_some((x0 as u32, y0.max(0.0) as u32, x1 as u32, y1 as u32))
    }

    /// Rows at least partly in view for an image `height` pixels tall.
    pub fn visible_rows(&self, height: u32) -> (u32, u32) {
        let a = (self.y_off / self.row_h).floor() as u32;
        let b = ((self.y_off + height as f64) / self.row_h).ceil() as u32;
        (a, b.min(self.rows))
    }
}

/// Fills the box clipped to the image on all four sides: a box may start
/// right of or below the image (a block past its segment's end, a row cut by
/// the scroll) and must then draw nothing.
fn fill(img: &mut Image, (x0, y0, x1, y1): (u32, u32, u32, u32), c: Rgba) {
    let (x0, x1) = (x0.min(img.width), x1.min(img.width));
    let (y0, y1) = (y0.min(img.height), y1.min(img.height));
    if x1 <= x0 {
        return;
    }
    let w = img.width as usize;
    for y in y0..y1 {
        let row = &mut img.rgba[(y as usize * w + x0 as usize) * 4..(y as usize * w + x1 as usize) * 4];
        for px in row.chunks_exact_mut(4) {
            px.copy_from_slice(&c);
        }
    }
}

fn frame(img: &mut Image, (x0, y0, x1, y1): (u32, u32, u32, u32), c: Rgba, t: u32) {
    if x1 <= x0 || y1 <= y0 {
        return;
    }
    let t = t.max(1);
    fill(img, (x0, y0, x1, (y0 + t).min(y1)), c);
    fill(img, (x0, y1.saturating_sub(t).max(y0), x1, y1), c);
    fill(img, (x0, y0, (x0 + t).min(x1), y1), c);
    fill(img, (x1.saturating_sub(t).max(x0), y0, x1, y1), c);
}

/// Draws `map` into `img` (already sized): segments white with a black
/// outline, blocks in their Tableau10 color, waste and pending frees red;
/// `hovered` (index into `map.rects`) outlined. Returns the geometry for
/// hit testing. O(rectangles + pixels).
pub fn render_segment_map(
    map: &SegmentMap,
    img: &mut Image,
    max_row_h: f64,
    outline: u32,
    hovered: Option<&[usize]>,
    y_off: f64,
) -> MapGeometry {
    let (w, h) = (img.width, img.height);
    img.reset(w, h, BACKGROUND);
    let g = MapGeometry::new(map, w, h, max_row_h, 6.0 * outline as f64, y_off);
    let (first, end) = g.visible_rows(h);
    for r in &map.rects {
        if r.row < first || r.row >= end {
            continue;
        }
        let Some(b) = g.rect_px(r) else { continue };
        match r.kind {
            // Too narrow for an outline with white inside: gray.
            RectKind::Segment if b.2 - b.0 <= 2 * outline + 1 => fill(img, b, NARROW_SEGMENT),
            RectKind::Segment => {
                fill(img, b, SEGMENT_FILL);
                frame(img, b, OUTLINE, outline);
            }
            RectKind::Block => fill(img, b, TABLEAU10[r.color as usize % 10]),
            RectKind::PendingFree | RectKind::Waste => fill(img, b, WASTE),
        }
    }
    for &i in hovered.unwrap_or(&[]) {
        if let Some(b) = map.rects.get(i).and_then(|r| g.rect_px(r)) {
            frame(img, b, HOVER, outline * 2);
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    use memviz_core::state::{State, StateBlock, StateSegment};

    fn seg(address: u128, size: u64, blocks: Vec<StateBlock>) -> StateSegment {
        StateSegment {
            address,
            size,
            stream: 0,
            pool_id: None,
            is_expandable: false,
            version: 0,
            stack: 0,
            final_segment: None,
            event: None,
            blocks,
            free_bytes: 0,
            internal_bytes: 0,
            internal_percent: None,
            gap_bytes: 0,
            largest_gap: 0,
            gap_pieces: 0,
        }
    }

    fn block(address: u128, size: u64, requested_size: u64) -> StateBlock {
        StateBlock {
            address,
            size,
            requested_size,
            pending: false,
            version: 0,
            stack: 0,
            alloc_event: None,
            final_block: None,
            free_event: None,
        }
    }

    fn state(segments: Vec<StateSegment>) -> State {
        State {
            device: 0,
            position: 0,
            event: None,
            segments,
            orphan_blocks: vec![],
            totals: Default::default(),
            free_bytes: 0,
            largest_free_bytes: 0,
            free_pieces: 0,
        }
    }

    /// Issue 9: a block that runs past its segment's end, in a row cut by
    /// the image's bottom edge (the map scrolled to it), used to start its
    /// fill right of the image and index past the pixel buffer (a wasm
    /// "unreachable" trap in the page).
    #[test]
    fn block_past_its_segment_end_in_a_row_cut_by_the_bottom_edge() {
        // Row 0: a 500-byte segment; row 1: a 1000-byte one whose block
        // starts 1500 bytes in (past its end; 150 px right of a 100 px map).
        let state = state(vec![seg(0x10000, 1000, vec![block(0x10000 + 1500, 300, 200)]), seg(0x90000, 500, vec![])]);
        let map = SegmentMap::layout(&state);
        assert_eq!(map.rows, 2);
        // Rows of 6 px in a 10 px image: row 1 covers y 6..11, cut at 10,
        // so its rectangles reach the last pixel row.
        for (w, h, y_off) in [(100, 10, 0.0), (100, 10, 2.0), (7, 9, 1.0), (1, 7, 3.0), (150, 10, 0.0)] {
            let mut img = Image::new(w, h);
            let g = render_segment_map(&map, &mut img, 100.0, 1, None, y_off);
            assert_eq!(img.rgba.len(), (w * h * 4) as usize);
            assert_eq!(g.rows, 2);
            // The segment of row 1 is drawn (outlined, or gray when too
            // narrow) from its top, where the scroll puts it, down.
            let top = (g.row_h - g.y_off) as u32;
            let want = if w <= 3 { NARROW_SEGMENT } else { OUTLINE };
            assert_eq!((g.row_h, img.get(0, top)), (6.0, want), "{w}x{h} at {y_off}");
        }
        // Hovered past-the-end rectangles too.
        let all: Vec<usize> = (0..map.rects.len()).collect();
        let mut img = Image::new(100, 10);
        render_segment_map(&map, &mut img, 100.0, 1, Some(&all), 0.0);
    }

    #[test]
    fn draws_rectangles_where_the_geometry_says() {
        // Row 0: a 500-byte segment; row 1: a 1000-byte one with a block
        // at 100 (200 requested of 300: waste 300..400).
        let block = StateBlock {
            address: 0x10000 + 100,
            size: 300,
            requested_size: 200,
            pending: false,
            version: 0,
            stack: 0,
            alloc_event: None,
            final_block: None,
            free_event: None,
        };
        let state = State {
            device: 0,
            position: 0,
            event: None,
            segments: vec![seg(0x10000, 1000, vec![block]), seg(0x90000, 500, vec![])],
            orphan_blocks: vec![],
            totals: Default::default(),
            free_bytes: 0,
            largest_free_bytes: 0,
            free_pieces: 0,
        };
        let map = SegmentMap::layout(&state);
        assert_eq!(map.rows, 2);
        let color = TABLEAU10[memviz_core::segment_map::block_color(0x10000 + 100) as usize];
        let mut img = Image::new(100, 40);
        let g = render_segment_map(&map, &mut img, 100.0, 1, None, 0.0);
        assert_eq!((g.px_per_byte, g.row_h), (0.1, 20.0));
        assert_eq!(img.get(15, 25), color);
        assert_eq!(img.get(35, 25), WASTE);
        assert_eq!(img.get(60, 25), SEGMENT_FILL);
        assert_eq!(img.get(0, 25), OUTLINE);
        // Below the row's rectangles (80%) and right of the short segment.
        assert_eq!(img.get(60, 38), BACKGROUND);
        assert_eq!(img.get(70, 5), BACKGROUND);
        assert_eq!(img.get(30, 5), SEGMENT_FILL);
        assert_eq!(g.to_map(15.0, 25.0).map(|(r, x, _)| (r, x.round())), Some((1, 150.0)));
        assert_eq!(g.to_map(15.0, 45.0), None);
        let blk = map.rects.iter().position(|r| r.kind == RectKind::Block).unwrap();
        let g = render_segment_map(&map, &mut img, 100.0, 1, Some(&[blk]), 0.0);
        assert_eq!(img.get(10, 20), HOVER);
        assert_eq!(g.rows, 2);
        // Rows at least 6 px: 2 rows of 6 in a 10 px image scroll by 2.
        let mut small = Image::new(100, 10);
        let g = render_segment_map(&map, &mut small, 100.0, 1, None, 99.0);
        assert_eq!((g.row_h, g.y_off, g.total_h), (6.0, 2.0, 12.0));
        assert_eq!(g.to_map(30.0, 5.0).map(|(r, _, _)| r), Some(1));
        assert_eq!(small.get(60, 5), SEGMENT_FILL);
        assert_eq!(small.get(15, 5), color);
    }
}
