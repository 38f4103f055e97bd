// The page's main thread while a file opens (issue 13: "the page answers
// input within one frame during a 1 GB open"): the longest task on the main
// thread (Long Tasks API, tasks of 50 ms or more) and the longest gap between
// animation frames from the file input's change event to the painted frame
// that shows the file, split into the read/decode part (until the page says
// "Building the timeline") and the rest (adopt + replay + first draw), and
// change -> painted frame. Release page (dist/) in headless Debian chromium,
// a fresh page per run, left to settle first.
//
//   node benches/browser/open_longtask.mjs [--runs N] [--settle MS] [--query ?decode=page] FILE...
import { existsSync, statSync } from 'node:fs';
import { join, resolve, basename } from 'node:path';
import { ROOT, serveDist, launchChromium } from './page.mjs';

const DIST = process.env.MEMVIZ_DIST ? resolve(process.env.MEMVIZ_DIST) : join(ROOT, 'dist');

const argv = process.argv.slice(2);
const opt = { runs: 3, settle: 1500, query: '', files: [] };
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') opt.runs = +argv[++i];
  else if (argv[i] === '--settle') opt.settle = +argv[++i];
  else if (argv[i] === '--query') opt.query = argv[++i];
  else opt.files.push(argv[i]);
}
if (!opt.files.length) { console.error('usage: open_longtask.mjs [--runs N] [--query Q] FILE...'); process.exit(2); }
if (!existsSync(join(DIST, 'index.html'))) { console.error('dist/ missing: run scripts/build-web.sh'); process.exit(1); }

const { server, origin } = await serveDist(DIST);

const INIT = `(() => {
  // The page's wasm memories (its instance, and another after a trap): their size after the open.
  window.__mems = [];
  const WA = WebAssembly;
  const keep = (r) => { const i = r && (r.instance || r); if (i && i.exports && i.exports.memory) window.__mems.push(i.exports.memory); return r; };
  for (const k of ['instantiate', 'instantiateStreaming']) {
    const f = WA[k];
    if (f) WA[k] = function (...a) { return f.apply(WA, a).then(keep); };
  }
  const tasks = [];
  new PerformanceObserver((l) => tasks.push(...l.getEntries().map((e) => [e.startTime, e.duration])))
    .observe({ type: 'longtask', buffered: true });
  window.__open = null;
  addEventListener('change', (e) => {
    if (!e.target || e.target.id !== 'file-input') return;
    const r = { change: e.timeStamp, frames: [], building: null };
    new MutationObserver(() => {
      if (r.building == null && /^Building/.test(document.getElementById('progress-text').textContent)) r.building = performance.now();
    }).observe(document.getElementById('progress-box'), { subtree: true, characterData: true, childList: true });
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      const err = document.getElementById('errors').textContent;
      if (document.getElementById('plot').dataset.bandsDrawn !== undefined || err) {
        r.painted = performance.now();
        setTimeout(() => {
          r.tasks = tasks.filter(([s, d]) => s + d > r.change && s < r.painted);
          r.pageMem = Math.max(0, ...window.__mems.map((m) => m.buffer.byteLength));
          r.workerMem = +(document.body.dataset.workerMemory || 0);
          r.steps = window.memviz && window.memviz.timings.worker; // the worker path's steps (ms)
          r.error = document.getElementById('errors').textContent;
          window.__open = r;
        }, 100);
      } else requestAnimationFrame(tick);
    };
    const tick = (t) => { r.frames.push(t); ch.port2.postMessage(0); };
    requestAnimationFrame(tick);
  }, true);
})();`;

const browser = await launchChromium();
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[(s.length - 1) >> 1] : NaN; };
const gap = (ts) => (ts.length < 2 ? NaN : Math.max(...ts.slice(1).map((t, i) => t - ts[i])));
console.log(`| file | size | query | change → painted | longest main-thread task | long tasks (sum) | longest frame gap while reading | longest frame gap after | page wasm MiB | worker wasm MiB |`);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const file of opt.files) {
  const rows = [];
  for (let i = 0; i < opt.runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
    await context.addInitScript(INIT);
    const page = await context.newPage();
    await page.goto(`${origin}/index.html${opt.query}`);
    await page.waitForSelector('body[data-ready="1"]');
    await new Promise((r) => setTimeout(r, opt.settle));
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(() => window.__open, null, { timeout: 300000 });
    const r = await page.evaluate(() => window.__open);
    const split = r.building ?? r.painted;
    rows.push({
      total: r.painted - r.change,
      longest: Math.max(0, ...r.tasks.map(([, d]) => d)),
      sum: r.tasks.reduce((a, [, d]) => a + d, 0),
      gapRead: gap(r.frames.filter((t) => t <= split)),
      gapAfter: gap(r.frames.filter((t) => t >= split).concat([r.painted])),
      pageMB: r.pageMem / 2 ** 20,
      workerMB: r.workerMem / 2 ** 20,
      error: r.error || undefined,
      steps: r.steps || undefined,
    });
    console.error(`${basename(file)} run ${i + 1}: ${JSON.stringify(rows.at(-1), (k, v) => (typeof v === 'number' ? Math.round(v) : v))}`);
    await context.close();
  }
  const c = (k) => med(rows.map((x) => x[k])).toFixed(0);
  console.log(`| ${basename(file)} | ${(statSync(file).size / 1e6).toFixed(1)} MB | ${opt.query || '-'} | ${c('total')} | ${c('longest')} | ${c('sum')} | ${c('gapRead')} | ${c('gapAfter')} | ${c('pageMB')} | ${c('workerMB')} |`);
}
await browser.close();
server.close();
