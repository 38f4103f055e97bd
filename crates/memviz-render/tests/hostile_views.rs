//! Issue 9, "no view can be broken by a file": the hostile snapshots of
//! tests/hostile/gen_hostile.py (written at test time with Python's pickle)
//! through every view the page has, the way the page drives them: both
//! timelines at several detail limits, canvas sizes and windows, with hover
//! and minimap; Allocated Memory (incl. Private Pools); the Allocator State
//! History at the first, a middle and the last event with its segment map
//! drawn at odd canvas sizes and scroll offsets and hovered all over; search
//! by address and frame text; the jumps between views. Nothing may panic,
//! what each file is known to hold must show, and the work stays in
//! proportion (counted, not timed: speed lives in the benchmarks).

use std::path::{Path, PathBuf};
use std::process::Command;

use memviz_core::format::hover_text;
use memviz_core::pools::{PoolDetail, PrivatePools, Slot};
use memviz_core::search::{SearchIndex, SearchKind};
use memviz_core::segment_map::{MapHit, RectKind, StateView};
use memviz_core::timeline::{DetailView, EventLinks, Hit, Timeline, TimelineKind};
use memviz_core::versions::{self, Versions};
use memviz_core::Snapshot;
use memviz_render::pools::{render_pools, PoolTotals};
use memviz_render::segment_map::{render_segment_map, MapGeometry};
use memviz_render::*;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Writes the hostile snapshots `names` into a fresh directory and loads them.
fn hostile(names: &[&str]) -> Vec<(String, Snapshot)> {
    let dir = std::env::temp_dir().join(format!("memviz-hostile-{}-{}", std::process::id(), names.join("-")));
    let st = Command::new("python3")
        .arg(root().join("tests/hostile/gen_hostile.py"))
        .arg(&dir)
        .args(names)
        .status()
        .expect("python3 is needed to write the hostile snapshots");
    assert!(st.success(), "gen_hostile.py failed");
    let out = names
        .iter()
        .map(|n| {
            let bytes = std::fs::read(dir.join(format!("{n}.pickle"))).expect("gen_hostile.py wrote it");
            let snap = memviz_core::load(&bytes).unwrap_or_else(|e| panic!("{n}: {e}"));
            (n.to_string(), snap)
        })
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    out
}

/// Canvas sizes (device pixels) the page may hand over: 1 px, thin, odd,
/// ordinary, wide.
const SIZES: [(u32, u32); 5] = [(1, 1), (3, 700), (97, 13), (640, 220), (1400, 480)];

/// What one file's walk through the views saw.
#[derive(Default, Debug)]
struct Seen {
    timeline_hits: usize,
    pool_hits: usize,
    map_hits: usize,
    map_rects: usize,
    map_rows: u32,
    clipped_blocks: usize,
    address_matches: usize,
    frame_matches: usize,
}

/// How much of each view to walk: everything, or (big files, debug builds)
/// one pass at fewer sizes and detail limits.
#[derive(Clone, Copy, PartialEq)]
enum Depth {
    Full,
    Light,
}

