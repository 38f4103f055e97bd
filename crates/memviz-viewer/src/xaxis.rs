//! The band plot's x axis: alloc / free steps (memory_viz's) or wall-clock
//! time from `time_us` (seconds from the first event, idle gaps compressed:
//! the core's [`TimeAxis`], as `memviz render --x time` draws it).
//!
//! The window stays in steps (so switching the axis keeps the same events
//! in view, and jumps, phases and the moment keep working in steps); what
//! changes is where a step lands on the plot. Every x placement goes
//! through [`Context::frac_of_step`] / [`Context::step_at_frac`] and the
//! columns through [`Context::pick_columns`]: bands, hit testing, axes,
//! minimap, markers, phases and the moment line agree. Zoom and pan work
//! in display x (seconds on the time axis).
//!
//! The mode is the viewer's, kept across views, devices and files; a
//! timeline without `time_us` is drawn in steps and [`Context::x_reason`]
//! says why.

use memviz_core::phases::TimeAxis;
use memviz_core::timeline::TimelineKind;
use memviz_render::axis::{fmt_time, time_ticks};
use memviz_render::mapped_x::{minimap_columns_at, pick_columns_at, time_edges, veil_gap};
use memviz_render::{self as render, BandSource, Columns, Window};

use crate::context::{Context, PlotRect};
use crate::view::{AxesSpec, TimeTicks};

/// What the x axis shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum XMode {
    /// Alloc / free actions, one step each (memory_viz's axis).
    #[default]
    Step,
    /// Wall-clock time from `time_us`, idle gaps compressed.
    Time,
}

impl XMode {
    pub fn as_str(self) -> &'static str {
        match self {
            XMode::Step => "step",
            XMode::Time => "time",
        }
    }

    pub fn from_name(s: &str) -> Option<XMode> {
        match s {
            "step" | "steps" => Some(XMode::Step),
            "time" => Some(XMode::Time),
            _ => None,
        }
    }
}

/// The time axis of (file, device, timeline, steps), built once; None
/// inside: that timeline has no `time_us`.
pub(crate) type TimeCache = ((usize, u32, TimelineKind, u32), Option<TimeAxis>);

/// Shortest display window on the time axis (seconds): `time_us` has
/// microseconds, and a window of zero width would map nothing.
const MIN_TIME_SPAN: f64 = 1e-6;

impl Context {
    fn time_key(&self) -> (usize, u32, TimelineKind, u32) {
        (self.current, self.device, self.kind, self.n_steps())
    }

    /// Builds the time axis of the current timeline when the time mode needs
    /// it (once per file, device and timeline).
    pub(crate) fn refresh_time(&mut self) {
        if self.x_mode != XMode::Time || self.time.as_ref().map(|c| c.0) == Some(self.time_key()) {
            return;
        }
        let key = self.time_key();
        let axis = match (self.file(), self.timeline()) {
            (Some(f), Some(tl)) if tl.n_steps() > 0 => TimeAxis::build(&f.snap, tl, None),
            _ => None,
        };
        self.time = Some((key, axis));
    }

    /// Asks for an x axis; returns whether the plot now shows it (a
    /// timeline without `time_us` stays in steps).
    pub fn set_x_mode(&mut self, mode: XMode) -> bool {
        self.x_mode = mode;
        self.axes_key = None;
        self.refresh_time();
        self.x_shown() == mode
    }

    /// The time axis the plot uses now: None in step mode or without time.
    pub fn time_axis(&self) -> Option<&TimeAxis> {
        if self.x_mode != XMode::Time {
            return None;
        }
        match &self.time {
            Some((k, a)) if *k == self.time_key() => a.as_ref(),
            _ => None,
        }
    }

    /// The x axis the plot shows (the mode asked for, or steps without time).
    pub fn x_shown(&self) -> XMode {
        if self.time_axis().is_some() {
            XMode::Time
        } else {
            XMode::Step
        }
    }

