// Browser test of the "What if" panel (www/whatif.js): on a real
// fragmentation OOM (../shared/recordings/oom_fragmentation_2gib.pickle),
// the panel replays the trace under the recording's own settings (the OOM
// happens again), then with expandable_segments toggled on (it does not);
// the predicted line is drawn, and the OOM panel's advice carries the
// verdict by itself (its replay starts when an OOM is explained), and the
// prediction is drawn over the Active Cached Segment Timeline. The numbers are checked against `memviz whatif --json` (the
// CLI, built by cargo) and the self-check's event count against Python's
// own pickle module.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, useBrowser, openPage, dropFiles, waitOpened, newFileFrames } from './helpers.mjs';

const NAME = 'oom_fragmentation_2gib.pickle';
const FILE = join(ROOT, '../shared/recordings', NAME);
const OUT = join(ROOT, 'tests/e2e/out');
mkdirSync(OUT, { recursive: true });

/** `memviz whatif FILE --json [--set ...]`, the CLI built from this tree. */
function cli(...sets) {
  const args = ['run', '--quiet', '--release', '-p', 'memviz-cli', '--', 'whatif', FILE, '--json'];
  for (const s of sets) args.push('--set', s);
  return JSON.parse(execFileSync('cargo', args, { cwd: ROOT, maxBuffer: 1 << 26 }));
}

/** Device 0's events the self-check compares (segment events, allocs, OOMs), by Python. */
const pythonEvents = () => Number(execFileSync('python3', ['-c', `
import pickle, sys
t = pickle.load(open(sys.argv[1], 'rb'))['device_traces'][0]
print(sum(1 for e in t if e['action'] in ('segment_alloc', 'segment_free', 'segment_map', 'segment_unmap', 'alloc', 'oom')))
`, FILE]).toString());

useBrowser();
before(async () => {
  assert.ok(existsSync(FILE), `${FILE} is missing (../shared must sit beside the repository)`);
});

/** What the panel shows, once its replay is done. */
async function shown(page) {
  await page.waitForFunction(() => document.querySelector('#whatif-panel').dataset.stage === 'done', null, { timeout: 30000 });
  return page.evaluate(() => ({
    selfCheck: document.querySelector('#whatif-selfcheck').textContent,
    exact: document.querySelector('#whatif-selfcheck').dataset.exact,
    ooms: [...document.querySelectorAll('#whatif-ooms li')].map((li) =>
      ({ event: Number(li.dataset.event), happens: li.dataset.happens === 'true', text: li.textContent })),
    needs: Number(document.querySelector('#whatif-needs').dataset.bytes),
    capacity: document.querySelector('#whatif-capacity_bytes').value,
    capLine: document.querySelector('#whatif-capacity').textContent,
    expandable: document.querySelector('#whatif-expandable_segments').checked,
    advice: document.querySelector('#explain-body .advice[data-advice=whatif]')?.textContent ?? null,
    columns: Number(document.querySelector('#whatif-chart').dataset.predicted),
  }));
}

/** Pixels of the chart canvas in `rgb` (the predicted line's colour). */
const pixels = (page, rgb) => page.$eval('#whatif-chart', (c, rgb) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - rgb[0]) < 8 && Math.abs(d[i + 1] - rgb[1]) < 8 && Math.abs(d[i + 2] - rgb[2]) < 8 && d[i + 3] > 200) n++;
  }
  return n;
}, rgb);
const ORANGE = [0xf2, 0x8e, 0x2c];

/** Pixels of the overlay canvas over the plot in its line's colour (0 when hidden). */
const overlayPixels = (page) => page.$eval('#whatif-overlay', (c, rgb) => {
  if (c.hidden || !c.width) return 0;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - rgb[0]) < 8 && Math.abs(d[i + 1] - rgb[1]) < 8 && Math.abs(d[i + 2] - rgb[2]) < 8 && d[i + 3] > 200) n++;
  }
  return n;
}, [0x11, 0x11, 0x11]);

