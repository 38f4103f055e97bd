//! Many snapshots at once (www/ranks.js over memviz-wasm's ranks.rs): the
//! overview row of each open file, the rank order of file names, and diffs
//! of two moments (`memviz_core::ranks`, `memviz_core::analysis::diff`).
//! The logic and its tests are in the core.

use memviz_core::analysis::diff::{self, Side};
use memviz_core::analysis::{GroupBy, Moment};
use memviz_core::format::format_size;
use memviz_core::ranks;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::boundary::{ErrorKind, PageError};
use crate::files::ReadState;
use crate::{OpenFile, Viewer};

/// The two sides of the last diff, by (file name, device, moment).
pub(crate) type DiffSides = [Option<((String, u32, Moment), Side)>; 2];

impl Viewer {
    /// Open file `i`; the error names the index.
    fn ranks_file(&self, i: usize) -> Result<&OpenFile, String> {
        self.cx.files.get(i).ok_or_else(|| format!("no file {i}"))
    }

    /// Open file `i`, which has `device`; the error names the file or the
    /// device.
    fn diff_file(&self, i: usize, device: u32) -> Result<&OpenFile, String> {
        let f = self.ranks_file(i)?;
        if !f.snap.devices().contains(&device) {
            return Err(format!("{}: no device {device}", f.name));
        }
        Ok(f)
    }

    /// Whether (file, device) `k` is the one shown and has its analysis
    /// (the "Alive at" panel or Explain built it): a diff side takes it.
    fn shown_analysis(&self, k: (usize, u32)) -> bool {
        self.analysis_built() && self.cx.key() == k
    }

    /// The overview rows of open file `file` (one per device: `memviz
    /// summary`'s peaks, end, OOMs, a sparkline of [`SAMPLES`] points).
    pub fn rank_overview(&self, file: usize) -> Result<RankOverview, PageError> {
        let f = self.ranks_file(file).map_err(|e| PageError::new(ErrorKind::BadCommand, e))?;
        // The file just read is the current one: its timeline is built.
        let built = if self.cx.current == file { self.cx.timeline() } else { None };
        let rank = rank_of(&f.name);
        let rows = ranks::overview_using(&f.snap, SAMPLES, built)
            .into_iter()
            .map(|r| RankRow {
                file: file as u32,
                name: f.name.clone(),
                rank,
                rank_text: rank.map_or("–".to_string(), |k| k.to_string()),
                oom: if r.ooms > 0 { "oom" } else { "" }.to_string(),
                label: format!(
                    "{}{} · device {}",
                    rank.map(|k| format!("rank {k}: ")).unwrap_or_default(),
                    f.name,
                    r.device_name
                ),
                peak_active: format_size(r.peak_active_bytes, false),
                peak_reserved: format_size(r.peak_reserved_bytes, false),
                end: format_size(r.end_bytes, false),
                device: r.device,
                device_name: r.device_name,
                peak_active_bytes: r.peak_active_bytes,
                peak_reserved_bytes: r.peak_reserved_bytes,
                end_bytes: r.end_bytes,
                ooms: r.ooms as u32,
                steps: r.steps,
                sparkline: r.sparkline,
            })
            .collect();
        Ok(RankOverview { generation: self.generation(), name: f.name.clone(), rank, rows })
    }

    /// Frees the timelines of the files not shown, but for the most
    /// recently shown ones while they hold at most as many bytes as the
    /// largest open model: with many ranks open, the others keep only their
    /// models (a timeline is built again when its file is shown again), and
    /// going back to the rank shown before replays nothing (a replay is
    /// ~27 ms a device on the 2M-event file; its timeline ~35 MB, the
    /// model's 83 MB).
    pub fn trim_hidden_views(&mut self) {
        let files = &mut self.cx.files;
        let budget = files.iter().map(|f| f.snap.heap_bytes()).max().unwrap_or(0);
        let mut hidden: Vec<usize> = (0..files.len()).filter(|&i| i != self.cx.current).collect();
        hidden.sort_by_key(|&i| std::cmp::Reverse(files[i].shown));
        let mut kept = 0;
        for i in hidden {
            kept += files[i].timeline_bytes();
            if kept > budget {
                files[i].drop_timelines();
            }
        }
    }

