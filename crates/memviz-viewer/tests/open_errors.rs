//! The open path's refusals keep the core's kind and byte offset
//! (`PageError`), and a file is routed on its first bytes (`sniff`).
//! Expected values from Python, not from the reader under test:
//! - small_train_step.pickle is 72171 bytes (`len(open(p,'rb').read())`);
//!   its first 36085 bytes make `pickle.loads` raise "pickle data was
//!   truncated": the input ends at byte 36085.
//! - `pickle.dumps({'segments': [collections.OrderedDict(a=1)]}, protocol=4)`
//!   (the bytes below); `pickletools.genops` puts its STACK_GLOBAL at 54.

use std::path::PathBuf;

use memviz_viewer::boundary::ErrorKind;
use memviz_viewer::{sniff, FileKind, OpenCommand, Viewer};

fn shared(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{} (../shared must sit beside the repository): {e}", p.display()))
}

#[test]
fn a_truncated_real_snapshot_says_truncated_at_its_end() {
    let bytes = shared("snapshots/small_train_step.pickle");
    assert_eq!(bytes.len(), 72171);
    let cut = &bytes[..36085];
    // Read in chunks, as the page does.
    let mut v = Viewer::new();
    v.open_command(OpenCommand::Begin { name: "cut.pickle".into() }).unwrap();
    for c in cut.chunks(4096) {
        v.feed_any(c).unwrap();
    }
    let e = v.open_command(OpenCommand::Finish).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Decode(memviz_core::ErrorKind::Truncated));
    assert_eq!(e.offset, Some(36085));
    assert!(e.message.starts_with("cut.pickle: "), "{}", e.message);
    assert!(e.message.ends_with("at byte offset 36085"), "{}", e.message);
    // The page reads the core's kind as its own string, next to the viewer's.
    let wire = serde_json::to_value(&e).unwrap();
    assert_eq!((wire["kind"].as_str(), wire["offset"].as_u64()), (Some("truncated"), Some(36085)));
    let no_file = serde_json::to_value(memviz_viewer::boundary::PageError::no_file()).unwrap();
    assert_eq!(no_file["kind"], "no_file");
    // Whole, the same.
    let e = Viewer::new().open("cut.pickle", cut).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Decode(memviz_core::ErrorKind::Truncated), Some(36085)));
    assert_eq!(v.file_count(), 0);
}

#[test]
fn a_pickle_that_builds_objects_is_refused_where_it_asks() {
    let hostile = b"\x80\x04\x95\x3a\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x08segments\x94\x5d\x94\x8c\x0bcollections\x94\x8c\x0bOrderedDict\x94\x93\x94\x29\x52\x94\x8c\x01a\x94\x4b\x01\x73\x61\x73\x2e";
    assert_eq!(hostile[54], 0x93, "STACK_GLOBAL");
    let mut v = Viewer::new();
    v.open_command(OpenCommand::Begin { name: "evil.pickle".into() }).unwrap();
    let e = v.feed_any(hostile).and_then(|()| v.open_command(OpenCommand::Finish).map(|_| ())).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Decode(memviz_core::ErrorKind::RefusedOpcode));
    assert_eq!(e.offset, Some(54));
}

#[test]
fn files_are_routed_on_their_first_bytes() {
    let head = |b: &[u8]| sniff(&b[..b.len().min(memviz_viewer::SNIFF_HEAD)]);
    let s = head(&shared("snapshots/small_train_step.pickle"));
    assert_eq!((s.kind, s.profiler), (FileKind::Pickle, false));
    // A pickle under a .json name (../shared/snapshots/README.md): the bytes decide.
    let s = head(&shared("snapshots/oom_pickle_named_json.json"));
    assert_eq!((s.kind, s.profiler), (FileKind::Pickle, false));
    let s = head(&shared("recordings/profiler_resnet50_memory_timeline.json"));
    assert_eq!((s.kind, s.gzip, s.profiler), (FileKind::ProfilerTimeline, false, true));
    let s = head(&shared("recordings/profiler_resnet50_memory_timeline.raw.json.gz"));
    assert_eq!((s.kind, s.gzip, s.profiler), (FileKind::ProfilerTimeline, true, true));
    let s = head(&shared("recordings/profiler_resnet50_trace.json.gz"));
    assert_eq!((s.kind, s.gzip, s.profiler), (FileKind::ProfilerTrace, true, true));
    let s = head(&shared("recordings/profiler_resnet50_memory_timeline.html"));
    assert_eq!((s.kind, s.profiler), (FileKind::ProfilerPicture, false));
}

