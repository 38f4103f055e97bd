// @ts-check
//# allFunctionsCalledOnLoad
// "Explain the memory" (markup in index.html; view models from Viewer.panel,
// memviz-viewer's explain.rs): Color by with its legend at t; on each
// timeline one marker for its own peak (issue 43) and one per OOM; the OOM
// or peak explained (picking one sets t); leaks and growth. A view model of
// another generation (another file or device) is dropped.
import { hoverCard } from './card.js';
import { ALONE_MS, getViewer, guard, redraw, onDraw, withAnalysis, afterPaint } from './app.js';
import { esc, ask, generation, pieces, table, setMoment, momentView, onMoment } from './moment.js';

/** @returns {any} */
const $ = (id) => document.getElementById(id);

/** @typedef {import('./types').MomentArg} MomentArg */
const plot = $('plot'), markerBox = $('explain-markers');
/** @type {import('./types').OverviewView | null} */
let over = null;
/** @type {MomentArg | null} */
let shown = null; // the moment explained
let gen = -1; // the generation the panels show
let markerView = -1; // the view the markers are of

function legend() {
  const mode = $('color-by').value, mv = momentView();
  const rows = !mv ? [] : mode === 'frame' ? mv.frames : mode === 'allocation' ? [] : mv.kinds;
  const kinds = !mv && (mode === 'category' || mode === 'area') ? over?.kinds.map((k) => ({ key: k.name, text: k.name, css: k.css, bytes: 0, size: '' })) ?? [] : rows;
  $('explain-legend').innerHTML = kinds.map((r) => `<span class="${mode === 'frame' ? 'frame' : 'kind'}" data-kind="${esc(r.key)}" ` +
    `data-bytes="${r.bytes}" title="${esc(r.key)}"><span class="sw" style="background:${r.css}"></span>${esc(r.text)} ${r.size}</span>`).join('') +
    (mode === 'allocation' ? '' : mv ? ` <i>${esc(mv.note)}</i>` : ' <i>(click the timeline for bytes at t)</i>');
}

function placeMarkers() {
  const v = getViewer(), ms = over?.markers ?? [];
  const on = v.view_kind() === 'timeline' && v.n_steps() > 0;
  // Labels closer than 48 px go a row lower: an OOM a few events after the
  // peak had covered the peak's button.
  const placed = [];
  [...markerBox.children].forEach((el, i) => {
    const x = on ? v.x_of_step(ms[i].x) : NaN;
    el.hidden = !(x >= 0 && x <= plot.clientWidth);
    if (el.hidden) return;
    let row = 0;
    while (placed.some(([px, r]) => r === row && Math.abs(px - x) < 48)) row++;
    placed.push([x, row]);
    Object.assign(el.style, { left: (plot.offsetLeft + x) + 'px', top: plot.offsetTop + 'px', height: plot.clientHeight + 'px' });
    el.firstElementChild.style.top = (row * 16 - 2) + 'px';
  });
}

/** The markers, the OOM list and the kinds of the timeline shown. */
function overview() {
  over = ask({ cmd: 'overview' });
  markerView = getViewer().view();
  markerBox.innerHTML = over.markers.map((m, i) => `<div class="explain-marker ${m.what}" data-what="${m.what}" data-event="${m.event}" ` +
    `data-bytes="${m.bytes}" hidden><button type="button" data-marker="${i}" title="${esc(m.title)}">${esc(m.label)}</button></div>`).join('');
  $('explain-list').innerHTML = `<b>${esc(over.list_title)}</b> ` + over.list.map((l, i) =>
    `<button type="button" data-item="${i}">${esc(l.label)}</button>`).join(' ') + ` <span>${esc(over.list_more)}</span>`;
  placeMarkers();
}

/** Explains `moment` (an OOM: {oom: K}; 'peak'; {event: E}) and sets t there. @param {MomentArg} moment */
export function explain(moment) {
  withAnalysis(() => {
    /** @type {import('./types').ExplainView} */
    const x = ask({ cmd: 'explain', moment });
    setMoment(moment);
    shown = moment;
    const same = (l) => JSON.stringify(l.moment) === JSON.stringify(moment);
    for (const b of $('explain-list').querySelectorAll('button')) b.classList.toggle('on', same(over?.list[b.dataset.item]));
    $('explain-body').innerHTML = `<h3 data-what="${x.what}" data-event="${x.event ?? ''}">${esc(x.heading)}</h3><dl>` +
      x.facts.map((f) => `<dt>${esc(f.label)}</dt><dd data-key="${f.key}" data-value="${f.value}">${pieces(f.pieces)}</dd>`).join('') +
      '</dl><h4>What would help</h4>' + x.advice.map((a) => `<p class="advice" data-advice="${a.kind}">${esc(a.text)}</p>`).join('') +
      '<h4>Held by kind</h4>' + table(x.by_category, 'kind') + '<h4>Held by code (innermost user frame)</h4>' +
      table(x.by_user_frame, 'user frame') + '<h4>Held by stack (largest)</h4>' + table(x.by_stack, 'stack', true);
  });
}

