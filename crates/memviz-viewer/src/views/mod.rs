//! The selector's views, one type each behind [`crate::View`].

pub mod pools;
pub mod settings;
pub mod state;
pub mod timeline;

use memviz_core::timeline::TimelineKind;

use crate::view::View;
use pools::PoolsView;
use settings::SettingsView;
use state::StateHistoryView;
use timeline::TimelineView;

/// Number of views in the selector.
pub const COUNT: usize = 5;

/// Every view, in the selector's order.
pub struct Views {
    pub active: TimelineView,
    pub segments: TimelineView,
    pub pools: PoolsView,
    pub state: StateHistoryView,
    pub settings: SettingsView,
}

impl Default for Views {
    fn default() -> Self {
        Views {
            active: TimelineView { kind: TimelineKind::ActiveMemory },
            segments: TimelineView { kind: TimelineKind::CachedSegments },
            pools: PoolsView::default(),
            state: StateHistoryView::default(),
            settings: SettingsView,
        }
    }
}

impl Views {
    /// View `i` of the selector (`i < COUNT`).
    pub fn get(&self, i: usize) -> &dyn View {
        match i {
            0 => &self.active,
            1 => &self.segments,
            2 => &self.pools,
            3 => &self.state,
            _ => &self.settings,
        }
    }

    pub fn get_mut(&mut self, i: usize) -> &mut dyn View {
        match i {
            0 => &mut self.active,
            1 => &mut self.segments,
            2 => &mut self.pools,
            3 => &mut self.state,
            _ => &mut self.settings,
        }
    }

    /// The selector index of the state history.
    pub const STATE: usize = 3;
}
