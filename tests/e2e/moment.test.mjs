// Browser test of the "Alive at" panel (www/moment.js): the moment's totals
// and the bottom-up table by innermost user frame, against the reference
// numbers of tests/reference/expected (release page in dist/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, useBrowser, openPage, dropFiles, snapshot, expected, waitOpened } from './helpers.mjs';

const BIG = 'transformer_fullstep_ctx128.pickle';
const OUT = join(ROOT, 'tests/e2e/out');
mkdirSync(OUT, { recursive: true });

useBrowser();

const shownBytes = (page, key) =>
  page.$eval(`#moment-totals [data-key="${key}"]`, (e) => Number(e.dataset.value));
const tableBytes = (page) =>
  page.$$eval('#moment-table tbody td[data-bytes]', (els) => els.map((e) => Number(e.dataset.bytes)));

// 150k events: ~0.1 s of building the analysis, many slices on any machine
// (a real file's ~15 ms may fit the click's own first slice); its peak and
// leak report from Python.
let longTrace = null;
function makeLongTrace() {
  if (longTrace) return longTrace;
  const dir = mkdtempSync(join(tmpdir(), 'memviz-moment-'));
  const file = join(dir, 'long_trace.pickle');
  execFileSync('python3', [join(ROOT, '../shared/tools/gen_snapshot.py'), file, '--events', '150000', '--seed', '5']);
  const peak = JSON.parse(execFileSync('python3', [join(ROOT, 'tests/reference/memviz_reference.py'), 'summary', file],
    { maxBuffer: 1 << 26 })).devices['0'].active_memory.peak_bytes;
  const leaks = JSON.parse(execFileSync('python3', [join(ROOT, 'tests/reference/analysis_reference.py'), file],
    { maxBuffer: 1 << 28 })).devices['0'].leaks;
  return (longTrace = { file, peak, leaks });
}

// A fresh page that may fetch only from the server, `bytes` dropped on it
// as `name` and shown.
async function openDropped(name, bytes) {
  const opened = await openPage();
  await dropFiles(opened.page, [[name, bytes]]);
  await waitOpened(opened.page, name);
  return opened;
}

