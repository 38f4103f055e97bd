//! The analysis panels' typed command (`Viewer::panel`, what www/explain.js,
//! findings.js and moment.js send), each command on real snapshots, the
//! expected numbers from Python's own pickle module (tests/reference/
//! analysis_reference.py, reserved_reference.py, findings_reference.py),
//! never from this code. Commands are built from the JSON the page sends,
//! so their serde shape is tested too.

mod common;

use std::process::Command;

use common::{open, repo, snapshot, FULLSTEP};
use memviz_core::format::format_size;
use memviz_viewer::boundary::ErrorKind;
use memviz_viewer::explain::{MomentArg, PanelCommand, PanelDraw, PanelView};
use memviz_viewer::Viewer;
use serde_json::{json, Value};

const OOM: &str = "oom_pickle_named_json.json";

fn python(script: &str, file: &std::path::Path) -> Value {
    let out = Command::new("python3")
        .arg(repo().join("tests/reference").join(script))
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("python3 runs tests/reference/{script}: {e}"));
    assert!(out.status.success(), "{script}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The reference's moment `at` (`peak`, `oom:0`) of device 0.
fn moment(r: &Value, at: &str) -> Value {
    r["devices"]["0"]["moments"].as_array().unwrap().iter().find(|m| m["at"] == at).unwrap().clone()
}

/// The page's command (JSON) run, the view model as JSON.
fn panel(v: &mut Viewer, cmd: Value) -> Value {
    let cmd: PanelCommand = serde_json::from_value(cmd).expect("a command the page sends");
    serde_json::to_value(v.panel(cmd).unwrap_or_else(|e| panic!("{e}"))).unwrap()
}

fn fact(x: &Value, key: &str) -> u64 {
    let f = x["facts"].as_array().unwrap().iter().find(|f| f["key"] == key);
    f.unwrap_or_else(|| panic!("no fact {key}"))["value"].as_u64().unwrap()
}

fn bytes_of(rows: &Value) -> Vec<u64> {
    rows.as_array().unwrap().iter().map(|r| r["bytes"].as_u64().unwrap()).collect()
}

#[test]
fn overview_markers_are_each_timelines_own_peak_and_the_ooms() {
    let r = python("analysis_reference.py", &snapshot(OOM));
    let (peak, oom) = (moment(&r, "peak"), moment(&r, "oom:0"));
    let mut v = open(OOM);
    let o = panel(&mut v, json!({"cmd": "overview"}));
    assert_eq!(o["view"], "overview");
    let m = &o["markers"];
    assert_eq!((m[0]["what"].as_str(), m[0]["event"].as_u64()), (Some("peak"), peak["event"].as_u64()));
    assert_eq!(m[0]["bytes"], peak["total_bytes"]);
    assert_eq!(m[0]["moment"], "peak");
    assert_eq!((m[1]["what"].as_str(), m[1]["event"].as_u64()), (Some("oom"), oom["event"].as_u64()));
    assert_eq!(m[1]["moment"], json!({"oom": 0}));
    assert_eq!(m.as_array().unwrap().len(), 2);
    assert_eq!(o["list_title"], "1 OOM:");
    assert_eq!(
        o["list"].as_array().unwrap().iter().map(|l| l["label"].as_str().unwrap()).collect::<Vec<_>>(),
        ["OOM 0", "Peak"]
    );
    assert_eq!(o["kinds"].as_array().unwrap().len(), 7);
    // Their places on a plot drawn 1200 CSS px wide: both on it, the OOM
    // (a later event, by the reference) right of the peak; a label closer
    // than 48 px to the one before goes a row (16 px) lower.
    assert!(peak["event"].as_u64() < oom["event"].as_u64());
    v.render_plot(1200, 500).unwrap();
    let p = panel(&mut v, json!({"cmd": "marker_places", "width": 1200.0}));
    assert_eq!(p["stale"], false);
    let xs: Vec<(f64, f64)> = p["places"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["x"].as_f64().unwrap(), x["top"].as_f64().unwrap()))
        .collect();
    assert_eq!(xs.len(), 2);
    assert!(xs.iter().all(|&(x, _)| (0.0..=1200.0).contains(&x)), "{xs:?}");
    assert!(xs[1].0 > xs[0].0, "{xs:?}");
    assert_eq!(xs[0].1, -2.0);
    assert_eq!(xs[1].1, if xs[1].0 - xs[0].0 < 48.0 { 14.0 } else { -2.0 }, "{xs:?}");
    // Another view: the markers shown are stale until its overview.
    v.set_view(1);
    assert_eq!(panel(&mut v, json!({"cmd": "marker_places", "width": 1200.0}))["stale"], true);

    // The segment timeline: its own peak is the reserved one (issue 43).
    let reserved: Vec<u64> =
        serde_json::from_value(python("reserved_reference.py", &snapshot(OOM))["0"].clone()).unwrap();
    let top = *reserved.iter().max().unwrap();
    let event = reserved.iter().position(|&b| b == top).unwrap() as u64 - 1; // [before event 0, after event 0, ...]
    assert_ne!(Some(event), peak["event"].as_u64(), "the file tells the two peaks apart");
    v.set_view(1);
    let o = panel(&mut v, json!({"cmd": "overview"}));
    assert_eq!(panel(&mut v, json!({"cmd": "marker_places", "width": 1200.0}))["stale"], false);
    let m = &o["markers"];
    assert_eq!(
        (m[0]["what"].as_str(), m[0]["event"].as_u64(), m[0]["bytes"].as_u64()),
        (Some("peak"), Some(event), Some(top))
    );
    assert_eq!(m[0]["moment"], json!({"event": event}));
    assert!(m[0]["title"].as_str().unwrap().contains(&format_size(top, false)), "{}", m[0]["title"]);
    assert_eq!(m.as_array().unwrap().iter().filter(|x| x["what"] == "peak").count(), 1, "one peak per view");
}

