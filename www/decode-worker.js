// memviz decode worker, the page's side: spawns the worker (a blob: URL, so file:// works) whose program
// is Rust's (crates/memviz-worker: a large file decoded off the main thread, the model sent into buffers
// the page wrote ahead, the address versions once the page painted) and speaks its protocol (docs/open.md).
import { workerSetup } from './boot.js';

// Bytes between progress steps (files.rs CHUNK); copied into wasm a call (files.rs FEED); a worker that decoded more
// than KEEP_BELOW is ended, not kept; a file expected and none come in AHEAD_WAIT_MS: its memory let go.
export const CHUNK = 4 << 20;
export const FEED = 1 << 20; // (one name an export: scripts/finish-dist.mjs bundles them so)
const KEEP_BELOW = 32 << 20, AHEAD_WAIT_MS = 60_000;

// Feeds `file` to feed(bytes) (FEED bytes a call) as its stream reads it, awaiting step(read) each
// CHUNK and at the end; one reused "byob" buffer where the browser can. Page and worker read this way.
export async function feedStream(file, feed, step, CHUNK, FEED) {
  const stream = file.stream();
  let reader = null, buf = null;
  try {
    reader = stream.getReader({ mode: 'byob' });
    buf = new ArrayBuffer(Math.max(1, Math.min(file.size, 4 << 20)));
  } catch (_) {
    reader = stream.getReader();
  }
  // Held while reading: Chromium collected a stream with a read pending.
  const live = (feedStream.live ||= new Set()), held = { stream, reader };
  live.add(held);
  try {
    for (let read = 0, shown = 0; ;) {
      const { done, value } = await (buf ? reader.read(new Uint8Array(buf)) : reader.read());
      if (done) return;
      for (let p = 0; p < value.length; p += FEED) feed(value.subarray(p, p + FEED));
      read += value.length;
      if (buf) buf = value.buffer;
      if (read - shown >= CHUNK || read >= file.size) await step(shown = read);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e;
  } finally {
    live.delete(held);
  }
}

// The worker's script: loads the module, then its decode_worker (crates/memviz-worker) takes the
// messages (those come meanwhile too). A trap there ends the module's calls: reported here.
function workerMain(loadGlue) {
  const early = [];
  let glue = null;
  self.addEventListener('error', (ev) => {
    ev.preventDefault();
    let panic = null; // none after a trap: out of memory
    try { panic = glue.panic_message(); } catch (_) { /* that instance is gone too */ }
    self.postMessage({ trap: panic || (ev.error instanceof WebAssembly.RuntimeError ? '' : String(ev.message)) });
  });
  self.onmessage = async ({ data: m }) => {
    if (!m.module) return void early.push(m);
    try {
      glue = await loadGlue();
      glue.initSync({ module: m.module });
      glue.decode_worker(early);
      self.postMessage({ ready: true });
    } catch (e) {
      self.postMessage({ failed: String((e && e.message) || e) });
    }
  };
}

let blobUrl = null, debugNext = null, spare = null, aheadTimer = 0;

/** Tests of the recovery from a trap: the next decode panics with `msg` (or runs out of memory) after a CHUNK. */
export const debugPanicNext = (msg) => { debugNext = msg; };
export const debugOomNext = () => { debugNext = 'oom'; };

/** A new worker {worker, ready}; null if the page cannot start one. */
function spawn() {
  const setup = workerSetup();
  if (!setup || typeof Worker === 'undefined') return null;
  try {
    blobUrl ||= URL.createObjectURL(new Blob([`${setup.prelude}\n(${workerMain})(loadGlue);\n`],
      { type: 'text/javascript' }));
    const worker = new Worker(blobUrl, { type: setup.type, name: 'memviz decode' });
    const w = { worker, ahead: false, onAhead: null };
    w.ready = new Promise((resolve, reject) => {
      worker.onmessage = ({ data: m }) => {
        if (m.aheadWritten != null) w.onAhead(m.aheadWritten);
        else if (m.aheadFailed != null) noFile(); // ends this worker
        else if (m.ready) resolve();
        else reject(new Error(m.failed));
      };
      worker.onerror = (ev) => { ev.preventDefault(); reject(new Error(ev.message || 'the decode worker did not start')); };
    });
    w.ready.catch(() => worker.terminate());
    worker.postMessage({ module: setup.module });
    return w;
  } catch (e) {
    console.debug('memviz: no decode worker', e);
    return null;
  }
}

/** Spawns the next worker ahead (the page is idle), if none waits. */
export function prewarm() {
  spare ||= spawn();
}

// The user is about to pick a file: the spare worker writes memory ahead (MemoryAhead 'decode';
// onWritten(bytes) once done) for its decoder; ended if none comes (noFile). Not on a small device.
export function expectFile(onWritten = () => {}) {
  if ((navigator.deviceMemory ?? 8) < 4) return;
  prewarm();
  const w = spare;
  if (!w || w.ahead) return;
  w.ahead = true;
  w.onAhead = onWritten;
  w.ready.then(() => { if (spare === w) w.worker.postMessage({ ahead: true }); }, () => {});
  clearTimeout(aheadTimer);
  aheadTimer = setTimeout(() => { noFile(); prewarm(); }, AHEAD_WAIT_MS);
}

/** No file came after `expectFile`: that worker is no longer the spare, and `later(end)` ends it. */
export function noFile(later = (end) => end()) {
  clearTimeout(aheadTimer);
  const w = spare;
  if (!w || !w.ahead) return;
  spare = null;
  later(() => w.worker.terminate());
}

/** A failed open: `failure` (files.rs OpenFailure, which words it) and `detail`; the message names the file. */
export const failed = (name, failure, detail = failure) => Object.assign(new Error(`${name}: ${detail}`), { failure, detail });

/** A promise with its `ok` / `no`; a rejection nobody awaits is no error. */
function deferred() {
  let settle;
  const p = new Promise((ok, no) => { settle = { ok, no }; });
  p.catch(() => {});
  return Object.assign(p, settle);
}

// Decodes `file` in a worker (null: none can run): {done, cancel, give}. `done` resolves once decoded to
// {readMs, nextChunk (the next wire chunk, null after the last), info ({versions, finishMs, memory,
// pooled} once versionsNow() was called), versionsNow, release (ends the worker)}; rejects with a
// PageError, a `failed` one or `unavailable` (no worker started). give(buffers): for the chunks.
export function decodeInWorker(file, onProgress) {
  const w = spare || spawn();
  spare = null;
  clearTimeout(aheadTimer);
  if (!w) return null;
  const done = deferred(), info = deferred();
  let over = false, last = deferred(); // the chunk to come
  const chunks = [last]; // those not taken yet

  const end = (keep) => {
    over = true;
    if (keep && !spare && !w.ahead) spare = w;
    else w.worker.terminate();
  };
  const fail = (e) => [done, last, info].forEach((p) => p.no(e)); // what is settled stays
  const nextChunk = () => chunks.shift() ?? null;
  w.ready.then(() => {
    if (over) return;
    w.worker.onmessage = ({ data: m }) => {
      if (m.progress != null) onProgress(m.progress);
      else if (m.chunk) {
        for (let i = 0; i < m.parts.length; i += 2) {
          last.ok(new Uint8Array(m.chunk, m.parts[i], m.parts[i + 1]));
          chunks.push(last = deferred());
        }
      } else if (m.decoded) {
        done.ok({
          readMs: m.readMs, nextChunk, info: () => info, release: () => { if (!over) end(false); },
          versionsNow: () => { if (!over) w.worker.postMessage({ versionsNow: true }); },
        });
      } else if (m.modelEnd) last.ok(null);
      else if (m.versions) {
        if (file.size < KEEP_BELOW) end(true); // a large one ends at release(): its unmapping held up the page's memory changes
        info.ok(m);
      } else if (m.error) {
        end(true);
        fail(m.error);
      } else if (m.trap != null) {
        end(false);
        fail(m.trap ? failed(file.name, 'worker_trap', m.trap) : failed(file.name, 'worker_oom', 'out of memory'));
      }
    };
    w.worker.onerror = (ev) => {
      ev.preventDefault();
      end(false);
      fail(failed(file.name, 'worker_trap', ev.message || 'the decode worker failed'));
    };
    w.worker.postMessage({ file, debug: debugNext });
    debugNext = null;
  }, (e) => {
    end(false);
    done.no(Object.assign(new Error(`the decode worker did not start: ${e.message}`), { unavailable: true }));
  });
  return {
    done,
    cancel: () => { if (!over) { end(false); fail(failed(file.name, 'cancelled')); } },
    give: (buffers) => { if (!over) w.worker.postMessage({ pool: buffers }, buffers); },
  };
}
