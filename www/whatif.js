// @ts-check
//# allFunctionsCalledOnLoad
// "What if" (template in index.html; Viewer.panel's what_if_* commands, memviz-viewer's whatif.rs): allocator
// settings in, the trace replayed under them a slice a frame; texts, chart and the line over the plot from Rust.
import { getViewer, guard, inSlices, onDraw, onGeneration, afterPaint, settleListeners } from './app.js';
import { ask, generation } from './moment.js';
import { $, fill } from './bind.js';

const STEP = 4096; // trace events a call (~1 µs each): inSlices fills a frame's slice with calls
const panel = $('whatif-panel'), form = $('whatif-form'), plot = $('plot');
const overlay = $('whatif-overlay'), legend = $('whatif-overlay-legend');
/** @type {HTMLInputElement[]} the settings' fields, each named as WhatIfFields' key */
const fields = [...form.elements].filter((e) => e.name);
let key = -1, run = 0; // the generation shown; the replay under way (a later one cancels it)
/** @type {import('./types').WhatIfView | null} */
let view = null; // the last one shown

const prop = (f) => (f.type === 'checkbox' ? 'checked' : 'value');
/** Draws `cmd` into `canvas` (Rust pixels) at `box`'s size. @returns {import('./types').PanelDrawn} */
const draw = (canvas, cmd, box = canvas) => getViewer().panel_draw(canvas, { cmd, width: box.clientWidth, height: box.clientHeight });

// The prediction over the Active Cached Segment Timeline (the overlay has the plot's box: style.css).
function placeOverlay() {
  const o = getViewer()?.file_count() ? draw(overlay, 'what_if_overlay', plot) : null;
  for (const el of [legend, overlay]) fill(el, o ?? {}); // the overlay: whether drawn, its points (index.html)
}
/** Shows a refusal (a PageError; null: none); anything else is a trap (app.js restarts the viewer). */
const refused = (e) => { if (e && !e.kind) throw e; fill($('whatif-error'), e ?? {}); panel.dataset.error = e?.kind ?? ''; };

/** Replays under `settings` (null: the recording's; 'advise': the OOM panel's, the recording's with
 * expandable_segments:True) a slice a frame. */
function start(settings) {
  const v = getViewer();
  if (!v?.file_count()) return;
  settleListeners();
  const cmd = settings === 'advise' ? { cmd: 'what_if_advise' } : { cmd: 'what_if_set', fields: settings };
  try { ask(/** @type {import('./types').PanelCommand} */ (cmd)); refused(null); } catch (e) { return refused(e); }
  const me = ++run, k = generation(), t0 = performance.now(), body = document.body.dataset;
  const ms = () => (performance.now() - t0).toFixed(1);
  panel.dataset.stage = 'busy';
  delete body.whatifReplayMs;
  const r = inSlices(guard(() => {
    const p = ask({ cmd: 'what_if_step', budget: STEP });
    $('whatif-busy').textContent = p.text;
    if (p.done >= 0.6) body.whatifReplayMs ||= ms(); // benches/browser: the prediction's replay (the line) done
    return p.done;
  }), { cancelled: () => me !== run || getViewer() !== v || generation() !== k });
  const done = (slices) => {
    if (me !== run) return;
    if (slices) Object.assign(body, { whatifMs: ms(), whatifSlices: slices.map((x) => x.toFixed(1)).join(',') });
    show();
  };
  if (r instanceof Promise) { show(); r.then(guard(done)); } else if (r) done(r);
}

/** Lays out the view model and draws the chart. */
function show() {
  if (!getViewer()?.file_count()) return;
  try { view = ask({ cmd: 'what_if_view' }); } catch (e) { return refused(e); }
  fill(panel, view); // its data-stage too
  for (const f of fields) if (f !== document.activeElement) Object.assign(f, { [prop(f)]: view.fields[f.name] });
  drawChart();
  placeAdvice();
  placeOverlay();
}

const drawChart = (cv = $('whatif-chart')) => (cv.dataset.predicted = String(draw(cv, 'what_if_chart').count));

/** The replay's verdict of the OOM the OOM panel explains, on its advice line (in the panel's template). */
function placeAdvice() {
  const p = $('explain-body').querySelector('[data-advice=whatif]'), text = view?.advice ?? '';
  if (!p) return;
  if (!view && !panel.dataset.stage) return start('advise'); // nothing replayed for this file yet: it replays by itself
  if (p.textContent !== text) Object.assign(p, { textContent: text, hidden: !text });
}
new MutationObserver(guard(placeAdvice)).observe($('explain-body'), { childList: true });

form.addEventListener('change', guard(() => start(Object.fromEntries(fields.map((f) => [f.name, f[prop(f)]])))));
$('whatif-reset').addEventListener('click', guard(() => start(null)));
$('whatif-details').addEventListener('toggle', guard(() => { if ($('whatif-details').open && !view) start(null); }));
// Another file's or device's first paint shows none of the old one's prediction over its plot.
onGeneration(() => { if (!overlay.hidden || !legend.hidden) overlay.hidden = legend.hidden = true; });
// Each draw: the overlay follows; another file or device drops what was the old one's, and an open panel
// replays the new one (its own settings) after the frame that shows it.
onDraw(() => {
  const v = getViewer();
  try { placeOverlay(); } catch (_) { overlay.hidden = true; } // a trap: app.js restarts the viewer
  if (!v || generation() === key) return;
  [key, view, run] = [generation(), null, run + 1];
  fill(panel, {}); // its error too
  if (v.file_count() && $('whatif-details').open) afterPaint().then(guard(() => start(null))); else drawChart();
});
