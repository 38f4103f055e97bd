//! Many files at once as www/ranks.js drives the viewer, natively on real
//! snapshots: overview rows against tests/reference/expected/ (Python's
//! pickle), the timelines of files not shown kept or dropped and built again, diff
//! sides and the diff JSON, rank order.

mod common;

use common::{bytes, expected, shares_to_done};

use memviz_viewer::{ranks, Viewer};

const A: &str = "transformer_fullstep_ctx128.pickle";
const B: &str = "small_train_step.pickle";

fn two() -> Viewer {
    let mut v = Viewer::new();
    assert_eq!(v.open(&format!("rank1_{A}"), &bytes(A)).unwrap(), 0);
    assert_eq!(v.open(&format!("rank0_{B}"), &bytes(B)).unwrap(), 1);
    v
}

#[test]
fn overview_rows_are_the_reference_and_survive_dropped_timelines() {
    let mut v = two();
    for (i, name) in [(0, A), (1, B)] {
        let o = v.rank_overview(i).unwrap();
        let r = &expected(name)["summary"]["devices"]["0"];
        let row = &o.rows[0];
        assert_eq!(row.peak_active_bytes, r["active_memory"]["peak_bytes"].as_u64().unwrap(), "{name}");
        assert_eq!(row.end_bytes, r["active_memory"]["end_bytes"].as_u64().unwrap(), "{name}");
        assert_eq!(row.file, i as u32);
        assert!(row.sparkline.len() <= ranks::SAMPLES);
    }
    assert_eq!(v.rank_overview(0).unwrap().rank, Some(1));
    assert!(v.rank_overview(2).is_err());
    // File 1 is shown; file 0, shown before it, keeps its timeline.
    let peak1 = v.peak_bytes();
    v.trim_hidden_views();
    assert_eq!(v.peak_bytes(), peak1);
    assert!(v.timeline_bytes(0) > 0);
    v.select_file(0);
    assert_eq!(v.peak_bytes(), expected(A)["summary"]["devices"]["0"]["active_memory"]["peak_bytes"].as_u64().unwrap());
}

#[test]
fn hidden_files_keep_their_timelines_most_recent_first_within_the_largest_model() {
    // A's timeline is over half its model (the largest): two hidden ones do
    // not fit, B's small one does.
    let mut v = two();
    assert_eq!(v.open(&format!("rank2_{A}"), &bytes(A)).unwrap(), 2);
    assert_eq!(v.open(&format!("rank3_{A}"), &bytes(A)).unwrap(), 3);
    let a = v.timeline_bytes(3);
    assert!(a > 0 && v.timeline_bytes(1) < a);
    v.trim_hidden_views();
    // Shown last to first: 3 (current), 2, 1, 0.
    assert_eq!([v.timeline_bytes(0), v.timeline_bytes(2), v.timeline_bytes(3)], [0, a, a]);
    assert!(v.timeline_bytes(1) > 0);
    // Showing 1: 3 and 2 do not both fit; 3, shown after 2, stays.
    v.select_file(1);
    v.trim_hidden_views();
    assert_eq!([v.timeline_bytes(0), v.timeline_bytes(2), v.timeline_bytes(3)], [0, 0, a]);
    // A file freed is replayed again in steps before it is shown (the
    // page's slices), then shown without a replay: Python's peak.
    assert!(v.prepare_file_step(0, Some(7), 1).unwrap_err().contains("no device 7"));
    assert!(v.prepare_file_step(9, None, 1).is_err());
    let mut calls = 1;
    while !v.prepare_file_step(0, None, 1000).unwrap() {
        calls += 1;
    }
    assert!(calls > 10, "{calls} steps of 1000 events");
    assert_eq!(v.timeline_bytes(0), a);
    assert!(v.prepare_file_step(0, None, 1).unwrap());
    v.select_file(0);
    assert_eq!(v.peak_bytes(), expected(A)["summary"]["devices"]["0"]["active_memory"]["peak_bytes"].as_u64().unwrap());
    assert_eq!(v.timeline_bytes(0), a);
}

