// After `trunk build`: (1) pins the CSP of dist/index.html to the hash of
// trunk's inline loader script instead of 'unsafe-inline'; (2) writes
// dist/memviz-standalone.html, one self-contained file (wasm as base64, JS
// glue, the page's ES modules bundled into one module script, CSS inlined)
// that runs from file://, where Chromium refuses to fetch a .wasm next to
// the page or to load a module script by src.
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
//
// Chromium will not load a module script by src from file://, so the page's
// ES modules (www/main.js and what it imports) go in as one inline module
// script, made by the small bundler below.
const glueName = one(/^memviz-wasm-[0-9a-f]+\.js$/);
const wasmName = one(/^memviz-wasm-[0-9a-f]+_bg\.wasm$/);
const cssName = one(/^style-[0-9a-f]+\.css$/);
let glue = read(glueName);
// The wasm-bindgen glue is an ES module; inline it as the body of a
// function: drop the export keywords, keep the names.
const exported = [...glue.matchAll(/^export (?:class|function|const|let) (\w+)/gm)].map((m) => m[1]);
glue = glue
  // Its comments' links: the page holds no http(s) URL but the SVG namespace.
  .replace(/^\s*\/\/.*https?:\/\/.*$/gm, '')
  .replace(/^export (class|function|const|let) /gm, '$1 ')
  .replace(/^export \{[^}]*\};?\s*$/gm, '');
if (/^export /m.test(glue)) throw new Error('unhandled export in the wasm-bindgen glue');
if (/^import /m.test(glue)) throw new Error('unhandled import in the wasm-bindgen glue');
const wasmB64 = readFileSync(join(dist, wasmName)).toString('base64');
// Stands in for www/boot.js (same exports: wasmLoaded, reinstantiate, workerSetup). The
// glue inside a function: each call is a fresh copy with its own module
// state, so that after an internal error (a trap) the page can instantiate
// the compiled module again.
const standaloneBoot = `// www/boot.js for the standalone file (scripts/finish-dist.mjs): the wasm
// and its wasm-bindgen glue inlined.
const memvizGlue = () => {
${glue}
return { initSync, ${exported.join(', ')} };
};
const wasmModule = new WebAssembly.Module(Uint8Array.from(atob("${wasmB64}"), (c) => c.charCodeAt(0)));
const bindings = memvizGlue();
bindings.initSync({ module: wasmModule });
export const wasmLoaded = Promise.resolve(bindings);
export async function reinstantiate() {
  const fresh = memvizGlue();
  fresh.initSync({ module: wasmModule });
  return fresh;
}
// The decode worker's copy of the glue: this same function's text. A
// classic worker (Chromium will not start a module worker from a blob: URL
// made by a file:// page), so without import.meta (only the glue's default
// wasm URL uses it; initSync is given the module).
export function workerSetup() {
  const glue = memvizGlue.toString().split('import.meta').join('({ url: self.location.href })');
  return { module: wasmModule, type: 'classic', prelude: 'const memvizGlue = ' + glue + '; const loadGlue = async () => memvizGlue();' };
}
`;

/**
 * Bundles the ES module `entry` (a file in dist/) and the modules it
 * imports into the text of one module script. Enough for our own files, and
 * it refuses what it does not handle rather than guess:
 *  - imports: `import './x.js';`, `import { a, b as c } from './x.js';`,
 *    `import * as ns from './x.js';`, one line each, relative paths only;
 *  - exports: `export function|async function|const|class NAME` and
 *    `export { a, b as c };` (no `export let`: a bundled module's exports are
 *    copied once, so they must not be reassigned; export a getter function);
 *  - no import cycles, no import.meta, no dynamic import().
 * Each module becomes a function scope run once, in dependency order (the
 * order the browser evaluates them in), that returns its exports:
 *    const __m_app = (() => { const { wasmLoaded } = __m_boot; …; return { guard, … }; })();
 * `substitutes` maps a file name to the text to use instead of dist's.
 */
