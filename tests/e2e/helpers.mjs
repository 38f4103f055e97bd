// Shared by the browser tests: the one fixture (a static server for dist/ on
// a free port, Debian's chromium through playwright-core, never a downloaded
// browser, the page opened and booted, and the teardown), and file drops.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { join, extname, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = join(ROOT, 'dist');
export const SNAPSHOTS = join(ROOT, '../shared/snapshots');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

/** Serves dist/ on a free localhost port (the OS picks it). */
export async function serveDist() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = join(DIST, path === '/' ? 'index.html' : path);
    if (!file.startsWith(DIST) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

/**
 * The fixture of a test file: before its tests, checks that dist/`page` and
 * every path in `needs` exist, runs `setup` (files the tests generate),
 * serves dist/ (or `serve()`'s {server, origin}) and launches chromium; after
 * them, closes both. `server`, `origin` and `browser` below are the live
 * values (ES module exports are live bindings; node --test runs each file in
 * its own process, so each file has its own).
 */
export function useBrowser({ page = 'index.html', needs = [], setup, serve = serveDist } = {}) {
  before(async () => {
    assert.ok(existsSync(join(DIST, page)), 'dist/ missing: run scripts/build-web.sh first');
    for (const f of needs) assert.ok(existsSync(f), `${f} is missing (../shared must sit beside the repository)`);
    await setup?.();
    ({ server, origin } = await serve());
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });
}

/** Set by useBrowser's before(). */
export let server, origin, browser;

/** Waits until the page has booted (app.js sets body[data-ready] once its wasm is in). */
export async function waitReady(page) {
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
}

/**
 * A fresh page on `url` (default: the served index) that may fetch only what
 * `allowed(url)` lets through (default: the server's own origin), booted.
 * Other options go to browser.newContext.
 */
export async function openPage({ url, allowed, ...opts } = {}) {
  const p = await newPage(browser, allowed ?? ((u) => u.startsWith(origin + '/')), opts);
  await p.page.goto(url ?? origin + '/');
  await waitReady(p.page);
  return p;
}

export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Runs before the page's scripts: keeps every memviz:* performance mark and
 * measure, which the page clears once it has read them (www/app.js).
 * window.__memvizPerf(name, type?) lists them, oldest first.
 */
export const PERF_INIT = `(() => {
  const seen = [];
  const obs = new PerformanceObserver((list) => { seen.push(...list.getEntries()); });
  obs.observe({ entryTypes: ['mark', 'measure'] });
  window.__memvizPerf = (name, type) => {
    seen.push(...obs.takeRecords());
    return seen.filter((e) => e.name === name && (!type || e.entryType === type));
  };
})();`;

/**
 * A page that records every request it makes and lets only `allowed(url)`
 * through; the rest are aborted and kept in `blocked`.
 */
export async function newPage(browser, allowed, opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1, ...opts });
  await context.addInitScript(PERF_INIT);
  const page = await context.newPage();
  const requests = [];
  const blocked = [];
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    if (allowed(url)) route.continue();
    else { blocked.push(url); route.abort(); }
  });
  return { page, context, requests, blocked, errors };
}

/** Drops files (name, bytes) onto the page the way a user's drag does. */
export async function dropFiles(page, files) {
  const payload = files.map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]);
  await page.evaluate((payload) => {
    const dt = new DataTransfer();
    for (const [name, b64] of payload) {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], name));
    }
    const target = document.querySelector('#plot-box');
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, payload);
}

export function snapshot(name) {
  return readFileSync(join(SNAPSHOTS, name));
}

/** tests/reference/expected/NAME.json; throws where it is not there. */
export function expected(name) {
  const f = join(ROOT, 'tests/reference/expected', `${name}.json`);
  if (!existsSync(f)) throw new Error(`${f} is missing: run tests/reference/regenerate.sh`);
  return JSON.parse(readFileSync(f, 'utf8'));
}

/** Waits until the page shows the summary of the file named `name`. */
export async function waitOpened(page, name, timeout = 60000) {
  await page.waitForFunction((name) => {
    const sel = document.querySelector('#file-select');
    return sel && [...sel.options].some((o) => o.textContent === name) &&
      sel.selectedOptions[0]?.textContent === name &&
      document.querySelector('#summary [data-k]') && document.querySelector('#plot').dataset.bandsDrawn !== undefined &&
      window.memviz.settled; // the Findings strip above the plot is in place: plot coordinates hold
  }, name, { timeout });
}

/** Drops `file` ([name, bytes]) on the page showing another one and returns, for each of its first `n` frames
 * from the one that shows its summary, the value of `expr` (a JavaScript expression, evaluated in the page
 * each frame before its paint). */
export async function newFileFrames(page, file, expr, n) {
  await page.evaluate(`(() => {
    const old = document.getElementById('summary').textContent;
    window.__newFileFrames = [];
    const frame = () => {
      if (document.getElementById('summary').textContent !== old) window.__newFileFrames.push(${expr});
      if (window.__newFileFrames.length < ${n}) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  })()`);
  await dropFiles(page, [file]);
  await waitOpened(page, file[0]);
  await page.waitForFunction((n) => window.__newFileFrames.length >= n, n);
  return page.evaluate(() => window.__newFileFrames);
}

/** The summary numbers the page shows: {key: value}. */
/** Redraws now (not on the next animation frame) and returns the bands drawn. */
export async function redrawNow(page) {
  await page.evaluate(() => new Promise((r) => { window.memviz.redraw(); requestAnimationFrame(() => setTimeout(r, 0)); }));
  return Number(await page.getAttribute('#plot', 'data-bands-drawn'));
}

export async function shownSummary(page) {
  return page.$$eval('#summary [data-k]', (els) => Object.fromEntries(els.map((e) => [e.dataset.k, Number(e.dataset.v)])));
}

/**
 * What the tests read of the viewer core, by the name of the getter that
 * once answered it: each is a `command` (memviz_viewer::page) now.
 */
export function viewerQuery(page, f, args = []) {
  return page.evaluate(([f, args]) => {
    const c = (cmd) => window.memviz.command(cmd), p = c({ cmd: 'get' });
    switch (f) {
      case 'summary_json': return JSON.stringify(c({ cmd: 'numbers' }).numbers);
      case 'state_json': return JSON.stringify(p.state.numbers);
      case 'element_text': return c({ cmd: 'element', element: args[0] }).text;
      case 'set_window': c({ cmd: 'set_window', x0: args[0], x1: args[1] }); return undefined;
      case 'state_locate': return c({ cmd: 'state_locate', block: args[0] }).point ?? [];
      case 'warnings': {
        const pre = `${p.files[p.file]}: warning: `; // the reader's own words, without the page's prefix
        return p.warnings.map((w) => (w.startsWith(pre) ? w.slice(pre.length) : w));
      }
      case 'view_names': return p.views.map((x) => x.name);
      case 'view': return p.views.findIndex((x) => x.id === p.view);
      case 'state_len': return p.state ? p.state.len : 0;
      case 'state_selected': return p.state?.selected ?? -1;
      case 'pinned_element': return p.pinned ?? -1;
      case 'window_start': return p.window[0];
      case 'window_end': return p.window[1];
      default: return p[{ element_count: 'elements', view_kind: 'kind', file_names: 'files', n_steps: 'steps', drawn_count: 'drawn', device: 'device' }[f]];
    }
  }, [f, args]);
}
