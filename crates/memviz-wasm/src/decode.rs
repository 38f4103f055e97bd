//! Decoding apart from the viewer: the page's Web Worker (www/decode-worker.js)
//! runs a [`Decoder`] in its own instance of this module and hands the model
//! to the page's [`crate::Viewer`] in its binary form (`Viewer::adopt`), so
//! that a large file is decoded off the main thread.

use memviz_core::Loader;
use wasm_bindgen::prelude::*;

/// Reads one file chunk by chunk; `finish` gives the model as bytes.
#[wasm_bindgen]
pub struct Decoder {
    name: String,
    loader: Option<Loader>,
}

#[wasm_bindgen]
impl Decoder {
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str) -> Decoder {
        Decoder { name: name.to_string(), loader: Some(Loader::new()) }
    }

    /// Decodes the next chunk. The error names the file and the byte offset
    /// (the words of `Viewer::feed`).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), JsError> {
        let loader = self.loader.as_mut().ok_or_else(|| JsError::new("feed after finish"))?;
        let r = loader.feed(chunk);
        r.map_err(|e| {
            self.loader = None;
            JsError::new(&format!("{}: {e}", self.name))
        })
    }

    /// Panics with `msg`, as a bug would: for the test of the page's
    /// recovery from a trap in its worker (tests/e2e/worker.test.mjs).
    pub fn debug_panic(&mut self, msg: &str) {
        panic!("{msg}");
    }

    /// Ends the file: the model in its wire form (`Snapshot::to_wire`), for
    /// `Viewer::adopt`. A torch.profiler export is an error whose message
    /// says so, as `Viewer::finish`'s does (the page then reads it as one).
    pub fn finish(&mut self) -> Result<Vec<u8>, JsError> {
        let loader = self.loader.take().ok_or_else(|| JsError::new("finish twice"))?;
        let snap = loader.finish().map_err(|e| JsError::new(&format!("{}: {e}", self.name)))?;
        Ok(snap.to_wire())
    }
}
