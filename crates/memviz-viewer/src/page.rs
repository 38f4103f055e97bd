//! The viewer core's typed surface (issue 42): the page sends one
//! [`ViewCommand`] (a file, device or view chosen, the detail, the window,
//! the pointer, a search, a jump, the state history's selection) and gets
//! back one [`PageView`]: every control's items and values, the summary
//! line and the texts fully formatted here, keyed by views' ids (never by
//! their display names), with the viewer's generation so that the page
//! drops what a later file or device made stale. Pixels still go out by
//! the draw calls.
//!
//! What costs (the search list, the state history's rows, the hover card)
//! is in the reply only to the commands that ask for it.

use memviz_core::format::format_size;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::boundary::PageError;
use crate::view::ViewKind;
use crate::views;
use crate::Viewer;

/// A view of the selector, by what it is (its index is the selector's order).
#[derive(Serialize, Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ViewId {
    ActiveMemory,
    CachedSegments,
    Pools,
    State,
    Settings,
}

impl ViewId {
    pub const ALL: [ViewId; views::COUNT] =
        [ViewId::ActiveMemory, ViewId::CachedSegments, ViewId::Pools, ViewId::State, ViewId::Settings];

    /// The selector's index.
    pub fn index(self) -> usize {
        ViewId::ALL.iter().position(|&v| v == self).unwrap_or(0)
    }

    pub fn of(i: usize) -> ViewId {
        ViewId::ALL.get(i).copied().unwrap_or(ViewId::Settings)
    }
}

/// What a search matches.
#[derive(Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SearchBy {
    Address,
    Frame,
}

