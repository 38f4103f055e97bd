//! The page's open of one file (docs/open.md), from files.rs's plan to the
//! file's index in the page's Viewer: a large file decoded in a worker
//! ([`crate::page`]) while the idle page writes memory ahead, its model
//! adopted a task at a time; a small one read here, a task every CHUNK.
//!
//! It runs as a Rust future on the page. Every wait is on a promise the
//! page's host made (decode-worker.js), so a trap ends them all at once;
//! the Viewer is the page's object, called as the page calls it.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Function, Promise, Reflect, Uint8Array};
use memviz_viewer::{plan, sniff, AheadPlan, OpenCommand, OpenReply, CHUNK};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::File;

use crate::page::{Job, Page};
use crate::{get, now, object, read, to_js, Read};

/// A long step's slice before the page has a turn; a task's limit when the
/// next step's time can be guessed; trace events a replay step.
const SLICE_MS: f64 = 8.0;
const TASK_MS: f64 = 12.0;
const REPLAY_STEP: usize = 1 << 17;
/// While the worker decodes, the idle page writes memory ahead (a first
/// write costs ~0.7 ms a MB) this long a task: the worker's chunk buffers
/// (`POOL_BUFFER` each, `POOL_STEP` at a time), then the model's memory.
const TOUCH_TASK_MS: f64 = 4.0;
const POOL_BUFFER: u32 = 8 << 20;
const POOL_STEP: u32 = 2 << 20;

