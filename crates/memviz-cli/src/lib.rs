//! memviz: PyTorch CUDA memory snapshots in the terminal and in CI. The
//! `memviz` binary is `main` over this library; the Python package
//! (python/) calls the same `main` for its `memviz` command and [`api`] for
//! its methods, as the MCP server (`memviz mcp`) does.

#[cfg(feature = "render")]
mod chart;
#[cfg(feature = "render")]
mod glyphs;
pub mod html;
#[cfg(feature = "render")]
mod profiler_chart;

use std::io::Read;

#[cfg(feature = "render")]
use memviz_core::timeline::TimelineKind;
pub use memviz_core::{Loaded, Loader, Snapshot};

mod analysis;
pub mod api;
mod mcp;
mod multi;
mod serve;
mod whatif;

const USAGE: &str = "\
memviz: read PyTorch CUDA memory snapshots (torch.cuda.memory._dump_snapshot)

USAGE:
    memviz summary FILE [--json]
        Per device: trace events by action, segments, reserved and allocated
        bytes, and the Active Memory / Active Cached Segment Timelines' start,
        peak and end.
    memviz state FILE --device D --event N [--json]
        The Allocator State History right after trace event N (0-based in
        device D's trace): reserved and allocated bytes, segments, blocks.
        D is a CUDA device number, or 'host' for pinned host memory.
    memviz info FILE [--json]
        What the file holds: format, protocol, devices, trace and stack sizes.
    memviz top FILE [--device D] [--at peak|oom|oom:K|end|start|step:S|EVENT]
               [--by stack|user|frame|category] [--limit N] [--json]
        What is alive at that moment (default: the peak), grouped, largest
        first: by whole stack, innermost user frame, every frame (inclusive)
        or kind (parameter, gradient, optimizer_state, activation,
        autograd_saved, temporary, other).
    memviz oom FILE [--device D] [--json]
        Each OOM explained (request, device free, reserved, allocated, free
        pieces, who held the memory, advice where the numbers show a cause),
        then the peak.
    memviz leaks FILE [--device D] [--json]
        Allocations alive at the end by stack, stacks whose live bytes grow
        every iteration, frees left pending on another stream.
    memviz findings FILE [--device D] [--json]
        What to know first, most important first, one line each: every OOM
        and its cause (too_large, fragmentation, live_tensors, caching,
        capped), a cap below the device (capped), stacks growing over the
        iterations (growth), gradients kept into the next forward
        (gradients_kept), reserved far above allocated (caching), the peak by
        kind (peak), the first optimizer step's state (optimizer_state).
        --json: {'device': D, 'findings': [{'kind', 'title', 'bytes',
        'event', 'detail'}]} (JSON, double quotes).

    top, oom, leaks and findings take --category 'REGEX=KIND' (repeatable, first match
    wins over the built-in inference): REGEX is matched against the stack's
    shown frames, 'filename:line:name' one a line, innermost first.
    memviz diff A B [--at peak|end|oom|step:S|EVENT] [--by user|stack|frame|category]
               [--device D] [--limit N] [--json]
        What changed from A to B: live bytes at the moment (default: each
        side's peak) grouped (by the innermost user frame unless --by) in A,
        in B, and B - A, largest change first;
        groups only in A or only in B. Stacks match by their frames' text
        (file, line, function), never by address. --at-a/--at-b and
        --device-a/--device-b set one side (A and B may be the same file:
        two moments or two devices of one trace).
    memviz overview FILE... [--json]
        Many snapshots at once (the ranks of one run): one row per file and
        device, files with a rank in their name (rank3, _r3_, -3.) in rank
        order: peak active, peak reserved, end, OOMs, and how far the peak is
        from the median peak.
    memviz render FILE --view active|segments|categories [--device D]
                  [--x step|time] [--width W --height H] -o OUT.png|OUT.svg [--json]
        Draws the Active Memory (active) or Active Cached Segment (segments)
        Timeline into a PNG or SVG file (default 1200x600): every allocation,
        axes in KiB/MiB/GiB, the peak (dashed red) and OOM events (purple),
        record_function phases (external_annotations) as labelled bands.
        --x time: x is time_us (seconds from the first event; idle gaps
        compressed and marked); files without time_us keep steps and say so.
        categories: a snapshot's inferred kinds stacked over the Active
        Memory Timeline; a torch.profiler memory timeline (.json /
        .raw.json.gz) by its categories; a Chrome trace's
        [memory] events as allocated / reserved of one device (--device
        cuda:0, cpu). --json prints what was drawn where.
    memviz html FILE [-o OUT.html] [--viewer VIEWER.html]
        One self-contained HTML file, the web viewer with the snapshot inside
        (gzip+base64), that opens from file:// and makes no network request.
        Default OUT: FILE's name with .html. The viewer is the one built into
        this binary (dist/memviz-standalone.html when it was compiled), or
        --viewer.
    memviz whatif FILE [--device D] [--set KEY:VALUE]... [--capacity BYTES|80GiB]
                  [--sweep] [--json]
        Replays the trace through a model of PyTorch's CUDA caching allocator:
        first under the recording's own allocator_settings (the self-check:
        the model must make the segment events the trace shows), then under
        the settings --set changes (expandable_segments, max_split_size_mb,
        roundup_power2_divisions, garbage_collection_threshold, PyTorch's
        spelling): the peak and end reserved memory, whether each recorded
        OOM still happens, new OOMs, the capacity the run needs. The capacity
        is --capacity, else what the OOM events show (a per-process cap when
        the device had room). --sweep ranks common configurations by peak
        reserved memory.
    memviz open FILE... [--port P] [--no-browser]
    memviz serve [FILE...] [--port P]
        The viewer built into this binary served on 127.0.0.1 (a free port
        unless --port) with the files loaded from that server (several open
        as ranks); open starts the desktop's browser on it, serve (and
        --no-browser) prints the URL and the ssh -L line for a remote
        machine. Ctrl-C stops it.
    memviz mcp
        A Model Context Protocol server on stdin/stdout (JSON-RPC, one
        message a line) for coding agents: tools summary, top, oom, leaks and
        diff, answering what --json prints.

