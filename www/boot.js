// memviz page boot: how the wasm is loaded. trunk's loader (in dist/index.html,
// after this module) imports the hashed glue and fires TrunkApplicationStarted;
// the hooks below keep the compiled module, so that after a trap (a panic cannot
// unwind on wasm32) a fresh copy of the glue is instantiated from it, and the
// decode worker gets it. The standalone file (scripts/finish-dist.mjs) puts a
// module with the same exports in place of this one.
const WA = WebAssembly;
let compiled = null, glueUrl = null, copies = 0;
const keep = (r) => ((r && r.module instanceof WA.Module && (compiled = r.module)), r);
const streaming = WA.instantiateStreaming;
if (streaming) {
  WA.instantiateStreaming = function (source, imports) {
    return Promise.resolve(source).then((resp) => {
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

/** What the decode worker needs: the compiled module, a script defining `loadGlue()`, its type; null until loaded. */
export function workerSetup() {
  if (!compiled || !glueUrl) return null;
  return { module: compiled, type: 'module', prelude: `const loadGlue = () => import(${JSON.stringify(glueUrl)});` };
}
