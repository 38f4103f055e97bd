// The multi-file panels against the frame budget of issue 13, in the release
// page (dist/): with FILES dropped together, how long a click takes
//   - on a row of the ranks overview (www/ranks.js: show that rank, keeping
//     the window and t), each row in turn: the longest frame's work (a rank
//     whose timeline was freed is replayed a slice a frame first) and until
//     the rank is painted;
//   - on the diff panel's Diff button (two sides at two moments: the
//     moment_json-like query of each side, the diff, its table and icicle),
//     A and B moving through the trace.
// Each is timed in the page: the click's handler, then the style and layout
// it left (forced; the browser would do them before painting), median / p95 /
// max of N clicks; the diff's icicle, which the page makes in the next frame
// (its own timing); and until the frame after it (with the wait for it).
// Then what the files added to the wasm memory (its peak, less the page's
// own before the drop) against issue 11's budget.
// Each argument is one set of files opened together in a fresh page (names
// joined by commas; at least two, as the overview and the diff need: the
// same file twice diffs it with itself at two moments).
//
//   node benches/browser/panels.mjs [--dist DIR] [--clicks N] [--no-write] FILE[,FILE...]...
//
// Prints a markdown table and, unless --no-write, puts it in RESULTS.md
// between <!-- panels: latest --> and <!-- panels: end -->.
import { existsSync, mkdtempSync, statSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { basename, join, resolve } from 'node:path';
import { cpus, loadavg, tmpdir } from 'node:os';
import { ROOT, serveDist, launchChromium, writeResults } from './page.mjs';

const argv = process.argv.slice(2);
// --dist DIR: another build than dist/ (to compare builds: run once each).
const distAt = argv.indexOf('--dist');
const DIST = distAt >= 0 ? argv.splice(distAt, 2)[1] : join(ROOT, 'dist');
let clicks = 40;
const sets = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--clicks') clicks = Math.max(2, +argv[++i]);
  else if (!argv[i].startsWith('--')) sets.push(argv[i].split(','));
}
const write = !argv.includes('--no-write');
if (!sets.length) { console.error('usage: node benches/browser/panels.mjs [--dist DIR] [--clicks N] [--no-write] FILE[,FILE...]...'); process.exit(2); }
for (const f of sets.flat()) if (!existsSync(f)) { console.error(`missing ${f}`); process.exit(1); }
if (sets.some((s) => s.length < 2)) { console.error('each set needs two files or more (FILE,FILE): the overview and the diff'); process.exit(2); }
if (!existsSync(join(DIST, 'index.html'))) { console.error(`${DIST}/index.html missing: run scripts/build-web.sh`); process.exit(1); }

// Issue 11's memory budget for a set: 4x its largest file plus the compact
// models of the others (`memviz info --json`'s model_heap_bytes).
const memviz = ['release', 'debug'].map((p) => join(ROOT, 'target', p, 'memviz')).find(existsSync);
const modelBytes = (f) => {
  try { return JSON.parse(execFileSync(memviz, ['info', f, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 })).model_heap_bytes; } catch (_) { return null; }
};
const budget = (files) => {
  const sizes = files.map((f) => statSync(f).size);
  const li = sizes.indexOf(Math.max(...sizes));
  const models = files.map((f, i) => (i === li ? 0 : modelBytes(f)));
  return models.includes(null) ? null : 4 * sizes[li] + models.reduce((a, b) => a + b, 0);
};

