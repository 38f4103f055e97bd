//# allFunctionsCalledOnLoad
// "Alive at" panel: what is alive at one moment t of the Active Memory
// Timeline (memviz_core::analysis through Viewer.moment_json). A click on the
// plot (which also pins, app.js) or Enter at its keyboard cursor, or the
// Peak button, sets t; [ and ] move it by one step while the plot has focus.
// Shows the totals, a bottom-up table by innermost user frame or by any frame
// (sortable, filterable), bytes by kind and the icicle (a click zooms into a
// frame and highlights its allocations in the timeline). A file or device
// switch clears it all.
import { ALONE_MS, getViewer, guard, onPin, onDraw, redraw, withAnalysis } from './app.js';
import * as icicle from './icicle.js';

const $ = (id) => document.getElementById(id);
const plot = $('plot');
const box = $('plot-box');
const GiB = 1024 ** 3, MiB = 1024 ** 2, KiB = 1024;
const fmt = (b) => b >= GiB ? (b / GiB).toFixed(2) + ' GiB' : b >= MiB ? (b / MiB).toFixed(1) + ' MiB'
  : b >= KiB ? (b / KiB).toFixed(1) + ' KiB' : b + ' B';
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

const panel = document.createElement('section');
panel.id = 'moment-panel';
panel.innerHTML = `
  <h2>Alive at <span id="moment-at">—</span>
    <button id="moment-peak" type="button" title="Set t to the Active Memory Timeline's peak">Peak</button></h2>
  <p class="help">Click the Active Memory Timeline (or Enter at its keyboard cursor) to set t · [ / ] on the plot: one step</p>
  <div id="moment-totals"></div>
  <div id="moment-kinds"></div>
  <label>Group by <select id="moment-by">
    <option value="user">innermost user frame</option>
    <option value="frame">any frame (inclusive: shares overlap)</option></select></label>
  <input id="moment-filter" type="search" placeholder="filter frames">
  <table id="moment-table"><thead><tr>
    <th data-key="key" id="moment-key-head">innermost user frame</th><th data-key="bytes">bytes</th>
    <th data-key="count">count</th><th data-key="bytes">share</th></tr></thead><tbody></tbody></table>
  <div id="moment-more" class="help"></div>
  <h3>Live bytes by stack (root at top, width = bytes)</h3>
  <div id="moment-icicle-box"><canvas id="moment-icicle"></canvas><pre id="moment-icicle-tip" hidden></pre></div>`;
$('context').after(panel);
const ici = $('moment-icicle');
(window.requestIdleCallback || setTimeout)(() => icicle.warm(ici));
const line = document.createElement('div');
line.id = 'moment-line';
line.hidden = true;
box.style.position = box.style.position || 'relative';
box.appendChild(line);

let t = null; // the moment: {spec, step}
let view = null; // the last MomentView
let sort = { key: 'bytes', dir: -1 };
let fileKey = '';
let zoom = null; // icicle node zoomed into (and highlighted in the timeline)
const momentListeners = [];
/** fn() after t moved or the panel was cleared (explain.js's legend). */
export function onMoment(fn) {
  momentListeners.push(fn);
}
// Rows the table lays out at first, a few more than its box shows (24em);
// scrolling near its end adds as many again. A hundred rows of long frames
// took 4-6 ms to lay out on the 2M-event file, more than the query.
const PAGE_ROWS = 30;
const viewer = getViewer;
const keyNow = () => { const v = viewer(); return v ? `${v.current_file()}/${v.device()}/${v.file_count()}` : ''; };

function setMoment(spec) {
  const v = viewer();
  if (!v || v.file_count() === 0) return;
  withAnalysis(() => momentNow(v, spec));
}

function momentNow(v, spec) {
  // Groups: the few largest of each grouping (explain.js's legend); the
  // table asks the viewer for its rows (table()); the icicle comes a frame
  // later (icicleSoon).
  view = JSON.parse(v.moment_json(spec, 10));
  fileKey = keyNow();
  t = { spec, step: view.at.step };
  panel.dataset.step = view.at.step ?? '';
  show();
  placeLine();
  icicleSoon();
  for (const f of momentListeners) f();
}

