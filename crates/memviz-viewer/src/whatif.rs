//! The "What if" panel (www/whatif.js): the trace of the current file and
//! device replayed through memviz-allocator's model of PyTorch's caching
//! allocator under the settings the panel chose, a slice at a time like the
//! analysis (`whatif_step`): the recording read, the self-check's replay,
//! the prediction's replay (reserved memory after each event kept for the
//! chart), then the capacity it needs (a bisection, a replay per cap).
//! Predictions are cached per (file, device) and (settings, capacity).
//!
//! Commands come in typed ([`WhatIfCommand`]); what the page shows goes out
//! as a view model ([`WhatIfView`]) whose every string is formatted here or
//! by memviz-allocator, never in the page.

use memviz_allocator::whatif::{conf_name, self_check};
use memviz_allocator::{
    Capacity, CapacitySource, Outcome, Paused, PausedSearch, Prediction, Recording, Replay, Settings, WhatIf,
    ASSUMPTION,
};
use memviz_core::format::{format_size, parse_size};
use memviz_core::state::StateHistoryBuilder;
use memviz_core::versions::Versions;
use memviz_core::Snapshot;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::boundary::{ErrorKind, PageError};

use crate::{ViewKind, Viewer};
use memviz_core::analysis::series::steps_through_event;
use memviz_core::timeline::TimelineKind;
use memviz_render::icicle::{step_line, Label};
use memviz_render::{Image, Rgba};

use crate::explain::{PanelDrawn, Picture};

/// 1 MiB: what PyTorch's `*_mb` settings count in.
const MIB: u64 = 1 << 20;

/// Chart columns the view model carries at most (the page stretches them).
pub const MAX_COLUMNS: usize = 2048;

/// The panel's fields, as the page's inputs hold them (PyTorch's spelling of
/// each value; empty: the setting off / unset).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, TS)]
pub struct WhatIfFields {
    pub expandable_segments: bool,
    pub max_split_size_mb: String,
    pub roundup_power2_divisions: String,
    pub garbage_collection_threshold: String,
    /// Bytes; empty: what the trace shows.
    pub capacity_bytes: String,
}

/// What the page asks: settings to replay under (None: the recording's own).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct WhatIfCommand {
    pub fields: Option<WhatIfFields>,
}

/// A command the panel could not take: `kind` is `setting` (a field's value;
/// `field` names it), `capacity`, `recording` (the model cannot read this
/// trace) or `no_file`.
/// What the panel's calls refuse with: the boundary's one error type.
pub type WhatIfError = PageError;

fn refusal(kind: ErrorKind, field: Option<&'static str>, message: String) -> WhatIfError {
    PageError { kind, message, offset: None, field: field.map(str::to_string) }
}

/// One recorded OOM under the chosen settings.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct OomVerdict {
    #[ts(type = "number")]
    pub event: usize,
    pub happens: bool,
    pub text: String,
}

/// Recorded and predicted reserved memory over the trace's events, each a
/// column's highest value as a share of `top_bytes` (one y axis for both).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct WhatIfChart {
    pub recorded: Vec<f32>,
    /// Empty until the prediction's replay is done.
    pub predicted: Vec<f32>,
    /// The capacity's height, when known and on the chart.
    pub cap: Option<f32>,
    /// Each recorded OOM's column share of the x axis.
    pub ooms: Vec<f32>,
    #[ts(type = "number")]
    pub top_bytes: u64,
    pub top: String,
    pub x_label: String,
    pub recorded_label: String,
    pub predicted_label: String,
    /// "capacity 2.0GiB" beside the capacity's line; "" when there is none.
    pub cap_label: String,
}

/// What the panel shows.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct WhatIfView {
    pub device: String,
    /// `recording`, `self-check`, `replay`, `capacity` or `done`.
    #[ts(type = "\"recording\" | \"self-check\" | \"replay\" | \"capacity\" | \"done\"")]
    pub stage: &'static str,
    /// Share of the whole job done.
    pub share: f64,
    pub busy: String,
    /// The fields as chosen (the recording's own until the page sets others).
    pub fields: WhatIfFields,
    pub recorded_settings: String,
    pub self_check: Option<String>,
    pub self_check_exact: Option<bool>,
    pub capacity: Option<String>,
    pub capacity_size: Option<String>,
    /// The prediction's first line ("with … the replay peaks at …").
    pub headline: Option<String>,
    pub ooms: Vec<OomVerdict>,
    pub new_ooms: Option<String>,
    pub needs: Option<String>,
    #[ts(type = "number | null")]
    pub needs_bytes: Option<u64>,
    /// For the OOM panel: the verdict of the OOM it explains (Viewer.panel;
    /// the first recorded OOM's here).
    pub advice: Option<String>,
    pub assumption: &'static str,
    pub chart: Option<WhatIfChart>,
}

