// memviz decode worker: reads and decodes a snapshot off the main thread, so
// that the page answers input, draws its progress bar and can cancel while a
// large file (up to gigabytes) decodes.
//
// The worker runs the same compiled wasm as the page (the WebAssembly.Module
// is posted to it, not compiled again) in its own instance: a `Decoder`
// (crates/memviz-wasm/src/decode.rs) is fed the file's pieces as its stream
// reads them in the worker; after `finish()`, `model()` gives the model in
// its binary form (crates/memviz-core/src/wire.rs), column by column, each
// chunk copied out of the wasm memory (which then never holds the model
// twice) into buffers the page wrote ahead (`give`) and transferred (no
// copy) to the page, whose Viewer reads each as
// it comes (`adopt_chunk`); then `versions()` the address versions (in
// pieces), computed once the page has painted the file. The worker's script comes from a blob: URL made
// here (the CSP allows worker-src blob:), so it also runs in the standalone
// file from file://; boot.js says how the worker gets the wasm-bindgen glue
// (`workerSetup`).
//
// One worker is kept spawned and instantiated ahead (`prewarm`, when the
// page is idle), so a file pays no start-up. A worker that read a large file
// is ended afterwards: its wasm memory stays as large as the file needed.
import { workerSetup } from './boot.js';

/** Bytes decoded between progress steps (on the page, also between its task hops). */
export const CHUNK = 4 << 20;
/** Bytes copied into wasm memory per call (page or worker): its peak stays small. */
export const FEED = 1 << 20;
/** A worker that decoded more than this is ended rather than kept for the next file. */
const KEEP_BELOW = 32 << 20;
/**
 * Bytes of its memory the spare worker writes while the user picks a file
 * (`expectFile`: the open button pressed, files dragged over the page, or
 * the page loaded without one), AHEAD_STEP a task: the decoder's tables take those pages
 * again without their first write's cost (~0.55 ms a MB; the 119 MB file's
 * decode takes ~194 MiB). Held only until the file comes or does not.
 */
const AHEAD = 256 << 20;
const AHEAD_STEP = 4 << 20;
/** A file expected and none come in this long: the memory written ahead is let go. */
const AHEAD_WAIT_MS = 60_000;

/**
 * Feeds `file` to `feed(bytes)` (at most FEED bytes a call) as its stream
 * reads it, and awaits `step(bytesRead)` after each CHUNK bytes and after
 * the last. The stream hands the file over in pieces (up to ~2 MB in
 * Chromium), each decoded while the next arrives: 119 MB are read in ~150
 * ms against ~260-520 ms in 4 MiB slices (measured). Into one buffer of
 * ours, reused (a "byob" reader), where the browser can: a fresh buffer
 * per piece cost its first writes, ~0.7 ms a MB (the 119 MB file's worker
 * waited ~100 ms for pieces, ~30 ms with one buffer). The page and the
 * worker both read this way (its text goes into the worker's blob too: it
 * refers to nothing outside it).
 */
