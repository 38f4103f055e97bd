// @ts-check
// The "What if" panel (markup in index.html; Viewer.panel's what_if_*
// commands over memviz-viewer's whatif.rs): allocator settings in, the trace
// replayed under them a slice a frame, every string and line height from
// Rust; this file lays them out and draws them. The OOM panel gets the
// replay's verdict of the OOM it shows as one more line of advice.
import { getViewer, guard, inSlices, onDraw, afterPaint } from './app.js';
import { esc, ask, generation } from './moment.js';

/** @returns {any} */
const $ = (id) => document.getElementById(id);

/** @typedef {import('./types').WhatIfView} WhatIfView */
/** @typedef {import('./types').WhatIfOverlay} WhatIfOverlay */
// Trace events a call: the state history walks them at ~1 µs each in wasm,
// the replay faster; inSlices fills the frame's slice with calls.
const STEP = 4096;
const SETTINGS = ['max_split_size_mb', 'roundup_power2_divisions', 'garbage_collection_threshold', 'capacity_bytes'];
const COLORS = { recorded: '#4e79a7', predicted: '#f28e2c', cap: '#d62728' };
const OVERLAY = '#111111'; // over the segment timeline: a colour none of its bands has, on a white halo
const panel = $('whatif-panel');
// The prediction over the Active Cached Segment Timeline: points from Rust,
// in the plot canvas' CSS pixels.
const overlay = $('whatif-overlay'), overlayLegend = $('whatif-overlay-legend');

function placeOverlay() {
  const v = getViewer(), plot = $('plot');
  /** @type {WhatIfOverlay | null} */
  let o = null;
  try { o = v && v.file_count() ? ask({ cmd: 'what_if_overlay' }).overlay : null; } catch (_) { o = null; } // a trap: app.js restarts the viewer
  overlay.hidden = overlayLegend.hidden = !o;
  if (!o) { overlay.dataset.points = '0'; return; }
  const dpr = window.devicePixelRatio || 1;
  const cw = plot.clientWidth, ch = plot.clientHeight;
  const w = Math.round(cw * dpr), h = Math.round(ch * dpr);
  if (overlay.width !== w || overlay.height !== h) { overlay.width = w; overlay.height = h; }
  Object.assign(overlay.style, { left: plot.offsetLeft + 'px', top: plot.offsetTop + 'px', width: cw + 'px', height: ch + 'px' });
  const g = overlay.getContext('2d');
  g.clearRect(0, 0, w, h);
  g.lineJoin = 'round';
  g.beginPath();
  const p = o.points;
  for (let i = 0; i < p.length; i += 2) g[i ? 'lineTo' : 'moveTo'](p[i] * dpr, p[i + 1] * dpr);
  g.strokeStyle = 'rgba(255,255,255,.9)'; g.lineWidth = 4 * dpr; g.stroke();
  g.strokeStyle = OVERLAY; g.lineWidth = 2 * dpr; g.stroke();
  overlay.dataset.points = String(p.length / 2);
  if (overlayLegend.dataset.label !== o.label) overlayLegend.innerHTML = `<i></i>${esc((overlayLegend.dataset.label = o.label))}`;
  Object.assign(overlayLegend.style, { left: (plot.offsetLeft + 60) + 'px', top: (plot.offsetTop + 4) + 'px' });
}

let key = -1; // the generation shown
let run = 0; // the replay under way; a later one cancels it
/** @type {WhatIfView | null} */
let view = null; // the last one shown

function fieldsOfForm() {
  const f = { expandable_segments: $('whatif-expandable_segments').checked };
  for (const k of SETTINGS) f[k] = $(`whatif-${k}`).value;
  return f;
}

function fillForm(f) {
  $('whatif-expandable_segments').checked = f.expandable_segments;
  for (const k of SETTINGS) if (document.activeElement !== $(`whatif-${k}`)) $(`whatif-${k}`).value = f[k];
}

const text = (id, s) => { $(id).textContent = s ?? ''; };
/** Shows a refusal (a PageError); anything else is a trap (app.js restarts the viewer). */
const refused = (e) => { if (!e || !e.kind) throw e; text('whatif-error', e.message); panel.dataset.error = e.kind; };

/** Chooses `fields` (null: the recording's; 'advise': the OOM panel's
 * advice, the recording's with expandable_segments:True) and replays a slice a frame. */
function start(fields) {
  const v = getViewer();
  if (!v || !v.file_count()) return;
  try { ask(fields === 'advise' ? { cmd: 'what_if_advise' } : { cmd: 'what_if_set', fields }); } catch (e) { refused(e); return; }
  text('whatif-error', '');
  delete panel.dataset.error;
  const me = ++run, k = generation(), t0 = performance.now();
  panel.dataset.stage = 'busy';
  let replayed = false;
  const r = inSlices(guard(() => {
    const share = ask({ cmd: 'what_if_step', budget: STEP }).done;
    // For benches/browser: when the prediction's replay (the line) was done.
    if (!replayed && share >= 0.6) {
      replayed = true;
      document.body.dataset.whatifReplayMs = (performance.now() - t0).toFixed(1);
    }
    return share;
  }), {
    cancelled: () => me !== run || getViewer() !== v || generation() !== k,
    progress: (share) => text('whatif-busy', `${view?.busy || 'replaying'}: ${Math.round(share * 100)}%`),
  });
  const done = (slices) => {
    if (me !== run) return;
    if (slices) {
      document.body.dataset.whatifMs = (performance.now() - t0).toFixed(1);
      document.body.dataset.whatifSlices = slices.map((x) => x.toFixed(1)).join(',');
    }
    show();
  };
  if (r instanceof Promise) {
    show();
    r.then(guard(done));
  } else if (r) done(r);
}