    /// Replays the timeline that showing open file `file` on `device` (None:
    /// its default one) needs, about `budget` trace events a call, so that
    /// the page can show a rank whose timeline was freed over a few frames
    /// rather than in one long task; true once it is built (at once when
    /// it was kept). The error names the file or the device.
    pub fn prepare_file_step(&mut self, file: usize, device: Option<u32>, budget: usize) -> Result<bool, String> {
        let kind = self.cx.kind;
        let f = self.cx.files.get_mut(file).ok_or_else(|| format!("no file {file}"))?;
        let d = device.unwrap_or_else(|| f.first_device());
        if !f.snap.devices().contains(&d) {
            return Err(format!("{}: no device {d}", f.name));
        }
        Ok(f.build_timeline_step(d, kind, budget))
    }

    /// Bytes held by the timelines of open file `file` (0 once freed).
    pub fn timeline_bytes(&self, file: usize) -> usize {
        self.cx.files.get(file).map_or(0, |f| f.timeline_bytes())
    }

    /// Builds what [`Viewer::diff_side`] needs of `device` of open file
    /// `file`, about `budget` trace events or elements a call, so that the
    /// page can do it a slice a frame before a Diff (its analysis: ~170 ms
    /// in one call on the 2M-event file). The share done, 1.0 once built (at
    /// once when it was). The error names the file or the device.
    pub fn prepare_diff_side_step(&mut self, file: usize, device: u32, budget: usize) -> Result<f64, String> {
        self.diff_file(file, device)?;
        let k = (file, device);
        if self.shown_analysis(k) || self.analyses.get(k).is_some() {
            return Ok(1.0);
        }
        Ok(self.analyses.step(k, &self.cx.files[file], budget))
    }

    /// One side of a diff: kept in `slot` while its (file, device, moment)
    /// stays, so that moving one side's moment makes only that side again
    /// (a side of the 2M-event file is ~6 ms in wasm).
    fn diff_side(&mut self, slot: usize, spec: &SideSpec) -> Result<(), PageError> {
        let (file, device) = (spec.file as usize, spec.device);
        let m = spec.at.moment();
        let name = self.ranks_file(file).map_err(|e| PageError::new(ErrorKind::BadCommand, e))?.name.clone();
        let key = (name, device, m);
        if self.diff_sides[slot].as_ref().is_some_and(|(k, _)| *k == key) {
            return Ok(());
        }
        self.diff_sides[slot] = None;
        let refuse = |e: String| PageError {
            field: Some(["a", "b"][slot].to_string()),
            ..PageError::new(ErrorKind::Recording, e)
        };
        self.diff_file(file, device).map_err(refuse)?;
        let k = (file, device);
        // Others than the shown one's are kept for the next diff.
        let shown = self.shown_analysis(k);
        if !shown {
            self.analyses.ensure(k, &self.cx.files[file]);
        }
        let a = match self.moment.get() {
            Some(a) if shown => a,
            _ => self.analyses.get(k).expect("ensured"),
        };
        let f = &self.cx.files[file];
        let label = format!("{} (device {})", f.name, f.snap.device_name(device));
        let side =
            Side::new(&f.snap, a, m, &label).map_err(|e| refuse(format!("{} {}: {e}", ["A", "B"][slot], f.name)))?;
        self.diff_sides[slot] = Some((key, side));
        Ok(())
    }

    /// The rank panel's command (see [`RanksCommand`]).
    pub fn ranks(&mut self, cmd: &RanksCommand) -> Result<RanksReply, PageError> {
        let mut r = RanksReply::default();
        match cmd {
            RanksCommand::Order { names } => {
                r.order = rank_order(names);
                r.ranks = names.iter().map(|n| rank_of(n)).collect();
            }
            RanksCommand::Overview { file } => {
                let f = *file;
                if !self.rank_rows.iter().any(|r| r.file == f) {
                    let o = self.rank_overview(f as usize)?;
                    let first = self.rank_rows.is_empty();
                    self.rank_rows.extend(o.rows);
                    r.pick = self.diff_defaults(f, first);
                }
                r.rows = table_rows(&self.rank_rows);
                r.status = self.ranks_status(0);
            }
            RanksCommand::AtT { slot, file, device, step } => match (self.rank_row(*file, *device), step) {
                (Some(i), Some(s)) => {
                    r.pick = [(slot.clone(), i.to_string()), (format!("at_{slot}"), "step".into())].into();
                    r.pick.insert(format!("step_{slot}"), s.to_string());
                }
                _ => r.message = "Diff: click the timeline first to set t".into(),
            },
            RanksCommand::Status { loading } => r.status = self.ranks_status(*loading),
            RanksCommand::Reading(file) => r.reading = Some(reading_row(file)),
            RanksCommand::Trim => self.trim_hidden_views(),
            RanksCommand::Memory => {
                r.timeline_bytes = (0..self.cx.files.len()).map(|i| self.timeline_bytes(i) as u64).collect();
            }
            RanksCommand::Diff(c) => r.diff = Some(self.diff(c)?),
            RanksCommand::Compare { form, part } => {
                let d = self.diff_form(form, *part).and_then(|c| self.diff(&c));
                r.diff = Some(d.map_err(|e| PageError { message: format!("Diff: {}", e.message), ..e })?);
            }
            RanksCommand::Snapshots { names, folder } => {
                r.order = (0..names.len() as u32).filter(|&i| is_snapshot_name(&names[i as usize])).collect();
                if r.order.is_empty() {
                    r.message = match folder {
                        Some(d) => format!("{d}: {NO_SNAPSHOTS}"),
                        None => format!("{NO_SNAPSHOTS} in that folder"),
                    };
                }
            }
        }
        Ok(r)
    }