/// One thing the page asks of the viewer core.
#[derive(Deserialize, TS, Debug, Clone, PartialEq)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum ViewCommand {
    /// Nothing changes: the page view as it is.
    Get,
    SetFile {
        #[ts(type = "number")]
        file: usize,
        /// A device to show (else the file's default).
        device: Option<u32>,
    },
    SetDevice {
        device: u32,
    },
    /// Shows a view (what it needs built first: [`Viewer::prepare_view_step`]).
    SetView {
        view: ViewId,
    },
    SetDetail {
        detail: u32,
    },
    /// Shows steps `[x0, x1)` (clamped).
    SetWindow {
        x0: f64,
        x1: f64,
    },
    /// Zooms by `factor` (< 1 zooms in) around CSS x of the plot.
    Zoom {
        factor: f64,
        x: f64,
    },
    /// Pans by `dx` CSS pixels of the plot.
    Pan {
        dx: f64,
    },
    ResetWindow,
    /// Centers the window on the step at fraction `at` of the minimap.
    Center {
        at: f64,
    },
    /// Pointer at CSS (x, y) of the plot: `context` and `card` say what is
    /// under it, when that changed.
    Hover {
        x: f64,
        y: f64,
    },
    /// Pointer left the plot (the pinned band stays).
    Leave,
    /// Pins what is under CSS (x, y) of the plot (unpins over nothing).
    Click {
        x: f64,
        y: f64,
    },
    /// Pins element `element` of the timeline and pans to it.
    ShowElement {
        element: u32,
    },
    /// Searches the current view; `search` lists the matches.
    Search {
        by: SearchBy,
        text: String,
    },
    /// The next (or previous) match, shown.
    SearchNext {
        backwards: bool,
    },
    /// Match `index` (an element or event), shown.
    SearchShow {
        index: u32,
    },
    /// The state history: event `event` selected.
    StateSelect {
        #[ts(type = "number")]
        event: usize,
    },
    /// The state history: the selection moved by `delta` events.
    StateStep {
        #[ts(type = "number")]
        delta: i64,
    },
    /// The state history's list rows `first..first + count`, in `state`.
    StateRows {
        #[ts(type = "number")]
        first: usize,
        #[ts(type = "number")]
        count: usize,
    },
    /// The text of the state history's event `event` (the list's hover).
    StateEvent {
        #[ts(type = "number")]
        event: usize,
    },
    /// The trace event of the pinned element, in `target` (the page then
    /// shows the state history and selects it), else a `note` why none.
    ShowInState,
    /// The Active Memory element of the selected event, in `target` (the
    /// page then shows the timeline and that element).
    ShowInTimeline,
    /// What is under CSS (x, y) of the plot, in `value` (as `PointerView.hit`),
    /// the pointer left as it is.
    HitAt {
        x: f64,
        y: f64,
    },
    /// The step of the plot under CSS x (rounded, clamped), in `value`.
    StepAtX {
        x: f64,
    },
    /// The CSS x of step `step` on the plot as last drawn, in `value`
    /// (null before a draw).
    XOfStep {
        step: f64,
    },
    /// Element `element` of the timeline: its text in `text`.
    Element {
        element: u32,
    },
    /// In `point`, the CSS point of the plot where element `element` can be
    /// hovered (the middle of its band where it is thickest), null when it
    /// is not drawn (a scan of the plot: tests and the page's jumps).
    Locate {
        element: u32,
    },
    /// Builds ahead what the first hover would (the page sends it when idle
    /// after a draw).
    PrepareHover,
    /// Builds the analysis and, when `state`, the state history, a step of
    /// about `budget` trace events or elements: the share done in `value`
    /// (1 once built).
    AnalysisStep {
        budget: u32,
        state: bool,
    },
    /// The current device's exact numbers (`memviz summary --json`), in `numbers`.
    Numbers,
    /// The middle y of the first band from CSS y going `dir` (-1 up, +1
    /// down) at CSS x of a plot `height` CSS pixels high, in `value` (the
    /// keyboard's ↑/↓).
    NextBand {
        x: f64,
        y: f64,
        dir: i8,
        height: f64,
    },
    /// The minimap dragged from fraction `from` of its width to `to`: the
    /// window between their steps once they are a step apart (`value` 1,
    /// else 0 and nothing changes).
    Brush {
        from: f64,
        to: f64,
    },
    /// Scrolls the segment map by `dy` CSS pixels: `value` 1 when it moved, else 0.
    StateScroll {
        dy: f64,
    },
    /// The segment map at CSS (x, y): the segment or block under it in `text`.
    StateHover {
        x: f64,
        y: f64,
    },
    /// A CSS point of the segment map over a segment (or a block when
    /// `block`) among the rows in view, in `point`.
    StateLocate {
        block: bool,
    },
    /// Key `key` on a plot of `width` x `height` CSS px, at the keyboard
    /// cursor (placed on first use): what it did in `key`, the hover or pin
    /// at the cursor in `pointer`. "" hovers at the cursor (a focus, a draw
    /// after the window moved).
    PlotKey {
        key: String,
        shift: bool,
        width: f64,
        height: f64,
    },
    /// The state history's event list, `height` CSS px tall and scrolled to
    /// `scroll_top`: its visible rows and geometry in `state` (`follow`:
    /// scrolled first so that the selected event shows).
    StateList {
        scroll_top: f64,
        height: f64,
        follow: bool,
    },
    /// Key `key` on the state history's list (`height` CSS px tall) or map:
    /// `value` 1 when it moved the selection.
    StateKey {
        key: String,
        height: f64,
    },
    /// Pointer event `on` at CSS (x, y) of the plot or of the minimap
    /// (`mini`, `width` CSS px wide), `dy` the wheel's: what it did in `key`
    /// (as a key's), the hover or pin in `pointer` (pointer.rs).
    Pointer {
        on: crate::pointer::PointerOn,
        mini: bool,
        x: f64,
        y: f64,
        width: f64,
        dy: f64,
    },
}

/// An item of a selector.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct Choice {
    #[ts(type = "number")]
    pub value: u64,
    pub label: String,
}

/// A view of the selector.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct ViewChoice {
    pub id: ViewId,
    pub name: String,
}

/// One number of the summary line: `label` then `text` in bold; `key`
/// names it as `memviz summary --json` does, `value` is exact.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct SummaryItem {
    pub key: String,
    pub value: f64,
    pub label: String,
    pub text: String,
}

/// The hover card of an element: `head`'s first line in bold, the notes
/// under it, the user's frames, the rest folded behind `fold`.
#[derive(Serialize, Deserialize, TS, Debug, Clone, PartialEq, Default)]
pub struct Card {
    pub head: String,
    pub frames: Vec<String>,
    /// "+42 frames in torch and C++"; "" when nothing is folded.
    pub fold: String,
    pub folded: Vec<String>,
    pub tail: String,
}

