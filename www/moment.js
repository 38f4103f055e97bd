// @ts-check
//# allFunctionsCalledOnLoad
// "Alive at" (templates in index.html; Viewer.panel over memviz-viewer's moment.rs): what is alive at a moment t:
// totals, a table by frame and the icicle (Rust pixels; a click zooms into a frame and highlights its allocations).
// A click on the plot, Enter at its cursor or Peak sets t; [ and ] move it a step.
import { ALONE_MS, getViewer, guard, onPin, onDraw, onGeneration, redraw, withAnalysis, command, pageNow, xOfStep } from './app.js';
import { $, fill, add, clear } from './bind.js';

/** One command of the analysis panels. @param {import('./types').PanelCommand} cmd @returns {any} */
export const ask = (cmd) => getViewer().panel(cmd);
/** The generation the viewer is at (what a view model must carry to be shown). */
export const generation = () => /** @type {number} */ (ask({ cmd: 'generation' }).generation);
/** Color by's legend (explain.js), of the moment shown. */
export const legend = () => fill($('explain-legend'), ask({ cmd: 'legend' }));

const panel = $('moment-panel'), plot = $('plot'), ici = $('moment-icicle'), line = $('moment-line'), table = $('moment-table');
const body = table.tBodies[0], tip = $('moment-icicle-tip');
(window.requestIdleCallback || setTimeout)(() => ici.getContext('2d')); // the first getContext took 2-8 ms
/** @type {import('./types').MomentPanelView | null} */
let view = null;
let icicleFrame = 0, work = [];
const current = () => view && getViewer() && generation() === view.generation;

/** Sets t. @param {import('./types').MomentArg} moment */
export function setMoment(moment) {
  if (!getViewer()?.file_count()) return;
  withAnalysis(() => {
    fill(panel, (view = ask({ cmd: 'moment', moment })));
    rows(true);
    placeLine();
    ici.dataset.icicle = 'pending';
    icicleFrame ||= requestAnimationFrame(icicleStep);
    legend();
  });
}

// The icicle a frame after the table: its tree, then its drawing in the same frame, or in the next when the tree
// took over ALONE_MS (the 2M-event file: 36 ms in one frame otherwise).
function icicleStep() {
  icicleFrame = 0;
  const t0 = performance.now();
  guard(() => {
    if (!current()) return;
    if (ici.dataset.icicle === 'pending') {
      ask({ cmd: 'icicle_tree' });
      [work, ici.dataset.icicle] = [[performance.now() - t0], 'tree'];
      if (work[0] > ALONE_MS) return void (icicleFrame = requestAnimationFrame(icicleStep));
    }
    drawIcicle();
    ici.dataset.icicleMs = [...work, performance.now() - t0].map((x) => x.toFixed(2)).join(','); // benches/browser
  })();
}

function drawIcicle() {
  ici.hidden = false; // its width is its box's
  const d = /** @type {import('./types').PanelDrawn} */ (getViewer().panel_draw(ici, { cmd: 'icicle', width: ici.clientWidth }));
  Object.assign(ici, { hidden: !d.drawn }).style.height = d.height + 'px';
  ici.dataset.icicle = 'drawn';
}

/** The table's next page (`fresh`: from its first row), after a click on column `sort`'s head if given. */
function rows(fresh, sort = null) {
  if (!current()) return;
  if (fresh) { clear(body); body.scrollTop = 0; }
  const r = /** @type {import('./types').RowsView} */ (ask({ cmd: 'rows', by: $('moment-by').value, filter: $('moment-filter').value,
    sort, offset: body.rows.length, limit: null }));
  add(body, r.rows);
  $('moment-key-head').textContent = r.head;
  Object.assign(table.dataset, { more: r.matched - body.rows.length, matched: r.matched });
  $('moment-more').textContent = r.more;
}

function placeLine() {
  const x = current() && view.at.step != null && pageNow().active_memory ? xOfStep(view.at.step + 0.5) : NaN;
  if (!(line.hidden = !(x >= 0 && x <= plot.clientWidth))) line.style.left = x + 'px'; // over the plot: style.css
}
/** Empties the panel of another file's or device's moment. */
function forget() {
  view = null;
  fill(panel, { at_text: '—' }); // the table's rows too
  ici.hidden = true;
  Object.assign(ici.dataset, { zoom: '', icicle: '' });
  legend();
}
// Before another file's or device's first paint: the moment of the one before, and its line over the plot, go.
onGeneration(() => { if (view) { forget(); line.hidden = true; } });
// Each draw: the line follows; another file or device clears the panel (when not done above).
onDraw(() => {
  try {
    if (view && !current()) forget();
    placeLine();
  } catch (_) { line.hidden = true; } // a trap: app.js restarts the viewer
});

ici.addEventListener('pointermove', guard((e) => fill(tip, current() ? ask({ cmd: 'icicle_tip', x: e.offsetX, y: e.offsetY }) : {})));
ici.addEventListener('pointerleave', () => { tip.hidden = true; });
addEventListener('resize', guard(() => { if (current() && ici.dataset.icicle === 'drawn') drawIcicle(); }));
ici.addEventListener('click', guard((e) => {
  if (!current() || ici.dataset.icicle !== 'drawn') return;
  ici.dataset.zoom = ask({ cmd: 'icicle_click', x: e.offsetX, y: e.offsetY }).zoom ?? '';
  drawIcicle();
  redraw();
}));
$('moment-peak').addEventListener('click', guard(() => setMoment('peak')));
for (const id of ['moment-filter', 'moment-by']) $(id).addEventListener('input', guard(() => rows(true)));
body.addEventListener('scroll', guard(() => {
  if (+table.dataset.more > 0 && body.scrollTop + body.clientHeight > body.scrollHeight - 200) rows(false);
}));
table.tHead.addEventListener('click', guard((e) => rows(true, e.target.closest('th')?.dataset.key ?? null)));
onPin(guard((x) => { if (pageNow().active_memory) setMoment({ step: command({ cmd: 'step_at_x', x }).value }); }));
// [ and ] on the focused plot move t by one step (the arrows pan, app.js).
plot.addEventListener('keydown', guard((e) => {
  const s = view?.at.step;
  if (s == null || !current() || (e.key !== '[' && e.key !== ']')) return;
  e.preventDefault();
  setMoment({ step: Math.max(0, Math.min(pageNow().steps - 1, s + (e.key === '[' ? -1 : 1))) });
}));
/** The last view shown (null before the first). */
export const momentView = () => view;
