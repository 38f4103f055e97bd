// @ts-check
// The "What if" panel (template in index.html; Viewer.panel's what_if_* commands over memviz-viewer's whatif.rs):
// allocator settings in, the trace replayed under them a slice a frame; every string, the chart and the line over
// the segment timeline drawn in Rust. The OOM panel gets the replay's verdict of its OOM as one more line of advice.
import { getViewer, guard, inSlices, onDraw, afterPaint, settleListeners } from './app.js';
import { $, ask, generation } from './moment.js';
import { fill } from './bind.js';

// Trace events a call: the state history walks them at ~1 µs each in wasm, the replay faster.
const STEP = 4096;
const SETTINGS = ['max_split_size_mb', 'roundup_power2_divisions', 'garbage_collection_threshold', 'capacity_bytes'];
const panel = $('whatif-panel'), overlay = $('whatif-overlay'), plot = $('plot'), legend = $('whatif-overlay-legend');
let key = -1; // the generation shown
let run = 0; // the replay under way; a later one cancels it
/** @type {import('./types').WhatIfView | null} */
let view = null; // the last one shown

/** Draws `cmd` into `canvas` (Rust pixels). @returns {import('./types').PanelDrawn} */
const draw = (canvas, cmd) => getViewer().panel_draw(canvas, cmd);

// The prediction over the Active Cached Segment Timeline, the plot's size and place.
function placeOverlay() {
  let o = null;
  try { o = getViewer()?.file_count() ? draw(overlay, { cmd: 'what_if_overlay', width: plot.clientWidth, height: plot.clientHeight }) : null; } catch (_) { } // a trap: app.js restarts the viewer
  fill(legend, o?.drawn ? o : {});
  overlay.dataset.points = String(o?.drawn ? o.count : 0);
  if ((overlay.hidden = !o?.drawn)) return;
  Object.assign(overlay.style, { left: plot.offsetLeft + 'px', top: plot.offsetTop + 'px', width: plot.clientWidth + 'px', height: plot.clientHeight + 'px' });
  Object.assign(legend.style, { left: (plot.offsetLeft + 60) + 'px', top: (plot.offsetTop + 4) + 'px' });
}

/** Shows a refusal (a PageError); anything else is a trap (app.js restarts the viewer). */
const refused = (e) => { if (!e || !e.kind) throw e; $('whatif-error').textContent = e.message; panel.dataset.error = e.kind; };

/** Chooses `fields` (null: the recording's; 'advise': the OOM panel's advice, the recording's with
 * expandable_segments:True) and replays a slice a frame. */
function start(fields) {
  const v = getViewer();
  if (!v || !v.file_count()) return;
  settleListeners();
  try { ask(fields === 'advise' ? { cmd: 'what_if_advise' } : { cmd: 'what_if_set', fields }); } catch (e) { return refused(e); }
  $('whatif-error').textContent = '';
  delete panel.dataset.error;
  const me = ++run, k = generation(), t0 = performance.now(), body = document.body.dataset;
  panel.dataset.stage = 'busy';
  let replayed = false;
  const r = inSlices(guard(() => {
    const share = ask({ cmd: 'what_if_step', budget: STEP }).done;
    // For benches/browser: when the prediction's replay (the line) was done.
    if (!replayed && share >= 0.6) body.whatifReplayMs = ((replayed = true), (performance.now() - t0).toFixed(1));
    return share;
  }), {
    cancelled: () => me !== run || getViewer() !== v || generation() !== k,
    progress: (share) => { $('whatif-busy').textContent = `${view?.busy || 'replaying'}: ${Math.round(share * 100)}%`; },
  });
  const done = (slices) => {
    if (me !== run) return;
    if (slices) Object.assign(body, { whatifMs: (performance.now() - t0).toFixed(1), whatifSlices: slices.map((x) => x.toFixed(1)).join(',') });
    show();
  };
  if (r instanceof Promise) { show(); r.then(guard(done)); } else if (r) done(r);
}

/** Lays out the view model and draws the chart. */
function show() {
  if (!getViewer()?.file_count()) return;
  try { view = ask({ cmd: 'what_if_view' }); } catch (e) { return refused(e); }
  panel.dataset.stage = view.stage;
  fill(panel, { ...view, busy: view.stage === 'done' ? '' : view.busy });
  $('whatif-expandable_segments').checked = view.fields.expandable_segments;
  for (const k of SETTINGS) if (document.activeElement !== $(`whatif-${k}`)) $(`whatif-${k}`).value = view.fields[k];
  drawChart();
  placeAdvice();
  placeOverlay();
}

function drawChart() {
  const cv = $('whatif-chart');
  if (!view) return void Object.assign(cv, { width: cv.width }).setAttribute('data-predicted', '0'); // cleared
  cv.dataset.predicted = draw(cv, { cmd: 'what_if_chart', width: cv.clientWidth, height: cv.clientHeight }).count;
}

/** The replay's verdict of the OOM the OOM panel explains, in its advice (its line is in the panel's template). */
function placeAdvice() {
  const p = $('explain-body').querySelector('[data-advice=whatif]'), event = $('explain-body').querySelector('h3')?.dataset.event;
  if (!p) return;
  // Nothing replayed yet for this file: the advice replays by itself (in slices, like the panel).
  if (!view && !panel.dataset.stage) return start('advise');
  const text = (view?.stage === 'done' && view.ooms.find((o) => String(o.event) === event)?.text) || '';
  if (p.textContent !== text) Object.assign(p, { textContent: text, hidden: !text });
}
new MutationObserver(guard(placeAdvice)).observe($('explain-body'), { childList: true });

$('whatif-form').addEventListener('submit', (e) => e.preventDefault()); // Enter in a field: its change event replays
$('whatif-form').addEventListener('change', guard(() => start(Object.fromEntries([['expandable_segments', $('whatif-expandable_segments').checked],
  ...SETTINGS.map((k) => [k, $(`whatif-${k}`).value])]))));
$('whatif-reset').addEventListener('click', guard(() => start(null)));
$('whatif-details').addEventListener('toggle', guard(() => { if ($('whatif-details').open && !view) start(null); }));

// A file or device switch: what belonged to the old one goes; an open panel replays the new one (its own
// settings) after the frame that shows it.
onDraw(() => {
  const v = getViewer();
  if (!v) return;
  placeOverlay();
  if (generation() === key) return;
  key = generation();
  run++;
  view = null;
  fill(panel, {});
  $('whatif-error').textContent = '';
  delete panel.dataset.stage;
  if (v.file_count() && $('whatif-details').open) afterPaint().then(guard(() => start(null))); else drawChart();
});
