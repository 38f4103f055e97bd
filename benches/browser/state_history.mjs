// Allocator State History in the release page (dist/): opens a snapshot with
// the file picker, switches to the state history, selects an event in the
// middle of the trace and presses ArrowDown N times (playwright key presses),
// reading after each how long the page's keydown handler took (selection +
// segment map + visible rows: window.memviz.views.stats.lastMs, measured in
// the page with performance.now()); then N more ArrowDowns dispatched in the
// page, each timed with the style and layout it causes.
//
//   node benches/browser/state_history.mjs FILE [--presses N]
//
// Needs scripts/setup.sh (playwright-core in tests/e2e/node_modules) and a
// built dist/ (scripts/build-web.sh). FILE: e.g. the 2,000,000-event file
//   python3 ../shared/tools/gen_snapshot.py target/bench-data/gen_2000000.pickle --events 2000000
import { createRequire } from 'node:module';
import { join, dirname, resolve, basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(join(ROOT, 'tests/e2e/package.json'));
const { serveDist, launch, newPage } = await import(pathToFileURL(join(ROOT, 'tests/e2e/helpers.mjs')));
void require;

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const presses = Number(args[args.indexOf('--presses') + 1]) || 1000;
if (!file) throw new Error('usage: state_history.mjs FILE [--presses N]');

const { server, origin } = await serveDist();
const browser = await launch();
const { page, errors } = await newPage(browser, (u) => u.startsWith(origin + '/'));
await page.goto(origin + '/');
await page.waitForFunction(() => document.body.dataset.ready === '1');
const t0 = Date.now();
await page.setInputFiles('#file-input', file);
await page.waitForFunction((n) => {
  const s = document.querySelector('#file-select');
  return s && s.selectedOptions[0]?.textContent === n && document.querySelector('#plot').dataset.bandsDrawn !== undefined;
}, basename(file), { timeout: 600000 });
const openS = (Date.now() - t0) / 1000;
const names = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).views.map((x) => x.name));
const sw0 = Date.now();
await page.evaluate((i) => {
  const s = document.getElementById('view-select');
  s.value = String(i);
  s.dispatchEvent(new Event('change'));
}, names.indexOf('Allocator State History'));
const switchMs = Date.now() - sw0;
// The list is built a slice a frame: its length once the view is shown.
await page.waitForFunction(() => window.memviz.viewer.command({ cmd: 'get' }).state, null, { timeout: 600000 });
const n = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).state.len);
const seek0 = Date.now();
await page.evaluate((i) => window.memviz.views.select(i), Math.floor(n / 2));
const seekMs = Date.now() - seek0;
await page.focus('#event-list');
const times = [];
for (let k = 0; k < presses; k++) {
  await page.keyboard.press('ArrowDown');
  times.push(await page.evaluate(() => window.memviz.views.stats.lastMs));
}
// Then the same in one page-side loop: the keydown handler plus the style
// and layout it causes (read back with offsetHeight), no CDP round trips.
const inPage = await page.evaluate((n) => {
  const out = [];
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    document.getElementById('event-list').dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    void document.getElementById('event-rows').offsetHeight;
    out.push(performance.now() - t0);
  }
  return out;
}, presses);
const sel = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).state.selected);
const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p95: q(0.95), max: s[s.length - 1], mean: xs.reduce((a, b) => a + b, 0) / xs.length, over_16_7ms: xs.filter((t) => t > 16.7).length };
};
const map = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).state.numbers);
const out = {
  file: basename(file), events: n, open_s: openS, switch_to_state_history_ms: switchMs, seek_to_middle_ms: seekMs,
  presses, selected_after: sel, arrowdown_handler_ms: stat(times), arrowdown_with_layout_ms: stat(inPage), segments: map.segments, blocks: map.blocks, rects: map.rects, errors,
};
console.log(JSON.stringify(out, null, 2));
await browser.close();
server.close();
