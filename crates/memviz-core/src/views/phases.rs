//! Time on the timelines, and what the program was doing.
//!
//! [`TimeAxis`]: a timeline's steps placed at their events' `time_us`, in
//! seconds from the first event. Idle gaps longer than a threshold are
//! drawn compressed (a fixed small width) and listed in [`TimeAxis::gaps`]
//! so a view can mark them; the x position of everything (steps, phases,
//! markers) goes through one mapping, so zoom, hover and view switches
//! agree. A file without `time_us` has no time axis (steps only).
//!
//! [`phases`]: the snapshot's `external_annotations` (record_function
//! ranges: `START` / `END` pairs by name, e.g. `Optimizer.step#AdamW.step`,
//! `ProfilerStep#3`, `## forward ##`), per device, with those torch.compile
//! makes for itself marked [`Phase::internal`] (hidden by default).
//! [`markers`]: the device's `annotate` events (PyTorch 2.15).

use crate::model::{Plain, Snapshot, NO_TIME};
use crate::timeline::{Timeline, NO_EVENT};

/// One idle gap drawn compressed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// The step the gap ends at (the first after it).
    pub step: u32,
    /// Display position (seconds, compressed) where the gap starts.
    pub x: f64,
    /// Its width on the display.
    pub shown_s: f64,
    /// Its real length.
    pub real_s: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TimeAxis {
    /// First event's time.
    pub t0_us: i64,
    /// Display position (seconds, gaps compressed) of each step's start;
    /// `x[n_steps]` is the end of the last step.
    pub x: Vec<f64>,
    /// Real time (us) of each step's start; `t_us[n_steps]` the end.
    pub t_us: Vec<i64>,
    /// Gaps longer than this (seconds) are compressed.
    pub threshold_s: f64,
    pub gaps: Vec<Gap>,
}

/// The time of `tl`'s first step that has one: None when its events have
/// no `time_us` (then it has no time axis, and shows steps only).
pub fn first_time(snap: &Snapshot, tl: &Timeline) -> Option<i64> {
    let trace = snap.traces.get(tl.device as usize)?;
    tl.events
        .iter()
        .filter(|&&e| e != NO_EVENT)
        .filter_map(|&e| trace.time_us.get(e as usize).copied())
        .find(|&t| t != NO_TIME)
}

impl TimeAxis {
    /// The time axis of `tl`; None when its events have no `time_us` (or
    /// it has no events). `threshold_s`: None picks one (see
    /// [`default_threshold`]); `f64::INFINITY` compresses nothing.
    pub fn build(snap: &Snapshot, tl: &Timeline, threshold_s: Option<f64>) -> Option<TimeAxis> {
        let trace = snap.traces.get(tl.device as usize)?;
        let time =
            |e: u32| if e == NO_EVENT { NO_TIME } else { trace.time_us.get(e as usize).copied().unwrap_or(NO_TIME) };
        let first = first_time(snap, tl)?;
        // Steps without a time take the one before (or the first); time never
        // runs backwards on the axis (events of other threads may).
        let n = tl.events.len();
        let mut t_us = Vec::with_capacity(n + 1);
        let mut last = first;
        for &e in &tl.events {
            let t = time(e);
            if t != NO_TIME && t > last {
                last = t;
            }
            t_us.push(last);
        }
        // Each step's length is read off `t_us` where it is needed, never
        // kept: a 16M-step timeline would hold 128 MB per copy.
        // Saturating: a hostile file's times may span all of i64.
        let mut positive: Vec<i64> = t_us.windows(2).map(|w| w[1].saturating_sub(w[0])).filter(|&d| d > 0).collect();
        let median = median_of(&mut positive).unwrap_or(1);
        drop(positive);
        // The last step lasts a typical step.
        t_us.push(last.saturating_add(median));
        let lengths = || t_us[..n].windows(2).map(|w| w[1].saturating_sub(w[0])).chain(std::iter::once(median));
        // The median of `lengths` is `median` too (it is one of them).
        let threshold_s =
            threshold_s.unwrap_or_else(|| threshold_of(lengths().map(|d| d.max(0) as f64).sum(), median as f64));
        let threshold_us = threshold_s * 1e6;
        let kept: f64 = lengths().filter(|&d| (d as f64) <= threshold_us).map(|d| d as f64).sum();
        // A compressed gap is 1% of the rest of the run wide, at least one
        // typical step, at most the threshold.
        let shown_us = (kept * 0.01).max(median as f64).min(threshold_us);
        let mut x = Vec::with_capacity(n + 1);
        let mut gaps = Vec::new();
        let mut pos = 0.0;
        x.push(0.0);
        for (i, d) in lengths().enumerate() {
            let d = d as f64;
            if d > threshold_us {
                gaps.push(Gap { step: i as u32 + 1, x: pos / 1e6, shown_s: shown_us / 1e6, real_s: d / 1e6 });
                pos += shown_us;
            } else {
                pos += d;
            }
            x.push(pos / 1e6);
        }
        Some(TimeAxis { t0_us: first, x, t_us, threshold_s, gaps })
    }

