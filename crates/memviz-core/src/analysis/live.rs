//! What is alive at one moment, and how it adds up: by call stack (a tree
//! for an icicle graph), by innermost user frame, by any frame (bottom-up,
//! inclusive) and by kind.
//!
//! A query walks one root-to-leaf path of [`LiveIndex`] (a segment tree over
//! buckets of positions), so it costs the live allocations plus at most two
//! buckets' worth of births and deaths, whatever the trace's length; the
//! groupings then cost the distinct live stacks times their depth.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

use super::category::Kind;
use super::Analysis;
use crate::format::{format_frame, frame_filter};
use crate::intervals;
use crate::model::{FrameId, Snapshot, StackId};

pub(crate) const NONE: u32 = u32::MAX;

/// A multiply-rotate hasher for the small integer ids the queries sum by:
/// SipHash cost more than the rest of a query.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(b as u32);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0.rotate_left(5) ^ n as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

/// A map keyed by ids, hashed with [`IdHasher`].
pub(crate) type IdMap<V> = HashMap<u32, V, BuildHasherDefault<IdHasher>>;

/// Intervals `[born, dies)` over positions, each stored at the canonical
/// nodes of a segment tree over leaf buckets (compressed rows).
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveIndex {
    leaves: u32,
    start: Vec<u32>,
    items: Vec<u32>,
}

/// Builds a [`LiveIndex`] a range of intervals at a time: counts each
/// node's intervals, then (prefix sums) fills them in.
pub(crate) struct LiveIndexBuilder {
    n_positions: u32,
    leaves: u32,
    /// Per node: its count (first pass), then its next free slot.
    fill: Vec<u32>,
    start: Vec<u32>,
    items: Vec<u32>,
    /// The next interval, and whether the second pass has begun.
    next: usize,
    filling: bool,
}

impl LiveIndexBuilder {
    pub(crate) fn new(n_positions: u32) -> LiveIndexBuilder {
        let leaves = intervals::leaves(n_positions);
        let nodes = 2 * leaves as usize;
        LiveIndexBuilder {
            n_positions,
            leaves,
            fill: vec![0; nodes + 1],
            start: Vec::new(),
            items: Vec::new(),
            next: 0,
            filling: false,
        }
    }

    /// Intervals `[born[e], dies[e])` from the next on, `budget` of them;
    /// true once both passes are done.
    pub(crate) fn step(&mut self, born: &[u32], dies: &[u32], budget: usize) -> bool {
        let (n, leaves) = (self.n_positions, self.leaves);
        if n == 0 {
            return true;
        }
        let end = self.next.saturating_add(budget).min(born.len());
        let spans = born[self.next..end].iter().zip(&dies[self.next..end]).enumerate().filter_map(|(k, (&b, &d))| {
            let d = d.min(n);
            (b < d).then_some((k + self.next, b, d))
        });
        let fill = &mut self.fill;
        if !self.filling {
            for (_, b, d) in spans {
                intervals::cover(b, d, leaves, &mut |node| fill[node + 1] += 1);
            }
            self.next = end;
            if end == born.len() {
                for i in 1..fill.len() {
                    fill[i] += fill[i - 1];
                }
                self.start = fill.clone();
                self.items = vec![0u32; *self.start.last().unwrap_or(&0) as usize];
                self.filling = true;
                self.next = 0;
            }
            return false;
        }
        let items = &mut self.items;
        for (e, b, d) in spans {
            intervals::cover(b, d, leaves, &mut |node| {
                items[fill[node] as usize] = e as u32;
                fill[node] += 1;
            });
        }
        self.next = end;
        end == born.len()
    }

    /// The share of both passes done, of `n` intervals.
    pub(crate) fn share(&self, n: usize) -> f64 {
        (self.next + if self.filling { n } else { 0 }) as f64 / (2 * n).max(1) as f64
    }

    pub(crate) fn finish(self) -> LiveIndex {
        LiveIndex { leaves: self.leaves, start: self.start, items: self.items }
    }
}

