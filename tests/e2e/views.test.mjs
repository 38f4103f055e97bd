// Browser tests of the views beyond the timelines (issue 4): Allocator State
// History (virtualized event list + segment map), Allocated Memory (incl.
// Private Pools), Allocator Settings, search, and the jumps between the
// timeline and the state history. Real snapshots from ../shared/snapshots
// and generated ones (gen_snapshot.py, tests/reference/gen_private_pool.py)
// dropped onto the release page (dist/) in Debian's chromium; numbers checked
// against tests/reference/expected/*.json (an independent Python
// re-implementation) or against values the test computes itself.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { ROOT, SNAPSHOTS, useBrowser, openPage, dropFiles, snapshot, expected, waitOpened, viewerQuery } from './helpers.mjs';

const BIG = 'transformer_fullstep_ctx128.pickle';
const OUT = join(ROOT, 'tests/e2e/out');
mkdirSync(OUT, { recursive: true });
const TMP = mkdtempSync(join(tmpdir(), 'memviz-views-'));

useBrowser();
after(async () => {
  rmSync(TMP, { recursive: true, force: true });
});

async function dropAndWait(page, name, bytes) {
  await dropFiles(page, [[name, bytes ?? snapshot(name)]]);
  await waitOpened(page, name);
}

/** memory_viz's formatSize with the byte count: 1.5MiB (1572864 bytes). */
function fmt(n) {
  const units = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'Zi'];
  let v = n;
  let k = 0;
  while (k < units.length - 1 && n >= 2 ** (10 * (k + 1))) k++;
  v = n / 2 ** (10 * k);
  return `${v.toFixed(1)}${units[k]}B (${n} bytes)`;
}

async function setView(page, name) {
  const i = await page.evaluate((n) => window.memviz.viewer.command({ cmd: 'get' }).views.findIndex((c) => c.name === n), name);
  assert.ok(i >= 0, `no view ${name}`);
  await page.selectOption('#view-select', String(i));
  await page.waitForFunction((i) => ((p) => p.views.findIndex((c) => c.id === p.view))(window.memviz.viewer.command({ cmd: 'get' })) === i, Number(i)); // a long build shows the view frames later
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
}

const viewer = (page, f, arg) => viewerQuery(page, f, arg);
const selected = (page) => viewer(page, 'state_selected');
const selectedRow = (page) => page.textContent('#event-rows div.sel');

/** Non-white pixels of a canvas, and those of exactly `rgb`. */
async function pixels(page, id, rgb) {
  return page.evaluate(([id, rgb]) => {
    const c = document.getElementById(id);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    let match = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] && (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250)) ink++;
      if (rgb && d[i] === rgb[0] && d[i + 1] === rgb[1] && d[i + 2] === rgb[2]) match++;
    }
    return { ink, match };
  }, [id, rgb]);
}

function python(code, ...args) {
  return execFileSync('python3', ['-c', code, ...args], { encoding: 'utf8' });
}

