//! Text as memory_viz shows it: sizes, versioned addresses, stack traces,
//! the timeline hover text and the state-history event lines.

use crate::annotations::{self, Annotation, Target};
use crate::model::{Action, Frame, Plain, Snapshot, StackId, UserMetadata};
use crate::timeline::{ElementSource, Timeline, TimelineKind};
use crate::versions::Versions;

const UNITS: [&str; 8] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi"];

/// memory_viz's `formatSize`: "1.5MiB (1572864 bytes)", or "1.5GiB" without
/// the byte count. One decimal, rounded like JS `toFixed(1)` (ties away from
/// zero on the exact value: 1280 bytes is "1.3KiB").
pub fn format_size(bytes: u64, show_bytes: bool) -> String {
    // bytes / 1024^k is exact in f64 for every u64 that JS could hold
    // exactly, so integer arithmetic reproduces toFixed(1) bit for bit.
    let mut k = 0;
    while k < UNITS.len() && (bytes as u128) >= 1u128 << (10 * (k + 1)) {
        k += 1;
    }
    let shift = 10 * k as u32;
    let tenths = if k == UNITS.len() {
        // Past Zi: never reached by a u64 (16 EiB max), kept for parity.
        ((bytes as u128) * 10 + (1u128 << (shift - 1))) >> shift
    } else if shift == 0 {
        bytes as u128 * 10
    } else {
        ((bytes as u128) * 10 + (1u128 << (shift - 1))) >> shift
    };
    let unit = if k == UNITS.len() { "Y" } else { UNITS[k] };
    let text = format!("{}.{}{}B", tenths / 10, tenths % 10, unit);
    if show_bytes && k < UNITS.len() {
        format!("{text} ({bytes} bytes)")
    } else {
        text
    }
}

/// The unit every label of a size axis is written in: that of its largest
/// tick `max` as [`format_size`] would pick it (0: B, 1: KiB, 2: MiB...), so
/// an axis reads `0.5GiB 1.0GiB 1.5GiB`, never `1000.0MiB 2.0GiB`.
pub fn axis_unit(max: f64) -> usize {
    let mut k = 0;
    while k + 1 < UNITS.len() && max >= 1024f64.powi(k as i32 + 1) {
        k += 1;
    }
    k
}

/// Tick `v` (bytes) of a size axis in unit `k` ([`axis_unit`]): one
/// decimal, as [`format_size`] writes sizes (`0.5GiB`, `1000.0MiB`).
pub fn format_size_in(v: f64, k: usize) -> String {
    let k = k.min(UNITS.len() - 1);
    format!("{:.1}{}B", v / 1024f64.powi(k as i32), UNITS[k])
}

/// Signed variant for deltas ("-1.5MiB (-1572864 bytes)").
pub fn format_size_signed(bytes: i64, show_bytes: bool) -> String {
    if bytes >= 0 {
        return format_size(bytes as u64, show_bytes);
    }
    let mag = bytes.unsigned_abs();
    let s = format_size(mag, false);
    // JS prints "-0.0B" for values that round to zero only when num is -0;
    // a negative integer byte count never rounds to zero at one decimal.
    if show_bytes {
        format!("-{s} ({bytes} bytes)")
    } else {
        format!("-{s}")
    }
}

/// `b7f064c000000_0` / `s7f064c000000_2`: lower-case hex, no `0x`, no
/// apostrophe (the Allocator State History style).
pub fn format_addr(is_segment: bool, addr: u128, version: u32) -> String {
    format!("{}{:x}_{}", if is_segment { 's' } else { 'b' }, addr, version)
}

/// [`format_addr`] while the address versions are on their way (a large
/// file shows before them): `b7f064c000000_…`.
pub fn format_addr_pending(is_segment: bool, addr: u128) -> String {
    format!("{}{:x}_…", if is_segment { 's' } else { 'b' }, addr)
}

const OMIT_FUNCTIONS: [&str; 8] = [
    "unwind::unwind",
    "CapturedTraceback::gather",
    "gather_with_cpp",
    "_start",
    "__libc_start_main",
    "PyEval_",
    "PyObject_",
    "PyFunction_",
];

const OMIT_FILENAMES: [&str; 10] = [
    "core/boxing",
    "/Register",
    "/Redispatch",
    "pythonrun.c",
    "Modules/main.c",
    "Objects/call.c",
    "Objects/methodobject.c",
    "pycore_ceval.h",
    "ceval.c",
    "cpython/abstract.h",
];

/// memory_viz's `frameFilter`: false for interpreter and dispatcher noise
/// (substring matches on the function name and the filename).
pub fn frame_filter(name: &str, filename: &str) -> bool {
    !OMIT_FUNCTIONS.iter().any(|o| name.contains(o)) && !OMIT_FILENAMES.iter().any(|o| filename.contains(o))
}

