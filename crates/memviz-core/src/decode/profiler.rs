//! The other memory files PyTorch users have, besides snapshots:
//!
//! - torch.profiler's `export_memory_timeline(path)`: `.json` / `.json.gz`
//!   hold `[times, sizes]`, `times` in microseconds (a pre-existing tensor's
//!   `-1` already replaced by the smallest time), `sizes[i]` one row per time
//!   of 9 integers: index 0 unused, then bytes by category in the profiler's
//!   order (parameter, optimizer state, input, temporary, activation,
//!   gradient, autograd detail, unknown).
//! - `export_memory_timeline(path)` with `.raw.json.gz`: a list of
//!   `[timestamp_ns, action, numbytes, category]`, timestamp `-1` for
//!   tensors alive before profiling, action 1-4 (pre-existing, create,
//!   increment version, destroy), numbytes signed (negative when memory goes
//!   away), category 0-7 as above. Replayed here the way the profiler
//!   coalesces it: one row per distinct timestamp (ns -> us, truncated).
//! - A Chrome trace (`export_chrome_trace`, `.json` / `.json.gz`) recorded
//!   with `profile_memory=True`: its `[memory]` instant events carry
//!   `Total Allocated` / `Total Reserved` after each allocation, per
//!   `Device Type` (0 CPU, 1 CUDA) and `Device Id`; drawn as two curves per
//!   device.
//!
//! The loader hands decompressed JSON here first ([`decode_json`]); what is
//! not one of these shapes goes on to the snapshot builder.

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};

/// The profiler's categories, in its index order (`_CATEGORY_TO_INDEX`).
pub const CATEGORIES: [&str; 8] =
    ["parameter", "optimizer state", "input", "temporary", "activation", "gradient", "autograd detail", "unknown"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfilerFormat {
    /// `export_memory_timeline` to `.json` / `.json.gz`.
    MemoryTimeline,
    /// `export_memory_timeline` to `.raw.json.gz`.
    MemoryTimelineRaw,
    /// `export_chrome_trace` with `profile_memory=True`.
    ChromeTrace,
}

impl ProfilerFormat {
    pub fn describe(self) -> &'static str {
        match self {
            ProfilerFormat::MemoryTimeline => "torch.profiler memory timeline (export_memory_timeline, .json)",
            ProfilerFormat::MemoryTimelineRaw => {
                "torch.profiler raw memory timeline (export_memory_timeline, .raw.json.gz)"
            }
            ProfilerFormat::ChromeTrace => "torch.profiler Chrome trace with [memory] events (profile_memory=True)",
        }
    }
}

/// One named series of bytes, one value per time of its chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub name: String,
    pub values: Vec<i64>,
}

/// One chart: categories stacked (a memory timeline) or curves drawn over
/// each other (a trace's allocated / reserved of one device).
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub title: String,
    /// Microseconds as the file has them (absolute); ascending.
    pub times_us: Vec<f64>,
    pub curves: Vec<Curve>,
    pub stacked: bool,
    /// x counts alloc / free positions, not time: `times_us` holds the
    /// position numbers (one position reads as one microsecond).
    pub x_steps: bool,
}

impl Chart {
    /// The number the peak is of: the sum of the stacked curves, else the
    /// first curve (allocated, in a trace).
    pub fn total_at(&self, i: usize) -> i64 {
        if self.stacked {
            self.curves.iter().map(|c| c.values[i].max(0)).fold(0i64, i64::saturating_add)
        } else {
            self.curves.first().map_or(0, |c| c.values[i])
        }
    }

    /// The largest value drawn (top of the y axis).
    pub fn max_drawn(&self) -> i64 {
        if self.stacked {
            (0..self.times_us.len()).map(|i| self.total_at(i)).max().unwrap_or(0)
        } else {
            self.curves.iter().flat_map(|c| c.values.iter().copied()).max().unwrap_or(0)
        }
    }

    /// The index of the first point with the largest total (None when empty).
    pub fn peak(&self) -> Option<usize> {
        let mut best: Option<(usize, i64)> = None;
        for i in 0..self.times_us.len() {
            let t = self.total_at(i);
            if best.is_none_or(|(_, b)| t > b) {
                best = Some((i, t));
            }
        }
        best.map(|(i, _)| i)
    }

