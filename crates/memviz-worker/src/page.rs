//! The page's side of the decode worker's protocol (docs/open.md): a worker
//! spawned ahead while the page is idle, its decoder's memory written while
//! the user picks a file, then a file's decode: its progress, the model's
//! chunks as promises the open path awaits, the address versions once the
//! page painted, the worker kept for the next file or ended.
//!
//! A trap on the page ends this instance's calls, so what outlives it is
//! lent by the page (www/decode-worker.js `host`): it spawns the workers and
//! makes the promises, keeps both, and ends them when the page restarts.
//! Nothing here runs from a promise's reaction: only the workers' events and
//! one timer, whose calls the page's `error` listener sees trap.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use js_sys::{Array, ArrayBuffer, Function, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, File, MessageEvent, Worker};

use crate::{get, object};

/// A worker that decoded a file under this is kept for the next one; a
/// larger one is ended once the page settled (its memory's unmapping held
/// up the page's own memory changes: docs/open.md).
const KEEP_BELOW: f64 = (32 << 20) as f64;
/// A file expected (`expectFile`) and none come in this long: the memory
/// written ahead is let go.
const AHEAD_WAIT_MS: i32 = 60_000;

#[wasm_bindgen]
extern "C" {
    /// What the page lends (www/decode-worker.js `host`).
    #[derive(Clone)]
    pub type Host;
    /// A started worker (its module posted), or null where none can run.
    #[wasm_bindgen(method)]
    fn spawn(this: &Host) -> JsValue;
    #[wasm_bindgen(method)]
    fn end(this: &Host, worker: &Worker);
    /// A promise with its `ok` / `no`; a rejection nobody awaits is no error.
    #[wasm_bindgen(method)]
    pub(crate) fn deferred(this: &Host) -> Deferred;
    /// A failed open's error (files.rs `OpenFailure` words it).
    #[wasm_bindgen(method)]
    pub(crate) fn failed(this: &Host, name: &str, failure: &str, detail: &str) -> JsValue;
    /// What the page's code called from here threw: a trap restarts the
    /// page (app.js `crashed`), anything else is logged.
    #[wasm_bindgen(method)]
    fn tell(this: &Host, error: &JsValue);
    /// Resolves in the next task (the page's message hop).
    #[wasm_bindgen(method, js_name = nextTask)]
    pub(crate) fn next_task(this: &Host) -> js_sys::Promise;
    /// Resolves after the next frame is painted.
    #[wasm_bindgen(method, js_name = afterPaint)]
    pub(crate) fn after_paint(this: &Host) -> js_sys::Promise;

    #[derive(Clone)]
    pub(crate) type Deferred;
    #[wasm_bindgen(method)]
    pub(crate) fn ok(this: &Deferred, value: &JsValue);
    #[wasm_bindgen(method)]
    pub(crate) fn no(this: &Deferred, error: &JsValue);
}

impl Host {
    /// Calls the page's `f` with `args`; what it throws goes to `tell`.
    pub(crate) fn call(&self, f: &Function, args: &[JsValue]) {
        if let Err(e) = f.apply(&JsValue::NULL, &args.iter().collect::<Array>()) {
            self.tell(&e);
        }
    }

    /// A trap (the page's Viewer called from here trapped) goes to `tell`:
    /// whether `e` was one.
    pub(crate) fn trapped(&self, e: &JsValue) -> bool {
        let trap = e.is_instance_of::<js_sys::WebAssembly::RuntimeError>();
        if trap {
            self.tell(e);
        }
        trap
    }
}

/// A method of [`decode_workers`]' object: its arguments, its result.
type Method = fn(&Rc<Page>, JsValue, JsValue, JsValue) -> JsValue;

/// The page's decode workers and open path, for `host`'s page:
/// `{prewarm, expectFile, noFile, decode, open, warm, debugNext}`, each a method
/// of [`Page`] (`open`: crate::open).
#[wasm_bindgen]
pub fn decode_workers(host: Host) -> Object {
    let p = Rc::new(Page { host, spare: RefCell::default(), timer: Cell::new(0), debug: RefCell::default() });
    let on = |f: Method| {
        let p = p.clone();
        Closure::<dyn Fn(JsValue, JsValue, JsValue) -> JsValue>::new(move |a, b, c| f(&p, a, b, c)).into_js_value()
    };
    object(&[
        ("prewarm", on(|p, _, _, _| p.prewarm().into())),
        ("expectFile", on(|p, f, _, _| p.expect_file(f.dyn_into().ok()).into())),
        ("noFile", on(|p, later, _, _| p.no_file(later.dyn_into().ok()).into())),
        ("decode", on(|p, file, progress, _| p.decode(file, progress))),
        ("open", on(|p, viewer, file, ui| p.open_file(viewer, file, ui))),
        ("warm", on(|p, _, _, _| p.warm())),
        ("debugNext", on(|p, why, _, _| p.debug.replace(why.as_string()).is_some().into())),
    ])
}