    pub fn n_steps(&self) -> u32 {
        (self.x.len() - 1) as u32
    }

    /// The display span (seconds, compressed).
    pub fn span(&self) -> f64 {
        *self.x.last().unwrap_or(&0.0)
    }

    /// Display position of step `s`'s start (fractional steps interpolate).
    pub fn x_of_step(&self, s: f64) -> f64 {
        let n = self.n_steps() as f64;
        let s = s.clamp(0.0, n);
        let i = (s.floor() as usize).min(self.x.len() - 2);
        let f = s - i as f64;
        self.x[i] + f * (self.x[i + 1] - self.x[i])
    }

    /// Fractional step at display position `x` (the inverse of [`x_of_step`](Self::x_of_step)).
    pub fn step_of_x(&self, x: f64) -> f64 {
        let n = self.n_steps() as usize;
        if x <= 0.0 {
            return 0.0;
        }
        let i = self.x.partition_point(|&v| v <= x).saturating_sub(1).min(n - 1);
        let w = self.x[i + 1] - self.x[i];
        let f = if w > 0.0 { ((x - self.x[i]) / w).clamp(0.0, 1.0) } else { 0.0 };
        (i as f64 + f).min(n as f64)
    }

    /// Display position of a real time (us): within a step linear, inside a
    /// compressed gap proportional; before the first event 0, after the
    /// last the end.
    pub fn x_of_time(&self, t_us: i64) -> f64 {
        let i = self.t_us.partition_point(|&t| t <= t_us);
        if i == 0 {
            return 0.0;
        }
        if i >= self.t_us.len() {
            return self.span();
        }
        let (a, b) = (self.t_us[i - 1], self.t_us[i]);
        let f = if b > a { (t_us as f64 - a as f64) / (b as f64 - a as f64) } else { 0.0 };
        self.x[i - 1] + f * (self.x[i] - self.x[i - 1])
    }

    /// Real seconds from the first event at display position `x`.
    pub fn seconds_at(&self, x: f64) -> f64 {
        let s = self.step_of_x(x);
        let i = (s.floor() as usize).min(self.t_us.len() - 2);
        let f = s - i as f64;
        let t = self.t_us[i] as f64 + f * (self.t_us[i + 1] as f64 - self.t_us[i] as f64);
        (t - self.t0_us as f64) / 1e6
    }
}

fn median_positive(d: &[i64]) -> Option<i64> {
    median_of(&mut d.iter().copied().filter(|&v| v > 0).collect::<Vec<_>>())
}

/// The median (the upper one of an even count) of `p`, reordered; None when empty.
fn median_of(p: &mut [i64]) -> Option<i64> {
    if p.is_empty() {
        return None;
    }
    let mid = p.len() / 2;
    Some(*p.select_nth_unstable(mid).1)
}

/// The default gap threshold: a gap is idle when it is longer than 5% of
/// the whole run and than 100 typical steps (so a busy run with no pause
/// keeps every gap as it is), and at least 1 ms.
pub fn default_threshold(deltas_us: &[i64]) -> f64 {
    let total: f64 = deltas_us.iter().map(|&d| d.max(0) as f64).sum();
    threshold_of(total, median_positive(deltas_us).unwrap_or(1) as f64)
}