impl LiveIndex {
    /// The index built in steps of `budget` intervals (the analysis builds
    /// it so: [`super::AnalysisBuilder`]).
    #[cfg(test)]
    fn build(born: &[u32], dies: &[u32], n_positions: u32, budget: usize) -> LiveIndex {
        let mut b = LiveIndexBuilder::new(n_positions);
        while !b.step(born, dies, budget) {}
        b.finish()
    }

    /// Calls `f` with every interval holding position `p`.
    pub(crate) fn for_each(&self, p: u32, born: &[u32], dies: &[u32], mut f: impl FnMut(u32)) {
        if self.leaves == 0 {
            return;
        }
        let mut node = intervals::leaf(p, self.leaves);
        while node > 0 && node + 1 < self.start.len() {
            for &e in &self.items[self.start[node] as usize..self.start[node + 1] as usize] {
                if born[e as usize] <= p && p < dies[e as usize] {
                    f(e);
                }
            }
            node >>= 1;
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        (self.start.capacity() + self.items.capacity()) * 4
    }
}

/// Frames compared by what they say (file, line, function), not by the id
/// the decoder gave each frame dict; only frames memory_viz shows.
#[derive(Debug, Clone, Default)]
pub(crate) struct FrameTable {
    /// Per frame id: its canonical id, or NONE when memory_viz hides it.
    canon: Vec<u32>,
    /// Per canonical id: one frame id that has it.
    rep: Vec<FrameId>,
    /// Per canonical id: user code (see [`is_user_file`]).
    user: Vec<bool>,
    /// Per canonical id: a Python frame (`.py` file).
    python: Vec<bool>,
    /// Per canonical id: `filename:line:name` (plus FX lines), made once.
    labels: Vec<Box<str>>,
}

/// A Python file of the program itself, not of an installed package or of
/// the standard library: not under `site-packages/` or `dist-packages/`, not
/// under `lib/pythonX.Y/` (or a Windows installation's `Lib\`), not a
/// `<frozen ...>` or `<string>` pseudo-file.
pub fn is_user_file(file: &str) -> bool {
    let f = file.replace('\\', "/").to_ascii_lowercase();
    let windows_stdlib = f.as_bytes().get(1) == Some(&b':') && f.contains("/lib/");
    f.ends_with(".py")
        && !f.starts_with('<')
        && !f.contains("site-packages/")
        && !f.contains("dist-packages/")
        && !f.contains("/lib/python")
        && !windows_stdlib
}

impl FrameTable {
    pub(crate) fn new(snap: &Snapshot) -> FrameTable {
        let mut t = FrameTable { canon: Vec::with_capacity(snap.frames.len()), ..Default::default() };
        let mut by_text: HashMap<(&str, i64, &str), u32> = HashMap::new();
        for (id, f) in snap.frames.iter().enumerate() {
            let (name, file) = (snap.str(f.name), snap.str(f.filename));
            if !frame_filter(name, file) {
                t.canon.push(NONE);
                continue;
            }
            let next = t.rep.len() as u32;
            let c = *by_text.entry((file, f.line, name)).or_insert(next);
            if c == next {
                t.rep.push(id as FrameId);
                t.labels.push(format_frame(snap, f).into_boxed_str());
                t.python.push(file.ends_with(".py"));
                t.user.push(is_user_file(file));
            }
            t.canon.push(c);
        }
        t
    }

    pub(crate) fn canon(&self, f: FrameId) -> u32 {
        self.canon.get(f as usize).copied().unwrap_or(NONE)
    }

    /// `filename:line:name` (with FX lines when recorded); [`NO_FRAMES`]
    /// for NONE.
    pub(crate) fn label(&self, c: u32) -> &str {
        self.labels.get(c as usize).map_or(NO_FRAMES, |l| l)
    }

