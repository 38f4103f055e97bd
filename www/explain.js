//# allFunctionsCalledOnLoad
// "Explain the memory" (crates/memviz-wasm/src/explain.rs over
// memviz_core::analysis): Color by (allocation | category | stack frame |
// category stacked area) with a legend of bytes per kind at t; a marker on
// every timeline for the peak and each OOM; a panel that explains an OOM or
// the peak (picking one sets t); a panel of leaks and growth. Everything is
// cleared when the file or device changes.
import { hoverCard } from './card.js';
import { ALONE_MS, getViewer, guard, redraw, onDraw, withAnalysis, afterPaint } from './app.js';
import { setMoment, momentView, onMoment } from './moment.js';

const $ = (id) => document.getElementById(id);
const plot = $('plot');
const box = $('plot-box');
const GiB = 1024 ** 3, MiB = 1024 ** 2, KiB = 1024;
const fmt = (b) => b >= GiB ? (b / GiB).toFixed(2) + ' GiB' : b >= MiB ? (b / MiB).toFixed(1) + ' MiB'
  : b >= KiB ? (b / KiB).toFixed(1) + ' KiB' : b + ' B';
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
// A stack key (frames one a line, innermost first) cut to `n` lines: the
// program's own frames first (as memviz_core's is_user_file: Python files
// outside site-packages and the standard library), else Python frames, else
// whatever there is; the C++ allocator frames at the top say nothing.
const LIB = /site-packages|dist-packages|[\\/]lib[\\/]python[0-9.]*[\\/]|^<frozen|^<string>|[\\/]Lib[\\/]/;
function short(key, n = 3) {
  const lines = key.split('\n');
  const py = lines.filter((l) => /\.py:\d+:/.test(l));
  const user = py.filter((l) => !LIB.test(l));
  const pick = (user.length ? user : py.length ? py : lines).slice(0, n);
  const more = lines.length - pick.length;
  return pick.join('\n') + (more > 0 ? `\n  (+${more} more frames: hover)` : '');
}

const style = document.createElement('style');
style.textContent = `
#explain-bar { margin: .3em 0; font-size: 13px; }
#explain-legend .sw { display: inline-block; width: .9em; height: .9em; vertical-align: -1px; margin: 0 .25em 0 .7em; border: 1px solid #0003; }
.explain-marker { position: absolute; width: 0; border-left: 2px dashed #d62728; pointer-events: none; }
.explain-marker.peak { border-left-color: #333; }
.explain-marker button { position: absolute; top: -2px; left: -1px; pointer-events: auto; font: 10px sans-serif;
  padding: 0 3px; border: 0; color: #fff; background: #d62728; cursor: pointer; }
.explain-marker.peak button { background: #333; }
#explain-panel dl { display: grid; grid-template-columns: max-content auto; gap: .15em 1em; margin: .4em 0; }
#explain-panel dt { font-weight: bold; }
#explain-panel dd { margin: 0; }
#explain-panel table, #leaks-panel table { border-collapse: collapse; font-size: 12px; margin: .3em 0; }
#explain-panel td, #leaks-panel td, #explain-panel th, #leaks-panel th { padding: 1px 10px 1px 0; vertical-align: top; text-align: left; }
#explain-panel td pre, #leaks-panel td pre { margin: 0; font-size: 11px; white-space: pre-wrap; }
#explain-list button.on { outline: 2px solid #4e79a7; }
.advice { background: #fff4e0; border-left: 3px solid #f28e2c; padding: .3em .6em; margin: .3em 0; }
`;
document.head.appendChild(style);

// ---- Color by + legend (above the plot)
const bar = document.createElement('div');
bar.id = 'explain-bar';
bar.innerHTML = `<label>Color by <select id="color-by">
    <option value="allocation">allocation</option>
    <option value="category">category</option>
    <option value="frame">stack frame (innermost user frame)</option>
    <option value="area">category, stacked area</option>
  </select></label> <span id="explain-legend"></span>`;
