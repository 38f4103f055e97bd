//! Each allocator rule on a small hand-made case whose outcome follows from
//! PyTorch's documented behaviour (the CUDA semantics notes, the comments
//! of CUDACachingAllocator.cpp). Two kinds: the model alone (what it asks
//! the device for, where blocks land), and hand-made traces holding the
//! segment events PyTorch would record, which the self-check must reproduce.

use memviz_allocator::SegmentAction::{Alloc, Free, Map, Unmap};
use memviz_allocator::{Cache, Limit, Replay, SegmentAction, SegmentEvent, Settings, WhatIf};

const MIB: u64 = 1 << 20;
const BASE: u64 = 1 << 40;

fn cache(conf: &str, limit: Limit) -> Cache {
    let mut s = Settings::default();
    if !conf.is_empty() {
        s.set(conf).unwrap();
    }
    Cache::new(s, limit, BASE, 80 << 30)
}

fn cap(bytes: u64) -> Limit {
    Limit { bytes: Some(bytes), per_process: true }
}

/// The device calls since the last look, as (action, size).
fn calls(c: &mut Cache) -> Vec<(SegmentAction, u64)> {
    c.events.drain(..).map(|e: SegmentEvent| (e.action, e.size)).collect()
}

#[test]
fn rounding_to_512_bytes() {
    let mut c = cache("", Limit::default());
    let a = c.malloc(1, 0, None).unwrap();
    let b = c.malloc(513, 0, None).unwrap();
    let d = c.malloc(100, 0, None).unwrap();
    assert_eq!(c.block_addr(b) - c.block_addr(a), 512);
    assert_eq!(c.block_addr(d) - c.block_addr(b), 1024);
    assert_eq!(c.allocated(), 512 + 1024 + 512);
}

#[test]
fn roundup_power2_divisions_round_to_the_next_division() {
    // 4 divisions between 4 MiB and 8 MiB: 4, 5, 6, 7 MiB.
    let mut c = cache("roundup_power2_divisions:4", Limit::default());
    c.malloc(5 * MIB + 1, 0, None).unwrap();
    assert_eq!(c.allocated(), 6 * MIB);
    // Without them, 512 B granularity.
    let mut c = cache("", Limit::default());
    c.malloc(5 * MIB + 1, 0, None).unwrap();
    assert_eq!(c.allocated(), 5 * MIB + 512);
    // A per-interval list: [1:2,>:8] (1-2 MiB: halves; above: eighths).
    let mut s = Settings::default();
    s.set("roundup_power2_divisions:[1:2,>:8]").unwrap();
    assert_eq!(s.divisions_for(MIB + 1), 2);
    assert_eq!(s.divisions_for(64 * MIB + 1), 8);
}

#[test]
fn small_pool_2mib_segments_large_pool_20mib_or_rounded_to_2mib() {
    for (request, segment) in
        [(MIB, 2 * MIB), (MIB + 1, 20 * MIB), (10 * MIB - 512, 20 * MIB), (10 * MIB + 1, 12 * MIB)]
    {
        let mut c = cache("", Limit::default());
        c.malloc(request, 0, None).unwrap();
        assert_eq!(calls(&mut c), vec![(Alloc, segment)], "{request}");
    }
}

#[test]
fn small_blocks_split_remainder_of_512_bytes() {
    let mut c = cache("", Limit::default());
    let a = c.malloc(MIB, 0, None).unwrap();
    c.malloc(MIB - 512, 0, None).unwrap();
    // The last 512 bytes were split off and serve this one.
    let b = c.malloc(100, 0, None).unwrap();
    assert_eq!(calls(&mut c), vec![(Alloc, 2 * MIB)], "one segment holds all three");
    assert_eq!(c.block_addr(b), c.block_addr(a) + 2 * MIB - 512);
}

