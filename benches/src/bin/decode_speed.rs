//! Native decode throughput of the page's open path, for issue 13's "decode
//! throughput in wasm at least half the native one": the same calls the page
//! makes between its `memviz:file-received` and `memviz:decoded` marks
//! (`Viewer::begin`, `feed` in 1 MiB pieces, `finish`: decode, build the
//! model, versions, the first timeline), natively, best and median of N.
//!
//! cargo run --release -p memviz-benches --bin decode_speed -- [--repeat N] [--json] FILE...
//!
//! `--phases` splits the median run into feed / finish / versions / timeline.
//! `--json` prints one line per file (`{"file":…,"bytes":…,"best_ms":…,"median_ms":…}`)
//! for benches/browser/run.mjs.

use std::time::Instant;

/// The page feeds wasm 1 MiB at a time (www/app.js `FEED`).
const FEED: usize = 1 << 20;

fn open_once(name: &str, bytes: &[u8]) -> f64 {
    let mut v = memviz_viewer::Viewer::new();
    let t = Instant::now();
    v.begin(name);
    for piece in bytes.chunks(FEED) {
        v.feed(piece).unwrap_or_else(|e| panic!("{e}"));
    }
    v.finish().unwrap_or_else(|e| panic!("{e}"));
    let ms = t.elapsed().as_secs_f64() * 1e3;
    drop(v);
    ms
}

/// The same work split into its phases (ms): feed, finish (build the model),
/// versions, the first timeline's replay.
fn phases(bytes: &[u8]) -> [f64; 4] {
    use memviz_core::timeline::{Timeline, TimelineKind};
    let mut t = Instant::now();
    let mut lap = || {
        let ms = t.elapsed().as_secs_f64() * 1e3;
        t = Instant::now();
        ms
    };
    let mut l = memviz_core::Loader::new();
    l.expect(bytes.len() as u64); // as the page's worker does
    for piece in bytes.chunks(FEED) {
        l.feed(piece).unwrap_or_else(|e| panic!("{e}"));
    }
    let feed = lap();
    let snap = l.finish().unwrap_or_else(|e| panic!("{e}"));
    let finish = lap();
    let versions = memviz_core::versions::compute(&snap);
    let ver = lap();
    let tl = Timeline::build(&snap, snap.default_device().unwrap_or(0), TimelineKind::ActiveMemory);
    let timeline = lap();
    drop((tl, versions, snap));
    [feed, finish, ver, timeline]
}

const USAGE: &str = "usage: decode_speed [--repeat N] [--json] [--phases] FILE...";

fn main() {
    let mut repeat = 5usize;
    let mut json = false;
    let mut split = false;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repeat" => repeat = args.next().and_then(|n| n.parse::<usize>().ok()).expect("--repeat N").max(1),
            "--json" => json = true,
            "--phases" => split = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            _ if a.starts_with('-') => {
                eprintln!("decode_speed: unknown option {a} ({USAGE})");
                std::process::exit(2);
            }
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        eprintln!("decode_speed: no file given ({USAGE})");
        std::process::exit(2);
    }
    for f in files {
        let bytes = std::fs::read(&f).unwrap_or_else(|e| panic!("{f}: {e}"));
        let name = std::path::Path::new(&f).file_name().unwrap().to_string_lossy().into_owned();
        // Big files fewer times: the 1 GB one takes seconds per open.
        let n = if bytes.len() > 400 << 20 { 1 } else { repeat };
        if split {
            let mut runs: Vec<[f64; 4]> = (0..n).map(|_| phases(&bytes)).collect();
            runs.sort_by(|a, b| a.iter().sum::<f64>().total_cmp(&b.iter().sum::<f64>()));
            let [f, b, v, t] = runs[(runs.len() - 1) / 2];
            println!(
                "{name}: median run: feed {f:.1} ms, finish {b:.1} ms, versions {v:.1} ms, first timeline {t:.1} ms"
            );
            continue;
        }
        let mut ms: Vec<f64> = (0..n).map(|_| open_once(&name, &bytes)).collect();
        ms.sort_by(f64::total_cmp);
        let (best, median) = (ms[0], ms[(ms.len() - 1) / 2]);
        let mbs = |t: f64| bytes.len() as f64 / 1e6 / (t / 1e3);
        if json {
            println!(r#"{{"file":"{name}","bytes":{},"best_ms":{best:.2},"median_ms":{median:.2}}}"#, bytes.len());
        } else {
            println!(
                "{name}: {:.2} MB, open (begin/feed/finish) best {best:.1} ms ({:.0} MB/s), median {median:.1} ms ({:.0} MB/s), {n} runs",
                bytes.len() as f64 / 1e6,
                mbs(best),
                mbs(median)
            );
        }
    }
}
