//! The Active Memory Timeline and the Active Cached Segment Timeline: the
//! bands of `Context`'s timeline, hovered and pinned in `Context`.

use memviz_core::timeline::{DetailView, Hit, TimelineKind};
use memviz_render::BandIndex;

use crate::context::{Context, PlotRect};
use crate::view::{Axes, PlotFrame, Selection, View, ViewKind};
use crate::xaxis::XMode;

pub struct TimelineView {
    pub kind: TimelineKind,
}

/// What the axes overlay shows now; drawn again only when it changes.
pub(crate) type AxesKey = (u64, u64, u64, u32, u32, u64, TimelineKind, XMode, u64);

impl TimelineView {
    /// The x axis' title.
    fn x_desc(&self) -> &'static str {
        match self.kind {
            TimelineKind::ActiveMemory => "alloc / free action (step)",
            TimelineKind::CachedSegments => "segment alloc / free action (step)",
        }
    }
}

/// Detail follows the zoom: the slider's limit picks among the elements
/// live in the window (`DetailView::in_window`), so that zooming in draws
/// what the whole plot had to sum into the summarized band. Rebuilt when
/// the window's steps or the limit change, and only when the limit leaves
/// some element out (else every one is drawn anyway).
pub(crate) fn follow_zoom(cx: &mut Context) {
    let Some(tl) = cx.timeline() else { return };
    let n = tl.n_steps();
    let x0 = (cx.window.x0.floor().max(0.0) as u32).min(n);
    let x1 = (cx.window.x1.ceil().max(0.0) as u32).clamp(x0, n);
    let whole = (0, n);
    let want = if cx.limit as usize >= tl.elements.len() { whole } else { (x0, x1) };
    if cx.detail.as_ref().map(|d| (d.limit, d.window())) == Some((cx.limit, want)) {
        return;
    }
    let d = DetailView::in_window(tl, cx.limit, want.0, want.1);
    cx.bands = BandIndex::new(tl, &d);
    // A band no longer drawn is no longer hovered or pinned (as the slider).
    let drawn = |h: Option<Hit>| match h {
        Some(Hit::Element(e)) if !d.is_drawn(e) => None,
        h => h,
    };
    (cx.pinned, cx.hovered) = (drawn(cx.pinned), drawn(cx.hovered));
    cx.detail = Some(d);
}

impl View for TimelineView {
    fn name(&self) -> &'static str {
        match self.kind {
            TimelineKind::ActiveMemory => "Active Memory Timeline",
            TimelineKind::CachedSegments => "Active Cached Segment Timeline",
        }
    }

    fn kind(&self) -> ViewKind {
        ViewKind::Timeline
    }

    fn enter(&mut self, cx: &mut Context) {
        cx.kind = self.kind;
        cx.rebuild();
    }

    fn draw_plot(&mut self, cx: &mut Context, w: u32, h: u32) -> Option<PlotFrame> {
        let rect = PlotRect::in_canvas(w, h, cx.dpr);
        follow_zoom(cx);
        let stats = cx.render_timeline(rect);
        let (x0, x1) = (cx.window.x0.to_bits(), cx.window.x1.to_bits());
        let key = (x0, x1, cx.y_max, w, h, cx.dpr.to_bits(), cx.kind, cx.x_mode, cx.phase_band.to_bits());
        let axes = if cx.axes_key == Some(key) {
            Axes::Unchanged
        } else {
            cx.axes_key = Some(key);
            if cx.n_steps() > 0 {
                let peak = cx.peak();
                Axes::Draw(cx.axes_spec(rect, cx.y_max, peak, self.x_desc()))
            } else {
                Axes::Clear
            }
        };
        Some(PlotFrame { rect, bands_drawn: stats.bands_drawn, axes })
    }

    fn draw_selection(&mut self, cx: &mut Context) -> Selection {
        match cx.render_selection() {
            Some((x, y)) => Selection::At { x, y },
            None => Selection::Empty,
        }
    }

    fn hover(&mut self, cx: &mut Context, x: f64, y: f64) -> String {
        let hit = cx.hit_css(x, y);
        cx.hovered = hit;
        cx.hit_text(hit.or(cx.pinned))
    }

    fn leave(&mut self, cx: &mut Context) -> String {
        cx.hovered = None;
        cx.hit_text(cx.pinned)
    }

    fn click(&mut self, cx: &mut Context, x: f64, y: f64) -> String {
        let hit = cx.hit_css(x, y);
        cx.pinned = hit;
        cx.hit_text(hit)
    }

    fn hit_code(&mut self, cx: &mut Context, x: f64, y: f64) -> i32 {
        match cx.hit_css(x, y) {
            Some(Hit::Element(e)) => e as i32,
            Some(Hit::Summarized) => -2,
            None => -1,
        }
    }
}
