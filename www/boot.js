// memviz page boot, run before trunk's loader: keeps the compiled wasm
// module so that the page can start a fresh instance of it after a trap.
//
// Rust on wasm32 cannot unwind: a panic (a bug, or running out of memory)
// aborts the call with "RuntimeError: unreachable", and the instance is not
// to be trusted afterwards (its Viewer stays borrowed, its memory is never
// freed). www/app.js then calls memvizReinstantiate(): a second copy of the
// wasm-bindgen glue (the same file, imported under another URL, so with its
// own module state) instantiated from the kept module. Nothing is fetched
// again: the page may connect nowhere by then (see the CSP in app.js).
// The standalone file (scripts/finish-dist.mjs) defines its own
// memvizReinstantiate over the inlined glue.
'use strict';
(function () {
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
  if (!window.memvizReinstantiate) {
    window.memvizReinstantiate = async function () {
      if (!compiled || !glueUrl) throw new Error('the compiled wasm module was not kept');
      const glue = await import(`${glueUrl}?instance=${++copies}`);
      glue.initSync({ module: compiled });
      return glue;
    };
  }
})();
