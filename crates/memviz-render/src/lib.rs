//! Rasterizes memviz's timeline views into an RGBA pixel buffer.
//!
//! Drawing 100k bands as canvas shapes costs 100-200 ms a frame; filling a
//! pixel buffer here and handing it to the canvas in one `putImageData` costs
//! a few ms. The plot is drawn per pixel column: each column shows the step
//! with the largest total in the column's step range (so peaks never vanish
//! when zoomed out), and the bands live at that step are walked bottom to top
//! filling pixel runs. Only the visible window is touched.
//!
//! No browser dependency: everything here is unit-tested natively.

use memviz_core::timeline::{DetailView, Timeline};

pub mod axis;
pub mod explain;
pub mod icicle;
pub mod legend;
pub mod mapped_x;
pub mod pools;
pub mod profiler;
pub mod segment_map;

/// An RGBA color.
pub type Rgba = [u8; 4];

/// Tableau10, the palette memory_viz colors bands with (element index % 10).
pub const TABLEAU10: [Rgba; 10] = [
    [0x4e, 0x79, 0xa7, 255],
    [0xf2, 0x8e, 0x2c, 255],
    [0xe1, 0x57, 0x59, 255],
    [0x76, 0xb7, 0xb2, 255],
    [0x59, 0xa1, 0x4f, 255],
    [0xed, 0xc9, 0x49, 255],
    [0xaf, 0x7a, 0xa1, 255],
    [0xff, 0x9d, 0xa7, 255],
    [0x9c, 0x75, 0x5f, 255],
    [0xba, 0xb0, 0xab, 255],
];
pub const BACKGROUND: Rgba = [255, 255, 255, 255];
pub const OUTLINE: Rgba = [0, 0, 0, 255];
/// The summarized band: two light grays in diagonal stripes, so it reads as
/// "many small allocations" and never as one more band.
pub const SUMMARIZED: [Rgba; 2] = [[0xd9, 0xd9, 0xd9, 255], [0xc4, 0xc4, 0xc4, 255]];
pub const MINIMAP_FILL: Rgba = [0x4e, 0x79, 0xa7, 255];
pub const MINIMAP_DIM: Rgba = [0xee, 0xee, 0xee, 255];
pub const PEAK: Rgba = [0xd6, 0x27, 0x28, 255];

/// Marks a column that shows no step (past the end of the trace).
pub const NO_STEP: u32 = u32::MAX;

pub fn band_color(elem: u32) -> Rgba {
    TABLEAU10[(elem % 10) as usize]
}

/// What the rasterizer needs from a view: per step, the total and the bands
/// bottom to top. Implemented for the core's timeline; tests use their own.
pub trait BandSource {
    fn n_steps(&self) -> u32;
    /// Everything stacked at `step` (drawn bands + summarized).
    fn total(&self, step: u32) -> u64;
    /// Bytes of the summarized band at `step`; it sits on top.
    fn summarized(&self, step: u32) -> u64;
    /// Calls `f(elem, offset, size)` for each drawn band live at `step`,
    /// bottom to top.
    fn bands_at<F: FnMut(u32, u64, u64)>(&self, step: u32, f: F);
    /// As `bands_at`, but `f` returns the lowest band top (bytes from the
    /// bottom) it still needs to see: a source may pass over runs of bands
    /// whose tops all stay below it in one step. The band of element `keep`
    /// is never passed over.
    fn bands_reaching<F: FnMut(u32, u64, u64) -> u64>(&self, step: u32, keep: Option<u32>, mut f: F) {
        let _ = keep;
        self.bands_at(step, |e, o, s| {
            f(e, o, s);
        });
    }
    /// The offset and size of element `elem`'s band at `step`, if it is
    /// drawn and live there. Asked for every column when the hovered band
    /// is outlined: a source may answer without walking the bands.
    fn band_of(&self, step: u32, elem: u32) -> Option<(u64, u64)> {
        let mut found = None;
        self.bands_at(step, |e, o, s| {
            if e == elem {
                found = Some((o, s));
            }
        });
        found
    }
}

/// The drawn elements of a timeline at a detail limit, laid out for a left
/// to right sweep: ranked by stack order, which is also the order in which
/// they appear (the replay pushes an element at its first step), and listed
/// by the step where they vanish. Built once per detail limit in
/// O(elements), whatever the number of steps: a sweep walks the bands that
/// appear and vanish, never the steps between them.
#[derive(Debug, Clone, Default)]
pub struct BandIndex {
    /// Drawn elements by rank (stack order, bottom first).
    elem: Vec<u32>,
    size: Vec<u64>,
    /// First step of each rank: never decreasing.
    x0: Vec<u32>,
    /// The step from which each rank is no longer live.
    x1: Vec<u32>,
    /// Ranks by `x1` (ties by rank), and their `x1` in that order (read in
    /// sequence by the sweep, not looked up by rank).
    by_x1: Vec<u32>,
    x1_sorted: Vec<u32>,
}