    /// The overview row of (`file`, `device`), by its index.
    fn rank_row(&self, file: u32, device: u32) -> Option<usize> {
        self.rank_rows.iter().position(|r| r.file == file && r.device == device)
    }

    /// The Diff form's sides once file `file`'s rows join the overview: the
    /// first file's first two rows (two devices, else one row at two
    /// moments); a later file is B (the device shown, else its first), A
    /// stays, so that opening run 2 after run 1 compares them.
    fn diff_defaults(&self, file: u32, first: bool) -> std::collections::BTreeMap<String, String> {
        let Some(own) = self.rank_rows.iter().position(|r| r.file == file) else { return Default::default() };
        let shown = (self.cx.current == file as usize).then(|| self.rank_row(file, self.cx.key().1)).flatten();
        let b = match (first, shown) {
            (true, _) => (own + 1).min(self.rank_rows.len() - 1),
            (false, s) => s.unwrap_or(own),
        };
        let mut pick: std::collections::BTreeMap<String, String> = [("b".to_string(), b.to_string())].into();
        if first {
            pick.insert("a".into(), own.to_string());
        }
        pick
    }

    /// The Diff panel's command: B against A, its table or its icicle.
    pub fn diff(&mut self, cmd: &DiffCommand) -> Result<DiffView, PageError> {
        self.diff_side(0, &cmd.a)?;
        self.diff_side(1, &cmd.b)?;
        let (Some((_, a)), Some((_, b))) = (&self.diff_sides[0], &self.diff_sides[1]) else {
            return Err(PageError::no_file());
        };
        let generation = self.generation();
        let row = |s: &SideSpec| self.rank_row(s.file, s.device).map(|i| &self.rank_rows[i]);
        Ok(match cmd.part {
            DiffPart::Table => {
                let mut v = diff_view(a, b, cmd.by.group_by(), cmd.limit as usize, generation);
                if let (Some(ra), Some(rb)) = (row(&cmd.a), row(&cmd.b)) {
                    let y_max = ra.peak_active_bytes.max(rb.peak_active_bytes);
                    (v.a_spark, v.b_spark) = (spark_path(&ra.sparkline, y_max), spark_path(&rb.sparkline, y_max));
                    (v.a_mark, v.b_mark) = (spark_mark(v.a_step, ra.steps), spark_mark(v.b_step, rb.steps));
                }
                v
            }
            DiffPart::Tree => {
                let tree = diff_tree_view(a, b);
                let rows = tree.iter().map(|n| n.depth + 1).max().unwrap_or(0);
                DiffView { generation, tree, tree_height: format!("{}px", rows * ICICLE_ROW_PX), ..DiffView::default() }
            }
        })
    }
}

/// The rank panel's commands but the diff.
#[derive(Deserialize, TS, Debug, Clone)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum RanksCommand {
    /// The order to read files in (`names`: as picked), and their ranks.
    Order { names: Vec<String> },
    /// A file read (or shown alone): its rows join the overview; `rows`
    /// answers with all of them.
    Overview { file: u32 },
    /// Frees the timelines of the files not shown but the last shown.
    Trim,
    /// The bytes each open file's timelines hold (0: freed).
    Memory,
    /// The panel's title line (`status`) while `loading` more files are read.
    Status { loading: u32 },
    /// The row of a file being read (`reading`).
    Reading(ReadState),
    /// The Diff form's side `slot` ("a" or "b") at t, the `step` the
    /// "Alive at" panel shows of (`file`, `device`): its fields in `pick`,
    /// or `message` where t is not set or that device has no row.
    AtT { slot: String, file: u32, device: u32, step: Option<u32> },
    /// The diff (see [`DiffCommand`]); the answer in `diff`.
    Diff(DiffCommand),
    /// The diff of the panel's form (see [`Viewer::diff_form`]); a refusal
    /// says "Diff: …".
    Compare { form: DiffForm, part: DiffPart },
    /// Which of a folder's file `names` are snapshots (indices in `order`);
    /// none: `message` says so (`folder`: its name where known).
    Snapshots { names: Vec<String>, folder: Option<String> },
}

