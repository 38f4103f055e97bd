//! The pools view drawn two ways: walking every band of every column
//! (`PoolDetail::bands_at`), and the sweep over prefix sums that views with
//! many pools use (`PoolSweep`). Same pixels, on real traces whose segments
//! are put into private pools here.
use memviz_core::pools::{PoolDetail, PrivatePools, SWEEP_POOLS};
use memviz_core::timeline::{DetailView, Timeline, TimelineKind};
use memviz_core::Snapshot;
use memviz_render::pools::{render_pools, PoolTotals};
use memviz_render::{pick_columns, Image, Window};

fn load(name: &str) -> Snapshot {
    let path = format!("{}/../../../shared/snapshots/{name}", env!("CARGO_MANIFEST_DIR"));
    memviz_core::load(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).unwrap()
}

/// `snap` with every `every`-th segment in one of `pools` private pools.
fn pooled(mut snap: Snapshot, every: usize, pools: i64) -> Snapshot {
    for (i, s) in snap.segments.iter_mut().enumerate() {
        if i % every == 0 {
            s.pool_id = Some((1, (i as i64 / every as i64) % pools + 1));
        }
    }
    snap
}

fn compare(name: &str, snap: &Snapshot) -> usize {
    let dev = snap.default_device().unwrap();
    let tl = Timeline::build(snap, dev, TimelineKind::ActiveMemory);
    let pp = PrivatePools::build(snap, &tl);
    assert!(!pp.pools.is_empty() && pp.pools.len() <= SWEEP_POOLS, "{name}: {} pools", pp.pools.len());
    let n = tl.n_steps();
    let mut compared = 0;
    let (mut env_px, mut colors) = (0u64, std::collections::HashSet::new());
    for limit in [tl.elements.len() as u32, 200, 20, 1, 0] {
        let dv = DetailView::new(&tl, limit);
        let walk = PoolDetail::new(&tl, &pp, &dv);
        assert!(walk.sweep.is_none());
        let sweep = PoolDetail::with_sweep(&tl, &pp, &dv);
        for (w, h, win) in [
            (640, 300, Window::full(n)),
            (97, 41, Window::full(n)),
            (300, 500, Window { x0: n as f64 * 0.4, x1: n as f64 * 0.45 }.clamped(n, 4.0)),
            (1200, 7, Window::full(n)),
        ] {
            let cols = pick_columns(&PoolTotals(&pp), win, w);
            let y_max = ((cols.max_total as f64) * 1.06).ceil().max(1.0) as u64;
            let selected = tl.by_size.get(3).copied();
            let (mut a, mut b) = (Image::new(w, h), Image::new(w, h));
            let sa = render_pools(&tl, &pp, &walk, &dv, &cols, y_max, selected, &mut a);
            let sb = render_pools(&tl, &pp, &sweep, &dv, &cols, y_max, selected, &mut b);
            assert_eq!(sa.envelope_px, sb.envelope_px, "{name} limit {limit} {w}x{h}");
            if a.rgba != b.rgba {
                let k = a.rgba.iter().zip(&b.rgba).position(|(x, y)| x != y).unwrap() / 4;
                let (x, y) = (k as u32 % w, k as u32 / w);
                panic!(
                    "{name} limit {limit} {w}x{h}: pixel ({x}, {y}) {:?} walking, {:?} sweeping",
                    a.get(x, y),
                    b.get(x, y)
                );
            }
            env_px += sa.envelope_px;
            colors.extend(a.rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]));
            compared += 1;
        }
    }
    // Envelopes, stripes and bands of several colors were drawn (the bands
    // in their pool's shades: with one pool, 3 of it, some of the default
    // pool's, its envelope, the summarized gray and the background).
    assert!(env_px > 0 && colors.len() > 5, "{name}: {env_px} envelope px, {} colors", colors.len());
    compared
}

#[test]
fn sweep_draws_what_walking_the_bands_draws() {
    let mut n = 0;
    n += compare("ctx128 pooled", &pooled(load("transformer_fullstep_ctx128.pickle"), 3, 5));
    n += compare("ctx128 one pool", &pooled(load("transformer_fullstep_ctx128.pickle"), 1, 1));
    n += compare("mixed ctx256 pooled", &pooled(load("transformer_forward_mixed_ctx256.pickle"), 2, 40));
    n += compare("cuda graph pools", &load("cuda_graph_private_pools_state_only.pickle"));
    n += compare("small pooled", &pooled(load("small_train_step.pickle"), 2, 3));
    assert_eq!(n, 5 * 5 * 4);
}
