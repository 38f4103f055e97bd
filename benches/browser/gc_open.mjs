// Which of V8's GCs run during an open (issue 44's lead, RESULTS.md "Issue 42, eleventh session"):
//   node benches/browser/gc_open.mjs ROUNDS FILE [DIST] [--ahead MB]
// Each round: a fresh page of DIST (default dist/), after the idle warm-up and the spare worker's
// memory written ahead; with --ahead, the page allocates and writes MB of ArrayBuffer first; then
// 1.5 s idle, FILE set on the input, and a trace (categories v8, v8.gc, devtools.timeline) from the
// change to the first paint: each open's decode ms and its GC phases over 0.5 ms, summed by name.
import { resolve } from 'node:path';
import { serveDist, launchChromium } from './page.mjs';

const args = process.argv.slice(2);
const at = args.indexOf('--ahead');
const ahead = at >= 0 ? +args.splice(at, 2)[1] : 0;
const [ROUNDS, FILE, DIST = resolve(new URL('../../dist', import.meta.url).pathname)] = args;
if (!(+ROUNDS > 0) || !FILE) {
  console.error('usage: node benches/browser/gc_open.mjs ROUNDS FILE [DIST] [--ahead MB]');
  process.exit(2);
}
const s = await serveDist(DIST);
const browser = await launchChromium();
for (let r = 0; r < +ROUNDS; r++) {
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await page.goto(`${s.origin}/index.html`);
  await page.waitForSelector('body[data-warm="1"]', { timeout: 60000 });
  await page.waitForFunction(() => document.body.dataset.aheadWritten, null, { timeout: 60000 });
  await page.evaluate((mb) => { if (mb) new Uint8Array((window.__ahead = new ArrayBuffer(mb << 20))).fill(1); }, ahead);
  await page.waitForTimeout(1500);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const complete = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline', 'v8', 'disabled-by-default-v8.gc'] }, transferMode: 'ReportEvents' });
  await page.setInputFiles('#file-input', FILE);
  await page.waitForFunction(() => window.memviz.timings.firstPaint > 0, null, { timeout: 60000 });
  await cdp.send('Tracing.end');
  await complete;
  const sum = {};
  for (const e of events) if (/GC|Scavenge|MarkCompact/.test(e.name) && e.dur > 500) sum[e.name] = (sum[e.name] || 0) + e.dur / 1000;
  const decode = await page.evaluate(() => window.memviz.timings.decode);
  console.log(`open ${r + 1}: decoded ${decode.toFixed(1)} ms; ${Object.entries(sum).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ') || 'no GC'}`);
  await page.close();
}
await browser.close();
s.server.close();
