// Keyboard and screen reader use of the page (issue 14), with the keyboard
// only: Tab to "Open snapshots…", Enter opens the file chooser, a real
// snapshot opens, Tab to the plot, its keys zoom / pan / reset / move the
// cursor / pin, and the polite aria-live region says the hovered
// allocation's size. Values are read from the viewer (window.memviz) and the
// DOM, not from the code under test's own bookkeeping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SNAPSHOTS, useBrowser, origin, browser, waitReady, openPage, newPage, waitOpened } from './helpers.mjs';

const BIG = 'transformer_fullstep_ctx128.pickle';
const OUT = join(ROOT, 'tests/e2e/out');
mkdirSync(OUT, { recursive: true });

useBrowser();

const active = (page) => page.evaluate(() => document.activeElement && document.activeElement.id);
/** Presses Tab until the element `id` has focus; how many presses it took. */
async function tabTo(page, id, max = 30) {
  for (let i = 1; i <= max; i++) {
    await page.keyboard.press('Tab');
    if ((await active(page)) === id) return i;
  }
  throw new Error(`#${id} not reached with ${max} Tabs (at #${await active(page)})`);
}
const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
const win = (page) => page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).window);
/** The keyboard cursor's position on the plot (CSS px), from the ring's style. */
const cursorAt = (page) => page.evaluate(() => {
  const c = document.getElementById('plot-cursor');
  return c.hidden ? null : [parseFloat(c.style.left), parseFloat(c.style.top)];
});
const hitAt = (page, [x, y]) => page.evaluate(([x, y]) => window.memviz.viewer.command({ cmd: 'hit_at', x, y }).value, [x, y]);
const announced = (page) => page.textContent('#announce');

