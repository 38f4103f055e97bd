//! Allocator State History: the virtualized list of trace events (the page
//! asks for the lines of the visible rows only, so a 2,000,000-event trace
//! costs the same per frame as a small one) and the segment map of the
//! state right after the selected event, scrolled by the wheel.

use memviz_core::search::{SearchIndex, SearchKind};
use memviz_core::segment_map::{event_line, MapHit, RectKind, StateView};
use memviz_core::state::{StateHistory, StateHistoryBuilder};
use memviz_render::segment_map::{render_segment_map, MapGeometry};
use memviz_render::{self as render, Image};

use crate::context::Context;
use crate::view::{View, ViewKind};

#[derive(Default)]
pub struct StateHistoryView {
    /// The history of (file, device): one at a time, a 2M-event history is
    /// tens of MB.
    state: Option<((usize, u32), StateView)>,
    /// The segment map as last drawn, and its geometry (for hit testing).
    image: Image,
    geometry: MapGeometry,
    hovered: Option<MapHit>,
    /// Device pixels the segment map is scrolled down.
    scroll: f64,
    /// Scroll the map to the selected event's segment on the next draw.
    follow: bool,
    /// The history of (file, device) being walked in steps (`prepare_step`).
    building: Option<((usize, u32), Box<StateHistoryBuilder>)>,
}

/// CSS px of a row of the event list (style.css: `#event-rows div`).
pub const ROW: f64 = 18.0;
/// Browsers cap element heights (Chrome at about 33.5M px): past this the
/// list's spacer stays this tall and the scroll maps proportionally onto rows.
pub const MAX_SPACER: f64 = 4e6;

/// The virtualized event list: `n` rows in a list `height` CSS px tall.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ListGeom {
    n: usize,
    /// Rows a screen holds.
    pub vis: usize,
    height: f64,
    /// The spacer's CSS height.
    pub spacer: f64,
    /// The spacer is capped: a scroll top maps onto rows proportionally.
    scaled: bool,
}

impl ListGeom {
    pub fn new(n: usize, height: f64) -> ListGeom {
        let height = if height.is_finite() { height.max(0.0) } else { 0.0 };
        let total = n as f64 * ROW;
        let spacer = total.min(MAX_SPACER);
        ListGeom { n, vis: ((height / ROW).ceil() as usize).max(1), height, spacer, scaled: total > spacer }
    }

    /// The highest scroll top.
    fn max_top(&self) -> f64 {
        (self.spacer - self.height).max(0.0)
    }

    /// The row at the top at scroll top `top`.
    fn first_at(&self, top: f64) -> usize {
        let top = if top.is_finite() { top.max(0.0) } else { 0.0 };
        if self.scaled {
            (top / self.max_top().max(1.0) * self.n.saturating_sub(self.vis) as f64).round() as usize
        } else {
            (top / ROW).floor() as usize
        }
    }

    /// The rows to fill at scroll top `top`: (first, count), a row more
    /// than a screen for the one cut at the bottom.
    pub fn rows(&self, top: f64) -> (usize, usize) {
        let first = self.first_at(top).min(self.n.saturating_sub(self.vis));
        (first, (self.vis + 1).min(self.n - first))
    }

    /// Where the rows from `first` go at scroll top `top`, CSS px.
    pub fn offset(&self, first: usize, top: f64) -> f64 {
        if self.scaled {
            top
        } else {
            first as f64 * ROW
        }
    }

    /// The scroll top that shows row `sel` from scroll top `top`, None
    /// when it shows already (not in the first or last row, which may be cut).
    pub fn follow(&self, sel: usize, top: f64) -> Option<f64> {
        let first = self.first_at(top);
        if sel > first && sel + 1 < first + self.vis {
            return None;
        }
        let to = if !self.scaled {
            let y = sel as f64 * ROW;
            if y < top {
                y
            } else {
                y + ROW - self.height
            }
        } else {
            let target = if sel < first { sel } else { (sel + 2).saturating_sub(self.vis) };
            target as f64 / self.n.saturating_sub(self.vis).max(1) as f64 * self.max_top().max(1.0)
        };
        Some(to.clamp(0.0, self.max_top()))
    }
}

