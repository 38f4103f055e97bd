//! Search over every element of a timeline (drawn or summarized) and over the
//! events of a trace: by address or by text in the stack frames.
//!
//! Address queries match the versioned address as the views print it
//! (`b7f064c000000_0`): case-insensitive, `0x` dropped, a substring anywhere
//! (so `7f064c`, `0x7F064C000000`, `b7f064c000000_0` and `_3` all work).
//! Frame queries are a case-insensitive substring of one shown frame
//! (`filename:line:name` plus its FX lines; frames memory_viz filters out are
//! not searched). Frames are lower-cased once in [`SearchIndex::new`]; a query
//! then tests each distinct frame once, each stack once, and maps stacks to
//! elements, so it stays linear in the snapshot, not in elements × frames.

use crate::format::{format_frame, frame_filter};
use crate::model::{Action, Snapshot};
use crate::timeline::{ElementSource, Timeline, TimelineKind};
use crate::versions::Versions;

/// What a query is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchKind {
    Address,
    Frame,
}

/// Lower-cased frame texts, built once per snapshot.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    /// Per frame id; `None` for frames the views filter out.
    frame_text: Vec<Option<Box<str>>>,
}

/// A query as matched: lower case, surrounding blanks and a leading `0x`
/// dropped for addresses. Empty means "no search".
pub(crate) fn normalize(kind: SearchKind, query: &str) -> String {
    let q = query.trim().to_lowercase();
    match kind {
        SearchKind::Address => q.strip_prefix("0x").map(str::to_string).unwrap_or(q),
        SearchKind::Frame => q,
    }
}

impl SearchIndex {
    pub fn new(snap: &Snapshot) -> SearchIndex {
        let frame_text = snap
            .frames
            .iter()
            .map(|f| {
                frame_filter(snap.str(f.name), snap.str(f.filename))
                    .then(|| format_frame(snap, f).to_lowercase().into_boxed_str())
            })
            .collect();
        SearchIndex { frame_text }
    }

    /// For each stack id, whether one of its shown frames contains `q`
    /// (already normalized, non-empty).
    pub(crate) fn stacks_matching(&self, snap: &Snapshot, q: &str) -> Vec<bool> {
        let frame_hit: Vec<bool> =
            self.frame_text.iter().map(|t| t.as_deref().is_some_and(|t| t.contains(q))).collect();
        (0..snap.stacks.len() as u32)
            .map(|s| snap.stack(s).iter().any(|&f| frame_hit.get(f as usize).copied().unwrap_or(false)))
            .collect()
    }

    /// Indices of the elements of `tl` that match, ascending. An empty query
    /// matches nothing.
    pub fn search_elements(
        &self,
        snap: &Snapshot,
        versions: &Versions,
        tl: &Timeline,
        kind: SearchKind,
        query: &str,
    ) -> Vec<u32> {
        let q = normalize(kind, query);
        if q.is_empty() {
            return Vec::new();
        }
        match kind {
            SearchKind::Frame => {
                let hit = self.stacks_matching(snap, &q);
                (0..tl.elements.len() as u32)
                    .filter(|&e| hit.get(tl.elements[e as usize].stack as usize).copied().unwrap_or(false))
                    .collect()
            }
            SearchKind::Address => {
                let trace = snap.trace(tl.device);
                (0..tl.elements.len() as u32)
                    .filter(|&e| {
                        let el = &tl.elements[e as usize];
                        let seg = match el.source {
                            ElementSource::GhostSegment(_) => true,
                            ElementSource::GhostBlock(_) => false,
                            ElementSource::Alloc(i) | ElementSource::UnmatchedFree(i) => {
                                tl.kind == TimelineKind::CachedSegments
                                    || trace.action.get(i as usize).is_some_and(|a| a.is_segment())
                            }
                        };
                        addr_matches(seg, el.addr, el.source.version(versions, tl.device), q.as_bytes())
                    })
                    .collect()
            }
        }
    }

    /// Indices of the events of `device`'s trace that match, ascending. Events
    /// without an address (oom, snapshot...) never match an address query.
    pub fn search_events(
        &self,
        snap: &Snapshot,
        versions: &Versions,
        device: u32,
        kind: SearchKind,
        query: &str,
    ) -> Vec<u32> {
        let q = normalize(kind, query);
        if q.is_empty() {
            return Vec::new();
        }
        let t = snap.trace(device);
        match kind {
            SearchKind::Frame => {
                let hit = self.stacks_matching(snap, &q);
                (0..t.len() as u32)
                    .filter(|&i| hit.get(t.stack[i as usize] as usize).copied().unwrap_or(false))
                    .collect()
            }
            SearchKind::Address => (0..t.len() as u32)
                .filter(|&i| {
                    let a = t.action[i as usize];
                    !matches!(a, Action::Oom | Action::Snapshot | Action::Annotate)
                        && addr_matches(
                            a.is_segment(),
                            t.addr(i as usize),
                            versions.of_event(device, i as usize),
                            q.as_bytes(),
                        )
                })
                .collect(),
        }
    }
}

