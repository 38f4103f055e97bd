//! What the viewer's integration tests share: the real snapshots in
//! `../shared/snapshots` (beside the repository, never copied in) and the
//! reference numbers `tests/reference` computed from them with Python's
//! own pickle.
#![allow(dead_code)] // each test file uses a part

use std::path::PathBuf;

use memviz_viewer::Viewer;
use serde_json::Value;

pub const FULLSTEP: &str = "transformer_fullstep_ctx128.pickle";
/// The plot size the tests draw at (device pixels).
pub const W: u32 = 1200;
pub const H: u32 = 500;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn snapshot(name: &str) -> PathBuf {
    repo().join("../shared/snapshots").join(name)
}

/// A real snapshot's bytes; a missing one fails the test, naming where it was looked for.
pub fn bytes(name: &str) -> Vec<u8> {
    let p = snapshot(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{} (../shared must sit beside the repository): {e}", p.display()))
}

/// `tests/reference/expected/NAME.json`: what `tests/reference` computed from the file.
pub fn expected(name: &str) -> Value {
    let p = repo().join("tests/reference/expected").join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

pub fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

/// A viewer with the real snapshot `name` open (as file 0).
pub fn open(name: &str) -> Viewer {
    let mut v = Viewer::new();
    assert_eq!(v.open(name, &bytes(name)).unwrap(), 0);
    v
}

/// Calls `step` (a `prepare_*_step`: the share done) until it says 1.0; the
/// shares it gave, which never went down.
pub fn shares_to_done(mut step: impl FnMut() -> f64) -> Vec<f64> {
    let mut shares = Vec::new();
    loop {
        let s = step();
        shares.push(s);
        if s == 1.0 {
            break;
        }
    }
    assert!(shares.windows(2).all(|w| w[0] <= w[1]), "{shares:?}");
    shares
}
