//! Address versions as memory_viz's `annotate_snapshot` assigns them, so that
//! `b7f064c000000_0` names "the block at 0x7f064c000000, the 0th time that
//! address was allocated" (`s...` for segments).
//!
//! TODO(views helper): implement. One block-version space and one
//! segment-version space for the whole snapshot (all devices), walked in
//! memory_viz's order: every device trace in order, then the segments.

use crate::model::Snapshot;

#[derive(Debug, Clone, Default)]
pub struct Versions {
    /// `event[d][i]`: version of event `i` of device `d`'s trace.
    pub event: Vec<Vec<u32>>,
    /// Version of each segment in `Snapshot::segments`.
    pub segment: Vec<u32>,
    /// Version of each block in `Snapshot::blocks`.
    pub block: Vec<u32>,
}

pub fn compute(_snap: &Snapshot) -> Versions {
    todo!("views helper")
}
