//! The page's redraw path, natively: pick the columns of a window and
//! rasterize the bands (memviz-render) for the page's plot size in the
//! browser benchmark (1358×502 device pixels at 1400×900, DPR 1), at the
//! page's default detail (50,000) and with every allocation drawn, over the
//! full trace and over 1/16 of it (zoomed in). Native numbers bound what the
//! wasm redraw can reach (benches/browser measures the page itself).

use criterion::{criterion_group, criterion_main, Criterion};
use memviz_benches::{real, synthetic};
use memviz_core::timeline::{DetailView, Timeline, TimelineKind};
use memviz_render::{pick_columns, render_plot, BandIndex, BandSource, Image, PlotStyle, TimelineBands, Window};

const W: u32 = 1358;
const H: u32 = 502;

fn render(c: &mut Criterion) {
    let cases = [
        ("transformer_fullstep_ctx128", real("transformer_fullstep_ctx128.pickle")),
        ("synthetic_2M_events", synthetic(2_000_000)),
    ];
    let mut g = c.benchmark_group("render");
    g.sample_size(10);
    for (name, path) in cases {
        let snap = memviz_core::load(&std::fs::read(&path).unwrap()).unwrap();
        let device = snap.default_device().unwrap_or(0);
        let tl = Timeline::build(&snap, device, TimelineKind::ActiveMemory);
        let n = tl.elements.len() as u32;
        for (label, limit) in [("default_detail", n.min(50_000)), ("all_drawn", n)] {
            let dv = DetailView::new(&tl, limit);
            g.bench_function(format!("{name}/{label}/band_index"), |b| b.iter(|| BandIndex::new(&tl, &dv)));
            let ix = BandIndex::new(&tl, &dv);
            let full = Window::full(tl.n_steps());
            let zoomed = Window { x0: full.x1 * 0.5, x1: full.x1 * (0.5 + 1.0 / 16.0) };
            for (wname, win) in [("full", full), ("zoom16", zoomed)] {
                g.bench_function(format!("{name}/{label}/{wname}/pick_columns"), |b| {
                    b.iter(|| pick_columns(&TimelineBands::new(&tl, &dv, &ix), win, W))
                });
                let mut img = Image::new(W, H);
                // What one redraw visits: live bands summed over the columns
                // (the sweep's callbacks) against the runs that got a pixel.
                let src = TimelineBands::new(&tl, &dv, &ix);
                let cols = pick_columns(&src, win, W);
                let mut visits = 0u64;
                for &s in cols.step.iter().filter(|&&s| s != memviz_render::NO_STEP) {
                    src.bands_at(s, |_, _, _| visits += 1);
                }
                let y_max = (cols.max_total as f64 * 1.06).ceil().max(1.0) as u64;
                let st = render_plot(&src, &cols, PlotStyle { y_max, selected: None, outline: 1 }, &mut img);
                eprintln!(
                    "{name}/{label}/{wname}: {limit} bands drawable, {visits} band visits per redraw \
                     ({:.0} per column), {} runs filled, {} bands got a pixel",
                    visits as f64 / W as f64,
                    st.runs,
                    st.bands_drawn
                );
                g.bench_function(format!("{name}/{label}/{wname}/pick+render_plot"), |b| {
                    b.iter(|| {
                        let src = TimelineBands::new(&tl, &dv, &ix);
                        let cols = pick_columns(&src, win, W);
                        let y_max = (cols.max_total as f64 * 1.06).ceil().max(1.0) as u64;
                        render_plot(&src, &cols, PlotStyle { y_max, selected: None, outline: 1 }, &mut img)
                    })
                });
            }
        }
    }
    g.finish();
}

/// The "Allocated Memory (incl. Private Pools)" view's redraw through the
/// viewer (its plot only), at the page's default detail: a file with no
/// private pool (drawn as the timeline) and one with CUDA graph pools
/// (the pools' sweep).
fn pools_view(c: &mut Criterion) {
    let cases = [
        ("transformer_fullstep_ctx128", real("transformer_fullstep_ctx128.pickle")),
        ("cuda_graph_private_pools", real("cuda_graph_private_pools_state_only.pickle")),
        ("synthetic_2M_events", synthetic(2_000_000)),
    ];
    let mut g = c.benchmark_group("render");
    g.sample_size(10);
    for (name, path) in cases {
        let mut v = memviz_viewer::Viewer::new();
        v.open(name, &std::fs::read(&path).unwrap()).unwrap();
        v.set_view(2);
        v.render_plot(W, H + 54); // the page's plot canvas: the plot and its axes' margins
        g.bench_function(format!("{name}/pools_view"), |b| b.iter(|| v.render_plot(W, H + 54).map(|f| f.bands_drawn)));
    }
    g.finish();
}

criterion_group!(benches, render, pools_view);
criterion_main!(benches);
