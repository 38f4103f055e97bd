//! Findings: the handful of things a user should know about a trace, each
//! with its numbers, its evidence and where it happens, most important
//! first. One place for the CLI (`memviz findings`) and the page.
//!
//! | kind | when |
//! |---|---|
//! | `oom` | every `oom` event: its cause classes (`too_large`, `fragmentation`, `live_tensors`, `caching`: [`super::oom::advise`]; `capped` below) |
//! | `capped` | an OOM whose `device_free` exceeds the request: the process was held below the device (a per-process memory fraction, or other processes) |
//! | `growth` | one per user frame (function and callers) whose stacks' live bytes grow over the trace's repetitions ([`Analysis::repetitions`], [`Analysis::growth`]): the bytes a repetition adds, the OOM it runs into, the likely causes |
//! | `gradients_kept` | gradients a backward made alive at the end of the next forward pass (no `zero_grad`, `set_to_none=False`, or accumulation) |
//! | `caching` | at the peak, reserved exceeds the live bytes by a fifth or more (the peak's `caching` advice) |
//! | `peak` | always, for a trace with allocations: the peak, when, and by kind |
//! | `optimizer_state` | the optimizer state the first optimizer run added, against the parameters |
//!
//! Titles are made in one place ([`title`]) from the finding's detail.

use serde::Serialize;
use serde_json::{json, Value};

use super::category::{stack_phase, Kind, Phase};
use super::leaks::Growth;
use super::oom::AdviceKind;
use super::{Analysis, Moment};
use crate::format::format_size;
use crate::model::Snapshot;
use crate::state::StateHistory;

/// Growth sites reported (the largest growth first).
const TOP_GROWTH: usize = 3;
/// What makes a loop keep its tensors, in words: the finding names them
/// without claiming which.
const GROWTH_CAUSES: [&str; 3] = [
    "tensors held by Python reference cycles (torch.utils.viz._cycles.observe_tensor_cycles confirms it)",
    "tensors kept in a list or dict across iterations",
    "a loss accumulated with its graph (total += loss instead of loss.item())",
];
/// OOMs reported one a finding (a trace that retries may have thousands).
const TOP_OOMS: u32 = 20;
/// Forward passes after a backward looked at for `gradients_kept` (the
/// first ones, and the one before the peak): each is a walk of the live set.
const FORWARDS_LOOKED_AT: usize = 16;

/// What a finding is about (names scripts match on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    Oom,
    Capped,
    Growth,
    GradientsKept,
    Caching,
    Peak,
    OptimizerState,
}