#[test]
fn large_blocks_split_only_a_remainder_over_1mib() {
    let mut c = cache("", Limit::default());
    let a = c.malloc(5 * MIB, 0, None).unwrap();
    let b = c.malloc(5 * MIB, 0, None).unwrap();
    assert_eq!(calls(&mut c), vec![(Alloc, 20 * MIB)]);
    assert_eq!(c.block_addr(b), c.block_addr(a) + 5 * MIB);
    // 9.5 MiB leaves 0.5 MiB of the last 10 MiB: not split off, the block keeps it.
    c.malloc(9 * MIB + MIB / 2, 0, None).unwrap();
    assert_eq!(c.allocated(), 20 * MIB);
    assert!(calls(&mut c).is_empty());
}

#[test]
fn best_fit_by_size_then_address() {
    let mut c = cache("", Limit::default());
    let big = c.malloc(30 * MIB, 0, None).unwrap();
    let small = c.malloc(12 * MIB, 0, None).unwrap();
    let (big_at, small_at) = (c.block_addr(big), c.block_addr(small));
    c.free(big);
    c.free(small);
    calls(&mut c);
    // 11 MiB fits both cached segments: the smaller one is chosen.
    let x = c.malloc(11 * MIB, 0, None).unwrap();
    assert_eq!(c.block_addr(x), small_at);
    // Two equal candidates: the lower address.
    let y = c.malloc(30 * MIB, 0, None).unwrap();
    assert_eq!(c.block_addr(y), big_at);
    assert!(calls(&mut c).is_empty());
}

#[test]
fn frees_coalesce_with_free_neighbours() {
    let mut c = cache("", Limit::default());
    let a = c.malloc(5 * MIB, 0, None).unwrap();
    let b = c.malloc(5 * MIB, 0, None).unwrap();
    let _keep = c.malloc(5 * MIB, 0, None).unwrap();
    let at = c.block_addr(a);
    c.free(a);
    c.free(b);
    // 9 MiB fits only the merged 10 MiB (the tail is 5 MiB).
    let x = c.malloc(9 * MIB, 0, None).unwrap();
    assert_eq!(c.block_addr(x), at);
    assert_eq!(calls(&mut c), vec![(Alloc, 20 * MIB)]);
}

#[test]
fn each_stream_has_its_own_pools() {
    let mut c = cache("", Limit::default());
    let a = c.malloc(4 * MIB, 0, None).unwrap();
    c.free(a);
    c.malloc(4 * MIB, 1, None).unwrap();
    assert_eq!(calls(&mut c), vec![(Alloc, 20 * MIB), (Alloc, 20 * MIB)], "stream 1 cannot use stream 0's cache");
}

#[test]
fn private_pools_keep_their_own_blocks() {
    let mut c = cache("", Limit::default());
    let a = c.malloc(4 * MIB, 0, Some((1, 0))).unwrap();
    c.free(a);
    c.malloc(4 * MIB, 0, None).unwrap();
    let b = c.malloc(4 * MIB, 0, Some((1, 0))).unwrap();
    assert_eq!(calls(&mut c), vec![(Alloc, 20 * MIB), (Alloc, 20 * MIB)]);
    assert_eq!(c.block_addr(b), BASE, "the graph's request reuses the graph's pool");
    // empty_cache() leaves private pools alone.
    c.release_cached();
    assert!(calls(&mut c).is_empty());
}

#[test]
fn max_split_size_oversize_blocks_never_split_and_reuse_within_tolerance() {
    let mut c = cache("max_split_size_mb:100", Limit::default());
    let a = c.malloc(200 * MIB, 0, None).unwrap();
    c.free(a);
    calls(&mut c);
    // A request under max_split_size never takes an oversize block.
    c.malloc(50 * MIB, 0, None).unwrap();
    // An oversize request takes it only within 20 MiB (max_non_split_rounding_mb).
    c.malloc(150 * MIB, 0, None).unwrap();
    assert_eq!(calls(&mut c), vec![(Alloc, 50 * MIB), (Alloc, 150 * MIB)]);
    let x = c.malloc(190 * MIB, 0, None).unwrap();
    assert!(calls(&mut c).is_empty());
    assert_eq!(c.block_addr(x), BASE);
    assert_eq!(c.allocated(), 50 * MIB + 150 * MIB + 200 * MIB, "taken whole, not split");
}