    /// `filename:line:name` of canonical frame `c`, without FX lines: the
    /// text two snapshots' frames are matched by (see `analysis::diff`).
    pub(crate) fn plain_label(&self, snap: &Snapshot, c: u32) -> String {
        match self.rep.get(c as usize).and_then(|&f| snap.frames.get(f as usize)) {
            Some(f) => format!("{}:{}:{}", snap.str(f.filename), f.line, snap.str(f.name)),
            None => NO_FRAMES.to_string(),
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.canon.capacity() * 4 + self.rep.len() * 22 + self.labels.iter().map(|l| l.len()).sum::<usize>()
    }

    /// The innermost user frame of `stack` (see [`is_user_file`]), else its
    /// innermost Python frame outside the torch package (a library's:
    /// transformers, torchvision), else its innermost Python frame, else its
    /// innermost autograd node (`…Backward…::apply`: C++-only stacks of the
    /// backward pass), else its innermost frame that is not PyTorch's own
    /// C++ ([`is_torch_cpp`]: the allocator, the dispatcher, autograd's
    /// engine); NONE for none of these.
    pub(crate) fn user_frame(&self, snap: &Snapshot, stack: StackId) -> u32 {
        let frames = if (stack as usize) < snap.stacks.len() { snap.stack(stack) } else { &[] };
        let shown = || frames.iter().map(|&f| self.canon(f)).filter(|&c| c != NONE);
        let frame = |c: u32| snap.frames.get(self.rep[c as usize] as usize);
        let name = |c: u32| frame(c).map_or("", |f| snap.str(f.name));
        let file = |c: u32| frame(c).map_or("", |f| snap.str(f.filename));
        shown()
            .find(|&c| self.user[c as usize])
            .or_else(|| shown().find(|&c| self.python[c as usize] && !is_torch_file(file(c))))
            .or_else(|| shown().find(|&c| self.python[c as usize]))
            .or_else(|| shown().find(|&c| is_autograd_node(name(c))))
            .or_else(|| shown().find(|&c| !self.python[c as usize] && !is_torch_cpp(name(c), file(c))))
            .unwrap_or(NONE)
    }
}

/// A file of the torch package itself (`…/torch/…`, `\` read as `/`).
pub fn is_torch_file(file: &str) -> bool {
    file.replace('\\', "/").contains("/torch/")
}

/// A C++ frame of PyTorch itself: a function in its namespaces (`c10::`,
/// `at::`, `torch::`, `caffe2::`) or a file of its sources (the caching
/// allocator, ATen, c10, torch/csrc), or an unresolved frame (`??`).
pub fn is_torch_cpp(name: &str, file: &str) -> bool {
    let f = file.replace('\\', "/");
    ["c10::", "at::", "torch::", "caffe2::"].iter().any(|ns| name.starts_with(ns) || name.contains(&format!(" {ns}")))
        || f.contains("CUDACachingAllocator")
        || f.contains("aten/")
        || f.contains("c10/")
        || f.contains("torch/csrc/")
        || f.is_empty()
        || f == "??"
}

/// A C++ frame of an autograd node's backward (`MulBackward0::apply`).
fn is_autograd_node(name: &str) -> bool {
    name.contains("Backward") && name.contains("::apply")
}

/// The lines of a stack key worth a glance: its Python frames, else its
/// autograd-node frames, else its first lines; at most `n`, "…" when more.
pub fn short_stack(key: &str, n: usize) -> String {
    let all: Vec<&str> = key.lines().collect();
    // The user's frames first, then other libraries', then torch's own.
    let mut python: Vec<(u8, &str)> = all
        .iter()
        .filter(|l| l.contains(".py:"))
        .map(|&l| {
            let file = label_parts(l).0;
            (
                if is_user_file(file) {
                    0
                } else if is_torch_file(file) {
                    2
                } else {
                    1
                },
                l,
            )
        })
        .collect();
    python.sort_by_key(|&(rank, _)| rank);
    let nodes: Vec<&str> = all.iter().copied().filter(|l| is_autograd_node(l)).collect();
    let not_torch: Vec<&str> = all
        .iter()
        .copied()
        .filter(|l| {
            let (file, name) = label_parts(l);
            !is_torch_cpp(name, file)
        })
        .collect();
    let pick = if !python.is_empty() {
        python.into_iter().map(|(_, l)| l).collect()
    } else if !nodes.is_empty() {
        nodes
    } else if !not_torch.is_empty() {
        not_torch
    } else {
        all.clone()
    };
    let mut out: Vec<&str> = pick.iter().take(n).copied().collect();
    if all.len() > out.len() {
        out.push("…");
    }
    out.join("\n")
}

/// [`short_stack`] of each key, told apart where two keys' short stacks are
/// the same (stacks that differ only below the user's code): such a one
/// gets the first line of its key that differs from another of them,
/// as `(differs: LINE)`.
pub fn distinct_short_stacks(keys: &[&str], n: usize) -> Vec<String> {
    let mut out: Vec<String> = keys.iter().map(|k| short_stack(k, n)).collect();
    let mut same: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in out.iter().enumerate() {
        same.entry(s.as_str()).or_default().push(i);
    }
    let mut extra: Vec<(usize, String)> = Vec::new();
    for ids in same.values().filter(|v| v.len() > 1) {
        let lines: Vec<Vec<&str>> = ids.iter().map(|&i| keys[i].lines().collect()).collect();
        for (j, &i) in ids.iter().enumerate() {
            let mine = &lines[j];
            // The first line where some other key says something else.
            let at = (0..mine.len().max(1))
                .find(|&d| lines.iter().enumerate().any(|(o, other)| o != j && other.get(d) != mine.get(d)));
            if let Some(line) = at.and_then(|d| mine.get(d)) {
                extra.push((i, format!("(differs: {line})")));
            }
        }
    }
    for (i, e) in extra {
        out[i].push('\n');
        out[i].push_str(&e);
    }
    out
}

/// (file, function) of a `filename:line:name` label: split at the first
/// `:LINE:` (a file may hold `:`, as `C:\`; a C++ name `::`).
pub(crate) fn label_parts(label: &str) -> (&str, &str) {
    let b = label.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c != b':' {
            continue;
        }
        let digits = b[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
        if digits > 0 && b.get(i + 1 + digits) == Some(&b':') {
            return (&label[..i], &label[i + 2 + digits..]);
        }
    }
    (label, "")
}

/// Key of the group of allocations that have no shown frame.
pub const NO_FRAMES: &str = "<no frames>";

/// The distinct shown stacks as a tree: the root is "all", each node one
/// frame, children called from their parent (outermost frame at the top).
#[derive(Debug, Clone)]
pub(crate) struct StackTree {
    /// Per node: parent (NONE for the root, node 0); parents come before
    /// their children.
    pub(crate) parent: Vec<u32>,
    /// Per node: canonical frame (NONE for the root).
    pub(crate) frame: Vec<u32>,
    pub(crate) depth: Vec<u32>,
    children: HashMap<(u32, u32), u32>,
}

impl Default for StackTree {
    fn default() -> Self {
        StackTree { parent: vec![NONE], frame: vec![NONE], depth: vec![0], children: HashMap::new() }
    }
}

impl StackTree {
    /// The node of `stack`'s shown frames.
    pub(crate) fn insert(&mut self, snap: &Snapshot, frames: &FrameTable, stack: StackId) -> u32 {
        let ids = if (stack as usize) < snap.stacks.len() { snap.stack(stack) } else { &[] };
        let mut node = 0u32;
        // Stacks are stored innermost first; the tree grows from the outermost.
        for &f in ids.iter().rev() {
            let c = frames.canon(f);
            if c == NONE {
                continue;
            }
            let next = self.parent.len() as u32;
            let child = *self.children.entry((node, c)).or_insert(next);
            if child == next {
                self.parent.push(node);
                self.frame.push(c);
                self.depth.push(self.depth[node as usize] + 1);
            }
            node = child;
        }
        node
    }

