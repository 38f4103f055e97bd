//! The "Alive at" panel's icicle (flame) graph of the live bytes by stack:
//! root at the top, a box's width its bytes, laid out from any node (a
//! zoom: its subtree at full width), at most [`MAX_ROWS`] levels. Boxes go
//! into an RGBA [`Image`]; the labels, cut to their box at a fixed advance
//! (a monospace font), are drawn by the page's canvas over it. The What if
//! chart's lines are axis-aligned too: [`fill_rect`] and [`step_line`].

use crate::{Image, Rgba};

/// A row's height in CSS pixels.
pub const ROW: f64 = 18.0;
/// Levels shown at most.
pub const MAX_ROWS: u32 = 28;
/// The labels' font at 1 CSS pixel a pixel (the page scales its size).
pub const FONT_PX: f64 = 11.0;
/// The root's color ("all").
const ROOT: Rgba = [0xbb, 0xbb, 0xbb, 255];

/// A stack-tree node, parents before their children.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    pub id: u32,
    /// `u32::MAX` for the tree's root.
    pub parent: u32,
    pub depth: u32,
    /// `filename:line:name`.
    pub frame: &'a str,
    pub bytes: u64,
}

/// A node's box in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeBox {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    /// Its node's index in the tree.
    pub node: usize,
}

/// A label at CSS (x, y): its left edge, its middle.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    pub text: String,
    pub x: f64,
    pub y: f64,
}

/// The icicle laid out at one width.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub boxes: Vec<NodeBox>,
    pub labels: Vec<Label>,
    /// CSS pixels: its levels (at most [`MAX_ROWS`]) times [`ROW`].
    pub height: f64,
    /// Index of the node laid out at the top.
    pub root: usize,
}

/// Lays `tree` out `width` CSS px wide from node `zoom` (the whole tree when
/// absent or not in it); labels at `char_w` px a character. None when there
/// is nothing alive.
pub fn layout(tree: &[Node], zoom: Option<u32>, width: f64, char_w: f64) -> Option<Layout> {
    let top = tree.iter().position(|n| n.parent == u32::MAX).unwrap_or(0);
    let root = zoom.and_then(|z| tree.iter().position(|n| n.id == z)).unwrap_or(top);
    let r = tree.get(root).filter(|r| r.bytes > 0)?;
    // (x of the node, x of its next child) by id: the subtree's nodes only
    // (parents come first, so a node is in it when its parent is).
    let mut pos: std::collections::HashMap<u32, (f64, f64)> = [(r.id, (0.0, 0.0))].into();
    let scale = width / r.bytes as f64;
    let mut boxes = vec![NodeBox { x: 0.0, y: 0.0, w: width, node: root }];
    let mut depth = 1;
    for (i, n) in tree.iter().enumerate() {
        if n.depth <= r.depth {
            continue;
        }
        let Some(p) = pos.get_mut(&n.parent) else { continue };
        let (x, w) = (p.1, n.bytes as f64 * scale);
        p.1 += w;
        pos.insert(n.id, (x, x));
        let level = n.depth - r.depth;
        depth = depth.max(level + 1);
        if level < MAX_ROWS {
            boxes.push(NodeBox { x, y: level as f64 * ROW, w, node: i });
        }
    }
    let labels = boxes
        .iter()
        .filter(|b| b.w > 30.0)
        .map(|b| Label { text: label(tree[b.node].frame, b.w, char_w), x: b.x + 3.0, y: b.y + ROW / 2.0 })
        .collect();
    Some(Layout { boxes, labels, height: depth.min(MAX_ROWS) as f64 * ROW, root })
}

