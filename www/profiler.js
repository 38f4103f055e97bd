// torch.profiler memory exports on the page (crates/memviz-wasm/src/profiler.rs,
// memviz_core::profiler): a memory timeline (export_memory_timeline .json /
// .json.gz / .raw.json.gz) stacked by category in the profiler's colours, a
// Chrome trace's [memory] events as allocated / reserved per device. app.js
// hands a file here when the snapshot loader says it is one of these.
//
// The pixels come from Rust (ProfilerView.render, one putImageData); this
// file draws the axis labels, the legend and the hover text, and handles
// wheel zoom and double-click reset.
import { wasmLoaded } from './boot.js';
import { guard, addFormatHook, showError, getViewer } from './app.js';

const $ = (id) => document.getElementById(id);
const fmtTime = (s, span) => span < 2e-3 ? (s * 1e6).toFixed(0) + ' µs' : span < 2 ? (s * 1e3).toFixed(span < 0.02 ? 2 : 0) + ' ms'
  : s.toFixed(1) + ' s';
const MARGIN = { left: 70, right: 12, top: 8, bottom: 26 };

const panel = document.createElement('section');
panel.id = 'profiler-panel';
panel.hidden = true;
panel.innerHTML = `
  <h2 id="profiler-title" style="font-size:15px;margin:0.3em 0"></h2>
  <label>Chart <select id="profiler-chart"></select></label>
  <button id="profiler-reset" type="button">Reset zoom</button>
  <button id="profiler-close" type="button" title="Close this chart">Close</button>
  <div id="profiler-legend" style="margin:0.3em 0;font-size:13px"></div>
  <div id="profiler-box" style="position:relative;width:100%;height:46vh;min-height:260px;border:1px solid #ccc">
    <canvas id="profiler-plot" role="img" aria-label="Memory over time from a torch.profiler export"
      style="position:absolute;left:0;top:0;width:100%;height:100%"></canvas>
  </div>
  <p class="help">Wheel: zoom · double-click: whole run · hover: the values at that time</p>
  <pre id="profiler-hover" style="min-height:4em"></pre>`;
$('summary').after(panel);

let pv = null; // the open ProfilerView
const plot = $('profiler-plot');

function rect() {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(plot.clientWidth * dpr));
  const h = Math.max(1, Math.round(plot.clientHeight * dpr));
  if (plot.width !== w || plot.height !== h) { plot.width = w; plot.height = h; }
  const m = (v) => Math.round(v * dpr);
  return { dpr, x: m(MARGIN.left), y: m(MARGIN.top), w: Math.max(1, w - m(MARGIN.left + MARGIN.right)),
    h: Math.max(1, h - m(MARGIN.top + MARGIN.bottom)) };
}

const draw = guard(function () {
  if (!pv) return;
  const r = rect();
  const ctx = plot.getContext('2d');
  ctx.clearRect(0, 0, plot.width, plot.height);
  const px = pv.render(r.w, r.h);
  ctx.putImageData(new ImageData(new Uint8ClampedArray(px.buffer, px.byteOffset, px.length), r.w, r.h), r.x, r.y);
  // Axes: bytes on the left, time along the bottom.
  ctx.fillStyle = '#333';
  ctx.strokeStyle = 'rgba(0,0,0,0.15)';
  ctx.font = `${Math.round(11 * r.dpr)}px sans-serif`;
  const yMax = pv.y_max();
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  // Ticks and labels from Rust: one size format and one unit per axis everywhere.
  for (const [v, label] of JSON.parse(pv.y_ticks_json(Math.max(2, Math.floor(r.h / (50 * r.dpr)))))) {
    const y = r.y + r.h - (v / yMax) * r.h;
    ctx.fillText(label, r.x - 6 * r.dpr, y);
    ctx.beginPath(); ctx.moveTo(r.x, y + 0.5); ctx.lineTo(r.x + r.w, y + 0.5); ctx.stroke();
  }
  const t0 = pv.window_start(), t1 = pv.window_end();
  const span = Math.max(pv.duration_s(), 1e-9);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  const n = Math.max(2, Math.floor(r.w / (110 * r.dpr)));
  for (let i = 0; i <= n; i++) {
    const t = t0 + (t1 - t0) * i / n;
    // The last label ends at the plot's right edge instead of running past it.
    ctx.textAlign = i === n ? 'right' : 'center';
    ctx.fillText(fmtTime(t, span), r.x + (r.w * i) / n, r.y + r.h + 6 * r.dpr);
  }
  plot.dataset.drawn = '1';
});

function legend() {
  const items = JSON.parse(pv.legend_json());
  const box = $('profiler-legend');
  box.replaceChildren(...items.map((it) => {
    const s = document.createElement('span');
    s.style.marginRight = '1.2em';
    s.dataset.name = it.name;
    s.dataset.max = it.max;
    const sw = document.createElement('i');
    sw.style.cssText = `display:inline-block;width:10px;height:10px;margin-right:4px;background:${it.color}`;
    s.append(sw, `${it.name} (max ${it.max_text})`);
    return s;
  }));
}

function chartChanged() {
  legend();
  $('profiler-hover').textContent = '';
  draw();
}

/** Shows a profiler export (File); true when it is one. */
async function open(file) {
  const b = await wasmLoaded;
  const bytes = new Uint8Array(await file.arrayBuffer());
  let view;
  try {
    view = new b.ProfilerView(file.name, bytes);
  } catch (e) {
    showError(`Could not open ${e.message || e}`);
    return;
  }
  if (pv) pv.free();
  pv = view;
  panel.hidden = false;
  document.body.dataset.page = 'profiler'; // style.css: the chart replaces the snapshot's panels
  panel.dataset.file = file.name;
  $('profiler-title').textContent = `${file.name}: ${pv.format()}`;
  const sel = $('profiler-chart');
  sel.replaceChildren(...pv.chart_titles().map((t, i) => new Option(t, i)));
  sel.disabled = sel.options.length < 2;
  for (const w of pv.warnings()) showError(`${file.name}: warning: ${w}`);
  $('hint').hidden = true;
  chartChanged();
}

// app.js hands it the files whose first bytes say torch.profiler (memviz_core::sniff).
addFormatHook(open);

$('profiler-chart').addEventListener('change', guard(() => { pv.set_chart(+$('profiler-chart').value); chartChanged(); }));
$('profiler-reset').addEventListener('click', guard(() => { pv.reset_window(); draw(); }));
$('profiler-close').addEventListener('click', () => {
  if (pv) pv.free();
  pv = null;
  panel.hidden = true;
  const v = getViewer();
  document.body.dataset.page = v && v.file_count() > 0 ? 'snapshot' : 'start';
  $('hint').hidden = document.body.dataset.page !== 'start';
});
plot.addEventListener('dblclick', guard(() => { pv.reset_window(); draw(); }));
plot.addEventListener('wheel', guard((e) => {
  if (!pv) return;
  e.preventDefault();
  const r = rect();
  const frac = (e.offsetX * r.dpr - r.x) / r.w;
  pv.zoom_at(e.deltaY < 0 ? 0.8 : 1.25, Math.min(1, Math.max(0, frac)));
  draw();
}), { passive: false });
plot.addEventListener('pointermove', guard((e) => {
  if (!pv) return;
  const r = rect();
  const x = Math.floor(e.offsetX * r.dpr - r.x);
  $('profiler-hover').textContent = x >= 0 && x < r.w ? pv.hover(x) : '';
}));
addEventListener('resize', draw);

/** For tests: the open view (null when none). */
export const profilerView = () => pv;