/// Whether `b<hex>_<v>` (or `s...`) contains `q`. The text is built in a
/// stack buffer, digits by hand: `format!` machinery would dominate a search
/// over a million elements.
fn addr_matches(segment: bool, addr: u128, version: u32, q: &[u8]) -> bool {
    let mut buf = [0u8; 64];
    let mut n = buf.len();
    let mut put = |c: u8| {
        n -= 1;
        buf[n] = c;
    };
    let mut v = version;
    loop {
        put(b'0' + (v % 10) as u8);
        v /= 10;
        if v == 0 {
            break;
        }
    }
    put(b'_');
    let mut a = addr;
    loop {
        put(b"0123456789abcdef"[(a & 15) as usize]);
        a >>= 4;
        if a == 0 {
            break;
        }
    }
    put(if segment { b's' } else { b'b' });
    let text = &buf[n..];
    q.len() <= text.len() && text.windows(q.len()).any(|w| w == q)
}

/// Steps through matches: the next match after `current` (wrapping), or the
/// first one when `current` is none of them. `None` without matches.
pub fn next_match(matches: &[u32], current: Option<u32>, backwards: bool) -> Option<u32> {
    if matches.is_empty() {
        return None;
    }
    let Some(c) = current else {
        return Some(if backwards { *matches.last().unwrap() } else { matches[0] });
    };
    if backwards {
        let k = matches.partition_point(|&m| m < c);
        Some(if k == 0 { *matches.last().unwrap() } else { matches[k - 1] })
    } else {
        let k = matches.partition_point(|&m| m <= c);
        Some(*matches.get(k).unwrap_or(&matches[0]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EventTable, Frame};
    use crate::versions::test_util::*;

    #[test]
    fn address_and_frame_queries() {
        let mut snap = Snapshot::default();
        let fr = |snap: &mut Snapshot, file: &str, line: i64, name: &str| {
            let filename = snap.strings.push(file);
            let name = snap.strings.push(name);
            snap.frames.push(Frame { filename, line, name, fx: u32::MAX });
            (snap.frames.len() - 1) as u32
        };
        let a = fr(&mut snap, "Model.py", 10, "forward");
        let b = fr(&mut snap, "Python/ceval.c", 1, "hidden_eval");
        let c = fr(&mut snap, "optim.py", 7, "step");
        let s1 = snap.stacks.push(&[a, b]);
        let s2 = snap.stacks.push(&[c, b]);
        let mut t = EventTable::default();
        push(&mut t, Action::Alloc, 0x7f064c000000, 100);
        push(&mut t, Action::FreeCompleted, 0x7f064c000000, 100);
        push(&mut t, Action::Alloc, 0x7f064c000000, 100);
        push(&mut t, Action::Alloc, 0xabc000, 100);
        push(&mut t, Action::Oom, 0, 100);
        t.stack = vec![s1, s1, s2, s2, s1];
        snap.traces.push(t);
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        let idx = SearchIndex::new(&snap);
        let v = crate::versions::compute(&snap);
        let f = |k, q: &str| idx.search_elements(&snap, &v, &tl, k, q);
        assert_eq!(f(SearchKind::Address, "0x7F064C"), vec![0, 1]);
        assert_eq!(f(SearchKind::Address, "b7f064c000000_1"), vec![1]);
        assert_eq!(f(SearchKind::Address, "_0"), vec![0, 2]);
        assert_eq!(f(SearchKind::Address, "ABC"), vec![2]);
        assert_eq!(f(SearchKind::Address, "s7f"), Vec::<u32>::new());
        assert_eq!(f(SearchKind::Address, "  "), Vec::<u32>::new());
        assert_eq!(f(SearchKind::Frame, "model.py:10:FORWARD"), vec![0]);
        assert_eq!(f(SearchKind::Frame, "step"), vec![1, 2]);
        // Filtered frames are not searched.
        assert_eq!(f(SearchKind::Frame, "hidden_eval"), Vec::<u32>::new());
        let v = crate::versions::compute(&snap);
        assert_eq!(idx.search_events(&snap, &v, 0, SearchKind::Address, "7f064c"), vec![0, 1, 2]);
        assert_eq!(idx.search_events(&snap, &v, 0, SearchKind::Frame, "forward"), vec![0, 1, 4]);
        assert_eq!(idx.search_events(&snap, &v, 5, SearchKind::Frame, "forward"), Vec::<u32>::new());
    }

    #[test]
    fn address_text_like_format_addr() {
        // The texts memory_viz shows: b|s, hex address, _version.
        for (seg, a, v, full) in [
            (false, 0u128, 0u32, "b0_0".to_string()),
            (true, 0x7f064c000000, 12, "s7f064c000000_12".to_string()),
            (false, u128::MAX, u32::MAX, format!("b{}_4294967295", "f".repeat(32))),
        ] {
            assert_eq!(crate::format::format_addr(seg, a, v), full);
            assert!(addr_matches(seg, a, v, full.as_bytes()), "{full}");
            assert!(!addr_matches(seg, a, v, format!("{full}x").as_bytes()));
            assert!(addr_matches(seg, a, v, &full.as_bytes()[1..4.min(full.len())]));
        }
    }

    #[test]
    fn stepping() {
        let m = [2, 5, 9];
        assert_eq!(next_match(&m, None, false), Some(2));
        assert_eq!(next_match(&m, Some(5), false), Some(9));
        assert_eq!(next_match(&m, Some(9), false), Some(2));
        assert_eq!(next_match(&m, Some(6), false), Some(9));
        assert_eq!(next_match(&m, Some(2), true), Some(9));
        assert_eq!(next_match(&m, Some(6), true), Some(5));
        assert_eq!(next_match(&[], Some(6), true), None);
    }
}