impl BandIndex {
    pub fn new(tl: &Timeline, dv: &DetailView) -> BandIndex {
        let n_steps = tl.n_steps();
        let mut ix = BandIndex::default();
        for &e in &tl.by_order {
            let el = &tl.elements[e as usize];
            if dv.is_drawn(e) && el.x0 < el.x1 && el.x0 < n_steps {
                ix.elem.push(e);
                ix.size.push(el.size);
                ix.x0.push(el.x0);
                ix.x1.push(el.x1.min(n_steps));
            }
        }
        debug_assert!(ix.x0.is_sorted(), "stack order is the order of first steps");
        ix.by_x1 = ranks_by(&ix.x1);
        ix.x1_sorted = ix.by_x1.iter().map(|&r| ix.x1[r as usize]).collect();
        ix
    }
}

/// The indices of `key` ordered by key, ties in index order: a stable radix
/// sort (`memviz_core::radix`) of `(key, index)` on the key's bytes, low
/// first (O(n), where a comparison sort of a million ranks took tens of ms).
fn ranks_by(key: &[u32]) -> Vec<u32> {
    let mut keyed: Vec<u64> = key.iter().enumerate().map(|(i, &k)| (k as u64) << 32 | i as u64).collect();
    let mut scratch = Vec::new();
    for byte in 0..4 {
        memviz_core::radix::pass(&mut keyed, &mut scratch, 32 + 8 * byte);
    }
    keyed.into_iter().map(|k| k as u32).collect()
}

/// A timeline at a detail limit, swept left to right: the live bands of the
/// previous column are kept in a bitset over ranks and updated by the steps
/// in between, so a column costs O(live / 64 + live) instead of a stabbing
/// query.
pub struct TimelineBands<'a> {
    pub timeline: &'a Timeline,
    pub detail: &'a DetailView,
    pub index: &'a BandIndex,
    sweep: std::cell::RefCell<Sweep>,
}

#[derive(Default)]
struct Sweep {
    step: Option<u32>,
    live: Vec<u64>,
    /// Bytes of the live bands of each 64-rank word of `live`: a column
    /// passes over a whole word when its top stays below the next pixel row.
    word_bytes: Vec<u64>,
    /// Bit w of `nonempty[g]`: word 64g + w of `live` has a live band; and
    /// the bytes of each group of 64 words. Most words of a busy column are
    /// empty or thin, so a column visits groups, then only non-empty words.
    nonempty: Vec<u64>,
    group_bytes: Vec<u64>,
    /// The element never passed over, and its rank.
    keep: Option<(u32, Option<usize>)>,
    /// Ranks that appeared by `step` (those of `x0 <= step`), and the
    /// length of the prefix of `by_x1` that stopped by it.
    appeared: usize,
    vanished: usize,
}

impl<'a> TimelineBands<'a> {
    pub fn new(timeline: &'a Timeline, detail: &'a DetailView, index: &'a BandIndex) -> Self {
        TimelineBands { timeline, detail, index, sweep: Default::default() }
    }

    /// Moves the sweep to `step`: the bands live there, and the bytes of
    /// each word and group of them.
    fn sweep_to(&self, sw: &mut Sweep, step: u32) {
        let ix = self.index;
        let words = ix.elem.len().div_ceil(64);
        match sw.step {
            Some(s) if s <= step => {
                // Bands that stopped by `step`: live ones leave (one that
                // appeared and stopped since `s` was never set).
                while let Some(&x1) = ix.x1_sorted.get(sw.vanished) {
                    if x1 > step {
                        break;
                    }
                    let r = ix.by_x1[sw.vanished];
                    sw.vanished += 1;
                    let (w, bit) = (r as usize / 64, 1u64 << (r % 64));
                    if sw.live[w] & bit != 0 {
                        sw.live[w] &= !bit;
                        sw.word_bytes[w] = sw.word_bytes[w].wrapping_sub(ix.size[r as usize]);
                        sw.group_bytes[w / 64] = sw.group_bytes[w / 64].wrapping_sub(ix.size[r as usize]);
                        if sw.live[w] == 0 {
                            sw.nonempty[w / 64] &= !(1u64 << (w % 64));
                        }
                    }
                }
                // Bands that appeared since `s` and are still live at `step`.
                while let Some(&x0) = ix.x0.get(sw.appeared) {
                    if x0 > step {
                        break;
                    }
                    let r = sw.appeared;
                    sw.appeared += 1;
                    let (w, bit) = (r / 64, 1u64 << (r % 64));
                    if ix.x1[r] > step && sw.live[w] & bit == 0 {
                        sw.live[w] |= bit;
                        sw.word_bytes[w] = sw.word_bytes[w].wrapping_add(ix.size[r]);
                        sw.group_bytes[w / 64] = sw.group_bytes[w / 64].wrapping_add(ix.size[r]);
                        sw.nonempty[w / 64] |= 1u64 << (w % 64);
                    }
                }
            }
            _ => {
                sw.live.clear();
                sw.live.resize(words, 0);
                sw.word_bytes.clear();
                sw.word_bytes.resize(words, 0);
                sw.nonempty.clear();
                sw.nonempty.resize(words.div_ceil(64), 0);
                sw.group_bytes.clear();
                sw.group_bytes.resize(words.div_ceil(64), 0);
                for r in 0..ix.elem.len() {
                    if ix.x0[r] <= step && step < ix.x1[r] {
                        let w = r / 64;
                        sw.live[w] |= 1u64 << (r % 64);
                        sw.word_bytes[w] = sw.word_bytes[w].wrapping_add(ix.size[r]);
                        sw.group_bytes[w / 64] = sw.group_bytes[w / 64].wrapping_add(ix.size[r]);
                        sw.nonempty[w / 64] |= 1u64 << (w % 64);
                    }
                }
                sw.appeared = ix.x0.partition_point(|&x0| x0 <= step);
                sw.vanished = ix.x1_sorted.partition_point(|&x1| x1 <= step);
            }
        }
        sw.step = Some(step);
    }
}

