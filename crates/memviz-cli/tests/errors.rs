//! The CLI on bad files: exit status 1 and one line on stderr naming the
//! file, the problem and the byte offset. Bad files are made here from the
//! real snapshots in ../shared/snapshots or by Python.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn snapshot(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/snapshots").join(name);
    assert!(p.is_file(), "{} is missing", p.display());
    p
}

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memviz-cli-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn memviz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memviz")).args(args).output().unwrap()
}

/// Runs `memviz CMD FILE`, expects status 1 and exactly `line` on stderr.
#[track_caller]
fn fails_with(cmd: &str, file: &Path, line: &str) {
    let out = memviz(&[cmd, file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{cmd} {}: {stderr}", file.display());
    assert_eq!(stderr, format!("memviz: {}: {line}\n", file.display()));
    assert!(out.stdout.is_empty(), "nothing on stdout: {}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn truncated_file() {
    let bytes = std::fs::read(snapshot("small_train_step.pickle")).unwrap();
    let cut = tmp("cut.pickle", &bytes[..1000]);
    let e = memviz_core::load(&bytes[..1000]).unwrap_err();
    assert_eq!(e.offset, Some(1000));
    for cmd in ["info", "summary"] {
        fails_with(cmd, &cut, &format!("{} at byte offset 1000", e.message));
    }
    assert!(e.message.starts_with("truncated file: "), "{e}");
}

#[test]
fn wrong_files() {
    let png = tmp("plot.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0");
    fails_with(
        "info",
        &png,
        "not a memory snapshot (expected a pickle, JSON or gzip file): a PNG image at byte offset 0",
    );
    let empty = tmp("empty.pickle", b"");
    fails_with("summary", &empty, "the file is empty at byte offset 0");
    let global = tmp("evil.pickle", b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.");
    fails_with(
        "summary",
        &global,
        "refused pickle opcode GLOBAL (0x63): it would build an arbitrary Python object, which a memory snapshot \
         never contains; nothing was executed at byte offset 2",
    );
    let big_int = tmp("int.pickle", &[&[0x80, 2, 0x8a, 100][..], &[7; 100], b"."].concat());
    fails_with(
        "info",
        &big_int,
        "integer of 100 bytes refused (no address or size needs more than 16) at byte offset 2",
    );
    let json = tmp("package.json", br#"{"name": "x", "version": "1"}"#);
    fails_with("info", &json, "not a memory snapshot: a dict without 'segments' or 'device_traces'");
    let bad_json = tmp("bad.json", b"{\"segments\": [1,\n 2,, 3]}");
    fails_with("info", &bad_json, "invalid JSON: expected value at line 2 column 4 at byte offset 20");
    let missing = Path::new("/nonexistent/snap.pickle");
    fails_with("info", missing, "No such file or directory (os error 2)");
}

#[test]
fn gzip_errors_name_the_offset_in_the_decompressed_data() {
    let out = Command::new("python3")
        .arg("-c")
        .arg("import gzip, sys; sys.stdout.buffer.write(gzip.compress(b'\\x80\\x04\\x95' + b'N' * 5000 + b'h\\x07.'))")
        .output()
        .unwrap();
    let gz = tmp("memo.pickle.gz", &out.stdout);
    fails_with("info", &gz, "memo reference 7 refers to nothing, in the decompressed gzip data at byte offset 5003");
}

/// A 150 KiB gzip file that inflates to 150 MiB of pickle: the CLI streams it
/// through the decoder and never holds the inflated bytes.
#[test]
fn gzip_bomb_streams_in_bounded_memory() {
    let bomb = tmp("bomb.pickle.gz", b"");
    let made = Command::new("python3")
        .arg("-c")
        .arg(
            "import gzip, sys\n\
             body = b'\\x80\\x04}(\\x8c\\x08segments]\\x8c\\x0ddevice_traces]' + b'N0' * (75 << 20) + b'u.'\n\
             open(sys.argv[1], 'wb').write(gzip.compress(body, 9))\n\
             print(len(body))",
        )
        .arg(&bomb)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let inflated: u64 = String::from_utf8(made.stdout).unwrap().trim().parse().unwrap();
    // Measured from a small Python process: a child forked from the one that
    // built the 150 MiB body would start with its pages counted.
    let out = Command::new("python3")
        .arg("-c")
        .arg(
            "import resource, subprocess, sys\n\
             r = subprocess.run([sys.argv[1], 'info', sys.argv[2], '--json'], capture_output=True)\n\
             print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
        )
        .arg(env!("CARGO_BIN_EXE_memviz"))
        .arg(&bomb)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Vec<u64> = String::from_utf8(out.stdout).unwrap().split_whitespace().map(|x| x.parse().unwrap()).collect();
    let (rc, max_rss_kib) = (v[0], v[1]);
    let gz_size = std::fs::metadata(&bomb).unwrap().len();
    assert_eq!(rc, 0, "the bomb is a valid (empty) snapshot");
    assert!(gz_size < 400 << 10, "{gz_size}");
    assert!(inflated > 150 << 20);
    // The inflated stream is 150 MiB; the process stays far below it.
    assert!(max_rss_kib < 64 << 10, "memviz used {max_rss_kib} KiB for a {inflated}-byte stream");
}

/// Odd but valid files open (exit 0) and say what was odd.
#[test]
fn inconsistent_files_open_and_say_what_was_odd() {
    let made = Command::new("python3")
        .arg("-c")
        .arg(
            "import pickle, sys\n\
             s = pickle.load(open(sys.argv[1], 'rb'))\n\
             s['segments'].append(s['segments'][0])\n\
             t = s['device_traces'][0]\n\
             t.append({'action': 'free_requested', 'addr': 0xdead000, 'size': 512, 'stream': 0, 'frames': []})\n\
             sys.stdout.buffer.write(pickle.dumps(s, 4))",
        )
        .arg(snapshot("small_train_step.pickle"))
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let f = tmp("odd.pickle", &made.stdout);
    let out = memviz(&["info", f.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let real = memviz_core::load(&std::fs::read(snapshot("small_train_step.pickle")).unwrap()).unwrap();
    assert_eq!(info["segments"], real.segments.len(), "the repeated segment is counted once");
    assert_eq!(
        info["warnings"],
        serde_json::json!([
            "segments[9]: the same object as an earlier entry (a snapshot has each in one place); skipped"
        ])
    );
    // memory_viz throws on this free_requested; memviz state counts it.
    let out = memviz(&["state", f.to_str().unwrap(), "--device", "0", "--event", "10", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["inconsistencies"], serde_json::json!({"free_requested_unknown_block": 1}));
}

/// Unusual but valid files open: protocol 0 and 5 pickles, gzip JSON.
#[test]
fn unusual_valid_files_open() {
    for (name, expr, format) in [
        ("p0.pickle", "pickle.dumps(s, 0)", "pickle protocol 0"),
        ("p5.pickle", "pickle.dumps(s, 5)", "pickle protocol 5"),
        ("s.json.gz", "gzip.compress(json.dumps(s).encode())", "JSON"),
    ] {
        let made = Command::new("python3")
            .arg("-c")
            .arg(format!(
                "import gzip, json, pickle, sys\ns = pickle.load(open(sys.argv[1], 'rb'))\nsys.stdout.buffer.write({expr})"
            ))
            .arg(snapshot("small_train_step.pickle"))
            .output()
            .unwrap();
        assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
        let f = tmp(name, &made.stdout);
        let out = memviz(&["info", f.to_str().unwrap(), "--json"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(info["format"], format, "{name}");
        assert_eq!(info["trace_events"], serde_json::json!([97]), "{name}");
    }
}
