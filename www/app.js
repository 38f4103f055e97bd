//# allFunctionsCalledOnLoad
// memviz page glue: DOM events to the wasm Viewer; decoding, drawing and text are Rust's.
// Modules built on this one register hooks here (addViewHooks, addFormatHook, setOpenMany): no cycle.
import { wasmLoaded, reinstantiate } from './boot.js';
import { announce, silence } from './announce.js';
import { fill, add } from './bind.js';
import { hoverCard, pinCard, hideCard } from './card.js';
import { host, CHUNK } from './decode-worker.js';

const $ = (id) => document.getElementById(id);
// ?decode=worker or ?decode=page forces one way whatever the size (tests, benchmarks).
const DECODE = new URLSearchParams(location.search).get('decode');
// The Viewer, the wasm module's exports (a fresh copy after a trap), its decode workers (memviz-worker page.rs) and their host.
let viewer = null, bindings = null, workers = null, lent = null;
let queue = Promise.resolve(), lastHit = -1, firstPaintPending = false; // files are read one after the other
export const timings = {};
let viewHooks = null, formatHook = null; // views.js: {changed, draw, reset}; profiler.js: (file) -> promise

/** The current wasm Viewer, or null (before the wasm loads, while it restarts). */
export const getViewer = () => viewer;
/** A promise while a fresh wasm instance starts after a trap, else null. */
export const getRecovering = () => recovering;
export const addFormatHook = (fn) => { formatHook = fn; };
export const addViewHooks = (hooks) => { viewHooks = hooks; };
const generationListeners = [];
let lastGeneration = -1;
/** fn(p) when another file or device is shown, in the task that shows it, before its first paint (what belonged
 * to the one before goes then, not with the draw listeners a frame or two after the new plot). */
export const onGeneration = (fn) => generationListeners.push(fn);
const tell = (e) => (isTrap(e) ? crashed(e) : console.error('memviz:', e));
const started = (b) => { [bindings, viewer, lent] = [b, new b.Viewer(), host({ nextTask, afterPaint, tell })]; workers = b.decode_workers(lent); };
/** Resolves once the first Viewer exists (share.js opens files then). After every module ran (a promise
 * reaction): share.js's #file= fetches start before the CSP forbids them. */
export const ready = wasmLoaded.then((b) => {
  started(b);
  document.head.append(Object.assign(document.createElement('meta'), { httpEquiv: 'Content-Security-Policy', content: "connect-src 'none'" }));
  document.body.dataset.ready = '1';
});

// ---- the idle warm-up (docs/open.md): V8 compiles wasm lazily; Rust runs the open and draw paths a round a call.
const WARM_ROUNDS = 40;
const idle = window.requestIdleCallback || ((f) => setTimeout(f, 50));
const waitsForFile = () => !currentName && !(viewer && viewer.file_count() > 0);
const warmRound = () => {
  try {
    return !!viewer.open({ cmd: 'warm' });
  } catch (e) {
    if (isTrap(e)) crashed(e);
    document.body.dataset.warmError = String(e.message); // for the tests: the code stays cold
  }
};
// The selects' options, blank, made while idle: a file's first open then only names them (bind.js `refill`),
// decoded → render 0.1-1.1 ms sooner (issue 44's seventeenth session). The selects stay disabled, and look the same.
function blankOptions() {
  if (!viewer || openT0 || !waitsForFile()) return; // once, before any file: a restart's selects stay empty
  const p = viewer.command({ cmd: 'get' }); // no file: the views alone
  for (const [id, n] of [['file-select', 1], ['view-select', p.views.length], ['device-select', 1]]) {
    if (!$(id).options.length) add($(id), Array(n).fill(''));
  }
}
// The plot's canvases, transparent, three frames under a cover (style.css body.warming): their
// compositor buffers exist before a file (painted 7-10 ms sooner under 4 MB, docs/open.md).
async function warmCanvases() {
  document.body.classList.add('warming');
  try {
    for (let f = 0; f < 3 && waitsForFile(); f++) {
      for (const c of plotCanvases()) {
        sizeCanvas(c);
        c.getContext('2d').putImageData(new ImageData(c.width, c.height), 0, 0);
      }
      await afterPaint();
    }
  } finally {
    document.body.classList.remove('warming');
  }
}
wasmLoaded.then(() => {
  let round = 0;
  const step = (deadline) => {
    if (!round) workers?.warm(); // the open path's code, compiled on a small file of zeros
    let more;
    do more = !currentName && warmRound() && ++round < WARM_ROUNDS;
    while (more && deadline && deadline.timeRemaining() > 8);
    if (more) return idle(step);
    idle(() => {
      // A small file is decoded here: its tables take these pages again without their first write's cost.
      if (viewer && waitsForFile()) guard(() => viewer.open({ cmd: 'ahead', plan: 'small', file_bytes: 0 }))();
      prewarm(); // the decode worker, started ahead
      blankOptions();
      if (awaitsFile()) fileComing();
      warmCanvases().then(() => Object.assign(document.body.dataset, { warm: '1', warmRounds: round })); // tests and benchmarks: the idle work is done
    });
  };
  idle(step);
});

