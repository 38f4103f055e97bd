//! Allocated Memory (incl. Private Pools): the Active Memory timeline's
//! bands grouped by the private pool they were allocated in, each pool
//! under its envelope.

use memviz_core::format::hover_text;
use memviz_core::pools::NO_POOL;
use memviz_core::pools::{PoolDetail, PoolHit, PrivatePools};
use memviz_core::timeline::{Hit, TimelineKind};
use memviz_render::legend::draw_legend;
use memviz_render::pools::{pool_color, render_pools, PoolTotals};
use memviz_render::{self as render};

use crate::context::{y_max_above, Context, PlotRect};
use crate::explain::colors_apply;
use crate::view::{Axes, PlotFrame, Selection, View, ViewKind};

type DetailKey = (usize, u32, u32, (u32, u32));

#[derive(Default)]
pub struct PoolsView {
    /// The pools of (file, device).
    pools: Option<((usize, u32), PrivatePools)>,
    /// Pool detail of (file, device, detail limit, the detail's window:
    /// the timeline's detail follows its zoom).
    detail: Option<(DetailKey, PoolDetail)>,
    pub hovered: Option<PoolHit>,
    pub pinned: Option<PoolHit>,
    /// Whether the last plot was drawn as the Active Memory Timeline: with
    /// no private pool and memory_viz's colors the view is that timeline
    /// pixel for pixel (tests/views.rs), and its band index draws it ~5x
    /// faster than the pools' own sweep. Its outline is then drawn apart.
    as_timeline: bool,
}

impl PoolsView {
    /// Builds the pools and their detail for the current file, device and
    /// detail limit, when they changed; false without a timeline.
    fn ready(&mut self, cx: &Context) -> bool {
        let (Some(f), Some(tl), Some(dv)) = (cx.file(), cx.timeline(), cx.detail.as_ref()) else {
            return false;
        };
        let k = cx.key();
        if self.pools.as_ref().map(|p| p.0) != Some(k) {
            self.pools = Some((k, PrivatePools::build(&f.snap, tl)));
            self.detail = None;
        }
        let dk = (k.0, k.1, cx.limit, dv.window());
        if let (true, Some((_, pp))) = (self.detail.as_ref().map(|d| d.0) != Some(dk), &self.pools) {
            self.detail = Some((dk, PoolDetail::new(tl, pp, dv)));
        }
        true
    }

    /// Builds one of what the first plot needs, the pools, their detail and
    /// the sweep that draws them, a call each (on a CUDA graph file they
    /// took 16-20 ms in one frame): the share done, 1.0 once ready.
    /// Entered from another timeline, the view first replays the Active
    /// Memory one (`enter`): nothing is built ahead then.
    pub fn prepare_step(&mut self, cx: &Context) -> f64 {
        let (Some(f), Some(tl), Some(dv)) = (cx.file(), cx.timeline(), cx.detail.as_ref()) else {
            return 1.0;
        };
        if tl.kind != TimelineKind::ActiveMemory {
            return 1.0;
        }
        let k = cx.key();
        if self.pools.as_ref().map(|p| p.0) != Some(k) {
            self.pools = Some((k, PrivatePools::build(&f.snap, tl)));
            self.detail = None;
            return 1.0 / 3.0;
        }
        let dk = (k.0, k.1, cx.limit, dv.window());
        let Some((_, pp)) = &self.pools else { return 1.0 };
        if self.detail.as_ref().map(|d| d.0) != Some(dk) {
            self.detail = Some((dk, PoolDetail::new(tl, pp, dv)));
            return 2.0 / 3.0;
        }
        if !self.draws_as_timeline(cx) {
            if let Some((_, pd)) = &mut self.detail {
                pd.ensure_sweep(tl, pp, dv);
            }
        }
        1.0
    }

    /// Whether the plot is drawn as the Active Memory Timeline (see
    /// `as_timeline`); the pools must be built.
    fn draws_as_timeline(&self, cx: &Context) -> bool {
        let n_elements = cx.timeline().map_or(0, |tl| tl.elements.len());
        let no_pools = self.pools.as_ref().is_some_and(|(_, pp)| pp.pools.is_empty());
        no_pools && !colors_apply(&cx.colors, TimelineKind::ActiveMemory, n_elements)
    }

    /// What is under CSS (x, y) of the plot canvas.
    pub fn hit(&mut self, cx: &Context, x: f64, y: f64) -> Option<PoolHit> {
        let (px, py) = cx.rect?.pixel_of_css(x, y, cx.dpr)?;
        let (step, bytes) = cx.point_at(px, py)?;
        if !self.ready(cx) {
            return None;
        }
        let (tl, dv) = (cx.timeline()?, cx.detail.as_ref()?);
        let pp = &self.pools.as_ref()?.1;
        self.detail.as_ref()?.1.hit(tl, pp, dv, step, bytes)
    }

    /// Hover text of a hit.
    pub fn text(&self, cx: &Context, hit: Option<PoolHit>) -> String {
        let (Some(f), Some(tl)) = (cx.file(), cx.timeline()) else {
            return String::new();
        };
        let pool = |p: u32| self.pools.as_ref().and_then(|pp| pp.1.pools.get(p as usize));
        match hit {
            Some(PoolHit::Element(e)) if (e as usize) < tl.elements.len() => {
                hover_text(&f.snap, f.versions_now(), tl, e)
            }
            Some(PoolHit::Element(_)) => String::new(),
            Some(PoolHit::Envelope(p)) => pool(p).map(|e| e.text()).unwrap_or_default(),
            Some(PoolHit::PoolSummarized(p)) => pool(p)
                .map(|e| format!("Small tensors of Private Pool ({}) that were not plotted.", e.key()))
                .unwrap_or_default(),
            Some(PoolHit::Summarized) => cx.hit_text(Some(Hit::Summarized)),
            None => String::new(),
        }
    }
}