/// A row of the overview table (index.html's template #rank-row).
#[derive(Serialize, TS, Debug, Clone)]
pub struct RankTableRow {
    #[serde(flatten)]
    #[ts(flatten)]
    pub row: RankRow,
    #[serde(flatten)]
    #[ts(flatten)]
    pub peak: PeakCell,
    /// The row a click on this one sets the diff's A to (the one nearest
    /// the median peak, another one where there is).
    pub median: u32,
    /// Its Active Memory Timeline: an SVG path in a [`SPARK_W`] x
    /// [`SPARK_H`] box, on the y scale of the whole table.
    pub spark: String,
}

/// The sparklines' SVG box (index.html: `viewBox`).
pub const SPARK_W: f64 = 160.0;
pub const SPARK_H: f64 = 24.0;

/// A sparkline's area under `samples` (bytes), scaled to `y_max`.
pub fn spark_path(samples: &[u64], y_max: u64) -> String {
    let n = samples.len().saturating_sub(1).max(1) as f64;
    let y = |b: u64| SPARK_H - (b as f64 / y_max.max(1) as f64) * SPARK_H;
    let mut d = format!("M0,{SPARK_H}");
    for (i, &b) in samples.iter().enumerate() {
        d += &format!("L{:.1},{:.2}", i as f64 / n * SPARK_W, y(b));
    }
    d + &format!("L{SPARK_W},{SPARK_H}Z")
}

/// Where step `mark` of `steps` is on a sparkline (none: left of the box).
fn spark_mark(mark: Option<u32>, steps: u32) -> String {
    match mark {
        Some(m) if steps > 0 => format!("{:.1}", m as f64 / steps as f64 * SPARK_W),
        _ => "-9".to_string(),
    }
}

/// The overview table of `rows`: each peak against the median peak (red
/// above, blue below, full at 25 %), the median pick, sparklines on one scale.
pub fn table_rows(rows: &[RankRow]) -> Vec<RankTableRow> {
    let peaks: Vec<u64> = rows.iter().map(|r| r.peak_active_bytes).collect();
    let y_max = peaks.iter().copied().max().unwrap_or(1);
    let d = ranks::distance_from_median(&peaks);
    let median = median_partners(&d);
    rows.iter()
        .zip(d)
        .zip(median)
        .map(|((r, d), median)| {
            let c = (d.abs() / 0.25).min(1.0) * 0.55;
            let fill = if d >= 0.0 { format!("rgba(220,40,40,{c:.3})") } else { format!("rgba(40,90,220,{c:.3})") };
            let title = format!("{:.1}% from the median peak", d * 100.0);
            RankTableRow {
                spark: spark_path(&r.sparkline, y_max),
                row: r.clone(),
                peak: PeakCell { distance: d, fill, title },
                median,
            }
        })
        .collect()
}

/// A peak cell of the overview: its distance from the median peak (a
/// fraction of it), its fill (red above, blue below, full at 25 %), its title.
#[derive(Serialize, TS, Debug, Clone)]
pub struct PeakCell {
    pub distance: f64,
    pub fill: String,
    pub title: String,
}

/// What a [`RanksCommand`] answers (the fields it sets).
#[derive(Serialize, TS, Debug, Clone, Default)]
pub struct RanksReply {
    pub order: Vec<u32>,
    /// The rank each name carries, in `names`' order.
    pub ranks: Vec<Option<i32>>,
    /// The overview's rows (`Overview`).
    pub rows: Vec<RankTableRow>,
    /// "(4 rows)", "(reading 2 more…)".
    pub status: String,
    /// `Reading`: the row.
    pub reading: Option<ReadingRow>,
    #[ts(type = "number[]")]
    pub timeline_bytes: Vec<u64>,
    pub done: f64,
    pub diff: Option<DiffView>,
    /// Why nothing was kept (`Snapshots`), why t cannot be taken (`AtT`), else "".
    pub message: String,
    /// `AtT`: the Diff form's fields, by name, and their values; `Overview`
    /// of a file not in it before: the sides to set (`a`, `b`).
    #[ts(type = "Record<string, string>")]
    pub pick: std::collections::BTreeMap<String, String>,
}