    pub(crate) fn len(&self) -> usize {
        self.parent.len()
    }

    /// Drops what only [`StackTree::insert`] needs.
    pub(crate) fn finish(&mut self) {
        self.children = HashMap::new();
        self.parent.shrink_to_fit();
        self.frame.shrink_to_fit();
        self.depth.shrink_to_fit();
    }

    /// The frames from `node` up to the root: innermost first, as memory_viz
    /// prints a stack.
    pub(crate) fn path(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        let mut n = node;
        std::iter::from_fn(move || {
            if n == 0 || n as usize >= self.parent.len() {
                return None;
            }
            let f = self.frame[n as usize];
            n = self.parent[n as usize];
            Some(f)
        })
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.parent.capacity() * 12 + self.children.capacity() * 16
    }
}

/// How to group the allocations alive at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// The whole shown stack (a leaf of the stack tree).
    Stack,
    /// The innermost frame of the program's own code.
    UserFrame,
    /// Every frame, bottom-up: each frame's inclusive bytes (an allocation
    /// counts once per distinct frame of its stack).
    Frame,
    /// The inferred (or user-ruled) kind.
    Category,
}

impl GroupBy {
    pub fn from_name(s: &str) -> Option<GroupBy> {
        Some(match s {
            "stack" => GroupBy::Stack,
            "user" | "user_frame" | "user-frame" => GroupBy::UserFrame,
            "frame" => GroupBy::Frame,
            "category" | "kind" => GroupBy::Category,
            _ => return None,
        })
    }
}

/// One group of live allocations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// Stable within one [`Analysis`]: stack-tree node (stack), canonical
    /// frame (user frame, frame; `u32::MAX`: no frames) or kind index.
    pub id: u32,
    /// Stack: shown frames one a line, innermost first; frame:
    /// `filename:line:name`; category: the kind's name.
    pub key: String,
    pub bytes: u64,
    pub count: u64,
}