box.before(bar);

// ---- Markers (inside the plot box, like the t line)
const markerBox = document.createElement('div');
markerBox.id = 'explain-markers';
box.appendChild(markerBox);

// ---- Panels (after the "Alive at" panel)
const panel = document.createElement('section');
panel.id = 'explain-panel';
panel.innerHTML = `<h2>OOMs and the peak, explained</h2>
  <p class="help">Pick one: t moves there and the numbers below explain it. Markers on the timelines: the peak (black) and every OOM (red).</p>
  <div id="explain-list"></div><div id="explain-body"></div>`;
const leaks = document.createElement('section');
leaks.id = 'leaks-panel';
// Computed when opened: the report walks every allocation.
leaks.innerHTML = `<details id="leaks-details"><summary><h2 style="display:inline">Leaks and growth</h2></summary>
  <div id="leaks-body"></div></details>`;
($('moment-panel') || $('context')).after(panel);
panel.after(leaks);

let key = '';
let markerKey = '';
let markers = [];
let kindColors = [];
let shown = null; // spec of the explanation shown
let refreshed = ''; // the key refresh() last ran for

const viewer = getViewer;
const keyOf = (v) => `${v.current_file()}/${v.device()}/${v.file_count()}`;

function legend() {
  const v = viewer();
  const mode = $('color-by').value;
  const mv = momentView();
  const at = mv && mv.at.step != null ? `step ${mv.at.step}` : mv ? `position ${mv.at.position}` : '';
  let html = '';
  if (mode === 'category' || mode === 'area') {
    const bytes = new Map((mv ? mv.by_category : []).map((g) => [g.key, g.bytes]));
    html = kindColors.map(([name, css]) =>
      `<span class="kind" data-kind="${name}" data-bytes="${bytes.get(name) ?? 0}"><span class="sw" style="background:${css}"></span>${name}` +
      (mv ? ` ${fmt(bytes.get(name) ?? 0)}` : '') + '</span>').join('');
    html += mv ? ` <i>(at ${at}; click the timeline to move t)</i>` : ' <i>(click the timeline for bytes per kind at t)</i>';
  } else if (mode === 'frame' && v) {
    html = (mv ? mv.by_user_frame.slice(0, 6) : []).map((g) =>
      `<span class="frame" title="${esc(g.key)}"><span class="sw" style="background:${v.frame_color_css(g.id)}"></span>` +
      `${esc(g.key.replace(/^.*\//, ''))} ${fmt(g.bytes)}</span>`).join('');
    html += mv ? ` <i>(largest at ${at})</i>` : ' <i>(click the timeline for the largest frames at t)</i>';
  }
  $('explain-legend').innerHTML = html;
}

function placeMarkers() {
  const v = viewer();
  const on = v && v.view_kind() === 'timeline' && v.n_steps() > 0;
  const els = markerBox.children;
  // Labels closer than LABEL_PX go a row lower: an OOM a few events after
  // the peak had covered the peak's button (neither could be told apart).
  const LABEL_PX = 48, ROW_PX = 16;
  const placed = []; // [x, row] of the labels shown
  for (let i = 0; i < els.length; i++) {
    const el = els[i];
    const x = on ? v.x_of_step(markers[i].x) : NaN;
    if (!(x >= 0 && x <= plot.clientWidth)) { el.hidden = true; continue; }
    let row = 0;
    while (placed.some(([px, r]) => r === row && Math.abs(px - x) < LABEL_PX)) row++;
    placed.push([x, row]);
    el.hidden = false;
    el.style.left = (plot.offsetLeft + x) + 'px';
    el.style.top = plot.offsetTop + 'px';
    el.style.height = plot.clientHeight + 'px';
    el.firstElementChild.style.top = (row * ROW_PX - 2) + 'px';
  }
}

