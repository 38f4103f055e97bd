// Browser tests of issue 9's page parts: pinned host memory as the device
// "host" in the selector, annotations in the hover and the event list, and
// the reader's warnings shown as a warning line. Files and expected values
// come from tests/reference/gen_fields.py (Python's pickle and an
// independent replay), dropped onto the release page (dist/).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { ROOT, SNAPSHOTS, useBrowser, openPage, dropFiles, waitOpened, shownSummary, viewerQuery } from './helpers.mjs';

const TMP = mkdtempSync(join(tmpdir(), 'memviz-fields-'));
useBrowser();
after(async () => {
  rmSync(TMP, { recursive: true, force: true });
});

/** Runs gen_fields.py; returns [file bytes, expected JSON]. */
function generate(name, ...args) {
  const file = join(TMP, name);
  const out = execFileSync('python3', [join(ROOT, 'tests/reference/gen_fields.py'), ...args, file], { encoding: 'utf8' });
  return [readFileSync(file), JSON.parse(out)];
}

async function drop(page, name, bytes) {
  await dropFiles(page, [[name, bytes]]);
  await waitOpened(page, name);
}

const viewer = (page, f, arg) => viewerQuery(page, f, arg);
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));

test('pinned host memory is the device "host"; annotations in the hover and the event list', async () => {
  const [bytes, want] = generate('new_fields.pickle', 'new-fields');
  const { page, errors } = await openPage();
  await drop(page, 'new_fields.pickle', bytes);
  const labels = await page.$$eval('#device-select option', (o) => o.map((x) => x.textContent));
  assert.deepEqual(labels, ['cuda:0', 'host']);
  assert.equal(await page.$$eval('#errors .warning', (w) => w.length), 0, 'a sound file has no warning');

  // The host's numbers, as `memviz summary` names them under "host".
  const host = await page.$eval('#device-select', (s) => [...s.options].find((o) => o.textContent === 'host').value);
  await page.selectOption('#device-select', host);
  await settle(page);
  const shown = await shownSummary(page);
  const h = want.summary.devices.host;
  assert.equal(shown.trace_events, h.trace_events);
  assert.equal(shown.segments, h.segments);
  assert.equal(shown.reserved_bytes, h.reserved_bytes);
  assert.equal(shown['timeline.peak_bytes'], h.active_memory.peak_bytes);
  assert.equal(JSON.parse(await viewer(page, 'summary_json')).device_name, 'host');

  // Device 0: the hover of the allocation an annotation attaches to.
  await page.selectOption('#device-select', '0');
  await settle(page);
  const a = want.annotations[0];
  const n = await viewer(page, 'element_count');
  let found = -1;
  for (let e = 0; e < n; e++) {
    if ((await viewer(page, 'element_text', [e])).includes(a.hover)) found = e;
  }
  assert.ok(found >= 0, `no element shows ${a.hover}`);

  // The event list line of each annotate event.
  const i = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).views.findIndex((c) => c.name === 'Allocator State History'));
  await page.selectOption('#view-select', String(i));
  await page.waitForFunction((i) => ((p) => p.views.findIndex((c) => c.id === p.view))(window.memviz.viewer.command({ cmd: 'get' })) === i, Number(i)); // a long build shows the view frames later
  await settle(page);
  for (const ann of want.annotations) {
    await page.evaluate((k) => window.memviz.views.select(k), ann.event);
    await settle(page);
    const row = await page.textContent('#event-rows div.sel');
    const first = ann.line.split('\n')[0];
    assert.ok(row.includes(first), `${row} lacks ${first}`);
  }
  assert.ok(errors.length === 0, errors.join('\n'));
  await page.context().close();
});

test('broken entries: the file opens, the warning line says what was skipped and where', async () => {
  const [bytes, want] = generate('broken.pickle', 'bad-entries', join(SNAPSHOTS, 'small_train_step.pickle'));
  const { page, errors } = await openPage();
  await drop(page, 'broken.pickle', bytes);
  const text = await page.$eval('#errors .warning', (w) => w.textContent);
  const lines = want.warnings.map((w) => `broken.pickle: warning: ${w}`);
  assert.equal(text, '×' + lines.join('\n'));
  assert.deepEqual(await viewer(page, 'warnings'), want.warnings);
  assert.equal((await shownSummary(page)).trace_events, want.kept_events);
  assert.equal(await page.$$eval('#errors .error', (e) => e.length), 0);

  // Nothing usable: an error, as for any file that is no snapshot.
  const [none, nw] = generate('nothing.pickle', 'nothing-usable');
  await dropFiles(page, [['nothing.pickle', none]]);
  await page.waitForSelector('#errors .error');
  const err = await page.$eval('#errors .error', (e) => e.textContent);
  assert.ok(err.includes(`nothing.pickle: ${nw.error}`), err);
  assert.ok(errors.length === 0, errors.join('\n'));
  await page.context().close();
});