/// [`default_threshold`] from the run's total length and its median positive step (us).
fn threshold_of(total_us: f64, median_us: f64) -> f64 {
    (total_us * 0.05).max(median_us * 100.0).max(1000.0) / 1e6
}

/// One record_function range from `external_annotations`.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    pub name: String,
    pub start_us: i64,
    /// The END's time; a START without END ends at the last event.
    pub end_us: i64,
    /// No END in the file.
    pub open: bool,
    /// How many other ranges were open when it started.
    pub depth: u32,
    /// Made by torch.compile for itself (dynamo / inductor / AOT autograd):
    /// hidden unless asked for.
    pub internal: bool,
}

/// Whether a record_function name is torch.compile's own bookkeeping.
pub fn is_internal(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["dynamo", "inductor", "compiledfunction", "compiled region", "compiledfxgraph", "aotdispatch", "aot_", "triton"]
        .iter()
        .any(|k| n.contains(k))
}

fn field<'a>(m: &'a [(Plain, Plain)], k: &str) -> Option<&'a Plain> {
    m.iter().find(|(key, _)| matches!(key, Plain::Str(s) if s == k)).map(|(_, v)| v)
}

fn plain_int(p: Option<&Plain>) -> Option<i64> {
    match p? {
        Plain::Int(i) => i64::try_from(*i).ok(),
        Plain::Float(f) if f.fract() == 0.0 => Some(*f as i64),
        _ => None,
    }
}

/// The record_function ranges of `device` (entries without a device count
/// for every device), ordered by start. A START is closed by the next END
/// of the same name (innermost first); an END without START is dropped.
pub fn phases(snap: &Snapshot, device: u32) -> Vec<Phase> {
    let Some(Plain::List(list)) = &snap.external_annotations else { return Vec::new() };
    let mut entries: Vec<(i64, bool, String)> = Vec::new();
    for e in list {
        let Plain::Map(m) = e else { continue };
        if let Some(d) = plain_int(field(m, "device")) {
            if d != device as i64 {
                continue;
            }
        }
        let (Some(Plain::Str(name)), Some(Plain::Str(stage)), Some(t)) =
            (field(m, "name"), field(m, "stage"), plain_int(field(m, "time_us")))
        else {
            continue;
        };
        match stage.as_str() {
            "START" => entries.push((t, true, name.clone())),
            "END" => entries.push((t, false, name.clone())),
            _ => {}
        }
    }
    // Stable: a START and an END at the same time keep the file's order.
    entries.sort_by_key(|e| e.0);
    let mut open: Vec<Phase> = Vec::new();
    let mut out = Vec::new();
    for (t, start, name) in entries {
        if start {
            let depth = open.len() as u32;
            let internal = is_internal(&name);
            open.push(Phase { name, start_us: t, end_us: t, open: true, depth, internal });
        } else if let Some(i) = open.iter().rposition(|p| p.name == name) {
            let mut p = open.remove(i);
            p.end_us = t;
            p.open = false;
            out.push(p);
        }
    }
    if !open.is_empty() {
        // Only for phases left open: a pass over the trace's times (28 ms
        // on the 950 MB file's 8M events in the page, with no phase at all).
        let trace_end = snap
            .traces
            .get(device as usize)
            .and_then(|t| t.time_us.iter().copied().filter(|&v| v != NO_TIME).max())
            .unwrap_or(i64::MIN);
        for mut p in open {
            p.end_us = trace_end.max(p.start_us);
            out.push(p);
        }
    }
    out.sort_by_key(|p| (p.start_us, p.depth));
    out
}

/// Phases a view shows: internal ones only when `show_internal`, and only
/// names containing `filter` (case-insensitive; empty: all).
pub fn filter_phases<'a>(phases: &'a [Phase], show_internal: bool, filter: &str) -> Vec<&'a Phase> {
    let f = filter.to_ascii_lowercase();
    phases
        .iter()
        .filter(|p| (show_internal || !p.internal) && (f.is_empty() || p.name.to_ascii_lowercase().contains(&f)))
        .collect()
}

