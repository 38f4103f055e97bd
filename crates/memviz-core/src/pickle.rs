//! Pickle decoder. TODO(decoder): implement.
