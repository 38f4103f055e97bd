//# allFunctionsCalledOnLoad
// @ts-check
// Phases and time over the timelines (crates/memviz-viewer/src/phases.rs):
// record_function ranges as labelled bands along the top of the plot
// (torch.compile's own hidden unless asked for, filterable by name),
// `annotate` events as markers, a click on a phase zooms to it; the time of
// the hovered step; the "x: steps | time" control (kept across views,
// devices and files; disabled with the reason without time_us).
//
// It follows the plot: after each draw (app.js's onDraw) it asks Rust for
// the phases placed where the plot now has them and lays them out again
// when they moved. A timeline just shown gets its phases in the next task
// (its first paint waits for nothing but the plot). It does not poll.
import { getViewer, guard, redraw, onDraw, afterPaint } from './app.js';

/** @returns {any} */ const $ = (id) => document.getElementById(id);
const box = $('plot-box'), plot = $('plot'), bar = $('phase-controls');
const COLORS = ['#2b6c3f', '#1f4e9a', '#8a4b08', '#6b2d7a'];
const layer = document.createElement('div');
layer.id = 'phase-layer';
box.appendChild(layer);

/** @type {import('./types').PhasesView | null} */
let data = null;
let laidOut = '';

/** Asks for the phases (and the axis, and the readout) with the bar's filter. */
function ask(extra = {}) {
  return getViewer().phases({ filter: $('phase-filter').value, internal: $('phase-internal').checked, ...extra });
}

/** The x axis control: the axis shown, disabled with the reason when time is not available. */
function axisControl(d) {
  $('x-axis').value = d.axis;
  $('x-axis').disabled = d.reason !== '';
  $('x-axis-reason').textContent = d.reason ? `(${d.reason})` : '';
}
$('x-axis').addEventListener('change', guard((e) => {
  if (!getViewer()) return;
  axisControl(ask({ axis: e.target.value }));
  redraw();
}));

// LANES rows of labels; a label is never cut and never leaves the plot (at
// the right edge it ends at its phase's end). A phase whose label finds no
// free row is drawn thin, without a label: zoom in (or click it) to read it.
const LANES = 3, ROW = 16;
const widths = new Map(); // label width by name (measured once)
let measure = null;
function labelWidth(name) {
  if (!widths.has(name)) {
    measure ||= document.createElement('canvas').getContext('2d');
    measure.font = '11px sans-serif';
    widths.set(name, Math.ceil(measure.measureText(name).width) + 6);
  }
  return widths.get(name);
}

function layout(v, d) {
  layer.replaceChildren();
  const w = plot.clientWidth;
  const ends = new Array(LANES).fill(-Infinity); // where each row is taken up to
  d.phases.forEach((p, i) => {
    if (!(p.x1 >= 0 && p.x0 <= w)) return;
    const left = Math.max(0, Math.min(p.x0, w - 2)), right = Math.min(w, Math.max(p.x1, left + 2));
    const lw = labelWidth(p.name), atEnd = left + lw > w;
    const from = Math.min(left, atEnd ? right - lw : left), to = Math.max(right, atEnd ? right : left + lw);
    const lane = from >= 0 ? ends.findIndex((e) => e + 3 <= from) : -1;
    if (lane >= 0) ends[lane] = to;
    const el = document.createElement('div'), c = COLORS[i % COLORS.length];
    el.className = lane >= 0 ? 'phase' : 'phase phase-dense';
    Object.assign(el.dataset, { name: p.name, step0: p.step0, step1: p.step1 });
    el.title = p.title;
    el.style.cssText = `top:${(lane >= 0 ? lane : LANES) * ROW}px;left:${plot.offsetLeft + left}px;width:${right - left}px;` +
      `background:${c}22;border-left:2px solid ${c};color:${c}`;
    if (lane >= 0) {
      const label = document.createElement('span');
      label.className = 'phase-label';
      label.textContent = p.name;
      label.style[atEnd ? 'right' : 'left'] = '0';
      el.appendChild(label);
    }
    el.addEventListener('click', guard(() => {
      // A phase with no step inside: the steps around it.
      const a = Math.min(p.step0, Math.max(0, v.n_steps() - 1));
      v.set_window(a, Math.max(p.step1, a + 1));
      redraw();
    }));
    layer.appendChild(el);
  });
  for (const m of d.markers) {
    if (!(m.x >= 0 && m.x <= w)) continue;
    const el = document.createElement('div');
    el.className = 'annotate-marker';
    el.title = m.title;
    el.style.left = `${plot.offsetLeft + m.x - 4}px`;
    layer.appendChild(el);
  }
  $('phase-count').textContent = d.count;
}

let later = false;
function follow(now = false) {
  try {
    const v = getViewer();
    // Only with a timeline on screen (from the view's kind rather than offsetParent, which would force a layout).
    bar.hidden = !(v && v.file_count() && !box.hidden && !/^(state|settings)$/.test(document.body.dataset.kind || ''));
    if (bar.hidden) return;
    const d = ask({ peek: now !== true });
    if (d.pending) {
      // A timeline just shown: the old phases go now, its own in the next task.
      data = null;
      laidOut = '';
      layer.replaceChildren();
      $('phase-count').textContent = $('time-readout').textContent = '';
      if (!later) later = true, afterPaint().then(() => { later = false; follow(true); });
      return;
    }
    if (!data || data.generation !== d.generation) { $('time-readout').textContent = d.readout; axisControl(d); }
    data = d;
    const key = JSON.stringify([d.phases.map((p) => [p.x0, p.x1]), d.markers.map((m) => m.x), plot.width]);
    if (key !== laidOut) { laidOut = key; layout(v, d); }
  } catch (_) { /* the viewer is restarting */ }
}
onDraw(() => follow());
$('phase-filter').addEventListener('input', () => follow());
$('phase-internal').addEventListener('change', () => follow());

plot.addEventListener('pointermove', (e) => {
  if (!getViewer() || !data || !data.has_time) return;
  try { $('time-readout').textContent = ask({ hover_x: e.offsetX }).readout; } catch (_) { /* restarting */ }
});

/** For tests: the phases of the current timeline. */
export const phaseData = () => data;
