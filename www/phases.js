// @ts-check
//# allFunctionsCalledOnLoad
// Phases and time over the timelines (crates/memviz-viewer/src/phases.rs):
// record_function ranges as labelled bands along the top of the plot
// (torch.compile's own hidden unless asked for, filterable by name),
// `annotate` events as markers, a click on a phase zooms to it; the time of
// the hovered step; the "x: steps | time" control (kept across views,
// devices and files; disabled with the reason without time_us).
// After each draw (app.js's onDraw) it asks Rust for the phases placed where
// the plot now has them and lays them out again when they moved. A timeline
// just shown gets its phases in the next task (its first paint waits for
// nothing but the plot). It does not poll.
import { getViewer, guard, redraw, onDraw, afterPaint, command } from './app.js';

/** @returns {any} */ const $ = (id) => document.getElementById(id);
const box = $('plot-box'), plot = $('plot'), bar = $('phase-controls');
const COLORS = ['#2b6c3f', '#1f4e9a', '#8a4b08', '#6b2d7a'];
const layer = Object.assign(document.createElement('div'), { id: 'phase-layer' });
box.appendChild(layer);
/** @type {import('./types').PhasesView | null} */
let data = null;
let laidOut = '';

/** The phases (and the axis, and the readout) with the bar's filter. @returns {import('./types').PhasesView} */
const ask = (extra = {}) => getViewer().phases({ filter: $('phase-filter').value, internal: $('phase-internal').checked, ...extra });

/** The x axis control: the axis shown, disabled with the reason when time is not available. */
function axisControl(d) {
  $('x-axis').value = d.axis;
  $('x-axis').disabled = d.reason !== '';
  $('x-axis-reason').textContent = d.reason ? `(${d.reason})` : '';
}
$('x-axis').addEventListener('change', guard((e) => { if (getViewer()) { axisControl(ask({ axis: e.target.value })); redraw(); } }));

// LANES rows of labels; a label is never cut and never leaves the plot (at
// the right edge it ends at its phase's end). A phase whose label finds no
// free row is drawn thin, without a label: zoom in (or click it) to read it.
const LANES = 3, ROW = 16;
const widths = new Map(); // label width by name (measured once)
const measure = Object.assign(document.createElement('canvas').getContext('2d'), { font: '11px sans-serif' });
const labelWidth = (name) => widths.get(name) ?? widths.set(name, Math.ceil(measure.measureText(name).width) + 6).get(name);
const div = (className, css, props = {}) => Object.assign(document.createElement('div'), { className, ...props, style: css });

/** @param {import('./types').PhasesView} d */
function layout(d) {
  const w = plot.clientWidth, ends = new Array(LANES).fill(-Infinity); // where each row is taken up to
  layer.replaceChildren();
  d.phases.forEach((p, i) => {
    if (!(p.x1 >= 0 && p.x0 <= w)) return;
    const left = Math.max(0, Math.min(p.x0, w - 2)), right = Math.min(w, Math.max(p.x1, left + 2));
    const lw = labelWidth(p.name), atEnd = left + lw > w;
    const from = Math.min(left, atEnd ? right - lw : left), to = Math.max(right, atEnd ? right : left + lw);
    const lane = from >= 0 ? ends.findIndex((e) => e + 3 <= from) : -1, c = COLORS[i % COLORS.length];
    if (lane >= 0) ends[lane] = to;
    const el = div(lane >= 0 ? 'phase' : 'phase phase-dense', `top:${(lane >= 0 ? lane : LANES) * ROW}px;left:${plot.offsetLeft + left}px;` +
      `width:${right - left}px;background:${c}22;border-left:2px solid ${c};color:${c}`, { title: p.title });
    Object.assign(el.dataset, { name: p.name, step0: p.step0, step1: p.step1 });
    if (lane >= 0) el.append(Object.assign(document.createElement('span'), { className: 'phase-label', textContent: p.name, style: `${atEnd ? 'right' : 'left'}:0` }));
    layer.append(el);
  });
  for (const m of d.markers) if (m.x >= 0 && m.x <= w) layer.append(div('annotate-marker', `left:${plot.offsetLeft + m.x - 4}px`, { title: m.title }));
  $('phase-count').textContent = d.count;
}
// A click zooms to the phase; one with no step inside: the steps around it.
layer.addEventListener('click', guard((e) => {
  const el = e.target.closest('.phase'), v = getViewer();
  if (!el || !v) return;
  const a = Math.min(+el.dataset.step0, Math.max(0, command({ cmd: 'get' }).steps - 1));
  command({ cmd: 'set_window', x0: a, x1: Math.max(+el.dataset.step1, a + 1) });
  redraw();
}));

let later = false;
function follow(now = false) {
  try {
    const v = getViewer();
    // Only with a timeline on screen (from the view's kind rather than offsetParent, which would force a layout).
    if ((bar.hidden = !(v && v.file_count() && !box.hidden && !/^(state|settings)$/.test(document.body.dataset.kind || '')))) return;
    const d = ask({ peek: now !== true });
    if (d.pending) {
      // A timeline just shown: the old phases go now, its own in the next task.
      data = null;
      laidOut = $('phase-count').textContent = $('time-readout').textContent = '';
      layer.replaceChildren();
      if (!later) later = true, afterPaint().then(() => { later = false; follow(true); });
      return;
    }
    if (!data || data.generation !== d.generation) { $('time-readout').textContent = d.readout; axisControl(d); }
    data = d;
    const key = JSON.stringify([d.phases.map((p) => [p.x0, p.x1]), d.markers.map((m) => m.x), plot.width]);
    if (key !== laidOut) { laidOut = key; layout(d); }
  } catch (_) { /* the viewer is restarting */ }
}
onDraw(() => follow());
$('phase-filter').addEventListener('input', () => follow());
$('phase-internal').addEventListener('change', () => follow());
plot.addEventListener('pointermove', (e) => {
  if (!getViewer() || !data || !data.has_time) return;
  try { $('time-readout').textContent = ask({ hover_x: e.offsetX }).readout; } catch (_) { /* restarting */ }
});