#[test]
fn commands_out_of_order_are_the_pages_bug() {
    let mut v = Viewer::new();
    let e = v.open_command(OpenCommand::Finish).unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadCommand);
    let e = v.open_command(OpenCommand::Example).unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadCommand);
}

#[test]
fn the_warm_up_opens_a_real_snapshot_both_ways() {
    memviz_viewer::warm_up("small_train_step.pickle", &shared("snapshots/small_train_step.pickle")).unwrap();
    let cut = &shared("snapshots/small_train_step.pickle")[..36085];
    let e = memviz_viewer::warm_up("cut.pickle", cut).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Decode(memviz_core::ErrorKind::Truncated), Some(36085)));
}

#[test]
fn a_read_left_unfinished_does_not_take_the_next_files_bytes() {
    let bytes = shared("snapshots/small_train_step.pickle");
    let mut v = Viewer::new();
    // Cancelled after its first chunk: never finished.
    v.open_command(OpenCommand::Begin { name: "cancelled.pickle".into() }).unwrap();
    v.feed_any(&bytes[..1000]).unwrap();
    // The next file comes from the worker: its model's chunks are the model's.
    let mut loader = memviz_core::Loader::new();
    loader.feed(&bytes).unwrap();
    let snap = loader.finish().unwrap();
    let mut model = Vec::new();
    snap.wire_chunks(&mut |c| model.push(c));
    v.open_command(OpenCommand::AdoptBegin { name: "adopted.pickle".into(), read_ms: 0.0 }).unwrap();
    for c in &model {
        v.feed_any(c).unwrap();
    }
    v.open_command(OpenCommand::AdoptEnd).unwrap();
    let r = v.open_command(OpenCommand::AdoptFinish).unwrap();
    assert_eq!(r.file, Some(0));
    assert_eq!(v.file_names(), ["adopted.pickle"]);
}

/// The page's idle warm-up input (memviz-wasm/example/warm.pickle.gz, made
/// from the built-in example by warm_slice.py): what Python's pickle module
/// reads in it (65 segments, 688 blocks, the last 1,000 trace events) is what
/// the decoder reads, and it opens both ways.
#[test]
fn the_warm_up_slice_is_the_examples_last_events() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../memviz-wasm/example/warm.pickle.gz");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let snap = memviz_core::load(&bytes).unwrap();
    assert_eq!((snap.segments.len(), snap.blocks.len(), snap.traces[0].len()), (65, 688, 1000));
    memviz_viewer::warm_up("warm.pickle.gz", &bytes).unwrap();
}

/// How the page reads a file: ctx128 (3226220 bytes, `ls -l`) on the page, a
/// file over 4 MiB in the worker, `?decode=` forcing either; the progress
/// line's sizes as memory_viz's formatSize writes them (3226220 / 2**20 = 3.08 -> 3.1MiB).
#[test]
fn a_file_is_read_by_size_and_its_progress_line_names_it() {
    let size = shared("snapshots/transformer_fullstep_ctx128.pickle").len() as u64;
    assert_eq!(size, 3226220);
    let plan = |size: u64, force: Option<&str>| {
        let cmd = OpenCommand::Plan { size, force: force.map(String::from) };
        Viewer::new().open_command(cmd).unwrap().plan.unwrap()
    };
    assert!(!plan(size, None).worker);
    assert!(plan(size, Some("worker")).worker);
    assert!(plan(58985140, None).worker);
    assert!(!plan(58985140, Some("page")).worker);
    assert_eq!(plan(size, None).sniff_head, 64 << 10);
    // Buffers for the worker's chunks: 0.45x a file over 4 MiB, at most 64 MiB.
    assert_eq!((plan(size, None).pool, plan(size, Some("worker")).pool), (0, 0));
    assert_eq!(plan(58985140, None).pool, 26543313);
    assert_eq!(plan(1 << 30, None).pool, 64 << 20);
    let line = |read, building, waiting| {
        // As the page sends it: the read state's fields beside `waiting`.
        let json = serde_json::json!({"cmd": "progress", "name": "ctx128.pickle", "size": size, "read": read, "building": building, "waiting": waiting});
        let cmd: OpenCommand = serde_json::from_value(json).unwrap();
        Viewer::new().open_command(cmd).unwrap().text.unwrap()
    };
    assert_eq!(line(None, false, 0), "Reading ctx128.pickle…");
    assert_eq!(line(Some(1 << 20), false, 2), "Reading ctx128.pickle: 1.0MiB of 3.1MiB (2 more to open)");
    assert_eq!(line(Some(size), true, 0), "Building the timeline of ctx128.pickle…");
}

