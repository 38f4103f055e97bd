//! Leaks and growth: what the trace allocated and never freed, the stacks
//! whose live bytes grow with every iteration, and frees that stayed
//! pending.
//!
//! **Iterations.** A new iteration starts where a forward run follows a
//! backward or optimizer run (see `category` for runs), right after the last
//! event of that backward or optimizer run.
//!
//! **Repetitions** ([`Analysis::repetitions`], what the leak report and the
//! findings sample the live bytes at, with the end of the trace): the
//! iterations above, when there are two or more; else the starts of a `record_function` range that
//! repeats (`ProfilerStep#N`, `## step N ##`: digits read as one name; the
//! outermost such name); else the allocation pattern repeating: the stack
//! that allocates at fairly even intervals (the longest gap at most twice
//! the shortest) over the widest stretch of the trace, once an interval
//! (the loop's first allocation), among stacks outside any phase. Cutting a
//! trace into equal windows instead would call every stack that a single
//! forward pass calls again and again "growing".
//!
//! **Growth** ([`Analysis::growth`]). A stack grows when, from the first
//! sample where it has live bytes, over at least [`MIN_SAMPLES`] samples,
//! its live bytes rise at two thirds of the steps from one sample to the
//! next or more, at the last one, and end above where they began: it
//! allocated again in each repetition without freeing what it had allocated
//! before (memory growing every step until the OOM), and a leak that a
//! collection freed in part once still grows.

use std::collections::HashMap;

use serde::Serialize;

use super::category::{stack_phase, Phase};
use super::{Analysis, At, Group, GroupBy, Moment, Origin, PendingFree};
use crate::format::format_size;
use crate::model::Snapshot;
use crate::views::phases::phases;

/// Samples a growing stack must rise over.
pub const MIN_SAMPLES: usize = 3;
/// Entries listed per part of the report.
const TOP: usize = 20;

/// One stack whose live bytes grew at every sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Growth {
    /// Stack-tree node (as [`Group::id`] for `GroupBy::Stack`).
    pub id: u32,
    pub key: String,
    /// Index of the first sample where it had live bytes.
    pub first_sample: usize,
    /// Its live bytes at each sample from there on.
    pub live_bytes: Vec<u64>,
    /// Last minus first of `live_bytes`.
    pub growth_bytes: u64,
    /// The median of its rises from one sample to the next: the bytes a
    /// repetition adds.
    pub rate_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeakReport {
    pub device: u32,
    pub end: At,
    /// Allocated in the trace, alive at its end, by stack (largest first).
    pub alive_at_end: Vec<Group>,
    pub alive_at_end_bytes: u64,
    pub alive_at_end_count: u64,
    /// Alive from before the trace to its end (not this trace's leaks).
    pub before_trace_bytes: u64,
    pub before_trace_count: u64,
    /// Where the samples come from ([`Analysis::repetitions`]): `phases`,
    /// `annotations`, `pattern` or `none`.
    pub iterations_from: &'static str,
    /// Positions where the live bytes were sampled.
    pub samples: Vec<u32>,
    pub growing: Vec<Growth>,
    /// Frees that waited (longest first).
    pub pending_frees: Vec<PendingFree>,
    pub pending_free_count: usize,
}

impl Analysis {
    /// The sample positions and where they come from (see the module doc).
    pub fn iteration_samples(&self) -> (Vec<u32>, &'static str) {
        let n = self.last_position();
        let mut starts: Vec<u32> = Vec::new();
        for w in self.phase_runs.windows(2) {
            let ((last, prev), (_, p)) = (w[0], w[1]);
            if p == Phase::Forward && matches!(prev, Phase::Backward | Phase::Optimizer) {
                // The state right after the previous run's last event: what
                // comes between (data loading, a leak before the forward)
                // is the new iteration's.
                let pos = self.action_event.partition_point(|&e| e <= last) as u32;
                if starts.last() != Some(&pos) && pos > 0 && pos < n {
                    starts.push(pos);
                }
            }
        }
        if starts.len() >= 2 {
            starts.push(n);
            return (starts, "phases");
        }
        (Vec::new(), "none")
    }