function buildMarkers() {
  const v = viewer();
  markers = v && v.file_count() ? JSON.parse(v.markers_json()) : [];
  markerBox.innerHTML = markers.map((m) => {
    const spec = m.what === 'oom' ? `oom:${m.k}` : 'peak';
    const label = m.what === 'oom' ? `OOM${markers.filter((x) => x.what === 'oom').length > 1 ? ' ' + m.k : ''}` : 'peak';
    return `<div class="explain-marker ${m.what}" data-what="${m.what}" data-k="${m.k}" data-event="${m.event}" hidden>` +
      `<button type="button" data-spec="${spec}" title="${m.what === 'oom' ? 'OOM' : 'Peak'} at trace event ${m.event}: explain">${label}</button></div>`;
  }).join('');
}

function buildList() {
  const v = viewer();
  const n = v ? v.oom_count() : 0;
  const items = [];
  for (let k = 0; k < Math.min(n, 50); k++) items.push(`<button type="button" data-spec="oom:${k}">OOM ${k}</button>`);
  if (n > 50) items.push(`<span>(${n - 50} more OOMs: memviz oom lists them all)</span>`);
  items.push('<button type="button" data-spec="peak">Peak</button>');
  $('explain-list').innerHTML = (n ? `<b>${n} OOM${n > 1 ? 's' : ''}:</b> ` : '<b>No OOM in this trace.</b> ') + items.join(' ');
  $('explain-body').innerHTML = '';
  shown = null;
}

function table(groups, label, total, keyFn = (g) => esc(g.key)) {
  return `<table data-table="${label}"><tr><th>${label}</th><th>bytes</th><th>count</th><th>share</th></tr>` +
    groups.map((g) => `<tr><td>${keyFn(g)}</td><td data-bytes="${g.bytes}">${fmt(g.bytes)}</td><td>${g.count}</td>` +
      `<td>${(100 * g.bytes / (total || 1)).toFixed(1)}%</td></tr>`).join('') + '</table>';
}

function explain(spec) {
  const v = viewer();
  if (!v) return;
  withAnalysis(() => explainNow(v, spec));
}

function explainNow(v, spec) {
  const x = JSON.parse(v.explain_json(spec));
  setMoment(spec);
  shown = spec;
  for (const b of $('explain-list').querySelectorAll('button')) b.classList.toggle('on', b.dataset.spec === spec);
  const t = x.totals;
  const item = (k, label, val, text) => `<dt>${label}</dt><dd data-key="${k}" data-value="${val}">${text ?? fmt(val)}</dd>`;
  const r = x.request;
  const rows = [];
  const ev = x.at.event != null ? `trace event ${x.at.event}` : 'before the first event';
  if (r) {
    rows.push(item('request', 'requested', r.bytes, `${fmt(r.bytes)} on stream <span data-key="stream" data-value="${r.stream}">${r.stream}</span>`));
    if (r.device_free_bytes != null) rows.push(item('device-free', 'device had free', r.device_free_bytes));
    if (x.device_limit_bytes != null) rows.push(item('device-limit', 'most this process could hold', x.device_limit_bytes,
      `${fmt(x.device_limit_bytes)} (reserved + device free)`));
  }
  rows.push(item('reserved', 'reserved', t.reserved_bytes));
  rows.push(item('allocated', 'allocated (live tensors)', t.allocated_bytes));
  rows.push(item('gap', 'cached, not allocated', t.gap_bytes, `${fmt(t.gap_bytes)} (reserved − allocated)`));
  rows.push(item('free-bytes', 'free inside segments', t.free_bytes,
    `${fmt(t.free_bytes)} in <span data-key="free-pieces" data-value="${t.free_pieces}">${t.free_pieces}</span> pieces, ` +
    `the largest <span data-key="largest-free" data-value="${t.largest_free_bytes}">${fmt(t.largest_free_bytes)}</span>`));
  if (x.usable) rows.push(item('usable-bytes', 'usable for this request', x.usable.bytes,
    `${fmt(x.usable.bytes)} in <span data-key="usable-pieces" data-value="${x.usable.pieces}">${x.usable.pieces}</span> pieces, ` +
    `the largest <span data-key="usable-largest" data-value="${x.usable.largest}">${fmt(x.usable.largest)}</span> (same stream and pool)`));
  const advice = x.advice.length
    ? x.advice.map((a) => `<p class="advice" data-advice="${a.kind}">${esc(a.text)}</p>`).join('')
    : '<p class="advice" data-advice="none">No advice: the numbers show no allocator problem here.</p>';
  $('explain-body').innerHTML =
    `<h3 data-what="${x.what}" data-event="${x.at.event ?? ''}">${x.what === 'oom' ? 'OOM' : 'Peak'} on device ${x.device}, at ${ev}` +
    (x.time_us != null ? ` (${new Date(x.time_us / 1000).toISOString().replace('T', ' ').slice(0, 23)} UTC)` : '') +
    `</h3><dl>${rows.join('')}</dl>` + '<h4>What would help</h4>' + advice +
    '<h4>Held by kind</h4>' + table(x.by_category, 'kind', t.allocated_bytes) +
    '<h4>Held by code (innermost user frame)</h4>' + table(x.by_user_frame, 'user frame', t.allocated_bytes) +
    '<h4>Held by stack (largest)</h4>' + table(x.by_stack, 'stack', t.allocated_bytes, (g) => `<pre title="${esc(g.key)}">${esc(short(g.key))}</pre>`);
}