#[test]
fn when_the_device_refuses_cached_segments_are_released_and_the_request_retried() {
    let mut c = cache("", cap(40 * MIB));
    let a = c.malloc(20 * MIB, 0, None).unwrap();
    c.free(a);
    calls(&mut c);
    c.malloc(30 * MIB, 0, None).unwrap();
    assert_eq!(calls(&mut c), vec![(Free, 20 * MIB), (Alloc, 30 * MIB)]);
    // Nothing left to release: the OOM.
    let oom = c.malloc(20 * MIB, 0, None).unwrap_err();
    assert_eq!((oom.size, oom.reserved), (20 * MIB, 30 * MIB));
}

#[test]
fn with_max_split_size_one_oversize_block_is_released_first() {
    let mut c = cache("max_split_size_mb:100", cap(600 * MIB));
    let a = c.malloc(200 * MIB, 0, None).unwrap();
    let b = c.malloc(300 * MIB, 0, None).unwrap();
    c.free(a);
    c.free(b);
    calls(&mut c);
    // 250 MiB: 200 is too small, 300 beyond the 20 MiB tolerance; 500 + 250 > 600:
    // the smallest oversize block that covers it goes, the other stays.
    c.malloc(250 * MIB, 0, None).unwrap();
    assert_eq!(calls(&mut c), vec![(Free, 300 * MIB), (Alloc, 250 * MIB)]);
    assert_eq!(c.reserved(), 450 * MIB);
}

#[test]
fn garbage_collection_threshold_frees_old_cached_blocks_above_the_threshold() {
    // Cap 100 MiB, threshold 0.5: above 50 MiB reserved, a request that needs
    // a new segment first frees the cached unsplit blocks.
    let mut c = cache("garbage_collection_threshold:0.5", cap(100 * MIB));
    let a = c.malloc(30 * MIB, 0, None).unwrap();
    let b = c.malloc(30 * MIB, 0, None).unwrap();
    c.free(a);
    calls(&mut c);
    let _ = b;
    c.malloc(32 * MIB, 0, None).unwrap();
    assert_eq!(calls(&mut c), vec![(Free, 30 * MIB), (Alloc, 32 * MIB)]);
    // Without a cap it never acts.
    let mut c = cache("garbage_collection_threshold:0.5", Limit::default());
    let a = c.malloc(30 * MIB, 0, None).unwrap();
    c.malloc(30 * MIB, 0, None).unwrap();
    c.free(a);
    calls(&mut c);
    c.malloc(32 * MIB, 0, None).unwrap();
    assert_eq!(calls(&mut c), vec![(Alloc, 32 * MIB)]);
}

#[test]
fn expandable_segments_grow_one_segment_per_stream_and_pool_in_pages() {
    let mut c = cache("expandable_segments:True", Limit::default());
    let a = c.malloc(5 * MIB, 0, None).unwrap();
    let b = c.malloc(30 * MIB, 0, None).unwrap();
    let s = c.malloc(1000, 0, None).unwrap();
    let ev: Vec<_> = c.events.drain(..).collect();
    assert_eq!(
        ev.iter().map(|e| (e.action, e.size)).collect::<Vec<_>>(),
        vec![(Map, 20 * MIB), (Map, 20 * MIB), (Map, 2 * MIB)]
    );
    // The large pool's pages follow each other; blocks tile them.
    assert_eq!(ev[1].addr, ev[0].addr + 20 * MIB);
    assert_eq!(c.block_addr(b), c.block_addr(a) + 5 * MIB);
    assert_ne!(c.block_addr(s) >> 30, c.block_addr(a) >> 30, "the small pool has its own segment");
}

