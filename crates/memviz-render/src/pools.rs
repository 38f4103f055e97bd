//! Rasterizes the "Allocated Memory (incl. Private Pools)" view: the Active
//! Memory timeline with each private pool drawn as a gray envelope of its
//! reserved memory (black edge) and its drawn blocks as stripes inside
//! (memviz_core::pools). One column per pixel, as the timeline.

use memviz_core::pools::{PoolBand, PoolDetail, PoolSweep, PrivatePools, Slot, SweepChange, NO_POOL};
use memviz_core::timeline::{DetailView, Timeline};

use crate::{BandSource, Columns, Image, Rgba, NO_STEP, OUTLINE, SUMMARIZED};

/// Envelope gray (memory_viz: light gray with a black outline).
pub const ENVELOPE: Rgba = [0xbb, 0xbb, 0xbb, 255];

/// Bands are colored by pool (issue 43): the default pool's in shades of
/// blue, each private pool's in shades of its own hue (by pool index, the
/// hues repeating past six pools), three shades so that neighbouring bands
/// stay apart. The first shade is the pool's swatch in the legend.
const DEFAULT_POOL: [Rgba; 3] = [[0x4e, 0x79, 0xa7, 255], [0x7a, 0x9e, 0xc7, 255], [0x2f, 0x5a, 0x87, 255]];
const POOL_HUES: [[Rgba; 3]; 6] = [
    [[0xf2, 0x8e, 0x2b, 255], [0xf7, 0xb0, 0x6a, 255], [0xc4, 0x6c, 0x12, 255]],
    [[0x59, 0xa1, 0x4f, 255], [0x8c, 0xc4, 0x82, 255], [0x3b, 0x7a, 0x33, 255]],
    [[0xb0, 0x7a, 0xa1, 255], [0xcf, 0xa5, 0xc4, 255], [0x86, 0x52, 0x78, 255]],
    [[0xe1, 0x57, 0x59, 255], [0xee, 0x8e, 0x8f, 255], [0xb0, 0x35, 0x37, 255]],
    [[0x76, 0xb7, 0xb2, 255], [0xa6, 0xd3, 0xcf, 255], [0x4c, 0x8c, 0x87, 255]],
    [[0xed, 0xc9, 0x48, 255], [0xf4, 0xdc, 0x86, 255], [0xbf, 0x9c, 0x1f, 255]],
];

/// The shades of pool `pool` (an index in `PrivatePools::pools`, or
/// [`NO_POOL`] for the default pool).
fn shades(pool: u32) -> &'static [Rgba; 3] {
    if pool == NO_POOL {
        &DEFAULT_POOL
    } else {
        &POOL_HUES[pool as usize % POOL_HUES.len()]
    }
}

/// The legend swatch of pool `pool` ([`NO_POOL`]: the default pool).
pub fn pool_color(pool: u32) -> Rgba {
    shades(pool)[0]
}

/// The color of element `elem`'s band: a shade of its pool's hue.
pub fn element_color(pp: &PrivatePools, elem: u32) -> Rgba {
    let pool = pp.pool_of.get(elem as usize).copied().unwrap_or(NO_POOL);
    shades(pool)[(elem % 3) as usize]
}

/// A private pool's envelope: its hue, faded (memory_viz draws it gray).
pub fn envelope_color(pool: u32) -> Rgba {
    blend(pool_color(pool), ENVELOPE, 0.35)
}

/// Stripes are drawn at 50% over the envelope, the pool's small blocks at
/// 30% (memory_viz's opacities).
fn blend(c: Rgba, over: Rgba, alpha: f64) -> Rgba {
    let m = |a: u8, b: u8| (a as f64 * alpha + b as f64 * (1.0 - alpha)).round() as u8;
    [m(c[0], over[0]), m(c[1], over[1]), m(c[2], over[2]), 255]
}

/// Totals of the pools view, for [`crate::pick_columns`].
pub struct PoolTotals<'a>(pub &'a PrivatePools);

impl BandSource for PoolTotals<'_> {
    fn n_steps(&self) -> u32 {
        self.0.total.len() as u32
    }
    fn total(&self, step: u32) -> u64 {
        self.0.total.get(step as usize).copied().unwrap_or(0)
    }
    fn summarized(&self, _step: u32) -> u64 {
        0
    }
    fn bands_at<F: FnMut(u32, u64, u64)>(&self, _step: u32, _f: F) {}
}

/// What a pools rendering drew.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Envelope pixels (for tests and the timings line).
    pub envelope_px: u64,
    /// Bands visited (walking the bands: all of them; sweeping: those that
    /// got at least one pixel).
    pub bands: u64,
}