/// A file being read, as its row in the overview shows it (index.html's
/// template #rank-loading).
#[derive(Serialize, TS, Debug, Clone, PartialEq)]
pub struct ReadingRow {
    pub name: String,
    /// The rank its name carries, "–": none.
    pub rank_text: String,
    /// The share read, 0 to 1.
    pub share: f64,
    /// "42%", "building the timeline…".
    pub text: String,
}

/// The row of file `name` being read (see `RanksCommand::Reading`).
pub fn reading_row(file: &ReadState) -> ReadingRow {
    let ReadState { name, size, read, building } = file;
    let share = if *building { 1.0 } else { read.map_or(0.0, |r| r as f64 / (*size).max(1) as f64) };
    let text = match read {
        _ if *building => "building the timeline…".to_string(),
        None => String::new(),
        Some(_) => format!("{}%", (share * 100.0).round()),
    };
    let rank_text = rank_of(name).map_or("–".to_string(), |k| k.to_string());
    ReadingRow { name: name.to_string(), rank_text, share, text }
}

impl Viewer {
    /// The rank panel's title line: how many files are still read, else
    /// how many rows there are ("" before the first).
    fn ranks_status(&self, loading: u32) -> String {
        match self.rank_rows.len() {
            _ if loading > 0 => format!("(reading {loading} more…)"),
            0 => String::new(),
            n => format!("({n} rows)"),
        }
    }

    /// `Work::RankShow`: the share replayed (0 or 1) and the busy note. An
    /// error (no such file or device) ends the work: showing it says why.
    pub(crate) fn rank_show_step(&mut self, file: u32, device: Option<u32>, budget: usize) -> (f64, String) {
        let done = self.prepare_file_step(file as usize, device, budget).unwrap_or(true);
        let name = self.cx.files.get(file as usize).map_or("", |f| f.name.as_str());
        (if done { 1.0 } else { 0.0 }, format!("Replaying the timeline of {name}…"))
    }

    /// `Work::DiffSides`: side A's analysis, then B's (half the share
    /// each), and the busy note. An error ends the work: the diff says why.
    pub(crate) fn diff_sides_step(&mut self, form: &DiffForm, budget: usize) -> (f64, String) {
        let Ok(DiffCommand { a, b, .. }) = self.diff_form(form, DiffPart::Table) else {
            return (1.0, String::new());
        };
        let mut step = |s: &SideSpec| self.prepare_diff_side_step(s.file as usize, s.device, budget).unwrap_or(1.0);
        let share = match step(&a) {
            d if d < 1.0 => 0.5 * d,
            _ => 0.5 + 0.5 * step(&b),
        };
        (share, crate::work::building("Diff's sides", &self.diff_names(&a, &b), share))
    }

    /// The Diff panel's form as a command: each side's row of the overview
    /// (its file and device), its moment, a step as typed cut to a whole one
    /// (0 where it is none); the [`DIFF_ROWS`] largest changes.
    pub fn diff_form(&self, f: &DiffForm, part: DiffPart) -> Result<DiffCommand, PageError> {
        let side = |row: &str, at: &str, step: &str| {
            let r = row.parse::<usize>().ok().and_then(|i| self.rank_rows.get(i));
            let r = r.ok_or_else(|| PageError::bad_command(format!("no row {row:?}")))?;
            let at = match at {
                "start" => MomentSpec::Start,
                "peak" => MomentSpec::Peak,
                "end" => MomentSpec::End,
                "step" => {
                    let s = step.trim().parse::<f64>().ok().filter(|s| s.is_finite()).unwrap_or(0.0);
                    MomentSpec::Step { step: s.max(0.0) as u32 }
                }
                _ => return Err(PageError::bad_command(format!("no moment {at:?}"))),
            };
            Ok(SideSpec { file: r.file, device: r.device, at })
        };
        let (a, b) = (side(&f.a, &f.at_a, &f.step_a)?, side(&f.b, &f.at_b, &f.step_b)?);
        Ok(DiffCommand { a, b, by: f.by, limit: DIFF_ROWS, part })
    }