fn timeline_views(snap: &Snapshot, v: &Versions, ix: &SearchIndex, device: u32, depth: Depth, seen: &mut Seen) {
    for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
        let tl = Timeline::build(snap, device, kind);
        let n = tl.n_steps();
        let all = tl.elements.len() as u32;
        let limits: &[u32] = if depth == Depth::Full { &[all, 50, 1, 0] } else { &[50, 0] };
        let sizes: &[(u32, u32)] = if depth == Depth::Full { &SIZES } else { &SIZES[..3] };
        for &limit in limits {
            let dv = DetailView::new(&tl, limit);
            let bix = BandIndex::new(&tl, &dv);
            let src = TimelineBands::new(&tl, &dv, &bix);
            let windows = [
                Window::full(n),
                Window { x0: n as f64 / 3.0, x1: n as f64 / 3.0 + 4.0 }.clamped(n, 4.0),
                Window { x0: -1e300, x1: f64::INFINITY }.clamped(n, 4.0),
                Window { x0: f64::NAN, x1: 3.0 }.clamped(n, 4.0),
                Window::full(n).zoom(1e-9, 0.99).clamped(n, 1.0),
                Window::full(n).pan(1e12).clamped(n, 4.0),
            ];
            for (k, &(w, h)) in sizes.iter().enumerate() {
                let win = windows[k % windows.len()];
                let cols = pick_columns(&src, win, w);
                let y_max = ((cols.max_total as f64) * 1.06).ceil().max(1.0) as u64;
                let mut img = Image::new(w, h);
                let selected = tl.by_size.first().copied();
                render_plot(&src, &cols, PlotStyle { y_max, selected, outline: 2 }, &mut img);
                assert_eq!(img.rgba.len(), (w * h * 4) as usize);
                // Hover a grid of pixels, and a few off the image.
                let (gx, gy) = (w.div_ceil(16).max(1), h.div_ceil(16).max(1));
                let mut pts: Vec<(f64, f64)> = (0..w)
                    .step_by(gx as usize)
                    .flat_map(|x| (0..h).step_by(gy as usize).map(move |y| (x as f64 + 0.5, y as f64 + 0.5)))
                    .collect();
                pts.extend([(-1.0, 0.0), (w as f64, 0.0), (0.0, h as f64), (f64::NAN, 1.0), (1e300, 1e300)]);
                for (x, y) in pts {
                    let Some((step, bytes)) = pixel_to_point(&cols, y_max, h, x, y) else { continue };
                    if let Some(hit) = dv.hit(&tl, step, bytes) {
                        seen.timeline_hits += 1;
                        if let Hit::Element(e) = hit {
                            assert!(!hover_text(snap, Some(v), &tl, e).is_empty());
                        }
                    }
                }
                let (mc, mmax) = minimap_columns(&tl.total, tl.start_bytes, w);
                let mut mini = Image::new(w, h.min(60));
                render_minimap(&mc, mmax, n, win, Some(tl.peak_step()), &mut mini);
            }
            if kind == TimelineKind::ActiveMemory {
                pools_view(snap, &tl, &dv, sizes, seen);
            }
        }
        for e in [0, all / 2, all.saturating_sub(1), all, u32::MAX] {
            let _ = hover_text(snap, Some(v), &tl, e);
        }
        let links = EventLinks::new(snap, &tl);
        for i in [0, snap.trace(device).len() / 2, snap.trace(device).len(), usize::MAX] {
            let _ = links.element_of_event(i);
        }
        for e in [0, all / 2, all.saturating_sub(1), all, u32::MAX] {
            let _ = links.event_for_element(&tl, e);
        }
        for q in ["7", "_0", "b", "s", "0x", "ffffffffffffffffffffffff", "_", "zz", "7f00_", "  "] {
            seen.address_matches += ix.search_elements(snap, v, &tl, SearchKind::Address, q).len();
        }
        for q in ["hostile", "alloc", ".py:1:", "é", "\u{0}"] {
            seen.frame_matches += ix.search_elements(snap, v, &tl, SearchKind::Frame, q).len();
        }
    }
}

fn pools_view(snap: &Snapshot, tl: &Timeline, dv: &DetailView, sizes: &[(u32, u32)], seen: &mut Seen) {
    let pp = PrivatePools::build(snap, tl);
    let pd = PoolDetail::new(tl, &pp, dv);
    let n = tl.n_steps();
    for &(w, h) in &sizes[..sizes.len().min(4)] {
        let cols = pick_columns(&PoolTotals(&pp), Window::full(n), w);
        let y_max = ((cols.max_total as f64) * 1.06).ceil().max(1.0) as u64;
        let mut img = Image::new(w, h);
        render_pools(tl, &pp, &pd, dv, &cols, y_max, tl.by_size.first().copied(), &mut img);
        for x in (0..w).step_by(w.div_ceil(8).max(1) as usize) {
            for y in (0..h).step_by(h.div_ceil(8).max(1) as usize) {
                let Some((step, bytes)) = pixel_to_point(&cols, y_max, h, x as f64 + 0.5, y as f64 + 0.5) else {
                    continue;
                };
                if pd.hit(tl, &pp, dv, step, bytes).is_some() {
                    seen.pool_hits += 1;
                }
            }
        }
    }
    for p in &pp.pools {
        assert!(!p.text().is_empty());
    }
}