#[test]
fn explain_an_oom_and_the_peak() {
    let r = python("analysis_reference.py", &snapshot(OOM));
    let oom = moment(&r, "oom:0");
    let mut v = open(OOM);
    let x = panel(&mut v, json!({"cmd": "explain", "moment": {"oom": 0}}));
    assert_eq!(x["what"], "oom");
    assert_eq!(x["event"], oom["event"]);
    assert_eq!(fact(&x, "request"), oom["request"]["bytes"].as_u64().unwrap());
    assert_eq!(fact(&x, "reserved"), oom["state"]["reserved_bytes"].as_u64().unwrap());
    assert_eq!(fact(&x, "allocated"), oom["total_bytes"].as_u64().unwrap());
    assert_eq!(fact(&x, "usable-bytes"), oom["state"]["usable"]["bytes"].as_u64().unwrap());
    let want: Vec<u64> =
        oom["groups"]["category"].as_array().unwrap().iter().map(|g| g["bytes"].as_u64().unwrap()).collect();
    assert_eq!(bytes_of(&x["by_category"]), want);
    // Strings the user reads, formatted in Rust.
    let req = oom["request"]["bytes"].as_u64().unwrap();
    let request = x["facts"].as_array().unwrap().iter().find(|f| f["key"] == "request").unwrap();
    assert_eq!(request["pieces"][0]["text"], format!("{} on stream ", format_size(req, false)));
    assert!(x["heading"].as_str().unwrap().starts_with(&format!("OOM on device 0, at trace event {}", oom["event"])));
    let peak = moment(&r, "peak");
    let p = panel(&mut v, json!({"cmd": "explain", "moment": "peak"}));
    assert_eq!(fact(&p, "allocated"), peak["total_bytes"].as_u64().unwrap());
    assert!(p["facts"].as_array().unwrap().iter().all(|f| f["key"] != "request"));
    // An OOM the file lacks: a refusal that says so, no panic.
    let e = v.panel(PanelCommand::Explain { moment: MomentArg::Oom(99) }).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Recording);
    assert!(!e.message.is_empty());
}