    /// Whether the current timeline's events have `time_us` (without
    /// building the axis).
    pub fn has_time(&self) -> bool {
        let (Some(f), Some(tl)) = (self.file(), self.timeline()) else { return false };
        memviz_core::phases::first_time(&f.snap, tl).is_some()
    }

    /// Why the time axis cannot be shown now; empty when it can.
    pub fn x_reason(&self) -> String {
        if self.file().is_none() || self.n_steps() == 0 {
            return "no alloc / free events to place in time".into();
        }
        if !self.has_time() {
            return "this file has no time_us: steps only".into();
        }
        String::new()
    }

    /// Display position (steps, or seconds with gaps compressed) of step `s`.
    fn disp_of_step(&self, s: f64) -> f64 {
        self.time_axis().map_or(s, |a| a.x_of_step(s))
    }

    fn step_of_disp(&self, d: f64) -> f64 {
        self.time_axis().map_or(d, |a| a.step_of_x(d))
    }

    /// The window in display units.
    pub fn disp_window(&self) -> (f64, f64) {
        (self.disp_of_step(self.window.x0), self.disp_of_step(self.window.x1))
    }

    /// The whole trace in display units.
    fn disp_span(&self) -> f64 {
        self.time_axis().map_or(self.n_steps().max(1) as f64, |a| a.span())
    }

    /// Fractional step at fraction `f` of the plot width.
    pub fn step_at_frac(&self, f: f64) -> f64 {
        let (d0, d1) = self.disp_window();
        self.step_of_disp(d0 + f * (d1 - d0))
    }

    /// Fraction of the plot width where step `s` starts (outside [0, 1]:
    /// out of the window).
    pub fn frac_of_step(&self, s: f64) -> f64 {
        let (d0, d1) = self.disp_window();
        (self.disp_of_step(s) - d0) / (d1 - d0).max(1e-12)
    }

    /// The step each of `w` columns shows (the largest total among the steps
    /// starting in it, as memviz-render picks).
    pub fn pick_columns<S: BandSource>(&self, src: &S, w: u32) -> Columns {
        match self.time_axis() {
            Some(a) => {
                let (d0, d1) = self.disp_window();
                pick_columns_at(src, &time_edges(a, d0, d1, w))
            }
            None => render::pick_columns(src, self.window, w),
        }
    }

    /// Zoom by `factor` around fraction `at` of the plot width, in display x.
    pub fn zoom(&mut self, factor: f64, at: f64) {
        let (d0, d1) = self.disp_window();
        self.set_disp_window(Window { x0: d0, x1: d1 }.zoom(factor, at.clamp(0.0, 1.0)));
    }

    /// Pans by `frac` of the plot width, in display x.
    pub fn pan(&mut self, frac: f64) {
        let (d0, d1) = self.disp_window();
        self.set_disp_window(Window { x0: d0, x1: d1 }.pan(frac));
    }

    /// Shows display positions `w` (clamped to the trace), as steps.
    fn set_disp_window(&mut self, w: Window) {
        if self.time_axis().is_none() {
            return self.set_window(w);
        }
        let span = self.disp_span();
        let mut len = (w.x1 - w.x0).clamp(MIN_TIME_SPAN.min(span), span);
        if !len.is_finite() {
            len = span;
        }
        let x0 = if w.x0.is_finite() { w.x0.clamp(0.0, span - len) } else { 0.0 };
        let win = Window { x0: self.step_of_disp(x0), x1: self.step_of_disp(x0 + len) };
        self.set_window(win);
    }

    /// Centers the window on step `s`, keeping its display width.
    pub fn center_on(&mut self, s: f64) {
        let (d0, d1) = self.disp_window();
        let c = self.disp_of_step(s);
        self.set_disp_window(Window { x0: c - (d1 - d0) / 2.0, x1: c + (d1 - d0) / 2.0 });
    }

    /// Step at fraction `f` of the minimap's width (it shows the whole trace).
    pub fn minimap_step(&self, f: f64) -> f64 {
        let f = f.clamp(0.0, 1.0);
        match self.time_axis() {
            Some(a) => a.step_of_x(f * a.span()),
            None => f * self.n_steps() as f64,
        }
    }

