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
    loader.feed(bytes)?;
    loader.finish()
}

pub use build::Loader;
