//! The `memviz` CLI against the independent Python reference
//! (tests/reference/memviz_reference.py, written from memory_viz's JS).
//!
//! * Real snapshots: the numbers committed in tests/reference/expected/*.json
//!   (regenerate with tests/reference/regenerate.sh) must come out of
//!   `memviz summary FILE --json` and `memviz state FILE --device D --event N --json`.
//! * Generated snapshots: ../shared/tools/gen_snapshot.py writes a file into a
//!   temp dir, the Python reference runs on it now, the CLI must agree.
//!
//! Only the keys present in the expected JSON are compared: the CLI may print
//! more. The snapshots live outside the repository, in `<root>/../shared`
//! (override with MEMVIZ_SHARED); CI always has them, so their absence fails.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn shared_dir() -> PathBuf {
    let dir = match std::env::var_os("MEMVIZ_SHARED") {
        Some(d) => PathBuf::from(d),
        None => repo_root().join("../shared"),
    };
    assert!(
        dir.join("snapshots").is_dir(),
        "the shared data directory {} (with snapshots/ and tools/) is missing: clone it beside \
         the repository as ../shared, or point MEMVIZ_SHARED at it",
        dir.display()
    );
    dir
}

fn reference_script() -> PathBuf {
    repo_root().join("tests/reference/memviz_reference.py")
}

/// Runs a command, returns its stdout parsed as JSON; panics with stderr on failure.
fn run_json(cmd: &mut Command) -> Value {
    let shown = format!("{cmd:?}");
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
    assert!(out.status.success(), "{shown} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{shown} printed no JSON ({e}):\n{}", String::from_utf8_lossy(&out.stdout)))
}

fn memviz(args: &[&str]) -> Value {
    run_json(Command::new(env!("CARGO_BIN_EXE_memviz")).args(args))
}

fn python3() -> Command {
    Command::new("python3")
}

/// Records every place where `actual` lacks or differs from a value in
/// `expected` (objects: only expected keys; arrays: same length, item by item).
fn compare(expected: &Value, actual: &Value, path: &str, errors: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                let p = format!("{path}.{k}");
                match a.get(k) {
                    Some(av) => compare(ev, av, &p, errors),
                    None => errors.push(format!("{p}: missing (expected {ev})")),
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                errors.push(format!("{path}: {} items, expected {}", a.len(), e.len()));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                compare(ev, av, &format!("{path}[{i}]"), errors);
            }
        }
        (Value::Number(e), Value::Number(a)) => {
            // integers exactly (byte counts exceed f64's 2^53 only in theory,
            // but do not lose them); otherwise as floats
            let same = match (as_int(e), as_int(a)) {
                (Some(x), Some(y)) => x == y,
                _ => e.as_f64() == a.as_f64(),
            };
            if !same {
                errors.push(format!("{path}: {a}, expected {e}"));
            }
        }
        (e, a) => {
            if e != a {
                errors.push(format!("{path}: {a}, expected {e}"));
            }
        }
    }
}

fn as_int(n: &serde_json::Number) -> Option<i128> {
    n.as_u64().map(i128::from).or_else(|| n.as_i64().map(i128::from))
}

/// Checks the CLI on `snapshot` against an expected object of the shape
/// `memviz_reference.py expected` prints ({summary, states, ...}).
fn check_cli(snapshot: &Path, expected: &Value) -> Vec<String> {
    let file = snapshot.to_str().expect("utf-8 path");
    let name = snapshot.file_name().unwrap().to_string_lossy().into_owned();
    let mut errors = Vec::new();

    let summary = memviz(&["summary", file, "--json"]);
    compare(&expected["summary"], &summary, &format!("{name} summary"), &mut errors);

    let states = expected["states"].as_array().expect("expected.states is an array");
    for st in states {
        let device = st["device"].as_u64().expect("state.device").to_string();
        let event = st["event"].as_u64().expect("state.event").to_string();
        let actual = memviz(&["state", file, "--device", &device, "--event", &event, "--json"]);
        compare(st, &actual, &format!("{name} state d{device} e{event}"), &mut errors);
    }
    errors
}

