//! Times one plot rendering of a real snapshot, natively:
//! `cargo run --release -p memviz-render --example render_bench -- FILE [WIDTH HEIGHT]`
use memviz_core::timeline::{DetailView, Timeline, TimelineKind};
use memviz_render::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: render_bench FILE [WIDTH HEIGHT]");
    let w: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1264);
    let h: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(450);
    let bytes = std::fs::read(path).unwrap();
    let t = Instant::now();
    let snap = memviz_core::load(&bytes).unwrap();
    println!("decode {:?}", t.elapsed());
    let dev = snap.default_device().unwrap_or(0);
    let t = Instant::now();
    let tl = Timeline::build(&snap, dev, TimelineKind::ActiveMemory);
    println!("timeline {:?} ({} elements, {} steps)", t.elapsed(), tl.elements.len(), tl.n_steps());
    let t = Instant::now();
    let dv = DetailView::new(&tl, tl.elements.len() as u32);
    println!("detail {:?}", t.elapsed());
    let t = Instant::now();
    let ix = BandIndex::new(&tl, &dv);
    println!("band index {:?}", t.elapsed());
    let mut img = Image::new(w, h);
    for i in 0..5 {
        let win = Window::full(tl.n_steps()).zoom(1.0 - i as f64 * 0.1, 0.5);
        let src = TimelineBands::new(&tl, &dv, &ix);
        let t = Instant::now();
        let cols = pick_columns(&src, win, w);
        let t1 = t.elapsed();
        // As memviz-viewer draws: sized, not cleared (render_plot writes every pixel).
        img.resize(w, h);
        let y_max = cols.max_total + cols.max_total / 16;
        let st =
            render_plot(&src, &cols, PlotStyle { y_max, selected: tl.by_size.first().copied(), outline: 1 }, &mut img);
        let t2 = t.elapsed();
        // The clear that came first until the fourteenth session, timed apart.
        let t = Instant::now();
        img.reset(w, h, BACKGROUND);
        println!(
            "columns {t1:?} render {t2:?} (a clear first: +{:?}) runs {} bands {}",
            t.elapsed(),
            st.runs,
            st.bands_drawn
        );
    }
}
