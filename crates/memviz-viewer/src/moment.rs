//! The analysis of the current file and device (`memviz_core::analysis`),
//! built once and shared by the "Alive at" panel (www/moment.js) and
//! "Explain the memory" (explain.rs); and the panel's data at one moment of
//! the Active Memory Timeline, as JSON. The peak and OOM markers need only
//! the device's landmarks, built alone while the analysis is not (it is built
//! when first asked for: it costs far more).

use memviz_core::analysis::{Analysis, AnalysisBuilder, Group, GroupBy, Landmarks, Moment, Rules, TreeNode};
use memviz_core::format::format_size;

use crate::boundary::PageError;
use crate::explain::{
    MomentArg, MomentPanelView, PanelDrawn, Picture, Piece, Row, RowsBy, RowsSort, RowsView, TreeView,
};
use memviz_core::timeline::{Timeline, TimelineBuilder, TimelineKind};
use memviz_render::icicle;

use crate::{OpenFile, Viewer};

/// The analysis of (file, device), built on first use.
#[derive(Default)]
pub(crate) struct MomentCache {
    analysis: Option<((usize, u32), Analysis)>,
    /// Of a (file, device) whose analysis is not built.
    landmarks: Option<((usize, u32), Landmarks)>,
    /// The (file, device) and position of the moment last shown.
    at: Option<((usize, u32), u32)>,
    /// Every group of that moment by one grouping, largest first: the
    /// panel's table filters and sorts these on each keystroke, so they are
    /// grouped once, not sent to the page (thousands of rows, most never
    /// shown).
    groups: Option<(MomentGroupsKey, Vec<Group>)>,
    /// The icicle's tree of that moment.
    tree: Option<(MomentKey, Vec<TreeNode>)>,
    /// The icicle's node zoomed into, of a generation: kept across moments.
    zoom: Option<(u32, u32)>,
    /// The icicle as last drawn (its hover and clicks).
    layout: Option<(MomentKey, icicle::Layout)>,
    /// The "Alive at" table's order.
    pub(crate) sort: TableSort,
    /// The "Alive at" panel as last shown (Color by's legend).
    pub(crate) shown: Option<MomentPanelView>,
    /// The live bytes of the moment last shown (the table's shares).
    at_bytes: u64,
}

/// The "Alive at" table's order: a column and its direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TableSort {
    pub key: RowsSort,
    pub descending: bool,
}

impl Default for TableSort {
    fn default() -> TableSort {
        TableSort { key: RowsSort::Bytes, descending: true }
    }
}

impl TableSort {
    /// After a click on column `key`'s head: the other way when it is the
    /// column sorted by, else by it, frames A to Z and numbers largest first.
    pub(crate) fn click(self, key: RowsSort) -> TableSort {
        if key == self.key {
            TableSort { key, descending: !self.descending }
        } else {
            TableSort { key, descending: key != RowsSort::Key }
        }
    }
}

/// (file, device), position.
type MomentKey = ((usize, u32), u32);

/// (file, device), position, grouping.
type MomentGroupsKey = ((usize, u32), u32, GroupBy);

impl MomentCache {
    /// `a`, of (file, device) `k`, becomes the one shown.
    fn set_analysis(&mut self, k: (usize, u32), a: Analysis) {
        self.analysis = Some((k, a));
        self.landmarks = None; // the analysis has them
        self.at = None;
        self.groups = None;
        self.tree = None;
        self.layout = None;
    }

    /// The analysis as built last (of whichever (file, device) it was).
    pub(crate) fn get(&self) -> Option<&Analysis> {
        self.analysis.as_ref().map(|a| &a.1)
    }

    /// The landmarks of (file, device) `k`, if built (alone or in its analysis).
    pub(crate) fn marks(&self, k: (usize, u32)) -> Option<&Landmarks> {
        match (&self.analysis, &self.landmarks) {
            (Some((ak, a)), _) if *ak == k => Some(&a.marks),
            (_, Some((lk, l))) if *lk == k => Some(l),
            _ => None,
        }
    }
}

