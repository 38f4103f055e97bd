// Browser tests of the "x: steps | time" control (memviz-viewer's xaxis.rs,
// www/phases.js): on transformer_fullstep_ctx128.pickle (time_us, two idle
// gaps) the axis switches to seconds from the first event, the gaps are
// labelled with the real lengths Python computes, an allocation is hovered
// at the x where tests/reference/time_axis_reference.py (Python's pickle
// module) puts its time, the zoom is kept when switching the axis, the axis
// is kept when switching views; a file without time_us disables the control
// and says why.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, SNAPSHOTS, useBrowser, openPage, dropFiles, snapshot, waitOpened } from './helpers.mjs';

const OUT = join(ROOT, 'tests/e2e/out');
mkdirSync(OUT, { recursive: true });
const NAME = 'transformer_fullstep_ctx128.pickle';
const NO_TIME = 'llm_inference_no_timestamps.pickle';
// The plot's margins inside its canvas, CSS px (memviz-viewer's MARGIN).
const LEFT = 78, RIGHT = 16;

useBrowser();
before(async () => {
  for (const f of [NAME, NO_TIME]) assert.ok(existsSync(join(SNAPSHOTS, f)), `${f} missing in ../shared/snapshots`);
});

function reference(name, ...elems) {
  const out = execFileSync('python3', [join(ROOT, 'tests/reference/time_axis_reference.py'), join(SNAPSHOTS, name), ...elems]);
  return JSON.parse(out.toString());
}

const frames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const axis = (page) => page.evaluate(() => window.memviz.viewer.phases({}));
const win = (page) => page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).window);