// ---- messages, commands ------------------------------------------------------
/** A dismissable message; a refusal (`PageError`) keeps its kind and offset as data-error-kind / -offset. */
function showMessage(cls, msg, err) {
  const div = Object.assign(document.createElement('div'), { className: cls });
  if (err && err.kind) Object.assign(div.dataset, { errorKind: err.kind, errorOffset: err.offset ?? '' });
  div.append(Object.assign(document.createElement('button'), { textContent: '×', title: 'Dismiss', onclick: () => div.remove() }), msg);
  $('errors').append(div);
}
export const showError = (msg, err) => showMessage('error', msg, err);

/** Runs a command of the viewer core (memviz_viewer::page). @param {import('./types').ViewCommand} cmd @returns {import('./types').PageView} */
export function command(cmd) {
  page = viewer.command(cmd);
  if (page.pointer) lastHit = page.pointer.hit;
  return page;
}
/** @type {import('./types').PageView | null} the last page view; during the draw listeners, one for all of them */
let page = null, listenersPage = null;
export const getPage = () => page;
export const pageNow = () => listenersPage ?? command({ cmd: 'get' });
let listenersGen = -1, listenersLater = false;
/** Runs `fn` after the frame that first shows a timeline and the next (the draw listeners' turn); what is
 * scheduled so before them runs just before them, in one style and layout with them (nameSelects). */
const inListenersTurn = (fn) => requestAnimationFrame(() => afterPaint().then(fn));
// The draw listeners (panels, markers); for another file or device, after the frame that first shows
// its timeline and the next: the timeline is on screen 10-20 ms sooner, the panels 16 ms later.
function runDrawListeners() {
  if (viewer.generation() !== listenersGen) {
    if (!listenersLater) {
      listenersLater = true;
      const run = guard(() => { listenersGen = viewer.generation(); runDrawListeners(); });
      inListenersTurn(() => { listenersLater = false; run(); });
    }
    return;
  }
  listenersPage = command({ cmd: 'get' });
  try {
    for (const f of drawListeners) f();
  } finally {
    listenersPage = null;
  }
}
/** Whether this file's draw listeners (the Findings strip, panels, markers) have run: the layout is settled. */
export const listenersSettled = () => !!viewer && viewer.generation() === listenersGen;
/** Runs now the listeners a new file waits for: a call right after an open must not be undone by their reset. */
export function settleListeners() {
  if (viewer && viewer.generation() !== listenersGen) { listenersGen = viewer.generation(); runDrawListeners(); }
}
/** CSS x on the plot of timeline step `step` (NaN: off the window or no timeline). */
export const xOfStep = (step) => command({ cmd: 'x_of_step', step }).value ?? NaN;

// A task of its own by a message: setTimeout(0) is clamped to 4 ms after five hops (docs/open.md).
const hop = new MessageChannel(), hopWaiting = [];
hop.port1.onmessage = () => hopWaiting.shift()();
const nextTask = () => new Promise((r) => { hopWaiting.push(r); hop.port2.postMessage(0); });
// A long job's slice before the page has a turn; a frame's work past ALONE_MS leaves what it shows to the next frame.
const SLICE_MS = 8;
export const ALONE_MS = SLICE_MS / 2;

// ---- performance marks per open (file-received, decoded, first-paint), cleared at once: observers read them.
let openT0 = 0;
const mark = (name) => { performance.mark(name); performance.clearMarks(name); };
function markReceived() {
  [openT0, timings.worker] = [performance.now(), null];
  mark('memviz:file-received');
}
function markDecoded() {
  [timings.decode, firstPaintPending] = [performance.now() - openT0, true];
  mark('memviz:decoded');
}
function markFirstPaint() {
  timings.firstPaint = performance.now() - openT0;
  mark('memviz:first-paint');
}

// ---- a trap in the wasm (a panic, out of memory): the page names it and starts a fresh instance.
let currentName = '', recovering = null, crashes = 0; // the file read or shown; a promise while the fresh instance starts
const isTrap = (e) => e instanceof WebAssembly.RuntimeError;
addEventListener('error', (ev) => { if (isTrap(ev.error)) crashed(ev.error); }); // a trap in Rust an event called