pub(crate) struct Page {
    pub(crate) host: Host,
    /// The worker spawned ahead, for the next file.
    spare: RefCell<Option<Rc<Spawned>>>,
    /// The wait for a file expected (`expectFile`).
    timer: Cell<i32>,
    /// The next decode's panic (or "oom"), for the tests of a trap's recovery.
    debug: RefCell<Option<String>>,
}

#[derive(PartialEq)]
enum Start {
    Starting,
    Ready,
    Failed(String),
}

/// A worker and what it does now.
struct Spawned {
    worker: Worker,
    start: RefCell<Start>,
    /// Writing (or wrote) its decoder's memory ahead: not kept as the spare after a file.
    ahead: Cell<bool>,
    on_ahead: RefCell<Option<Function>>,
    job: RefCell<Option<Rc<Job>>>,
}

/// A file's decode in a worker.
pub(crate) struct Job {
    page: Weak<Page>,
    host: Host,
    w: Rc<Spawned>,
    file: File,
    on_progress: Function,
    debug: Option<String>,
    over: Cell<bool>,
    done: Deferred,
    info: Deferred,
    /// The chunks not taken yet, the last the one to come.
    chunks: RefCell<VecDeque<Rc<Deferred>>>,
    last: RefCell<Rc<Deferred>>,
}

fn window() -> web_sys::Window {
    js_sys::global().unchecked_into()
}

fn post(w: &Worker, fields: &[(&str, JsValue)], transfer: &Array) {
    if let Err(e) = w.post_message_with_transfer(&object(fields), transfer) {
        web_sys::console::error_2(&"memviz: could not post to the decode worker".into(), &e);
    }
}

impl Page {
    /// The next worker spawned ahead (the page is idle), if none waits.
    fn prewarm(self: &Rc<Self>) -> bool {
        let Ok(mut spare) = self.spare.try_borrow_mut() else { return false };
        if spare.is_none() {
            *spare = self.spawn();
        }
        spare.is_some()
    }

