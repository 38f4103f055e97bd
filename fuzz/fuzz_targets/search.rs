//! Search: decode, then search every device's Active Memory and Cached
//! Segment timelines and its trace events by address and by frame text, with
//! fixed queries and one made of the input's last bytes (any UTF-8, cut at
//! any place); step through the matches both ways and print them as the
//! page's list does. Matches must be ascending, in range, and the same on a
//! second search.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use memviz_core::format::hover_text;
use memviz_core::search::{next_match, SearchIndex, SearchKind};
use memviz_core::segment_map::event_line;
use memviz_core::timeline::{Timeline, TimelineKind};

fuzz_target!(|data: &[u8]| {
    let Ok(snap) = memviz_core::load(data) else { return };
    let p = common::Params::of(data);
    let v = memviz_core::versions::compute(&snap);
    let ix = SearchIndex::new(&snap);
    let tail = String::from_utf8_lossy(&p.tail[p.tail.len() - 1 - (p.tail[0] % 12) as usize..]).into_owned();
    let queries = [tail.as_str(), "7f", "_0", "b", "0x", " ", "py:", "é", "\u{0}"];
    for d in snap.devices().into_iter().take(4) {
        for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
            let tl = Timeline::build_with(&snap, &v, d, kind);
            for q in queries {
                for sk in [SearchKind::Address, SearchKind::Frame] {
                    let m = ix.search_elements(&snap, &tl, sk, q);
                    assert!(m.windows(2).all(|w| w[0] < w[1]));
                    assert!(m.iter().all(|&e| (e as usize) < tl.elements.len()));
                    assert_eq!(m, ix.search_elements(&snap, &tl, sk, q));
                    let a = next_match(&m, None, false);
                    let _ = next_match(&m, a, true);
                    for &e in m.iter().take(3) {
                        let _ = hover_text(&snap, &tl, e);
                    }
                }
            }
        }
        let n = snap.trace(d).len();
        for q in queries {
            for sk in [SearchKind::Address, SearchKind::Frame] {
                let m = ix.search_events(&snap, &v, d, sk, q);
                assert!(m.windows(2).all(|w| w[0] < w[1]));
                assert!(m.iter().all(|&i| (i as usize) < n));
                let mut cur = None;
                for _ in 0..3 {
                    cur = next_match(&m, cur, false);
                }
                let _ = next_match(&m, cur, true);
                for &i in m.iter().take(3) {
                    let _ = event_line(&snap, &v, d, i as usize);
                }
            }
        }
    }
});
