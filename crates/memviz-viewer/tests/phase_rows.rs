//! The record_function phase rows over the plot's top (phases.rs) and the
//! peak's label: on a real recording with phases (expandable_gpt2_varlen,
//! ../shared/recordings/README.md) the label hangs below the rows, which
//! cover the plot's top where the peak reaches; with none shown it sits on
//! the peak again.

mod common;

use common::{repo, H, W};
use memviz_viewer::phases::{PhaseBox, PhasesCommand};
use memviz_viewer::{Axes, AxesSpec, Viewer};

const NAME: &str = "expandable_gpt2_varlen.pickle";

fn axes(v: &mut Viewer) -> Option<AxesSpec> {
    match v.render_plot(W, H).expect("a timeline").axes {
        Axes::Draw(spec) => Some(spec),
        _ => None,
    }
}

/// CSS px from the plot's top to the bottom of a phase row (style.css: 15 px, a dense one 5).
fn bottom(b: &PhaseBox) -> Option<f64> {
    let top: f64 = b.style.strip_prefix("top:")?.split("px").next()?.parse().ok()?;
    b.class.starts_with("phase").then(|| top + if b.class.contains("dense") { 5.0 } else { 15.0 })
}

#[test]
fn the_peaks_label_hangs_below_the_phase_rows() {
    let path = repo().join("../shared/recordings").join(NAME);
    let bytes =
        std::fs::read(&path).unwrap_or_else(|e| panic!("{} (../shared beside the repository): {e}", path.display()));
    let mut v = Viewer::new();
    v.open(NAME, &bytes).unwrap();
    assert_eq!(axes(&mut v).expect("the first draw's axes").label_below, 0.0, "no rows laid out yet");

    let p = v.phases(&PhasesCommand::default());
    let rows = p.boxes.iter().filter_map(bottom).fold(0.0, f64::max);
    assert!(rows >= 31.0, "two rows at least on this recording: {rows} ({:?})", p.count);
    assert!(p.redraw, "the rows now cover the plot's top: the page draws again");
    // Asked again before that draw (the time readout asks at each pointer move): still to draw.
    assert!(v.phases(&PhasesCommand { hover_x: Some(300.0), ..PhasesCommand::default() }).redraw);
    assert_eq!(axes(&mut v).expect("the axes drawn again").label_below, rows);
    assert!(!v.phases(&PhasesCommand::default()).redraw, "laid out as before");

    let none = PhasesCommand { filter: "no phase is named so".into(), ..PhasesCommand::default() };
    let p = v.phases(&none);
    assert!(p.redraw && p.boxes.iter().all(|b| bottom(b).is_none()));
    assert_eq!(axes(&mut v).expect("the axes drawn again").label_below, 0.0);
}