FILE may be a pickle (protocol 2 to 5), JSON, or either gzip-compressed;
summary and render also read torch.profiler's memory exports (above);
'-' reads standard input. Errors print one line naming the file, the problem
and the byte offset, and exit with status 1. Entries of the file that could
not be read as they are print one warning line each on stderr.
";

/// The CLI: `args` without the program's name; what it prints, and the
/// exit status (errors as one `memviz: ...` line on stderr).
pub fn main(args: &[String]) -> u8 {
    match run(args) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("memviz: {msg}");
            1
        }
    }
}

/// The command line's options; also what the Python package and the MCP
/// server fill in to ask [`api`] the same questions.
#[derive(Default, Clone)]
pub struct Opts {
    pub json: bool,
    /// As given: a number or `host`, resolved once the file is read.
    pub device: Option<String>,
    pub event: Option<u64>,
    pub file: Option<String>,
    /// Files after the first (only `diff` takes one).
    pub more_files: Vec<String>,
    pub at: Option<String>,
    /// One side of `diff` (else `at` / `device` for both).
    pub at_a: Option<String>,
    pub at_b: Option<String>,
    pub device_a: Option<String>,
    pub device_b: Option<String>,
    pub by: Option<String>,
    pub limit: Option<usize>,
    pub categories: Vec<String>,
    pub view: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub output: Option<String>,
    pub viewer: Option<String>,
    /// `render --x time`: wall-clock x axis.
    pub x_time: bool,
    /// `open` / `serve`: the port (else a free one), and no browser.
    pub port: Option<u16>,
    pub no_browser: bool,
    /// `whatif --set KEY:VALUE` (repeatable).
    pub sets: Vec<String>,
    /// `whatif --capacity`, as given.
    pub capacity: Option<String>,
    /// `whatif --sweep`.
    pub sweep: bool,
}