test('x axis in wall-clock time: labels, gaps, hover at Python\'s time, zoom and view kept, no time_us', async () => {
  // The largest allocation made in the trace, and a window of steps where
  // Python puts the middle of its life at different x on the two axes.
  const py = reference(NAME, 'pick');
  const P = py.picked;
  assert.equal(py.gaps.length, 2, 'the file has two idle gaps');
  const { page, errors } = await openPage();
  await dropFiles(page, [[NAME, snapshot(NAME)]]);
  await waitOpened(page, NAME);
  await page.waitForFunction(() => !document.querySelector('#x-axis').disabled);
  assert.equal(await page.$eval('#x-axis', (s) => s.value), 'step');
  assert.equal((await axis(page)).axis, 'step');

  // Keyboard: focus the control and pick "time" with the arrow key.
  await page.focus('#x-axis');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => window.memviz.viewer.phases({}).axis === 'time');
  await frames(page);
  assert.equal(await page.$eval('#x-axis', (s) => s.value), 'time');
  const a = await axis(page);
  assert.ok(a.ticks.length >= 3, JSON.stringify(a.ticks));
  assert.ok(a.ticks.every((t) => /^\d+ ms$/.test(t.label)), JSON.stringify(a.ticks));
  assert.equal(a.ticks[0].label, '0 ms');
  // Round times, also after the gaps (one tick step throughout).
  const ms = a.ticks.map((t) => Number(t.label.split(' ')[0]));
  assert.ok(ms.every((m) => m % ms[1] === 0), JSON.stringify(ms));
  assert.deepEqual(a.gaps.map((g) => g.label), py.gaps.map((g) => `idle ${Math.round(g.real_s * 1000)} ms`));
  assert.deepEqual(a.gaps.map((g) => g.label), ['idle 55 ms', 'idle 43 ms']);

  await page.screenshot({ path: join(ROOT, 'docs/screenshot-time-axis.png') });

  // In Python's window, the allocation is under the x where its time lies.
  await page.evaluate(([a, b]) => window.memviz.command({ cmd: 'set_window', x0: a, x1: b }), P.window);
  await page.evaluate(() => window.memviz.redraw?.());
  await page.mouse.move(1, 1);
  await frames(page);
  const box = await page.$eval('#plot', (c) => { const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; });
  const plotW = box[2] - LEFT - RIGHT;
  const xTime = LEFT + P.time_frac * plotW, xStep = LEFT + P.step_frac * plotW;
  assert.equal(await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).steps), py.n_steps);
  const rows = (x) => page.evaluate(([x, h, e]) => {
    const v = window.memviz.viewer, ys = [];
    for (let y = 0; y < h; y++) if (v.command({ cmd: 'hit_at', x, y }).value === e) ys.push(y);
    return ys;
  }, [x, box[3], P.elem]);
  const ys = await rows(xTime);
  assert.ok(ys.length > 0, `element ${P.elem} not under x = ${xTime}`);
  assert.deepEqual(await rows(xStep), [], 'not where the step axis would put it');
  await page.mouse.move(box[0] + xTime, box[1] + ys[Math.floor(ys.length / 2)]);
  await page.waitForFunction((addr) => document.getElementById('context').textContent.includes(addr), P.addr);
  const text = await page.textContent('#context');
  assert.ok(text.startsWith(`${P.elem} `) && text.includes(`(${P.size} bytes)`), text.slice(0, 200));
  // The time readout there is within its life by Python.
  const readout = await page.textContent('#time-readout');
  const t = Number(/t = ([0-9.]+) s/.exec(readout)[1]);
  assert.ok(t >= P.alloc_s - 1e-6 && t <= P.free_s + 1e-6, `${readout} vs ${P.alloc_s}..${P.free_s}`);
  await page.screenshot({ path: join(OUT, 'time-axis-window.png') });
  await page.evaluate(() => window.memviz.viewer.command({ cmd: 'reset_window' }));


  // Zoom (wheel at the gaps) and switch the axis: the same steps stay in view.
  const nSteps = py.n_steps;
  await page.mouse.move(box[0] + LEFT + plotW * 0.2, box[1] + box[3] / 2);
  await page.mouse.wheel(0, -600);
  await frames(page);
  const zoomed = await win(page);
  assert.ok(zoomed[1] - zoomed[0] < nSteps * 0.9, `zoomed: ${zoomed}`);
  await page.selectOption('#x-axis', 'step');
  await frames(page);
  assert.deepEqual(await win(page), zoomed);
  assert.equal((await axis(page)).axis, 'step');
  await page.selectOption('#x-axis', 'time');
  await frames(page);
  assert.deepEqual(await win(page), zoomed);
  const za = await axis(page);
  assert.ok(za.ticks.length >= 2 && za.ticks.every((t) => / ms$/.test(t.label)), JSON.stringify(za.ticks));
  await page.screenshot({ path: join(OUT, 'time-axis-zoomed.png') });

  // The minimap follows the axis: a click at 75% of it centres the plot on
  // the step Python puts at 75% of the time axis (not at 75% of the steps).
  const mini = await page.$eval('#minimap', (c) => { const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; });
  await page.mouse.click(mini[0] + mini[2] * 0.75, mini[1] + mini[3] / 2);
  await frames(page);
  const mid = await page.evaluate((x) => window.memviz.viewer.command({ cmd: 'step_at_x', x }).value, LEFT + plotW / 2);
  // Within two minimap pixels of 75% (the click lands on a whole pixel).
  const [lo, hi] = [0.75 - 2 / mini[2], 0.75 + 2 / mini[2]];
  const near = reference(NAME, `at=${lo}`, `at=${hi}`).step_at;
  assert.ok(mid >= near[String(lo)] && mid <= near[String(hi)] + 1,
    `minimap click: step ${mid} in the middle, Python ${near[String(lo)]}..${near[String(hi)]}`);
  assert.ok(Math.abs(py.step_at['0.75'] - 0.75 * nSteps) > 1000, 'the step axis would put another step there');

  // Switching views keeps the axis (segments, pools, back).
  for (const view of ['1', '2', '0']) {
    await page.selectOption('#view-select', view);
    await frames(page);
    assert.equal(await page.evaluate(() => window.memviz.viewer.phases({}).axis), 'time', `view ${view}`);
    assert.equal(await page.$eval('#x-axis', (s) => s.value), 'time', `view ${view}`);
    assert.ok((await axis(page)).ticks.length >= 2, `view ${view}: time ticks`);
    await page.screenshot({ path: join(OUT, `time-axis-view${view}.png`) });
  }

  // A file without time_us: the control is disabled and says why.
  await dropFiles(page, [[NO_TIME, snapshot(NO_TIME)]]);
  await waitOpened(page, NO_TIME);
  await page.waitForFunction(() => document.querySelector('#x-axis').disabled);
  assert.equal(await page.$eval('#x-axis', (s) => s.value), 'step');
  assert.equal(await page.textContent('#x-axis-reason'), '(this file has no time_us: steps only)');
  assert.ok(await page.isVisible('#x-axis-reason'));
  assert.equal((await axis(page)).axis, 'step');
  // Back to the first file: time again.
  await page.selectOption('#file-select', '0');
  await page.waitForFunction(() => !document.querySelector('#x-axis').disabled);
  assert.equal(await page.$eval('#x-axis', (s) => s.value), 'time');
  assert.equal(await page.textContent('#x-axis-reason'), '');
  assert.deepEqual(errors, []);
});
