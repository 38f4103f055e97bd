// memviz page boot: the one module that knows how the wasm is loaded.
// Exports `wasmLoaded` (a promise of the wasm-bindgen exports) and
// `reinstantiate()` (a fresh copy of them after a trap). app.js imports it.
//
// The seam with trunk. trunk writes its own inline loader module into
// dist/index.html (it imports the hashed glue memviz-wasm-HASH.js, runs
// init(), then sets window.wasmBindings and fires TrunkApplicationStarted);
// our files cannot import the glue themselves because its name carries a
// hash only trunk knows. So this file reads those two, and nothing else in
// www/ touches a window global. index.html loads this file as a module
// *before* trunk's loader (module scripts run in document order), so the
// WebAssembly hooks below are in place when trunk instantiates the module.
//
// Why the hooks: Rust on wasm32 cannot unwind: a panic (a bug, or running
// out of memory) aborts the call with "RuntimeError: unreachable", and the
// instance is not to be trusted afterwards (its Viewer stays borrowed, its
// memory is never freed). app.js then calls reinstantiate(): a second copy
// of the wasm-bindgen glue (the same file, imported under another URL, so
// with its own module state) instantiated from the compiled module kept
// here. Nothing is fetched again but the glue (same origin, from the HTTP
// cache): the page may connect nowhere by then (see the CSP in app.js).
//
// The standalone file (scripts/finish-dist.mjs) bundles the modules into one
// script and puts a generated module with the same two exports in place of
// this one (the glue and the wasm inlined).
const WA = WebAssembly;
let compiled = null;
let glueUrl = null;
let copies = 0;
const keep = (r) => {
  if (r && r.module instanceof WA.Module) compiled = r.module;
  return r;
};
const streaming = WA.instantiateStreaming;
if (streaming) {
  WA.instantiateStreaming = function (source, imports) {
    return Promise.resolve(source).then((resp) => {
      // trunk names them memviz-wasm-HASH_bg.wasm and memviz-wasm-HASH.js.
      if (resp && resp.url) glueUrl = resp.url.replace(/_bg\.wasm(\?.*)?$/, '.js');
      return streaming.call(WA, resp, imports);
    }).then(keep);
  };
}
const instantiate = WA.instantiate;
WA.instantiate = function (source, imports) {
  return instantiate.call(WA, source, imports).then((r) => {
    if (source instanceof WA.Module) compiled = source;
    return keep(r);
  });
};

/** The wasm-bindgen exports (Viewer, panic_message, …) once trunk's loader ran. */
export const wasmLoaded = new Promise((resolve) => {
  if (window.wasmBindings) resolve(window.wasmBindings);
  else addEventListener('TrunkApplicationStarted', () => resolve(window.wasmBindings), { once: true });
});

/** A fresh instance of the wasm module (after a trap): its exports. */
export async function reinstantiate() {
  if (!compiled || !glueUrl) throw new Error('the compiled wasm module was not kept');
  const glue = await import(`${glueUrl}?instance=${++copies}`);
  glue.initSync({ module: compiled });
  return glue;
}

/**
 * What the decode worker (www/decode-worker.js) needs to run this wasm in
 * its own instance: the compiled module (posted to it, not compiled again)
 * and the text of a script that defines `loadGlue()`, a promise of a fresh
 * copy of the wasm-bindgen glue. Here the worker imports trunk's glue by its
 * URL (same origin: the CSP's script-src 'self'); the standalone file's boot
 * puts the inlined glue's text there instead. null while the wasm is not
 * loaded (the page then decodes on its own thread). `type`: the worker's
 * kind (here a module worker, for the import).
 */
export function workerSetup() {
  if (!compiled || !glueUrl) return null;
  return { module: compiled, type: 'module', prelude: `const loadGlue = () => import(${JSON.stringify(glueUrl)});` };
}
