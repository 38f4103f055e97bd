// memviz decode worker: reads and decodes a snapshot off the main thread, so
// that the page answers input, draws its progress bar and can cancel while a
// large file (up to gigabytes) decodes.
//
// The worker runs the same compiled wasm as the page (the WebAssembly.Module
// is posted to it, not compiled again) in its own instance: a `Decoder`
// (crates/memviz-wasm/src/decode.rs) is fed the file's slices, read in the
// worker, and its `finish()` gives the model in its binary form
// (crates/memviz-core/src/wire.rs), transferred back (no copy) for the
// page's Viewer to `adopt`. The worker's script comes from a blob: URL made
// here (the CSP allows worker-src blob:), so it also runs in the standalone
// file from file://; boot.js says how the worker gets the wasm-bindgen glue
// (`workerSetup`).
//
// One worker is kept spawned and instantiated ahead (`prewarm`, when the
// page is idle), so a file pays no start-up. A worker that read a large file
// is ended afterwards: its wasm memory stays as large as the file needed.
import { workerSetup } from './boot.js';

const CHUNK = 4 << 20; // bytes read from the file per slice (and per progress message)
const FEED = 1 << 20; // bytes copied into the worker's wasm memory per call
/** A worker that decoded more than this is ended rather than kept for the next file. */
const KEEP_BELOW = 32 << 20;

// The worker's program. Runs in the worker (its text goes into the blob after
// boot's prelude, which defines loadGlue): it refers to nothing outside it.
function workerMain(loadGlue, CHUNK, FEED) {
  let glue = null;
  const trapped = (e) => e instanceof WebAssembly.RuntimeError ||
    /recursive use of an object|null pointer passed to rust|unreachable/.test(String(e && e.message));
  self.onmessage = async (ev) => {
    const m = ev.data;
    if (m.module) {
      try {
        glue = await loadGlue();
        glue.initSync({ module: m.module });
        self.postMessage({ ready: true });
      } catch (e) {
        self.postMessage({ failed: String((e && e.message) || e) });
      }
      return;
    }
    const { file, panic } = m;
    const start = performance.now();
    let dec = null;
    try {
      dec = new glue.Decoder(file.name);
      let next = file.slice(0, CHUNK).arrayBuffer();
      for (let off = 0; off < file.size; off += CHUNK) {
        const bytes = new Uint8Array(await next);
        if (off + CHUNK < file.size) next = file.slice(off + CHUNK, off + 2 * CHUNK).arrayBuffer();
        for (let p = 0; p < bytes.length; p += FEED) dec.feed(bytes.subarray(p, p + FEED));
        self.postMessage({ progress: Math.min(off + CHUNK, file.size) });
        if (panic) dec.debug_panic(panic);
      }
      const t0 = performance.now();
      const wire = dec.finish();
      // Timings for the page's timings line: reading and decoding, then finish (to the wire form).
      self.postMessage({ wire: wire.buffer, readMs: t0 - start, finishMs: performance.now() - t0 }, [wire.buffer]);
      // The address versions, while the page reads the model.
      const versions = dec.versions();
      self.postMessage({ versions: versions.buffer }, [versions.buffer]);
    } catch (e) {
      const trap = trapped(e);
      let panic = null;
      try { panic = trap ? glue.panic_message() : null; } catch (_) { /* that instance is gone too */ }
      self.postMessage({ error: String((e && e.message) || e), trap, panic });
    } finally {
      try { if (dec) dec.free(); } catch (_) { /* after a trap */ }
    }
  };
}

let blobUrl = null;
let panicNext = null;

/** For the tests of the recovery from a trap: the next decode panics with `msg` after its first slice. */
export function debugPanicNext(msg) {
  panicNext = msg;
}

let spare = null; // {worker, ready}: spawned and instantiated ahead