/// memory_viz's `elideRepeats`: a run of N > 2 identical lines becomes the
/// line followed by `<repeats N-1 times>`.
pub fn elide_repeats(lines: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    let mut it = lines.into_iter().peekable();
    while let Some(f) = it.next() {
        let mut n = 1usize;
        while it.peek() == Some(&f) {
            it.next();
            n += 1;
        }
        match n {
            1 => out.push(f),
            2 => {
                out.push(f.clone());
                out.push(f);
            }
            _ => {
                out.push(f);
                out.push(format!("<repeats {} times>", n - 1));
            }
        }
    }
    out
}

/// Text memory_viz shows when a stack has no frames (PR #124784 and later).
pub const NO_FRAMES_TEXT: &str = "This block has no frames. Potential causes:\n\
1) This block was allocated before _record_memory_history was enabled.\n\
2) The context or stacks passed to _record_memory_history does not include this block. Consider changing context to 'state', 'alloc', or 'all', or changing stacks to 'all'.\n\
3) This event occurred during backward, which has no python frames, and memory history did not include C++ frames. Use stacks='all' to record both C++ and python frames.\n\
4) This block was reconstructed from the allocator's segment snapshot (not from a trace event). The snapshot records which blocks exist at the moment _snapshot() is called, but does not carry stack frames. This typically happens for blocks that were allocated before tracing started and never freed, or for inactive blocks in private memory pools.\n\
5) The original alloc event was evicted from the trace ring buffer (older entries are overwritten when the buffer is full). Increase the max_entries argument to _record_memory_history to retain more events.";

/// Hover text of the summarized band.
pub const SUMMARIZED_TEXT: &str =
    "Small tensors that were not plotted to cutdown on render time.\nUse detail slider to see smaller allocations.";

/// Text of the ghost-block note in the timeline hover.
pub const GHOST_BLOCK_TEXT: &str =
    "[Ghost block] This block exists in the segment snapshot but has no alloc trace events. \
It was allocated before _record_memory_history() was called, or its alloc event was evicted \
from the trace ring buffer. The block is still active (not freed) at snapshot time.";

fn nonempty(snap: &Snapshot, id: Option<u32>) -> Option<&str> {
    id.map(|i| snap.strings.get(i)).filter(|s| !s.is_empty())
}

/// One frame as memory_viz prints it: `filename:line:name`, plus FX lines.
pub fn format_frame(snap: &Snapshot, f: &Frame) -> String {
    let mut s = format!("{}:{}:{}", snap.str(f.filename), f.line, snap.str(f.name));
    if let Some(fx) = snap.frame_fx.get(f.fx as usize) {
        let name = nonempty(snap, fx.node_name);
        let op = nonempty(snap, fx.node_op);
        let target = nonempty(snap, fx.node_target);
        if name.is_some() || op.is_some() || target.is_some() {
            let mut parts = Vec::new();
            if let Some(n) = name {
                parts.push(format!("node={n}"));
            }
            if let Some(o) = op {
                parts.push(format!("op={o}"));
            }
            if let Some(t) = target {
                parts.push(format!("target={t}"));
            }
            s.push_str("\n    >> FX: ");
            s.push_str(&parts.join(", "));
        }
        if let Some(orig) = nonempty(snap, fx.original_trace) {
            s.push_str("\n    >> Original Model Code:");
            for line in orig.trim().split('\n') {
                s.push_str("\n       ");
                s.push_str(line);
            }
        }
    }
    s
}

/// memory_viz's `format_frames` for an interned stack.
pub fn format_frames(snap: &Snapshot, stack: StackId) -> String {
    if stack as usize >= snap.stacks.len() {
        return NO_FRAMES_TEXT.to_string();
    }
    let ids = snap.stack(stack);
    if ids.is_empty() {
        return NO_FRAMES_TEXT.to_string();
    }
    let lines: Vec<String> = ids
        .iter()
        .filter_map(|&id| snap.frames.get(id as usize))
        .filter(|f| frame_filter(snap.str(f.name), snap.str(f.filename)))
        .map(|f| format_frame(snap, f))
        .collect();
    elide_repeats(lines).join("\n")
}

/// memory_viz's `format_user_metadata`; "" when there is none.
pub fn format_user_metadata(m: Option<&UserMetadata>) -> String {
    format_metadata("User Metadata:", m)
}

/// `title` then the metadata's lines (`  text` or `  key: value`), as
/// memory_viz shows user metadata; "" when there is none.
pub fn format_metadata(title: &str, m: Option<&UserMetadata>) -> String {
    match m {
        None => String::new(),
        Some(UserMetadata::Text(s)) if s.is_empty() => String::new(),
        Some(UserMetadata::Text(s)) => format!("{title}\n  {s}"),
        Some(UserMetadata::Map(kv)) if kv.is_empty() => String::new(),
        Some(UserMetadata::Map(kv)) => {
            let lines: Vec<String> = kv.iter().map(|(k, v)| format!("  {k}: {v}")).collect();
            format!("{title}\n{}", lines.join("\n"))
        }
    }
}