/// The predicted reserved memory over the Active Cached Segment Timeline
/// (its bands' total is the recorded reserved memory): a line in the plot
/// canvas' CSS pixels, x by the plot's mapping of trace events to steps, y
/// in the plot's own byte scale (above its top: at the top).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct WhatIfOverlay {
    /// x, y pairs: a level per chart column, from the step after its first
    /// event to the step after its last.
    pub points: Vec<f32>,
    pub label: String,
}

/// The recording read and checked.
struct Base {
    rec: Recording,
    check: Outcome,
    inferred: Capacity,
    /// Reserved memory after each recorded event, per chart column.
    recorded: Vec<u64>,
    /// The capacity the recorded settings need, once a job searched it
    /// (every other prediction's text names it: searched once, in steps).
    recorded_min: Option<u64>,
}

enum Stage {
    /// Nothing read yet.
    Start,
    /// The state at the trace's first event being rebuilt (the recording's start).
    History(Box<StateHistoryBuilder>),
    SelfCheck(Box<Recording>, Box<Paused>),
    Ready(Box<Base>),
    Failed(WhatIfError),
}

/// A prediction under one (settings, capacity).
struct Job {
    settings: Settings,
    fields: WhatIfFields,
    /// The capacity typed in (None: the trace's).
    flag: Option<u64>,
    capacity: Capacity,
    step: JobStep,
}

enum JobStep {
    Replay(Box<Paused>),
    Search(Box<Outcome>, Vec<u64>, Box<PausedSearch>),
    /// The prediction made; the capacity the recorded settings need being
    /// searched for its text (once per recording: kept in [`Base`]).
    RecordedSearch(Box<Prediction>, Vec<u64>, Box<PausedSearch>),
    /// The prediction, its chart columns and its text ([`WhatIf::verdict`], made once).
    Done(Box<Prediction>, Vec<u64>, String),
}

/// One (file, device)'s recording, the job under way and the predictions made.
struct Session {
    key: (usize, u32),
    stage: Stage,
    /// The fields chosen (None: the recording's own).
    fields: Option<WhatIfFields>,
    /// [`Viewer::whatif_advise`]: the recording's own fields with
    /// expandable_segments:True, chosen once the recording is read.
    advise: bool,
    job: Option<Job>,
    done: Vec<Job>,
}

/// The panel's state: the sessions of the files seen, the current one first.
#[derive(Default)]
pub(crate) struct WhatIfState {
    sessions: Vec<Session>,
    /// The busy line of the view last shown (the replay's progress says it).
    pub(crate) busy: String,
}

/// How many (file, device) sessions stay cached.
const KEEP_SESSIONS: usize = 4;

/// A recording's settings as the panel's fields.
pub fn fields_of(s: &Settings) -> WhatIfFields {
    let d = &s.roundup_power2_divisions;
    let divisions = if d.iter().all(|&v| v == d[0]) {
        if d[0] == 0 {
            String::new()
        } else {
            d[0].to_string()
        }
    } else {
        let each: Vec<String> = d.iter().enumerate().map(|(i, v)| format!("{}:{v}", 1u64 << i)).collect();
        format!("[{}]", each.join(","))
    };
    WhatIfFields {
        expandable_segments: s.expandable_segments,
        max_split_size_mb: if s.max_split_size == u64::MAX {
            String::new()
        } else {
            (s.max_split_size / MIB).to_string()
        },
        roundup_power2_divisions: divisions,
        garbage_collection_threshold: if s.garbage_collection_threshold > 0.0 {
            s.garbage_collection_threshold.to_string()
        } else {
            String::new()
        },
        capacity_bytes: String::new(),
    }
}

/// The OOM panel's advice: a recording's fields with expandable_segments:True.
fn advised(s: &Settings) -> WhatIfFields {
    WhatIfFields { expandable_segments: true, ..fields_of(s) }
}

