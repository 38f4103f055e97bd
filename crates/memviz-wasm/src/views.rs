//! The views beyond the two timelines: Allocated Memory (incl. Private
//! Pools), Allocator State History (event list + segment map), Allocator
//! Settings; plus search and the jumps between the timeline and the state
//! history. Kept apart from lib.rs / app.rs: those only dispatch here.
//!
//! The page's list of events is virtualized in JS: it asks for the lines of
//! the visible rows only (`state_lines`), so a 2,000,000-event trace costs
//! the same per frame as a small one.

use memviz_core::format::{format_allocator_settings, hover_text};
use memviz_core::pools::{PoolDetail, PoolHit, PrivatePools};
use memviz_core::search::{next_match, SearchIndex, SearchKind};
use memviz_core::segment_map::{event_line, MapHit, RectKind, StateView};
use memviz_core::timeline::{EventLinks, Hit};
use memviz_render::pools::{render_pools, PoolTotals};
use memviz_render::segment_map::{render_segment_map, MapGeometry};
use memviz_render::{self as render, Image, Window};
use wasm_bindgen::prelude::*;
use wasm_bindgen::Clamped;
use web_sys::{HtmlCanvasElement, ImageData};

use crate::app::{App, PlotRect, VIEWS};
use crate::{ctx2d, now_ms, RenderStats, Viewer};

/// Views after the timelines of [`VIEWS`], in the selector's order.
pub const EXTRA_VIEWS: [&str; 3] =
    ["Allocated Memory (incl. Private Pools)", "Allocator State History", "Allocator Settings"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// One of [`VIEWS`] (the app's own view index).
    #[default]
    Timeline,
    Pools,
    State,
    Settings,
}

impl Mode {
    fn index(self) -> Option<usize> {
        match self {
            Mode::Timeline => None,
            Mode::Pools => Some(VIEWS.len()),
            Mode::State => Some(VIEWS.len() + 1),
            Mode::Settings => Some(VIEWS.len() + 2),
        }
    }
    fn of(v: usize) -> Mode {
        match v.checked_sub(VIEWS.len()) {
            Some(0) => Mode::Pools,
            Some(1) => Mode::State,
            Some(2) => Mode::Settings,
            _ => Mode::Timeline,
        }
    }
}

/// (file, device) a cache belongs to.
type Key = (usize, u32);

/// What a search matched, in the view it was made in.
#[derive(Default)]
struct Search {
    /// (file, device, mode, app view) the matches belong to.
    key: (usize, u32, Option<usize>, usize),
    /// Element indices (timelines) or trace event indices (state history).
    matches: Vec<u32>,
    current: Option<u32>,
}

/// State of the extra views, held by [`Viewer`].
#[derive(Default)]
pub struct Views {
    pub mode: Mode,
    state: Option<(Key, StateView)>,
    /// Links of the Active Memory timeline (file, device).
    links: Option<(Key, EventLinks)>,
    index: Option<(usize, SearchIndex)>,
    pools: Option<(Key, PrivatePools)>,
    /// Pool detail at the app's detail limit.
    pool_detail: Option<((usize, u32, u32), PoolDetail)>,
    pub pool_hovered: Option<PoolHit>,
    pub pool_pinned: Option<PoolHit>,
    search: Search,
    map_img: Image,
    map_geom: MapGeometry,
    map_hover: Option<MapHit>,
    /// Device pixels the segment map is scrolled down.
    map_scroll: f64,
    /// Scroll the map to the selected event's segment on the next render.
    map_follow: bool,
}

fn key(app: &App) -> Key {
    (app.current, app.device)
}

