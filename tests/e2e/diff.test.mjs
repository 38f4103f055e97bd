// Browser test of the Diff on real H100 recordings (issue 43): two moments of
// ONE file (resnet50_no_zero_grad.pickle, A and B set from the timeline's t),
// two runs opened one after the other (with and without zero_grad), and four
// DDP ranks where a rank clicked becomes B and the median rank A.
// Expected bytes come from tests/reference/diff_reference.py and
// memviz_reference.py (Python's pickle module, no code shared with Rust).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, useBrowser, openPage, dropFiles, waitOpened } from './helpers.mjs';

const REC = join(ROOT, '../shared/recordings');
const REF = join(ROOT, 'tests/reference');
const SHOTS = process.env.MEMVIZ_SCREENSHOTS ? join(ROOT, 'docs') : join(ROOT, 'tests/e2e/out');
const python = (args) => JSON.parse(execFileSync('python3', args, { encoding: 'utf8', maxBuffer: 1 << 28 }));

useBrowser({ needs: [REC] });

/** Clicks Compare and returns #diff-out's numbers and the table's rows once the table is there. */
async function compare(page) {
  await page.$eval('#diff-out', (o) => { delete o.dataset.changed; });
  await page.click('#diff-run');
  await page.waitForFunction(() => document.querySelector('#diff-out').dataset.changed !== undefined, null, { timeout: 60000 });
  const out = await page.$eval('#diff-out', (e) => ({ ...e.dataset }));
  const rows = await page.$$eval('#diff-table tbody tr', (trs) => trs.map((t) =>
    ({ key: window.memviz.ranks.diffGroups[+t.dataset.i].key, a: Number(t.dataset.a), b: Number(t.dataset.b) })));
  return { out, rows };
}

function checkAgainst(want, { out, rows }) {
  assert.equal(Number(out.totalA), want.a.total_bytes, 'A total');
  assert.equal(Number(out.totalB), want.b.total_bytes, 'B total');
  const changed = want.groups.filter((g) => g.bytes_a !== g.bytes_b || g.count_a !== g.count_b);
  assert.ok(changed.length > 0, 'the two sides differ');
  assert.equal(Number(out.changed), changed.length);
  const byKey = new Map(want.groups.map((g) => [g.key, g]));
  assert.equal(rows.length, Math.min(changed.length, 40));
  for (const r of rows) {
    const g = byKey.get(r.key);
    assert.ok(g, `a key the reference has: ${r.key}`);
    assert.deepEqual([r.a, r.b], [g.bytes_a, g.bytes_b], r.key);
  }
}

test('one file: two moments set from the timeline, by user frame and by kind', async () => {
  const name = 'resnet50_no_zero_grad.pickle';
  const { page, blocked, errors } = await openPage();
  await dropFiles(page, [[name, readFileSync(join(REC, name))]]);
  await waitOpened(page, name);
  await page.waitForSelector('#diff-panel:not([hidden])');
  assert.equal(await page.$eval('#ranks-panel', (b) => b.hidden), true, 'one file: no rank table');
  // A at a third of the run, B at its last step: set t on the timeline, then A ← t / B ← t.
  const n = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).steps);
  const [sa, sb] = [Math.floor(n / 3), n - 1];
  for (const [slot, s] of [['a', sa], ['b', sb]]) {
    await page.evaluate((s) => window.memviz.moment.setMoment({ step: s }), s);
    await page.waitForFunction((s) => window.memviz.moment.view?.at?.step === s, s);
    await page.click(`#diff-t-${slot}`);
  }
  assert.deepEqual(await page.$eval('#diff-step-a', (i) => Number(i.value)), sa);
  assert.equal(await page.$eval('#diff-by', (s) => s.value), 'user', 'grouped by user frame by default');
  const file = join(REC, name);
  const ref = (by) => python([join(REF, 'diff_reference.py'), file, file, '--at-a', `step:${sa}`, '--at-b', `step:${sb}`, '--by', by]);
  checkAgainst(ref('user'), await compare(page));
  await page.waitForFunction(() => document.querySelector('#diff-out').dataset.icicle === 'drawn');
  await (await page.$('#diff-panel')).screenshot({ path: join(SHOTS, 'screenshot-diff-moments.png') });
  await page.selectOption('#diff-by', 'kind');
  checkAgainst(ref('category'), await compare(page));
  // A step past the end: the page names it, and the next diff works.
  await page.fill('#diff-step-b', String(n + 1000));
  await page.click('#diff-run');
  await page.waitForFunction((n) => document.body.innerText.includes(`no step ${n + 1000}`), n);
  await page.fill('#diff-step-b', String(sb));
  checkAgainst(ref('category'), await compare(page));
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
});

