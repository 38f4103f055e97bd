// Times opening many snapshots at once in the release page (dist/): the
// files are dropped together, and the clock runs until the ranks overview
// has every row and the first rank is drawn. Also reads the wasm linear
// memory (it only grows: its peak) and compares it with the budget of issue
// 11: 4x the largest file plus the compact models of the others (each
// model's size from `memviz info --json`'s model_heap_bytes).
//
//   node benches/browser/ranks.mjs FILE... [--repeat N]
//
// e.g. eight files of ~3.5 MiB (60,000 events each):
//   for r in 0 1 2 3 4 5 6 7; do python3 ../shared/tools/gen_snapshot.py /tmp/r/big_rank$r.pickle --events 60000 --seed $((r+1)); done
//   node benches/browser/ranks.mjs /tmp/r/big_rank{0,1,2,3}.pickle
//   node benches/browser/ranks.mjs /tmp/r/big_rank*.pickle
import { readFileSync, statSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, DIST, serveDist, launch, newPage } from '../../tests/e2e/helpers.mjs';

const argv = process.argv.slice(2);
let repeat = 3;
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--repeat') repeat = Math.max(1, +argv[++i]);
  else files.push(argv[i]);
}
if (!files.length) { console.error('usage: node benches/browser/ranks.mjs FILE... [--repeat N]'); process.exit(2); }
if (!existsSync(join(DIST, 'index.html'))) { console.error('dist/ missing: run scripts/build-web.sh'); process.exit(1); }
const memviz = ['release', 'debug'].map((p) => join(ROOT, 'target', p, 'memviz')).find(existsSync);
const models = files.map((f) => {
  try { return JSON.parse(execFileSync(memviz, ['info', f, '--json'], { encoding: 'utf8' })).model_heap_bytes; } catch (_) { return null; }
});
const sizes = files.map((f) => statSync(f).size);
const payload = files.map((f) => [basename(f), readFileSync(f).toString('base64')]);

const { server, origin } = await serveDist();
const browser = await launch();
const MB = (b) => (b / 1048576).toFixed(1);
const runs = [];
for (let k = 0; k < repeat; k++) {
  const { page, context } = await newPage(browser, (u) => u.startsWith(origin + '/'));
  await page.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (e) => { window.__memvizWasm = e.detail && e.detail.wasm; });
  });
  await page.goto(origin + '/');
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  await page.waitForTimeout(1500); // the page's idle warm-up (www/app.js) runs first
  const mem0 = await page.evaluate(() => (window.__memvizWasm ? window.__memvizWasm.memory.buffer.byteLength : -1));
  // Files are made in the page first (not timed); then one drop of them all.
  await page.evaluate((payload) => {
    window.__files = payload.map(([name, b64]) => {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      return new File([bytes], name);
    });
  }, payload);
  const ms = await page.evaluate(async (n) => {
    const dt = new DataTransfer();
    for (const f of window.__files) dt.items.add(f);
    const t0 = performance.now();
    const target = document.querySelector('#plot-box');
    for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    await new Promise((resolve) => {
      const check = () => {
        const p = document.querySelector('#ranks-panel');
        if (p && p.dataset.rows === String(n) && p.dataset.loading === '0' && p.dataset.shown !== undefined &&
          document.querySelector('#plot').dataset.bandsDrawn !== undefined) resolve();
        else setTimeout(check, 5);
      };
      check();
    });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return performance.now() - t0;
  }, files.length);
  const mem = await page.evaluate(() => (window.__memvizWasm ? window.__memvizWasm.memory.buffer.byteLength : -1));
  runs.push({ ms, mem, mem0 });
  await context.close();
}
await browser.close();
server.close();

const largest = Math.max(...sizes);
const li = sizes.indexOf(largest);
const others = models.reduce((s, m, i) => s + (i === li ? 0 : (m || 0)), 0);
const budget = 4 * largest + others;
const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
console.log(`${files.length} files, ${MB(sizes.reduce((a, b) => a + b, 0))} MiB in all (largest ${MB(largest)} MiB; models ${models.map((m) => (m == null ? '?' : MB(m))).join(', ')} MiB)`);
console.log(`open all, drop -> overview complete and the first rank drawn: ${runs.map((r) => r.ms.toFixed(0)).join(', ')} ms (best ${best.ms.toFixed(0)} ms)`);
console.log(`wasm memory ${MB(Math.max(...runs.map((r) => r.mem)))} MiB (${MB(runs[0].mem0)} MiB before the drop); budget 4 x largest + other models = ${MB(budget)} MiB`);
