// Two builds' wasm decoders against each other in one browser: a warm page of
// each build (its idle warm-up done), the file read into memory first, fed in
// FEED-sized calls as the page feeds one, the two pages' decodes alternated so
// that the machine's load falls on both alike. Prints, per file, the median
// and the minimum ms of each build and how many pairs the second one won.
//
//   node benches/browser/decode_ab.mjs DIST_A DIST_B PAIRS FILE...
//
// Needs the two builds (scripts/build-web.sh, copied aside) and
// scripts/setup.sh; Debian chromium. decode_rate.mjs is the one-build figure.
import { resolve, basename } from 'node:path';
import { serveDist, launchChromium, pageFeed } from './page.mjs';

const [A, B, PAIRS, ...FILES] = process.argv.slice(2);
if (!A || !B || !(+PAIRS > 0) || !FILES.length) {
  console.error('usage: node benches/browser/decode_ab.mjs DIST_A DIST_B PAIRS FILE...');
  process.exit(2);
}
const FEED = pageFeed(resolve(A));
const browser = await launchChromium();
const servers = [], pages = [];
for (const dist of [A, B]) {
  const { server, origin } = await serveDist(resolve(dist));
  servers.push(server);
  const page = await browser.newPage();
  await page.goto(`${origin}/index.html`);
  await page.waitForSelector('body[data-warm="1"]', { timeout: 60000 });
  await page.evaluate(() => {
    document.body.append(Object.assign(document.createElement('input'), { type: 'file', id: 'ab-input', multiple: true, hidden: true }));
  });
  await page.setInputFiles('#ab-input', FILES.map((f) => resolve(f)));
  await page.evaluate(async () => {
    window.abBytes = await Promise.all([...document.getElementById('ab-input').files].map(async (f) => new Uint8Array(await f.arrayBuffer())));
  });
  pages.push(page);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
for (let i = 0; i < FILES.length; i++) {
  const ms = [[], []];
  for (let n = 0; n < +PAIRS; n++) {
    for (let k = 0; k < 2; k++) {
      ms[k].push(await pages[k].evaluate(([i, FEED]) => {
        const bytes = window.abBytes[i], t0 = performance.now();
        const d = new window.wasmBindings.Viewer();
        d.open({ cmd: 'decode', name: 'ab' });
        for (let p = 0; p < bytes.length; p += FEED) d.feed(bytes.subarray(p, p + FEED));
        const t = performance.now() - t0;
        d.free();
        return t;
      }, [i, FEED]));
    }
  }
  const won = ms[0].filter((a, n) => ms[1][n] < a).length;
  const f = (xs) => `median ${median(xs).toFixed(2)} min ${Math.min(...xs).toFixed(2)}`;
  console.log(`${basename(FILES[i])}: A ${f(ms[0])} | B ${f(ms[1])} | B faster in ${won}/${PAIRS} pairs`);
}
await browser.close();
for (const s of servers) s.close();