fn state_views(snap: &Snapshot, v: &Versions, ix: &SearchIndex, device: u32, depth: Depth, seen: &mut Seen) {
    let mut sv = StateView::new(snap, v, device);
    let n = sv.len();
    let picks: &[usize] =
        if depth == Depth::Full { &[usize::MAX, 0, n / 2, n.saturating_sub(1)] } else { &[usize::MAX, n / 2] };
    for (k, &i) in picks.iter().enumerate() {
        if i != usize::MAX {
            sv.select(snap, i);
        }
        sv.step(snap, -1);
        sv.step(snap, 1);
        let _ = (sv.totals_text(), sv.fragmentation_text());
        for j in [0, n / 2, n, usize::MAX] {
            let _ = sv.event_text(snap, v, j);
        }
        let map = &sv.map;
        seen.map_rects = seen.map_rects.max(map.rects.len());
        seen.map_rows = seen.map_rows.max(map.rows);
        seen.clipped_blocks = seen.clipped_blocks.max(map.clipped_blocks);
        // Odd canvases, scrolled to the top, the middle, the bottom, past it.
        let sizes: &[(u32, u32)] = if k == 0 && depth == Depth::Full { &SIZES } else { &SIZES[2..4] };
        for &(w, h) in sizes {
            let mut img = Image::new(w, h);
            let probe = MapGeometry::new(map, w, h, 48.0, 6.0, 0.0);
            let hovered: Vec<usize> = (0..map.rects.len()).step_by(map.rects.len().div_ceil(50).max(1)).collect();
            for y_off in [0.0, probe.total_h / 2.0, probe.total_h - h as f64, 1e300, -7.0, f64::NAN] {
                let g = render_segment_map(map, &mut img, 48.0, 1, Some(&hovered), y_off);
                assert_eq!(img.rgba.len(), (w * h * 4) as usize);
                assert!(g.y_off.is_finite() && g.y_off >= 0.0, "{y_off} -> {}", g.y_off);
                let (a, b) = g.visible_rows(h);
                assert!(a <= b && b <= g.rows);
                let (gx, gy) = (w.div_ceil(24).max(1), h.div_ceil(24).max(1));
                for x in (0..w).step_by(gx as usize) {
                    for y in (0..h).step_by(gy as usize) {
                        let Some((row, bytes, frac)) = g.to_map(x as f64 + 0.5, y as f64 + 0.5) else { continue };
                        if let Some(hit) = sv.hit(row, bytes, frac) {
                            seen.map_hits += 1;
                            assert!(!sv.hit_text(snap, hit).is_empty(), "{hit:?}");
                        }
                    }
                }
                for (x, y) in [(-1.0, -1.0), (f64::NAN, 0.0), (1e300, 1.0), (0.0, 1e300)] {
                    if let Some((row, bytes, frac)) = g.to_map(x, y) {
                        let _ = sv.hit(row, bytes, frac);
                    }
                }
            }
        }
        for hit in [MapHit::Segment(u32::MAX), MapHit::Block(0, u32::MAX), MapHit::Waste(u32::MAX, 0)] {
            assert_eq!(sv.hit_text(snap, hit), "");
        }
    }
    for q in ["7", "_1", "s", "0x7", "zz"] {
        seen.address_matches += ix.search_events(snap, v, device, SearchKind::Address, q).len();
    }
    seen.frame_matches += ix.search_events(snap, v, device, SearchKind::Frame, "hostile").len();
}

/// Every view of every device of `snap`; returns what was seen per device.
fn all_views(name: &str, snap: &Snapshot, depth: Depth) -> Vec<(u32, Seen)> {
    let v = versions::compute(snap);
    let ix = SearchIndex::new(snap);
    let mut out = Vec::new();
    for d in snap.devices() {
        let mut seen = Seen::default();
        timeline_views(snap, &v, &ix, d, depth, &mut seen);
        state_views(snap, &v, &ix, d, depth, &mut seen);
        out.push((d, seen));
    }
    eprintln!("{name}: {out:?}");
    out
}

