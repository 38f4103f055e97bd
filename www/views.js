//# allFunctionsCalledOnLoad
// @ts-check
// memviz page: the views beyond the two timelines (Private Pools, Allocator State History,
// Allocator Settings), search, and the jumps between the timeline and the state history.
// app.js calls changed() when the view changes and draw() before drawing (true: drawn here).
import { getViewer as V, guard as G, redraw, addViewHooks, onPin, showView, command, getPage, sizeCanvas } from './app.js';
import { announce } from './announce.js';
import { fill } from './bind.js';

/** @returns {any} */
const $ = (id) => document.getElementById(id);
// G is app.js's guard: nothing while no viewer; a trap ends in the page's internal-error path.
let kind = 'timeline';
let mapHover = '';
const stats = { lastMs: 0, maxMs: 0, count: 0 };

/** @param {import('./types').PageView | null} p */
function changed(p) {
  kind = p ? p.kind : 'timeline';
  document.body.dataset.kind = kind;
  $('settings').hidden = kind !== 'settings';
  $('state-box').hidden = kind !== 'state';
  mapHover = '';
  if (!p) return;
  if (p.settings != null) $('settings').textContent = p.settings;
  rerunSearch();
  if (kind === 'state') drawState(true);
  updateJump(p);
}

/** After an internal error: no file, the timeline view's layout. */
function reset() {
  changed(null);
  for (const id of ['search-count', 'state-totals', 'state-frag', 'state-rows', 'state-issues']) $(id).textContent = '';
  delete $('search-count').dataset.n;
  fill($('search-list'), { matches: [] });
  $('search-list').hidden = $('to-state').hidden = $('to-timeline').hidden = true;
}

/** Draws the state history or settings; false for timeline views. */
function draw() {
  if (kind === 'state') drawState();
  return kind === 'state' || kind === 'settings';
}

// ---- Allocator State History: a virtualized list (the viewer places its rows) and the segment map
/** Fills the list's visible rows (`follow`: scrolled to the selected event first). */
function renderRows(follow = false) {
  const el = $('event-list');
  const st = command({ cmd: 'state_list', scroll_top: el.scrollTop, height: el.clientHeight, follow }).state;
  $('event-spacer').style.height = st.list.spacer;
  if (st.list.scroll_top != null) el.scrollTop = st.list.scroll_top;
  // Rows are reused: the list's mouseover is delegated, and a replaced row under the pointer gets none.
  const box = $('event-rows');
  Object.assign(box.style, { transform: st.list.transform });
  box.dataset.first = st.list.first;
  while (box.children.length < st.rows.length) box.append(document.createElement('div'));
  [...box.children].forEach((d, k) => {
    const r = st.rows[k];
    if ((d.hidden = !r)) return;
    Object.assign(d, { textContent: r.text, className: r.mark });
    d.dataset.i = r.index;
  });
  return st;
}

function drawState(follow = false) {
  const v = V();
  if (!v) return;
  const t0 = performance.now();
  const c = $('segment-map');
  sizeCanvas(c);
  const mapMs = v.state_render(c);
  const st = renderRows(follow);
  const sel = st.selected ?? -1;
  fill($('state-head'), st);
  if (!mapHover) $('context').textContent = st.event_text;
  const ms = performance.now() - t0;
  stats.lastMs = ms;
  c.dataset.selected = sel;
  c.dataset.redrawMs = ms.toFixed(2);
  $('timings').textContent = `state redraw ${ms.toFixed(1)} ms (segment map ${mapMs.toFixed(1)} ms) · event ${sel} of ${st.len}`;
  updateJump(getPage());
}

/** Selects event i (or runs `cmd`, a key of the list: false when not its) and redraws at once.
 * @param {number} i @param {import('./types').ViewCommand} [cmd] */
function select(i, cmd = { cmd: 'state_select', event: Math.max(0, i) }) {
  const t0 = performance.now();
  if (command(cmd).value === 0) return false;
  mapHover = '';
  drawState(true);
  announce($('context').textContent);
  const ms = performance.now() - t0;
  stats.lastMs = ms;
  stats.maxMs = Math.max(stats.maxMs, ms);
  stats.count++;
  return true;
}

