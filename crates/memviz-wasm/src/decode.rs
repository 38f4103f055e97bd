//! Decoding apart from the viewer: the page's Web Worker (www/decode-worker.js)
//! runs a [`Decoder`] in its own instance of this module and hands the model
//! to the page's [`crate::Viewer`] in its binary form (`Viewer::adopt`), so
//! that a large file is decoded off the main thread.

use memviz_core::{versions, Loader, Snapshot};
use wasm_bindgen::prelude::*;

/// Reads one file chunk by chunk; `finish` gives the model as bytes, then
/// `versions` its address versions (the page reads the model meanwhile).
#[wasm_bindgen]
pub struct Decoder {
    name: String,
    loader: Option<Loader>,
    /// The model between `finish` and `versions`.
    snap: Option<Snapshot>,
}

#[wasm_bindgen]
impl Decoder {
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str) -> Decoder {
        Decoder { name: name.to_string(), loader: Some(Loader::new()), snap: None }
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
        let wire = snap.to_wire();
        self.snap = Some(snap);
        Ok(wire)
    }

    /// After `finish`: the model's address versions in their wire form, for
    /// `Viewer::adopt_versions_from` (the model is dropped).
    pub fn versions(&mut self) -> Result<Vec<u8>, JsError> {
        let snap = self.snap.take().ok_or_else(|| JsError::new("versions before finish"))?;
        Ok(versions::compute(&snap).to_wire())
    }
}
