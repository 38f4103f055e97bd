//! Search by address or stack-frame text in the current view: timelines
//! match their elements (drawn or summarized), the state history its
//! events. The matches belong to the (file, device, view) they were made in.

use memviz_core::search::{next_match, SearchIndex, SearchKind};

use crate::context::Context;
use crate::Viewer;

/// What a search matched, in the view it was made in.
#[derive(Default)]
pub(crate) struct Search {
    /// (file, device, view) the matches belong to.
    key: (usize, u32, usize),
    /// Element indices (timelines) or trace event indices (state history),
    /// ascending.
    pub(crate) matches: Vec<u32>,
    pub(crate) current: Option<u32>,
    /// The index of (file), built on the first search.
    index: Option<(usize, SearchIndex)>,
}

impl Search {
    /// Whether the matches are of the view shown now.
    pub(crate) fn is_for(&self, cx: &Context, view: usize) -> bool {
        self.key == (cx.current, cx.device, view)
    }
}

impl Viewer {
    /// Searches the current view: `kind` "address" or "frame". Returns the
    /// number of matches.
    pub fn search(&mut self, kind: &str, query: &str) -> u32 {
        let kind = if kind == "frame" { SearchKind::Frame } else { SearchKind::Address };
        let Some(f) = self.cx.file() else { return 0 };
        let s = &mut self.search;
        if s.index.as_ref().map(|i| i.0) != Some(self.cx.current) {
            s.index = Some((self.cx.current, SearchIndex::new(&f.snap)));
        }
        let Some((_, index)) = &s.index else { return 0 };
        s.matches = self.views.get(self.selected).search(&self.cx, index, kind, query);
        s.key = (self.cx.current, self.cx.device, self.selected);
        s.current = None;
        s.matches.len() as u32
    }

    /// The matches of the last search in this view (first `limit`), one per
    /// line: `index<TAB>text`.
    pub fn search_list(&self, limit: usize) -> String {
        if !self.search.is_for(&self.cx, self.selected) || self.cx.file().is_none() {
            return String::new();
        }
        let view = self.current_view();
        let mut out = String::new();
        for &m in self.search.matches.iter().take(limit) {
            let text = view.match_line(&self.cx, m);
            out.push_str(&format!("{m}\t{}\n", text.replace(['\n', '\t'], " ")));
        }
        out
    }

    /// Number of matches of the last search in this view.
    pub fn search_count(&self) -> u32 {
        if !self.search.is_for(&self.cx, self.selected) {
            return 0;
        }
        self.search.matches.len() as u32
    }

    /// Steps to the next (or previous) match and shows it: selects the event
    /// (state history) or pins the element and pans to it.
    pub fn search_next(&mut self, backwards: bool) -> Option<u32> {
        if !self.search.is_for(&self.cx, self.selected) {
            return None;
        }
        let m = next_match(&self.search.matches, self.search.current, backwards)?;
        self.search_show(m);
        Some(m)
    }

    /// Shows match `m` (an element or event index of the current view).
    pub fn search_show(&mut self, m: u32) {
        self.search.current = Some(m);
        self.views.get_mut(self.selected).show(&mut self.cx, m);
    }

    /// Whether `m` is among the current view's matches.
    pub fn search_is_match(&self, m: u32) -> bool {
        self.search.is_for(&self.cx, self.selected) && self.search.matches.binary_search(&m).is_ok()
    }

    /// The match shown last.
    pub fn search_current(&self) -> Option<u32> {
        self.search.current
    }
}