    /// "a.pickle and b.pickle" (one name when both sides are of one file).
    fn diff_names(&self, a: &SideSpec, b: &SideSpec) -> String {
        let name = |s: &SideSpec| self.cx.files.get(s.file as usize).map_or(String::new(), |f| f.name.clone());
        if a.file == b.file {
            name(a)
        } else {
            format!("{} and {}", name(a), name(b))
        }
    }
}

/// Sparkline points of an overview row.
pub const SAMPLES: usize = 400;

/// One device of one open file in the overview.
#[derive(Serialize, TS, Debug, Clone)]
pub struct RankRow {
    pub file: u32,
    pub device: u32,
    pub device_name: String,
    #[ts(type = "number")]
    pub peak_active_bytes: u64,
    #[ts(type = "number")]
    pub peak_reserved_bytes: u64,
    #[ts(type = "number")]
    pub end_bytes: u64,
    pub peak_active: String,
    pub peak_reserved: String,
    pub end: String,
    pub ooms: u32,
    pub steps: u32,
    /// The file's name and the rank it carries ("–": none).
    pub name: String,
    pub rank: Option<i32>,
    pub rank_text: String,
    /// The OOM cell's class: "oom" where there were any.
    pub oom: String,
    /// The diff's side pickers' text: "rank 3: name · device cuda:0".
    pub label: String,
    /// The Active Memory Timeline's largest totals in [`SAMPLES`] buckets.
    #[ts(type = "number[]")]
    pub sparkline: Vec<u64>,
}

/// The overview rows of one open file.
#[derive(Serialize, TS, Debug, Clone)]
pub struct RankOverview {
    pub generation: u32,
    pub name: String,
    /// The rank its name carries.
    pub rank: Option<i32>,
    pub rows: Vec<RankRow>,
}

/// A moment of a diff side, as the page picks it.
#[derive(Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MomentSpec {
    Start,
    Peak,
    End,
    /// A step of the Active Memory Timeline.
    Step {
        step: u32,
    },
}

impl MomentSpec {
    fn moment(self) -> Moment {
        match self {
            MomentSpec::Start => Moment::Start,
            MomentSpec::Peak => Moment::Peak,
            MomentSpec::End => Moment::End,
            MomentSpec::Step { step } => Moment::Step(step),
        }
    }
}

/// One side: a device of an open file at a moment.
#[derive(Deserialize, TS, Debug, Clone, Copy, PartialEq)]
pub struct SideSpec {
    pub file: u32,
    pub device: u32,
    pub at: MomentSpec,
}

/// The Diff panel's form as the page reads it (`FormData`: every value a
/// string): each side's row of the overview, its moment and step; the grouping.
#[derive(Deserialize, TS, Debug, Clone, PartialEq)]
pub struct DiffForm {
    pub a: String,
    pub at_a: String,
    #[serde(default)]
    pub step_a: String,
    pub b: String,
    pub at_b: String,
    #[serde(default)]
    pub step_b: String,
    pub by: DiffBy,
}

/// The largest changes the panel's table gets.
pub const DIFF_ROWS: u32 = 200;

/// What the diff's groups are.
#[derive(Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DiffBy {
    /// The innermost frame of the program's own code (the default: frames
    /// outside it do not split a group).
    User,
    /// The inferred kind.
    Kind,
    Stack,
    Frame,
}

impl DiffBy {
    fn group_by(self) -> GroupBy {
        match self {
            DiffBy::User => GroupBy::UserFrame,
            DiffBy::Kind => GroupBy::Category,
            DiffBy::Stack => GroupBy::Stack,
            DiffBy::Frame => GroupBy::Frame,
        }
    }
}

/// The table first; the icicle a frame later (its own command).
#[derive(Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DiffPart {
    Table,
    Tree,
}

#[derive(Deserialize, TS, Debug, Clone, Copy)]
pub struct DiffCommand {
    pub a: SideSpec,
    pub b: SideSpec,
    pub by: DiffBy,
    /// The largest changes kept in `rows`.
    pub limit: u32,
    pub part: DiffPart,
}

/// One changed group: B − A, largest change first.
#[derive(Serialize, TS, Debug, Clone, Default)]
pub struct DiffRow {
    /// The whole key (a stack: its frames one a line).
    pub key: String,
    /// The core's short label, lines joined with " ← ".
    pub label: String,
    /// "only in A", "only in B" or "".
    pub tag: String,
    #[ts(type = "number")]
    pub bytes_a: u64,
    #[ts(type = "number")]
    pub bytes_b: u64,
    pub delta_text: String,
    pub a_text: String,
    pub b_text: String,
    /// More in B.
    pub up: bool,
    /// The delta cell's class: "up" (more in B) or "down".
    pub dir: String,
}