/// Metadata on one line, for the event list: the text, or `{key: value, ...}`.
pub fn metadata_inline(m: &UserMetadata) -> String {
    match m {
        UserMetadata::Text(s) => s.replace('\n', " "),
        UserMetadata::Map(kv) => {
            let items: Vec<String> = kv.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            format!("{{{}}}", items.join(", ").replace('\n', " "))
        }
    }
}

/// The annotations of an allocation, oldest first: for each, `Annotation
/// (event N, <time>):` then its metadata lines; "" when there are none.
pub fn format_annotations<'a>(snap: &Snapshot, list: impl Iterator<Item = &'a Annotation>) -> String {
    let mut out = Vec::new();
    for a in list {
        let trace = snap.trace(a.device);
        let i = a.event as usize;
        let when = match trace.time_us.get(i).filter(|&&t| t != crate::model::NO_TIME) {
            Some(&t) => format!("event {i}, {}", format_time_us(t)),
            None => format!("event {i}"),
        };
        let m = snap.extra(a.device, i).and_then(|x| x.user_metadata.as_ref());
        let text = format_metadata(&format!("Annotation ({when}):"), m);
        out.push(if text.is_empty() { format!("Annotation ({when}): (no metadata)") } else { text });
    }
    out.join("\n")
}

/// memory_viz's `format_forward_frames`; "" when there are none.
pub fn format_forward_frames(frames: &[String]) -> String {
    if frames.is_empty() {
        return String::new();
    }
    let joined: String = frames.concat();
    format!("\n\n=== Forward Pass Stack Trace (where this tensor was created) ===\n{}", joined.trim_end())
}

/// `time_us` as an ISO 8601 UTC date with milliseconds (JS `toISOString`
/// of `new Date(time_us / 1000)`).
pub fn format_time_us(time_us: i64) -> String {
    let ms = time_us.div_euclid(1000);
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

/// Days since 1970-01-01 -> (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn format_pool(pool: Option<(i64, i64)>) -> String {
    match pool {
        Some((a, b)) => format!("pool_id ({a}, {b})"),
        None => "pool_id unknown".to_string(),
    }
}

/// memory_viz's `context_for_id`: the hover text of timeline element `elem`.
/// (memory_viz's text pane shows it prefixed with the element index; see
/// [`hover_text`].) Differences, all deliberate: no "Invalid Date" when
/// `time_us` is missing (the timestamp is left out), the timestamp is ISO
/// 8601 UTC, a ghost block shows its own `user_metadata`, the address has no
/// apostrophe (as in the state history), and a ghost segment's address gets
/// the `s` prefix (memory_viz marks it `alloc` and so prints `b`).
/// `versions`: None while they are on their way (see
/// [`format_addr_pending`]).
pub fn context_for_element(snap: &Snapshot, versions: Option<&Versions>, tl: &Timeline, elem: u32) -> String {
    let Some((mut t, stack, forward)) = element_head(snap, versions, tl, elem) else {
        return String::new();
    };
    t.push('\n');
    t.push_str(&format_frames(snap, stack));
    t.push_str(&format_forward_frames(forward));
    t
}

/// [`context_for_element`] without its stack: the head (address, sizes,
/// notes), the element's stack and its forward frames.
fn element_head<'a>(
    snap: &'a Snapshot,
    versions: Option<&Versions>,
    tl: &Timeline,
    elem: u32,
) -> Option<(String, StackId, &'a [String])> {
    let e = tl.elements.get(elem as usize)?;
    let trace = snap.trace(tl.device);
    let event = match e.source {
        ElementSource::Alloc(i) | ElementSource::UnmatchedFree(i) if (i as usize) < trace.len() => Some(i as usize),
        _ => None,
    };
    let extra = event.and_then(|i| snap.extra(tl.device, i));
    let is_segment = match e.source {
        ElementSource::GhostSegment(_) => true,
        ElementSource::GhostBlock(_) => false,
        _ => event.is_some_and(|i| trace.action[i].is_segment()),
    };
    let mut t = format!(
        "Addr: {}, Size: {} allocation, Total memory used after allocation: {}",
        match versions {
            Some(v) => format_addr(is_segment, e.addr, e.source.version(v, tl.device)),
            None => format_addr_pending(is_segment, e.addr),
        },
        format_size(e.size, true),
        format_size(e.total_after_alloc, true)
    );
    let cc = extra.and_then(|x| x.compile_context).map(|c| snap.str(c)).unwrap_or("None");
    // The event's own pool_id (PyTorch 2.15) is known even when its segment
    // is gone by the dump; the segment's is the fallback.
    let pool = event.and_then(|i| trace.pool_id(i)).or_else(|| tl.pool_id(elem));
    t.push_str(&format!(", Compile context: {cc}, stream {}, {}", e.stream, format_pool(pool)));
    if let Some(ts) = event.and_then(|i| trace.time_us(i)) {
        t.push_str(", timestamp ");
        t.push_str(&format_time_us(ts));
    }
    if matches!(e.source, ElementSource::UnmatchedFree(_)) {
        t.push_str("\nalloc not recorded, stack trace for free:");
    }
    let mut metadata = extra.and_then(|x| x.user_metadata.as_ref());
    if let ElementSource::GhostBlock(b) = e.source {
        t.push('\n');
        t.push_str(GHOST_BLOCK_TEXT);
        metadata = snap.blocks.get(b as usize).and_then(|b| b.user_metadata.as_ref());
    }
    let internal = extra.and_then(|x| x.internal_metadata.as_ref());
    let target = match e.source {
        _ if tl.kind != TimelineKind::ActiveMemory => Target::Nothing,
        ElementSource::Alloc(i) => Target::Alloc(i),
        ElementSource::UnmatchedFree(i) => Target::freed_by(trace, i as usize),
        ElementSource::GhostBlock(b) => Target::Block(b),
        ElementSource::GhostSegment(_) => Target::Nothing,
    };
    let notes = [
        format_user_metadata(metadata),
        format_metadata("Internal Metadata:", internal),
        format_annotations(snap, annotations::of_target(snap, tl.device, target)),
    ];
    for note in notes.iter().filter(|n| !n.is_empty()) {
        t.push('\n');
        t.push_str(note);
    }
    let forward = extra.map_or(&[][..], |x| &x.forward_frames[..]);
    Some((t, e.stack, forward))
}

