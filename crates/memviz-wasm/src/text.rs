//! Text shown in the page: sizes for the axis and the summary line, and the
//! hover text of a band.

use memviz_core::model::{Snapshot, UserMetadata};
use memviz_core::timeline::{Element, ElementSource, Timeline, TimelineKind};

/// memory_viz's `formatSize(n, false)`: `1.5GiB`, `512.0KiB`, `12B`.
pub fn size_short(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n}B")
    } else {
        format!("{v:.1}{}", UNITS[u])
    }
}

/// `1.5MiB (1572864 bytes)`.
pub fn size_long(n: u64) -> String {
    format!("{} ({n} bytes)", size_short(n))
}

/// Axis tick values: multiples of 1, 2 or 5 times a power of 1024 unit
/// (so labels read `256MiB`, not `268435456`), about `target` of them over
/// `[0, max]`.
pub fn size_ticks(max: f64, target: usize) -> Vec<f64> {
    if max <= 0.0 || !max.is_finite() {
        return vec![0.0];
    }
    let raw = max / target.max(1) as f64;
    let unit = [1.0, 1024.0, 1024.0 * 1024.0, 1024f64.powi(3), 1024f64.powi(4)]
        .into_iter()
        .rev()
        .find(|u| raw >= *u)
        .unwrap_or(1.0);
    let in_unit = raw / unit;
    let pow = 10f64.powf(in_unit.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * pow).find(|s| *s >= in_unit).unwrap_or(10.0 * pow) * unit;
    let step = step.max(1.0);
    (0..).map(|i| i as f64 * step).take_while(|v| *v <= max).collect()
}

/// The hover text of a band. memory_viz's wording: address with version,
/// size, total after allocation, compile context, stream, pool id,
/// timestamp, user metadata, then the stack.
pub fn element_text(snap: &Snapshot, device: u32, tl: &Timeline, kind: TimelineKind, elem: u32) -> String {
    let Some(e) = tl.elements.get(elem as usize) else { return String::new() };
    let mut out = String::new();
    let prefix = if kind == TimelineKind::CachedSegments { 's' } else { 'b' };
    out.push_str(&format!(
        "{elem} Addr: {prefix}{:x}_{}, Size: {} allocation, Total memory used after allocation: {}",
        e.addr,
        e.version,
        size_long(e.size),
        size_long(e.total_after_alloc)
    ));
    let event = match e.source {
        ElementSource::Alloc(i) | ElementSource::UnmatchedFree(i) => Some(i as usize),
        _ => None,
    };
    let extra = event.and_then(|i| snap.extra(device, i));
    let cc = extra.and_then(|x| x.compile_context).map(|s| snap.str(s).to_string());
    out.push_str(&format!(", Compile context: {}", cc.as_deref().unwrap_or("None")));
    out.push_str(&format!(", stream {}", e.stream));
    match e.pool_id {
        Some((a, b)) => out.push_str(&format!(", pool_id ({a}, {b})")),
        None => out.push_str(", pool_id unknown"),
    }
    if let Some(t) = event.and_then(|i| snap.trace(device).time_us(i)) {
        out.push_str(&format!(", timestamp {}", timestamp(t)));
    }
    out.push('\n');
    match e.source {
        ElementSource::UnmatchedFree(_) => out.push_str("alloc not recorded, stack trace for free:\n"),
        ElementSource::GhostBlock(_) => {
            out.push_str("[Ghost block] allocated before the trace started (from the segment dump)\n")
        }
        ElementSource::GhostSegment(_) => {
            out.push_str("[Ghost segment] allocated before the trace started (from the segment dump)\n")
        }
        ElementSource::Alloc(_) => {}
    }
    if let Some(md) = extra.and_then(|x| x.user_metadata.as_ref()) {
        out.push_str("User Metadata:\n");
        match md {
            UserMetadata::Text(s) => out.push_str(&format!("  {s}\n")),
            UserMetadata::Map(m) => {
                for (k, v) in m {
                    out.push_str(&format!("  {k}: {v}\n"));
                }
            }
        }
    }
    out.push_str(&frames_text(snap, e));
    if let Some(x) = extra {
        if !x.forward_frames.is_empty() {
            out.push_str("\n=== Forward Pass Stack Trace (where this tensor was created) ===\n");
            out.push_str(&x.forward_frames.join(""));
        }
    }
    out
}

fn frames_text(snap: &Snapshot, e: &Element) -> String {
    let frames = snap.stack(e.stack);
    if frames.is_empty() {
        return "No frames recorded for this allocation.\n".into();
    }
    let mut out = String::new();
    for &f in frames {
        let fr = snap.frame(f);
        out.push_str(&format!("{}:{}:{}\n", snap.str(fr.filename), fr.line, snap.str(fr.name)));
    }
    out
}

/// `time_us` as an ISO date (UTC), what `new Date(us/1000)` shows.
pub fn timestamp(us: i64) -> String {
    let ms = us.div_euclid(1000);
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86400);
    let sod = secs.rem_euclid(86400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        sod / 3600,
        sod / 60 % 60,
        sod % 60,
        ms.rem_euclid(1000)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(size_short(12), "12B");
        assert_eq!(size_short(1536), "1.5KiB");
        assert_eq!(size_long(1572864), "1.5MiB (1572864 bytes)");
        assert_eq!(size_short(3 << 30), "3.0GiB");
    }

    #[test]
    fn ticks_are_round_in_binary_units() {
        let t = size_ticks(1000.0 * 1024.0 * 1024.0, 6);
        assert_eq!(t[1], 200.0 * 1024.0 * 1024.0);
        assert_eq!(t.len(), 5 + 1);
        assert_eq!(size_ticks(0.0, 5), vec![0.0]);
    }

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(timestamp(1_732_245_000_123_456), "2024-11-22T03:10:00.123Z");
    }
}
