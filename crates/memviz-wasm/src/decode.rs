//! The open path's three exports (issue 42): `open` (a typed command),
//! `feed` (a file's or a model's chunks), `send` (a worker's model out). A
//! file is read on the page (`begin`, `feed`, `finish`) or in the page's
//! Web Worker (www/decode-worker.js: `decode`, `feed`, `decode_finish`,
//! `send`), whose model the page's Viewer adopts (`adopt_begin`,
//! `adopt_chunk`, ..., each step timed here): a large file is decoded off
//! the main thread. Refusals are `PageError`s (kind and offset kept);
//! anything else is a trap.

use memviz_core::{versions, Loader, Snapshot};
use memviz_viewer::boundary::{ErrorKind, PageError};
use memviz_viewer::{OpenCommand, OpenReply, WorkerTimings};
use wasm_bindgen::prelude::*;

use crate::boundary::{error, from_js, to_js};
use crate::{Viewer, EXAMPLE, EXAMPLE_NAME};

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

/// The idle warm-up's input: a tenth of the example (example/warm_slice.py).
/// The whole example a round left a file picked meanwhile waiting ~10 ms
/// and 6 MB more wasm memory for good.
const WARM: &[u8] = include_bytes!("../example/warm.pickle.gz");
const WARM_NAME: &str = "warm.pickle.gz";

/// The bytes after which a decode's `debug` takes effect (its first progress step).
const DEBUG_AFTER: u64 = memviz_viewer::CHUNK;

/// One file read chunk by chunk for elsewhere: after `finish`, the model
/// and then its address versions go out as bytes, in chunks.
pub(crate) struct Decoder {
    name: String,
    loader: Option<Loader>,
    /// The model, from `finish` on.
    snap: Option<Snapshot>,
    /// For the tests of the recovery from a trap: "oom" aborts as running
    /// out of memory does, another text panics with it, after DEBUG_AFTER bytes.
    debug: Option<String>,
    fed: u64,
}

impl Decoder {
    fn feed(&mut self, chunk: &[u8]) -> Result<(), PageError> {
        let loader = self.loader.as_mut().ok_or_else(|| PageError::bad_command("feed after finish"))?;
        if let Err(e) = loader.feed(chunk) {
            self.loader = None;
            return Err(PageError::decode(&self.name, &e));
        }
        self.fed += chunk.len() as u64;
        match self.debug.as_deref() {
            Some("oom") if self.fed >= DEBUG_AFTER => {
                std::alloc::handle_alloc_error(std::alloc::Layout::new::<[u8; 1 << 20]>())
            }
            Some(msg) if self.fed >= DEBUG_AFTER => panic!("{msg}"),
            _ => Ok(()),
        }
    }

    fn finish(&mut self) -> Result<(), PageError> {
        let loader = self.loader.take().ok_or_else(|| PageError::bad_command("finish twice"))?;
        self.snap = Some(loader.finish().map_err(|e| PageError::decode(&self.name, &e))?);
        Ok(())
    }
}

/// Calls `sink` with a view of each chunk `write` gives; the first error
/// it throws (after which no chunk goes out) is thrown on.
fn send(sink: &ChunkSink, write: impl FnOnce(&mut dyn FnMut(Vec<u8>))) -> Result<(), JsValue> {
    let mut failed = None;
    write(&mut |c| {
        if failed.is_none() {
            failed = sink.call_with(&JsValue::NULL, &c).err();
        }
    });
    failed.map_or(Ok(()), Err)
}

