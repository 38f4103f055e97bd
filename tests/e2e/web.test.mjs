// Browser tests of the release page (dist/, built by scripts/build-web.sh):
// real snapshots from ../shared/snapshots dropped onto the page in Debian's
// chromium, checked against tests/reference/expected/*.json (numbers from an
// independent Python re-implementation of memory_viz).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, copyFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import {
  ROOT, DIST, useBrowser, origin, browser, waitReady, openPage, newPage, dropFiles, snapshot, expected, waitOpened, shownSummary, redrawNow,
} from './helpers.mjs';

const BIG = 'transformer_fullstep_ctx128.pickle';
const OUT = join(ROOT, 'tests/e2e/out');
mkdirSync(OUT, { recursive: true });

useBrowser();

async function dropAndWait(page, name) {
  await dropFiles(page, [[name, snapshot(name)]]);
  await waitOpened(page, name);
}

/** Pixels of the plot canvas that are not the white background. */
async function inkedPixels(page) {
  return page.evaluate(() => {
    const c = document.getElementById('plot');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) n++;
    return n;
  });
}

async function pixelAt(page, x, y) {
  return page.evaluate(([x, y]) => {
    const c = document.getElementById('plot');
    const dpr = window.devicePixelRatio;
    return Array.from(c.getContext('2d').getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data);
  }, [x, y]);
}

/**
 * Shows steps around `elem`'s life and returns CSS coordinates (relative to
 * the plot canvas) inside its band, found by the viewer's own hit test.
 */
async function bandPoint(page, elem, from, to) {
  await page.evaluate(([a, b]) => window.memviz.command({ cmd: 'set_window', x0: a, x1: b }), [from, to]);
  await redrawNow(page);
  const xy = await page.evaluate((e) => (window.memviz.viewer.command({ cmd: 'locate', element: e }).point ?? []), elem);
  assert.equal(xy.length, 2, `element ${elem} not drawn in steps ${from}..${to}`);
  return xy;
}

async function plotBox(page) {
  return page.locator('#plot').boundingBox();
}

test('the page loads only its own files and then forbids every connection', async () => {
  const { page, context, requests, blocked, errors } = await openPage();
  assert.deepEqual(blocked, []);
  const own = new Set(requests.map((u) => new URL(u).pathname));
  for (const p of own) assert.match(p, /^\/(|index\.html|main\.js|app\.js|announce\.js|views\.js|moment\.js|icicle\.js|explain\.js|card\.js|bind\.js|whatif\.js|profiler\.js|phases\.js|share\.js|ranks\.js|boot\.js|decode-worker\.js|style-[0-9a-f]+\.css|views-[0-9a-f]+\.css|memviz-wasm-[0-9a-f]+(_bg\.wasm|\.js))$/);
  assert.ok([...own].some((p) => p.endsWith('.wasm')), 'wasm loaded');
  // After load the page's CSP has connect-src 'none': even its own origin is refused.
  const fetched = await page.evaluate(() => fetch('index.html').then(() => 'fetched', (e) => 'refused: ' + e));
  assert.match(fetched, /^refused/);
  assert.match(await page.textContent('header'), /Nothing leaves your browser/);
  assert.deepEqual(errors.filter((e) => !/Content Security Policy|Failed to fetch|connect-src/.test(e)), []);
  // The idle warm-up (app.js) ran every round: one that throws (a wasm
  // call's arguments out of date) leaves the code cold for the first file.
  await page.waitForFunction(() => document.body.dataset.warm === '1', null, { timeout: 60000 });
  const warm = await page.evaluate(() => ({ ...document.body.dataset }));
  assert.equal(warm.warmError, undefined, 'the warm-up failed');
  assert.equal(warm.warmRounds, '40', 'every warm-up round ran');
  // The plot's canvases were handed to the compositor ahead (warmCanvases)
  // with nothing in them: every pixel transparent.
  const inked = await page.evaluate(() => ['plot', 'plot-select', 'axes', 'minimap'].map((id) => {
    const c = document.getElementById(id);
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < px.length; i += 4) n += px[i] !== 0;
    return `${id} ${c.width}x${c.height}: ${n} inked`;
  }));
  for (const line of inked) assert.match(line, /^\S+ ([2-9]\d|\d{3,})x\d+: 0 inked$/, line);
  await context.close();
});