// The icicle comes after the table, its tree fetched in the next frame and
// drawn in the same one when that took under ALONE_MS (half a slice),
// else in the one after: on the 2M-event file the tree was 2/3 of the
// moment's query and its drawing as long again (36 ms in one frame at the
// panel's first showing; 7 + 15 ms at the icicle's first, its code and
// canvas new). Moves of t within a frame make one icicle, of the last.
let icicleFrame = 0;
let icicleWork = []; // this icicle's frames' work, ms
function icicleSoon() {
  ici.dataset.icicle = 'pending';
  icicleWork = [];
  if (view) view.tree = null;
  if (!icicleFrame) icicleFrame = requestAnimationFrame(icicleStep);
}

function icicleStep() {
  icicleFrame = 0;
  guard(() => {
    const v = viewer();
    if (!view || !v || keyNow() !== fileKey) return;
    const t0 = performance.now();
    if (!view.tree) {
      // Nodes of at least 1/1500 of the peak, about a pixel of the canvas
      // (narrower ones are not drawn).
      const { frames, nodes } = JSON.parse(v.moment_tree_json(Math.floor(v.peak_bytes() / 1500)));
      view.tree = nodes.map(([id, parent, depth, f, bytes, count]) => ({ id, parent, depth, frame: frames[f], bytes, count }));
      if (performance.now() - t0 > ALONE_MS) {
        icicleWork.push(performance.now() - t0);
        icicleFrame = requestAnimationFrame(icicleStep);
        return;
      }
    }
    icicle.draw(ici, view.tree, zoom);
    icicleWork.push(performance.now() - t0);
    ici.dataset.icicle = 'drawn';
    ici.dataset.icicleMs = icicleWork.map((x) => x.toFixed(2)).join(','); // for benches/browser/explain.mjs
  })();
}

function show() {
  const v = view;
  $('moment-at').textContent = t.step != null ? `step ${t.step}` : `position ${v.at.position}`;
  const tot = v.totals;
  const item = (k, label, val) => `<span data-key="${k}" data-value="${val}"><b>${label}</b> ${fmt(val)}</span>`;
  $('moment-totals').innerHTML = [
    item('allocated', 'allocated', v.bytes),
    tot ? item('reserved', 'reserved', tot.reserved_bytes) : '',
    tot ? item('gap', 'gap', tot.gap_bytes) : '',
    tot ? item('largest-free', 'largest free block', tot.largest_free_bytes) : '',
    `<span data-key="count" data-value="${v.count}"><b>allocations</b> ${v.count}</span>`,
  ].join(' · ');
  $('moment-kinds').innerHTML = '<b>by kind:</b> ' + v.by_category.filter((g) => g.bytes > 0)
    .map((g) => `<span class="kind" data-kind="${esc(g.key)}" data-bytes="${g.bytes}">${esc(g.key)} ${fmt(g.bytes)}</span>`).join(' · ');
  table();
}

function table() {
  const v = viewer();
  if (!view || !v || keyNow() !== fileKey) return;
  const by = $('moment-by').value;
  $('moment-key-head').textContent = by === 'frame' ? 'frame (bytes of everything under it)' : 'innermost user frame';
  $('moment-table').tBodies[0].innerHTML = '';
  $('moment-table').tBodies[0].scrollTop = 0;
  moreRows();
}

// The next PAGE_ROWS rows of the table: the viewer filters and sorts every
// group of the moment (thousands on a big file) and sends only those.
function moreRows() {
  const body = $('moment-table').tBodies[0];
  const shown = body.rows.length;
  const by = $('moment-by').value === 'frame' ? 'frame' : 'user_frame';
  const r = JSON.parse(viewer().moment_rows_json(by, $('moment-filter').value, sort.key, sort.dir < 0, shown, PAGE_ROWS));
  const total = view.bytes || 1;
  body.insertAdjacentHTML('beforeend', r.rows.map((g) =>
    `<tr><td title="${esc(g.key)}">${esc(g.key || '(no frames)')}</td><td data-bytes="${g.bytes}">${fmt(g.bytes)}</td>` +
    `<td>${g.count}</td><td>${(100 * g.bytes / total).toFixed(1)}%</td></tr>`).join(''));
  const more = r.matched - body.rows.length;
  $('moment-table').dataset.more = more;
  $('moment-table').dataset.matched = r.matched;
  $('moment-more').textContent = more > 0 ? `${body.rows.length} of ${r.matched} rows: scroll the table for more` : '';
}

