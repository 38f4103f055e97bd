// The detail slider and the view selector against the frame budget of issue
// 13, in the release page (dist/): each FILE opened alone, then
//   - the detail slider moved 40 times across its range (an input event,
//     as a drag sends), timing the work of each of the two frames after it
//     (www/app.js sets the detail in one and may leave the draw to the next);
//   - the view selector switched through every view and back to the Active
//     Memory Timeline, twice: the change handler's work, then each frame's
//     until the view is shown (the State History is built a slice a frame
//     first: app.js times those slices in data-view-slices).
// Each frame's work is timed in the page from a requestAnimationFrame
// callback registered before the page's to one registered after it, with
// the style and layout it left (forced).
//
//   node benches/browser/switches.mjs [--dist DIR] [--no-write] FILE...
//
// Prints a markdown table and, unless --no-write, puts it in RESULTS.md
// between <!-- switches: latest --> and <!-- switches: end -->.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { ROOT, serveDist, launchChromium, writeResults } from './page.mjs';

const argv = process.argv.slice(2);
// --dist DIR: another build than dist/ (to compare builds: run once each).
const distAt = argv.indexOf('--dist');
const DIST = distAt >= 0 ? argv.splice(distAt, 2)[1] : join(ROOT, 'dist');
const files = argv.filter((a) => !a.startsWith('--'));
const write = !argv.includes('--no-write');
if (!files.length) { console.error('usage: node benches/browser/switches.mjs [--dist DIR] [--no-write] FILE...'); process.exit(2); }
for (const f of files) if (!existsSync(f)) { console.error(`missing ${f}`); process.exit(1); }
if (!existsSync(join(DIST, 'index.html'))) { console.error(`${DIST}/index.html missing: run scripts/build-web.sh`); process.exit(1); }

const { server, origin } = await serveDist(DIST);
const browser = await launchChromium();
const results = [];
for (const f of files) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(origin + '/');
  await page.waitForFunction(() => document.body.dataset.warm === '1', null, { timeout: 60000 });
  await page.setInputFiles('#file-input', f);
  await page.waitForFunction(() => document.querySelector('#plot').dataset.bandsDrawn !== undefined, null, { timeout: 180000 });
  await page.waitForTimeout(2500); // the address versions and the idle work after an open
  const r = await page.evaluate(async () => {
    const wait = (ms) => new Promise((res) => setTimeout(res, ms));
    // The work of the frames after `fire()` (and fire's own, with layout):
    // `n` of them, or (n a function) until n() holds and two more.
    const frames = async (fire, n) => {
      const until = typeof n === 'function' ? n : () => true;
      const count = typeof n === 'function' ? Infinity : n;
      const pre = [], post = [];
      let stopAt = count;
      const before = (k) => requestAnimationFrame(() => { pre.push(performance.now()); if (k + 1 < stopAt) before(k + 1); });
      const after = (k) => requestAnimationFrame(() => {
        void document.body.offsetHeight;
        post.push(performance.now());
        if (stopAt === Infinity && until()) stopAt = k + 3;
        if (k + 1 < stopAt) after(k + 1);
      });
      before(0);
      const t0 = performance.now();
      fire();
      void document.body.offsetHeight;
      const own = performance.now() - t0;
      if (stopAt === Infinity && until()) stopAt = 2;
      after(0);
      while (post.length < stopAt) await wait(20);
      return [own, ...post.map((p, k) => p - pre[k])];
    };
    const d = document.getElementById('detail');
    const slider = [];
    let sliderHandler = 0;
    for (let i = 0; i < 40; i++) {
      const v = Math.round(+d.max * (((i * 7) % 16) + 1) / 16);
      const [own, ...fr] = await frames(() => { d.value = v; d.dispatchEvent(new Event('input', { bubbles: true })); }, 2);
      slider.push(...fr);
      sliderHandler = Math.max(sliderHandler, own);
      await wait(60);
    }
    d.value = d.max; d.dispatchEvent(new Event('input', { bubbles: true }));
    await wait(200);
    const vs = document.getElementById('view-select');
    const names = [...vs.options].map((o) => o.textContent);
    const views = names.map(() => []);
    for (let round = 0; round < 2; round++) {
      for (let k = 1; k < names.length; k++) {
        for (const to of [k, 0]) {
          delete vs.dataset.viewSlices;
          const fire = () => { vs.value = String(to); vs.dispatchEvent(new Event('change', { bubbles: true })); };
          // Every frame until two after the view is shown (one built a
          // slice a frame is shown frames later, and drawn in the next).
          const [own, ...fr] = await frames(fire, () => ((p) => p.views.findIndex((x) => x.id === p.view))(window.memviz.viewer.command({ cmd: 'get' })) === to);
          // Its slices, as the page timed them (the frames include them).
          const sl = (vs.dataset.viewSlices || '').split(',').filter(Boolean).map(Number);
          views[to].push(Math.max(own, ...fr, ...sl));
          await wait(150);
        }
      }
    }
    return { slider, sliderHandler, views, names, drawn: +d.value };
  });
  results.push({ file: f, ...r, errors });
  console.error(`${basename(f)}: ${JSON.stringify({ slider: r.slider.map(Math.round), views: r.views.map((v) => v.map(Math.round)) })}${errors.length ? ` errors: ${errors}` : ''}`);
  await ctx.close();
}
await browser.close();
server.close();

const stat = (xs) => {
  const s = [...xs].sort((p, q) => p - q);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(s.length * q))].toFixed(1);
  return `${at(0.5)} / ${at(0.95)} / ${s[s.length - 1].toFixed(1)}`;
};
const names = results[0].names;
let md = `Release page (dist/), headless Chromium, 1400×900; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ` +
  `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${new Date().toISOString().slice(0, 16)}Z. ` +
  '`node benches/browser/switches.mjs`: the work of each frame (and of each event handler) a control causes, ' +
  'with its style and layout, ms. Slider: 40 moves (all bands drawn at the start), the two frames after each: ' +
  'median / p95 / max (its input handler: at most the figure in brackets). Views: each view entered from the Active ' +
  'Memory Timeline and left to it, twice; the longest frame or handler of each switch (a State History built a slice ' +
  'a frame: its longest slice): first visit / second; back to the Active Memory Timeline: median / p95 / max of 8.\n\n' +
  `| file | detail slider | ${names.map((n) => `to ${n}`).join(' | ')} |\n|---|---|${names.map(() => '---|').join('')}\n`;
for (const r of results) {
  const view = (v, k) => (k === 0 ? stat(v) : v.map((x) => x.toFixed(1)).join(' / '));
  md += `| ${basename(r.file)} | ${stat(r.slider)} (${r.sliderHandler.toFixed(1)}) | ${r.views.map(view).join(' | ')} |\n`;
}
console.log(md);
if (results.some((r) => r.errors.length)) { console.error('page errors'); process.exit(1); }
if (write) writeResults('switches', md, 'panels');
