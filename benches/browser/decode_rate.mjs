// The wasm decoder's own throughput in the page against the native one
// (issue 13: "decode throughput in wasm at least half the native one").
//
//   node benches/browser/decode_rate.mjs [--dist DIR] [--write] [FILE...]
//
// --write: also put the table into benches/browser/RESULTS.md between the
// "decode-rate: latest" markers (scripts/bench-web.sh --write).
//
// The page's open (benches/browser/run.mjs, "decode MB/s: page") also counts
// Chromium's reading of the file (a 0.5 MB file's first bytes come ~7 ms after
// the change event, a 3.2 MB file takes 15-45 ms to read in an empty page),
// the finish and the first timeline's replay. Here the file is first read
// whole into the page (a file input of its own), then fed to a decode (`Viewer.open({cmd: 'decode'})`, `feed`) of
// the page's own wasm instance in FEED-sized pieces, as the page feeds one:
// the first call after the page's idle warm-up (what a user's first file
// gets), then the median of 5 more. Native: `decode_speed --phases` (the same
// feed calls), median of 5. Needs dist/ (scripts/build-web.sh) and
// target/release/decode_speed.
import { existsSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, resolve, basename } from 'node:path';
import { ROOT, serveDist, launchChromium, writeResults, pageFeed } from './page.mjs';

const argv = process.argv.slice(2);
let DIST = join(ROOT, 'dist');
let write = false;
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--dist') DIST = resolve(argv[++i]);
  else if (argv[i] === '--write') write = true;
  else files.push(argv[i]);
}
if (!files.length) {
  files.push(...['compile_context_metadata.pickle', 'transformer_fullstep_ctx128.pickle']
    .map((f) => join(ROOT, '../shared/snapshots', f)), join(ROOT, 'target/bench-data/gen_2000000.pickle'));
}
const NATIVE = join(ROOT, 'target/release/decode_speed');
for (const p of [join(DIST, 'index.html'), NATIVE, ...files]) {
  if (!existsSync(p)) { console.error(`missing: ${p}`); process.exit(1); }
}
const FEED = pageFeed(DIST);

const { server, origin } = await serveDist(DIST);
const browser = await launchChromium();

const med = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
const rows = [];
for (const file of files) {
  // Native: "NAME: median run: feed X ms, ..."
  const out = execFileSync(NATIVE, ['--phases', '--repeat', '5', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const native = +(/feed ([\d.]+) ms/.exec(out) || [])[1];
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${origin}/index.html`);
  await page.waitForSelector('body[data-warm="1"]', { timeout: 60000 });
  await page.evaluate(() => {
    const i = Object.assign(document.createElement('input'), { type: 'file', id: 'rate-input', hidden: true });
    document.body.append(i);
  });
  await page.setInputFiles('#rate-input', file);
  const ms = await page.evaluate(async (FEED) => {
    const f = document.getElementById('rate-input').files[0];
    const bytes = new Uint8Array(await f.arrayBuffer());
    const g = window.wasmBindings;
    const times = [];
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      const d = new g.Viewer();
      d.open({ cmd: 'decode', name: f.name });
      for (let p = 0; p < bytes.length; p += FEED) d.feed(bytes.subarray(p, p + FEED));
      times.push(performance.now() - t0);
      d.free();
      await new Promise((r) => setTimeout(r, 50));
    }
    return times;
  }, FEED);
  await page.close();
  const mb = statSync(file).size / 1e6;
  const first = ms[0], later = med(ms.slice(1));
  const rate = (t) => (mb / t) * 1e3;
  rows.push(`| ${basename(file)} (${mb.toFixed(1)} MB) | ${first.toFixed(1)} / ${later.toFixed(1)} | ${native.toFixed(1)} | ` +
    `${rate(first).toFixed(0)} / ${rate(later).toFixed(0)} / ${rate(native).toFixed(0)} | ` +
    `**${(100 * native / first).toFixed(0)}%** / ${(100 * native / later).toFixed(0)}%: ` +
    `${native / first >= 0.5 && native / later >= 0.5 ? 'met' : '**not met**'} |`);
  console.error(`${basename(file)}: wasm ${ms.map((t) => t.toFixed(1)).join(' ')} ms, native ${native} ms`);
}
const table = [
  '| file | wasm feed ms: first call / median of 5 more | native feed ms | MB/s: wasm first / wasm later / native | wasm / native: first / later (both ≥ 50%) |',
  '|---|---|---|---|---|', ...rows].join('\n');
console.log(table);
if (write) {
  writeResults('decode-rate', `The wasm decoder in the page (the file read whole first) against the native one, same build:\n\n${table}`, 'bench-web');
}
await browser.close();
server.close();