impl BandSource for TimelineBands<'_> {
    fn n_steps(&self) -> u32 {
        self.timeline.n_steps()
    }
    fn total(&self, step: u32) -> u64 {
        self.timeline.total.get(step as usize).copied().unwrap_or(0)
    }
    /// The total less the drawn bands' bytes, from the sweep's sums (the
    /// detail view's per-step array is not built for the plot).
    fn summarized(&self, step: u32) -> u64 {
        if step >= self.n_steps() {
            return 0;
        }
        let mut sw = self.sweep.borrow_mut();
        self.sweep_to(&mut sw, step);
        let drawn = sw.group_bytes.iter().fold(0u64, |a, &b| a.wrapping_add(b));
        self.total(step).wrapping_sub(drawn)
    }
    fn bands_at<F: FnMut(u32, u64, u64)>(&self, step: u32, mut f: F) {
        self.bands_reaching(step, None, |e, o, s| {
            f(e, o, s);
            0
        });
    }

    fn bands_reaching<F: FnMut(u32, u64, u64) -> u64>(&self, step: u32, keep: Option<u32>, mut f: F) {
        let ix = self.index;
        if step >= self.n_steps() {
            return;
        }
        let mut sw = self.sweep.borrow_mut();
        self.sweep_to(&mut sw, step);
        if sw.keep.map(|k| k.0) != keep {
            sw.keep = keep.map(|e| (e, ix.elem.iter().position(|&x| x == e)));
        }
        let keep_rank = sw.keep.and_then(|k| k.1);
        let keep_word = keep_rank.map(|r| r / 64);
        let mut need = 0u64;
        let mut offset = 0u64;
        for (g, &words_bits) in sw.nonempty.iter().enumerate() {
            let group_top = offset.wrapping_add(sw.group_bytes[g]);
            if group_top < need && keep_word.map(|w| w / 64) != Some(g) {
                offset = group_top;
                continue;
            }
            let mut wb = words_bits;
            while wb != 0 {
                let w = g * 64 + wb.trailing_zeros() as usize;
                wb &= wb - 1;
                let word_top = offset.wrapping_add(sw.word_bytes[w]);
                if word_top < need && Some(w) != keep_word {
                    offset = word_top;
                    continue;
                }
                let mut b = sw.live[w];
                while b != 0 {
                    let r = w * 64 + b.trailing_zeros() as usize;
                    b &= b - 1;
                    let size = ix.size[r];
                    // A band below `need` is passed over here, before its
                    // element is read: most bands of a busy column are.
                    if offset.saturating_add(size) < need && Some(r) != keep_rank {
                        offset = offset.wrapping_add(size);
                        continue;
                    }
                    need = f(ix.elem[r], offset, size);
                    offset = offset.wrapping_add(size);
                }
            }
        }
    }

    /// The bytes below the element's rank, from the sweep's sums: groups,
    /// then words, then bits, not every live band (O(live / 4096 + 128)).
    fn band_of(&self, step: u32, elem: u32) -> Option<(u64, u64)> {
        let (ix, tl) = (self.index, self.timeline);
        // Ranks are in stack order.
        let order = tl.elements.get(elem as usize)?.order;
        let r = ix.elem.binary_search_by_key(&order, |&e| tl.elements[e as usize].order).ok()?;
        if ix.elem[r] != elem || !(ix.x0[r] <= step && step < ix.x1[r]) {
            return None;
        }
        let mut sw = self.sweep.borrow_mut();
        self.sweep_to(&mut sw, step);
        let (w, g) = (r / 64, r / 4096);
        let mut offset = sw.group_bytes[..g].iter().fold(0u64, |a, &b| a.wrapping_add(b));
        let mut wb = sw.nonempty[g] & ((1u64 << (w % 64)) - 1);
        while wb != 0 {
            offset = offset.wrapping_add(sw.word_bytes[g * 64 + wb.trailing_zeros() as usize]);
            wb &= wb - 1;
        }
        let mut b = sw.live[w] & ((1u64 << (r % 64)) - 1);
        while b != 0 {
            offset = offset.wrapping_add(ix.size[w * 64 + b.trailing_zeros() as usize]);
            b &= b - 1;
        }
        Some((offset, ix.size[r]))
    }
}

/// The x window shown, in steps: `[x0, x1)`, fractional when zoomed in
/// further than one step per pixel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub x0: f64,
    pub x1: f64,
}

impl Default for Window {
    fn default() -> Self {
        Window::full(1)
    }
}

impl Window {
    pub fn full(n_steps: u32) -> Window {
        Window { x0: 0.0, x1: n_steps.max(1) as f64 }
    }

