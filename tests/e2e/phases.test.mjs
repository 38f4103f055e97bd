// Browser tests of time, phases and the other files users have:
//  - each torch.profiler export written by tests/reference/gen_profiler.py
//    (memory timeline .json / .json.gz / .raw.json.gz, Chrome trace .json /
//    .json.gz) opens as a chart; its legend's maxima and its charts are the
//    ones the script computed on its own (expected.json);
//  - the real annotated snapshot's record_function phases are drawn where
//    tests/reference/phases_reference.py (Python's pickle module) puts them,
//    a click on one zooms to its steps, the filter and the internals
//    checkbox work, the time of the hovered step is shown; a file without
//    time_us says it has steps only.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import {
  ROOT, SNAPSHOTS, useBrowser, browser, openPage, newPage, dropFiles, snapshot, waitOpened,
} from './helpers.mjs';

const OUT = join(ROOT, 'tests/e2e/out');
const FIX = join(ROOT, 'tests/reference/fixtures/profiler');
mkdirSync(OUT, { recursive: true });

useBrowser();
before(async () => {
  assert.ok(existsSync(join(FIX, 'expected.json')), 'tests/reference/fixtures/profiler missing: gen_profiler.py');
});

/** Non-white pixels of a canvas. */
const inked = (page, id) => page.$eval(`#${id}`, (c) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i + 3] && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) n++;
  return n;
});

test('torch.profiler exports open as charts with the reference numbers', async () => {
  const want = JSON.parse(readFileSync(join(FIX, 'expected.json'), 'utf8'));
  const { page, blocked, errors } = await openPage();
  for (const [name, w] of Object.entries(want)) {
    await dropFiles(page, [[name, readFileSync(join(FIX, name))]]);
    await page.waitForFunction((name) => {
      const p = document.querySelector('#profiler-panel');
      return p && !p.hidden && p.dataset.file === name && document.querySelector('#profiler-plot').dataset.drawn;
    }, name, { timeout: 30000 });
    const titles = await page.$$eval('#profiler-chart option', (os) => os.map((o) => o.textContent));
    assert.deepEqual(titles, w.charts.map((c) => c.title), name);
    for (let i = 0; i < w.charts.length; i++) {
      if (w.charts.length > 1) await page.selectOption('#profiler-chart', String(i));
      const legend = await page.$$eval('#profiler-legend [data-name]',
        (els) => Object.fromEntries(els.map((e) => [e.dataset.name, Number(e.dataset.max)])));
      const nonzero = Object.fromEntries(Object.entries(w.charts[i].max).filter(([, v]) => v !== 0));
      assert.deepEqual(legend, nonzero, `${name} ${w.charts[i].title}`);
      assert.ok(await inked(page, 'profiler-plot') > 5000, `${name}: chart drawn`);
    }
    // Hover: the values at that time.
    const box = await page.$eval('#profiler-plot', (c) => { const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; });
    await page.mouse.move(box[0] + box[2] * 0.6, box[1] + box[3] / 2);
    assert.match(await page.$eval('#profiler-hover', (e) => e.textContent), /^t = [0-9.]+ s/);
    if (name === 'train.raw.json.gz') {
      await page.screenshot({ path: join(OUT, 'profiler-categories.png') });
      // Wheel zoom narrows the window; double-click shows the whole run again.
      await page.mouse.wheel(0, -300);
      await page.waitForTimeout(100);
      assert.ok(await inked(page, 'profiler-plot') > 5000);
    }
    if (name === 'train.trace.json') await page.screenshot({ path: join(OUT, 'profiler-trace.png') });
  }
  // A warning for the trace's [memory] event without totals, nothing else.
  const shownErrors = await page.$$eval('#errors > *', (els) => els.map((e) => e.textContent));
  assert.ok(shownErrors.every((e) => /warning: traceEvents\[\d+\]: a \[memory\] event/.test(e)), shownErrors.join('\n'));
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
});