test('state history: list, selection keys and totals of ctx128 against the reference', async () => {
  const exp = expected(BIG);
  const n = exp.summary.devices['0'].trace_events;
  const { page, errors } = await openPage();
  await dropAndWait(page, BIG);
  await setView(page, 'Allocator State History');
  assert.equal(await viewer(page, 'view_kind'), 'state');
  assert.equal(await viewer(page, 'state_len'), n);
  // memory_viz starts on the last event.
  assert.equal(await selected(page), n - 1);
  // Virtualized: a few dozen row nodes for 19,342 events.
  const nodes = await page.$$eval('#event-rows div', (d) => d.length);
  assert.ok(nodes > 10 && nodes < 100, `${nodes} row nodes`);

  await page.focus('#event-list');
  for (const st of exp.states) {
    if (st.event === 0) await page.keyboard.press('Home');
    else if (st.event === n - 1) await page.keyboard.press('End');
    else await page.evaluate((i) => window.memviz.views.select(i), st.event);
    assert.equal(await selected(page), st.event);
    // The numbers shown above the map: the reference's, formatted.
    assert.equal(await page.textContent('#state-totals'),
      `${fmt(st.allocated_bytes)} allocated / ${fmt(st.reserved_bytes)} reserved`);
    const js = JSON.parse(await viewer(page, 'state_json'));
    assert.deepEqual([js.segments, js.blocks, js.pending_free_blocks], [st.segments, st.blocks, st.pending_free_blocks]);
    // The selected row is that event's line (a free_requested merged with
    // its free_completed reads `free`, as in memory_viz).
    const row = await selectedRow(page);
    assert.ok(row.startsWith(`${st.event}  `), row);
    const action = row.slice(`${st.event}  `.length).trim().split(/\s+/)[0];
    assert.ok(action === st.action || (st.action === 'free_requested' && action === 'free') ||
      (st.action === 'free_completed' && action === '└'), `${action} vs ${st.action}`);
    // Fragmentation line: the core's numbers; free bytes are reserved minus
    // the blocks' sizes, so never more than reserved - allocated.
    assert.equal(await page.textContent('#state-frag'),
      `Largest free block ${fmt(js.largest_free_bytes)}; ${fmt(js.free_bytes)} free in ${js.free_pieces} piece${js.free_pieces === 1 ? '' : 's'}`);
    assert.ok(js.free_bytes <= st.reserved_bytes - st.allocated_bytes + 0 && js.largest_free_bytes <= js.free_bytes);
    // The map is drawn.
    assert.ok((await pixels(page, 'segment-map')).ink > 2000);
  }

  // Keys: Home, ArrowDown, ArrowUp, PageDown, End.
  await page.keyboard.press('Home');
  assert.equal(await selected(page), 0);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await selected(page), 2);
  await page.keyboard.press('ArrowUp');
  assert.equal(await selected(page), 1);
  await page.keyboard.press('PageDown');
  const paged = await selected(page);
  assert.ok(paged > 10, `PageDown went to ${paged}`);
  assert.ok((await selectedRow(page)).startsWith(`${paged}  `), 'selected row visible after PageDown');
  await page.keyboard.press('PageUp');
  assert.equal(await selected(page), 1);
  await page.keyboard.press('End');
  assert.equal(await selected(page), n - 1);
  // The list scrolled with the selection: the last rows are shown.
  assert.ok((await selectedRow(page)).startsWith(`${n - 1}  `));
  // Click a row.
  const rowText = await page.textContent('#event-rows div:nth-child(3)');
  await page.click('#event-rows div:nth-child(3)');
  assert.equal(await selected(page), Number(rowText.split(' ')[0]));
  assert.ok(errors.length === 0, errors.join('\n'));
  await page.context().close();
});

