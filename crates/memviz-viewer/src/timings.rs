//! The page's timings line: how long the last open and the last redraw took
//! (www/app.js measures, the text is made here).

use serde::{Deserialize, Serialize};

use crate::files::AdoptStep;
use ts_rs::TS;

/// The decode worker's part of an open, ms a step: memviz-wasm adds up each
/// adopt step's time (`add`), the page adds the worker's `finish`; `finish`
/// and `versions` come after the first paint (absent until then).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkerTimings {
    /// The worker's read and decode.
    pub read: f64,
    #[serde(default)]
    pub model: f64,
    #[serde(default)]
    pub replay: f64,
    #[serde(default)]
    pub views: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub finish: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub versions: Option<f64>,
    /// The longest step, and its kind.
    #[serde(default)]
    pub longest: f64,
    #[serde(default)]
    pub longest_step: String,
    /// The last step's: the page guesses the next one's time from it.
    #[serde(default)]
    pub last: f64,
}

impl WorkerTimings {
    pub fn new(read: f64) -> WorkerTimings {
        WorkerTimings { read, ..WorkerTimings::default() }
    }

    pub fn add(&mut self, step: AdoptStep, ms: f64) {
        let (sum, name) = match step {
            AdoptStep::Model => (&mut self.model, "model"),
            AdoptStep::Replay => (&mut self.replay, "replay"),
            AdoptStep::Views => (&mut self.views, "views"),
            AdoptStep::Versions => (self.versions.get_or_insert(0.0), "versions"),
        };
        *sum += ms;
        if ms > self.longest {
            (self.longest, self.longest_step) = (ms, name.to_string());
        }
        self.last = ms;
    }
}

/// The last open, ms from the file's arrival.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OpenTimings {
    #[serde(default)]
    pub decode: f64,
    #[serde(default)]
    pub first_paint: f64,
    pub worker: Option<WorkerTimings>,
}

/// One redraw: `redraw_ms` in all, `bands_ms` and `axes_ms` of it, as the render counted them.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, TS)]
pub struct RedrawTimings {
    pub redraw_ms: f64,
    pub bands_ms: f64,
    pub axes_ms: f64,
    pub bands_drawn: u32,
    pub columns: u32,
}

/// "timings: decode+replay 12.3 ms · first paint … · redraw … · 812 bands drawn in 1200 columns".
pub fn timings_text(open: &OpenTimings, r: &RedrawTimings) -> String {
    let ms = |x: f64| format!("{x:.1} ms");
    let worker = open.worker.as_ref().map_or(String::new(), |w| {
        let later = |x: Option<f64>| x.map_or("to come".to_string(), ms);
        format!(
            " (in the worker: read+decode {}, finish {}; here: model {}, replay {}, views {}, versions {}; longest step {}, {})",
            ms(w.read),
            later(w.finish),
            ms(w.model),
            ms(w.replay),
            ms(w.views),
            later(w.versions),
            ms(w.longest),
            w.longest_step
        )
    });
    format!(
        "timings: decode+replay {}{worker} · first paint {} after the file arrived · redraw {} (bands {}, axes {}) · \
         {} bands drawn in {} columns",
        ms(open.decode),
        ms(open.first_paint),
        ms(r.redraw_ms),
        ms(r.bands_ms),
        ms(r.axes_ms),
        r.bands_drawn,
        r.columns
    )
}

/// The state history's timings line: its last redraw, `map_ms` of it the segment map's.
pub fn state_timings_text(redraw_ms: f64, map_ms: f64, selected: Option<usize>, len: usize) -> String {
    let sel = selected.map_or("-1".to_string(), |s| s.to_string());
    format!("state redraw {redraw_ms:.1} ms (segment map {map_ms:.1} ms) · event {sel} of {len}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_part_says_what_is_still_to_come() {
        let w = WorkerTimings { read: 1.0, longest: 2.5, longest_step: "replay".into(), ..Default::default() };
        let open = OpenTimings { decode: 10.0, first_paint: 20.04, worker: Some(w) };
        let r = RedrawTimings { redraw_ms: 3.0, bands_ms: 2.0, axes_ms: 0.5, bands_drawn: 7, columns: 100 };
        let t = timings_text(&open, &r);
        assert!(
            t.starts_with("timings: decode+replay 10.0 ms (in the worker: read+decode 1.0 ms, finish to come;"),
            "{t}"
        );
        assert!(t.contains("versions to come; longest step 2.5 ms, replay) · first paint 20.0 ms after"), "{t}");
        assert!(t.ends_with("redraw 3.0 ms (bands 2.0 ms, axes 0.5 ms) · 7 bands drawn in 100 columns"), "{t}");
        assert!(!timings_text(&OpenTimings::default(), &r).contains("worker"));
        assert_eq!(state_timings_text(1.25, 0.5, None, 9), "state redraw 1.2 ms (segment map 0.5 ms) · event -1 of 9");
    }
}
