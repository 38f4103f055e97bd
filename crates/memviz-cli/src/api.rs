//! The data behind `--json`: summary, top, oom, leaks, findings, whatif and diff, built in one
//! place for the CLI, the Python package (python/) and the MCP server
//! (`memviz mcp`), so the three answer with the same fields.
//!
//! A question is a function over loaded snapshots and [`Opts`] returning
//! JSON. A new one (findings, what-if) is a function here plus one entry in
//! [`QUESTIONS`]: the MCP server lists it as a tool and the Python package
//! as a method from that table.

use memviz_core::analysis::diff::{self, Diff, Side};
use memviz_core::analysis::leaks::LeakReport;
use memviz_core::analysis::oom::Explanation;
use memviz_core::analysis::{Analysis, At, Group, GroupBy, Moment, Rules, StateTotals};
use memviz_core::state::StateHistory;
use memviz_core::{Loaded, Snapshot};
use serde_json::{json, Value};

use crate::{pick_device, Opts};

/// The snapshots a question reads, each with the name errors give it.
pub type Files<'a> = [(&'a Loaded, &'a str)];

/// A question: its name (the CLI's command, the MCP tool, the Python
/// method), what it answers, how many snapshots it reads, the options it
/// takes (JSON Schema properties) and the function.
pub struct Question {
    pub name: &'static str,
    pub about: &'static str,
    /// 1, or 2 for diff (A and B).
    pub files: usize,
    pub options: &'static [(&'static str, &'static str, &'static str)],
    pub answer: fn(&Files, &Opts) -> Result<Value, String>,
}

const DEVICE: (&str, &str, &str) = ("device", "string", "a CUDA device number or 'host' (default: the first device)");
const AT: (&str, &str, &str) =
    ("at", "string", "peak (default), oom, oom:K, end, start, step:S or a trace event index");
const BY: (&str, &str, &str) = ("by", "string", "stack (default), user, frame or category");
/// `diff`'s grouping unless `--by` says: the innermost user frame.
pub const DIFF_BY: &str = "user";
const DIFF_BY_OPT: (&str, &str, &str) =
    ("by", "string", "user (the innermost user frame, default), stack, frame or category");
const LIMIT: (&str, &str, &str) = ("limit", "integer", "at most this many groups");
const CATEGORY: (&str, &str, &str) =
    ("category", "array", "'REGEX=KIND' rules tried before the built-in inference (REGEX over the stack's frames)");

/// Every question, in the order the MCP server lists them.
pub const QUESTIONS: &[Question] = &[
    Question {
        name: "summary",
        about: "Per device: trace events by action, segments, reserved and allocated bytes, active blocks, \
                and the Active Memory / Active Cached Segment Timelines' start, peak and end bytes.",
        files: 1,
        options: &[],
        answer: |s, _| Ok(summary(s[0].0)),
    },
    Question {
        name: "top",
        about: "What is alive at a moment (default: the peak of the Active Memory Timeline), grouped \
                largest first by stack, innermost user frame, frame or category, with reserved and free bytes.",
        files: 1,
        options: &[DEVICE, AT, BY, LIMIT, CATEGORY],
        answer: |s, o| Ok(top(snapshot(s[0])?, s[0].1, o)?.to_json()),
    },
    Question {
        name: "oom",
        about: "Each out-of-memory event explained (request, device free, reserved, allocated, free pieces, \
                who held the memory, advice), then the peak; per device.",
        files: 1,
        options: &[DEVICE, CATEGORY],
        answer: |s, o| oom(snapshot(s[0])?, s[0].1, o).map(|r| oom_json(&r)),
    },
    Question {
        name: "leaks",
        about: "Allocations alive at the end by stack, stacks whose live bytes grow over the repetitions (iterations, a repeating record_function range or allocation pattern), \
                frees left pending on another stream; per device.",
        files: 1,
        options: &[DEVICE, CATEGORY],
        answer: |s, o| leaks(snapshot(s[0])?, s[0].1, o).map(|r| leaks_json(&r)),
    },
    Question {
        name: "findings",
        about: "What to know first about a trace, most important first: each OOM and its cause, a capped \
                device, stacks growing over iterations, gradients kept into the next forward, the optimizer \
                state's step-up, caching far above allocated, the peak by kind; per device.",
        files: 1,
        options: &[DEVICE, CATEGORY],
        answer: |s, o| findings(snapshot(s[0])?, s[0].1, o).map(|f| serde_json::to_value(f).unwrap_or_default()),
    },
    Question {
        name: "whatif",
        about: "The trace replayed through a model of PyTorch's CUDA caching allocator: the self-check under the \
                recording's own settings, then under `set` (expandable_segments, max_split_size_mb, \
                roundup_power2_divisions, garbage_collection_threshold as KEY:VALUE): peak and end reserved, \
                whether each OOM still happens, the capacity it needs; `sweep` ranks common configurations.",
        files: 1,
        options: &[
            DEVICE,
            ("set", "array", "'KEY:VALUE' allocator settings in PyTorch's spelling, e.g. 'expandable_segments:True'"),
            ("capacity", "string", "the device's capacity, e.g. '80GiB' (else from the OOM events)"),
            ("sweep", "boolean", "replay a fixed set of common configurations, ranked by peak reserved memory"),
        ],
        answer: |s, o| whatif(snapshot(s[0])?, s[0].1, o),
    },
    Question {
        name: "diff",
        about: "What changed from snapshot A to B (or two moments / devices of one): live bytes at the \
                moment (default: each side's peak) grouped in A, in B and B - A, largest change first.",
        files: 2,
        options: &[
            AT,
            ("at_a", "string", "the moment in A (else at)"),
            ("at_b", "string", "the moment in B (else at)"),
            DEVICE,
            ("device_a", "string", "the device in A (else device)"),
            ("device_b", "string", "the device in B (else device)"),
            DIFF_BY_OPT,
            LIMIT,
            CATEGORY,
        ],
        answer: |s, o| {
            let (a, b) = diff_sides(snapshot(s[0])?, s[0].1, snapshot(s[1])?, s[1].1, o)?;
            Ok(diff_json(&diff::diff(&a, &b, group_by(o, DIFF_BY)?), o))
        },
    },
];

