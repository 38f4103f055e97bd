// Issue 9, "no view can be broken by a file", in the release page (dist/):
// hostile snapshots written at test time by tests/hostile/gen_hostile.py
// (blocks past their segment's end, overlapping and outside blocks, zero /
// negative / wrapping sizes, 100,000 segments, device indices in the
// thousands, a chaotic trace) are opened with the file button and every view
// is used the way a person would (hover, wheel, drag, click events in the
// state history, keys, scroll the segment map, search, devices); the page
// must raise no error and keep answering, and a good file opened afterwards
// must draw. Then an internal error (a Rust panic) must be reported in the
// page and the viewer restart, in the served page and the standalone file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { ROOT, DIST, SNAPSHOTS, useBrowser, openPage, waitOpened, viewerQuery } from './helpers.mjs';

const OUT = join(ROOT, 'tests/e2e/out');
mkdirSync(OUT, { recursive: true });
const TMP = mkdtempSync(join(tmpdir(), 'memviz-hostile-'));
const GOOD = 'small_train_step.pickle';
const HOSTILE = ['past_end', 'overlap', 'sizes', 'chaos', 'devices', 'many_segments'];
/** The console line the panic hook writes (expected in the panic tests). */
const PANIC_LOG = /^memviz: internal error: /;

useBrowser();
before(async () => {
  execFileSync('python3', [join(ROOT, 'tests/hostile/gen_hostile.py'), TMP]);
  for (const n of HOSTILE) assert.ok(existsSync(join(TMP, `${n}.pickle`)), `${n}.pickle not written`);
});
after(async () => {
  rmSync(TMP, { recursive: true, force: true });
});

/** Opens a file with the page's file button (as a person picks one). */
async function pick(page, path, name) {
  await page.setInputFiles('#file-input', path);
  await waitOpened(page, name, 120000);
}

const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
const V = (page, f, ...args) => viewerQuery(page, f, args);

/** Whether the viewer still answers: a call that goes into the wasm. */
async function answers(page) {
  return page.evaluate(() => {
    const v = window.memviz.viewer;
    if (!v) return false;
    const p = v.command({ cmd: 'numbers' });
    return typeof p.steps === 'number' && typeof p.numbers === 'object';
  });
}

async function setView(page, name) {
  const i = await V(page, 'view_names').then((n) => n.indexOf(name));
  assert.ok(i >= 0, `no view ${name}`);
  await page.selectOption('#view-select', String(i));
  await page.waitForFunction((i) => ((p) => p.views.findIndex((c) => c.id === p.view))(window.memviz.viewer.command({ cmd: 'get' })) === i, Number(i)); // a long build shows the view frames later
  await frame(page);
}

async function box(page, id) {
  return page.evaluate((id) => {
    const c = document.getElementById(id);
    const r = c.getBoundingClientRect();
    return { x: r.left + c.clientLeft, y: r.top + c.clientTop, w: c.clientWidth, h: c.clientHeight };
  }, id);
}

/** Hover a grid, wheel both ways, drag, click, use the minimap. */
async function useTimeline(page) {
  const b = await box(page, 'plot');
  for (let i = 1; i < 6; i++) {
    for (let j = 1; j < 4; j++) await page.mouse.move(b.x + (b.w * i) / 6, b.y + (b.h * j) / 4);
  }
  await page.mouse.move(b.x + b.w / 2, b.y + b.h / 2);
  await page.mouse.wheel(0, -900);
  await frame(page);
  await page.mouse.wheel(0, 400);
  await page.mouse.down();
  await page.mouse.move(b.x + b.w / 2 + 150, b.y + b.h / 2, { steps: 4 });
  await page.mouse.up();
  await page.mouse.click(b.x + b.w / 3, b.y + b.h - 20);
  await page.mouse.move(b.x + 5, b.y + 5);
  const m = await box(page, 'minimap');
  await page.mouse.click(m.x + m.w * 0.7, m.y + m.h / 2);
  await page.mouse.move(m.x + m.w * 0.2, m.y + m.h / 2);
  await page.mouse.down();
  await page.mouse.move(m.x + m.w * 0.5, m.y + m.h / 2, { steps: 3 });
  await page.mouse.up();
  await page.click('#reset-zoom');
  await frame(page);
  const drawn = await page.getAttribute('#plot', 'data-bands-drawn');
  assert.ok(drawn !== null && Number(drawn) >= 0, `bands drawn: ${drawn}`);
}

/** How often useStateHistory's branches ran (asserted > 0 at the end). */
const ran = { events: 0, lastRow: 0 };

