//! What another setting would have done: the self-check, the device's
//! capacity, a prediction per setting, the capacity a setting needs, the
//! sweep, and `memviz whatif`'s JSON and text.

use memviz_core::format::format_size;
use memviz_core::model::Snapshot;
use serde_json::json;

use crate::cache::{Cache, Limit};
use crate::replay::{Outcome, Paused, Recording, Replay, SelfCheck};
use crate::settings::{Settings, MIB};

/// Said once wherever predictions are shown.
pub const ASSUMPTION: &str = "The replay assumes the program makes the same allocations whatever the allocator does.";

/// Where the capacity a prediction runs under comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapacitySource {
    /// `--capacity`.
    Flag,
    /// An `oom` event where the device itself was full: reserved + device_free.
    OomEvent,
    /// Something capped the process below the device (an OOM whose
    /// device_free had room, or releases with no OOM): bounded from the trace.
    InferredCap,
    Unknown,
}

impl CapacitySource {
    pub fn name(self) -> &'static str {
        match self {
            CapacitySource::Flag => "flag",
            CapacitySource::OomEvent => "oom_event",
            CapacitySource::InferredCap => "inferred_cap",
            CapacitySource::Unknown => "unknown",
        }
    }
}

/// The memory the process could have, as far as the trace tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// What predictions run under (for an inferred cap: the most the trace
    /// allows, just below the upper bound).
    pub bytes: Option<u64>,
    pub source: CapacitySource,
    /// An inferred cap lies in [LO, HI): at or above the highest reserved
    /// memory reached, below reserved plus the allocation that was refused.
    pub cap_bounds: Option<(u64, u64)>,
}

impl Capacity {
    /// The model's limit for this capacity.
    pub fn limit(&self) -> Limit {
        Limit { bytes: self.bytes, per_process: self.source != CapacitySource::OomEvent }
    }
}

/// One setting's prediction.
#[derive(Debug, Clone)]
pub struct Prediction {
    pub settings: Settings,
    pub outcome: Outcome,
    /// The smallest per-process cap under which the replay has no OOM
    /// (to 1 MiB).
    pub min_capacity_bytes: u64,
}

/// A recording checked and ready for predictions.
pub struct WhatIf<'a> {
    snap: &'a Snapshot,
    pub recording: Recording,
    /// The self-check's replay (its [`Outcome::check`] is set).
    pub check: Outcome,
    pub capacity: Capacity,
}

impl<'a> WhatIf<'a> {
    /// Reads `device`'s recording, runs the self-check, and works out the
    /// capacity (`capacity`: the user's `--capacity`).
    pub fn new(snap: &'a Snapshot, device: u32, capacity: Option<u64>) -> Result<WhatIf<'a>, String> {
        let recording = Recording::new(snap, device)?;
        let check = self_check(snap, &recording);
        let capacity = infer_capacity(&recording, &check, capacity);
        Ok(WhatIf { snap, recording, check, capacity })
    }

    /// From parts made in steps (the page): a [`Recording`] (from its own
    /// state history, [`Recording::with_history`]) and its self-check's
    /// outcome ([`Replay::self_check`] stepped to the end, then
    /// [`Replay::finish`]). A recording with garbage collection may need
    /// [`self_check`] (it tries other caps) to be exact.
    pub fn from_parts(snap: &'a Snapshot, recording: Recording, check: Outcome, capacity: Option<u64>) -> WhatIf<'a> {
        let capacity = infer_capacity(&recording, &check, capacity);
        WhatIf { snap, recording, check, capacity }
    }

    /// The recording and the self-check's outcome (the page keeps them apart
    /// from the snapshot between frames: [`WhatIf::from_parts`]).
    pub fn into_parts(self) -> (Recording, Outcome) {
        (self.recording, self.check)
    }

    pub fn self_check(&self) -> &SelfCheck {
        self.check.check.as_ref().expect("the self-check's outcome has its check")
    }

    /// A replay of the prediction under `settings`, to run in steps.
    pub fn replay(&self, settings: Settings) -> Replay<'_> {
        self.replay_under(settings, self.capacity.limit())
    }

    /// The prediction under `settings`, with the capacity it needs.
    pub fn predict(&self, settings: Settings) -> Prediction {
        let outcome = self.replay(settings.clone()).finish();
        let min_capacity_bytes = self.min_capacity(&settings);
        Prediction { settings, outcome, min_capacity_bytes }
    }

    /// The smallest per-process cap (to 1 MiB) under which the replay runs
    /// without an OOM, by bisection between nothing and the peak with no limit.
    pub fn min_capacity(&self, settings: &Settings) -> u64 {
        let mut search = self.min_capacity_search(settings.clone());
        loop {
            if let Some(c) = search.step(usize::MAX) {
                return c;
            }
        }
    }

    /// [`WhatIf::min_capacity`] in steps (the page: a slice a frame).
    pub fn min_capacity_search(&self, settings: Settings) -> CapacitySearch<'_, 'a> {
        let replay = self.replay_under(settings.clone(), Limit::default());
        CapacitySearch { w: self, settings, lo: 0, hi: None, probe: None, replay }
    }

    fn replay_under(&self, settings: Settings, limit: Limit) -> Replay<'_> {
        Replay::predict(self.snap, &self.recording, settings, limit, self.check.empty_cache_at.clone())
    }

