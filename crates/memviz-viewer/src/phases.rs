//! Time and phases (www/phases.js over memviz-wasm's phases.rs): the
//! current timeline's record_function phases (memviz_core::phases, from
//! `external_annotations`) with the steps they cover, its `annotate`
//! markers, and the wall-clock time of any step (time_us; idle gaps
//! listed). The page draws them over the plot at `Viewer::x_of_step` and
//! zooms to a phase with `set_window`.

use memviz_core::model::{Snapshot, NO_TIME};
use memviz_core::timeline::{Timeline, TimelineKind, NO_EVENT};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{Viewer, XMode};

/// The x axis the page asks for.
#[derive(Deserialize, TS, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AxisName {
    Step,
    Time,
}

/// The phase bar's command: its filter, and what changed.
#[derive(Deserialize, TS, Debug, Clone, Default)]
pub struct PhasesCommand {
    /// Phases whose name holds this text (any case); "" for all.
    #[serde(default)]
    pub filter: String,
    /// torch.compile's own phases too.
    #[serde(default)]
    pub internal: bool,
    /// The plot's x axis asked for (kept across views, devices and files).
    #[serde(default)]
    pub axis: Option<AxisName>,
    /// CSS x of the pointer on the plot: the readout says its step's time.
    #[serde(default)]
    pub hover_x: Option<f64>,
    /// Only the phases already found: a timeline just shown gets `pending`
    /// instead (the page asks again in the next task, so that the first
    /// paint waits for nothing but the plot).
    #[serde(default)]
    pub peek: bool,
}

/// A phase or `annotate` marker laid out over the plot (CSS px from the
/// plot's left edge), for index.html's template #phase-box.
#[derive(Serialize, TS, Debug, Clone, Default)]
pub struct PhaseBox {
    /// "phase", "phase phase-dense" (no free lane for its label) or "annotate-marker".
    pub class: String,
    pub style: String,
    pub name: String,
    pub step0: u32,
    pub step1: u32,
    pub title: String,
    /// Its label, in a free lane (none: a thin dense one, or a marker).
    pub label: Option<PhaseLabel>,
}

/// A phase's label: which end of the phase it sticks to.
#[derive(Serialize, TS, Debug, Clone)]
pub struct PhaseLabel {
    pub name: String,
    pub style: String,
}

/// A tick of the time axis (CSS x).
#[derive(Serialize, TS, Debug, Clone)]
pub struct AxisTick {
    pub x: f64,
    pub label: String,
}

/// An idle gap the time axis compresses (CSS x).
#[derive(Serialize, TS, Debug, Clone)]
pub struct AxisGap {
    pub x0: f64,
    pub x1: f64,
    pub label: String,
}

/// The phase bar's and the x axis' view model.
#[derive(Serialize, TS, Debug, Clone, Default)]
pub struct PhasesView {
    pub generation: u32,
    /// `peek` on a timeline whose phases are not found yet: nothing else is set.
    pub pending: bool,
    pub has_time: bool,
    /// The x axis the plot shows: "step" or "time".
    pub axis: String,
    /// Why the time axis is not available; "" when it is.
    pub reason: String,
    /// The phases shown, then the markers, laid out on the plot as last drawn.
    pub boxes: Vec<PhaseBox>,
    /// "3 of 5 shown", or that there are none.
    pub count: String,
    /// The time of the hovered step, or what the file lacks.
    pub readout: String,
    pub ticks: Vec<AxisTick>,
    pub gaps: Vec<AxisGap>,
    /// The rows cover another height of the plot's top than the axes last
    /// drawn took: draw it again (the peak's label goes below them).
    pub redraw: bool,
}

