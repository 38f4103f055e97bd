//# allFunctionsCalledOnLoad
// memviz page: the views beyond the two timelines (Allocated Memory incl.
// Private Pools, Allocator State History, Allocator Settings), search, and
// the jumps between the timeline and the state history. It registers with
// app.js (addViewHooks): app.js calls changed() when the view changes and
// draw() before drawing a timeline (true: this file drew the view).
import { getViewer as V, guard as G, redraw, addViewHooks, onPin, showView } from './app.js';
import { announce } from './announce.js';

const $ = (id) => document.getElementById(id);
// G is app.js's guard: a handler does nothing while no viewer, and a trap
// in the wasm code (a panic) ends in the page's internal-error path.
const ROW = 18; // px per event row (CSS: #event-rows div)
// Browsers cap element heights (Chrome at about 33.5M px); past this the
// spacer stays this tall and scrolling maps proportionally onto rows.
const MAX_SPACER = 4e6;
const SEARCH_LIST_MAX = 200;
let kind = 'timeline';
const rows = []; // reused row elements
let mapHover = '';
const stats = { lastMs: 0, maxMs: 0, count: 0 };

// ---- view changes ----------------------------------------------------------
function changed() {
  const v = V();
  if (!v) return;
  kind = v.view_kind();
  document.body.dataset.kind = kind;
  $('settings').hidden = kind !== 'settings';
  $('state-box').hidden = kind !== 'state';
  if (kind === 'settings') $('settings').textContent = v.allocator_settings_text();
  if (kind === 'pools') $('detail-unit').textContent = 'allocations';
  mapHover = '';
  rerunSearch();
  if (kind === 'state') {
    scrollToSelected();
    drawState();
  }
  updateJump();
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

function sizeCanvas(c) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(c.clientWidth * dpr));
  const h = Math.max(1, Math.round(c.clientHeight * dpr));
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
}

// ---- Allocator State History -------------------------------------------------
function listGeom() {
  const v = V();
  const el = $('event-list');
  const n = v.state_len();
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

function renderRows() {
  const v = V();
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
  const lines = count > 0 ? v.state_lines(first, count).split('\n') : [];
  const sel = v.state_selected();
  for (let k = 0; k < rows.length; k++) {
    const d = rows[k];
    if (k < count) {
      const i = first + k;
      d.hidden = false;
      d.textContent = `${i}  ${lines[k] ?? ''}`;
      d.dataset.i = i;
      d.className = i === sel ? 'sel' : (v.search_is_match(i) ? 'match' : '');
    } else {
      d.hidden = true;
    }
  }
  box.dataset.first = first;
}

/** Scrolls the list so that the selected event is visible. */
function scrollToSelected() {
  const v = V();
  const sel = v.state_selected();
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
  renderRows();
  const sel = v.state_selected();
  $('state-totals').textContent = v.state_totals_text();
  $('state-frag').textContent = v.state_fragmentation_text();
  $('state-rows').textContent = v.state_map_rows_text();
  $('state-issues').textContent = v.state_issues_text();
  if (!mapHover) $('context').textContent = sel >= 0 ? v.state_event_text(sel) : '';
  const ms = performance.now() - t0;
  stats.lastMs = ms;
  c.dataset.selected = sel;
  c.dataset.redrawMs = ms.toFixed(2);
  $('timings').textContent = `state redraw ${ms.toFixed(1)} ms (segment map ${mapMs.toFixed(1)} ms) · ` +
    `event ${sel} of ${v.state_len()}`;
  updateJump();
}

/** Selects event i (or moves by delta) and redraws at once. */
function select(i, delta) {
  const v = V();
  const t0 = performance.now();
  if (delta !== undefined) v.state_step(delta);
  else v.state_select(Math.max(0, i));
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
  else if (e.key === 'End') select(V().state_len() - 1);
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
  if (i !== undefined) $('context').textContent = V().state_event_text(+i);
}));
$('event-list').addEventListener('mouseleave', G(() => {
  const sel = V() ? V().state_selected() : -1;
  if (sel >= 0) $('context').textContent = V().state_event_text(sel);
}));