    /// [`Analysis::iteration_samples`], else repetitions of a
    /// `record_function` range or of the allocation pattern (see the module
    /// doc): the sample positions and `phases`, `annotations`, `pattern` or
    /// `none`.
    pub fn repetitions(&self, snap: &Snapshot) -> (Vec<u32>, &'static str) {
        let (samples, from) = self.iteration_samples();
        if !samples.is_empty() {
            return (samples, from);
        }
        let n = self.last_position();
        let finish = |mut starts: Vec<u32>| {
            starts.retain(|&p| p > 0 && p < n);
            starts.dedup();
            (starts.len() >= 2).then(|| {
                starts.push(n);
                starts
            })
        };
        if let Some(s) = finish(self.annotation_starts(snap)) {
            return (s, "annotations");
        }
        if let Some(s) = finish(self.pattern_starts(snap)) {
            return (s, "pattern");
        }
        (Vec::new(), "none")
    }

    /// Positions where the outermost repeating `record_function` range
    /// starts (its `time_us` against the actions' events').
    fn annotation_starts(&self, snap: &Snapshot) -> Vec<u32> {
        let trace = snap.trace(self.device);
        let mut by_name: HashMap<String, (u32, Vec<i64>)> = HashMap::new();
        for p in phases(snap, self.device).iter().filter(|p| !p.internal) {
            let name: String =
                p.name.split(|c: char| c.is_ascii_digit()).filter(|s| !s.is_empty()).collect::<Vec<_>>().join("#");
            let e = by_name.entry(name).or_insert((p.depth, Vec::new()));
            e.0 = e.0.min(p.depth);
            e.1.push(p.start_us);
        }
        let Some((_, (_, mut starts))) = by_name
            .into_iter()
            .filter(|(_, (_, s))| s.len() >= 2)
            .min_by_key(|(name, (depth, s))| (*depth, std::cmp::Reverse(s.len()), name.clone()))
        else {
            return Vec::new();
        };
        starts.sort_unstable();
        let times: Vec<i64> =
            self.action_event.iter().map(|&e| trace.time_us(e as usize).unwrap_or(i64::MIN)).collect();
        starts.iter().map(|&t| times.partition_point(|&a| a < t) as u32).collect()
    }

    /// Positions where the loop's allocation pattern starts again (see the
    /// module doc): right before each allocation of the chosen stack. Only
    /// stacks outside any phase count: a forward or backward pass repeats
    /// its layers, which are no iterations.
    fn pattern_starts(&self, snap: &Snapshot) -> Vec<u32> {
        let trace = snap.trace(self.device);
        let mut by_stack: HashMap<u32, bool> = HashMap::new();
        let mut outside_phases = |born: u32| {
            let event = born.checked_sub(1).and_then(|k| self.action_event.get(k as usize));
            event
                .and_then(|&i| trace.stack.get(i as usize))
                .is_some_and(|&s| *by_stack.entry(s).or_insert_with(|| stack_phase(snap, s) == Phase::None))
        };
        let mut allocs: Vec<(u32, u32)> = (0..self.el.size.len())
            .filter(|&e| self.el.origin[e] == Origin::Trace && outside_phases(self.el.born[e]))
            .map(|e| (self.el.born[e], self.el.leaf[e]))
            .collect();
        allocs.sort_unstable();
        let mut at: HashMap<u32, Vec<u32>> = HashMap::new();
        for (k, &(_, leaf)) in allocs.iter().enumerate() {
            at.entry(leaf).or_default().push(k as u32);
        }
        let even = |ks: &[u32]| {
            let gaps = ks.windows(2).map(|w| w[1] - w[0]);
            let (lo, hi) = gaps.fold((u32::MAX, 0), |(lo, hi), g| (lo.min(g), hi.max(g)));
            hi <= lo.saturating_mul(2)
        };
        let best = at.iter().filter(|(_, ks)| ks.len() >= MIN_SAMPLES && even(ks)).max_by_key(|(&leaf, ks)| {
            (ks[ks.len() - 1] - ks[0], std::cmp::Reverse(ks.len()), std::cmp::Reverse(ks[0]), leaf)
        });
        best.map_or_else(Vec::new, |(_, ks)| ks.iter().map(|&k| allocs[k as usize].0 - 1).collect())
    }

