// memviz page boot: the one module that knows how the wasm is loaded:
// `wasmLoaded` (the wasm-bindgen exports), `reinstantiate()` (a fresh copy
// after a trap), `workerSetup()` (what the decode worker needs).
//
// trunk writes its own loader into dist/index.html (it imports the hashed
// glue memviz-wasm-HASH.js, sets window.wasmBindings and fires
// TrunkApplicationStarted); this file reads those two. index.html loads it
// before trunk's loader, so the hooks below keep the compiled module: Rust on
// wasm32 cannot unwind, a panic traps ("unreachable") and that instance is
// not to be trusted; a second copy of the glue (another URL, its own state)
// is instantiated from the kept module, nothing fetched but the glue (from
// the HTTP cache). The standalone file (scripts/finish-dist.mjs) puts a
// generated module with the same exports in place of this one.
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
 * What the decode worker needs to run this wasm: the compiled module and a
 * script defining `loadGlue()` (a fresh copy of the glue, imported by URL;
 * the standalone file inlines it), the worker's `type`; null until loaded.
 */
export function workerSetup() {
  if (!compiled || !glueUrl) return null;
  return { module: compiled, type: 'module', prelude: `const loadGlue = () => import(${JSON.stringify(glueUrl)});` };
}
