//! The page's API for the views beyond the timelines: Allocator Settings,
//! Allocator State History (event list + segment map), search and the jumps
//! between the timeline and the state history. Each forwards to
//! memviz_viewer; the segment map's pixels go to the canvas here.

use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::{now_ms, or_minus_one, put, Viewer};

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

    /// One step of long work (memviz_viewer::work): a `Work` in, its
    /// `Progress` out; the page calls it a slice a frame while busy.
    pub fn tick(&mut self, work: JsValue) -> Result<JsValue, JsValue> {
        let work = crate::boundary::from_js(&work)?;
        Ok(crate::boundary::to_js(&self.inner.tick(work)))
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

    /// Selects the state right after event `i` (clamped).
    pub fn state_select(&mut self, i: u32) {
        let v = &mut self.inner;
        v.views.state.select(&v.cx, i as usize);
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

    /// CSS point of the segment map where the hover names a segment (over
    /// a free part of it), or a block when `block`, among the rows in view:
    /// `[x, y]`, empty when none is found.
    pub fn state_locate(&mut self, block: bool) -> Vec<f64> {
        let v = self.at_dpr();
        v.views.state.locate(&v.cx, block)
    }

    // ---- jumps -------------------------------------------------------------

    /// Pins element `e` of the current timeline and pans the window so that
    /// its life is in the middle third (keeping the zoom when it fits).
    pub fn show_element(&mut self, e: u32) {
        self.inner.show_element(e);
    }

    /// The pinned element of the timeline, -1 for none.
    pub fn pinned_element(&self) -> i32 {
        or_minus_one(self.inner.pinned_element())
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
}