    /// Stacks whose live bytes grow over `samples` (see the module doc),
    /// most growth first.
    pub fn growth(&self, samples: &[u32]) -> Vec<Growth> {
        if samples.len() < MIN_SAMPLES {
            return Vec::new();
        }
        // A growing stack rose from the second-last sample to the last, so
        // it has an element alive at the last sample and born after the
        // second-last: only those stacks are looked at (on the 2M-event
        // file, with 158k samples, walking every element cost 48 ms).
        let (prev, last) = (samples[samples.len() - 2], samples[samples.len() - 1]);
        let mut candidate = vec![false; self.tree.len()];
        let mut any = false;
        for e in self.live(last) {
            if self.el.born[e as usize] > prev {
                candidate[self.el.leaf[e as usize] as usize] = true;
                any = true;
            }
        }
        if !any {
            return Vec::new();
        }
        // Each element adds its size to its stack at the samples it is alive
        // at: [first sample >= born, first sample >= dies).
        let mut deltas: Vec<(u32, u32, i128)> = Vec::new();
        for e in (0..self.el.size.len()).filter(|&e| candidate[self.el.leaf[e] as usize]) {
            let lo = samples.partition_point(|&s| s < self.el.born[e]) as u32;
            let hi = samples.partition_point(|&s| s < self.el.dies[e]) as u32;
            if lo < hi {
                let (leaf, size) = (self.el.leaf[e], self.el.size[e] as i128);
                deltas.push((leaf, lo, size));
                deltas.push((leaf, hi, -size));
            }
        }
        deltas.sort_unstable_by_key(|&(l, s, _)| (l, s));
        let m = samples.len();
        let mut out = Vec::new();
        let mut i = 0;
        while i < deltas.len() {
            let leaf = deltas[i].0;
            let mut values: Vec<(usize, i128)> = Vec::new(); // (sample, value from there)
            let mut v = 0i128;
            while i < deltas.len() && deltas[i].0 == leaf {
                let s = deltas[i].1;
                while i < deltas.len() && deltas[i].0 == leaf && deltas[i].1 == s {
                    v += deltas[i].2;
                    i += 1;
                }
                if (s as usize) < m {
                    values.push((s as usize, v));
                }
            }
            let Some(&(first, _)) = values.iter().find(|&&(_, v)| v > 0) else { continue };
            // Its live bytes at every sample from `first` to the last one.
            let mut live: Vec<u64> = Vec::with_capacity(m - first);
            let mut k = values.iter().position(|&(s, _)| s == first).unwrap_or(0);
            for s in first..m {
                while k + 1 < values.len() && values[k + 1].0 <= s {
                    k += 1;
                }
                live.push(values[k].1.max(0) as u64);
            }
            let rises: Vec<u64> = live.windows(2).filter(|w| w[1] > w[0]).map(|w| w[1] - w[0]).collect();
            let steps = live.len().saturating_sub(1);
            let grows = live.len() >= MIN_SAMPLES
                && rises.len() * 3 >= steps * 2
                && live[steps] > live[steps - 1]
                && live[steps] > live[0];
            if grows {
                let mut sorted = rises.clone();
                sorted.sort_unstable();
                out.push(Growth {
                    id: leaf,
                    key: self.stack_key(leaf),
                    first_sample: first,
                    growth_bytes: live[steps].saturating_sub(live[0]),
                    rate_bytes: sorted[sorted.len() / 2],
                    live_bytes: live,
                });
            }
        }
        out.sort_by(|a, b| b.growth_bytes.cmp(&a.growth_bytes).then(a.key.cmp(&b.key)));
        out
    }

