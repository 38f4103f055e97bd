// Sharing and embedding (www/share.js, www/MemoryViz.js, `memviz html`):
//  - the page `memviz html` writes, opened from file:// with every other
//    request blocked, opens its snapshot and draws the timeline;
//  - a page written the way `python -m torch.cuda._memory_viz trace_plot`
//    writes it, its import pointed at the self-hosted MemoryViz.js, shows
//    the snapshot (in the view it asks for);
//  - index.html#file=runs/NAME opens a file beside the page; other origins
//    and absolute paths are refused, and the CSP still forbids connections.
// Numbers are checked against tests/reference/expected (independent Python).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { join, extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import {
  ROOT, DIST, SNAPSHOTS, useBrowser, origin, browser, newPage, expected, waitOpened, shownSummary,
} from './helpers.mjs';

const BIG = 'transformer_fullstep_ctx128.pickle';
const SMALL = 'small_train_step.pickle';
const OUT = join(ROOT, 'tests/e2e/out');
const RUNS = join(OUT, 'runs'); // served as /runs/ beside index.html
mkdirSync(RUNS, { recursive: true });

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

/**
 * dist/ at /, tests/e2e/out/runs/ at /runs/. MemoryViz.js is sent with
 * Access-Control-Allow-Origin, as a mirror must: a module script loads
 * cross-origin only with CORS (a trace_plot page is usually a local file).
 */