#[test]
fn moment_rows_tree_and_tip_at_the_peak() {
    let r = python("analysis_reference.py", &snapshot(FULLSTEP));
    let peak = moment(&r, "peak");
    let total = peak["total_bytes"].as_u64().unwrap();
    let mut v = open(FULLSTEP);
    let m = panel(&mut v, json!({"cmd": "moment", "moment": "peak"}));
    assert_eq!(m["at"]["event"], peak["event"]);
    let totals = m["totals"].as_array().unwrap();
    assert_eq!(totals[0]["value"].as_u64(), Some(total));
    assert_eq!(totals[0]["text"], format!("allocated {}", format_size(total, false)));
    assert_eq!(bytes_of(&m["kinds"]).iter().sum::<u64>(), total);
    // Color by category's legend: the kinds at t; the line of the panel: those alive.
    panel(&mut v, json!({"cmd": "color_by", "mode": "category"}));
    let l = panel(&mut v, json!({"cmd": "legend"}));
    assert_eq!(bytes_of(&l["rows"]), bytes_of(&m["kinds"]));
    let alive: Vec<u64> = bytes_of(&m["kinds"]).into_iter().filter(|&b| b > 0).collect();
    assert_eq!(bytes_of(&m["alive_kinds"]), alive);
    panel(&mut v, json!({"cmd": "color_by", "mode": "allocation"}));
    assert_eq!(panel(&mut v, json!({"cmd": "legend"}))["rows"], json!([]));
    // The table by any frame, 30 a page, all of the reference's frames.
    let frames = peak["groups"]["frame"].as_array().unwrap().len();
    let page = |v: &mut Viewer, offset: u32| {
        panel(v, json!({"cmd": "rows", "by": "frame", "filter": "", "sort": null, "offset": offset, "limit": 30}))
    };
    let first = page(&mut v, 0);
    assert_eq!(first["matched"].as_u64(), Some(frames as u64));
    assert_eq!(first["more"], format!("30 of {frames} rows: scroll the table for more"));
    let mut got = 0;
    while got < frames {
        got += page(&mut v, got as u32)["rows"].as_array().unwrap().len();
    }
    assert_eq!(got, frames);
    let users = panel(
        &mut v,
        json!({"cmd": "rows", "by": "user_frame", "filter": "", "sort": null, "offset": 0, "limit": 1000}),
    );
    let want: Vec<u64> =
        peak["groups"]["user_frame"].as_array().unwrap().iter().map(|g| g["bytes"].as_u64().unwrap()).collect();
    assert_eq!(bytes_of(&users["rows"]), want);
    // A click on a column's head sorts by it, a second one the other way;
    // frames sort A to Z first (orders from the reference's groups).
    let sorted = |v: &mut Viewer, sort: &str, field: &str| -> Vec<Value> {
        let r = panel(
            v,
            json!({"cmd": "rows", "by": "user_frame", "filter": "", "sort": sort, "offset": 0, "limit": 1000}),
        );
        r["rows"].as_array().unwrap().iter().map(|x| x[field].clone()).collect()
    };
    let groups = peak["groups"]["user_frame"].as_array().unwrap();
    let mut counts: Vec<u64> = groups.iter().map(|g| g["count"].as_u64().unwrap()).collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(sorted(&mut v, "count", "count"), counts.iter().map(|&c| json!(c)).collect::<Vec<_>>());
    counts.reverse();
    assert_eq!(sorted(&mut v, "count", "count"), counts.iter().map(|&c| json!(c)).collect::<Vec<_>>());
    let mut keys: Vec<&str> = groups.iter().map(|g| g["key"].as_str().unwrap()).collect();
    keys.sort_unstable();
    assert_eq!(sorted(&mut v, "key", "key"), keys.iter().map(|&k| json!(k)).collect::<Vec<_>>());
    // The icicle: 6 numbers a node, the root first and holding everything.
    let t = panel(&mut v, json!({"cmd": "tree", "min_bytes": null}));
    let nodes = t["nodes"].as_array().unwrap();
    assert_eq!(nodes.len() % 6, 0);
    assert_eq!(nodes[4].as_u64(), Some(total));
    // Drawn 1000 CSS px wide at 2 device px a CSS px: the root ("all") is
    // the top row, its tooltip the whole; a click on the second row's first
    // box zooms into that node (a depth-1 node of the tree) and back out.
    v.set_dpr(2.0);
    let (pic, drawn) = v.panel_draw(PanelDraw::Icicle { width: 1000.0 }, 6.6).unwrap();
    assert!(drawn.drawn && drawn.height >= 36.0 && drawn.height <= 28.0 * 18.0, "{drawn:?}");
    assert_eq!((pic.image.width, pic.image.height), (2000, (drawn.height * 2.0) as u32));
    assert_eq!(pic.image.get(1000, 10), [0xbb, 0xbb, 0xbb, 255], "the root's gray");
    let tip = panel(&mut v, json!({"cmd": "icicle_tip", "x": 500.0, "y": 5.0}));
    let count = nodes[5].as_u64().unwrap();
    assert!(tip["tip"]
        .as_str()
        .unwrap()
        .starts_with(&format!("all\n{} · {count} allocations · 100.0%\n", format_size(total, false))));
    let depth1: Vec<u64> = nodes.chunks(6).filter(|n| n[2] == 1).map(|n| n[0].as_u64().unwrap()).collect();
    let z = panel(&mut v, json!({"cmd": "icicle_click", "x": 1.0, "y": 20.0}));
    assert_eq!(z["zoom"].as_u64(), depth1.first().copied());
    let (_, zoomed) = v.panel_draw(PanelDraw::Icicle { width: 1000.0 }, 6.6).unwrap();
    assert!(zoomed.count < drawn.count);
    assert!(panel(&mut v, json!({"cmd": "icicle_tip", "x": 1.0, "y": 5.0}))["tip"]
        .as_str()
        .unwrap()
        .ends_with("click: zoom out"));
    assert_eq!(panel(&mut v, json!({"cmd": "icicle_click", "x": 1.0, "y": 5.0}))["zoom"], Value::Null);
    assert_eq!(panel(&mut v, json!({"cmd": "icicle_tip", "x": 1.0, "y": 999.0}))["tip"], "");
}

