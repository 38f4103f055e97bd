//! torch.profiler memory exports written by tests/reference/gen_profiler.py
//! give the numbers that script computed on its own (expected.json).

use std::path::PathBuf;

use memviz_core::profiler::{ProfilerFile, ProfilerFormat};
use memviz_core::{ErrorKind, Loaded};
use serde_json::Value;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/reference/fixtures/profiler")
}

/// The error of a load that must fail (the model has no Debug to print).
fn fails<T>(r: memviz_core::Result<T>, what: &str) -> memviz_core::Error {
    match r {
        Ok(_) => panic!("{what}: loaded"),
        Err(e) => e,
    }
}

fn open(name: &str) -> ProfilerFile {
    let bytes = std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    match memviz_core::load_any(&bytes).unwrap_or_else(|e| panic!("{name}: {e}")) {
        Loaded::Profiler(p) => p,
        Loaded::Snapshot(_) => panic!("{name} read as a snapshot"),
    }
}

#[test]
fn generated_files_give_the_reference_numbers() {
    let expected: Value = serde_json::from_slice(&std::fs::read(dir().join("expected.json")).unwrap()).unwrap();
    let files = expected.as_object().unwrap();
    assert_eq!(files.len(), 5);
    for (name, want) in files {
        let got = open(name).to_json();
        assert_eq!(got["format"], want["format"], "{name}");
        let (gc, wc) = (got["charts"].as_array().unwrap(), want["charts"].as_array().unwrap());
        assert_eq!(gc.len(), wc.len(), "{name}: charts");
        for (g, w) in gc.iter().zip(wc) {
            for k in ["title", "points", "peak_index", "peak_bytes", "at_peak", "at_end"] {
                assert_eq!(g[k], w[k], "{name} {}: {k}", w["title"]);
            }
            let (gd, wd) = (g["duration_s"].as_f64().unwrap(), w["duration_s"].as_f64().unwrap());
            assert!((gd - wd).abs() < 1e-9, "{name}: duration {gd} vs {wd}");
        }
        let warnings = got["warnings"].as_array().unwrap().len() as u64;
        assert_eq!(warnings, want.get("warnings").and_then(Value::as_u64).unwrap_or(0), "{name}: warnings");
    }
}

#[test]
fn the_snapshot_loader_says_what_a_profiler_file_is() {
    let bytes = std::fs::read(dir().join("train.raw.json.gz")).unwrap();
    let e = fails(memviz_core::load(&bytes), "not a snapshot");
    assert_eq!(e.kind, ErrorKind::NotSnapshotShaped);
    assert!(e.message.contains("raw memory timeline"), "{e}");
    assert_eq!(open("train.trace.json").format, ProfilerFormat::ChromeTrace);
}

#[test]
fn broken_exports_are_errors_that_name_the_place() {
    let text = std::fs::read_to_string(dir().join("train.memory_timeline.json")).unwrap();
    // Cut short: a JSON error with an offset, no panic.
    let e = fails(memviz_core::load_any(&text.as_bytes()[..text.len() / 2]), "truncated");
    assert_eq!(e.kind, ErrorKind::Json);
    assert!(e.offset.is_some(), "{e}");
    // A row with 8 sizes instead of 9.
    let v: Value = serde_json::from_str(&text).unwrap();
    let mut bad = v.clone();
    bad[1][3].as_array_mut().unwrap().pop();
    let e = fails(memviz_core::load_any(bad.to_string().as_bytes()), "short row");
    assert!(e.message.contains("[1][3]: 8 sizes, not 9"), "{e}");
    // gzip of a broken trace: the place and that it was inside gzip.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, br#"{"traceEvents": [{"ph": "X", "name": "aten::mm", "ts": 1}]}"#).unwrap();
    let e = fails(memviz_core::load_any(&gz.finish().unwrap()), "no memory events");
    assert!(e.message.contains("no [memory] events") && e.message.contains("gzip"), "{e}");
}

/// The profiler's picture export (export_memory_timeline's .html, the real
/// H100 recording) is named for what it is, whole or fed in small chunks.
#[test]
fn the_html_picture_export_is_named() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/recordings/profiler_resnet50_memory_timeline.html");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let want = "not a memory snapshot (expected a pickle, JSON or gzip file): this is the profiler's picture \
export: open its .json or .raw.json.gz";
    let e = fails(memviz_core::load_any(&bytes), "whole");
    assert_eq!(e.kind, ErrorKind::NotASnapshot);
    assert!(e.message.starts_with(want), "{}", e.message);
    let mut loader = memviz_core::Loader::new();
    let fed = bytes.chunks(4096).try_for_each(|c| loader.feed(c));
    let e = fails(fed.and_then(|_| loader.finish_any()), "in chunks");
    assert!(e.message.starts_with(want), "{}", e.message);
    // Another HTML page is still only text.
    let e = fails(memviz_core::load_any(b"<html><head><title>x</title></head></html>"), "a page");
    assert!(e.message.contains("it starts with the text"), "{}", e.message);
}