    /// Keeps the window inside `[0, n_steps)` and at least `min_span` wide
    /// (a few steps: zooming further shows nothing new).
    pub fn clamped(self, n_steps: u32, min_span: f64) -> Window {
        let n = n_steps.max(1) as f64;
        let mut span = (self.x1 - self.x0).clamp(min_span.min(n), n);
        if !span.is_finite() {
            span = n;
        }
        let mut x0 = if self.x0.is_finite() { self.x0 } else { 0.0 };
        x0 = x0.clamp(0.0, n - span);
        Window { x0, x1: x0 + span }
    }

    /// Zooms by `factor` (< 1 zooms in) around the step at fraction `at` of
    /// the width.
    pub fn zoom(self, factor: f64, at: f64) -> Window {
        let span = self.x1 - self.x0;
        let pivot = self.x0 + span * at;
        let new_span = span * factor;
        Window { x0: pivot - new_span * at, x1: pivot - new_span * at + new_span }
    }

    /// Moves by `frac` of the width (positive moves right, to later steps).
    pub fn pan(self, frac: f64) -> Window {
        let d = (self.x1 - self.x0) * frac;
        Window { x0: self.x0 + d, x1: self.x1 + d }
    }
}

/// The step each pixel column shows and the largest total among them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Columns {
    /// Step per column, or [`NO_STEP`].
    pub step: Vec<u32>,
    /// Largest total over the shown steps: the y axis fits it.
    pub max_total: u64,
}

/// Picks, for each of `width` columns, the step with the largest total in
/// the column's step range (the first such step on ties). Costs
/// O(visible steps + width).
pub fn pick_columns<S: BandSource>(src: &S, win: Window, width: u32) -> Columns {
    let n = src.n_steps();
    let mut cols = Columns { step: vec![NO_STEP; width as usize], max_total: 0 };
    if n == 0 || width == 0 {
        return cols;
    }
    let per_px = (win.x1 - win.x0) / width as f64;
    for c in 0..width {
        let a = win.x0 + c as f64 * per_px;
        let b = a + per_px;
        let lo = a.floor().max(0.0);
        // Steps whose start lies in [a, b); at least the step under `a`.
        let hi = (b.ceil()).max(lo + 1.0);
        if lo >= n as f64 {
            continue;
        }
        let (lo, hi) = (lo as u32, (hi.min(n as f64)) as u32);
        let (best, best_total) = tallest_step(src, lo, hi);
        cols.step[c as usize] = best;
        cols.max_total = cols.max_total.max(best_total);
    }
    cols
}

/// The step of `lo..hi` (`lo < hi`) with the largest total, the first on
/// ties, and that total: one column's pick, for every x axis.
#[inline]
pub(crate) fn tallest_step<S: BandSource>(src: &S, lo: u32, hi: u32) -> (u32, u64) {
    let mut best = (lo, src.total(lo));
    for s in lo + 1..hi {
        let t = src.total(s);
        if t > best.1 {
            best = (s, t);
        }
    }
    best
}

/// An RGBA image, row-major, top row first.
#[derive(Debug, Clone, Default)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// Column-major scratch space reused between renderings.
    scratch: Vec<u32>,
}

impl Image {
    pub fn new(width: u32, height: u32) -> Image {
        let mut img = Image { width, height, rgba: Vec::new(), scratch: Vec::new() };
        img.reset(width, height, BACKGROUND);
        img
    }
    /// Resizes (reusing the allocation) and fills with `color`.
    pub fn reset(&mut self, width: u32, height: u32, color: Rgba) {
        self.width = width;
        self.height = height;
        let n = width as usize * height as usize;
        self.rgba.clear();
        self.rgba.resize(n * 4, 0);
        // One pixel, then copies of what is filled so far: memcpy speed
        // (a push per pixel cost 1.1 ms per redraw of a 1358x502 plot).
        if let Some(first) = self.rgba.get_mut(..4) {
            first.copy_from_slice(&color);
        }
        let mut filled = 4.min(self.rgba.len());
        while filled < self.rgba.len() {
            let k = filled.min(self.rgba.len() - filled);
            self.rgba.copy_within(..k, filled);
            filled += k;
        }
    }
    /// Sizes to `width` x `height`, the pixels left as they are (new ones
    /// zero): for a rendering that writes every pixel ([`render_plot`]),
    /// which a fill first only repeats (2.7 MB a redraw of a 1343x502 plot).
    pub fn resize(&mut self, width: u32, height: u32) {
        self.width = width;
        self.height = height;
        self.rgba.resize(width as usize * height as usize * 4, 0);
    }
    #[inline]
    pub fn put(&mut self, x: u32, y: u32, c: Rgba) {
        if x < self.width && y < self.height {
            let i = (y as usize * self.width as usize + x as usize) * 4;
            self.rgba[i..i + 4].copy_from_slice(&c);
        }
    }
    pub fn get(&self, x: u32, y: u32) -> Rgba {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]]
    }
}

/// Options of one plot rendering.
#[derive(Debug, Clone, Copy)]
pub struct PlotStyle {
    /// Bytes at the top edge of the image.
    pub y_max: u64,
    /// The element to outline.
    pub selected: Option<u32>,
    /// Outline thickness in pixels (devicePixelRatio, rounded).
    pub outline: u32,
}

/// What a plot rendering drew (for tests, the timings line and the detail
/// slider's feedback).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlotStats {
    /// Band runs filled (one per band per column that got at least a pixel).
    pub runs: u64,
    /// Distinct elements that got at least one pixel.
    pub bands_drawn: u32,
}