/// The text memory_viz's timeline pane shows for element `elem`:
/// `"{elem} {context}"`.
pub fn hover_text(snap: &Snapshot, versions: Option<&Versions>, tl: &Timeline, elem: u32) -> String {
    format!("{elem} {}", context_for_element(snap, versions, tl, elem))
}

/// A stack as the hover card shows it: the user's own frames first, every
/// other frame (PyTorch's Python, other packages, C++) folded behind one line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FoldedFrames {
    /// The user's frames ([`crate::analysis::live::is_user_file`]), innermost
    /// first; where there is none, the Python frames, else the autograd
    /// nodes, else the innermost frame, so that the card never shows none.
    pub shown: Vec<String>,
    /// The rest, innermost first, long C++ signatures shortened.
    pub folded: Vec<String>,
    /// "+42 frames in torch and C++"; "" when nothing is folded.
    pub label: String,
}

/// Lines longer than this are shortened ([`shorten_frame`]).
const FRAME_LINE_MAX: usize = 120;

/// A C++ frame line made readable: template arguments and parameter lists
/// become `<…>` and `(…)` (`(anonymous namespace)` is kept), and what is
/// still longer than [`FRAME_LINE_MAX`] characters is cut in the middle.
/// Python frames (`<module>`, `<lambda>`) and short lines are left alone.
pub fn shorten_frame(line: &str) -> String {
    if line.chars().count() <= FRAME_LINE_MAX {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len());
    let (mut angle, mut paren) = (0usize, 0usize);
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if paren == 0 && angle == 0 && rest.starts_with("(anonymous namespace)") {
            out.push_str("(anonymous namespace)");
            rest = &rest["(anonymous namespace)".len()..];
            continue;
        }
        // `operator<<` / `operator()` and `->` are not brackets.
        let op = rest.starts_with("operator") || rest.starts_with("->");
        if op {
            let n = if rest.starts_with("->") { 2 } else { 8 };
            if angle == 0 && paren == 0 {
                out.push_str(&rest[..n]);
            }
            rest = &rest[n..];
            if n == 8 {
                let sym: String = rest.chars().take_while(|c| "<>()=+-*/!&|[]~^%,".contains(*c)).collect();
                if angle == 0 && paren == 0 {
                    out.push_str(&sym);
                }
                rest = &rest[sym.len()..];
            }
            continue;
        }
        match c {
            '<' => {
                if angle == 0 && paren == 0 {
                    out.push_str("<…>");
                }
                angle += 1;
            }
            '>' if angle > 0 => angle -= 1,
            '(' if angle == 0 => {
                if paren == 0 {
                    out.push_str("(…)");
                }
                paren += 1;
            }
            ')' if angle == 0 && paren > 0 => paren -= 1,
            _ if angle == 0 && paren == 0 => out.push(c),
            _ => {}
        }
        rest = &rest[c.len_utf8()..];
    }
    let n = out.chars().count();
    if n <= FRAME_LINE_MAX {
        return out;
    }
    let keep = (FRAME_LINE_MAX - 1) / 2;
    let head: String = out.chars().take(keep).collect();
    let tail: String = out.chars().skip(n - keep).collect();
    format!("{head}…{tail}")
}

/// Where a folded frame comes from, for the fold's label: the package of a
/// Python file under site-packages (`torch`), "Python" for the standard
/// library and other .py files, "C++" for the rest.
fn frame_origin(file: &str) -> String {
    let f = file.replace('\\', "/");
    if !f.ends_with(".py") {
        return "C++".to_string();
    }
    for root in ["site-packages/", "dist-packages/"] {
        if let Some(i) = f.find(root) {
            let pkg = f[i + root.len()..].split('/').next().unwrap_or("");
            let pkg = pkg.strip_suffix(".py").unwrap_or(pkg);
            if !pkg.is_empty() {
                return pkg.to_string();
            }
        }
    }
    "Python".to_string()
}