impl Viewer {
    /// Whether the timeline shown is the Active Memory Timeline.
    pub fn is_active_memory(&self) -> bool {
        self.cx.timeline().is_some_and(|t| t.kind == TimelineKind::ActiveMemory)
    }

    /// Builds the analysis of the current (file, device) unless it is built
    /// (or kept from a diff, or partly built by `prepare_analysis_step`);
    /// false without a file.
    pub(crate) fn ensure_analysis(&mut self) -> bool {
        let Some(f) = self.cx.file() else { return false };
        let k = self.cx.key();
        if self.moment.analysis.as_ref().map(|a| a.0) != Some(k) {
            let a = loop {
                if let Ok(a) = self.analyses.shown_step(k, f, usize::MAX) {
                    break a;
                }
            };
            self.moment.set_analysis(k, a);
        }
        true
    }

    /// Builds what the analysis panels need ahead of their first use, about
    /// `budget` trace events or elements a call, so that the page can do it
    /// a slice a frame: the analysis (its Active Memory Timeline replayed
    /// first when the file does not keep it), then, when `state`, the state
    /// history (the moment's reserved memory; the leak report and Color by
    /// need none). The share done, 1.0 once built (at once when it was).
    pub fn prepare_analysis_step(&mut self, budget: usize, state: bool) -> f64 {
        let Some(f) = self.cx.file() else { return 1.0 };
        let k = self.cx.key();
        let analysis_share = if state { 0.6 } else { 1.0 };
        if !self.analysis_built() {
            match self.analyses.shown_step(k, f, budget) {
                Ok(a) => self.moment.set_analysis(k, a),
                Err(done) => return analysis_share * done,
            }
            return analysis_share;
        }
        if !state {
            return 1.0;
        }
        0.6 + 0.4 * self.views.state.prepare_step(&self.cx, budget)
    }

    /// Whether the analysis of the current (file, device) is built (the
    /// markers and the OOM count do not build it).
    pub fn analysis_built(&self) -> bool {
        self.cx.file().is_some() && self.moment.analysis.as_ref().is_some_and(|a| a.0 == self.cx.key())
    }

    /// Builds the landmarks of the current (file, device) unless they are
    /// (alone, or in its analysis); false without a file.
    pub(crate) fn ensure_landmarks(&mut self) -> bool {
        let Some(f) = self.cx.file() else { return false };
        let k = self.cx.key();
        if self.moment.marks(k).is_none() {
            let l = match self.cx.timeline() {
                Some(tl) if tl.kind == TimelineKind::ActiveMemory => Landmarks::new(&f.snap, tl),
                _ => Landmarks::new(&f.snap, &Timeline::build(&f.snap, self.cx.device, TimelineKind::ActiveMemory)),
            };
            self.moment.landmarks = Some((k, l));
        }
        true
    }

    /// The analysis of the current (file, device), built on first use.
    pub fn analysis(&mut self) -> Option<&Analysis> {
        if !self.ensure_analysis() {
            return None;
        }
        self.moment.get()
    }

    /// The MomentView of `moment` (`peak`, `step:S`, `end`, ...) on the
    /// current file and device, as JSON: totals and groups (the `limit`
    /// largest of each). Its icicle tree comes apart
    /// ([`Viewer::moment_tree_json`]): the page draws it a frame later, and
    /// the tree was 2/3 of this call's time and all but 3% of its text on
    /// the 2M-event file.
    pub fn moment_json(&mut self, moment: &str, limit: usize) -> Result<String, String> {
        let v = self.moment_at(Moment::parse(moment)?, limit)?;
        serde_json::to_string(&v).map_err(|e| e.to_string())
    }

