//! JSON snapshots. TODO(decoder): implement.
