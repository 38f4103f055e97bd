//! Bytes -> [`Snapshot`](crate::model::Snapshot): the first half of the data
//! path. [`loader`] takes chunks and picks the format (pickle, JSON, gzip of
//! either); [`pickle`] and [`json`] decode into one arena of values, trace
//! events straight into columns; the loader then builds the model from them,
//! naming what it leaves out ([`problems`]) and linking each `annotate` event
//! to its allocation ([`annotations`]).

pub mod annotations;
pub mod fast_hash;
pub mod json;
pub mod loader;
pub mod pickle;
pub mod problems;
pub mod profiler;
pub mod sniff;