test(`dropping ${BIG}: bands drawn, the core's numbers shown, hover, pin, detail, bad file, screenshots`, async () => {
  const ref = expected(BIG);
  assert.ok(ref, `tests/reference/expected/${BIG}.json missing`);
  const dev = ref.summary.devices['0'];
  const { page, context, requests, blocked, errors } = await openPage();
  const t0 = Date.now();
  await dropAndWait(page, BIG);
  const dropToPaint = Date.now() - t0;

  // Summary numbers equal the reference (Active Memory Timeline first).
  let s = await shownSummary(page);
  const want = (tl) => ({
    trace_events: dev.trace_events, segments: dev.segments, reserved_bytes: dev.reserved_bytes,
    allocated_bytes: dev.allocated_bytes, 'timeline.elements': tl.elements, 'timeline.peak_bytes': tl.peak_bytes,
    'timeline.start_bytes': tl.start_bytes, 'timeline.end_bytes': tl.end_bytes,
  });
  assert.deepEqual(s, want(dev.active_memory));
  assert.equal(await page.$eval('#detail-label', (e) => e.textContent), `${dev.active_memory.elements} of ${dev.active_memory.elements}`);

  // Bands are drawn: many non-background pixels, and the plot is bands
  // where the start total is and background above the peak.
  const allBands = await redrawNow(page);
  assert.ok(allBands > 500, `bands drawn: ${allBands}`);
  assert.ok(await inkedPixels(page) > 100000);
  const box = await plotBox(page);
  const hover = ref.hover['0'].elements[0];

  // Hover the largest allocation: its address and first frame show.
  const [hx, hy] = await bandPoint(page, hover.elem, hover.alloc_step - 30, (hover.free_step ?? hover.alloc_step) + 30);
  const px = await pixelAt(page, hx, hy);
  assert.notDeepEqual(px, [255, 255, 255, 255], 'the hovered band is painted');
  await page.mouse.move(box.x + hx, box.y + hy);
  await page.waitForFunction((a) => document.getElementById('context').textContent.includes(a), hover.addr);
  const text = await page.textContent('#context');
  assert.ok(text.includes(`Addr: ${hover.addr}`), text.slice(0, 300));
  assert.ok(text.includes(`Size: `) && text.includes(`(${hover.size} bytes)`), text.slice(0, 300));
  assert.ok(hover.first_frame, 'the reference names a first frame');
  assert.ok(text.includes(hover.first_frame), 'first frame shown');
  // The hovered band is outlined on the overlay above the bands (black
  // pixels around the pointer; transparent elsewhere), and the bands are
  // not drawn again for a hover.
  await page.waitForFunction(() => window.memviz.viewer && document.getElementById('plot-select').getContext('2d')
    .getImageData(0, 0, 2000, 2000).data.some((v, i) => i % 4 === 3 && v === 255));
  const outline = await page.evaluate(() => {
    const c = document.getElementById('plot-select');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0, other = 0, x0 = Infinity, x1 = -1, y0 = Infinity, y1 = -1;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] === 0) continue;
      if (d[i] === 0 && d[i + 1] === 0 && d[i + 2] === 0 && d[i + 3] === 255) n++; else other++;
      const p = i / 4, x = p % c.width, y = Math.floor(p / c.width);
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
    const r = devicePixelRatio; // to CSS pixels, as the pointer's
    return { n, other, x0: x0 / r, x1: (x1 + 1) / r, y0: y0 / r, y1: (y1 + 1) / r };
  });
  assert.ok(outline.n > 20 && outline.other === 0, `outline pixels: ${JSON.stringify(outline)}`);
  assert.ok(outline.x0 <= hx && hx <= outline.x1 && outline.y0 <= hy && hy <= outline.y1, `the outline surrounds the pointer: ${JSON.stringify(outline)} at ${hx},${hy}`);
  assert.deepEqual(await pixelAt(page, hx, hy), px, 'the bands under the outline are as they were');
  // Click pins it; hovering empty space (above the bands) keeps it shown.
  await page.mouse.click(box.x + hx, box.y + hy);
  await page.mouse.move(box.x + hx, box.y + 20);
  await page.waitForTimeout(100);
  assert.equal(await page.evaluate(([x, y]) => window.memviz.viewer.command({ cmd: 'hit_at', x, y }).value, [hx, 20]), -1, 'empty space above the bands');
  assert.ok((await page.textContent('#context')).includes(hover.addr), 'pinned text stays');

  // Screenshot of the Active Memory Timeline over the whole trace, pinned band shown.
  await page.click('#reset-zoom');
  await redrawNow(page);
  await page.screenshot({ path: join(OUT, 'screenshot-active-memory.png'), fullPage: true });

  // Detail slider: 10 bands at most, the rest summarized; redraws at once.
  await page.$eval('#detail', (el) => { el.value = 10; el.dispatchEvent(new Event('input')); });
  const tenBands = await redrawNow(page);
  assert.ok(tenBands <= 10 && tenBands >= 1, `bands drawn at detail 10: ${tenBands}`);
  assert.equal(await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).drawn), 10);
  assert.equal(await page.$eval('#detail-label', (e) => e.textContent), `10 of ${dev.active_memory.elements}`);
  await page.$eval('#detail', (el) => { el.value = el.max; el.dispatchEvent(new Event('input')); });
  assert.equal(await redrawNow(page), allBands);

  // Zoom with the wheel and pan by dragging change the window; the y axis fits it.
  const win = () => page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).window);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -600);
  await redrawNow(page);
  const [z0, z1] = await win();
  assert.ok(z1 - z0 < 12665 * 0.6, `zoomed in: ${z0}..${z1}`);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 200, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await redrawNow(page);
  const [p0, p1] = await win();
  assert.ok(p0 < z0 && Math.abs((p1 - p0) - (z1 - z0)) < 1e-6, `panned left: ${p0}..${p1}`);

  // Each redraw (pan step by step, every allocation drawn) leaves its
  // performance measure; how long they take is benches/browser's to say.
  const redraws = await page.evaluate(async () => {
    const v = window.memviz.viewer;
    const out = [];
    for (let i = 0; i < 20; i++) {
      v.command({ cmd: 'pan', dx: i % 2 ? 15 : -25 });
      window.memviz.redraw();
      await new Promise((r) => requestAnimationFrame(() => r()));
      out.push(window.__memvizPerf('memviz:redraw').pop().duration);
    }
    return out;
  });
  const marks = await page.evaluate(() => ['memviz:file-received', 'memviz:decoded', 'memviz:first-paint']
    .map((m) => window.__memvizPerf(m).length));
  assert.deepEqual(marks.map((n) => n > 0), [true, true, true], 'performance marks');
  assert.match(await page.textContent('#timings'), /first paint .* ms/);
  assert.equal(redraws.length, 20);
  assert.ok(redraws.every((d) => Number.isFinite(d) && d >= 0), JSON.stringify(redraws));
  redraws.sort((a, b) => a - b);
  const median = redraws[redraws.length >> 1]; // printed below, for the record

  // The segment view: its numbers equal the reference's segment timeline.
  await page.selectOption('#view-select', { label: 'Active Cached Segment Timeline' });
  await redrawNow(page);
  s = await shownSummary(page);
  assert.deepEqual(s, want(dev.segment_memory));
  assert.ok(await inkedPixels(page) > 100000);
  // Hover the largest segment: its text (s-prefixed address) shows.
  const seg = await page.evaluate(() => (window.memviz.viewer.command({ cmd: 'get' }).largest ?? -1));
  const sxy = await page.evaluate((e) => (window.memviz.viewer.command({ cmd: 'locate', element: e }).point ?? []), seg);
  assert.equal(sxy.length, 2, 'largest segment drawn');
  await page.mouse.move(box.x + sxy[0], box.y + sxy[1]);
  await page.waitForFunction((e) => document.getElementById('context').textContent.startsWith(`${e} Addr: s`), seg);
  await redrawNow(page);
  await page.screenshot({ path: join(OUT, 'screenshot-segments.png'), fullPage: true });
  await page.selectOption('#view-select', { label: 'Active Memory Timeline' });

  // A file that is no snapshot: a clear error naming it; the open one stays.
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), zlib.deflateSync(Buffer.alloc(64))]);
  await dropFiles(page, [['not-a-snapshot.png', png]]);
  await page.waitForSelector('#errors .error');
  const err = await page.textContent('#errors');
  assert.match(err, /not-a-snapshot\.png/);
  assert.match(err, /byte offset \d+/);
  assert.equal(await page.$eval('#file-select', (e) => e.selectedOptions[0].textContent), BIG);
  assert.equal(await page.$eval('#file-select', (e) => e.options.length), 1);
  assert.equal((await shownSummary(page)).trace_events, dev.trace_events);
  assert.ok(await inkedPixels(page) > 100000, 'still drawn');

  const timings = { drop_to_first_paint_ms: dropToPaint, redraw_median_ms: median, redraw_max_ms: redraws.at(-1),
    page_timings: await page.textContent('#timings') };
  writeFileSync(join(OUT, 'timings.json'), JSON.stringify(timings, null, 2));
  console.log('# timings', JSON.stringify(timings));
  assert.deepEqual(blocked, []);
  assert.ok(requests.every((u) => u.startsWith(origin + '/')));
  assert.deepEqual(errors.filter((e) => !/Content Security Policy|connect-src/.test(e)), []);
  await context.close();
  if (process.env.MEMVIZ_SCREENSHOTS) {
    for (const f of ['screenshot-active-memory.png', 'screenshot-segments.png']) copyFileSync(join(OUT, f), join(ROOT, 'docs', f));
  }
});