/// One node of the stack tree at a moment (for an icicle graph).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeNode {
    /// Stack-tree node id (0: the root, "all").
    pub id: u32,
    /// `u32::MAX` for the root.
    pub parent: u32,
    pub depth: u32,
    /// `filename:line:name`; `all` for the root.
    pub frame: String,
    /// Bytes alive under this frame (it and everything it called).
    pub bytes: u64,
    /// Bytes allocated with exactly this stack.
    pub self_bytes: u64,
    pub count: u64,
}

/// Live bytes and count per stack-tree leaf: the first step of every
/// grouping but by category.
pub(crate) fn per_leaf(a: &Analysis, elems: &[u32]) -> Vec<(u32, u64, u64)> {
    let mut at: IdMap<usize> = IdMap::default();
    let mut out: Vec<(u32, u64, u64)> = Vec::new();
    for &e in elems {
        let (leaf, size) = (a.el.leaf[e as usize], a.el.size[e as usize]);
        let i = *at.entry(leaf).or_insert_with(|| {
            out.push((leaf, 0, 0));
            out.len() - 1
        });
        out[i].1 = out[i].1.wrapping_add(size);
        out[i].2 += 1;
    }
    out
}

impl Analysis {
    /// Elements (of the Active Memory Timeline) alive at position `p`, in no
    /// particular order.
    pub fn live(&self, p: u32) -> Vec<u32> {
        let mut v = Vec::new();
        self.index.for_each(p, &self.el.born, &self.el.dies, |e| v.push(e));
        v
    }

    /// Sum of the sizes of `elems`.
    pub fn bytes_of(&self, elems: &[u32]) -> u64 {
        elems.iter().fold(0u64, |s, &e| s.wrapping_add(self.el.size[e as usize]))
    }

    /// `elems` grouped, largest first (all groups).
    pub fn groups(&self, elems: &[u32], by: GroupBy) -> Vec<Group> {
        self.top_groups(elems, by, usize::MAX)
    }