/// Draws the columns `cols` of the pools view into `img` (sized, cleared).
/// `selected`: the element whose band gets a black top and bottom edge.
#[allow(clippy::too_many_arguments)]
pub fn render_pools(
    tl: &Timeline,
    pp: &PrivatePools,
    pd: &PoolDetail,
    dv: &DetailView,
    cols: &Columns,
    y_max: u64,
    selected: Option<u32>,
    img: &mut Image,
) -> PoolStats {
    let (w, h) = (img.width, img.height);
    let mut st = PoolStats::default();
    if w == 0 || h == 0 || y_max == 0 {
        return st;
    }
    if let Some(sw) = &pd.sweep {
        return render_sweep(tl, pp, pd, sw, dv, cols, y_max, selected, img);
    }
    let ppb = h as f64 / y_max as f64;
    let row = |bytes: u64| ((bytes as f64 * ppb + 0.5).floor() as i64).clamp(0, h as i64) as u32;
    for c in 0..w {
        let step = cols.step[c as usize];
        if step == NO_STEP {
            continue;
        }
        let mut env_edges: Vec<(u32, u32)> = Vec::new();
        let mut sel: Option<(u32, u32)> = None;
        let (top, summ) = pd.bands_at(tl, pp, dv, step, |b| {
            st.bands += 1;
            match b {
                PoolBand::Element { elem, offset, size } => {
                    let (a, z) = (row(offset), row(offset.saturating_add(size)));
                    put(img, c, a, z, element_color(pp, elem));
                    if Some(elem) == selected {
                        sel = Some((a, z));
                    }
                }
                PoolBand::Envelope { pool, offset, size } => {
                    let (a, z) = (row(offset), row(offset.saturating_add(size)));
                    put(img, c, a, z, envelope_color(pool));
                    st.envelope_px += (z - a) as u64;
                    env_edges.push((a, z));
                }
                PoolBand::Stripe { elem, offset, size, .. } => {
                    let (a, z) = (row(offset), row(offset.saturating_add(size)));
                    put(img, c, a, z, element_color(pp, elem));
                    if Some(elem) == selected {
                        sel = Some((a, z));
                    }
                }
                PoolBand::PoolSummarized { offset, size, .. } => {
                    put(img, c, row(offset), row(offset.saturating_add(size)), blend(SUMMARIZED[1], ENVELOPE, 0.3));
                }
            }
        });
        if summ > 0 {
            put(img, c, row(top), row(top.saturating_add(summ)), SUMMARIZED[((c / 4) % 2) as usize]);
        }
        outline_edges(img, c, env_edges.into_iter().chain(sel));
    }
    st
}

/// Prefix sums over slot sizes (u128: a hostile file's sizes may add up
/// past 2^64) with the search for the slot at a height.
struct Fenwick {
    t: Vec<u128>,
    /// Each slot's size, for reading one back.
    v: Vec<u128>,
}

impl Fenwick {
    fn new(n: usize) -> Fenwick {
        Fenwick { t: vec![0; n + 1], v: vec![0; n] }
    }
    fn add(&mut self, i: usize, d: i128) {
        let Some(x) = self.v.get_mut(i) else { return };
        *x = x.wrapping_add(d as u128);
        let mut k = i + 1;
        while k < self.t.len() {
            self.t[k] = self.t[k].wrapping_add(d as u128);
            k += k & k.wrapping_neg();
        }
    }
    /// Sum of slots `0..i`.
    fn prefix(&self, i: usize) -> u128 {
        let mut k = i.min(self.v.len());
        let mut s = 0u128;
        while k > 0 {
            s = s.wrapping_add(self.t[k]);
            k &= k - 1;
        }
        s
    }
    /// The first slot whose end (prefix including it) reaches `y`, or the
    /// slot count when none does.
    fn lower_bound(&self, y: u128) -> usize {
        let n = self.v.len();
        let (mut pos, mut rem) = (0usize, y);
        let mut step = if n == 0 { 0 } else { 1usize << (usize::BITS - 1 - n.leading_zeros()) };
        while step > 0 {
            let k = pos + step;
            if k <= n && self.t[k] < rem {
                pos = k;
                rem -= self.t[k];
            }
            step >>= 1;
        }
        pos
    }
}

/// The sweep's running state: sizes of the slots at the current step.
struct SweepState {
    step: u32,
    next: usize,
    top: Fenwick,
    inner: Fenwick,
    pool_summarized: i128,
}

