//! The explained Active Memory Timeline on real snapshots: bands colored by
//! kind, a stack-tree node highlighted, and the categorized stacked area,
//! whose layers are the analysis's bytes per kind and whose outline is the
//! timeline's total.
use memviz_core::analysis::series::KindSeries;
use memviz_core::analysis::{Analysis, GroupBy, Kind, Moment, Rules};
use memviz_core::timeline::{DetailView, Timeline, TimelineKind};
use memviz_render::explain::*;
use memviz_render::*;

fn load(name: &str) -> memviz_core::Snapshot {
    let path = format!("{}/../../../shared/snapshots/{name}", env!("CARGO_MANIFEST_DIR"));
    memviz_core::load(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).unwrap()
}

#[test]
fn bands_colored_by_kind_and_highlighted() {
    let snap = load("transformer_fullstep_ctx128.pickle");
    let tl = Timeline::build(&snap, 0, TimelineKind::ActiveMemory);
    let a = Analysis::new(&snap, &tl, &Rules::default());
    let colors = element_colors(&a, ColorBy::Category, None);
    assert_eq!(colors.len(), tl.elements.len());
    for (e, c) in colors.iter().enumerate() {
        assert_eq!(*c, KIND_COLORS[a.kind_of(e as u32).unwrap().0 as usize]);
    }
    // The file has parameters, gradients and optimizer state: at least 3 colors.
    let distinct: std::collections::HashSet<_> = colors.iter().collect();
    assert!(distinct.len() >= 3, "{distinct:?}");

    // Rendered with those colors, the peak column holds each kind's bytes in
    // its color (to a row per band boundary).
    let dv = DetailView::new(&tl, tl.elements.len() as u32);
    let ix = BandIndex::new(&tl, &dv);
    let src = TimelineBands::new(&tl, &dv, &ix);
    let (w, h) = (300, 2000);
    let cols = pick_columns(&src, Window::full(tl.n_steps()), w);
    let y_max = cols.max_total;
    let mut img = Image::new(w, h);
    let style = PlotStyle { y_max, selected: None, outline: 1 };
    render_plot_with(&src, &cols, style, |e| colors[e as usize], &mut img);
    let c = cols.step.iter().position(|&s| s == tl.peak_step()).expect("the peak has a column") as u32;
    let at = a.resolve(Moment::Step(tl.peak_step())).unwrap();
    let live = a.live(at.position);
    for g in a.groups(&live, GroupBy::Category) {
        let k = Kind::from_name(&g.key).unwrap();
        let rows = (0..h).filter(|&y| img.get(c, y) == KIND_COLORS[k as usize]).count() as f64;
        let want = g.bytes as f64 * h as f64 / y_max as f64;
        assert!((rows - want).abs() <= 2.0, "{}: {rows} rows, want {want:.1}", g.key);
    }

    // Highlight the largest child of the root: its elements keep their
    // color, all others are dimmed.
    let tree = a.tree(&live, 0);
    let node = tree.iter().find(|n| n.parent == 0).unwrap();
    let under = a.elements_under(node.id);
    let hl = element_colors(&a, ColorBy::Allocation, Some(&under));
    for e in 0..tl.elements.len() {
        assert_eq!(hl[e] == DIMMED, !under[e], "element {e}");
        if under[e] {
            assert_eq!(hl[e], band_color(e as u32));
        }
    }
}

#[test]
fn stacked_area_is_bytes_per_kind() {
    for name in ["transformer_fullstep_ctx128.pickle", "oom_pickle_named_json.json", "small_train_step.pickle"] {
        let snap = load(name);
        let dev = snap.default_device().unwrap();
        let tl = Timeline::build(&snap, dev, TimelineKind::ActiveMemory);
        let a = Analysis::new(&snap, &tl, &Rules::default());
        let series = KindSeries::new(&a);
        let dv = DetailView::new(&tl, 50);
        let ix = BandIndex::new(&tl, &dv);
        let src = TimelineBands::new(&tl, &dv, &ix);
        let (w, h) = (240, 400);
        let cols = pick_columns(&src, Window::full(tl.n_steps()), w);
        let y_max = cols.max_total;
        let mut area = Image::new(w, h);
        render_area(&cols, |s| series.at_step(&a, s), &KIND_COLORS, y_max, &mut area);
        for c in 0..w {
            let s = cols.step[c as usize];
            if s == NO_STEP {
                continue;
            }
            // The filled height is the total at that step.
            let filled = (0..h).filter(|&y| area.get(c, y) != BACKGROUND).count() as i64;
            let want = ((tl.total[s as usize] as f64 * h as f64 / y_max as f64) + 0.5).floor() as i64;
            assert!((filled - want).abs() <= 1, "{name} column {c}: {filled} rows, want {want}");
            // And each layer is that kind's bytes.
            let per_kind = series.at_step(&a, s);
            assert_eq!(per_kind.iter().sum::<u64>(), tl.total[s as usize], "{name} step {s}");
            for (k, &bytes) in per_kind.iter().enumerate() {
                let rows = (0..h).filter(|&y| area.get(c, y) == KIND_COLORS[k]).count() as f64;
                let want = bytes as f64 * h as f64 / y_max as f64;
                assert!((rows - want).abs() <= 1.0, "{name} column {c} kind {k}: {rows} rows, want {want:.1}");
            }
        }
    }
}