/// `stack` folded for the hover card (see [`FoldedFrames`]); the frames are
/// those memory_viz shows ([`frame_filter`]), each as [`format_frame`].
pub fn fold_frames(snap: &Snapshot, stack: StackId) -> FoldedFrames {
    let ids: &[u32] = if (stack as usize) < snap.stacks.len() { snap.stack(stack) } else { &[] };
    let frames: Vec<&Frame> = ids
        .iter()
        .filter_map(|&id| snap.frames.get(id as usize))
        .filter(|f| frame_filter(snap.str(f.name), snap.str(f.filename)))
        .collect();
    if frames.is_empty() {
        return FoldedFrames { shown: vec![NO_FRAMES_TEXT.to_string()], ..Default::default() };
    }
    let file = |f: &Frame| snap.str(f.filename);
    let is_node = |f: &Frame| {
        let n = snap.str(f.name);
        n.contains("Backward") && n.contains("::apply")
    };
    let user = |f: &Frame| crate::analysis::live::is_user_file(file(f));
    let python = |f: &Frame| file(f).ends_with(".py");
    let rules: [&dyn Fn(&Frame) -> bool; 3] = [&user, &python, &is_node];
    let rule = rules.into_iter().find(|r| frames.iter().any(|f| r(f)));
    let picked: Vec<bool> = frames.iter().enumerate().map(|(i, f)| rule.map_or(i == 0, |r| r(f))).collect();
    let line = |f: &Frame| shorten_frame(&format_frame(snap, f));
    let pick = |want: bool| frames.iter().zip(&picked).filter(move |(_, &p)| p == want).map(|(f, _)| *f);
    let shown: Vec<String> = pick(true).map(line).collect();
    let rest: Vec<&Frame> = pick(false).collect();
    let mut origins: Vec<String> = Vec::new();
    for f in &rest {
        let o = frame_origin(file(f));
        if !origins.contains(&o) {
            origins.push(o);
        }
    }
    // C++ last: "torch and C++" reads as where the user goes to look.
    origins.sort_by_key(|o| o == "C++");
    let label = match origins.len() {
        0 => String::new(),
        _ => {
            let names = match origins.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, init)) => format!("{} and {last}", init.join(", ")),
                None => String::new(),
            };
            let n = rest.len();
            format!("+{n} frame{} in {names}", if n == 1 { "" } else { "s" })
        }
    };
    FoldedFrames { shown: elide_repeats(shown), folded: elide_repeats(rest.iter().map(|f| line(f)).collect()), label }
}

/// The hover card of timeline element `elem`, as JSON: `head` (the
/// [`context_for_element`] text above the stack), `frames` / `fold` /
/// `folded` ([`fold_frames`]) and `tail` (the forward-pass frames); `{}`
/// for no such element.
pub fn hover_card(snap: &Snapshot, versions: Option<&Versions>, tl: &Timeline, elem: u32) -> String {
    let Some((head, stack, forward)) = element_head(snap, versions, tl, elem) else {
        return "{}".to_string();
    };
    let f = fold_frames(snap, stack);
    serde_json::json!({
        "head": format!("{elem} {head}"),
        "frames": f.shown,
        "fold": f.label,
        "folded": f.folded,
        "tail": format_forward_frames(forward).trim_start(),
    })
    .to_string()
}

/// memory_viz's `formatEvent` (Allocator State History list) for event `i` of
/// `device`'s trace, with the action name as in the file.
pub fn format_event(snap: &Snapshot, versions: &Versions, device: u32, i: usize) -> String {
    let t = snap.trace(device);
    if i >= t.len() {
        return String::new();
    }
    format_event_as(snap, versions, device, i, t.action_name(i))
}

/// [`format_event`] with another action name: memory_viz shows a
/// free_requested merged with its free_completed (see
/// [`crate::versions::merged_free`]) as `free`.
pub fn format_event_as(snap: &Snapshot, versions: &Versions, device: u32, i: usize, action: &str) -> String {
    let t = snap.trace(device);
    if i >= t.len() {
        return String::new();
    }
    let stream = format!("\n              (stream {})", t.stream[i]);
    match t.action[i] {
        Action::Oom => {
            let free = snap.extra(device, i).and_then(|x| x.device_free).unwrap_or(0);
            format!(
                "OOM (requested {}, Device has {} memory free){stream}",
                format_size(t.size[i], true),
                format_size(free, true)
            )
        }
        Action::Snapshot => "snapshot".to_string(),
        // The annotation's metadata on its line; the address carries the
        // version of the allocation it attaches to.
        Action::Annotate => {
            let a = annotations::of_event(snap, device, i);
            let version = a.map(|a| annotation_version(versions, a)).unwrap_or(0);
            let addr = format_addr(false, t.addr(i), version);
            let m = snap.extra(device, i).and_then(|x| x.user_metadata.as_ref()).map(metadata_inline);
            let note = m.map(|m| format!(" {m}")).unwrap_or_default();
            format!("{action:<14} {addr:<18} {}{note}{stream}", format_size(t.size[i], true))
        }
        a => {
            let addr =
                format_addr(a.is_segment() || action.starts_with("segment"), t.addr(i), versions.of_event(device, i));
            format!("{action:<14} {addr:<18} {}{stream}", format_size(t.size[i], true))
        }
    }
}

