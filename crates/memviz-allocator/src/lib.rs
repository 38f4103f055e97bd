//! memviz-allocator: a model of PyTorch's native CUDA caching allocator
//! (`c10/cuda/CUDACachingAllocator.cpp`, PyTorch 2.x) that replays a
//! snapshot's recorded trace under other allocator settings.
//!
//! - [`settings`][]: [`Settings`], read from `allocator_settings` and set by
//!   `KEY:VALUE` in PyTorch's spelling.
//! - [`cache`][]: [`Cache`], the allocator (rounding, small and large pools
//!   per stream, best fit, splitting, coalescing, oversize blocks, private
//!   pools, expandable segments, the releases when the device refuses,
//!   garbage collection, `empty_cache`), whose device calls come out as
//!   [`SegmentEvent`]s.
//! - [`replay`][]: [`Recording`] (the trace and the state at its first event)
//!   and [`Replay`] (the trace through a model, in steps: the self-check
//!   against the recording, or a prediction).
//! - [`whatif`][]: [`WhatIf`]: the capacity the trace shows, predictions, the
//!   capacity a setting needs, the sweep, `memviz whatif`'s JSON and text.
//!
//! ```no_run
//! use memviz_allocator::{Settings, WhatIf};
//! let snap = memviz_core::load(&std::fs::read("snapshot.pickle").unwrap()).unwrap();
//! let w = WhatIf::new(&snap, 0, None).unwrap();
//! assert!(w.self_check().exact);
//! let mut s = w.recording.settings.clone();
//! s.set("expandable_segments:True").unwrap();
//! let p = w.predict(s);
//! println!("{}", w.to_text(&p));
//! // Or a slice at a time (the page): w.replay(settings).step(50_000) until true.
//! ```

pub mod cache;
pub mod replay;
pub mod settings;
pub mod whatif;

pub use cache::{Cache, Limit, Oom, Piece, PoolId, SegmentAction, SegmentEvent};
pub use replay::{Divergence, Outcome, Paused, RecordedOom, Recording, Replay, ReplayOom, SelfCheck};
pub use settings::Settings;
pub use whatif::{Capacity, CapacitySearch, CapacitySource, PausedSearch, Prediction, WhatIf, ASSUMPTION, SWEEP};