fn fail_if_any(errors: Vec<String>) {
    assert!(errors.is_empty(), "{} mismatches:\n{}", errors.len(), errors.join("\n"));
}

fn expected_dir() -> PathBuf {
    repo_root().join("tests/reference/expected")
}

#[test]
fn every_real_snapshot_has_expected_numbers() {
    let snaps = shared_dir().join("snapshots");
    let (mut missing, mut seen) = (Vec::new(), 0);
    for entry in std::fs::read_dir(&snaps).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            continue;
        }
        seen += 1;
        if !expected_dir().join(format!("{name}.json")).is_file() {
            missing.push(name);
        }
    }
    assert!(seen >= 11, "only {seen} snapshots in {}", snaps.display());
    assert!(
        missing.is_empty(),
        "no tests/reference/expected/NAME.json for {missing:?}: run tests/reference/regenerate.sh"
    );
}

#[test]
fn expected_numbers_are_current() {
    // the committed files must be what the reference script prints today
    let snaps = shared_dir().join("snapshots");
    let (mut stale, mut checked) = (Vec::new(), 0);
    for entry in std::fs::read_dir(expected_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        checked += 1;
        let committed: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let snapshot = snaps.join(path.file_stem().unwrap());
        let now = run_json(python3().arg(reference_script()).arg("expected").arg(&snapshot));
        if committed != now {
            stale.push(path.display().to_string());
        }
    }
    assert!(checked >= 11, "only {checked} files in {}", expected_dir().display());
    assert!(stale.is_empty(), "stale (run tests/reference/regenerate.sh and review): {stale:?}");
}

#[test]
fn cli_matches_reference_on_real_snapshots() {
    let snaps = shared_dir().join("snapshots");
    let mut files: Vec<PathBuf> = std::fs::read_dir(expected_dir())
        .expect("tests/reference/expected")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "expected files missing: {files:?}");
    let mut errors = Vec::new();
    for exp_path in files {
        let expected: Value = serde_json::from_str(&std::fs::read_to_string(&exp_path).unwrap()).unwrap();
        let name = exp_path.file_stem().unwrap().to_string_lossy().into_owned();
        let snapshot = snaps.join(&name);
        assert!(snapshot.is_file(), "{} has no snapshot {}", exp_path.display(), snapshot.display());
        errors.extend(check_cli(&snapshot, &expected));
    }
    fail_if_any(errors);
}

/// Generates a snapshot with gen_snapshot.py, runs the Python reference on it
/// and compares the CLI.
fn check_generated(case: &str, gen_args: &[&str]) {
    let shared = shared_dir();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reference").join(case);
    std::fs::create_dir_all(&dir).unwrap();
    let snapshot = dir.join("snapshot.pickle");
    let status = python3()
        .arg(shared.join("tools/gen_snapshot.py"))
        .arg(&snapshot)
        .args(gen_args)
        .status()
        .expect("python3 must be on PATH to run gen_snapshot.py");
    assert!(status.success(), "gen_snapshot.py {gen_args:?} failed");
    let expected = run_json(python3().arg(reference_script()).arg("expected").arg(&snapshot));
    fail_if_any(check_cli(&snapshot, &expected));
}

#[test]
fn generated_default_protocol_4() {
    check_generated("default", &["--events", "20000", "--protocol", "4"]);
}

#[test]
fn generated_protocol_5() {
    check_generated("protocol5", &["--events", "5000", "--protocol", "5", "--seed", "1"]);
}

#[test]
fn generated_oom() {
    check_generated("oom", &["--events", "5000", "--oom", "--seed", "2"]);
}

#[test]
fn generated_expandable_segments() {
    check_generated("expandable", &["--events", "5000", "--expandable", "--seed", "3"]);
}