    /// The sweep's settings: the common configurations, each alone.
    pub fn sweep_settings(&self) -> Vec<Settings> {
        let mut out = Vec::new();
        for conf in SWEEP {
            let mut s = Settings::default();
            s.set(conf).expect("the sweep's settings parse");
            // Garbage collection acts only under a per-process cap.
            if s.garbage_collection_threshold > 0.0 && self.capacity.bytes.is_none() {
                continue;
            }
            out.push(s);
        }
        out
    }

    /// Every sweep configuration predicted: those with no OOM first, each
    /// part by peak reserved memory (an OOM's peak is where it stopped).
    pub fn sweep(&self) -> Vec<Prediction> {
        let mut out: Vec<Prediction> = self.sweep_settings().into_iter().map(|s| self.predict(s)).collect();
        out.sort_by_key(|p| (p.outcome.any_oom(), p.outcome.peak_reserved_bytes, p.min_capacity_bytes));
        out
    }

    /// `memviz whatif --json`.
    pub fn to_json(&self, p: &Prediction) -> serde_json::Value {
        let c = self.self_check();
        json!({
            "device": self.snap.device_name(self.recording.device),
            "settings": p.settings.to_json(),
            "self_check": {
                "events": c.events,
                "matched": c.matched,
                "exact": c.exact,
                "first_divergence": c.first_divergence.as_ref().map(|d| json!({
                    "event": d.event, "recorded": d.recorded, "model": d.model,
                })),
            },
            "recorded": {
                "peak_reserved_bytes": self.recording.peak_reserved,
                "oom_events": self.recording.ooms.iter().map(|o| o.event).collect::<Vec<_>>(),
            },
            "predicted": {
                "peak_reserved_bytes": p.outcome.peak_reserved_bytes,
                "end_reserved_bytes": p.outcome.end_reserved_bytes,
                "ooms": p.outcome.ooms.iter().map(|o| json!({
                    "event": o.event,
                    "recorded": o.recorded,
                    "happens": o.happens,
                    "request_bytes": o.request_bytes,
                    "reserved_bytes": o.reserved_bytes,
                    "largest_free_bytes": o.largest_free_bytes,
                })).collect::<Vec<_>>(),
                "min_capacity_bytes": p.min_capacity_bytes,
            },
            "capacity": {
                "bytes": self.capacity.bytes,
                "source": self.capacity.source.name(),
                "cap_bounds": self.capacity.cap_bounds.map(|(lo, hi)| vec![lo, hi]),
            },
        })
    }

    /// The self-check as one line.
    pub fn self_check_line(&self) -> String {
        let c = self.self_check();
        match &c.first_divergence {
            None => format!(
                "self-check: the model reproduces this recording: {} of {} events (segment events, OOMs, block addresses)",
                c.matched, c.events
            ),
            Some(d) => format!(
                "self-check: {} of {} events match; first divergence at event {}: recorded {}, the model {}",
                c.matched, c.events, d.event, d.recorded, d.model
            ),
        }
    }