impl SweepState {
    fn new(sw: &PoolSweep) -> SweepState {
        SweepState {
            step: 0,
            next: 0,
            top: Fenwick::new(sw.top.len()),
            inner: Fenwick::new(sw.inner.len()),
            pool_summarized: 0,
        }
    }
    /// Applies the changes up to `step` (from the start again when `step`
    /// lies before the current one).
    fn advance(&mut self, sw: &PoolSweep, step: u32) {
        if step < self.step {
            *self = SweepState::new(sw);
        }
        while let Some(&(s, c)) = sw.changes.get(self.next) {
            if s > step {
                break;
            }
            match c {
                SweepChange::Top { slot, delta } => self.top.add(slot as usize, delta),
                SweepChange::Inner { slot, delta } => self.inner.add(slot as usize, delta),
                SweepChange::PoolSummarized { delta } => self.pool_summarized += delta,
            }
            self.next += 1;
        }
        self.step = step;
    }
}

fn sat64(x: u128) -> u64 {
    x.min(u64::MAX as u128) as u64
}

/// [`render_pools`] for views with a [`PoolSweep`]: the same pixels as
/// walking the bands, found per pixel row with prefix sums.
#[allow(clippy::too_many_arguments)]
fn render_sweep(
    tl: &Timeline,
    pp: &PrivatePools,
    pd: &PoolDetail,
    sw: &PoolSweep,
    dv: &DetailView,
    cols: &Columns,
    y_max: u64,
    selected: Option<u32>,
    img: &mut Image,
) -> PoolStats {
    let (w, h) = (img.width, img.height);
    let mut st = PoolStats::default();
    let ppb = h as f64 / y_max as f64;
    let row = |bytes: u64| ((bytes as f64 * ppb + 0.5).floor() as i64).clamp(0, h as i64) as u32;
    // reach[r]: the fewest bytes whose row() passes row r (a band ending
    // there or above covers row r).
    let reach: Vec<u64> = (0..h)
        .map(|r| {
            let (mut lo, mut hi) = (0u64, u64::MAX);
            if row(hi) <= r {
                return u64::MAX;
            }
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if row(mid) > r {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        })
        .collect();
    let mut state = SweepState::new(sw);
    let n_top = sw.top.len();
    for c in 0..w {
        let step = cols.step[c as usize];
        if step == NO_STEP || step >= tl.n_steps() {
            continue;
        }
        state.advance(sw, step);
        let mut env_edges: Vec<(u32, u32)> = Vec::new();
        let mut sel: Option<(u32, u32)> = None;
        let mut r = 0u32;
        while r < h {
            let i = state.top.lower_bound(reach[r as usize] as u128);
            if i >= n_top {
                break;
            }
            let o = state.top.prefix(i);
            let e = o.wrapping_add(state.top.v[i]);
            let (a, z) = (row(sat64(o)), row(sat64(e)));
            if z <= r {
                break; // sizes past 2^64: nothing more to find
            }
            st.bands += 1;
            match sw.top[i] {
                Slot::Element(elem) => {
                    put(img, c, a, z, element_color(pp, elem));
                    if Some(elem) == selected {
                        sel = Some((a, z));
                    }
                }
                Slot::Envelope(p) => {
                    put(img, c, a, z, envelope_color(p));
                    st.envelope_px += (z - a) as u64;
                    env_edges.push((a, z));
                    let (i0, i1) = (sw.inner_at[p as usize] as usize, sw.inner_at[p as usize + 1] as usize);
                    let pre = state.inner.prefix(i0);
                    let stripes = state.inner.prefix(i1).wrapping_sub(pre);
                    let small = pd.pool_summarized_at(p, step) as u128;
                    let mut rr = r.max(a);
                    while rr < z {
                        let b = reach[rr as usize] as u128;
                        if b <= o.saturating_add(stripes) {
                            let j = state.inner.lower_bound(b - o + pre).min(i1.saturating_sub(1));
                            let so = o + state.inner.prefix(j) - pre;
                            let (sa, sz) = (row(sat64(so)), row(sat64(so.saturating_add(state.inner.v[j]))));
                            if sz <= rr {
                                break;
                            }
                            let elem = sw.inner[j];
                            put(img, c, sa.max(rr), sz, element_color(pp, elem));
                            st.bands += 1;
                            if Some(elem) == selected {
                                sel = Some((sa, sz));
                            }
                            rr = sz;
                        } else if b <= o.saturating_add(stripes).saturating_add(small) {
                            let (sa, sz) = (row(sat64(o + stripes)), row(sat64(o + stripes + small)));
                            put(img, c, sa.max(rr), sz, blend(SUMMARIZED[1], ENVELOPE, 0.3));
                            st.bands += 1;
                            rr = sz.max(rr + 1);
                        } else {
                            break;
                        }
                    }
                }
            }
            r = z;
        }
        let top = state.top.prefix(n_top);
        let summ = (dv.summarized_at(tl, step) as i128 - state.pool_summarized).clamp(0, u64::MAX as i128) as u128;
        if summ > 0 {
            put(img, c, row(sat64(top)), row(sat64(top + summ)), SUMMARIZED[((c / 4) % 2) as usize]);
        }
        outline_edges(img, c, env_edges.into_iter().chain(sel));
    }
    st
}

/// Paints rows `r0..r1` of column `c`, rows counted from the bottom.
fn put(img: &mut Image, c: u32, r0: u32, r1: u32, color: Rgba) {
    let (w, h) = (img.width as usize, img.height);
    for r in r0..r1.min(h) {
        let i = (((h - 1 - r) as usize) * w + c as usize) * 4;
        img.rgba[i..i + 4].copy_from_slice(&color);
    }
}

/// The top and bottom lines of each `(a, z)` row span in column `c`: the
/// envelopes' edges and the selected band's (the sides show where the height
/// changes between columns well enough).
fn outline_edges(img: &mut Image, c: u32, spans: impl Iterator<Item = (u32, u32)>) {
    for (a, z) in spans {
        if z > a {
            put(img, c, a, a + 1, OUTLINE);
            put(img, c, z - 1, z, OUTLINE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{pick_columns, Window};
    use memviz_core::model::*;
    use memviz_core::timeline::TimelineKind;

    fn push(t: &mut EventTable, a: Action, addr: u128, size: u64) {
        t.action.push(a);
        t.addr_lo.push(addr as u64);
        t.size.push(size);
        t.stream.push(0);
        t.time_us.push(NO_TIME);
        t.stack.push(0);
        t.extra.push(NO_EXTRA);
    }
    fn segment(address: u128, total_size: u64, blocks: std::ops::Range<u32>) -> Segment {
        Segment {
            device: 0,
            address,
            total_size,
            allocated_size: 0,
            active_size: 0,
            requested_size: 0,
            stream: 0,
            segment_type: SegmentType::Large,
            pool_id: Some((1, 7)),
            is_expandable: false,
            stack: 0,
            blocks,
        }
    }
    fn block(address: u128, size: u64, requested_size: u64) -> Block {
        Block { address, size, requested_size, state: BlockState::ActiveAllocated, stack: 0, user_metadata: None }
    }

    #[test]
    fn envelope_and_stripes_in_the_pool_color() {
        let mut snap = Snapshot::default();
        let mut t = EventTable::default();
        push(&mut t, Action::Alloc, 0x10000, 100);
        push(&mut t, Action::Alloc, 0x50000, 50);
        push(&mut t, Action::Alloc, 0x10100, 300);
        snap.traces.push(t);
        snap.blocks.push(block(0x10000, 256, 100));
        snap.blocks.push(block(0x10100, 512, 300));
        snap.segments.push(segment(0x10000, 0x1000, 0..2));
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        let pp = PrivatePools::build(&snap, &tl);
        let dv = DetailView::new(&tl, 10);
        let pd = PoolDetail::new(&tl, &pp, &dv);
        let cols = pick_columns(&PoolTotals(&pp), Window::full(tl.n_steps()), 3);
        let y_max = 4096 + 50;
        let mut img = Image::new(3, 4146);
        let st = render_pools(&tl, &pp, &pd, &dv, &cols, y_max, None, &mut img);
        assert!(st.envelope_px > 3 * 4000);
        // Column 2, a row in the middle of the envelope above the stripes.
        // Pool (1, 7) is the first private pool: orange, faded over gray.
        assert_eq!(pp.pool_of, vec![0, memviz_core::pools::NO_POOL, 0]);
        assert_eq!(img.get(2, 4146 - 2000), blend([0xf2, 0x8e, 0x2b, 255], ENVELOPE, 0.35));
        // Stripe of element 2 (bytes 100..400 of the envelope): the pool's third shade.
        assert_eq!(img.get(2, 4146 - 200), [0xc4, 0x6c, 0x12, 255]);
        // The element outside the pool sits on top of the envelope, in the
        // default pool's blue (second shade: element 1).
        assert_eq!(img.get(2, 4146 - 4120), [0x7a, 0x9e, 0xc7, 255]);
    }
}