#[wasm_bindgen]
impl Viewer {
    /// One step of opening a file (an `OpenCommand`; `sniff`, `adopt_chunk`
    /// and `versions_chunk` with their `bytes`): its `OpenReply`. Throws a `PageError`.
    pub fn open(&mut self, cmd: JsValue, bytes: Option<Vec<u8>>) -> Result<JsValue, JsValue> {
        let t0 = crate::now_ms();
        let mut reply = OpenReply::default();
        let bytes = || bytes.ok_or_else(|| error(PageError::bad_command("the command's bytes are missing")));
        let cmd = from_js::<OpenCommand>(&cmd)?;
        let step = cmd.adopt_step();
        match cmd {
            OpenCommand::Sniff => reply.sniff = Some(memviz_viewer::sniff(&bytes()?)),
            OpenCommand::AdoptChunk => self.inner.adopt_chunk(&bytes()?).map_err(error)?,
            OpenCommand::VersionsChunk { file } => self.inner.versions_chunk(file, &bytes()?).map_err(error)?,
            OpenCommand::Decode { name, size, debug } => {
                let mut loader = Loader::new();
                if let Some(size) = size {
                    loader.expect(size as u64);
                }
                self.ahead.release();
                self.decoder = Some(Decoder { name, loader: Some(loader), snap: None, debug, fed: 0 });
            }
            OpenCommand::DecodeFinish => {
                let d = self.decoder.as_mut().ok_or_else(|| error(PageError::bad_command("no decode")))?;
                d.finish().map_err(error)?;
            }
            OpenCommand::Example => reply.file = Some(self.inner.open(EXAMPLE_NAME, EXAMPLE).map_err(error)?),
            OpenCommand::Warm => {
                memviz_viewer::warm_up(WARM_NAME, WARM).map_err(error)?;
                warm_boundary()?;
            }
            OpenCommand::Ahead { plan, file_bytes } => {
                reply.done = self.ahead.step(plan, file_bytes).map_err(error)?;
                reply.written = Some(self.ahead.written());
            }
            OpenCommand::DebugPanic { message } => panic!("{message}"),
            cmd => {
                if let OpenCommand::AdoptBegin { read_ms, .. } = cmd {
                    self.ahead.release();
                    self.adopted = WorkerTimings::new(read_ms);
                }
                reply = self.inner.open_command(cmd).map_err(error)?;
            }
        }
        if let Some(step) = step {
            self.adopted.add(step, crate::now_ms() - t0);
            reply.worker = Some(self.adopted.clone());
        }
        reply.generation = self.inner.generation();
        Ok(to_js(&reply))
    }

    /// The next chunk of what is being read: a file (after `begin` or
    /// `decode`; a model decoded elsewhere comes by `adopt_chunk`).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        match self.decoder.as_mut() {
            Some(d) => d.feed(bytes),
            None => self.inner.feed_any(bytes),
        }
        .map_err(error)
    }

    /// After `decode_finish` (in the worker): the model's wire form
    /// (`Snapshot::wire_chunks`), or with `versions` its address versions',
    /// handed to `sink` chunk by chunk, each a view of this memory (see
    /// [`ChunkSink`]).
    pub fn send(&mut self, sink: &ChunkSink, versions: bool) -> Result<(), JsValue> {
        let snap = self.decoder.as_ref().and_then(|d| d.snap.as_ref());
        let snap = snap.ok_or_else(|| error(PageError::new(ErrorKind::BadCommand, "send before decode_finish")))?;
        if versions {
            send(sink, |out| versions::compute(snap).wire_chunks(out))
        } else {
            send(sink, |out| snap.wire_chunks(out))
        }
    }
}

/// The exports' own conversions (commands read from JS objects, view models
/// made into them: serde-wasm-bindgen's code for each type, compiled by V8
/// on first use) for what an open asks first: without this, the first page
/// view after a file cost 11-12 ms in ctx128's open, the later ones 0.3 ms.
fn warm_boundary() -> Result<(), JsValue> {
    let mut w = crate::Viewer::default();
    w.inner.open(WARM_NAME, WARM).map_err(error)?;
    let js = |s: &str| js_sys::JSON::parse(s).expect("a JSON literal");
    for c in [r#"{"cmd": "get"}"#, r#"{"cmd": "numbers"}"#, r#"{"cmd": "x_of_step", "step": 1}"#] {
        w.command(js(c))?;
    }
    for c in [r#"{"cmd": "generation"}"#, r#"{"cmd": "overview"}"#, r#"{"cmd": "findings"}"#] {
        w.panel(js(c))?;
    }
    w.ranks(js(r#"{"do": "overview", "file": 0}"#))?;
    w.phases(js(r#"{"filter": ""}"#))?;
    // What panel_draw does short of the canvas (whatif.js asks for the
    // overlay on every draw: its first call cost 6-8 ms in a file's first
    // listeners).
    let cmd = from_js(&js(r#"{"cmd": "what_if_overlay", "width": 400, "height": 160}"#))?;
    to_js(&w.at_dpr().panel_draw(cmd, 6.6).map_err(error)?.1);
    // A render on small canvases of its own, the axes with it (plotters through
    // plotters-canvas, outside warm_up's pixels): their first draw cost
    // 10-22 ms of a file's first paint, the later ones 1-3 ms.
    if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
        let canvas = || -> Result<web_sys::HtmlCanvasElement, JsValue> {
            let c: web_sys::HtmlCanvasElement = doc.create_element("canvas")?.unchecked_into();
            c.set_width(200);
            c.set_height(100);
            Ok(c)
        };
        w.render(&canvas()?, &canvas()?, &canvas()?, &canvas()?)?;
    }
    Ok(())
}