    /// The `limit` largest groups of `elems`: the same as the first `limit`
    /// of [`Analysis::groups`], but only those get their key text (a stack
    /// key is dozens of lines), so a panel of the top groups stays cheap
    /// however many groups there are.
    pub fn top_groups(&self, elems: &[u32], by: GroupBy, limit: usize) -> Vec<Group> {
        // (id, bytes, count)
        let mut sums: Vec<(u32, u64, u64)> = match by {
            GroupBy::Category => {
                let mut sums = [(0u64, 0u64); Kind::ALL.len()];
                for &e in elems {
                    let s = &mut sums[self.el.kind[e as usize] as usize];
                    s.0 = s.0.wrapping_add(self.el.size[e as usize]);
                    s.1 += 1;
                }
                Kind::ALL
                    .iter()
                    .filter(|k| sums[**k as usize].1 > 0)
                    .map(|&k| (k as u32, sums[k as usize].0, sums[k as usize].1))
                    .collect()
            }
            GroupBy::Stack => per_leaf(self, elems),
            GroupBy::UserFrame => {
                let mut sums: IdMap<(u64, u64)> = IdMap::default();
                for &e in elems {
                    let s = sums.entry(self.el.user[e as usize]).or_default();
                    s.0 = s.0.wrapping_add(self.el.size[e as usize]);
                    s.1 += 1;
                }
                sums.into_iter().map(|(f, (b, c))| (f, b, c)).collect()
            }
            GroupBy::Frame => {
                let mut sums: IdMap<(u64, u64)> = IdMap::default();
                // Per frame, the leaf that last added to it: a recursive
                // stack counts once per frame.
                let mut seen: IdMap<u32> = IdMap::default();
                for (leaf, bytes, count) in per_leaf(self, elems) {
                    let mut any = false;
                    for f in self.tree.path(leaf) {
                        any = true;
                        if seen.insert(f, leaf) != Some(leaf) {
                            let s = sums.entry(f).or_default();
                            s.0 = s.0.wrapping_add(bytes);
                            s.1 += count;
                        }
                    }
                    if !any {
                        let s = sums.entry(NONE).or_default();
                        s.0 = s.0.wrapping_add(bytes);
                        s.1 += count;
                    }
                }
                sums.into_iter().map(|(f, (b, c))| (f, b, c)).collect()
            }
        };
        let key = |id: u32| match by {
            GroupBy::Category => Kind::ALL.get(id as usize).map_or("", |k| k.name()).to_string(),
            GroupBy::Stack => self.stack_key(id),
            GroupBy::UserFrame | GroupBy::Frame => self.frames.label(id).to_string(),
        };
        // Largest first; ties by key so the order never depends on hashing.
        // Only the groups up to the end of the tie at the cut need a key.
        sums.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)));
        let mut cut = limit.min(sums.len());
        if cut > 0 {
            let last = (sums[cut - 1].1, sums[cut - 1].2);
            while cut < sums.len() && (sums[cut].1, sums[cut].2) == last {
                cut += 1;
            }
        }
        let mut out: Vec<Group> =
            sums[..cut].iter().map(|&(id, bytes, count)| Group { id, key: key(id), bytes, count }).collect();
        out.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| b.count.cmp(&a.count)).then_with(|| a.key.cmp(&b.key)));
        out.truncate(limit);
        out
    }

    /// The stack tree over `elems` for an icicle graph: the nodes with at
    /// least `min_bytes` inclusive bytes (the root always), parents before
    /// children, siblings largest first.
    pub fn tree(&self, elems: &[u32], min_bytes: u64) -> Vec<TreeNode> {
        let mut incl: IdMap<(u64, u64, u64)> = IdMap::default(); // bytes, self, count
        incl.insert(0, (0, 0, 0));
        for (leaf, bytes, count) in per_leaf(self, elems) {
            let s = incl.entry(leaf).or_default();
            s.1 = s.1.wrapping_add(bytes);
            let mut n = leaf;
            loop {
                let s = incl.entry(n).or_default();
                s.0 = s.0.wrapping_add(bytes);
                s.2 += count;
                if n == 0 || n as usize >= self.tree.len() {
                    break;
                }
                n = self.tree.parent[n as usize];
            }
        }
        let min = min_bytes.max(1);
        let mut nodes: Vec<(u32, std::cmp::Reverse<u64>, u32, u64, u64)> = incl
            .into_iter()
            .filter(|&(n, (bytes, _, _))| n == 0 || bytes >= min)
            .map(|(n, (bytes, self_bytes, count))| {
                (self.tree.depth[n as usize], std::cmp::Reverse(bytes), n, self_bytes, count)
            })
            .collect();
        // Parents first (by depth), then siblings largest first.
        nodes.sort_unstable();
        nodes
            .into_iter()
            .map(|(depth, std::cmp::Reverse(bytes), n, self_bytes, count)| TreeNode {
                id: n,
                parent: self.tree.parent[n as usize],
                depth,
                frame: if n == 0 {
                    "all".to_string()
                } else {
                    self.frames.label(self.tree.frame[n as usize]).to_string()
                },
                bytes,
                self_bytes,
                count,
            })
            .collect()
    }

    /// A stack-tree node's shown frames, one a line, innermost first
    /// (repeats elided as memory_viz does).
    pub fn stack_key(&self, node: u32) -> String {
        let lines: Vec<String> = self.tree.path(node).map(|f| self.frames.label(f).to_string()).collect();
        if lines.is_empty() {
            return NO_FRAMES.to_string();
        }
        crate::format::elide_repeats(lines).join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_matches_brute_force() {
        let mut x = 7u64;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let n = 5000u32;
        let (mut born, mut dies) = (Vec::new(), Vec::new());
        for _ in 0..3000 {
            let b = (rnd() % (n as u64 + 1)) as u32;
            let len = match rnd() % 4 {
                0 => 1 + rnd() % 3,
                1 => 1 + rnd() % 200,
                _ => 1 + rnd() % 6000,
            } as u32;
            born.push(b);
            dies.push(b.saturating_add(len).min(n + 1));
        }
        // At once, and in steps that end mid-pass.
        for budget in [usize::MAX, 7] {
            let idx = LiveIndex::build(&born, &dies, n + 1, budget);
            for p in 0..=n {
                let mut got = Vec::new();
                idx.for_each(p, &born, &dies, |e| got.push(e));
                got.sort_unstable();
                let want: Vec<u32> =
                    (0..born.len() as u32).filter(|&e| born[e as usize] <= p && p < dies[e as usize]).collect();
                assert_eq!(got, want, "position {p}, budget {budget}");
            }
        }
        let empty = LiveIndex::build(&[], &[], 0, 1);
        empty.for_each(3, &[], &[], |_| panic!());
    }

    #[test]
    fn user_files() {
        assert!(is_user_file("/home/me/proj/model.py"));
        assert!(is_user_file("D:\\Dev\\proj\\cs336_basics\\model.py"));
        assert!(!is_user_file("/usr/lib/python3.11/site-packages/torch/nn/modules/module.py"));
        assert!(!is_user_file("D:\\Dev\\proj\\.venv\\Lib\\site-packages\\torch\\functional.py"));
        assert!(!is_user_file("/usr/lib/python3.11/contextlib.py"));
        assert!(!is_user_file("C:\\Python311\\Lib\\contextlib.py"));
        assert!(!is_user_file("<frozen runpy>"));
        assert!(!is_user_file("CUDACachingAllocator.cpp"));
        assert!(is_torch_file("/x/site-packages/torch/nn/modules/linear.py"));
        assert!(!is_torch_file("/x/site-packages/transformers/modeling_utils.py"));
        assert!(is_torch_cpp(
            "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(x)",
            "CUDACachingAllocator.cpp"
        ));
        assert!(is_torch_cpp("at::native::empty_cuda(x)", "??"));
        assert!(!is_torch_cpp("my_ext::kernel(x)", "my_ext.cu"));
        assert_eq!(label_parts("C:\\p\\m.py:12:f"), ("C:\\p\\m.py", "f"));
        assert_eq!(label_parts("??:0:at::native::x(a::b)"), ("??", "at::native::x(a::b)"));
        let key = "CUDACachingAllocator.cpp:0:c10::cuda::malloc(x)\n/v/site-packages/torch/nn/functional.py:9:gelu\n/home/me/m.py:3:forward";
        assert_eq!(short_stack(key, 1), "/home/me/m.py:3:forward\n…");
        let cpp = "CUDACachingAllocator.cpp:0:c10::cuda::malloc(x)\n??:0:at::empty(x)\nmine.cu:4:my_kernel(x)";
        assert_eq!(short_stack(cpp, 1), "mine.cu:4:my_kernel(x)\n…");
    }
}
