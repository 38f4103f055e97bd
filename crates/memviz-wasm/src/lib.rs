//! wasm API. TODO
