// Browser timing of "Explain the memory" (issue 10) in the release page
// (dist/): how long the "Alive at" panel takes to update when t moves (the
// wasm query, Viewer.moment_json, plus the table, kinds, legend and icicle
// drawn), the first moment of a file (which builds the analysis), an OOM and
// the peak explained, the leak report, and a redraw in each Color by mode.
// Prints a markdown table and writes it to benches/browser/EXPLAIN.md.
//
//   node benches/browser/explain.mjs [--dist DIR] [--no-write] [FILE...]
//
// Defaults: the real ctx128 and OOM files and the 2,000,000-event synthetic
// file that scripts/bench-web.sh makes (target/bench-data/gen_2000000.pickle,
// 2 devices x 1M events, one OOM). Timings are the page's own
// performance.now() around the calls, median and max of N moves.
import { existsSync, writeFileSync } from 'node:fs';
import { join, basename } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { ROOT, serveDist, launchChromium } from './page.mjs';

// --dist DIR: another build than dist/ (to compare builds: run once each).
const distAt = process.argv.indexOf('--dist');
const DIST = distAt >= 0 ? process.argv.splice(distAt, 2)[1] : join(ROOT, 'dist');
const argv = process.argv.slice(2);
const write = !argv.includes('--no-write');
let files = argv.filter((a) => !a.startsWith('--'));
if (!files.length) {
  files = [
    join(ROOT, '../shared/snapshots/transformer_fullstep_ctx128.pickle'),
    join(ROOT, '../shared/snapshots/oom_pickle_named_json.json'),
    join(ROOT, 'target/bench-data/gen_2000000.pickle'),
  ];
}
for (const f of files) if (!existsSync(f)) { console.error(`missing ${f}`); process.exit(1); }
if (!existsSync(join(DIST, 'index.html'))) { console.error('dist/ missing: run scripts/build-web.sh'); process.exit(1); }

const { server, origin: ORIGIN } = await serveDist(DIST);
const browser = await launchChromium();

const MOVES = 30;
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const p95 = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]; };
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const rows = [];
for (const path of files) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  await page.goto(ORIGIN + '/');
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  await page.setInputFiles('#file-input', path);
  const name = basename(path);
  await page.waitForFunction((n) => document.querySelector('#file-select')?.selectedOptions[0]?.textContent === n &&
    document.querySelector('#plot').dataset.bandsDrawn !== undefined, name, { timeout: 600000 });
  const r = await page.evaluate(async ({ MOVES }) => {
    const m = window.memviz;
    const v = m.viewer;
    const mm = m.moment || window.memvizMoment; // before / after the ES modules
    const time = (f) => { const t0 = performance.now(); f(); return performance.now() - t0; };
    const frame = () => new Promise((res) => requestAnimationFrame(() => res()));
    const out = { steps: v.command({ cmd: 'get' }).steps };
    // The first moment builds the analysis and the state history: at once
    // on a small file, else a slice a frame (www/app.js withAnalysis, which
    // times its slices and the panel's showing in data-analysis-slices).
    delete document.body.dataset.analysisSlices;
    const t0 = performance.now();
    out.firstTask = time(() => mm.setMoment('peak'));
    // The panel, then its icicle in the next frame or two (www/moment.js):
    // each frame's work, ms.
    const ici = document.querySelector('#moment-icicle');
    const icicleMs = async () => {
      while (ici.dataset.icicle !== 'drawn') await new Promise((res) => setTimeout(res, 1));
      return ici.dataset.icicleMs.split(',').map(Number);
    };
    while (!mm.view) await new Promise((res) => setTimeout(res, 10));
    out.firstIcicle = await icicleMs();
    out.first = performance.now() - t0;
    const slices = (document.body.dataset.analysisSlices || '').split(',').filter(Boolean).map(Number);
    out.firstSlices = slices.length;
    out.sliceList = [...slices, ...out.firstIcicle];
    out.firstLongest = Math.max(out.firstTask, ...slices, ...out.firstIcicle);
    const peak = mm.view.at.step ?? 0;
    // One step at a time (the arrow keys), then jumps across the trace.
    const step = [], jump = [], query = [], icicles = [];
    const painted = []; // the call, then until the next frame's callbacks ran (style, layout, paint in between)
    for (let i = 1; i <= MOVES; i++) {
      const s = Math.max(0, peak - i);
      const t0 = performance.now();
      // The work of the move: the call, then the style and layout it left
      // (forced here; the browser would do them before the frame's paint).
      step.push(time(() => { mm.setMoment({ step: s }); void document.body.offsetHeight; }));
      await new Promise((res) => requestAnimationFrame(() => setTimeout(res)));
      painted.push(performance.now() - t0);
      icicles.push(Math.max(...await icicleMs())); // its longest frame
    }
    out.painted = painted;
    for (let i = 0; i < MOVES; i++) {
      const s = Math.floor(((i * 7919) % MOVES + 0.5) / MOVES * out.steps);
      jump.push(time(() => { mm.setMoment({ step: s }); void document.body.offsetHeight; }));
      query.push(time(() => { // as moment.js asks: the moment, then the table's first rows
        v.panel({ cmd: 'moment', moment: { step: s } });
        v.panel({ cmd: 'rows', by: 'user_frame', filter: '', sort: 'bytes', descending: true, offset: 0, limit: 30 });
      }));
      await frame();
      icicles.push(Math.max(...await icicleMs()));
    }
    out.step = step; out.jump = jump; out.query = query; out.icicles = icicles;
    out.ooms = v.panel({ cmd: 'overview' }).markers.filter((m) => m.what === 'oom').length;
    out.explainOom = out.ooms ? time(() => v.panel({ cmd: 'explain', moment: { oom: 0 } })) : NaN;
    out.explainPeak = time(() => v.panel({ cmd: 'explain', moment: 'peak' }));
    out.leaks = time(() => v.panel({ cmd: 'leaks' }));
    out.markers = time(() => v.panel({ cmd: 'overview' }));
    // A Color by redraw: [to the next frame, the work]. The page draws in
    // its animation frame callback; the callback queued after it sees how
    // long the frame's callbacks took since the frame began (its
    // timestamp), without the wait for that frame.
    const redraw = async (mode) => {
      v.panel({ cmd: 'color_by', mode });
      await frame();
      const t0 = performance.now();
      m.redraw();
      const work = await new Promise((res) => requestAnimationFrame((ts) => res(performance.now() - ts)));
      return [performance.now() - t0, work];
    };
    [out.colorCategory, out.colorCategoryWork] = await redraw('category'); // computes the colors
    [out.colorCategory2, out.colorCategory2Work] = await redraw('category');
    [out.area, out.areaWork] = await redraw('area'); // builds the kind series
    [out.area2, out.area2Work] = await redraw('area');
    [out.allocation] = await redraw('allocation');
    return out;
  }, { MOVES });
  rows.push({ name, ...r });
  console.error(`${name}: first-moment slices (ms; the last ones: the icicle's frames): ${r.sliceList.map((x) => x.toFixed(1)).join(" ")}`);
  console.error(`${name}: ${JSON.stringify({ ...r, step: undefined, jump: undefined, query: undefined, painted: undefined, icicles: undefined })}`);
  await ctx.close();
}
await browser.close();
server.close();