    /// Seconds from the chart's first point.
    pub fn seconds(&self, i: usize) -> f64 {
        (self.times_us[i] - self.times_us.first().copied().unwrap_or(0.0)) / 1e6
    }

    pub fn duration_s(&self) -> f64 {
        if self.times_us.is_empty() {
            0.0
        } else {
            self.seconds(self.times_us.len() - 1)
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProfilerFile {
    pub format: ProfilerFormat,
    pub charts: Vec<Chart>,
    /// What was left out, one line each (first place + count).
    pub warnings: Vec<String>,
}

fn not_shaped(format: ProfilerFormat, at: &str, what: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::NotSnapshotShaped, None, format!("{}: {at}: {what}", format.describe()))
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(n) if n.is_f64() => "a float",
        Value::Number(_) => "an int",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a dict",
    }
}

/// An integer field; a float with no fraction counts (JSON writers differ).
fn int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18).map(|f| f as i64))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Which profiler format the JSON text looks like, from its first bytes
/// (and, for a dict, whether it names `traceEvents`); None for anything a
/// snapshot could be. Cheap: it never parses the whole text.
pub fn sniff(buf: &[u8]) -> Option<ProfilerFormat> {
    let i = skip_ws(buf, 0);
    match buf.get(i)? {
        b'[' => {
            let j = skip_ws(buf, i + 1);
            match buf.get(j)? {
                // A snapshot is a dict or a list of segment dicts; a list of
                // lists is one of the timeline exports (which one: decode).
                b'[' => Some(ProfilerFormat::MemoryTimeline),
                b'{' => {
                    // A bare list of trace events: the first one has "ph".
                    let mut it = serde_json::Deserializer::from_slice(&buf[j..]).into_iter::<Value>();
                    match it.next() {
                        Some(Ok(Value::Object(m))) if m.contains_key("ph") => Some(ProfilerFormat::ChromeTrace),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        b'{' => {
            let needle = b"\"traceEvents\"";
            buf.windows(needle.len()).any(|w| w == needle).then_some(ProfilerFormat::ChromeTrace)
        }
        _ => None,
    }
}

/// Decodes decompressed JSON text as one of the profiler formats. None when
/// it is not one (the loader then reads it as a snapshot); an error names
/// the format, the place (a JSON path) and what is wrong there.
pub fn decode_json(buf: &[u8]) -> Option<Result<ProfilerFile>> {
    let guess = sniff(buf)?;
    // Not even JSON: the snapshot reader reports it (offset included) as
    // it does any broken JSON.
    let v: Value = serde_json::from_slice(buf).ok()?;
    match guess {
        ProfilerFormat::ChromeTrace => {
            let events = match &v {
                Value::Object(m) => match m.get("traceEvents") {
                    Some(Value::Array(a)) => a,
                    Some(other) => {
                        return Some(Err(not_shaped(guess, "traceEvents", format!("{}, not a list", kind_of(other)))))
                    }
                    // "traceEvents" only inside some string: a snapshot.
                    None => return None,
                },
                Value::Array(a) => a,
                _ => return None,
            };
            Some(chrome_trace(events))
        }
        _ => {
            let Value::Array(top) = &v else { return None };
            let coalesced = top.len() == 2
                && matches!(&top[1], Value::Array(rows) if rows.first().is_none_or(|r| r.is_array()))
                && top[0].is_array();
            Some(if coalesced { memory_timeline(top) } else { memory_timeline_raw(top) })
        }
    }
}

/// The one chart of the memory timeline exports: memory by category over time.
fn by_category(format: ProfilerFormat, times_us: Vec<f64>, rows: Vec<[i64; 8]>) -> ProfilerFile {
    let chart = Chart {
        title: "memory by category".into(),
        times_us,
        curves: category_curves(rows),
        stacked: true,
        x_steps: false,
    };
    ProfilerFile { format, charts: vec![chart], warnings: Vec::new() }
}

fn category_curves(rows: Vec<[i64; 8]>) -> Vec<Curve> {
    (0..8).map(|c| Curve { name: CATEGORIES[c].to_string(), values: rows.iter().map(|r| r[c]).collect() }).collect()
}

fn memory_timeline(top: &[Value]) -> Result<ProfilerFile> {
    let f = ProfilerFormat::MemoryTimeline;
    let (Value::Array(times), Value::Array(sizes)) = (&top[0], &top[1]) else { unreachable!("checked by the caller") };
    if times.len() != sizes.len() {
        return Err(not_shaped(
            f,
            "[0], [1]",
            format!("{} times but {} rows of sizes (one row per time)", times.len(), sizes.len()),
        ));
    }
    let mut times_us = Vec::with_capacity(times.len());
    for (i, t) in times.iter().enumerate() {
        let t = t.as_f64().ok_or_else(|| not_shaped(f, &format!("[0][{i}]"), format!("{}, not a time", kind_of(t))))?;
        if times_us.last().is_some_and(|&p| t < p) {
            return Err(not_shaped(f, &format!("[0][{i}]"), format!("time {t} is before the time before it")));
        }
        times_us.push(t);
    }
    let mut rows = Vec::with_capacity(sizes.len());
    for (i, row) in sizes.iter().enumerate() {
        let Value::Array(cells) = row else {
            return Err(not_shaped(f, &format!("[1][{i}]"), format!("{}, not a list of 9 sizes", kind_of(row))));
        };
        if cells.len() != 9 {
            return Err(not_shaped(
                f,
                &format!("[1][{i}]"),
                format!("{} sizes, not 9 (an unused 0, then the 8 categories)", cells.len()),
            ));
        }
        let mut r = [0i64; 8];
        for (c, cell) in cells[1..].iter().enumerate() {
            r[c] = int(cell).ok_or_else(|| {
                not_shaped(f, &format!("[1][{i}][{}]", c + 1), format!("{}, not a byte count", kind_of(cell)))
            })?;
        }
        rows.push(r);
    }
    Ok(by_category(f, times_us, rows))
}

fn memory_timeline_raw(top: &[Value]) -> Result<ProfilerFile> {
    let f = ProfilerFormat::MemoryTimelineRaw;
    let mut times: Vec<i64> = Vec::new();
    let mut rows: Vec<[i64; 8]> = Vec::new();
    let mut t_min: Option<i64> = None;
    for (i, e) in top.iter().enumerate() {
        let at = || format!("[{i}]");
        let Value::Array(cells) = e else {
            return Err(not_shaped(f, &at(), format!("{}, not [timestamp, action, numbytes, category]", kind_of(e))));
        };
        if cells.len() != 4 {
            return Err(not_shaped(
                f,
                &at(),
                format!("{} values, not 4 (timestamp, action, numbytes, category)", cells.len()),
            ));
        }
        let field = |k: usize, name: &str| {
            int(&cells[k]).ok_or_else(|| {
                not_shaped(f, &format!("[{i}][{k}]"), format!("{}, not an integer {name}", kind_of(&cells[k])))
            })
        };
        let t_ns = field(0, "timestamp")?;
        let action = field(1, "action")?;
        let bytes = field(2, "numbytes")?;
        let cat = field(3, "category")?;
        if !(1..=4).contains(&action) {
            return Err(not_shaped(f, &format!("[{i}][1]"), format!("action {action}, not 1-4")));
        }
        if !(0..8).contains(&cat) {
            return Err(not_shaped(f, &format!("[{i}][3]"), format!("category {cat}, not 0-7")));
        }
        // ns -> us as the profiler does (int(t / 1000)); -1: alive before profiling.
        let t = if t_ns == -1 { -1 } else { t_ns / 1000 };
        if t >= 0 {
            t_min = Some(t_min.map_or(t, |m| m.min(t)));
        }
        if times.last() != Some(&t) {
            times.push(t);
            rows.push(rows.last().copied().unwrap_or([0; 8]));
        }
        let r = rows.last_mut().expect("pushed above");
        r[cat as usize] = r[cat as usize].saturating_add(bytes);
    }
    let t_min = t_min.unwrap_or(0);
    let times_us: Vec<f64> = times.iter().map(|&t| if t < 0 { t_min } else { t } as f64).collect();
    Ok(by_category(f, times_us, rows))
}

/// Device label of a `[memory]` event: `cuda:0`, `cpu`, or the raw numbers.
fn device_label(ty: Option<&Value>, id: Option<&Value>) -> String {
    let id = id.and_then(int);
    let ty_s = ty.and_then(|t| t.as_str().map(str::to_ascii_lowercase));
    match (ty.and_then(int), ty_s.as_deref(), id) {
        (Some(0), _, _) | (_, Some("cpu"), _) => "cpu".to_string(),
        (Some(1), _, Some(d)) | (_, Some("cuda"), Some(d)) => format!("cuda:{d}"),
        (Some(t), _, Some(d)) => format!("device type {t}:{d}"),
        (None, Some(s), Some(d)) => format!("{s}:{d}"),
        _ => "unknown device".to_string(),
    }
}

/// A `[memory]` event's time (us), total allocated and total reserved.
type Point = (f64, i64, i64);

fn chrome_trace(events: &[Value]) -> Result<ProfilerFile> {
    let f = ProfilerFormat::ChromeTrace;
    // Per device, in order of first appearance: (label, [(ts, alloc, reserved)]).
    let mut devices: Vec<(String, Vec<Point>)> = Vec::new();
    let (mut memory_events, mut no_totals, mut first_bad) = (0u64, 0u64, None::<String>);
    for (i, e) in events.iter().enumerate() {
        let Value::Object(m) = e else { continue };
        if m.get("name").and_then(Value::as_str) != Some("[memory]") {
            continue;
        }
        memory_events += 1;
        let args = m.get("args").and_then(Value::as_object);
        let ts = m.get("ts").and_then(Value::as_f64);
        let total = |k: &str| args.and_then(|a| a.get(k)).and_then(int);
        let (Some(ts), Some(alloc), Some(reserved)) = (ts, total("Total Allocated"), total("Total Reserved")) else {
            no_totals += 1;
            first_bad.get_or_insert_with(|| {
                let what = if ts.is_none() {
                    "no numeric ts"
                } else {
                    "no integer \"Total Allocated\" / \"Total Reserved\" in args"
                };
                format!("traceEvents[{i}]: a [memory] event with {what}")
            });
            continue;
        };
        let label = device_label(args.and_then(|a| a.get("Device Type")), args.and_then(|a| a.get("Device Id")));
        match devices.iter_mut().find(|(l, _)| *l == label) {
            Some((_, pts)) => pts.push((ts, alloc, reserved)),
            None => devices.push((label, vec![(ts, alloc, reserved)])),
        }
    }
    if memory_events == 0 {
        return Err(not_shaped(
            f,
            "traceEvents",
            "no [memory] events: record the trace with torch.profiler.profile(profile_memory=True)",
        ));
    }
    if devices.is_empty() {
        return Err(not_shaped(
            f,
            first_bad.as_deref().unwrap_or("traceEvents"),
            "no [memory] event has the totals to draw",
        ));
    }
    let mut warnings = Vec::new();
    if let Some(first) = first_bad {
        warnings.push(format!("{first}; {no_totals} [memory] events like it skipped"));
    }
    // CUDA devices first (what a user came for), then the rest.
    devices.sort_by_key(|(l, _)| (!l.starts_with("cuda"), l.clone()));
    let charts = devices
        .into_iter()
        .map(|(title, mut pts)| {
            // Trace events are grouped by thread, not sorted by time.
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            Chart {
                title,
                times_us: pts.iter().map(|p| p.0).collect(),
                curves: vec![
                    Curve { name: "allocated".into(), values: pts.iter().map(|p| p.1).collect() },
                    Curve { name: "reserved".into(), values: pts.iter().map(|p| p.2).collect() },
                ],
                stacked: false,
                x_steps: false,
            }
        })
        .collect();
    Ok(ProfilerFile { format: f, charts, warnings })
}

impl ProfilerFile {
    /// The numbers `memviz summary` prints, as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        let charts: Vec<_> = self
            .charts
            .iter()
            .map(|c| {
                let peak = c.peak();
                let at = |i: Option<usize>| -> serde_json::Value {
                    i.map_or(serde_json::Value::Null, |i| {
                        serde_json::Value::Object(c.curves.iter().map(|cv| (cv.name.clone(), cv.values[i].into())).collect())
                    })
                };
                serde_json::json!({
                    "title": c.title,
                    "stacked": c.stacked,
                    "points": c.times_us.len(),
                    "start_us": c.times_us.first(),
                    "duration_s": c.duration_s(),
                    "peak_index": peak,
                    "peak_s": peak.map(|i| c.seconds(i)),
                    "peak_bytes": peak.map(|i| c.total_at(i)),
                    "at_peak": at(peak),
                    "max": c.curves.iter().map(|cv| (cv.name.clone(), cv.values.iter().copied().max().unwrap_or(0).into())).collect::<serde_json::Map<String, serde_json::Value>>(),
                    "at_end": at(c.times_us.len().checked_sub(1)),
                })
            })
            .collect();
        serde_json::json!({
            "format": format!("{:?}", self.format),
            "description": self.format.describe(),
            "charts": charts,
            "warnings": self.warnings,
        })
    }

    /// What `memviz summary` prints: per chart its span, its peak and what
    /// made it up, and the end.
    pub fn to_text(&self) -> String {
        use crate::format::format_size;
        use std::fmt::Write;
        let size = |b: i64| {
            if b < 0 {
                format!("-{}", format_size(b.unsigned_abs(), true))
            } else {
                format_size(b as u64, true)
            }
        };
        let mut s = format!("{}\n", self.format.describe());
        for c in &self.charts {
            let _ = writeln!(s, "{}", c.title);
            let _ = writeln!(s, "  points            {} over {:.6} s", c.times_us.len(), c.duration_s());
            let Some(p) = c.peak() else { continue };
            let what = if c.stacked { "total" } else { c.curves.first().map_or("", |c| c.name.as_str()) };
            let _ = writeln!(
                s,
                "  peak              {} {} at {:.6} s (point {p})",
                what,
                size(c.total_at(p)),
                c.seconds(p)
            );
            for cv in &c.curves {
                if c.stacked && cv.values[p] == 0 {
                    continue;
                }
                let _ = writeln!(s, "    {:<16}{}", cv.name, size(cv.values[p]));
            }
            let last = c.times_us.len() - 1;
            let end: Vec<String> = c
                .curves
                .iter()
                .filter(|cv| !c.stacked || cv.values[last] != 0)
                .map(|cv| format!("{} {}", cv.name, size(cv.values[last])))
                .collect();
            let _ = writeln!(
                s,
                "  end               {}",
                if end.is_empty() { "nothing".to_string() } else { end.join(", ") }
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Option<Result<ProfilerFile>> {
        decode_json(s.as_bytes())
    }

    #[test]
    fn snapshots_are_not_profiler_files() {
        for s in [r#"{"segments": [], "device_traces": []}"#, "[]", r#"[{"address": 1, "blocks": []}]"#, "  {}"] {
            assert!(dec(s).is_none(), "{s}");
        }
        // "traceEvents" only as text inside a snapshot.
        assert!(dec(r#"{"segments": [], "device_traces": [], "x": "\"traceEvents\""}"#).is_none());
    }

    #[test]
    fn coalesced_timeline_uses_columns_1_to_8() {
        let f = dec("[[10, 20], [[0,1,2,3,4,5,6,7,8],[0,8,7,6,5,4,3,2,1]]]").unwrap().unwrap();
        assert_eq!(f.format, ProfilerFormat::MemoryTimeline);
        let c = &f.charts[0];
        assert_eq!(c.curves[0].values, vec![1, 8]);
        assert_eq!(c.curves[7].values, vec![8, 1]);
        assert_eq!(c.total_at(0), 36);
        assert_eq!(c.peak(), Some(0));
        assert!((c.seconds(1) - 10e-6).abs() < 1e-12);
    }

    #[test]
    fn raw_events_coalesce_by_microsecond() {
        // Pre-existing at -1 -> the smallest time; 5_000 and 5_999 ns share 5 us.
        let f = dec("[[-1,1,100,0],[5000,2,50,4],[5999,2,10,3],[7000,4,-50,4],[7000,3,-10,3],[7000,3,10,5]]")
            .unwrap()
            .unwrap();
        assert_eq!(f.format, ProfilerFormat::MemoryTimelineRaw);
        let c = &f.charts[0];
        assert_eq!(c.times_us, vec![5.0, 5.0, 7.0]);
        assert_eq!(c.curves[0].values, vec![100, 100, 100]);
        assert_eq!(c.curves[4].values, vec![0, 50, 0]);
        assert_eq!(c.curves[3].values, vec![0, 10, 0]);
        assert_eq!(c.curves[5].values, vec![0, 0, 10]);
    }

    #[test]
    fn chrome_trace_curves_per_device_sorted_by_time() {
        let s = r#"{"traceEvents": [
            {"ph": "X", "name": "aten::mm", "ts": 1, "dur": 2},
            {"ph": "i", "s": "t", "name": "[memory]", "ts": 30.5, "args": {"Device Type": 1, "Device Id": 0, "Bytes": -4, "Total Allocated": 8, "Total Reserved": 64}},
            {"ph": "i", "s": "t", "name": "[memory]", "ts": 20, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 12, "Total Allocated": 12, "Total Reserved": 64}},
            {"ph": "i", "s": "t", "name": "[memory]", "ts": 25, "args": {"Device Type": 0, "Device Id": -1, "Bytes": 3, "Total Allocated": 3, "Total Reserved": 0}},
            {"ph": "i", "s": "t", "name": "[memory]", "ts": 26, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 3}}
        ]}"#;
        let f = dec(s).unwrap().unwrap();
        assert_eq!(f.charts.iter().map(|c| c.title.as_str()).collect::<Vec<_>>(), ["cuda:0", "cpu"]);
        let c = &f.charts[0];
        assert_eq!(c.times_us, vec![20.0, 30.5]);
        assert_eq!(c.curves[0].values, vec![12, 8]);
        assert_eq!(c.curves[1].values, vec![64, 64]);
        assert_eq!(f.warnings.len(), 1);
        assert!(f.warnings[0].starts_with("traceEvents[4]:"), "{}", f.warnings[0]);
        // A bare list of events is a trace too.
        let bare = dec(
            r#"[{"ph": "i", "name": "[memory]", "ts": 1, "args": {"Total Allocated": 1, "Total Reserved": 2, "Device Type": 1, "Device Id": 3}}]"#,
        );
        assert_eq!(bare.unwrap().unwrap().charts[0].title, "cuda:3");
    }

    #[test]
    fn errors_name_the_place() {
        let e = |s: &str| dec(s).unwrap().unwrap_err().to_string();
        assert!(e("[[1, 2], [[0,1,2,3,4,5,6,7,8]]]").contains("[0], [1]: 2 times but 1 rows"));
        assert!(e(r#"[[1], [[0,1,2,3,"x",5,6,7,8]]]"#).contains("[1][0][4]: a string, not a byte count"));
        assert!(e("[[1], [[0,1,2]]]").contains("[1][0]: 3 sizes, not 9"));
        assert!(e("[[1,2,3,4],[5,9,0,1]]").contains("[1][1]: action 9, not 1-4"));
        assert!(e("[[1,2,3,4],[5,1,0]]").contains("[1]: 3 values, not 4"));
        assert!(e(r#"{"traceEvents": [{"ph": "X", "name": "a"}]}"#).contains("no [memory] events"));
        assert!(e(r#"{"traceEvents": 3}"#).contains("traceEvents: an int, not a list"));
        assert!(dec("[[1, 2], [[0,1,").is_none());
        let syntax = crate::load(b"[[1, 2], [[0,1,").err().unwrap();
        assert_eq!(syntax.kind, ErrorKind::Json);
        assert!(syntax.offset.is_some());
    }
}
