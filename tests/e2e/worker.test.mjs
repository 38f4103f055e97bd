// Decoding in a Web Worker (issue 13; www/decode-worker.js): while a
// generated ~20 MB snapshot decodes, the progress bar moves and the page keeps
// drawing frames; Cancel stops the read and the file shown before stays as it
// was; a file opened during the decode opens too; the standalone file opens
// a real snapshot through the worker from file://; a trap in the worker is
// reported and leaves the page's viewer alone; several files at once
// (ranks.js) take the same path. Numbers are checked
// against Python's own pickle module (tests/reference/expected and a few
// lines of Python here), never against the page's code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import {
  ROOT, DIST, SNAPSHOTS, useBrowser, browser, waitReady, openPage, newPage, dropFiles, snapshot, expected, waitOpened, shownSummary,
} from './helpers.mjs';

const SHOWN = 'transformer_forward_bf16.pickle'; // open before the big one
const SECOND = 'small_train_step.pickle'; // opened while the big one decodes
const BIG = 'gen_worker.pickle';

let dir, big, bigRef;
useBrowser();
before(async () => {
  assert.ok(existsSync(join(SNAPSHOTS, SHOWN)), `${SNAPSHOTS}/${SHOWN} is missing`);
  dir = mkdtempSync(join(tmpdir(), 'memviz-worker-'));
  big = join(dir, BIG);
  execFileSync('python3', [join(ROOT, '../shared/tools/gen_snapshot.py'), big, '--events', '350000', '--seed', '3']);
  assert.ok(statSync(big).size > 16 << 20, `${big}: ${statSync(big).size} bytes`);
  // The reference: Python's own pickle module reads the file.
  bigRef = JSON.parse(execFileSync('python3', ['-c', `
import json, pickle, sys
s = pickle.load(open(sys.argv[1], 'rb'))
# memory_viz's address versions: an address's count of free_completed so far.
seen, last = {}, None
for e in s['device_traces'][0]:
    a = e['addr']
    if e['action'] == 'alloc' and seen.get(a, 0) > 0:
        last = {'addr': 'b%x_%d' % (a, seen[a]), 'size': e['size']}
    elif e['action'] == 'free_completed':
        seen[a] = seen.get(a, 0) + 1
print(json.dumps({'trace_events': len(s['device_traces'][0]),
                  'segments': sum(1 for g in s['segments'] if g['device'] == 0),
                  'reused': last}))`, big]));
});
after(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Records, in the page, from now on: every progress value shown, the
 * requestAnimationFrame timestamps while the big file is read (until its
 * "Building the timeline" line), and on the first progress, runs `onFirst`
 * ('cancel': clicks Cancel; 'drop': drops SECOND onto the page).
 */
async function watch(page, onFirst, second) {
  await page.evaluate(([onFirst, second]) => {
    const w = (window.watch = { progress: [], frames: [], building: false, acted: false, longTasks: [] });
    // Tasks of 50 ms or more on the page's thread (frame gaps also count the VM's and compositor's pauses).
    new PerformanceObserver((l) => { for (const t of l.getEntries()) w.longTasks.push([t.startTime, t.duration]); })
      .observe({ entryTypes: ['longtask'] });
    const box = document.getElementById('progress-box');
    new MutationObserver(() => {
      const text = document.getElementById('progress-text').textContent;
      if (/^Building the timeline/.test(text) && !w.building) {
        w.building = true;
        w.buildingAt = performance.now();
      }
      const v = document.getElementById('progress').value;
      if (!box.hidden && v > 0 && v !== w.progress[w.progress.length - 1]) w.progress.push(v);
      if (w.progress.length && !w.acted) {
        w.acted = true;
        if (onFirst === 'cancel') document.getElementById('cancel-open').click();
        if (onFirst === 'drop') {
          const dt = new DataTransfer();
          dt.items.add(new File([Uint8Array.from(atob(second), (c) => c.charCodeAt(0))], 'small_train_step.pickle'));
          for (const type of ['dragenter', 'dragover', 'drop']) {
            document.getElementById('plot-box').dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
          }
        }
      }
    }).observe(box, { attributes: true, subtree: true, characterData: true, childList: true });
    const tick = (t) => {
      if (w.building || w.done) return;
      w.frames.push(t);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, [onFirst, second ? Buffer.from(second).toString('base64') : null]);
}

const maxGap = (ts) => Math.max(...ts.slice(1).map((t, i) => t - ts[i]));

/** A fresh page showing SHOWN, the file that must stay while the big one fails or is cancelled; its summary. */
async function pageShowing() {
  const { page, context, errors } = await openPage();
  await dropFiles(page, [[SHOWN, snapshot(SHOWN)]]);
  await waitOpened(page, SHOWN);
  return { page, context, errors, before: await shownSummary(page) };
}

/** After a failed open: a fresh worker reads the big file, with its numbers. */
async function bigOpensAgain(page) {
  await page.setInputFiles('#file-input', big);
  await waitOpened(page, BIG);
  assert.equal((await shownSummary(page)).trace_events, bigRef.trace_events);
}

test('a 20 MB file decodes in the worker: progress moves, frames keep coming, its numbers are right', async () => {
  const { page, context, errors } = await openPage();
  // The page's idle warm-up (a long task by design) is over before the file comes.
  await page.waitForFunction(() => document.body.dataset.warm === '1', null, { timeout: 30000 });
  await watch(page, null);
  await page.setInputFiles('#file-input', big);
  await waitOpened(page, BIG);
  const w = await page.evaluate(() => window.watch);
  assert.equal(await page.evaluate(() => document.body.dataset.decodedIn), 'worker');
  // The worker's address versions, read after the file opened: a reused
  // address is named with the version Python gives it.
  await page.waitForFunction(() => document.body.dataset.versionsFrom === 'worker', null, { timeout: 30000 });
  const { addr, size } = bigRef.reused;
  const found = await page.evaluate((q) => {
    const v = window.memviz.viewer;
    const s = v.command({ cmd: 'search', by: 'address', text: q }).search;
    return { n: s.count, list: s.matches.slice(0, 5).map((m) => `${m.index}\t${m.text}`).join('\n'), known: v.open({ cmd: 'has_versions', file: v.command({ cmd: 'get' }).file }).done };
  }, addr);
  assert.ok(found.known);
  assert.ok(found.n >= 1, `${addr}: ${found.n} matches`);
  assert.match(found.list, new RegExp(`Addr: ${addr}, Size: [^,]* \\(${size} bytes\\)`));
  // ~20 MB in 4 MiB slices: the bar moved at least 4 times, always forward.
  assert.ok(w.progress.length >= 4, JSON.stringify(w.progress));
  assert.ok(w.progress.every((v, i) => i === 0 || v > w.progress[i - 1]), JSON.stringify(w.progress));
  assert.ok(w.building, 'the "Building the timeline" line was shown');
  // The page drew frames all along the read and decode (no long task on
  // its thread), up to the timeline's build: how many depends on how fast
  // the worker is (4 on a fast run), not on the page.
  assert.ok(w.frames.length >= 2, `${w.frames.length} frames`);
  // Up to the timeline's build: a task that held the frames back just before it is in this window too.
  const long = w.longTasks.filter(([t0, d]) => t0 + d > w.frames[0] && t0 < w.buildingAt);
  assert.deepEqual(long, [], `no long task on the page's thread while decoding (longest frame gap ${maxGap(w.frames).toFixed(1)} ms)`);
  const s = await shownSummary(page);
  assert.equal(s.trace_events, bigRef.trace_events);
  assert.equal(s.segments, bigRef.segments);
  assert.deepEqual(errors, []);
  await page.screenshot({ path: join(ROOT, 'tests/e2e/out/worker-big.png'), fullPage: true });
  await context.close();
});

/** The big file, opened, decoded in the worker into the 256 MiB it wrote ahead, with Python's numbers. */
async function decodedInMemoryAhead(page) {
  await waitOpened(page, BIG);
  assert.equal(await page.evaluate(() => document.body.dataset.decodedIn), 'worker');
  const s = await shownSummary(page);
  assert.equal(s.trace_events, bigRef.trace_events);
  assert.equal(s.segments, bigRef.segments);
  // The decoder took the pages written ahead: its memory grew little past them.
  await page.waitForFunction(() => document.body.dataset.workerMemory, null, { timeout: 30000 });
  const mem = await page.evaluate(() => +document.body.dataset.workerMemory);
  assert.ok(mem >= 256 << 20 && mem < (256 + 16) << 20, `worker memory ${mem}`);
}

test('a page loaded without a file: its worker writes memory ahead, and a file set on the input decodes in it', async () => {
  const { page, context, errors } = await openPage();
  // Nothing pressed or dragged: the page itself waits for a file.
  await page.waitForFunction(() => document.body.dataset.aheadWritten, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => +document.body.dataset.aheadWritten), 256 << 20);
  await page.setInputFiles('#file-input', big);
  await decodedInMemoryAhead(page);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the open button: the worker writes its memory ahead while the dialog is open, the file picked decodes in it; a cancelled dialog ends it', async () => {
  const { page, context, errors } = await openPage();
  await page.waitForFunction(() => document.body.dataset.warm === '1', null, { timeout: 30000 });
  // The dialog opened, then cancelled: the worker that wrote 256 MiB is ended.
  let chooser = page.waitForEvent('filechooser');
  await page.click('#open-files');
  await chooser;
  await page.waitForFunction(() => document.body.dataset.aheadWritten, null, { timeout: 30000 });
  assert.equal(await page.evaluate(() => +document.body.dataset.aheadWritten), 256 << 20);
  const holder = page.workers().at(-1);
  const closed = new Promise((r) => holder.once('close', r));
  await page.evaluate(() => document.getElementById('file-input').dispatchEvent(new Event('cancel')));
  await closed;
  // Opened again and a file picked: the next worker writes ahead and decodes it.
  await page.evaluate(() => delete document.body.dataset.aheadWritten);
  chooser = page.waitForEvent('filechooser');
  await page.click('#open-files');
  const c = await chooser;
  await page.waitForFunction(() => document.body.dataset.aheadWritten, null, { timeout: 30000 });
  await c.setFiles(big);
  await decodedInMemoryAhead(page);
  assert.deepEqual(errors, []);
  await context.close();
});

// The read itself (every byte in order, in FEED pieces, through a byob reader and a plain one) is
// memviz-worker's `read`, the page's and the worker's: crates/memviz-worker/tests/read.rs.

test('the model through buffers the page gave the worker: several chunks to a buffer, the same file as Python reads it', async () => {
  const { page, context, errors } = await openPage();
  // The File, kept as it is picked (the page opens it as usual).
  await page.evaluate(() => document.getElementById('file-input').addEventListener('change', (e) => { window.__picked = e.target.files[0]; }, true));
  await page.setInputFiles('#file-input', big);
  await waitOpened(page, BIG);
  const r = await page.evaluate(async () => {
    const file = window.__picked;
    const w = window.memviz.workers.decode(file, () => {}); // memviz-worker page.rs
    const given = [0, 1, 2].map(() => new ArrayBuffer(8 << 20));
    w.give(given);
    const got = await w.done;
    const V = Object.getPrototypeOf(window.memviz.viewer).constructor;
    const v = new V();
    v.open({ cmd: 'adopt_begin', name: file.name });
    let chunks = 0, shared = 0, last = null;
    for (let c = await got.nextChunk(); c; c = await got.nextChunk()) {
      chunks++;
      if (c.buffer === last) shared++;
      last = c.buffer;
      v.feed(c);
    }
    v.open({ cmd: 'adopt_end' });
    const i = v.open({ cmd: 'adopt_finish' }).file;
    got.versionsNow(); // as the page does once the file is painted
    const info = await got.info();
    for (const b of info.versions) v.open({ cmd: 'versions_chunk', file: i }, new Uint8Array(b));
    v.open({ cmd: 'versions_end', file: i });
    got.release();
    const summary = JSON.stringify(v.command({ cmd: 'numbers' }).numbers);
    v.free();
    return { detached: given.map((b) => b.byteLength), pooled: info.pooled, chunks, shared, summary, shown: JSON.stringify(window.memviz.viewer.command({ cmd: 'numbers' }).numbers) };
  });
  assert.deepEqual(r.detached, [0, 0, 0], 'the buffers moved to the worker');
  assert.ok(r.pooled >= 1 && r.pooled <= 3, `buffers used: ${r.pooled}`);
  assert.ok(r.shared >= 1, `${r.chunks} chunks, ${r.shared} in the buffer of the one before`);
  // The page's own open of the file (its numbers are Python's: checked
  // here and in the first test) and this one say the same.
  assert.equal((await shownSummary(page)).trace_events, bigRef.trace_events);
  assert.equal(r.summary, r.shown);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Cancel stops the decode, the file shown stays; opening it again, and a second file during its decode, both open', async () => {
  const { page, context, errors, before } = await pageShowing();
  assert.equal(before.trace_events, expected(SHOWN).summary.devices['0'].trace_events);

  await watch(page, 'cancel');
  await page.setInputFiles('#file-input', big);
  await page.waitForFunction(() => /cancelled/.test(document.getElementById('errors').textContent), null, { timeout: 60000 });
  assert.match(await page.textContent('#errors'), new RegExp(`Opening ${BIG}: cancelled`));
  assert.equal(await page.isHidden('#progress-box'), true);
  // Nothing else happened: still one file, the same numbers, still drawn.
  assert.deepEqual(await page.$$eval('#file-select option', (o) => o.map((x) => x.textContent)), [SHOWN]);
  assert.deepEqual(await shownSummary(page), before);
  assert.ok(Number(await page.$eval('#plot', (c) => c.dataset.bandsDrawn)) > 0);
  await page.waitForTimeout(1500); // the cancelled worker posts nothing late
  assert.deepEqual(await page.$$eval('#file-select option', (o) => o.map((x) => x.textContent)), [SHOWN]);

  // Again, and SECOND dropped while BIG decodes: both open, in the order opened.
  await watch(page, 'drop', snapshot(SECOND));
  await page.setInputFiles('#file-input', big);
  await waitOpened(page, SECOND, 90000);
  assert.deepEqual(await page.$$eval('#file-select option', (o) => o.map((x) => x.textContent)), [SHOWN, BIG, SECOND]);
  assert.equal((await shownSummary(page)).trace_events, expected(SECOND).summary.devices['0'].trace_events);
  await page.selectOption('#file-select', { label: BIG });
  assert.equal((await shownSummary(page)).trace_events, bigRef.trace_events);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the standalone file from file:// opens a real snapshot, a bad file and a torch.profiler export through the worker', async () => {
  const name = 'transformer_fullstep_ctx128.pickle';
  const file = pathToFileURL(join(DIST, 'memviz-standalone.html')).href;
  const url = `${file}?decode=worker`;
  const { page, context, requests, errors } = await newPage(browser, (u) => u === url || u === file);
  await page.goto(url);
  await waitReady(page);
  await page.setInputFiles('#file-input', join(SNAPSHOTS, name));
  await waitOpened(page, name);
  assert.equal(await page.evaluate(() => document.body.dataset.decodedIn), 'worker');
  const dev = expected(name).summary.devices['0'];
  const s = await shownSummary(page);
  assert.equal(s.trace_events, dev.trace_events);
  assert.equal(s.segments, dev.segments);
  assert.equal(s['timeline.peak_bytes'], dev.active_memory.peak_bytes);
  // A bad file through the worker: today's message, naming the file and the byte offset.
  await dropFiles(page, [['broken.pickle', Buffer.from([0x80, 0x04, 0x95, 0x10])]]);
  await page.waitForFunction(() => /broken\.pickle/.test(document.getElementById('errors').textContent));
  assert.match(await page.textContent('#errors'), /Could not open broken\.pickle: .*byte offset \d+/);
  // A torch.profiler export: routed on its first bytes to its chart (www/profiler.js), never
  // decoded as a snapshot (here or in the worker), with the numbers tests/reference/gen_profiler.py wrote down.
  const fix = join(ROOT, 'tests/reference/fixtures/profiler');
  const prof = 'train.memory_timeline.json.gz';
  const want = JSON.parse(readFileSync(join(fix, 'expected.json'), 'utf8'))[prof].charts[0];
  await page.evaluate(() => delete document.body.dataset.decodedIn);
  await page.setInputFiles('#file-input', join(fix, prof));
  await page.waitForFunction((name) => {
    const p = document.querySelector('#profiler-panel');
    return p && !p.hidden && p.dataset.file === name && document.querySelector('#profiler-plot').dataset.drawn;
  }, prof, { timeout: 30000 });
  assert.equal(await page.evaluate(() => document.body.dataset.fileKind), 'profiler_timeline');
  assert.equal(await page.evaluate(() => document.body.dataset.decodedIn), undefined);
  const legend = await page.$$eval('#profiler-legend [data-name]',
    (els) => Object.fromEntries(els.map((e) => [e.dataset.name, Number(e.dataset.max)])));
  assert.deepEqual(legend, Object.fromEntries(Object.entries(want.max).filter(([, v]) => v !== 0)));
  assert.deepEqual(requests.filter((u) => u !== url && u !== file && !u.startsWith('blob:')), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a trap in the worker: the panic and the file are named, the page keeps its file and viewer, the next open works', async () => {
  const { page, context, errors, before } = await pageShowing();
  await page.evaluate(() => window.memviz.debugPanicNext('boom in the worker'));
  await page.setInputFiles('#file-input', big);
  await page.waitForFunction(() => /internal error/.test(document.getElementById('errors').textContent), null, { timeout: 60000 });
  assert.match(await page.textContent('#errors'),
    new RegExp(`internal error in memviz: boom in the worker \\(at crates/memviz-viewer/src/files\\.rs:\\d+\\); the file could not be shown \\(${BIG}\\)\\.`));
  // The page's own viewer was not touched: no restart, the same file and numbers.
  assert.equal(await page.evaluate(() => document.body.dataset.crashes), undefined);
  assert.deepEqual(await page.$$eval('#file-select option', (o) => o.map((x) => x.textContent)), [SHOWN]);
  assert.deepEqual(await shownSummary(page), before);
  await bigOpensAgain(page);
  assert.deepEqual(errors.filter((e) => !/^memviz: internal error: boom in the worker/.test(e)), []);
  await context.close();
});

test('the worker out of memory: the page says so and names the file, keeps its file and viewer, the next open works', async () => {
  const { page, context, errors, before } = await pageShowing();
  // An abort as a failed allocation gives (no panic message), after the first 4 MiB decoded.
  await page.evaluate(() => window.memviz.debugOomNext());
  await page.setInputFiles('#file-input', big);
  await page.waitForFunction(() => /out of memory/.test(document.getElementById('errors').textContent), null, { timeout: 60000 });
  assert.deepEqual(await page.$$eval('#errors .error', (d) => d.map((e) => e.lastChild.textContent)), [
    `${BIG}: out of memory in the decoder (wasm is limited to 4 GB); the file could not be shown. The file shown before stays.`]);
  assert.equal(await page.evaluate(() => document.body.dataset.crashes), undefined);
  assert.deepEqual(await page.$$eval('#file-select option', (o) => o.map((x) => x.textContent)), [SHOWN]);
  assert.deepEqual(await shownSummary(page), before);
  assert.equal(await page.isHidden('#progress-box'), true);
  await bigOpensAgain(page);
  assert.deepEqual(errors.filter((e) => !/memory allocation of \d+ bytes failed/.test(e)), []);
  await context.close();
});

test('a trap on the page during a worker decode: that instance\'s workers end, its open gives up, the next open works', async () => {
  const { page, context, errors, before } = await pageShowing();
  await page.setInputFiles('#file-input', big);
  await page.waitForFunction(() => document.getElementById('progress').value > 0, null, { timeout: 60000 });
  const old = page.workers(); // the one decoding (the instance's spare, if any)
  assert.ok(old.length >= 1, 'a worker decodes');
  // memviz-worker's page side made the promises the open awaits and spawned the workers:
  // decode-worker.js's host ends both when that instance traps.
  await page.evaluate(() => window.memviz.guard(() => window.memviz.viewer.open({ cmd: 'debug_panic', message: 'boom on the page' }))());
  await page.waitForFunction(() => document.body.dataset.restarts === document.body.dataset.crashes, null, { timeout: 20000 });
  await page.waitForFunction(() => document.getElementById('progress-box').hidden, null, { timeout: 20000 });
  for (let i = 0; i < 100 && old.some((w) => page.workers().includes(w)); i++) await page.waitForTimeout(100);
  assert.deepEqual(old.filter((w) => page.workers().includes(w)), [], 'the trapped instance\'s workers ended');
  // One line: the restart's, naming the file being read (no second line for its open).
  assert.deepEqual(await page.$$eval('#errors .error', (d) => d.map((e) => e.lastChild.textContent.replace(/ \(at [^)]*\)/, ''))), [
    `internal error in memviz: boom on the page; the file could not be shown (${BIG}). The viewer restarted: open a file again.`]);
  assert.deepEqual(await page.$$eval('#file-select option', (o) => o.map((x) => x.textContent)), []);
  await bigOpensAgain(page); // through a worker of the fresh instance
  assert.equal(await page.evaluate(() => document.body.dataset.decodedIn), 'worker');
  assert.notDeepEqual(await shownSummary(page), before);
  assert.deepEqual(errors.filter((e) => !/^memviz: internal error: boom on the page/.test(e)), []);
  await context.close();
});

test('several files at once (ranks.js): the large one through the worker, both in the overview', async () => {
  const { page, context, errors } = await openPage();
  await page.evaluate(() => {
    window.decodedIn = [];
    new MutationObserver(() => window.decodedIn.push(document.body.dataset.decodedIn))
      .observe(document.body, { attributes: true, attributeFilter: ['data-decoded-in'] });
  });
  await page.setInputFiles('#file-input', [big, join(SNAPSHOTS, SHOWN)]);
  await page.waitForFunction(() => {
    const p = document.querySelector('#ranks-panel');
    return p && p.dataset.rows === '2' && p.dataset.loading === '0';
  }, null, { timeout: 120000 });
  assert.deepEqual((await page.evaluate(() => window.decodedIn)).sort(), ['page', 'worker']);
  const names = await page.$$eval('#file-select option', (o) => o.map((x) => x.textContent));
  assert.deepEqual([...names].sort(), [BIG, SHOWN].sort());
  await page.selectOption('#file-select', { label: BIG });
  assert.equal((await shownSummary(page)).trace_events, bigRef.trace_events);
  await page.selectOption('#file-select', { label: SHOWN });
  assert.equal((await shownSummary(page)).trace_events, expected(SHOWN).summary.devices['0'].trace_events);
  assert.deepEqual(errors, []);
  await context.close();
});