impl Views {
    /// The state view of the current file and device, built on first use.
    fn state_view<'a>(&'a mut self, app: &App) -> Option<&'a mut StateView> {
        let f = app.file()?;
        let k = key(app);
        if self.state.as_ref().map(|s| s.0) != Some(k) {
            // One at a time: a 2M-event history is tens of MB.
            self.state = None;
            self.map_hover = None;
            self.map_scroll = 0.0;
            self.state = Some((k, StateView::new(&f.snap, &f.versions, app.device)));
        }
        self.state.as_mut().map(|s| &mut s.1)
    }

    /// The state history of the current file and device (built on first use).
    pub(crate) fn state_history<'a>(&'a mut self, app: &App) -> Option<&'a memviz_core::state::StateHistory> {
        self.state_view(app).map(|v| &v.history)
    }

    fn links<'a>(&'a mut self, app: &App) -> Option<&'a EventLinks> {
        let f = app.file()?;
        let tl = app.timeline()?;
        if app.view != 0 {
            return None;
        }
        let k = key(app);
        if self.links.as_ref().map(|l| l.0) != Some(k) {
            self.links = Some((k, EventLinks::new(&f.snap, tl)));
        }
        self.links.as_ref().map(|l| &l.1)
    }

    fn pools_ready(&mut self, app: &App) -> bool {
        let (Some(f), Some(tl), Some(dv)) = (app.file(), app.timeline(), app.detail.as_ref()) else {
            return false;
        };
        let k = key(app);
        if self.pools.as_ref().map(|p| p.0) != Some(k) {
            self.pools = Some((k, PrivatePools::build(&f.snap, tl)));
            self.pool_detail = None;
        }
        let dk = (k.0, k.1, app.limit);
        if self.pool_detail.as_ref().map(|p| p.0) != Some(dk) {
            let pp = &self.pools.as_ref().unwrap().1;
            self.pool_detail = Some((dk, PoolDetail::new(tl, pp, dv)));
        }
        true
    }

    fn search_key(&self, app: &App) -> (usize, u32, Option<usize>, usize) {
        (app.current, app.device, self.mode.index(), app.view)
    }
}

/// Appends a multi-line event line as one row: the continuation lines
/// (`(stream N)`) after two spaces, their indentation dropped.
fn one_line(out: &mut String, text: &str) {
    for (k, part) in text.split('\n').enumerate() {
        if k > 0 {
            out.push_str("  ");
        }
        out.push_str(if k > 0 { part.trim_start() } else { part });
    }
}

/// First line of a text (list entries).
fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

impl Viewer {
    /// The view index the selector shows.
    pub(crate) fn view_index(&self) -> usize {
        self.views.mode.index().unwrap_or(self.app.view)
    }

    /// Selects view `v` of the selector; the extra views run on the Active
    /// Memory timeline underneath (pools draw it, jumps link to it).
    pub(crate) fn select_view(&mut self, v: usize) {
        let mode = Mode::of(v);
        self.views.mode = mode;
        self.views.pool_hovered = None;
        self.views.pool_pinned = None;
        match mode {
            Mode::Timeline => self.app.set_view(v),
            _ if self.app.view != 0 => self.app.set_view(0),
            _ => {}
        }
    }