/// What the pointer is over, after Hover, Leave, Click, ShowElement.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct PointerView {
    /// Element index, -1 for none, -2 for the summarized band, -(10 + pool)
    /// for a private pool's envelope.
    pub hit: i32,
    /// Whether `hit` differs from the last command's (the page redraws the
    /// outline and the card only then).
    pub changed: bool,
    /// The memory_viz text of what is under the pointer (or pinned).
    pub context: String,
    /// The hover card of `hit` (or of the pinned element after a click).
    pub card: Option<Card>,
}

/// A match of the last search.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct Match {
    pub index: u32,
    pub text: String,
}

/// The last search in this view.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct SearchView {
    pub count: u32,
    /// "3 matches (Enter: next)".
    pub count_text: String,
    /// The first [`SEARCH_LIST_MAX`] matches.
    pub matches: Vec<Match>,
    /// "… 12 more (Enter steps through all)", "" when all are listed.
    pub more: String,
    /// The match shown last.
    pub current: Option<u32>,
}

/// Matches listed under the search box.
pub const SEARCH_LIST_MAX: usize = 200;

/// A row of the state history's event list.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct StateRow {
    #[ts(type = "number")]
    pub index: usize,
    /// "12  alloc 1.0MiB b7f…" as the list shows it.
    pub text: String,
    pub selected: bool,
    /// Among the last search's matches.
    pub matched: bool,
    /// The row's class: "sel", "match" or "".
    pub mark: String,
}

/// Where the state history's list is scrolled (StateList), as CSS values.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct StateListView {
    /// The spacer's height ("342000px").
    pub spacer: String,
    /// The rows' offset in the list ("translateY(1800px)").
    pub transform: String,
    #[ts(type = "number")]
    pub first: usize,
    /// Where the page scrolls the list to (`follow`), else null.
    pub scroll_top: Option<f64>,
}

/// The state history's panel.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct StateSummary {
    /// Events in the list.
    #[ts(type = "number")]
    pub len: usize,
    #[ts(type = "number | null")]
    pub selected: Option<usize>,
    /// The rows asked for (StateRows, StateList), else none.
    pub rows: Vec<StateRow>,
    /// The list's geometry (StateList).
    pub list: Option<StateListView>,
    pub totals: String,
    pub fragmentation: String,
    /// "rows a-b of n" when the map scrolls.
    pub map_rows: String,
    pub issues: String,
    /// The text under the list: the event asked for (StateEvent), else the
    /// selected one.
    pub event_text: String,
    /// The selected state's numbers as `memviz state --json` names them.
    #[ts(type = "{ event: number | null, reserved_bytes: number, allocated_bytes: number, segments: number, \
        blocks: number, pending_free_blocks: number, free_bytes: number, largest_free_bytes: number, \
        free_pieces: number, rows: number, rects: number } | Record<string, never>")]
    pub numbers: serde_json::Value,
}

/// The viewer core's page, as one command left it.
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct PageView {
    /// [`Viewer::generation`]: changes with the file or device.
    pub generation: u32,
    pub files: Vec<String>,
    #[ts(type = "number")]
    pub file: usize,
    pub devices: Vec<Choice>,
    pub device: u32,
    pub views: Vec<ViewChoice>,
    pub view: ViewId,
    /// The view selector's value: `view`'s place in `views`.
    pub view_index: u32,
    pub kind: ViewKind,
    /// Elements of the current view (the detail slider's maximum).
    pub elements: u32,
    pub detail: u32,
    /// "12 of 40".
    pub detail_text: String,
    /// "allocations" or "segments".
    pub detail_unit: String,
    /// Elements drawn as their own band.
    pub drawn: u32,
    pub window: [f64; 2],
    pub steps: u32,
    pub pinned: Option<u32>,
    pub summary: Vec<SummaryItem>,
    /// "name: warning: ..." for each thing the reader left out.
    pub warnings: Vec<String>,
    /// The allocator settings' text, in the settings view.
    pub settings: Option<String>,
    /// Whether "Show in state history" applies (a pinned Active Memory band).
    pub to_state: bool,
    /// Whether "Show in timeline" applies (the selected event has an element).
    pub to_timeline: bool,
    /// Whether "Color by" changes what the view draws.
    pub color_by_acts: bool,
    /// The Findings strip's room, kept from the file's first frame.
    pub findings_room: crate::explain::FindingsRoom,
    pub pointer: Option<PointerView>,
    pub search: Option<SearchView>,
    pub state: Option<StateSummary>,
    /// A sentence for the user when the command could not do what it asked
    /// (a jump to an allocation without trace event).
    pub note: Option<String>,
    /// What ShowInState / ShowInTimeline found: an event or an element.
    pub target: Option<u32>,
    /// The largest element (the first drawn band).
    pub largest: Option<u32>,
    /// Whether the current view is the Active Memory Timeline.
    pub active_memory: bool,
    /// Whether the analysis of the current file and device is built.
    pub analysis_built: bool,
    /// The answer of StepAtX, XOfStep, AnalysisStep, StateScroll.
    pub value: Option<f64>,
    /// The answer of Element, StateHover.
    pub text: Option<String>,
    /// The answer of Locate, StateLocate: CSS `[x, y]`.
    pub point: Option<[f64; 2]>,
    /// What PlotKey did.
    pub key: Option<crate::keys::KeyView>,
    /// The answer of Numbers: `memviz summary --json`'s numbers of the
    /// current device, the timeline's totals under `timeline`.
    #[ts(type = "{ file: string, device: number, device_name: string, view: string, trace_events: number, \
        segments: number, reserved_bytes: number, allocated_bytes: number, active_blocks: number, \
        timeline: { start_bytes: number, peak_bytes: number, end_bytes: number, elements: number, \
        actions: number, initially_allocated: number }, peak_step: number, steps: number } | null")]
    pub numbers: Option<serde_json::Value>,
}