#[test]
fn expandable_free_pages_are_unmapped_by_empty_cache_and_remapped_at_the_lowest_gap() {
    let mut c = cache("expandable_segments:True", Limit::default());
    let a = c.malloc(20 * MIB, 0, None).unwrap();
    let b = c.malloc(20 * MIB, 0, None).unwrap();
    let _d = c.malloc(20 * MIB, 0, None).unwrap();
    let (a_at, b_at) = (c.block_addr(a), c.block_addr(b));
    c.free(a);
    c.free(b);
    c.events.clear();
    c.release_cached();
    let ev: Vec<_> = c.events.drain(..).collect();
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!((ev[0].action, ev[0].addr, ev[0].size), (Unmap, a_at, 40 * MIB));
    // The next request is mapped back at the lowest gap, not at the end.
    let x = c.malloc(30 * MIB, 0, None).unwrap();
    let ev: Vec<_> = c.events.drain(..).collect();
    assert_eq!(ev.iter().map(|e| (e.action, e.addr, e.size)).collect::<Vec<_>>(), vec![(Map, a_at, 40 * MIB)]);
    assert_eq!(c.block_addr(x), a_at);
    let _ = b_at;
}

/// A JSON snapshot: the dump's segments, one device's trace (action, addr,
/// size, stream), the settings.
fn snapshot(settings: &str, segments: &str, events: &[(&str, u64, u64, u32)]) -> memviz_core::Snapshot {
    let ev: Vec<String> = events
        .iter()
        .map(|(a, addr, size, stream)| {
            let extra = if *a == "oom" { format!(", \"device_free\": {addr}") } else { String::new() };
            let addr = if *a == "oom" { 0 } else { *addr };
            format!(r#"{{"action": "{a}", "addr": {addr}, "size": {size}, "stream": {stream}, "frames": []{extra}}}"#)
        })
        .collect();
    let json = format!(
        r#"{{"segments": [{segments}], "device_traces": [[{}]], "allocator_settings": {{{settings}}}}}"#,
        ev.join(", ")
    );
    memviz_core::load(json.as_bytes()).unwrap()
}

const A: u64 = 0x7f00_0000_0000;
const B: u64 = 0x7f00_4000_0000;

fn exact(snap: &memviz_core::Snapshot) -> WhatIf<'_> {
    let w = WhatIf::new(snap, 0, None).unwrap();
    let c = w.self_check();
    assert!(c.exact, "{:?}", c.first_divergence);
    w
}

#[test]
fn a_free_waiting_on_another_stream_is_reusable_at_free_completed() {
    let m = 12 * MIB;
    let snap = snapshot(
        "",
        "",
        &[
            ("segment_alloc", A, m, 0),
            ("alloc", A, m, 0),
            ("free_requested", A, m, 0),
            // Still in use by another stream: a new segment.
            ("segment_alloc", B, m, 0),
            ("alloc", B, m, 0),
            ("free_completed", A, m, 0),
            // Now A is back in the pool.
            ("alloc", A, m, 0),
            ("free_requested", A, m, 0),
            ("free_completed", A, m, 0),
            ("free_requested", B, m, 0),
            ("free_completed", B, m, 0),
            ("segment_free", A, m, 0),
            ("segment_free", B, m, 0),
        ],
    );
    let w = exact(&snap);
    assert_eq!(w.self_check().events, 4 + 3);
    // The last two segment frees, with no request after them, were empty_cache().
    assert_eq!(w.check.empty_cache_at, vec![11]);
}

#[test]
fn private_pool_of_an_allocation_comes_from_its_segments_pool_id() {
    // A graph's segment (pool (1, 0)) has room, but an eager request gets its own.
    let seg = |addr: u64, pool: i64| {
        format!(
            r#"{{"device": 0, "address": {addr}, "total_size": 2097152, "allocated_size": 0, "active_size": 0, "requested_size": 0, "stream": 0, "segment_type": "small", "segment_pool_id": [{pool}, 0], "blocks": [{{"size": 2097152, "requested_size": 0, "state": "inactive"}}]}}"#
        )
    };
    let snap = snapshot(
        "",
        &format!("{}, {}", seg(A, 1), seg(B, 0)),
        &[
            ("segment_alloc", A, 2 * MIB, 0),
            ("alloc", A, 1000, 0),
            ("free_requested", A, 1000, 0),
            ("free_completed", A, 1000, 0),
            ("segment_alloc", B, 2 * MIB, 0),
            ("alloc", B, 1000, 0),
            ("free_requested", B, 1000, 0),
            ("free_completed", B, 1000, 0),
        ],
    );
    exact(&snap);
}

