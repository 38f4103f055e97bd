// Browser timing of the "What if" panel (issue 39) in the release page
// (dist/): the panel opened on a file replays its trace a slice a frame (the
// recording read, the self-check's replay under its own settings, the
// prediction's replay; then the capacity the run needs, a replay per cap of
// a bisection). Prints, per file: the time from opening the panel until the
// prediction's line is known (target: within 1 s on the 2,000,000-event
// synthetic file), until everything is, the slices and the longest one.
// Timings are the page's own (www/whatif.js: data-whatif-replay-ms,
// data-whatif-ms, data-whatif-slices).
//
//   node benches/browser/whatif.mjs [--dist DIR] [FILE...]
//
// Default: target/bench-data/gen_2000000.pickle (scripts/bench-web.sh makes it:
// gen_snapshot.py --events 2000000 --devices 2 --oom) and the real OOM recording.
import { existsSync } from 'node:fs';
import { join, basename } from 'node:path';
import { ROOT, serveDist, launchChromium } from './page.mjs';

// --dist DIR: another build than dist/ (to compare builds: run once each).
const distAt = process.argv.indexOf('--dist');
const DIST = distAt >= 0 ? process.argv.splice(distAt, 2)[1] : join(ROOT, 'dist');
let files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!files.length) {
  files = [join(ROOT, 'target/bench-data/gen_2000000.pickle'), join(ROOT, '../shared/recordings/oom_fragmentation_2gib.pickle')];
}
for (const f of files) if (!existsSync(f)) { console.error(`missing ${f}`); process.exit(1); }
if (!existsSync(join(DIST, 'index.html'))) { console.error('dist/ missing: run scripts/build-web.sh'); process.exit(1); }

const { server, origin } = await serveDist(DIST);
const browser = await launchChromium();
const rows = [];
for (const path of files) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  await page.goto(origin + '/');
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
  await page.setInputFiles('#file-input', path);
  const name = basename(path);
  await page.waitForFunction((n) => document.querySelector('#file-select')?.selectedOptions[0]?.textContent === n &&
    document.querySelector('#plot').dataset.bandsDrawn !== undefined, name, { timeout: 600000 });
  await page.waitForTimeout(1000); // the file's own work after its first paint
  const r = await page.evaluate(async () => {
    const t0 = performance.now();
    document.querySelector('#whatif-details > summary').click();
    const firstTask = performance.now() - t0;
    while (document.querySelector('#whatif-panel').dataset.stage !== 'done' && !document.querySelector('#whatif-panel').dataset.error) {
      await new Promise((res) => setTimeout(res, 5));
    }
    const d = document.body.dataset;
    const slices = (d.whatifSlices || '').split(',').filter(Boolean).map(Number);
    return {
      steps: window.memviz.viewer.command({ cmd: 'get' }).steps,
      firstTask, replay: Number(d.whatifReplayMs), all: Number(d.whatifMs), slices: slices.length,
      longest: Math.max(firstTask, ...slices), error: document.querySelector('#whatif-error').textContent,
      needs: document.querySelector('#whatif-needs').textContent,
    };
  });
  rows.push({ name, ...r });
  await ctx.close();
}
await browser.close();
server.close();
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
console.log('| file | replayed (line known), ms | all (capacity too), ms | slices | longest slice, ms |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${f1(r.replay)} | ${f1(r.all)} | ${r.slices} | ${f1(r.longest)} |`);
for (const r of rows) if (r.error) console.log(`${r.name}: ${r.error}`);