/// The phases of one timeline, found once: (generation, kind, steps) and
/// memviz_core::phases' JSON.
pub(crate) type PhaseCache = Option<((u32, TimelineKind, u32), serde_json::Value)>;

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

    /// The phase bar's command: the current timeline's phases filtered and
    /// placed on the plot as last drawn, its markers, the x axis and the
    /// time readout.
    pub fn phases(&mut self, cmd: &PhasesCommand) -> PhasesView {
        if let Some(a) = cmd.axis {
            self.set_x_axis(if a == AxisName::Time { XMode::Time } else { XMode::Step });
        }
        let key = (self.generation(), self.cx.kind, self.cx.n_steps());
        if self.phase_cache.as_ref().map(|c| c.0) != Some(key) {
            if cmd.peek {
                return PhasesView { generation: self.generation(), pending: true, ..PhasesView::default() };
            }
            let data: serde_json::Value = serde_json::from_str(&self.phases_json()).unwrap_or_default();
            self.phase_cache = Some((key, data));
        }
        let data = self.phase_cache.as_ref().map(|c| c.1.clone()).unwrap_or_default();
        let axis: serde_json::Value = serde_json::from_str(&self.x_axis_json()).unwrap_or_default();
        let time = self.x_axis() == XMode::Time;
        let filter = cmd.filter.trim().to_lowercase();
        let all = data["phases"].as_array().cloned().unwrap_or_default();
        let f = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
        let placed: Vec<Placed> = all
            .iter()
            .filter(|p| cmd.internal || !p["internal"].as_bool().unwrap_or(false))
            .filter(|p| filter.is_empty() || p["name"].as_str().unwrap_or("").to_lowercase().contains(&filter))
            .map(|p| {
                let (s0, s1, t0, t1) = (f(&p["step0"]), f(&p["step1"]), f(&p["start_s"]), f(&p["end_s"]));
                let name = p["name"].as_str().unwrap_or("").to_string();
                let open = if p["open"].as_bool().unwrap_or(false) { " (no END)" } else { "" };
                Placed {
                    x0: if time { self.x_of_seconds(t0) } else { self.x_of_step(s0) },
                    x1: if time { self.x_of_seconds(t1) } else { self.x_of_step(s1) },
                    step0: s0 as u32,
                    step1: s1 as u32,
                    title: format!("{name}: {t0:.6} s to {t1:.6} s{open}, steps {s0} to {s1} · click: zoom to it"),
                    name,
                }
            })
            .collect();
        // The plot canvas' CSS width: the phases may cover its margins too.
        let dpr = self.cx.dpr.max(0.1);
        let width = self.cx.rect.map_or(0.0, |r| ((r.x + r.w) as f64 / dpr + crate::context::MARGIN.1).round());
        let shown = placed.len();
        let (mut boxes, band) = lay_out(placed, width);
        // The peak's label goes below the rows: the axes drawn with other rows are drawn again.
        self.cx.phase_band = band;
        let redraw = band != self.cx.axes_band;
        if let Some(m) = data["markers"].as_array() {
            for m in m {
                let x = self.x_of_step(f(&m["step"]));
                if x >= 0.0 && x <= width {
                    boxes.push(PhaseBox {
                        class: "annotate-marker".into(),
                        style: format!("left:{:.1}px", x - 4.0),
                        title: format!("annotate event {}", m["event"]),
                        ..PhaseBox::default()
                    });
                }
            }
        }
        let has_time = data["has_time"].as_bool().unwrap_or(false);
        let count = if all.is_empty() {
            "no record_function phases in this file".to_string()
        } else {
            format!("{shown} of {} shown", all.len())
        };
        let mut readout =
            if has_time { "time: hover the plot" } else { "this file has no time_us: steps only" }.to_string();
        if let (true, Some(x)) = (has_time, cmd.hover_x) {
            let s = self.step_at_x(x);
            if let Some(t) = self.time_at_step(s as f64).filter(|t| t.is_finite()) {
                readout = format!("step {s}: t = {t:.6} s from the first event");
            }
        }
        let ticks = axis["ticks"]
            .as_array()
            .map(|t| {
                t.iter().map(|t| AxisTick { x: f(&t["x"]), label: t["label"].as_str().unwrap_or("").into() }).collect()
            })
            .unwrap_or_default();
        let gaps = axis["gaps"]
            .as_array()
            .map(|g| {
                g.iter()
                    .map(|g| AxisGap {
                        x0: f(&g["x0"]),
                        x1: f(&g["x1"]),
                        label: g["label"].as_str().unwrap_or("").into(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        PhasesView {
            generation: self.generation(),
            pending: false,
            has_time,
            axis: self.x_axis().as_str().into(),
            reason: self.x_axis_reason(),
            boxes,
            count,
            readout,
            ticks,
            gaps,
            redraw,
        }
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

/// A phase at CSS x on the plot, before its lane is chosen.
struct Placed {
    name: String,
    x0: f64,
    x1: f64,
    step0: u32,
    step1: u32,
    title: String,
}

/// Rows of labels over the plot, and their height (CSS px).
const LANES: usize = 3;
const LANE_PX: usize = 16;
/// A phase's height and a dense one's (style.css `#phase-layer .phase`, `.phase-dense`).
const PHASE_PX: usize = 15;
const DENSE_PX: usize = 5;
const COLORS: [&str; 4] = ["#2b6c3f", "#1f4e9a", "#8a4b08", "#6b2d7a"];

/// Advance widths (tenths of a CSS px, rounded up) of ASCII 32..=126 in 11px
/// sans-serif as Chromium on Linux measures it (DejaVu Sans); other fonts'
/// (Arial, Helvetica) are narrower, so a label is never wider than this says.
const ADVANCE: [u8; 95] = [
    35, 45, 51, 93, 70, 105, 86, 31, 43, 43, 55, 93, 35, 40, 35, 38, 70, 70, 70, 70, 70, 70, 70, 70, 70, 70, 38, 38,
    93, 93, 93, 59, 110, 76, 76, 77, 85, 70, 64, 86, 83, 33, 33, 73, 62, 95, 83, 87, 67, 87, 77, 70, 68, 81, 76, 109,
    76, 68, 76, 43, 38, 43, 93, 55, 55, 68, 70, 61, 70, 68, 39, 70, 70, 31, 31, 64, 31, 108, 70, 68, 70, 70, 46, 58,
    44, 70, 66, 90, 66, 66, 58, 70, 38, 70, 93,
];

/// A label's width in CSS px, its padding included (at least what the page draws).
pub fn label_width(name: &str) -> f64 {
    let tenths: u32 =
        name.chars().map(|c| ADVANCE.get((c as usize).wrapping_sub(32)).map_or(110, |&a| u32::from(a))).sum();
    (tenths as f64 / 10.0).ceil() + 6.0
}

/// The phases in view laid out on a plot `width` CSS px wide: a label is
/// never cut and never leaves the plot (at the right edge it ends at its
/// phase's end); one that finds no free lane of [`LANES`] is drawn thin,
/// without a label (zoom in, or click it, to read it).
/// Also the CSS px from the plot's top that the boxes cover.
fn lay_out(placed: Vec<Placed>, width: f64) -> (Vec<PhaseBox>, f64) {
    let mut ends = [f64::NEG_INFINITY; LANES]; // where each lane is taken up to
    let (mut out, mut band) = (Vec::new(), 0usize);
    for (i, p) in placed.into_iter().enumerate() {
        if !(p.x1 >= 0.0 && p.x0 <= width) {
            continue;
        }
        let left = p.x0.min(width - 2.0).max(0.0);
        let right = p.x1.max(left + 2.0).min(width);
        let lw = label_width(&p.name);
        let at_end = left + lw > width;
        let from = if at_end { left.min(right - lw) } else { left };
        let to = if at_end { right } else { right.max(left + lw) };
        let lane = if from >= 0.0 { ends.iter().position(|&e| e + 3.0 <= from) } else { None };
        if let Some(l) = lane {
            ends[l] = to;
        }
        let c = COLORS[i % COLORS.len()];
        let top = lane.unwrap_or(LANES) * LANE_PX;
        band = band.max(top + if lane.is_some() { PHASE_PX } else { DENSE_PX });
        out.push(PhaseBox {
            class: if lane.is_some() { "phase" } else { "phase phase-dense" }.into(),
            style: format!(
                "top:{top}px;left:{left:.1}px;width:{:.1}px;background:{c}22;border-left:2px solid {c};color:{c}",
                right - left
            ),
            label: lane
                .map(|_| PhaseLabel { name: p.name.clone(), style: if at_end { "right:0" } else { "left:0" }.into() }),
            name: p.name,
            step0: p.step0,
            step1: p.step1,
            title: p.title,
        });
    }
    (out, band as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(name: &str, x0: f64, x1: f64) -> Placed {
        Placed { name: name.into(), x0, x1, step0: 0, step1: 0, title: String::new() }
    }

    #[test]
    fn labels_take_free_lanes_and_stay_inside_the_plot() {
        // "Optimizer.step": 80.1 px by Chromium's measureText in 11px sans-serif; the
        // advances add up to 81.8 (kerning left out), 6 px padding.
        assert_eq!(label_width("Optimizer.step"), 88.0);
        let (b, band) = lay_out(
            vec![
                placed("a", 0.0, 10.0),
                placed("b", 5.0, 10.0),
                placed("c", 6.0, 10.0),
                placed("d", 7.0, 10.0),
                placed("Optimizer.step", 390.0, 400.0),
                placed("gone", 500.0, 600.0),
            ],
            400.0,
        );
        let lanes: Vec<&str> = b.iter().map(|b| b.style.split(';').next().unwrap()).collect();
        assert_eq!(lanes, ["top:0px", "top:16px", "top:32px", "top:48px", "top:0px"]);
        assert_eq!(b[3].class, "phase phase-dense");
        assert_eq!(band, 53.0, "the dense row's bottom: 48 + 5");
        assert!(b[3].label.is_none());
        // At the right edge: the label ends at the phase's end.
        assert_eq!(b[4].label.as_ref().map(|l| l.style.as_str()), Some("right:0"));
        assert!(b[4].style.contains("left:390.0px;width:10.0px"));
    }
}
