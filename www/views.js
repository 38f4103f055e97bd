//# allFunctionsCalledOnLoad
// @ts-check
// memviz page: the views beyond the two timelines (Allocated Memory incl.
// Private Pools, Allocator State History, Allocator Settings), search, and
// the jumps between the timeline and the state history. It registers with
// app.js (addViewHooks): app.js calls changed() when the view changes and
// draw() before drawing a timeline (true: this file drew the view).
import { getViewer as V, guard as G, redraw, addViewHooks, onPin, showView, command, getPage, sizeCanvas } from './app.js';
import { announce } from './announce.js';

/** @returns {any} */
const $ = (id) => document.getElementById(id);
// G is app.js's guard: a handler does nothing while no viewer, and a trap
// in the wasm code (a panic) ends in the page's internal-error path.
const ROW = 18; // px per event row (CSS: #event-rows div)
// Browsers cap element heights (Chrome at about 33.5M px); past this the
// spacer stays this tall and scrolling maps proportionally onto rows.
const MAX_SPACER = 4e6;
let kind = 'timeline';
let stateLen = 0; // events in the list, as the last page view said
const rows = []; // reused row elements
let mapHover = '';
const stats = { lastMs: 0, maxMs: 0, count: 0 };

// ---- view changes ----------------------------------------------------------
/** @param {import('./types').PageView} p */
function changed(p) {
  kind = p.kind;
  document.body.dataset.kind = kind;
  $('settings').hidden = kind !== 'settings';
  $('state-box').hidden = kind !== 'state';
  if (p.settings != null) $('settings').textContent = p.settings;
  if (p.state) stateLen = p.state.len;
  mapHover = '';
  rerunSearch();
  if (kind === 'state') {
    scrollToSelected();
    drawState();
  }
  updateJump(p);
}

/** After an internal error: no file, the timeline view's layout. */
function reset() {
  kind = 'timeline';
  document.body.dataset.kind = kind;
  $('settings').hidden = true;
  $('state-box').hidden = true;
  mapHover = '';
  for (const id of ['search-count', 'state-totals', 'state-frag', 'state-rows', 'state-issues']) $(id).textContent = '';
  delete $('search-count').dataset.n;
  $('search-list').replaceChildren();
  $('search-list').hidden = true;
  $('to-state').hidden = true;
  $('to-timeline').hidden = true;
}

/** Draws the state history or settings; false for timeline views. */
function draw() {
  if (kind === 'settings') return true;
  if (kind !== 'state') return false;
  drawState();
  return true;
}

// ---- Allocator State History -------------------------------------------------
function listGeom() {
  const el = $('event-list');
  const n = stateLen;
  const vis = Math.max(1, Math.ceil(el.clientHeight / ROW));
  const total = n * ROW;
  const H = Math.min(total, MAX_SPACER);
  return { n, vis, H, scaled: total > H, el };
}

function firstRow(g) {
  if (!g.scaled) return Math.floor(g.el.scrollTop / ROW);
  const maxTop = Math.max(1, g.H - g.el.clientHeight);
  return Math.round((g.el.scrollTop / maxTop) * Math.max(0, g.n - g.vis));
}

/** Fills the visible rows; returns the state history's panel as the viewer has it. */
function renderRows() {
  const g = listGeom();
  $('event-spacer').style.height = `${g.H}px`;
  const first = Math.max(0, Math.min(firstRow(g), g.n - g.vis));
  const count = Math.min(g.vis + 1, g.n - first);
  const box = $('event-rows');
  box.style.transform = `translateY(${g.scaled ? g.el.scrollTop : first * ROW}px)`;
  while (rows.length < count) {
    const d = document.createElement('div');
    box.append(d);
    rows.push(d);
  }
  const st = command({ cmd: 'state_rows', first, count: Math.max(0, count) }).state;
  stateLen = st.len;
  for (let k = 0; k < rows.length; k++) {
    const d = rows[k], r = st.rows[k];
    d.hidden = !r;
    if (!r) continue;
    d.textContent = r.text;
    d.dataset.i = String(r.index);
    d.className = r.selected ? 'sel' : (r.matched ? 'match' : '');
  }
  box.dataset.first = first;
  return st;
}

