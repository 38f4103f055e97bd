// Browser test of the Findings strip (www/explain.js, issue 40) on three
// H100 recordings: the lines under the summary, their kinds and numbers
// against tests/reference/findings_reference.py and memviz_reference.py
// (standard-library Python, no code shared with memviz), and each link
// opening its evidence. Screenshots of the strip go to tests/e2e/out/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, useBrowser, openPage, dropFiles, waitOpened } from './helpers.mjs';

const RECORDINGS = join(ROOT, '../shared/recordings');
const OUT = join(ROOT, 'tests/e2e/out');
mkdirSync(OUT, { recursive: true });
const py = (script, ...args) => JSON.parse(execFileSync('python3',
  [join(ROOT, 'tests/reference', script), ...args], { maxBuffer: 1 << 28 }));

useBrowser();
before(async () => {
  assert.ok(existsSync(RECORDINGS), `${RECORDINGS} is missing: the test reads the H100 recordings from there`);
});

async function open(name) {
  const { page, blocked, errors } = await openPage({ viewport: { width: 1280, height: 900 } });
  await dropFiles(page, [[name, readFileSync(join(RECORDINGS, name))]]);
  await waitOpened(page, name);
  await page.waitForFunction(() => document.querySelectorAll('#findings li').length > 0, null, { timeout: 30000 });
  const lines = await page.$$eval('#findings li', (els) => els.map((e) => ({
    kind: e.dataset.kind, bytes: e.dataset.bytes === '' ? null : Number(e.dataset.bytes),
    event: e.dataset.event === '' ? null : Number(e.dataset.event), text: e.textContent })));
  return { page, blocked, errors, lines };
}

const click = (page, kind) => page.click(`#findings li[data-kind="${kind}"] a`);

test('resnet50_no_zero_grad: gradients kept, the peak, the optimizer state; each link opens its evidence', async () => {
  const name = 'resnet50_no_zero_grad.pickle';
  const ref = py('findings_reference.py', join(RECORDINGS, name));
  const peak = py('memviz_reference.py', 'summary', join(RECORDINGS, name)).devices['0'].active_memory.peak_bytes;
  const { page, blocked, errors, lines } = await open(name);
  assert.deepEqual(lines.map((l) => l.kind), ['gradients_kept', 'peak', 'optimizer_state']);
  const by = Object.fromEntries(lines.map((l) => [l.kind, l]));
  assert.equal(by.gradients_kept.bytes, ref.gradients_kept_bytes);
  assert.equal(by.peak.bytes, peak);
  assert.equal(by.optimizer_state.bytes, ref.optimizer_state_bytes);
  assert.match(by.gradients_kept.text, /^Gradients kept into the next forward/);
  await page.screenshot({ path: join(OUT, 'findings-resnet50-no-zero-grad.png'), clip: { x: 0, y: 0, width: 1280, height: 260 } });

  // The peak: the peak explained.
  await click(page, 'peak');
  await page.waitForSelector('#explain-body h3[data-what="peak"]');
  // Gradients kept: the Alive at panel at the end of the forward that had them.
  await click(page, 'gradients_kept');
  await page.waitForFunction((ev) => window.memviz.moment.view?.at.event === ev, by.gradients_kept.event);
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('oom_fragmentation_2gib: the OOM (fragmentation, capped) and the cap, linked to the OOM explained', async () => {
  const name = 'oom_fragmentation_2gib.pickle';
  const ref = py('findings_reference.py', join(RECORDINGS, name)).ooms[0];
  const { page, blocked, errors, lines } = await open(name);
  assert.deepEqual(lines.map((l) => l.kind), ['oom', 'capped', 'peak']);
  assert.equal(lines[0].bytes, ref.bytes);
  assert.equal(lines[0].event, ref.event);
  assert.match(lines[0].text, /fragmentation, capped$/);
  await page.screenshot({ path: join(OUT, 'findings-oom-fragmentation.png'), clip: { x: 0, y: 0, width: 1280, height: 260 } });
  await click(page, 'capped');
  await page.waitForSelector('#explain-body h3[data-what="oom"]');
  assert.equal(await page.$eval('#explain-body [data-key="request"]', (e) => Number(e.dataset.value)), ref.bytes);
  assert.ok(await page.$('#explain-body [data-advice="fragmentation"]'));
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('expandable_gpt2_varlen: AdamW state 2x the gradients; no gradients kept in a healthy loop', async () => {
  const name = 'expandable_gpt2_varlen.pickle';
  const ref = py('findings_reference.py', join(RECORDINGS, name));
  const { page, blocked, errors, lines } = await open(name);
  assert.deepEqual(lines.map((l) => l.kind), ['peak', 'optimizer_state']);
  assert.equal(lines[1].bytes, ref.optimizer_state_bytes);
  assert.equal(ref.optimizer_state_bytes, 2 * ref.gradient_bytes_before_step);
  assert.match(lines[1].text, /2\.00x/);
  await page.screenshot({ path: join(OUT, 'findings-expandable-gpt2.png'), clip: { x: 0, y: 0, width: 1280, height: 260 } });
  await click(page, 'optimizer_state');
  await page.waitForFunction((ev) => window.memviz.moment.view?.at.event === ev, lines[1].event);
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.close();
});
