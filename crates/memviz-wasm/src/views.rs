//! The page's API for the views beyond the timelines: Allocator Settings,
//! Allocator State History (event list + segment map), search and the jumps
//! between the timeline and the state history. Each forwards to
//! memviz_viewer; the segment map's pixels go to the canvas here.

use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::{now_ms, or_minus_one, put, Viewer};
use memviz_core::segment_map::MapHit;

#[wasm_bindgen]
impl Viewer {
    /// "timeline", "pools", "state" or "settings": what the page shows.
    pub fn view_kind(&self) -> String {
        self.inner.view_kind().as_str().into()
    }

    /// Whether "Color by" changes what the current view draws (the page
    /// shows the control only then).
    pub fn color_by_acts(&self) -> bool {
        self.inner.color_by_acts()
    }

    /// Builds what showing view `i` needs, about `budget` trace events a
    /// call (www/app.js: a slice a frame before `set_view`); the share
    /// done, 1 once ready.
    pub fn prepare_view_step(&mut self, i: u32, budget: u32) -> f64 {
        self.inner.prepare_view_step(i as usize, budget as usize)
    }

    // ---- Allocator Settings ------------------------------------------------

    /// The current file's allocator_settings, readable.
    pub fn allocator_settings_text(&self) -> String {
        self.inner.allocator_settings_text()
    }

    // ---- Allocator State History -------------------------------------------

    /// Rows of the event list (trace events of the current device).
    pub fn state_len(&mut self) -> u32 {
        let v = &mut self.inner;
        v.views.state.len(&v.cx) as u32
    }

    /// The selected event, -1 for none.
    pub fn state_selected(&mut self) -> i32 {
        let v = &mut self.inner;
        v.views.state.selected(&v.cx).map_or(-1, |i| i as i32)
    }

    /// Scrolls the segment map by `dy` CSS pixels (wheel); returns whether
    /// it moved.
    pub fn state_scroll(&mut self, dy: f64) -> bool {
        let v = self.at_dpr();
        v.views.state.scroll(&v.cx, dy)
    }

    /// "rows a-b of n" when the map scrolls, "" when it fits.
    pub fn state_map_rows_text(&self) -> String {
        self.inner.views.state.rows_text()
    }

    /// Selects the state right after event `i` (clamped).
    pub fn state_select(&mut self, i: u32) {
        let v = &mut self.inner;
        v.views.state.select(&v.cx, i as usize);
    }

    /// Moves the selection by `delta` events.
    pub fn state_step(&mut self, delta: i32) {
        let v = &mut self.inner;
        v.views.state.step(&v.cx, delta as i64);
    }

    /// Lines of events `first..first + count`, joined by newlines.
    pub fn state_lines(&mut self, first: u32, count: u32) -> String {
        let v = &mut self.inner;
        v.views.state.lines(&v.cx, first as usize, count as usize)
    }

    /// The text under the list for event `i`: its line and stack, with the
    /// totals when it is the selected one.
    pub fn state_event_text(&mut self, i: u32) -> String {
        let v = &mut self.inner;
        v.views.state.event_text(&v.cx, i as usize)
    }

    /// "X allocated / Y reserved" of the selected state.
    pub fn state_totals_text(&mut self) -> String {
        let v = &mut self.inner;
        v.views.state.view(&v.cx).map_or(String::new(), |s| s.totals_text())
    }

    /// Largest free block and how free bytes are split.
    pub fn state_fragmentation_text(&mut self) -> String {
        let v = &mut self.inner;
        v.views.state.view(&v.cx).map_or(String::new(), |s| s.fragmentation_text())
    }

    /// What the map cannot show as the file says (blocks outside every
    /// segment, blocks past their segment's end, the trace's disagreements
    /// with the dump), "" when nothing.
    pub fn state_issues_text(&mut self) -> String {
        let v = &mut self.inner;
        v.views.state.view(&v.cx).map_or(String::new(), |s| s.issues_text())
    }

    /// Numbers of the selected state, as `memviz state --json` names them.
    pub fn state_json(&mut self) -> String {
        let v = &mut self.inner;
        v.views.state.json(&v.cx)
    }