test('several snapshots at once, switching between them and between devices', async () => {
  const { page, context } = await openPage();
  const a = 'small_train_step.pickle', b = 'two_devices_state_only.pickle';
  await dropFiles(page, [[b, snapshot(b)], [a, snapshot(a)]]);
  // Several at once are read in rank order, then by name (www/ranks.js);
  // the first is shown.
  await waitOpened(page, a);
  assert.deepEqual(await page.$$eval('#file-select option', (o) => o.map((x) => x.textContent)), [a, b]);
  await page.selectOption('#file-select', { label: b });
  // two_devices_state_only: memory_viz's device list and numbers per device.
  const ref = expected(b);
  const devs = Object.keys(ref.summary.devices);
  assert.deepEqual(await page.$$eval('#device-select option', (o) => o.map((x) => x.value)), devs);
  for (const d of devs) {
    await page.selectOption('#device-select', d);
    const s = await shownSummary(page);
    assert.equal(s.segments, ref.summary.devices[d].segments, `device ${d}`);
    assert.equal(s['timeline.peak_bytes'], ref.summary.devices[d].active_memory.peak_bytes, `device ${d}`);
  }
  await page.selectOption('#file-select', { label: a });
  const s = await shownSummary(page);
  assert.equal(s.trace_events, expected(a).summary.devices['0'].trace_events);
  await redrawNow(page); // the switch draws in the next frame: read its pixels, not the last file's
  assert.ok(await inkedPixels(page) > 1000);
  await context.close();
});