function bundle(entry, substitutes = {}) {
  const done = new Map(); // file -> module variable
  const visiting = new Set();
  const parts = [];
  const varName = (f) => `__m_${f.replace(/\.js$/, '').replace(/\W/g, '_')}`;
  const visit = (file) => {
    if (done.has(file)) return done.get(file);
    if (visiting.has(file)) throw new Error(`bundle: import cycle through ${file}`);
    visiting.add(file);
    const substitute = file in substitutes;
    let text = substitute ? substitutes[file] : read(file);
    // JSDoc types (`/** @type {import('./types').X} */`) are comments, not imports.
    const code = text.replace(/\/\*\*[\s\S]*?\*\//g, '');
    if (!substitute && /\bimport\.meta\b|\bimport\s*\(/.test(code)) throw new Error(`bundle: ${file} uses import.meta or import()`);
    const head = [];
    text = text.replace(/^import\s+(?:(\*\s+as\s+\w+|\{[^}\n]*\})\s+from\s+)?['"]([^'"]+)['"];?[ \t]*$/gm, (_, what, spec) => {
      const m = /^\.\/([\w.-]+\.js)$/.exec(spec);
      if (!m) throw new Error(`bundle: ${file}: only ./NAME.js imports are handled, not ${spec}`);
      const dep = visit(m[1]);
      if (!what) return '';
      if (what.startsWith('*')) head.push(`const ${what.replace(/^\*\s+as\s+/, '')} = ${dep};`);
      else head.push(`const ${what.replace(/\s+as\s+/g, ': ')} = ${dep};`);
      return '';
    });
    if (/^\s*import\b(?!\s*\()/m.test(text)) throw new Error(`bundle: ${file}: an import the bundler does not handle`);
    const names = [];
    text = text.replace(/^export\s+((?:async\s+)?function\*?|const|class)\s+(\w+)/gm, (_, kw, name) => {
      names.push(name);
      return `${kw} ${name}`;
    });
    text = text.replace(/^export\s*\{([^}]*)\};?[ \t]*$/gm, (_, list) => {
      for (const item of list.split(',').map((x) => x.trim()).filter(Boolean)) {
        const [local, as] = item.split(/\s+as\s+/);
        names.push(as ? `${as}: ${local}` : local);
      }
      return '';
    });
    if (/^\s*export\b/m.test(text)) throw new Error(`bundle: ${file}: an export the bundler does not handle (export let/default?)`);
    const v = varName(file);
    parts.push(`// ---- ${file}\nconst ${v} = (() => {\n${head.join('\n')}\n${text}\nreturn Object.freeze({ ${names.join(', ')} });\n})();\n`);
    visiting.delete(file);
    done.set(file, v);
    return v;
  };
  visit(entry);
  return parts.join('\n');
}

// A script inlined into the page ends at the first "</script" in its text.
const inlined = (name, text) => {
  if (/<\/script/i.test(text)) throw new Error(`${name} contains "</script": it cannot be inlined`);
  return text;
};
const modules = inlined('the bundled modules', bundle('main.js', { 'boot.js': standaloneBoot }));
let page = read('index.html');
page = page
  // trunk's loader, its preloads and the stylesheet link go; inline versions come in
  .replace(/<script type="module">[\s\S]*?<\/script>/, '')
  .replace(/<link rel="modulepreload"[^>]*>/g, '')
  .replace(/<link rel="preload"[^>]*>/g, '')
  .replace(/<link rel="stylesheet"[^>]*>/, () => `<style>\n${read(cssName)}</style>`)
  // boot.js is in the bundle (its standalone stand-in)
  .replace(/<script type="module" src="boot\.js"><\/script>/, '')
  .replace(/<script type="module" src="main\.js"><\/script>/, () => `<script type="module">\n${modules}</script>`)
  // the views' stylesheet
  .replace(/<link rel="stylesheet"[^>]*views-[0-9a-f]+\.css[^>]*>/, () => `<style>\n${read(one(/^views-[0-9a-f]+\.css$/))}</style>`);
{ const m = /src="\.?\/?memviz-wasm|href="\.\/memviz-wasm|(?:src|href)="[^"]*\.js"|views-[0-9a-f]+\.css/.exec(page); if (m) throw new Error(`standalone still refers to a dist file: ${m[0]}`); }
const scriptHashes = inlineScripts(page).map(sha).join(' ');
page = setCsp(page, () =>
  `default-src 'none'; script-src 'wasm-unsafe-eval' ${scriptHashes}; worker-src blob:; connect-src 'none'; style-src 'unsafe-inline'; img-src data: blob:; base-uri 'none'; form-action 'none'`);
writeFileSync(join(dist, 'memviz-standalone.html'), page);
console.log(`dist/index.html: CSP pinned to ${inlineScripts(index).length} inline script hash(es)`);
console.log(`dist/memviz-standalone.html: ${(page.length / 1024).toFixed(0)} KiB (wasm ${(readFileSync(join(dist, wasmName)).length / 1024).toFixed(0)} KiB)`);