// The report is laid out in the frame after leaks_json when that took over
// ALONE_MS: on the 2M-event file the two were one 22 ms frame.
function showLeaks() {
  const v = viewer();
  if (!v || !v.file_count() || !$('leaks-details').open) { $('leaks-body').innerHTML = ''; return; }
  if (!v.analysis_built()) {
    withAnalysis(showLeaks, { state: false });
    return;
  }
  const t0 = performance.now();
  const json = v.leaks_json();
  if (performance.now() - t0 < ALONE_MS) return leaksReport(JSON.parse(json));
  const k = keyOf(v);
  requestAnimationFrame(guard(() => {
    const now = viewer();
    if (now === v && keyOf(v) === k && $('leaks-details').open) leaksReport(JSON.parse(json));
  }));
}

/** The leak report `r` (Viewer.leaks_json) in #leaks-body. */
function leaksReport(r) {
  const stack = (key) => `<pre title="${esc(key)}">${esc(short(key, 2))}</pre>`;
  let html = `<p data-key="alive-at-end" data-value="${r.alive_at_end_bytes}" data-count="${r.alive_at_end_count}">` +
    `<b>Alive at the end of the trace:</b> ${fmt(r.alive_at_end_bytes)} in ${r.alive_at_end_count} allocations made during it` +
    ` (and ${fmt(r.before_trace_bytes)} in ${r.before_trace_count} from before it).</p>`;
  if (r.alive_at_end.length) html += table(r.alive_at_end, 'stack', r.alive_at_end_bytes, (g) => stack(g.key));
  html += `<p data-key="growing" data-value="${r.growing.length}" data-from="${r.iterations_from}"><b>Growth:</b> ${esc(r.growth_line)}.</p>`;
  if (r.growing.length) {
    html += '<table data-table="growing"><tr><th>stack</th><th>growth</th><th>live bytes at each sample</th></tr>' +
      r.growing.map((g) => `<tr><td>${stack(g.key)}</td><td data-bytes="${g.growth_bytes}">+${fmt(g.growth_bytes)}</td>` +
        `<td>${g.live_bytes.map(fmt).join(' → ')}</td></tr>`).join('') + '</table>';
  }
  html += `<p data-key="pending" data-value="${r.pending_free_count}"><b>Frees left pending on another stream:</b> ${r.pending_free_count} frees waited between free_requested and free_completed` +
    (r.pending_free_count > r.pending_frees.length ? ` (the ${r.pending_frees.length} longest below)` : '') + '.</p>';
  if (r.pending_frees.length) {
    html += '<table data-table="pending"><tr><th>size</th><th>stream</th><th>requested → completed</th><th>waited</th><th>stack</th></tr>' +
      r.pending_frees.map((p, i) => `<tr><td data-bytes="${p.size}">${fmt(p.size)}</td><td>${p.stream}</td>` +
        `<td>event ${p.free_requested_event} → ${p.free_completed_event ?? 'never'}</td>` +
        `<td>${p.time_us != null ? p.time_us + ' µs, ' : ''}${p.events} events</td><td>${stack(r.pending_keys[i])}</td></tr>`).join('') + '</table>';
  }
  $('leaks-body').innerHTML = html;
}