    /// Draws the pools view: bands (with envelopes) into `plot`, axes and
    /// the minimap as the timeline does.
    pub(crate) fn render_pools_view(
        &mut self,
        plot: &HtmlCanvasElement,
        axes: &HtmlCanvasElement,
        minimap: &HtmlCanvasElement,
    ) -> Result<RenderStats, JsError> {
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(0.5);
        let (w, h) = (plot.width(), plot.height());
        let rect = PlotRect::in_canvas(w, h, dpr);
        let t0 = now_ms();
        let ctx = ctx2d(plot)?;
        ctx.clear_rect(0.0, 0.0, w as f64, h as f64);
        if !self.views.pools_ready(&self.app) {
            return Ok(RenderStats::default());
        }
        let mut img = std::mem::take(&mut self.app.plot);
        img.reset(rect.w, rect.h, render::BACKGROUND);
        let window = self.app.window;
        let drawn = {
            let app = &self.app;
            match (app.timeline(), app.detail.as_ref()) {
                (Some(tl), Some(dv)) => {
                    let pp = &self.views.pools.as_ref().unwrap().1;
                    let pd = &self.views.pool_detail.as_ref().unwrap().1;
                    let cols = render::pick_columns(&PoolTotals(pp), window, rect.w);
                    let y_max = ((cols.max_total as f64) * 1.06).ceil().max(1.0) as u64;
                    let selected = match self.views.pool_hovered.or(self.views.pool_pinned) {
                        Some(PoolHit::Element(e)) => Some(e),
                        _ => None,
                    };
                    let st = render_pools(tl, pp, pd, dv, &cols, y_max, selected, &mut img);
                    let peak_step = (0..pp.total.len()).max_by_key(|&i| (pp.total[i], std::cmp::Reverse(i)));
                    let peak = peak_step.map(|i| (i as u32, pp.peak_bytes()));
                    Some((cols, y_max, st, peak, tl.n_steps()))
                }
                _ => None,
            }
        };
        self.app.plot = img;
        let Some((cols, y_max, st, peak, n_steps)) = drawn else {
            return Ok(RenderStats::default());
        };
        let app = &mut self.app;
        app.cols = cols;
        app.y_max = y_max;
        app.rect = Some(rect);
        let data = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&app.plot.rgba), rect.w, rect.h)
            .map_err(|_| JsError::new("ImageData"))?;
        ctx.put_image_data(&data, rect.x as f64, rect.y as f64).map_err(|_| JsError::new("putImageData"))?;
        let t1 = now_ms();
        // Axes every time: the pools view is redrawn only on interaction.
        let a0 = now_ms();
        if n_steps > 0 {
            crate::axes::draw(axes, rect, dpr, app.window, y_max, peak, "alloc / free action (step)")?;
        }
        self.axes_key = None;
        let axes_ms = now_ms() - a0;
        let (mw, mh) = (minimap.width(), minimap.height());
        self.app.render_minimap(mw, mh);
        let mimg = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&self.app.minimap.rgba), mw, mh)
            .map_err(|_| JsError::new("ImageData"))?;
        ctx2d(minimap)?.put_image_data(&mimg, 0.0, 0.0).map_err(|_| JsError::new("putImageData"))?;
        Ok(RenderStats {
            bands_ms: t1 - t0,
            axes_ms,
            bands_drawn: st.bands.min(u32::MAX as u64) as u32,
            columns: rect.w,
        })
    }

    /// What the pools view has at CSS (x, y) of the plot canvas.
    pub(crate) fn pools_hit(&mut self, x: f64, y: f64) -> Option<PoolHit> {
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(0.5);
        let r = self.app.rect?;
        let (px, py) = (x * dpr - r.x as f64, y * dpr - r.y as f64);
        if px < 0.0 || py < 0.0 || px >= r.w as f64 || py >= r.h as f64 {
            return None;
        }
        let (step, bytes) = render::pixel_to_point(&self.app.cols, self.app.y_max, r.h, px, py)?;
        if !self.views.pools_ready(&self.app) {
            return None;
        }
        let (tl, dv) = (self.app.timeline()?, self.app.detail.as_ref()?);
        let pp = &self.views.pools.as_ref()?.1;
        self.views.pool_detail.as_ref()?.1.hit(tl, pp, dv, step, bytes)
    }

    pub(crate) fn pools_text(&self, hit: Option<PoolHit>) -> String {
        let (Some(f), Some(tl)) = (self.app.file(), self.app.timeline()) else {
            return String::new();
        };
        let pool = |p: u32| self.views.pools.as_ref().and_then(|pp| pp.1.pools.get(p as usize));
        match hit {
            Some(PoolHit::Element(e)) if (e as usize) < tl.elements.len() => hover_text(&f.snap, tl, e),
            Some(PoolHit::Element(_)) => String::new(),
            Some(PoolHit::Envelope(p)) => pool(p).map(|e| e.text()).unwrap_or_default(),
            Some(PoolHit::PoolSummarized(p)) => pool(p)
                .map(|e| format!("Small tensors of Private Pool ({}) that were not plotted.", e.key()))
                .unwrap_or_default(),
            Some(PoolHit::Summarized) => self.app.hit_text(Some(Hit::Summarized)),
            None => String::new(),
        }
    }

    /// `hit_at`'s code for a pools hit: element index, -2 summarized, -1
    /// nothing, -(10 + pool) an envelope or its small blocks.
    pub(crate) fn pools_code(hit: Option<PoolHit>) -> i32 {
        match hit {
            Some(PoolHit::Element(e)) => e as i32,
            Some(PoolHit::Summarized) => -2,
            Some(PoolHit::Envelope(p)) | Some(PoolHit::PoolSummarized(p)) => -10 - p as i32,
            None => -1,
        }
    }

    /// Outlines-in-place of the search matches on the timeline plot: a tick
    /// at the top of the plot above each match's first step. Called between
    /// rasterizing and `putImageData`.
    pub(crate) fn decorate_plot(&mut self) {
        if self.views.search.key != self.views.search_key(&self.app) || self.views.search.matches.is_empty() {
            return;
        }
        let mut img = std::mem::take(&mut self.app.plot);
        self.tick_matches(&mut img);
        self.app.plot = img;
    }

    fn tick_matches(&self, img: &mut Image) {
        let Some(tl) = self.app.timeline() else { return };
        let cols = &self.app.cols.step;
        if cols.is_empty() || img.height == 0 {
            return;
        }
        // The column whose step range holds the match's first step.
        let win = self.app.window;
        let per_col = (win.x1 - win.x0) / cols.len() as f64;
        let tick = (img.height / 40).clamp(4, 12);
        for &e in &self.views.search.matches {
            let Some(el) = tl.elements.get(e as usize) else { continue };
            // Alive when the window starts: the first column.
            let c = ((el.x0 as f64 - win.x0) / per_col).floor().max(0.0);
            if c >= cols.len() as f64 || el.x1 as f64 <= win.x0 {
                continue;
            }
            let c = c as usize;
            let current = self.views.search.current == Some(e);
            let color = if current { render::OUTLINE } else { render::segment_map::WASTE };
            for x in c.saturating_sub(1)..(c + 2).min(img.width as usize) {
                for y in 0..tick {
                    img.put(x as u32, y, color);
                }
            }
        }
    }
}