    fn spawn(self: &Rc<Self>) -> Option<Rc<Spawned>> {
        let worker: Worker = self.host.spawn().dyn_into().ok()?;
        let w = Rc::new(Spawned {
            worker,
            start: RefCell::new(Start::Starting),
            ahead: Cell::new(false),
            on_ahead: RefCell::default(),
            job: RefCell::default(),
        });
        let (page, weak) = (Rc::downgrade(self), Rc::downgrade(&w));
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
            if let (Some(p), Some(w)) = (page.upgrade(), weak.upgrade()) {
                p.message(&w, e.data());
            }
        });
        let (page, weak) = (Rc::downgrade(self), Rc::downgrade(&w));
        let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |e: ErrorEvent| {
            e.prevent_default();
            if let (Some(p), Some(w)) = (page.upgrade(), weak.upgrade()) {
                p.error(&w, e.message());
            }
        });
        w.worker.set_onmessage(Some(&on_message.into_js_value().unchecked_into()));
        w.worker.set_onerror(Some(&on_error.into_js_value().unchecked_into()));
        Some(w)
    }

    /// The user is about to pick a file: the spare worker writes its
    /// decoder's memory ahead (`onWritten(bytes)` once done), ended if none
    /// comes. Not on a device of little memory.
    fn expect_file(self: &Rc<Self>, on_written: Option<Function>) -> bool {
        crate::read_buffer_ahead(); // 4 MiB, whatever the device
        let memory = get(&window().navigator(), "deviceMemory").as_f64().unwrap_or(8.0);
        if memory < 4.0 || !self.prewarm() {
            return false;
        }
        let Some(w) = self.spare.borrow().clone() else { return false };
        if w.ahead.replace(true) {
            return false;
        }
        *w.on_ahead.borrow_mut() = on_written;
        if *w.start.borrow() == Start::Ready {
            post(&w.worker, &[("ahead", true.into())], &Array::new());
        }
        let page = Rc::downgrade(self);
        let wait = Closure::once_into_js(move || {
            if let Some(p) = page.upgrade() {
                p.no_file(None);
                p.prewarm();
            }
        });
        let win = window();
        win.clear_timeout_with_handle(self.timer.get());
        let timer = win.set_timeout_with_callback_and_timeout_and_arguments_0(wait.unchecked_ref(), AHEAD_WAIT_MS);
        self.timer.set(timer.unwrap_or(0));
        true
    }

    /// No file came after `expectFile`: that worker is no longer the spare,
    /// and `later(end)` ends it (at once without `later`).
    fn no_file(&self, later: Option<Function>) -> bool {
        window().clear_timeout_with_handle(self.timer.get());
        let Ok(mut spare) = self.spare.try_borrow_mut() else { return false };
        let Some(w) = spare.take_if(|w| w.ahead.get()) else { return false };
        drop(spare);
        match later {
            Some(later) => {
                let (host, worker) = (self.host.clone(), w.worker.clone());
                self.host.call(&later, &[Closure::once_into_js(move || host.end(&worker))]);
            }
            None => self.host.end(&w.worker),
        }
        true
    }

    /// Decodes `file` in the spare worker (or a new one): `{done, cancel,
    /// give}`, or null where no worker can run. `done` resolves once decoded
    /// to `{readMs, nextChunk, info, versionsNow, release}` ([`Job::got`]);
    /// it rejects with a `PageError`, a failed open, or an
    /// error marked `unavailable` when the worker did not start.
    fn decode(self: &Rc<Self>, file: JsValue, on_progress: JsValue) -> JsValue {
        let (Ok(file), Ok(on_progress)) = (file.dyn_into::<File>(), on_progress.dyn_into::<Function>()) else {
            return JsValue::NULL;
        };
        let Some(job) = self.decode_job(file, on_progress) else { return JsValue::NULL };
        let (cancel, give) = (job.clone(), job.clone());
        let cancel = Closure::<dyn Fn()>::new(move || cancel.cancel());
        let give = Closure::<dyn Fn(Array)>::new(move |buffers: Array| give.give(&buffers));
        let fields = [("done", job.done()), ("cancel", cancel.into_js_value()), ("give", give.into_js_value())];
        object(&fields).into()
    }

    /// `file`'s decode in the spare worker (or a new one); none where no worker can run.
    pub(crate) fn decode_job(self: &Rc<Self>, file: File, on_progress: Function) -> Option<Rc<Job>> {
        window().clear_timeout_with_handle(self.timer.get());
        let spare = self.spare.borrow_mut().take();
        let w = spare.or_else(|| self.spawn())?;
        let last = Rc::new(self.host.deferred());
        let job = Rc::new(Job {
            page: Rc::downgrade(self),
            host: self.host.clone(),
            w: w.clone(),
            file,
            on_progress,
            debug: self.debug.take(),
            over: Cell::new(false),
            done: self.host.deferred(),
            info: self.host.deferred(),
            chunks: RefCell::new(VecDeque::from([last.clone()])),
            last: RefCell::new(last),
        });
        *w.job.borrow_mut() = Some(job.clone());
        let start = w.start.replace(Start::Starting);
        self.started(&w, start);
        Some(job)
    }

    /// Worker `w`'s start is known (`Starting`: not yet): a job waiting
    /// sends its file, or gives up; memory ahead is asked for.
    fn started(&self, w: &Rc<Spawned>, now: Start) {
        let job = w.job.borrow().clone();
        match (&now, job) {
            (Start::Ready, Some(job)) if !job.over.get() => {
                let fields = [("file", job.file.clone().into()), ("debug", job.debug.clone().into())];
                post(&w.worker, &fields, &Array::new());
            }
            (Start::Ready, None) if w.ahead.get() => post(&w.worker, &[("ahead", true.into())], &Array::new()),
            (Start::Failed(why), job) => {
                if let Some(job) = job {
                    job.end(false);
                    let e = js_sys::Error::new(&format!("the decode worker did not start: {why}"));
                    let _ = Reflect::set(&e, &"unavailable".into(), &true.into());
                    job.done.no(&e);
                }
                self.host.end(&w.worker);
            }
            _ => {}
        }
        *w.start.borrow_mut() = now;
    }

    /// An error event of worker `w` (a trap its script did not report).
    fn error(&self, w: &Rc<Spawned>, message: String) {
        let or = |fallback: &str| if message.is_empty() { fallback.to_string() } else { message.clone() };
        if *w.start.borrow() == Start::Starting {
            return self.started(w, Start::Failed(or("the decode worker did not start")));
        }
        let job = w.job.borrow().clone();
        if let Some(job) = job {
            job.end(false);
            job.fail(&job.failed("worker_trap", &or("the decode worker failed")));
        }
    }

    fn message(&self, w: &Rc<Spawned>, m: JsValue) {
        let job = w.job.borrow().clone();
        if let Some(n) = get(&m, "aheadWritten").as_f64() {
            if let Some(f) = w.on_ahead.borrow().as_ref() {
                self.host.call(f, &[n.into()]);
            }
        } else if get(&m, "aheadFailed").as_string().is_some() {
            self.no_file(None); // ends this worker
        } else if get(&m, "ready").is_truthy() {
            self.started(w, Start::Ready);
        } else if let Some(why) = get(&m, "failed").as_string() {
            self.started(w, Start::Failed(why));
        } else if let Some(job) = job {
            job.message(&m);
        }
    }
}

