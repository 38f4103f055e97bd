// Snapshots given rather than dropped: embedded by `memviz html` (base64, data-name),
// #file=PATH (repeatable, relative, fetched as this module runs: before app.js's CSP
// forbids it), and files MemoryViz.js posts into this frame.
import { getViewer, openFiles, showError, ready, failedLine, showView } from './app.js';
import { failed } from './decode-worker.js';
import { $ } from './bind.js';

// trace_plot pads the pickle with NULs; the decoder stops at its STOP opcode.
function decodeBase64(text) {
  text = text.replace(/\s+/g, '');
  return Uint8Array.fromBase64 ? Uint8Array.fromBase64(text) : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function selectView(name) {
  if (!name) return;
  const i = getViewer().open({ cmd: 'view_named', name }).view;
  if (i == null) return console.warn(`memviz: no view named ${JSON.stringify(name)}`);
  if ($('view-select').value === String(i)) return;
  $('view-select').value = String(i); // as the selector's change does
  showView(i);
}

/** Why a #file= path is refused (files.rs OpenFailure, worded once the wasm runs), or null. */
function refusal(path) {
  if (!path) return 'hash_empty';
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || path.includes('\\')) return 'hash_not_relative';
  if (location.protocol === 'file:') return 'hash_from_file';
  return new URL(path, location.href).origin !== location.origin ? 'hash_other_origin' : null;
}
const fromHash = location.hash.slice(1).split('&')
  .filter((kv) => kv.startsWith('file='))
  .map((kv) => {
    let path;
    try {
      path = decodeURIComponent(kv.slice(5));
    } catch {
      return { path: kv.slice(5), bytes: Promise.reject(failed(kv.slice(5), 'hash_encoding')) };
    }
    const why = refusal(path);
    if (why) return { path, bytes: Promise.reject(failed(path, why)) };
    const url = new URL(path, location.href);
    const bytes = fetch(url, { credentials: 'same-origin', redirect: 'error' }).then((r) => {
      if (!r.ok) throw failed(path, 'hash_status', `${r.status} ${r.statusText}`);
      return r.arrayBuffer();
    });
    return { path, name: decodeURIComponent(url.pathname.split('/').pop()) || path, bytes };
  });
for (const f of fromHash) f.bytes.catch(() => {}); // reported in order below

async function openFromHash() {
  if (fromHash.length === 0) return;
  $('progress-box').hidden = false;
  $('progress-text').textContent = getViewer().open({ cmd: 'fetching', paths: fromHash.map((f) => f.path) }).text;
  const files = [];
  for (const f of fromHash) {
    try {
      files.push(new File([await f.bytes], f.name));
    } catch (e) {
      showError(failedLine(f.path, e, 'hash_fetch').text);
    }
  }
  $('progress-box').hidden = true;
  await openFiles(files);
}

async function openEmbedded() {
  const el = $('memviz-embedded-snapshot');
  if (!el) return;
  const name = el.dataset.name || 'snapshot.pickle';
  let bytes;
  try { bytes = decodeBase64(el.textContent); } catch (e) {
    return showError(failedLine(name, e, 'embedded').text);
  }
  await openFiles([new File([bytes], name)]);
}

// MemoryViz.js: files posted by the page this one is framed in.
if (window.parent !== window) {
  addEventListener('message', (e) => {
    const m = e.data;
    if (e.source !== window.parent || !m || m.memviz !== 'open' || !Array.isArray(m.files)) return;
    ready.then(async () => {
      // MemoryViz.js's add_local_files posts base64, as trace_plot gives it.
      const files = m.files.map((f) => new File([f.base64 != null ? decodeBase64(String(f.base64)) : f.bytes], String(f.name)));
      await openFiles(files);
      selectView(m.view);
    });
  });
  ready.then(() => window.parent.postMessage({ memviz: 'ready' }, '*'));
}

ready.then(async () => {
  await openEmbedded();
  await openFromHash();
  document.body.dataset.shareDone = '1';
});
