// memviz's stand-in for PyTorch's torch/utils/viz/MemoryViz.js (same exports) for
// trace_plot's HTML: index.html in a full-window iframe (its own CSP); files by postMessage.
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
  viewer().then((w) => w.postMessage({ memviz: 'open', files, view }, TARGET, files.flatMap((f) => f.bytes || [])));
}

/** files: [{name, base64}]; view_value: a view name such as 'Active Memory Timeline'. */
export function add_local_files(files, view_value) {
  post(files.map((f) => ({ name: String(f.name), base64: String(f.base64) })), view_value); // share.js decodes it
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