fn parse_opts(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => o.json = true,
            "--no-browser" => o.no_browser = true,
            "--sweep" => o.sweep = true,
            "--set" | "--capacity" => {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?.clone();
                if a == "--set" {
                    o.sets.push(v);
                } else {
                    o.capacity = Some(v);
                }
            }
            "--port" => {
                let v = it.next().ok_or_else(|| "--port needs a number".to_string())?;
                o.port = Some(v.parse().map_err(|_| format!("--port needs a port number, not {v:?}"))?);
            }
            "--x" => match it.next().map(String::as_str) {
                Some("time") => o.x_time = true,
                Some("step") => o.x_time = false,
                v => return Err(format!("--x needs step or time, not {v:?}")),
            },
            "--device" => {
                let v = it.next().ok_or_else(|| format!("{a} needs a device number or 'host'"))?;
                o.device = Some(v.clone());
            }
            "--at-a" | "--at-b" | "--device-a" | "--device-b" => {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?.clone();
                match a.as_str() {
                    "--at-a" => o.at_a = Some(v),
                    "--at-b" => o.at_b = Some(v),
                    "--device-a" => o.device_a = Some(v),
                    _ => o.device_b = Some(v),
                }
            }
            "--at" | "--by" | "--category" => {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?.clone();
                match a.as_str() {
                    "--at" => o.at = Some(v),
                    "--by" => o.by = Some(v),
                    _ => o.categories.push(v),
                }
            }
            "--view" | "-o" | "--output" | "--viewer" => {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?.clone();
                match a.as_str() {
                    "--view" => o.view = Some(v),
                    "--viewer" => o.viewer = Some(v),
                    _ => o.output = Some(v),
                }
            }
            "--width" | "--height" => {
                let v = it.next().ok_or_else(|| format!("{a} needs a number of pixels"))?;
                let n: u32 = v.parse().map_err(|_| format!("{a} needs a number of pixels, not {v:?}"))?;
                if a == "--width" {
                    o.width = Some(n);
                } else {
                    o.height = Some(n);
                }
            }
            "--limit" => {
                let v = it.next().ok_or_else(|| "--limit needs a number".to_string())?;
                o.limit = Some(v.parse().map_err(|_| format!("--limit needs a number, not {v:?}"))?);
            }
            "--event" => {
                let v = it.next().ok_or_else(|| format!("{a} needs a number"))?;
                o.event = Some(v.parse().map_err(|_| format!("{a} needs a number, not {v:?}"))?);
            }
            s if s.starts_with("--") => return Err(format!("unknown option {s}\n\n{USAGE}")),
            s => {
                if o.file.is_some() {
                    o.more_files.push(s.to_string());
                } else {
                    o.file = Some(s.to_string());
                }
            }
        }
    }
    Ok(o)
}

/// Reads the file in chunks into the streaming loader, so a large snapshot
/// is never held twice.
pub(crate) fn load(path: &str) -> Result<Snapshot, String> {
    match load_any(path)? {
        Loaded::Snapshot(s) => Ok(s),
        Loaded::Profiler(p) => Err(format!(
            "{path}: not a memory snapshot but a {}: `memviz summary` and `memviz render` read it",
            p.format.describe()
        )),
    }
}

/// A snapshot or a torch.profiler memory export (memory timeline, raw
/// timeline, Chrome trace with [memory] events).
pub(crate) fn load_any(path: &str) -> Result<Loaded, String> {
    let mut reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?)
    };
    let mut loader = Loader::new();
    let mut buf = vec![0u8; 4 << 20];
    loop {
        let n = reader.read(&mut buf).map_err(|e| format!("{path}: {e}"))?;
        if n == 0 {
            break;
        }
        loader.feed(&buf[..n]).map_err(|e| format!("{path}: {e}"))?;
    }
    let loaded = loader.finish_any().map_err(|e| format!("{path}: {e}"))?;
    // What was left out or read as a default: one line each, so a script
    // reading stdout is not disturbed and a person still sees it.
    let warnings: Vec<String> = match &loaded {
        Loaded::Snapshot(snap) => snap.warnings.list.iter().map(|w| w.to_string()).collect(),
        Loaded::Profiler(p) => p.warnings.clone(),
    };
    for w in warnings {
        eprintln!("memviz: {path}: warning: {w}");
    }
    Ok(loaded)
}