#[wasm_bindgen]
impl Viewer {
    /// "timeline", "pools", "state" or "settings": what the page shows.
    pub fn view_kind(&self) -> String {
        match self.views.mode {
            Mode::Timeline => "timeline",
            Mode::Pools => "pools",
            Mode::State => "state",
            Mode::Settings => "settings",
        }
        .into()
    }

    // ---- Allocator Settings ------------------------------------------------

    /// The current file's allocator_settings, readable.
    pub fn allocator_settings_text(&self) -> String {
        self.app.file().map_or(String::new(), |f| format_allocator_settings(f.snap.allocator_settings.as_ref()))
    }

    // ---- Allocator State History ---------------------------------------------

    /// Rows of the event list (trace events of the current device).
    pub fn state_len(&mut self) -> u32 {
        self.views.state_view(&self.app).map_or(0, |s| s.len() as u32)
    }

    /// The selected event, -1 for none.
    pub fn state_selected(&mut self) -> i32 {
        self.views.state_view(&self.app).and_then(|s| s.selected()).map_or(-1, |i| i as i32)
    }

    /// Scrolls the segment map by `dy` CSS pixels (wheel); returns whether
    /// it moved.
    pub fn state_scroll(&mut self, dy: f64) -> bool {
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(0.5);
        let g = self.views.map_geom;
        let h = self.views.map_img.height as f64;
        if !dy.is_finite() {
            return false;
        }
        let y = (self.views.map_scroll + dy * dpr).clamp(0.0, (g.total_h - h).max(0.0)).round();
        let moved = y != self.views.map_scroll;
        self.views.map_scroll = y;
        moved
    }

    /// "rows a-b of n" when the map scrolls, "" when it fits.
    pub fn state_map_rows_text(&self) -> String {
        let g = self.views.map_geom;
        let h = self.views.map_img.height;
        if g.total_h <= h as f64 + 0.5 {
            return String::new();
        }
        let (a, b) = g.visible_rows(h);
        format!("rows {}–{} of {} (wheel scrolls the map)", a + 1, b, g.rows)
    }

    /// Selects the state right after event `i` (clamped).
    pub fn state_select(&mut self, i: u32) {
        let Some(f) = self.app.files.get(self.app.current) else { return };
        self.views.map_hover = None;
        self.views.map_follow = true;
        if let Some(sv) = self.views.state_view(&self.app) {
            sv.select(&f.snap, i as usize);
        }
    }

