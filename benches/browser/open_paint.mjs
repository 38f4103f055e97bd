// Open → painted frame (issue 13): how long from the file input's change
// event to the first frame that shows the timeline, for real snapshots, in
// the release page (dist/) in headless Debian chromium. Each run is a fresh
// page, left to settle before the file is picked (1.5 s: about when its idle
// warm-up ends on this project's VM; `--settle warm` waits for that).
//
//   node benches/browser/open_paint.mjs [--runs N] [--settle MS|warm] [--intent MS] [--dist DIR]... [FILE...]
//
// `--settle`: how long after the page is ready the file is picked (1500 ms);
// `warm`: once the page says its idle warm-up is done (body[data-warm]), as
// vs_memory_viz.mjs does: a user's dialog takes longer than the warm-up.
//
// `--dist DIR` (repeatable; default dist/, or MEMVIZ_DIST): with two or more,
// each run opens the file once in each build, in an order that turns with
// the run, so that the builds share the machine's load (on a shared VM a
// pass's medians move by ±5 ms): a table per build, and how many files
// each painted within 30 ms.
//
// `--intent MS`: the file is picked as a user does, through the open
// button's dialog, MS ms after the button is pressed (the page writes the
// decode worker's memory ahead meanwhile); else it is set on the input at once.
//
// Measured in the page by a script that runs before the page's own:
//   change   the change event's timeStamp (a capture listener on window, so
//            before the page's handler);
//   painted  the first task after the rendering update of the frame in which
//            the page drew the timeline (a rAF callback posts a message each
//            frame; the message runs once that frame's rAF callbacks, style,
//            layout and paint are done; the first such message that finds
//            #plot's data-bands-drawn set is the painted frame);
// and split by the page's marks (memviz:file-received, memviz:decoded,
// memviz:first-paint, memviz:redraw), seen through a PerformanceObserver.
// Prints medians (and min / max) of each phase.
import { existsSync, statSync } from 'node:fs';
import { join, resolve, basename } from 'node:path';
import { ROOT, serveDist, launchChromium, chromium } from './page.mjs';

const DIST = process.env.MEMVIZ_DIST ? resolve(process.env.MEMVIZ_DIST) : join(ROOT, 'dist');

const argv = process.argv.slice(2);
const opt = { runs: 9, settle: 1500, intent: null, files: [], args: [], dists: [] };
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') opt.runs = +argv[++i];
  else if (argv[i] === '--dist') opt.dists.push(resolve(argv[++i]));
  else if (argv[i] === '--settle') opt.settle = argv[++i] === 'warm' ? 'warm' : +argv[i];
  else if (argv[i] === '--chromium-arg') opt.args.push(argv[++i]);
  else if (argv[i] === '--intent') opt.intent = +argv[++i];
  else opt.files.push(argv[i]);
}
if (!opt.files.length) {
  opt.files = ['compile_context_metadata.pickle', 'transformer_fullstep_ctx128.pickle']
    .map((f) => join(ROOT, '../shared/snapshots', f));
}
if (!opt.dists.length) opt.dists.push(DIST);
for (const d of opt.dists) {
  if (!existsSync(join(d, 'index.html'))) { console.error(`${d}/index.html missing: run scripts/build-web.sh`); process.exit(1); }
}

const servers = await Promise.all(opt.dists.map((d) => serveDist(d)));

const INIT = `(() => {
  const marks = {};
  const keep = (entries) => {
    for (const e of entries) {
      if (!e.name.startsWith('memviz:')) continue;
      (marks[e.name] = marks[e.name] || []).push(e.entryType === 'measure' ? [e.startTime, e.duration] : e.startTime);
    }
  };
  const obs = new PerformanceObserver((list) => keep(list.getEntries()));
  obs.observe({ entryTypes: ['mark', 'measure'] });
  window.__openPaint = null;
  addEventListener('change', (e) => {
    if (!e.target || e.target.id !== 'file-input') return;
    const r = { change: e.timeStamp, frames: 0 };
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      if (document.getElementById('plot').dataset.bandsDrawn !== undefined) {
        r.painted = performance.now();
        r.timings = document.getElementById('timings').textContent;
        keep(obs.takeRecords());
        r.marks = JSON.parse(JSON.stringify(marks));
        window.__openPaint = r;
      } else requestAnimationFrame(tick);
    };
    const tick = () => { r.frames++; ch.port2.postMessage(0); };
    requestAnimationFrame(tick);
  }, true);
})();`;