test('keyboard only: open a file with the button, zoom / pan / pin on the plot, hover text announced', async () => {
  const { page, context, errors } = await newPage(browser, (u) => u.startsWith(origin + '/'));
  // Listening from the start: playwright intercepts the chooser only once
  // asked to, and asking at the key press itself can come too late.
  const chooserShown = new Promise((r) => page.once('filechooser', r));
  await page.goto(origin + '/');
  await waitReady(page);

  // "Open snapshots…" is the first thing Tab reaches; Enter opens the chooser.
  assert.equal(await tabTo(page, 'open-files'), 1);
  assert.equal(await page.evaluate(() => document.activeElement.tagName), 'BUTTON');
  await page.keyboard.press('Enter');
  const chooser = await chooserShown;
  assert.ok(chooser.isMultiple());
  await chooser.setFiles(join(SNAPSHOTS, BIG));
  await waitOpened(page, BIG);
  const n = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).steps);
  const full = await win(page);
  assert.deepEqual(full, [0, n]);

  // The page's own performance marks were read and cleared; the test's
  // observer (helpers.mjs) saw them.
  const left = await page.evaluate(() => [...performance.getEntriesByType('mark'), ...performance.getEntriesByType('measure')]
    .filter((e) => e.name.startsWith('memviz:')).map((e) => e.name));
  assert.deepEqual(left, [], 'memviz marks and measures cleared');
  assert.equal(await page.evaluate(() => window.__memvizPerf('memviz:first-paint').length), 1);
  assert.ok(await page.evaluate(() => window.__memvizPerf('memviz:redraw', 'measure').length) >= 1);

  // Keys typed outside the plot do not move it.
  await page.keyboard.press('Shift+Tab'); // back on the button
  for (const k of ['Home', '-', '+', 'ArrowLeft']) await page.keyboard.press(k);
  await frame(page);
  assert.deepEqual(await win(page), full, 'keys outside the plot are not the plot\'s');

  // Tab to the plot: the keyboard cursor sits on a band and says what it is.
  await tabTo(page, 'plot');
  await frame(page);
  let at = await cursorAt(page);
  assert.ok(at, 'keyboard cursor shown');
  let hit = await hitAt(page, at);
  assert.ok(hit >= 0, `cursor on an allocation (hit ${hit})`);
  const shown = await page.textContent('#context');
  const first = shown.split('\n')[0];
  const size = /Size: [^,]+ \((\d+) bytes\)/.exec(first);
  assert.ok(size, first);
  // The polite live region says the first line (with the size) after a pause.
  await page.waitForFunction((t) => document.getElementById('announce').textContent === t, first, { timeout: 5000 });
  assert.match(await announced(page), new RegExp(`\\(${size[1]} bytes\\)`));
  const live = await page.$eval('#announce', (e) => [e.getAttribute('aria-live'), e.getAttribute('aria-atomic')]);
  assert.deepEqual(live, ['polite', 'true']);
  // The element under the cursor (the viewer's own hit test at the ring's
  // position) has that size.
  const elemText = await page.evaluate((e) => window.memviz.viewer.command({ cmd: 'element', element: e }).text, hit);
  assert.ok(elemText.includes(`(${size[1]} bytes)`), elemText.split('\n')[0]);
  await page.screenshot({ path: join(OUT, 'keyboard-cursor.png') });

  // + zooms in around the cursor, - zooms back out, → / ← pan, Home resets.
  await page.keyboard.press('+');
  await frame(page);
  const z = await win(page);
  assert.ok(Math.abs((z[1] - z[0]) - n / 1.5) < n * 0.01, `zoomed to ${z}`);
  await page.keyboard.press('+');
  await frame(page);
  const z2 = await win(page);
  assert.ok(z2[1] - z2[0] < (z[1] - z[0]) * 0.7, `zoomed again to ${z2}`);
  await page.keyboard.press('ArrowRight');
  await frame(page);
  const p = await win(page);
  const span = z2[1] - z2[0];
  assert.ok(p[0] > z2[0] + span * 0.05 && Math.abs((p[1] - p[0]) - span) < 1e-6, `panned right: ${z2} -> ${p}`);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await frame(page);
  const q = await win(page);
  assert.ok(q[0] < p[0] - span * 0.1, `panned left: ${p} -> ${q}`);
  await page.keyboard.press('-');
  await frame(page);
  const o = await win(page);
  assert.ok(o[1] - o[0] > span * 1.3, `zoomed out: ${o}`);
  // After a move the text follows the band now under the cursor.
  at = await cursorAt(page);
  hit = await hitAt(page, at);
  assert.ok(hit >= 0, `the cursor stays on a band after zooming: hit ${hit} at ${at}`);
  const t = await page.textContent('#context');
  assert.equal(t, await page.evaluate((e) => window.memviz.viewer.command({ cmd: 'element', element: e }).text, hit));
  await page.keyboard.press('Home');
  await frame(page);
  assert.deepEqual(await win(page), full);

  // Shift+→ moves the cursor right; ↓ goes to the next band below.
  const a0 = await cursorAt(page);
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('Shift+ArrowRight');
  await frame(page);
  const a1 = await cursorAt(page);
  assert.ok(a1[0] > a0[0], `cursor moved right: ${a0} -> ${a1}`);
  const h1 = await hitAt(page, a1);
  await page.keyboard.press('ArrowDown');
  await frame(page);
  const a2 = await cursorAt(page);
  const h2 = await hitAt(page, a2);
  assert.ok(a2[1] > a1[1] && h2 !== h1 && h2 >= 0, `next band below: ${h1}@${a1} -> ${h2}@${a2}`);

  // Enter pins the band under the cursor (and sets the "Alive at" moment).
  await page.keyboard.press('Enter');
  await frame(page);
  assert.equal(await page.evaluate(() => (window.memviz.viewer.command({ cmd: 'get' }).pinned ?? -1)), h2);
  const step = await page.evaluate((x) => window.memviz.viewer.command({ cmd: 'step_at_x', x }).value, a2[0]);
  await page.waitForFunction((s) => Number(document.querySelector('#moment-panel').dataset.step) === s, step);
  await page.keyboard.press('Escape');
  await frame(page);
  assert.equal(await page.evaluate(() => (window.memviz.viewer.command({ cmd: 'get' }).pinned ?? -1)), -1);

  // Tab moves on past the plot (no focus trap).
  await page.keyboard.press('Tab');
  assert.notEqual(await active(page), 'plot');
  assert.equal(await cursorAt(page), null, 'the cursor ring goes with the focus');
  assert.deepEqual(errors, []);
  await context.close();
});

test('state history keys act on the focused event list only', async () => {
  const { page, context, errors } = await openPage();
  await page.setInputFiles('#file-input', join(SNAPSHOTS, BIG));
  await waitOpened(page, BIG);
  const i = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).views.findIndex((c) => c.name === 'Allocator State History'));
  await page.selectOption('#view-select', String(i));
  await page.waitForFunction((i) => ((p) => p.views.findIndex((c) => c.id === p.view))(window.memviz.viewer.command({ cmd: 'get' })) === i, Number(i)); // a long build shows the view frames later
  await frame(page);
  const sel = () => page.evaluate(() => (window.memviz.viewer.command({ cmd: 'get' }).state?.selected ?? -1));
  const last = await sel();
  // Focus in the search box: Home there is the input's, not the list's.
  await page.focus('#search-frame');
  await page.keyboard.press('Home');
  await frame(page);
  assert.equal(await sel(), last);
  // Tab to the event list: Home / ArrowDown select events, and are said.
  await tabTo(page, 'event-list');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await frame(page);
  assert.equal(await sel(), 1);
  const text = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'state_event', event: 1 }).state.event_text);
  await page.waitForFunction((t) => document.getElementById('announce').textContent === t, text.split('\n')[0], { timeout: 5000 });
  // The segment map takes the same keys when it has focus.
  await tabTo(page, 'segment-map');
  await page.keyboard.press('ArrowDown');
  await frame(page);
  assert.equal(await sel(), 2);
  assert.deepEqual(errors, []);
  await context.close();
});
