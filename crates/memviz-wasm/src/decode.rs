//! Decoding apart from the viewer: the page's Web Worker (www/decode-worker.js)
//! runs a [`Decoder`] in its own instance of this module and hands the model
//! to the page's [`crate::Viewer`] in its binary form (`Viewer::adopt`), so
//! that a large file is decoded off the main thread.

use memviz_core::{versions, Loader, Snapshot};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A JS function called with each chunk as a Uint8Array *view* of this
    /// module's memory, valid only during the call: the caller copies it
    /// where it wants it (the worker: into buffers the page wrote ahead).
    #[wasm_bindgen(typescript_type = "(chunk: Uint8Array) => void")]
    pub type ChunkSink;

    #[wasm_bindgen(method, catch, js_name = call)]
    fn call_with(this: &ChunkSink, this_arg: &JsValue, chunk: &[u8]) -> Result<JsValue, JsValue>;
}

/// Reads one file chunk by chunk; after `finish`, `model` gives the model
/// as bytes, then `versions` its address versions, both in chunks.
#[wasm_bindgen]
pub struct Decoder {
    name: String,
    loader: Option<Loader>,
    /// The model, from `finish` on.
    snap: Option<Snapshot>,
}

#[wasm_bindgen]
impl Decoder {
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str) -> Decoder {
        Decoder { name: name.to_string(), loader: Some(Loader::new()), snap: None }
    }

    /// Says the file's size before the first chunk (`Loader::expect`): the
    /// decoder's tables then grow to what the file needs instead of by
    /// doubling, each doubling a copy in wasm.
    pub fn expect(&mut self, file_bytes: f64) {
        if let Some(l) = self.loader.as_mut() {
            l.expect(file_bytes as u64);
        }
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

    /// Panics as running out of memory does (an abort with no panic
    /// message): for the test of the page's words for it.
    pub fn debug_oom(&mut self) {
        std::alloc::handle_alloc_error(std::alloc::Layout::new::<[u8; 1 << 20]>());
    }

    /// Ends the file. A torch.profiler export is an error whose message says
    /// so, as `Viewer::finish`'s does (the page then reads it as one).
    pub fn finish(&mut self) -> Result<(), JsError> {
        let loader = self.loader.take().ok_or_else(|| JsError::new("finish twice"))?;
        let snap = loader.finish().map_err(|e| JsError::new(&format!("{}: {e}", self.name)))?;
        self.snap = Some(snap);
        Ok(())
    }

    /// After `finish`: the model in its wire form, handed to `sink` chunk by
    /// chunk (`Snapshot::wire_chunks`, for `Viewer::adopt_chunk`), each a
    /// view of this memory (see [`ChunkSink`]). The model stays: `versions` comes
    /// next, computed while the page reads these chunks.
    pub fn model(&self, sink: &ChunkSink) -> Result<(), JsError> {
        let snap = self.snap.as_ref().ok_or_else(|| JsError::new("model before finish"))?;
        self.send(sink, |out| snap.wire_chunks(out))
    }

    /// After `finish`: the model's address versions in their wire form,
    /// handed to `sink` chunk by chunk (`Versions::wire_chunks`, for
    /// `Viewer::versions_chunk`, after the file opens), each a view of this memory.
    pub fn versions(&self, sink: &ChunkSink) -> Result<(), JsError> {
        let snap = self.snap.as_ref().ok_or_else(|| JsError::new("versions before finish"))?;
        self.send(sink, |out| versions::compute(snap).wire_chunks(out))
    }

    /// Calls `sink` with a view of each chunk `write` gives; the first
    /// error it throws (after which no chunk goes out) names the file.
    fn send(&self, sink: &ChunkSink, write: impl FnOnce(&mut dyn FnMut(Vec<u8>))) -> Result<(), JsError> {
        let mut failed = None;
        write(&mut |c| {
            if failed.is_none() {
                if let Err(e) = sink.call_with(&JsValue::NULL, &c) {
                    failed = Some(e);
                }
            }
        });
        match failed {
            Some(e) => {
                Err(JsError::new(&format!("{}: {}", self.name, e.as_string().unwrap_or_else(|| format!("{e:?}")))))
            }
            None => Ok(()),
        }
    }
}