let md = `# "Explain the memory": browser timings\n\n` +
  `Release page (dist/), headless Chromium, 1400×900; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ` +
  `${new Date().toISOString().slice(0, 16)}Z. \`node benches/browser/explain.mjs\`.\n\n` +
  'First t: from the call until the panel shows it (the analysis and state history built first), then its longest task ' +
  '(a slice a frame on a long trace: the number of slices, then the panel\'s frame and its icicle\'s one or two). ' +
  `t moves: \`setMoment\` (Viewer.moment_json + the panel: totals, kinds, table) and the style and layout it leaves, ` +
  `median / p95 / max of ${MOVES}; the icicle: the work of its longest frame (the next frame fetches its tree from Viewer.moment_tree_json and draws it, or the one after draws it when the fetch took over 4 ms), median / p95 / max of the ${MOVES} steps and ${MOVES} jumps; ` +
  `"one step" walks back from the peak as the arrow keys do ("to the next frame": until the frame after it, so with the wait for it; ` +
  `headless Chromium's frames come every ~16 ms), "jump" lands anywhere; "query" is the wasm calls alone (moment_json and the table's first rows; the tree comes apart). ` +
  `Color by: the work of the redraw (the frame's callbacks, from the frame's start), then in brackets until the frame after it.\n\n` +
  '| file | steps | first t (builds the analysis): in all, longest task (slices) | t moves one step | its icicle (longest frame) | one step, to the next frame | t jumps | query alone | OOM explained | peak explained | leaks | markers | Color by category (first / again) | stacked area (first / again) |\n' +
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n';
for (const r of rows) {
  md += `| ${r.name} | ${r.steps} | ${f1(r.first)} ms, ${f1(r.firstLongest)} ms (${r.firstSlices}) | ${f1(med(r.step))} / ${f1(p95(r.step))} / ${f1(Math.max(...r.step))} ms | ` +
    `${f1(med(r.icicles))} / ${f1(p95(r.icicles))} / ${f1(Math.max(...r.icicles))} ms | ${f1(med(r.painted))} ms | ` +
    `${f1(med(r.jump))} / ${f1(p95(r.jump))} / ${f1(Math.max(...r.jump))} ms | ${f1(med(r.query))} ms | ${f1(r.explainOom)} ms | ${f1(r.explainPeak)} ms | ` +
    `${f1(r.leaks)} ms | ${f1(r.markers)} ms | ${f1(r.colorCategoryWork)} (${f1(r.colorCategory)}) / ${f1(r.colorCategory2Work)} (${f1(r.colorCategory2)}) ms | ` +
    `${f1(r.areaWork)} (${f1(r.area)}) / ${f1(r.area2Work)} (${f1(r.area2)}) ms |\n`;
}
console.log(md);
if (write) writeFileSync(join(ROOT, 'benches/browser/EXPLAIN.md'), md);