/// A node of the two-colour icicle, laid out: `x`, `w` fractions of the
/// width, the fill (red: more in B, blue: more in A).
#[derive(Serialize, TS, Debug, Clone)]
pub struct DiffTreeNode {
    pub x: f64,
    pub w: f64,
    pub depth: u32,
    pub frame: String,
    pub fill: String,
    /// Its box in the icicle (index.html's template #diff-box).
    pub style: String,
    /// The frame's file basename on (CSS cuts it to the box).
    pub label: String,
    /// The hover text.
    pub tip: String,
}

/// The Diff panel's view model.
#[derive(Serialize, TS, Debug, Clone, Default)]
pub struct DiffView {
    pub generation: u32,
    /// "A: name (device d) at step s".
    pub a_title: String,
    pub b_title: String,
    /// The steps marked on the two timelines.
    pub a_step: Option<u32>,
    pub b_step: Option<u32>,
    /// The sides' timelines (SVG paths as [`RankTableRow::spark`], on one
    /// scale) and the x of their moment on them.
    pub a_spark: String,
    pub b_spark: String,
    pub a_mark: String,
    pub b_mark: String,
    #[ts(type = "number")]
    pub total_a: u64,
    #[ts(type = "number")]
    pub total_b: u64,
    /// The totals line.
    pub totals: String,
    pub changed: u32,
    pub group_count: u32,
    pub only_in_a: u32,
    pub only_in_b: u32,
    pub rows: Vec<DiffRow>,
    pub tree: Vec<DiffTreeNode>,
    /// The icicle's height (CSS): its rows, at most [`ICICLE_ROWS`].
    pub tree_height: String,
}

/// A size, signed: "+1.5MiB", "-2.0KiB", "±0B".
fn signed(d: i64) -> String {
    let m = format_size(d.unsigned_abs(), false);
    match d.signum() {
        1 => format!("+{m}"),
        -1 => format!("−{m}"),
        _ => format!("±{m}"),
    }
}

fn at_text(at: &memviz_core::analysis::At) -> String {
    match at.step {
        Some(s) => format!("step {s}"),
        None => format!("position {}", at.position),
    }
}

/// B against A grouped `by`, the `limit` largest changes as rows.
pub fn diff_view(a: &Side, b: &Side, by: GroupBy, limit: usize, generation: u32) -> DiffView {
    let d = diff::diff(a, b, by);
    let (ta, tb) = (d.a.total_bytes, d.b.total_bytes);
    let mut totals = format!(
        "A {} at {} · B {} at {} · B − A {} · ",
        format_size(ta, false),
        at_text(&d.a.at),
        format_size(tb, false),
        at_text(&d.b.at),
        signed(tb as i64 - ta as i64)
    );
    if d.changed > 0 {
        totals += &format!(
            "{} of {} groups changed · only in A: {} ({}) · only in B: {} ({})",
            d.changed,
            d.groups.len(),
            d.only_in_a,
            format_size(d.only_in_a_bytes, false),
            d.only_in_b,
            format_size(d.only_in_b_bytes, false)
        );
    } else {
        totals += "no change";
    }
    let rows = d
        .groups
        .iter()
        .filter(|g| g.changed())
        .take(limit)
        .map(|g| DiffRow {
            key: g.key.clone(),
            label: g.label.split('\n').collect::<Vec<_>>().join(" ← "),
            tag: if g.count_a == 0 {
                "only in B"
            } else if g.count_b == 0 {
                "only in A"
            } else {
                ""
            }
            .to_string(),
            bytes_a: g.bytes_a,
            bytes_b: g.bytes_b,
            delta_text: signed(g.delta()),
            a_text: format_size(g.bytes_a, false),
            b_text: format_size(g.bytes_b, false),
            up: g.delta() > 0,
            dir: if g.delta() > 0 { "up" } else { "down" }.to_string(),
        })
        .collect();
    DiffView {
        generation,
        a_title: format!("A: {} at {}", d.a.name, at_text(&d.a.at)),
        b_title: format!("B: {} at {}", d.b.name, at_text(&d.b.at)),
        a_step: d.a.at.step,
        b_step: d.b.at.step,
        total_a: ta,
        total_b: tb,
        totals,
        changed: d.changed as u32,
        group_count: d.groups.len() as u32,
        only_in_a: d.only_in_a as u32,
        only_in_b: d.only_in_b as u32,
        rows,
        ..DiffView::default()
    }
}