/// `findings --json`: the findings of one device.
pub fn findings(snap: &Snapshot, file: &str, opts: &Opts) -> Result<memviz_core::analysis::findings::Findings, String> {
    let rules = Rules::parse(&opts.categories)?;
    let device = pick_device(snap, file, opts.device.as_deref())?;
    let a = Analysis::build(snap, device, &rules);
    Ok(a.findings(snap, &StateHistory::new(snap, device)))
}

/// `whatif --json`: the prediction under `--set` (or, with `--sweep`, every
/// configuration of the sweep, ranked).
pub fn whatif(snap: &Snapshot, file: &str, opts: &Opts) -> Result<Value, String> {
    let device = pick_device(snap, file, opts.device.as_deref())?;
    let capacity = opts.capacity.as_deref().map(crate::whatif::parse_capacity).transpose()?;
    let w = memviz_allocator::WhatIf::new(snap, device, capacity).map_err(|e| format!("{file}: {e}"))?;
    if opts.sweep {
        return Ok(Value::Array(w.sweep().iter().map(|p| w.to_json(p)).collect()));
    }
    let mut settings = w.recording.settings.clone();
    for kv in &opts.sets {
        settings.set(kv).map_err(|e| format!("--set {e}"))?;
    }
    Ok(w.to_json(&w.predict(settings)))
}

/// The question named `name`.
pub fn question(name: &str) -> Option<&'static Question> {
    QUESTIONS.iter().find(|q| q.name == name)
}

/// A snapshot, or why a torch.profiler export cannot answer.
fn snapshot<'a>((loaded, file): (&'a Loaded, &str)) -> Result<&'a Snapshot, String> {
    match loaded {
        Loaded::Snapshot(s) => Ok(s),
        Loaded::Profiler(p) => {
            Err(format!("{file}: not a memory snapshot but a {}: only summary reads it", p.format.describe()))
        }
    }
}

/// `--by`, else `default`.
fn group_by(opts: &Opts, default: &str) -> Result<GroupBy, String> {
    let spec = opts.by.as_deref().unwrap_or(default);
    GroupBy::from_name(spec).ok_or_else(|| format!("--by {spec:?}: expected stack, user, frame or category"))
}

/// `summary --json`: a snapshot's [`memviz_core::summary`], or what a
/// torch.profiler export holds.
pub fn summary(loaded: &Loaded) -> Value {
    match loaded {
        Loaded::Snapshot(s) => serde_json::to_value(memviz_core::summary::summarize(s)).unwrap_or_default(),
        Loaded::Profiler(p) => p.to_json(),
    }
}

/// `top`: what is alive at a moment, grouped.
pub struct Top {
    pub device: u32,
    pub at_spec: String,
    pub at: At,
    pub by_spec: String,
    pub by: GroupBy,
    pub total_bytes: u64,
    /// Live allocations.
    pub count: usize,
    pub totals: StateTotals,
    /// Groups before `limit`.
    pub group_count: usize,
    pub groups: Vec<Group>,
}