function placeLine() {
  const v = viewer();
  if (!t || t.step == null || !v || keyNow() !== fileKey || !v.is_active_memory()) { line.hidden = true; return; }
  const x = v.x_of_step(t.step + 0.5);
  const w = plot.clientWidth;
  if (!(x >= 0 && x <= w)) { line.hidden = true; return; }
  line.hidden = false;
  line.style.left = (plot.offsetLeft + x) + 'px';
  line.style.top = plot.offsetTop + 'px';
  line.style.height = plot.clientHeight + 'px';
}
// Another file or device: what the panel shows belongs to the old one.
function clear() {
  view = null;
  t = null;
  zoom = null;
  fileKey = '';
  panel.dataset.step = '';
  $('moment-at').textContent = '—';
  for (const id of ['moment-totals', 'moment-kinds', 'moment-more']) $(id).innerHTML = '';
  $('moment-table').tBodies[0].innerHTML = '';
  ici.hidden = true;
  ici.dataset.zoom = '';
  ici.dataset.icicle = '';
  if (icicleFrame) cancelAnimationFrame(icicleFrame);
  icicleFrame = 0;
  for (const f of momentListeners) f();
}
// The plot redraws on zoom/pan/resize, and on a file or device switch: the
// line follows each draw (app.js), and a switch clears the panel.
onDraw(() => {
  try {
    if (view && keyNow() !== fileKey) clear();
    placeLine();
  } catch (_) { line.hidden = true; } // a trap: app.js restarts the viewer
});

ici.addEventListener('pointermove', (e) => {
  const b = icicle.hit(e.offsetX, e.offsetY);
  const tip = $('moment-icicle-tip');
  tip.hidden = !b;
  if (!b) return;
  tip.textContent = icicle.text(b);
  tip.style.left = Math.min(e.offsetX + 12, ici.clientWidth - 300) + 'px';
  tip.style.top = (e.offsetY + 14) + 'px';
});
ici.addEventListener('pointerleave', () => { $('moment-icicle-tip').hidden = true; });
addEventListener('resize', () => { if (view?.tree) icicle.draw(ici, view.tree, zoom); });
// A click zooms into the frame (its top row: back out to everything) and
// highlights its allocations in the timeline, the others grayed.
ici.addEventListener('click', guard((e) => {
  const b = icicle.hit(e.offsetX, e.offsetY);
  const v = viewer();
  if (!b || !view?.tree || !v) return;
  zoom = b.y === 0 || b.n.parent === 0xffffffff ? null : b.n.id;
  ici.dataset.zoom = zoom ?? '';
  v.highlight_node(zoom ?? -1);
  icicle.draw(ici, view.tree, zoom);
  redraw();
}));

$('moment-peak').addEventListener('click', guard(() => setMoment('peak')));
$('moment-filter').addEventListener('input', guard(table));
$('moment-table').tBodies[0].addEventListener('scroll', guard((e) => {
  const b = e.target;
  if (view && keyNow() === fileKey && +$('moment-table').dataset.more > 0 &&
    b.scrollTop + b.clientHeight > b.scrollHeight - 200) moreRows();
}));
$('moment-by').addEventListener('change', guard(table));
panel.querySelector('thead').addEventListener('click', (e) => {
  const th = e.target.closest('th');
  if (!th) return;
  const key = th.dataset.key;
  sort = { key, dir: sort.key === key ? -sort.dir : (key === 'key' ? 1 : -1) };
  guard(table)();
});

// A band pinned by a click or by Enter at the keyboard cursor (app.js) sets t.
onPin(guard((x) => {
  const v = viewer();
  if (!v || !v.is_active_memory()) return;
  setMoment('step:' + v.step_at_x(x));
}));
// [ and ] on the focused plot move t by one step (the arrows pan, app.js).
plot.addEventListener('keydown', guard((e) => {
  const v = viewer();
  if (!t || t.step == null || !v || (e.key !== '[' && e.key !== ']')) return;
  e.preventDefault();
  const n = v.n_steps();
  const s = Math.max(0, Math.min(n - 1, t.step + (e.key === '[' ? -1 : 1)));
  setMoment('step:' + s);
}));
/** The last MomentView shown (null before the first). */
export const momentView = () => view;
export { setMoment };