/// Steps `[first, end)` of `tl` whose events happened within the phase
/// (by `time_us`); None when the file has no times or none falls inside.
pub fn step_range(axis: &TimeAxis, p: &Phase) -> Option<(u32, u32)> {
    let n = axis.n_steps() as usize;
    let starts = &axis.t_us[..n];
    let a = starts.partition_point(|&t| t < p.start_us);
    let b = starts.partition_point(|&t| t <= p.end_us);
    (b > a).then_some((a as u32, b as u32))
}

/// Where a phase is drawn on the step axis: its [`step_range`], or, when no
/// alloc / free happened inside it (an optimizer step that works in place),
/// the step its start falls before, `(a, a)` (0 before the trace, n_steps
/// after it): by its time, never at an edge it is not at.
pub fn placed_steps(axis: &TimeAxis, p: &Phase) -> (u32, u32) {
    step_range(axis, p).unwrap_or_else(|| {
        let n = axis.n_steps() as usize;
        let a = axis.t_us[..n].partition_point(|&t| t < p.start_us) as u32;
        (a, a)
    })
}

/// Steps of `annotate` events on the timeline's device: the first step at
/// or after each (an annotate makes no action of its own), with its event.
pub fn markers(snap: &Snapshot, tl: &Timeline) -> Vec<(u32, u32)> {
    snap.annotations
        .iter()
        .filter(|a| a.device == tl.device)
        .map(|a| (tl.events.partition_point(|&e| e < a.event) as u32, a.event))
        .collect()
}

/// What the page draws over a timeline, as JSON: `{has_time, phases: [{name,
/// internal, open, depth, start_s, end_s, step0, step1}], markers: [{step,
/// event}]}` (the time axis' gaps are in the viewer's `x_axis_json`). A phase with no step inside
/// gets `step0 == step1` at the step its time falls at ([`placed_steps`]).
pub fn to_json(snap: &Snapshot, tl: &Timeline) -> serde_json::Value {
    use serde_json::json;
    let found = phases(snap, tl.device);
    // The axis places the phases at steps; without phases it is not built
    // (a 16M-step timeline's takes ~180 ms in wasm).
    let axis = if found.is_empty() { None } else { TimeAxis::build(snap, tl, None) };
    let list: Vec<serde_json::Value> = match &axis {
        None => vec![],
        Some(a) => found
            .iter()
            .map(|p| {
                let (s0, s1) = placed_steps(a, p);
                json!({
                    "name": p.name, "internal": p.internal, "open": p.open, "depth": p.depth,
                    "start_s": (p.start_us as f64 - a.t0_us as f64) / 1e6,
                    "end_s": (p.end_us as f64 - a.t0_us as f64) / 1e6,
                    "step0": s0, "step1": s1,
                })
            })
            .collect(),
    };
    json!({
        "has_time": first_time(snap, tl).is_some(),
        "markers": markers(snap, tl).iter().map(|(s, e)| json!({"step": s, "event": e})).collect::<Vec<_>>(),
        "phases": list,
    })
}

/// Seconds from the first event at (fractional) step `s`; None without time_us.
pub fn seconds_at_step(snap: &Snapshot, tl: &Timeline, s: f64) -> Option<f64> {
    // On the step axis no gap is compressed: real time throughout.
    TimeAxis::build(snap, tl, Some(f64::INFINITY)).map(|a| a.seconds_at(a.x_of_step(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_names() {
        for n in [
            "Torch-Compiled Region: 0/0",
            "TorchDynamo Cache Lookup",
            "CompiledFunction",
            "## Call CompiledFxGraph f ##",
        ] {
            assert!(is_internal(n), "{n}");
        }
        for n in ["Optimizer.step#AdamW.step", "ProfilerStep#2", "## forward ##", "backward"] {
            assert!(!is_internal(n), "{n}");
        }
    }

    #[test]
    fn default_threshold_keeps_a_busy_run_and_flags_a_pause() {
        // 1000 steps of 10 us: nothing is idle.
        let busy = vec![10i64; 1000];
        let th = default_threshold(&busy);
        assert!(busy.iter().all(|&d| (d as f64) <= th * 1e6));
        // One 5 s pause among them: it is.
        let mut paused = busy.clone();
        paused[500] = 5_000_000;
        assert!(5.0 > default_threshold(&paused));
    }
}