impl FindingKind {
    /// The name scripts match on (as serialized).
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Oom => "oom",
            FindingKind::Capped => "capped",
            FindingKind::Growth => "growth",
            FindingKind::GradientsKept => "gradients_kept",
            FindingKind::Caching => "caching",
            FindingKind::Peak => "peak",
            FindingKind::OptimizerState => "optimizer_state",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// One line (see [`title`]).
    pub title: String,
    /// The bytes it is about (the request, the rate, the peak...).
    pub bytes: Option<u64>,
    /// The trace event to look at.
    pub event: Option<u32>,
    /// The numbers behind it (per kind; see the module doc).
    pub detail: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Findings {
    pub device: u32,
    pub findings: Vec<Finding>,
}

fn size(b: u64) -> String {
    format_size(b, false)
}

fn num(d: &Value, k: &str) -> u64 {
    d[k].as_u64().unwrap_or(0)
}

fn at_event(event: Option<u32>) -> String {
    event.map_or("before the first event".to_string(), |e| format!("at event {e}"))
}

/// The one line of a finding, from its kind, bytes, event and detail.
pub fn title(kind: FindingKind, bytes: Option<u64>, event: Option<u32>, d: &Value) -> String {
    let b = size(bytes.unwrap_or(0));
    match kind {
        FindingKind::Oom => {
            let causes: Vec<&str> = d["causes"].as_array().into_iter().flatten().filter_map(|c| c.as_str()).collect();
            let why = if causes.is_empty() { "no cause the numbers show".to_string() } else { causes.join(", ") };
            format!(
                "OOM {}: {b} requested with {} reserved, {} allocated: {why}",
                at_event(event),
                size(num(d, "reserved_bytes")),
                size(num(d, "allocated_bytes"))
            )
        }
        FindingKind::Capped => format!(
            "Capped {}: the device had {} free but refused {b}; this process held {} reserved, so its limit is below {} (set_per_process_memory_fraction, or other processes)",
            at_event(event),
            size(num(d, "device_free_bytes")),
            size(num(d, "reserved_bytes")),
            size(num(d, "limit_below_bytes"))
        ),
        FindingKind::Growth => {
            let until = match d["oom_event"].as_u64() {
                Some(e) => format!(", until the OOM at event {e}"),
                None => String::new(),
            };
            let stacks = d["stacks"].as_array().map_or(0, |s| s.len());
            let stacks = if stacks > 1 { format!(", {stacks} stacks") } else { String::new() };
            format!(
                "Grows {b} per {} at {}{until} ({} repetitions, +{} in all{stacks}); could be tensors held by reference \
                 cycles (torch.utils.viz._cycles.observe_tensor_cycles confirms it), kept in a list, or a loss \
                 accumulated with its graph",
                d["repetition"].as_str().unwrap_or("repetition"),
                d["user_frame"].as_str().unwrap_or("?"),
                num(d, "repetitions"),
                size(num(d, "growth_bytes"))
            )
        }
        FindingKind::GradientsKept => format!(
            "Gradients kept into the next forward: {b} of an earlier backward alive at the peak ({} at most after a forward): no zero_grad, zero_grad(set_to_none=False), or gradient accumulation",
            size(num(d, "max_kept_bytes"))
        ),
        FindingKind::Caching => format!(
            "Caching: reserved {} at the peak is {} above the live {b}",
            size(num(d, "reserved_bytes")),
            size(num(d, "gap_bytes"))
        ),
        FindingKind::Peak => {
            let kinds: Vec<String> = d["by_kind"]
                .as_array()
                .into_iter()
                .flatten()
                .take(3)
                .map(|k| format!("{} {:.0}%", k["kind"].as_str().unwrap_or("?"), k["share"].as_f64().unwrap_or(0.0) * 100.0))
                .collect();
            let mut when = at_event(event);
            if let Some(i) = d["iteration"].as_u64() {
                when.push_str(&format!(", {} {i}", d["repetition"].as_str().unwrap_or("repetition")));
            }
            if let Some(p) = d["phase"].as_str() {
                when.push_str(&format!(", {p}"));
            }
            format!("Peak {b} {when}: {}", kinds.join(", "))
        }
        FindingKind::OptimizerState => format!(
            "Optimizer state: +{b} at the first optimizer step, {:.2}x the {} of {} (Adam/AdamW keep about 2x, SGD with momentum 1x)",
            d["ratio"].as_f64().unwrap_or(0.0),
            size(num(d, "against_bytes")),
            d["against"].as_str().unwrap_or("parameters")
        ),
    }
}

fn finding(kind: FindingKind, bytes: Option<u64>, event: Option<u32>, detail: Value) -> Finding {
    Finding { kind, title: title(kind, bytes, event, &detail), bytes, event, detail }
}

fn phase_name(p: Phase) -> Option<&'static str> {
    match p {
        Phase::None => None,
        Phase::Setup => Some("setup"),
        Phase::Forward => Some("forward"),
        Phase::Backward => Some("backward"),
        Phase::Optimizer => Some("optimizer"),
    }
}