#[test]
fn generated_two_devices() {
    check_generated("devices2", &["--events", "5000", "--devices", "2", "--seed", "4"]);
}

#[test]
fn compare_reports_differences() {
    // the comparison itself must catch a wrong number, a missing key and a
    // wrong length, and ignore extra keys
    let expected = serde_json::json!({"a": 1, "b": {"c": [1, 2]}, "d": "x"});
    let actual = serde_json::json!({"a": 2, "b": {"c": [1]}, "e": 5});
    let mut errors = Vec::new();
    compare(&expected, &actual, "$", &mut errors);
    assert_eq!(errors.len(), 3, "{errors:?}");
    let mut errors = Vec::new();
    compare(&expected, &serde_json::json!({"a": 1.0, "b": {"c": [1, 2]}, "d": "x", "z": 0}), "$", &mut errors);
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn generated_gzip_and_json_inputs() {
    // the same snapshot as gzip'd pickle, JSON and gzip'd JSON must give the
    // same numbers as the reference (which reads all four)
    let shared = shared_dir();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reference").join("encodings");
    std::fs::create_dir_all(&dir).unwrap();
    let pickle = dir.join("snapshot.pickle");
    let status = python3()
        .arg(shared.join("tools/gen_snapshot.py"))
        .arg(&pickle)
        .args(["--events", "3000", "--seed", "5", "--oom"])
        .status()
        .expect("python3 must be on PATH to run gen_snapshot.py");
    assert!(status.success());
    let script = "import sys, pickle, json, gzip\n\
                  p = sys.argv[1]; raw = open(p, 'rb').read()\n\
                  text = json.dumps(pickle.loads(raw)).encode()\n\
                  open(p + '.gz', 'wb').write(gzip.compress(raw))\n\
                  open(p[:-7] + '.json', 'wb').write(text)\n\
                  open(p[:-7] + '.json.gz', 'wb').write(gzip.compress(text))\n";
    let status = python3().arg("-c").arg(script).arg(&pickle).status().unwrap();
    assert!(status.success());
    let expected = run_json(python3().arg(reference_script()).arg("expected").arg(&pickle));
    let mut errors = Vec::new();
    for name in ["snapshot.pickle.gz", "snapshot.json", "snapshot.json.gz"] {
        errors.extend(check_cli(&dir.join(name), &expected));
    }
    fail_if_any(errors);
}

#[test]
fn expandable_segments_merge_and_split_at_every_event() {
    // tests/reference/fixtures/expandable_merge.json: one expandable range
    // mapped in three pieces (the last fills a gap, so undoing it splits the
    // range in two) and partly unmapped (undoing that merges it back); a
    // state after every event
    let fixture = repo_root().join("tests/reference/fixtures/expandable_merge.json");
    let expected = run_json(python3().arg(reference_script()).arg("expected").arg(&fixture).arg("--all-states"));
    let segments: Vec<u64> =
        expected["states"].as_array().unwrap().iter().map(|s| s["segments"].as_u64().unwrap()).collect();
    assert_eq!(segments, [1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1], "the fixture lost its split");
    fail_if_any(check_cli(&fixture, &expected));
}

#[test]
fn reference_agrees_with_itself_forwards_and_backwards() {
    // tests/reference/selfcheck.py: the reference's backward state walk must
    // agree with a forward replay on every real snapshot and the fixture
    let mut cmd = python3();
    cmd.arg(repo_root().join("tests/reference/selfcheck.py"));
    for entry in std::fs::read_dir(shared_dir().join("snapshots")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x != "md") {
            cmd.arg(path);
        }
    }
    cmd.arg(repo_root().join("tests/reference/fixtures/expandable_merge.json"));
    let out = cmd.output().expect("python3 must be on PATH");
    assert!(
        out.status.success(),
        "selfcheck.py failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
