//! One trait for the five views of the selector. The viewer keeps each
//! view's own state in its own type and calls the selected one through
//! [`View`]; only what all views answer is here (the state history's list
//! and segment map have their own methods on
//! [`StateHistoryView`](crate::views::state::StateHistoryView)).

use memviz_core::search::{SearchIndex, SearchKind};
use memviz_core::timeline::Hit;

use crate::context::{Context, PlotRect};
use memviz_render::Window;

/// What the page shows for a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    /// A band plot of a timeline, with axes and a minimap.
    Timeline,
    /// The Active Memory timeline's bands grouped by private pool.
    Pools,
    /// The event list and the segment map.
    State,
    /// Text only.
    Settings,
}

impl ViewKind {
    /// The name the page switches on.
    pub fn as_str(self) -> &'static str {
        match self {
            ViewKind::Timeline => "timeline",
            ViewKind::Pools => "pools",
            ViewKind::State => "state",
            ViewKind::Settings => "settings",
        }
    }
}

/// What one draw of a band plot made; its pixels are `Context::plot`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotFrame {
    /// Where the pixels go inside the canvas.
    pub rect: PlotRect,
    /// Distinct bands that got at least one pixel.
    pub bands_drawn: u32,
    pub axes: Axes,
}

/// Where a view draws the outline of its hovered or pinned band.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// In the band plot itself: a new selection needs a new `draw_plot`.
    InPlot,
    /// On an overlay of its own, empty now (nothing selected, or not in
    /// the window).
    Empty,
    /// On an overlay of its own: `Context::selection`'s pixels, their top
    /// left corner at device pixel (x, y) of the canvas.
    At { x: u32, y: u32 },
}

/// What the axes overlay needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Axes {
    /// As last drawn: nothing to do.
    Unchanged,
    /// No steps: an empty overlay.
    Clear,
    Draw(AxesSpec),
}

/// An axes overlay: a y axis in bytes up to `y_max`, x in steps over
/// `window` (or the ticks of `time`), the peak marker, on a canvas whose
/// plot is `rect`.
#[derive(Debug, Clone, PartialEq)]
pub struct AxesSpec {
    pub rect: PlotRect,
    pub dpr: f64,
    pub window: Window,
    pub y_max: u64,
    /// (step, bytes) of the peak.
    pub peak: Option<(u32, u64)>,
    pub x_desc: &'static str,
    /// On the time axis (xaxis.rs): what x shows instead of steps.
    pub time: Option<TimeTicks>,
    /// CSS px from the canvas' top covered by the phase rows (0: none): the
    /// peak's label hangs below them rather than under them.
    pub label_below: f64,
}

/// The x axis in wall-clock time; positions are fractions of the plot width.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeTicks {
    /// (position, label in seconds from the first event).
    pub ticks: Vec<(f64, String)>,
    /// Idle gaps drawn compressed: (start, end, label).
    pub gaps: Vec<(f64, f64, String)>,
    /// Where the peak's line goes.
    pub peak: Option<f64>,
}

/// A view of the selector. Coordinates are CSS pixels of the plot canvas;
/// `Context::dpr` turns them into device pixels.
pub trait View {
    /// The selector's text.
    fn name(&self) -> &'static str;

    fn kind(&self) -> ViewKind;

    /// The selector picked this view (also when it was already selected).
    fn enter(&mut self, cx: &mut Context);

    /// Draws the band plot for a canvas of `w` x `h` device pixels into
    /// `cx.plot`. None: this view has no band plot now.
    fn draw_plot(&mut self, _cx: &mut Context, _w: u32, _h: u32) -> Option<PlotFrame> {
        None
    }

    /// Draws the outline of the hovered or pinned band over the plot as
    /// last drawn, when the view keeps it apart from the bands: then a
    /// hover costs the outline, not a new plot.
    fn draw_selection(&mut self, _cx: &mut Context) -> Selection {
        Selection::InPlot
    }

    /// Pointer at (x, y): the text of what is under it, or of the pinned
    /// one over empty space.
    fn hover(&mut self, _cx: &mut Context, _x: f64, _y: f64) -> String {
        String::new()
    }

    /// Pointer left the plot: the text of the pinned one.
    fn leave(&mut self, _cx: &mut Context) -> String {
        String::new()
    }

    /// Click: pins what is under the pointer (unpins on empty space).
    fn click(&mut self, _cx: &mut Context, _x: f64, _y: f64) -> String {
        String::new()
    }

    /// What is under (x, y) as a number: an element index, -1 for nothing,
    /// -2 for the summarized band, -(10 + pool) for a pool's envelope.
    fn hit_code(&mut self, _cx: &mut Context, _x: f64, _y: f64) -> i32 {
        -1
    }

    /// The pinned element of the timeline underneath.
    fn pinned_element(&self, cx: &Context) -> Option<u32> {
        match cx.pinned {
            Some(Hit::Element(e)) => Some(e),
            _ => None,
        }
    }

    /// Shows match `m` of a search (an element or an event).
    fn show(&mut self, cx: &mut Context, m: u32) {
        self.pin_element(cx, m);
    }

    /// Pins element `e` of the timeline underneath and pans to it.
    fn pin_element(&mut self, cx: &mut Context, e: u32) {
        cx.show_element(e);
    }

    /// Searches what this view lists (sorted indices).
    fn search(&self, cx: &Context, index: &SearchIndex, kind: SearchKind, query: &str) -> Vec<u32> {
        match (cx.file(), cx.timeline()) {
            (Some(f), Some(tl)) => index.search_elements(&f.snap, f.versions(), tl, kind, query),
            _ => Vec::new(),
        }
    }

    /// One line for match `m` in the search list.
    fn match_line(&self, cx: &Context, m: u32) -> String {
        match (cx.file(), cx.timeline()) {
            (Some(f), Some(tl)) => {
                first_line(&memviz_core::format::hover_text(&f.snap, Some(f.versions()), tl, m)).to_string()
            }
            _ => String::new(),
        }
    }
}

/// First line of a text (list entries).
fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}