    /// Draws the selected state's segment map into `canvas` (sized in device
    /// pixels by the page); returns the milliseconds it took.
    pub fn state_render(&mut self, canvas: &HtmlCanvasElement) -> Result<f64, JsError> {
        let t0 = now_ms();
        let v = self.at_dpr();
        if let Some(img) = v.views.state.draw(&v.cx, canvas.width(), canvas.height()) {
            put(canvas, img, 0, 0)?;
            return Ok(now_ms() - t0);
        }
        Ok(0.0)
    }

    /// Hover on the segment map at CSS (x, y): the text of the segment or
    /// block under it ("" for none).
    pub fn state_hover(&mut self, x: f64, y: f64) -> String {
        let v = self.at_dpr();
        v.views.state.hover(&v.cx, x, y)
    }

    /// What the map has at CSS (x, y): "segment", "block", "waste" or "".
    pub fn state_hit_kind(&mut self, x: f64, y: f64) -> String {
        let v = self.at_dpr();
        match v.views.state.hit(&v.cx, x, y) {
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
        let v = self.at_dpr();
        v.views.state.locate(&v.cx, block)
    }

    // ---- jumps -------------------------------------------------------------

    /// The Active Memory element the selected event allocates or frees, -1
    /// for none.
    pub fn state_linked_element(&mut self) -> i32 {
        or_minus_one(self.inner.state_linked_element())
    }

    /// From the state history to the Active Memory Timeline: pins the
    /// element of the selected event and shows the steps around it.
    /// Returns the element, -1 when the event has none.
    pub fn show_in_timeline(&mut self) -> i32 {
        or_minus_one(self.inner.show_in_timeline())
    }

    /// Pins element `e` of the current timeline and pans the window so that
    /// its life is in the middle third (keeping the zoom when it fits).
    pub fn show_element(&mut self, e: u32) {
        self.inner.show_element(e);
    }

    /// The pinned element of the timeline, -1 for none.
    pub fn pinned_element(&self) -> i32 {
        or_minus_one(self.inner.pinned_element())
    }

    /// The trace event the state history selects for element `e` of the
    /// Active Memory timeline (its alloc, else its free), -1 for none.
    pub fn element_event(&mut self, e: u32) -> i32 {
        or_minus_one(self.inner.element_event(e))
    }

    /// From the timeline to the state history at the pinned element's alloc
    /// event. Returns the event, -1 when it has none (a block from before
    /// recording that was never freed: the final state shows it).
    pub fn show_in_state(&mut self) -> i32 {
        or_minus_one(self.inner.show_in_state())
    }

    // ---- search ------------------------------------------------------------

    /// Searches the current view: `kind` "address" or "frame". Timelines
    /// match their elements (drawn or summarized), the state history its
    /// events. Returns the number of matches.
    pub fn search(&mut self, kind: &str, query: &str) -> u32 {
        self.inner.search(kind, query)
    }

    /// The matches of the last search in this view (first `limit`), one per
    /// line: `index<TAB>text`.
    pub fn search_list(&mut self, limit: u32) -> String {
        self.inner.search_list(limit as usize)
    }

    /// Number of matches of the last search in this view.
    pub fn search_count(&self) -> u32 {
        self.inner.search_count()
    }

    /// Steps to the next (or previous) match and shows it: selects the event
    /// (state history) or pins the element and pans to it. Returns it, -1
    /// without matches.
    pub fn search_next(&mut self, backwards: bool) -> i32 {
        or_minus_one(self.inner.search_next(backwards))
    }

    /// Shows match `m` (an element or event index of the current view).
    pub fn search_show(&mut self, m: u32) {
        self.inner.search_show(m);
    }

    /// Whether `m` (an event of the state history, an element of a
    /// timeline) is among the current view's matches.
    pub fn search_is_match(&self, m: u32) -> bool {
        self.inner.search_is_match(m)
    }

    /// The match shown last, -1 for none.
    pub fn search_current(&self) -> i32 {
        or_minus_one(self.inner.search_current())
    }
}