test('a broken profiler export is an error that names the place', async () => {
  const { page } = await openPage();
  const bad = JSON.stringify([[1, 2], [[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2]]]);
  await dropFiles(page, [['bad.json', Buffer.from(bad)]]);
  await page.waitForFunction(() => document.querySelector('#errors').textContent.includes('bad.json'), null, { timeout: 30000 });
  const msg = await page.$eval('#errors', (e) => e.textContent);
  assert.match(msg, /\[1\]\[1\]: 3 sizes, not 9/);
});

function reference(name) {
  const out = execFileSync('python3', [join(ROOT, 'tests/reference/phases_reference.py'), join(SNAPSHOTS, name)]);
  return JSON.parse(out);
}

test('phases from a real annotated snapshot: drawn at their steps, click zooms, filter, time readout', async () => {
  const NAME = 'transformer_fullstep_ctx128.pickle';
  const ref = reference(NAME);
  assert.ok(ref.phases.length >= 2, 'the reference finds the phases');
  const { page, blocked, errors } = await openPage();
  await dropFiles(page, [[NAME, snapshot(NAME)]]);
  await waitOpened(page, NAME);
  await page.waitForSelector('#phase-layer .phase');
  const shown = await page.$$eval('#phase-layer .phase',
    (els) => els.map((e) => ({ name: e.dataset.name, steps: [Number(e.dataset.step0), Number(e.dataset.step1)] })));
  // Phases with no step inside sit at the step their time falls at (step0 == step1).
  const want = ref.phases.map((p) => ({ name: p.name, steps: p.steps || [p.at, p.at] }));
  assert.deepEqual(shown, want);
  // Drawn where the steps are: the band starts at the plot x of its first step.
  const step = ref.phases.find((p) => p.name === 'Optimizer.step#AdamW.step');
  const [left, x0] = await page.evaluate((s) => {
    const el = [...document.querySelectorAll('#phase-layer .phase')].find((e) => e.dataset.name === 'Optimizer.step#AdamW.step');
    const plot = document.querySelector('#plot');
    return [parseFloat(el.style.left) - plot.offsetLeft, (window.memviz.viewer.command({ cmd: 'x_of_step', step: s }).value ?? NaN)];
  }, step.steps[0]);
  assert.ok(Math.abs(left - x0) < 1, `phase at ${left}, step at ${x0}`);
  await page.screenshot({ path: join(OUT, 'phases-ctx128.png') });
  // Idle, the page requests no animation frames: the phases follow the
  // plot's draws, they do not poll each frame.
  const idleFrames = await page.evaluate(async () => {
    let n = 0;
    const raf = window.requestAnimationFrame;
    window.requestAnimationFrame = (f) => { n++; return raf.call(window, f); };
    await new Promise((r) => setTimeout(r, 500));
    window.requestAnimationFrame = raf;
    return n;
  });
  assert.equal(idleFrames, 0);
  // Click: the window is the phase's steps.
  // The layer is laid out again whenever the plot moves (first draws,
  // resize): a click may land on a band being replaced, so try again.
  const atPhase = () => page.evaluate((a) => window.memviz.viewer.command({ cmd: 'get' }).window[0] === a, step.steps[0]);
  for (let i = 0; i < 5 && !(await atPhase()); i++) {
    await page.click('#phase-layer .phase[data-name="Optimizer.step#AdamW.step"]');
    await page.waitForTimeout(300);
  }
  assert.deepEqual(await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).window), step.steps);
  // The band moved with the plot: it starts at the left edge of the window now.
  const [left2, x2] = await page.evaluate((s) => {
    const el = [...document.querySelectorAll('#phase-layer .phase')].find((e) => e.dataset.name === 'Optimizer.step#AdamW.step');
    return [parseFloat(el.style.left) - document.querySelector('#plot').offsetLeft, (window.memviz.viewer.command({ cmd: 'x_of_step', step: s }).value ?? NaN)];
  }, step.steps[0]);
  assert.ok(Math.abs(left2 - Math.max(0, x2)) < 1 && left2 !== left, `phase at ${left2} (was ${left}), step at ${x2}`);
  // Filter by name (the whole trace again: zero_grad is before its first step).
  await page.click('#reset-zoom');
  await page.fill('#phase-filter', 'zero_grad');
  await page.waitForFunction(() => document.querySelectorAll('#phase-layer .phase').length === 1);
  assert.match(await page.$eval('#phase-count', (e) => e.textContent), /^1 of 2 shown/);
  // Time of the hovered step, from time_us.
  const box = await page.$eval('#plot', (c) => { const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; });
  await page.mouse.move(box[0] + box[2] * 0.5, box[1] + box[3] * 0.5);
  assert.match(await page.$eval('#time-readout', (e) => e.textContent), /^step \d+: t = 0\.\d{6} s from the first event$/);
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
});

