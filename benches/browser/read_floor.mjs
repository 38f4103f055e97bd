// The browser's own floor for reading a picked file (issue 44): how long, from
// a file input's change event, until a page holds all of the file's bytes,
// with nothing decoded, in headless Debian chromium. memviz's open cannot be
// faster than this. Each read is a fresh page; the ways are taken in turn:
//   stream    the file's stream, read as memviz reads it (byob, done at its size);
//   stream2   the file's two halves' streams at once;
//   buffer    File.arrayBuffer();
//   buffer2   the two halves' arrayBuffer() at once.
//
//   node benches/browser/read_floor.mjs [--runs N] FILE...
import { basename } from 'node:path';
import { statSync } from 'node:fs';
import { launchChromium } from './page.mjs';

const argv = process.argv.slice(2);
let runs = 8;
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Math.max(1, +argv[++i]);
  else files.push(argv[i]);
}
if (!files.length) {
  console.error('usage: node benches/browser/read_floor.mjs [--runs N] FILE...');
  process.exit(2);
}
const WAYS = ['stream', 'stream2', 'buffer', 'buffer2'];

const browser = await launchChromium();
const med = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
console.log('| file | MB | ' + WAYS.join(' | ') + ' |');
console.log('|---|---|' + WAYS.map(() => '---').join('|') + '|');
for (const file of files) {
  const ms = Object.fromEntries(WAYS.map((w) => [w, []]));
  for (let k = 0; k < runs; k++) {
    for (const way of WAYS) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.setContent('<input type="file" id="f">');
      await page.evaluate((way) => {
        const input = document.getElementById('f');
        input.addEventListener('change', async (e) => {
          const t0 = e.timeStamp, f = input.files[0];
          // As memviz-worker's `read`: a byob reader into a 4 MiB buffer, done at the blob's size.
          const toEnd = async (blob) => {
            const r = blob.stream().getReader({ mode: 'byob' });
            let buf = new ArrayBuffer(4 << 20), n = 0;
            while (n < blob.size) {
              const { done, value } = await r.read(new Uint8Array(buf));
              if (done) break;
              n += value.byteLength;
              buf = value.buffer;
            }
            r.cancel().catch(() => {});
            return n;
          };
          const half = Math.ceil(f.size / 2), parts = [f.slice(0, half), f.slice(half)];
          let n = 0;
          if (way === 'stream') n = await toEnd(f);
          else if (way === 'stream2') n = (await Promise.all(parts.map(toEnd))).reduce((a, b) => a + b);
          else if (way === 'buffer') n = (await f.arrayBuffer()).byteLength;
          else n = (await Promise.all(parts.map((p) => p.arrayBuffer()))).reduce((a, b) => a + b.byteLength, 0);
          window.__read = { ms: performance.now() - t0, bytes: n };
        });
      }, way);
      await new Promise((r) => setTimeout(r, 1000)); // the fresh renderer settled, as a user's page is
      await page.setInputFiles('#f', file);
      await page.waitForFunction(() => window.__read);
      const r = await page.evaluate(() => window.__read);
      if (r.bytes !== statSync(file).size) throw new Error(`${way} read ${r.bytes} bytes of ${basename(file)}`);
      ms[way].push(r.ms);
      await context.close();
    }
  }
  const cell = (xs) => `${med(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`;
  console.log(`| ${basename(file)} | ${(statSync(file).size / 1e6).toFixed(2)} | ${WAYS.map((w) => cell(ms[w])).join(' | ')} |`);
}
await browser.close();