    /// The capacity as one line.
    pub fn capacity_line(&self) -> String {
        let c = &self.capacity;
        match (c.source, c.cap_bounds) {
            (CapacitySource::Flag, _) => format!("capacity: {} (the capacity you gave)", size(c.bytes.unwrap_or(0))),
            (CapacitySource::OomEvent, _) => {
                format!("capacity: {} (reserved + device_free at the OOM)", size(c.bytes.unwrap_or(0)))
            }
            (CapacitySource::InferredCap, Some((lo, hi))) if self.check.gc_cap_bounds == Some((lo, hi)) => {
                let (lo, hi) = bounds(lo, hi);
                format!(
                    "capacity: a per-process cap: the recording's garbage_collection_threshold replays as it was only \
                     under a cap from {lo} to {hi}"
                )
            }
            (CapacitySource::InferredCap, Some((lo, hi))) => {
                let (lo, hi) = bounds(lo, hi);
                format!(
                    "capacity: something capped the process below the device (set_per_process_memory_fraction, another \
                     process): the cap lies between {lo} (the highest reserved reached) and {hi} (what the refused \
                     request needed)"
                )
            }
            _ => "capacity: unknown (no OOM and no release in the trace; --capacity sets one)".to_string(),
        }
    }

    /// `memviz whatif`'s text for one prediction.
    pub fn to_text(&self, p: &Prediction) -> String {
        let mut out = String::new();
        let name = conf_name(&p.settings);
        let recorded = conf_name(&self.recording.settings);
        out.push_str(&format!(
            "device {}: recorded under {recorded}, peak reserved {}{}\n",
            self.snap.device_name(self.recording.device),
            size(self.recording.peak_reserved),
            match self.recording.ooms.len() {
                0 => String::new(),
                n => format!(", {n} OOM{}", if n == 1 { "" } else { "s" }),
            }
        ));
        out.push_str(&self.self_check_line());
        out.push('\n');
        out.push_str(&self.capacity_line());
        out.push('\n');
        out.push_str(&self.verdict(p));
        out.push_str(ASSUMPTION);
        out.push('\n');
        let _ = name;
        out
    }

    /// The prediction in a few lines: peak, each OOM's verdict, new OOMs, the capacity needed.
    pub fn verdict(&self, p: &Prediction) -> String {
        self.verdict_with(p, || self.min_capacity(&self.recording.settings))
    }

    /// [`WhatIf::verdict`] with the capacity the recorded settings need
    /// given (called only when `p`'s settings are not the recording's): the
    /// page searches it in steps ([`WhatIf::min_capacity_search`]) and keeps it.
    pub fn verdict_with(&self, p: &Prediction, recorded_min_capacity: impl FnOnce() -> u64) -> String {
        let name = conf_name(&p.settings);
        let o = &p.outcome;
        let mut out = format!(
            "predicted with {name}: peak reserved {} ({} free inside segments then), {} at the end\n",
            size(o.peak_reserved_bytes),
            size(o.free_at_peak_bytes),
            size(o.end_reserved_bytes)
        );
        let cap = match (self.capacity.cap_bounds, self.capacity.bytes) {
            (Some((lo, hi)), _) => {
                let (lo, hi) = bounds(lo, hi);
                format!("the {lo}-{hi} cap")
            }
            (None, Some(b)) => format!("the {} capacity", size(b)),
            (None, None) => "an unknown capacity".to_string(),
        };
        for oom in o.ooms.iter().filter(|o| o.recorded) {
            if oom.happens {
                out.push_str(&format!(
                    "  the OOM at event {} ({} requested) still happens: {} reserved, largest free block {}\n",
                    oom.event,
                    size(oom.request_bytes),
                    size(oom.reserved_bytes),
                    size(oom.largest_free_bytes)
                ));
            } else {
                let sure = match self.capacity.cap_bounds {
                    Some((lo, _)) if p.min_capacity_bytes > lo => {
                        format!(" if the cap is at least {}", size(p.min_capacity_bytes))
                    }
                    Some(_) => {
                        format!(" whatever the cap in that range (the run needs {})", size(p.min_capacity_bytes))
                    }
                    None => String::new(),
                };
                out.push_str(&format!(
                    "  with {name} the replay peaks at {}, under {cap}: the OOM at event {} would not have happened{sure}\n",
                    size(o.peak_reserved_bytes),
                    oom.event
                ));
            }
        }
        let new: Vec<_> = o.new_ooms().collect();
        if !new.is_empty() {
            out.push_str(&format!(
                "  {} new OOM{} under {cap}, the first at event {} ({} requested)\n",
                new.len(),
                if new.len() == 1 { "" } else { "s" },
                new[0].event,
                size(new[0].request_bytes)
            ));
        }
        let recorded = if p.settings == self.recording.settings {
            String::new()
        } else {
            let other = match conf_name(&self.recording.settings) {
                n if n == "the default settings" => "under the recorded (default) settings".to_string(),
                n => format!("with {n}, as recorded"),
            };
            format!(", {} {other}", size(recorded_min_capacity()))
        };
        out.push_str(&format!("  this run needs {} with {name}{recorded}\n", size(p.min_capacity_bytes)));
        out
    }
}