// The new file's or device's list, leaks, legend and markers, after the
// frame that shows the file is painted, never inside it. The list and the
// markers need only the device's landmarks (one pass over its actions); the
// analysis (0.1 s, 0.7 s for 2M events) waits until something asks for it:
// a moment, an explanation, the leaks opened, color by kind.
function refresh() {
  const v = viewer();
  if (!v || keyOf(v) !== key) return;
  refreshed = key;
  kindColors = JSON.parse(v.kind_colors_json());
  buildList();
  showLeaks();
  legend();
  markerKey = `${key}/${v.view()}`;
  buildMarkers();
  placeMarkers();
}

// After each draw (app.js): a file, device (or file list) switch first clears
// what belonged to the old one, then refreshes; markers follow the plot and
// sit at other steps on each timeline.
onDraw(() => {
  try {
    const v = viewer();
    if (!v) return;
    const k = keyOf(v);
    if (k !== key) {
      key = k;
      refreshed = '';
      markers = [];
      markerBox.innerHTML = '';
      $('explain-list').innerHTML = '';
      $('explain-body').innerHTML = '';
      $('leaks-body').innerHTML = '';
      shown = null;
      if (v.file_count()) v.highlight_node(-1);
      afterPaint().then(guard(refresh));
      return;
    }
    if (refreshed === k && `${k}/${v.view()}` !== markerKey) {
      markerKey = `${k}/${v.view()}`;
      buildMarkers();
    }
    // Color by and its legend only where they act (the Active Memory
    // Timeline); their room is kept, so that the plot does not jump.
    const vis = v.file_count() && v.color_by_acts() ? '' : 'hidden';
    if (bar.style.visibility !== vis) bar.style.visibility = vis;
    placeMarkers();
  } catch (_) { markerBox.innerHTML = ''; } // a trap: app.js restarts the viewer
});
onMoment(() => legend());

$('color-by').addEventListener('change', guard(() => {
  const v = viewer();
  if (!v) return;
  const mode = $('color-by').value;
  // Every mode but one color per allocation reads the analysis (kinds, frames).
  const apply = () => {
    viewer().set_color_by(mode);
    legend();
    redraw();
  };
  if (mode === 'allocation') apply();
  else withAnalysis(apply, { state: false });
}));
const pick = guard((e) => {
  const b = e.target.closest('button[data-spec]');
  if (b) explain(b.dataset.spec);
});
$('explain-list').addEventListener('click', pick);
// In the stacked area a pixel is a kind, not a band: the hover line says
// which (after app.js's own hover handler, so this text wins).
plot.addEventListener('pointermove', guard((e) => {
  const v = viewer();
  if (!v || $('color-by').value !== 'area') return;
  const text = v.area_text(e.offsetX, e.offsetY);
  if (text) {
    $('context').textContent = text;
    hoverCard(v, -2, text, e.clientX, e.clientY, true);
  }
}));
$('leaks-details').addEventListener('toggle', guard(showLeaks));
markerBox.addEventListener('click', pick);

/** The spec of the explanation shown (`oom:K`, `peak`) or null. */
export const shownExplanation = () => shown;
export { explain, refresh };
