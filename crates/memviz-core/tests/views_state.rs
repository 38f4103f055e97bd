//! Allocator State History map, private pools, search, jumps and allocator
//! settings on real snapshots and generated ones, checked against the
//! independent Python in tests/reference/ (segment_map_reference.py,
//! private_pools_reference.py) where there are numbers.

use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::format;
use memviz_core::model::Action;
use memviz_core::pools::{PoolBand, PoolDetail, PoolHit, PrivatePools, NO_POOL};
use memviz_core::search::{next_match, SearchIndex, SearchKind};
use memviz_core::segment_map::{self, MapHit, RectKind, SegmentMap};
use memviz_core::state::StateHistory;
use memviz_core::timeline::{DetailView, ElementSource, EventLinks, Timeline, TimelineKind};
use memviz_core::versions;
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn snapshot_path(name: &str) -> PathBuf {
    repo().join("../shared/snapshots").join(name)
}

fn load_path(p: &Path) -> memviz_core::Snapshot {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    memviz_core::load(&bytes).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn python(args: &[&str]) -> String {
    let out = Command::new("python3").args(args).current_dir(repo()).output().expect("python3 runs");
    assert!(out.status.success(), "python3 {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Equal but for the last bit: serde_json's default float parsing is not
/// always correctly rounded.
fn same_f64(a: f64, b: f64) -> bool {
    (a - b).abs() <= b.abs() * 4.0 * f64::EPSILON
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

/// Layout of the state after each event against memory_viz's packing in
/// Python, on real files.
#[test]
fn segment_map_matches_python() {
    for (name, events) in [
        ("transformer_fullstep_ctx128.pickle", vec![0usize, 100, 9000, 15000, 19341]),
        ("small_train_step.pickle", vec![0, 40, 96]),
        ("transformer_forward_mixed_ctx256.pickle", vec![10, 2000]),
    ] {
        compare_map_with_python(&snapshot_path(name), 0, &events);
    }
}

/// The same on a generated file with expandable segments (segment_map /
/// segment_unmap), an OOM and two devices.
#[test]
fn segment_map_matches_python_expandable() {
    let p = tmp("views_state_map_exp.pickle");
    python(&[
        "../shared/tools/gen_snapshot.py",
        p.to_str().unwrap(),
        "--events",
        "6000",
        "--devices",
        "2",
        "--oom",
        "--expandable",
    ]);
    let snap = load_path(&p);
    for d in [0u32, 1] {
        let n = snap.trace(d).len();
        assert!(n > 2000);
        let events: Vec<usize> = (0..n).step_by(n / 9).chain([n - 1]).collect();
        compare_map_with_python(&p, d, &events);
    }
}

fn compare_map_with_python(path: &Path, device: u32, events: &[usize]) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let snap = load_path(path);
    let h = StateHistory::new(&snap, device);
    let mut cur = h.cursor();
    let evs: Vec<String> = events.iter().map(|e| e.to_string()).collect();
    let dev = device.to_string();
    let mut args = vec!["tests/reference/segment_map_reference.py", path.to_str().unwrap(), dev.as_str()];
    args.extend(evs.iter().map(|s| s.as_str()));
    let out = python(&args);
    assert_eq!(out.lines().count(), events.len());
    for (line, &ev) in out.lines().zip(events) {
        let r: Value = serde_json::from_str(line).unwrap();
        cur.seek(&h, &snap, ev);
        let st = cur.state(&h, &snap);
        let m = SegmentMap::layout(&st);
        let ctx = format!("{name} device {device} event {ev}");
        assert_eq!(m.row_width, u(&r["row_width"]), "{ctx}");
        assert_eq!(m.rows as u64, u(&r["rows"]), "{ctx}");
        assert_eq!(m.reserved_bytes, u(&r["reserved"]), "{ctx}");
        assert_eq!(m.allocated_bytes, u(&r["allocated"]), "{ctx}");
        assert_eq!(
            (st.totals.reserved_bytes, st.totals.allocated_bytes),
            (m.reserved_bytes, m.allocated_bytes),
            "{ctx}"
        );
        let segs = r["segments"].as_array().unwrap();
        assert_eq!(segs.len(), m.order.len(), "{ctx}");
        for (s, &i) in segs.iter().zip(&m.order) {
            let seg = &st.segments[i as usize];
            let p = m.places[i as usize];
            assert_eq!(seg.address as u64, u(&s[0]), "{ctx}");
            assert_eq!(seg.size, u(&s[1]), "{ctx}");
            assert_eq!(p.row as u64, u(&s[2]), "{ctx}");
            assert!(same_f64(p.x, s[3].as_f64().unwrap()), "{ctx}: {} vs {}", p.x, s[3]);
        }
        // Blocks by address, with their x, width and waste.
        let mut blocks: Vec<(u64, f64, u64, u64, bool)> = m
            .rects
            .iter()
            .filter(|r| matches!(r.kind, RectKind::Block | RectKind::PendingFree))
            .map(|r| {
                let b = &st.segments[r.segment as usize].blocks[r.block as usize];
                (b.address as u64, r.x, r.width as u64, b.size - b.requested_size, r.kind == RectKind::PendingFree)
            })
            .collect();
        blocks.sort_by_key(|b| b.0);
        let want: Vec<(u64, f64, u64, u64, bool)> = r["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (u(&b[0]), b[1].as_f64().unwrap(), u(&b[2]), u(&b[3]), b[4].as_bool().unwrap()))
            .collect();
        assert_eq!(blocks.len(), want.len(), "{ctx}");
        for (g, w) in blocks.iter().zip(&want) {
            assert!(g.0 == w.0 && same_f64(g.1, w.1) && (g.2, g.3, g.4) == (w.2, w.3, w.4), "{ctx}: {g:?} vs {w:?}");
        }
        let waste_rects = m.rects.iter().filter(|r| r.kind == RectKind::Waste).count();
        assert_eq!(waste_rects, want.iter().filter(|b| b.3 > 0).count(), "{ctx}");
        // Segment hover: free bytes and "(X% internal)" as memory_viz prints them.
        for (hv, &i) in r["hover"].as_array().unwrap().iter().zip(&m.order) {
            let seg = &st.segments[i as usize];
            assert_eq!(seg.address as u64, u(&hv[0]), "{ctx}");
            let text = segment_map::segment_text(&snap, seg);
            let line = text.lines().next().unwrap();
            let free = format!(" {} free", memviz_core::format::format_size(u(&hv[1]), true));
            assert!(line.contains(&free), "{ctx}: {line} lacks {free}");
            match hv[2].as_str() {
                Some(p) => assert!(line.contains(&format!(" free ({p}% internal) (stream ")), "{ctx}: {line} vs {p}"),
                None => assert!(!line.contains("internal"), "{ctx}: {line}"),
            }
        }
        let f = &r["free"];
        assert_eq!(
            (st.largest_free_bytes, st.free_bytes, st.free_pieces as u64),
            (u(&f[0]), u(&f[1]), u(&f[2])),
            "{ctx}"
        );
        // Every block's middle hits it; every segment's last byte hits it
        // or a block.
        for rect in &m.rects {
            let hit = m.hit(&st, rect.row, rect.x + rect.width / 2.0, 0.4);
            match rect.kind {
                RectKind::Block | RectKind::PendingFree => {
                    assert_eq!(hit, Some(MapHit::Block(rect.segment, rect.block)), "{ctx}")
                }
                RectKind::Waste => assert_eq!(hit, Some(MapHit::Waste(rect.segment, rect.block)), "{ctx}"),
                RectKind::Segment => assert!(hit.is_some(), "{ctx}"),
            }
        }
    }
}

/// Hover texts on a real state: the segment line's figures are the state's.
#[test]
fn hover_texts_on_real_state() {
    let snap = load_path(&snapshot_path("transformer_fullstep_ctx128.pickle"));
    let v = versions::compute(&snap);
    let h = StateHistory::with_versions(&snap, 0, Some(&v));
    let mut cur = h.cursor();
    cur.seek(&h, &snap, 9000);
    let st = cur.state(&h, &snap);
    let m = SegmentMap::layout(&st);
    let mut pending_seen = false;
    for r in &m.rects {
        let seg = &st.segments[r.segment as usize];
        match r.kind {
            RectKind::Segment => {
                let t = segment_map::hit_text(&snap, &st, MapHit::Segment(r.segment));
                let head = format!(
                    "{}: segment {} allocated, {} free",
                    format::format_addr(true, seg.address, seg.version),
                    format::format_size(seg.size, true),
                    format::format_size(seg.free_bytes, true)
                );
                assert!(t.starts_with(&head), "{t}");
                assert_eq!(t.contains("% internal)"), seg.internal_bytes > 0, "{t}");
                assert!(t.lines().next().unwrap().ends_with(&format!("(stream {})", seg.stream)), "{t}");
            }
            RectKind::Block | RectKind::PendingFree => {
                let b = &seg.blocks[r.block as usize];
                let t = segment_map::hit_text(&snap, &st, MapHit::Block(r.segment, r.block));
                assert!(t.starts_with(&format!(
                    "{} {} allocation",
                    format::format_addr(false, b.address, b.version),
                    format::format_size(b.requested_size, true)
                )));
                assert_eq!(t.contains("(block freed but waiting due to record_stream)"), b.pending);
                pending_seen |= b.pending;
                assert!(t.ends_with(&format::format_frames(&snap, b.stack)));
            }
            RectKind::Waste => {}
        }
    }
    // `segment_map_reference.py FILE 0 9000` has 1 pending block of 1018:
    // the record_stream branch above ran.
    assert!(pending_seen, "no pending block at event 9000");
    // The first segment in packing order, from the same reference output
    // (address 0x7f2b6f400000, 2097152 bytes, all of it free), sizes as
    // memory_viz prints them: not built with the format functions.
    let first = segment_map::hit_text(&snap, &st, MapHit::Segment(m.order[0]));
    assert!(first.starts_with("s7f2b6f400000_"), "{first}");
    assert!(first.contains(": segment 2.0MiB (2097152 bytes) allocated, 2.0MiB (2097152 bytes) free"), "{first}");
    let ev = segment_map::event_text(&snap, &v, 0, 9000, Some(&st.totals));
    assert!(ev.starts_with(&format!("({})\n", segment_map::totals_text(&st.totals))), "{ev}");
    assert!(segment_map::fragmentation_text(&st).contains(&format!("in {} pieces", st.free_pieces)));
}

/// Every step of a generated file with OOM, expandable segments and two
/// devices lays out consistently; the OOM line reads as memory_viz's.
#[test]
fn generated_expandable_oom_two_devices() {
    let p = tmp("views_state_gen_exp.pickle");
    python(&[
        "../shared/tools/gen_snapshot.py",
        p.to_str().unwrap(),
        "--events",
        "6000",
        "--devices",
        "2",
        "--oom",
        "--expandable",
    ]);
    let snap = load_path(&p);
    let v = versions::compute(&snap);
    assert_eq!(snap.devices(), vec![0, 1]);
    for d in [0u32, 1] {
        let h = StateHistory::with_versions(&snap, d, Some(&v));
        let mut cur = h.cursor();
        cur.seek_position(&h, &snap, 0);
        let t = snap.trace(d);
        let mut maps = 0;
        for i in 0..t.len() {
            cur.step_forward(&h, &snap);
            if i % 7 != 0 && i + 1 != t.len() {
                continue;
            }
            maps += 1;
            let st = cur.state(&h, &snap);
            let m = SegmentMap::layout(&st);
            assert_eq!((m.reserved_bytes, m.allocated_bytes), (st.totals.reserved_bytes, st.totals.allocated_bytes));
            // Segments of a row do not overlap and fit the row.
            for w in m.order.windows(2) {
                let (a, b) = (m.places[w[0] as usize], m.places[w[1] as usize]);
                if a.row == b.row {
                    assert!(a.x + st.segments[w[0] as usize].size as f64 <= b.x);
                }
            }
            for r in &m.rects {
                let p = m.places[r.segment as usize];
                assert_eq!(r.row, p.row);
                assert!(r.x >= p.x && r.x + r.width <= p.x + st.segments[r.segment as usize].size as f64 + 1e-6);
            }
        }
        assert!(maps > 100);
        let oom: Vec<usize> = (0..t.len()).filter(|&i| t.action[i] == Action::Oom).collect();
        if d == 0 {
            assert_eq!(oom.len(), 1);
            let line = segment_map::event_line(&snap, &v, 0, oom[0]);
            // Read with Python's pickle from the same generated file (seed 0):
            // event 3001, size 85899345920, device_free 128974848, stream 0.
            assert_eq!(oom[0], 3001);
            assert_eq!(
                line,
                "OOM (requested 80.0GiB (85899345920 bytes), Device has 123.0MiB (128974848 bytes) memory free)\n              \
                 (stream 0)"
            );
        }
        assert!(t.action.contains(&Action::SegmentMap));
    }
}

/// The private-pool view of a generated snapshot against the independent
/// Python replay of memory_viz's pool rules.
#[test]
fn private_pools_match_python() {
    for seed in ["1", "2", "3"] {
        let p = tmp(&format!("views_state_pool_{seed}.pickle"));
        python(&["tests/reference/gen_private_pool.py", p.to_str().unwrap(), "--seed", seed]);
        let r: Value =
            serde_json::from_str(&python(&["tests/reference/private_pools_reference.py", p.to_str().unwrap()]))
                .unwrap();
        let snap = load_path(&p);
        let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
        let pp = PrivatePools::build(&snap, &tl);
        let ctx = format!("seed {seed}");
        assert_eq!(pp.start_bytes, u(&r["start"]), "{ctx}");
        let want: Vec<u64> = r["total"].as_array().unwrap().iter().map(u).collect();
        assert_eq!(pp.total, want, "{ctx}");
        assert_eq!(pp.pool_of.iter().filter(|&&p| p != NO_POOL).count() as u64, u(&r["pool_elements"]), "{ctx}");
        let pools = r["pools"].as_object().unwrap();
        assert_eq!(pp.pools.len(), pools.len(), "{ctx}");
        assert!(pools.len() >= 2, "{ctx}: the generator makes two pools");
        for env in &pp.pools {
            let w = &pools[&env.key()];
            assert_eq!(env.first_step as u64, u(&w["first_step"]), "{ctx} {}", env.key());
            assert_eq!(env.capacity(), u(&w["capacity"]), "{ctx} {}", env.key());
            assert_eq!(env.reserved_start, w["reserved_start"].as_i64().unwrap() as i128, "{ctx}");
            let hs: Vec<u64> = w["heights"].as_array().unwrap().iter().map(u).collect();
            let got: Vec<u64> = (0..tl.n_steps()).map(|s| env.height_at(s)).collect();
            assert_eq!(got, hs, "{ctx} {}", env.key());
            assert!(env.text().starts_with(&format!("Private Pool ({}): capacity ", env.key())));
        }
        // Bands stack to the view's total at every step, stripes lie inside
        // their envelope, whatever the detail limit.
        for limit in [0u32, 5, 40, 100_000] {
            let dv = DetailView::new(&tl, limit);
            let pd = PoolDetail::new(&tl, &pp, &dv);
            for step in 0..tl.n_steps() {
                let mut env_range = vec![(0u64, 0u64); pp.pools.len()];
                let mut inside: Vec<(u32, u64, u64)> = Vec::new();
                let mut outside = 0u64;
                let (top, summarized) = pd.bands_at(&tl, &pp, &dv, step, |b| match b {
                    PoolBand::Element { size, .. } => outside += size,
                    PoolBand::Envelope { pool, offset, size } => {
                        env_range[pool as usize] = (offset, size);
                        outside += size;
                    }
                    PoolBand::Stripe { pool, offset, size, .. } | PoolBand::PoolSummarized { pool, offset, size } => {
                        inside.push((pool, offset, size))
                    }
                });
                assert_eq!(outside, top, "{ctx} limit {limit} step {step}");
                assert_eq!(top + summarized, pp.total[step as usize], "{ctx} limit {limit} step {step}");
                for (pool, o, s) in inside {
                    let (eo, es) = env_range[pool as usize];
                    assert!(
                        o >= eo && o + s <= eo + es,
                        "{ctx} limit {limit} step {step}: stripe outside its envelope"
                    );
                    assert!(matches!(
                        pd.hit(&tl, &pp, &dv, step, o),
                        Some(PoolHit::Element(_) | PoolHit::PoolSummarized(_))
                    ));
                }
            }
        }
    }
}

/// A snapshot without private pools: the view is the Active Memory Timeline.
#[test]
fn no_private_pools_on_real_files() {
    let snap = load_path(&snapshot_path("transformer_fullstep_ctx128.pickle"));
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let pp = PrivatePools::build(&snap, &tl);
    assert!(pp.pools.is_empty());
    assert_eq!(pp.total, tl.total);
    assert_eq!(pp.start_bytes, tl.start_bytes);
}

/// Search over all elements against a brute-force scan of the hover texts.
#[test]
fn search_on_real_file() {
    let snap = load_path(&snapshot_path("transformer_fullstep_ctx128.pickle"));
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let v = versions::compute(&snap);
    let idx = SearchIndex::new(&snap);
    // The hover texts without the explanations that are not frames.
    let texts: Vec<String> = (0..tl.elements.len() as u32)
        .map(|e| {
            format::context_for_element(&snap, Some(&v), &tl, e)
                .replace(format::NO_FRAMES_TEXT, "")
                .replace(format::GHOST_BLOCK_TEXT, "")
                .to_lowercase()
        })
        .collect();
    for q in ["backward", "Linear", "transformer.py:", "softmax", "Engine::thread_main", "module.py:1"] {
        let got = idx.search_elements(&snap, &v, &tl, SearchKind::Frame, q);
        let ql = q.to_lowercase();
        // Frames come after the first line of the hover text.
        let want: Vec<u32> = (0..texts.len() as u32)
            .filter(|&e| texts[e as usize].split_once('\n').is_some_and(|(_, rest)| rest.contains(&ql)))
            .collect();
        assert!(!want.is_empty() || q == "softmax", "query {q} finds something");
        assert!(got == want, "query {q}: {} found, {} expected", got.len(), want.len());
    }
    let e = tl.by_size[10];
    let el = tl.elements[e as usize];
    let addr = format!("0x{:X}", el.addr);
    let got = idx.search_elements(&snap, &v, &tl, SearchKind::Address, &addr);
    assert!(got.contains(&e));
    let hex = format!("{:x}", el.addr);
    assert_eq!(
        got,
        (0..tl.elements.len() as u32)
            .filter(|&i| format!("{:x}", tl.elements[i as usize].addr).contains(&hex))
            .collect::<Vec<_>>()
    );
    let version = tl.version(&v, e);
    let exact = idx.search_elements(&snap, &v, &tl, SearchKind::Address, &format::format_addr(false, el.addr, version));
    assert!(exact.contains(&e));
    assert!(exact.iter().all(|&i| tl.version(&v, i).to_string().starts_with(&version.to_string())));
    assert_eq!(next_match(&got, Some(*got.last().unwrap()), false), Some(got[0]));
}

/// Jumps between the timeline and the state history, both ways.
#[test]
fn jumps_on_real_file() {
    for name in ["transformer_fullstep_ctx128.pickle", "llm_inference_no_timestamps.pickle"] {
        let snap = load_path(&snapshot_path(name));
        let d = snap.default_device().unwrap();
        let tl = Timeline::build(&snap, d, TimelineKind::ActiveMemory);
        let links = EventLinks::new(&snap, &tl);
        let t = snap.trace(d);
        let (mut linked, mut freed) = (0, 0);
        for (e, el) in tl.elements.iter().enumerate() {
            let e = e as u32;
            if let Some(i) = links.event_for_element(&tl, e) {
                assert_eq!(links.element_of_event(i as usize), Some(e), "{name}");
                assert_eq!(t.addr(i as usize), el.addr);
                linked += 1;
            }
            if let Some(f) = links.free_event(e) {
                freed += 1;
                assert!(matches!(t.action[f as usize], Action::FreeCompleted | Action::Free));
                assert_eq!(t.addr(f as usize), el.addr);
                assert_eq!(el.x1, {
                    // The free's step: count alloc/free actions before it.
                    (0..f as usize)
                        .filter(|&j| matches!(t.action[j], Action::Alloc | Action::FreeCompleted | Action::Free))
                        .count() as u32
                        + 1
                });
            }
            if matches!(el.source, ElementSource::GhostBlock(_)) {
                assert_eq!(links.event_for_element(&tl, e), None);
            }
        }
        assert!(linked > 0 && freed > 0, "{name}: {linked} elements linked to their alloc, {freed} to their free");
        // Every alloc / free_completed event is some element's.
        for i in 0..t.len() {
            if matches!(t.action[i], Action::Alloc | Action::FreeCompleted | Action::FreeRequested) {
                assert!(links.element_of_event(i).is_some(), "{name} event {i}");
            }
        }
    }
}

#[test]
fn allocator_settings_on_real_files() {
    let snap = load_path(&snapshot_path("small_train_step.pickle"));
    let text = format::format_allocator_settings(snap.allocator_settings.as_ref());
    assert!(snap.allocator_settings.is_some());
    assert!(text.lines().count() >= 3, "{text}");
    assert!(text.lines().any(|l| l.starts_with("expandable_segments: ")), "{text}");
    let old = load_path(&snapshot_path("llm_inference_no_timestamps.pickle"));
    assert_eq!(format::format_allocator_settings(old.allocator_settings.as_ref()), format::NO_ALLOCATOR_SETTINGS);
    let p = tmp("views_state_pool_settings.pickle");
    python(&["tests/reference/gen_private_pool.py", p.to_str().unwrap()]);
    let g = load_path(&p);
    assert_eq!(
        format::format_allocator_settings(g.allocator_settings.as_ref()),
        "PYTORCH_CUDA_ALLOC_CONF: expandable_segments:True\nexpandable_segments: True\nroundup_power2_divisions: [1, 2, 4, 8]"
    );
}

/// Every new view on every real snapshot and device: no panic, and the
/// figures agree with each other.
#[test]
fn all_views_on_all_real_snapshots() {
    for name in [
        "compile_context_metadata.pickle",
        "llm_inference_no_timestamps.pickle",
        "segments_only_list.pkl",
        "small_train_step.pickle",
        "transformer_forward_bf16.pickle",
        "transformer_forward_mixed_ctx256.pickle",
        "transformer_fullstep_ctx128.pickle",
        "two_devices_state_only.pickle",
    ] {
        let snap = load_path(&snapshot_path(name));
        let v = versions::compute(&snap);
        let idx = SearchIndex::new(&snap);
        for d in snap.devices() {
            let mut sv = segment_map::StateView::new(&snap, &v, d);
            assert_eq!(sv.selected(), sv.len().checked_sub(1), "{name}");
            assert_eq!(sv.map.reserved_bytes, sv.state.totals.reserved_bytes, "{name}");
            // The final state is the dump.
            let dump: u64 = snap.device_segments(d).map(|s| s.total_size).sum();
            assert_eq!(sv.map.reserved_bytes, dump, "{name}");
            for _ in 0..20 {
                sv.step(&snap, -1);
                assert_eq!(sv.map.allocated_bytes, sv.state.totals.allocated_bytes, "{name}");
            }
            for i in (0..sv.len()).step_by(sv.len() / 50 + 1) {
                assert!(!segment_map::event_line(&snap, &v, d, i).is_empty());
            }
            let tl = Timeline::build(&snap, d, TimelineKind::ActiveMemory);
            let pp = PrivatePools::build(&snap, &tl);
            assert_eq!(pp.total, tl.total, "{name}: no private pools in the real files");
            let dv = DetailView::new(&tl, 100);
            let pd = PoolDetail::new(&tl, &pp, &dv);
            for step in (0..tl.n_steps()).step_by(tl.n_steps() as usize / 20 + 1) {
                let (top, s) = pd.bands_at(&tl, &pp, &dv, step, |_| {});
                assert_eq!(top + s, tl.total[step as usize], "{name}");
            }
            let links = EventLinks::new(&snap, &tl);
            let mut linked = 0;
            for e in 0..tl.elements.len() as u32 {
                if let Some(i) = links.event_for_element(&tl, e) {
                    assert_eq!(links.element_of_event(i as usize), Some(e));
                    linked += 1;
                }
            }
            assert!(
                linked > 0 || !snap.trace(d).action.contains(&Action::Alloc),
                "{name}: no element links to its alloc"
            );
            let all = idx.search_elements(&snap, &v, &tl, SearchKind::Address, "_");
            assert_eq!(all.len(), tl.elements.len(), "{name}: every address has a version");
            let _ = idx.search_events(&snap, &v, d, SearchKind::Frame, "py");
        }
    }
}
