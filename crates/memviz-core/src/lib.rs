//! memviz-core: bytes of a PyTorch CUDA memory snapshot -> a compact
//! [`model::Snapshot`] -> the data memory_viz's views draw.
//!
//! The data path is one way: [`load`] (pickle / JSON / gzip) builds the model;
//! [`timeline`], [`pools`], [`state`], [`segment_map`], [`search`] and
//! [`summary`] compute views from it; [`format`](mod@format)
//! turns pieces of it into the text memory_viz shows.

pub mod build;
pub mod error;
pub mod format;
pub mod json;
pub mod model;
pub mod pickle;
pub mod pools;
pub mod search;
pub mod segment_map;
pub mod state;
pub mod summary;
pub mod timeline;
pub mod versions;

pub use error::{Error, ErrorKind, Result};
pub use model::Snapshot;

/// Reads a whole snapshot from memory: a pickle (protocol 2 to 5), JSON, or
/// either of them gzip-compressed.
pub fn load(bytes: &[u8]) -> Result<Snapshot> {
    let mut loader = Loader::new();
    // The loader buffers its first chunk until it has picked the format, so
    // feed just the bytes that decide it (through the first non-blank one,
    // at least 2 for the gzip magic) first: one chunk would be copied whole,
    // doubling the peak memory on a large file. Gzip goes in one chunk: the
    // loader picks the inner format from the first decompressed bytes and
    // does not retry when a chunk yields none.
    let head = if bytes.starts_with(&[0x1f, 0x8b]) {
        bytes.len()
    } else {
        bytes.iter().position(|b| !b.is_ascii_whitespace()).map_or(bytes.len(), |p| (p + 1).max(2))
    };
    let (head, rest) = bytes.split_at(head.min(bytes.len()));
    loader.feed(head)?;
    loader.feed(rest)?;
    loader.finish()
}

pub use build::Loader;

#[cfg(test)]
mod tests {
    /// `load` feeds the format-deciding head apart from the rest: leading
    /// blanks before JSON, tiny and empty inputs still decide as one chunk would.
    #[test]
    fn load_splits_the_head_without_changing_the_result() {
        let json = r#"{"segments": [], "device_traces": [[{"action": "alloc", "addr": 4096, "size": 512, "stream": 0, "frames": []}]]}"#;
        let plain = super::load(json.as_bytes()).unwrap();
        let blank = super::load(format!(" \n\t {json}").as_bytes()).unwrap();
        assert_eq!(plain.traces.len(), 1);
        assert_eq!(blank.traces[0].size, plain.traces[0].size);
        assert_eq!(blank.traces[0].addr_lo, vec![4096]);
        for bad in [&b""[..], b" ", b"\x80", b"  \n"] {
            assert!(super::load(bad).is_err(), "{bad:?}");
        }
    }
}
