// Issue 43's drawing on the real recordings (../shared/recordings), in
// Debian's chromium on the release page (dist/): the detail follows the
// zoom, an empty_cache unmap is drawn at its own step, and the private
// pools view colors its bands by pool with a legend. Expected numbers come
// from crates/memviz-core/tests/render43_reference.py (a standard-library
// replay of the pickle) or from the recording itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, useBrowser, openPage, dropFiles, waitOpened, viewerQuery, redrawNow } from './helpers.mjs';

const RECORDINGS = join(ROOT, '../shared/recordings');
const OUT = join(ROOT, 'tests/e2e/out');
mkdirSync(OUT, { recursive: true });
const REFERENCE = join(ROOT, 'crates/memviz-core/tests/render43_reference.py');
const reference = (name, ...args) =>
  JSON.parse(execFileSync('python3', [REFERENCE, join(RECORDINGS, name), ...args.map(String)], { encoding: 'utf8' }));

useBrowser({ needs: [RECORDINGS] });

async function open(name) {
  const p = await openPage();
  await dropFiles(p.page, [[name, readFileSync(join(RECORDINGS, name))]]);
  await waitOpened(p.page, name);
  return p;
}

const viewer = (page, f, ...args) => viewerQuery(page, f, args);

async function setView(page, name) {
  const i = await page.evaluate((n) => window.memviz.viewer.command({ cmd: 'get' }).views.findIndex((c) => c.name === n), name);
  assert.ok(i >= 0, `no view ${name}`);
  await page.selectOption('#view-select', String(i));
  await page.waitForFunction((i) => ((p) => p.views.findIndex((c) => c.id === p.view))(window.memviz.viewer.command({ cmd: 'get' })) === i, Number(i));
  await redrawNow(page);
}

/** Pixels of the plot canvas whose color is one of `colors`. */
async function countColors(page, colors, region) {
  return page.evaluate(([colors, region]) => {
    const c = document.getElementById('plot');
    const [x0, y0, w, h] = region ?? [0, 0, c.width, c.height];
    const d = c.getContext('2d').getImageData(x0, y0, w, h).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (colors.some((k) => d[i] === k[0] && d[i + 1] === k[1] && d[i + 2] === k[2])) n++;
    }
    return n;
  }, [colors, region]);
}

/** Moves the detail slider to `n` as a user would (applied by the next draw). */
async function setDetail(page, n) {
  await page.$eval('#detail', (el, n) => { el.value = String(n); el.dispatchEvent(new Event('input')); }, n);
  await redrawNow(page);
  await page.waitForFunction((n) => window.memviz.viewer.command({ cmd: 'get' }).detail === n, n);
  await redrawNow(page);
}

const SUMMARIZED = [[0xd9, 0xd9, 0xd9], [0xc4, 0xc4, 0xc4]];