/// `opts.limit` groups (all when none; the terminal passes its own default).
pub fn top(snap: &Snapshot, file: &str, opts: &Opts) -> Result<Top, String> {
    let rules = Rules::parse(&opts.categories)?;
    let device = pick_device(snap, file, opts.device.as_deref())?;
    let at_spec = opts.at.clone().unwrap_or_else(|| "peak".to_string());
    let moment = Moment::parse(&at_spec)?;
    let by = group_by(opts, "stack")?;
    let a = Analysis::build(snap, device, &rules);
    let at = a.resolve(moment).map_err(|e| format!("{file}: {e}"))?;
    let live = a.live(at.position);
    let total_bytes = a.bytes_of(&live);
    let mut groups = a.groups(&live, by);
    let group_count = groups.len();
    groups.truncate(opts.limit.unwrap_or(usize::MAX));
    let h = StateHistory::new(snap, device);
    let mut cursor = h.cursor();
    let totals = a.state_totals(snap, &h, &mut cursor, &at);
    let by_spec = opts.by.clone().unwrap_or_else(|| "stack".to_string());
    Ok(Top { device, at_spec, at, by_spec, by, total_bytes, count: live.len(), totals, group_count, groups })
}

impl Top {
    pub fn to_json(&self) -> Value {
        json!({
            "device": self.device,
            "at": self.at_spec,
            "at_event": self.at.event,
            "position": self.at.position,
            "step": self.at.step,
            "total_bytes": self.total_bytes,
            "count": self.count,
            "reserved_bytes": self.totals.reserved_bytes,
            "gap_bytes": self.totals.gap_bytes,
            "free_bytes": self.totals.free_bytes,
            "free_pieces": self.totals.free_pieces,
            "largest_free_bytes": self.totals.largest_free_bytes,
            "by": self.by,
            "group_count": self.group_count,
            "groups": self.groups,
        })
    }
}

/// `--device D`, else every device with a trace (oom, leaks).
fn devices(snap: &Snapshot, file: &str, device: Option<&str>) -> Result<Vec<u32>, String> {
    if device.is_some() {
        return Ok(vec![pick_device(snap, file, device)?]);
    }
    let with_trace: Vec<u32> = snap.devices().into_iter().filter(|&d| !snap.trace(d).is_empty()).collect();
    if with_trace.is_empty() {
        return Err(format!("{file}: no device has a trace (nothing happened to explain)"));
    }
    Ok(with_trace)
}

/// Per device: its OOMs explained, and the peak.
pub type Ooms = Vec<(u32, Vec<Explanation>, Option<Explanation>)>;

pub fn oom(snap: &Snapshot, file: &str, opts: &Opts) -> Result<Ooms, String> {
    let rules = Rules::parse(&opts.categories)?;
    let mut all = Vec::new();
    for d in devices(snap, file, opts.device.as_deref())? {
        let a = Analysis::build(snap, d, &rules);
        let h = StateHistory::new(snap, d);
        let mut ex = a.explain_all(snap, &h);
        let peak = ex.pop();
        all.push((d, ex, peak));
    }
    Ok(all)
}

pub fn oom_json(all: &Ooms) -> Value {
    let out: Vec<Value> = all.iter().map(|(d, ooms, peak)| json!({"device": d, "ooms": ooms, "peak": peak})).collect();
    json!({ "devices": out })
}

/// Per device: its analysis (the text needs it) and leak report.
pub fn leaks(snap: &Snapshot, file: &str, opts: &Opts) -> Result<Vec<(Analysis, LeakReport)>, String> {
    let rules = Rules::parse(&opts.categories)?;
    let mut reports = Vec::new();
    for d in devices(snap, file, opts.device.as_deref())? {
        let a = Analysis::build(snap, d, &rules);
        let r = a.leaks(snap);
        reports.push((a, r));
    }
    Ok(reports)
}

pub fn leaks_json(reports: &[(Analysis, LeakReport)]) -> Value {
    let out: Vec<&LeakReport> = reports.iter().map(|(_, r)| r).collect();
    json!({ "devices": out })
}

/// The moments `diff` compares: `--at-a` / `--at-b`, else `--at`, else the peak.
pub fn diff_moments(opts: &Opts) -> (String, String) {
    let spec = |one: &Option<String>| one.as_deref().or(opts.at.as_deref()).unwrap_or("peak").to_string();
    (spec(&opts.at_a), spec(&opts.at_b))
}

