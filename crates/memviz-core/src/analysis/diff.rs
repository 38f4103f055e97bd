//! What changed between two moments: two snapshots (two runs, two ranks),
//! two devices, or two moments of one trace.
//!
//! Each side is first reduced to a [`Side`]: the live bytes at its moment
//! grouped by stack, user frame, frame and kind, and its stack tree, all
//! keyed by text. A side no longer needs its snapshot, so the page can
//! decode one file, keep its side and drop it before decoding the other.
//!
//! **Keys are frame text, never addresses or ids**: a frame is
//! `filename:line:name` (without FX lines, which a recompile may change), a
//! stack its shown frames one a line, innermost first, repeats elided as
//! memory_viz prints them. The same code in two runs gives the same keys
//! whatever the decoder's ids or the allocator's addresses were.
//!
//! ```no_run
//! use memviz_core::analysis::{diff, Analysis, GroupBy, Moment, Rules};
//! let load = |p: &str| memviz_core::load(&std::fs::read(p).unwrap()).unwrap();
//! let (sa, sb) = (load("a.pickle"), load("b.pickle"));
//! let side = |s: &memviz_core::Snapshot, name: &str| {
//!     let d = s.default_device().unwrap();
//!     diff::Side::new(s, &Analysis::build(s, d, &Rules::default()), Moment::Peak, name).unwrap()
//! };
//! let d = diff::diff(&side(&sa, "a"), &side(&sb, "b"), GroupBy::Stack);
//! for g in d.groups.iter().take(10) {
//!     println!("{} {} {}", g.bytes_a, g.bytes_b, g.key);
//! }
//! ```

use std::collections::HashMap;

use serde::Serialize;

use super::live::{per_leaf, IdMap, NONE, NO_FRAMES};
use super::{Analysis, At, GroupBy, Moment};
use crate::format::elide_repeats;
use crate::model::Snapshot;

/// Live bytes and allocations of one group key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Sum {
    bytes: u64,
    count: u64,
}

impl Sum {
    fn add(&mut self, bytes: u64, count: u64) {
        self.bytes = self.bytes.wrapping_add(bytes);
        self.count += count;
    }
}

/// One node of a side's stack tree (parents before children).
#[derive(Debug, Clone, PartialEq, Eq)]
struct SideNode {
    /// Index of the parent in [`Side::tree`]; `NONE` for the root.
    parent: u32,
    /// `filename:line:name`; `all` for the root.
    frame: String,
    bytes: u64,
}

/// One side of a diff: what was alive at one moment of one device, keyed by
/// text (see the module doc). Holds no reference to its snapshot.
#[derive(Debug, Clone)]
pub struct Side {
    pub info: SideInfo,
    stack: HashMap<String, Sum>,
    user_frame: HashMap<String, Sum>,
    frame: HashMap<String, Sum>,
    category: HashMap<String, Sum>,
    tree: Vec<SideNode>,
}

/// Which moment a side is, and its totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SideInfo {
    /// What the user calls it (a file name).
    pub name: String,
    pub device: u32,
    /// `0`, `1`, ... or `host`.
    pub device_name: String,
    pub at: At,
    /// Live bytes at the moment: the Active Memory Timeline's total there.
    pub total_bytes: u64,
    pub count: u64,
}

