//! What the CLI's integration tests share: the repository, the real
//! snapshots in `../shared` (beside the repository, or MEMVIZ_SHARED; never
//! copied in: a missing one fails the test) and running the `memviz` binary.
#![allow(dead_code)] // each test file uses a part

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

// Where the repository and ../shared are: one rule, the core's tests' (every
// crate's tests read the same recordings).
#[path = "../../../memviz-core/tests/common/mod.rs"]
mod shared;
#[allow(unused_imports)] // each test file uses a part
pub use shared::{repo_root, shared_dir};

pub fn snapshot(name: &str) -> String {
    shared_dir().join("snapshots").join(name).to_str().unwrap().to_string()
}

pub fn memviz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memviz")).args(args).output().unwrap()
}

/// `memviz ARGS` must succeed and print JSON: that JSON.
pub fn json(args: &[&str]) -> Value {
    let out = memviz(args);
    assert!(out.status.success(), "memviz {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("memviz {args:?} printed no JSON: {e}"))
}

/// `path` in this test binary's own temporary directory (made on first use).
pub fn tmp(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let stem = exe.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = std::env::temp_dir().join(format!("memviz-cli-{stem}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The JSON a successful `memviz` run printed.
#[track_caller]
pub fn json_of(out: Output) -> Value {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `python3 ARGS` must succeed and print JSON: that JSON (the independent reference).
#[track_caller]
pub fn python(args: &[&str]) -> Value {
    let out = Command::new("python3").args(args).output().expect("python3 is needed by these tests");
    assert!(out.status.success(), "python3 {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `memviz ARGS` must fail with status 1 and a short message (at most 4 lines) that says `msg`.
#[track_caller]
pub fn fails(args: &[&str], msg: &str) {
    let o = memviz(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.starts_with("memviz: ") && err.contains(msg) && err.lines().count() <= 4, "{args:?}: {err}");
}

/// A PNG the CLI wrote, as RGB pixels.
#[cfg(feature = "render")]
pub struct Rgb {
    pub w: u32,
    pub h: u32,
    pub px: Vec<u8>,
}

#[cfg(feature = "render")]
impl Rgb {
    pub fn decode(bytes: &[u8]) -> Rgb {
        let mut dec = png::Decoder::new(std::io::Cursor::new(bytes)).read_info().unwrap();
        let mut px = vec![0; dec.output_buffer_size().unwrap()];
        let info = dec.next_frame(&mut px).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        Rgb { w: info.width, h: info.height, px }
    }

    pub fn at(&self, x: u32, y: u32) -> [u8; 3] {
        let i = (y * self.w + x) as usize * 3;
        [self.px[i], self.px[i + 1], self.px[i + 2]]
    }
}
