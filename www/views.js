//# allFunctionsCalledOnLoad
// @ts-check
// memviz page: the state history and settings views, search, and the jumps between the timeline
// and the state history. app.js calls changed() on a view change, draw() before drawing (true: drawn here).
import { getViewer as V, guard as G, redraw, addViewHooks, onPin, showView, command, getPage, sizeCanvas } from './app.js';
import { announce } from './announce.js';
import { $, fill, add, onCmd } from './bind.js';

let kind = 'timeline', mapHover = ''; // the view's kind; the segment map's hover text
const stats = { lastMs: 0, maxMs: 0, count: 0 };

/** @param {import('./types').PageView | null} p */
function changed(p) {
  kind = p ? p.kind : 'timeline';
  document.body.dataset.kind = kind; // style.css shows the settings or the state history
  mapHover = '';
  if (!p) return;
  fill($('settings'), p);
  rerunSearch();
  if (kind === 'state') drawState(true);
  updateJump(p);
}

/** After an internal error: no file, the timeline view's layout. */
function reset() {
  changed(null);
  for (const id of ['search-count', 'search-list', 'state-head', 'to-state', 'to-timeline']) fill($(id), {});
}

/** Draws the state history or settings; false for timeline views. */
const draw = () => (kind === 'state' ? (drawState(), true) : kind === 'settings');

// ---- Allocator State History: a virtualized list (the viewer places its rows) and the segment map
/** Fills the list's visible rows (`follow`: scrolled to the selected event first); reused rows:
 * the list's mouseover is delegated, and a row replaced under the pointer gets none. */
function renderRows(follow = false) {
  const el = $('event-list'), box = $('event-rows');
  const st = command({ cmd: 'state_list', scroll_top: el.scrollTop, height: el.clientHeight, follow }).state;
  fill(el, st); // the spacer's height, the rows' offset
  if (st.list.scroll_top != null) el.scrollTop = st.list.scroll_top;
  add(box, Array(Math.max(0, st.rows.length - box.children.length)).fill({}));
  [...box.children].forEach((d, k) => fill(d, st.rows[k] ?? null)); // none: hidden
  return st;
}

function drawState(follow = false) {
  const v = V(), t0 = performance.now(), c = $('segment-map');
  if (!v) return;
  sizeCanvas(c);
  const mapMs = v.state_render(c);
  const st = renderRows(follow);
  fill($('state-head'), st);
  if (!mapHover) $('context').textContent = st.event_text;
  const ms = stats.lastMs = performance.now() - t0;
  Object.assign(c.dataset, { selected: st.selected ?? -1, redrawMs: ms.toFixed(2) });
  $('timings').textContent = v.panel({ cmd: 'state_timings', redraw_ms: ms, map_ms: mapMs }).text;
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
  const ms = stats.lastMs = performance.now() - t0;
  [stats.maxMs, stats.count] = [Math.max(stats.maxMs, ms), stats.count + 1];
  return true;
}

// Keys are taken while the event list or the segment map has focus (both in the tab order).
for (const id of ['event-list', 'segment-map']) $(id).addEventListener('keydown', G((e) => {
  if (kind === 'state' && !e.altKey && !e.ctrlKey && !e.metaKey &&
    select(0, { cmd: 'state_key', key: e.key, height: $('event-list').clientHeight })) e.preventDefault();
}));
$('event-list').addEventListener('scroll', G(() => { if (kind === 'state') renderRows(); }));
onCmd($('event-rows'), G((i) => { $('event-list').focus(); select(i); }));
$('event-rows').addEventListener('mouseover', G((e) => {
  const i = e.target.dataset?.i; // a shown row's event
  if (i) $('context').textContent = command({ cmd: 'state_event', event: +i }).state.event_text;
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
const unhoverMap = () => { mapHover = ''; command({ cmd: 'state_hover', x: -1, y: -1 }); drawState(); };
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
  if (p) for (const id of ['to-state', 'to-timeline']) fill($(id), p);
}

/** @param {import('./types').PageView} p the page view after a ShowElement */
function shownElement(p) {
  $('detail').value = p.detail;
  fill($('detail-box'), p);
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
const boxes = [$('search-addr'), $('search-frame')]; // searched by address, by frame text: one at a time
let searchBox = boxes[0], searchTimer = 0; // the box typed in last; its debounce

function runSearch(el = searchBox) {
  clearTimeout(searchTimer);
  [searchBox, searchTimer] = [el, 0];
  if (!V()) return;
  const s = command({ cmd: 'search', by: el === boxes[1] ? 'frame' : 'address', text: el.value }).search;
  for (const id of ['search-count', 'search-list']) fill($(id), s); // its "… 12 more": views.css
  if (kind === 'state') renderRows();
  else if (kind !== 'settings') redraw();
}

const rerunSearch = () => { if (searchBox.value.trim() || $('search-count').dataset.n) runSearch(); };

/** Shows match `m` (null: none); `show`: not shown by the viewer yet. */
function showMatch(m, show = true) {
  if (m == null) return;
  if (show) command({ cmd: 'search_show', index: m });
  for (const li of $('search-list').children) li.classList.toggle('cur', li.dataset.m === String(m));
  if (kind === 'state') drawState(true);
  else shownElement(command({ cmd: 'show_element', element: m }));
}

for (const el of boxes) {
  el.addEventListener('input', () => {
    searchBox = el;
    boxes[+(el === boxes[0])].value = ''; // the other box
    clearTimeout(searchTimer);
    searchTimer = setTimeout(G(() => runSearch(el)), 150);
  });
  el.addEventListener('keydown', G((e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    if (searchBox !== el || searchTimer) runSearch(el);
    showMatch(command({ cmd: 'search_next', backwards: e.shiftKey }).search.current, false);
  }));
}
onCmd($('search-list'), G((m) => showMatch(m)));

addViewHooks({ changed, draw, reset });
// main.js puts these on its test/debug handle (window.memviz.views).
export { select, stats };