fn item(key: &str, value: impl Into<f64>, label: &str, text: String) -> SummaryItem {
    SummaryItem { key: key.into(), value: value.into(), label: label.into(), text }
}

impl Viewer {
    /// Runs `cmd` and says what the page shows now.
    pub fn command(&mut self, cmd: ViewCommand) -> Result<PageView, PageError> {
        // The pointer may move over the empty plot, and a question about
        // it has an empty answer: only what changes a file's view needs one.
        let harmless = matches!(
            cmd,
            ViewCommand::Get
                | ViewCommand::Hover { .. }
                | ViewCommand::Leave
                | ViewCommand::HitAt { .. }
                | ViewCommand::StepAtX { .. }
                | ViewCommand::XOfStep { .. }
                | ViewCommand::Element { .. }
                | ViewCommand::Locate { .. }
                | ViewCommand::PrepareHover
                | ViewCommand::Numbers
                | ViewCommand::AnalysisStep { .. }
                | ViewCommand::NextBand { .. }
                | ViewCommand::StateScroll { .. }
                | ViewCommand::StateHover { .. }
                | ViewCommand::StateLocate { .. }
                | ViewCommand::PlotKey { .. }
                | ViewCommand::StateKey { .. }
                | ViewCommand::Pointer { .. }
        );
        if self.cx.file().is_none() && !harmless {
            return Err(PageError::no_file());
        }
        let mut pointer = None;
        let mut search = false;
        let mut rows = None;
        let mut event = None;
        let mut note = None;
        let mut target = None;
        let mut asked = true;
        let (mut key, mut list) = (None, None);
        let (mut value, mut text, mut point, mut numbers) = (None, None, None, None);
        let pt = |v: Vec<f64>| (v.len() == 2).then(|| [v[0], v[1]]);
        match cmd {
            ViewCommand::Get => {}
            ViewCommand::SetFile { file, device } => {
                self.select_file(file);
                if let Some(d) = device {
                    self.set_device(d);
                }
                self.last_hit = Some(-1);
            }
            ViewCommand::SetDevice { device } => {
                self.set_device(device);
                self.last_hit = Some(-1);
            }
            ViewCommand::SetView { view } => {
                self.set_view(view.index());
                self.last_hit = Some(-1);
            }
            ViewCommand::SetDetail { detail } => self.set_detail(detail),
            ViewCommand::SetWindow { x0, x1 } => self.set_window(x0, x1),
            ViewCommand::Zoom { factor, x } => self.zoom_at(factor, x),
            ViewCommand::Pan { dx } => self.pan_by(dx),
            ViewCommand::ResetWindow => self.reset_window(),
            ViewCommand::Center { at } => self.center_window(self.minimap_step(at)),
            ViewCommand::Hover { x, y } => pointer = Some(self.hover_pointer(x, y)),
            ViewCommand::Leave => {
                self.last_hit = Some(-1);
                pointer = Some(PointerView { hit: -1, changed: true, context: self.leave(), card: None });
            }
            ViewCommand::Click { x, y } => pointer = Some(self.click_pointer(x, y)),
            ViewCommand::ShowElement { element } => {
                self.show_element(element);
                let context = self.element_text(element);
                pointer = Some(PointerView { hit: element as i32, changed: true, context, card: None });
            }
            ViewCommand::Search { by, text } => {
                let kind = match by {
                    SearchBy::Address => "address",
                    SearchBy::Frame => "frame",
                };
                asked = !text.trim().is_empty();
                self.search(kind, if asked { &text } else { "" });
                search = true;
            }
            ViewCommand::SearchNext { backwards } => {
                self.search_next(backwards);
                search = true;
            }
            ViewCommand::SearchShow { index } => {
                self.search_show(index);
                search = true;
            }
            ViewCommand::StateSelect { event: i } => self.views.state.select(&self.cx, i),
            ViewCommand::StateStep { delta } => self.views.state.step(&self.cx, delta),
            ViewCommand::StateRows { first, count } => rows = Some((first, count)),
            ViewCommand::StateEvent { event: i } => event = Some(i),
            ViewCommand::ShowInState => {
                target = self.pinned_element().and_then(|e| self.element_event(e));
                if target.is_none() {
                    note = Some(
                        "This allocation has no trace event (it predates the recording): the final state shows it."
                            .into(),
                    );
                }
            }
            ViewCommand::ShowInTimeline => target = self.state_linked_element(),
            ViewCommand::HitAt { x, y } => value = Some(self.hit_at(x, y) as f64),
            ViewCommand::StepAtX { x } => value = Some(self.step_at_x(x) as f64),
            ViewCommand::XOfStep { step } => value = Some(self.x_of_step(step)).filter(|x| x.is_finite()),
            ViewCommand::Element { element } => text = Some(self.element_text(element)),
            ViewCommand::Locate { element } => point = pt(self.locate(element)),
            ViewCommand::PrepareHover => self.prepare_hover(),
            ViewCommand::AnalysisStep { budget, state } => {
                value = Some(self.prepare_analysis_step(budget as usize, state))
            }
            ViewCommand::Numbers => numbers = serde_json::from_str(&self.summary_json()).ok(),
            ViewCommand::NextBand { x, y, dir, height } => value = self.next_band(x, y, dir.signum() as f64, height),
            ViewCommand::Brush { from, to } => value = Some(self.brush(from, to) as u8 as f64),
            ViewCommand::Pointer { on, mini, x, y, width, dy } => {
                let (k, p) = self.pointer(on, mini, [x, y], width, dy);
                (key, pointer) = (Some(k), p);
            }
            ViewCommand::StateScroll { dy } => value = Some(self.views.state.scroll(&self.cx, dy) as u8 as f64),
            ViewCommand::StateHover { x, y } => text = Some(self.views.state.hover(&self.cx, x, y)),
            ViewCommand::StateLocate { block } => point = pt(self.views.state.locate(&self.cx, block)),
            ViewCommand::PlotKey { key: k, shift, width, height } => {
                use crate::keys::KeyDid;
                let kv = self.plot_key(&k, shift, width, height);
                let [x, y] = kv.at;
                pointer = match kv.did {
                    KeyDid::Hover => Some(self.hover_pointer(x, y)),
                    KeyDid::Pin => Some(self.click_pointer(x, y)),
                    // A click on nothing unpins.
                    KeyDid::Unpin => Some(self.click_pointer(-1.0, -1.0)),
                    KeyDid::None | KeyDid::Moved | KeyDid::Leave => None,
                };
                key = Some(kv);
            }
            ViewCommand::StateList { scroll_top, height, follow } => {
                let (len, sel) = (self.views.state.len(&self.cx), self.views.state.selected(&self.cx));
                let g = crate::views::state::ListGeom::new(len, height);
                let top = if follow { sel.and_then(|s| g.follow(s, scroll_top)) } else { None };
                let (first, count) = g.rows(top.unwrap_or(scroll_top));
                rows = Some((first, count));
                list = Some(StateListView {
                    spacer: format!("{}px", g.spacer),
                    transform: format!("translateY({}px)", g.offset(first, top.unwrap_or(scroll_top))),
                    first,
                    scroll_top: top,
                });
            }
            ViewCommand::StateKey { key: k, height } => {
                let mine = self.cx.file().is_some() && self.view_kind() == ViewKind::State;
                value = Some((mine && self.views.state.key(&self.cx, &k, height)) as u8 as f64)
            }
        }
        let mut page = self.page_view();
        page.pointer = pointer;
        page.note = note;
        page.target = target;
        page.key = key;
        (page.value, page.text, page.point, page.numbers) = (value, text, point, numbers);
        if search {
            page.search = Some(self.search_view(asked));
        }
        if page.kind == ViewKind::State {
            page.state = Some(StateSummary { list, ..self.state_summary(rows, event) });
            page.to_timeline = self.state_linked_element().is_some();
        }
        Ok(page)
    }

