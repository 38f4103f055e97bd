// memviz decode worker: both sides of its protocol are Rust's (crates/memviz-worker, docs/open.md). Here: the
// worker's script, its spawn (a blob: URL, so file:// works), and what outlives a trap on the page (`host`).
import { workerSetup } from './boot.js';

// Bytes between progress steps (files.rs CHUNK).
export const CHUNK = 4 << 20;

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

let blobUrl = null;

/** A failed open: `failure` (files.rs OpenFailure, which words it) and `detail`; the message names the file. */
export const failed = (name, failure, detail = failure) => Object.assign(new Error(`${name}: ${detail}`), { failure, detail });

/** What memviz-worker's page side (page.rs `Host`) borrows for one wasm instance: a trap there ends its
 * calls, so the workers it spawned and the promises it made (its waits for `page`'s next task and paint
 * too) are kept here, and `endAll(why)` ends them. `page.tell(e)`: what the page's code called from there threw. */
export function host(page) {
  const workers = new Set(), pending = new Set();
  let over = false;
  const track = (p) => { const d = h.deferred(); p.then(d.ok, d.no); return d; };
  const h = {
    spawn() {
      const setup = workerSetup();
      if (over || !setup || typeof Worker === 'undefined') return null;
      try {
        blobUrl ||= URL.createObjectURL(new Blob([`${setup.prelude}\n(${workerMain})(loadGlue);\n`],
          { type: 'text/javascript' }));
        const worker = new Worker(blobUrl, { type: setup.type, name: 'memviz decode' });
        worker.postMessage({ module: setup.module });
        workers.add(worker);
        return worker;
      } catch (e) {
        console.debug('memviz: no decode worker', e);
        return null;
      }
    },
    end(worker) { workers.delete(worker); worker.terminate(); },
    deferred() { // a rejection nobody awaits is no error
      let settle;
      const p = new Promise((ok, no) => { settle = { ok, no }; }), d = Object.assign(p, settle);
      pending.add(d);
      p.then(() => pending.delete(d), () => pending.delete(d));
      return d;
    },
    failed,
    tell: (e) => page.tell(e),
    nextTask: () => track(page.nextTask()),
    afterPaint: () => track(page.afterPaint()),
    endAll(why) {
      over = true;
      workers.forEach((w) => w.terminate());
      pending.forEach((d) => d.no(why));
    },
  };
  return h;
}