/// The address version an annotation's line shows: that of the allocation it
/// attaches to (memory_viz versions only allocs and frees).
fn annotation_version(versions: &Versions, a: &Annotation) -> u32 {
    match a.target {
        Target::Alloc(i) | Target::Freed(i) => versions.of_event(a.device, i as usize),
        Target::Block(b) => versions.of_block(b as usize),
        Target::Nothing => 0,
    }
}

/// Text of the Allocator Settings view when the snapshot has none.
pub const NO_ALLOCATOR_SETTINGS: &str = "No allocator settings recorded in this snapshot.";

/// `allocator_settings` as readable text: `key: value` lines, nested dicts
/// indented by two spaces under their key, lists of scalars compact on one
/// line (`roundup_power2_divisions: [1, 2, 4]`), strings unquoted at the top
/// of a line and quoted inside lists. [`NO_ALLOCATOR_SETTINGS`] when absent.
pub fn format_allocator_settings(settings: Option<&Plain>) -> String {
    let Some(p) = settings else {
        return NO_ALLOCATOR_SETTINGS.to_string();
    };
    let mut out = String::new();
    match p {
        Plain::Map(kv) if kv.is_empty() => return "(empty)".to_string(),
        Plain::Map(kv) => settings_map(&mut out, kv, 0),
        other => out.push_str(&other.repr()),
    }
    out.truncate(out.trim_end().len());
    out
}

fn settings_map(out: &mut String, kv: &[(Plain, Plain)], depth: usize) {
    for (k, v) in kv {
        let key = match k {
            Plain::Str(s) => s.clone(),
            other => other.repr(),
        };
        out.push_str(&"  ".repeat(depth));
        out.push_str(&key);
        out.push(':');
        match v {
            Plain::Map(m) if !m.is_empty() => {
                out.push('\n');
                settings_map(out, m, depth + 1);
            }
            Plain::Str(s) => {
                out.push(' ');
                out.push_str(s);
                out.push('\n');
            }
            other => {
                out.push(' ');
                out.push_str(&other.repr());
                out.push('\n');
            }
        }
    }
}

/// A size as people type it: `80GiB`, `2.3GiB`, `512MiB`, `1e9`,
/// `3221225472` (bytes; binary units K/M/G/T and KiB.., decimal KB..).
/// The one parser for sizes typed in (`memviz whatif --capacity`, the page's
/// capacity field); an error names `field` and the text.
pub fn parse_size(field: &str, text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" | "K" => 1 << 10,
        "MiB" | "M" => 1 << 20,
        "GiB" | "G" => 1 << 30,
        "TiB" | "T" => 1 << 40,
        "KB" => 1000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        u => return Err(format!("{field} {text:?}: unknown unit {u:?} (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)")),
    };
    let n: f64 =
        num.trim().parse().map_err(|_| format!("{field} {text:?}: expected a number of bytes or e.g. 80GiB"))?;
    if !(n.is_finite() && n > 0.0) {
        return Err(format!("{field} {text:?}: must be a positive size"));
    }
    let bytes = n * scale as f64;
    if bytes >= u64::MAX as f64 {
        return Err(format!("{field} {text:?}: too large"));
    }
    Ok(bytes as u64)
}

