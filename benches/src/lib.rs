//! Shared helpers for the benchmarks: where the snapshots are, and making the
//! large synthetic one with ../shared/tools/gen_snapshot.py when missing.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn real(name: &str) -> PathBuf {
    let p = repo_root().join("../shared/snapshots").join(name);
    assert!(p.exists(), "{} is missing (../shared must sit beside the repository)", p.display());
    p
}

/// A real H100 recording of ../shared/recordings (PyTorch 2.11: 8-key
/// trace events, Python and C++ stacks).
pub fn recording(name: &str) -> PathBuf {
    let p = repo_root().join("../shared/recordings").join(name);
    assert!(p.exists(), "{} is missing (../shared must sit beside the repository)", p.display());
    p
}

/// A synthetic snapshot of `events` trace events (`--devices 2 --oom`),
/// generated once into target/bench-data/.
pub fn synthetic(events: u64) -> PathBuf {
    // MEMVIZ_BENCH_2M points the 2,000,000-event case at an existing file.
    if let (2_000_000, Some(p)) = (events, std::env::var_os("MEMVIZ_BENCH_2M")) {
        return PathBuf::from(p);
    }
    let dir = repo_root().join("target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("gen_{events}.pickle"));
    if !p.exists() {
        let tmp = dir.join(format!("gen_{events}.pickle.tmp"));
        let st = Command::new("python3")
            .arg(repo_root().join("../shared/tools/gen_snapshot.py"))
            .arg(&tmp)
            .args(["--events", &events.to_string(), "--devices", "2", "--oom"])
            .status()
            .expect("python3 runs gen_snapshot.py");
        assert!(st.success());
        std::fs::rename(&tmp, &p).unwrap();
    }
    p
}

/// False when the bench filter on the command line names the other file
/// (`-- transformer`, `-- synthetic` or `-- recording`), so a bench skips loading the big
/// file it would not run.
pub fn wanted(case: &str) -> bool {
    match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        Some(f) if ["transformer", "synthetic", "recording"].iter().any(|c| f.contains(c)) => {
            f.split('/').any(|part| !part.is_empty() && (case.contains(part) || part.contains(case)))
        }
        _ => true,
    }
}

/// A benchmark case: its name and where its file is (made on demand).
pub type Case = (&'static str, fn() -> PathBuf);

/// The two files issue 6 names: the largest real snapshot and the
/// 2,000,000-event synthetic one.
pub fn cases() -> [Case; 2] {
    [
        ("transformer_fullstep_ctx128", || real("transformer_fullstep_ctx128.pickle")),
        ("synthetic_2M_events", || synthetic(2_000_000)),
    ]
}