use memviz_viewer::ranks::{DiffBy, DiffCommand, DiffPart, DiffView, MomentSpec, SideSpec};

fn side(file: u32, at: MomentSpec) -> SideSpec {
    SideSpec { file, device: 0, at }
}

fn diff(v: &mut Viewer, a: SideSpec, b: SideSpec, by: DiffBy, part: DiffPart) -> DiffView {
    v.diff(&DiffCommand { a, b, by, limit: 50, part }).unwrap()
}

/// A diff's table and icicle as text, to compare two.
fn both(v: &mut Viewer, a: SideSpec, b: SideSpec) -> String {
    // The generation says which file was shown, not what the diff is.
    let t = DiffView { generation: 0, ..diff(v, a, b, DiffBy::Frame, DiffPart::Table) };
    let i = DiffView { generation: 0, ..diff(v, a, b, DiffBy::Frame, DiffPart::Tree) };
    serde_json::to_string(&(t, i)).unwrap()
}

fn peak(name: &str) -> u64 {
    expected(name)["summary"]["devices"]["0"]["active_memory"]["peak_bytes"].as_u64().unwrap()
}

#[test]
fn diff_of_two_files_and_of_a_file_with_itself() {
    let mut v = two();
    let (a, b) = (side(0, MomentSpec::Peak), side(1, MomentSpec::Peak));
    let d = v.diff(&DiffCommand { a, b, by: DiffBy::Stack, limit: 5, part: DiffPart::Table }).unwrap();
    assert_eq!((d.total_a, d.total_b), (peak(A), peak(B)), "Python's peaks");
    assert!(d.rows.len() <= 5 && d.group_count as usize >= d.rows.len());
    assert!(d.rows.iter().all(|r| r.bytes_a != r.bytes_b || !r.tag.is_empty()));
    assert!(d.a_title.starts_with("A: rank1_") && d.totals.contains("B − A"));
    // The icicle: laid out from the root ("all", the whole width).
    let tree = diff(&mut v, a, b, DiffBy::Stack, DiffPart::Tree).tree;
    assert_eq!((tree[0].frame.as_str(), tree[0].x, tree[0].w), ("all", 0.0, 1.0));
    assert!(tree.len() > 10 && tree.iter().all(|n| n.x >= 0.0 && n.x + n.w <= 1.0 + 1e-9));
    let same = diff(&mut v, a, a, DiffBy::Kind, DiffPart::Table);
    assert_eq!((same.changed, same.rows.len()), (0, 0));
    assert!(same.totals.ends_with("no change"));
    let bad = |v: &mut Viewer, s: SideSpec| {
        v.diff(&DiffCommand { a, b: s, by: DiffBy::User, limit: 5, part: DiffPart::Table })
    };
    let e = bad(&mut v, SideSpec { device: 7, ..a }).unwrap_err();
    assert!(e.message.contains("no device 7") && e.field.as_deref() == Some("b"), "{e}");
    let e = bad(&mut v, side(0, MomentSpec::Step { step: 99_999_999 })).unwrap_err();
    assert!(e.message.contains("no step 99999999"), "{e}");
    assert!(bad(&mut v, side(9, MomentSpec::Peak)).is_err());
}