/// The settings the fields choose, on top of `base` (the recording's: its
/// other settings, `max_non_split_rounding_mb`, stay).
pub fn settings_of(base: &Settings, f: &WhatIfFields) -> Result<Settings, WhatIfError> {
    let mut s = base.clone();
    let bad = |field: &'static str| move |e: String| refusal(ErrorKind::Setting, Some(field), e);
    s.set(if f.expandable_segments { "expandable_segments:True" } else { "expandable_segments:False" })
        .map_err(bad("expandable_segments"))?;
    match f.max_split_size_mb.trim() {
        "" => s.max_split_size = Settings::default().max_split_size,
        v => s.set(&format!("max_split_size_mb:{v}")).map_err(bad("max_split_size_mb"))?,
    }
    match f.roundup_power2_divisions.trim() {
        "" | "0" => s.roundup_power2_divisions = Settings::default().roundup_power2_divisions,
        v => s.set(&format!("roundup_power2_divisions:{v}")).map_err(bad("roundup_power2_divisions"))?,
    }
    match f.garbage_collection_threshold.trim() {
        "" | "0" => s.garbage_collection_threshold = 0.0,
        v => s.set(&format!("garbage_collection_threshold:{v}")).map_err(bad("garbage_collection_threshold"))?,
    }
    Ok(s)
}

/// The capacity field: a size as memviz-core parses it (`2.3GiB`, bytes),
/// empty for what the trace shows.
fn capacity_flag(f: &WhatIfFields) -> Result<Option<u64>, WhatIfError> {
    match f.capacity_bytes.trim() {
        "" => Ok(None),
        v => parse_size("capacity", v).map(Some).map_err(|e| refusal(ErrorKind::Capacity, Some("capacity_bytes"), e)),
    }
}

/// The highest value of each of at most `n` runs of `series`.
fn columns(series: &[u64], n: usize) -> Vec<u64> {
    if series.is_empty() {
        return Vec::new();
    }
    let n = n.clamp(1, series.len());
    (0..n)
        .map(|c| series[c * series.len() / n..(c + 1) * series.len() / n].iter().copied().max().unwrap_or(0))
        .collect()
}

fn size(b: u64) -> String {
    format_size(b, false)
}

impl Session {
    fn new(key: (usize, u32)) -> Session {
        Session { key, stage: Stage::Start, fields: None, advise: false, job: None, done: Vec::new() }
    }