impl Side {
    /// The live set of `a` at `moment`, grouped by text.
    pub fn new(snap: &Snapshot, a: &Analysis, moment: Moment, name: &str) -> Result<Side, String> {
        let at = a.resolve(moment)?;
        let live = a.live(at.position);
        // Canonical frame -> plain label, made once each.
        let mut labels: IdMap<String> = IdMap::default();
        let mut label = |c: u32| -> String {
            if c == NONE {
                return NO_FRAMES.to_string();
            }
            labels.entry(c).or_insert_with(|| a.frames.plain_label(snap, c)).clone()
        };
        let mut side = Side {
            info: SideInfo {
                name: name.to_string(),
                device: a.device,
                device_name: snap.device_name(a.device),
                at,
                total_bytes: a.bytes_of(&live),
                count: live.len() as u64,
            },
            stack: HashMap::new(),
            user_frame: HashMap::new(),
            frame: HashMap::new(),
            category: HashMap::new(),
            tree: Vec::new(),
        };
        for (leaf, bytes, count) in per_leaf(a, &live) {
            let path: Vec<u32> = a.tree.path(leaf).collect();
            let lines: Vec<String> = path.iter().map(|&f| label(f)).collect();
            let key = if lines.is_empty() { NO_FRAMES.to_string() } else { elide_repeats(lines.clone()).join("\n") };
            side.stack.entry(key).or_default().add(bytes, count);
            // Bottom-up, inclusive: an allocation counts once per distinct
            // frame of its stack (recursion counts once).
            let mut seen: Vec<u32> = Vec::with_capacity(path.len());
            for (&f, l) in path.iter().zip(lines) {
                if !seen.contains(&f) {
                    seen.push(f);
                    side.frame.entry(l).or_default().add(bytes, count);
                }
            }
            if path.is_empty() {
                side.frame.entry(NO_FRAMES.to_string()).or_default().add(bytes, count);
            }
        }
        let mut users: IdMap<Sum> = IdMap::default();
        for &e in &live {
            users.entry(a.el.user[e as usize]).or_default().add(a.el.size[e as usize], 1);
        }
        for (u, s) in users {
            side.user_frame.entry(label(u)).or_default().add(s.bytes, s.count);
        }
        for g in a.groups(&live, GroupBy::Category) {
            side.category.insert(g.key, Sum { bytes: g.bytes, count: g.count });
        }
        // The stack tree: every node with live bytes, parents first.
        let nodes = a.tree(&live, 1);
        let mut index: IdMap<u32> = IdMap::default();
        for n in &nodes {
            index.insert(n.id, side.tree.len() as u32);
            let parent = if n.id == 0 { NONE } else { index.get(&n.parent).copied().unwrap_or(0) };
            let frame = if n.id == 0 { "all".to_string() } else { label(a.tree.frame[n.id as usize]) };
            side.tree.push(SideNode { parent, frame, bytes: n.bytes });
        }
        Ok(side)
    }

    fn groups(&self, by: GroupBy) -> &HashMap<String, Sum> {
        match by {
            GroupBy::Stack => &self.stack,
            GroupBy::UserFrame => &self.user_frame,
            GroupBy::Frame => &self.frame,
            GroupBy::Category => &self.category,
        }
    }

    /// Bytes of the side's heap (approximate): what keeping it costs.
    pub fn heap_bytes(&self) -> usize {
        let map = |m: &HashMap<String, Sum>| m.keys().map(|k| k.len() + 40).sum::<usize>();
        map(&self.stack)
            + map(&self.user_frame)
            + map(&self.frame)
            + map(&self.category)
            + self.tree.iter().map(|n| n.frame.len() + 40).sum::<usize>()
    }
}

/// Lines of a key a row is named by.
pub const LABEL_LINES: usize = 3;

/// One key's live bytes on each side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffGroup {
    pub key: String,
    /// What the row is named by: the key's user frames first, at most
    /// [`LABEL_LINES`] lines, with the first line that differs where two
    /// rows' would read the same ([`super::live::distinct_short_stacks`]).
    pub label: String,
    pub bytes_a: u64,
    pub bytes_b: u64,
    pub count_a: u64,
    pub count_b: u64,
}

impl DiffGroup {
    /// B − A (saturating at i64's range, which no real file reaches).
    pub fn delta(&self) -> i64 {
        let d = self.bytes_b as i128 - self.bytes_a as i128;
        d.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    /// Something differs: bytes or allocations.
    pub fn changed(&self) -> bool {
        self.bytes_a != self.bytes_b || self.count_a != self.count_b
    }
}

/// Two sides compared by one grouping.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diff {
    pub by: GroupBy,
    pub a: SideInfo,
    pub b: SideInfo,
    /// Every key of either side: the changed ones first, largest |B − A|
    /// first (ties by key), then the unchanged ones, largest first. By
    /// stack, user frame or kind, each side's bytes sum to its
    /// `total_bytes`; by frame a group is inclusive, so they sum to more.
    pub groups: Vec<DiffGroup>,
    /// Groups whose bytes or count differ.
    pub changed: usize,
    /// Keys with live allocations only in A / only in B, and their bytes.
    pub only_in_a: usize,
    pub only_in_a_bytes: u64,
    pub only_in_b: usize,
    pub only_in_b_bytes: u64,
}

