//! The page's decode worker (docs/open.md): a large file read and decoded in
//! a Web Worker, off the page's thread; the model's wire form sent to the
//! page in the buffers the page wrote ahead, then its address versions once
//! the page has painted. Both sides of its protocol: the worker's here
//! ([`decode_worker`]: www/decode-worker.js starts a worker of the same wasm
//! module and hands it its messages; a trap, a panic or out of memory, ends
//! the module's calls, so that script reports it), the page's in [`page`]
//! ([`decode_workers`]). The page's open of a file, read on the page or in
//! a worker, is `open.rs`; [`read`] is both threads' read of a file.
//!
//! Messages in: `{pool: [ArrayBuffer]}`, `{ahead: true}`, `{file, debug}`,
//! `{versionsNow: true}`. Out: `{aheadWritten}` or `{aheadFailed}`,
//! `{progress}` each CHUNK read, `{decoded, readMs}`, `{chunk, parts}`
//! (several of the model's chunks to a buffer, moved once full: `parts` their
//! offsets and lengths), `{modelEnd}`, `{versions, finishMs, memory,
//! pooled}`; or `{error}` (a `PageError`, or the browser's refusal to read).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Function, Object, Promise, Reflect, Uint8Array};
use memviz_viewer::boundary::PageError;
use memviz_viewer::{AheadPlan, Decoder, MemoryAhead, CHUNK, FEED};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{DedicatedWorkerGlobalScope, File, MessageEvent};

mod open;
pub mod page;
pub use page::decode_workers;

/// The stream's one reused buffer, at most.
const READ_BUFFER: f64 = (4 << 20) as f64;

thread_local! {
    /// A promise's rejection let go of (one closure for the thread's life, not one a call).
    static IGNORE: Closure<dyn FnMut(JsValue)> = Closure::new(|_| {});
    /// The next read's buffer, taken while the user picks a file and kept
    /// after a read: allocated during an open, its external memory set off a
    /// major GC of V8 there (docs/open.md "Memory written ahead").
    static READ_AHEAD: RefCell<Option<ArrayBuffer>> = const { RefCell::new(None) };
}

/// This thread's next read buffer, allocated and written now (the page or
/// the worker is idle): see [`READ_AHEAD`].
pub(crate) fn read_buffer_ahead() {
    READ_AHEAD.with(|r| {
        let mut r = r.borrow_mut();
        if r.is_none() {
            let b = ArrayBuffer::new(READ_BUFFER as u32);
            Uint8Array::new(&b).fill(0, 0, READ_BUFFER as u32); // its pages committed now
            *r = Some(b);
        }
    });
}

/// A read's buffer: the one taken ahead, else one of `size` (at most READ_BUFFER).
fn read_buffer(size: f64) -> ArrayBuffer {
    READ_AHEAD.with(|r| r.borrow_mut().take()).unwrap_or_else(|| ArrayBuffer::new(size.clamp(1.0, READ_BUFFER) as u32))
}

/// Keeps a full-sized buffer a read is done with for the next read.
fn keep_read_buffer(b: ArrayBuffer) {
    if b.byte_length() as f64 >= READ_BUFFER {
        READ_AHEAD.with(|r| {
            r.borrow_mut().get_or_insert(b);
        });
    }
}

#[derive(Default)]
struct Worker {
    /// Buffers the page wrote ahead, for the model's chunks.
    pool: RefCell<Vec<ArrayBuffer>>,
    /// The decoder's memory, written ahead while the user picks a file.
    ahead: RefCell<MemoryAhead>,
    writing_ahead: Cell<bool>,
    /// Resolves the wait for the page's paint (`versionsNow`).
    versions_now: RefCell<Option<Function>>,
}

/// Takes the worker's messages from now on; `early`: those that came while
/// the module loaded.
#[wasm_bindgen]
pub fn decode_worker(early: Array) {
    let w = Rc::new(Worker::default());
    let on = {
        let w = w.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| message(&w, e.data()))
    };
    scope().set_onmessage(Some(on.as_ref().unchecked_ref()));
    on.forget(); // the worker's for its life
    for m in early.iter() {
        message(&w, m);
    }
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// The clock of the thread it runs on (a worker's or the page's).
fn now() -> f64 {
    get(&js_sys::global(), "performance").unchecked_into::<web_sys::Performance>().now()
}