/** Select events (click, keys), scroll the map to its end and back, hover it. */
async function useStateHistory(page) {
  const n = await V(page, 'state_len');
  const rows = page.locator('#event-rows div:not([hidden])');
  if (n > 0) {
    ran.events++;
    // Rows are reused as the list scrolls: compare with the row shown selected.
    await rows.nth(Math.min(1, n - 1)).click();
    const sel = await V(page, 'state_selected');
    assert.ok(sel >= 0, 'a click selects an event');
    assert.equal(Number(await page.getAttribute('#event-rows div.sel', 'data-i')), sel);
    for (const key of ['ArrowDown', 'ArrowDown', 'PageDown', 'End', 'ArrowUp', 'Home']) await page.keyboard.press(key);
    await frame(page);
    assert.equal(await V(page, 'state_selected'), 0, 'Home selects the first event');
    await page.evaluate((i) => window.memviz.views.select(i), Math.floor(n / 2));
  }
  const b = await box(page, 'segment-map');
  await page.mouse.move(b.x + b.w / 2, b.y + b.h / 2);
  await page.mouse.wheel(0, -1e7);
  await frame(page);
  // Walk the map down in small steps (rows cut by the bottom edge at many
  // offsets), then jump to its last row (big maps take many steps).
  for (let k = 0; k < 60; k++) {
    const before = await page.textContent('#state-rows');
    await page.mouse.wheel(0, 37);
    await frame(page);
    if ((await page.textContent('#state-rows')) === before) break;
  }
  for (let k = 0; k < 40; k++) {
    const before = await page.textContent('#state-rows');
    await page.mouse.wheel(0, 100000);
    await frame(page);
    if ((await page.textContent('#state-rows')) === before) break;
  }
  const rowsText = await page.textContent('#state-rows');
  const m = rowsText.match(/^rows (\d+)–(\d+) of (\d+)/);
  if (m) {
    ran.lastRow++;
    assert.equal(m[2], m[3], `scrolled to the last row: ${rowsText}`);
  }
  for (let i = 1; i < 8; i++) {
    for (let j = 1; j < 6; j++) await page.mouse.move(b.x + (b.w * i) / 8, b.y + (b.h * j) / 6);
  }
  await page.mouse.wheel(0, -100000);
  await frame(page);
  await page.mouse.move(b.x - 20, b.y - 20);
  assert.match(await page.textContent('#state-totals'), /allocated \/ .* reserved/);
}

async function useSearch(page) {
  await page.fill('#search-addr', '7');
  await page.press('#search-addr', 'Enter');
  await page.press('#search-addr', 'Enter');
  await page.fill('#search-frame', 'hostile');
  await page.press('#search-frame', 'Enter');
  await frame(page);
  assert.match(await page.textContent('#search-count'), /^\d+ match|^$/);
  await page.fill('#search-frame', '');
  await page.dispatchEvent('#search-frame', 'input');
}

async function useEveryView(page) {
  const names = await V(page, 'view_names');
  for (const name of names) {
    await setView(page, name);
    const kind = await V(page, 'view_kind');
    if (kind === 'timeline' || kind === 'pools') await useTimeline(page);
    if (kind === 'state') await useStateHistory(page);
    if (kind !== 'settings') await useSearch(page);
    assert.ok(await answers(page), `${name}: the viewer answers`);
  }
  await setView(page, names[0]);
}