    /// The MomentView of `m` (the `limit` largest groups of each kind), made
    /// the moment shown: the tree and the table read it.
    fn moment_at(&mut self, m: Moment, limit: usize) -> Result<memviz_core::analysis::MomentView, String> {
        if !self.ensure_analysis() {
            return Err("no file".into());
        }
        let (Some(f), Some(a)) = (self.cx.file(), self.moment.get()) else { return Err("no file".into()) };
        let v = match self.views.state.history(&self.cx) {
            Some(h) => {
                let mut c = h.cursor();
                a.moment(&f.snap, Some((h, &mut c)), m, limit, None)
            }
            None => a.moment(&f.snap, None, m, limit, None),
        }?;
        self.moment.at = Some((self.cx.key(), v.at.position));
        self.moment.at_bytes = v.bytes;
        Ok(v)
    }

    /// The icicle tree at the moment last asked of [`Viewer::moment_json`]
    /// (on this file and device): the stack-tree nodes of at least
    /// `min_tree_bytes`, parents first, as JSON `{frames, nodes}` ([`tree_json`]),
    /// each node `[id, parent, depth, frame, bytes, count]`.
    pub fn moment_tree_json(&mut self, min_tree_bytes: u64) -> Result<String, String> {
        let pos = self.moment_position()?;
        let a = self.moment.get().expect("moment_position: analysis built");
        let tree = a.tree(&a.live(pos), min_tree_bytes);
        Ok(tree_json(tree.iter().map(|n| ((n.id, n.parent, n.depth), n.frame.as_str(), [n.bytes, n.count]))))
    }

    /// The position of the moment last asked of [`Viewer::moment_json`] on
    /// this file and device, its analysis built.
    fn moment_position(&self) -> Result<u32, String> {
        match self.moment.at {
            Some((k, pos)) if k == self.cx.key() && self.analysis_built() => Ok(pos),
            _ => Err("no moment on this file and device: set one first".into()),
        }
    }

    /// The panel's table at the moment last asked of [`Viewer::moment_json`]
    /// (on this file and device), as JSON `{rows, matched, groups}`: of every
    /// group `by` (`user_frame`, `frame`, `stack`, `category`), those whose
    /// key contains `filter` (ignoring case), sorted by `sort` (`bytes`,
    /// `count` or `key`; ties keep the largest first), `limit` of them from
    /// the `offset`th.
    pub fn moment_rows_json(
        &mut self,
        by: &str,
        filter: &str,
        sort: &str,
        descending: bool,
        offset: usize,
        limit: usize,
    ) -> Result<String, String> {
        let (rows, matched, _) = self.moment_rows(by, filter, sort, descending, offset, limit)?;
        let groups = self.moment.groups.as_ref().map_or(0, |g| g.1.len());
        // matched: the groups that pass the filter.
        Ok(serde_json::json!({ "rows": rows, "matched": matched, "groups": groups }).to_string())
    }

    /// The table's rows (see [`Viewer::moment_rows_json`]), how many matched
    /// and the moment's live bytes.
    fn moment_rows(
        &mut self,
        by: &str,
        filter: &str,
        sort: &str,
        descending: bool,
        offset: usize,
        limit: usize,
    ) -> Result<(Vec<Group>, usize, u64), String> {
        let by = GroupBy::from_name(by)
            .ok_or_else(|| format!("unknown grouping {by:?} (user_frame, frame, stack or category)"))?;
        let k = self.cx.key();
        let pos = self.moment_position()?;
        let cached = self.moment.groups.as_ref().is_some_and(|g| g.0 == (k, pos, by));
        if !cached {
            let a = self.moment.get().expect("analysis_built");
            self.moment.groups = Some(((k, pos, by), a.groups(&a.live(pos), by)));
        }
        let groups = &self.moment.groups.as_ref().expect("just set").1;
        let needle = filter.to_lowercase();
        let mut rows: Vec<&Group> =
            groups.iter().filter(|g| needle.is_empty() || g.key.to_lowercase().contains(&needle)).collect();
        // Stable sorts over the largest-first list: ties stay largest first.
        match (sort, descending) {
            ("bytes", true) => {}
            ("bytes", false) => rows.sort_by_key(|g| g.bytes),
            ("count", _) => rows.sort_by(|a, b| if descending { b.count.cmp(&a.count) } else { a.count.cmp(&b.count) }),
            ("key", _) => {
                rows.sort_by_cached_key(|g| g.key.to_lowercase());
                if descending {
                    rows.reverse();
                }
            }
            _ => return Err(format!("unknown sort {sort:?} (bytes, count or key)")),
        }
        let matched = rows.len();
        let whole = self.moment.at_bytes;
        let rows =
            rows[offset.min(matched)..offset.saturating_add(limit).min(matched)].iter().map(|g| (*g).clone()).collect();
        Ok((rows, matched, whole))
    }
}