test('internal torch.compile phases are hidden until asked for; no time_us says steps only', async () => {
  const { page } = await openPage();
  // A small snapshot with a dynamo-internal range and a user range.
  const snap = JSON.stringify({
    segments: [],
    device_traces: [[
      { action: 'alloc', addr: 4096, size: 1 << 20, stream: 0, time_us: 100, frames: [] },
      { action: 'alloc', addr: 8192 << 10, size: 2 << 20, stream: 0, time_us: 150, frames: [] },
      { action: 'free_completed', addr: 4096, size: 1 << 20, stream: 0, time_us: 400, frames: [] },
    ]],
    external_annotations: [
      { stage: 'START', name: '## forward ##', device: 0, time_us: 90 },
      { stage: 'START', name: 'Torch-Compiled Region: 0/0', device: 0, time_us: 95 },
      { stage: 'END', name: 'Torch-Compiled Region: 0/0', device: 0, time_us: 200 },
      { stage: 'END', name: '## forward ##', device: 0, time_us: 210 },
    ],
  });
  await dropFiles(page, [['compiled.json', Buffer.from(snap)]]);
  await waitOpened(page, 'compiled.json');
  await page.waitForSelector('#phase-layer .phase');
  const names = () => page.$$eval('#phase-layer .phase', (els) => els.map((e) => e.dataset.name));
  assert.deepEqual(await names(), ['## forward ##']);
  await page.check('#phase-internal');
  await page.waitForFunction(() => document.querySelectorAll('#phase-layer .phase').length === 2);
  assert.deepEqual(await names(), ['## forward ##', 'Torch-Compiled Region: 0/0']);
  const NAME = 'llm_inference_no_timestamps.pickle';
  await dropFiles(page, [[NAME, snapshot(NAME)]]);
  await waitOpened(page, NAME);
  await page.waitForFunction(() => document.querySelector('#time-readout').textContent.includes('no time_us'));
});

test('memviz html of a profiler trace: from file://, every other request blocked, the chart drawn', async () => {
  // The CLI built now that dist/ exists: its build script compiles the viewer in.
  execFileSync('cargo', ['build', '-q', '-p', 'memviz-cli'], { cwd: ROOT, stdio: 'inherit' });
  const out = join(OUT, 'share-trace.html');
  execFileSync(join(ROOT, 'target/debug/memviz'), ['html', join(FIX, 'train.trace.json.gz'), '-o', out]);
  const url = pathToFileURL(out).href;
  const { page, requests, blocked, errors } = await newPage(browser, (u) => u === url);
  await page.goto(url);
  await page.waitForFunction(() => {
    const p = document.querySelector('#profiler-panel');
    return p && !p.hidden && document.querySelector('#profiler-plot').dataset.drawn;
  }, null, { timeout: 30000 });
  const titles = await page.$$eval('#profiler-chart option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(titles, ['cuda:0', 'cuda:1', 'cpu']);
  assert.ok(await inked(page, 'profiler-plot') > 5000);
  assert.deepEqual([...new Set(requests)].filter((u) => u !== url), []);
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
});