test('state history: hovering a segment, a block and an event shows their details', async () => {
  const exp = expected(BIG);
  const { page, errors } = await openPage();
  await dropAndWait(page, BIG);
  await setView(page, 'Allocator State History');
  const n = exp.summary.devices['0'].trace_events;
  await page.evaluate((i) => window.memviz.views.select(i), Math.floor(n / 2));
  // Origin of the canvas's content box (offsetX / offsetY), in page pixels.
  const box = await page.evaluate(() => {
    const c = document.getElementById('segment-map');
    const r = c.getBoundingClientRect();
    return { x: r.left + c.clientLeft, y: r.top + c.clientTop };
  });
  const seg = await viewer(page, 'state_locate', [false]);
  assert.equal(seg.length, 2, 'no free segment part in view');
  await page.mouse.move(box.x + seg[0], box.y + seg[1]);
  const segText = await page.textContent('#context');
  // s<hex>_<v>: segment <size> allocated, <free> free ... (stream N ...)
  assert.match(segText, /^s[0-9a-f]+_\d+: segment \d+\.\dGiB|^s[0-9a-f]+_\d+: segment \d+\.\d[KMG]?i?B \(\d+ bytes\) allocated, \d+\.\d[KMG]?i?B \(\d+ bytes\) free.*\(stream \d+/);
  await page.screenshot({ path: join(OUT, 'state-history-segment.png') });
  const blk = await viewer(page, 'state_locate', [true]);
  assert.equal(blk.length, 2);
  await page.mouse.move(box.x + blk[0], box.y + blk[1]);
  const blkText = await page.textContent('#context');
  assert.match(blkText, /^b[0-9a-f]+_\d+ \d+\.\d[KMG]?i?B \(\d+ bytes\) allocation.* \(stream \d+/);
  // Its stack follows.
  assert.ok(blkText.split('\n').length > 2, blkText);
  // Hover an event row: its line and stack.
  await page.hover('#event-rows div:nth-child(2)');
  const rowText = await page.textContent('#event-rows div:nth-child(2)');
  const ctx = await page.textContent('#context');
  const line = rowText.replace(/^\d+ {2}/, '').split(/\s+/).slice(0, 2).join(' ');
  assert.ok(ctx.replace(/\s+/g, ' ').includes(line), `${ctx.slice(0, 200)} vs ${line}`);
  assert.ok(errors.length === 0, errors.join('\n'));
  if (process.env.MEMVIZ_SCREENSHOTS) {
    await page.mouse.move(box.x + seg[0], box.y + seg[1]);
    await page.screenshot({ path: join(ROOT, 'docs/screenshot-state-history.png') });
  }
  await page.context().close();
});

test('allocator settings: readable keys, or "none recorded"', async () => {
  const keys = JSON.parse(python(
    "import pickle,json,sys; print(json.dumps(list(pickle.load(open(sys.argv[1],'rb'))['allocator_settings'].keys())))",
    join(SNAPSHOTS, 'small_train_step.pickle')));
  assert.ok(keys.length > 3);
  const { page, errors } = await openPage();
  await dropAndWait(page, 'small_train_step.pickle');
  await setView(page, 'Allocator Settings');
  assert.ok(await page.isVisible('#settings'));
  assert.ok(!(await page.isVisible('#plot-box')));
  const text = await page.textContent('#settings');
  for (const k of keys) assert.match(text, new RegExp(`^${k}:`, 'm'), `${k} missing in\n${text}`);
  await dropAndWait(page, 'llm_inference_no_timestamps.pickle');
  await setView(page, 'Allocator Settings');
  assert.equal(await page.textContent('#settings'), 'No allocator settings recorded in this snapshot.');
  assert.ok(errors.length === 0, errors.join('\n'));
  await page.context().close();
});

/** Address and stack text of every element of the current timeline, from
 * the hover texts (not the search code). */
async function elementTexts(page) {
  return page.evaluate(() => {
    const v = window.memviz.viewer;
    const out = [];
    for (let e = 0; e < v.command({ cmd: 'get' }).elements; e++) {
      const t = v.command({ cmd: 'element', element: e }).text;
      const addr = (t.match(/Addr: ([bs][0-9a-f]+_\d+)/) || [])[1] || '';
      out.push([addr, t.split('\n').slice(1).join('\n').toLowerCase()]);
    }
    return out;
  });
}

test('search: by address and by frame text, counts against the hover texts, Enter steps', async () => {
  const exp = expected(BIG);
  const target = exp.hover['0'].elements[0];
  const { page, errors } = await openPage();
  await dropAndWait(page, BIG);
  const texts = await elementTexts(page);
  const red = [0xd6, 0x27, 0x28];
  const redBefore = (await pixels(page, 'plot', red)).match;
  // Address with version: exactly the elements printed with it.
  await page.fill('#search-addr', target.addr);
  await page.waitForFunction(() => document.querySelector('#search-count').dataset.n !== undefined &&
    document.querySelector('#search-count').textContent !== '');
  const want = texts.filter(([a]) => a === target.addr).length;
  assert.ok(want >= 1);
  assert.equal(Number(await page.getAttribute('#search-count', 'data-n')), want);
  assert.ok((await page.$$eval('#search-list li', (l) => l.map((x) => +x.dataset.m))).includes(target.elem));
  // Without version and with 0x and upper case: every version of it.
  const bare = target.addr.slice(1).split('_')[0];
  await page.fill('#search-addr', '0x' + bare.toUpperCase());
  await page.waitForFunction((t) => document.querySelector('#search-count').dataset.n !== t, String(want));
  const wantBare = texts.filter(([a]) => a.includes(bare)).length;
  assert.ok(wantBare >= want);
  await page.waitForFunction((w) => document.querySelector('#search-count').dataset.n === String(w), wantBare);
  // Enter selects the first match, pins it and pans to it; again: the next.
  await page.focus('#search-addr');
  await page.keyboard.press('Enter');
  const ms = await page.$$eval('#search-list li', (l) => l.map((x) => +x.dataset.m));
  assert.equal(await viewer(page, 'pinned_element'), ms[0]);
  const [w0, w1] = [await viewer(page, 'window_start'), await viewer(page, 'window_end')];
  const firstStep = exp.hover['0'].elements.find((e) => e.elem === ms[0])?.alloc_step;
  assert.ok(firstStep !== undefined, `match ${ms[0]} is among the reference's largest elements`);
  assert.ok(w0 <= firstStep && firstStep < w1);
  assert.ok((await page.textContent('#context')).startsWith(`${ms[0]} `));
  // Matches are marked above the plot (red ticks; the current one black).
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  assert.ok((await pixels(page, 'plot', red)).match > redBefore || ms.length === 1);
  if (ms.length > 1) {
    await page.keyboard.press('Enter');
    assert.equal(await viewer(page, 'pinned_element'), ms[1]);
  }
  // Frame text: elements with a shown frame containing it.
  const q = 'malloc';
  await page.fill('#search-frame', q);
  await page.waitForFunction(() => document.querySelector('#search-addr').value === '' &&
    /match/.test(document.querySelector('#search-count').textContent));
  await page.waitForTimeout(300);
  const wantFrame = texts.filter(([, t]) => t.includes(q)).length;
  assert.ok(wantFrame > 0);
  assert.equal(Number(await page.getAttribute('#search-count', 'data-n')), wantFrame);
  assert.equal(await page.evaluate((q) => window.memviz.viewer.command({ cmd: 'search', by: 'frame', text: q }).search.count, q), wantFrame);
  // In the state history the same search lists trace events: those whose
  // line carries the address (counted from the list's own lines).
  await setView(page, 'Allocator State History');
  await page.fill('#search-addr', target.addr);
  await page.waitForFunction(() => /match/.test(document.querySelector('#search-count').textContent));
  await page.waitForTimeout(300);
  const lines = await page.evaluate(() => {
    const v = window.memviz.viewer;
    const p = v.command({ cmd: 'get' });
    return v.command({ cmd: 'state_rows', first: 0, count: p.state.len }).state.rows.map((r) => r.text);
  });
  const wantEv = lines.filter((l) => l.split(/\s+/).includes(target.addr)).length;
  assert.ok(wantEv >= 2, `alloc and free of ${target.addr}: ${wantEv}`);
  assert.equal(Number(await page.getAttribute('#search-count', 'data-n')), wantEv);
  await page.focus('#search-addr');
  await page.keyboard.press('Enter');
  const sel = await selected(page);
  assert.ok(lines[sel].includes(target.addr));
  assert.ok((await selectedRow(page)).includes(target.addr));
  // The other matching rows in view are marked.
  const marked = await page.$$eval('#event-rows div.match', (d) => d.map((x) => x.textContent));
  for (const r of marked) assert.ok(r.includes(target.addr), r);
  assert.ok(errors.length === 0, errors.join('\n'));
  await page.context().close();
});

test('jump: timeline allocation -> its alloc event in the state history -> back', async () => {
  const exp = expected(BIG);
  const target = exp.hover['0'].elements[0];
  const { page, errors } = await openPage();
  await dropAndWait(page, BIG);
  // Pin the element as a click does (show_element pins and pans to it).
  await page.evaluate((e) => new Promise((r) => {
    window.memviz.viewer.command({ cmd: 'show_element', element: e });
    window.memviz.redraw();
    requestAnimationFrame(() => setTimeout(r, 0));
  }), target.elem);
  const xy = await page.evaluate((e) => (window.memviz.viewer.command({ cmd: 'locate', element: e }).point ?? []), target.elem);
  assert.equal(xy.length, 2);
  const box = await page.locator('#plot').boundingBox();
  await page.mouse.click(box.x + xy[0], box.y + xy[1]);
  assert.equal(await viewer(page, 'pinned_element'), target.elem);
  await page.waitForSelector('#to-state:not([hidden])');
  await page.click('#to-state');
  assert.equal(await viewer(page, 'view_kind'), 'state');
  assert.equal(await page.$eval('#view-select', (s) => s.selectedOptions[0].textContent), 'Allocator State History');
  const ev = await selected(page);
  const row = await selectedRow(page);
  // The selected event allocates it: alloc <addr> <size>.
  assert.match(row, new RegExp(`^${ev} {2}alloc +${target.addr} +${fmt(target.size).replace(/[()]/g, '\\$&')}`));
  await page.waitForSelector('#to-timeline:not([hidden])');
  await page.click('#to-timeline');
  assert.equal(await viewer(page, 'view_kind'), 'timeline');
  assert.equal(await viewer(page, 'view'), 0);
  assert.equal(await viewer(page, 'pinned_element'), target.elem);
  const [w0, w1] = [await viewer(page, 'window_start'), await viewer(page, 'window_end')];
  assert.ok(w0 <= target.alloc_step && target.alloc_step < w1, `${w0}..${w1} vs ${target.alloc_step}`);
  assert.ok((await page.textContent('#context')).startsWith(`${target.elem} Addr: ${target.addr}`));
  assert.ok(errors.length === 0, errors.join('\n'));
  await page.context().close();
});

test('generated --oom --expandable --devices 2: opens, device 1 selectable, OOM line', async () => {
  const file = join(TMP, 'oom_expandable_2dev.pickle');
  execFileSync('python3', [join(ROOT, '../shared/tools/gen_snapshot.py'), file, '--oom', '--expandable', '--devices', '2', '--events', '4000', '--seed', '3']);
  const facts = JSON.parse(python(`
import pickle, json, sys
d = pickle.load(open(sys.argv[1], 'rb'))
t = d['device_traces']
oom = [e for e in t[0] if e['action'] == 'oom']
print(json.dumps({'lens': [len(x) for x in t], 'oom': [oom[-1]['size'], oom[-1]['device_free']], 'oom_index': max(i for i, e in enumerate(t[0]) if e['action'] == 'oom'),
  'maps': sum(1 for e in t[0] if e['action'] == 'segment_map')}))`, file));
  assert.ok(facts.maps > 0, 'expandable segments mapped');
  const { page, errors } = await openPage();
  await dropAndWait(page, 'oom_expandable_2dev.pickle', readFileSync(file));
  const devices = await page.$$eval('#device-select option', (o) => o.map((x) => x.textContent));
  assert.deepEqual(devices, ['cuda:0', 'cuda:1']);
  await setView(page, 'Allocator State History');
  assert.equal(await viewer(page, 'state_len'), facts.lens[0]);
  await page.evaluate((i) => window.memviz.views.select(i), facts.oom_index);
  const row = await selectedRow(page);
  const want = `OOM (requested ${fmt(facts.oom[0])}, Device has ${fmt(facts.oom[1])} memory free)`;
  assert.ok(row.includes(want), `${row} lacks ${want}`);
  assert.ok((await page.textContent('#context')).includes(want));
  // Device 1.
  await page.selectOption('#device-select', '1');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  assert.equal(await viewer(page, 'device'), 1);
  assert.equal(await viewer(page, 'view_kind'), 'state');
  assert.equal(await viewer(page, 'state_len'), facts.lens[1]);
  assert.equal(await selected(page), facts.lens[1] - 1);
  assert.ok((await pixels(page, 'segment-map')).ink > 500);
  // The list takes the keys while it has focus (not the whole document).
  await page.focus('#event-list');
  await page.keyboard.press('Home');
  assert.equal(await selected(page), 0);
  assert.ok(errors.length === 0, errors.join('\n'));
  await page.context().close();
});

test('private pools: envelopes in their pool color with the pool blocks inside, envelope hover', async () => {
  const file = join(TMP, 'private_pool.pickle');
  execFileSync('python3', [join(ROOT, 'tests/reference/gen_private_pool.py'), file]);
  const pools = JSON.parse(python(`
import pickle, json, sys
d = pickle.load(open(sys.argv[1], 'rb'))
print(json.dumps(sorted({'%d,%d,s%d' % (tuple(s['segment_pool_id']) + (s['stream'],)) for s in d['segments'] if tuple(s.get('segment_pool_id', (0, 0))) != (0, 0)})))`, file));
  assert.ok(pools.length >= 1, 'generated file has private pools');
  const { page, errors } = await openPage();
  await dropAndWait(page, 'private_pool.pickle', readFileSync(file));
  // An envelope is its pool's hue faded over memory_viz's gray (issue 43):
  // the hues of the first two private pools.
  const tints = [[0xf2, 0x8e, 0x2b], [0x59, 0xa1, 0x4f]].map((c) => c.map((v) => Math.round(v * 0.35 + 0xbb * (1 - 0.35))));
  const envelopes = async () => (await Promise.all(tints.map((t) => pixels(page, 'plot', t)))).reduce((n, p) => n + p.match, 0);
  const plain = await envelopes();
  await setView(page, 'Allocated Memory (incl. Private Pools)');
  assert.equal(await viewer(page, 'view_kind'), 'pools');
  const px = await envelopes();
  assert.ok(px > 500 && px > plain + 500, `envelope pixels ${px} (timeline: ${plain})`);
  // Find an envelope (hit code <= -10) on a grid and hover it.
  const at = await page.evaluate(() => {
    const v = window.memviz.viewer;
    const c = document.getElementById('plot');
    for (let x = 80; x < c.clientWidth - 16; x += 5) {
      for (let y = 14; y < c.clientHeight - 40; y += 3) if (v.command({ cmd: 'hit_at', x, y }).value <= -10) return [x, y];
    }
    return null;
  });
  assert.ok(at, 'no envelope under any grid point');
  const box = await page.locator('#plot').boundingBox();
  await page.mouse.move(box.x + at[0], box.y + at[1]);
  const text = await page.textContent('#context');
  const m = text.match(/^Private Pool \((-?\d+,-?\d+,s\d+)\): capacity \d+\.\d[KMG]?i?B \(\d+ bytes\)/);
  assert.ok(m, text);
  assert.ok(pools.includes(m[1]), `${m[1]} not among ${pools}`);
  // A pool's block inside: hovering it shows an allocation.
  const inner = await page.evaluate(() => {
    const v = window.memviz.viewer;
    const c = document.getElementById('plot');
    for (let x = 80; x < c.clientWidth - 16; x += 5) {
      for (let y = 14; y < c.clientHeight - 40; y += 3) {
        const h = v.command({ cmd: 'hit_at', x, y }).value;
        if (h >= 0 && /pool_id \(?[1-9]/.test(v.command({ cmd: 'element', element: h }).text.split('\n')[0])) return [x, y, h];
      }
    }
    return null;
  });
  assert.ok(inner, 'a block of a private pool is hoverable');
  await page.mouse.move(box.x + inner[0], box.y + inner[1]);
  assert.ok((await page.textContent('#context')).startsWith(`${inner[2]} Addr: `));
  if (process.env.MEMVIZ_SCREENSHOTS) {
    await page.mouse.move(box.x + at[0], box.y + at[1]);
    await page.screenshot({ path: join(ROOT, 'docs/screenshot-private-pools.png') });
  }
  await page.screenshot({ path: join(OUT, 'private-pools.png') });
  assert.ok(errors.length === 0, errors.join('\n'));
  await page.context().close();
});

test('state history without a trace (bare segment list) and with one event per device', async () => {
  const { page, errors } = await openPage();
  const bare = expected('segments_only_list.pkl');
  await dropAndWait(page, 'segments_only_list.pkl');
  await setView(page, 'Allocator State History');
  assert.equal(await viewer(page, 'state_len'), 0);
  assert.equal(await selected(page), -1);
  // The final state: the dump's segments.
  assert.match(await page.textContent('#state-totals'), new RegExp(` / ${fmt(bare.summary.devices['1'].reserved_bytes).replace(/[()]/g, '\\$&')} reserved$`));
  await page.focus('#event-list');
  for (const k of ['ArrowDown', 'ArrowUp', 'Home', 'End', 'PageDown']) await page.keyboard.press(k);
  assert.equal(await selected(page), -1);
  assert.equal(await page.$$eval('#event-rows div:not([hidden])', (d) => d.length), 0);
  assert.ok((await pixels(page, 'segment-map')).ink > 1000);

  const two = expected('two_devices_state_only.pickle');
  await dropAndWait(page, 'two_devices_state_only.pickle');
  await setView(page, 'Allocator State History');
  for (const st of two.states) {
    await page.selectOption('#device-select', String(st.device));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    assert.equal(await selected(page), st.event);
    assert.equal(await page.textContent('#state-totals'),
      `${fmt(st.allocated_bytes)} allocated / ${fmt(st.reserved_bytes)} reserved`);
  }
  assert.ok(errors.length === 0, errors.join('\n'));
  await page.context().close();
});