    /// Hover at CSS (x, y): the text and card only when the hit changed.
    pub(crate) fn hover_pointer(&mut self, x: f64, y: f64) -> PointerView {
        let hit = self.hit_at(x, y);
        let changed = Some(hit) != self.last_hit;
        self.last_hit = Some(hit);
        let context = if changed { self.hover(x, y) } else { String::new() };
        let card = if changed { self.card(hit) } else { None };
        PointerView { hit, changed, context, card }
    }

    /// A click at CSS (x, y): pins what is there (nothing: unpins).
    pub(crate) fn click_pointer(&mut self, x: f64, y: f64) -> PointerView {
        let context = self.click(x, y);
        let hit = self.hit_at(x, y);
        self.last_hit = Some(hit);
        let card = self.pinned_element().and_then(|e| self.card(e as i32));
        PointerView { hit, changed: true, context, card }
    }

    /// The middle y of the first band other than the one at (x, y) going
    /// `dir`, scanning CSS pixels down the column of x.
    pub(crate) fn next_band(&mut self, x: f64, y: f64, dir: f64, height: f64) -> Option<f64> {
        let inside = |a: f64| a >= 0.0 && a < height;
        let cur = self.hit_at(x, y);
        let mut a = y + dir;
        while inside(a) {
            let hit = self.hit_at(x, a);
            if hit != -1 && hit != cur {
                let mut b = a;
                while inside(b + dir) && self.hit_at(x, b + dir) == hit {
                    b += dir;
                }
                return Some(((a + b) / 2.0).round());
            }
            a += dir;
        }
        None
    }

