//! `memviz summary`: per-device numbers, as JSON (`serde`) or text.

use std::collections::BTreeMap;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::format::format_size;
use crate::model::{BlockState, Snapshot};
use crate::timeline::{Timeline, TimelineKind};
use crate::versions;

/// One of the two timelines, reduced to its totals.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TimelineSummary {
    pub start_bytes: u64,
    pub peak_bytes: u64,
    pub end_bytes: u64,
    pub elements: u64,
    pub actions: u64,
    pub initially_allocated: u64,
}

impl TimelineSummary {
    pub fn of(tl: &Timeline) -> TimelineSummary {
        TimelineSummary {
            start_bytes: tl.start_bytes,
            peak_bytes: tl.peak_bytes(),
            end_bytes: tl.end_bytes,
            elements: tl.elements.len() as u64,
            actions: tl.actions.len() as u64,
            initially_allocated: tl.initially_allocated.len() as u64,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct DeviceSummary {
    pub trace_events: u64,
    /// Count of each action name in the trace, as named in the file.
    pub actions: BTreeMap<String, u64>,
    pub segments: u64,
    /// Sum of the device's segments' `total_size`.
    pub reserved_bytes: u64,
    /// Sum of the device's segments' `allocated_size`.
    pub allocated_bytes: u64,
    /// Blocks in state `active_allocated`.
    pub active_blocks: u64,
    /// Active Memory Timeline.
    pub active_memory: TimelineSummary,
    /// Active Cached Segment Timeline.
    pub segment_memory: TimelineSummary,
}

/// Devices in ascending order; serialized as a map keyed by the decimal
/// device number (in that numeric order, not string order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Devices(pub Vec<(u32, DeviceSummary)>);

impl Serialize for Devices {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (d, v) in &self.0 {
            m.serialize_entry(&d.to_string(), v)?;
        }
        m.end()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub devices: Devices,
}

pub fn summarize(snap: &Snapshot) -> Summary {
    let versions = versions::compute(snap);
    let mut devices = Vec::new();
    for d in snap.devices() {
        let trace = snap.trace(d);
        let mut actions: BTreeMap<String, u64> = BTreeMap::new();
        // Count by enum first; only unknown actions need their names.
        let mut by_action = [0u64; crate::model::Action::ALL.len()];
        for (i, a) in trace.action.iter().enumerate() {
            if *a == crate::model::Action::Other {
                *actions.entry(trace.action_name(i).to_string()).or_default() += 1;
            } else {
                by_action[*a as usize] += 1;
            }
        }
        for a in crate::model::Action::ALL {
            if a != crate::model::Action::Other && by_action[a as usize] > 0 {
                *actions.entry(a.name().to_string()).or_default() += by_action[a as usize];
            }
        }
        let mut s = DeviceSummary { trace_events: trace.len() as u64, actions, ..Default::default() };
        for seg in snap.device_segments(d) {
            s.segments += 1;
            s.reserved_bytes = s.reserved_bytes.wrapping_add(seg.total_size);
            s.allocated_bytes = s.allocated_bytes.wrapping_add(seg.allocated_size);
            s.active_blocks +=
                snap.segment_blocks(seg).iter().filter(|b| b.state == BlockState::ActiveAllocated).count() as u64;
        }
        s.active_memory =
            TimelineSummary::of(&Timeline::build_with(snap, &versions, d, TimelineKind::ActiveMemory));
        s.segment_memory =
            TimelineSummary::of(&Timeline::build_with(snap, &versions, d, TimelineKind::CachedSegments));
        devices.push((d, s));
    }
    Summary { devices: Devices(devices) }
}

impl Summary {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Human-readable rendering, sizes as memory_viz's axis prints them
    /// ("1.5GiB").
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.devices.0.is_empty() {
            out.push_str("no devices (no segments and no trace events)\n");
        }
        for (d, s) in &self.devices.0 {
            let sz = |b: u64| format_size(b, false);
            out.push_str(&format!("device {d}\n"));
            out.push_str(&format!("  trace events      {}\n", s.trace_events));
            for (name, n) in &s.actions {
                out.push_str(&format!("    {name:<16} {n}\n"));
            }
            out.push_str(&format!(
                "  segments          {} ({} reserved, {} allocated)\n",
                s.segments,
                sz(s.reserved_bytes),
                sz(s.allocated_bytes)
            ));
            out.push_str(&format!("  active blocks     {}\n", s.active_blocks));
            for (label, t) in [("active memory", &s.active_memory), ("cached segments", &s.segment_memory)] {
                out.push_str(&format!(
                    "  {label:<17} start {}, peak {}, end {} ({} elements, {} actions, {} initially allocated)\n",
                    sz(t.start_bytes),
                    sz(t.peak_bytes),
                    sz(t.end_bytes),
                    t.elements,
                    t.actions,
                    t.initially_allocated
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Action, EventTable};
    use crate::versions::test_util::*;

    #[test]
    fn json_shape_and_numbers() {
        let mut snap = Snapshot::default();
        snap.traces.push(EventTable::default()); // device 0: nothing
        let mut t = EventTable::default();
        push(&mut t, Action::SegmentAlloc, 0x1000, 4096);
        push(&mut t, Action::Alloc, 0x1000, 512);
        push(&mut t, Action::Alloc, 0x1200, 1024);
        push(&mut t, Action::FreeRequested, 0x1000, 512);
        push(&mut t, Action::FreeCompleted, 0x1000, 512);
        push(&mut t, Action::Other, 0, 0);
        t.other_actions.insert(5, "mystery".into());
        snap.traces.push(t);
        snap.blocks.push(block(0x1000, 512, 512, BlockState::Inactive));
        snap.blocks.push(block(0x1200, 1024, 1024, BlockState::ActiveAllocated));
        snap.blocks.push(block(0x1600, 2560, 2560, BlockState::Inactive));
        let mut seg = segment(1, 0x1000, 4096, 0..3);
        seg.allocated_size = 1024;
        snap.segments.push(seg);
        let mut s10 = segment(10, 0x90000, 8192, 3..3);
        s10.allocated_size = 0;
        snap.segments.push(s10);
        let json = serde_json::to_string(&summarize(&snap)).unwrap();
        let expected = concat!(
            r#"{"devices":{"1":{"trace_events":6,"actions":{"alloc":2,"free_completed":1,"free_requested":1,"mystery":1,"segment_alloc":1},"#,
            r#""segments":1,"reserved_bytes":4096,"allocated_bytes":1024,"active_blocks":1,"#,
            r#""active_memory":{"start_bytes":0,"peak_bytes":1536,"end_bytes":1024,"elements":2,"actions":3,"initially_allocated":0},"#,
            r#""segment_memory":{"start_bytes":0,"peak_bytes":4096,"end_bytes":4096,"elements":1,"actions":1,"initially_allocated":0}},"#,
            r#""10":{"trace_events":0,"actions":{},"segments":1,"reserved_bytes":8192,"allocated_bytes":0,"active_blocks":0,"#,
            r#""active_memory":{"start_bytes":0,"peak_bytes":0,"end_bytes":0,"elements":0,"actions":0,"initially_allocated":0},"#,
            r#""segment_memory":{"start_bytes":0,"peak_bytes":8192,"end_bytes":8192,"elements":1,"actions":1,"initially_allocated":0}}}}"#
        );
        assert_eq!(json, expected);
        let text = summarize(&snap).to_text();
        assert!(text.contains("device 10\n"), "{text}");
        assert!(text.contains("segments          1 (4.0KiB reserved, 1.0KiB allocated)"), "{text}");
    }
}