/// Rasterizes the bands of `cols` into `img` (already sized; every pixel is
/// written, so it need not be cleared).
///
/// Pixel row `r` (counted from the bottom) covers bytes
/// `[r, r+1) * y_max / height`; a row takes the color of the band that covers
/// its center, so sub-pixel bands never leave gaps and never overdraw.
pub fn render_plot<S: BandSource>(src: &S, cols: &Columns, style: PlotStyle, img: &mut Image) -> PlotStats {
    render_plot_with(src, cols, style, band_color, img)
}

/// [`render_plot`] with each band colored by `color(elem)` (the "Color by"
/// modes of [`explain`]).
pub fn render_plot_with<S: BandSource, C: Fn(u32) -> Rgba>(
    src: &S,
    cols: &Columns,
    style: PlotStyle,
    color: C,
    img: &mut Image,
) -> PlotStats {
    let (w, h) = (img.width, img.height);
    let mut stats = PlotStats::default();
    if w == 0 || h == 0 || style.y_max == 0 {
        img.reset(w, h, BACKGROUND);
        return stats;
    }
    let px_per_byte = h as f64 / style.y_max as f64;
    // Row range (from the bottom) of the selected band per column.
    let mut sel: Vec<Option<(u32, u32)>> = vec![None; w as usize];
    let mut seen = Vec::<bool>::new();
    let mut seen_count = 0u32;
    // Columns are filled into a column-major scratch tile of TILE columns
    // (contiguous writes), and each full tile is transposed into the RGBA
    // image: the scratch stays small (wasm memory never shrinks).
    const TILE: usize = 64;
    let hu = h as usize;
    let wu = w as usize;
    let bg = u32::from_le_bytes(BACKGROUND);
    let mut colbuf = std::mem::take(&mut img.scratch);
    colbuf.clear();
    colbuf.resize(TILE * hu, bg);
    let summ_px = SUMMARIZED.map(u32::from_le_bytes);
    // center[r]: the byte at the center of pixel row r (from the bottom),
    // rounded down. A band fills row r when it covers that center
    // (offset <= center < top, as the hit test finds it); `need[r]` is the
    // smallest top that reaches row r, so the sweep passes over whole words
    // of thinner bands. Both computed once, not per band: most bands of a
    // busy column are thinner than a pixel.
    let center: Vec<u64> =
        (0..hu).map(|r| ((r as f64 + 0.5) / px_per_byte).floor() as u64).chain(std::iter::once(u64::MAX)).collect();
    let need: Vec<u64> = center.iter().map(|&c| c.saturating_add(1)).collect();
    let mut prev_step = NO_STEP;
    for c in 0..w {
        let step = cols.step[c as usize];
        let slot = c as usize % TILE;
        let base = slot * hu;
        'column: {
            if step == NO_STEP {
                colbuf[base..base + hu].fill(bg);
                break 'column;
            }
            if step == prev_step && c > 0 {
                // Zoomed in past one step per pixel: same column as the last
                // (whose slot, the tile's last one after a flush, is intact).
                let prev = ((c as usize - 1) % TILE) * hu;
                colbuf.copy_within(prev..prev + hu, base);
                sel[c as usize] = sel[c as usize - 1];
                break 'column;
            }
            prev_step = step;
            let col = &mut colbuf[base..base + hu]; // row 0 = bottom
            let mut next_row = 0u32; // first row not yet filled, from the bottom
            src.bands_reaching(step, style.selected, |elem, offset, size| {
                // Saturating: sizes near 2^64 in a hostile file must not wrap.
                let band_top = offset.saturating_add(size);
                if band_top <= center[next_row as usize] && Some(elem) != style.selected {
                    return need[next_row as usize];
                }
                if Some(elem) == style.selected {
                    sel[c as usize] = Some(selection_rows(offset, size, px_per_byte, h));
                }
                // The rows whose center the band covers, from the first free one.
                let mut end = next_row;
                while end < h && center[end as usize] < band_top {
                    end += 1;
                }
                if end > next_row {
                    col[next_row as usize..end as usize].fill(u32::from_le_bytes(color(elem)));
                    next_row = end;
                    stats.runs += 1;
                    let i = elem as usize;
                    if i >= seen.len() {
                        seen.resize(i + 1, false);
                    }
                    if !seen[i] {
                        seen[i] = true;
                        seen_count += 1;
                    }
                }
                need[next_row as usize]
            });
            let total = src.total(step);
            let summ = src.summarized(step).min(total);
            let top = total as f64 * px_per_byte;
            let end = ((top + 0.5).floor() as i64).clamp(0, h as i64) as u32;
            let summ_bot = ((total - summ) as f64 * px_per_byte + 0.5).floor() as u32;
            // Rows below the summarized band that no drawn band claimed (rounding)
            // take the summarized look too, so the stack has no holes.
            let mut filled = next_row;
            if summ > 0 && end > next_row {
                let from = next_row.min(summ_bot);
                for r in from..end {
                    col[r as usize] = summ_px[(((c + r) / 4) % 2) as usize];
                }
                stats.runs += 1;
                filled = end;
            }
            col[filled as usize..].fill(bg);
        }
        // Transpose a full (or the last) tile: image row y (top first) =
        // scratch row h-1-y.
        if slot == TILE - 1 || c + 1 == w {
            let x0 = c as usize - slot;
            for y in 0..hu {
                let r = hu - 1 - y;
                let row = &mut img.rgba[(y * wu + x0) * 4..(y * wu + c as usize + 1) * 4];
                for (px, v) in row.chunks_exact_mut(4).zip(colbuf[r..].iter().step_by(hu)) {
                    px.copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    img.scratch = colbuf;
    if let Some(_e) = style.selected {
        outline(img, &sel, style.outline.max(1), 0);
    }
    stats.bands_drawn = seen_count;
    stats
}

/// The rows (from the bottom, `[lo, hi)`) outlined for a band of `size`
/// bytes at `offset` in a plot `h` rows high: at least one, so that a band
/// thinner than a pixel still shows where it is.
fn selection_rows(offset: u64, size: u64, px_per_byte: f64, h: u32) -> (u32, u32) {
    let top = offset.saturating_add(size) as f64 * px_per_byte;
    let bot = offset as f64 * px_per_byte;
    let lo = (bot.floor() as i64).clamp(0, h as i64 - 1) as u32;
    let hi = (top.ceil() as i64).clamp(lo as i64 + 1, h as i64) as u32;
    (lo, hi)
}

/// Draws the outline of the region given per column as a row range from the
/// bottom: its top and bottom edges, and the vertical edges where the range
/// changes between neighbor columns. Column `c`, row `r` lands on image
/// pixel (c, height - 1 - (r - r0)): `r0` is the lowest row the image holds.
fn outline(img: &mut Image, sel: &[Option<(u32, u32)>], t: u32, r0: u32) {
    let h = img.height;
    let w = sel.len();
    let inside = |c: i64, r: u32| -> bool {
        if c < 0 || c >= w as i64 {
            return false;
        }
        matches!(sel[c as usize], Some((lo, hi)) if r >= lo && r < hi)
    };
    for (c, s) in sel.iter().enumerate() {
        let Some((lo, hi)) = *s else {
            continue;
        };
        for r in lo..hi {
            let edge = r < lo + t
                || r + t >= hi
                || (1..=t as i64).any(|d| !inside(c as i64 - d, r) || !inside(c as i64 + d, r));
            if edge {
                img.put(c as u32, (h - 1).wrapping_sub(r - r0), OUTLINE);
            }
        }
    }
}

/// Where [`render_selection`] drew: the image's top left corner in the
/// plot's pixels (x from the left, y from the top).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelectionAt {
    pub x: u32,
    pub y: u32,
}

/// The outline of element `elem`'s band over the plot of `cols` (`h` rows,
/// `y_max` bytes at the top), alone: `img` becomes the smallest transparent
/// image that holds it, laid over the bands where the returned corner says;
/// None when the band is not in the window. The same outline as
/// [`render_plot`] draws with `selected`, without redrawing the bands: a
/// hover costs O(columns), whatever the number of bands (issue 13).
pub fn render_selection<S: BandSource>(
    src: &S,
    cols: &Columns,
    y_max: u64,
    h: u32,
    elem: u32,
    t: u32,
    img: &mut Image,
) -> Option<SelectionAt> {
    if h == 0 || y_max == 0 {
        return None;
    }
    let px_per_byte = h as f64 / y_max as f64;
    let mut prev = NO_STEP;
    let mut rows = None;
    let sel: Vec<Option<(u32, u32)>> = cols
        .step
        .iter()
        .map(|&step| {
            if step != prev {
                prev = step;
                rows = if step == NO_STEP { None } else { src.band_of(step, elem) };
            }
            rows.map(|(o, s)| selection_rows(o, s, px_per_byte, h))
        })
        .collect();
    let c0 = sel.iter().position(Option::is_some)?;
    let c1 = sel.iter().rposition(Option::is_some)? + 1;
    let lo = sel[c0..c1].iter().flatten().map(|r| r.0).min()?;
    let hi = sel[c0..c1].iter().flatten().map(|r| r.1).max()?;
    img.reset((c1 - c0) as u32, hi - lo, [0, 0, 0, 0]);
    outline(img, &sel[c0..c1], t.max(1), lo);
    Some(SelectionAt { x: c0 as u32, y: h - hi })
}

/// Converts a pixel (x from the left, y from the top, in image pixels) to
/// the step and byte height it shows.
pub fn pixel_to_point(cols: &Columns, y_max: u64, height: u32, x: f64, y: f64) -> Option<(u32, u64)> {
    if x < 0.0 || y < 0.0 || height == 0 {
        return None;
    }
    let c = x.floor() as usize;
    let step = *cols.step.get(c)?;
    if step == NO_STEP || y >= height as f64 {
        return None;
    }
    let from_bottom = (height as f64 - y) / height as f64;
    Some((step, (from_bottom * y_max as f64) as u64))
}

/// The minimap's columns: the largest total in each column's step range,
/// and the largest of all (with `start_bytes`). O(steps): computed once per
/// timeline and width, not per redraw.
pub fn minimap_columns(totals: &[u64], start_bytes: u64, w: u32) -> (Vec<u64>, u64) {
    let n = totals.len();
    if n == 0 || w == 0 {
        return (vec![0; w as usize], start_bytes);
    }
    let per_px = n as f64 / w as f64;
    let cols: Vec<u64> = (0..w)
        .map(|c| {
            let lo = ((c as f64 * per_px).floor() as usize).min(n - 1);
            let hi = (((c + 1) as f64 * per_px).ceil() as usize).clamp(lo + 1, n);
            totals[lo..hi].iter().copied().max().unwrap_or(0)
        })
        .collect();
    let max = cols.iter().copied().max().unwrap_or(0).max(start_bytes);
    (cols, max)
}

/// Draws the minimap from [`minimap_columns`]: the total over all `n_steps`
/// as a filled step curve, the part outside `win` dimmed, the peak step
/// marked, the window's edges (the brush) in black.
pub fn render_minimap(cols: &[u64], max: u64, n_steps: u32, win: Window, peak_step: Option<u32>, img: &mut Image) {
    let (w, h) = (img.width, img.height);
    img.reset(w, h, BACKGROUND);
    if n_steps == 0 || w == 0 || h == 0 || cols.len() != w as usize {
        return;
    }
    let max = max.max(1);
    let per_px = n_steps as f64 / w as f64;
    let stride = w as usize * 4;
    for c in 0..w {
        let t = cols[c as usize];
        let rows = ((t as f64 / max as f64) * (h - 1) as f64).round() as u32;
        let mid = (c as f64 + 0.5) * per_px;
        let inside = mid >= win.x0 && mid < win.x1;
        let color = if inside { MINIMAP_FILL } else { MINIMAP_DIM_FILL };
        let bg = if inside { BACKGROUND } else { MINIMAP_DIM };
        for r in 0..h {
            let i = (h - 1 - r) as usize * stride + c as usize * 4;
            img.rgba[i..i + 4].copy_from_slice(if r < rows { &color } else { &bg });
        }
    }
    if let Some(p) = peak_step {
        let c = ((p as f64 + 0.5) / per_px).floor() as u32;
        for r in 0..h {
            img.put(c.min(w - 1), r, PEAK);
        }
    }
    for x in [win.x0, win.x1] {
        let c = (x / per_px).round() as i64;
        let c = c.clamp(0, w as i64 - 1) as u32;
        for r in 0..h {
            img.put(c, r, OUTLINE);
        }
    }
}

const MINIMAP_DIM_FILL: Rgba = [0xa6, 0xbc, 0xd3, 255];

#[cfg(test)]
mod tests {
    use super::*;

    /// Bands given as (elem, x0, x1, size) stacked in order at each step,
    /// plus a summarized amount per step.
    struct Fake {
        bands: Vec<(u32, u32, u32, u64)>,
        summ: Vec<u64>,
    }
    impl BandSource for Fake {
        fn n_steps(&self) -> u32 {
            self.summ.len() as u32
        }
        fn total(&self, step: u32) -> u64 {
            let mut t = self.summ[step as usize];
            self.bands_at(step, |_, _, s| t += s);
            t
        }
        fn summarized(&self, step: u32) -> u64 {
            self.summ[step as usize]
        }
        fn bands_at<F: FnMut(u32, u64, u64)>(&self, step: u32, mut f: F) {
            let mut off = 0;
            for &(e, a, b, s) in &self.bands {
                if step >= a && step < b {
                    f(e, off, s);
                    off += s;
                }
            }
        }
    }

    fn fake() -> Fake {
        // 10 steps; elem 0 (100 B) alive 0..10, elem 1 (50 B) 2..5, elem 2 (200 B) 6..8.
        Fake { bands: vec![(0, 0, 10, 100), (1, 2, 5, 50), (2, 6, 8, 200)], summ: vec![10; 10] }
    }

    #[test]
    fn ranks_by_orders_by_key_and_keeps_ties_in_rank_order() {
        // Keys that differ only in the high half, only in the low half, and
        // ties: the low pass must run first for the high one to decide.
        let key = [0x1_0000, 5, 0x2_0000 + 1, 5, 0x1_0000, 0, 0x2_0000, 0xffff];
        let mut want: Vec<u32> = (0..key.len() as u32).collect();
        want.sort_by_key(|&r| key[r as usize]); // stable
        assert_eq!(ranks_by(&key), want);
        assert_eq!(want, [5, 1, 3, 7, 0, 4, 6, 2]);
        let small = [3, 1, 3, 0];
        assert_eq!(ranks_by(&small), [3, 1, 0, 2]);
        assert_eq!(ranks_by(&[]), Vec::<u32>::new());
    }

    #[test]
    fn columns_pick_max_total_step() {
        let f = fake();
        // 5 columns over 10 steps: 2 steps each.
        let cols = pick_columns(&f, Window::full(10), 5);
        // steps 0,1 -> 110 both, first wins (0); 2,3 -> 160 (2); 4,5 -> 160 at 4;
        // 6,7 -> 310 (6); 8,9 -> 110 (8).
        assert_eq!(cols.step, vec![0, 2, 4, 6, 8]);
        assert_eq!(cols.max_total, 310);
        // Zoomed in: 20 columns over steps 5..7 -> 10 columns per step.
        let cols = pick_columns(&f, Window { x0: 5.0, x1: 7.0 }, 20);
        assert!(cols.step[..10].iter().all(|&s| s == 5));
        assert!(cols.step[10..].iter().all(|&s| s == 6));
        assert_eq!(cols.max_total, 310);
        // Past the end.
        let cols = pick_columns(&f, Window { x0: 8.0, x1: 12.0 }, 4);
        assert_eq!(cols.step, vec![8, 9, NO_STEP, NO_STEP]);
    }

    #[test]
    fn plot_fills_bands_bottom_to_top() {
        let f = fake();
        let cols = pick_columns(&f, Window::full(10), 10);
        let mut img = Image::new(10, 310);
        let stats = render_plot(&f, &cols, PlotStyle { y_max: 310, selected: None, outline: 1 }, &mut img);
        assert_eq!(stats.bands_drawn, 3);
        // 1 pixel per byte. Column 6: elem0 rows 0..100, elem2 100..300, summarized 300..310.
        let at = |c: u32, r: u32| img.get(c, 309 - r);
        assert_eq!(at(6, 0), band_color(0));
        assert_eq!(at(6, 99), band_color(0));
        assert_eq!(at(6, 100), band_color(2));
        assert_eq!(at(6, 299), band_color(2));
        assert!(SUMMARIZED.contains(&at(6, 305)));
        // Column 3: elem0 then elem1 then summarized, background above 160.
        assert_eq!(at(3, 120), band_color(1));
        assert!(SUMMARIZED.contains(&at(3, 155)));
        assert_eq!(at(3, 160), BACKGROUND);
        assert_eq!(at(3, 309), BACKGROUND);
    }

    #[test]
    fn subpixel_bands_leave_no_gaps() {
        // 1000 bands of 1 byte each, 10 pixels high: every row filled.
        let f = Fake { bands: (0..1000).map(|e| (e, 0, 1, 1)).collect(), summ: vec![0] };
        let cols = pick_columns(&f, Window::full(1), 1);
        let mut img = Image::new(1, 10);
        let stats = render_plot(&f, &cols, PlotStyle { y_max: 1000, selected: None, outline: 1 }, &mut img);
        for r in 0..10 {
            assert_ne!(img.get(0, r), BACKGROUND, "row {r}");
        }
        assert_eq!(stats.runs, 10);
    }

    #[test]
    fn selected_band_is_outlined() {
        let f = fake();
        let cols = pick_columns(&f, Window::full(10), 10);
        let mut img = Image::new(10, 310);
        render_plot(&f, &cols, PlotStyle { y_max: 310, selected: Some(2), outline: 1 }, &mut img);
        let at = |c: u32, r: u32| img.get(c, 309 - r);
        // elem 2 spans columns 6,7 rows 100..300: edges outlined, inside not.
        assert_eq!(at(6, 100), OUTLINE);
        assert_eq!(at(6, 299), OUTLINE);
        assert_eq!(at(6, 200), OUTLINE); // left end of the band
        assert_eq!(at(7, 200), OUTLINE); // right end
        assert_eq!(at(5, 200), BACKGROUND);
        let mut img2 = Image::new(20, 310);
        let cols2 = pick_columns(&f, Window::full(10), 20);
        render_plot(&f, &cols2, PlotStyle { y_max: 310, selected: Some(2), outline: 1 }, &mut img2);
        assert_eq!(img2.get(13, 309 - 200), band_color(2)); // interior
    }

    #[test]
    fn pixel_maps_back_to_step_and_bytes() {
        let f = fake();
        let cols = pick_columns(&f, Window::full(10), 10);
        let (step, bytes) = pixel_to_point(&cols, 310, 310, 6.5, 309.5 - 150.0).unwrap();
        assert_eq!(step, 6);
        assert_eq!(bytes, 150);
        assert!(pixel_to_point(&cols, 310, 310, 10.0, 5.0).is_none());
    }

    #[test]
    fn window_zoom_pan_clamp() {
        let w = Window::full(100);
        let z = w.zoom(0.5, 0.5);
        assert_eq!(z, Window { x0: 25.0, x1: 75.0 });
        let p = z.pan(1.0).clamped(100, 2.0);
        assert_eq!(p, Window { x0: 50.0, x1: 100.0 });
        let tiny = w.zoom(1e-9, 0.0).clamped(100, 2.0);
        assert_eq!(tiny.x1 - tiny.x0, 2.0);
        let big = w.zoom(10.0, 0.5).clamped(100, 2.0);
        assert_eq!(big, Window::full(100));
    }

    #[test]
    fn minimap_marks_window_and_peak() {
        let totals: Vec<u64> = (0..100).map(|i| if i == 70 { 1000 } else { 100 }).collect();
        let mut img = Image::new(100, 20);
        let (cols, max) = minimap_columns(&totals, 0, 100);
        assert_eq!((cols[70], cols[69], max), (1000, 100, 1000));
        render_minimap(&cols, max, 100, Window { x0: 10.0, x1: 20.0 }, Some(70), &mut img);
        assert_eq!(img.get(70, 0), PEAK);
        assert_eq!(img.get(15, 19), MINIMAP_FILL);
        assert_eq!(img.get(50, 19), MINIMAP_DIM_FILL);
        assert_eq!(img.get(10, 5), OUTLINE);
    }
}
