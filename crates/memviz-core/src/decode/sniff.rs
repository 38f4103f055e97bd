//! What a file is, from its first bytes: the page routes it once, before any
//! decode (a torch.profiler export to its chart, anything else to the
//! snapshot loader, which names what is wrong with it).

use std::io::Read;

use crate::pickle::is_profiler_html;
use crate::profiler::{sniff as profiler_sniff, ProfilerFormat};

/// Bytes of a file's start that [`sniff`] needs to tell them apart (a
/// Chrome trace names `traceEvents` within its first lines).
pub const SNIFF_HEAD: usize = 64 << 10;

/// What a file's first bytes say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// A pickled memory snapshot (or something the pickle reader will name).
    Pickle,
    /// A JSON memory snapshot.
    Json,
    /// torch.profiler's `export_memory_timeline` (.json, .raw.json.gz).
    ProfilerTimeline,
    /// torch.profiler's Chrome trace (`export_chrome_trace`).
    ProfilerTrace,
    /// torch.profiler's `export_memory_timeline(".html")`: a picture, no data.
    ProfilerPicture,
}

impl FileKind {
    /// Whether the profiler's chart reads it rather than the snapshot loader.
    pub fn is_profiler(self) -> bool {
        matches!(self, FileKind::ProfilerTimeline | FileKind::ProfilerTrace)
    }
}

/// What `head` (a file's first bytes, [`SNIFF_HEAD`] of them or the whole
/// file) is, and whether it is gzip. Never fails: what is none of these is
/// `Pickle`, and the pickle reader says what it is instead.
pub fn sniff(head: &[u8]) -> (FileKind, bool) {
    if head.starts_with(&[0x1f, 0x8b]) {
        // As much of the decompressed start as the head holds: a truncated
        // gzip stream yields what it has, then an error, which is no answer.
        let mut out = Vec::with_capacity(SNIFF_HEAD);
        let mut gz = flate2::read::MultiGzDecoder::new(head).take(SNIFF_HEAD as u64);
        let mut buf = [0u8; 8192];
        while let Ok(n @ 1..) = gz.read(&mut buf) {
            out.extend_from_slice(&buf[..n]);
        }
        return (kind(&out), true);
    }
    (kind(head), false)
}

fn kind(text: &[u8]) -> FileKind {
    if is_profiler_html(text) {
        return FileKind::ProfilerPicture;
    }
    match profiler_sniff(text) {
        Some(ProfilerFormat::ChromeTrace) => FileKind::ProfilerTrace,
        Some(_) => FileKind::ProfilerTimeline,
        None => match text.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') | Some(b'[') => FileKind::Json,
            _ => FileKind::Pickle,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(sniff(b"\x80\x04}q\x00."), (FileKind::Pickle, false));
        assert_eq!(sniff(b" {\"segments\": []}"), (FileKind::Json, false));
        assert_eq!(sniff(b"[[1, 2], [[0, 0]]]"), (FileKind::ProfilerTimeline, false));
        assert_eq!(sniff(b"{\"schemaVersion\": 1, \"traceEvents\": ["), (FileKind::ProfilerTrace, false));
        assert_eq!(sniff(b"<html><head><title>GPU Memory Timeline</title>"), (FileKind::ProfilerPicture, false));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, b"[[0, 1], [[1, 2]]]").unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(sniff(&gz), (FileKind::ProfilerTimeline, true));
        // Only the start of the stream: still read as far as it goes.
        assert_eq!(sniff(&gz[..gz.len() - 8]), (FileKind::ProfilerTimeline, true));
    }
}
