//! The plot's keyboard cursor (issue 14): a point of the plot, CSS px, that
//! the keys move and hover at; the page only forwards the keys and draws
//! the ring. ←/→ pan by a tenth of the window · +/- zoom at the cursor ·
//! Home (or 0) the whole trace · Shift+←/→ move the cursor · ↑/↓ the next
//! band above / below · Enter (or Space) pin the band under it · Esc unpin.

use serde::Serialize;
use ts_rs::TS;

use crate::Viewer;

/// What a key on the plot did; the page follows it up.
#[derive(Serialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum KeyDid {
    /// Not the plot's key.
    None,
    /// Hovered at the cursor (`pointer`).
    Hover,
    /// Pinned the band under the cursor (`pointer`).
    Pin,
    /// Unpinned.
    Unpin,
    /// The pointer left the plot (`pointer`: what stays, the pinned band's text).
    Leave,
    /// The window moved: the page hovers at the cursor after its next draw,
    /// whose columns the hit test needs.
    Moved,
}

/// The reply to a key on the plot.
#[derive(Serialize, TS, Debug, Clone, Copy, PartialEq)]
pub struct KeyView {
    pub did: KeyDid,
    /// The cursor, CSS `[x, y]` of the plot.
    pub at: [f64; 2],
}

/// Zoom factor of + and -.
const ZOOM: f64 = 1.5;

impl Viewer {
    /// Key `key` (a DOM `KeyboardEvent.key`; "" only hovers) on a plot of
    /// `w` x `h` CSS px. The cursor starts mid-window on the top band there.
    pub(crate) fn plot_key(&mut self, key: &str, shift: bool, w: f64, h: f64) -> KeyView {
        let size = |v: f64| if v.is_finite() { v.max(1.0) } else { 1.0 };
        let (w, h) = (size(w), size(h));
        let [x, y] = match self.kb_cursor {
            Some([x, y]) => [x.clamp(0.0, w - 1.0), y.clamp(0.0, h - 1.0)],
            None => {
                let x = (w / 2.0).round();
                [x, self.next_band(x, -1.0, 1.0, h).unwrap_or((h / 2.0).round())]
            }
        };
        let mut at = [x, y];
        let did = match key {
            "" => KeyDid::Hover,
            "ArrowLeft" | "ArrowRight" => {
                let dir = if key == "ArrowLeft" { -1.0 } else { 1.0 };
                if shift {
                    at[0] = (x + dir * (w / 50.0).round().max(1.0)).clamp(0.0, w - 1.0);
                    KeyDid::Hover
                } else {
                    self.pan_by(-dir * w / 10.0);
                    KeyDid::Moved
                }
            }
            "ArrowUp" | "ArrowDown" => {
                at[1] = self.next_band(x, y, if key == "ArrowUp" { -1.0 } else { 1.0 }, h).unwrap_or(y);
                KeyDid::Hover
            }
            "+" | "=" | "-" | "_" => {
                self.zoom_at(if matches!(key, "+" | "=") { 1.0 / ZOOM } else { ZOOM }, x);
                KeyDid::Moved
            }
            "Home" | "0" => {
                self.reset_window();
                KeyDid::Moved
            }
            "Enter" | " " => KeyDid::Pin,
            "Escape" => KeyDid::Unpin,
            _ => KeyDid::None,
        };
        self.kb_cursor = Some(at);
        KeyView { did, at }
    }
}