fn get(o: &JsValue, key: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A plain object of `fields`.
fn object(fields: &[(&str, JsValue)]) -> Object {
    let m = Object::new();
    for (k, v) in fields {
        let _ = Reflect::set(&m, &JsValue::from_str(k), v); // a fresh plain object
    }
    m
}

/// A message of `fields` to the page, moving `transfer`'s buffers.
fn post(fields: &[(&str, JsValue)], transfer: &Array) {
    if let Err(e) = scope().post_message_with_transfer(&object(fields), transfer) {
        web_sys::console::error_2(&"memviz: the decode worker could not post".into(), &e);
    }
}

fn message(w: &Rc<Worker>, m: JsValue) {
    if let Some(pool) = get(&m, "pool").dyn_ref::<Array>() {
        w.pool.borrow_mut().extend(pool.iter().map(|b| b.unchecked_into::<ArrayBuffer>()));
    } else if get(&m, "versionsNow").is_truthy() {
        let resolve = w.versions_now.borrow_mut().take();
        if let Some(f) = resolve {
            let _ = f.call0(&JsValue::NULL);
        }
    } else if get(&m, "ahead").is_truthy() {
        if !w.writing_ahead.replace(true) {
            spawn_local(write_ahead(w.clone()));
        }
    } else if let Ok(file) = get(&m, "file").dyn_into::<File>() {
        spawn_local(decode(w.clone(), file, get(&m, "debug").as_string()));
    }
}

/// The next task (a file's message is taken between two).
async fn next_task() {
    let p = Promise::new(&mut |resolve, _| {
        let _ = scope().set_timeout_with_callback(&resolve);
    });
    let _ = JsFuture::from(p).await;
}

/// The memory a decode takes, a step a task until written or a file comes.
async fn write_ahead(w: Rc<Worker>) {
    read_buffer_ahead();
    loop {
        let step = w.ahead.borrow_mut().step(AheadPlan::Decode, 0);
        match step {
            Ok(true) => break,
            Ok(false) => next_task().await,
            Err(e) => return post(&[("aheadFailed", e.message.into())], &Array::new()), // the page ends this worker
        }
        if !w.writing_ahead.get() {
            return;
        }
    }
    post(&[("aheadWritten", (w.ahead.borrow().written() as f64).into())], &Array::new());
}

async fn decode(w: Rc<Worker>, file: File, debug: Option<String>) {
    let start = now();
    w.writing_ahead.set(false);
    w.ahead.borrow_mut().release();
    let out = read_and_send(&w, &file, debug, start).await;
    w.pool.borrow_mut().clear();
    if let Err(e) = out {
        post(&[("error", e)], &Array::new());
    }
}

/// A refusal as the page's `PageError` object.
pub(crate) fn page_error(e: PageError) -> JsValue {
    to_js(&e).unwrap_or_else(|_| e.message.into())
}

/// `v` as the page's object (through JSON, as the Viewer's boundary takes them).
pub(crate) fn to_js(v: &impl serde::Serialize) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(v).map_err(|e| js_sys::Error::new(&e.to_string()))?;
    js_sys::JSON::parse(&text)
}

async fn read_and_send(w: &Worker, file: &File, debug: Option<String>, start: f64) -> Result<(), JsValue> {
    let mut d = Decoder::new(file.name(), Some(file.size() as u64), debug);
    let progress = async |read: u64| {
        post(&[("progress", (read as f64).into())], &Array::new());
        Ok(())
    };
    read(file, feed_decoder(&mut d), progress).await.map_err(|e| match e {
        Read::Refused(e) => page_error(e),
        // Not the file's bytes (no kind): the page words it as a refused read.
        Read::Browser(e) => {
            let why = get(&e, "message").as_string().unwrap_or_else(|| format!("{e:?}"));
            object(&[("message", format!("{}: {why}", file.name()).into())]).into()
        }
    })?;
    let t0 = now();
    d.finish().map_err(page_error)?;
    post(&[("decoded", true.into()), ("readMs", (t0 - start).into())], &Array::new());
    // A read whose bytes were all there runs in one task: the page's buffers sent meanwhile
    // (`{pool}`) are taken in a task of their own before the chunks are written.
    next_task().await;
    let snap = d.snapshot().ok_or_else(|| page_error(PageError::bad_command("no model")))?;
    let mut out = Chunks { pool: std::mem::take(&mut *w.pool.borrow_mut()), ..Chunks::default() };
    snap.wire_chunks(&mut |c: Vec<u8>| out.push(&c));
    out.flush();
    post(&[("modelEnd", true.into())], &Array::new());

    // The address versions, once the page has painted the file.
    JsFuture::from(Promise::new(&mut |resolve, _| *w.versions_now.borrow_mut() = Some(resolve))).await?;
    let versions = Array::new();
    memviz_core::versions::compute(snap).wire_chunks(&mut |c: Vec<u8>| {
        versions.push(&Uint8Array::from(&c[..]).buffer());
    });
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    let memory = memory.buffer().unchecked_into::<ArrayBuffer>().byte_length();
    let fields = [
        ("versions", versions.clone().into()),
        ("finishMs", (now() - t0).into()),
        ("memory", memory.into()),
        ("pooled", out.pooled.into()),
    ];
    post(&fields, &versions);
    Ok(())
}