impl Job {
    /// Resolves once decoded to `{readMs, nextChunk, info, versionsNow,
    /// release}` ([`Job::got`]).
    pub(crate) fn done(&self) -> JsValue {
        self.done.clone().into()
    }

    /// Stops the decode: the worker ends, `done` rejects with "cancelled".
    pub(crate) fn cancel(&self) {
        if !self.over.get() {
            self.end(false);
            self.fail(&self.failed("cancelled", "cancelled"));
        }
    }

    /// `buffers` (moved) for the worker to copy the model's chunks into.
    pub(crate) fn give(&self, buffers: &Array) {
        if !self.over.get() {
            post(&self.w.worker, &[("pool", buffers.clone().into())], buffers);
        }
    }

    fn failed(&self, failure: &str, detail: &str) -> JsValue {
        self.host.failed(&self.file.name(), failure, detail)
    }

    /// Every promise not settled yet rejects with `e`.
    fn fail(&self, e: &JsValue) {
        self.done.no(e);
        self.last.borrow().no(e);
        self.info.no(e);
    }

    /// The job is over: its worker is kept as the spare (`keep`, none
    /// waiting, it wrote no memory ahead) or ended.
    fn end(&self, keep: bool) {
        self.over.set(true);
        self.w.job.borrow_mut().take();
        let page = self.page.upgrade();
        let kept = match page.as_ref().map(|p| p.spare.try_borrow_mut()) {
            Some(Ok(mut spare)) if keep && spare.is_none() && !self.w.ahead.get() => {
                *spare = Some(self.w.clone());
                true
            }
            _ => false,
        };
        if !kept {
            self.host.end(&self.w.worker);
        }
    }

    fn message(self: &Rc<Self>, m: &JsValue) {
        if let Some(read) = get(m, "progress").as_f64() {
            self.host.call(&self.on_progress, &[read.into()]);
        } else if let Ok(chunk) = get(m, "chunk").dyn_into::<ArrayBuffer>() {
            let parts: Array = get(m, "parts").unchecked_into();
            for i in (0..parts.length()).step_by(2) {
                let (at, len) = (parts.get(i).as_f64().unwrap_or(0.0), parts.get(i + 1).as_f64().unwrap_or(0.0));
                let next = Rc::new(self.host.deferred());
                let part = Uint8Array::new_with_byte_offset_and_length(&chunk, at as u32, len as u32);
                self.last.replace(next.clone()).ok(&part);
                self.chunks.borrow_mut().push_back(next);
            }
        } else if get(m, "decoded").is_truthy() {
            self.done.ok(&self.got(get(m, "readMs")));
        } else if get(m, "modelEnd").is_truthy() {
            self.last.borrow().ok(&JsValue::NULL);
        } else if get(m, "versions").is_truthy() {
            if self.file.size() < KEEP_BELOW {
                self.end(true); // a large one ends at release()
            }
            self.info.ok(m);
        } else if let Some(trap) = get(m, "trap").as_string() {
            self.end(false);
            self.fail(&match trap.as_str() {
                "" => self.failed("worker_oom", "out of memory"),
                _ => self.failed("worker_trap", &trap),
            });
        } else if get(m, "error").is_truthy() {
            self.end(true);
            self.fail(&get(m, "error"));
        }
    }

    /// What `done` resolves to.
    fn got(self: &Rc<Self>, read_ms: JsValue) -> Object {
        let j = self.clone();
        let next_chunk = Closure::<dyn Fn() -> JsValue>::new(move || {
            j.chunks.borrow_mut().pop_front().map_or(JsValue::NULL, |d| (*d).clone().into())
        });
        let j = self.clone();
        let info = Closure::<dyn Fn() -> JsValue>::new(move || j.info.clone().into());
        let j = self.clone();
        let versions_now = Closure::<dyn Fn()>::new(move || {
            if !j.over.get() {
                post(&j.w.worker, &[("versionsNow", true.into())], &Array::new());
            }
        });
        let j = self.clone();
        let release = Closure::<dyn Fn()>::new(move || {
            if !j.over.get() {
                j.end(false);
            }
        });
        object(&[
            ("readMs", read_ms),
            ("nextChunk", next_chunk.into_js_value()),
            ("info", info.into_js_value()),
            ("versionsNow", versions_now.into_js_value()),
            ("release", release.into_js_value()),
        ])
    }
}
