// @ts-check
// The "What if" panel (template in index.html; Viewer.panel's what_if_*
// commands over memviz-viewer's whatif.rs): allocator settings in, the trace
// replayed under them a slice a frame, every string and line height from
// Rust; this file wires the form and draws the lines. The OOM panel gets the
// replay's verdict of the OOM it shows as one more line of advice.
import { getViewer, guard, inSlices, onDraw, afterPaint, settleListeners } from './app.js';
import { ask, generation } from './moment.js';
import { fill } from './bind.js';

/** @returns {any} */
const $ = (id) => document.getElementById(id);
// Trace events a call: the state history walks them at ~1 µs each in wasm,
// the replay faster; inSlices fills the frame's slice with calls.
const STEP = 4096;
const SETTINGS = ['max_split_size_mb', 'roundup_power2_divisions', 'garbage_collection_threshold', 'capacity_bytes'];
const COLORS = { recorded: '#4e79a7', predicted: '#f28e2c', cap: '#d62728' }; // as style.css's #whatif-legend
const panel = $('whatif-panel'), overlay = $('whatif-overlay'), plot = $('plot');
let key = -1; // the generation shown
let run = 0; // the replay under way; a later one cancels it
/** @type {import('./types').WhatIfView | null} */
let view = null; // the last one shown

/** A canvas sized to its box in device pixels, cleared. @returns {[CanvasRenderingContext2D, number, number, number]} */
function canvas(cv, cw = cv.clientWidth, ch = cv.clientHeight) {
  const dpr = window.devicePixelRatio || 1, w = Math.round(cw * dpr), h = Math.round(ch * dpr);
  if (cv.width !== w || cv.height !== h) Object.assign(cv, { width: w, height: h });
  const g = cv.getContext('2d');
  g.clearRect(0, 0, w, h);
  return [g, w, h, dpr];
}

// The prediction over the Active Cached Segment Timeline: points from Rust, in the plot's CSS pixels.
function placeOverlay() {
  let o = null;
  try { o = getViewer()?.file_count() ? ask({ cmd: 'what_if_overlay' }).overlay : null; } catch (_) { o = null; } // a trap: app.js restarts the viewer
  overlay.hidden = !o;
  fill($('whatif-overlay-legend'), o ?? {});
  if (!o) return void (overlay.dataset.points = '0');
  Object.assign(overlay.style, { left: plot.offsetLeft + 'px', top: plot.offsetTop + 'px', width: plot.clientWidth + 'px', height: plot.clientHeight + 'px' });
  Object.assign($('whatif-overlay-legend').style, { left: (plot.offsetLeft + 60) + 'px', top: (plot.offsetTop + 4) + 'px' });
  const [g, , , dpr] = canvas(overlay, plot.clientWidth, plot.clientHeight), p = o.points;
  g.lineJoin = 'round';
  g.beginPath();
  for (let i = 0; i < p.length; i += 2) g[i ? 'lineTo' : 'moveTo'](p[i] * dpr, p[i + 1] * dpr);
  g.strokeStyle = 'rgba(255,255,255,.9)'; g.lineWidth = 4 * dpr; g.stroke(); // a white halo under a colour none of the bands has
  g.strokeStyle = '#111111'; g.lineWidth = 2 * dpr; g.stroke();
  overlay.dataset.points = String(p.length / 2);
}

/** Shows a refusal (a PageError); anything else is a trap (app.js restarts the viewer). */
const refused = (e) => { if (!e || !e.kind) throw e; $('whatif-error').textContent = e.message; panel.dataset.error = e.kind; };

/** Chooses `fields` (null: the recording's; 'advise': the OOM panel's
 * advice, the recording's with expandable_segments:True) and replays a slice a frame. */
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

/** Lays out the view model. */
function show() {
  if (!getViewer()?.file_count()) return;
  try { view = ask({ cmd: 'what_if_view' }); } catch (e) { return refused(e); }
  panel.dataset.stage = view.stage;
  fill(panel, { ...view, busy: view.stage === 'done' ? '' : view.busy });
  $('whatif-expandable_segments').checked = view.fields.expandable_segments;
  for (const k of SETTINGS) if (document.activeElement !== $(`whatif-${k}`)) $(`whatif-${k}`).value = view.fields[k];
  draw();
  placeAdvice();
  placeOverlay();
}

/** Recorded and predicted reserved memory, the capacity and the OOMs, on one axis. */
function draw() {
  const c = view?.chart, cv = $('whatif-chart'), [g, w, h, dpr] = canvas(cv);
  cv.dataset.predicted = c ? c.predicted.length : 0;
  if (!c) return;
  const top = 14 * dpr, bottom = h - 14 * dpr, y = (share) => bottom - share * (bottom - top);
  const line = (ys, color, dash = []) => {
    g.strokeStyle = color; g.lineWidth = 1.5 * dpr; g.setLineDash(dash.map((d) => d * dpr));
    g.beginPath();
    ys.forEach((s, i) => { g[i ? 'lineTo' : 'moveTo']((i / ys.length) * w, y(s)); g.lineTo(((i + 1) / ys.length) * w, y(s)); });
    g.stroke();
  };
  g.strokeStyle = COLORS.cap; g.lineWidth = dpr; g.setLineDash([2 * dpr, 2 * dpr]);
  for (const x of c.ooms) { g.beginPath(); g.moveTo(x * w, top); g.lineTo(x * w, bottom); g.stroke(); }
  if (c.cap != null) line([c.cap, c.cap], COLORS.cap, [6, 4]);
  line(c.recorded, COLORS.recorded);
  line(c.predicted, COLORS.predicted);
  g.setLineDash([]);
  g.fillStyle = '#333'; g.font = `${11 * dpr}px sans-serif`;
  g.fillText(c.top, 3 * dpr, 11 * dpr);
  g.fillText(c.x_label, 3 * dpr, h - 3 * dpr);
}

/** The replay's verdict of the OOM the OOM panel shows, as one more line of its advice. */
function placeAdvice() {
  const h = /** @type {HTMLElement} */ (document.querySelector('#explain-body h3[data-what=oom]'));
  if (!h) return;
  // An OOM explained and nothing replayed yet for this file: the advice replays by itself (in slices, like the panel).
  if (!view && !panel.dataset.stage) return start('advise');
  const o = view?.ooms.find((x) => String(x.event) === h.dataset.event), last = [...document.querySelectorAll('#explain-body .advice')].pop();
  let p = document.querySelector('#explain-body .advice[data-advice=whatif]');
  if (!o || view.stage !== 'done' || !last) return p?.remove();
  if (!p) last.after((p = Object.assign(document.createElement('p'), { className: 'advice' })));
  p.setAttribute('data-advice', 'whatif');
  if (p.textContent !== o.text) p.textContent = o.text;
}
new MutationObserver(guard(placeAdvice)).observe($('explain-body'), { childList: true });

$('whatif-form').addEventListener('submit', (e) => e.preventDefault()); // Enter in a field: its change event replays
$('whatif-form').addEventListener('change', guard(() => start(Object.fromEntries([['expandable_segments', $('whatif-expandable_segments').checked],
  ...SETTINGS.map((k) => [k, $(`whatif-${k}`).value])]))));
$('whatif-reset').addEventListener('click', guard(() => start(null)));
$('whatif-details').addEventListener('toggle', guard(() => { if ($('whatif-details').open && !view) start(null); }));

// A file or device switch: what belonged to the old one goes; an open panel
// replays the new one (its own settings) after the frame that shows it.
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
  if (v.file_count() && $('whatif-details').open) afterPaint().then(guard(() => start(null))); else draw();
});