/** A new worker and a promise that it has instantiated the wasm; null if the page cannot start one. */
function spawn() {
  const setup = workerSetup();
  if (!setup || typeof Worker === 'undefined') return null;
  try {
    if (!blobUrl) {
      const text = `${setup.prelude}\n(${workerMain})(loadGlue, ${CHUNK}, ${FEED});\n`;
      blobUrl = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
    }
    const worker = new Worker(blobUrl, { type: setup.type, name: 'memviz decode' });
    const ready = new Promise((resolve, reject) => {
      worker.onmessage = (ev) => (ev.data.ready ? resolve() : reject(new Error(ev.data.failed)));
      worker.onerror = (ev) => { ev.preventDefault(); reject(new Error(ev.message || 'the decode worker did not start')); };
    });
    ready.catch(() => worker.terminate());
    worker.postMessage({ module: setup.module });
    return { worker, ready };
  } catch (e) {
    console.debug('memviz: no decode worker', e);
    return null;
  }
}

/** Spawns the next worker ahead of time (when the page is idle), if none is waiting. */
export function prewarm() {
  if (!spare) spare = spawn();
}

/** Thrown by a decode that was cancelled. */
export class Cancelled extends Error {
  constructor(name) {
    super(`${name}: cancelled`);
    this.name = 'Cancelled';
  }
}

/**
 * Thrown when the worker's wasm trapped (a panic, out of memory): `detail` is
 * the panic's message (else the trap's); the message names the file too.
 */
export class WorkerTrap extends Error {
  constructor(name, detail) {
    super(`${name}: internal error in memviz: ${detail}`);
    this.name = 'WorkerTrap';
    this.detail = detail;
  }
}

/**
 * Decodes `file` in a worker. Returns null when no worker can run (the page
 * then decodes on its own thread), else `{ done, cancel }`: `done` resolves
 * to `{ wire, readMs, finishMs, versions }` (the model's wire bytes, an
 * ArrayBuffer; the worker's milliseconds reading + decoding and finishing; a
 * promise of the address versions' wire bytes, computed next, or null if
 * the worker could not) or rejects with the decoder's
 * error (its message names the file and the byte offset, as the page's own
 * decode says it), a Cancelled, a WorkerTrap, or an error with
 * `unavailable` set when the worker could not start; `cancel()` ends the worker
 * at once. `onProgress(bytesRead)` after each slice.
 */
export function decodeInWorker(file, onProgress) {
  const w = spare || spawn();
  spare = null;
  if (!w) return null;
  let settle = null;
  let over = false;
  const done = new Promise((resolve, reject) => { settle = { resolve, reject }; });
  let gotWire = false;
  let versionsArrived = null;
  const versions = new Promise((r) => { versionsArrived = r; });
  const end = (keep) => {
    over = true;
    if (keep && !spare) spare = w;
    else w.worker.terminate();
  };
  w.ready.then(() => {
    if (over) return;
    w.worker.onmessage = (ev) => {
      const m = ev.data;
      if (m.progress != null) {
        onProgress(m.progress);
      } else if (m.wire) {
        gotWire = true;
        settle.resolve({ wire: m.wire, readMs: m.readMs, finishMs: m.finishMs, versions });
      } else if (m.versions) {
        end(file.size < KEEP_BELOW);
        versionsArrived(m.versions);
      } else if (m.error != null) {
        end(!m.trap);
        // After the model: the page computes the versions itself.
        if (gotWire) versionsArrived(null);
        else settle.reject(m.trap ? new WorkerTrap(file.name, m.panic || m.error) : new Error(m.error));
      }
    };
    w.worker.onerror = (ev) => {
      ev.preventDefault();
      end(false);
      if (gotWire) versionsArrived(null);
      else settle.reject(new WorkerTrap(file.name, ev.message || 'the decode worker failed'));
    };
    w.worker.postMessage({ file, panic: panicNext });
    panicNext = null;
  }, (e) => {
    end(false);
    settle.reject(Object.assign(new Error(`the decode worker did not start: ${e.message}`), { unavailable: true }));
  });
  const cancel = () => {
    if (over) return;
    end(false);
    settle.reject(new Cancelled(file.name));
  };
  return { done, cancel };
}