test('expandable segments recorded for real: the segment timeline starts and ends where Python says', async () => {
  const { page, context, errors } = await openPage();
  const name = 'expandable_segments_map_unmap.pickle';
  const ref = expected(name);
  assert.ok(ref, `tests/reference/expected/${name}.json is missing: run tests/reference/regenerate.sh`);
  await dropAndWait(page, name);
  await page.selectOption('#view-select', '1');
  await redrawNow(page);
  const s = await shownSummary(page);
  const want = ref.summary.devices['0'].segment_memory;
  assert.equal(s['timeline.start_bytes'], want.start_bytes);
  assert.equal(s['timeline.peak_bytes'], want.peak_bytes);
  assert.equal(s['timeline.end_bytes'], want.end_bytes);
  assert.equal(s['timeline.end_bytes'], ref.summary.devices['0'].reserved_bytes, 'ends at the dump');
  assert.equal(s['timeline.elements'], want.elements);
  assert.ok(await inkedPixels(page) > 100000);
  // A piece mapped in the trace: its hover names a segment address and the map's stack.
  const elem = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).elements - 1);
  const [x, y] = await bandPoint(page, elem, 0, want.actions);
  const box = await plotBox(page);
  await page.mouse.move(box.x + x, box.y + y);
  await page.waitForFunction(() => /Addr: s[0-9a-f]+_\d+/.test(document.querySelector('#context').textContent));
  assert.match(await page.textContent('#context'), /memory_leaks_demo\.py/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the canvas is sized to devicePixelRatio', async () => {
  const { page, context } = await openPage({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: 2 });
  await dropAndWait(page, 'small_train_step.pickle');
  await redrawNow(page);
  const [cw, w] = await page.$eval('#plot', (c) => [c.clientWidth, c.width]);
  assert.equal(w, cw * 2);
  assert.ok(await inkedPixels(page) > 1000);
  await context.close();
});