async function serve() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const [base, rel] = path.startsWith('/runs/') ? [RUNS, path.slice(6)] : [DIST, path === '/' ? 'index.html' : path.slice(1)];
    const file = join(base, rel);
    if (!file.startsWith(base) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const headers = { 'content-type': TYPES[extname(file)] || 'application/octet-stream' };
    if (rel === 'MemoryViz.js') headers['access-control-allow-origin'] = '*';
    res.writeHead(200, headers);
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

let memviz;
useBrowser({ page: 'memviz-standalone.html', serve });
before(async () => {
  assert.ok(existsSync(join(SNAPSHOTS, BIG)), `../shared/snapshots/${BIG} missing`);
  // The CLI, built now that dist/ exists: its build script compiles the viewer in.
  execFileSync('cargo', ['build', '-q', '-p', 'memviz-cli'], { cwd: ROOT, stdio: 'inherit' });
  memviz = join(ROOT, 'target/debug/memviz');
});

/** The summary numbers the page should show for `name`'s device 0. */
function want(name, timeline) {
  const ref = expected(name);
  assert.ok(ref, `tests/reference/expected/${name}.json missing`);
  const dev = ref.summary.devices['0'];
  const tl = dev[timeline];
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

test('memviz html: one file, opened from file:// with every other request blocked, draws its snapshot', async (t) => {
  const out = join(OUT, 'share-ctx128.html');
  const said = execFileSync(memviz, ['html', join(SNAPSHOTS, BIG), '-o', out], { encoding: 'utf8' });
  assert.match(said, /share-ctx128\.html: .*viewer:/);
  const size = statSync(out).size;
  const viewerSize = statSync(join(DIST, 'memviz-standalone.html')).size;
  // gzip+base64 of a 3.2 MB pickle: a few hundred KB on top of the viewer.
  assert.ok(size > viewerSize + 100_000 && size < viewerSize + 1_500_000, `html ${size} bytes, viewer ${viewerSize}`);

  const url = pathToFileURL(out).href;
  const { page, context, requests, blocked, errors } = await newPage(browser, (u) => u === url);
  const seen = [];
  page.on('request', (r) => seen.push(r.url()));
  const t0 = Date.now();
  await page.goto(url);
  await waitOpened(page, BIG); // at load: no drop, no click
  t.diagnostic(`memviz html ${BIG}: ${size} bytes (viewer ${viewerSize}), load to drawn ${Date.now() - t0} ms`);
  assert.deepEqual(await shownSummary(page), want(BIG, 'active_memory'));
  assert.equal(await page.title(), `${BIG} · memviz`);
  assert.ok(await inked(page) > 100_000, 'timeline drawn');
  assert.ok(Number(await page.getAttribute('#plot', 'data-bands-drawn')) > 500);
  assert.deepEqual([...new Set([...seen, ...requests])].filter((u) => u !== url), [], 'no request but the page');
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await page.screenshot({ path: join(OUT, 'share-html.png') });
  await context.close();
});

/**
 * What torch.cuda._memory_viz._format_viz writes (its template, verbatim
 * but for the import URL): the snapshot pickled again, padded with NUL
 * bytes to a multiple of 3, base64 in a JSON list, and the view's repr().
 */
function tracePlotPage(snapshotPath, moduleUrl, view) {
  const py = String.raw`
import base64, json, pickle, sys
src, module, view = sys.argv[1:4]
template = r"""
<!DOCTYPE html>
<html>
<head>
</head>
<body>
<script type="module">
import {add_local_files} from "$MODULE"
const local_files = $SNAPSHOT
add_local_files(local_files, $VIZ_KIND)
</script>
</body>
"""
data = pickle.load(open(src, 'rb'))
buffer = pickle.dumps(data)
buffer += b'\x00' * (3 - len(buffer) % 3)
encoded_buffer = base64.b64encode(buffer).decode('utf-8')
json_format = json.dumps([{"name": 'snapshot.pickle', "base64": encoded_buffer}])
sys.stdout.write(template.replace('$MODULE', module).replace('$VIZ_KIND', repr(view)).replace('$SNAPSHOT', json_format))
`;
  return execFileSync('python3', ['-c', py, snapshotPath, moduleUrl, view], { encoding: 'utf8', maxBuffer: 1 << 28 });
}

/**
 * The viewer's iframe in `page` once it shows `url` (the mirror's page).
 * The iframe element comes before its frame has navigated there: looked up
 * at once, the frame was sometimes still about:blank (a CI run failed so).
 */
async function viewerFrame(page, url) {
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await frame.waitForURL(url);
  return frame;
}

async function openTracePlot(name, view) {
  const file = join(OUT, `trace_plot-${name}.html`);
  writeFileSync(file, tracePlotPage(join(SNAPSHOTS, name), `${origin}/MemoryViz.js`, view));
  const url = pathToFileURL(file).href;
  const p = await newPage(browser, (u) => u === url || u.startsWith(origin + '/'));
  await p.page.goto(url);
  // The viewer iframe comes from the mirror.
  const frame = await viewerFrame(p.page, (u) => u.href.startsWith(origin + '/'));
  await waitOpened(frame, 'snapshot.pickle');
  return { ...p, frame };
}

test('a trace_plot page pointed at the self-hosted MemoryViz.js shows the snapshot', async () => {
  const { page, frame, context, requests, blocked, errors } = await openTracePlot(BIG, 'Active Memory Timeline');
  assert.deepEqual(await shownSummary(frame), want(BIG, 'active_memory'));
  assert.equal(await frame.$eval('#view-select', (s) => s.selectedOptions[0].textContent), 'Active Memory Timeline');
  assert.ok(await inked(frame) > 100_000, 'timeline drawn');
  // The iframe fills the window.
  const box = await page.$eval('iframe', (f) => [f.clientWidth, f.clientHeight]);
  assert.deepEqual(box, [1400, 900]);
  assert.deepEqual(blocked, []);
  assert.ok(requests.every((u) => u.startsWith('file:') || u.startsWith(origin + '/')), requests.join('\n'));
  assert.deepEqual(errors, []);
  await page.screenshot({ path: join(OUT, 'share-trace-plot.png') });
  await context.close();

  // trace_plot --segments asks for 'Active Cached Memory Timeline': memviz's
  // Active Cached Segment Timeline.
  const s = await openTracePlot(SMALL, 'Active Cached Memory Timeline');
  await s.frame.waitForFunction(() => document.querySelector('#view-select').selectedOptions[0]?.textContent === 'Active Cached Segment Timeline');
  await s.frame.waitForFunction(() => document.querySelector('#summary [data-k="timeline.elements"]')?.textContent.includes('segments'));
  assert.deepEqual(await shownSummary(s.frame), want(SMALL, 'segment_memory'));
  assert.deepEqual(s.errors, []);
  await s.context.close();
});

test('MemoryViz.js add_remote_files: the host page fetches, the viewer shows', async () => {
  writeFileSync(join(RUNS, SMALL), readFileSync(join(SNAPSHOTS, SMALL)));
  writeFileSync(join(RUNS, 'remote.html'), `<!DOCTYPE html><html><body><script type="module">
import {add_remote_files} from "/MemoryViz.js"
add_remote_files([{name: "remote.pickle", url: "${SMALL}"}])
</script></body></html>`);
  const { page, context, blocked, errors } = await newPage(browser, (u) => u.startsWith(origin + '/'));
  await page.goto(`${origin}/runs/remote.html`);
  const frame = await viewerFrame(page, `${origin}/index.html`);
  await waitOpened(frame, 'remote.pickle');
  assert.deepEqual(await shownSummary(frame), want(SMALL, 'active_memory'));
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('index.html#file= opens a file beside the page; other origins and absolute paths are refused', async () => {
  writeFileSync(join(RUNS, BIG), readFileSync(join(SNAPSHOTS, BIG)));
  const { page, context, requests, blocked, errors } = await newPage(browser, (u) => u.startsWith(origin + '/'));
  await page.goto(`${origin}/index.html#file=runs/${BIG}`);
  await waitOpened(page, BIG);
  assert.deepEqual(await shownSummary(page), want(BIG, 'active_memory'));
  // The file comes by the hash: the idle page did not write memory ahead for one.
  await page.waitForFunction(() => document.body.dataset.warm === '1', null, { timeout: 30000 });
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => document.body.dataset.aheadWritten), undefined);
  assert.ok(await inked(page) > 100_000, 'timeline drawn');
  assert.ok(requests.includes(`${origin}/runs/${BIG}`));
  // Once loaded the page may connect nowhere, its own server included.
  const after = await page.evaluate(async (u) => {
    try { await fetch(u); return 'fetched'; } catch (e) { return 'refused'; }
  }, `${origin}/runs/${BIG}`);
  assert.equal(after, 'refused');
  assert.deepEqual(blocked, []);
  assert.deepEqual(errors.filter((e) => !e.includes('Content Security Policy')), []);
  await page.screenshot({ path: join(OUT, 'share-hash.png') });

  // Not relative, or not there: a clear message, and no request made.
  for (const [hash, msg] of [
    ['file=https://example.com/a.pickle', 'only a path relative to this page'],
    ['file=//example.com/a.pickle', 'only a path relative to this page'],
    ['file=/runs/x.pickle', 'only a path relative to this page'],
    ['file=runs/missing.pickle', '404'],
  ]) {
    const before = requests.length;
    await page.goto(`${origin}/index.html#${hash}`);
    await page.reload(); // a new hash alone does not load the page again
    await page.waitForFunction(() => document.body.dataset.shareDone === '1');
    const text = await page.textContent('#errors');
    assert.ok(text.includes(msg), `${hash}: ${text}`);
    assert.ok(requests.slice(before).every((u) => u.startsWith(origin + '/')), requests.slice(before).join('\n'));
    assert.equal(await page.$$eval('#file-select option', (o) => o.length), 0);
  }
  assert.deepEqual(blocked, []);
  await context.close();
});