/// `b` against `a`, grouped `by`.
pub fn diff(a: &Side, b: &Side, by: GroupBy) -> Diff {
    let (ga, gb) = (a.groups(by), b.groups(by));
    let mut groups: Vec<DiffGroup> = ga
        .iter()
        .map(|(k, sa)| {
            let sb = gb.get(k).copied().unwrap_or_default();
            DiffGroup {
                key: k.clone(),
                label: String::new(),
                bytes_a: sa.bytes,
                bytes_b: sb.bytes,
                count_a: sa.count,
                count_b: sb.count,
            }
        })
        .collect();
    for (k, sb) in gb {
        if !ga.contains_key(k) {
            groups.push(DiffGroup {
                key: k.clone(),
                label: String::new(),
                bytes_a: 0,
                bytes_b: sb.bytes,
                count_a: 0,
                count_b: sb.count,
            });
        }
    }
    groups.sort_by(|x, y| {
        y.changed()
            .cmp(&x.changed())
            .then(y.delta().unsigned_abs().cmp(&x.delta().unsigned_abs()))
            .then(y.bytes_a.max(y.bytes_b).cmp(&x.bytes_a.max(x.bytes_b)))
            .then_with(|| x.key.cmp(&y.key))
    });
    let keys: Vec<&str> = groups.iter().map(|g| g.key.as_str()).collect();
    let labels = super::live::distinct_short_stacks(&keys, LABEL_LINES);
    for (g, l) in groups.iter_mut().zip(labels) {
        g.label = l;
    }
    let only = |f: &dyn Fn(&DiffGroup) -> bool, bytes: &dyn Fn(&DiffGroup) -> u64| {
        let v: Vec<&DiffGroup> = groups.iter().filter(|g| f(g)).collect();
        (v.len(), v.iter().fold(0u64, |s, g| s.wrapping_add(bytes(g))))
    };
    let (only_in_a, only_in_a_bytes) = only(&|g| g.count_b == 0 && g.count_a > 0, &|g| g.bytes_a);
    let (only_in_b, only_in_b_bytes) = only(&|g| g.count_a == 0 && g.count_b > 0, &|g| g.bytes_b);
    Diff {
        by,
        a: a.info.clone(),
        b: b.info.clone(),
        changed: groups.iter().filter(|g| g.changed()).count(),
        groups,
        only_in_a,
        only_in_a_bytes,
        only_in_b,
        only_in_b_bytes,
    }
}

/// One node of the two sides' stack trees merged by frame text (for a
/// two-colour icicle).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffNode {
    /// 0: the root, `all`.
    pub id: u32,
    /// `u32::MAX` for the root.
    pub parent: u32,
    pub depth: u32,
    pub frame: String,
    /// Bytes alive under this frame path in A and in B.
    pub bytes_a: u64,
    pub bytes_b: u64,
}

/// The merged stack tree: nodes whose bytes on either side reach
/// `min_bytes` (the root always), parents before children, siblings
/// largest first (by the larger side).
pub fn diff_tree(a: &Side, b: &Side, min_bytes: u64) -> Vec<DiffNode> {
    let mut nodes: Vec<DiffNode> =
        vec![DiffNode { id: 0, parent: NONE, depth: 0, frame: "all".to_string(), bytes_a: 0, bytes_b: 0 }];
    // Keyed by the sides' own frame text: no copy per node looked up.
    let mut child: HashMap<(u32, &str), u32> = HashMap::new();
    for (side, is_b) in [(a, false), (b, true)] {
        // Side node index -> merged id.
        let mut merged: Vec<u32> = Vec::with_capacity(side.tree.len());
        for n in &side.tree {
            let id = if n.parent == NONE {
                0
            } else {
                let p = merged.get(n.parent as usize).copied().unwrap_or(0);
                let next = nodes.len() as u32;
                let id = *child.entry((p, n.frame.as_str())).or_insert(next);
                if id == next {
                    let depth = nodes[p as usize].depth + 1;
                    nodes.push(DiffNode { id, parent: p, depth, frame: n.frame.clone(), bytes_a: 0, bytes_b: 0 });
                }
                id
            };
            let m = &mut nodes[id as usize];
            if is_b {
                m.bytes_b = n.bytes;
            } else {
                m.bytes_a = n.bytes;
            }
            merged.push(id);
        }
    }
    let min = min_bytes.max(1);
    let mut out: Vec<DiffNode> = nodes.into_iter().filter(|n| n.id == 0 || n.bytes_a.max(n.bytes_b) >= min).collect();
    out.sort_by(|x, y| {
        x.depth
            .cmp(&y.depth)
            .then(y.bytes_a.max(y.bytes_b).cmp(&x.bytes_a.max(x.bytes_b)))
            .then_with(|| x.frame.cmp(&y.frame))
    });
    out
}