// Keys are taken while the event list or the segment map has focus (both in the tab order).
/** @param {KeyboardEvent} e */
function onKey(e) {
  if (kind === 'state' && !e.altKey && !e.ctrlKey && !e.metaKey &&
    select(0, { cmd: 'state_key', key: e.key, height: $('event-list').clientHeight })) e.preventDefault();
}
$('event-list').addEventListener('keydown', G(onKey));
$('segment-map').addEventListener('keydown', G(onKey));
$('event-list').addEventListener('scroll', G(() => { if (kind === 'state') renderRows(); }));
/** The event of a list row under `e`, or null. */
const rowOf = (e) => (e.target.dataset && e.target.dataset.i !== undefined ? +e.target.dataset.i : null);
$('event-rows').addEventListener('click', G((e) => {
  const i = rowOf(e);
  if (i !== null) { $('event-list').focus(); select(i); }
}));
$('event-rows').addEventListener('mouseover', G((e) => {
  const i = rowOf(e);
  if (i !== null) $('context').textContent = command({ cmd: 'state_event', event: i }).state.event_text;
}));
$('event-list').addEventListener('mouseleave', G(() => {
  if (kind === 'state') $('context').textContent = command({ cmd: 'get' }).state.event_text;
}));

const map = $('segment-map');
map.addEventListener('pointermove', G((e) => {
  if (kind !== 'state') return;
  const p = command({ cmd: 'state_hover', x: e.offsetX, y: e.offsetY }), text = p.text ?? '';
  if (text === mapHover) return;
  mapHover = text;
  $('context').textContent = text || p.state?.event_text || '';
  if (text) announce(text);
  V().state_render(map);
}));
/** The map without hover, drawn again. */
const unhoverMap = () => {
  mapHover = '';
  command({ cmd: 'state_hover', x: -1, y: -1 });
  drawState();
};
map.addEventListener('wheel', (e) => {
  if (!V() || kind !== 'state') return;
  e.preventDefault();
  G(() => { if (command({ cmd: 'state_scroll', dy: e.deltaY }).value) unhoverMap(); })();
}, { passive: false });
map.addEventListener('pointerleave', G(() => { if (kind === 'state') unhoverMap(); }));

// ---- jumps -------------------------------------------------------------------
/** Shows view `id` as the selector does, then `then()` (a state history may be built first). */
function setView(id, then) {
  const i = getPage().views.findIndex((v) => v.id === id);
  $('view-select').value = String(i);
  showView(i, then);
}

/** @param {import('./types').PageView | null} p */
function updateJump(p) {
  if (!p) return;
  $('to-state').hidden = !p.to_state;
  $('to-timeline').hidden = !p.to_timeline;
}

/** @param {import('./types').PageView} p the page view after a ShowElement */
function shownElement(p) {
  $('detail').value = p.detail;
  $('detail-label').textContent = p.detail_text;
  if (p.pointer) $('context').textContent = p.pointer.context;
  redraw();
  updateJump(p);
}

$('to-state').addEventListener('click', G(() => {
  const p = command({ cmd: 'show_in_state' });
  if (p.note) $('context').textContent = p.note;
  else if (p.target != null) setView('state', () => { select(p.target); $('event-list').focus(); });
}));
$('to-timeline').addEventListener('click', G(() => {
  const e = command({ cmd: 'show_in_timeline' }).target;
  if (e != null) setView('active_memory', () => shownElement(command({ cmd: 'show_element', element: e })));
}));
onPin(G(() => updateJump(getPage()))); // a band pinned in the timeline: Show in state history

// ---- search --------------------------------------------------------------------
/** @type {import('./types').SearchBy} */
let searchKind = 'address';
let searchTimer = 0;
const query = () => (searchKind === 'frame' ? $('search-frame') : $('search-addr')).value;

function runSearch() {
  searchTimer = 0;
  if (!V()) return;
  const s = command({ cmd: 'search', by: searchKind, text: query() }).search;
  $('search-count').dataset.n = String(s.count);
  $('search-count').textContent = s.count_text;
  const list = $('search-list');
  fill(list, s);
  if (s.more) list.append(Object.assign(document.createElement('li'), { className: 'more', textContent: s.more }));
  list.hidden = !s.count;
  if (kind === 'state') renderRows();
  else if (kind !== 'settings') redraw();
}

function rerunSearch() {
  if (query().trim() || $('search-count').dataset.n) runSearch();
}

/** Shows match `m` (null: none) as `p` (the page view that showed it) says. */
function showMatch(m, p = command({ cmd: 'search_show', index: m })) {
  if (m == null) return;
  for (const li of $('search-list').children) li.classList.toggle('cur', li.dataset.m === String(m));
  if (kind === 'state') drawState(true);
  else shownElement(command({ cmd: 'show_element', element: m }));
}

/** @type {[string, import('./types').SearchBy, string][]} */
const searchBoxes = [['search-addr', 'address', 'search-frame'], ['search-frame', 'frame', 'search-addr']];
for (const [id, k, other] of searchBoxes) {
  $(id).addEventListener('input', () => {
    searchKind = k;
    $(other).value = '';
    clearTimeout(searchTimer);
    searchTimer = setTimeout(G(runSearch), 150);
  });
  $(id).addEventListener('keydown', G((e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    if (searchKind !== k || searchTimer) { clearTimeout(searchTimer); searchKind = k; runSearch(); }
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
export { select, stats };