// The leak report walks every allocation: computed when opened; laid out a
// frame later when it took over ALONE_MS (the 2M-event file: one 22 ms frame).
function showLeaks() {
  const v = getViewer();
  if (!v.file_count() || !$('leaks-details').open) { $('leaks-body').innerHTML = ''; return; }
  if (!v.analysis_built()) { withAnalysis(showLeaks, { state: false }); return; }
  const t0 = performance.now();
  /** @type {import('./types').LeaksView} */
  const r = ask({ cmd: 'leaks' });
  const put = () => {
    if (generation() !== r.generation || !$('leaks-details').open) return;
    const stack = (key, text) => `<pre title="${esc(key)}">${esc(text)}</pre>`;
    $('leaks-body').innerHTML = `<p data-key="alive-at-end" data-value="${r.alive_at_end_bytes}" data-count="${r.alive_at_end_count}">` +
      `<b>Alive at the end of the trace:</b> ${esc(r.alive_line)}</p>` + (r.alive.length ? table(r.alive, 'stack', true) : '') +
      `<p data-key="growing" data-value="${r.growing.length}" data-from="${r.iterations_from}"><b>Growth:</b> ${esc(r.growth_line)}</p>` +
      (r.growing.length ? '<table data-table="growing"><tr><th>stack</th><th>growth</th><th>live bytes at each sample</th></tr>' +
        r.growing.map((g) => `<tr><td>${stack(g.key, g.text)}</td><td data-bytes="${g.growth_bytes}">${g.growth}</td><td>${g.samples}</td></tr>`).join('') + '</table>' : '') +
      `<p data-key="pending" data-value="${r.pending_count}"><b>Frees left pending on another stream:</b> ${esc(r.pending_line)}</p>` +
      (r.pending.length ? '<table data-table="pending"><tr><th>size</th><th>stream</th><th>requested → completed</th><th>waited</th><th>stack</th></tr>' +
        r.pending.map((p) => `<tr><td data-bytes="${p.bytes}">${p.size}</td><td>${p.stream}</td><td>${p.events}</td><td>${esc(p.waited)}</td>` +
          `<td>${stack(p.key, p.text)}</td></tr>`).join('') + '</table>' : '');
  };
  if (performance.now() - t0 < ALONE_MS) put(); else requestAnimationFrame(guard(put));
}

// Each draw: another generation clears what belonged to the old file or
// device, and the new one's overview comes after the frame that shows it
// (landmarks only: the analysis waits until something asks for it);
// another view gets its own markers.
onDraw(() => {
  try {
    const v = getViewer(), g = generation();
    if (g !== gen) {
      gen = g;
      over = shown = null;
      for (const id of ['explain-markers', 'explain-list', 'explain-body', 'leaks-body']) $(id).innerHTML = '';
      if (v.file_count()) {
        ask({ cmd: 'highlight', node: null });
        afterPaint().then(guard(() => { if (generation() === g) { overview(); showLeaks(); legend(); } }));
      }
      return;
    }
    if (over && v.view() !== markerView) overview();
    // Color by acts on the Active Memory Timeline only; its room is kept.
    $('explain-bar').style.visibility = v.file_count() && v.color_by_acts() ? '' : 'hidden';
    placeMarkers();
  } catch (_) { markerBox.innerHTML = ''; } // a trap: app.js restarts the viewer
});
onMoment(() => legend());
$('color-by').addEventListener('change', guard(() => {
  const mode = $('color-by').value;
  const apply = () => { ask({ cmd: 'color_by', mode }); legend(); redraw(); };
  if (mode === 'allocation') apply(); else withAnalysis(apply, { state: false }); // kinds and frames read the analysis
}));
const pick = guard((e) => {
  const b = e.target.closest('button'), it = b && over && (over.markers[b.dataset.marker] || over.list[b.dataset.item]);
  if (it) explain(it.moment);
});
$('explain-list').addEventListener('click', pick);
markerBox.addEventListener('click', pick);
// In the stacked area a pixel is a kind, not a band: the hover line says which.
plot.addEventListener('pointermove', guard((e) => {
  const text = $('color-by').value === 'area' && getViewer().file_count() ? ask({ cmd: 'area_text', x: e.offsetX, y: e.offsetY }).text : '';
  if (text) { $('context').textContent = text; hoverCard({ hit: -2, changed: true, context: text, card: null }, e.clientX, e.clientY); }
}));
$('leaks-details').addEventListener('toggle', guard(showLeaks));
/** The moment explained (null when none). */
export const shownExplanation = () => shown;