/// A stack tree for an icicle as JSON `{frames, nodes}`: each node
/// `[id, parent, depth, frame, ...values]`, its frame an index into
/// `frames`, where each frame's text appears once: thousands of nodes share
/// a few hundred frames (a moment's tree was 660 KB of mostly repeated
/// text on the 2M-event file). Nodes: `((id, parent, depth), frame, values)`.
pub(crate) fn tree_json<'a, const V: usize>(
    nodes: impl Iterator<Item = ((u32, u32, u32), &'a str, [u64; V])>,
) -> String {
    let mut frames: Vec<&str> = Vec::new();
    let mut index: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    let nodes: Vec<Vec<u64>> = nodes
        .map(|((id, parent, depth), frame, values)| {
            let f = *index.entry(frame).or_insert_with(|| {
                frames.push(frame);
                frames.len() as u64 - 1
            });
            [id.into(), parent.into(), depth.into(), f].into_iter().chain(values).collect()
        })
        .collect();
    serde_json::json!({ "frames": frames, "nodes": nodes }).to_string()
}

/// Analyses of (file, device)s other than the one shown: those of the last
/// two diff sides, so that moving a side's moment does not build its
/// analysis again (about 170 ms a side on the 2M-event file), and one being
/// built in steps, for a diff side ([`Viewer::prepare_diff_side_step`]) or
/// the file shown ([`Viewer::prepare_analysis_step`]).
#[derive(Default)]
pub(crate) struct Analyses {
    kept: Vec<((usize, u32), Analysis)>,
    building: Option<((usize, u32), Build)>,
}

/// An analysis being built: the file's Active Memory Timeline (its own while
/// the file keeps it, else replayed here and dropped after, as
/// [`Analysis::build`] does), then the analysis.
enum Build {
    Replay(Box<TimelineBuilder>),
    Analyse(Option<Box<Timeline>>, Box<AnalysisBuilder>),
}

impl Analyses {
    /// A and B.
    const KEEP: usize = 2;

    /// Keeps the analysis of `k` (of file `f`), built now unless it is.
    pub(crate) fn ensure(&mut self, k: (usize, u32), f: &OpenFile) {
        match self.kept.iter().position(|e| e.0 == k) {
            Some(i) => {
                let e = self.kept.remove(i);
                self.kept.push(e); // the most recent last
            }
            None => while self.step(k, f, usize::MAX) < 1.0 {},
        }
    }

    /// One step of building the analysis of `k` (of file `f`) to keep: the
    /// share done, 1.0 once it is kept.
    pub(crate) fn step(&mut self, k: (usize, u32), f: &OpenFile, budget: usize) -> f64 {
        match self.build_step(k, f, budget) {
            Ok(a) => {
                if self.kept.len() == Self::KEEP {
                    self.kept.remove(0);
                }
                self.kept.push((k, a));
                1.0
            }
            Err(done) => done,
        }
    }

    /// One step towards the analysis of `k` (of file `f`), the file shown:
    /// it once built (taken from the kept ones when there), else the share
    /// done.
    fn shown_step(&mut self, k: (usize, u32), f: &OpenFile, budget: usize) -> Result<Analysis, f64> {
        match self.kept.iter().position(|e| e.0 == k) {
            Some(i) => Ok(self.kept.remove(i).1),
            None => self.build_step(k, f, budget),
        }
    }

