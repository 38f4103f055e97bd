// memviz's stand-in for PyTorch's torch/utils/viz/MemoryViz.js: the same
// module exports, so the HTML that `python -m torch.cuda._memory_viz
// trace_plot` (or segment_plot, torch.cuda._memory_viz.trace_plot()) writes
// shows the snapshot in memviz once its import URL points at this file:
//
//   import {add_local_files} from "https://your.host/memviz/MemoryViz.js"
//   add_local_files([{name: "snapshot.pickle", base64: "..."}], 'Active Memory Timeline')
//
// The viewer is this folder's index.html in a full-window iframe: it keeps
// its own Content-Security-Policy (no connection once loaded), which the
// host page, having none, could not give it. Files reach it by postMessage.
const VIEWER = new URL('index.html', import.meta.url);
const TARGET = VIEWER.origin === 'null' ? '*' : VIEWER.origin;

let ready = null;
function viewer() {
  if (ready) return ready;
  const frame = document.createElement('iframe');
  frame.src = VIEWER.href;
  frame.title = 'memviz: PyTorch CUDA memory snapshot viewer';
  frame.style.cssText = 'position:fixed;inset:0;width:100%;height:100%;border:0;background:#fff';
  ready = new Promise((resolve) => {
    addEventListener('message', (e) => {
      if (e.source === frame.contentWindow && e.data && e.data.memviz === 'ready') resolve(frame.contentWindow);
    });
  });
  (document.body || document.documentElement).append(frame);
  return ready;
}

function post(files, view) {
  viewer().then((w) => w.postMessage({ memviz: 'open', files, view }, TARGET, files.map((f) => f.bytes)));
}

// trace_plot pads the pickle with NUL bytes to a multiple of 3; the
// viewer's decoder stops at the pickle's STOP opcode, as pickle.load does.
function decodeBase64(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text.replace(/\s+/g, ''));
  const bin = atob(text.replace(/\s+/g, ''));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** files: [{name, base64}]; view_value: a view name such as 'Active Memory Timeline'. */
export function add_local_files(files, view_value) {
  post(files.map((f) => ({ name: String(f.name), bytes: decodeBase64(f.base64).buffer })), view_value);
}

/** files: [{name, url}], fetched by this (host) page, then shown. */
export function add_remote_files(files) {
  for (const f of files) {
    fetch(f.url)
      .then((r) => {
        if (!r.ok) throw new Error(`${f.url}: ${r.status} ${r.statusText}`);
        return r.arrayBuffer();
      })
      .then((bytes) => post([{ name: String(f.name), bytes }]))
      .catch((e) => console.error('memviz: add_remote_files:', e));
  }
}