/** Selects the view named `name` in the view selector. */
async function showView(page, name) {
  const i = await page.$$eval('#view-select option', (os, name) => os.findIndex((o) => o.textContent === name), name);
  assert.ok(i >= 0, `no view named ${name}`);
  await page.selectOption('#view-select', { index: i });
}

test('What if: the OOM happens under its own settings, expandable_segments avoid it; numbers as the CLI says', async () => {
  const events = pythonEvents();
  const own = cli();
  const exp = cli('expandable_segments:True');
  assert.equal(own.self_check.events, events);
  assert.equal(own.predicted.ooms[0].happens, true);
  assert.equal(exp.predicted.ooms[0].happens, false);

  const { page, blocked, errors } = await openPage();
  await dropFiles(page, [[NAME, readFileSync(FILE)]]);
  await waitOpened(page, NAME);
  // The OOM explained: its advice replays by itself (the panel closed),
  // under the recording's settings with expandable_segments:True.
  await page.evaluate(() => window.memviz.explain.explain({ oom: 0 }));
  await page.waitForSelector('#explain-body h3[data-what=oom]');
  await page.waitForSelector('#explain-body .advice[data-advice=whatif]', { timeout: 30000 });
  const adv = await shown(page);
  assert.equal(await page.$eval('#whatif-details', (d) => d.open), false, 'the panel was not opened');
  assert.equal(adv.expandable, true);
  assert.match(adv.advice, /^with expandable_segments:True the replay peaks at .* would not have happened/);
  assert.deepEqual(adv.ooms.map((o) => [o.event, o.happens]), exp.predicted.ooms.map((o) => [o.event, o.happens]));
  assert.equal(adv.needs, exp.predicted.min_capacity_bytes);

  // The prediction over the Active Cached Segment Timeline: drawn on its
  // overlay canvas (in its line's colour), with its legend.
  assert.equal(await overlayPixels(page), 0, 'no overlay on the Active Memory Timeline');
  await showView(page, 'Active Cached Segment Timeline');
  await page.waitForFunction(() => Number(document.querySelector('#whatif-overlay')?.dataset.points) > 0, null, { timeout: 30000 });
  assert.ok(await overlayPixels(page) > 200, 'the overlay line is drawn');
  assert.equal(await page.textContent('#whatif-overlay-legend'), 'predicted with expandable_segments:True');
  // (This file's segment timeline has one step, a segment made before the
  // replayed allocations: the line sits on its edges. The screenshot is of
  // a richer file, below.)
  await (await page.$('#plot-box')).screenshot({ path: join(OUT, 'whatif-overlay-oom.png') });
  await showView(page, 'Active Memory Timeline');
  await page.waitForFunction(() => document.querySelector('#whatif-overlay').hidden);

  // The panel opened shows that replay; its reset replays the recording's own settings.
  await page.click('#whatif-details > summary');
  await page.click('#whatif-reset');
  await page.waitForFunction(() => !document.querySelector('#whatif-expandable_segments').checked);
  const a = await shown(page);
  assert.equal(a.selfCheck, `self-check: the model reproduces this recording: ${events} of ${events} events (segment events, OOMs, block addresses)`);
  assert.equal(a.exact, 'true');
  assert.equal(a.expandable, own.settings.expandable_segments, 'prefilled with the recording\'s own settings');
  assert.equal(Number(a.capacity), own.capacity.bytes, 'the capacity field holds the cap the trace shows');
  assert.deepEqual(a.ooms.map((o) => [o.event, o.happens]), own.predicted.ooms.map((o) => [o.event, o.happens]));
  assert.match(a.capLine, /something capped the process/, own.capacity.source);
  assert.equal(own.capacity.source, 'inferred_cap');
  assert.equal(a.needs, own.predicted.min_capacity_bytes);
  assert.match(a.advice, /still happens/);
  assert.ok(a.columns > 0 && await pixels(page, ORANGE) > 50, 'the predicted line is drawn');

  await page.click('#whatif-expandable_segments');
  await page.waitForFunction(() => document.querySelector('#whatif-ooms li')?.dataset.happens === 'false', null, { timeout: 30000 });
  const b = await shown(page);
  assert.deepEqual(b.ooms.map((o) => [o.event, o.happens]), exp.predicted.ooms.map((o) => [o.event, o.happens]));
  assert.equal(b.needs, exp.predicted.min_capacity_bytes);
  assert.equal(b.capLine, a.capLine, 'the prefilled capacity stays the trace\'s');
  assert.equal(b.selfCheck, a.selfCheck, 'the self-check is the recording\'s whatever the fields say');
  assert.match(b.advice, /^with expandable_segments:True the replay peaks at .* would not have happened/);
  assert.ok(await pixels(page, ORANGE) > 50, 'the predicted line is drawn');
  // The OOM panel's advice and the What if panel, together.
  const shot = process.env.MEMVIZ_SCREENSHOTS ? join(ROOT, 'docs/screenshot-whatif.png') : join(OUT, 'whatif.png');
  const top = await page.$eval('#explain-body h4', (e) => e.getBoundingClientRect().top + window.scrollY);
  const end = await page.$eval('#whatif-panel', (e) => e.getBoundingClientRect().bottom + window.scrollY);
  await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: top - 8, width: 1400, height: end - top + 16 } });

  // A bad field: its error, and the verdict before stays.
  await page.fill('#whatif-max_split_size_mb', 'ten');
  await page.dispatchEvent('#whatif-max_split_size_mb', 'change');
  await page.waitForFunction(() => document.querySelector('#whatif-panel').dataset.error === 'setting');
  assert.match(await page.textContent('#whatif-error'), /max_split_size_mb:ten/);
  assert.equal(await page.getAttribute('#whatif-ooms li', 'data-happens'), 'false');

  // Another file's first frames (the view kept) show none of this one's prediction over their plot (the panel
  // closed: the new file's own replay waits for it).
  await page.click('#whatif-details > summary');
  await showView(page, 'Active Cached Segment Timeline');
  await page.waitForFunction(() => !document.querySelector('#whatif-overlay').hidden, null, { timeout: 30000 });
  const other = 'compile_mlp_adam.pickle';
  const drawn = await newFileFrames(page, [other, readFileSync(join(ROOT, '../shared/recordings', other))],
    "!document.getElementById('whatif-overlay').hidden", 8);
  assert.deepEqual(drawn, Array(8).fill(false), 'the old prediction over the new plot');

  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('What if: the prediction over a segment timeline with many segment events (tests/whatif/data/mixed_default.pickle)', async () => {
  const name = 'mixed_default.pickle';
  const file = join(ROOT, 'tests/whatif/data', name);
  const { page, blocked, errors } = await openPage();
  await dropFiles(page, [[name, readFileSync(file)]]);
  await waitOpened(page, name);
  await page.click('#whatif-details > summary');
  await shown(page);
  await page.click('#whatif-expandable_segments');
  await page.waitForFunction(() => document.querySelector('#whatif-expandable_segments').checked &&
    document.querySelector('#whatif-panel').dataset.stage === 'done', null, { timeout: 30000 });
  await showView(page, 'Active Cached Segment Timeline');
  await page.waitForFunction(() => Number(document.querySelector('#whatif-overlay')?.dataset.points) > 0, null, { timeout: 30000 });
  assert.ok(await overlayPixels(page) > 500, 'the overlay line is drawn');
  assert.equal(await page.textContent('#whatif-overlay-legend'), 'predicted with expandable_segments:True');
  const shot = process.env.MEMVIZ_SCREENSHOTS ? join(ROOT, 'docs/screenshot-whatif-overlay.png') : join(OUT, 'whatif-overlay.png');
  await (await page.$('#plot-box')).screenshot({ path: shot });
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.close();
});
