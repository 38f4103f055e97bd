//! Time and phases (www/phases.js over memviz-wasm's phases.rs): the
//! current timeline's record_function phases (memviz_core::phases, from
//! `external_annotations`) with the steps they cover, its `annotate`
//! markers, and the wall-clock time of any step (time_us; idle gaps
//! listed). The page draws them over the plot at `Viewer::x_of_step` and
//! zooms to a phase with `set_window`.

use memviz_core::model::{Snapshot, NO_TIME};
use memviz_core::timeline::{Timeline, TimelineKind, NO_EVENT};

use crate::Viewer;

/// Steps between two kept prefix maxima.
const CHECK: usize = 1024;

/// The times of a timeline's steps as `TimeAxis` reads them (a step without
/// time takes the one before, time never runs backwards: a prefix maximum;
/// the last step lasts the median positive gap), kept as the prefix maximum
/// every [`CHECK`] steps: a few bytes per thousand steps instead of the
/// axis' sixteen per step.
pub(crate) struct StepTimes {
    key: (usize, u32, TimelineKind, u32),
    /// The first known time; None: the timeline has no time_us.
    first: Option<i64>,
    /// `check[k]`: the largest known time of steps `[0, k * CHECK)` (NO_TIME
    /// for none).
    check: Vec<i64>,
    /// The last step's length, found on first use: it takes a pass that
    /// keeps every positive gap (128 MB and ~90 ms in the page for 16M
    /// steps), and only a point on the last step needs it.
    median_us: std::sync::OnceLock<i64>,
}

fn raw_time(snap: &Snapshot, tl: &Timeline, s: usize) -> i64 {
    let e = tl.events[s];
    let t = snap.traces.get(tl.device as usize).map(|t| &t.time_us[..]).unwrap_or(&[]);
    if e == NO_EVENT {
        NO_TIME
    } else {
        t.get(e as usize).copied().unwrap_or(NO_TIME)
    }
}

/// The clamped time of each step of `tl`, in order: a step without time
/// takes the one before, and time never runs backwards (the prefix maximum;
/// NO_TIME, the smallest i64, until the first known time).
fn clamped_times<'a>(snap: &'a Snapshot, tl: &'a Timeline) -> impl Iterator<Item = i64> + 'a {
    (0..tl.events.len()).scan(NO_TIME, move |max, s| {
        *max = (*max).max(raw_time(snap, tl, s));
        Some(*max)
    })
}

impl StepTimes {
    fn new(key: (usize, u32, TimelineKind, u32), snap: &Snapshot, tl: &Timeline) -> StepTimes {
        let mut check = Vec::with_capacity(tl.events.len() / CHECK + 2);
        let (mut max, mut first) = (NO_TIME, None);
        for (s, c) in clamped_times(snap, tl).enumerate() {
            if s % CHECK == 0 {
                check.push(max);
            }
            max = c;
            // The first known time is where the clamped times start.
            if first.is_none() && c != NO_TIME {
                first = Some(c);
            }
        }
        check.push(max);
        StepTimes { key, first, check, median_us: Default::default() }
    }

    /// The median positive gap between the clamped times of two steps in a
    /// row (1 without any).
    fn median_us(&self, snap: &Snapshot, tl: &Timeline) -> i64 {
        *self.median_us.get_or_init(|| {
            let mut deltas = Vec::new();
            let mut prev = NO_TIME;
            for c in clamped_times(snap, tl) {
                let d = c.saturating_sub(prev);
                if prev != NO_TIME && d > 0 {
                    deltas.push(d);
                }
                prev = c;
            }
            if deltas.is_empty() {
                1
            } else {
                let mid = deltas.len() / 2;
                *deltas.select_nth_unstable(mid).1
            }
        })
    }

    /// The clamped time of step `s` (< n_steps).
    fn at(&self, snap: &Snapshot, tl: &Timeline, s: usize, first: i64) -> i64 {
        let k = s / CHECK;
        let mut m = self.check[k];
        for j in k * CHECK..=s {
            let t = raw_time(snap, tl, j);
            if t != NO_TIME {
                m = m.max(t);
            }
        }
        m.max(first)
    }