    /// One step of building the analysis of `k` (of file `f`): it once
    /// built, else the share done. A build of another (file, device) is
    /// dropped.
    fn build_step(&mut self, k: (usize, u32), f: &OpenFile, budget: usize) -> Result<Analysis, f64> {
        let kind = TimelineKind::ActiveMemory;
        let own = f.timeline(k.1, kind);
        let build = match self.building.take() {
            Some((bk, b)) if bk == k => b,
            _ => match own {
                Some(_) => Build::Analyse(None, Box::new(AnalysisBuilder::new(&Rules::default()))),
                None => Build::Replay(Box::new(TimelineBuilder::new(&f.snap, k.1, kind))),
            },
        };
        // Shares: the replay about a fifth of the whole on the 2M-event file.
        let (build, share) = match build {
            Build::Replay(mut b) => {
                if b.step(&f.snap, budget) {
                    let analyse = Box::new(AnalysisBuilder::new(&Rules::default()));
                    (Build::Analyse(Some(Box::new(b.finish())), analyse), 0.2)
                } else {
                    (Build::Replay(b), 0.1)
                }
            }
            Build::Analyse(tl, mut b) => {
                // The file's own timeline, unless it was freed meanwhile
                // (its rank hidden): then it is replayed here.
                let Some(t) = tl.as_deref().or(own) else {
                    self.building = Some((k, Build::Replay(Box::new(TimelineBuilder::new(&f.snap, k.1, kind)))));
                    return Err(0.0);
                };
                let done = b.step(&f.snap, t, budget);
                if done == 1.0 {
                    return Ok(b.finish(&f.snap, t));
                }
                (Build::Analyse(tl, b), 0.2 + 0.8 * done.min(0.999))
            }
        };
        self.building = Some((k, build));
        Err(share)
    }

    pub(crate) fn get(&self, k: (usize, u32)) -> Option<&Analysis> {
        self.kept.iter().find(|e| e.0 == k).map(|e| &e.1)
    }
}

/// Rows of the "Alive at" table's groups.
fn panel_row(g: &Group, whole: u64) -> Row {
    Row {
        key: g.key.clone(),
        text: if g.key.is_empty() { "(no frames)".into() } else { g.key.clone() },
        bytes: g.bytes,
        size: format_size(g.bytes, false),
        count: g.count,
        share: format!("{:.1}%", 100.0 * g.bytes as f64 / whole.max(1) as f64),
        css: String::new(),
    }
}

/// Frames in the legend of the `frame` colors.
const LEGEND_FRAMES: usize = 6;

impl Viewer {
    /// The "Alive at" panel at `moment` (the moment the tree and the rows
    /// then belong to).
    pub(crate) fn moment_view(&mut self, moment: MomentArg) -> Result<MomentPanelView, PageError> {
        let generation = self.generation();
        if !self.ensure_analysis() {
            return Err(PageError::no_file());
        }
        let v =
            self.moment_at(moment.into(), 10).map_err(|e| PageError::new(crate::boundary::ErrorKind::Recording, e))?;
        let size = |b: u64| format_size(b, false);
        let item = |key: &str, label: &str, b: u64| Piece {
            text: format!("{label} {}", size(b)),
            key: Some(key.into()),
            value: Some(b),
        };
        let mut totals = vec![item("allocated", "allocated", v.bytes)];
        if let Some(t) = &v.totals {
            totals.push(item("reserved", "reserved", t.reserved_bytes));
            totals.push(item("gap", "gap", t.gap_bytes));
            totals.push(item("largest-free", "largest free block", t.largest_free_bytes));
        }
        totals.push(Piece {
            text: format!("allocations {}", v.count),
            key: Some("count".into()),
            value: Some(v.count),
        });
        let at = match v.at.step {
            Some(s) => format!("step {s}"),
            None => format!("position {}", v.at.position),
        };
        let kinds: Vec<Row> = memviz_core::analysis::Kind::ALL
            .iter()
            .zip(memviz_render::explain::KIND_COLORS)
            .map(|(k, c)| {
                let g = v.by_category.iter().find(|g| g.key == k.name());
                let g = g.cloned().unwrap_or(Group { id: 0, key: k.name().into(), bytes: 0, count: 0 });
                Row { css: crate::explain::css(c), ..panel_row(&g, v.bytes) }
            })
            .collect();
        let frames = v
            .by_user_frame
            .iter()
            .take(LEGEND_FRAMES)
            .map(|g| Row {
                text: g.key.rsplit('/').next().unwrap_or_default().to_string(),
                css: crate::explain::css(memviz_render::explain::frame_color(g.id)),
                ..panel_row(g, v.bytes)
            })
            .collect();
        let v = MomentPanelView {
            generation,
            moment,
            at: crate::explain::AtView { position: v.at.position, step: v.at.step, event: v.at.event },
            note: format!("(at {at}; click the timeline to move t)"),
            at_text: at,
            totals,
            alive_kinds: kinds.iter().filter(|k| k.bytes > 0).cloned().collect(),
            kinds,
            frames,
        };
        self.moment.shown = Some(v.clone());
        Ok(v)
    }