test('the standalone file runs from file:// and opens the built-in example', async () => {
  const url = pathToFileURL(join(DIST, 'memviz-standalone.html')).href;
  const { page, context, requests, errors } = await newPage(browser, (u) => u === url);
  const seen = [];
  page.on('request', (r) => seen.push(r.url()));
  await page.goto(url);
  await waitReady(page);
  await page.click('#example');
  await waitOpened(page, 'resnet50_no_zero_grad.pickle.gz');
  // The example is this real recording (crates/memviz-wasm/example/README.md):
  // its numbers as Python's pickle module reads them.
  const dev = JSON.parse(execFileSync('python3', [join(ROOT, 'tests/reference/memviz_reference.py'), 'summary',
    join(ROOT, '../shared/recordings/resnet50_no_zero_grad.pickle')])).devices['0'];
  const s = await shownSummary(page);
  assert.equal(s.trace_events, dev.trace_events);
  assert.equal(s['timeline.elements'], dev.active_memory.elements);
  assert.equal(s['timeline.peak_bytes'], dev.active_memory.peak_bytes);
  assert.ok(await redrawNow(page) > 20);
  assert.ok(await inkedPixels(page) > 50000);
  assert.deepEqual([...new Set([...seen, ...requests])].filter((u) => u !== url), []);
  assert.deepEqual(errors, []);
  await page.screenshot({ path: join(OUT, 'standalone-example.png'), fullPage: true });
  await context.close();
});