/// A diff as text for a terminal: the totals, then the `limit` largest
/// changes, each by its label.
pub fn to_text(d: &Diff, limit: usize) -> String {
    use crate::format::format_size;
    use std::fmt::Write;
    let size = |b: u64| format_size(b, false);
    let signed = |v: i64| {
        if v < 0 {
            format!("-{}", size(v.unsigned_abs()))
        } else {
            format!("+{}", size(v as u64))
        }
    };
    let side = |s: &SideInfo| {
        let ev = s.at.event.map_or("before the first event".to_string(), |e| format!("after event {e}"));
        format!("{}, device {}, {ev}: {} in {} allocations", s.name, s.device_name, size(s.total_bytes), s.count)
    };
    let mut out = String::new();
    let _ = writeln!(out, "A  {}", side(&d.a));
    let _ = writeln!(out, "B  {}", side(&d.b));
    let total = d.b.total_bytes as i128 - d.a.total_bytes as i128;
    let _ = writeln!(out, "B - A  {}", signed(total.clamp(i64::MIN as i128, i64::MAX as i128) as i64));
    let by = match d.by {
        GroupBy::Stack => "stack",
        GroupBy::UserFrame => "user frame",
        GroupBy::Frame => "frame",
        GroupBy::Category => "category",
    };
    if d.changed == 0 {
        let _ = writeln!(out, "by {by}: no change ({} groups, the same on both sides)", d.groups.len());
        return out;
    }
    let _ = writeln!(
        out,
        "by {by}: {} of {} groups changed; only in A: {} ({}), only in B: {} ({})",
        d.changed,
        d.groups.len(),
        d.only_in_a,
        size(d.only_in_a_bytes),
        d.only_in_b,
        size(d.only_in_b_bytes)
    );
    let _ = writeln!(out, "  {:>10} {:>10} {:>11}", "A", "B", "B - A");
    for g in d.groups.iter().filter(|g| g.changed()).take(limit) {
        let tag = match (g.count_a, g.count_b) {
            (0, _) => "only in B  ",
            (_, 0) => "only in A  ",
            _ => "",
        };
        let key = g.label.replace('\n', "\n                                     ");
        let _ =
            writeln!(out, "  {:>10} {:>10} {:>11}  {tag}{key}", size(g.bytes_a), size(g.bytes_b), signed(g.delta()));
    }
    if d.changed > limit {
        let _ = writeln!(out, "  ... {} more changed groups (--limit N, --json)", d.changed - limit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Rules;

    fn snap(json: &str) -> Snapshot {
        crate::load(json.as_bytes()).unwrap()
    }

    fn side(s: &Snapshot, m: Moment) -> Side {
        Side::new(s, &Analysis::build(s, 0, &Rules::default()), m, "x").unwrap()
    }

    const F: &str = r#"{"filename": "train.py", "line": 10, "name": "step"}"#;
    const G: &str = r#"{"filename": "model.py", "line": 3, "name": "fwd"}"#;

    fn trace(events: &[(&str, u64, u64, &str)]) -> String {
        let ev: Vec<String> = events
            .iter()
            .map(|(a, addr, size, frames)| {
                format!(r#"{{"action": "{a}", "addr": {addr}, "size": {size}, "stream": 0, "frames": [{frames}]}}"#)
            })
            .collect();
        format!(r#"{{"segments": [], "device_traces": [[{}]]}}"#, ev.join(","))
    }

    #[test]
    fn rows_that_read_the_same_say_what_differs() {
        // Two stacks alike in the user's code, apart below it (two C++ paths).
        let cpp = |n: &str| format!(r#"{{"filename": "??", "line": 0, "name": "at::native::{n}(long)"}}"#);
        let a = snap(&trace(&[
            ("alloc", 4096, 100, &format!("{},{G},{F}", cpp("empty"))),
            ("alloc", 8192, 50, &format!("{},{G},{F}", cpp("zeros"))),
        ]));
        let d = diff(&side(&a, Moment::End), &side(&snap(&trace(&[])), Moment::End), GroupBy::Stack);
        let labels: Vec<&str> = d.groups.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "model.py:3:fwd\ntrain.py:10:step\n…\n(differs: ??:0:at::native::empty(long))",
                "model.py:3:fwd\ntrain.py:10:step\n…\n(differs: ??:0:at::native::zeros(long))"
            ]
        );
        // A row alone keeps its short stack.
        let d = diff(&side(&a, Moment::End), &side(&a, Moment::End), GroupBy::UserFrame);
        assert_eq!(d.groups.iter().map(|g| g.label.as_str()).collect::<Vec<_>>(), ["model.py:3:fwd"]);
    }

    #[test]
    fn keys_are_text_not_addresses() {
        // The same code at other addresses, frame dicts in another order.
        let a = snap(&trace(&[("alloc", 4096, 100, &format!("{G},{F}")), ("alloc", 8192, 50, F)]));
        let b = snap(&trace(&[("alloc", 1 << 30, 50, F), ("alloc", 1 << 31, 100, &format!("{G},{F}"))]));
        let d = diff(&side(&a, Moment::End), &side(&b, Moment::End), GroupBy::Stack);
        assert_eq!(d.changed, 0, "{d:?}");
        assert_eq!(d.groups.len(), 2);
        assert_eq!(d.groups[0].key, "model.py:3:fwd\ntrain.py:10:step");
        let t = diff_tree(&side(&a, Moment::End), &side(&b, Moment::End), 1);
        assert!(t.iter().all(|n| n.bytes_a == n.bytes_b), "{t:?}");
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn finds_what_changed() {
        let a = snap(&trace(&[("alloc", 4096, 100, F), ("alloc", 8192, 50, G)]));
        let b = snap(&trace(&[("alloc", 4096, 100, F), ("alloc", 8192, 70, F), ("alloc", 9000, 7, "")]));
        let (sa, sb) = (side(&a, Moment::End), side(&b, Moment::End));
        let d = diff(&sa, &sb, GroupBy::Stack);
        let rows: Vec<(&str, u64, u64)> = d.groups.iter().map(|g| (g.key.as_str(), g.bytes_a, g.bytes_b)).collect();
        assert_eq!(rows, vec![("train.py:10:step", 100, 170), ("model.py:3:fwd", 50, 0), (NO_FRAMES, 0, 7)]);
        assert_eq!((d.changed, d.only_in_a, d.only_in_a_bytes, d.only_in_b, d.only_in_b_bytes), (3, 1, 50, 1, 7));
        assert_eq!(d.groups.iter().map(|g| g.bytes_b).sum::<u64>(), d.b.total_bytes);
        // Two moments of one trace: after the first alloc, and the end.
        let d = diff(&side(&b, Moment::Event(0)), &sb, GroupBy::Frame);
        assert_eq!((d.a.total_bytes, d.b.total_bytes, d.changed), (100, 177, 2));
        assert!(to_text(&d, 10).contains("only in B"));
        // The merged tree: the root is each side's total; a frame only one
        // side has is there with 0 on the other; small nodes are cut.
        let t = diff_tree(&sa, &sb, 1);
        assert_eq!((t[0].frame.as_str(), t[0].bytes_a, t[0].bytes_b), ("all", 150, 177));
        let node = |f: &str| t.iter().find(|n| n.frame == f).map(|n| (n.depth, n.bytes_a, n.bytes_b));
        assert_eq!(node("train.py:10:step"), Some((1, 100, 170)));
        assert_eq!(node("model.py:3:fwd"), Some((1, 50, 0)));
        assert_eq!(diff_tree(&sa, &sb, 60).len(), 2);
    }
}