fn run(args: &[String]) -> Result<(), String> {
    let Some(cmd) = args.first() else {
        print!("{USAGE}");
        return Ok(());
    };
    if matches!(cmd.as_str(), "-h" | "--help" | "help") {
        print!("{USAGE}");
        return Ok(());
    }
    let opts = parse_opts(&args[1..])?;
    match cmd.as_str() {
        "open" | "serve" => return serve::run(cmd, &opts),
        "mcp" => return mcp::run(),
        _ => {}
    }
    let file = opts.file.clone().ok_or_else(|| format!("{cmd}: FILE missing\n\n{USAGE}"))?;
    match cmd.as_str() {
        "diff" => return multi::diff(&file, &opts),
        "overview" => return multi::overview(&file, &opts),
        _ => {}
    }
    if !opts.more_files.is_empty() {
        return Err(format!("more than one FILE given\n\n{USAGE}"));
    }
    match cmd.as_str() {
        "summary" => {
            let loaded = load_any(&file)?;
            if opts.json {
                println!("{}", serde_json::to_string_pretty(&api::summary(&loaded)).unwrap_or_default());
            } else {
                match &loaded {
                    Loaded::Snapshot(s) => print!("{file}\n{}", memviz_core::summary::summarize(s).to_text()),
                    Loaded::Profiler(p) => print!("{file}\n{}", p.to_text()),
                }
            }
            Ok(())
        }
        "top" | "oom" | "leaks" | "findings" => analysis::run(cmd, &file, &opts),
        "whatif" => whatif::run(&file, &opts),
        "state" => {
            let snap = load(&file)?;
            let device = pick_device(&snap, &file, opts.device.as_deref())?;
            let name = snap.device_name(device);
            let n = snap.trace(device).len();
            let event =
                opts.event.ok_or_else(|| format!("state: --event N is needed (device {name} has {n} trace events)"))?;
            if event as usize >= n {
                return Err(format!(
                    "{file}: no event {event} on device {name}: its trace has {n} events (0 to {})",
                    n.saturating_sub(1)
                ));
            }
            let s = memviz_core::state::summary(&snap, device, Some(event as usize));
            if opts.json {
                let mut v = serde_json::to_value(&s).unwrap();
                v["device_name"] = name.clone().into();
                println!("{}", serde_json::to_string_pretty(&v).unwrap());
            } else {
                let size = |b: u64| memviz_core::format::format_size(b, true);
                println!("{file}, device {name}, after event {event} ({})", s.action.as_deref().unwrap_or("?"));
                println!("  reserved      {}", size(s.reserved_bytes));
                println!("  allocated     {}", size(s.allocated_bytes));
                println!("  segments      {}", s.segments);
                println!("  blocks        {} ({} waiting on another stream)", s.blocks, s.pending_free_blocks);
                println!(
                    "  free          {} in {} pieces, largest {}",
                    size(s.free_bytes),
                    s.free_pieces,
                    size(s.largest_free_bytes)
                );
                for (kind, count) in &s.inconsistencies {
                    println!("  inconsistent  {kind}: {count}");
                }
            }
            Ok(())
        }
        "render" => render(&file, &opts),
        "html" => html(&file, &opts),
        "info" => {
            let snap = load(&file)?;
            let info = info(&snap);
            if opts.json {
                println!("{}", serde_json::to_string_pretty(&info).unwrap());
            } else {
                println!("{file}: {}", info["format"].as_str().unwrap_or(""));
                for (k, v) in info.as_object().unwrap() {
                    if k != "format" {
                        println!("  {k}: {v}");
                    }
                }
            }
            Ok(())
        }
        _ => Err(format!("unknown command {cmd:?}\n\n{USAGE}")),
    }
}

/// `--device D`, or the default device; errors name the devices there are.
pub(crate) fn pick_device(snap: &Snapshot, file: &str, device: Option<&str>) -> Result<u32, String> {
    match device {
        Some(name) => snap.device_by_name(name).ok_or_else(|| {
            let names: Vec<String> = snap.devices().into_iter().map(|d| snap.device_name(d)).collect();
            format!("{file}: no device {name} (devices with segments or a trace: {})", names.join(", "))
        }),
        None => snap.default_device().ok_or_else(|| format!("{file}: the snapshot has no device")),
    }
}

