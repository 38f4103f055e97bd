// @ts-check
// torch.profiler memory exports on the page (crates/memviz-viewer/src/profiler.rs):
// a memory timeline stacked by category in memviz's colours of kinds, a
// Chrome trace's [memory] events as allocated / reserved per device. app.js
// hands a file here when the snapshot loader says it is one of these. The
// pixels, ticks, legend and hover text come from Rust; this file places them.
import { wasmLoaded } from './boot.js';
import { guard, addFormatHook, showError, getViewer } from './app.js';

/** @returns {any} */ const $ = (id) => document.getElementById(id);
const MARGIN = { left: 70, right: 12, top: 8, bottom: 26 };
const panel = $('profiler-panel'), plot = $('profiler-plot');
let pv = null; // the open ProfilerView

function rect() {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(plot.clientWidth * dpr)), h = Math.max(1, Math.round(plot.clientHeight * dpr));
  if (plot.width !== w || plot.height !== h) { plot.width = w; plot.height = h; }
  const m = (v) => Math.round(v * dpr);
  return { dpr, x: m(MARGIN.left), y: m(MARGIN.top), w: Math.max(1, w - m(MARGIN.left + MARGIN.right)), h: Math.max(1, h - m(MARGIN.top + MARGIN.bottom)) };
}

/** Sends `cmd` (chart, zoom, reset, hover) and draws what comes back. */
const update = guard(function (cmd = {}, drawPlot = true) {
  if (!pv) return;
  const r = rect();
  /** @type {import('./types').ProfilerModel & { pixels: Uint8Array<ArrayBuffer> }} */
  const m = pv.update({ ...cmd, width: r.w, height: r.h, dpr: r.dpr, draw: drawPlot });
  $('profiler-hover').textContent = m.hover;
  if (!drawPlot) return;
  $('profiler-legend').replaceChildren(...m.legend.map((it) => {
    const s = document.createElement('span'), sw = document.createElement('i');
    Object.assign(s.dataset, { name: it.name, max: it.max });
    sw.style.background = it.color;
    s.append(sw, it.label);
    return s;
  }));
  const ctx = plot.getContext('2d');
  ctx.clearRect(0, 0, plot.width, plot.height);
  const px = m.pixels;
  ctx.putImageData(new ImageData(new Uint8ClampedArray(px.buffer, px.byteOffset, px.length), r.w, r.h), r.x, r.y);
  ctx.fillStyle = '#333';
  ctx.strokeStyle = 'rgba(0,0,0,0.15)';
  ctx.font = `${Math.round(11 * r.dpr)}px sans-serif`;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of m.y_ticks) {
    const y = r.y + r.h - t.pos * r.h;
    ctx.fillText(t.label, r.x - 6 * r.dpr, y);
    ctx.fillRect(r.x, Math.round(y), r.w, 1);
  }
  ctx.textBaseline = 'top';
  m.x_ticks.forEach((t, i) => {
    ctx.textAlign = i === m.x_ticks.length - 1 ? 'right' : 'center'; // the last label ends at the plot's edge
    ctx.fillText(t.label, r.x + r.w * t.pos, r.y + r.h + 6 * r.dpr);
  });
  plot.dataset.drawn = '1';
});

/** Shows a profiler export (File). */
async function open(file) {
  const b = await wasmLoaded;
  let view;
  try {
    view = new b.ProfilerView(file.name, new Uint8Array(await file.arrayBuffer()));
  } catch (e) {
    return showError(`Could not open ${e.message || e}`);
  }
  if (pv) pv.free();
  pv = view;
  panel.hidden = false;
  document.body.dataset.page = 'profiler'; // style.css: the chart replaces the snapshot's panels
  panel.dataset.file = file.name;
  $('hint').hidden = true;
  const r = rect();
  /** @type {import('./types').ProfilerModel} */
  const m = pv.update({ width: r.w, height: r.h, dpr: r.dpr });
  $('profiler-title').textContent = `${file.name}: ${m.format}`;
  const sel = $('profiler-chart');
  sel.replaceChildren(...m.charts.map((t, i) => new Option(t, String(i))));
  sel.disabled = sel.options.length < 2;
  for (const w of m.warnings) showError(`${file.name}: warning: ${w}`);
  update();
}

// app.js hands it the files whose first bytes say torch.profiler (memviz_core::sniff).
addFormatHook(open);

$('profiler-chart').addEventListener('change', () => update({ chart: +$('profiler-chart').value }));
$('profiler-reset').addEventListener('click', () => update({ reset: true }));
plot.addEventListener('dblclick', () => update({ reset: true }));
$('profiler-close').addEventListener('click', () => {
  if (pv) pv.free();
  pv = null;
  panel.hidden = true;
  const v = getViewer();
  document.body.dataset.page = v && v.file_count() > 0 ? 'snapshot' : 'start';
  $('hint').hidden = document.body.dataset.page !== 'start';
});
plot.addEventListener('wheel', (e) => {
  if (!pv) return;
  e.preventDefault();
  const r = rect();
  update({ zoom: { factor: e.deltaY < 0 ? 0.8 : 1.25, frac: Math.min(1, Math.max(0, (e.offsetX * r.dpr - r.x) / r.w)) } });
}, { passive: false });
plot.addEventListener('pointermove', (e) => {
  const r = rect(), x = Math.floor(e.offsetX * r.dpr - r.x);
  update(x >= 0 && x < r.w ? { hover_x: x } : {}, false);
});
addEventListener('resize', () => update());

/** For tests: the open view (null when none). */
export const profilerView = () => pv;