#[test]
fn diff_sides_are_the_same_from_kept_and_shown_analyses() {
    let mut v = two();
    let sides =
        [(0, MomentSpec::Peak), (1, MomentSpec::Peak), (0, MomentSpec::Step { step: 100 }), (1, MomentSpec::End)];
    // Each side's diff against file 0's peak.
    let all = |v: &mut Viewer| -> Vec<String> {
        sides.iter().map(|&(f, m)| both(v, side(0, MomentSpec::Peak), side(f, m))).collect()
    };
    // Built for the diff (and kept: A and B), then from the analysis of the
    // file shown, which the "Alive at" panel built.
    let kept = all(&mut v);
    v.moment_json("peak", 10).unwrap();
    assert!(v.analysis_built());
    assert_eq!(all(&mut v), kept);
    assert_ne!(kept[0], kept[2], "another moment, another diff");
    assert_eq!(
        diff(&mut v, side(0, MomentSpec::Peak), side(1, MomentSpec::Peak), DiffBy::User, DiffPart::Table).total_b,
        peak(B)
    );
}

#[test]
fn diff_sides_built_in_steps_are_the_ones_built_at_once() {
    // File 0 (A) is hidden once file 1 is shown: its timeline kept, or
    // freed; either way its side is built in steps, then diffed.
    let moments = [MomentSpec::Peak, MomentSpec::Step { step: 100 }, MomentSpec::End];
    let mut at_once = two();
    let want: Vec<String> =
        moments.iter().map(|&m| both(&mut at_once, side(1, MomentSpec::Peak), side(0, m))).collect();
    let events = expected(A)["summary"]["devices"]["0"]["trace_events"].as_u64().unwrap() as usize;
    for freed in [false, true] {
        let mut v = two();
        if freed {
            // Two more copies of A shown after it: its timeline does not fit.
            v.open(&format!("rank2_{A}"), &bytes(A)).unwrap();
            v.open(&format!("rank3_{A}"), &bytes(A)).unwrap();
            v.trim_hidden_views();
            assert_eq!(v.timeline_bytes(0), 0, "file 0's timeline freed");
        } else {
            assert!(v.timeline_bytes(0) > 0, "file 0's timeline kept");
        }
        assert!(v.prepare_diff_side_step(0, 7, 1).unwrap_err().contains("no device 7"));
        assert!(v.prepare_diff_side_step(9, 0, 1).is_err());
        let shares = shares_to_done(|| v.prepare_diff_side_step(0, 0, 1000).unwrap());
        // The phases and links walk the trace twice, 1000 events a call
        // (and the replay once more when the timeline was freed).
        let walks = if freed { 3 } else { 2 };
        assert!(shares.len() >= walks * events.div_ceil(1000), "freed {freed}: {} calls", shares.len());
        assert_eq!(v.prepare_diff_side_step(0, 0, 1000).unwrap(), 1.0, "kept");
        let got: Vec<String> = moments.iter().map(|&m| both(&mut v, side(1, MomentSpec::Peak), side(0, m))).collect();
        assert_eq!(got, want, "freed {freed}");
        assert_eq!(
            diff(&mut v, side(0, MomentSpec::Peak), side(1, MomentSpec::Peak), DiffBy::User, DiffPart::Table).total_a,
            peak(A)
        );
    }
}

#[test]
fn rank_order_and_median() {
    let names: Vec<String> = ["b.pickle", "rank10.pickle", "rank2.pickle", "a.pickle"].map(String::from).to_vec();
    assert_eq!(ranks::rank_order(&names), vec![2, 1, 3, 0]);
    assert_eq!(ranks::rank_of("rank2.pickle"), Some(2));
    assert_eq!(ranks::rank_of("a.pickle"), None);
    assert_eq!(ranks::distance_from_median(&[100.0, 200.0, 300.0])[1], 0.0);
}