#[cfg(feature = "render")]
fn parse_view(v: Option<&str>) -> Result<TimelineKind, String> {
    match v {
        Some("active") => Ok(TimelineKind::ActiveMemory),
        Some("segments") => Ok(TimelineKind::CachedSegments),
        Some(v) => Err(format!("--view must be active or segments (categories: a torch.profiler export), not {v:?}")),
        None => Err("render: --view active|segments is needed (categories: a torch.profiler export)".to_string()),
    }
}

#[cfg(not(feature = "render"))]
fn render(_file: &str, _opts: &Opts) -> Result<(), String> {
    Err("this memviz was built without charts (feature `render`): cargo build --release -p memviz-cli".to_string())
}

#[cfg(feature = "render")]
fn render(file: &str, opts: &Opts) -> Result<(), String> {
    // categories: a torch.profiler memory timeline (or trace), known once read.
    let categories = opts.view.as_deref() == Some("categories");
    let kind = if categories { TimelineKind::ActiveMemory } else { parse_view(opts.view.as_deref())? };
    let out = opts.output.as_deref().ok_or("render: -o OUT.png or -o OUT.svg is needed")?;
    let lower = out.to_ascii_lowercase();
    let format = if lower.ends_with(".png") {
        chart::Format::Png
    } else if lower.ends_with(".svg") {
        chart::Format::Svg
    } else {
        return Err(format!("render: -o {out:?}: the name must end in .png or .svg"));
    };
    let (width, height) = (opts.width.unwrap_or(1200), opts.height.unwrap_or(600));
    // Before reading a large file: a bad size is the user's typo.
    chart::check_size(width, height)?;
    let title = std::path::Path::new(file).file_name().map_or(file.to_string(), |n| n.to_string_lossy().into_owned());
    let snap = match load_any(file)? {
        Loaded::Snapshot(s) if categories => {
            // The kinds (README, "Explaining the memory") stacked over the Active Memory Timeline.
            let device = pick_device(&s, file, opts.device.as_deref())?;
            let rules = memviz_core::analysis::Rules::parse(&opts.categories)?;
            let tl = memviz_core::timeline::Timeline::build(&s, device, TimelineKind::ActiveMemory);
            let a = memviz_core::analysis::Analysis::new(&s, &tl, &rules);
            let chart = memviz_core::analysis::over_time::kinds_chart(&a);
            // OOM events: a line after the actions before each.
            let ooms: Vec<f64> = a.oom_events.iter().map(|&ev| tl.events.partition_point(|&e| e < ev) as f64).collect();
            let (bytes, info) = profiler_chart::render_with(&chart, width, height, format, &title, &ooms)?;
            std::fs::write(out, &bytes).map_err(|e| format!("{out}: {e}"))?;
            if opts.json {
                let mut v = serde_json::to_value(&info).unwrap();
                v["output"] = out.into();
                v["bytes"] = bytes.len().into();
                v["device"] = device.into();
                println!("{}", serde_json::to_string_pretty(&v).unwrap());
            } else {
                let size = |b: i64| memviz_core::format::format_size(b.max(0) as u64, false);
                println!(
                    "{out}: {}x{}, device {device}, {}, peak {} at position {} of {}",
                    info.width,
                    info.height,
                    info.chart,
                    size(info.peak_bytes),
                    info.peak_position.unwrap_or(0),
                    info.points.saturating_sub(1)
                );
            }
            return Ok(());
        }
        Loaded::Snapshot(s) => s,
        Loaded::Profiler(p) => {
            let chart = profiler_chart::pick(&p, file, opts.device.as_deref())?;
            let (bytes, info) = profiler_chart::render(chart, width, height, format, &title)?;
            std::fs::write(out, &bytes).map_err(|e| format!("{out}: {e}"))?;
            if opts.json {
                let mut v = serde_json::to_value(&info).unwrap();
                v["output"] = out.into();
                v["bytes"] = bytes.len().into();
                println!("{}", serde_json::to_string_pretty(&v).unwrap());
            } else {
                let size = |b: i64| memviz_core::format::format_size(b.max(0) as u64, false);
                println!(
                    "{out}: {}x{}, {}, {} points over {}, peak {} at {}",
                    info.width,
                    info.height,
                    info.chart,
                    info.points,
                    profiler_chart::fmt_time(info.duration_s, info.duration_s),
                    size(info.peak_bytes),
                    profiler_chart::fmt_time(info.peak_s, info.duration_s)
                );
            }
            return Ok(());
        }
    };
    let device = pick_device(&snap, file, opts.device.as_deref())?;
    let t0 = std::time::Instant::now();
    let req = chart::Request { kind, device, width, height, format, title: &title, x_time: opts.x_time };
    let (bytes, info) = chart::render(&snap, &req).map_err(|e| format!("{file}: {e}"))?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    std::fs::write(out, &bytes).map_err(|e| format!("{out}: {e}"))?;
    if opts.json {
        let mut v = serde_json::to_value(&info).unwrap();
        v["output"] = out.into();
        v["bytes"] = bytes.len().into();
        v["render_ms"] = ((ms * 10.0).round() / 10.0).into();
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    } else {
        let size = |b: u64| memviz_core::format::format_size(b, false);
        println!(
            "{out}: {}x{}, device {device}, {}, peak {} at step {} of {}{} ({ms:.0} ms)",
            info.width,
            info.height,
            info.view,
            size(info.peak_bytes),
            info.peak_step,
            info.n_steps,
            match info.oom_steps.len() {
                0 => String::new(),
                n => format!(", {n} OOM"),
            },
        );
    }
    Ok(())
}