    /// Moves the selection by `delta` events.
    pub fn state_step(&mut self, delta: i32) {
        let Some(f) = self.app.files.get(self.app.current) else { return };
        self.views.map_hover = None;
        self.views.map_follow = true;
        if let Some(sv) = self.views.state_view(&self.app) {
            sv.step(&f.snap, delta as i64);
        }
    }

    /// Lines of events `first..first + count`, joined by newlines.
    pub fn state_lines(&mut self, first: u32, count: u32) -> String {
        let Some(f) = self.app.files.get(self.app.current) else { return String::new() };
        let Some(sv) = self.views.state_view(&self.app) else { return String::new() };
        let end = (first as usize).saturating_add(count as usize).min(sv.len());
        let mut out = String::new();
        for i in first as usize..end {
            if i > first as usize {
                out.push('\n');
            }
            one_line(&mut out, &event_line(&f.snap, &f.versions, self.app.device, i));
        }
        out
    }

    /// The text under the list for event `i`: its line and stack, with the
    /// totals when it is the selected one.
    pub fn state_event_text(&mut self, i: u32) -> String {
        let Some(f) = self.app.files.get(self.app.current) else { return String::new() };
        self.views.state_view(&self.app).map_or(String::new(), |sv| sv.event_text(&f.snap, &f.versions, i as usize))
    }

    /// "X allocated / Y reserved" of the selected state.
    pub fn state_totals_text(&mut self) -> String {
        self.views.state_view(&self.app).map_or(String::new(), |s| s.totals_text())
    }

    /// Largest free block and how free bytes are split.
    pub fn state_fragmentation_text(&mut self) -> String {
        self.views.state_view(&self.app).map_or(String::new(), |s| s.fragmentation_text())
    }

    /// What the map cannot show as the file says (blocks outside every
    /// segment, blocks past their segment's end, the trace's disagreements
    /// with the dump), "" when nothing.
    pub fn state_issues_text(&mut self) -> String {
        self.views.state_view(&self.app).map_or(String::new(), |s| s.issues_text())
    }

    /// Numbers of the selected state, as `memviz state --json` names them.
    pub fn state_json(&mut self) -> String {
        let Some(sv) = self.views.state_view(&self.app) else { return "{}".into() };
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

    /// Draws the selected state's segment map into `canvas` (sized in device
    /// pixels by the page); returns the milliseconds it took.
    pub fn state_render(&mut self, canvas: &HtmlCanvasElement) -> Result<f64, JsError> {
        let t0 = now_ms();
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(0.5);
        let (w, h) = (canvas.width(), canvas.height());
        let hover = self.views.map_hover;
        let follow = std::mem::take(&mut self.views.map_follow);
        let scroll = self.views.map_scroll;
        let device = self.app.device;
        let event_addr = self.app.file().and_then(|f| {
            let sel = self.views.state.as_ref().and_then(|s| s.1.selected())?;
            let t = f.snap.trace(device);
            (sel < t.len()).then(|| t.addr(sel))
        });
        let mut img = std::mem::take(&mut self.views.map_img);
        img.reset(w, h, render::BACKGROUND);
        let Some(sv) = self.views.state_view(&self.app) else {
            self.views.map_img = img;
            return Ok(0.0);
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
        self.views.map_scroll = geom.y_off;
        self.views.map_geom = geom;
        let data = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&img.rgba), w, h)
            .map_err(|_| JsError::new("ImageData"))?;
        ctx2d(canvas)?.put_image_data(&data, 0.0, 0.0).map_err(|_| JsError::new("putImageData"))?;
        self.views.map_img = img;
        Ok(now_ms() - t0)
    }

    fn map_hit_css(&mut self, x: f64, y: f64) -> Option<MapHit> {
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(0.5);
        let (row, bytes, frac) = self.views.map_geom.to_map(x * dpr, y * dpr)?;
        self.views.state_view(&self.app)?.hit(row, bytes, frac)
    }

    /// Hover on the segment map at CSS (x, y): the text of the segment or
    /// block under it ("" for none). Returns whether something changed in
    /// `state_hover_changed`.
    pub fn state_hover(&mut self, x: f64, y: f64) -> String {
        let hit = self.map_hit_css(x, y);
        self.views.map_hover = hit;
        let Some(f) = self.app.files.get(self.app.current) else { return String::new() };
        match (hit, self.views.state_view(&self.app)) {
            (Some(h), Some(sv)) => sv.hit_text(&f.snap, h),
            _ => String::new(),
        }
    }

