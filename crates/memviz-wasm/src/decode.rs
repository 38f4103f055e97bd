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
/// The same events in the shapes older PyTorch wrote (example/warm_slice.py).
const WARM_OLD: &[u8] = include_bytes!("../example/warm_old.pickle.gz");
/// Every how many warm-up rounds `warm_boundary` runs the page's whole sequence.
const FULL_ROUND: u32 = 8;

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
                warm_boundary(self.warm_rounds)?;
                self.warm_rounds += 1;
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

/// The page's own calls after it read a file (www/app.js's open, its first
/// paint and the frame after it, in that order), made through the exports'
/// JS glue on a Viewer of its own: V8 compiles each export's shim, and the
/// conversions and steps inlined into it, on its first call (a warm page's
/// first open of a 12 KB file compiled 29 wasm functions, 4.4 ms, before its
/// first paint; `Viewer::open` called from Rust compiled none of them). The
/// warm slices inflated first: a file is most often a plain pickle. The
/// older shapes' decode each round (their paths optimised too); the whole
/// sequence every [`FULL_ROUND`]th, from the first (a shim is compiled on
/// its first call; every round made the 40 rounds end 37% later).
fn warm_boundary(round: u32) -> Result<(), JsValue> {
    warm_calls(WARM_OLD, false)?;
    if round.is_multiple_of(FULL_ROUND) {
        warm_calls(WARM, true)?;
    }
    Ok(())
}

/// [`warm_boundary`]'s calls for one slice, on a Viewer of its own, freed
/// whatever they did (one model alive at a time: wasm memory never shrinks).
fn warm_calls(gz: &[u8], full: bool) -> Result<(), JsValue> {
    let w = JsValue::from(crate::Viewer::default());
    let run = warm_calls_on(&w, gz, full);
    method(&w, "free", &[])?;
    run
}

/// `obj.name(...args)` through the JS glue, as the page calls it.
fn method(obj: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: js_sys::Function = js_sys::Reflect::get(obj, &name.into())?.dyn_into()?;
    f.apply(obj, &args.iter().collect())
}

/// `full`: the page's whole sequence after its first draw too.
fn warm_calls_on(w: &JsValue, gz: &[u8], full: bool) -> Result<(), JsValue> {
    // Inflated into a JS copy, as a read hands a file to `feed` (wasm memory keeps its peak).
    let bytes = {
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(gz), &mut plain)
            .map_err(|e| error(PageError::bad_command(e.to_string())))?;
        js_sys::Uint8Array::from(&plain[..])
    };
    let call = |name: &str, args: &[JsValue]| method(w, name, args);
    let js = |s: &str| js_sys::JSON::parse(s).expect("a JSON literal");
    let canvas_of = |w: u32, h: u32| -> Result<JsValue, JsValue> {
        let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
        let c: web_sys::HtmlCanvasElement = doc.create_element("canvas")?.unchecked_into();
        c.set_width(w);
        c.set_height(h);
        Ok(c.into())
    };
    let canvas = || canvas_of(400, 160);
    let begin = serde_json::json!({"cmd": "begin", "name": "warm.pickle"}).to_string();
    call("open", &[js(&begin)])?;
    call("feed", &[bytes.into()])?;
    call("open", &[js(r#"{"cmd": "finish"}"#)])?;
    call("command", &[js(r#"{"cmd": "get"}"#)])?;
    // The minimap at a minimap's shape: 400 x 160 (a 256 KB image beside the
    // plot's) left the page's wasm memory 0.25 MB larger for good.
    let stats = call("render", &[canvas()?, canvas()?, canvas()?, canvas_of(400, 40)?])?;
    for k in ["bands_drawn", "bands_ms", "axes_ms", "columns"] {
        js_sys::Reflect::get(&stats, &k.into())?;
    }
    method(&stats, "free", &[])?;
    if !full {
        return Ok(());
    }
    let timings = r#"{"cmd": "timings", "open": {"worker": null, "decode": 1.5, "firstPaint": 2.5},
        "redraw": {"redraw_ms": 1.0, "bands_ms": 0.5, "axes_ms": 0.5, "bands_drawn": 1, "columns": 400}}"#;
    for c in [timings, r#"{"cmd": "generation"}"#, r#"{"cmd": "highlight", "node": null}"#] {
        call("panel", &[js(c)])?;
    }
    call("panel", &[js(r#"{"cmd": "marker_places", "width": 400}"#)])?;
    for c in ["what_if_overlay", "what_if_chart"] {
        let cmd = serde_json::json!({"cmd": c, "width": 400, "height": 160}).to_string();
        call("panel_draw", &[canvas()?, js(&cmd)])?;
    }
    call("ranks", &[js(r#"{"do": "overview", "file": 0}"#)])?;
    call("ranks", &[js(r#"{"do": "status", "loading": 0}"#)])?;
    call("phases", &[js(r#"{"filter": "", "internal": false, "peek": true}"#)])?;
    call("panel", &[js(r#"{"cmd": "overview"}"#)])?;
    let tick = js(r#"{"work": "analysis", "state": true}"#);
    for _ in 0..10_000 {
        let p = call("tick", std::slice::from_ref(&tick))?;
        if !js_sys::Reflect::get(&p, &"busy".into())?.is_truthy() {
            break;
        }
    }
    call("panel", &[js(r#"{"cmd": "legend"}"#)])?;
    call("phases", &[js(r#"{"filter": "", "internal": false, "peek": false}"#)])?;
    call("panel", &[js(r#"{"cmd": "findings"}"#)])?;
    call("command", &[js(r#"{"cmd": "prepare_hover"}"#)])?;
    call("generation", &[])?;
    call("file_count", &[]).map(drop)
}