    /// About `budget` trace events of work; the share of the whole done.
    /// `versions`: the file's address versions when known (else the state
    /// history computes them).
    fn step(&mut self, snap: &Snapshot, versions: Option<&Versions>, budget: usize) -> f64 {
        let events = snap.trace(self.key.1).len().max(1) as f64;
        match std::mem::replace(&mut self.stage, Stage::Start) {
            Stage::Start => {
                self.stage = Stage::History(Box::new(StateHistoryBuilder::new(snap, self.key.1, versions)));
                return self.share(events);
            }
            Stage::History(mut b) => {
                if !b.step(snap, budget) {
                    self.stage = Stage::History(b);
                    return self.share(events);
                }
                let h = b.finish(snap);
                self.stage = match Recording::with_history(snap, &h) {
                    Ok(rec) => {
                        let paused = Replay::self_check(snap, &rec).pause();
                        Stage::SelfCheck(Box::new(rec), Box::new(paused))
                    }
                    Err(e) => Stage::Failed(refusal(ErrorKind::Recording, None, e)),
                };
                return self.share(events);
            }
            Stage::SelfCheck(rec, paused) => {
                let mut r = (*paused).resume(snap, &rec);
                if !r.step(budget) {
                    let paused = r.pause();
                    self.stage = Stage::SelfCheck(rec, Box::new(paused));
                    return self.share(events);
                }
                let first = r.finish();
                // Only a recording with garbage collection that did not
                // replay exactly is checked again (under other caps), at once.
                let exact = first.check.as_ref().is_some_and(|c| c.exact);
                let check = if exact || rec.settings.garbage_collection_threshold <= 0.0 {
                    first
                } else {
                    self_check(snap, &rec)
                };
                let w = WhatIf::from_parts(snap, *rec, check, None);
                let inferred = w.capacity;
                let recorded = columns(&w.recording.reserved_series(snap), MAX_COLUMNS);
                let (rec, check) = w.into_parts();
                self.stage = Stage::Ready(Box::new(Base { rec, check, inferred, recorded, recorded_min: None }));
                self.start_job(snap);
                return self.share(events);
            }
            other => self.stage = other,
        }
        if !matches!(self.stage, Stage::Ready(_)) || self.job.is_none() {
            return 1.0;
        }
        let Stage::Ready(base) = std::mem::replace(&mut self.stage, Stage::Start) else {
            unreachable!("checked above")
        };
        let Base { rec, check, inferred, recorded, mut recorded_min } = *base;
        let job = self.job.as_mut().expect("checked above");
        // The search and the text need memviz-allocator's WhatIf: made of
        // the parts kept here for the call.
        let w = WhatIf::from_parts(snap, rec, check, job.flag);
        match std::mem::replace(&mut job.step, JobStep::Done(Box::new(empty_prediction()), Vec::new(), String::new())) {
            JobStep::Replay(paused) => {
                let mut r = (*paused).resume(snap, &w.recording);
                if r.step(budget) {
                    let mut out = r.finish();
                    let predicted = columns(&std::mem::take(&mut out.series), MAX_COLUMNS);
                    let search = w.min_capacity_search(job.settings.clone()).pause();
                    job.step = JobStep::Search(Box::new(out), predicted, Box::new(search));
                } else {
                    job.step = JobStep::Replay(Box::new(r.pause()));
                }
            }
            JobStep::Search(out, predicted, paused) => {
                let mut search = (*paused).resume(&w);
                match search.step(budget) {
                    Some(min_capacity_bytes) => {
                        let p = Prediction { settings: job.settings.clone(), outcome: *out, min_capacity_bytes };
                        if p.settings == w.recording.settings {
                            recorded_min = Some(min_capacity_bytes);
                        }
                        job.step = match recorded_min {
                            Some(m) => {
                                let text = w.verdict_with(&p, || m);
                                JobStep::Done(Box::new(p), predicted, text)
                            }
                            // The text names the recorded settings' capacity
                            // too: searched in steps, not in this call.
                            None => {
                                let search = w.min_capacity_search(w.recording.settings.clone()).pause();
                                JobStep::RecordedSearch(Box::new(p), predicted, Box::new(search))
                            }
                        };
                    }
                    None => job.step = JobStep::Search(out, predicted, Box::new(search.pause())),
                }
            }
            JobStep::RecordedSearch(p, predicted, paused) => {
                let mut search = (*paused).resume(&w);
                match search.step(budget) {
                    Some(m) => {
                        recorded_min = Some(m);
                        let text = w.verdict_with(&p, || m);
                        job.step = JobStep::Done(p, predicted, text);
                    }
                    None => job.step = JobStep::RecordedSearch(p, predicted, Box::new(search.pause())),
                }
            }
            done => job.step = done,
        }
        let (rec, check) = w.into_parts();
        self.stage = Stage::Ready(Box::new(Base { rec, check, inferred, recorded, recorded_min }));
        let job = self.job.as_mut().expect("checked above");
        if matches!(job.step, JobStep::Done(..)) {
            // Cached; the job stays the one shown.
            let j = Job {
                settings: job.settings.clone(),
                fields: job.fields.clone(),
                flag: job.flag,
                capacity: job.capacity,
                step: match &job.step {
                    JobStep::Done(p, c, t) => JobStep::Done(p.clone(), c.clone(), t.clone()),
                    _ => unreachable!("matched Done above"),
                },
            };
            if !self.done.iter().any(|d| d.fields == j.fields) {
                self.done.push(j);
            }
        }
        self.share(events)
    }

    /// The share of the whole job done: the self-check's replay, the
    /// prediction's, then the bisection's replays (about log2 of the peak in MiB).
    fn share(&self, events: f64) -> f64 {
        match &self.stage {
            Stage::Start => 0.0,
            Stage::History(b) => 0.1 * b.walked() as f64 / events,
            Stage::SelfCheck(_, p) => 0.1 + 0.2 * p.position() as f64 / events,
            Stage::Failed(_) => 1.0,
            Stage::Ready(_) => match self.job.as_ref().map(|j| &j.step) {
                None | Some(JobStep::Done(..)) => 1.0,
                Some(JobStep::Replay(p)) => 0.3 + 0.3 * p.position() as f64 / events,
                // The bisection's replays are not counted: a share between.
                Some(JobStep::Search(..)) => 0.8,
                Some(JobStep::RecordedSearch(..)) => 0.9,
            },
        }
    }