function crashed(e) {
  if (recovering) return;
  let msg = null;
  try { msg = bindings && bindings.panic_message(); } catch (_) { /* that instance is gone too */ }
  msg ||= `${(e && e.name) || 'Error'}: ${(e && e.message) || e} (a trap in the wasm code: out of memory?)`;
  const name = currentName;
  // The old Viewer stays borrowed: dropped without a call into it.
  try { if (viewer && viewer.__destroy_into_raw) viewer.__destroy_into_raw(); } catch (_) { /* nothing to do */ }
  [viewer, currentName, workers] = [null, '', null];
  lent.endAll(e); // that instance's workers end, the promises it made reject with its trap
  document.body.dataset.crashes = String(++crashes);
  showError(`internal error in memviz: ${msg}; the file could not be shown${name ? ` (${name})` : ''}. ` +
    'The viewer restarted: open a file again.');
  resetControls();
  recovering = reinstantiate()
    .then((b) => {
      started(b);
      document.body.dataset.restarts = String(crashes);
    })
    .catch((err) => showError(`memviz could not restart (${(err && err.message) || err}): reload the page.`))
    .finally(() => { recovering = null; });
}

/** The busy note of a build by `owner` (its cancelled()), `done` 0 to 1; hidden unless a later build shows its own
 * (emptied: its progress without a value is indeterminate again). */
let busyOwner = null;
function showBusy(text, done, owner) {
  busyOwner = owner;
  fill($('busy'), { text, done, shown: true });
}
const hideBusy = (owner) => { if (owner === busyOwner) fill($('busy'), {}); };

// Runs `fn` once the analysis and (unless `state` is false) the state history are built: at once, or
// a slice a frame; calls meanwhile wait for the same build, in order; another file or device cancels it.
let analysisBuild = null; // { v, k, fns, state } while a build runs
export function withAnalysis(fn, { state = true } = {}) {
  if (!viewer) return;
  const v = viewer, k = v.generation(), b = analysisBuild;
  if (b && b.v === v && b.k === k) {
    b.fns.push(fn);
    b.state ||= state;
    return;
  }
  const me = { v, k, fns: [fn], state };
  analysisBuild = me;
  const cancelled = () => analysisBuild !== me || viewer !== v || v.generation() !== k;
  const run = () => {
    for (const f of me.fns) guard(f)();
    if (analysisBuild === me) analysisBuild = null; // in this task: a later call builds (or runs) anew
  };
  build(() => ({ work: 'analysis', state: me.state }), SLICE_MS, cancelled, run)
    .then((slices) => { if (slices && slices.length > 1) document.body.dataset.analysisSlices = slices.map((x) => x.toFixed(1)).join(','); }) // benches/browser
    .finally(() => { if (analysisBuild === me) analysisBuild = null; });
}

/** Wraps a handler: nothing while no viewer, a trap ends in crashed(). */
export function guard(fn) {
  return function (...args) {
    if (!viewer) return undefined;
    try { return fn.apply(this, args); } catch (e) { if (!isTrap(e)) throw e; crashed(e); }
  };
}

/** Empties the controls, the summary and the canvases (no file open). */
function resetControls() {
  selectsDue = null;
  for (const id of ['file-select', 'device-select', 'view-select']) fill($(id), {});
  $('detail').disabled = $('reset-zoom').disabled = true;
  for (const id of ['summary', 'context', 'timings', 'detail-label']) $(id).textContent = '';
  hideCard(true);
  $('hint').hidden = false;
  document.body.dataset.page = 'start';
  $('progress-box').hidden = true;
  for (const c of [...plotCanvases(), $('segment-map')]) c.getContext('2d').clearRect(0, 0, c.width, c.height);
  delete $('plot').dataset.bandsDrawn;
  kb = null;
  $('plot-cursor').hidden = true;
  silence();
  if (viewHooks) viewHooks.reset();
  for (const f of drawListeners) f();
}
/** The timeline's canvases, in the order viewer.render takes them. */
const plotCanvases = () => ['plot', 'plot-select', 'axes', 'minimap'].map($);

// ---- opening files -------------------------------------------------------
/** The line files.rs `failed` words for `name`'s failed open: `e` a PageError, a `failed` one, else an Error of kind `failure`. */
export const failedLine = (name, e, failure = 'refused') =>
  viewer.open({ cmd: 'failed', name, failure: e.failure ?? failure, detail: e.detail ?? String(e.message ?? e) }).failed;