/// The fill of a node whose change is `rel` of its larger side: 1% steps;
/// any change keeps its side's hue.
fn diff_fill(rel: f64) -> String {
    let k = if rel == 0.0 { 0.0 } else { rel.signum() * (rel.abs() * 100.0).round().max(1.0) };
    let l = 92.0 - 42.0 * (k / 100.0).abs();
    if k > 0.0 {
        format!("hsl(0, 75%, {l}%)")
    } else if k < 0.0 {
        format!("hsl(220, 75%, {l}%)")
    } else {
        "hsl(0, 0%, 85%)".to_string()
    }
}

/// The diff icicle's rows: at most this many, this high (CSS px).
pub const ICICLE_ROWS: u32 = 40;
pub const ICICLE_ROW_PX: u32 = 18;

/// The merged stack tree of A and B, laid out as an icicle (width: the
/// larger side); nodes under 1/1500 of the root (about a pixel) are left out.
pub fn diff_tree_view(a: &Side, b: &Side) -> Vec<DiffTreeNode> {
    let min = a.info.total_bytes.max(b.info.total_bytes) / 1500;
    let tree = diff::diff_tree(a, b, min);
    let size = |n: &diff::DiffNode| n.bytes_a.max(n.bytes_b) as f64;
    let Some(root) = tree.first() else { return Vec::new() };
    let total = size(root).max(1.0);
    // Each node's x and where its next child starts, by id.
    let mut pos: std::collections::HashMap<u32, (f64, f64)> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(tree.len());
    for n in &tree {
        let w = size(n) / total;
        let x = if n.id == root.id {
            0.0
        } else {
            let Some(p) = pos.get_mut(&n.parent) else { continue };
            let x = p.1;
            p.1 += w;
            x
        };
        pos.insert(n.id, (x, x));
        if n.depth >= ICICLE_ROWS {
            continue;
        }
        let d = n.bytes_b as i64 - n.bytes_a as i64;
        let fill = diff_fill(if size(n) > 0.0 { d as f64 / size(n) } else { 0.0 });
        out.push(DiffTreeNode {
            style: format!(
                "left:{:.3}%;width:{:.3}%;top:{}px;background:{fill}",
                x * 100.0,
                w * 100.0,
                n.depth * ICICLE_ROW_PX
            ),
            label: n.frame[n.frame.rfind('/').map_or(0, |i| i + 1)..].to_string(),
            x,
            w,
            depth: n.depth,
            frame: n.frame.clone(),
            fill,
            tip: format!(
                "{}\nA {} · B {} · B − A {}",
                n.frame,
                format_size(n.bytes_a, false),
                format_size(n.bytes_b, false),
                signed(d)
            ),
        });
    }
    out
}

/// The order to show files in: ranked names by rank, then the rest by name
/// (indices into `names`).
pub fn rank_order(names: &[String]) -> Vec<u32> {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    ranks::rank_order(&refs).into_iter().map(|i| i as u32).collect()
}

/// The names "Open folder…" keeps: .pickle, .pkl, .json, .pt, each optionally .gz.
pub fn is_snapshot_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    let n = n.strip_suffix(".gz").unwrap_or(&n);
    [".pickle", ".pkl", ".json", ".pt"].iter().any(|e| n.ends_with(e))
}

const NO_SNAPSHOTS: &str = "no snapshot files (.pickle, .pkl, .json, optionally .gz)";

/// For each row, the row nearest the median peak other than itself (itself
/// when alone); ties: the lower index.
pub fn median_partners(distance: &[f64]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..distance.len()).collect();
    order.sort_by(|&x, &y| distance[x].abs().total_cmp(&distance[y].abs()).then(x.cmp(&y)));
    (0..distance.len()).map(|i| *order.iter().find(|&&j| j != i).unwrap_or(&i) as u32).collect()
}

/// The rank a file name carries (None: none, or past i32).
pub fn rank_of(name: &str) -> Option<i32> {
    ranks::rank_of(name).and_then(|r| i32::try_from(r).ok())
}

/// How far each peak is from the median peak, as a fraction of it.
pub fn distance_from_median(peaks: &[f64]) -> Vec<f64> {
    let p: Vec<u64> = peaks.iter().map(|&x| x.max(0.0) as u64).collect();
    ranks::distance_from_median(&p)
}
