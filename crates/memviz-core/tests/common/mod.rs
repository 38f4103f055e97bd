//! What the core's integration tests share: the repository and the real
//! recordings in `../shared` (beside the repository, or MEMVIZ_SHARED;
//! never copied in: missing data fails the test).
#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn shared_dir() -> PathBuf {
    let dir = std::env::var_os("MEMVIZ_SHARED").map(PathBuf::from).unwrap_or_else(|| repo_root().join("../shared"));
    assert!(
        dir.join("snapshots").is_dir() && dir.join("tools/gen_snapshot.py").is_file(),
        "the shared data directory {} (snapshots/ and tools/gen_snapshot.py) is missing: clone it beside the \
         repository as ../shared, or point MEMVIZ_SHARED at it",
        dir.display()
    );
    dir
}

/// The pickles of each `(folder of ../shared, at least how many)`, sorted by folder.
pub fn real_pickles(folders: &[(&str, usize)]) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for &(sub, least) in folders {
        let dir = shared_dir().join(sub);
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "pickle" || e == "pkl"))
            .collect();
        found.sort();
        assert!(found.len() >= least, "expected {least} real pickles in {}, found {found:?}", dir.display());
        v.extend(found);
    }
    v
}
