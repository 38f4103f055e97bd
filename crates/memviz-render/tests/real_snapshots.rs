//! The renderer on the real snapshots in ../shared/snapshots.
use memviz_core::timeline::{DetailView, Hit, Timeline, TimelineKind};
use memviz_render::*;

fn load(name: &str) -> memviz_core::Snapshot {
    let path = format!("{}/../../../shared/snapshots/{name}", env!("CARGO_MANIFEST_DIR"));
    memviz_core::load(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).unwrap()
}

/// The sweep gives exactly the bands the core's stabbing query gives, for
/// steps visited in increasing order with gaps, and after jumping back.
#[test]
fn sweep_matches_bands_at() {
    for name in ["transformer_fullstep_ctx128.pickle", "llm_inference_no_timestamps.pickle", "small_train_step.pickle"]
    {
        let snap = load(name);
        let dev = snap.default_device().unwrap();
        for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
            let tl = Timeline::build(&snap, dev, kind);
            for limit in [tl.elements.len() as u32, 50, 0] {
                let dv = DetailView::new(&tl, limit);
                let ix = BandIndex::new(&tl, &dv);
                let src = TimelineBands::new(&tl, &dv, &ix);
                let n = tl.n_steps();
                // Gaps, then every step of a stretch, then a jump back.
                let steps: Vec<u32> = (0..n)
                    .step_by(7)
                    .chain(n / 3..(n / 3 + 200).min(n))
                    .chain([n / 2, n.saturating_sub(1), 3])
                    .filter(|&s| s < n)
                    .collect();
                for s in steps {
                    let mut want = Vec::new();
                    dv.bands_at(&tl, s, |b| want.push((b.elem, b.offset, b.size)));
                    let mut got = Vec::new();
                    src.bands_at(s, |e, o, z| got.push((e, o, z)));
                    assert_eq!(got, want, "{name} {kind:?} limit {limit} step {s}");
                    let drawn: u64 = want.iter().map(|b| b.2).sum();
                    assert_eq!(drawn + dv.summarized(&tl)[s as usize], tl.total[s as usize], "{name} step {s}");
                    // The plot's summarized band, from the sweep's sums.
                    assert_eq!(src.summarized(s), dv.summarized(&tl)[s as usize], "{name} step {s}");
                }
            }
        }
    }
}

/// Every pixel that a rendering gives a band's color is a pixel where the
/// core's hit test finds that band (or, for sub-pixel bands, a band of the
/// same color next to it), and the largest element is drawn.
#[test]
fn rendered_pixels_agree_with_hit_test() {
    let snap = load("transformer_fullstep_ctx128.pickle");
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let dv = DetailView::new(&tl, tl.elements.len() as u32);
    let ix = BandIndex::new(&tl, &dv);
    let src = TimelineBands::new(&tl, &dv, &ix);
    let (w, h) = (400, 300);
    let cols = pick_columns(&src, Window::full(tl.n_steps()), w);
    assert_eq!(cols.max_total, tl.peak_bytes().max(*tl.total.iter().max().unwrap()));
    let y_max = cols.max_total;
    let mut img = Image::new(w, h);
    let stats = render_plot(&src, &cols, PlotStyle { y_max, selected: None, outline: 1 }, &mut img);
    assert!(stats.bands_drawn > 500, "{stats:?}");
    let mut checked = 0;
    for x in (0..w).step_by(13) {
        for y in (0..h).step_by(11) {
            let (step, bytes) = pixel_to_point(&cols, y_max, h, x as f64 + 0.5, y as f64 + 0.5).unwrap();
            let px = img.get(x, y);
            match dv.hit(&tl, step, bytes) {
                Some(Hit::Element(e)) => {
                    // Rows take the band covering their center: same band.
                    assert_eq!(px, band_color(e), "x {x} y {y} step {step} elem {e}");
                    checked += 1;
                }
                Some(Hit::Summarized) => {}
                None => assert_eq!(px, BACKGROUND, "x {x} y {y}"),
            }
        }
    }
    assert!(checked > 200, "{checked}");
    // The largest allocation is on screen and outlined when selected.
    let big = tl.by_size[0];
    render_plot(&src, &cols, PlotStyle { y_max, selected: Some(big), outline: 1 }, &mut img);
    assert!(img.rgba.chunks(4).any(|p| p == OUTLINE));
}