    /// The minimap's columns over the whole trace, in display x: (columns,
    /// max total).
    pub(crate) fn minimap_columns(&self, w: u32) -> Option<(Vec<u64>, u64)> {
        let tl = self.timeline()?;
        Some(match self.time_axis() {
            Some(a) => minimap_columns_at(&tl.total, tl.start_bytes, &time_edges(a, 0.0, a.span(), w)),
            None => render::minimap_columns(&tl.total, tl.start_bytes, w),
        })
    }

    /// The window and the peak in the minimap's units: (units, window,
    /// peak). In steps, or in columns of `w` on the time axis.
    pub(crate) fn minimap_frame(&self, w: u32, peak: u32) -> (u32, Window, u32) {
        match self.time_axis() {
            Some(a) => {
                let col = |s: f64| a.x_of_step(s) / a.span().max(1e-12) * w as f64;
                let (x0, x1) = (col(self.window.x0), col(self.window.x1));
                (w, Window { x0, x1 }, col(peak as f64 + 0.5).floor().max(0.0) as u32)
            }
            None => (self.n_steps(), self.window, peak),
        }
    }

    /// Veils and marks the idle gaps in the plot as last drawn (time axis).
    pub(crate) fn veil_gaps(&mut self) {
        let Some(r) = self.rect else { return };
        let spans = self.gap_columns(r);
        let unit = self.dpr.round().max(1.0) as u32;
        let mut img = std::mem::take(&mut self.plot);
        for (c0, c1, _) in spans {
            veil_gap(&mut img, c0.round() as i64, c1.round() as i64, unit);
        }
        self.plot = img;
    }

    /// Plot columns `[x0, x1)` of the idle gaps in the window, with their
    /// real length in seconds.
    fn gap_columns(&self, r: PlotRect) -> Vec<(f64, f64, f64)> {
        let Some(a) = self.time_axis() else { return vec![] };
        let (d0, d1) = self.disp_window();
        let px = |d: f64| (d - d0) / (d1 - d0).max(1e-12) * r.w as f64;
        a.gaps
            .iter()
            .filter(|g| g.x + g.shown_s >= d0 && g.x <= d1)
            .map(|g| (px(g.x), px(g.x + g.shown_s), g.real_s))
            .collect()
    }

    /// The axes overlay of a band plot drawn in `rect` (the timelines and
    /// the pools view): x ticks in seconds and the gaps' labels on the time
    /// axis.
    pub(crate) fn axes_spec(
        &self,
        rect: PlotRect,
        y_max: u64,
        peak: Option<(u32, u64)>,
        steps: &'static str,
    ) -> AxesSpec {
        let time = self.time_axis().map(|a| {
            let (d0, d1) = self.disp_window();
            let target = ((rect.w as f64 / self.dpr) / 110.0).max(2.0) as usize;
            let real = a.seconds_at(d1) - a.seconds_at(d0);
            let ticks = time_ticks(a, d0, d1, target)
                .into_iter()
                .map(|(d, s)| ((d - d0) / (d1 - d0).max(1e-12), fmt_time(s, real)))
                .collect();
            let gaps = self
                .gap_columns(rect)
                .into_iter()
                .map(|(c0, c1, s)| (c0 / rect.w as f64, c1 / rect.w as f64, format!("idle {}", fmt_time(s, s))))
                .collect();
            let peak = peak.map(|(s, _)| self.frac_of_step(s as f64 + 0.5));
            TimeTicks { ticks, gaps, peak }
        });
        let x_desc = match (self.x_mode, time.is_some()) {
            (_, true) => "time from the first event (idle gaps compressed)",
            (XMode::Time, false) => "alloc / free action (step): the file has no time_us",
            (XMode::Step, false) => steps,
        };
        AxesSpec { rect, dpr: self.dpr, window: self.window, y_max, peak, x_desc, time, label_below: self.phase_band }
    }
}