    /// The icicle tree at the moment last shown: nodes of at least
    /// `min_bytes` (None: the icicle's own); the icicle draws it from now on.
    pub(crate) fn tree_view(&mut self, min_bytes: Option<u64>) -> Result<TreeView, PageError> {
        let own;
        let tree = match min_bytes {
            None => {
                self.icicle_tree()?;
                &self.moment.tree.as_ref().expect("icicle_tree: built").1
            }
            Some(min) => {
                let pos = self.moment_position().map_err(PageError::bad_command)?;
                let a = self.moment.get().expect("moment_position: analysis built");
                own = a.tree(&a.live(pos), min);
                &own
            }
        };
        let mut frames: Vec<String> = Vec::new();
        let mut index: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
        let mut nodes = Vec::with_capacity(tree.len() * 6);
        for n in tree {
            let f = *index.entry(n.frame.as_str()).or_insert_with(|| {
                frames.push(n.frame.clone());
                frames.len() as u64 - 1
            });
            nodes.extend([n.id.into(), n.parent.into(), n.depth.into(), f, n.bytes, n.count]);
        }
        Ok(TreeView { generation: self.generation(), frames, nodes })
    }

    /// The icicle's tree at the moment shown, built unless it is: nodes of
    /// at least 1/1500 of the peak, about a pixel of the icicle.
    pub(crate) fn icicle_tree(&mut self) -> Result<(), PageError> {
        let pos = self.moment_position().map_err(PageError::bad_command)?;
        let key = (self.cx.key(), pos);
        if self.moment.tree.as_ref().is_some_and(|t| t.0 == key) {
            return Ok(());
        }
        let min = self.peak_bytes() / 1500;
        let a = self.moment.get().expect("moment_position: analysis built");
        self.moment.tree = Some((key, a.tree(&a.live(pos), min)));
        self.moment.layout = None;
        Ok(())
    }

    /// The node zoomed into (None: the whole tree), of this generation.
    pub(crate) fn icicle_zoom(&self) -> Option<u32> {
        self.moment.zoom.filter(|z| z.0 == self.generation()).map(|z| z.1)
    }

    /// The icicle `width` CSS px wide from the node zoomed into, labels at
    /// `char_w` px a character; None when nothing is alive.
    pub(crate) fn icicle_picture(
        &mut self,
        width: f64,
        char_w: f64,
    ) -> Result<Option<(Picture, PanelDrawn)>, PageError> {
        self.icicle_tree()?;
        let (zoom, dpr) = (self.icicle_zoom(), self.cx.dpr);
        let (key, tree) = self.moment.tree.as_ref().expect("icicle_tree: built");
        let nodes: Vec<icicle::Node> = tree
            .iter()
            .map(|n| icicle::Node { id: n.id, parent: n.parent, depth: n.depth, frame: &n.frame, bytes: n.bytes })
            .collect();
        let Some(layout) = icicle::layout(&nodes, zoom, width, char_w) else { return Ok(None) };
        let mut image = memviz_render::Image::new(0, 0);
        icicle::draw(&nodes, &layout, width, dpr, &mut image);
        let drawn = PanelDrawn {
            generation: self.generation(),
            drawn: true,
            height: layout.height,
            count: layout.boxes.len() as u32,
            label: String::new(),
        };
        let picture = Picture { image, texts: layout.labels.clone(), font: "monospace", color: "#000", dpr };
        self.moment.layout = Some((*key, layout));
        Ok(Some((picture, drawn)))
    }

