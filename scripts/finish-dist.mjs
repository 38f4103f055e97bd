// After `trunk build`: (1) pins the CSP of dist/index.html to the hash of
// trunk's inline loader script instead of 'unsafe-inline'; (2) writes
// dist/memviz-standalone.html, one self-contained file (wasm as base64, JS
// glue, page script and CSS inlined) that runs from file://, where Chromium
// refuses to fetch a .wasm next to the page.
//
// usage: node scripts/finish-dist.mjs [dist]
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const dist = process.argv[2] || 'dist';
const read = (f) => readFileSync(join(dist, f), 'utf8');
const files = readdirSync(dist);
const one = (re) => {
  const m = files.filter((f) => re.test(f));
  if (m.length !== 1) throw new Error(`expected one ${re} in ${dist}, found ${m.join(', ') || 'none'}`);
  return m[0];
};
const sha = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const inlineScripts = (html) => [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
const setCsp = (html, fn) => {
  const re = /(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(")/;
  if (!re.test(html)) throw new Error('no CSP meta in index.html');
  return html.replace(re, (_, a, csp, b) => a + fn(csp) + b);
};

// (1) dist/index.html
let index = read('index.html');
const hashes = inlineScripts(index).map(sha).join(' ');
index = setCsp(index, (csp) => csp.replace("script-src 'self' 'wasm-unsafe-eval' 'unsafe-inline'", `script-src 'self' 'wasm-unsafe-eval' ${hashes}`));
if (/script-src[^;"]*'unsafe-inline'/.test(index)) throw new Error('script-src still allows unsafe-inline');
writeFileSync(join(dist, 'index.html'), index);

// (2) dist/memviz-standalone.html
const glueName = one(/^memviz-wasm-[0-9a-f]+\.js$/);
const wasmName = one(/^memviz-wasm-[0-9a-f]+_bg\.wasm$/);
const cssName = one(/^style-[0-9a-f]+\.css$/);
let glue = read(glueName);
// The wasm-bindgen glue is an ES module; inline it as the body of one module
// script: drop the export keywords, keep the names.
const exported = [...glue.matchAll(/^export (?:class|function|const|let) (\w+)/gm)].map((m) => m[1]);
glue = glue
  .replace(/^export (class|function|const|let) /gm, '$1 ')
  .replace(/^export \{[^}]*\};?\s*$/gm, '');
if (/^export /m.test(glue)) throw new Error('unhandled export in the wasm-bindgen glue');
const wasmB64 = readFileSync(join(dist, wasmName)).toString('base64');
// The glue inside a function: each call is a fresh copy with its own module
// state, so that after an internal error (a trap) the page can instantiate
// the compiled module again (memvizReinstantiate, see www/boot.js).
const loader = `const memvizGlue = () => {
${glue}
return { initSync, ${exported.join(', ')} };
};
const wasmModule = new WebAssembly.Module(Uint8Array.from(atob("${wasmB64}"), (c) => c.charCodeAt(0)));
const bindings = memvizGlue();
bindings.initSync({ module: wasmModule });
window.wasmBindings = bindings;
window.memvizReinstantiate = async () => {
  const fresh = memvizGlue();
  fresh.initSync({ module: wasmModule });
  return fresh;
};
dispatchEvent(new CustomEvent("TrunkApplicationStarted", { detail: {} }));
`;
// A script inlined into the page ends at the first "</script" in its text.
const inlined = (name, text) => {
  if (/<\/script/i.test(text)) throw new Error(`${name} contains "</script": it cannot be inlined`);
  return text;
};
const app = inlined('app.js', read('app.js'));
let page = read('index.html');
page = page
  // trunk's loader, its preloads and the stylesheet link go; inline versions come in
  .replace(/<script type="module">[\s\S]*?<\/script>/, '')
  .replace(/<link rel="modulepreload"[^>]*>/g, '')
  .replace(/<link rel="preload"[^>]*>/g, '')
  .replace(/<link rel="stylesheet"[^>]*>/, () => `<style>\n${read(cssName)}</style>`)
  .replace(/<script src="boot\.js"><\/script>/, () => `<script>\n${read('boot.js')}</script>`)
  // share.js before app.js, as in index.html (it opens the embedded snapshot)
  .replace(/<script src="share\.js" defer><\/script>/, () => `<script>\n${inlined('share.js', read('share.js'))}</script>`)
  .replace(/<script src="app\.js" defer><\/script>/, () => `<script>\n${app}</script>\n<script type="module">\n${loader}</script>`)
  // views.js and its stylesheet (the views beyond the timelines)
  .replace(/<link rel="stylesheet"[^>]*views-[0-9a-f]+\.css[^>]*>/, () => `<style>\n${read(one(/^views-[0-9a-f]+\.css$/))}</style>`)
  .replace(/<script src="views\.js" defer><\/script>/, () => `<script>\n${inlined('views.js', read('views.js'))}</script>`)
  // the "Alive at" panel (www/icicle.js, www/moment.js)
  .replace(/<script src="icicle\.js" defer><\/script>/, () => `<script>\n${inlined('icicle.js', read('icicle.js'))}</script>`)
  .replace(/<script src="moment\.js" defer><\/script>/, () => `<script>\n${inlined('moment.js', read('moment.js'))}</script>`);
if (/src="\.?\/?memviz-wasm|href="\.\/memviz-wasm|app\.js"|views\.js"|share\.js"|boot\.js"|views-[0-9a-f]+\.css/.test(page)) throw new Error('standalone still refers to a dist file');
const scriptHashes = inlineScripts(page).map(sha).join(' ');
page = setCsp(page, () =>
  `default-src 'none'; script-src 'wasm-unsafe-eval' ${scriptHashes}; connect-src 'none'; style-src 'unsafe-inline'; img-src data: blob:; base-uri 'none'; form-action 'none'`);
writeFileSync(join(dist, 'memviz-standalone.html'), page);
console.log(`dist/index.html: CSP pinned to ${inlineScripts(index).length} inline script hash(es)`);
console.log(`dist/memviz-standalone.html: ${(page.length / 1024).toFixed(0)} KiB (wasm ${(readFileSync(join(dist, wasmName)).length / 1024).toFixed(0)} KiB)`);