const browser = await launchChromium(opt.args);
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[(s.length - 1) >> 1] : NaN; };
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const out = opt.dists.map(() => []);
const within = opt.dists.map(() => 0);
for (const file of opt.files) {
  const rows = opt.dists.map(() => []);
  for (let i = 0; i < opt.runs; i++) {
    for (let j = 0; j < opt.dists.length; j++) {
      const k = (i + j) % opt.dists.length;
      rows[k].push(await openOnce(servers[k].origin, file));
    }
  }
  const size = (statSync(file).size / 1e6).toFixed(2);
  opt.dists.forEach((d, k) => {
    const col = (c) => rows[k].map((x) => x[c]);
    const line = (c) => `${f1(med(col(c)))} (${f1(Math.min(...col(c)))}–${f1(Math.max(...col(c)))})`;
    if (med(col('total')) <= 30) within[k]++;
    out[k].push(`| ${basename(file)} | ${size} MB | **${line('total')}** | ${line('toReceived')} | ${line('decode')} | ${line('toRender')} | ${line('render')} | ${line('renderToPaint')} | ${line('firstPaintMark')} | ${f1(med(col('bands')))} / ${f1(med(col('axes')))} |`);
    const who = opt.dists.length > 1 ? ` (${basename(d)})` : '';
    console.error(`${basename(file)}${who}: ${rows[k].map((x) => x.total.toFixed(0)).join(' ')} ms`);
  });
}
opt.dists.forEach((d, k) => {
  if (opt.dists.length > 1) console.log(`\n### ${d}\n`);
  console.log(`change → painted frame, ms: median (min–max) of ${opt.runs} fresh pages each; ${within[k]} of ${opt.files.length} files within 30 ms\n`);
  console.log('| file | size | change → painted frame | change → file-received | decode (→ decoded) | decoded → render starts | render (wasm) | render end → painted | page\'s own first-paint mark (file-received →) | render: bands / axes |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const l of out[k]) console.log(l);
});

/** One open of `file` in a fresh page of the build at `origin`: its phases, ms. */
async function openOnce(origin, file) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  await context.addInitScript(INIT);
  const page = await context.newPage();
  await page.goto(`${origin}/index.html`);
  await page.waitForSelector('body[data-ready="1"]');
  if (opt.settle === 'warm') await page.waitForSelector('body[data-warm="1"]', { state: 'attached', timeout: 30000 });
  else await new Promise((r) => setTimeout(r, opt.settle));
  if (opt.intent == null) await page.setInputFiles('#file-input', file);
  else {
    // As a user does: the open button pressed, the dialog open for
    // opt.intent ms, then the file picked.
    const chooser = page.waitForEvent('filechooser');
    await page.click('#open-files');
    const c = await chooser;
    await new Promise((r) => setTimeout(r, opt.intent));
    await c.setFiles(file);
  }
  await page.waitForFunction(() => window.__openPaint, null, { timeout: 120000 });
  const r = await page.evaluate(() => window.__openPaint);
  const m = r.marks;
  const recv = m['memviz:file-received'][0], dec = m['memviz:decoded'][0], fp = m['memviz:first-paint'][0];
  const redraw = m['memviz:redraw'][0];
  await context.close();
  return {
    total: r.painted - r.change, toReceived: recv - r.change, decode: dec - recv,
    toRender: redraw[0] - dec, render: redraw[1], renderToPaint: r.painted - (redraw[0] + redraw[1]),
    firstPaintMark: fp - recv,
    bands: +(/bands ([\d.]+) ms/.exec(r.timings) || [])[1], axes: +(/axes ([\d.]+) ms/.exec(r.timings) || [])[1],
  };
}
await browser.close();
for (const s of servers) s.server.close();