/** Scrolls the list so that the selected event is visible. */
function scrollToSelected() {
  const p = getPage();
  const sel = p && p.state && p.state.selected != null ? p.state.selected : -1;
  if (sel < 0) return;
  const g = listGeom();
  $('event-spacer').style.height = `${g.H}px`;
  const first = firstRow(g);
  if (sel >= first + 1 && sel < first + g.vis - 1) return;
  if (!g.scaled) {
    const top = sel * ROW;
    if (top < g.el.scrollTop) g.el.scrollTop = top;
    else g.el.scrollTop = top + ROW - g.el.clientHeight;
  } else {
    const target = sel < first ? sel : sel - g.vis + 2;
    const maxFirst = Math.max(1, g.n - g.vis);
    g.el.scrollTop = (Math.max(0, target) / maxFirst) * Math.max(1, g.H - g.el.clientHeight);
  }
}

function drawState() {
  const v = V();
  if (!v) return;
  const t0 = performance.now();
  const c = $('segment-map');
  sizeCanvas(c);
  const mapMs = v.state_render(c);
  const st = renderRows();
  const sel = st.selected ?? -1;
  $('state-totals').textContent = st.totals;
  $('state-frag').textContent = st.fragmentation;
  $('state-rows').textContent = st.map_rows;
  $('state-issues').textContent = st.issues;
  if (!mapHover) $('context').textContent = st.event_text;
  const ms = performance.now() - t0;
  stats.lastMs = ms;
  c.dataset.selected = sel;
  c.dataset.redrawMs = ms.toFixed(2);
  $('timings').textContent = `state redraw ${ms.toFixed(1)} ms (segment map ${mapMs.toFixed(1)} ms) · ` +
    `event ${sel} of ${st.len}`;
  updateJump(getPage());
}

/** Selects event i (or moves by delta) and redraws at once. */
function select(i, delta) {
  const t0 = performance.now();
  if (delta !== undefined) command({ cmd: 'state_step', delta });
  else command({ cmd: 'state_select', event: Math.max(0, i) });
  mapHover = '';
  scrollToSelected();
  drawState();
  announce($('context').textContent);
  const ms = performance.now() - t0;
  stats.lastMs = ms;
  stats.maxMs = Math.max(stats.maxMs, ms);
  stats.count++;
}

// Keys are taken while the event list or the segment map has focus (both
// are in the tab order), not from the whole document.
function onKey(e) {
  if (kind !== 'state' || !V() || e.altKey || e.ctrlKey || e.metaKey) return;
  const page = Math.max(1, listGeom().vis - 1);
  const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
  if (e.key in moves) select(0, moves[e.key]);
  else if (e.key === 'Home') select(0);
  else if (e.key === 'End') select(stateLen - 1);
  else return;
  e.preventDefault();
}
$('event-list').addEventListener('keydown', G(onKey));
$('segment-map').addEventListener('keydown', G(onKey));

$('event-list').addEventListener('scroll', G(() => { if (kind === 'state') renderRows(); }));
$('event-rows').addEventListener('click', G((e) => {
  const i = e.target.dataset && e.target.dataset.i;
  if (i !== undefined) { $('event-list').focus(); select(+i); }
}));
$('event-rows').addEventListener('mouseover', G((e) => {
  const i = e.target.dataset && e.target.dataset.i;
  if (i !== undefined) $('context').textContent = command({ cmd: 'state_event', event: +i }).state.event_text;
}));
$('event-list').addEventListener('mouseleave', G(() => {
  if (kind === 'state') $('context').textContent = command({ cmd: 'get' }).state.event_text;
}));

const map = $('segment-map');
map.addEventListener('pointermove', G((e) => {
  const v = V();
  if (!v || kind !== 'state') return;
  const p = command({ cmd: 'state_hover', x: e.offsetX, y: e.offsetY }), text = p.text ?? '';
  if (text !== mapHover) {
    mapHover = text;
    $('context').textContent = text || p.state?.event_text || '';
    if (text) announce(text);
    v.state_render(map);
  }
}));
map.addEventListener('wheel', (e) => {
  if (!V() || kind !== 'state') return;
  e.preventDefault();
  G(() => {
    if (command({ cmd: 'state_scroll', dy: e.deltaY }).value) {
      mapHover = '';
      command({ cmd: 'state_hover', x: -1, y: -1 });
      drawState();
    }
  })();
}, { passive: false });
map.addEventListener('pointerleave', G(() => {
  const v = V();
  if (!v || kind !== 'state') return;
  mapHover = '';
  command({ cmd: 'state_hover', x: -1, y: -1 });
  drawState();
}));