// Reads `file` into the viewer (the current file); resolves to its index. memviz-worker's open.rs does it: files.rs's
// plan, then the worker's decode (its model adopted here a task at a time) or a read here, a task every CHUNK.
// onProgress(read) each CHUNK, onBuild() before the build, job.cancel stops the read; rejects with a PageError, a
// failed open (a profiler export: `profiler`), or the trap.
export async function loadFile(file, onProgress, onBuild, job = {}) {
  const kind = (k) => { document.body.dataset.fileKind = k; }; // for tests
  const o = workers.open(viewer, file, { progress: onProgress, building: onBuild, kind, force: DECODE });
  job.cancel = o.cancel;
  delete document.body.dataset.versionsFrom;
  const { file: i, decodedIn, got, worker } = await o.done;
  job.cancel = null;
  document.body.dataset.decodedIn = decodedIn; // for tests
  readHere = !got;
  if (got) {
    versionsOf(i, got, timings.worker = worker); // the versions' steps and the worker's finish are added to it
    await nextTask(); // the first draw in a task of its own too
  }
  return i;
}
let readHere = false; // the last file loadFile read was read on this thread

// The address versions of file `i`, made by the worker once the file is painted, read a piece an idle callback.
function versionsOf(i, got, ms) {
  const v = viewer;
  afterPaint().then(() => got.versionsNow());
  got.info().then(async (info) => {
    ms.finish = info.finishMs;
    document.body.dataset.workerMemory = info.memory; // for the benchmarks
    for (const b of info.versions) {
      await new Promise((ok) => idle(ok));
      if (viewer !== v) return;
      Object.assign(ms, v.open({ cmd: 'versions_chunk', file: i }, new Uint8Array(b)).worker);
    }
    Object.assign(ms, v.open({ cmd: 'versions_end', file: i }).worker);
    document.body.dataset.versionsFrom = 'worker'; // for tests
    if (pageNow().file === i && lastHit >= 0 && $('context').textContent.includes('_…')) {
      showContext(command({ cmd: 'element', element: lastHit }).text);
    }
  }).catch((e) => {
    if (viewer !== v) return;
    if (isTrap(e)) return crashed(e);
    console.warn('memviz: the address versions will be computed on the page', e);
    guard(() => v.open({ cmd: 'versions_lost', file: i }))();
  }).finally(() => whenSettled(() => got.release())); // the worker ends once the page settled
}

const prewarm = () => workers?.prewarm(); // the next file's decode worker, spawned ahead
/** The next decode in a worker panics with `why` ('oom': runs out of memory): tests of the recovery. */
export const debugNext = (why) => workers?.debugNext(why);
export const getWorkers = () => workers;
/** Resolves after the next frame is painted (the text just set is on screen). */
export const afterPaint = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

let reading = null, waiting = 0; // the read in progress ({cancel}); files opened and not yet read
$('cancel-open').addEventListener('click', () => reading && reading.cancel && reading.cancel());

async function readFile(file) {
  waiting--;
  if (recovering) await recovering;
  if (!viewer) return;
  const shown = currentName;
  currentName = file.name;
  markReceived();
  const big = file.size > CHUNK; // else it opens in one go: no progress line (its text: files.rs `progress`)
  const say = (read, building = false) => {
    $('progress-text').textContent = viewer.open({ cmd: 'progress', name: file.name, size: file.size, read, building, waiting }).text;
  };
  if (big) { $('progress-box').hidden = false; $('progress').value = 0; say(null); }
  const onProgress = (done) => { $('progress').value = done / file.size; say(done); };
  const onBuild = () => { $('cancel-open').disabled = true; say(null, true); };
  reading = {};
  $('cancel-open').disabled = false;
  try {
    await loadFile(file, onProgress, onBuild, reading);
  } catch (e) {
    if (isTrap(e)) return crashed(e);
    currentName = shown; // the file shown before stays
    if (e.profiler && formatHook) return formatHook(file);
    if (recovering) await recovering; // another call trapped meanwhile: the fresh viewer words it
    if (!viewer) return;
    // A worker's trap leaves this page's viewer fine; a PageError names the file and the byte offset.
    const line = failedLine(file.name, e);
    showMessage(line.announce ? 'notice' : 'error', line.text, e);
    if (line.announce) announce(line.announce);
    return;
  } finally {
    reading = null;
    if (big) $('progress-box').hidden = true;
    idle(prewarm); // the next file's worker, if this one used it up
  }
  markDecoded();
  opened();
  if (big) await nextTask(); // a large file's controls and its first draw in two tasks
  if (firstPaintPending) drawNow();
  // Read here: the worker that wrote memory ahead for it ends once the page settled.
  if (readHere) afterPaint().then(() => noFileCame(whenSettled));
}

