//! `memviz summary`: per-device numbers. TODO(views helper): implement.