    /// Starts (or takes from the cache) the prediction under the fields chosen.
    fn start_job(&mut self, snap: &Snapshot) {
        let Stage::Ready(base) = &self.stage else { return };
        if self.fields.is_none() && self.advise {
            self.fields = Some(advised(&base.rec.settings));
        }
        let fields = self.fields.clone().unwrap_or_else(|| fields_of(&base.rec.settings));
        if let Some(i) = self.done.iter().position(|d| d.fields == fields) {
            let d = &self.done[i];
            let step = match &d.step {
                JobStep::Done(p, c, t) => JobStep::Done(p.clone(), c.clone(), t.clone()),
                _ => return,
            };
            self.job = Some(Job { settings: d.settings.clone(), fields, flag: d.flag, capacity: d.capacity, step });
            return;
        }
        // The fields were checked when set.
        let (Ok(settings), Ok(flag)) = (settings_of(&base.rec.settings, &fields), capacity_flag(&fields)) else {
            return;
        };
        // The field prefilled with the trace's capacity and left so is no
        // capacity of the user's: the trace's stays (its bounds, its source).
        let flag = flag.filter(|&b| Some(b) != base.inferred.bytes);
        let capacity = match flag {
            Some(b) => Capacity { bytes: Some(b), source: CapacitySource::Flag, cap_bounds: None },
            None => base.inferred,
        };
        let replay =
            Replay::predict(snap, &base.rec, settings.clone(), capacity.limit(), base.check.empty_cache_at.clone())
                .keep_series();
        self.job = Some(Job { settings, fields, capacity, flag, step: JobStep::Replay(Box::new(replay.pause())) });
    }
}

/// A placeholder while a job's step is taken out to be stepped.
fn empty_prediction() -> Prediction {
    Prediction { settings: Settings::default(), outcome: Outcome::default(), min_capacity_bytes: 0 }
}

impl WhatIfState {
    /// The session of `key`, made the current one (first).
    fn session(&mut self, key: (usize, u32)) -> &mut Session {
        match self.sessions.iter().position(|s| s.key == key) {
            Some(0) => {}
            Some(i) => {
                let s = self.sessions.remove(i);
                self.sessions.insert(0, s);
            }
            None => {
                self.sessions.insert(0, Session::new(key));
                self.sessions.truncate(KEEP_SESSIONS);
            }
        }
        &mut self.sessions[0]
    }
}

impl Viewer {
    /// Chooses the settings the panel replays under, for the current file and
    /// device (`fields` None: the recording's own); the replay itself runs
    /// in [`Viewer::whatif_step`]. A bad field is an error naming it; the
    /// settings chosen before stay.
    pub fn whatif_set(&mut self, cmd: WhatIfCommand) -> Result<(), WhatIfError> {
        let Some(f) = self.cx.file() else {
            return Err(PageError::no_file());
        };
        let key = self.cx.key();
        let s = self.whatif.session(key);
        if let (Some(fields), Stage::Ready(base)) = (&cmd.fields, &s.stage) {
            settings_of(&base.rec.settings, fields)?;
            capacity_flag(fields)?;
        } else if let Some(fields) = &cmd.fields {
            settings_of(&Settings::default(), fields)?;
            capacity_flag(fields)?;
        }
        s.fields = cmd.fields;
        s.advise = false;
        s.job = None;
        s.start_job(&f.snap);
        Ok(())
    }

    /// Chooses what the OOM panel's advice replays, for the current file and
    /// device: the recording's own settings with expandable_segments:True
    /// (the usual first advice for an OOM), known once the recording is
    /// read; the replay runs in [`Viewer::whatif_step`] like any other.
    pub fn whatif_advise(&mut self) -> Result<(), WhatIfError> {
        let Some(f) = self.cx.file() else {
            return Err(PageError::no_file());
        };
        let key = self.cx.key();
        let s = self.whatif.session(key);
        s.fields = None;
        s.advise = true;
        s.job = None;
        s.start_job(&f.snap);
        Ok(())
    }

    /// About `budget` trace events of the panel's work on the current file
    /// and device (the page calls it a slice a frame); the share done, 1.0
    /// once the prediction and the capacity it needs are known.
    pub fn whatif_step(&mut self, budget: usize) -> f64 {
        let Some(f) = self.cx.file() else { return 1.0 };
        let key = self.cx.key();
        let s = self.whatif.session(key);
        if s.job.is_none() {
            s.start_job(&f.snap);
        }
        s.step(&f.snap, f.versions_now(), budget.max(1))
    }