export async function feedStream(file, feed, step, CHUNK, FEED) {
  const stream = file.stream();
  let reader = null;
  let buf = null;
  try {
    reader = stream.getReader({ mode: 'byob' });
    buf = new ArrayBuffer(Math.max(1, Math.min(file.size, 4 << 20)));
  } catch (_) {
    reader = stream.getReader(); // no byte stream here: a buffer per piece
  }
  // Held from outside while reading: Chromium let a garbage collection take
  // a file's stream with a read pending when nothing else held it, and the
  // read never ended (2 of 6 opens of the 119 MB file in the worker, once
  // the page's buffers came in during the read).
  const live = (feedStream.live ||= new Set());
  const held = { stream, reader };
  live.add(held);
  try {
    let read = 0, shown = 0;
    for (;;) {
      const { done, value } = await (buf ? reader.read(new Uint8Array(buf)) : reader.read());
      if (done) return;
      for (let p = 0; p < value.length; p += FEED) feed(value.subarray(p, p + FEED));
      read += value.length;
      if (buf) buf = value.buffer; // the same memory, handed back
      if (read - shown >= CHUNK || read >= file.size) {
        shown = read;
        await step(read);
      }
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e;
  } finally {
    live.delete(held);
  }
}

// The worker's program. Runs in the worker (its text goes into the blob after
// boot's prelude, which defines loadGlue, and feedStream): it refers to
// nothing outside them.
function workerMain(loadGlue, feedStream, CHUNK, FEED, AHEAD_STEP) {
  let glue = null;
  let memory = null; // the instance's wasm memory: its size goes with the model (for the benchmarks)
  const trapped = (e) => e instanceof WebAssembly.RuntimeError ||
    /recursive use of an object|null pointer passed to rust|unreachable/.test(String(e && e.message));
  // ArrayBuffers the page wrote while this worker decoded (`give`): the
  // model's chunks go into them, several to a buffer, rather than into
  // fresh ones, whose first writes cost ~0.7 ms a MB here.
  let pool = [];
  // Memory written ahead while the user picks a file (`ahead`), let go
  // when the file comes: the decoder's tables take the same pages again.
  let ahead = null;
  // The page's word that its first frame of the file is painted: the
  // address versions are computed after it, not beside the page's replay
  // and first draw (2 cores: they slowed those).
  let versionsNow = null;
  const letGo = () => {
    if (ahead) ahead.free();
    ahead = null;
  };
  self.onmessage = async (ev) => {
    const m = ev.data;
    if (m.pool) {
      pool.push(...m.pool);
      return;
    }
    if (m.versionsNow) {
      if (versionsNow) versionsNow();
      return;
    }
    if (m.ahead) {
      if (!glue || ahead) return;
      try {
        const mine = ahead = new glue.MemoryAhead();
        // A step a task, so that the file's message is taken between them.
        while (ahead === mine && mine.touch(m.ahead, AHEAD_STEP)) await new Promise((r) => setTimeout(r, 0));
        if (ahead === mine) self.postMessage({ aheadWritten: mine.written() });
      } catch (e) {
        // This instance may be unusable now: the page ends this worker.
        ahead = null;
        self.postMessage({ aheadFailed: String((e && e.message) || e) });
      }
      return;
    }
    if (m.module) {
      try {
        glue = await loadGlue();
        memory = glue.initSync({ module: m.module }).memory;
        self.postMessage({ ready: true });
      } catch (e) {
        self.postMessage({ failed: String((e && e.message) || e) });
      }
      return;
    }
    const { file, panic, oom } = m;
    const start = performance.now();
    letGo();
    let dec = null;
    try {
      dec = new glue.Decoder(file.name);
      dec.expect(file.size);
      await feedStream(file, (bytes) => dec.feed(bytes), (read) => {
        self.postMessage({ progress: read });
        if (panic) dec.debug_panic(panic);
        if (oom) dec.debug_oom();
      }, CHUNK, FEED);
      const t0 = performance.now();
      dec.finish();
      self.postMessage({ decoded: true, readMs: t0 - start });
      // The model column by column, each chunk a view of the wasm memory
      // copied out here, several to a buffer (one the page gave, else a
      // fresh one for that chunk), each buffer moved to the page once full;
      // then the address versions (in pieces, which the page reads a task
      // each), computed once the page says its first frame of the file is
      // painted (`versionsNow`).
      let buf = null, used = 0, parts = [], pooled = 0;
      const flush = () => {
        if (buf) self.postMessage({ chunk: buf, parts }, [buf]);
        buf = null;
        used = 0;
        parts = [];
      };
      dec.model((c) => {
        if (buf && used + c.length > buf.byteLength) flush();
        if (!buf && pool.length && pool[pool.length - 1].byteLength >= c.length) {
          buf = pool.pop();
          pooled++;
        }
        if (!buf) buf = new ArrayBuffer(c.length);
        new Uint8Array(buf, used, c.length).set(c);
        parts.push(used, c.length);
        used += c.length;
      });
      flush();
      pool = [];
      self.postMessage({ modelEnd: true });
      await new Promise((r) => { versionsNow = r; });
      versionsNow = null;
      const versions = [];
      dec.versions((c) => versions.push(c.slice().buffer));
      self.postMessage({ versions }, versions);
      // For the page's timings line: finishing (the model's wire form +
      // the versions); the wasm memory's size.
      self.postMessage({ done: true, finishMs: performance.now() - t0, memory: memory.buffer.byteLength, pooled });
    } catch (e) {
      const trap = trapped(e);
      let panic = null;
      try { panic = trap ? glue.panic_message() : null; } catch (_) { /* that instance is gone too */ }
      const error = String((e && e.message) || e);
      // Rust aborts without a panic message only when an allocation fails
      // (wasm32's memory stops at 4 GB); a JS buffer may fail to allocate too.
      const oom = (trap && !panic) || /allocation failed|out of memory/i.test(error);
      self.postMessage({ error, trap, panic, oom, memory: memory.buffer.byteLength });
    } finally {
      pool = [];
      try { if (dec) dec.free(); } catch (_) { /* after a trap */ }
    }
  };
}

let blobUrl = null;
let panicNext = null;
let oomNext = false;

/** For the tests of the recovery from a trap: the next decode panics with `msg` after its first CHUNK. */
export function debugPanicNext(msg) {
  panicNext = msg;
}

/** For the tests of the words for running out of memory: the next decode aborts as an allocation failure does. */
export function debugOomNext() {
  oomNext = true;
}

let spare = null; // {worker, ready}: spawned and instantiated ahead

/** A new worker and a promise that it has instantiated the wasm; null if the page cannot start one. */
function spawn() {
  const setup = workerSetup();
  if (!setup || typeof Worker === 'undefined') return null;
  try {
    if (!blobUrl) {
      const text = `${setup.prelude}\n${feedStream}\n(${workerMain})(loadGlue, feedStream, ${CHUNK}, ${FEED}, ${AHEAD_STEP});\n`;
      blobUrl = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
    }
    const worker = new Worker(blobUrl, { type: setup.type, name: 'memviz decode' });
    const w = { worker, ready: null, ahead: false, onAhead: null };
    w.ready = new Promise((resolve, reject) => {
      worker.onmessage = (ev) => {
        if (ev.data.aheadWritten != null) w.onAhead(ev.data.aheadWritten);
        else if (ev.data.aheadFailed != null) {
          console.debug('memviz: memory ahead failed', ev.data.aheadFailed);
          noFile(); // ends this worker, the spare until its file comes
        } else if (ev.data.ready) resolve();
        else reject(new Error(ev.data.failed));
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

/** Spawns the next worker ahead of time (when the page is idle), if none is waiting. */
export function prewarm() {
  if (!spare) spare = spawn();
}

let aheadTimer = 0;

/**
 * The user is about to pick a file (pressed the open button, dragged files
 * over the page): the spare worker writes AHEAD bytes of its memory now,
 * while the dialog is open or the drag goes on, and its decode of the file
 * reuses them. `onWritten(bytes)` once written. If no file comes to a
 * worker (`noFile`, or within AHEAD_WAIT_MS) that worker is ended, as its
 * memory stays that large, and the next is spawned when the page is idle.
 * Not on a device that reports little memory.
 */
export function expectFile(onWritten = () => {}) {
  if (typeof navigator !== 'undefined' && (navigator.deviceMemory ?? 8) < 4) return;
  prewarm();
  const w = spare;
  if (!w || w.ahead) return;
  w.ahead = true;
  w.onAhead = onWritten;
  w.ready.then(() => { if (spare === w) w.worker.postMessage({ ahead: AHEAD }); }, () => {});
  clearTimeout(aheadTimer);
  // Ended, and the next worker spawned, so that a file after this still
  // finds one instantiated.
  aheadTimer = setTimeout(() => { noFile(); prewarm(); }, AHEAD_WAIT_MS);
}

/**
 * No file came to the worker after `expectFile` (see there): it is no
 * longer the spare, and `later(end)` ends it (at once by default). A page
 * that reads a small file itself ends it once that file is on screen: its
 * end, and a new worker's start, had made a 0.5 MB file's open ~15-20 ms
 * slower.
 */
export function noFile(later = (end) => end()) {
  clearTimeout(aheadTimer);
  const w = spare;
  if (!w || !w.ahead) return;
  spare = null;
  later(() => w.worker.terminate());
}

/** Thrown by a decode that was cancelled. */
export class Cancelled extends Error {
  constructor(name) {
    super(`${name}: cancelled`);
    this.name = 'Cancelled';
  }
}

/** What the page says when the worker ran out of memory. */
export const OUT_OF_MEMORY = 'out of memory in the decoder (wasm is limited to 4 GB)';

/**
 * Thrown when the worker's wasm trapped (a panic, out of memory): `detail` is
 * the panic's message (else the trap's, or OUT_OF_MEMORY when `oom`); the
 * message names the file too.
 */
export class WorkerTrap extends Error {
  constructor(name, detail, oom = false) {
    super(oom ? `${name}: ${OUT_OF_MEMORY}` : `${name}: internal error in memviz: ${detail}`);
    this.name = 'WorkerTrap';
    this.detail = oom ? OUT_OF_MEMORY : detail;
    this.oom = oom;
  }
}

/**
 * Decodes `file` in a worker. Returns null when no worker can run (the page
 * then decodes on its own thread), else `{ done, cancel }`: `done` resolves
 * once the file is decoded, to `{ readMs, nextChunk, info }` (the worker's
 * milliseconds reading + decoding; `nextChunk()`, a promise of the model's
 * next wire chunk, a Uint8Array for `Viewer::adopt_chunk`, or of null
 * after the last one, so that the page reads each while the worker makes the
 * next; `info()`, a promise of `{ versions, finishMs, memory, pooled }`, which the
 * worker computes after the model: the versions' wire chunks, ArrayBuffers
 * for `Viewer::versions_chunk` (after the file opens), the worker's milliseconds finishing and
 * its wasm memory's size, how many given buffers it used; `versionsNow()`, the page's word that the file
 * is painted, after which the worker computes the versions; `release()`, which ends the worker once the page
 * is done with it). `done`, `nextChunk()` or `info()` rejects
 * with the decoder's error (its message names the file and the byte offset,
 * as the page's own decode says it), a Cancelled, a WorkerTrap (`oom` set
 * when it ran out of memory), or an error with `unavailable` set when the
 * worker could not start; `cancel()` ends the worker at once; `give(buffers)`
 * moves ArrayBuffers the page wrote ahead to the worker, for the chunks.
 * `onProgress(bytesRead)` after each CHUNK decoded.
 */
export function decodeInWorker(file, onProgress) {
  const w = spare || spawn();
  spare = null;
  clearTimeout(aheadTimer);
  if (!w) return null;
  let settle = null;
  let over = false;
  let release = null;
  const done = new Promise((resolve, reject) => { settle = { resolve, reject }; });
  let decoded = false;
  // The chunks come in while the page reads the ones before.
  const queue = [];
  let waiting = null;
  let failed = null;
  const info = {};
  let infoSettle = null;
  const infoDone = new Promise((resolve, reject) => { infoSettle = { resolve, reject }; });
  infoDone.catch(() => {}); // a page that stopped at a chunk's error never asks
  let last = false;
  const pump = () => {
    if (!waiting) return;
    const { resolve, reject } = waiting;
    if (queue.length) resolve(queue.shift());
    else if (failed) reject(failed);
    else if (last) resolve(null);
    else return;
    waiting = null;
  };
  const nextChunk = () => new Promise((resolve, reject) => { waiting = { resolve, reject }; pump(); });
  const fail = (e) => {
    if (decoded) {
      failed = e;
      pump();
      infoSettle.reject(e);
    } else settle.reject(e);
  };
  const end = (keep) => {
    over = true;
    // One that wrote memory ahead keeps it: not kept.
    if (keep && !spare && !w.ahead) spare = w;
    else w.worker.terminate();
  };
  w.ready.then(() => {
    if (over) return;
    w.worker.onmessage = (ev) => {
      const m = ev.data;
      if (m.progress != null) {
        onProgress(m.progress);
      } else if (m.chunk) {
        for (let i = 0; i < m.parts.length; i += 2) queue.push(new Uint8Array(m.chunk, m.parts[i], m.parts[i + 1]));
        pump();
      } else if (m.decoded) {
        decoded = true;
        settle.resolve({
          readMs: m.readMs, nextChunk, info: () => infoDone, release: () => release(),
          versionsNow: () => { if (!over) w.worker.postMessage({ versionsNow: true }); },
        });
      } else if (m.modelEnd) {
        last = true;
        pump();
      } else if (m.versions) {
        info.versions = m.versions;
      } else if (m.done) {
        // A large worker is ended by `release()`: the kernel's unmapping
        // of its memory holds up every memory map change of the page (a
        // wasm memory.grow waited 100-150 ms), so it waits for the page to
        // be done with the file.
        if (file.size < KEEP_BELOW) end(true);
        Object.assign(info, { finishMs: m.finishMs, memory: m.memory, pooled: m.pooled });
        infoSettle.resolve(info);
      } else if (m.error != null) {
        end(!m.trap && !m.oom);
        fail(m.trap || m.oom ? new WorkerTrap(file.name, m.panic || m.error, m.oom) : new Error(m.error));
      }
    };
    w.worker.onerror = (ev) => {
      ev.preventDefault();
      end(false);
      fail(new WorkerTrap(file.name, ev.message || 'the decode worker failed'));
    };
    w.worker.postMessage({ file, panic: panicNext, oom: oomNext });
    panicNext = null;
    oomNext = false;
  }, (e) => {
    end(false);
    settle.reject(Object.assign(new Error(`the decode worker did not start: ${e.message}`), { unavailable: true }));
  });
  const cancel = () => {
    if (over) return;
    end(false);
    fail(new Cancelled(file.name));
  };
  release = () => {
    if (!over) end(false);
  };
  // Buffers for the model's chunks, written ahead by the page (see the pool
  // in workerMain); moved to the worker.
  const give = (buffers) => {
    if (!over) w.worker.postMessage({ pool: buffers }, buffers);
  };
  return { done, cancel, give };
}