// ---- jumps -------------------------------------------------------------------
/** Selects view `i` as the selector does, then `then()` once it is shown
 * (a State History is built a slice a frame first on a long trace). */
function setView(i, then) {
  $('view-select').value = String(i);
  showView(i, then);
}

/** @param {import('./types').PageView | null} p */
function updateJump(p) {
  if (!p) return;
  $('to-state').hidden = !p.to_state;
  $('to-timeline').hidden = !p.to_timeline;
}

/** @param {import('./types').PageView} p the page view after a ShowElement or SearchShow */
function shownElement(p) {
  $('detail').value = p.detail;
  $('detail-label').textContent = p.detail_text;
  if (p.pointer) $('context').textContent = p.pointer.context;
  redraw();
  updateJump(p);
}

/** The selector's index of view `id`. */
const viewIndex = (id) => getPage().views.findIndex((v) => v.id === id);

$('to-state').addEventListener('click', G(() => {
  const p = command({ cmd: 'show_in_state' });
  if (p.note) { $('context').textContent = p.note; return; }
  if (p.target == null) return;
  setView(viewIndex('state'), () => {
    select(p.target);
    $('event-list').focus();
  });
}));
$('to-timeline').addEventListener('click', G(() => {
  const e = command({ cmd: 'show_in_timeline' }).target;
  if (e == null) return;
  setView(viewIndex('active_memory'), () => shownElement(command({ cmd: 'show_element', element: e })));
}));
onPin(G(() => updateJump(getPage()))); // a band pinned in the timeline: Show in state history

// ---- search --------------------------------------------------------------------
/** @type {import('./types').SearchBy} */
let searchKind = 'address';
let searchTimer = 0;

function runSearch() {
  searchTimer = 0;
  if (!V()) return;
  const text = (searchKind === 'frame' ? $('search-frame') : $('search-addr')).value;
  const s = command({ cmd: 'search', by: searchKind, text }).search;
  const n = s.count;
  const count = $('search-count');
  count.dataset.n = String(n);
  count.textContent = s.count_text;
  const item = (text, m) => {
    const li = document.createElement('li');
    li.textContent = text;
    if (m != null) li.dataset.m = String(m); else li.className = 'more';
    return li;
  };
  const list = $('search-list');
  list.replaceChildren(...s.matches.map((m) => item(m.text, m.index)), ...(s.more ? [item(s.more, null)] : []));
  list.hidden = !n;
  if (kind === 'state') renderRows();
  else if (kind !== 'settings') redraw();
}

function rerunSearch() {
  const q = (searchKind === 'frame' ? $('search-frame') : $('search-addr')).value;
  if (q.trim() || $('search-count').dataset.n) runSearch();
}

/** Shows match `m` (null: none); `p`: the page view that showed it. */
function showMatch(m, p = command({ cmd: 'search_show', index: m })) {
  if (m == null) return;
  for (const li of $('search-list').children) li.classList.toggle('cur', li.dataset.m === String(m));
  if (kind === 'state') {
    scrollToSelected();
    drawState();
  } else {
    shownElement(command({ cmd: 'show_element', element: m }));
  }
}

/** @type {[string, import('./types').SearchBy, string][]} */
const searchBoxes = [['search-addr', 'address', 'search-frame'], ['search-frame', 'frame', 'search-addr']];
for (const [id, k, other] of searchBoxes) {
  const input = $(id);
  input.addEventListener('input', () => {
    searchKind = k;
    $(other).value = '';
    clearTimeout(searchTimer);
    searchTimer = setTimeout(G(runSearch), 150);
  });
  input.addEventListener('keydown', G((e) => {
    if (e.key !== 'Enter' || !V()) return;
    e.preventDefault();
    if (searchKind !== k || searchTimer) { clearTimeout(searchTimer); searchTimer = 0; searchKind = k; runSearch(); }
    const p = command({ cmd: 'search_next', backwards: e.shiftKey });
    showMatch(p.search.current, p);
  }));
}
$('search-list').addEventListener('click', G((e) => {
  const m = e.target.dataset && e.target.dataset.m;
  if (m !== undefined) showMatch(+m);
}));

addViewHooks({ changed, draw, reset });
// main.js puts these on its test/debug handle (window.memviz.views).
export { select, stats, runSearch, renderRows };