    /// What the panel shows now, for the current file and device.
    pub fn whatif_view(&mut self) -> Result<WhatIfView, WhatIfError> {
        let Some(f) = self.cx.file() else {
            return Err(PageError::no_file());
        };
        let key = self.cx.key();
        let snap = &f.snap;
        let s = self.whatif.session(key);
        let events = snap.trace(key.1).len();
        let share = s.share(events.max(1) as f64);
        let mut v = WhatIfView {
            device: snap.device_name(key.1),
            stage: "recording",
            share,
            busy: String::new(),
            fields: s.fields.clone().unwrap_or_default(),
            recorded_settings: String::new(),
            self_check: None,
            self_check_exact: None,
            capacity: None,
            capacity_size: None,
            headline: None,
            ooms: Vec::new(),
            new_ooms: None,
            needs: None,
            needs_bytes: None,
            advice: None,
            assumption: ASSUMPTION,
            chart: None,
        };
        let base = match &s.stage {
            Stage::Failed(e) => return Err(e.clone()),
            Stage::Start | Stage::History(_) => {
                v.busy = "reading the recording (the allocator's state at the trace's first event)".into();
                return Ok(v);
            }
            Stage::SelfCheck(rec, _) => {
                v.stage = "self-check";
                v.busy = format!("replaying {events} events under the recording's own settings (the self-check)");
                v.recorded_settings = conf_name(&rec.settings);
                if s.fields.is_none() {
                    v.fields = if s.advise { advised(&rec.settings) } else { fields_of(&rec.settings) };
                }
                return Ok(v);
            }
            Stage::Ready(b) => b,
        };
        v.recorded_settings = conf_name(&base.rec.settings);
        if s.fields.is_none() {
            v.fields = fields_of(&base.rec.settings);
        }
        // The text comes from memviz-allocator's WhatIf (one place for it),
        // put together from the parts kept here for the call.
        let Stage::Ready(base) = std::mem::replace(&mut s.stage, Stage::Start) else { unreachable!("matched above") };
        let Base { rec, check, inferred, recorded, recorded_min } = *base;
        let (capacity, flag) = s.job.as_ref().map_or((inferred, None), |j| (j.capacity, j.flag));
        let w = WhatIf::from_parts(snap, rec, check, flag);
        v.self_check = Some(w.self_check_line());
        v.self_check_exact = Some(w.self_check().exact);
        v.capacity = Some(w.capacity_line());
        v.capacity_size = capacity.bytes.map(size);
        if v.fields.capacity_bytes.is_empty() {
            v.fields.capacity_bytes = capacity.bytes.map(|b| b.to_string()).unwrap_or_default();
        }
        let mut chart = chart(&w, &recorded, capacity, events);
        match s.job.as_ref().map(|j| &j.step) {
            Some(JobStep::Replay(_)) | None => {
                v.stage = "replay";
                v.busy = format!(
                    "replaying {events} events under {}",
                    s.job.as_ref().map_or(String::new(), |j| conf_name(&j.settings))
                );
            }
            Some(JobStep::Search(out, predicted, _)) => {
                v.stage = "capacity";
                v.busy = "finding the capacity this run needs (a replay per cap)".into();
                let settings = s.job.as_ref().map(|j| j.settings.clone()).unwrap_or_default();
                v.headline = Some(format!(
                    "with {} the replay peaks at {}",
                    conf_name(&settings),
                    size(out.peak_reserved_bytes)
                ));
                fill_chart(&mut chart, predicted, &settings);
            }
            Some(JobStep::RecordedSearch(p, predicted, _)) => {
                v.stage = "capacity";
                v.busy = format!(
                    "finding the capacity the recorded settings ({}) need, to compare (a replay per cap)",
                    conf_name(&w.recording.settings)
                );
                v.headline = Some(format!(
                    "with {} the replay peaks at {}",
                    conf_name(&p.settings),
                    size(p.outcome.peak_reserved_bytes)
                ));
                fill_chart(&mut chart, predicted, &p.settings);
            }
            Some(JobStep::Done(p, predicted, text)) => {
                v.stage = "done";
                verdicts(&mut v, text, p);
                fill_chart(&mut chart, predicted, &p.settings);
            }
        }
        v.chart = Some(chart);
        let (rec, check) = w.into_parts();
        s.stage = Stage::Ready(Box::new(Base { rec, check, inferred, recorded, recorded_min }));
        Ok(v)
    }
}