fn html(file: &str, opts: &Opts) -> Result<(), String> {
    if file == "-" {
        return Err("html: FILE must be a file (its name goes into the page), not standard input".to_string());
    }
    let (viewer, origin) = html::viewer(opts.viewer.as_deref())?;
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    // A file the page could not open is reported here, not in the browser.
    memviz_core::load_any(&bytes).map_err(|e| format!("{file}: {e}"))?;
    let path = std::path::Path::new(file);
    let name = path.file_name().map_or(file.to_string(), |n| n.to_string_lossy().into_owned());
    let out = match &opts.output {
        Some(o) => o.clone(),
        None => {
            let stem = name.strip_suffix(".gz").unwrap_or(&name);
            let stem =
                std::path::Path::new(stem).file_stem().map_or(stem.to_string(), |s| s.to_string_lossy().into_owned());
            format!("{stem}.html")
        }
    };
    let page = html::page(&viewer, &name, &bytes)?;
    std::fs::write(&out, &page).map_err(|e| format!("{out}: {e}"))?;
    println!(
        "{out}: {} (snapshot {} as gzip+base64; viewer: {origin})",
        fmt_len(page.len()),
        fmt_len(page.len().saturating_sub(viewer.len()))
    );
    Ok(())
}

fn fmt_len(n: usize) -> String {
    memviz_core::format::format_size(n as u64, false)
}

fn info(snap: &Snapshot) -> serde_json::Value {
    let format = if snap.json { "JSON".to_string() } else { format!("pickle protocol {}", snap.protocol) };
    serde_json::json!({
        "format": format,
        "bare_segment_list": snap.bare_segment_list,
        "devices": snap.devices().into_iter().map(|d| snap.device_name(d)).collect::<Vec<_>>(),
        "default_device": snap.default_device().map(|d| snap.device_name(d)),
        // Per entry of device_traces (the host's trace is apart).
        "trace_events": snap.traces.iter().enumerate().filter(|(d, _)| Some(*d as u32) != snap.host_device).map(|(_, t)| t.len()).collect::<Vec<_>>(),
        "host_trace_events": snap.host_device.map(|h| snap.trace(h).len()),
        "segments": snap.segments.len(),
        "blocks": snap.blocks.len(),
        "frames": snap.frames.len(),
        "stacks": snap.stacks.len(),
        "strings": snap.strings.len(),
        "model_heap_bytes": snap.heap_bytes(),
        "unknown_keys": snap.warnings.unknown_keys,
        "warnings": snap.warnings.list.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
    })
}