#[test]
fn folder_names_median_pick_side_labels_and_the_diff_command() {
    use memviz_viewer::ranks::RanksCommand;
    let mut v = two();
    let names = ["r0.pickle", "notes.txt", "R1.PKL.GZ", "x.json", "w.pt", "x.json.bak", "a.pickle.gz"];
    let cmd = RanksCommand::Snapshots { names: names.map(String::from).to_vec(), folder: Some("run".into()) };
    let r = v.ranks(&cmd).unwrap();
    assert_eq!(r.order, vec![0, 2, 3, 4, 6]);
    assert_eq!(r.message, "");
    let cmd = RanksCommand::Snapshots { names: vec!["notes.txt".into()], folder: Some("run".into()) };
    assert_eq!(v.ranks(&cmd).unwrap().message, "run: no snapshot files (.pickle, .pkl, .json, optionally .gz)");
    let cmd = RanksCommand::Snapshots { names: vec![], folder: None };
    assert_eq!(
        v.ranks(&cmd).unwrap().message,
        "no snapshot files (.pickle, .pkl, .json, optionally .gz) in that folder"
    );

    // Peaks of the reference (Python's pickle): A, B, A again. The median
    // is A's peak: B's partner is the first A, each A's the other A.
    let (pa, pb) = (peak(A), peak(B));
    assert_ne!(pa, pb);
    let (ra, rb) = (v.rank_overview(0).unwrap().rows, v.rank_overview(1).unwrap().rows);
    assert_eq!((ra[0].peak_active_bytes, rb[0].peak_active_bytes), (pa, pb));
    let t = ranks::table_rows(&[ra[0].clone(), rb[0].clone(), ra[0].clone()]);
    assert_eq!(t.iter().map(|r| r.median).collect::<Vec<_>>(), vec![2, 0, 0]);
    assert_eq!(ranks::table_rows(&ra[..1])[0].median, 0);
    // The table through the command: both files' rows, once each, the sparklines on one scale.
    for f in [0, 1, 0] {
        v.ranks(&RanksCommand::Overview { file: f }).unwrap();
    }
    let r = v.ranks(&RanksCommand::Overview { file: 1 }).unwrap();
    assert_eq!(r.rows.iter().map(|r| r.row.file).collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(r.status, "(2 rows)");
    let top =
        |p: &str| p.split('L').skip(1).filter_map(|q| q.split(',').nth(1)?.parse::<f64>().ok()).fold(24.0, f64::min);
    let (big, small) = if pa > pb { (0, 1) } else { (1, 0) };
    assert_eq!(top(&r.rows[big].spark), 0.0, "the larger peak reaches the top");
    assert!(top(&r.rows[small].spark) > 0.0);

    let o = v.rank_overview(0).unwrap();
    assert_eq!(o.rows[0].label, format!("rank 1: rank1_{A} · device {}", o.rows[0].device_name));

    let d = DiffCommand {
        a: side(0, MomentSpec::Peak),
        b: side(1, MomentSpec::Peak),
        by: DiffBy::Frame,
        limit: 50,
        part: DiffPart::Table,
    };
    let via = v.ranks(&RanksCommand::Diff(d)).unwrap().diff.unwrap();
    assert_eq!(via.total_a, diff(&mut v, d.a, d.b, DiffBy::Frame, DiffPart::Table).total_a);
    assert!(!via.rows.is_empty());
    for row in &via.rows {
        assert_eq!(row.dir, if row.bytes_b > row.bytes_a { "up" } else { "down" }, "{}", row.key);
    }
}

/// The rank panel's long work as `work` kinds of the one tick (issue 42):
/// a freed rank replayed, then the diff's two sides, each to done with its
/// busy note; a bad file or device ends the work (the show or the diff says why).
#[test]
fn rank_show_and_diff_sides_tick_to_done() {
    use memviz_viewer::work::Work;
    let mut v = two();
    v.open(&format!("rank2_{A}"), &bytes(A)).unwrap();
    v.open(&format!("rank3_{A}"), &bytes(A)).unwrap();
    v.trim_hidden_views();
    assert_eq!(v.timeline_bytes(0), 0, "file 0's timeline freed");
    let show = Work::RankShow { file: 0, device: None };
    let mut ticks = 0;
    loop {
        let p = v.tick(show.clone());
        assert_eq!(p.label, format!("Replaying the timeline of rank1_{A}…"));
        ticks += 1;
        if !p.busy {
            break;
        }
        assert!(ticks < 100_000, "never done");
    }
    assert!(ticks > 1 && v.timeline_bytes(0) > 0, "{ticks} ticks");
    assert!(!v.tick(Work::RankShow { file: 9, device: None }).busy);
    assert!(!v.tick(Work::RankShow { file: 0, device: Some(7) }).busy);

    for f in [0, 1] {
        v.ranks(&ranks::RanksCommand::Overview { file: f }).unwrap();
    }
    let sides = Work::DiffSides { form: form(["0", "peak", ""], ["1", "end", ""]) };
    let mut shares = Vec::new();
    loop {
        let p = v.tick(sides.clone());
        assert!(p.label.starts_with(&format!("Building the Diff's sides of rank1_{A} and rank0_{B}: ")), "{}", p.label);
        shares.push(p.share);
        if !p.busy {
            break;
        }
        assert!(shares.len() < 100_000, "never done");
    }
    assert!(shares.len() > 2 && shares.windows(2).all(|w| w[0] <= w[1]), "{shares:?}");
    assert!(shares.iter().any(|&s| s > 0.0 && s < 0.5), "A first: {shares:?}");
    assert_eq!(v.tick(Work::DiffSides { form: form(["9", "peak", ""], ["1", "peak", ""]) }).share, 1.0);
}

fn form(a: [&str; 3], b: [&str; 3]) -> ranks::DiffForm {
    let [a, at_a, step_a] = a.map(String::from);
    let [b, at_b, step_b] = b.map(String::from);
    ranks::DiffForm { a, at_a, step_a, b, at_b, step_b, by: DiffBy::User }
}

/// The Diff panel's form, as FormData gives it: rows of the overview, a
/// step as typed; `Compare` answers as the diff of the sides it names.
#[test]
fn the_diff_form_names_rows_moments_and_steps() {
    let mut v = two();
    for f in [1, 0] {
        v.ranks(&ranks::RanksCommand::Overview { file: f }).unwrap();
    }
    let got =
        |v: &Viewer, a: [&str; 3]| v.diff_form(&form(a, ["0", "end", ""]), DiffPart::Table).map(|c| (c.a.file, c.a.at));
    let step = |s| Ok((0, MomentSpec::Step { step: s }));
    assert_eq!(got(&v, ["1", "step", " 12.9 "]).map_err(|e| e.message), step(12));
    assert_eq!(got(&v, ["1", "step", "-3"]).map_err(|e| e.message), step(0));
    assert_eq!(got(&v, ["1", "step", ""]).map_err(|e| e.message), step(0));
    assert_eq!(got(&v, ["0", "peak", "7"]).map_err(|e| e.message), Ok((1, MomentSpec::Peak)));
    assert!(got(&v, ["2", "peak", ""]).unwrap_err().message.contains("no row \"2\""));
    assert!(got(&v, ["", "peak", ""]).is_err());
    assert!(got(&v, ["0", "noon", ""]).unwrap_err().message.contains("no moment"));
    let c = v.diff_form(&form(["0", "peak", ""], ["1", "start", ""]), DiffPart::Table).unwrap();
    assert_eq!((c.b.file, c.b.at, c.limit), (0, MomentSpec::Start, ranks::DIFF_ROWS));
    let cmd = ranks::RanksCommand::Compare { form: form(["1", "peak", ""], ["0", "peak", ""]), part: DiffPart::Table };
    let via = v.ranks(&cmd).unwrap().diff.unwrap();
    let at_t = |v: &mut Viewer, file, step| {
        v.ranks(&ranks::RanksCommand::AtT { slot: "b".into(), file, device: 0, step }).unwrap()
    };
    let r = at_t(&mut v, 0, Some(400));
    let want = [("b", "1"), ("at_b", "step"), ("step_b", "400")].map(|(k, x)| (k.to_string(), x.to_string()));
    assert_eq!((r.pick, r.message), (want.into(), String::new()));
    assert_eq!(at_t(&mut v, 0, None).message, "Diff: click the timeline first to set t");
    assert!(at_t(&mut v, 5, Some(1)).pick.is_empty());
    let cmd = ranks::RanksCommand::Compare {
        form: form(["1", "step", "99999999"], ["0", "peak", ""]),
        part: DiffPart::Table,
    };
    let e = v.ranks(&cmd).unwrap_err().message;
    assert!(e.starts_with("Diff: A ") && e.contains("no step 99999999"), "{e}");
    assert_eq!(
        via.total_a,
        diff(&mut v, side(0, MomentSpec::Peak), side(1, MomentSpec::Peak), DiffBy::User, DiffPart::Table).total_a
    );
}

/// The overview's title line and the rows of files being read.
#[test]
fn ranks_status_and_reading_rows() {
    use memviz_viewer::ranks::{RanksCommand, ReadingRow};
    let mut v = two();
    assert_eq!(v.ranks(&RanksCommand::Status { loading: 0 }).unwrap().status, "");
    assert_eq!(v.ranks(&RanksCommand::Status { loading: 3 }).unwrap().status, "(reading 3 more…)");
    assert_eq!(v.ranks(&RanksCommand::Overview { file: 0 }).unwrap().status, "(1 rows)");
    assert_eq!(v.ranks(&RanksCommand::Status { loading: 0 }).unwrap().status, "(1 rows)");
    let mut row = |read, building| {
        // As ranks.js sends it.
        let json = serde_json::json!({"do": "reading", "name": "rank12_x.pickle", "size": 1000, "read": read, "building": building});
        let cmd: RanksCommand = serde_json::from_value(json).unwrap();
        v.ranks(&cmd).unwrap().reading.unwrap()
    };
    let want = |share, text: &str| ReadingRow {
        name: "rank12_x.pickle".into(),
        rank_text: "12".into(),
        share,
        text: text.into(),
    };
    assert_eq!(row(None, false), want(0.0, ""));
    assert_eq!(row(Some(425), false), want(0.425, "43%"));
    assert_eq!(row(Some(1000), true), want(1.0, "building the timeline…"));
    assert_eq!(
        ranks::reading_row(&memviz_viewer::ReadState {
            name: "x.pickle".into(),
            size: 0,
            read: Some(0),
            building: false
        })
        .rank_text,
        "–"
    );
}

#[test]
fn a_file_new_to_the_table_is_the_diffs_b_and_a_first_files_two_devices_its_sides() {
    use memviz_viewer::ranks::RanksCommand;
    const TWO: &str = "two_devices_state_only.pickle";
    let devices = |n: &str| expected(n)["summary"]["devices"].as_object().unwrap().len();
    let pick =
        |v: &mut Viewer, file| v.ranks(&RanksCommand::Overview { file }).unwrap().pick.into_iter().collect::<Vec<_>>();
    let side = |slot: &str, row: usize| (slot.to_string(), row.to_string());
    assert_eq!((devices(TWO), devices(B)), (2, 1), "Python's reading of the two files");

    let mut v = Viewer::new();
    v.open(TWO, &bytes(TWO)).unwrap();
    assert_eq!(pick(&mut v, 0), vec![side("a", 0), side("b", 1)], "one device against the other");
    // Run 2 opened after run 1: B is its row (after TWO's two), A stays where it was.
    v.open(B, &bytes(B)).unwrap();
    assert_eq!(pick(&mut v, 1), vec![side("b", 2)]);
    assert_eq!(pick(&mut v, 1), vec![], "a file already in the table moves nothing");
    assert_eq!(pick(&mut v, 0), vec![]);

    let mut one = Viewer::new();
    one.open(B, &bytes(B)).unwrap();
    assert_eq!(pick(&mut one, 0), vec![side("a", 0), side("b", 0)], "one device: its two moments");
}