#[test]
fn an_oom_after_releasing_the_cache_is_reproduced_and_bounds_the_cap() {
    // Reserved 40 MiB, 20 of them cached; 50 MiB is refused though the device
    // has 10 GiB free: a cap, between 40 MiB and 20 + 50 MiB.
    let snap = snapshot(
        "",
        "",
        &[
            ("segment_alloc", A, 20 * MIB, 0),
            ("alloc", A, 20 * MIB, 0),
            ("segment_alloc", B, 20 * MIB, 0),
            ("alloc", B, 20 * MIB, 0),
            ("free_requested", B, 20 * MIB, 0),
            ("free_completed", B, 20 * MIB, 0),
            ("segment_free", B, 20 * MIB, 0),
            ("oom", 10 << 30, 50 * MIB, 0),
        ],
    );
    let w = exact(&snap);
    assert_eq!(w.capacity.cap_bounds, Some((40 * MIB, 70 * MIB)));
    assert_eq!(w.capacity.source.name(), "inferred_cap");
    // Without the 20 MiB it would have fit: a 50 MiB cap... no, the live 20
    // MiB plus 50 needs 70 MiB; any cap below that still refuses it.
    let p = w.predict(w.recording.settings.clone());
    assert!(p.outcome.ooms[0].happens);
    assert_eq!(p.min_capacity_bytes, 70 * MIB);
}

#[test]
fn live_tensors_beyond_the_capacity_oom_under_every_setting() {
    // The device is full (device_free 1 MiB): 3 x 30 MiB live and 30 MiB more
    // cannot fit 100 MiB whatever the allocator does.
    let mut ev = vec![];
    for k in 0..3u64 {
        ev.push(("segment_alloc", A + k * 32 * MIB, 30 * MIB, 0));
        ev.push(("alloc", A + k * 32 * MIB, 30 * MIB, 0));
    }
    ev.push(("oom", MIB, 30 * MIB, 0));
    let snap = snapshot("", "", &ev);
    let w = exact(&snap);
    assert_eq!(w.capacity.bytes, Some(91 * MIB));
    assert_eq!(w.capacity.source.name(), "oom_event");
    for p in w.sweep() {
        assert!(p.outcome.ooms.iter().all(|o| o.happens), "{}", memviz_allocator::whatif::conf_name(&p.settings));
        assert!(p.min_capacity_bytes >= 120 * MIB);
    }
}

#[test]
fn a_replay_runs_in_steps_to_the_same_outcome() {
    let snap = snapshot(
        "",
        "",
        &[("segment_alloc", A, 20 * MIB, 0), ("alloc", A, 5 * MIB, 0), ("alloc", A + 5 * MIB, 5 * MIB, 0)],
    );
    let w = exact(&snap);
    let whole = w.replay(Settings::default()).finish();
    let mut r = w.replay(Settings::default());
    let mut steps = 0;
    while !r.step(1) {
        steps += 1;
    }
    assert_eq!(steps, 2);
    assert_eq!(r.finish(), whole);
    let _ = Replay::self_check;
}

#[test]
fn sizes_no_device_holds_are_an_error_naming_the_event() {
    let snap = snapshot("", "", &[("segment_alloc", A, 2 * MIB, 0), ("alloc", A, 1 << 60, 0)]);
    let err = WhatIf::new(&snap, 0, None).err().expect("refused");
    assert_eq!(err, "device 0: trace event 1 (alloc) is 1152921504606846976 bytes: more than any device holds");
}