let openMany = null; // ranks.js: reads several files opened at once (overview, per-file progress)
export const setOpenMany = (fn) => { openMany = fn; };

/** Opens File objects one after the other; resolves when all are read. */
export function openFiles(files) {
  if (files.length > 1 && openMany) {
    // The timings line then covers the whole batch: every file read, the first drawn.
    queue = queue.then(async () => {
      markReceived();
      await openMany(files);
      markDecoded();
      drawNow();
    });
    return queue;
  }
  waiting += files.length;
  for (const f of files) queue = queue.then(() => readFile(f));
  return queue;
}

function openExample() {
  currentName = 'the example';
  markReceived();
  try {
    viewer.open({ cmd: 'example' });
  } catch (e) {
    return isTrap(e) ? crashed(e) : showError(failedLine('the example', e).text, e);
  }
  markDecoded();
  opened();
  drawNow();
}

// ---- controls --------------------------------------------------------------
/** A file was opened: its warnings (what the reader left out), then its controls. */
const opened = guard(function () {
  const p = command({ cmd: 'get' });
  if (p.warnings.length) showMessage('warning', p.warnings.join('\n'));
  viewChanged(p, true);
});

/** Shows open file `i` (on `device`, else its default device) with its controls (ranks.js). */
export const showFile = guard(function (i, device) {
  viewChanged(command({ cmd: 'set_file', file: i, device: device ?? null }), true);
});

let selectsDue = null; // {p, files}: the selects' naming, left to the frame after a file's first paint

/** Names the file, view and device selects from `p` (index.html's templates; the file and view ones
 * when `files`). Before a file's first paint it is left to the draw listeners' turn (`inListenersTurn`,
 * scheduled before them: one style and layout for both): changing the selects in the first frame made it
 * 4-10 ms later (issue 44's seventeenth session), and in the frame after, that one 10 ms later. style.css
 * gives them fixed widths, so naming them late moves nothing. The latest `p` is the one named.
 * @param {import('./types').PageView} p */
function nameSelects(p, files, now = !firstPaintPending) {
  files ||= !!selectsDue?.files;
  if (!now) {
    const name = () => { if (selectsDue) nameSelects(selectsDue.p, false, true); };
    if (!selectsDue) inListenersTurn(name);
    selectsDue = { p, files };
    return;
  }
  selectsDue = null;
  if (files) for (const id of ['file-select', 'view-select']) fill($(id), p);
  fill($('device-select'), p);
}

/** @param {import('./types').PageView} p */
function viewChanged(p, files = false) {
  document.body.dataset.page = 'snapshot'; // style.css: the snapshot's panels show
  document.body.dataset.findingsRoom = p.findings_room; // style.css: kept from the first frame
  if (p.generation !== lastGeneration) { lastGeneration = p.generation; for (const fn of generationListeners) fn(p); }
  $('hint').hidden = true;
  nameSelects(p, files);
  pendingDetail = null; // the slider now shows this view's detail
  currentName = p.files[p.file] || currentName;
  const slider = $('detail');
  slider.max = p.elements;
  slider.value = p.detail;
  slider.disabled = $('reset-zoom').disabled = false;
  $('context').textContent = '';
  hideCard(true);
  fill($('summary'), p); // data-k / data-v: `memviz summary --json`'s names, exact values (tests)
  fill($('detail-box'), p); // the detail's text and unit
  if (viewHooks) viewHooks.changed(p); // views.js: pools, state history, settings
  redraw();
}