impl Analysis {
    /// The findings of this device (see the module doc), most important
    /// first.
    pub fn findings(&self, snap: &Snapshot, h: &StateHistory) -> Findings {
        let mut out = Vec::new();
        let mut cursor = h.cursor();
        let trace = snap.trace(self.device);
        for k in 0..(self.oom_events.len() as u32).min(TOP_OOMS) {
            let Ok(x) = self.explain(snap, h, &mut cursor, Moment::Oom(k)) else { continue };
            let Some(r) = x.request else { continue };
            let mut causes: Vec<&str> = x
                .advice
                .iter()
                .map(|a| match a.kind {
                    AdviceKind::TooLarge => "too_large",
                    AdviceKind::Fragmentation => "fragmentation",
                    AdviceKind::LiveTensors => "live_tensors",
                    AdviceKind::Caching => "caching",
                })
                .collect();
            let capped = r.device_free_bytes.is_some_and(|f| f > r.bytes);
            if capped {
                causes.push("capped");
            }
            let t = &x.totals;
            let by_kind: Vec<Value> =
                x.by_category.iter().map(|g| json!({"kind": g.key, "bytes": g.bytes, "count": g.count})).collect();
            out.push(finding(
                FindingKind::Oom,
                Some(r.bytes),
                x.at.event,
                json!({
                    "oom": k,
                    "stream": r.stream,
                    "device_free_bytes": r.device_free_bytes,
                    "reserved_bytes": t.reserved_bytes,
                    "allocated_bytes": t.allocated_bytes,
                    "usable_free_bytes": x.usable.map(|u| u.bytes),
                    "usable_pieces": x.usable.map(|u| u.pieces),
                    "largest_usable_bytes": x.usable.map(|u| u.largest),
                    "causes": causes,
                    "by_kind": by_kind,
                    "advice": x.advice.iter().map(|a| a.text.clone()).collect::<Vec<_>>(),
                }),
            ));
            if let (true, Some(free)) = (capped, r.device_free_bytes) {
                out.push(finding(
                    FindingKind::Capped,
                    Some(r.bytes),
                    x.at.event,
                    json!({
                        "oom": k,
                        "device_free_bytes": free,
                        "reserved_bytes": t.reserved_bytes,
                        // The request did not fit under the limit.
                        "limit_below_bytes": t.reserved_bytes.saturating_add(r.bytes),
                    }),
                ));
            }
        }
        let (samples, from) = self.repetitions(snap);
        // The allocation pattern repeating is a loop's iteration too.
        let repetition = if from == "annotations" { "repetition" } else { "iteration" };
        for site in self.growth_sites(&samples).into_iter().take(TOP_GROWTH) {
            let g = &site[0];
            let first_pos = samples[site.iter().map(|g| g.first_sample).min().unwrap_or(0)];
            let oom_event =
                self.oom_events.iter().copied().find(|&i| self.at_event(i).is_ok_and(|a| a.position >= first_pos));
            let rate: u64 = site.iter().map(|g| g.rate_bytes).sum();
            let stacks: Vec<Value> = site
                .iter()
                .map(|g| {
                    json!({
                        "stack": g.key,
                        "user_frame": self.growth_user_frame(g.id).map_or(super::NO_FRAMES, |u| self.frames.label(u)),
                        "rate_bytes": g.rate_bytes,
                        "growth_bytes": g.growth_bytes,
                        "first_sample": g.first_sample,
                        "live_bytes": g.live_bytes,
                    })
                })
                .collect();
            out.push(finding(
                FindingKind::Growth,
                Some(rate),
                oom_event.or_else(|| self.resolve(Moment::End).ok().and_then(|a| a.event)),
                json!({
                    "user_frame": stacks[0]["user_frame"],
                    "stack": g.key,
                    "stacks": stacks,
                    "rate_bytes": rate,
                    "growth_bytes": site.iter().map(|g| g.growth_bytes).sum::<u64>(),
                    "repetitions": site.iter().map(|g| g.live_bytes.len()).max().unwrap_or(0),
                    "repetition": repetition,
                    "repetitions_from": from,
                    "oom_event": oom_event,
                    "causes": GROWTH_CAUSES,
                }),
            ));
        }
        out.extend(self.gradients_kept());
        if let Ok(peak) = self.explain(snap, h, &mut cursor, Moment::Peak) {
            let t = &peak.totals;
            if peak.advice.iter().any(|a| a.kind == AdviceKind::Caching) {
                out.push(finding(
                    FindingKind::Caching,
                    Some(t.allocated_bytes),
                    peak.at.event,
                    json!({
                        "reserved_bytes": t.reserved_bytes,
                        "allocated_bytes": t.allocated_bytes,
                        "gap_bytes": t.gap_bytes,
                        "free_bytes": t.free_bytes,
                        "free_pieces": t.free_pieces,
                        "largest_free_bytes": t.largest_free_bytes,
                    }),
                ));
            }
            if self.peak_bytes > 0 {
                let total = self.peak_bytes.max(1) as f64;
                let by_kind: Vec<Value> = peak
                    .by_category
                    .iter()
                    .map(
                        |g| json!({"kind": g.key, "bytes": g.bytes, "count": g.count, "share": g.bytes as f64 / total}),
                    )
                    .collect();
                let phase = peak.at.event.map_or(Phase::None, |i| {
                    stack_phase(snap, trace.stack.get(i as usize).copied().unwrap_or(u32::MAX))
                });
                let starts = samples.len().saturating_sub(1);
                let iteration = (starts > 0).then(|| 1 + samples[..starts].partition_point(|&s| s < peak.at.position));
                out.push(finding(
                    FindingKind::Peak,
                    Some(self.peak_bytes),
                    peak.at.event,
                    json!({
                        "position": peak.at.position,
                        "step": peak.at.step,
                        "time_us": peak.time_us,
                        "phase": phase_name(phase),
                        "iteration": iteration,
                        "repetition": repetition,
                        "reserved_bytes": t.reserved_bytes,
                        "by_kind": by_kind,
                    }),
                ));
            }
        }
        out.extend(self.optimizer_step_up());
        Findings { device: self.device, findings: out }
    }

