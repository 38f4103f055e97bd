//! The pointer on the plot and on the minimap: the page forwards each event
//! (the `pointer` page command) and follows up what it did as it does a key's
//! ([`KeyDid`]). On the plot a press and release in place pins (a click), a
//! drag pans, the wheel zooms, a hover over the stacked area names the kind;
//! on the minimap a drag brushes a window and a click centers it.

use serde::Deserialize;
use ts_rs::TS;

use crate::keys::{KeyDid, KeyView};
use crate::page::PointerView;
use crate::Viewer;

/// A pointer event of the plot or the minimap.
#[derive(Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PointerOn {
    Down,
    Move,
    Up,
    Leave,
    Wheel,
}

/// A press not yet released, CSS px (on the minimap: fractions of its width).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Drag {
    mini: bool,
    /// Where it was pressed, and where the window last followed it.
    x0: f64,
    x: f64,
    moved: bool,
}

/// CSS px the pointer goes from where it was pressed before a press is a drag, not a click.
const DRAG_PX: f64 = 3.0;
/// The wheel's zoom: a factor of e^(deltaY * WHEEL_ZOOM) (< 1 zooms in).
const WHEEL_ZOOM: f64 = 0.0015;

impl Viewer {
    /// Pointer event `on` at CSS (x, y) of the plot, or of the minimap (`mini`,
    /// `width` CSS px wide); `dy` the wheel's deltaY. What it did, and the
    /// hover or pin it made.
    pub(crate) fn pointer(
        &mut self,
        on: PointerOn,
        mini: bool,
        [x, y]: [f64; 2],
        width: f64,
        dy: f64,
    ) -> (KeyView, Option<PointerView>) {
        let none = |did| (KeyView { did, at: [x, y] }, None);
        let drag = self.drag.filter(|d| d.mini == mini);
        let file = self.cx.file().is_some();
        if mini {
            let at = x / width.max(1.0);
            return match on {
                PointerOn::Down if file => {
                    self.drag = Some(Drag { mini, x0: at, x: at, moved: false });
                    none(KeyDid::None)
                }
                PointerOn::Move => match drag {
                    Some(d) if self.brush(d.x0, at) => {
                        self.drag = Some(Drag { moved: true, ..d });
                        none(KeyDid::Moved)
                    }
                    _ => none(KeyDid::None),
                },
                PointerOn::Up => match self.drag.take().filter(|d| d.mini) {
                    Some(d) if !d.moved => {
                        self.center_window(self.minimap_step(at));
                        none(KeyDid::Moved)
                    }
                    _ => none(KeyDid::None),
                },
                _ => none(KeyDid::None),
            };
        }
        match on {
            PointerOn::Down if file => {
                self.drag = Some(Drag { mini, x0: x, x, moved: false });
                none(KeyDid::None)
            }
            PointerOn::Move => match drag {
                None => (KeyView { did: KeyDid::Hover, at: [x, y] }, Some(self.hover_or_area(x, y))),
                Some(d) => {
                    let moved = d.moved || (x - d.x0).abs() > DRAG_PX;
                    if !moved {
                        return none(KeyDid::None);
                    }
                    self.pan_by(x - d.x);
                    self.drag = Some(Drag { x, moved, ..d });
                    none(KeyDid::Moved)
                }
            },
            PointerOn::Up => match self.drag.take().filter(|d| !d.mini) {
                // A click on nothing unpins: the page hears of it as a pin there.
                Some(d) if !d.moved => (KeyView { did: KeyDid::Pin, at: [x, y] }, Some(self.click_pointer(x, y))),
                _ => none(KeyDid::None),
            },
            PointerOn::Leave if drag.is_none() => {
                self.last_hit = Some(-1);
                let context = self.leave();
                (
                    KeyView { did: KeyDid::Leave, at: [x, y] },
                    Some(PointerView { hit: -1, changed: true, context, card: None }),
                )
            }
            PointerOn::Wheel if file => {
                self.zoom_at((dy * WHEEL_ZOOM).exp(), x);
                none(KeyDid::Moved)
            }
            _ => none(KeyDid::None),
        }
    }

    /// The hover at CSS (x, y); in the stacked area (Color by: kinds as
    /// areas) a pixel is a kind, not a band, and its text says which.
    fn hover_or_area(&mut self, x: f64, y: f64) -> PointerView {
        let context = self.area_text(x, y);
        if context.is_empty() {
            return self.hover_pointer(x, y);
        }
        // No band's: the next hover of a band is a change.
        self.last_hit = Some(i32::MIN);
        PointerView { hit: -2, changed: true, context, card: None }
    }

    /// The minimap brushed from fraction `from` of its width to `to`: the
    /// window between their steps once they are a step apart (else false, and
    /// nothing changes).
    pub(crate) fn brush(&mut self, from: f64, to: f64) -> bool {
        let (a, b) = (self.minimap_step(from), self.minimap_step(to));
        let moved = (b - a).abs() >= 1.0;
        if moved {
            self.set_window(a.min(b), a.max(b));
        }
        moved
    }
}