// A real button (focusable, Enter / Space) that opens the hidden file input.
$('open-files').addEventListener('click', () => $('file-input').click());
$('file-input').addEventListener('change', (e) => {
  openFiles(Array.from(e.target.files));
  e.target.value = '';
});
// A file is on its way (the button pressed, files dragged over the page): the decode
// worker writes memory ahead meanwhile (expectFile); let go if none comes.
const fileComing = () => workers?.expectFile((bytes) => { document.body.dataset.aheadWritten = bytes; }); // for tests
/** The page waits for the user's file: none open or read, none coming another way (share.js). */
const awaitsFile = () => waitsForFile() && window.parent === window &&
  !document.getElementById('memviz-embedded-snapshot') && !/(^#|&)file=/.test(location.hash);
/** None came (to the worker): that worker ends after `wait(end)`, then the next is spawned when idle. */
const noFileCame = (wait = (end) => end()) => workers?.noFile((end) => wait(() => { end(); idle(prewarm); }));
$('open-files').addEventListener('pointerdown', fileComing);
$('open-files').addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') fileComing(); });
$('file-input').addEventListener('cancel', () => noFileCame());
$('example').addEventListener('click', guard(() => openExample()));
$('file-select').addEventListener('change', guard((e) => viewChanged(command({ cmd: 'set_file', file: +e.target.value, device: null }))));
$('device-select').addEventListener('change', guard((e) => viewChanged(command({ cmd: 'set_device', device: +e.target.value }))));
$('view-select').addEventListener('change', (e) => showView(+e.target.value));

// ---- long work, a slice a frame (docs/page-code.md) ---------------------------------
const finished = (done) => done === 1 || done === true;
const nextFrame = () => new Promise((r) => requestAnimationFrame(r));
/** Runs `step` (a bounded wasm call: 1 or true once done, undefined after a trap) SLICE_MS a
 * frame, `firstMs` in the caller's task. [] when quickly done, else a promise of the slices'
 * ms (null once `cancelled()` or trapped), a frame after the last one. */
export function inSlices(step, { firstMs = SLICE_MS, cancelled, progress = (_done) => {} }) {
  const slice = (ms) => {
    const t0 = performance.now();
    let done;
    do done = step(); while (!finished(done) && done !== undefined && performance.now() - t0 < ms);
    return [done, performance.now() - t0];
  };
  let [done, took] = slice(firstMs);
  if (done === undefined) return null;
  if (finished(done) && took < SLICE_MS / 4) return [];
  const slices = [took];
  return (async () => {
    while (!finished(done)) {
      progress(done);
      await nextFrame();
      if (cancelled()) return null;
      [done, took] = slice(SLICE_MS);
      if (done === undefined) return null;
      slices.push(took);
    }
    await nextFrame();
    return cancelled() ? null : slices;
  })();
}

/** Builds the viewer's work `w()` (memviz_viewer::work) through inSlices, the busy note saying
 * what; then `then()` unless cancelled (in this task when quick), its ms the last slice. */
export async function build(w, firstMs, cancelled, then, layout) {
  const v = viewer;
  let label = '';
  const tick = guard(() => { const p = v.tick(w()); label = p.label; return p.busy ? p.share : 1; });
  const r = inSlices(tick, { firstMs, cancelled, progress: (done) => showBusy(label, done, cancelled) });
  let slices = r;
  if (r instanceof Promise) try { slices = await r; } finally { hideBusy(cancelled); }
  if (!slices) return null;
  const t0 = performance.now();
  then();
  if (layout || r instanceof Promise) void document.body.offsetHeight;
  slices.push(performance.now() - t0);
  return slices;
}

let viewToken = 0;
/** Shows view `i` (the selector's value), built first when it needs it; then `then()`. */
export async function showView(i, then = () => {}) {
  if (!viewer) return;
  const v = viewer, token = ++viewToken, g = v.generation(), view = page.views[i];
  const slices = await build(() => ({ work: 'view', view: view.id }), 0,
    () => token !== viewToken || viewer !== v || v.generation() !== g,
    guard(() => { viewChanged(command({ cmd: 'set_view', view: view.id })); then(); }), true);
  if (slices) $('view-select').dataset.viewSlices = slices.map((x) => x.toFixed(1)).join(','); // benches/browser
}

// The slider's value is applied by the next draw: one set_detail a frame (docs/page-code.md).
let pendingDetail = null, detailDeferred = false; // the last frame set the detail and left its draw to this one
$('detail').addEventListener('input', guard((e) => {
  pendingDetail = +e.target.value;
  redraw();
}));
$('reset-zoom').addEventListener('click', guard(() => { command({ cmd: 'reset_window' }); redraw(); }));

// ---- drag and drop anywhere ------------------------------------------------
let dragDepth = 0;
const dropped = (files = []) => {
  [dragDepth, $('drop-overlay').hidden] = [0, true];
  if (files.length && (viewer || recovering)) openFiles(files); else noFileCame(); // files wait for a restart
};
addEventListener('dragenter', (e) => {
  e.preventDefault();
  if (!dragDepth++ && e.dataTransfer && e.dataTransfer.types.includes('Files')) fileComing();
  $('drop-overlay').hidden = false;
});
addEventListener('dragleave', () => { if (--dragDepth <= 0) dropped(); });
addEventListener('dragover', (e) => e.preventDefault());
addEventListener('drop', (e) => { e.preventDefault(); dropped(e.dataTransfer ? Array.from(e.dataTransfer.files) : []); });

// ---- drawing ---------------------------------------------------------------
let frame = 0, selectionFrame = 0;
/** Draws the current view in the next animation frame (once however often called). */
export function redraw() {
  if (!frame) frame = requestAnimationFrame(guard(draw));
}

/** The hovered or pinned band changed: its outline alone is drawn in the next frame, or the
 * plot where the view draws it with its bands. */
function redrawSelection() {
  if (frame || selectionFrame) return; // that draw draws the outline too
  selectionFrame = requestAnimationFrame(guard(() => {
    selectionFrame = 0;
    if (frame || !viewer || viewer.file_count() === 0) return;
    const c = $('plot-select');
    sizeCanvas(c);
    if (!viewer.render_selection(c)) draw();
  }));
}

const drawListeners = [];
/** fn() after each timeline draw (moment.js moves its t line with the plot). */
export const onDraw = (fn) => drawListeners.push(fn);

/** Draws in this task: a file just opened is drawn in the task that decoded it (issue 13). */
function drawNow() {
  cancelAnimationFrame(frame);
  guard(draw)();
}

// Each canvas's CSS size as a ResizeObserver last saw it (clientWidth forced a layout: docs/page-code.md).
const seenSize = new WeakMap();
const sizes = new ResizeObserver((entries) => {
  let changed = false; // a canvas drawn at this size already (the first file's) needs no second draw
  for (const { target: c, contentRect: r } of entries) {
    const seen = [Math.round(r.width), Math.round(r.height)];
    seenSize.set(c, seen);
    const [w, h] = backing(seen);
    changed ||= c.width !== w || c.height !== h;
  }
  if (changed) redraw();
});
for (const c of plotCanvases()) sizes.observe(c);

/** Sizes canvas `c`'s backing store to its CSS size at the devicePixelRatio. */
export function sizeCanvas(c) {
  const seen = seenSize.get(c);
  const [w, h] = backing(seen && seen[0] > 0 && seen[1] > 0 ? seen : [c.clientWidth, c.clientHeight]);
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
}
/** Device pixels of a canvas of CSS size [w, h] at the devicePixelRatio (at least 1). */
const backing = (css) => css.map((x) => Math.max(1, Math.round(x * (window.devicePixelRatio || 1))));

function draw() {
  frame = 0;
  if (!viewer || viewer.file_count() === 0) return;
  if (pendingDetail !== null && !detailDeferred) {
    const t0 = performance.now();
    fill($('detail-box'), command({ cmd: 'set_detail', detail: pendingDetail }));
    pendingDetail = null;
    if (performance.now() - t0 > ALONE_MS) { // a long set_detail leaves the draw to the next frame
      detailDeferred = true;
      return redraw();
    }
  }
  detailDeferred = false;
  if (viewHooks && viewHooks.draw()) return runDrawListeners(); // drawn by views.js
  const canvases = plotCanvases();
  for (const c of canvases) sizeCanvas(c);
  const r0 = performance.now();
  performance.mark('memviz:redraw-start');
  const st = viewer.render(...canvases);
  const r1 = performance.now();
  performance.measure('memviz:redraw', { start: r0, end: r1 });
  performance.clearMarks('memviz:redraw-start');
  performance.clearMeasures('memviz:redraw');
  $('plot').dataset.bandsDrawn = st.bands_drawn;
  if (firstPaintPending) { firstPaintPending = false; markFirstPaint(); }
  const redrawMs = { redraw_ms: r1 - r0, bands_ms: st.bands_ms, axes_ms: st.axes_ms, bands_drawn: st.bands_drawn, columns: st.columns };
  $('timings').textContent = viewer.panel({ cmd: 'timings', open: timings, redraw: redrawMs }).text;
  st.free();
  if (kbRehover && kb) plotKey(''); // a key moved the window: what is under the cursor now
  kbRehover = false;
  runDrawListeners();
  if (!prepareScheduled) { // what the first hover needs, built in an idle period with room
    prepareScheduled = true;
    const prepare = (deadline) => {
      if (deadline && deadline.timeRemaining() < 40) return idle(prepare);
      prepareScheduled = false;
      guard(() => { if (viewer.file_count() > 0) command({ cmd: 'prepare_hover' }); })();
    };
    idle(prepare);
  }
}
let prepareScheduled = false; // a prepare_hover is scheduled

/** Runs `fn` in an idle period with room once prepare_hover is done (ending a large worker holds
 * up this page's memory map changes: docs/page-code.md). */
function whenSettled(fn) {
  idle((deadline) => ((prepareScheduled || (deadline && deadline.timeRemaining() < 40)) ? whenSettled(fn) : fn()));
}

addEventListener('resize', redraw);

// ---- plot: hover, click to pin, wheel zoom, drag pan, keys -----------------
const plot = $('plot'), cursor = $('plot-cursor'), pinListeners = [];
/** fn(x) after a band is pinned (a click, or Enter at the keyboard cursor); x: CSS px on the plot. */
export const onPin = (fn) => pinListeners.push(fn);

/** The hover / pinned text: in #context, and said to screen readers (debounced). */
function showContext(text) { announce($('context').textContent = text); }

const client = (x, y) => { const r = plot.getBoundingClientRect(); return [r.left + x, r.top + y]; }; // plot px -> client

/** What the pointer (or the keyboard cursor) is over now, at client (cx, cy). @param {import('./types').PointerView} at */
function hovered(at, cx, cy) {
  if (at.changed) { showContext(at.context); redrawSelection(); }
  hoverCard(at, cx, cy);
}

/** The page view `p` after a click (or Enter, Escape) at plot (x, y): x < 0 unpinned. */
function pinned(p, x, y) {
  showContext(p.pointer.context);
  pinCard(p.pinned != null ? p.pointer.card : null, ...client(x, y));
  redrawSelection();
  if (x >= 0) for (const f of pinListeners) f(x);
}

/** Follows up what a key or a pointer event on the plot did (`p.key`; a pointer's at client point `c`);
 * false: not the plot's. @param {import('./types').PageView} p */
function did(p, c = null) {
  const { did, at } = p.key;
  if (did === 'moved') redraw();
  else if (did === 'hover') hovered(p.pointer, ...(c ?? client(...at)));
  else if (did === 'leave') { $('context').textContent = p.pointer.context; hideCard(); redrawSelection(); }
  else if (did !== 'none') pinned(p, did === 'pin' ? at[0] : -1, at[1]);
  return did !== 'none';
}

// The plot's and the minimap's pointer: the viewer keeps the press and says what each event did
// (memviz_viewer::pointer: a click pins, a drag pans or brushes, the wheel zooms, a minimap click centers).
const mini = $('minimap');
/** @param {import('./types').PointerOn} on */
const pointer = (on, el) => guard((e) => {
  if (on === 'wheel') e.preventDefault();
  if (on === 'down') el.setPointerCapture(e.pointerId);
  if (on === 'move' && el === mini && !e.buttons) return; // no brush under way: nothing to ask
  if (on === 'move' && el === plot) cursor.hidden = true; // the mouse has taken over from the keyboard cursor
  const dy = on === 'wheel' ? e.deltaY : 0;
  did(command({ cmd: 'pointer', on, mini: el === mini, x: e.offsetX, y: e.offsetY, width: el.clientWidth, dy }), [e.clientX, e.clientY]);
});
for (const on of /** @type {const} */ (['down', 'move', 'up', 'leave'])) {
  for (const el of [plot, mini]) el.addEventListener(`pointer${on}`, pointer(on, el));
}
plot.addEventListener('wheel', pointer('wheel', plot), { passive: false });

// The keyboard cursor (memviz_viewer::keys), a ring (#plot-cursor) while the plot has focus.
let kb = null, kbRehover = false; // its [x, y] as the viewer placed it; hover there after the next render

function placeCursor() {
  if ((cursor.hidden = !kb || document.activeElement !== plot)) return;
  cursor.style.left = `${plot.offsetLeft + kb[0]}px`;
  cursor.style.top = `${plot.offsetTop + kb[1]}px`;
}

/** Key `key` ("" hovers) at the keyboard cursor; whether it was the plot's. */
function plotKey(key, shift = false) {
  const p = command({ cmd: 'plot_key', key, shift, width: plot.clientWidth, height: plot.clientHeight });
  if (!did(p)) return false;
  [kb, kbRehover] = [p.key.at, kbRehover || p.key.did === 'moved'];
  placeCursor();
  return true;
}

const hasFile = () => viewer && viewer.file_count() > 0 && !$('plot-box').hidden && plot.clientWidth > 0;
// Focus from the keyboard (Tab): show the cursor and what is under it.
plot.addEventListener('focus', guard(() => { if (hasFile() && plot.matches(':focus-visible')) plotKey(''); }));
plot.addEventListener('blur', () => { cursor.hidden = true; });
plot.addEventListener('keydown', guard((e) => {
  if (!e.altKey && !e.ctrlKey && !e.metaKey && hasFile() && plotKey(e.key, e.shiftKey)) e.preventDefault();
}));
addEventListener('resize', () => { if (kb) placeCursor(); });