    /// Bytes of `kind` alive at position `p`, of elements born at or
    /// before `born_by`.
    fn kind_bytes(&self, p: u32, kind: Kind, born_by: u32) -> u64 {
        let live = self.live(p);
        live.iter()
            .filter(|&&e| self.el.kind[e as usize] == kind && self.el.born[e as usize] <= born_by)
            .map(|&e| self.el.size[e as usize])
            .sum()
    }

    /// Position right after trace event `i`.
    fn after_event(&self, i: u32) -> u32 {
        self.action_event.partition_point(|&e| e <= i) as u32
    }

    /// The innermost user frame of growing stack-tree node `leaf` (as its
    /// elements'); None when it has none.
    fn growth_user_frame(&self, leaf: u32) -> Option<u32> {
        let e = (0..self.el.leaf.len()).find(|&e| self.el.leaf[e] == leaf)?;
        Some(self.el.user[e]).filter(|&u| u != super::live::NONE)
    }

    /// The growing stacks ([`Analysis::growth`]) by the user's frame they
    /// grow in: the innermost user frame's function with its callers (a
    /// Python frame is a function's, whatever line it is at), so a loop
    /// body leaking two tensors on two lines is one site. Largest growth
    /// first, and its stacks so too.
    fn growth_sites(&self, samples: &[u32]) -> Vec<Vec<Growth>> {
        let mut sites: Vec<((u32, String), Vec<Growth>)> = Vec::new();
        for g in self.growth(samples) {
            let key = match self.growth_user_frame(g.id) {
                Some(u) => {
                    // The tree node of that frame on this stack: its parent
                    // is the callers' path.
                    let mut n = g.id;
                    while n != 0 && self.tree.frame[n as usize] != u {
                        n = self.tree.parent[n as usize];
                    }
                    let (file, name) = super::live::label_parts(self.frames.label(u));
                    (if n == 0 { u32::MAX } else { self.tree.parent[n as usize] }, format!("{file}:{name}"))
                }
                None => (u32::MAX, String::new()),
            };
            match sites.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(g),
                None => sites.push((key, vec![g])),
            }
        }
        // Within a site: most growth first, then by line (the loop body's order).
        let line = |g: &Growth| {
            let label = self.growth_user_frame(g.id).map_or("", |u| self.frames.label(u));
            let file = super::live::label_parts(label).0;
            label[(file.len() + 1).min(label.len())..].split(':').next().and_then(|l| l.parse::<u64>().ok())
        };
        for (_, v) in &mut sites {
            v.sort_by_cached_key(|g| (std::cmp::Reverse(g.growth_bytes), line(g)));
        }
        let total = |v: &[Growth]| v.iter().map(|g| g.growth_bytes).sum::<u64>();
        sites.sort_by_key(|s| std::cmp::Reverse(total(&s.1)));
        sites.into_iter().map(|(_, v)| v).collect()
    }

    /// `gradients_kept`: gradients alive at the end of a forward run that
    /// follows a backward or optimizer run, allocated before that forward.
    fn gradients_kept(&self) -> Option<Finding> {
        let peak = self.resolve(Moment::Peak).ok()?;
        let mut at_forward: Vec<(u32, u32)> = Vec::new(); // (forward end, position before it)
        for w in self.phase_runs.windows(2) {
            let ((last, prev), (end, p)) = (w[0], w[1]);
            if p == Phase::Forward && matches!(prev, Phase::Backward | Phase::Optimizer) {
                at_forward.push((self.after_event(end), self.after_event(last)));
            }
        }
        let before_peak = at_forward.iter().rposition(|&(_, b)| b <= peak.position);
        let looked: Vec<(u32, u32)> = at_forward
            .iter()
            .enumerate()
            .filter(|&(i, _)| i < FORWARDS_LOOKED_AT || Some(i) == before_peak)
            .map(|(_, &w)| w)
            .collect();
        let kept: Vec<u64> = looked.iter().map(|&(a, b)| self.kind_bytes(a, Kind::Gradient, b)).collect();
        let max_kept = kept.iter().copied().max().unwrap_or(0);
        if max_kept == 0 {
            return None;
        }
        // At the peak: gradients born before the start of the forward run
        // that the peak follows.
        let before = at_forward.iter().rev().find(|&&(_, b)| b <= peak.position).map_or(0, |&(_, b)| b);
        let at_peak = if before > 0 { self.kind_bytes(peak.position, Kind::Gradient, before) } else { 0 };
        let event = at_forward
            .iter()
            .find(|&&(a, b)| self.kind_bytes(a, Kind::Gradient, b) > 0)
            .and_then(|&(a, _)| a.checked_sub(1).and_then(|k| self.action_event.get(k as usize).copied()));
        Some(finding(
            FindingKind::GradientsKept,
            Some(at_peak),
            event,
            json!({"at_peak_bytes": at_peak, "max_kept_bytes": max_kept, "forwards_after_backward": at_forward.len()}),
        ))
    }

    /// `optimizer_state`: what the first optimizer run added, against the
    /// gradients alive before it (the trainable parameters' size), else the
    /// parameters.
    fn optimizer_step_up(&self) -> Option<Finding> {
        let j = self.phase_runs.iter().position(|&(_, p)| p == Phase::Optimizer)?;
        let start = if j == 0 { 0 } else { self.after_event(self.phase_runs[j - 1].0) };
        let (last, _) = self.phase_runs[j];
        let end = self.after_event(last);
        let n = self.last_position();
        let state = |p: u32| self.kind_bytes(p, Kind::OptimizerState, n);
        let step_up = state(end).saturating_sub(state(start));
        if step_up == 0 {
            return None;
        }
        // Before the step: zero_grad(set_to_none=True) in the same run
        // frees the gradients.
        let grads = self.kind_bytes(start, Kind::Gradient, n);
        let params = self.kind_bytes(start, Kind::Parameter, n);
        let (against, against_bytes) = if grads > 0 { ("gradients", grads) } else { ("parameters", params) };
        let event = end.checked_sub(1).and_then(|k| self.action_event.get(k as usize).copied());
        Some(finding(
            FindingKind::OptimizerState,
            Some(step_up),
            event,
            json!({
                "gradient_bytes": grads,
                "parameter_bytes": params,
                "against": against,
                "against_bytes": against_bytes,
                "ratio": step_up as f64 / against_bytes.max(1) as f64,
            }),
        ))
    }
}

impl Findings {
    /// One line a finding, for a terminal.
    pub fn to_text(&self) -> String {
        let mut s = format!("device {}\n", self.device);
        if self.findings.is_empty() {
            s.push_str("  nothing to report\n");
        }
        for f in &self.findings {
            s.push_str(&format!("  {:<16} {}\n", f.kind.name(), f.title));
        }
        s
    }
}
