// Browser test of many files at once (www/ranks.js): four generated ranks
// dropped together; the overview's numbers, order and outlier colour, a row
// click that keeps the zoom and t, and a diff, all against numbers computed
// in Python (tests/reference/memviz_reference.py, diff_reference.py).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, useBrowser, openPage, dropFiles, waitOpened, snapshot } from './helpers.mjs';

const OUT = join(ROOT, 'tests/e2e/out');
const DIR = join(OUT, 'ranks');
const GEN = join(ROOT, '../shared/tools/gen_snapshot.py');
const REF = join(ROOT, 'tests/reference');
mkdirSync(DIR, { recursive: true });

// Dropped in this (shuffled) order; rank 2 ends in an OOM, rank 3 runs more
// iterations (a higher peak: the outlier).
const RANKS = [
  { rank: 2, args: ['--events', '3000', '--seed', '32', '--oom'] },
  { rank: 0, args: ['--events', '3000', '--seed', '30'] },
  { rank: 3, args: ['--events', '6000', '--seed', '33', '--iters', '6'] },
  { rank: 1, args: ['--events', '3000', '--seed', '31'] },
];
const name = (r) => `train_rank${r}.pickle`;
const python = (args) => JSON.parse(execFileSync('python3', args, { encoding: 'utf8', maxBuffer: 1 << 28 }));

useBrowser();
before(async () => {
  for (const { rank, args } of RANKS) execFileSync('python3', [GEN, join(DIR, name(rank)), ...args]);
});