impl Viewer {
    /// [`WhatIfOverlay`] of the current file and device's prediction, when
    /// the Active Cached Segment Timeline is shown and drawn and the
    /// prediction's replay is done.
    pub fn whatif_overlay(&self) -> Option<WhatIfOverlay> {
        if self.view_kind() != ViewKind::Timeline || self.cx.kind != TimelineKind::CachedSegments {
            return None;
        }
        let (rect, f, tl) = (self.cx.rect?, self.cx.file()?, self.cx.timeline()?);
        let key = self.cx.key();
        let job = self.whatif.sessions.iter().find(|s| s.key == key)?.job.as_ref()?;
        let (settings, predicted) = match &job.step {
            JobStep::Replay(_) => return None,
            JobStep::Search(_, c, _) => (&job.settings, c),
            JobStep::RecordedSearch(p, c, _) | JobStep::Done(p, c, _) => (&p.settings, c),
        };
        // The columns split the trace's events as `columns` did (a
        // reserved value after each event).
        let (events, n) = (f.snap.trace(key.1).len(), predicted.len());
        if n == 0 || events < n {
            return None;
        }
        let (top, dpr) = (self.cx.y_max.max(1) as f64, self.cx.dpr);
        let y = |b: u64| (((rect.y + rect.h) as f64 - (b as f64 / top).min(1.0) * rect.h as f64) / dpr) as f32;
        let x = |after: usize| self.x_of_step(steps_through_event(tl, after as u32) as f64) as f32;
        let mut points = Vec::with_capacity(4 * n);
        for (c, &b) in predicted.iter().enumerate() {
            let (first, last) = (c * events / n, (c + 1) * events / n - 1);
            let x0 = if first == 0 { self.x_of_step(0.0) as f32 } else { x(first - 1) };
            points.extend([x0, y(b), x(last), y(b)]);
        }
        Some(WhatIfOverlay { points, label: format!("predicted with {}", conf_name(settings)) })
    }
}

/// The chart's colours, as style.css's #whatif-legend.
const RECORDED: Rgba = [0x4e, 0x79, 0xa7, 255];
const PREDICTED: Rgba = [0xf2, 0x8e, 0x2c, 255];
const CAP: Rgba = [0xd6, 0x27, 0x28, 255];

/// An image `width` × `height` CSS px at `dpr`, transparent.
fn canvas(width: f64, height: f64, dpr: f64) -> Image {
    let mut img = Image::new(0, 0);
    img.reset((width * dpr).round().max(0.0) as u32, (height * dpr).round().max(0.0) as u32, [0, 0, 0, 0]);
    img
}

impl Viewer {
    /// The What if chart `width` × `height` CSS px: recorded and predicted
    /// reserved memory, the capacity and the recorded OOMs on one y axis.
    pub(crate) fn whatif_chart_picture(&mut self, width: f64, height: f64, dpr: f64) -> Option<(Picture, PanelDrawn)> {
        let c = self.whatif_view().ok()?.chart?;
        let mut image = canvas(width, height, dpr);
        let (w, top, bottom) = (width * dpr, 14.0 * dpr, (height - 14.0) * dpr);
        let y = |share: f32| bottom - share as f64 * (bottom - top);
        // A level per column, joined by vertical steps.
        let steps = |ys: &[f32]| -> Vec<(f64, f64)> {
            let n = ys.len() as f64;
            ys.iter()
                .enumerate()
                .flat_map(|(i, &s)| [(i as f64 / n * w, y(s)), ((i + 1) as f64 / n * w, y(s))])
                .collect()
        };
        for &x in &c.ooms {
            step_line(
                &mut image,
                &[(x as f64 * w, top), (x as f64 * w, bottom)],
                dpr,
                CAP,
                Some((2.0 * dpr, 2.0 * dpr)),
            );
        }
        if let Some(cap) = c.cap {
            step_line(&mut image, &[(0.0, y(cap)), (w, y(cap))], 1.5 * dpr, CAP, Some((6.0 * dpr, 4.0 * dpr)));
        }
        step_line(&mut image, &steps(&c.recorded), 1.5 * dpr, RECORDED, None);
        step_line(&mut image, &steps(&c.predicted), 1.5 * dpr, PREDICTED, None);
        let texts = vec![
            Label { text: c.top.clone(), x: 3.0, y: 7.0 },
            Label { text: c.x_label.clone(), x: 3.0, y: height - 7.0 },
        ];
        let drawn = PanelDrawn {
            generation: self.generation(),
            drawn: true,
            height,
            count: c.predicted.len() as u32,
            label: String::new(),
        };
        Some((Picture { image, texts, font: "sans-serif", color: "#333", dpr }, drawn))
    }