    /// The leak report of this device.
    pub fn leaks(&self, snap: &Snapshot) -> LeakReport {
        let end = self.resolve(Moment::End).unwrap_or(At { position: 0, step: None, event: None });
        let live = self.live(end.position);
        let (mine, before): (Vec<u32>, Vec<u32>) =
            live.iter().partition(|&&e| self.el.origin[e as usize] == Origin::Trace);
        let mut alive_at_end = self.groups(&mine, GroupBy::Stack);
        alive_at_end.truncate(TOP);
        let (samples, iterations_from) = self.repetitions(snap);
        let mut growing = self.growth(&samples);
        growing.truncate(TOP);
        LeakReport {
            device: self.device,
            end,
            alive_at_end,
            alive_at_end_bytes: self.bytes_of(&mine),
            alive_at_end_count: mine.len() as u64,
            before_trace_bytes: self.bytes_of(&before),
            before_trace_count: before.len() as u64,
            iterations_from,
            samples,
            growing,
            pending_frees: self.pending.iter().take(TOP).cloned().collect(),
            pending_free_count: self.pending.len(),
        }
    }
}

impl LeakReport {
    /// Plain text for a terminal.
    pub fn to_text(&self, a: &Analysis) -> String {
        let size = |b: u64| format_size(b, false);
        let stack = |key: &str| indent(&super::live::short_stack(key, 3));
        let mut s = format!("device {}\n", self.device);
        s.push_str(&format!(
            "  alive at the end: {} in {} allocations made during the trace ({} more from before it)\n",
            size(self.alive_at_end_bytes),
            self.alive_at_end_count,
            size(self.before_trace_bytes)
        ));
        for g in self.alive_at_end.iter().take(10) {
            s.push_str(&format!("    {} in {} allocations\n{}", size(g.bytes), g.count, stack(&g.key)));
        }
        s.push_str(&format!("  growth: {}\n", self.growth_line()));
        for g in &self.growing {
            let series: Vec<String> = g.live_bytes.iter().map(|&b| size(b)).collect();
            s.push_str(&format!("    +{} ({})\n{}", size(g.growth_bytes), series.join(" → "), stack(&g.key)));
        }
        s.push_str(&format!(
            "  pending frees: {} frees waited between free_requested and free_completed\n",
            self.pending_free_count
        ));
        for p in &self.pending_frees {
            let wait = match p.time_us {
                Some(t) => format!("{t} us, {} events", p.events),
                None => format!("{} events", p.events),
            };
            let done =
                p.free_completed_event.map_or("never completed".to_string(), |c| format!("completed at event {c}"));
            s.push_str(&format!(
                "    {} on stream {}: requested at event {}, {done}, waited {wait}\n{}",
                size(p.size),
                p.stream,
                p.free_requested_event,
                stack(&a.stack_key(p.stack))
            ));
        }
        s
    }
}

impl LeakReport {
    /// The growth part's headline (the page shows it too).
    pub fn growth_line(&self) -> String {
        let from = match self.iterations_from {
            "phases" => "iteration starts: a forward pass after a backward or optimizer step",
            "annotations" => "starts of a repeating record_function range",
            "pattern" => "repetitions of the allocation pattern",
            _ => {
                return "no repetitions found (no forward pass after a backward or optimizer step, no repeating \
                        record_function range, no allocation pattern that repeats)"
                    .to_string()
            }
        };
        format!("{} samples ({from}); {} stacks grow", self.samples.len(), self.growing.len())
    }
}

/// Each line of `s` indented under an entry, newline-terminated.
fn indent(s: &str) -> String {
    s.lines().map(|l| format!("        {l}\n")).collect()
}