test('hostile snapshots: every view of every device answers, then a good file draws', async () => {
  const { page, context, errors } = await openPage();
  const seen = {};
  for (const name of HOSTILE) {
    await pick(page, join(TMP, `${name}.pickle`), `${name}.pickle`);
    const devices = await page.$$eval('#device-select option', (os) => os.map((o) => o.textContent));
    seen[name] = devices;
    for (let d = 0; d < devices.length; d++) {
      if (d > 0) {
        await page.selectOption('#device-select', { index: d });
        await frame(page);
      }
      await useEveryView(page);
    }
    // What only this file shows.
    if (name === 'past_end') {
      await setView(page, 'Allocator State History');
      await page.focus('#event-list');
      await page.keyboard.press('End');
      await frame(page);
      assert.equal(await V(page, 'state_selected'), (await V(page, 'state_len')) - 1);
      assert.match(await page.textContent('#state-issues'), /8 blocks running past their segment's end \(cut there\)/);
      // The map follows the selection: the last rows, where the blocks are.
      assert.match(await page.textContent('#state-rows'), /^rows \d+–150 of 150 /);
      // Scrolled to the bottom, hovering the last row (the 1,000x block).
      const b = await box(page, 'segment-map');
      await page.mouse.move(b.x + b.w * 0.75, b.y + b.h - 4);
      await page.mouse.wheel(0, 1e6);
      await frame(page);
      await page.mouse.move(b.x + b.w * 0.75, b.y + b.h - 5);
      await frame(page);
      assert.match(await page.textContent('#context'), /^b7f[0-9a-f]+_0 \d+\.\dGiB \(\d+ bytes\) allocation \(stream 0\)/);
      await page.screenshot({ path: join(OUT, 'hostile-past-end-state.png') });
      await useStateHistory(page);
      await setView(page, 'Active Memory Timeline');
    }
    if (name === 'overlap') {
      await setView(page, 'Allocator State History');
      assert.match(await page.textContent('#state-issues'), /blocks? outside every segment \(not drawn\).*the trace disagrees with the dump/);
      await setView(page, 'Active Memory Timeline');
    }
    if (name === 'many_segments') {
      const s = JSON.parse(await V(page, 'summary_json'));
      assert.equal(s.segments, 100000);
    }
    assert.deepEqual(errors, [], `${name}: page errors`);
    assert.equal(await page.$$eval('#errors .error', (e) => e.length), 0, `${name}: no error shown`);
    assert.ok(await answers(page));
  }
  // The device selector lists the devices the file has, not 0..5000.
  assert.deepEqual(seen.devices, ['cuda:3', 'cuda:5000', 'cuda:4000000000']);
  assert.deepEqual(seen.chaos, ['cuda:0', 'cuda:1']);
  assert.equal(await page.$$eval('#file-select option', (os) => os.length), HOSTILE.length);
  assert.ok(ran.events > 0 && ran.lastRow > 0, `event list used ${ran.events}x, last map row checked ${ran.lastRow}x`);

  // A good file afterwards opens and draws.
  await pick(page, join(SNAPSHOTS, GOOD), GOOD);
  await frame(page);
  const s = JSON.parse(await V(page, 'summary_json'));
  assert.equal(s.file, GOOD);
  assert.ok(s.trace_events > 0 && s.timeline.elements > 0, JSON.stringify(s));
  assert.ok(Number(await page.getAttribute('#plot', 'data-bands-drawn')) > 5);
  const ink = await page.evaluate(() => {
    const c = document.getElementById('plot');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 250 || d[i + 1] < 250 || d[i + 2] < 250) n++;
    return n;
  });
  assert.ok(ink > 20000, `inked pixels: ${ink}`);
  await page.screenshot({ path: join(OUT, 'hostile-then-good.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});

/** Panics inside a viewer call through the page's own handler wrapper. */
async function panic(page, msg) {
  await page.evaluate((m) => window.memviz.guard(() => window.memviz.viewer.open({ cmd: 'debug_panic', message: m }))(), msg);
  await page.waitForFunction(() => document.body.dataset.restarts === document.body.dataset.crashes, null, { timeout: 20000 });
}

async function panicAndRecover(page, errors, open, name) {
  await panic(page, 'boom from the test');
  const shown = await page.textContent('#errors');
  assert.match(shown, /internal error in memviz: boom from the test \(at crates\/memviz-wasm\/src\/decode\.rs:\d+\); the file could not be shown/);
  assert.ok(shown.includes(`(${name})`), shown);
  assert.match(shown, /The viewer restarted: open a file again\./);
  // The controls are empty, the page still there and answering.
  assert.equal(await page.$$eval('#file-select option', (os) => os.length), 0);
  assert.equal(await page.isHidden('#hint'), false);
  assert.ok(await answers(page));
  assert.deepEqual(await V(page, 'file_names'), []);
  // The panic's message went to the console once; nothing else failed.
  assert.deepEqual(errors.filter((e) => !PANIC_LOG.test(e)), []);
  assert.equal(errors.filter((e) => PANIC_LOG.test(e)).length, 1, errors.join('\n'));
  // The next file opens and draws, in the fresh instance.
  await open();
  await frame(page);
  assert.ok(Number(await page.getAttribute('#plot', 'data-bands-drawn')) > 5);
  // And a second panic is handled the same way.
  await panic(page, 'second boom');
  assert.match(await page.textContent('#errors'), /internal error in memviz: second boom/);
  await open();
  assert.ok(await answers(page));
  assert.deepEqual(errors.filter((e) => !PANIC_LOG.test(e)), []);
}

test('an internal error (a panic) is reported in the page and the viewer restarts', async () => {
  const { page, context, errors } = await openPage();
  const open = () => pick(page, join(SNAPSHOTS, GOOD), GOOD);
  await open();
  await setView(page, 'Allocator State History');
  await panicAndRecover(page, errors, open, GOOD);
  await page.screenshot({ path: join(OUT, 'internal-error-recovered.png'), fullPage: true });
  // The state history of the fresh instance works too.
  await setView(page, 'Allocator State History');
  await useStateHistory(page);
  assert.deepEqual(errors.filter((e) => !PANIC_LOG.test(e)), []);
  await context.close();
});

test('the standalone file restarts after an internal error too', async () => {
  const url = pathToFileURL(join(DIST, 'memviz-standalone.html')).href;
  const { page, context, errors } = await openPage({ url, allowed: (u) => u === url });
  const open = async () => {
    await page.click('#example');
    await waitOpened(page, 'resnet50_no_zero_grad.pickle.gz');
  };
  await open();
  await panicAndRecover(page, errors, open, 'resnet50_no_zero_grad.pickle.gz');
  await context.close();
});