test('detail follows the zoom: the limit picks the largest live in the window (resnet50 without zero_grad)', async () => {
  const name = 'resnet50_no_zero_grad.pickle';
  const { page, errors } = await open(name);
  const n = await viewer(page, 'n_steps');
  // The last of the five iterations.
  const [x0, x1] = [n - 1300, n];
  const inWindow = reference(name, '--detail', 0, 100000, x0, x1);
  assert.equal(inWindow.steps, n);
  assert.equal(await viewer(page, 'element_count'), inWindow.elements);
  const limit = inWindow.live; // what lives in the window, fewer than all
  assert.ok(limit < inWindow.elements, `${limit} of ${inWindow.elements}`);
  await setDetail(page, limit);
  assert.equal(await page.textContent('#detail-label'), `${limit} of ${inWindow.elements}`);
  // The whole plot at this limit sums some allocations...
  assert.equal(await viewer(page, 'drawn_count'), limit);
  const wholeGrey = await countColors(page, SUMMARIZED);
  assert.ok(wholeGrey > 200, `summarized pixels on the whole plot: ${wholeGrey}`);
  await page.screenshot({ path: join(OUT, 'render43-detail-whole.png') });
  // ...zoomed into the last iteration, all of what lives there is drawn.
  await viewer(page, 'set_window', x0, x1);
  await redrawNow(page);
  assert.equal(await viewer(page, 'drawn_count'), inWindow.drawn.length);
  assert.equal(await countColors(page, SUMMARIZED), 0, 'nothing summarized in the zoomed window');
  await page.screenshot({ path: join(OUT, 'render43-detail-zoomed.png') });
  if (process.env.MEMVIZ_SCREENSHOTS) await page.screenshot({ path: join(ROOT, 'docs/screenshot-detail-zoomed.png') });
  // A smaller limit in a window: the largest live there, as Python picks them.
  const [a, b] = [2000, 2600];
  const few = reference(name, '--detail', 0, 300, a, b);
  await setDetail(page, 300);
  await viewer(page, 'set_window', a, b);
  await redrawNow(page);
  assert.equal(await viewer(page, 'drawn_count'), few.drawn.length);
  for (const e of [few.drawn[0], few.drawn[few.drawn.length - 1]]) {
    const xy = await page.evaluate((e) => (window.memviz.viewer.command({ cmd: 'locate', element: e }).point ?? []), e);
    assert.equal(xy.length, 2, `element ${e} is drawn in steps ${a}..${b}`);
  }
  // Back to the whole plot: the slider's first 300 by size again.
  await page.evaluate(() => window.memviz.viewer.command({ cmd: 'reset_window' }));
  await redrawNow(page);
  assert.equal(await viewer(page, 'drawn_count'), 300);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('an empty_cache unmap is drawn at its own step (expandable GPT-2)', async () => {
  const name = 'expandable_gpt2_varlen.pickle';
  const want = reference(name, '--unmaps', 0);
  const { page, errors } = await open(name);
  await setView(page, 'Active Cached Segment Timeline');
  // One step per segment event: 200 maps and 9 unmaps.
  assert.equal(await viewer(page, 'n_steps'), want.steps);
  assert.equal(want.frees.length, 9);
  // The biggest unmap: its column, and the next, have the reference's totals.
  const big = want.frees.reduce((m, f) => (f.size > m.size ? f : m));
  const [x0, x1] = [big.step - 4, big.step + 4];
  await viewer(page, 'set_window', x0, x1);
  await redrawNow(page);
  const heights = await page.evaluate(([x0, x1]) => {
    const c = document.getElementById('plot');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const dpr = window.devicePixelRatio;
    // The plot's rectangle inside the canvas (viewer's MARGIN: 78, 16, 14, 40 CSS px).
    const [l, r, t, b] = [78, 16, 14, 40].map((m) => Math.round(m * dpr));
    const w = c.width - l - r;
    const out = [];
    for (let s = x0; s < x1; s++) {
      const x = Math.floor(l + ((s - x0 + 0.5) * w) / (x1 - x0));
      let ink = 0;
      for (let y = t; y < c.height - b; y++) {
        const i = (y * c.width + x) * 4;
        if (d[i + 3] && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) ink++;
      }
      out.push(ink);
    }
    return out;
  }, [x0, x1]);
  const totals = want.totals.slice(x0, x1);
  const max = Math.max(...totals);
  const tallest = Math.max(...heights);
  for (let k = 0; k < totals.length; k++) {
    const expect = (totals[k] / max) * tallest;
    assert.ok(Math.abs(heights[k] - expect) <= 3, `step ${x0 + k}: ${heights[k]} px, want ${expect.toFixed(1)} (${heights})`);
  }
  // The drop at the unmap is its whole size, from its step to the next.
  const drop = (heights[4] - heights[5]) / tallest * max;
  assert.ok(Math.abs(drop - big.size) < max * 0.02, `drop ${drop} vs ${big.size}`);
  await page.screenshot({ path: join(OUT, 'render43-unmap.png') });
  if (process.env.MEMVIZ_SCREENSHOTS) await page.screenshot({ path: join(ROOT, 'docs/screenshot-unmap-at-its-step.png') });
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('private pools: bands colored by pool with a legend (two CUDA graphs, one shared pool)', async () => {
  const name = 'cuda_graphs_two_graphs_shared_pool.pickle';
  // The private pools, from the pickle: (1, 0) on one stream.
  const pools = JSON.parse(execFileSync('python3', ['-c', `
import pickle, json, sys
d = pickle.load(open(sys.argv[1], 'rb'))
print(json.dumps(sorted({'%d,%d,s%d' % (tuple(s['segment_pool_id']) + (s['stream'],)) for s in d['segments'] if tuple(s['segment_pool_id']) != (0, 0)})))`,
    join(RECORDINGS, name)], { encoding: 'utf8' }));
  assert.deepEqual(pools.map((p) => p.split(',').slice(0, 2).join(',')), ['1,0']);
  const { page, errors } = await open(name);
  await setView(page, 'Allocated Memory (incl. Private Pools)');
  assert.equal(await viewer(page, 'view_kind'), 'pools');
  // Default pool in shades of blue, the first private pool in orange.
  const blue = [[0x4e, 0x79, 0xa7], [0x7a, 0x9e, 0xc7], [0x2f, 0x5a, 0x87]];
  const orange = [[0xf2, 0x8e, 0x2b], [0xf7, 0xb0, 0x6a], [0xc4, 0x6c, 0x12]];
  const envelope = [[206, 171, 137]]; // orange faded over memory_viz's gray
  const counts = {
    blue: await countColors(page, blue),
    orange: await countColors(page, orange),
    envelope: await countColors(page, envelope),
  };
  assert.ok(counts.blue > 1000 && counts.orange > 1000 && counts.envelope > 100, JSON.stringify(counts));
  // The legend, top right of the plot: its swatches, and its text in ink.
  const region = await page.evaluate(() => {
    const c = document.getElementById('plot');
    const dpr = window.devicePixelRatio;
    return [Math.round(c.width / 2), Math.round(14 * dpr), Math.round(c.width / 2) - Math.round(16 * dpr), Math.round(24 * dpr)];
  });
  const s = Math.round(await page.evaluate(() => window.devicePixelRatio));
  assert.equal(await countColors(page, [blue[0]], region), 9 * 7 * s * s, 'default pool swatch');
  assert.equal(await countColors(page, [orange[0]], region), 9 * 7 * s * s, 'private pool swatch');
  assert.ok(await countColors(page, [[0x33, 0x33, 0x33]], region) > 100, 'legend text');
  // Hovering a private pool's block names its pool.
  const inner = await page.evaluate(() => {
    const v = window.memviz.viewer;
    const c = document.getElementById('plot');
    for (let x = 80; x < c.clientWidth - 16; x += 4) {
      for (let y = 40; y < c.clientHeight - 40; y += 3) {
        const h = v.command({ cmd: 'hit_at', x, y }).value;
        if (h >= 0 && /pool_id \(?1/.test(v.command({ cmd: 'element', element: h }).text.split('\n')[0])) return [x, y, h];
      }
    }
    return null;
  });
  assert.ok(inner, 'a block of the private pool is hoverable');
  await page.screenshot({ path: join(OUT, 'render43-pools.png') });
  if (process.env.MEMVIZ_SCREENSHOTS) await page.screenshot({ path: join(ROOT, 'docs/screenshot-private-pools-legend.png') });
  assert.deepEqual(errors, []);
  await page.context().close();
});