    /// [`WhatIfOverlay`]'s line over the plot (`width` × `height` CSS px):
    /// dark, on a white halo (a colour none of the bands has).
    pub(crate) fn whatif_overlay_picture(&self, width: f64, height: f64, dpr: f64) -> Option<(Picture, PanelDrawn)> {
        let o = self.whatif_overlay()?;
        let mut image = canvas(width, height, dpr);
        let points: Vec<(f64, f64)> =
            o.points.chunks_exact(2).map(|p| (p[0] as f64 * dpr, p[1] as f64 * dpr)).collect();
        step_line(&mut image, &points, 4.0 * dpr, [255, 255, 255, 230], None);
        step_line(&mut image, &points, 2.0 * dpr, [0x11, 0x11, 0x11, 255], None);
        let drawn = PanelDrawn {
            generation: self.generation(),
            drawn: true,
            height,
            count: points.len() as u32,
            label: o.label,
        };
        Some((Picture::empty_with(image), drawn))
    }
}

/// The chart's axis and recorded line.
fn chart(w: &WhatIf, recorded: &[u64], capacity: Capacity, events: usize) -> WhatIfChart {
    let top = recorded.iter().copied().max().unwrap_or(0).max(capacity.bytes.unwrap_or(0)).max(1);
    WhatIfChart {
        recorded: recorded.iter().map(|&b| (b as f64 / top as f64) as f32).collect(),
        predicted: Vec::new(),
        cap: capacity.bytes.map(|b| (b as f64 / top as f64) as f32),
        ooms: w
            .recording
            .ooms
            .iter()
            .map(|o| if events > 1 { (o.event as f64 / (events - 1) as f64) as f32 } else { 0.0 })
            .collect(),
        top_bytes: top,
        top: size(top),
        x_label: format!("trace events 0 to {events}"),
        recorded_label: format!("recorded reserved ({})", conf_name(&w.recording.settings)),
        predicted_label: String::new(),
        cap_label: capacity.bytes.map(|b| format!("capacity {}", size(b))).unwrap_or_default(),
    }
}

/// The predicted line, on the axis of both (the top grows to fit it).
fn fill_chart(c: &mut WhatIfChart, predicted: &[u64], settings: &Settings) {
    let top = c.top_bytes.max(predicted.iter().copied().max().unwrap_or(0));
    if top != c.top_bytes {
        let k = c.top_bytes as f64 / top as f64;
        for y in c.recorded.iter_mut() {
            *y = (*y as f64 * k) as f32;
        }
        c.cap = c.cap.map(|y| (y as f64 * k) as f32);
        c.top_bytes = top;
        c.top = size(top);
    }
    c.predicted = predicted.iter().map(|&b| (b as f64 / top as f64) as f32).collect();
    c.predicted_label = format!("predicted reserved ({})", conf_name(settings));
}

/// The prediction's text, from [`WhatIf::verdict`]: its first line, one line
/// per recorded OOM (in their order), a line of new OOMs when there are
/// any, and the capacity the run needs last.
fn verdicts(v: &mut WhatIfView, text: &str, p: &Prediction) {
    let mut lines = text.lines().map(|l| l.trim().to_string());
    v.headline = lines.next();
    for o in p.outcome.ooms.iter().filter(|o| o.recorded) {
        v.ooms.push(OomVerdict { event: o.event, happens: o.happens, text: lines.next().unwrap_or_default() });
    }
    let rest: Vec<String> = lines.collect();
    if let [new, _] = rest.as_slice() {
        v.new_ooms = Some(new.clone());
    }
    v.needs = rest.last().cloned();
    v.needs_bytes = Some(p.min_capacity_bytes);
    v.advice = v.ooms.first().map(|o| o.text.clone());
}