/// A failed open's line: a cancel is a notice (announced), the rest errors
/// that name the file; the wording the e2e tests match.
#[test]
fn a_failed_open_is_worded_once() {
    use memviz_viewer::{failed, OpenFailure};
    let c = failed("big.pickle", OpenFailure::Cancelled, "");
    assert_eq!(
        (c.text.as_str(), c.announce.as_deref()),
        ("Opening big.pickle: cancelled", Some("Opening big.pickle cancelled"))
    );
    let t = failed("big.pickle", OpenFailure::WorkerTrap, "boom (at x.rs:1)");
    assert_eq!(t.text, "internal error in memviz: boom (at x.rs:1); the file could not be shown (big.pickle).");
    assert_eq!(t.announce, None);
    let o = failed("big.pickle", OpenFailure::WorkerOom, "").text;
    assert!(
        o.starts_with("big.pickle: out of memory in the decoder") && o.ends_with("The file shown before stays."),
        "{o}"
    );
    assert_eq!(
        failed("a", OpenFailure::Refused, "a: truncated at byte offset 3").text,
        "Could not open a: truncated at byte offset 3"
    );
}

/// The adopt's timings: each command's step kind, summed; the versions
/// absent until the first of them; the longest step named.
#[test]
fn adopt_steps_are_timed_by_kind() {
    use memviz_viewer::WorkerTimings;
    let step = |json: &str| serde_json::from_str::<OpenCommand>(json).unwrap().adopt_step().unwrap();
    let mut t = WorkerTimings::new(50.0);
    t.add(step(r#"{"cmd": "adopt_begin", "name": "a"}"#), 1.0);
    t.add(step(r#"{"cmd": "adopt_chunk"}"#), 2.0);
    t.add(step(r#"{"cmd": "adopt_replay", "budget": 1}"#), 7.0);
    t.add(step(r#"{"cmd": "adopt_finish"}"#), 3.0);
    let json = serde_json::to_value(&t).unwrap();
    assert_eq!(json["model"], 3.0);
    assert_eq!(
        (json["longest"].as_f64(), json["longestStep"].as_str(), json["last"].as_f64()),
        (Some(7.0), Some("replay"), Some(3.0))
    );
    assert!(json.get("versions").is_none(), "{json}");
    t.add(step(r#"{"cmd": "versions_end", "file": 0}"#), 0.5);
    assert_eq!((t.versions, t.read), (Some(0.5), 50.0));
    assert_eq!(serde_json::from_str::<OpenCommand>(r#"{"cmd": "plan", "size": 1}"#).unwrap().adopt_step(), None);
}

/// share.js's refusals of a `#file=` path and of an embedded snapshot, worded here.
#[test]
fn shared_files_refused_say_why() {
    use memviz_viewer::{failed, OpenFailure};
    let line = |f, d| failed("runs/a.pickle", f, d).text;
    assert_eq!(
        line(OpenFailure::HashNotRelative, ""),
        "Could not open #file=runs/a.pickle: only a path relative to this page is allowed (no scheme, no leading /)"
    );
    assert_eq!(
        line(OpenFailure::HashStatus, "404 Not Found"),
        "Could not open #file=runs/a.pickle: the server answered 404 Not Found"
    );
    assert_eq!(line(OpenFailure::HashFetch, "Failed to fetch"), "Could not open #file=runs/a.pickle: Failed to fetch");
    assert!(line(OpenFailure::HashFromFile, "")
        .ends_with("serve the folder (python3 -m http.server, or memviz open FILE) and open its index.html#file=…"));
    assert_eq!(
        failed("s.pickle", OpenFailure::Embedded, "bad").text,
        "Could not open the embedded s.pickle: its base64 is damaged (bad)"
    );
}

#[test]
fn the_fetch_of_shared_paths_is_a_progress_line() {
    let mut v = Viewer::new();
    let r = v.open_command(OpenCommand::Fetching { paths: vec!["runs/a.pickle".into(), "b.pickle".into()] }).unwrap();
    assert_eq!(r.text.as_deref(), Some("Fetching runs/a.pickle, b.pickle…"));
}
