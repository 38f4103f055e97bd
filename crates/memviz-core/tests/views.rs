//! Views on the real snapshots in ../shared/snapshots, checked against
//! numbers computed independently in Python (tests/views_reference.py, a
//! standard-library replay of memory_viz's process_alloc_data).

use std::path::PathBuf;
use std::process::Command;

use memviz_core::format::{self, format_addr};
use memviz_core::model::Action;
use memviz_core::summary::summarize;
use memviz_core::timeline::{DetailView, ElementSource, Hit, Timeline, TimelineKind};
use memviz_core::versions;

fn snapshots_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/snapshots")
}

fn load(name: &str) -> memviz_core::Snapshot {
    let path = snapshots_dir().join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    memviz_core::load(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

const SNAPSHOTS: [&str; 11] = [
    "compile_context_metadata.pickle",
    "cuda_graph_private_pools_state_only.pickle",
    "expandable_segments_map_unmap.pickle",
    "oom_pickle_named_json.json",
    "llm_inference_no_timestamps.pickle",
    "segments_only_list.pkl",
    "small_train_step.pickle",
    "transformer_forward_bf16.pickle",
    "transformer_forward_mixed_ctx256.pickle",
    "transformer_fullstep_ctx128.pickle",
    "two_devices_state_only.pickle",
];

/// Figures from `python3 crates/memviz-core/tests/views_reference.py
/// ../shared/snapshots/transformer_fullstep_ctx128.pickle` (the issue gives
/// 19342 events, 6771 allocs, 1010 segments).
#[test]
fn fullstep_summary_figures() {
    let snap = load("transformer_fullstep_ctx128.pickle");
    let s = summarize(&snap);
    assert_eq!(s.devices.0.len(), 1);
    let (d, dev) = &s.devices.0[0];
    assert_eq!(*d, 0);
    assert_eq!(dev.trace_events, 19342);
    let acts: Vec<(&str, u64)> = dev.actions.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(acts, vec![("alloc", 6771), ("free_completed", 5894), ("free_requested", 5894), ("segment_alloc", 783)]);
    assert_eq!(dev.segments, 1010);
    assert_eq!(dev.reserved_bytes, 61111009280);
    assert_eq!(dev.allocated_bytes, 54873829888);
    assert_eq!(dev.active_blocks, 1201);
    let a = &dev.active_memory;
    assert_eq!(
        (a.start_bytes, a.peak_bytes, a.end_bytes, a.elements, a.actions, a.initially_allocated),
        (13628553216, 54802667524, 54597857284, 7095, 12665, 324)
    );
    let g = &dev.segment_memory;
    assert_eq!(
        (g.start_bytes, g.peak_bytes, g.end_bytes, g.elements, g.actions, g.initially_allocated),
        (13763608576, 61111009280, 61111009280, 1010, 783, 227)
    );
    // The segment timeline ends at the reserved bytes of the dump, the
    // active one at the dump's active_allocated requested bytes.
    assert_eq!(g.end_bytes, dev.reserved_bytes);
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    assert_eq!(tl.peak_step(), 12661);
    let text = s.to_text();
    assert!(text.contains("segments          1010 (56.9GiB reserved, 51.1GiB allocated)"), "{text}");
}

/// Every real snapshot: the whole summary equals the Python replay's.
#[test]
fn all_summaries_match_python_reference() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/views_reference.py");
    for name in SNAPSHOTS {
        let out = match Command::new("python3").arg(&script).arg(snapshots_dir().join(name)).output() {
            Ok(o) if o.status.success() => o.stdout,
            Ok(o) => panic!("{name}: reference script failed: {}", String::from_utf8_lossy(&o.stderr)),
            Err(e) => panic!("python3 is needed for the reference numbers: {e}"),
        };
        let mut want: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let snap = load(name);
        let mut peak_steps = Vec::new();
        for (d, dev) in want["devices"].as_object_mut().unwrap() {
            for k in ["active_memory", "segment_memory"] {
                let p = dev[k].as_object_mut().unwrap().remove("peak_step").unwrap();
                peak_steps.push((d.parse::<u32>().unwrap(), k, p.as_u64().unwrap()));
            }
        }
        let got = serde_json::to_value(summarize(&snap)).unwrap();
        assert_eq!(got, want, "{name}");
        // Device keys in ascending numeric order, as serialized.
        let json = serde_json::to_string(&summarize(&snap)).unwrap();
        let keys: Vec<u32> = summarize(&snap).devices.0.iter().map(|(d, _)| *d).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{name}");
        assert!(json.starts_with("{\"devices\":{"), "{name}");
        for (d, k, p) in peak_steps {
            let kind = if k == "active_memory" { TimelineKind::ActiveMemory } else { TimelineKind::CachedSegments };
            assert_eq!(Timeline::build(&snap, d, kind).peak_step() as u64, p, "{name} {d} {k}");
        }
    }
}

/// Timelines stay consistent with the dump: the active timeline ends at the
/// requested bytes of live blocks; bands plus summarized band make the total
/// at every step, for several detail limits.
#[test]
fn detail_views_add_up_on_real_files() {
    let mut summarized_hits = 0;
    for name in ["transformer_fullstep_ctx128.pickle", "small_train_step.pickle", "two_devices_state_only.pickle"] {
        let snap = load(name);
        for d in snap.devices() {
            for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
                let tl = Timeline::build(&snap, d, kind);
                for limit in [0, 10, 1000, 15000] {
                    let dv = DetailView::new(&tl, limit);
                    assert_eq!(dv.drawn_count() as usize, tl.elements.len().min(limit as usize));
                    for step in (0..tl.n_steps()).step_by(37) {
                        let mut drawn = 0u64;
                        let mut last_order = None;
                        dv.bands_at(&tl, step, |b| {
                            assert_eq!(b.offset, drawn);
                            let o = tl.elements[b.elem as usize].order;
                            assert!(last_order.is_none_or(|l| l < o));
                            last_order = Some(o);
                            drawn += b.size;
                        });
                        assert_eq!(drawn + dv.summarized(&tl)[step as usize], tl.total[step as usize], "{name} {step}");
                        if dv.summarized(&tl)[step as usize] > 0 {
                            assert_eq!(dv.hit(&tl, step, drawn), Some(Hit::Summarized));
                            summarized_hits += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(summarized_hits > 0, "no step had a summarized band: the Summarized hit was never checked");
}

/// Hover text pieces on a real file: the largest element of
/// transformer_fullstep_ctx128, its address version and frames.
#[test]
fn hover_text_on_real_file() {
    let snap = load("transformer_fullstep_ctx128.pickle");
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let v = versions::compute(&snap);
    let big = tl.by_size[0];
    let e = tl.elements[big as usize];
    let text = format::context_for_element(&snap, Some(&v), &tl, big);
    // Element, address and size from `views_reference.py FILE --hover 0`
    // (elem 2060, "b7f2b54000000_0", 164626432 bytes, alloc_step 3215); the
    // size text from views_hover_reference.py's size().
    assert_eq!(big, 2060);
    assert!(text.starts_with("Addr: b7f2b54000000_0, Size: 157.0MiB (164626432 bytes) allocation"), "{text}");
    assert!(text.contains(", Compile context: None, stream "), "{text}");
    assert!(text.contains(", pool_id (0, 0)"), "{text}");
    // Allocated by the trace (alloc_step 3215), and this file records
    // time_us: shown as an ISO date.
    let ElementSource::Alloc(i) = e.source else { panic!("element {big} is not from an alloc: {:?}", e.source) };
    assert!(snap.trace(0).time_us(i as usize).is_some());
    assert!(text.contains(", timestamp 20"), "{text}");
    assert!(!text.contains("Invalid Date"));
}

/// The state-history line of an event.
#[test]
fn event_lines_on_real_file() {
    let snap = load("small_train_step.pickle");
    let v = versions::compute(&snap);
    let t = snap.trace(0);
    let i = (0..t.len()).find(|&i| t.action[i] == Action::Alloc).unwrap();
    let line = format::format_event(&snap, &v, 0, i);
    // Event 1 (the first alloc) read with Python's pickle: addr
    // 0x7f217a600000 (no earlier free there: version 0), size 2097152,
    // stream 0; size text as views_hover_reference.py's size().
    assert_eq!(i, 1);
    assert_eq!(line, "alloc          b7f217a600000_0    2.0MiB (2097152 bytes)\n              (stream 0)");
    let merged = versions::merged_free(t);
    // This file frees on the default stream: every free_completed follows
    // its free_requested directly.
    let n_fc = t.action.iter().filter(|a| **a == Action::FreeCompleted).count();
    assert_eq!(merged.iter().filter(|m| **m).count(), n_fc);
}

/// The 4 largest Active Memory elements of every device of every real file:
/// element index, versioned address, size, alloc and free steps, against the
/// Python replay (`views_reference.py FILE --hover D`), which also checks the
/// address versions.
#[test]
fn largest_elements_match_python_reference() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/views_reference.py");
    for name in SNAPSHOTS {
        let snap = load(name);
        let v = versions::compute(&snap);
        for d in snap.devices() {
            let out = match Command::new("python3")
                .arg(&script)
                .arg(snapshots_dir().join(name))
                .args(["--hover", &d.to_string()])
                .output()
            {
                Ok(o) if o.status.success() => o.stdout,
                Ok(o) => panic!("{name}: reference script failed: {}", String::from_utf8_lossy(&o.stderr)),
                Err(e) => panic!("python3 is needed for the reference numbers: {e}"),
            };
            let want: serde_json::Value = serde_json::from_slice(&out).unwrap();
            let tl = Timeline::build(&snap, d, TimelineKind::ActiveMemory);
            let initial: std::collections::HashSet<u32> = tl.initially_allocated.iter().copied().collect();
            let got: Vec<serde_json::Value> = tl
                .by_size
                .iter()
                .take(4)
                .map(|&i| {
                    let e = tl.elements[i as usize];
                    let is_initial = initial.contains(&i);
                    let last = e.x1.saturating_sub(1);
                    let freed = e.x1 > 0 && tl.actions.get(last as usize) == Some(&i) && (is_initial || last > e.x0);
                    serde_json::json!({
                        "elem": i,
                        "addr": format_addr(false, e.addr, tl.version(&v, i)),
                        "size": e.size,
                        "alloc_step": if is_initial { None } else { Some(e.x0) },
                        "free_step": if freed { Some(last) } else { None },
                    })
                })
                .collect();
            assert_eq!(serde_json::Value::Array(got), want, "{name} device {d}");
        }
    }
}

/// A generated snapshot with expandable segments (segment_map /
/// segment_unmap), two devices and an OOM: the summary matches the Python
/// replay, and both timelines end where the dump says (gen_snapshot.py's
/// trace and dump agree exactly): cached segments at the reserved bytes,
/// active memory at the requested bytes of the active_allocated blocks.
#[test]
fn generated_expandable_snapshot() {
    let gen = snapshots_dir().join("../tools/gen_snapshot.py");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("views_expandable.pickle");
    let ok = Command::new("python3")
        .arg(&gen)
        .arg(&out)
        .args(["--events", "20000", "--devices", "2", "--expandable", "--oom", "--seed", "7"])
        .status();
    match ok {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("gen_snapshot.py failed: {s}"),
        Err(e) => panic!("python3 is needed for the reference numbers: {e}"),
    }
    let snap = memviz_core::load(&std::fs::read(&out).unwrap()).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/views_reference.py");
    let py = Command::new("python3").arg(&script).arg(&out).output().unwrap();
    assert!(py.status.success());
    let mut want: serde_json::Value = serde_json::from_slice(&py.stdout).unwrap();
    for dev in want["devices"].as_object_mut().unwrap().values_mut() {
        for k in ["active_memory", "segment_memory"] {
            dev[k].as_object_mut().unwrap().remove("peak_step");
        }
    }
    let s = summarize(&snap);
    assert_eq!(serde_json::to_value(&s).unwrap(), want);
    for (d, dev) in &s.devices.0 {
        assert!(dev.actions.get("segment_map").copied().unwrap_or(0) > 0);
        assert_eq!(dev.segment_memory.end_bytes, dev.reserved_bytes, "device {d}");
        let requested: u64 = snap
            .device_segments(*d)
            .flat_map(|g| snap.segment_blocks(g))
            .filter(|b| b.state == memviz_core::model::BlockState::ActiveAllocated)
            .map(|b| b.requested_size)
            .sum();
        assert_eq!(dev.active_memory.end_bytes, requested, "device {d}");
    }
    // The OOM line of the state history.
    let v = versions::compute(&snap);
    let t = snap.trace(0);
    let i = (0..t.len()).find(|&i| t.action[i] == Action::Oom).unwrap();
    let free = snap.extra(0, i).and_then(|x| x.device_free).unwrap();
    // Read with Python's pickle from the same generated file: event 10001,
    // size 85899345920, device_free 128974848, stream 0.
    assert_eq!((i, free), (10001, 128974848));
    assert_eq!(
        format::format_event(&snap, &v, 0, i),
        "OOM (requested 80.0GiB (85899345920 bytes), Device has 123.0MiB (128974848 bytes) memory free)\n              \
         (stream 0)"
    );
}

/// The full hover text of the first element of compile_context_metadata
/// (compile_context "N/A", empty user_metadata, time_us), against
/// tests/views_hover_reference.py.
#[test]
fn hover_text_matches_python_reference() {
    let name = "compile_context_metadata.pickle";
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/views_hover_reference.py");
    let want = match Command::new("python3").arg(&script).arg(snapshots_dir().join(name)).output() {
        Ok(o) if o.status.success() => String::from_utf8(o.stdout).unwrap(),
        Ok(o) => panic!("reference script failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => panic!("python3 is needed for the reference numbers: {e}"),
    };
    let snap = load(name);
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let v = versions::compute(&snap);
    assert_eq!(tl.elements[0].source, ElementSource::Alloc(0));
    assert_eq!(format::context_for_element(&snap, Some(&v), &tl, 0), want.trim_end_matches('\n'));
    assert!(format::hover_text(&snap, Some(&v), &tl, 0).starts_with("0 Addr: bb03000000_0, "));
}

/// The replay in steps (`TimelineBuilder`, as the page runs it between
/// frames) gives the timeline the one-go replay gives, whatever the step:
/// every snapshot, device and kind, the steps ending mid-trace and mid-stack
/// (the one-go replay is checked against Python above).
#[test]
fn timeline_built_in_steps_equals_one_go() {
    use memviz_core::timeline::TimelineBuilder;
    let mut sliced = 0;
    for name in SNAPSHOTS {
        let snap = load(name);
        for d in snap.devices() {
            for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
                let whole = Timeline::build(&snap, d, kind);
                for budget in [1, 97] {
                    let mut b = TimelineBuilder::new(&snap, d, kind);
                    let mut steps = 1;
                    while !b.step(&snap, budget) {
                        steps += 1;
                    }
                    let tl = b.finish();
                    let at = format!("{name} device {d} {kind:?} budget {budget}");
                    assert_eq!(tl.elements, whole.elements, "{at}");
                    assert_eq!(tl.actions, whole.actions, "{at}");
                    assert_eq!(tl.events, whole.events, "{at}");
                    assert_eq!(tl.initially_allocated, whole.initially_allocated, "{at}");
                    assert_eq!(tl.total, whole.total, "{at}");
                    assert_eq!((tl.start_bytes, tl.end_bytes), (whole.start_bytes, whole.end_bytes), "{at}");
                    assert_eq!((&tl.by_size, &tl.by_order), (&whole.by_size, &whole.by_order), "{at}");
                    assert_eq!((tl.device, tl.kind), (d, kind), "{at}");
                    // Replay, stack and sort steps: more than three means the budget cut the trace.
                    if steps > 3 + snap.trace(d).len().div_ceil(budget) / 2 {
                        sliced += 1;
                    }
                }
            }
        }
    }
    // ctx128 alone replays 19342 events: the budgets above cut most traces.
    assert!(sliced >= 10, "only {sliced} builds were cut into steps");
}