/// The bisection of [`WhatIf::min_capacity`], a replay at a time.
pub struct CapacitySearch<'w, 'a> {
    w: &'w WhatIf<'a>,
    settings: Settings,
    /// MiB known too small.
    lo: u64,
    /// MiB known enough (after the run with no limit).
    hi: Option<u64>,
    /// MiB the replay in flight tries (`None`: the run with no limit).
    probe: Option<u64>,
    replay: Replay<'w>,
}

impl CapacitySearch<'_, '_> {
    /// Replays up to `budget` events; the capacity once the search is done.
    pub fn step(&mut self, budget: usize) -> Option<u64> {
        if !self.replay.step(budget) {
            return None;
        }
        let done = std::mem::replace(&mut self.replay, self.w.replay_under(self.settings.clone(), Limit::default()));
        let out = done.finish();
        match self.probe {
            None => self.hi = Some(out.peak_reserved_bytes.div_ceil(MIB)),
            Some(mid) if out.any_oom() => self.lo = mid,
            Some(mid) => self.hi = Some(mid),
        }
        let hi = self.hi.expect("the run with no limit comes first");
        if hi - self.lo <= 1 {
            return Some(hi * MIB);
        }
        let mid = self.lo + (hi - self.lo) / 2;
        self.probe = Some(mid);
        self.replay = self
            .w
            .replay_under(self.settings.clone(), Limit { bytes: Some(mid * MIB), per_process: true })
            .stop_at_first_oom();
        None
    }
}

/// A [`CapacitySearch`] between two steps, holding nothing borrowed (the
/// page keeps it across frames): [`CapacitySearch::pause`], [`PausedSearch::resume`].
pub struct PausedSearch {
    settings: Settings,
    lo: u64,
    hi: Option<u64>,
    probe: Option<u64>,
    replay: Paused,
}

impl CapacitySearch<'_, '_> {
    pub fn pause(self) -> PausedSearch {
        let CapacitySearch { w: _, settings, lo, hi, probe, replay } = self;
        PausedSearch { settings, lo, hi, probe, replay: replay.pause() }
    }
}

impl PausedSearch {
    /// Goes on with the search; `w` must be made of the same parts.
    pub fn resume<'w, 'a>(self, w: &'w WhatIf<'a>) -> CapacitySearch<'w, 'a> {
        let PausedSearch { settings, lo, hi, probe, replay } = self;
        let replay = replay.resume(w.snap, &w.recording);
        CapacitySearch { w, settings, lo, hi, probe, replay }
    }
}

/// `--sweep`'s configurations (PyTorch's spelling), each on PyTorch's defaults.
pub const SWEEP: [&str; 7] = [
    "expandable_segments:False",
    "expandable_segments:True",
    "max_split_size_mb:128",
    "max_split_size_mb:512",
    "roundup_power2_divisions:4",
    "roundup_power2_divisions:16",
    "garbage_collection_threshold:0.8",
];

/// Settings as the text names them: their conf string, or "the default settings".
pub fn conf_name(s: &Settings) -> String {
    match s.conf_string() {
        c if c.is_empty() => "the default settings".to_string(),
        c => c,
    }
}

fn size(b: u64) -> String {
    format_size(b, false)
}

/// Two bounds as text, with their bytes when one decimal cannot tell them apart.
fn bounds(lo: u64, hi: u64) -> (String, String) {
    let exact = size(lo) == size(hi);
    (format_size(lo, exact), format_size(hi, exact))
}