/// A stack key (frames one a line, innermost first) cut to `n` lines for a
/// table cell: the program's own frames first
/// ([`crate::analysis::live::is_user_file`]), else Python frames, else whatever
/// there is (the C++ allocator frames at the top say nothing), and how many
/// more there are.
pub fn short_stack(key: &str, n: usize) -> String {
    let lines: Vec<&str> = key.lines().collect();
    fn file_of(l: &str) -> Option<&str> {
        l.find(".py:").map(|i| &l[..i + 3])
    }
    let py: Vec<&str> = lines.iter().copied().filter(|l| file_of(l).is_some()).collect();
    let user: Vec<&str> =
        py.iter().copied().filter(|l| file_of(l).is_some_and(crate::analysis::live::is_user_file)).collect();
    let pick = if !user.is_empty() {
        user
    } else if !py.is_empty() {
        py
    } else {
        lines.clone()
    };
    let pick = &pick[..pick.len().min(n)];
    let more = lines.len() - pick.len();
    let mut s = pick.join("\n");
    if more > 0 {
        s.push_str(&format!("\n  (+{more} more frames: hover)"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FrameFx;

    #[test]
    fn sizes_like_js_to_fixed() {
        assert_eq!(format_size(0, true), "0.0B (0 bytes)");
        assert_eq!(format_size(1023, true), "1023.0B (1023 bytes)");
        assert_eq!(format_size(1024, true), "1.0KiB (1024 bytes)");
        assert_eq!(format_size(1572864, true), "1.5MiB (1572864 bytes)");
        assert_eq!(format_size(1610612736, false), "1.5GiB");
        // 1280 B = 1.25 KiB exactly: toFixed rounds the tie up.
        assert_eq!(format_size(1280, false), "1.3KiB");
        // 1.05 KiB is not exact in binary in general, but 1075.2 B is not an
        // integer; 1076 B = 1.05078 KiB -> 1.1.
        assert_eq!(format_size(1076, false), "1.1KiB");
        // Just below 1 MiB: stays in KiB and rounds to 1024.0.
        assert_eq!(format_size(1048575, false), "1024.0KiB");
        assert_eq!(format_size(u64::MAX, false), "16.0EiB");
        assert_eq!(format_size_signed(-1572864, true), "-1.5MiB (-1572864 bytes)");
    }

    #[test]
    fn axis_labels_in_one_unit() {
        let gib = 1024f64.powi(3);
        let k = axis_unit(2.5 * gib);
        let labels: Vec<String> = [0.0, 0.5, 1.0, 2.5].iter().map(|v| format_size_in(v * gib, k)).collect();
        assert_eq!(labels, ["0.0GiB", "0.5GiB", "1.0GiB", "2.5GiB"]);
        // Just under 1 GiB the axis stays in MiB, as format_size does.
        assert_eq!(format_size_in(1000.0 * 1048576.0, axis_unit(1000.0 * 1048576.0)), "1000.0MiB");
        assert_eq!(axis_unit(0.0), 0);
        assert_eq!(format_size_in(512.0, axis_unit(512.0)), "512.0B");
    }

    #[test]
    fn addresses() {
        assert_eq!(format_addr(false, 0x7f064c000000, 0), "b7f064c000000_0");
        assert_eq!(format_addr(true, 0x7F00, 2), "s7f00_2");
    }

    #[test]
    fn repeats_are_elided() {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            elide_repeats(v(&["a", "a", "b", "c", "c", "c", "c"])),
            v(&["a", "a", "b", "c", "<repeats 3 times>"])
        );
        assert_eq!(elide_repeats(v(&[])), v(&[]));
    }

    #[test]
    fn frames_filtered_and_fx() {
        let mut snap = Snapshot::default();
        let f = |snap: &mut Snapshot, file: &str, line: i64, name: &str, fx: u32| {
            let filename = snap.strings.push(file);
            let name = snap.strings.push(name);
            snap.frames.push(Frame { filename, line, name, fx });
            (snap.frames.len() - 1) as u32
        };
        let a = f(&mut snap, "model.py", 10, "forward", u32::MAX);
        let b = f(&mut snap, "Python/ceval.c", 1, "eval", u32::MAX);
        let c = f(&mut snap, "x.cpp", 2, "PyEval_EvalFrame", u32::MAX);
        let op = snap.strings.push("call_function");
        let tr = snap.strings.push("  y = x + 1\n  return y\n");
        snap.frame_fx.push(FrameFx {
            node_op: Some(op),
            node_name: Some(0),
            node_target: None,
            original_trace: Some(tr),
        });
        let d = f(&mut snap, "gen.py", 5, "fn", 0);
        let s = snap.stacks.push(&[a, b, c, a, a, a, d]);
        assert_eq!(
            format_frames(&snap, s),
            "model.py:10:forward\n<repeats 3 times>\ngen.py:5:fn\n    >> FX: op=call_function\n    >> Original Model Code:\n       y = x + 1\n         return y"
        );
        assert_eq!(format_frames(&snap, 0), NO_FRAMES_TEXT);
        assert!(NO_FRAMES_TEXT.starts_with("This block has no frames. Potential causes:\n1) "));
    }

    #[test]
    fn cpp_signatures_shortened() {
        let long = format!(
            "/pytorch/aten/src/ATen/native/Foo.cpp:12:void at::native::(anonymous namespace)::kernel<float, std::vector<int, std::allocator<int> > >(at::Tensor const&, {})",
            "c10::ArrayRef<long> ".repeat(8)
        );
        assert_eq!(
            shorten_frame(&long),
            "/pytorch/aten/src/ATen/native/Foo.cpp:12:void at::native::(anonymous namespace)::kernel<…>(…)"
        );
        assert_eq!(shorten_frame("model.py:3:<module>"), "model.py:3:<module>");
        let plain = "x".repeat(300);
        let cut = shorten_frame(&plain);
        assert!(cut.chars().count() <= FRAME_LINE_MAX);
        assert!(cut.contains('…'));
    }

    #[test]
    fn user_frames_first_rest_folded() {
        let mut snap = Snapshot::default();
        let f = |snap: &mut Snapshot, file: &str, name: &str| {
            let filename = snap.strings.push(file);
            let name = snap.strings.push(name);
            snap.frames.push(Frame { filename, line: 1, name, fx: u32::MAX });
            (snap.frames.len() - 1) as u32
        };
        let cpp = f(&mut snap, "/pytorch/c10/cuda/CUDACachingAllocator.cpp", "malloc");
        let torch = f(&mut snap, "/usr/lib/python3/site-packages/torch/nn/modules/linear.py", "forward");
        let user = f(&mut snap, "/home/me/train.py", "main");
        let noise = f(&mut snap, "Python/ceval.c", "PyEval_EvalFrame");
        let s = snap.stacks.push(&[cpp, torch, noise, user]);
        let folded = fold_frames(&snap, s);
        assert_eq!(folded.shown, vec!["/home/me/train.py:1:main".to_string()]);
        assert_eq!(folded.folded.len(), 2);
        assert_eq!(folded.label, "+2 frames in torch and C++");
        // No user frame: the Python frames are shown.
        let s = snap.stacks.push(&[cpp, torch]);
        assert_eq!(fold_frames(&snap, s).label, "+1 frame in C++");
        // Only C++: the innermost frame stays in view.
        let s = snap.stacks.push(&[cpp, cpp]);
        let only = fold_frames(&snap, s);
        assert_eq!((only.shown.len(), only.label.as_str()), (1, "+1 frame in C++"));
    }

    #[test]
    fn metadata_and_forward_frames() {
        assert_eq!(format_user_metadata(None), "");
        assert_eq!(format_user_metadata(Some(&UserMetadata::Text("step 3".into()))), "User Metadata:\n  step 3");
        let m = UserMetadata::Map(vec![("a".into(), "1".into()), ("b".into(), "x".into())]);
        assert_eq!(format_user_metadata(Some(&m)), "User Metadata:\n  a: 1\n  b: x");
        assert_eq!(format_user_metadata(Some(&UserMetadata::Map(vec![]))), "");
        assert_eq!(
            format_forward_frames(&["a.py:1\n".into(), "b.py:2\n\n".into()]),
            "\n\n=== Forward Pass Stack Trace (where this tensor was created) ===\na.py:1\nb.py:2"
        );
    }

    #[test]
    fn iso_time() {
        assert_eq!(format_time_us(0), "1970-01-01T00:00:00.000Z");
        // 2024-02-29T12:34:56.789Z = 1709210096789 ms.
        assert_eq!(format_time_us(1_709_210_096_789_123), "2024-02-29T12:34:56.789Z");
        assert_eq!(format_time_us(-1), "1969-12-31T23:59:59.999Z");
        // Garbage times format without panicking.
        assert!(!format_time_us(i64::MAX).is_empty());
        assert!(!format_time_us(i64::MIN + 1).is_empty());
    }

    #[test]
    fn allocator_settings_text() {
        assert_eq!(format_allocator_settings(None), NO_ALLOCATOR_SETTINGS);
        let s = |x: &str| Plain::Str(x.into());
        let p = Plain::Map(vec![
            (s("PYTORCH_CUDA_ALLOC_CONF"), s("expandable_segments:True")),
            (s("max_split_size"), Plain::Int(-1)),
            (s("garbage_collection_threshold"), Plain::Float(0.0)),
            (s("expandable_segments"), Plain::Bool(true)),
            (s("roundup_power2_divisions"), Plain::List(vec![Plain::Int(1), Plain::Int(2), Plain::Int(4)])),
            (s("nested"), Plain::Map(vec![(s("a"), Plain::None), (s("b"), Plain::List(vec![s("x")]))])),
        ]);
        assert_eq!(
            format_allocator_settings(Some(&p)),
            "PYTORCH_CUDA_ALLOC_CONF: expandable_segments:True\nmax_split_size: -1\ngarbage_collection_threshold: 0.0\n\
expandable_segments: True\nroundup_power2_divisions: [1, 2, 4]\nnested:\n  a: None\n  b: ['x']"
        );
        assert_eq!(format_allocator_settings(Some(&Plain::Map(vec![]))), "(empty)");
    }

    #[test]
    fn sizes_as_typed() {
        assert_eq!(parse_size("f", "80GiB"), Ok(80 << 30));
        assert_eq!(parse_size("f", " 512MiB "), Ok(512 << 20));
        assert_eq!(parse_size("f", "2.5GiB"), Ok(5 << 29));
        assert_eq!(parse_size("f", "3221225472"), Ok(3221225472));
        assert_eq!(parse_size("f", "1e9"), Ok(1_000_000_000));
        assert_eq!(parse_size("f", "2GB"), Ok(2_000_000_000));
        let e = parse_size("capacity", "80 parsecs").unwrap_err();
        assert!(e.starts_with("capacity \"80 parsecs\": unknown unit"), "{e}");
        assert!(parse_size("--capacity", "-1").unwrap_err().contains("must be a positive size"));
        assert!(parse_size("--capacity", "1.2.3GiB")
            .unwrap_err()
            .starts_with("--capacity \"1.2.3GiB\": expected a number"));
        assert!(parse_size("f", "1e30TiB").unwrap_err().contains("too large"));
    }
}