/// Why [`read`] stopped.
pub enum Read {
    /// The decoder's: the file's bytes.
    Refused(PageError),
    /// The browser's: the file could not be read.
    Browser(JsValue),
}

/// Feeds `file` to `feed` as its stream reads it, FEED bytes a call (views
/// of the stream's buffer, valid during the call), one reused "byob" buffer
/// where the browser can; awaits `step(bytes read)` each CHUNK and at the
/// end, which is the file's size (the stream then cancelled). The worker
/// feeds its `Decoder` ([`feed_decoder`]), the page its Viewer (crate::open).
pub async fn read(
    file: &File,
    mut feed: impl FnMut(&Uint8Array) -> Result<(), Read>,
    mut step: impl AsyncFnMut(u64) -> Result<(), Read>,
) -> Result<(), Read> {
    let stream = file.stream();
    let get_reader: Function = get(&stream, "getReader").unchecked_into();
    let byob = object(&[("mode", "byob".into())]);
    let (reader, mut buf) = match get_reader.call1(&stream, &byob) {
        Ok(r) => (r, Some(read_buffer(file.size()))),
        Err(_) => (get_reader.call0(&stream).map_err(Read::Browser)?, None),
    };
    let size = file.size() as u64;
    let (mut read, mut shown) = (0u64, 0u64);
    let fed = async {
        let next: Function = get(&reader, "read").unchecked_into();
        loop {
            let p = match &buf {
                Some(b) => next.call1(&reader, &Uint8Array::new(b)),
                None => next.call0(&reader),
            };
            let r = JsFuture::from(Promise::from(p.map_err(Read::Browser)?)).await.map_err(Read::Browser)?;
            let value = get(&r, "value").dyn_into::<Uint8Array>();
            if get(&r, "done").is_truthy() {
                if let (Some(_), Ok(v)) = (&buf, value) {
                    keep_read_buffer(v.buffer()); // a byob read's end hands the buffer back
                }
                return Ok(false);
            }
            let value = value.map_err(Read::Browser)?;
            let n = value.length();
            for at in (0..n).step_by(FEED) {
                feed(&value.subarray(at, (at + FEED as u32).min(n)))?;
            }
            read += n as u64;
            if buf.is_some() {
                buf = Some(value.buffer());
            }
            if read - shown >= CHUNK || read >= size {
                shown = read;
                step(read).await?;
            }
            if read >= size {
                // Every byte of the file's snapshot: the stream's end is one more message from the
                // browser, 0.2-1.5 ms after the last bytes (sixteenth session), not waited for.
                if let Some(b) = buf.take() {
                    keep_read_buffer(b);
                }
                return Ok(true);
            }
        }
    };
    // Ok(true): read to the file's size, the stream not at its end yet: cancelled, as after an error.
    let out = fed.await;
    if !matches!(out, Ok(false)) {
        if let Ok(cancel) = get(&reader, "cancel").dyn_into::<Function>() {
            if let Ok(p) = cancel.call0(&reader) {
                let _ = IGNORE.with(|ignore| Promise::from(p).catch(ignore)); // a refused cancel is no error
            }
        }
    }
    out.map(|_| ())
}

/// A `read` feed into `d`, through one reused piece of this module's memory.
pub fn feed_decoder(d: &mut Decoder) -> impl FnMut(&Uint8Array) -> Result<(), Read> + '_ {
    let mut piece = vec![0; FEED];
    move |bytes: &Uint8Array| {
        let k = bytes.length() as usize;
        bytes.copy_to(&mut piece[..k]);
        d.feed(&piece[..k]).map_err(Read::Refused)
    }
}

/// The model's chunks into buffers: several to a buffer (one of the page's
/// pool where one is large enough, else a fresh one), each moved once full.
#[derive(Default)]
struct Chunks {
    pool: Vec<ArrayBuffer>,
    buf: Option<ArrayBuffer>,
    used: u32,
    parts: Vec<u32>,
    pooled: u32,
}

impl Chunks {
    fn push(&mut self, c: &[u8]) {
        let len = c.len() as u32;
        if self.buf.as_ref().is_some_and(|b| self.used + len > b.byte_length()) {
            self.flush();
        }
        if self.buf.is_none() && self.pool.last().is_some_and(|b| b.byte_length() >= len) {
            self.buf = self.pool.pop();
            self.pooled += 1;
        }
        let buf = self.buf.get_or_insert_with(|| ArrayBuffer::new(len));
        Uint8Array::new_with_byte_offset_and_length(buf, self.used, len).copy_from(c);
        self.parts.extend([self.used, len]);
        self.used += len;
    }

    fn flush(&mut self) {
        if let Some(buf) = self.buf.take() {
            let parts: Array = self.parts.iter().map(|&x| JsValue::from(x)).collect();
            post(&[("chunk", buf.clone().into()), ("parts", parts.into())], &Array::of1(&buf));
        }
        (self.used, self.parts) = (0, Vec::new());
    }
}