    /// The icicle's node at CSS (x, y) as last drawn on this file and device,
    /// and whether it is the top row of a zoom.
    fn icicle_hit(&self, x: f64, y: f64) -> Option<(&TreeNode, bool)> {
        let ((k, layout), (tk, tree)) = (self.moment.layout.as_ref()?, self.moment.tree.as_ref()?);
        if k.0 != self.cx.key() || k != tk {
            return None;
        }
        let b = icicle::hit(layout, x, y)?;
        let n = tree.get(b.node)?;
        Some((n, b.y == 0.0 && n.parent != u32::MAX))
    }

    /// The icicle's width as last drawn (CSS px).
    pub(crate) fn icicle_width(&self) -> f64 {
        self.moment.layout.as_ref().and_then(|l| l.1.boxes.first()).map_or(0.0, |b| b.w)
    }

    /// The icicle's tooltip at CSS (x, y) ("": no node there).
    pub(crate) fn icicle_tip(&self, x: f64, y: f64) -> String {
        let Some((n, zoomed)) = self.icicle_hit(x, y) else { return String::new() };
        let total = self.moment.tree.as_ref().and_then(|t| t.1.first()).map_or(0, |r| r.bytes);
        let click =
            if zoomed { "click: zoom out" } else { "click: zoom in, highlight its allocations in the timeline" };
        format!(
            "{}\n{} · {} allocations · {:.1}%\n{click}",
            n.frame,
            format_size(n.bytes, false),
            n.count,
            100.0 * n.bytes as f64 / total.max(1) as f64
        )
    }

    /// A click at CSS (x, y) on the icicle: zooms into the node there and
    /// highlights its allocations (its top row or the root: out, none);
    /// the node zoomed into after.
    pub(crate) fn icicle_click(&mut self, x: f64, y: f64) -> Option<u32> {
        let Some((n, zoomed)) = self.icicle_hit(x, y) else { return self.icicle_zoom() };
        let zoom = (!zoomed && n.parent != u32::MAX).then_some(n.id);
        self.moment.zoom = zoom.map(|z| (self.generation(), z));
        self.highlight_node(zoom);
        zoom
    }

    /// A page of the "Alive at" table at the moment last shown.
    pub(crate) fn rows_view(
        &mut self,
        by: RowsBy,
        filter: &str,
        sort: RowsSort,
        descending: bool,
        offset: u32,
        limit: u32,
    ) -> Result<RowsView, PageError> {
        let (by_name, head) = match by {
            RowsBy::UserFrame => ("user_frame", "innermost user frame"),
            RowsBy::Frame => ("frame", "frame (bytes of everything under it)"),
        };
        let sort = match sort {
            RowsSort::Bytes => "bytes",
            RowsSort::Count => "count",
            RowsSort::Key => "key",
        };
        let (rows, matched, whole) = self
            .moment_rows(by_name, filter, sort, descending, offset as usize, limit as usize)
            .map_err(PageError::bad_command)?;
        let shown = offset as usize + rows.len();
        let more = if matched > shown {
            format!("{shown} of {matched} rows: scroll the table for more")
        } else {
            String::new()
        };
        Ok(RowsView {
            generation: self.generation(),
            head: head.into(),
            rows: rows.iter().map(|g| panel_row(g, whole)).collect(),
            matched: matched as u32,
            more,
        })
    }
}