const { server, origin } = await serveDist(DIST);
const browser = await launchChromium();
const results = [];
for (const files of sets) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  await page.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (e) => { window.__memvizWasm = e.detail && e.detail.wasm; });
  });
  await page.goto(origin + '/');
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  // The file input takes several files (Open snapshots…): what a user picks.
  // Named rank0_…, rank1_… (links in a temp dir): the same file twice is two ranks.
  const dir = mkdtempSync(join(tmpdir(), 'memviz-panels-'));
  const named = files.map((f, i) => { const l = join(dir, `rank${i}_${basename(f)}`); symlinkSync(resolve(f), l); return l; });
  await page.waitForTimeout(1500); // the page's idle warm-up (www/app.js) first, as ranks.mjs does
  const before = await page.evaluate(() => (window.__memvizWasm ? window.__memvizWasm.memory.buffer.byteLength : -1));
  await page.setInputFiles('#file-input', named);
  const r = await page.evaluate(async ({ n, clicks }) => {
    const panel = document.querySelector('#ranks-panel');
    await new Promise((res) => {
      const check = () => (panel && +panel.dataset.rows >= n && panel.dataset.loading === '0' &&
        document.querySelector('#plot').dataset.bandsDrawn !== undefined ? res() : setTimeout(check, 20));
      check();
    });
    const frame = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res)));
    await frame();
    const v = window.memviz.viewer;
    // One click: [its work with the style and layout it left, until the
    // frame after it, [the work of that frame's icicle (the diff draws it
    // there: www/ranks.js times it), of which drawing]].
    // A click whose sides were not built builds them a slice a frame first
    // (www/ranks.js's data-build: the slices' work, the last the table's):
    // its work is then the longest of those.
    const click = async (el) => {
      const out = document.querySelector('#diff-out');
      delete out.dataset.build;
      const t0 = performance.now();
      el.click();
      void document.body.offsetHeight;
      let work = performance.now() - t0, slices = 0;
      if (out.dataset.build === 'pending') {
        while (out.dataset.build === 'pending') await new Promise((res) => requestAnimationFrame(res));
        const build = out.dataset.build.split(',').map(Number);
        window.__firstBuild ??= build; // printed: the first Diff click's slices
        work = Math.max(work, ...build);
        slices = build.length;
      }
      await new Promise((res) => requestAnimationFrame(res));
      const painted = performance.now() - t0;
      const d = document.querySelector('#diff-out').dataset;
      const next = d.icicle === 'drawn' ? [+d.icicleMs, +d.icicleDrawMs] : [0, 0];
      d.icicle = '';
      await frame();
      return [work, painted, next, slices];
    };
    // A row: [the longest frame's work (the click's own, with the style and
    // layout it left, or a slice of the replay of a rank whose timeline was
    // freed: www/ranks.js times those), until the frame that paints the
    // rank, how many slices (0: its timeline was kept)].
    const rowClick = async (tr) => {
      const key = `${tr.dataset.file}/${tr.dataset.device}`;
      delete panel.dataset.replay;
      const t0 = performance.now();
      tr.click();
      void document.body.offsetHeight;
      const work = performance.now() - t0;
      while (panel.dataset.replay === undefined) await new Promise((res) => requestAnimationFrame(res));
      if (panel.dataset.shown !== key) throw new Error(`row ${key} clicked, ${panel.dataset.shown} shown`);
      await new Promise((res) => requestAnimationFrame(res));
      const painted = performance.now() - t0;
      const slices = panel.dataset.replay ? panel.dataset.replay.split(',').map(Number) : [];
      await frame();
      return [Math.max(work, ...slices), painted, slices.length];
    };
    const out = { rows: [], diff: [], steps: v.command({ cmd: 'get' }).steps };
    const rows = [...document.querySelectorAll('#ranks-table tbody tr')];
    for (let i = 0; i < clicks; i++) out.rows.push(await rowClick(rows[(i + 1) % rows.length]));
    const a = document.querySelector('#diff-a'), b = document.querySelector('#diff-b');
    a.value = '0';
    b.value = String(rows.length > 1 ? 1 : 0);
    const atA = document.querySelector('#diff-at-a'), atB = document.querySelector('#diff-at-b');
    // B's own steps: its row shown a moment (the rows keep file and device).
    await rowClick(rows[+b.value]);
    const steps = v.command({ cmd: 'get' }).steps;
    await rowClick(rows[0]);
    await frame();
    const failed = () => document.querySelector('#diff-out').dataset.totalB === undefined;
    for (let i = 0; i < clicks; i++) {
      atA.value = 'peak';
      atB.value = 'step';
      document.querySelector('#diff-step-b').value = String(Math.floor(((i * 7919) % clicks + 0.5) / clicks * steps));
      delete document.querySelector('#diff-out').dataset.totalB;
      out.diff.push(await click(document.querySelector('#diff-run')));
      if (failed()) throw new Error(`the diff at B step ${document.querySelector('#diff-step-b').value} failed: ${document.body.innerText.slice(0, 300)}`);
    }
    out.firstDiffSlices = window.__firstBuild ?? [];
    // The wasm linear memory only grows: its peak over the clicks.
    out.wasmBytes = window.__memvizWasm ? window.__memvizWasm.memory.buffer.byteLength : -1;
    out.groups = document.querySelector('#diff-out').dataset.groups;
    out.diffRows = document.querySelectorAll('#diff-table tbody tr').length;
    return out;
  }, { n: files.length, clicks });
  results.push({ files, ...r, before, budget: memviz ? budget(files) : null });
  console.error(`${files.map((f) => basename(f)).join(' + ')}: ${JSON.stringify({ ...r, rows: r.rows.map((x) => x.map(Math.round)), diff: r.diff.map((x) => x.map(Math.round)) })}`);
  await ctx.close();
}
await browser.close();
server.close();

