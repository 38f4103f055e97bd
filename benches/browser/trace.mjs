// One cold open of a snapshot in the release page under a Chrome trace, to
// see what the renderer does: per phase (file-received → decoded, decoded →
// first render, the first render), the main thread's busy and idle time, its
// top-level tasks and their children, and the work on other threads (V8's
// background TurboFan tier-up of the wasm, GC).
//
//   node benches/browser/trace.mjs FILE [--save trace.json]
//
// Needs dist/ (scripts/build-web.sh) and scripts/setup.sh; Debian chromium.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, serveDist, launchChromium } from './page.mjs';

const DIST = join(ROOT, 'dist');
const [file, ...rest] = process.argv.slice(2);
if (!file || !existsSync(file)) { console.error('usage: node benches/browser/trace.mjs FILE [--save trace.json]'); process.exit(2); }
const save = rest[0] === '--save' ? rest[1] : null;

const { server, origin } = await serveDist(DIST);
const browser = await launchChromium();
const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 })).newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
await page.waitForSelector('body[data-ready="1"]');
// The page's idle warm-up done (then V8's background compiles), as a user's page is by the time a file is picked.
const t0 = Date.now();
await page.waitForSelector('body[data-warm="1"]', { state: 'attached' });
console.error(`warm-up done ${Date.now() - t0} ms after ready`);
await new Promise((r) => setTimeout(r, 1000));
await browser.startTracing(page, { categories: ['devtools.timeline', 'toplevel', 'v8', 'v8.wasm', 'blink.user_timing', 'disabled-by-default-v8.compile', ...(process.env.TRACE_CATEGORIES ? process.env.TRACE_CATEGORIES.split(',') : [])] });
await page.setInputFiles('#file-input', file);
// The page clears its marks once read; its timings line says the first paint happened.
await page.waitForFunction(() => /first paint/.test(document.getElementById('timings').textContent), null, { timeout: 600_000 });
await new Promise((r) => setTimeout(r, 200));
const buf = await browser.stopTracing();
await browser.close();
server.close();
if (save) writeFileSync(save, buf);

const ev = JSON.parse(buf).traceEvents;
const main = ev.find((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain');
const mark = (n) => ev.find((e) => e.name === n && String(e.cat).includes('user_timing'))?.ts;
const t = {
  received: mark('memviz:file-received'), decoded: mark('memviz:decoded'),
  render: mark('memviz:redraw-start'), paint: mark('memviz:first-paint'),
};
const ms = (us) => (us / 1000).toFixed(1);
console.log(`${file}: decoded at ${ms(t.decoded - t.received)} ms, first render call at ${ms(t.render - t.received)} ms, first paint at ${ms(t.paint - t.received)} ms`);

function phase(label, a, b) {
  const inMain = (e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X';
  const mt = ev.filter((e) => inMain(e) && e.ts + (e.dur || 0) > a && e.ts < b).sort((x, y) => x.ts - y.ts || y.dur - x.dur);
  // Busy = union of the main thread's events clipped to the phase.
  let busy = 0, cur = null;
  for (const e of mt) {
    const s = Math.max(a, e.ts), f = Math.min(b, e.ts + (e.dur || 0));
    if (!cur || s > cur[1]) { if (cur) busy += cur[1] - cur[0]; cur = [s, f]; } else cur[1] = Math.max(cur[1], f);
  }
  if (cur) busy += cur[1] - cur[0];
  console.log(`\n${label}: ${ms(b - a)} ms; main thread busy ${ms(busy)} ms, idle ${ms(b - a - busy)} ms`);
  // Main-thread tasks two levels deep (a task > what it ran).
  const stack = [], lvl = new Map();
  for (const e of mt) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= e.ts) stack.pop();
    if (stack.length <= 1) {
      const k = stack.length ? `  ${stack[0].name} > ${e.name}` : e.name;
      const clipped = Math.min(b, e.ts + (e.dur || 0)) - Math.max(a, e.ts); // the part inside the phase
      lvl.set(k, (lvl.get(k) || 0) + clipped);
    }
    stack.push(e);
  }
  for (const [k, us] of [...lvl].sort((x, y) => y[1] - x[1]).slice(0, 10)) console.log(`${ms(us).padStart(9)} ms  main: ${k}`);
  const other = new Map();
  for (const e of ev) {
    if (e.pid !== main.pid || e.tid === main.tid || e.ph !== 'X' || e.ts >= b || e.ts + (e.dur || 0) <= a) continue;
    const clipped = Math.min(b, e.ts + (e.dur || 0)) - Math.max(a, e.ts);
    if (/^(wasm|V8\.GC)/.test(e.name)) other.set(e.name, (other.get(e.name) || 0) + clipped);
  }
  for (const [k, us] of [...other].sort((x, y) => y[1] - x[1]).slice(0, 4)) console.log(`${ms(us).padStart(9)} ms  other threads: ${k}`);
}
phase('file-received → decoded', t.received, t.decoded);
phase('decoded → first render call', t.decoded, t.render);
phase('first render (→ first-paint mark)', t.render, t.paint);
