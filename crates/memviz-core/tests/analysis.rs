//! The analysis (alive at a moment, groupings, kinds, OOM figures, leaks)
//! against tests/reference/analysis_reference.py, an independent
//! standard-library Python replay of the rules, on the real snapshots in
//! ../shared/snapshots, on files gen_snapshot.py writes at test time and on
//! the hand-made tests/reference/fixtures/leak_growth.json. Also invariants
//! that need no reference: the live bytes at every step equal the Active
//! Memory Timeline's total, and the stack tree adds up.
//!
//! Needs python3 and ../shared (override with MEMVIZ_SHARED); both missing
//! fail the tests, they do not skip them.

mod common;

use common::{repo_root, shared_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::analysis::series::{markers, KindSeries};
use memviz_core::analysis::{oom::AdviceKind, Analysis, AnalysisBuilder, GroupBy, Kind, Landmarks, Moment, Rules};
use memviz_core::state::StateHistory;
use memviz_core::timeline::{Timeline, TimelineKind};
use memviz_core::Snapshot;
use serde_json::Value;

fn run(cmd: &mut Command) -> Vec<u8> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {shown} (is python3 installed?): {e}"));
    assert!(out.status.success(), "{shown} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn reference(file: &Path, rules: &[&str]) -> Value {
    let mut cmd = Command::new("python3");
    cmd.arg(repo_root().join("tests/reference/analysis_reference.py")).arg(file);
    for r in rules {
        cmd.args(["--category", r]);
    }
    serde_json::from_slice(&run(&mut cmd)).expect("the reference prints JSON")
}

fn load(path: &Path) -> Snapshot {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    memviz_core::load(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Writes a gen_snapshot.py file into a fresh temp dir.
fn generated(name: &str, args: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memviz-analysis-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.pickle"));
    run(Command::new("python3").arg(shared_dir().join("tools/gen_snapshot.py")).arg(&path).args(args));
    path
}

fn groups_json(gs: &[memviz_core::analysis::Group]) -> Value {
    Value::Array(gs.iter().map(|g| serde_json::json!({"key": g.key, "bytes": g.bytes, "count": g.count})).collect())
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an unsigned integer: {v}"))
}

fn opt_u(v: &Value) -> Option<u64> {
    v.as_u64()
}

/// Every figure of the reference for one file, against the analysis.
fn check_file(path: &Path, rules: &[&str]) {
    check_file_built(path, rules, None)
}

/// The analysis built by [`Analysis::new`], or by an [`AnalysisBuilder`] in
/// steps of `budget` events or elements (the page's way).
fn analysis(snap: &Snapshot, tl: &Timeline, rules: &Rules, budget: Option<usize>, ctx: &str) -> Analysis {
    let Some(budget) = budget else { return Analysis::new(snap, tl, rules) };
    let mut b = AnalysisBuilder::new(rules);
    let mut shares = Vec::new();
    loop {
        let s = b.step(snap, tl, budget);
        shares.push(s);
        if s == 1.0 {
            break;
        }
    }
    assert!(shares.windows(2).all(|w| w[0] <= w[1]), "{ctx}: shares {shares:?}");
    // At least a step per `budget` events and per `budget` elements.
    let (events, elements) = (snap.trace(tl.device).len(), tl.elements.len());
    assert!(shares.len() >= events.div_ceil(budget) + elements.div_ceil(budget), "{ctx}: {} steps", shares.len());
    b.finish(snap, tl)
}

fn check_file_built(path: &Path, rules: &[&str], budget: Option<usize>) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let expected = reference(path, rules);
    let snap = load(path);
    let rules = Rules::parse(rules).unwrap();
    let devices = expected["devices"].as_object().unwrap();
    assert!(!devices.is_empty() || snap.traces.iter().all(|t| t.is_empty()), "{name}: no device checked");
    for (d, exp) in devices {
        let device: u32 = d.parse().unwrap();
        let ctx = format!("{name} device {device}");
        let tl = Timeline::build(&snap, device, TimelineKind::ActiveMemory);
        let a = analysis(&snap, &tl, &rules, budget, &ctx);
        assert_eq!(a.last_position() as u64, u(&exp["positions"]), "{ctx}: positions");
        assert_eq!(
            (a.start_bytes, a.peak_bytes, a.end_bytes),
            (u(&exp["start_bytes"]), u(&exp["peak_bytes"]), u(&exp["end_bytes"])),
            "{ctx}"
        );

        // Kinds, element by element.
        let kinds: String =
            (0..tl.elements.len() as u32).map(|e| char::from(b'0' + a.kind_of(e).unwrap().0 as u8)).collect();
        let want = exp["kinds"].as_str().unwrap();
        if kinds != want {
            let first = kinds.chars().zip(want.chars()).position(|(x, y)| x != y);
            panic!("{ctx}: kinds differ first at element {first:?} ({} elements)", kinds.len());
        }

        // Moments.
        let h = StateHistory::new(&snap, device);
        let mut cursor = h.cursor();
        let series = KindSeries::new(&a);
        for m in exp["moments"].as_array().unwrap() {
            let spec = m["at"].as_str().unwrap();
            let ctx = format!("{ctx} at {spec}");
            let moment = Moment::parse(spec).unwrap();
            let at = a.resolve(moment).unwrap();
            assert_eq!(at.position as u64, u(&m["position"]), "{ctx}: position");
            assert_eq!(at.step.map(u64::from), opt_u(&m["step"]), "{ctx}: step");
            assert_eq!(at.event.map(u64::from), opt_u(&m["event"]), "{ctx}: event");
            let live = a.live(at.position);
            assert_eq!(a.bytes_of(&live), u(&m["total_bytes"]), "{ctx}: live bytes");
            assert_eq!(live.len() as u64, u(&m["count"]), "{ctx}: live count");
            for (by, key) in [
                (GroupBy::Category, "category"),
                (GroupBy::Stack, "stack"),
                (GroupBy::UserFrame, "user_frame"),
                (GroupBy::Frame, "frame"),
            ] {
                let got = groups_json(&a.groups(&live, by));
                assert!(got == m["groups"][key], "{ctx}: groups by {key}:\n got {got}\nwant {}", m["groups"][key]);
            }
            // The stacked area's bytes per kind: the reference's groups by kind.
            let per_kind = series.at(&a, at.position);
            for g in m["groups"]["category"].as_array().unwrap() {
                let k = Kind::from_name(g["key"].as_str().unwrap()).unwrap();
                assert_eq!(per_kind[k as usize], u(&g["bytes"]), "{ctx}: kind series {}", g["key"]);
            }
            assert_eq!(per_kind.iter().sum::<u64>(), u(&m["total_bytes"]), "{ctx}: kind series sum");
            let t = a.state_totals(&snap, &h, &mut cursor, &at);
            let st = &m["state"];
            assert_eq!(t.reserved_bytes, u(&st["reserved_bytes"]), "{ctx}: reserved");
            assert_eq!(t.state_allocated_bytes, u(&st["state_allocated_bytes"]), "{ctx}: state allocated");
            assert_eq!(
                (t.free_bytes, t.free_pieces as u64, t.largest_free_bytes),
                (u(&st["free"]["bytes"]), u(&st["free"]["pieces"]), u(&st["free"]["largest"])),
                "{ctx}: free space"
            );
            if let Moment::Oom(_) = moment {
                let ex = a.explain(&snap, &h, &mut cursor, moment).unwrap();
                let r = ex.request.expect("an oom has a request");
                let req = &m["request"];
                assert_eq!(
                    (r.bytes, r.stream as u64, r.device_free_bytes),
                    (u(&req["bytes"]), u(&req["stream"]), opt_u(&req["device_free_bytes"])),
                    "{ctx}"
                );
                let us = ex.usable.unwrap();
                let want = &st["usable"];
                assert_eq!(
                    (us.bytes, us.pieces as u64, us.largest),
                    (u(&want["bytes"]), u(&want["pieces"]), u(&want["largest"])),
                    "{ctx}: usable"
                );
                assert_eq!(ex.totals.allocated_bytes, u(&m["total_bytes"]), "{ctx}");
            }
        }

        // Markers: the peak (where it rises above the start) and each OOM,
        // at the reference's events.
        let mut want: Vec<(&str, u64)> = Vec::new();
        for m in exp["moments"].as_array().unwrap() {
            let spec = m["at"].as_str().unwrap();
            if (spec == "peak" && u(&exp["peak_bytes"]) > u(&exp["start_bytes"])) || spec.starts_with("oom:") {
                want.push((if spec == "peak" { "peak" } else { "oom" }, u(&m["event"])));
            }
        }
        let got: Vec<(&str, u64)> = markers(&a, &tl).iter().map(|m| (m.what, m.event as u64)).collect();
        assert_eq!(got, want, "{ctx}: markers");
        // The landmarks alone (what the page marks before any analysis) put them at the same events and x.
        let alone = Landmarks::new(&snap, &tl);
        let at = |ms: Vec<memviz_core::analysis::series::Marker>| -> Vec<(&str, u32, u32, f64)> {
            ms.iter().map(|m| (m.what, m.k, m.event, m.x)).collect()
        };
        assert_eq!(at(markers(&alone, &tl)), at(markers(&a, &tl)), "{ctx}: landmarks alone");
        assert_eq!(alone.oom_events, a.oom_events, "{ctx}: oom events");

        // Leaks.
        let r = a.leaks(&snap);
        let lk = &exp["leaks"];
        assert!(groups_json(&r.alive_at_end) == lk["alive_at_end"], "{ctx}: alive at end");
        assert_eq!(
            (r.alive_at_end_bytes, r.alive_at_end_count),
            (u(&lk["alive_at_end_bytes"]), u(&lk["alive_at_end_count"])),
            "{ctx}"
        );
        assert_eq!(r.before_trace_bytes, u(&lk["before_trace_bytes"]), "{ctx}");
        assert_eq!(r.iterations_from, lk["iterations_from"].as_str().unwrap(), "{ctx}");
        assert_eq!(serde_json::json!(r.samples), lk["samples"], "{ctx}: samples");
        let growing: Vec<Value> = r
            .growing
            .iter()
            .map(|g| serde_json::json!({"key": g.key, "first_sample": g.first_sample, "live_bytes": g.live_bytes, "growth_bytes": g.growth_bytes}))
            .collect();
        assert_eq!(Value::Array(growing), lk["growing"], "{ctx}: growing");
        assert_eq!(r.pending_free_count as u64, u(&lk["pending_free_count"]), "{ctx}");
        let pending: Vec<Value> = r
            .pending_frees
            .iter()
            .map(|p| {
                serde_json::json!({"element": p.element, "size": p.size, "free_requested_event": p.free_requested_event,
                "free_completed_event": p.free_completed_event, "events": p.events, "time_us": p.time_us})
            })
            .collect();
        assert_eq!(Value::Array(pending), lk["pending_frees"], "{ctx}: pending frees");

        check_invariants(&snap, &tl, &a, &ctx);
    }
}

/// What holds whatever the reference says: live bytes at every step are the
/// timeline's total (every step on small traces, 2,000 spread out on big
/// ones), the stack tree and the groupings add up.
fn check_invariants(snap: &Snapshot, tl: &Timeline, a: &Analysis, ctx: &str) {
    let n = tl.n_steps();
    let every = (n / 2000).max(1);
    let series = KindSeries::new(a);
    for s in (0..n).step_by(every as usize).chain(n.checked_sub(1)) {
        assert_eq!(series.at_step(a, s).iter().sum::<u64>(), tl.total[s as usize], "{ctx}: kinds at step {s}");
        let at = a.resolve(Moment::Step(s)).unwrap();
        let shown = at.step.expect("a step shows its own position");
        assert_eq!(tl.total[shown as usize], tl.total[s as usize], "{ctx}: step {s} and step {shown} show one state");
        assert_eq!(a.bytes_of(&a.live(at.position)), tl.total[s as usize], "{ctx}: live bytes at step {s}");
    }
    let bytes_at = |m| a.bytes_of(&a.live(a.resolve(m).unwrap().position));
    assert_eq!(bytes_at(Moment::Start), tl.start_bytes, "{ctx}: start");
    assert_eq!(bytes_at(Moment::End), tl.end_bytes, "{ctx}: end");
    assert_eq!(bytes_at(Moment::Peak), tl.peak_bytes(), "{ctx}: peak");
    let live = a.live(a.resolve(Moment::Peak).unwrap().position);
    let total = a.bytes_of(&live);
    for by in [GroupBy::Category, GroupBy::Stack, GroupBy::UserFrame, GroupBy::Frame] {
        let all = a.groups(&live, by);
        for limit in [0, 1, 3, 10] {
            assert_eq!(a.top_groups(&live, by, limit), all[..limit.min(all.len())], "{ctx}: top {limit} by {by:?}");
        }
    }
    for by in [GroupBy::Category, GroupBy::Stack, GroupBy::UserFrame] {
        let gs = a.groups(&live, by);
        assert_eq!(gs.iter().map(|g| g.bytes).sum::<u64>(), total, "{ctx}: {by:?} sums to the total");
        assert_eq!(gs.iter().map(|g| g.count).sum::<u64>(), live.len() as u64, "{ctx}: {by:?} counts");
    }
    let tree = a.tree(&live, 0);
    assert_eq!(tree[0].id, 0);
    assert_eq!(tree[0].bytes, total, "{ctx}: root holds everything");
    let mut children = std::collections::HashMap::<u32, u64>::new();
    for node in &tree[1..] {
        *children.entry(node.parent).or_default() += node.bytes;
        assert!(
            tree.iter().position(|p| p.id == node.parent).unwrap() < tree.iter().position(|p| p.id == node.id).unwrap(),
            "{ctx}: parents first"
        );
    }
    for node in &tree {
        assert_eq!(
            node.bytes,
            node.self_bytes + children.get(&node.id).copied().unwrap_or(0),
            "{ctx}: node {} adds up",
            node.id
        );
    }
    // Leaves with their own bytes are the stack groups.
    let mut selfs: Vec<(u32, u64)> = tree.iter().filter(|t| t.self_bytes > 0).map(|t| (t.id, t.self_bytes)).collect();
    let mut stacks: Vec<(u32, u64)> = a.groups(&live, GroupBy::Stack).iter().map(|g| (g.id, g.bytes)).collect();
    selfs.sort_unstable();
    stacks.sort_unstable();
    assert_eq!(selfs, stacks, "{ctx}: tree leaves = stack groups");
    // Elements under an icicle node: exactly its bytes and count.
    let live_set: std::collections::HashSet<u32> = live.iter().copied().collect();
    for node in tree.iter().take(40) {
        let under = a.elements_under(node.id);
        let mine: Vec<u32> = (0..under.len() as u32).filter(|&e| under[e as usize] && live_set.contains(&e)).collect();
        assert_eq!((a.bytes_of(&mine), mine.len() as u64), (node.bytes, node.count), "{ctx}: under node {}", node.id);
    }
    // Markers: the peak (where it rises above the start) and every OOM, on
    // both timelines, inside them.
    let seg = Timeline::build(snap, a.device, TimelineKind::CachedSegments);
    for t in [tl, &seg] {
        let ms = markers(a, t);
        assert_eq!(ms.iter().filter(|m| m.what == "oom").count(), a.oom_events.len(), "{ctx}");
        assert_eq!(ms.iter().any(|m| m.what == "peak"), a.peak_bytes > a.start_bytes, "{ctx}");
        assert!(ms.iter().all(|m| m.x >= 0.0 && m.x <= t.n_steps() as f64), "{ctx}: markers inside {:?}", t.kind);
    }
    // `moment` is the pieces together.
    let view = a.moment(snap, None, Moment::Peak, 5, Some(0)).unwrap();
    assert_eq!((view.bytes, view.count), (total, live.len() as u64));
    assert_eq!(view.by_stack, a.top_groups(&live, GroupBy::Stack, 5), "{ctx}");
    assert_eq!(view.by_frame, a.top_groups(&live, GroupBy::Frame, 5), "{ctx}");
    assert_eq!(view.tree, tree, "{ctx}");
    assert!(view.totals.is_none());
    // A pruned tree keeps the root and only nodes at or above the cut.
    let cut = total / 10;
    assert!(a.tree(&live, cut).iter().skip(1).all(|t| t.bytes >= cut.max(1)), "{ctx}: pruned tree");
}

#[test]
fn real_snapshots_against_reference() {
    let dir = shared_dir().join("snapshots");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    names.sort();
    assert!(names.len() >= 11, "expected the 11 real snapshots in {}", dir.display());
    for n in names {
        check_file(&dir.join(n), &[]);
    }
}

/// The H100 recordings: models made on the device (GPT-2 under
/// `torch.device("cuda")`), cuBLAS workspaces, user frames under C++ ones.
#[test]
fn real_recordings_against_reference() {
    let dir = shared_dir().join("recordings");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pickle"))
        .collect();
    names.sort();
    assert!(names.len() >= 11, "expected the 11 recordings in {}", dir.display());
    for n in names {
        check_file(&dir.join(n), &[]);
    }
}

#[test]
fn generated_snapshots_against_reference() {
    check_file(&generated("oom_iters", &["--events", "6000", "--oom", "--iters", "4", "--seed", "3"]), &[]);
    check_file(&generated("expandable", &["--events", "3000", "--expandable", "--seed", "5"]), &[]);
    check_file(&generated("two_devices", &["--events", "4000", "--devices", "2", "--seed", "7"]), &[]);
}

#[test]
fn analysis_built_in_steps_against_reference() {
    // Odd budgets: steps end mid-run, mid-stack, mid-free.
    let real = shared_dir().join("snapshots");
    check_file_built(&real.join("transformer_fullstep_ctx128.pickle"), &[], Some(97));
    check_file_built(&real.join("oom_pickle_named_json.json"), &["softmax=temporary"], Some(1000));
    check_file_built(
        &generated("oom_iters_stepped", &["--events", "6000", "--oom", "--iters", "4", "--seed", "3"]),
        &[],
        Some(333),
    );
    check_file_built(&fixture(), &[], Some(5));
}

#[test]
fn user_rules_against_reference() {
    let path = shared_dir().join("snapshots/transformer_fullstep_ctx128.pickle");
    check_file(&path, &["optimizers\\.py:8[24]:step=gradient", "softmax=temporary", "cross_entropy=other"]);
}

fn fixture() -> PathBuf {
    repo_root().join("tests/reference/fixtures/leak_growth.json")
}

#[test]
fn leak_fixture_against_reference() {
    check_file(&fixture(), &[]);
}

/// The fixture's story (see gen_leak_fixture.py), told by the analysis.
#[test]
fn leak_fixture_explained() {
    const MIB: u64 = 1 << 20;
    let snap = load(&fixture());
    let a = Analysis::build(&snap, 0, &Rules::default());
    // Kinds of what is alive at the end: optimizer state, the leak (an
    // activation: allocated in forward, never freed), gradients.
    let end = a.live(a.resolve(Moment::End).unwrap().position);
    let by_kind: Vec<(String, u64)> = a.groups(&end, GroupBy::Category).into_iter().map(|g| (g.key, g.bytes)).collect();
    assert_eq!(
        by_kind,
        vec![("optimizer_state".into(), 8 * MIB), ("activation".into(), 4 * MIB), ("gradient".into(), 4 * MIB)]
    );
    let leaks = a.leaks(&snap);
    assert_eq!(leaks.iterations_from, "phases");
    assert_eq!(leaks.growing.len(), 1, "{:?}", leaks.growing);
    let g = &leaks.growing[0];
    assert!(g.key.starts_with("/home/me/proj/model.py:30:cache_append\n"), "{}", g.key);
    assert_eq!(g.live_bytes, vec![MIB, 2 * MIB, 3 * MIB, 4 * MIB]);
    assert_eq!(leaks.pending_free_count, 1);
    assert_eq!((leaks.pending_frees[0].size, leaks.pending_frees[0].events), (2 * MIB, 4));
    // Both OOMs, each with the advice its numbers call for, and nothing else.
    let h = StateHistory::new(&snap, 0);
    let ex = a.explain_all(&snap, &h);
    assert_eq!(ex.len(), 3);
    let kinds = |i: usize| ex[i].advice.iter().map(|x| x.kind).collect::<Vec<_>>();
    assert_eq!(kinds(0), vec![AdviceKind::Fragmentation]);
    assert_eq!(kinds(1), vec![AdviceKind::TooLarge]);
    assert_eq!(ex[2].what, "peak");
    assert_eq!(ex[2].totals.allocated_bytes, a.peak_bytes);
    // Kinds of every element by rule: the activations freed in backward,
    // the temporaries of each phase.
    let count = |k: Kind| (0..a.element_count()).filter(|&e| a.kind_of(e).is_some_and(|x| x.0 == k)).count();
    assert_eq!(count(Kind::Gradient), 2);
    assert_eq!(count(Kind::OptimizerState), 2);
}

/// The real OOM: 384 MiB asked for with 252 MiB free on the device.
#[test]
fn real_oom_explained() {
    let snap = load(&shared_dir().join("snapshots/oom_pickle_named_json.json"));
    let a = Analysis::build(&snap, 0, &Rules::default());
    let h = StateHistory::new(&snap, 0);
    let ex = a.explain_all(&snap, &h);
    assert_eq!(ex.len(), 2);
    let oom = &ex[0];
    let r = oom.request.unwrap();
    assert_eq!((r.bytes, r.device_free_bytes), (384 << 20, Some(264634368)));
    assert_eq!(oom.at.event, Some(1117));
    // Live tensors + the request exceed reserved + free: only that advice.
    assert_eq!(oom.advice.iter().map(|x| x.kind).collect::<Vec<_>>(), vec![AdviceKind::LiveTensors]);
    assert!(oom.totals.allocated_bytes + r.bytes > oom.device_limit_bytes.unwrap());
    assert_eq!(oom.by_category[0].key, "activation");
    // On the Active Memory Timeline: the peak in the middle of step 781
    // (event 1113), the OOM after the 783 actions before event 1117
    // (analysis_reference.py: peak position 782, oom:0 position 783).
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let ms = markers(&a, &tl);
    assert_eq!(ms.len(), 2);
    assert_eq!((ms[0].what, ms[0].event, ms[0].x), ("peak", 1113, 781.5));
    assert_eq!((ms[1].what, ms[1].event, ms[1].x), ("oom", 1117, 783.0));
}

/// expandable_segments_map_unmap.pickle is a real memory-leak demo
/// (memory_leaks_demo.py): train_one_step keeps 40 MiB more every
/// iteration; the Adam state is made once and stays flat.
#[test]
fn real_leak_found() {
    let snap = load(&shared_dir().join("snapshots/expandable_segments_map_unmap.pickle"));
    let a = Analysis::build(&snap, 0, &Rules::default());
    let r = a.leaks(&snap);
    assert_eq!(r.iterations_from, "phases");
    assert_eq!(r.samples.len(), 3);
    assert_eq!(r.growing.len(), 1, "{:?}", r.growing);
    let g = &r.growing[0];
    assert!(g.key.starts_with("/home/liuyekang/dev/projects/test/memory_leaks_demo.py:11:train_one_step"), "{}", g.key);
    assert_eq!(g.live_bytes, vec![40 << 20, 80 << 20, 120 << 20]);
}

/// Odd and hostile traces never panic: sizes near 2^64, addresses above
/// 2^64, frees without allocs, an address allocated twice, OOMs without
/// device_free, times that overflow, empty and absent frames, a trace with
/// no alloc/free at all.
#[test]
fn odd_input_never_panics() {
    let big = u64::MAX - 7;
    let cases = [
        format!(
            r#"{{"segments": [], "device_traces": [[
            {{"action": "alloc", "addr": 4096, "size": {big}, "stream": 0, "time_us": -9223372036854775807, "frames": [{{"filename": "m.py", "line": 1, "name": "forward"}}]}},
            {{"action": "alloc", "addr": 8192, "size": {big}, "stream": 3, "frames": []}},
            {{"action": "free_requested", "addr": 4096, "size": 1, "stream": 0, "time_us": 9223372036854775807}},
            {{"action": "oom", "size": {big}, "stream": 0, "frames": [{{"filename": "x", "line": -5, "name": "backward"}}]}},
            {{"action": "free_completed", "addr": 4096, "size": 1, "stream": 0, "time_us": -9223372036854775807}},
            {{"action": "free_completed", "addr": 12288, "size": 77, "stream": 0}},
            {{"action": "alloc", "addr": 8192, "size": 5, "stream": 0, "frames": [{{"filename": "torch/optim/adam.py", "line": 1, "name": "step"}}]}},
            {{"action": "free_requested", "addr": 99999999999999999999999, "size": 5, "stream": 0}},
            {{"action": "alloc", "addr": 99999999999999999999999, "size": 5, "stream": 0}},
            {{"action": "oom", "size": 0, "stream": 9, "device_free": {big}}}
            ]]}}"#
        ),
        r#"{"segments": [{"device": 0, "address": 0, "total_size": 2097152, "stream": 0, "blocks": [
            {"address": 0, "size": 4096, "requested_size": 4096, "state": "active_allocated", "frames": []}]}],
            "device_traces": [[{"action": "oom", "size": 1, "stream": 0}]]}"#
            .to_string(),
        r#"{"segments": [], "device_traces": [[{"action": "snapshot", "size": 0, "stream": 0}]]}"#.to_string(),
    ];
    let mut resolved = 0;
    for (i, json) in cases.iter().enumerate() {
        let snap = memviz_core::load(json.as_bytes()).unwrap_or_else(|e| panic!("case {i}: {e}"));
        let rules = Rules::parse(&["forward=temporary"]).unwrap();
        for device in snap.devices() {
            let a = Analysis::build(&snap, device, &rules);
            let h = StateHistory::new(&snap, device);
            let mut cursor = h.cursor();
            let n = a.last_position();
            let mut moments =
                vec![Moment::Start, Moment::Peak, Moment::End, Moment::Oom(0), Moment::Oom(1), Moment::Oom(7)];
            moments.extend((0..n + 2).map(Moment::Step));
            moments.extend((0..snap.trace(device).len() as u32 + 2).map(Moment::Event));
            for m in moments {
                let Ok(at) = a.resolve(m) else { continue };
                resolved += 1;
                let live = a.live(at.position);
                for by in [GroupBy::Category, GroupBy::Stack, GroupBy::UserFrame, GroupBy::Frame] {
                    a.groups(&live, by);
                }
                a.tree(&live, 0);
                a.state_totals(&snap, &h, &mut cursor, &at);
                let _ = a.explain(&snap, &h, &mut cursor, m);
            }
            for e in a.explain_all(&snap, &h) {
                e.to_text();
            }
            a.leaks(&snap).to_text(&a);
            let series = KindSeries::new(&a);
            for p in [0, 1, a.last_position(), a.last_position() + 5, u32::MAX] {
                series.at(&a, p);
            }
            for node in [0, 1, 7, u32::MAX] {
                assert_eq!(a.elements_under(node).len() as u32, a.element_count());
            }
            for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
                markers(&a, &Timeline::build(&snap, device, kind));
            }
        }
    }
    assert!(resolved > 0, "no moment resolved in any case: nothing was swept");
}
