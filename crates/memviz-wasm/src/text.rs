//! Sizes as the axis shows them. (Hover text comes from memviz_core::format.)

/// The tick values live in memviz-render: the CLI's charts use them too.
pub use memviz_render::axis::{size_ticks, step_ticks};