#[wasm_bindgen]
extern "C" {
    /// The page's Viewer (memviz-wasm `Viewer`): its open command and feed.
    #[derive(Clone)]
    pub type PageViewer;
    #[wasm_bindgen(method, catch)]
    fn open(this: &PageViewer, cmd: &JsValue, bytes: Option<Uint8Array>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn feed(this: &PageViewer, bytes: &Uint8Array) -> Result<(), JsValue>;
}

/// `cmd` to the page's Viewer, its reply read back: files.rs's types both
/// ways (through JSON, as the Viewer's boundary takes them), so a renamed
/// command or field breaks this crate's build, not the page.
fn open(viewer: &PageViewer, cmd: &OpenCommand, bytes: Option<Uint8Array>) -> Result<OpenReply, JsValue> {
    let reply = viewer.open(&to_js(cmd)?, bytes)?;
    let text = js_sys::JSON::stringify(&reply)?.as_string().unwrap_or_default();
    serde_json::from_str(&text).map_err(|e| js_sys::Error::new(&format!("the Viewer's open reply: {e}")).into())
}

/// What the page hears of an open (www/app.js `loadFile`).
struct Ui {
    /// `(bytes read)` each CHUNK of a large file.
    progress: Function,
    /// Called once the read is over and the timeline is built.
    building: Function,
    /// `(kind)`: files.rs `FileKind`, once the file's start is seen.
    kind: Function,
    /// "worker" or "page" read it whatever its size (tests, benchmarks).
    force: Option<String>,
}

impl Ui {
    fn from(o: &JsValue) -> Option<Ui> {
        let f = |k| get(o, k).dyn_into::<Function>().ok();
        let force = get(o, "force").as_string();
        Some(Ui { progress: f("progress")?, building: f("building")?, kind: f("kind")?, force })
    }
}

impl Page {
    /// Opens `file` into `viewer`: `{done, cancel}`, `done` resolving to
    /// `{file, decodedIn, got}` (`got`: the worker's decode, for its address
    /// versions: [`Job::got`]; null when read on the page) or rejecting with
    /// a `PageError`, a failed open (a profiler export marked `profiler`),
    /// or the trap.
    pub(crate) fn open_file(self: &Rc<Self>, viewer: JsValue, file: JsValue, ui: JsValue) -> JsValue {
        let (Ok(file), Some(ui)) = (file.dyn_into::<File>(), Ui::from(&ui)) else { return JsValue::NULL };
        let viewer: PageViewer = viewer.unchecked_into();
        let done = self.host.deferred();
        let cancelled = Rc::new(Cell::new(false));
        let job: Rc<Cell<Option<Rc<Job>>>> = Rc::default();
        let (p, d, c, j) = (self.clone(), done.clone(), cancelled.clone(), job.clone());
        spawn_local(async move {
            match p.load(&viewer, &file, &ui, &c, &j).await {
                Ok(v) => d.ok(&v),
                Err(e) => d.no(&e),
            }
        });
        let cancel = Closure::<dyn Fn()>::new(move || {
            cancelled.set(true); // the page's read stops at its next piece
            if let Some(job) = job.take() {
                job.cancel();
            }
        });
        object(&[("done", done.into()), ("cancel", cancel.into_js_value())]).into()
    }

    /// The open path run once, idle, on a small file of zeros into a
    /// stand-in Viewer: V8 compiles wasm lazily, so the user's first open
    /// would otherwise compile this code (docs/open.md "The idle warm-up").
    pub(crate) fn warm(self: &Rc<Self>) -> JsValue {
        let zeros = Uint8Array::new_with_length(64 << 10);
        let Ok(file) = File::new_with_u8_array_sequence(&Array::of1(&zeros), "warm.pickle") else {
            return JsValue::NULL;
        };
        let answer = Closure::<dyn Fn() -> JsValue>::new(|| js_sys::Object::new().into()).into_js_value();
        // Its open answers as the Viewer does (every field), so that reading a reply is compiled too.
        let reply = to_js(&OpenReply { file: Some(0), generation: 1, ..OpenReply::default() }).unwrap_or_default();
        let open = Closure::<dyn Fn() -> JsValue>::new(move || reply.clone()).into_js_value();
        let viewer = object(&[("open", open), ("feed", answer.clone())]);
        let ui = object(&[
            ("progress", answer.clone()),
            ("building", answer.clone()),
            ("kind", answer),
            ("force", "page".into()),
        ]);
        self.open_file(viewer.into(), file.into(), ui.into())
    }

    async fn load(
        self: &Rc<Self>,
        viewer: &PageViewer,
        file: &File,
        ui: &Ui,
        cancelled: &Rc<Cell<bool>>,
        job: &Rc<Cell<Option<Rc<Job>>>>,
    ) -> Result<JsValue, JsValue> {
        let size = file.size() as u64;
        let plan = plan(size, ui.force.as_deref());
        if plan.worker {
            // A large file's head read apart (a few ms); a small one's is seen as it comes.
            let head = file.slice_with_f64_and_f64(0.0, plan.sniff_head as f64)?;
            let head = JsFuture::from(head.array_buffer()).await?;
            self.route(file, ui, &Uint8Array::new(&head).to_vec())?;
            if let Some(w) = self.decode_job(file.clone(), ui.progress.clone()) {
                job.set(Some(w.clone()));
                let on = Rc::new(Cell::new(true));
                spawn_local(self.clone().touch_ahead(viewer.clone(), size, plan.pool, w.clone(), on.clone()));
                let got = JsFuture::from(w.done().unchecked_into::<Promise>()).await;
                on.set(false);
                job.set(None);
                let e = match got {
                    Ok(got) => return self.adopt(viewer, file, ui, got).await,
                    Err(e) => e,
                };
                let release = OpenCommand::Ahead { plan: AheadPlan::Release, file_bytes: 0 };
                if let Err(e) = open(viewer, &release, None) {
                    self.host.trapped(&e);
                }
                if !get(&e, "unavailable").is_truthy() {
                    return Err(e);
                }
                web_sys::console::debug_2(&"memviz: decoding on the page".into(), &e);
            }
        }
        self.read_here(viewer, file, ui, !plan.worker, plan.sniff_head, cancelled).await
    }

    /// Routes a file on its first bytes (files.rs `sniff`): a torch.profiler
    /// export goes to its chart (a failed open marked `profiler`).
    fn route(&self, file: &File, ui: &Ui, head: &[u8]) -> Result<(), JsValue> {
        let s = sniff(head);
        self.host.call(&ui.kind, &[to_js(&s.kind)?]);
        if !s.profiler {
            return Ok(());
        }
        let e = self.host.failed(&file.name(), "profiler", "profiler");
        let _ = Reflect::set(&e, &"profiler".into(), &true.into());
        Err(e)
    }

    /// Reads `file` on this thread into the Viewer (`begin`, `feed`, `finish`).
    async fn read_here(
        &self,
        viewer: &PageViewer,
        file: &File,
        ui: &Ui,
        mut sniff_first: bool,
        sniff_head: usize,
        cancelled: &Rc<Cell<bool>>,
    ) -> Result<JsValue, JsValue> {
        let size = file.size() as u64;
        let stop = || match cancelled.get() {
            true => Err(self.host.failed(&file.name(), "cancelled", "cancelled")),
            false => Ok(()),
        };
        open(viewer, &OpenCommand::Begin { name: file.name() }, None)?;
        let feed = |bytes: &Uint8Array| -> Result<(), Read> {
            stop().map_err(Read::Browser)?;
            if std::mem::take(&mut sniff_first) {
                let head = bytes.subarray(0, (sniff_head as u32).min(bytes.length()));
                self.route(file, ui, &head.to_vec()).map_err(Read::Browser)?;
            }
            viewer.feed(bytes).map_err(Read::Browser)
        };
        let step = async |read: u64| -> Result<(), Read> {
            if size <= CHUNK {
                return Ok(()); // a small file: no progress, no yield
            }
            self.host.call(&ui.progress, &[(read as f64).into()]);
            self.task().await.map_err(Read::Browser)?;
            stop().map_err(Read::Browser)
        };
        read(file, feed, step).await.map_err(|e| match e {
            Read::Refused(e) => crate::page_error(e),
            Read::Browser(e) => e,
        })?;
        stop()?;
        if size > CHUNK {
            self.host.call(&ui.building, &[]);
            JsFuture::from(self.host.after_paint()).await?; // its text on screen before the long task
        }
        let file = open(viewer, &OpenCommand::Finish, None)?.file;
        Ok(object(&[("file", to_js(&file)?), ("decodedIn", "page".into()), ("got", JsValue::NULL)]).into())
    }

    /// The next task (a message to the page: docs/open.md "Task hops").
    async fn task(&self) -> Result<JsValue, JsValue> {
        JsFuture::from(self.host.next_task()).await
    }

    /// Opens the model the worker decoded in tasks of at most SLICE_MS
    /// (TASK_MS when the next step's guessed time fits): its chunks as they
    /// come, the replay, its views. The Viewer times each step (`worker`).
    async fn adopt(&self, viewer: &PageViewer, file: &File, ui: &Ui, got: JsValue) -> Result<JsValue, JsValue> {
        if file.size() as u64 > CHUNK {
            self.host.call(&ui.building, &[]);
        }
        let mut since = now();
        let step = |c: OpenCommand, bytes: Option<Uint8Array>| open(viewer, &c, bytes);
        let slice = async |since: &mut f64, r: &OpenReply| -> Result<(), JsValue> {
            let ran = now() - *since;
            let last = r.worker.as_ref().map_or(0.0, |w| w.last);
            if ran < SLICE_MS && ran + last < TASK_MS {
                return Ok(());
            }
            self.task().await?;
            *since = now();
            Ok(())
        };
        let read_ms = get(&got, "readMs").as_f64().unwrap_or(0.0);
        step(OpenCommand::AdoptBegin { name: file.name(), read_ms }, None)?;
        let next: Function = get(&got, "nextChunk").unchecked_into();
        let mut r;
        loop {
            let c = next.call0(&JsValue::NULL)?;
            let c = if c.is_null() { c } else { JsFuture::from(Promise::from(c)).await? };
            if c.is_null() {
                break;
            }
            r = step(OpenCommand::AdoptChunk, Some(c.unchecked_into()))?;
            slice(&mut since, &r).await?;
        }
        step(OpenCommand::AdoptEnd, None)?;
        let mut r;
        loop {
            r = step(OpenCommand::AdoptReplay { budget: REPLAY_STEP }, None)?;
            if r.done {
                break;
            }
            slice(&mut since, &r).await?;
        }
        slice(&mut since, &r).await?;
        r = step(OpenCommand::AdoptFinish, None)?;
        let out =
            [("file", to_js(&r.file)?), ("decodedIn", "worker".into()), ("got", got), ("worker", to_js(&r.worker)?)];
        Ok(object(&out).into())
    }

    /// While the worker decodes, this idle thread writes, TOUCH_TASK_MS a
    /// task, `pool` bytes of buffers for the worker's chunks, then the
    /// memory this page's model will take (files.rs `MemoryAhead`).
    async fn touch_ahead(self: Rc<Self>, viewer: PageViewer, size: u64, pool: u64, job: Rc<Job>, on: Rc<Cell<bool>>) {
        if pool == 0 {
            return;
        }
        let (mut pooled, mut buf, mut written) = (0u64, None::<ArrayBuffer>, 0u32);
        let model = OpenCommand::Ahead { plan: AheadPlan::Model, file_bytes: size };
        loop {
            if self.task().await.is_err() || !on.get() {
                return;
            }
            let t0 = now();
            loop {
                if pooled < pool {
                    let b = buf.get_or_insert_with(|| ArrayBuffer::new(POOL_BUFFER));
                    Uint8Array::new_with_byte_offset_and_length(b, written, POOL_STEP).fill(0, 0, POOL_STEP);
                    written += POOL_STEP;
                    if written == POOL_BUFFER {
                        job.give(&Array::of1(&buf.take().expect("just filled")));
                        (written, pooled) = (0, pooled + POOL_BUFFER as u64);
                    }
                } else {
                    match open(&viewer, &model, None) {
                        Ok(r) if r.done => return,
                        Ok(_) => {}
                        Err(e) if self.host.trapped(&e) => return,
                        // Ahead of need: the open goes on.
                        Err(e) => return web_sys::console::debug_2(&"memviz: memory ahead stopped".into(), &e),
                    }
                }
                if now() - t0 >= TOUCH_TASK_MS {
                    break;
                }
            }
        }
    }
}