#[test]
fn past_end_blocks_are_cut_at_their_segment() {
    let files = hostile(&["past_end"]);
    let (name, snap) = &files[0];
    let seen = all_views(name, snap, Depth::Full);
    assert_eq!(seen.len(), 1);
    let s = &seen[0].1;
    // 150 segments in 150 rows, 158 blocks: every block drawn, the 8 that
    // run past their segment's end cut at it.
    assert_eq!(s.clipped_blocks, 8);
    assert_eq!(s.map_rows, 150, "{s:?}");
    assert!(s.map_hits > 0 && s.timeline_hits > 0);
    // The map scrolled to its last row draws the past-end blocks inside
    // their segments' boxes: no pixel right of the widest segment's box.
    let v = versions::compute(snap);
    let sv = StateView::new(snap, &v, 0);
    assert_eq!(sv.state.segments.len(), 150);
    let last_row = sv.map.rows - 1;
    for r in sv.map.rects.iter().filter(|r| r.row == last_row && r.kind != RectKind::Segment) {
        let seg = sv.map.places[r.segment as usize];
        let size = sv.state.segments[r.segment as usize].size as f64;
        assert!(r.x >= seg.x && r.x + r.width <= seg.x + size, "{r:?} outside {seg:?} + {size}");
    }
    let mut img = Image::new(300, 40);
    let g = render_segment_map(&sv.map, &mut img, 48.0, 1, None, 1e9);
    assert_eq!(g.visible_rows(40).1, sv.map.rows);
}

#[test]
fn overlapping_and_outside_blocks_and_segments() {
    let files = hostile(&["overlap"]);
    let (name, snap) = &files[0];
    let seen = all_views(name, snap, Depth::Full);
    let s = &seen[0].1;
    assert!(s.map_hits > 0 && s.timeline_hits > 0 && s.pool_hits > 0, "{s:?}");
    // The final state: blocks outside every segment are counted, not drawn.
    let v = versions::compute(snap);
    let sv = StateView::new(snap, &v, 0);
    assert!(!sv.state.orphan_blocks.is_empty());
    assert!(sv.history.inconsistencies().total() > 0);
}

#[test]
fn zero_negative_and_wrapping_sizes() {
    let files = hostile(&["sizes"]);
    let (name, snap) = &files[0];
    // Negative sizes: the decoder skips those entries and says so.
    let warnings: Vec<String> = snap.warnings.list.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "segments[4]: 'total_size' is negative; skipped",
            "device_traces[0][5]: 'size' is negative; 2 entries like it skipped",
            "device_traces[0][18]: 'device_free' is negative (read as 0)",
        ]
    );
    let seen = all_views(name, snap, Depth::Full);
    let s = &seen[0].1;
    assert!(s.map_hits > 0 && s.timeline_hits > 0, "{s:?}");
    assert!(s.clipped_blocks >= 1, "{s:?}");
}

#[test]
fn chaotic_traces() {
    let files = hostile(&["chaos"]);
    let (name, snap) = &files[0];
    let seen = all_views(name, snap, Depth::Full);
    assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), vec![0, 1]);
    assert!(seen[0].1.map_hits > 0);
}

/// Device indices come from the file: per-device work and memory follow the
/// devices present, not the largest index.
#[test]
fn device_indices_in_the_thousands_and_billions() {
    let files = hostile(&["devices"]);
    let (name, snap) = &files[0];
    assert_eq!(snap.devices(), vec![3, 5000, 4_000_000_000]);
    assert_eq!(snap.default_device(), Some(5000));
    let seen = all_views(name, snap, Depth::Full);
    let by_dev: Vec<(u32, usize)> = seen.iter().map(|(d, s)| (*d, s.map_rects)).collect();
    // Device 3: one segment, one block; 5000: one segment, its block after
    // the trace, one freed block before it; 4e9: one segment, one block.
    assert_eq!(by_dev.len(), 3);
    assert!(by_dev.iter().all(|&(_, r)| r >= 2), "{by_dev:?}");
    let v = versions::compute(snap);
    let sv = StateView::new(snap, &v, 5000);
    assert_eq!((sv.len(), sv.state.segments.len()), (4, 1));
}