#[test]
fn findings_link_to_their_evidence() {
    let file = repo().join("../shared/recordings/oom_fragmentation_2gib.pickle");
    let r = python("findings_reference.py", &file);
    let mut v = Viewer::new();
    v.open("oom_fragmentation_2gib.pickle", &std::fs::read(&file).unwrap()).unwrap();
    let f = panel(&mut v, json!({"cmd": "findings"}));
    let kinds: Vec<&str> = f["findings"].as_array().unwrap().iter().map(|x| x["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["oom", "capped", "peak"]);
    let oom = &f["findings"][0];
    assert_eq!(oom["bytes"], r["ooms"][0]["bytes"]);
    assert_eq!(oom["event"], r["ooms"][0]["event"]);
    assert_eq!((oom["open"].as_str(), &oom["moment"]), (Some("explain"), &json!({"oom": 0})));
    assert_eq!(f["findings"][2]["moment"], "peak");
}

#[test]
fn leaks_color_by_highlight_and_generation() {
    let r = python("analysis_reference.py", &snapshot(OOM));
    let mut v = open(OOM);
    let g = v.generation();
    let l = panel(&mut v, json!({"cmd": "leaks"}));
    assert_eq!(l["alive_at_end_bytes"], r["devices"]["0"]["leaks"]["alive_at_end_bytes"]);
    assert_eq!(l["pending_count"], r["devices"]["0"]["leaks"]["pending_free_count"]);
    assert_eq!(l["growing"].as_array().unwrap().len(), r["devices"]["0"]["leaks"]["growing"].as_array().unwrap().len());
    for mode in ["allocation", "category", "frame", "area"] {
        assert_eq!(panel(&mut v, json!({"cmd": "color_by", "mode": mode}))["view"], "done");
    }
    assert!(v.area_mode());
    assert!(serde_json::from_value::<PanelCommand>(json!({"cmd": "color_by", "mode": "rainbow"})).is_err());
    assert_eq!(panel(&mut v, json!({"cmd": "highlight", "node": null}))["view"], "done");
    // Every view model carries the generation; another file is another one.
    assert_eq!(l["generation"].as_u64(), Some(g as u64));
    v.open(FULLSTEP, &common::bytes(FULLSTEP)).unwrap();
    v.select_file(1);
    assert_ne!(panel(&mut v, json!({"cmd": "generation"}))["generation"].as_u64(), Some(g as u64));
    let none = Viewer::new().panel(PanelCommand::Leaks).unwrap_err();
    assert_eq!(none.kind, ErrorKind::NoFile);
    assert!(matches!(Viewer::new().panel(PanelCommand::Generation), Ok(PanelView::Done { .. })));
}
