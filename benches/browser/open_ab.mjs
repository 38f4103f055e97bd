// Two or more builds' opens of one file, alternated (the eleventh session's A/B of the open path):
//   node benches/browser/open_ab.mjs ROUNDS FILE DIST...
// Each round opens FILE once in a fresh page of each DIST, after the idle warm-up and the spare
// worker's memory written ahead, with a GC forced just before (Chromium's --expose-gc): otherwise a
// 15-35 ms GC of V8's own timing lands in about half the opens and decides the comparison
// (RESULTS.md, "Issue 42, eleventh session"). Prints each build's medians and every open:
// file received -> decoded (`timings.decode`), first paint (`timings.firstPaint`), and for a
// file read in the worker its read (`timings.worker.read`), ms.
import { serveDist, launchChromium } from './page.mjs';

const [ROUNDS, FILE, ...DISTS] = process.argv.slice(2);
if (!(+ROUNDS > 0) || !FILE || DISTS.length === 0) {
  console.error('usage: node benches/browser/open_ab.mjs ROUNDS FILE DIST...');
  process.exit(2);
}
const servers = await Promise.all(DISTS.map((d) => serveDist(d)));
const browser = await launchChromium(['--js-flags=--expose-gc']);
const res = DISTS.map(() => []);
for (let r = 0; r < +ROUNDS; r++) {
  for (let k = 0; k < DISTS.length; k++) {
    const page = await browser.newPage();
    await page.goto(`${servers[k].origin}/index.html`);
    await page.waitForSelector('body[data-warm="1"]', { timeout: 60000 });
    await page.waitForFunction(() => document.body.dataset.aheadWritten, null, { timeout: 60000 });
    await page.waitForTimeout(300);
    await page.evaluate(() => gc());
    await page.setInputFiles('#file-input', FILE);
    await page.waitForFunction(() => window.memviz.timings.firstPaint > 0, null, { timeout: 60000 });
    res[k].push(await page.evaluate(() => ({ ...window.memviz.timings, where: document.body.dataset.decodedIn })));
    await page.close();
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1].toFixed(1); };
const list = (a) => a.map((x) => x.toFixed(0)).join(' ');
for (let k = 0; k < DISTS.length; k++) {
  const x = res[k], worker = x[0].where === 'worker';
  const read = worker ? ` worker read ${med(x.map((t) => t.worker.read))} (${list(x.map((t) => t.worker.read))})` : '';
  console.log(`${DISTS[k]} (read on the ${x[0].where}): decoded ${med(x.map((t) => t.decode))} (${list(x.map((t) => t.decode))}),` +
    ` first paint ${med(x.map((t) => t.firstPaint))} (${list(x.map((t) => t.firstPaint))})${read} ms`);
}
await browser.close();
for (const s of servers) s.server.close();
