//! What the CLI's integration tests share: the repository, the real
//! snapshots in `../shared` (beside the repository, or MEMVIZ_SHARED; never
//! copied in: a missing one fails the test) and running the `memviz` binary.
#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn shared_dir() -> PathBuf {
    let dir = std::env::var_os("MEMVIZ_SHARED").map(PathBuf::from).unwrap_or_else(|| repo_root().join("../shared"));
    assert!(
        dir.join("snapshots").is_dir(),
        "the shared data directory {} (with snapshots/ and tools/) is missing: clone it beside the repository as \
         ../shared, or point MEMVIZ_SHARED at it",
        dir.display()
    );
    dir
}

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