test('a generated 2-device, 200k-event snapshot picked with the file button: progress, numbers, minimap brush', async () => {
  // Written by ../shared/tools/gen_snapshot.py, checked by the independent
  // Python reference (tests/reference/memviz_reference.py).
  const file = join(OUT, 'gen200k.pickle');
  execFileSync('python3', [join(ROOT, '../shared/tools/gen_snapshot.py'), file, '--events', '200000', '--devices', '2', '--seed', '7']);
  const ref = JSON.parse(execFileSync('python3', [join(ROOT, 'tests/reference/memviz_reference.py'), 'summary', file], { maxBuffer: 1 << 26 }));
  const { page, context, blocked } = await openPage();
  await page.evaluate(() => {
    window.sawProgress = false;
    new MutationObserver(() => { if (!document.getElementById('progress-box').hidden) window.sawProgress = true; })
      .observe(document.getElementById('progress-box'), { attributes: true, subtree: true, characterData: true, childList: true });
  });
  await page.setInputFiles('#file-input', file);
  await waitOpened(page, 'gen200k.pickle');
  assert.ok(await page.evaluate(() => window.sawProgress), 'progress shown while reading');
  assert.ok(await page.$eval('#progress-box', (e) => e.hidden), 'progress gone after');
  for (const d of Object.keys(ref.summary?.devices ?? ref.devices)) {
    const want = (ref.summary ?? ref).devices[d];
    await page.selectOption('#device-select', d);
    const s = await shownSummary(page);
    assert.equal(s.trace_events, want.trace_events, `device ${d}`);
    assert.equal(s['timeline.elements'], want.active_memory.elements, `device ${d}`);
    assert.equal(s['timeline.peak_bytes'], want.active_memory.peak_bytes, `device ${d}`);
    assert.equal(s['timeline.end_bytes'], want.active_memory.end_bytes, `device ${d}`);
    assert.equal(s.reserved_bytes, want.reserved_bytes, `device ${d}`);
  }
  // Dragging across the middle fifth of the minimap shows that window.
  await redrawNow(page);
  const n = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).steps);
  const mini = await page.locator('#minimap').boundingBox();
  await page.mouse.move(mini.x + mini.width * 0.4, mini.y + mini.height / 2);
  await page.mouse.down();
  await page.mouse.move(mini.x + mini.width * 0.6, mini.y + mini.height / 2, { steps: 4 });
  await page.mouse.up();
  await redrawNow(page);
  const [a, b] = await page.evaluate(() => window.memviz.viewer.command({ cmd: 'get' }).window);
  assert.ok(Math.abs(a - 0.4 * n) < n * 0.01 && Math.abs(b - 0.6 * n) < n * 0.01, `window ${a}..${b} of ${n}`);
  assert.ok(await inkedPixels(page) > 50000);
  assert.deepEqual(blocked, []);
  await context.close();
});

test('every real snapshot opens with the reference numbers in both views', async () => {
  const { page, context, errors } = await openPage();
  const names = readdirSync(join(ROOT, '../shared/snapshots')).filter((f) => f !== 'README.md' && f !== BIG).sort();
  assert.ok(names.length >= 7);
  assert.ok(names.includes('llm_inference_no_timestamps.pickle'), 'the free-without-alloc check below runs');
  for (const name of names) {
    await dropAndWait(page, name);
    const ref = expected(name);
    assert.ok(ref, `tests/reference/expected/${name}.json`);
    const dev = await page.$eval('#device-select', (e) => e.value);
    const want = ref.summary.devices[dev];
    for (const [view, tl] of [['Active Memory Timeline', want.active_memory], ['Active Cached Segment Timeline', want.segment_memory]]) {
      await page.selectOption('#view-select', { label: view });
      const s = await shownSummary(page);
      assert.deepEqual(
        [s.trace_events, s.segments, s['timeline.elements'], s['timeline.start_bytes'], s['timeline.peak_bytes'], s['timeline.end_bytes']],
        [want.trace_events, want.segments, tl.elements, tl.start_bytes, tl.peak_bytes, tl.end_bytes], `${name} ${view}`);
      const drawn = await redrawNow(page);
      if (tl.elements > 0) assert.ok(drawn > 0 && await inkedPixels(page) > 1000, `${name} ${view}: drawn`);
      else assert.equal(drawn, 0, `${name} ${view}: no elements, no bands`);
    }
    await page.selectOption('#view-select', { label: 'Active Memory Timeline' });
    if (name === 'llm_inference_no_timestamps.pickle') {
      // Its one free_completed without an alloc: drawn from the start, with
      // the free's stack; and no timestamps anywhere (no time_us recorded).
      const texts = await page.evaluate(() => {
        const v = window.memviz.viewer;
        return Array.from({ length: v.command({ cmd: 'get' }).elements }, (_, i) => v.command({ cmd: 'element', element: i }).text);
      });
      assert.equal(texts.filter((t) => t.includes('alloc not recorded, stack trace for free:')).length, 1);
      assert.ok(texts.every((t) => !t.includes('timestamp')));
    }
  }
  assert.equal(await page.$eval('#file-select', (e) => e.options.length), names.length);
  assert.equal(await page.$eval('#errors', (e) => e.textContent), '');
  assert.deepEqual(errors.filter((e) => !/Content Security Policy|connect-src/.test(e)), []);
  await context.close();
});
