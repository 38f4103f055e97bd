// memviz against PyTorch's memory_viz, opened in the same run (issue 44):
// for each file, fresh pages in turn of each memviz build (dist/ or --dist
// DIRs) and of memory_viz, in headless Debian chromium; medians.
//
//   node benches/browser/vs_memory_viz.mjs --memory-viz DIR [--dist DIR]... [--runs N] [--settle MS|warm] [--write] [FILE...]
//
// --settle: how long after the page is ready the file is picked (1500 ms);
// `warm`: once memviz's page says its idle warm-up is done (body[data-warm],
// at most 20 s; ~2.3 s after ready on a slow VM), memory_viz 1500 ms.
//
// DIR holds PyTorch's torch/utils/viz/MemoryViz.js (read from
// pytorch/pytorch, never committed here) and node_modules/d3 (`npm install
// d3@5`); the harness serves them with a page of its own: MemoryViz.js's
// CDN imports are pointed at d3's UMD bundle, and a file input (the harness
// picks the file with it, as for memviz) hands the file to memory_viz's drop
// handler, which reads it (FileReader), unpickles, annotates and draws the
// Active Memory Timeline in one task.
//
// Figures, from the file input's change event (its timeStamp):
//   painted  the first task after the rendering update of the frame in which
//            the page first drew (memviz: its memviz:first-paint mark;
//            memory_viz: the timeline's polygons in the DOM);
//   next     the same for the frame after it: what the page did right after
//            its first draw (memviz builds the rest in slices) counts;
//   long     the longest task from the change event to `next`.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve, basename } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { execSync } from 'node:child_process';
import { createServer } from 'node:http';
import { ROOT, serveDist, launchChromium, CHROMIUM, writeResults } from './page.mjs';

const LOAD0 = loadavg().map((x) => x.toFixed(2)).join(' ');
const argv = process.argv.slice(2);
const opt = { runs: 5, dists: [], mv: null, files: [], write: false, settle: 1500 };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--runs') opt.runs = Math.max(1, +argv[++i]);
  else if (a === '--dist') opt.dists.push(resolve(argv[++i]));
  else if (a === '--memory-viz') opt.mv = resolve(argv[++i]);
  else if (a === '--write') opt.write = true;
  else if (a === '--settle') opt.settle = argv[++i] === 'warm' ? 'warm' : +argv[i];
  else if (a.startsWith('--')) { console.error(`unknown option ${a}`); process.exit(2); }
  else opt.files.push(resolve(a));
}
if (!opt.dists.length) opt.dists.push(join(ROOT, 'dist'));
if (!opt.files.length) {
  console.error('no files: scripts/bench-web.sh --memory-viz DIR passes its table');
  process.exit(2);
}
const D3 = opt.mv && join(opt.mv, 'node_modules/d3/dist/d3.min.js');
if (opt.mv && !(existsSync(join(opt.mv, 'MemoryViz.js')) && existsSync(D3))) {
  console.error(`${opt.mv} must hold MemoryViz.js (pytorch/pytorch torch/utils/viz) and node_modules/d3 (npm install d3@5)`);
  process.exit(1);
}
for (const f of [...opt.files, ...opt.dists.map((d) => join(d, 'index.html'))]) {
  if (!existsSync(f)) { console.error(`missing ${f}`); process.exit(1); }
}

// memory_viz's page: d3's UMD bundle, then MemoryViz.js with its imports
// read from it (d3.event stays d3's live binding), and a file input whose
// file goes to the drop handler.
const MV_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>memory_viz</title>
<script src="d3.min.js"></script></head><body>
<input type="file" id="file-input">
<script type="module" src="MemoryViz.js"></script>
<script>
document.getElementById('file-input').addEventListener('change', (e) => {
  const dt = new DataTransfer();
  for (const f of e.target.files) dt.items.add(f);
  document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
});
</script></body></html>`;
const mvJs = () => readFileSync(join(opt.mv, 'MemoryViz.js'), 'utf8')
  .replace(/^import \* as d3 from .*$/m, 'const d3 = window.d3;')
  .replace(/^import \{([^}]*)\} from .*$/gm, 'const {$1} = window.d3;');
const MV_FILES = { '/index.html': ['text/html', () => MV_HTML], '/MemoryViz.js': ['text/javascript', mvJs], '/d3.min.js': ['text/javascript', () => readFileSync(D3)] };
let mvServer = null;
if (opt.mv) {
  const server = createServer((req, res) => {
    const f = MV_FILES[new URL(req.url, 'http://x').pathname];
    if (!f) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': f[0] }).end(f[1]());
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  mvServer = { server, origin: `http://127.0.0.1:${server.address().port}` };
}
const servers = await Promise.all(opt.dists.map((d) => serveDist(d)));

const INIT = (drawn) => `(() => {
  const drawn = ${drawn};
  window.__vs = { open: null, longTasks: [], firstPaints: 0 };
  // The page clears its marks: an observer is handed each one still.
  const marks = new PerformanceObserver((l) => { count(l.getEntries()); });
  const count = (es) => { for (const e of es) if (e.name === 'memviz:first-paint') window.__vs.firstPaints++; };
  marks.observe({ entryTypes: ['mark'] });
  window.__vs.paints = () => { count(marks.takeRecords()); return window.__vs.firstPaints; };
  try {
    new PerformanceObserver((l) => { for (const t of l.getEntries()) window.__vs.longTasks.push([t.startTime, t.duration]); })
      .observe({ entryTypes: ['longtask'] });
  } catch (_) { /* no long task API */ }
  addEventListener('change', (e) => {
    if (!e.target || e.target.id !== 'file-input') return;
    const r = { change: e.timeStamp, seen: drawn() };
    const ch = new MessageChannel();
    // Runs after the rendering update of the frame whose rAF posted it.
    ch.port1.onmessage = () => {
      if (r.painted === undefined) {
        if (drawn() > r.seen) r.painted = performance.now();
        requestAnimationFrame(tick);
      } else { r.next = performance.now(); window.__vs.open = r; }
    };
    const tick = () => ch.port2.postMessage(0);
    requestAnimationFrame(tick);
  }, true);
})();`;
const MEMVIZ_DRAWN = `() => window.__vs.paints()`;
const MV_DRAWN = `() => (document.querySelector('svg polygon') ? 1 : 0)`;