test('four ranks at once: overview, row click keeps zoom and t, diff', async () => {
  const { page, blocked, errors } = await openPage();
  await dropFiles(page, RANKS.map(({ rank }) => [name(rank), readFileSync(join(DIR, name(rank)))]));
  await page.waitForFunction(() => {
    const p = document.querySelector('#ranks-panel');
    return p && p.dataset.rows === '4' && p.dataset.loading === '0';
  }, null, { timeout: 120000 });
  await waitOpened(page, name(0));

  // The overview: ranks in order, memory_viz's numbers computed in Python.
  const rows = await page.$$eval('#ranks-table tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset })));
  assert.deepEqual(rows.map((r) => r.rank), ['0', '1', '2', '3']);
  const peaks = [];
  for (const r of rows) {
    const s = python([join(REF, 'memviz_reference.py'), 'summary', join(DIR, name(r.rank))]).devices['0'];
    assert.equal(Number(r.peak), s.active_memory.peak_bytes, `rank ${r.rank} peak`);
    assert.equal(Number(r.reserved), s.segment_memory.peak_bytes, `rank ${r.rank} reserved`);
    assert.equal(Number(r.end), s.active_memory.end_bytes, `rank ${r.rank} end`);
    assert.equal(Number(r.ooms), s.actions.oom || 0, `rank ${r.rank} OOMs`);
    peaks.push(s.active_memory.peak_bytes);
  }
  assert.deepEqual(rows.map((r) => Number(r.ooms)), [0, 0, 1, 0]);
  // Distance from the median peak (4 rows: the mean of the middle two).
  const sorted = [...peaks].sort((a, b) => a - b);
  const median = (sorted[1] + sorted[2]) / 2;
  rows.forEach((r, i) => assert.ok(Math.abs(Number(r.distance) - (peaks[i] - median) / median) < 1e-3, `rank ${i} distance`));
  const far = peaks.map((p) => Math.abs(p - median)).reduce((m, d, i, a) => (d > a[m] ? i : m), 0);
  const colours = await page.$$eval('#ranks-table tbody td.peak', (tds) => tds.map((t) => t.style.background));
  assert.ok(colours[far] && colours[far] !== 'transparent', `the outlier rank ${far} is coloured: ${colours}`);
  // Sparklines (SVG paths from ranks.rs) on one y scale: the largest peak's reaches highest.
  const sparks = await page.$$eval('#ranks-table svg.spark path', (ps) => ps.map((p) => ({ h: p.getBoundingClientRect().height,
    top: Math.min(...p.getAttribute('d').split('L').slice(1).map((q) => Number(q.split(',')[1]))) })));
  assert.equal(sparks.filter((s) => s.h > 0).length, 4);
  assert.equal(sparks[peaks.indexOf(Math.max(...peaks))].top, Math.min(...sparks.map((s) => s.top)), JSON.stringify(sparks));
  const plotBox = await page.$eval('#minimap', (e) => e.getBoundingClientRect().bottom + window.scrollY);
  await page.screenshot({ path: join(OUT, 'screenshot-ranks.png'), fullPage: true, clip: { x: 0, y: 0, width: 1400, height: Math.ceil(plotBox) + 8 } });

  // Zoom in and set t on rank 0, then click rank 1: both stay.
  const before = await page.evaluate(() => {
    const v = window.memviz.viewer;
    window.memviz.command({ cmd: 'set_window', x0: 100, x1: 700 });
    window.memviz.redraw();
    window.memviz.moment.setMoment({ step: 400 });
    return v.command({ cmd: 'get' }).window;
  });
  await page.click('#ranks-table tbody tr[data-rank="1"]');
  await waitOpened(page, name(1));
  const afterSwitch = await page.evaluate(() => {
    const v = window.memviz.viewer;
    return { w: v.command({ cmd: 'get' }).window, step: window.memviz.moment.view.at.step };
  });
  assert.deepEqual(afterSwitch.w, before);
  assert.equal(afterSwitch.step, 400);
  assert.equal(await page.$eval('#ranks-panel', (p) => p.dataset.shown.split('/')[0]), await page.evaluate(() => String(window.memviz.viewer.command({ cmd: 'get' }).file)));

  // Hidden ranks: the last shown keep their timelines (rank 0, shown just
  // before), as far as the largest model's bytes; a rank freed is replayed
  // when clicked, and shows Python's peak.
  const fileOf = Object.fromEntries(rows.map((r) => [r.rank, Number(r.file)]));
  const kept = () => page.evaluate(() => window.memviz.viewer.ranks({ do: 'memory' }).timeline_bytes);
  const keptNow = await kept();
  console.log(`timeline bytes by file: ${keptNow}`);
  assert.ok(keptNow[fileOf[0]] > 0, `rank 0, shown before rank 1, keeps its timeline: ${keptNow}`);
  const freed = rows.find((r) => keptNow[Number(r.file)] === 0);
  assert.ok(freed, `a rank freed (they do not all fit the largest model): ${keptNow}`);
  await page.click(`#ranks-table tbody tr[data-rank="${freed.rank}"]`);
  await waitOpened(page, name(freed.rank));
  assert.equal(await page.$eval('#ranks-panel', (p) => p.dataset.replay !== undefined && p.dataset.shown), `${freed.file}/0`);
  assert.equal(await page.evaluate(() => window.memviz.viewer.command({ cmd: 'numbers' }).numbers.timeline.peak_bytes), Number(freed.peak));
  assert.ok((await kept())[Number(freed.file)] > 0);
  await page.click('#ranks-table tbody tr[data-rank="1"]');
  await waitOpened(page, name(1));

  // Diff rank 0 (A) against rank 1 (B) at each one's peak, by stack.
  await page.selectOption('#diff-a', '0');
  await page.selectOption('#diff-b', '1');
  await page.selectOption('#diff-by', 'stack');
  await page.click('#diff-run');
  await page.waitForSelector('#diff-out:not([hidden])');
  const want = python([join(REF, 'diff_reference.py'), join(DIR, name(0)), join(DIR, name(1)), '--by', 'stack']);
  const out = await page.$eval('#diff-out', (e) => ({ ...e.dataset }));
  assert.equal(Number(out.totalA), want.a.total_bytes);
  assert.equal(Number(out.totalB), want.b.total_bytes);
  const changed = want.groups.filter((g) => g.bytes_a !== g.bytes_b || g.count_a !== g.count_b);
  assert.ok(changed.length > 0);
  assert.equal(Number(out.changed), changed.length);
  assert.equal(Number(out.groups), want.groups.length);
  const byKey = new Map(want.groups.map((g) => [g.key, g]));
  const tableRows = () => page.$$eval('#diff-table tbody tr', (trs) => trs.map((t) => ({ key: window.memviz.ranks.diffGroups[+t.dataset.i].key, a: Number(t.dataset.a), b: Number(t.dataset.b) })));
  // The table lays out 40 rows; scrolling to its end brings the rest of the
  // 200 largest changes.
  assert.equal((await tableRows()).length, Math.min(changed.length, 40));
  for (let i = 0; i < 6; i++) {
    await page.$eval('#diff-table-box', (b) => { b.scrollTop = b.scrollHeight; });
    await page.waitForTimeout(50);
  }
  const shown = await tableRows();
  assert.equal(shown.length, Math.min(changed.length, 200));
  assert.ok(shown.length > 40, `${shown.length} rows: the scroll is tested`);
  for (const s of shown) {
    const g = byKey.get(s.key);
    assert.ok(g, `a key the reference has: ${s.key}`);
    assert.deepEqual([s.a, s.b], [g.bytes_a, g.bytes_b], s.key);
  }
  // A group's whole stack is its cell's title once hovered.
  await page.$eval('#diff-table-box', (b) => { b.scrollTop = 0; });
  await page.hover('#diff-table tbody tr:first-child td.group');
  assert.equal(await page.$eval('#diff-table tbody tr:first-child td.group', (td) => td.title), shown[0].key);
  const deltas = shown.map((s) => Math.abs(s.b - s.a));
  assert.deepEqual(deltas, [...deltas].sort((x, y) => y - x), 'largest change first');
  // The icicle comes in the frame after the table.
  await page.waitForFunction(() => document.querySelector('#diff-out').dataset.icicle === 'drawn');
  const icicle = await page.$eval('#diff-icicle', (c) => ({ h: c.getBoundingClientRect().height, boxes: c.querySelectorAll(':scope > div').length,
    tip: c.querySelector(':scope > div')?.title }));
  assert.ok(icicle.h > 0 && icicle.boxes > 0, JSON.stringify(icicle));
  assert.match(icicle.tip, /\nA .* · B .* · B − A /);

  // A rank against itself: no change.
  await page.selectOption('#diff-b', '0');
  await page.click('#diff-run');
  await page.waitForFunction(() => document.querySelector('#diff-out').dataset.changed === '0');
  assert.equal(await page.$$eval('#diff-table tbody tr', (t) => t.length), 0);
  assert.match(await page.textContent('#diff-totals'), /no change/);

  // A moment that is none (a step past the end): the page names it, and the next diff works.
  await page.selectOption('#diff-at-b', 'step');
  await page.fill('#diff-step-b', '99999999');
  await page.click('#diff-run');
  await page.waitForFunction(() => /Diff: .*no step 99999999/.test(document.body.innerText));
  await page.selectOption('#diff-at-b', 'peak');
  await page.$eval('#diff-out', (o) => { delete o.dataset.changed; });
  await page.click('#diff-run');
  await page.waitForFunction(() => document.querySelector('#diff-out').dataset.changed === '0');

  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
});

test('a folder: the directory input reads every snapshot in it, in rank order', async () => {
  const { page, context, errors } = await openPage();
  // The fallback where the browser has no showDirectoryPicker.
  await page.setInputFiles('#dir-input', DIR);
  await page.waitForFunction(() => document.querySelector('#ranks-panel')?.dataset.rows === '4' &&
    document.querySelector('#ranks-panel').dataset.loading === '0', null, { timeout: 120000 });
  assert.deepEqual(await page.$$eval('#ranks-table tbody tr', (trs) => trs.map((t) => t.dataset.rank)), ['0', '1', '2', '3']);
  await waitOpened(page, name(0));
  assert.deepEqual(errors, []);
  await context.close();
});

// MEMVIZ_SCREENSHOTS=1: the README's pictures. The diff is of two real
// snapshots (real stacks): a bf16 forward against a mixed-precision one at
// context 256, each at its peak.
test('screenshots of the overview and a diff', { skip: !process.env.MEMVIZ_SCREENSHOTS }, async () => {
  copyFileSync(join(OUT, 'screenshot-ranks.png'), join(ROOT, 'docs/screenshot-ranks.png'));
  const { page, context } = await openPage();
  const A = 'transformer_forward_bf16.pickle', B = 'transformer_forward_mixed_ctx256.pickle';
  await dropFiles(page, [[A, snapshot(A)], [B, snapshot(B)]]);
  await page.waitForFunction(() => document.querySelector('#ranks-panel')?.dataset.rows === '2' &&
    document.querySelector('#ranks-panel').dataset.loading === '0', null, { timeout: 60000 });
  await page.selectOption('#diff-a', '0');
  await page.selectOption('#diff-b', '1');
  await page.click('#diff-run');
  await page.waitForSelector('#diff-out:not([hidden])');
  const el = await page.$('#diff-panel');
  await el.screenshot({ path: join(ROOT, 'docs/screenshot-diff.png') });
  await context.close();
});
