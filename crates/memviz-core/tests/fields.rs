//! What PyTorch 2.15 adds to a snapshot: `annotate` trace entries,
//! `internal_metadata` / `pool_id` on trace entries, and pinned host memory
//! (`host_segments` / `host_traces`). The files are written by Python's
//! pickle (tests/reference/gen_fields.py), which also computes, without this
//! code, what must come out: the summary numbers (memory_viz's replay in
//! tests/reference/memviz_reference.py, the host as one more device), the
//! allocation each annotation attaches to, its event-list line and the
//! hover lines.

use std::path::PathBuf;
use std::process::Command;

use memviz_core::format::{context_for_element, format_event};
use memviz_core::segment_map::block_text;
use memviz_core::state::StateHistory;
use memviz_core::summary::summarize;
use memviz_core::timeline::{ElementSource, Timeline, TimelineKind};
use memviz_core::{versions, Snapshot};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs gen_fields.py (python3 is required: no silent skip); returns the
/// snapshot it wrote and what it expects.
fn generate(args: &[&str], name: &str) -> (PathBuf, Value) {
    let dir = std::env::temp_dir().join(format!("memviz-fields-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    let script = root().join("tests/reference/gen_fields.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script).arg(args[0]).args(&args[1..]).arg(&out);
    let res = cmd.output().unwrap_or_else(|e| panic!("python3 is needed by this test: {e}"));
    assert!(res.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&res.stderr));
    (out, serde_json::from_slice(&res.stdout).unwrap())
}

fn load(path: &PathBuf) -> Snapshot {
    memviz_core::load(&std::fs::read(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn element(tl: &Timeline, f: impl Fn(&ElementSource, u128) -> bool) -> u32 {
    tl.elements.iter().position(|e| f(&e.source, e.addr)).expect("no such element") as u32
}

#[test]
fn host_memory_is_a_device_named_host() {
    for flat in [false, true] {
        let args: &[&str] = if flat { &["new-fields", "--flat-host-traces"] } else { &["new-fields"] };
        let (path, want) = generate(args, if flat { "flat.pickle" } else { "nested.pickle" });
        let snap = load(&path);
        assert!(snap.warnings.list.is_empty(), "{:?}", snap.warnings.list);
        let host = snap.host_device.expect("a host device");
        assert_eq!(snap.devices(), [0, host]);
        assert_eq!(snap.device_name(host), "host");
        assert_eq!(snap.device_label(host), "host");
        assert_eq!(snap.device_label(0), "cuda:0");
        assert_eq!(snap.device_by_name("host"), Some(host));
        assert_eq!(snap.device_by_name(&host.to_string()), None, "the host's number is no CUDA device");
        assert_eq!(snap.default_device(), Some(0), "a CUDA device is shown first");
        assert_eq!(snap.trace(host).len() as u64, want["host_trace_events"].as_u64().unwrap());
        // Every number of both devices, the host keyed "host".
        assert_eq!(serde_json::to_value(summarize(&snap)).unwrap(), want["summary"], "flat host_traces: {flat}");
        assert!(summarize(&snap).to_text().contains("\ndevice host\n"));
        // The state history runs on it like on any device.
        let h = StateHistory::new(&snap, host);
        assert_eq!(h.inconsistencies().total(), 0);
    }
}

#[test]
fn annotations_show_in_the_allocation_hover_and_the_event_list() {
    let (path, want) = generate(&["new-fields"], "annotate.pickle");
    let snap = load(&path);
    let v = versions::compute(&snap);
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let hovers: Vec<String> =
        (0..tl.elements.len() as u32).map(|e| context_for_element(&snap, Some(&v), &tl, e)).collect();
    let anns = want["annotations"].as_array().unwrap();
    assert_eq!(anns.len(), 6);
    for a in anns {
        let i = a["event"].as_u64().unwrap() as usize;
        // The event list line of the annotate event.
        assert_eq!(format_event(&snap, &v, 0, i), a["line"].as_str().unwrap(), "event {i}");
        let text = a["hover"].as_str().unwrap();
        let t = &a["target"];
        let addr = |t: &Value| t["addr"].as_u64().unwrap() as u128;
        let e = match t["kind"].as_str() {
            None => {
                assert!(hovers.iter().all(|h| !h.contains(text)), "event {i} attaches to nothing");
                continue;
            }
            Some("alloc") => {
                let k = t["event"].as_u64().unwrap() as u32;
                element(&tl, |s, _| *s == ElementSource::Alloc(k))
            }
            Some("before_recording") => {
                element(&tl, |s, a| matches!(s, ElementSource::UnmatchedFree(_)) && a == addr(t))
            }
            Some("dump_block") => element(&tl, |s, a| matches!(s, ElementSource::GhostBlock(_)) && a == addr(t)),
            Some(k) => panic!("unknown target {k}"),
        };
        assert!(hovers[e as usize].contains(text), "event {i}: {text:?} not in\n{}", hovers[e as usize]);
        let others = hovers.iter().enumerate().filter(|(x, h)| *x != e as usize && h.contains(text)).count();
        assert_eq!(others, 0, "event {i} shows on one allocation only");
    }
    // Two annotations of one allocation, oldest first.
    let a1 = element(&tl, |s, _| *s == ElementSource::Alloc(1));
    let both = format!("{}\n{}", anns[0]["hover"].as_str().unwrap(), anns[2]["hover"].as_str().unwrap());
    assert!(hovers[a1 as usize].contains(&both), "{}", hovers[a1 as usize]);

    // internal_metadata and pool_id of the alloc event.
    let want_hover = want["hover"].as_array().unwrap();
    assert!(!want_hover.is_empty(), "gen_fields.py gave no hover to check");
    for h in want_hover {
        let k = h["alloc_event"].as_u64().unwrap() as u32;
        let e = element(&tl, |s, _| *s == ElementSource::Alloc(k));
        for c in h["contains"].as_array().unwrap() {
            let c = c.as_str().unwrap();
            assert!(hovers[e as usize].contains(c), "alloc {k}: {c:?} not in\n{}", hovers[e as usize]);
        }
    }

    // The state history's block hover shows the annotations made so far.
    let last = snap.trace(0).len() - 1;
    let h = StateHistory::new(&snap, 0);
    let mut cur = h.cursor();
    for (at, addr, ann, shown) in
        [(last, 0x7f0000000200u128, 1, true), (last, 0x7f0000180000, 4, true), (3, 0x7f0000000200, 1, false)]
    {
        cur.seek(&h, &snap, at);
        let state = cur.state(&h, &snap);
        let (seg, b) = state
            .segments
            .iter()
            .find_map(|s| s.blocks.iter().find(|b| b.address == addr).map(|b| (s, b)))
            .expect("block");
        let text = block_text(&snap, &state, seg, b);
        let a = anns[ann]["hover"].as_str().unwrap();
        assert_eq!(text.contains(a), shown, "after event {at}, block {addr:x}:\n{text}");
    }
}