/// Appends a multi-line event line as one row: the continuation lines
/// (`(stream N)`) after two spaces, their indentation dropped.
pub(crate) fn one_line(out: &mut String, text: &str) {
    for (k, part) in text.split('\n').enumerate() {
        if k > 0 {
            out.push_str("  ");
        }
        out.push_str(if k > 0 { part.trim_start() } else { part });
    }
}

impl StateHistoryView {
    /// The state view of the current file and device, built on first use.
    pub fn view<'a>(&'a mut self, cx: &Context) -> Option<&'a mut StateView> {
        let f = cx.file()?;
        let k = cx.key();
        if self.state.as_ref().map(|s| s.0) != Some(k) {
            self.state = None;
            self.hovered = None;
            self.scroll = 0.0;
            let view = match self.building.take() {
                Some((bk, b)) if bk == k => StateView::of(&f.snap, b.finish(&f.snap)),
                _ => StateView::new(&f.snap, f.versions(), cx.device),
            };
            self.state = Some((k, view));
        }
        self.state.as_mut().map(|s| &mut s.1)
    }

    /// Builds the history of the current file and device ahead of the view,
    /// about `budget` trace events a call, so that the page can walk a long
    /// trace a slice a frame; the share walked, 1.0 once it is built (0.0
    /// while the file's address versions are on their way).
    pub fn prepare_step(&mut self, cx: &Context, budget: usize) -> f64 {
        let Some(f) = cx.file() else { return 1.0 };
        let k = cx.key();
        if self.state.as_ref().is_some_and(|s| s.0 == k) {
            return 1.0;
        }
        let b = match &mut self.building {
            Some((bk, b)) if *bk == k => b,
            other => {
                // The address versions come from the worker after the first
                // paint: wait for them, a call a frame, rather than compute
                // them here in one call (44 ms on the 2M-event file).
                let Some(v) = f.versions_now() else { return 0.0 };
                let b = StateHistoryBuilder::new(&f.snap, cx.device, Some(v));
                &mut other.insert((k, Box::new(b))).1
            }
        };
        let n = f.snap.trace(cx.device).len();
        if b.walked() == n {
            // The view's first state and its map, in a call of their own.
            self.view(cx);
            return 0.999;
        }
        b.step(&f.snap, budget);
        (b.walked() as f64 / n.max(1) as f64).min(0.999)
    }

    /// The state history of the current file and device (built on first use).
    pub fn history<'a>(&'a mut self, cx: &Context) -> Option<&'a StateHistory> {
        self.view(cx).map(|v| &v.history)
    }

    /// Rows of the event list.
    pub fn len(&mut self, cx: &Context) -> usize {
        self.view(cx).map_or(0, |s| s.len())
    }

    /// The selected event.
    pub fn selected(&mut self, cx: &Context) -> Option<usize> {
        self.view(cx).and_then(|s| s.selected())
    }

    /// Selects the state right after event `i` (clamped).
    pub fn select(&mut self, cx: &Context, i: usize) {
        let Some(f) = cx.file() else { return };
        self.hovered = None;
        self.follow = true;
        if let Some(sv) = self.view(cx) {
            sv.select(&f.snap, i);
        }
    }

    /// Moves the selection by `delta` events.
    pub fn step(&mut self, cx: &Context, delta: i64) {
        let Some(f) = cx.file() else { return };
        self.hovered = None;
        self.follow = true;
        if let Some(sv) = self.view(cx) {
            sv.step(&f.snap, delta);
        }
    }

    /// Key `key` on the list (`height` CSS px tall) or the map: whether it
    /// was theirs (↑/↓ an event, PageUp/PageDown a screen, Home/End).
    pub fn key(&mut self, cx: &Context, key: &str, height: f64) -> bool {
        let page = ListGeom::new(0, height).vis.saturating_sub(1).max(1) as i64;
        match key {
            "ArrowDown" | "ArrowUp" | "PageDown" | "PageUp" => {
                let delta = if key.starts_with("Page") { page } else { 1 };
                self.step(cx, if matches!(key, "ArrowUp" | "PageUp") { -delta } else { delta })
            }
            "Home" => self.select(cx, 0),
            "End" => {
                let n = self.len(cx);
                self.select(cx, n.saturating_sub(1))
            }
            _ => return false,
        }
        true
    }

    /// Scrolls the segment map by `dy` CSS pixels; whether it moved.
    pub fn scroll(&mut self, cx: &Context, dy: f64) -> bool {
        if !dy.is_finite() {
            return false;
        }
        let h = self.image.height as f64;
        let y = (self.scroll + dy * cx.dpr).clamp(0.0, (self.geometry.total_h - h).max(0.0)).round();
        let moved = y != self.scroll;
        self.scroll = y;
        moved
    }

    /// "rows a-b of n" when the map scrolls, "" when it fits.
    pub fn rows_text(&self) -> String {
        let (g, h) = (self.geometry, self.image.height);
        if g.total_h <= h as f64 + 0.5 {
            return String::new();
        }
        let (a, b) = g.visible_rows(h);
        format!("rows {}–{} of {} (wheel scrolls the map)", a + 1, b, g.rows)
    }

    /// Lines of events `first..first + count`, joined by newlines.
    pub fn lines(&mut self, cx: &Context, first: usize, count: usize) -> String {
        self.rows(cx, first, count).join("\n")
    }

    /// The list's rows for events `first..first + count` (fewer past the
    /// end), one line each.
    pub fn rows(&mut self, cx: &Context, first: usize, count: usize) -> Vec<String> {
        let Some(f) = cx.file() else { return Vec::new() };
        let Some(sv) = self.view(cx) else { return Vec::new() };
        let end = first.saturating_add(count).min(sv.len());
        (first..end)
            .map(|i| {
                let mut out = String::new();
                one_line(&mut out, &event_line(&f.snap, f.versions(), cx.device, i));
                out
            })
            .collect()
    }

    /// The text under the list for event `i`: its line and stack, with the
    /// totals when it is the selected one.
    pub fn event_text(&mut self, cx: &Context, i: usize) -> String {
        let Some(f) = cx.file() else { return String::new() };
        self.view(cx).map_or(String::new(), |sv| sv.event_text(&f.snap, f.versions(), i))
    }

    /// Numbers of the selected state, as `memviz state --json` names them.
    pub fn json(&mut self, cx: &Context) -> String {
        let Some(sv) = self.view(cx) else { return "{}".into() };
        let st = &sv.state;
        serde_json::json!({
            "event": st.event,
            "reserved_bytes": st.totals.reserved_bytes,
            "allocated_bytes": st.totals.allocated_bytes,
            "segments": st.totals.segments,
            "blocks": st.totals.blocks,
            "pending_free_blocks": st.totals.pending_free_blocks,
            "free_bytes": st.free_bytes,
            "largest_free_bytes": st.largest_free_bytes,
            "free_pieces": st.free_pieces,
            "rows": sv.map.rows,
            "rects": sv.map.rects.len(),
        })
        .to_string()
    }

    /// Draws the selected state's segment map for a canvas of `w` x `h`
    /// device pixels; None without a file.
    pub fn draw(&mut self, cx: &Context, w: u32, h: u32) -> Option<&Image> {
        let dpr = cx.dpr;
        let (hover, scroll) = (self.hovered, self.scroll);
        let follow = std::mem::take(&mut self.follow);
        let event_addr = cx.file().and_then(|f| {
            let sel = self.state.as_ref().and_then(|s| s.1.selected())?;
            let t = f.snap.trace(cx.device);
            (sel < t.len()).then(|| t.addr(sel))
        });
        let mut img = std::mem::take(&mut self.image);
        img.reset(w, h, render::BACKGROUND);
        let Some(sv) = self.view(cx) else {
            self.image = img;
            return None;
        };
        let hovered: Vec<usize> = match hover {
            Some(hit) => sv
                .map
                .rects
                .iter()
                .enumerate()
                .filter(|(_, r)| match hit {
                    MapHit::Segment(s) => r.kind == RectKind::Segment && r.segment == s,
                    MapHit::Block(s, b) | MapHit::Waste(s, b) => {
                        r.kind != RectKind::Segment && r.segment == s && r.block == b
                    }
                })
                .map(|(i, _)| i)
                .collect(),
            None => Vec::new(),
        };
        let (max_row, outline) = (48.0 * dpr, dpr.round().max(1.0) as u32);
        let mut y_off = scroll;
        if follow {
            // Keep the segment the selected event touched in view.
            let g = MapGeometry::new(&sv.map, w, h, max_row, 6.0 * outline as f64, y_off);
            let seg = event_addr.and_then(|a| {
                sv.state.segments.iter().position(|s| a >= s.address && a < s.address.saturating_add(s.size as u128))
            });
            if let Some(place) = seg.and_then(|s| sv.map.places.get(s)) {
                let top = place.row as f64 * g.row_h;
                if top < g.y_off || top + g.row_h > g.y_off + h as f64 {
                    y_off = top - h as f64 / 3.0;
                }
            }
        }
        let geom = render_segment_map(&sv.map, &mut img, max_row, outline, Some(&hovered), y_off);
        self.scroll = geom.y_off;
        self.geometry = geom;
        self.image = img;
        Some(&self.image)
    }

    /// What the map has at CSS (x, y).
    pub fn hit(&mut self, cx: &Context, x: f64, y: f64) -> Option<MapHit> {
        let (row, bytes, frac) = self.geometry.to_map(x * cx.dpr, y * cx.dpr)?;
        self.view(cx)?.hit(row, bytes, frac)
    }

    /// Hover at CSS (x, y): the text of the segment or block under it.
    pub fn hover(&mut self, cx: &Context, x: f64, y: f64) -> String {
        let hit = self.hit(cx, x, y);
        self.hovered = hit;
        let Some(f) = cx.file() else { return String::new() };
        match (hit, self.view(cx)) {
            (Some(h), Some(sv)) => sv.hit_text(&f.snap, h),
            _ => String::new(),
        }
    }

    /// CSS point of the segment map where the hover names a segment (over
    /// a free part of it), or a block when `block`, among the rows in view:
    /// `[x, y]`, empty when none is found.
    pub fn locate(&mut self, cx: &Context, block: bool) -> Vec<f64> {
        let (g, h, dpr) = (self.geometry, self.image.height, cx.dpr);
        let Some(sv) = self.view(cx) else { return vec![] };
        let (first, end) = g.visible_rows(h);
        for r in sv.map.rects.iter().filter(|r| r.kind == RectKind::Segment && r.row >= first && r.row < end) {
            let Some((x0, y0, x1, y1)) = g.rect_px(r) else { continue };
            // Rows cut by the scroll are skipped: their middle may be hidden.
            if r.row as f64 * g.row_h < g.y_off || y1 > h {
                continue;
            }
            let y = ((y0 + y1) as f64 / 2.0).floor() + 0.5;
            // The middle of the first run of matching pixels.
            let mut run: Option<(u32, u32)> = None;
            for x in x0..x1 {
                let Some((row, bytes, frac)) = g.to_map(x as f64 + 0.5, y) else { continue };
                let ok = match sv.hit(row, bytes, frac) {
                    Some(MapHit::Segment(s)) => !block && s == r.segment,
                    Some(MapHit::Block(s, _)) => block && s == r.segment,
                    _ => false,
                };
                match (ok, run) {
                    (true, None) => run = Some((x, x)),
                    (true, Some((a, _))) => run = Some((a, x)),
                    (false, Some(_)) => break,
                    _ => {}
                }
            }
            if let Some((a, b)) = run {
                return vec![(a + b) as f64 / 2.0 / dpr + 0.5 / dpr, y / dpr];
            }
        }
        vec![]
    }
}

impl View for StateHistoryView {
    fn name(&self) -> &'static str {
        "Allocator State History"
    }

    fn kind(&self) -> ViewKind {
        ViewKind::State
    }

    /// The Active Memory timeline stays underneath (jumps link to it).
    fn enter(&mut self, cx: &mut Context) {
        cx.use_active_memory();
    }

    fn show(&mut self, cx: &mut Context, m: u32) {
        self.select(cx, m as usize);
    }

    fn search(&self, cx: &Context, index: &SearchIndex, kind: SearchKind, query: &str) -> Vec<u32> {
        cx.file().map_or(Vec::new(), |f| index.search_events(&f.snap, f.versions(), cx.device, kind, query))
    }

    fn match_line(&self, cx: &Context, m: u32) -> String {
        let mut s = String::new();
        if let Some(f) = cx.file() {
            one_line(&mut s, &event_line(&f.snap, f.versions(), cx.device, m as usize));
        }
        s
    }
}