// The long trace opened in a fresh page, the busy note's changes and the
// frames recorded in window.__busy.
async function openLongTrace() {
  const { page, blocked, errors } = await openDropped('long_trace.pickle', readFileSync(makeLongTrace().file));
  await page.evaluate(() => {
    const busy = document.getElementById('busy');
    window.__busy = [];
    new MutationObserver(() => window.__busy.push(busy.hidden ? 'hidden' : `shown: ${busy.textContent.trim()}`))
      .observe(busy, { attributes: true, subtree: true, characterData: true, childList: true });
    const plot = document.getElementById('plot');
    window.__plotTops = new Set(); // the plot's place in the page each frame: the note moves nothing
    const frame = () => {
      window.__busy.push('frame');
      window.__plotTops.add(Math.round(plot.getBoundingClientRect().top + scrollY));
      if (window.__busy.length < 2000) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  return { page, blocked, errors };
}

// The notes "Building the analysis of long_trace.pickle: N%" in window.__busy
// came in slices, a frame between two, their shares rising.
async function builtInSlices(page) {
  const busy = (await page.evaluate(() => window.__busy)).filter((x, i, a) => x !== a[i - 1]);
  const note = 'shown: Building the analysis of long_trace.pickle: ';
  const notes = busy.map((x, i) => [x, i]).filter(([x]) => x.startsWith(note));
  assert.ok(notes.length >= 2, `the note was not shown in slices: ${busy}`);
  const shares = notes.map(([x]) => Number(x.slice(note.length).replace('%…', '')));
  assert.ok(shares.every((p, i) => p >= 0 && p <= 99 && (i === 0 || p >= shares[i - 1])), `shares ${shares}`);
  assert.ok(shares.at(-1) > shares[0], `the share moves: ${shares}`);
  for (let k = 1; k < notes.length; k++) {
    assert.ok(busy.slice(notes[k - 1][1], notes[k][1]).includes('frame'), `a frame between slices: ${busy}`);
  }
  const after = busy.slice(notes.at(-1)[1] + 1);
  assert.ok(after.indexOf('frame') >= 0 && after.indexOf('frame') < after.indexOf('hidden'), `a frame, then the panels: ${busy}`);
  assert.equal(await page.$eval('#busy', (e) => e.hidden), true);
  // The note floats over the page: in the flow it pushed the plot down while it showed.
  assert.deepEqual(await page.evaluate(() => window.__plotTops.size), 1, 'the plot moved while the note showed');
}

test('Alive at: a long trace builds its analysis a slice a frame, the note saying how far; calls meanwhile wait for it', async () => {
  const { peak: want, leaks } = makeLongTrace();
  const { page, blocked, errors } = await openLongTrace();
  // The peak picked and the leaks opened in one task: both wait for the
  // same build, and both show.
  await page.evaluate(() => {
    document.getElementById('moment-peak').click();
    const leaks = document.getElementById('leaks-details');
    leaks.open = true;
    leaks.dispatchEvent(new Event('toggle')); // now, not in a task of its own
  });
  await page.waitForSelector('#moment-totals [data-key="allocated"]', { timeout: 60000 });
  await page.waitForSelector('#leaks-body [data-key="alive-at-end"]');
  assert.equal(await page.$eval('#leaks-body [data-key="alive-at-end"]', (e) => Number(e.dataset.value)), leaks.alive_at_end_bytes);
  await builtInSlices(page);
  assert.equal(await shownBytes(page, 'allocated'), want, "Python's peak");
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Leaks from the segment timeline: the analysis is built a slice a frame there too, without the state history', async () => {
  const { leaks } = makeLongTrace();
  const { page, blocked, errors } = await openLongTrace();
  // The Active Cached Segment Timeline: the Active Memory one, which the
  // analysis walks, is replayed in the slices first.
  await page.selectOption('#view-select', '1');
  await page.waitForFunction(() => !window.memviz.viewer.command({ cmd: 'get' }).active_memory);
  await page.evaluate(() => { window.__busy.length = 0; });
  await page.click('#leaks-details summary');
  await page.waitForSelector('#leaks-body [data-key="alive-at-end"]', { timeout: 60000 });
  assert.equal(await page.$eval('#leaks-body [data-key="alive-at-end"]', (e) => Number(e.dataset.value)), leaks.alive_at_end_bytes);
  await builtInSlices(page);
  // Built: the analysis, not the state history (a step of it is still to do).
  assert.equal(await page.evaluate(() => window.memviz.viewer.command({ cmd: 'analysis_step', budget: 1, state: false }).value), 1);
  assert.ok(await page.evaluate(() => window.memviz.viewer.command({ cmd: 'analysis_step', budget: 1, state: true }).value) < 1);
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Alive at: Peak shows the Active Memory peak; the user-frame table sums to it', async () => {
  const { page, blocked, errors } = await openDropped(BIG, snapshot(BIG));
  const peak = expected(BIG).summary.devices['0'].active_memory.peak_bytes;

  await page.click('#moment-peak');
  await page.waitForSelector('#moment-totals [data-key="allocated"]');
  assert.equal(await page.$eval('#busy', (e) => e.hidden), true);
  assert.equal(await shownBytes(page, 'allocated'), peak);
  const reserved = await shownBytes(page, 'reserved');
  assert.ok(reserved >= peak, `reserved ${reserved} < allocated ${peak}`);
  assert.equal(await shownBytes(page, 'gap'), reserved - peak);
  assert.ok((await shownBytes(page, 'largest-free')) <= reserved - peak);
  const rows = await tableBytes(page);
  assert.ok(rows.length > 1, 'table has rows');
  assert.equal(rows.reduce((a, b) => a + b, 0), peak);
  // Sorted by bytes, largest first; clicking the header reverses it.
  assert.deepEqual(rows, [...rows].sort((a, b) => b - a));
  await page.click('#moment-table th:nth-child(2)');
  const asc = await tableBytes(page);
  assert.deepEqual(asc, [...rows].sort((a, b) => a - b));
  // Bytes by kind add up to the total too.
  const kinds = await page.$$eval('#moment-kinds [data-bytes]', (els) => els.map((e) => Number(e.dataset.bytes)));
  assert.equal(kinds.reduce((a, b) => a + b, 0), peak);
  // The filter keeps only matching rows.
  const first = await page.$eval('#moment-table tbody td', (e) => e.title);
  await page.fill('#moment-filter', first);
  const filtered = await page.$$eval('#moment-table tbody td:first-child', (els) => els.map((e) => e.title));
  assert.ok(filtered.length >= 1 && filtered.every((k) => k.includes(first)));
  await page.fill('#moment-filter', '');

  // [ and ] on the focused plot move t by one step (the arrows pan).
  const step = Number(await page.$eval('#moment-panel', (e) => e.dataset.step));
  await page.focus('#plot');
  await page.keyboard.press('[');
  await page.waitForFunction((s) => Number(document.querySelector('#moment-panel').dataset.step) === s - 1, step);
  await page.keyboard.press(']');
  await page.waitForFunction((s) => Number(document.querySelector('#moment-panel').dataset.step) === s, step);
  assert.equal(await shownBytes(page, 'allocated'), peak);
  assert.equal(await page.$eval('#moment-line', (e) => e.hidden), false);

  // A click on the plot sets t (and still pins: the context line shows text).
  const box = await page.$eval('#plot', (e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; });
  await page.mouse.click(box[0] + box[2] * 0.08, box[1] + box[3] * 0.9);
  await page.waitForFunction((s) => Number(document.querySelector('#moment-panel').dataset.step) !== s, step);
  const rows2 = await tableBytes(page);
  assert.equal(rows2.reduce((a, b) => a + b, 0), await shownBytes(page, 'allocated'));

  await page.click('#moment-peak');
  // The icicle, a frame or two after the table: drawn, and hovering its
  // root row tells the frame, bytes, share.
  await page.waitForFunction(() => document.querySelector('#moment-icicle').dataset.icicle === 'drawn');
  assert.equal(await page.$eval('#moment-icicle', (e) => e.hidden), false);
  await page.$eval('#moment-icicle', (e) => e.scrollIntoView());
  const ib = await page.$eval('#moment-icicle', (e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; });
  assert.ok(ib[3] >= 36, `icicle height ${ib[3]}`);
  await page.mouse.move(ib[0] + ib[2] / 2, ib[1] + 5);
  const tip = await page.$eval('#moment-icicle-tip', (e) => (e.hidden ? '' : e.textContent));
  // Sizes as memory_viz's formatSize writes them (one decimal, no space), the page's one format.
  assert.ok(tip.startsWith(`all\n${(peak / 2 ** 30).toFixed(1)}GiB · 1204 allocations · 100.0%\n`), tip);
  await page.mouse.move(ib[0] + 3, ib[1] + 18 + 5);
  assert.equal(await page.$eval('#moment-icicle-tip', (e) => e.hidden), false);
  await page.screenshot({ path: join(OUT, 'moment.png'), fullPage: true });
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.close();
});