/// A hovered band outlined alone (`render_selection`) and laid over the
/// plain bands gives the very pixels of a rendering with that band
/// selected, for bands large and small, one not drawn at the detail limit,
/// over the whole trace and zoomed in past one step per column; and
/// `band_of` finds each band where the core's stabbing query does.
#[test]
fn selection_overlay_matches_selected_rendering() {
    for name in ["transformer_fullstep_ctx128.pickle", "small_train_step.pickle"] {
        let snap = load(name);
        let tl = Timeline::build(&snap, snap.default_device().unwrap(), TimelineKind::ActiveMemory);
        let n = tl.elements.len();
        let limit = (n / 2).min(200);
        let dv = DetailView::new(&tl, limit as u32);
        let ix = BandIndex::new(&tl, &dv);
        // The largest, a middling and the smallest drawn band, and the largest summarized one.
        let elems = [tl.by_size[0], tl.by_size[limit / 2], tl.by_size[limit - 1], tl.by_size[limit]];
        assert!(!dv.is_drawn(elems[3]), "{name}");
        let steps = tl.n_steps();
        for e in elems {
            let src = TimelineBands::new(&tl, &dv, &ix);
            let mut live = 0;
            for s in (0..steps).step_by(5) {
                let mut want = None;
                dv.bands_at(&tl, s, |b| {
                    if b.elem == e {
                        want = Some((b.offset, b.size));
                    }
                });
                live += want.is_some() as u32;
                assert_eq!(src.band_of(s, e), want, "{name} elem {e} step {s}");
            }
            assert_eq!(live > 0, dv.is_drawn(e), "{name} elem {e}");
        }
        let (w, h) = (300, 200);
        let el = &tl.elements[elems[1] as usize];
        let around = Window { x0: el.x0 as f64 - 40.0, x1: el.x0 as f64 + 60.0 };
        for win in [Window::full(steps), around.clamped(steps, 4.0)] {
            for (i, &e) in elems.iter().enumerate() {
                let src = TimelineBands::new(&tl, &dv, &ix);
                let cols = pick_columns(&src, win, w);
                let y_max = cols.max_total.max(1);
                let mut want = Image::new(w, h);
                render_plot(&src, &cols, PlotStyle { y_max, selected: Some(e), outline: 2 }, &mut want);
                let mut got = Image::new(w, h);
                render_plot(&src, &cols, PlotStyle { y_max, selected: None, outline: 2 }, &mut got);
                let mut sel = Image::new(1, 1);
                let at = render_selection(&src, &cols, y_max, h, e, 2, &mut sel);
                let outlined = want.rgba.chunks(4).any(|p| p == OUTLINE);
                assert_eq!(at.is_some(), outlined, "{name} elem {e} window {win:?}");
                // The largest over the whole trace, the middling one around
                // its first step: on screen; a summarized band never is.
                let shown = (i == 0 && win == Window::full(steps)) || (i == 1 && win != Window::full(steps));
                assert!(outlined || !shown, "{name} elem {e} window {win:?} not outlined");
                assert!(!outlined || i < 3, "{name} elem {e}: a summarized band is outlined");
                if let Some(at) = at {
                    for y in 0..sel.height {
                        for x in 0..sel.width {
                            let p = sel.get(x, y);
                            if p[3] != 0 {
                                got.put(at.x + x, at.y + y, p);
                            }
                        }
                    }
                }
                assert!(got.rgba == want.rgba, "{name} elem {e} window {win:?}: overlay differs");
            }
        }
    }
}

/// `render_plot` writes every pixel (memviz-viewer sizes the plot without
/// clearing it, `Image::resize`): over an image left full of another color
/// it gives the very pixels it gives over a cleared one, whole and zoomed
/// in past a step per column, at every detail limit, with a band selected,
/// and for a plot of nothing (y_max 0).
#[test]
fn rendering_writes_every_pixel() {
    const STALE: Rgba = [255, 0, 255, 255];
    for name in ["transformer_fullstep_ctx128.pickle", "compile_context_metadata.pickle"] {
        let snap = load(name);
        let tl = Timeline::build(&snap, snap.default_device().unwrap(), TimelineKind::ActiveMemory);
        let n = tl.elements.len() as u32;
        for limit in [n, n / 2, 0] {
            let dv = DetailView::new(&tl, limit);
            let ix = BandIndex::new(&tl, &dv);
            let src = TimelineBands::new(&tl, &dv, &ix);
            for (zoom, selected) in [(1.0, None), (0.001, Some(tl.by_size[0])), (0.3, Some(tl.by_size[n as usize / 2]))]
            {
                let (w, h) = (333, 157);
                let cols = pick_columns(&src, Window::full(tl.n_steps()).zoom(zoom, 0.5), w);
                for y_max in [cols.max_total + cols.max_total / 16, 0] {
                    let style = PlotStyle { y_max, selected, outline: 2 };
                    let mut want = Image::new(w, h);
                    render_plot(&src, &cols, style, &mut want);
                    let mut got = Image::new(w, h);
                    got.reset(w, h, STALE);
                    render_plot(&src, &cols, style, &mut got);
                    assert!(got.rgba == want.rgba, "{name} limit {limit} zoom {zoom} y_max {y_max}");
                    assert!(!got.rgba.chunks(4).any(|p| p == STALE), "{name} limit {limit} zoom {zoom}");
                }
            }
        }
    }
}