    /// The hover card of element `hit` (None for no element).
    fn card(&self, hit: i32) -> Option<Card> {
        let e = u32::try_from(hit).ok()?;
        serde_json::from_str::<Card>(&self.element_card(e)).ok()
    }

    /// The page's controls and summary as they are (no pointer, search or state rows).
    pub fn page_view(&self) -> PageView {
        let f = self.cx.file();
        let name = f.map_or("", |f| f.name.as_str());
        let labels = self.device_labels();
        let devices =
            self.devices().into_iter().zip(labels).map(|(d, label)| Choice { value: d as u64, label }).collect();
        let kind = self.view_kind();
        let (elements, detail) = (self.element_count(), self.detail());
        let w = self.window();
        let pinned = self.pinned_element();
        PageView {
            generation: self.generation(),
            files: self.file_names(),
            file: self.current_file(),
            devices,
            device: self.device(),
            views: (0..views::COUNT)
                .map(|i| ViewChoice { id: ViewId::of(i), name: self.views.get(i).name().to_string() })
                .collect(),
            view: ViewId::of(self.view()),
            view_index: self.view() as u32,
            kind,
            elements,
            detail,
            detail_text: format!("{detail} of {elements}"),
            detail_unit: if matches!(self.view(), 0 | 2) { "allocations" } else { "segments" }.into(),
            drawn: self.drawn_count(),
            window: [w.x0, w.x1],
            steps: self.n_steps(),
            pinned,
            summary: self.summary_items(),
            warnings: self.warnings().into_iter().map(|w| format!("{name}: warning: {w}")).collect(),
            settings: (kind == ViewKind::Settings).then(|| self.allocator_settings_text()),
            to_state: pinned.is_some() && (kind == ViewKind::Pools || (kind == ViewKind::Timeline && self.view() == 0)),
            to_timeline: false,
            color_by_acts: self.color_by_acts(),
            findings_room: self.findings_room(),
            pointer: None,
            search: None,
            state: None,
            note: None,
            target: None,
            largest: self.largest_element(),
            active_memory: self.is_active_memory(),
            analysis_built: self.analysis_built(),
            value: None,
            text: None,
            point: None,
            numbers: None,
            key: None,
        }
    }

