//! Decode, then build every view for every device, and read them the way
//! the page and the CLI do: summary, both timelines with a detail limit,
//! hover text, the Allocator State History at the first, a middle and the
//! last event (stepping both ways), and event text. Inconsistent traces
//! (frees with no alloc, blocks outside every segment...) must be counted,
//! never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memviz_core::format;
use memviz_core::state::StateHistory;
use memviz_core::timeline::{DetailView, Timeline, TimelineKind};

fuzz_target!(|data: &[u8]| {
    let Ok(snap) = memviz_core::load(data) else { return };
    let versions = memviz_core::versions::compute(&snap);
    let summary = memviz_core::summary::summarize(&snap);
    let _ = summary.to_text();
    let _ = summary.to_json();
    for d in snap.devices() {
        for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
            let tl = Timeline::build_with(&snap, &versions, d, kind);
            let n = tl.n_steps();
            let _ = tl.peak_bytes();
            let view = DetailView::new(&tl, 3);
            for step in [0, n / 2, n.saturating_sub(1), n] {
                view.bands_at(&tl, step, |_| {});
                let _ = view.drawn_total_at(&tl, step);
                let _ = view.summarized_at(step);
                for bytes in [0, tl.total.get(step as usize).copied().unwrap_or(0) / 2, u64::MAX] {
                    let _ = view.hit(&tl, step, bytes);
                }
            }
            for e in 0..tl.elements.len().min(8) as u32 {
                let _ = format::hover_text(&snap, &tl, e);
            }
        }
        let h = StateHistory::new(&snap, d);
        let _ = h.inconsistencies().to_map();
        let len = h.len();
        let mut c = h.cursor();
        let _ = c.state(&h, &snap);
        for i in [0, len / 2, len.saturating_sub(1), len + 5] {
            c.seek(&h, &snap, i);
            let _ = c.summary(&h, &snap);
            let st = c.state(&h, &snap);
            if let Some(seg) = st.segments.first() {
                let _ = c.block_at(&h, &snap, seg.address);
                let _ = c.segment_at(&h, &snap, seg.address);
            }
            c.step_back(&h, &snap);
            c.step_forward(&h, &snap);
        }
        for i in 0..snap.trace(d).len().min(8) {
            let _ = format::format_event(&snap, &versions, d, i);
        }
    }
});