/// One side of `diff`: only its text-keyed sums outlive the snapshot, so
/// the CLI reads B after dropping A.
pub fn diff_side(snap: &Snapshot, file: &str, opts: &Opts, b: bool) -> Result<Side, String> {
    let rules = Rules::parse(&opts.categories)?;
    let (at_a, at_b) = diff_moments(opts);
    let moment = Moment::parse(if b { &at_b } else { &at_a })?;
    let one = if b { &opts.device_b } else { &opts.device_a };
    let d = pick_device(snap, file, one.as_deref().or(opts.device.as_deref()))?;
    let a = Analysis::build(snap, d, &rules);
    Side::new(snap, &a, moment, file).map_err(|e| format!("{file}: {e}"))
}

fn diff_sides(a: &Snapshot, file_a: &str, b: &Snapshot, file_b: &str, opts: &Opts) -> Result<(Side, Side), String> {
    Ok((diff_side(a, file_a, opts, false)?, diff_side(b, file_b, opts, true)?))
}

pub fn diff_json(d: &Diff, opts: &Opts) -> Value {
    let (at_a, at_b) = diff_moments(opts);
    let mut v = serde_json::to_value(d).unwrap_or_default();
    v["a"]["at_spec"] = at_a.into();
    v["b"]["at_spec"] = at_b.into();
    // Each side's total at its moment, at the top for scripts.
    v["total_bytes"] = json!({"a": d.a.total_bytes, "b": d.b.total_bytes});
    if let Some(g) = v["groups"].as_array_mut() {
        g.truncate(opts.limit.unwrap_or(usize::MAX));
    }
    v
}

/// Reads a snapshot (or profiler export) from memory; warnings as text.
pub fn read(bytes: &[u8]) -> Result<(Loaded, Vec<String>), String> {
    let loaded = memviz_core::load_any(bytes).map_err(|e| e.to_string())?;
    let warnings = match &loaded {
        Loaded::Snapshot(s) => s.warnings.list.iter().map(|w| w.to_string()).collect(),
        Loaded::Profiler(p) => p.warnings.clone(),
    };
    Ok((loaded, warnings))
}

/// [`Opts`] from a JSON object of a question's options (MCP arguments,
/// Python keyword arguments): strings, `limit` a count, `device` a string
/// or number, `category` a string or a list of them. A key the question
/// does not take is an error naming the ones it does.
pub fn opts_from_json(q: &Question, args: &serde_json::Map<String, Value>, skip: &[&str]) -> Result<Opts, String> {
    let mut o = Opts::default();
    for (k, v) in args {
        if skip.contains(&k.as_str()) || v.is_null() {
            continue;
        }
        if !q.options.iter().any(|(name, _, _)| name == k) {
            let names: Vec<&str> = q.options.iter().map(|(n, _, _)| *n).collect();
            return Err(format!(
                "{}: no option {k:?} (it takes: {})",
                q.name,
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ));
        }
        let text = || match v {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) => Ok(n.to_string()),
            _ => Err(format!("{}: {k} must be a string, not {v}", q.name)),
        };
        match k.as_str() {
            "limit" => {
                o.limit =
                    Some(v.as_u64().ok_or_else(|| format!("{}: limit must be a whole number, not {v}", q.name))?
                        as usize)
            }
            "category" => match v {
                Value::String(s) => o.categories.push(s.clone()),
                Value::Array(a) => {
                    for r in a {
                        o.categories.push(
                            r.as_str()
                                .ok_or_else(|| format!("{}: category must hold strings, not {r}", q.name))?
                                .into(),
                        );
                    }
                }
                _ => return Err(format!("{}: category must be a string or a list of them, not {v}", q.name)),
            },
            "set" => match v {
                Value::String(s) => o.sets.push(s.clone()),
                Value::Array(a) => {
                    for r in a {
                        o.sets.push(
                            r.as_str().ok_or_else(|| format!("{}: set must hold strings, not {r}", q.name))?.into(),
                        );
                    }
                }
                _ => return Err(format!("{}: set must be a string or a list of them, not {v}", q.name)),
            },
            "sweep" => {
                o.sweep = v.as_bool().ok_or_else(|| format!("{}: sweep must be true or false, not {v}", q.name))?
            }
            "capacity" => o.capacity = Some(text()?),
            "at" => o.at = Some(text()?),
            "at_a" => o.at_a = Some(text()?),
            "at_b" => o.at_b = Some(text()?),
            "by" => o.by = Some(text()?),
            "device" => o.device = Some(text()?),
            "device_a" => o.device_a = Some(text()?),
            "device_b" => o.device_b = Some(text()?),
            other => {
                return Err(format!("{}: option {other:?} has no place in Opts yet (api::opts_from_json)", q.name))
            }
        }
    }
    Ok(o)
}