test('two runs opened one after the other: the second is B, the first A, and Compare compares them', async () => {
  const names = ['resnet50_zero_grad.pickle', 'resnet50_no_zero_grad.pickle'];
  const { page, blocked, errors } = await openPage();
  for (const name of names) {
    await dropFiles(page, [[name, readFileSync(join(REC, name))]]);
    await waitOpened(page, name);
  }
  await page.waitForFunction(() => document.querySelector('#diff-a').options.length === 2);
  const form = await page.evaluate(() => ['a', 'b'].map((s) => document.querySelector(`#diff-${s}`).selectedOptions[0].textContent));
  assert.deepEqual(form, names.map((n) => `${n} · device 0`), 'A: the first run, B: the one opened after it');
  const want = python([join(REF, 'diff_reference.py'), join(REC, names[0]), join(REC, names[1]), '--by', 'user']);
  checkAgainst(want, await compare(page));
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
});

test('DDP ranks: a rank clicked is B, the median rank A', async () => {
  const names = [0, 1, 2, 3].map((r) => `ddp_gpt2_rank${r}.pickle`);
  const { page, blocked, errors } = await openPage();
  await dropFiles(page, names.map((n) => [n, readFileSync(join(REC, n))]));
  await page.waitForFunction(() => {
    const p = document.querySelector('#ranks-panel');
    return p && p.dataset.rows === '4' && p.dataset.loading === '0';
  }, null, { timeout: 120000 });
  await waitOpened(page, names[0]);
  const peaks = names.map((n) => {
    const s = python([join(REF, 'memviz_reference.py'), 'summary', join(REC, n)]);
    return s.devices[Object.keys(s.devices)[0]].active_memory.peak_bytes;
  });
  const sorted = [...peaks].sort((a, b) => a - b);
  const median = (sorted[1] + sorted[2]) / 2;
  const clicked = 3;
  const near = [0, 1, 2, 3].filter((i) => i !== clicked).sort((x, y) => Math.abs(peaks[x] - median) - Math.abs(peaks[y] - median) || x - y)[0];
  await page.click(`#ranks-table tbody tr[data-rank="${clicked}"]`);
  await waitOpened(page, names[clicked]);
  const pick = await page.evaluate(() => [document.querySelector('#diff-a').value, document.querySelector('#diff-b').value]);
  assert.deepEqual(pick.map(Number), [near, clicked], `A: the median rank ${near} (peaks ${peaks}), B: the rank clicked`);
  const want = python([join(REF, 'diff_reference.py'), join(REC, names[near]), join(REC, names[clicked]), '--by', 'user']);
  checkAgainst(want, await compare(page));
  await page.waitForFunction(() => document.querySelector('#diff-out').dataset.icicle === 'drawn');
  await page.$eval('#ranks-panel', (p) => p.scrollIntoView());
  const top = await page.$eval('#ranks-panel', (p) => p.getBoundingClientRect().top + window.scrollY);
  const bottom = await page.$eval('#diff-panel', (p) => p.getBoundingClientRect().bottom + window.scrollY);
  await page.screenshot({ path: join(SHOTS, 'screenshot-diff-ranks.png'), fullPage: true, clip: { x: 0, y: top, width: 1400, height: Math.min(bottom - top, 3000) } });
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
});