    /// The summary line: the current device's numbers at the dump and the
    /// timeline's totals, sizes as memory_viz writes them.
    fn summary_items(&self) -> Vec<SummaryItem> {
        let Some(f) = self.cx.file() else { return Vec::new() };
        let (snap, d) = (&f.snap, self.cx.device);
        let segs = || snap.device_segments(d);
        // Wrapping as `memviz summary` sums them (a hostile file's sizes may
        // add up past 2^64).
        let reserved = segs().fold(0u64, |a, s| a.wrapping_add(s.total_size));
        let allocated = segs().fold(0u64, |a, s| a.wrapping_add(s.allocated_size));
        let tl = self.cx.timeline().map(memviz_core::summary::TimelineSummary::of).unwrap_or_default();
        let size = |b: u64| format_size(b, false);
        let active = self.cx.kind == memviz_core::timeline::TimelineKind::ActiveMemory;
        let events = snap.trace(d).len() as u32;
        vec![
            item("trace_events", events, "trace events", events.to_string()),
            item(
                "timeline.elements",
                tl.elements as f64,
                if active { "allocations" } else { "segments drawn" },
                tl.elements.to_string(),
            ),
            item(
                "timeline.peak_bytes",
                tl.peak_bytes as f64,
                "peak",
                format!("{} at step {}", size(tl.peak_bytes), self.peak_step()),
            ),
            item("timeline.start_bytes", tl.start_bytes as f64, "start", size(tl.start_bytes)),
            item("timeline.end_bytes", tl.end_bytes as f64, "end", size(tl.end_bytes)),
            item("segments", segs().count() as u32, "segments at dump", segs().count().to_string()),
            item("reserved_bytes", reserved as f64, "reserved", size(reserved)),
            item("allocated_bytes", allocated as f64, "allocated", size(allocated)),
        ]
    }

    /// The last search of the current view.
    fn search_view(&self, asked: bool) -> SearchView {
        let count = self.search_count();
        let state = self.view_kind() == ViewKind::State;
        let matches = if self.search.is_for(&self.cx, self.selected) {
            let view = self.current_view();
            self.search
                .matches
                .iter()
                .take(SEARCH_LIST_MAX)
                .map(|&m| {
                    let text = view.match_line(&self.cx, m).replace(['\n', '\t'], " ");
                    Match { index: m, text: if state { format!("event {m}: {text}") } else { text } }
                })
                .collect()
        } else {
            Vec::new()
        };
        SearchView {
            count,
            count_text: if !asked {
                String::new()
            } else if count == 1 {
                "1 match (Enter: next)".into()
            } else if count == 0 {
                "0 matches".into()
            } else {
                format!("{count} matches (Enter: next)")
            },
            matches,
            more: if count as usize > SEARCH_LIST_MAX {
                format!("… {} more (Enter steps through all)", count as usize - SEARCH_LIST_MAX)
            } else {
                String::new()
            },
            current: self.search_current(),
        }
    }

    /// The state history's panel; `rows`: the list rows asked for, `event`:
    /// the event whose text goes under the list (else the selected one).
    fn state_summary(&mut self, rows: Option<(usize, usize)>, event: Option<usize>) -> StateSummary {
        let st = &mut self.views.state;
        let len = st.len(&self.cx);
        let selected = st.selected(&self.cx);
        let texts = rows.map_or_else(Vec::new, |(first, count)| st.rows(&self.cx, first, count));
        let first = rows.map_or(0, |r| r.0);
        let event_text = match event.or(selected) {
            Some(i) => st.event_text(&self.cx, i),
            None => String::new(),
        };
        let map_rows = st.rows_text();
        let numbers = serde_json::from_str(&st.json(&self.cx)).unwrap_or_default();
        let (totals, fragmentation, issues) =
            st.view(&self.cx).map(|s| (s.totals_text(), s.fragmentation_text(), s.issues_text())).unwrap_or_default();
        let rows = texts
            .into_iter()
            .enumerate()
            .map(|(k, text)| {
                let index = first + k;
                let (selected, matched) = (Some(index) == selected, self.search_is_match(index as u32));
                let mark = if selected {
                    "sel"
                } else if matched {
                    "match"
                } else {
                    ""
                }
                .into();
                StateRow { index, text: format!("{index}  {text}"), selected, matched, mark }
            })
            .collect();
        StateSummary { len, selected, rows, list: None, totals, fragmentation, map_rows, issues, event_text, numbers }
    }
}