/** Lays out the view model. */
function show() {
  const v = getViewer();
  if (!v || !v.file_count()) return;
  try { view = ask({ cmd: 'what_if_view' }); } catch (e) { refused(e); return; }
  panel.dataset.stage = view.stage;
  fillForm(view.fields);
  text('whatif-capacity-size', view.capacity_size ? `(${view.capacity_size})` : '');
  text('whatif-busy', view.stage === 'done' ? '' : view.busy);
  $('whatif-selfcheck').dataset.exact = view.self_check_exact;
  for (const [id, t] of [['selfcheck', view.self_check], ['capacity', view.capacity], ['headline', view.headline],
    ['new', view.new_ooms], ['needs', view.needs], ['assumption', view.assumption]]) text('whatif-' + id, t);
  $('whatif-ooms').innerHTML = view.ooms.map((o) =>
    `<li data-event="${o.event}" data-happens="${o.happens}">${esc(o.text)}</li>`).join('');
  if (view.needs_bytes != null) $('whatif-needs').dataset.bytes = view.needs_bytes;
  draw();
  placeAdvice();
  placeOverlay();
}

/** Recorded and predicted reserved memory, the capacity and the OOMs, on one axis. */
function draw() {
  const c = view?.chart, cv = $('whatif-chart');
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(cv.clientWidth * dpr), h = Math.round(cv.clientHeight * dpr);
  if (cv.width !== w || cv.height !== h) { cv.width = w; cv.height = h; }
  const g = cv.getContext('2d');
  g.clearRect(0, 0, w, h);
  cv.dataset.predicted = c ? c.predicted.length : 0;
  if (!c) return;
  const top = 14 * dpr, bottom = h - 14 * dpr;
  const y = (share) => bottom - share * (bottom - top);
  const line = (ys, color, dash = []) => {
    if (!ys.length) return;
    g.strokeStyle = color; g.lineWidth = 1.5 * dpr; g.setLineDash(dash.map((d) => d * dpr));
    g.beginPath();
    ys.forEach((s, i) => {
      const x0 = (i / ys.length) * w, x1 = ((i + 1) / ys.length) * w;
      if (i === 0) g.moveTo(x0, y(s)); else g.lineTo(x0, y(s));
      g.lineTo(x1, y(s));
    });
    g.stroke();
  };
  g.strokeStyle = '#d62728'; g.lineWidth = dpr; g.setLineDash([2 * dpr, 2 * dpr]);
  for (const x of c.ooms) { g.beginPath(); g.moveTo(x * w, top); g.lineTo(x * w, bottom); g.stroke(); }
  if (c.cap != null) line([c.cap, c.cap], COLORS.cap, [6, 4]);
  line(c.recorded, COLORS.recorded);
  line(c.predicted, COLORS.predicted);
  g.setLineDash([]);
  g.fillStyle = '#333'; g.font = `${11 * dpr}px sans-serif`;
  g.fillText(c.top, 3 * dpr, 11 * dpr);
  g.fillText(c.x_label, 3 * dpr, h - 3 * dpr);
  const item = (label, color) => label ? `<span><i style="background:${color}"></i>${esc(label)}</span>` : '';
  $('whatif-legend').innerHTML = item(c.recorded_label, COLORS.recorded) + item(c.predicted_label, COLORS.predicted) +
    (c.cap != null ? item(`capacity ${view.capacity_size}`, COLORS.cap) : '');
}

/** The replay's verdict of the OOM the OOM panel shows, as one more line of its advice. */
function placeAdvice() {
  const body = $('explain-body');
  const h = body && body.querySelector('h3[data-what=oom]');
  if (!h) return;
  // An OOM explained and nothing replayed yet for this file: the advice
  // replays by itself (in slices, like the panel).
  if (!view && !panel.dataset.stage) { start('advise'); return; }
  const o = view?.ooms.find((x) => String(x.event) === h.dataset.event);
  let p = body.querySelector('.advice[data-advice=whatif]');
  if (!o || view.stage !== 'done') { if (p) p.remove(); return; }
  if (!p) {
    p = document.createElement('p');
    p.className = 'advice';
    p.dataset.advice = 'whatif';
    const last = [...body.querySelectorAll('.advice')].pop();
    if (!last) return;
    last.after(p);
  }
  if (p.textContent !== o.text) p.textContent = o.text;
}
new MutationObserver(guard(placeAdvice)).observe($('explain-body') || document.body, { childList: true });

$('whatif-form').addEventListener('submit', (e) => e.preventDefault()); // Enter in a field: its change event replays
$('whatif-form').addEventListener('change', guard(() => start(fieldsOfForm())));
$('whatif-reset').addEventListener('click', guard(() => start(null)));
$('whatif-details').addEventListener('toggle', guard(() => {
  if ($('whatif-details').open && !view) start(null);
}));

// A file or device switch: what belonged to the old one goes; an open panel
// replays the new one (its own settings) after the frame that shows it.
onDraw(() => {
  const v = getViewer();
  if (!v) return;
  placeOverlay();
  const k = generation();
  if (k === key) return;
  key = k;
  run++;
  view = null;
  for (const id of ['whatif-error', 'whatif-busy', 'whatif-selfcheck', 'whatif-capacity', 'whatif-headline', 'whatif-new',
    'whatif-needs', 'whatif-legend', 'whatif-capacity-size']) text(id, '');
  $('whatif-ooms').innerHTML = '';
  delete panel.dataset.stage;
  if (v.file_count() && $('whatif-details').open) afterPaint().then(guard(() => start(null)));
  else draw();
});