/// The element of a pools hit, if it is one.
fn element(hit: Option<PoolHit>) -> Option<u32> {
    match hit {
        Some(PoolHit::Element(e)) => Some(e),
        _ => None,
    }
}

impl View for PoolsView {
    fn name(&self) -> &'static str {
        "Allocated Memory (incl. Private Pools)"
    }

    fn kind(&self) -> ViewKind {
        ViewKind::Pools
    }

    fn enter(&mut self, cx: &mut Context) {
        self.hovered = None;
        self.pinned = None;
        cx.use_active_memory();
    }

    /// Bands with their pools' envelopes; the axes are drawn every time (the
    /// view is redrawn only on interaction).
    fn draw_plot(&mut self, cx: &mut Context, w: u32, h: u32) -> Option<PlotFrame> {
        let rect = PlotRect::in_canvas(w, h, cx.dpr);
        if !self.ready(cx) {
            return None;
        }
        self.as_timeline = self.draws_as_timeline(cx);
        if self.as_timeline {
            let st = cx.render_timeline(rect);
            cx.axes_key = None;
            let axes = if cx.n_steps() > 0 {
                let peak = cx.peak();
                Axes::Draw(cx.axes_spec(rect, cx.y_max, peak, "alloc / free action (step)"))
            } else {
                Axes::Unchanged
            };
            return Some(PlotFrame { rect, bands_drawn: st.bands_drawn, axes });
        }
        if let (Some(tl), Some(dv), Some((_, pp)), Some((_, pd))) =
            (cx.timeline(), cx.detail.as_ref(), &self.pools, &mut self.detail)
        {
            pd.ensure_sweep(tl, pp, dv);
        }
        let mut img = std::mem::take(&mut cx.plot);
        img.reset(rect.w, rect.h, render::BACKGROUND);
        let drawn = match (cx.timeline(), cx.detail.as_ref(), &self.pools, &self.detail) {
            (Some(tl), Some(dv), Some((_, pp)), Some((_, pd))) => {
                let cols = cx.pick_columns(&PoolTotals(pp), rect.w);
                let y_max = y_max_above(cols.max_total);
                let selected = element(self.hovered.or(self.pinned));
                let st = render_pools(tl, pp, pd, dv, &cols, y_max, selected, &mut img);
                // Which color is which pool, over the headroom above the peak.
                let legend: Vec<_> = std::iter::once((pool_color(NO_POOL), "default pool".to_string()))
                    .chain(
                        pp.pools
                            .iter()
                            .enumerate()
                            .map(|(p, e)| (pool_color(p as u32), format!("private pool ({})", e.key()))),
                    )
                    .collect();
                draw_legend(&mut img, &legend, cx.dpr.round().max(1.0) as u32);
                let peak_step = (0..pp.total.len()).max_by_key(|&i| (pp.total[i], std::cmp::Reverse(i)));
                let peak = peak_step.map(|i| (i as u32, pp.peak_bytes()));
                Some((cols, y_max, st, peak, tl.n_steps()))
            }
            _ => None,
        };
        cx.plot = img;
        let (cols, y_max, st, peak, n_steps) = drawn?;
        cx.cols = cols;
        cx.y_max = y_max;
        cx.rect = Some(rect);
        cx.axes_key = None;
        let axes = if n_steps > 0 {
            Axes::Draw(cx.axes_spec(rect, y_max, peak, "alloc / free action (step)"))
        } else {
            Axes::Unchanged
        };
        Some(PlotFrame { rect, bands_drawn: st.bands.min(u32::MAX as u64) as u32, axes })
    }

    fn draw_selection(&mut self, cx: &mut Context) -> Selection {
        if !self.as_timeline {
            return Selection::InPlot;
        }
        match cx.render_selection_of(element(self.hovered.or(self.pinned)).map(Hit::Element)) {
            Some((x, y)) => Selection::At { x, y },
            None => Selection::Empty,
        }
    }

    fn hover(&mut self, cx: &mut Context, x: f64, y: f64) -> String {
        let hit = self.hit(cx, x, y);
        self.hovered = hit;
        self.text(cx, hit.or(self.pinned))
    }

    fn leave(&mut self, cx: &mut Context) -> String {
        self.hovered = None;
        self.text(cx, self.pinned)
    }

    /// Pins in the pools view and, for an element, in the timeline (it stays
    /// pinned there when the Active Memory Timeline is selected).
    fn click(&mut self, cx: &mut Context, x: f64, y: f64) -> String {
        let hit = self.hit(cx, x, y);
        self.pinned = hit;
        cx.pinned = element(hit).map(Hit::Element);
        self.text(cx, hit)
    }

    fn hit_code(&mut self, cx: &mut Context, x: f64, y: f64) -> i32 {
        match self.hit(cx, x, y) {
            Some(PoolHit::Element(e)) => e as i32,
            Some(PoolHit::Summarized) => -2,
            Some(PoolHit::Envelope(p)) | Some(PoolHit::PoolSummarized(p)) => -10 - p as i32,
            None => -1,
        }
    }

    fn pinned_element(&self, _cx: &Context) -> Option<u32> {
        element(self.pinned)
    }

    fn pin_element(&mut self, cx: &mut Context, e: u32) {
        cx.show_element(e);
        if cx.timeline().is_some_and(|tl| (e as usize) < tl.elements.len()) {
            self.pinned = Some(PoolHit::Element(e));
        }
    }
}
