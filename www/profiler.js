// @ts-check
// torch.profiler memory exports on the page (crates/memviz-viewer/src/profiler.rs):
// a memory timeline stacked by category in memviz's colours of kinds, a
// Chrome trace's [memory] events as allocated / reserved per device. app.js
// hands a file here when the snapshot loader says it is one of these. The
// pixels, ticks, legend and hover text come from Rust; this file wires events.
import { wasmLoaded } from './boot.js';
import { guard, addFormatHook, showError, getViewer, sizeCanvas } from './app.js';
import { $, fill } from './bind.js';

const panel = $('profiler-panel'), plot = $('profiler-plot');
let pv = null; // the open ProfilerView

/** Sends `cmd` (chart, zoom, reset, hover) and shows what comes back; `drawPlot`: the chart too. */
const update = guard(function (cmd = {}, drawPlot = true) {
  if (!pv) return null;
  if (drawPlot) sizeCanvas(plot);
  const dpr = window.devicePixelRatio || 1;
  /** @type {import('./types').ProfilerModel} */
  const m = pv.update({ ...cmd, width: plot.width, height: plot.height, dpr, draw: drawPlot }, drawPlot ? plot : null);
  $('profiler-hover').textContent = m.hover;
  if (drawPlot) { fill(panel, m); plot.dataset.drawn = '1'; } // the title, legend and ticks (index.html)
  return m;
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
  document.body.dataset.page = 'profiler'; // style.css: the chart replaces the snapshot's panels and the hint
  panel.dataset.file = file.name;
  const m = update();
  if (!m) return;
  $('profiler-chart').replaceChildren(...m.charts.map((t, i) => new Option(t, String(i))));
  $('profiler-chart').disabled = m.charts.length < 2;
  for (const w of m.warnings) showError(`${file.name}: warning: ${w}`);
}

// app.js hands it the files whose first bytes say torch.profiler (memviz_core::sniff).
addFormatHook(open);

$('profiler-chart').addEventListener('change', () => update({ chart: +$('profiler-chart').value }));
$('profiler-reset').addEventListener('click', () => update({ reset: true }));
plot.addEventListener('dblclick', () => update({ reset: true }));
$('profiler-close').addEventListener('click', () => {
  if (pv) pv.free();
  pv = null;
  document.body.dataset.page = getViewer()?.file_count() > 0 ? 'snapshot' : 'start';
});
plot.addEventListener('wheel', (e) => {
  if (!pv) return;
  e.preventDefault();
  update({ zoom: { factor: e.deltaY < 0 ? 0.8 : 1.25, x: e.offsetX } });
}, { passive: false });
plot.addEventListener('pointermove', (e) => update({ hover_x: e.offsetX }, false));
addEventListener('resize', () => update());