const browser = await launchChromium();
const med = (xs) => { const s = xs.filter(Number.isFinite).sort((a, b) => a - b); return s.length ? s[(s.length - 1) >> 1] : NaN; };
const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : '–');

async function openOnce(origin, drawn, path, mv) {
  const size = statSync(path).size;
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  await context.addInitScript(INIT(drawn));
  const page = await context.newPage();
  const r = { notes: [] };
  page.on('pageerror', (e) => r.notes.push(`pageerror: ${e}`));
  await page.goto(`${origin}/index.html`);
  if (mv) await page.waitForFunction(() => window.d3 && document.querySelector('select'));
  else await page.waitForSelector('body[data-ready="1"]');
  if (opt.settle === 'warm' && !mv) await page.waitForSelector('body[data-warm="1"]', { timeout: 20000 });
  else await new Promise((res) => setTimeout(res, opt.settle === 'warm' ? 1500 : opt.settle)); // the page's idle warm-up
  await page.evaluate(() => { window.__vs.longTasks = []; });
  await page.setInputFiles('#file-input', path);
  const limitMs = Math.max(120_000, (size / 2 ** 20) * 300);
  const o = await page.evaluate((limitMs) => new Promise((res) => {
    const t0 = performance.now();
    const look = () => {
      const v = window.__vs;
      if (v.open || performance.now() - t0 > limitMs) {
        if (!v.open) { res(null); return; }
        const { change, painted, next } = v.open;
        const lt = v.longTasks.filter(([s, d]) => s + d >= change && s <= next).map(([, d]) => d);
        res({ painted: painted - change, next: next - change, long: lt.length ? Math.max(...lt) : 0 });
      } else setTimeout(look, 20);
    };
    look();
  }), limitMs).catch((e) => { r.notes.push(String(e).split('\n')[0]); return null; });
  if (!o) r.notes.push('not drawn');
  await context.close();
  return Object.assign(r, o || {});
}

const who = [...opt.dists.map((d, i) => ({ name: d === join(ROOT, 'dist') ? 'memviz' : `memviz ${basename(d)}`, origin: servers[i].origin, drawn: MEMVIZ_DRAWN, mv: false }))];
if (mvServer) who.push({ name: 'memory_viz', origin: mvServer.origin, drawn: MV_DRAWN, mv: true });
const rows = [];
for (const f of opt.files) {
  const size = statSync(f).size;
  const runs = who.map(() => []);
  const n = size > 50e6 ? Math.min(3, opt.runs) : opt.runs;
  for (let i = 0; i < n; i++) {
    for (const [k, w] of who.entries()) {
      const r = await openOnce(w.origin, w.drawn, f, w.mv);
      runs[k].push(r);
      process.stderr.write(`vs: ${basename(f)} ${w.name} run ${i + 1}/${n}: painted ${f0(r.painted)} ms, next frame ${f0(r.next)} ms, longest task ${f0(r.long)} ms${r.notes.length ? ` (${r.notes.join('; ')})` : ''}\n`);
    }
  }
  rows.push({ file: basename(f), size, res: runs.map((rs) => ({ painted: med(rs.map((r) => r.painted)), next: med(rs.map((r) => r.next)), long: med(rs.map((r) => r.long)), notes: [...new Set(rs.flatMap((r) => r.notes))] })) });
}
await browser.close();
for (const s of [...servers, mvServer].filter(Boolean)) s.server.close();

const head = ['file', 'MB', ...who.map((w) => `${w.name}: painted / next frame (longest task) ms`)];
const mvAt = who.findIndex((w) => w.mv);
if (mvAt >= 0) head.push(...who.filter((w) => !w.mv).map((w) => `${w.name} vs memory_viz (next frame)`));
const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
for (const r of rows) {
  const cells = [r.file, (r.size / 1e6).toFixed(2), ...r.res.map((x) => `${f0(x.painted)} / **${f0(x.next)}** (${f0(x.long)})${x.notes.length ? ` ${x.notes.join('; ')}` : ''}`)];
  if (mvAt >= 0) cells.push(...r.res.filter((_, k) => k !== mvAt).map((x) => `${(r.res[mvAt].next / x.next).toFixed(1)}x`));
  lines.push(`| ${cells.join(' | ')} |`);
}
let chrome = '';
try { chrome = execSync(`${CHROMIUM} --version 2>/dev/null`).toString().trim(); } catch { /* header only */ }
let commit = '';
try { commit = execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim(); } catch { /* not a checkout */ }
const header = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit}, ${chrome} headless, 1400×900 at DPR 1; ` +
  `${cpus().length} × ${cpus()[0]?.model?.trim()}, shared; medians of ${opt.runs} fresh pages each (3 over 50 MB), builds taken in turn; ` +
  `the file picked ${opt.settle === 'warm' ? 'once memviz\'s warm-up was done (memory_viz: 1500 ms after ready)' : `${opt.settle} ms after the page was ready`}; ` +
  `load average ${LOAD0} at the start, ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end.`;
const out = [header, '', ...lines].join('\n');
console.log(out);
if (opt.write) writeResults('vs-memory-viz', out);