const MB = (b) => (b / 1e6).toFixed(0);
const stat = (xs) => {
  const s = [...xs].sort((p, q) => p - q);
  const at = (f) => s[Math.min(s.length - 1, Math.floor(s.length * f))].toFixed(1);
  return `${at(0.5)} / ${at(0.95)} / ${s[s.length - 1].toFixed(1)} ms`;
};
let md = `Release page (dist/), headless Chromium, 1400×900; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ` +
  `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${new Date().toISOString().slice(0, 16)}Z. ` +
  `\`node benches/browser/panels.mjs\`: the click's work with the style and layout it left ` +
  `(median / p95 / max of ${clicks}), the diff's icicle in the next frame (its tree from the wasm, parsed, drawn: the page's own timing), then until the frame after it (median).\n\n` +
  'The first Diff click builds the analysis of each side, a slice a frame, and is given apart: the longest slice (how many).\n\n' +
  'An overview row click shows a rank at once when its timeline was kept (the last ranks shown keep theirs); ' +
  'else its timeline is replayed first, a slice a frame (www/ranks.js). Its longest frame\'s work is given, and how many clicks replayed.\n\n' +
  '| files | overview row click: longest frame | until painted | clicks that replayed (slices each) | first Diff click | Diff click (A at the peak, B across the trace) | its next frame (the icicle) | to the next frame | diff groups / rows shown | wasm memory the files added, after the clicks (before them) / issue 11\'s budget |\n' +
  '|---|---|---|---|---|---|---|---|---|---|\n';
for (const r of results) {
  const later = r.diff.slice(1);
  const replayed = r.rows.filter((x) => x[2] > 0);
  md += `| ${r.files.map((f) => basename(f)).join(' + ')} | ${stat(r.rows.map((x) => x[0]))} | ${stat(r.rows.map((x) => x[1])).split(' / ')[0]} ms | ` +
    `${replayed.length} of ${r.rows.length}${replayed.length ? ` (${replayed.map((x) => x[2]).join(', ')})` : ''} | ` +
    `${r.diff[0][0].toFixed(1)} ms (${r.diff[0][3]}) | ${stat(later.map((x) => x[0]))} | ${stat(later.map((x) => x[2][0]))} (drawing ${stat(later.map((x) => x[2][1])).split(' / ')[0]} ms) | ${stat(later.map((x) => x[1])).split(' / ')[0]} ms | ${r.groups} / ${r.diffRows} | ` +
    `${MB(r.wasmBytes - r.before)} (${MB(r.before)}) / ${r.budget == null ? '?' : `${MB(r.budget)} MB${r.wasmBytes - r.before <= r.budget ? ': met' : ': NOT met'}`} |\n`;
}
console.log(md);
if (write) writeResults('panels', md);
