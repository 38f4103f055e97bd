// What the browser benchmarks share: Playwright (tests/e2e/node_modules,
// from scripts/setup.sh), a localhost server for a build of the page,
// Debian's Chromium, headless, with nothing running in the background, and
// the writing of a table into benches/browser/RESULTS.md.
import { createServer } from 'node:http';
import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, extname, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const { chromium } = await import(join(ROOT, 'tests/e2e/node_modules/playwright-core/index.mjs'));

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

/**
 * Serves the build in `dir` (dist/ or another) on a free localhost port;
 * resolves to `{ server, origin }`. `answer(file, res)`, if given, may answer
 * a request for `file` itself (it returns true then).
 */
export async function serveDist(dir, answer = null) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = join(dir, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
    if (answer && answer(file, res)) return;
    createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}

/**
 * The page's FEED (bytes a `feed` call) in the build at `dist`: an older
 * build's decode-worker.js says it (`export const FEED = 1 << 20;`), since
 * the read is Rust's, memviz-viewer's files.rs (`pub const FEED: usize = 1 << 20;`).
 * Exits when neither does.
 */
export function pageFeed(dist) {
  const m = /export const FEED = (\d+) << (\d+);/.exec(readFileSync(join(dist, 'decode-worker.js'), 'utf8')) ??
    /pub const FEED: usize = (\d+) << (\d+);/.exec(readFileSync(new URL('../../crates/memviz-viewer/src/files.rs', import.meta.url), 'utf8'));
  if (!m) { console.error(`FEED not found in ${dist}/decode-worker.js nor files.rs`); process.exit(1); }
  return +m[1] << +m[2];
}

/** Debian's Chromium, headless, never a downloaded one; `args` added to the usual ones. */
export function launchChromium(args = []) {
  return chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', ...args],
  });
}

/**
 * Puts `text` into benches/browser/RESULTS.md between the markers
 * `<!-- NAME: latest -->` and `<!-- NAME: end -->`, in place of what was
 * there; a section not there yet goes right after the `after` section's
 * end marker, else at the end of the file.
 */
export function writeResults(name, text, after = null) {
  const file = join(ROOT, 'benches/browser/RESULTS.md');
  const old = readFileSync(file, 'utf8');
  const [a, b] = [`<!-- ${name}: latest -->`, `<!-- ${name}: end -->`];
  const block = `${a}\n${text}\n${b}`;
  const i = old.indexOf(a);
  const j = old.indexOf(b);
  const endOfAfter = after ? old.indexOf(`<!-- ${after}: end -->`) : -1;
  let next;
  if (i >= 0 && j > i) next = old.slice(0, i) + block + old.slice(j + b.length);
  else if (endOfAfter >= 0) {
    const k = endOfAfter + `<!-- ${after}: end -->`.length;
    next = `${old.slice(0, k)}\n\n${block}${old.slice(k)}`;
  } else next = `${old.replace(/\n*$/, '\n')}\n${block}\n`;
  writeFileSync(file, next);
}
