//! Loads and summarizes one snapshot (what `memviz summary` does) and prints
//! the time of each stage and the process's peak memory (VmHWM) against the
//! file size, for issue 6's "peak memory at most 3x the file size".
//!
//! cargo run --release -p memviz-benches --bin peak_memory -- FILE [--timelines] [--check] [--repeat N]
//!
//! `--timelines` also builds both timelines of every device and a DetailView
//! at the default limit (what the page holds); `--check` compares the
//! summary's one-pass replay with the full timelines; `--repeat N` prints
//! the best of N decode and decode + summarize times as MB/s.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// The system allocator, counting live heap bytes and their peak: exact and
/// free of the process's own baseline, unlike VmHWM.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            // Counted as alloc-then-free: a moving realloc holds both.
            let now = LIVE.fetch_add(new, Relaxed) + new;
            PEAK.fetch_max(now, Relaxed);
            LIVE.fetch_sub(l.size(), Relaxed);
        }
        q
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (VmHWM, VmRSS) in bytes, from /proc/self/status (Linux only; 0 elsewhere).
fn mem() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        s.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn mb(b: u64) -> String {
    format!("{:.1} MB", b as f64 / 1e6)
}

fn report(stage: &str, file: u64, t: Instant) {
    let (hwm, rss) = mem();
    let (live, peak) = (LIVE.load(Relaxed) as u64, PEAK.load(Relaxed) as u64);
    println!(
        "{stage:<22} {:>7.1} ms | heap {:>9}, peak {:>9} ({:.2}x file) | rss {:>9}, peak {:>9} ({:.2}x file)",
        t.elapsed().as_secs_f64() * 1e3,
        mb(live),
        mb(peak),
        peak as f64 / file as f64,
        mb(rss),
        mb(hwm),
        hwm as f64 / file as f64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: peak_memory FILE [--timelines]");
        std::process::exit(2);
    };
    let timelines = args.iter().any(|a| a == "--timelines");
    println!("process baseline: rss {}", mb(mem().1));
    let t = Instant::now();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let file = bytes.len() as u64;
    println!("{path}: {}", mb(file));
    report("read", file, t);
    let t = Instant::now();
    let snap = memviz_core::load(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
    report("decode + build", file, t);
    let events: usize = snap.traces.iter().map(|t| t.len()).sum();
    println!(
        "  model heap_bytes {} ({:.2}x file), {events} events",
        mb(snap.heap_bytes() as u64),
        snap.heap_bytes() as f64 / file as f64
    );
    let t = Instant::now();
    let summary = memviz_core::summary::summarize(&snap);
    report("summarize", file, t);
    std::hint::black_box(&summary);
    if args.iter().any(|a| a == "--check") {
        // The one-pass replay against the full timelines.
        use memviz_core::summary::TimelineSummary;
        use memviz_core::timeline::{Timeline, TimelineKind};
        for (d, s) in &summary.devices.0 {
            for (kind, got) in
                [(TimelineKind::ActiveMemory, &s.active_memory), (TimelineKind::CachedSegments, &s.segment_memory)]
            {
                let want = TimelineSummary::of(&Timeline::build(&snap, *d, kind));
                assert_eq!(*got, want, "device {d} {kind:?}");
            }
        }
        println!("check: summary equals the full replay's on {} devices", summary.devices.0.len());
    }
    if let Some(n) = args.iter().position(|a| a == "--repeat").and_then(|i| args.get(i + 1)?.parse::<u32>().ok()) {
        // Best of n: on a shared machine the minimum is the least disturbed.
        drop(snap);
        let (mut dec, mut all) = (f64::MAX, f64::MAX);
        for _ in 0..n {
            let t = Instant::now();
            let snap = memviz_core::load(&bytes).unwrap();
            let d = t.elapsed().as_secs_f64();
            std::hint::black_box(memviz_core::summary::summarize(&snap));
            dec = dec.min(d);
            all = all.min(t.elapsed().as_secs_f64());
        }
        let mbs = |s: f64| file as f64 / 1e6 / s;
        println!(
            "best of {n}: decode {:.1} ms ({:.0} MB/s), decode + summarize {:.1} ms ({:.0} MB/s)",
            dec * 1e3,
            mbs(dec),
            all * 1e3,
            mbs(all)
        );
        return;
    }
    if timelines {
        use memviz_core::timeline::{DetailView, Timeline, TimelineKind};
        let t = Instant::now();
        let _versions = memviz_core::versions::compute(&snap); // held, as the page holds them
        report("versions", file, t);
        let mut keep = Vec::new();
        for d in snap.devices() {
            for kind in [TimelineKind::ActiveMemory, TimelineKind::CachedSegments] {
                let t = Instant::now();
                let tl = Timeline::build(&snap, d, kind);
                report(&format!("timeline {d} {kind:?}"), file, t);
                let t = Instant::now();
                let dv = DetailView::new(&tl, 15000);
                report("  detail 15000", file, t);
                keep.push((tl, dv));
            }
        }
        std::hint::black_box(&keep);
    }
}
