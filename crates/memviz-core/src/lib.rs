//! memviz-core: bytes of a PyTorch CUDA memory snapshot -> a compact
//! [`model::Snapshot`] -> the data memory_viz's views draw.
//!
//! The data path is one way, and the folders follow it: [`decode`] (pickle /
//! JSON / gzip, [`load`] and [`Loader`]) builds the [`model`] (and says in
//! [`model::Snapshot::warnings`] what it left out); [`views`]
//! (timeline, pools, state, segment_map, search, summary) compute view data
//! from it; [`format`](mod@format) turns pieces of it into the text
//! memory_viz shows; [`analysis`] explains the memory (what is alive at any
//! moment and what it is, the OOMs, the peak, the leaks).

pub mod analysis;
// The decoder's machinery (pickle machine, arena, records) is ours: users
// read snapshots through `load` and `Loader`.
pub(crate) mod decode;
pub mod error;
pub mod format;
mod intervals;
pub mod model;
pub mod radix;
pub mod views;
// The model as bytes and back (`Snapshot::to_wire`, `from_wire`): the page moves a snapshot decoded in its worker.
mod wire;
pub use wire::{VersionsReader, WireReader};

// The modules by their short names: `memviz_core::timeline`, `crate::pickle`.
pub(crate) use decode::{annotations, json, loader, pickle, problems};
// torch.profiler memory exports: read by the CLI and the page, so public.
pub use decode::profiler;
// What a file is, from its first bytes (the page routes a file on it once).
pub use decode::sniff;
pub use views::{mapped, phases, pools, ranks, search, segment_map, state, summary, timeline, versions};

pub use error::{Error, ErrorKind, Result};
pub use model::Snapshot;

/// Reads a whole snapshot from memory: a pickle (protocol 2 to 5), JSON, or
/// either of them gzip-compressed.
pub fn load(bytes: &[u8]) -> Result<Snapshot> {
    // The loader decides the format without copying the chunk, so one
    // chunk costs no second copy of the file.
    let mut loader = Loader::new();
    loader.expect(bytes.len() as u64);
    loader.feed(bytes)?;
    loader.finish()
}

pub use loader::{Loaded, Loader, MAX_SNAPSHOT_BYTES};

/// Like [`load`], but a torch.profiler memory export (memory timeline, raw
/// timeline, Chrome trace with `[memory]` events) comes back as what it is
/// instead of an error.
pub fn load_any(bytes: &[u8]) -> Result<Loaded> {
    let mut loader = Loader::new();
    loader.expect(bytes.len() as u64);
    loader.feed(bytes)?;
    loader.finish_any()
}

#[cfg(test)]
mod tests {
    /// Leading blanks before JSON, tiny and empty inputs decide the format
    /// as they should.
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
