// The Python package's viewer and `memviz open` in headless Chromium
// (run by scripts/test-python.sh, after the wheel is installed):
//  - memviz.show()'s HTML (an iframe with srcdoc), in a page opened from
//    file:// with every request but that page's blocked, draws its snapshot;
//  - `memviz open --no-browser A B` serves a page that fetches both files
//    from 127.0.0.1 only and draws them (ranks: both in the file list).
// Numbers are checked against tests/reference/expected (independent Python).
// MEMVIZ_PYTHON: the venv's python with memviz installed; MEMVIZ: the
// memviz command to run open with.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync, spawn } from 'node:child_process';
import { ROOT, SNAPSHOTS, launch, newPage, expected, waitOpened, shownSummary } from '../e2e/helpers.mjs';

const PYTHON = process.env.MEMVIZ_PYTHON;
const MEMVIZ = process.env.MEMVIZ;
const OUT = join(ROOT, 'target/python-e2e');
mkdirSync(OUT, { recursive: true });

let browser;
before(async () => {
  assert.ok(PYTHON && MEMVIZ, 'MEMVIZ_PYTHON and MEMVIZ must be set (scripts/test-python.sh)');
  browser = await launch();
});
after(async () => { await browser?.close(); });

/** The summary numbers the page should show for `name`'s device 0 (its Active Memory Timeline). */
function want(name) {
  const dev = expected(name).summary.devices['0'];
  const tl = dev.active_memory;
  return {
    trace_events: dev.trace_events, segments: dev.segments, reserved_bytes: dev.reserved_bytes,
    allocated_bytes: dev.allocated_bytes, 'timeline.elements': tl.elements, 'timeline.peak_bytes': tl.peak_bytes,
    'timeline.start_bytes': tl.start_bytes, 'timeline.end_bytes': tl.end_bytes,
  };
}

/** Non-white pixels of the plot canvas. */
async function inked(frame) {
  return frame.evaluate(() => {
    const c = document.getElementById('plot');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) n++;
    return n;
  });
}

test('memviz.show(): the iframe draws its snapshot from file:// with every request blocked', async () => {
  const name = 'transformer_forward_bf16.pickle';
  const out = join(OUT, 'show.html');
  // A notebook's output cell, as a page: what _repr_html_ returns, for a path and for the live dict.
  const py = String.raw`
import memviz, pickle, sys
path, out = sys.argv[1:3]
cell = memviz.show(path, height=700)._repr_html_()
with open(out, 'w', encoding='utf-8') as f:
    f.write('<!doctype html><html><head><meta charset="utf-8"><title>notebook</title></head><body>' + cell + '</body></html>')
`;
  execFileSync(PYTHON, ['-c', py, join(SNAPSHOTS, name), out], { stdio: 'inherit' });
  const url = pathToFileURL(out).href;
  const { page, context, requests, blocked, errors } = await newPage(browser, (u) => u === url);
  const seen = [];
  page.on('request', (r) => seen.push(r.url()));
  await page.goto(url);
  const handle = await page.waitForSelector('iframe');
  const frame = await handle.contentFrame();
  await waitOpened(frame, name);
  assert.deepEqual(await shownSummary(frame), want(name));
  assert.ok(await inked(frame) > 50_000, 'timeline drawn');
  // about:srcdoc is the iframe itself, not a request.
  assert.deepEqual([...new Set([...seen, ...requests])].filter((u) => u !== url && u !== 'about:srcdoc'), []);
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.screenshot({ path: join(OUT, 'show.png') });
  await context.close();
});

test('memviz open --no-browser: the served page fetches its files from 127.0.0.1 and draws them', async () => {
  const a = 'small_train_step.pickle';
  const b = 'transformer_forward_bf16.pickle';
  const child = spawn(MEMVIZ, ['open', '--no-browser', join(SNAPSHOTS, a), join(SNAPSHOTS, b)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let said = '';
    const url = await new Promise((resolve, reject) => {
      child.on('exit', (code) => reject(new Error(`memviz open exited (${code}): ${said}`)));
      child.stdout.on('data', (d) => {
        said += d;
        const m = said.match(/(http:\/\/127\.0\.0\.1:(\d+)\/#\S+)\n[^\n]*ssh -L (\d+):127\.0\.0\.1:(\d+) /);
        if (m) {
          assert.equal(m[2], m[3]);
          assert.equal(m[2], m[4]);
          resolve(m[1]);
        }
      });
    });
    const origin = new URL(url).origin;
    const { page, context, requests, blocked, errors } = await newPage(browser, (u) => u.startsWith(`${origin}/`));
    await page.goto(url);
    await page.waitForFunction(() => document.querySelectorAll('#file-select option').length === 2, null,
      { timeout: 60000 });
    const names = await page.$$eval('#file-select option', (os) => os.map((o) => o.textContent));
    assert.deepEqual(names.sort(), [a, b].sort());
    const shown = await page.$eval('#file-select', (s) => s.selectedOptions[0].textContent);
    await waitOpened(page, shown);
    assert.deepEqual(await shownSummary(page), want(shown));
    assert.ok(await inked(page) > 50_000, 'timeline drawn');
    assert.deepEqual(blocked, []);
    assert.deepEqual(requests.filter((u) => !u.startsWith(`${origin}/`)), []);
    assert.ok(requests.includes(`${origin}/files/0/${a}`) && requests.includes(`${origin}/files/1/${b}`), requests.join(' '));
    assert.deepEqual(errors, []);
    await page.screenshot({ path: join(OUT, 'open.png') });
    await context.close();
  } finally {
    child.kill();
  }
});
