//! Allocator Settings: the file's allocator_settings as text.

use memviz_core::format::format_allocator_settings;
use memviz_core::search::{SearchIndex, SearchKind};

use crate::context::Context;
use crate::view::{View, ViewKind};

#[derive(Default)]
pub struct SettingsView;

impl SettingsView {
    /// The current file's allocator_settings, readable.
    pub fn text(&self, cx: &Context) -> String {
        cx.file().map_or(String::new(), |f| format_allocator_settings(f.snap.allocator_settings.as_ref()))
    }
}

impl View for SettingsView {
    fn name(&self) -> &'static str {
        "Allocator Settings"
    }

    fn kind(&self) -> ViewKind {
        ViewKind::Settings
    }

    /// The Active Memory timeline stays underneath (jumps link to it).
    fn enter(&mut self, cx: &mut Context) {
        cx.use_active_memory();
    }

    fn show(&mut self, _cx: &mut Context, _m: u32) {}

    fn search(&self, _cx: &Context, _index: &SearchIndex, _kind: SearchKind, _query: &str) -> Vec<u32> {
        Vec::new()
    }
}
