// @ts-check
//# allFunctionsCalledOnLoad
// "Explain the memory" (templates in index.html; Viewer.panel over memviz-viewer's explain.rs): the Findings strip
// (issue 40), Color by and its legend at t, on each timeline a marker for its own peak (issue 43) and one per OOM,
// the OOM or peak explained (picking one sets t), leaks and growth. Another generation's view models are dropped.
import { ALONE_MS, getViewer, guard, redraw, onDraw, onGeneration, withAnalysis, afterPaint, pageNow, settleListeners } from './app.js';
import { ask, generation, setMoment, legend } from './moment.js';
import { $, fill, onCmd } from './bind.js';

const plot = $('plot'), markers = $('explain-markers'), strip = $('findings');
let gen = -1, shown = null, placed = -1; // the generation the panels show, the moment explained, the one whose Findings are in place
let emptied = -1; // the generation whose panels were emptied before its first paint

/** Places the markers on the plot (another view: its own first). */
function placeMarkers() {
  const { places, stale } = ask({ cmd: 'marker_places', width: plot.clientWidth });
  if (stale) return overview();
  [...markers.children].forEach((el, i) => {
    el.hidden = !places[i]; // x and its label's row (--top); its top and height: style.css
    el.style.cssText = places[i] ? `left: ${places[i].x}px; --top: ${places[i].top}px` : '';
  });
}

/** The markers and the OOM list of the timeline shown. */
function overview() {
  const over = /** @type {import('./types').OverviewView} */ (ask({ cmd: 'overview' }));
  fill(markers, over);
  fill($('explain-list'), over);
  placeMarkers();
  return over;
}

/** The findings, most important first (the analysis built first, a slice a frame; another generation cancels it). */
function findings() {
  const g = gen;
  withAnalysis(() => { fill(strip, /** @type {import('./types').FindingsView} */ (ask({ cmd: 'findings' }))); placed = g; });
}
/** Whether the Findings strip (above the plot: it moves it down) is in place for the file shown. */
export const findingsPlaced = () => placed === gen && gen === generation();

/** Explains `moment` (an OOM: {oom: K}; 'peak'; {event: E}) and sets t there. @param {import('./types').MomentArg} moment */
export function explain(moment) {
  settleListeners();
  withAnalysis(() => {
    const x = /** @type {import('./types').ExplainView} */ (ask({ cmd: 'explain', moment }));
    setMoment((shown = moment));
    for (const b of $('explain-list').querySelectorAll('button')) b.classList.toggle('on', b.dataset.payload === JSON.stringify(moment));
    fill($('explain-body'), x);
  });
}

// The leak report walks every allocation: computed when opened; laid out a frame later when it took over
// ALONE_MS (the 2M-event file: one 22 ms frame).
function showLeaks() {
  if (!getViewer().file_count() || !$('leaks-details').open) return fill($('leaks-body'), null);
  withAnalysis(() => {
    const t0 = performance.now(), r = /** @type {import('./types').LeaksView} */ (ask({ cmd: 'leaks' }));
    const put = () => { if (generation() === r.generation && $('leaks-details').open) fill($('leaks-body'), r); };
    if (performance.now() - t0 < ALONE_MS) put(); else requestAnimationFrame(guard(put));
  }, { state: false });
}
const STALE = ['explain-markers', 'explain-list', 'explain-body', 'leaks-body', 'findings'];
// Another file's or device's findings and markers go before its first paint: with the draw listeners, the old
// file's OOM marker and findings stood over the new plot for two frames. Nothing to clear before a first file.
onGeneration((p) => {
  if (gen !== -1) for (const id of STALE) fill($(id), null);
  emptied = p.generation;
});
// Each draw: another generation clears what was the old file's or device's, and the new one's overview comes
// after the frame that shows it (landmarks only: the analysis waits until asked for); another view, its markers.
onDraw(() => {
  try {
    const v = getViewer(), g = generation(), p = pageNow();
    if (g !== gen) {
      [gen, shown] = [g, null];
      if (emptied !== g) for (const id of STALE) fill($(id), null); // a reset, which shows no file
      if (!v.file_count()) return;
      ask({ cmd: 'highlight', node: null });
      afterPaint().then(guard(() => {
        if (generation() !== g) return;
        if (overview().findings_now) findings();
        else { fill(strip, { shown: true, compute: true }); placed = g; } // a long trace: on a click
        showLeaks();
        legend();
      }));
    }
    $('explain-bar').style.visibility = v.file_count() && p.color_by_acts ? '' : 'hidden'; // Color by acts here; its room is kept
    placeMarkers();
  } catch (_) { markers.replaceChildren(); } // a trap: app.js restarts the viewer
});
$('color-by').addEventListener('change', guard(() => {
  const mode = $('color-by').value, apply = () => { ask({ cmd: 'color_by', mode }); legend(); redraw(); };
  if (mode === 'allocation') apply(); else withAnalysis(apply, { state: false }); // kinds and frames read the analysis
}));
for (const el of [$('explain-list'), markers]) onCmd(el, guard(explain));
$('findings-compute').addEventListener('click', guard((e) => { e.preventDefault(); findings(); }));
// A finding links to its evidence: memviz-viewer's explain.rs says which panel and where t goes.
onCmd(strip, guard((/** @type {import('./types').FindingView} */ f) => {
  if (f.open === 'explain') explain(f.moment ?? 'peak');
  else if (f.moment) setMoment(f.moment);
  if (f.open === 'leaks') $('leaks-details').open = true; // its toggle shows the report
  $(`${f.open}-panel`)?.scrollIntoView({ block: 'start' });
}));
$('leaks-details').addEventListener('toggle', guard(showLeaks));
/** The moment explained (null when none). */
export const shownExplanation = () => shown;