/// A frame's label for a box `w` px wide: its file's basename on, cut with
/// "…" to what fits at `char_w` px a character.
pub fn label(frame: &str, w: f64, char_w: f64) -> String {
    let text = &frame[frame.rfind('/').map_or(0, |i| i + 1)..];
    let fit = ((w - 6.0) / char_w.max(1.0)).floor().max(0.0) as usize;
    if text.chars().count() <= fit {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(fit.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The box under CSS (x, y).
pub fn hit(l: &Layout, x: f64, y: f64) -> Option<&NodeBox> {
    l.boxes.iter().find(|b| x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + ROW)
}

/// A frame's color: warm, from a hash of its last 32 bytes (its line and
/// function), so a frame keeps its color across moments and zooms.
pub fn color(frame: &str) -> Rgba {
    let tail = &frame.as_bytes()[frame.len().saturating_sub(32)..];
    let h = tail.iter().fold(0u32, |h, &c| h.wrapping_mul(31).wrapping_add(c as u32));
    // Saturation and lightness from the hash read as a signed 32-bit number
    // (as the page's JavaScript had it: the colours stay as they were).
    let signed = h as i32;
    let hue = 20.0 + (h % 40) as f64;
    let s = (60 + (signed >> 8) % 30) as f64 / 100.0;
    let l = (55 + (signed >> 16) % 20) as f64 / 100.0;
    hsl(hue, s, l)
}

fn hsl(h: f64, s: f64, l: f64) -> Rgba {
    let a = s * l.min(1.0 - l);
    let f = |n: f64| {
        let k = (n + h / 30.0) % 12.0;
        let v = l - a * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0);
        (v * 255.0).round() as u8
    };
    [f(0.0), f(8.0), f(4.0), 255]
}

/// Draws `l`'s boxes into `img` (cleared to transparent, sized to the
/// layout at `dpr` device pixels a CSS pixel), a pixel's gap between boxes.
pub fn draw(tree: &[Node], l: &Layout, width: f64, dpr: f64, img: &mut Image) {
    img.reset((width * dpr).round() as u32, (l.height * dpr).round() as u32, [0, 0, 0, 0]);
    for b in l.boxes.iter().filter(|b| b.w >= 0.5) {
        let n = &tree[b.node];
        let c = if n.parent == u32::MAX { ROOT } else { color(n.frame) };
        fill_rect(img, b.x * dpr, b.y * dpr, (b.w - 1.0).max(0.5) * dpr, (ROW - 1.0) * dpr, c);
    }
}

/// Fills device pixels [x, x + w) × [y, y + h) (a pixel covered when its
/// center is; at least one pixel wide and high).
pub fn fill_rect(img: &mut Image, x: f64, y: f64, w: f64, h: f64, c: Rgba) {
    let span = |a: f64, len: f64, max: u32| {
        if a + len < 0.0 || a > max as f64 {
            return (0, 0); // off the image (an overlay zoomed in)
        }
        // A line on the far edge (an OOM at the last event) stays in sight.
        let a0 = a.round().clamp(0.0, (max as f64 - 1.0).max(0.0));
        let a1 = (a + len).round().max(a0 + 1.0).min(max as f64);
        (a0 as u32, a1.max(a0) as u32)
    };
    let ((x0, x1), (y0, y1)) = (span(x, w, img.width), span(y, h, img.height));
    for y in y0..y1 {
        let row = (y as usize * img.width as usize) * 4;
        for px in img.rgba[row + x0 as usize * 4..row + x1 as usize * 4].chunks_exact_mut(4) {
            px.copy_from_slice(&c);
        }
    }
}

/// A line `width` device px thick through `points` (device px), each
/// segment horizontal or vertical (a step line); `dash`: on and off lengths
/// along horizontal segments (None: solid). Other segments are drawn as
/// their bounding box's horizontal then vertical leg.
pub fn step_line(img: &mut Image, points: &[(f64, f64)], width: f64, c: Rgba, dash: Option<(f64, f64)>) {
    let half = width / 2.0;
    for s in points.windows(2) {
        let ((ax, ay), (bx, by)) = (s[0], s[1]);
        let (x0, x1) = (ax.min(bx), ax.max(bx));
        match dash {
            Some((on, off)) if on > 0.0 => {
                let mut x = x0;
                while x < x1 {
                    fill_rect(img, x, ay - half, on.min(x1 - x), width, c);
                    x += on + off;
                }
            }
            _ => fill_rect(img, x0 - half, ay - half, x1 - x0 + width, width, c),
        }
        if ay != by {
            fill_rect(img, bx - half, ay.min(by) - half, width, (ay - by).abs() + width, c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Vec<Node<'static>> {
        vec![
            Node { id: 0, parent: u32::MAX, depth: 0, frame: "all", bytes: 100 },
            Node { id: 1, parent: 0, depth: 1, frame: "/a/train.py:10:step", bytes: 75 },
            Node { id: 2, parent: 0, depth: 1, frame: "/a/model.py:3:forward", bytes: 25 },
            Node { id: 3, parent: 1, depth: 2, frame: "/a/x.py:1:f", bytes: 50 },
        ]
    }

    #[test]
    fn lays_out_by_bytes_and_zooms() {
        let t = tree();
        let l = layout(&t, None, 400.0, 6.6).unwrap();
        let xs: Vec<(f64, f64, f64)> = l.boxes.iter().map(|b| (b.x, b.y, b.w)).collect();
        assert_eq!(xs, [(0.0, 0.0, 400.0), (0.0, 18.0, 300.0), (300.0, 18.0, 100.0), (0.0, 36.0, 200.0)]);
        assert_eq!(l.height, 54.0);
        assert_eq!(hit(&l, 310.0, 20.0).map(|b| t[b.node].id), Some(2));
        assert_eq!(hit(&l, 310.0, 40.0), None);
        // Zoomed into node 1: it spans the width, its child two thirds.
        let z = layout(&t, Some(1), 300.0, 6.6).unwrap();
        assert_eq!(z.boxes.iter().map(|b| (t[b.node].id, b.w)).collect::<Vec<_>>(), [(1, 300.0), (3, 200.0)]);
        assert_eq!(z.height, 36.0);
        assert!(layout(&[Node { bytes: 0, ..t[0] }], None, 300.0, 6.6).is_none());
    }

    #[test]
    fn labels_cut_to_their_box() {
        assert_eq!(label("/a/train.py:10:step", 400.0, 6.0), "train.py:10:step");
        // (40 - 6) / 6 = 5 characters: 4 and "…".
        assert_eq!(label("/a/train.py:10:step", 40.0, 6.0), "trai…");
    }

    #[test]
    fn draws_boxes_in_their_colors() {
        let t = tree();
        let l = layout(&t, None, 400.0, 6.6).unwrap();
        let mut img = Image::new(1, 1);
        draw(&t, &l, 400.0, 2.0, &mut img);
        assert_eq!((img.width, img.height), (800, 108));
        assert_eq!(img.get(10, 10), ROOT);
        assert_eq!(img.get(700, 40), color("/a/model.py:3:forward"));
        // The gap after a box, and below the deepest row's boxes.
        assert_eq!(img.get(599, 40)[3], 0);
        assert_eq!(img.get(500, 80)[3], 0);
        // hsl(20, 60%, 55%) as Python's colorsys computes it; the frame's
        // colour as the page's JavaScript had it: hsl(34, 41%, 40%).
        assert_eq!(hsl(20.0, 0.6, 0.55), [209, 117, 71, 255]);
        assert_eq!(color("??:0:__libc_init_first"), [144, 108, 60, 255]);
    }

    #[test]
    fn step_lines_fill_their_segments() {
        let mut img = Image::new(20, 20);
        img.reset(20, 20, [0, 0, 0, 0]);
        step_line(&mut img, &[(0.0, 5.0), (10.0, 5.0), (10.0, 15.0), (20.0, 15.0)], 2.0, [1, 2, 3, 255], None);
        assert_eq!(img.get(5, 5), [1, 2, 3, 255]);
        assert_eq!(img.get(10, 10), [1, 2, 3, 255]);
        assert_eq!(img.get(15, 15), [1, 2, 3, 255]);
        assert_eq!(img.get(5, 10)[3], 0);
        // Off the image: nothing; on its far edge: its last column.
        let mut off = Image::new(20, 20);
        off.reset(20, 20, [0, 0, 0, 0]);
        step_line(&mut off, &[(-30.0, 5.0), (-10.0, 5.0), (-10.0, 15.0)], 2.0, [1, 2, 3, 255], None);
        assert!(off.rgba.iter().all(|&b| b == 0));
        fill_rect(&mut off, 19.5, 0.0, 1.0, 20.0, [1, 2, 3, 255]);
        assert_eq!(off.get(19, 10), [1, 2, 3, 255]);
    }
}