/// 100,000 segments, 50,000 private pools: every view within a budget.
#[test]
fn a_hundred_thousand_segments() {
    let files = hostile(&["many_segments"]);
    let (name, snap) = &files[0];
    assert_eq!(snap.segments.len(), 100_000);
    let v = versions::compute(snap);
    let tl = Timeline::build(snap, 0, TimelineKind::ActiveMemory);
    let pp = PrivatePools::build(snap, &tl);
    assert_eq!(pp.pools.len(), 50_000);
    let dv = DetailView::new(&tl, 1000);
    let pd = PoolDetail::new(&tl, &pp, &dv);
    // 50,000 pools: the sweep, whose changes are in proportion to the
    // elements and envelope heights (not pools x steps)...
    let sw = pd.sweep.as_ref().expect("a sweep for 50,000 pools");
    let heights: usize = pp.pools.iter().map(|p| p.heights.len()).sum();
    assert_eq!(sw.top.len(), pp.pools.len() + sw.top.iter().filter(|s| matches!(s, Slot::Element(_))).count());
    assert!(sw.changes.len() <= 3 * tl.elements.len() + heights, "{} changes", sw.changes.len());
    // ...and a drawing that visits bands per pixel row, not every pool in
    // every column (walking them: 50,000 x 400).
    let (w, h) = (400, 200);
    let cols = pick_columns(&PoolTotals(&pp), Window::full(tl.n_steps()), w);
    let mut img = Image::new(w, h);
    let st = render_pools(&tl, &pp, &pd, &dv, &cols, cols.max_total.max(1), None, &mut img);
    assert!(st.bands > 0 && st.bands <= 2 * (w * h) as u64, "{} bands visited", st.bands);
    let sv = StateView::new(snap, &v, 0);
    assert_eq!(sv.state.segments.len(), 100_000);
    assert!(sv.map.rows > 1000, "{}", sv.map.rows);
    let blocks: usize = sv.state.segments.iter().map(|s| s.blocks.len()).sum();
    assert!(sv.map.rects.len() <= sv.state.segments.len() + 2 * blocks);
    let seen = all_views(name, snap, Depth::Light);
    assert!(seen[0].1.map_hits > 0 && seen[0].1.pool_hits > 0);
}

/// The state history says what its map cannot show.
#[test]
fn the_state_history_names_what_it_cannot_draw() {
    let files = hostile(&["past_end", "overlap"]);
    let v = versions::compute(&files[0].1);
    let sv = StateView::new(&files[0].1, &v, 0);
    assert_eq!(
        sv.issues_text(),
        "Inconsistent input: 8 blocks running past their segment's end (cut there); \
         the trace disagrees with the dump 8 times: block_outside_segment 8"
    );
    let v = versions::compute(&files[1].1);
    let sv = StateView::new(&files[1].1, &v, 0);
    let text = sv.issues_text();
    let n = sv.state.orphan_blocks.len();
    assert!(n >= 2, "{n}");
    assert!(text.starts_with(&format!("Inconsistent input: {n} blocks outside every segment (not drawn); ")), "{text}");
    assert!(text.contains("the trace disagrees with the dump"), "{text}");
}

/// The view fuzz targets' finds (crates/memviz-core/tests/regressions/
/// views-*): every view, and the segment map with the canvas and scroll
/// offsets fuzz/fuzz_targets/common.rs takes from the last 16 bytes.
#[test]
fn view_target_regressions() {
    let dir = root().join("crates/memviz-core/tests/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("views-") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let snap = memviz_core::load(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut t = [0u8; 16];
        t.copy_from_slice(&bytes[bytes.len() - 16..]);
        let w = match t[0] % 8 {
            0 => 1,
            1 => 1 + u16::from_le_bytes([t[0], t[1]]) as u32 % 4000,
            _ => 1 + u16::from_le_bytes([t[0], t[1]]) as u32 % 700,
        };
        let h = match t[2] % 8 {
            0 => 1,
            1 => 1 + u16::from_le_bytes([t[2], t[3]]) as u32 % 3000,
            _ => 1 + u16::from_le_bytes([t[2], t[3]]) as u32 % 400,
        };
        let outline = 1 + (t[8] % 3) as u32;
        let v = versions::compute(&snap);
        for d in snap.devices() {
            let mut sv = StateView::new(&snap, &v, d);
            for i in [0, sv.len() / 2, sv.len().saturating_sub(1)] {
                sv.select(&snap, i);
                let max_row = 48.0 * outline as f64;
                let probe = MapGeometry::new(&sv.map, w, h, max_row, 6.0 * outline as f64, 0.0);
                for y_off in [probe.total_h - h as f64, probe.total_h / 3.0, 0.0] {
                    let mut img = Image::new(w, h);
                    render_segment_map(&sv.map, &mut img, max_row, outline, None, y_off);
                }
            }
        }
        all_views(&name, &snap, Depth::Full);
        n += 1;
    }
    assert!(n >= 1, "no views-* regression inputs in {}", dir.display());
}
