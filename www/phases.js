// @ts-check
//# allFunctionsCalledOnLoad
// Phases and time over the timelines, laid out by crates/memviz-viewer/src/phases.rs:
// record_function ranges along the top of the plot (a click zooms to one), `annotate`
// markers, the hovered step's time, the "x: steps | time" control. Laid out again
// after a draw that moved them; a timeline just shown gets them in the next task.
import { getViewer, guard, redraw, onDraw, afterPaint, command } from './app.js';
import { $, fill } from './bind.js';

const box = $('plot-box'), plot = $('plot'), layer = $('phase-layer');
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

// A click zooms to the phase; one with no step inside: the steps around it.
layer.addEventListener('click', guard((e) => {
  const el = e.target.closest('.phase');
  if (!el || !getViewer()) return;
  const a = Math.min(+el.dataset.step0, Math.max(0, command({ cmd: 'get' }).steps - 1));
  command({ cmd: 'set_window', x0: a, x1: Math.max(+el.dataset.step1, a + 1) });
  redraw();
}));

let later = false;
function follow(now = false) {
  try {
    const v = getViewer();
    // Only with a timeline on screen (from the view's kind rather than offsetParent, which would force a layout).
    // The bar itself shows with the timeline (views.css), in the file's first frame: shown later, it moved the plot.
    if (!(v && v.file_count() && !box.hidden && !/^(state|settings)$/.test(document.body.dataset.kind || ''))) return;
    const d = ask({ peek: now !== true });
    if (d.pending) { // a timeline just shown: the old phases go now, its own in the next task
      data = null;
      laidOut = $('phase-count').textContent = $('time-readout').textContent = '';
      fill(layer, {});
      if (!later) later = true, afterPaint().then(() => { later = false; follow(true); });
      return;
    }
    if (!data || data.generation !== d.generation) { $('time-readout').textContent = d.readout; axisControl(d); }
    data = d;
    const key = JSON.stringify(d.boxes);
    if (key === laidOut) return;
    laidOut = key;
    fill(layer, d); // placed from the plot's left edge: the plot fills the box (style.css)
    if (d.redraw) redraw(); // the peak's label below the rows
    $('phase-count').textContent = d.count;
  } catch (_) { /* the viewer is restarting */ }
}
onDraw(() => follow());
$('phase-filter').addEventListener('input', () => follow());
$('phase-internal').addEventListener('change', () => follow());
plot.addEventListener('pointermove', (e) => {
  if (!getViewer() || !data || !data.has_time) return;
  try { $('time-readout').textContent = ask({ hover_x: e.offsetX }).readout; } catch (_) { /* restarting */ }
});