/// The self-check, trying other caps when the recording's garbage
/// collection (which depends on the cap's value) did not replay exactly.
pub fn self_check(snap: &Snapshot, rec: &Recording) -> Outcome {
    let first = Replay::self_check(snap, rec).finish();
    let exact = first.check.as_ref().is_some_and(|c| c.exact);
    let gc = rec.settings.garbage_collection_threshold;
    if exact || gc <= 0.0 || first.limit.bytes.is_none() {
        return first;
    }
    // Garbage collection starts above gc x cap: the caps where that changes
    // for a reserved level the trace reaches, within what the trace allows.
    // Releases under the first guess may be garbage collection it started
    // too early; only the OOMs bound the cap from above.
    let lo = rec.peak_reserved;
    let hi =
        rec.ooms.iter().map(|o| o.reserved_bytes + Cache::allocation_size(o.request_bytes)).min().unwrap_or(u64::MAX);
    let trace = snap.trace(rec.device);
    let mut reserved = rec.initial_reserved;
    let mut caps = vec![];
    for i in 0..trace.len() {
        use memviz_core::model::Action::*;
        match trace.action[i] {
            SegmentAlloc | SegmentMap => reserved += trace.size[i],
            SegmentFree | SegmentUnmap => reserved = reserved.saturating_sub(trace.size[i]),
            _ => continue,
        }
        let c = (reserved as f64 / gc) as u64;
        for cap in [c.saturating_sub(1), c + 1] {
            if cap >= lo && cap < hi {
                caps.push(cap);
            }
        }
    }
    caps.sort_unstable();
    caps.dedup();
    // Every cap between two neighbouring candidates replays the same.
    let mut best = first;
    for (k, &cap) in caps.iter().enumerate() {
        let mut o = Replay::self_check_with(snap, rec, Limit { bytes: Some(cap), per_process: true }).finish();
        let (m, b) = (o.check.as_ref().map_or(0, |c| c.matched), best.check.as_ref().map_or(0, |c| c.matched));
        let exact = o.check.as_ref().is_some_and(|c| c.exact);
        if exact {
            o.gc_cap_bounds = Some((cap, caps.get(k + 1).copied().unwrap_or(hi)));
            return o;
        }
        if m > b {
            best = o;
        }
    }
    best
}

/// The capacity: `--capacity`; else the OOM events (a device full: reserved
/// plus device_free; room on the device: a cap); else the releases the
/// allocator made because the device refused (a cap); else unknown.
pub fn infer_capacity(rec: &Recording, check: &Outcome, flag: Option<u64>) -> Capacity {
    if let Some(b) = flag {
        return Capacity { bytes: Some(b), source: CapacitySource::Flag, cap_bounds: None };
    }
    let lo = rec.peak_reserved;
    let mut full: Option<u64> = None;
    let mut capped = false;
    for o in &rec.ooms {
        let need = Cache::allocation_size(o.request_bytes);
        match o.device_free {
            Some(free) if free < need => {
                let c = o.reserved_bytes + free;
                full = Some(full.map_or(c, |f| f.min(c)));
            }
            _ => capped = true,
        }
    }
    if let Some(c) = full.filter(|_| !capped) {
        return Capacity { bytes: Some(c), source: CapacitySource::OomEvent, cap_bounds: None };
    }
    let hi = check.refused_at.iter().copied().filter(|&h| h > lo).min();
    if let (None, Some((glo, ghi))) = (hi, check.gc_cap_bounds) {
        // No refusal, but garbage collection replays only under these caps.
        let (glo, ghi) = (glo.max(lo), ghi);
        let bytes = if ghi == u64::MAX { glo } else { ghi - 1 };
        return Capacity { bytes: Some(bytes), source: CapacitySource::InferredCap, cap_bounds: Some((glo, ghi)) };
    }
    match hi {
        Some(hi) => Capacity { bytes: Some(hi - 1), source: CapacitySource::InferredCap, cap_bounds: Some((lo, hi)) },
        None => match full {
            Some(c) => Capacity { bytes: Some(c), source: CapacitySource::OomEvent, cap_bounds: None },
            None => Capacity { bytes: None, source: CapacitySource::Unknown, cap_bounds: None },
        },
    }
}
