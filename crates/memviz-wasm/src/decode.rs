//! The open path's two exports (issue 42): `open` (a typed command) and
//! `feed` (a file's or a model's chunks). A file is read on the page
//! (`begin`, `feed`, `finish`) or by the decode worker (crates/memviz-worker),
//! whose model the page's Viewer adopts (`adopt_begin`, `adopt_chunk`, ...,
//! each step timed here): a large file is decoded off the main thread.
//! Refusals are `PageError`s (kind and offset kept); anything else is a trap.

use memviz_viewer::boundary::PageError;
use memviz_viewer::{Decoder, OpenCommand, OpenReply, WorkerTimings};
use wasm_bindgen::prelude::*;

use crate::boundary::{error, from_js, to_js};
use crate::{Viewer, EXAMPLE, EXAMPLE_NAME};

/// The idle warm-up's input: a tenth of the example (example/warm_slice.py).
/// The whole example a round left a file picked meanwhile waiting ~10 ms
/// and 6 MB more wasm memory for good.
const WARM: &[u8] = include_bytes!("../example/warm.pickle.gz");
const WARM_NAME: &str = "warm.pickle.gz";

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
            OpenCommand::Decode { name, size } => {
                self.ahead.release();
                self.decoder = Some(Decoder::new(name, size.map(|s| s as u64), None));
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