    fn seconds_at(&self, snap: &Snapshot, tl: &Timeline, s: f64) -> Option<f64> {
        let first = self.first?;
        let n = tl.events.len();
        let s = s.clamp(0.0, n as f64);
        let i = (s.floor() as usize).min(n - 1);
        let f = s - i as f64;
        let a = self.at(snap, tl, i, first);
        let b = if i + 1 < n { self.at(snap, tl, i + 1, first) } else { a.saturating_add(self.median_us(snap, tl)) };
        let t = a as f64 + f * (b as f64 - a as f64);
        Some((t - first as f64) / 1e6)
    }
}

impl Viewer {
    /// JSON: `{has_time, phases: [{name, internal, open, depth, start_s,
    /// end_s, step0, step1}], markers: [{step, event}]}` for the current file, device and view; `{}` without
    /// a timeline. Phases with no step inside get `step0 == step1` at the
    /// step their time falls at.
    pub fn phases_json(&self) -> String {
        let (Some(f), Some(tl)) = (self.cx.file(), self.cx.timeline()) else { return "{}".to_string() };
        memviz_core::phases::to_json(&f.snap, tl).to_string()
    }

    /// CSS x on the plot of `s` seconds from the first event, on the time
    /// axis: where that instant lies (inside a step or a compressed gap).
    /// NaN on the step axis (phases are placed at their steps there) or
    /// before a draw.
    pub fn x_of_seconds(&self, s: f64) -> f64 {
        let Some(a) = self.cx.time_axis() else { return f64::NAN };
        self.x_of_step(a.step_of_x(a.x_of_time(a.t0_us.saturating_add((s * 1e6).round() as i64))))
    }

    /// The x axis as last drawn, as JSON: `{axis: "step" | "time", reason,
    /// ticks: [{x, label}], gaps: [{x0, x1, label}]}` (CSS x on the plot
    /// canvas; ticks and gaps on the time axis only: the step axis' labels
    /// are plotters' own).
    pub fn x_axis_json(&self) -> String {
        let css = |r: crate::PlotRect, f: f64| (r.x as f64 + f * r.w as f64) / self.cx.dpr;
        let (ticks, gaps) = match (self.cx.rect, self.cx.time_axis()) {
            (Some(r), Some(_)) => {
                let t = self.cx.axes_spec(r, self.cx.y_max, None, "").time.unwrap_or_default();
                let ticks: Vec<_> =
                    t.ticks.iter().map(|(f, l)| serde_json::json!({"x": css(r, *f), "label": l})).collect();
                let gaps: Vec<_> = t
                    .gaps
                    .iter()
                    .map(|(a, b, l)| serde_json::json!({"x0": css(r, *a), "x1": css(r, *b), "label": l}))
                    .collect();
                (ticks, gaps)
            }
            _ => (vec![], vec![]),
        };
        let axis = self.cx.x_shown().as_str();
        serde_json::json!({"axis": axis, "reason": self.cx.x_reason(), "ticks": ticks, "gaps": gaps}).to_string()
    }

    /// Seconds from the first event at step `s` of the current timeline
    /// (None when the file has no time_us): what
    /// `memviz_core::phases::seconds_at_step` says, in O(CHECK) per call
    /// (the page asks at every pointer move) after one O(steps) pass.
    pub fn time_at_step(&mut self, s: f64) -> Option<f64> {
        if let Some(a) = self.cx.time_axis() {
            return Some(a.seconds_at(a.x_of_step(s)));
        }
        let key = (self.cx.current, self.cx.device, self.cx.kind, self.cx.n_steps());
        if self.step_times.as_ref().map(|t| t.key) != Some(key) {
            let (f, tl) = (self.cx.file()?, self.cx.timeline()?);
            self.step_times = Some(StepTimes::new(key, &f.snap, tl));
        }
        let (f, tl) = (self.cx.file()?, self.cx.timeline()?);
        self.step_times.as_ref()?.seconds_at(&f.snap, tl, s)
    }
}