    /// What the map has at CSS (x, y): "segment", "block", "waste" or "".
    pub fn state_hit_kind(&mut self, x: f64, y: f64) -> String {
        match self.map_hit_css(x, y) {
            Some(MapHit::Segment(_)) => "segment",
            Some(MapHit::Block(..)) => "block",
            Some(MapHit::Waste(..)) => "waste",
            None => "",
        }
        .into()
    }

    /// CSS point of the segment map where the hover names a segment (over
    /// a free part of it), or a block when `block`, among the rows in view:
    /// `[x, y]`, empty when none is found.
    pub fn state_locate(&mut self, block: bool) -> Vec<f64> {
        let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(0.5);
        let g = self.views.map_geom;
        let h = self.views.map_img.height;
        let Some(sv) = self.views.state_view(&self.app) else { return vec![] };
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
                let px = x as f64 + 0.5;
                let Some((row, bytes, frac)) = g.to_map(px, y) else { continue };
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

    // ---- jumps ---------------------------------------------------------------

    /// The Active Memory element the selected event allocates or frees, -1
    /// for none.
    pub fn state_linked_element(&mut self) -> i32 {
        let sel = self.views.state_view(&self.app).and_then(|s| s.selected());
        match (sel, self.views.links(&self.app)) {
            (Some(i), Some(l)) => l.element_of_event(i).map_or(-1, |e| e as i32),
            _ => -1,
        }
    }

    /// From the state history to the Active Memory Timeline: pins the
    /// element of the selected event and shows the steps around it.
    /// Returns the element, -1 when the event has none.
    pub fn show_in_timeline(&mut self) -> i32 {
        let e = self.state_linked_element();
        if e < 0 {
            return -1;
        }
        self.select_view(0);
        self.show_element(e as u32);
        e
    }

    /// Pins element `e` of the current timeline and pans the window so that
    /// its life is in the middle third (keeping the zoom when it fits).
    pub fn show_element(&mut self, e: u32) {
        let Some(tl) = self.app.timeline() else { return };
        let Some(el) = tl.elements.get(e as usize) else { return };
        let n = tl.n_steps() as f64;
        let (a, b) = (el.x0 as f64, (el.x1 as f64).min(n).max(el.x0 as f64 + 1.0));
        let rank = tl.by_size.iter().position(|&x| x == e);
        // Zoom so that its life is about a third of the window (at least 64
        // steps), unless the current zoom already shows it whole.
        let (cur, life) = (self.app.window.x1 - self.app.window.x0, b - a);
        let want = (life * 3.0).max(64.0);
        let span = if cur >= life * 1.2 { cur.min(want) } else { want };
        let mid = (a + b) / 2.0;
        self.app.set_window(Window { x0: mid - span / 2.0, x1: mid + span / 2.0 });
        // Summarized elements are not drawn: draw them all up to this one.
        if let Some(d) = &self.app.detail {
            if !d.is_drawn(e) {
                if let Some(rank) = rank {
                    self.app.set_detail(rank as u32 + 1);
                }
            }
        }
        self.app.pinned = Some(Hit::Element(e));
        self.app.hovered = None;
        if self.views.mode == Mode::Pools {
            self.views.pool_pinned = Some(PoolHit::Element(e));
        }
    }

    /// The pinned element of the timeline, -1 for none.
    pub fn pinned_element(&self) -> i32 {
        let pinned = match self.views.mode {
            Mode::Pools => match self.views.pool_pinned {
                Some(PoolHit::Element(e)) => Some(e),
                _ => None,
            },
            _ => match self.app.pinned {
                Some(Hit::Element(e)) => Some(e),
                _ => None,
            },
        };
        pinned.map_or(-1, |e| e as i32)
    }

    /// The trace event the state history selects for element `e` of the
    /// Active Memory timeline (its alloc, else its free), -1 for none.
    pub fn element_event(&mut self, e: u32) -> i32 {
        if self.app.view != 0 {
            return -1;
        }
        let Some(l) = self.views.links(&self.app) else { return -1 };
        let Some(tl) = self.app.timeline() else { return -1 };
        l.event_for_element(tl, e).map_or(-1, |i| i as i32)
    }

    /// From the timeline to the state history at the pinned element's alloc
    /// event. Returns the event, -1 when it has none (a block from before
    /// recording that was never freed: the final state shows it).
    pub fn show_in_state(&mut self) -> i32 {
        let e = self.pinned_element();
        if e < 0 || self.app.view != 0 {
            return -1;
        }
        let ev = self.element_event(e as u32);
        if ev < 0 {
            return -1;
        }
        self.select_view(VIEWS.len() + 1);
        self.state_select(ev as u32);
        ev
    }

    // ---- search ----------------------------------------------------------------

    /// Searches the current view: `kind` "address" or "frame". Timelines
    /// match their elements (drawn or summarized), the state history its
    /// events. Returns the number of matches.
    pub fn search(&mut self, kind: &str, query: &str) -> u32 {
        let kind = if kind == "frame" { SearchKind::Frame } else { SearchKind::Address };
        let key = self.views.search_key(&self.app);
        let Some(f) = self.app.files.get(self.app.current) else { return 0 };
        if self.views.index.as_ref().map(|i| i.0) != Some(self.app.current) {
            self.views.index = Some((self.app.current, SearchIndex::new(&f.snap)));
        }
        let ix = &self.views.index.as_ref().unwrap().1;
        let matches = match self.views.mode {
            Mode::State => ix.search_events(&f.snap, &f.versions, self.app.device, kind, query),
            Mode::Settings => Vec::new(),
            _ => match self.app.timeline() {
                Some(tl) => ix.search_elements(&f.snap, tl, kind, query),
                None => Vec::new(),
            },
        };
        let n = matches.len() as u32;
        self.views.search = Search { key, matches, current: None };
        n
    }

    /// The matches of the last search in this view (first `limit`), one per
    /// line: `index<TAB>text`.
    pub fn search_list(&mut self, limit: u32) -> String {
        if self.views.search.key != self.views.search_key(&self.app) {
            return String::new();
        }
        let Some(f) = self.app.files.get(self.app.current) else { return String::new() };
        let mut out = String::new();
        let ms: Vec<u32> = self.views.search.matches.iter().take(limit as usize).copied().collect();
        for m in ms {
            let text = match self.views.mode {
                Mode::State => {
                    let mut s = String::new();
                    one_line(&mut s, &event_line(&f.snap, &f.versions, self.app.device, m as usize));
                    s
                }
                _ => match self.app.timeline() {
                    Some(tl) => first_line(&hover_text(&f.snap, tl, m)).to_string(),
                    None => String::new(),
                },
            };
            out.push_str(&format!("{m}\t{}\n", text.replace(['\n', '\t'], " ")));
        }
        out
    }

    /// Number of matches of the last search in this view.
    pub fn search_count(&self) -> u32 {
        if self.views.search.key != self.views.search_key(&self.app) {
            return 0;
        }
        self.views.search.matches.len() as u32
    }

    /// Steps to the next (or previous) match and shows it: selects the event
    /// (state history) or pins the element and pans to it. Returns it, -1
    /// without matches.
    pub fn search_next(&mut self, backwards: bool) -> i32 {
        if self.views.search.key != self.views.search_key(&self.app) {
            return -1;
        }
        let Some(m) = next_match(&self.views.search.matches, self.views.search.current, backwards) else {
            return -1;
        };
        self.search_show(m);
        m as i32
    }

    /// Shows match `m` (an element or event index of the current view).
    pub fn search_show(&mut self, m: u32) {
        self.views.search.current = Some(m);
        match self.views.mode {
            Mode::State => self.state_select(m),
            Mode::Settings => {}
            _ => self.show_element(m),
        }
    }

    /// Whether `m` (an event of the state history, an element of a
    /// timeline) is among the current view's matches.
    pub fn search_is_match(&self, m: u32) -> bool {
        self.views.search.key == self.views.search_key(&self.app) && self.views.search.matches.binary_search(&m).is_ok()
    }

    /// The match shown last, -1 for none.
    pub fn search_current(&self) -> i32 {
        self.views.search.current.map_or(-1, |m| m as i32)
    }
}
