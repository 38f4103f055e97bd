//! Snapshot model -> view data: the second half of the data path. Each view
//! reads the model and returns plain data the CLI prints and the page draws.
//!
//! - [`timeline`]: Active Memory and Active Cached Segment Timelines, and the
//!   detail limit; [`mapped`]: expandable segments' map/unmap as pieces;
//! - [`pools`]: Allocated Memory (incl. Private Pools);
//! - [`state`]: Allocator State History; [`segment_map`]: its segment map;
//! - [`search`]: search by address or frame text; [`summary`]: `memviz summary`;
//! - [`ranks`]: many files at once: ranks from file names, overview rows;
//! - [`versions`]: memory_viz's address versions (`b7f…_0`).

pub mod mapped;
pub mod phases;
pub mod pools;
pub mod ranks;
pub mod search;
pub mod segment_map;
pub mod state;
pub mod summary;
pub mod timeline;
pub mod versions;