const map = $('segment-map');
map.addEventListener('pointermove', G((e) => {
  const v = V();
  if (!v || kind !== 'state') return;
  const text = v.state_hover(e.offsetX, e.offsetY);
  if (text !== mapHover) {
    mapHover = text;
    const sel = v.state_selected();
    $('context').textContent = text || (sel >= 0 ? v.state_event_text(sel) : '');
    if (text) announce(text);
    v.state_render(map);
  }
}));
map.addEventListener('wheel', (e) => {
  if (!V() || kind !== 'state') return;
  e.preventDefault();
  G(() => {
    const v = V();
    if (v.state_scroll(e.deltaY)) {
      mapHover = '';
      v.state_hover(-1, -1);
      drawState();
    }
  })();
}, { passive: false });
map.addEventListener('pointerleave', G(() => {
  const v = V();
  if (!v || kind !== 'state') return;
  mapHover = '';
  v.state_hover(-1, -1);
  drawState();
}));

// ---- jumps -------------------------------------------------------------------
/** Selects view `i` as the selector does, then `then()` once it is shown
 * (a State History is built a slice a frame first on a long trace). */
function setView(i, then) {
  $('view-select').value = String(i);
  showView(i, then);
}

function updateJump() {
  const v = V();
  const toState = $('to-state');
  const toTl = $('to-timeline');
  if (!v) return;
  toState.hidden = !((kind === 'timeline' && v.view() === 0) || kind === 'pools') || v.pinned_element() < 0;
  toTl.hidden = kind !== 'state' || v.state_linked_element() < 0;
}

function showElement(e) {
  const v = V();
  v.show_element(e);
  $('detail').value = v.detail();
  $('detail-label').textContent = `${v.detail()} of ${v.element_count()}`;
  $('context').textContent = v.element_text(e);
  redraw();
  updateJump();
}

$('to-state').addEventListener('click', G(() => {
  const v = V();
  const e = v.pinned_element();
  if (e < 0) return;
  const ev = v.element_event(e);
  if (ev < 0) { $('context').textContent = 'This allocation has no trace event (it predates the recording): the final state shows it.'; return; }
  setView(v.view_names().indexOf('Allocator State History'), () => {
    select(ev);
    $('event-list').focus();
  });
}));
$('to-timeline').addEventListener('click', G(() => {
  const v = V();
  const e = v.state_linked_element();
  if (e < 0) return;
  setView(0, () => showElement(e));
}));
onPin(G(updateJump)); // a band pinned in the timeline: Show in state history

// ---- search --------------------------------------------------------------------
let searchKind = 'address';
let searchTimer = 0;

function runSearch() {
  searchTimer = 0;
  const v = V();
  if (!v) return;
  const q = (searchKind === 'frame' ? $('search-frame') : $('search-addr')).value;
  const n = q.trim() ? v.search(searchKind, q) : v.search(searchKind, '');
  const count = $('search-count');
  count.dataset.n = n;
  count.textContent = q.trim() ? (n === 1 ? '1 match' : `${n} matches`) + (n ? ' (Enter: next)' : '') : '';
  const list = $('search-list');
  list.replaceChildren();
  if (n) {
    for (const line of v.search_list(SEARCH_LIST_MAX).split('\n')) {
      if (!line) continue;
      const [idx, text] = [line.slice(0, line.indexOf('\t')), line.slice(line.indexOf('\t') + 1)];
      const li = document.createElement('li');
      li.dataset.m = idx;
      li.textContent = kind === 'state' ? `event ${idx}: ${text}` : text;
      list.append(li);
    }
    if (n > SEARCH_LIST_MAX) {
      const li = document.createElement('li');
      li.className = 'more';
      li.textContent = `… ${n - SEARCH_LIST_MAX} more (Enter steps through all)`;
      list.append(li);
    }
  }
  list.hidden = !n;
  if (kind === 'state') renderRows();
  else if (kind !== 'settings') redraw();
}

function rerunSearch() {
  const q = (searchKind === 'frame' ? $('search-frame') : $('search-addr')).value;
  if (q.trim() || $('search-count').dataset.n) runSearch();
}

function showMatch(m) {
  const v = V();
  if (m < 0) return;
  for (const li of $('search-list').children) li.classList.toggle('cur', li.dataset.m === String(m));
  if (kind === 'state') {
    v.search_show(m);
    scrollToSelected();
    drawState();
  } else {
    v.search_show(m);
    showElement(m);
  }
}

for (const [id, k, other] of [['search-addr', 'address', 'search-frame'], ['search-frame', 'frame', 'search-addr']]) {
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
    const v = V();
    const m = v.search_next(e.shiftKey);
    showMatch(m);
  }));
}
$('search-list').addEventListener('click', G((e) => {
  const m = e.target.dataset && e.target.dataset.m;
  if (m !== undefined) showMatch(+m);
}));

addViewHooks({ changed, draw, reset });
// main.js puts these on its test/debug handle (window.memviz.views).
export { select, stats, runSearch, renderRows };
