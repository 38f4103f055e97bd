// Many snapshots at once (the ranks of one run) and what changed between two.
//
// Opening several files (drop, Open snapshots… with several picked, Open
// folder…) reads them one after the other with a progress bar each, in rank
// order (memviz_core::ranks: rank3, _r3_, -3.), into the one Viewer (each
// file's model stays; only the file shown has its views built). The
// overview has a row per file and device: memviz summary's peaks, end and
// OOMs, and a sparkline of the Active Memory Timeline, all on one y scale;
// the peak's colour says how far it is from the median peak. A click on a
// row shows that rank, keeping the window (zoom) and the moment t.
//
// The diff panel compares two (file, device, moment) sides
// (memviz_core::analysis::diff, keyed by frame text): their timelines on one
// y scale, B − A by stack / frame / kind as a table, largest change first,
// and a two-colour icicle (red: more in B, blue: more in A).
import { getViewer, guard, showError, redraw, openFiles, setOpenMany, showFile, loadFile, inSlices } from './app.js';
import { setMoment, momentView } from './moment.js';
import * as icicle from './icicle.js';

const $ = (id) => document.getElementById(id);
const SAMPLES = 400; // sparkline points kept per row (the diff's timelines use them too)
const GiB = 1024 ** 3, MiB = 1024 ** 2, KiB = 1024;
const fmt = (b) => { const a = Math.abs(b); return a >= GiB ? (b / GiB).toFixed(2) + ' GiB' : a >= MiB ? (b / MiB).toFixed(1) + ' MiB'
  : a >= KiB ? (b / KiB).toFixed(1) + ' KiB' : b + ' B'; };
const signed = (b) => (b > 0 ? '+' : b < 0 ? '−' : '±') + fmt(Math.abs(b));
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

// ---- the panel -------------------------------------------------------------
// Its styles come with it (one file: nothing to add to the page's CSS, and
// the standalone file gets them too).
const style = document.createElement('style');
style.textContent = `
#ranks-panel { margin: 0.8em 0; }
#ranks-panel h2 { font-size: 1.05em; margin: 0.6em 0 0.3em; }
#ranks-table, #diff-table { border-collapse: collapse; font-size: 0.85em; }
#ranks-table th, #ranks-table td, #diff-table th, #diff-table td { padding: 2px 8px; border-bottom: 1px solid #e4e4e4; text-align: right; white-space: nowrap; }
#ranks-table td:nth-child(2), #diff-table td:last-child { text-align: left; max-width: 38em; overflow: hidden; text-overflow: ellipsis; }
#ranks-table tbody tr:not(.loading) { cursor: pointer; }
#ranks-table tbody tr:hover { background: #f3f6fb; }
#ranks-table tr.current { outline: 2px solid #4a7fc1; }
#ranks-table tr.replaying { outline: 2px dashed #4a7fc1; cursor: progress; }
#ranks-table td.oom { color: #b00; font-weight: bold; }
#ranks-table canvas.spark { width: 220px; height: 26px; display: block; }
#ranks-table progress { width: 220px; }
#ranks-table th:nth-child(2), #diff-table th:last-child { text-align: left; }
#diff-table-box { max-height: 24em; overflow: auto; border: 1px solid #e4e4e4; }
#diff-table thead th { position: sticky; top: 0; background: #fff; }
#diff-controls { display: flex; flex-wrap: wrap; gap: 0.4em 0.8em; align-items: center; font-size: 0.9em; }
#diff-timelines { display: flex; gap: 1em; margin: 0.6em 0; }
#diff-timelines > div { flex: 1; font-size: 0.85em; }
#diff-timelines canvas { width: 100%; height: 70px; display: block; border: 1px solid #ddd; }
#diff-table td.up { color: #b00; }
#diff-table td.down { color: #1a4fb0; }
#diff-table .only { font-size: 0.85em; background: #eee; padding: 0 4px; border-radius: 3px; }
#diff-icicle-box { position: relative; }
#diff-icicle { width: 100%; display: block; }
#diff-icicle-tip { position: absolute; background: #fffff0; border: 1px solid #aaa; padding: 4px; font-size: 11px; pointer-events: none; white-space: pre; }`;
document.head.append(style);
const panel = document.createElement('section');
panel.id = 'ranks-panel';
panel.hidden = true;
panel.innerHTML = `
  <h2>Ranks <span id="ranks-status"></span></h2>
  <p class="help">One row per file and device, ordered by the rank in the file name · sparklines share one y scale ·
    peak colour: distance from the median peak · click a row to show it (the zoom and t stay)</p>
  <table id="ranks-table"><thead><tr><th>rank</th><th>file</th><th>device</th><th>peak active</th>
    <th>peak reserved</th><th>end</th><th>OOMs</th><th>Active Memory Timeline</th></tr></thead><tbody></tbody></table>
  <h2>Diff</h2>
  <div id="diff-controls">
    <label>A <select id="diff-a"></select></label> <label>at <input id="diff-at-a" size="9" value="peak"></label>
    <label>B <select id="diff-b"></select></label> <label>at <input id="diff-at-b" size="9" value="peak"></label>
    <label>by <select id="diff-by"><option value="user" selected>user frame</option><option value="stack">stack</option>
      <option value="frame">frame</option><option value="category">kind</option></select></label>
    <button id="diff-run" type="button">Compare</button> <progress id="diff-progress" max="1" hidden></progress>
    <span class="help">at: peak, end, start, oom, step:S or an event index</span>
  </div>
  <div id="diff-out" hidden>
    <div id="diff-timelines"><div><b id="diff-name-a"></b><canvas id="diff-tl-a"></canvas></div>
      <div><b id="diff-name-b"></b><canvas id="diff-tl-b"></canvas></div></div>
    <p id="diff-totals"></p>
    <div id="diff-table-box"><table id="diff-table"><thead><tr><th>B − A</th><th>A</th><th>B</th><th>group</th></tr></thead><tbody></tbody></table></div>
    <h3>Live bytes by stack, A and B merged (width: the larger side · red: more in B · blue: more in A)</h3>
    <div id="diff-icicle-box"><canvas id="diff-icicle"></canvas><pre id="diff-icicle-tip" hidden></pre></div>
  </div>`;
$('summary').after(panel);

// Open folder…: the directory picker where the browser has one, else a
// webkitdirectory input (Chromium, Firefox, Safari all have that).
const dirInput = document.createElement('input');
dirInput.type = 'file';
dirInput.id = 'dir-input';
dirInput.multiple = true;
dirInput.webkitdirectory = true;
dirInput.hidden = true;
const dirButton = document.createElement('button');
dirButton.type = 'button';
dirButton.id = 'open-folder';
dirButton.textContent = 'Open folder…';
dirButton.title = 'Open every snapshot in a folder (the ranks of one run)';
$('example').before(dirButton, dirInput);
const SNAPSHOT_NAME = /\.(pickle|pkl|json|pt)(\.gz)?$/i;
dirButton.addEventListener('click', async () => {
  if (!window.showDirectoryPicker) { dirInput.click(); return; }
  let dir;
  try { dir = await window.showDirectoryPicker(); } catch (_) { return; } // cancelled
  const files = [];
  for await (const h of dir.values()) if (h.kind === 'file' && SNAPSHOT_NAME.test(h.name)) files.push(await h.getFile());
  if (files.length) openFiles(files); else showError(`${dir.name}: no snapshot files (.pickle, .pkl, .json, optionally .gz)`);
});
dirInput.addEventListener('change', () => {
  const files = Array.from(dirInput.files).filter((f) => SNAPSHOT_NAME.test(f.name));
  dirInput.value = '';
  if (files.length) openFiles(files); else showError('no snapshot files (.pickle, .pkl, .json, optionally .gz) in that folder');
});

// ---- opening many files ----------------------------------------------------
// Rows of every file opened as a batch: {file (viewer index), name, rank,
// device, device_name, peak_active_bytes, ..., sparkline, tr}.
const rows = [];
let loading = 0;

/** Reads `files` one after the other (rank order) into the Viewer; resolves when all are read. */
async function openMany(files) {
  try {
    await readMany(files);
  } catch (e) {
    loading = 0;
    status();
    // A trap: app.js's guard says so and restarts the viewer.
    if (e instanceof WebAssembly.RuntimeError) guard(() => { throw e; })();
    else showError(String((e && e.message) || e));
  }
}

async function readMany(files) {
  const v = getViewer();
  if (!v) return;
  panel.hidden = false;
  const order = Array.from(v.rank_order(files.map((f) => f.name)));
  const pending = order.map((i) => {
    const f = files[i];
    const tr = document.createElement('tr');
    tr.className = 'loading';
    const r = v.rank_of(f.name);
    tr.innerHTML = `<td>${r >= 0 ? r : '–'}</td><td>${esc(f.name)}</td><td colspan="6"><progress max="1" value="0"></progress> <span></span></td>`;
    $('ranks-table').tBodies[0].append(tr);
    return { f, tr };
  });
  loading += pending.length;
  status();
  let first = null;
  for (const { f, tr } of pending) {
    const idx = await readOne(f, tr);
    loading--;
    tr.remove();
    if (idx == null) { status(); continue; }
    if (first == null) first = idx;
    const o = JSON.parse(getViewer().overview_json(idx, SAMPLES));
    getViewer().trim_hidden_views();
    for (const row of o.rows) rows.push({ ...row, file: idx, name: o.name, rank: o.rank });
    render();
    status();
  }
  if (first != null) show(first, null, false);
  fillDiffSelects();
}

/** Reads one file the way app.js reads any (large ones in the decode worker); its row shows the progress. */
async function readOne(file, tr) {
  const bar = tr.querySelector('progress'), text = tr.querySelector('span');
  const progress = (done) => {
    bar.value = done / file.size;
    text.textContent = `${fmt(done)} of ${fmt(file.size)}`;
  };
  const building = () => {
    text.textContent = 'building the timeline…';
  };
  try {
    return await loadFile(file, progress, building);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) throw e; // app.js's guard restarts the viewer
    showError(`Could not open ${e.message || e}`);
    return null;
  }
}

function status() {
  panel.dataset.rows = rows.length;
  panel.dataset.loading = loading;
  $('ranks-status').textContent = loading ? `(reading ${loading} more…)` : `(${rows.length} rows)`;
}

// ---- the overview table ------------------------------------------------------
function render() {
  const tbody = $('ranks-table').tBodies[0];
  const keep = Array.from(tbody.querySelectorAll('tr.loading'));
  const dist = Array.from(getViewer().distance_from_median(rows.map((r) => r.peak_active_bytes)));
  const yMax = Math.max(1, ...rows.map((r) => r.peak_active_bytes));
  const current = currentKey();
  tbody.replaceChildren(...rows.map((r, i) => {
    const tr = document.createElement('tr');
    r.distance = dist[i];
    Object.assign(tr.dataset, { file: r.file, device: r.device, rank: r.rank ?? '', peak: r.peak_active_bytes,
      reserved: r.peak_reserved_bytes, end: r.end_bytes, ooms: r.ooms, distance: dist[i].toFixed(4) });
    if (`${r.file}/${r.device}` === current) tr.className = 'current';
    const c = Math.min(1, Math.abs(dist[i]) / 0.25); // 25 % from the median: full colour
    const bg = dist[i] >= 0 ? `rgba(220,40,40,${0.55 * c})` : `rgba(40,90,220,${0.55 * c})`;
    tr.innerHTML = `<td>${r.rank ?? '–'}</td><td title="${esc(r.name)}">${esc(r.name)}</td><td>${esc(r.device_name)}</td>` +
      `<td class="peak" style="background:${bg}" title="${(dist[i] * 100).toFixed(1)}% from the median peak">${fmt(r.peak_active_bytes)}</td>` +
      `<td>${fmt(r.peak_reserved_bytes)}</td><td>${fmt(r.end_bytes)}</td><td class="${r.ooms ? 'oom' : ''}">${r.ooms}</td>` +
      '<td><canvas class="spark"></canvas></td>';
    tr.addEventListener('click', () => showRank(r, tr));
    return tr;
  }), ...keep);
  tbody.querySelectorAll('canvas.spark').forEach((c, i) => spark(c, rows[i], yMax, null));
}

/** The row's Active Memory Timeline, scaled to `yMax`; `mark`: a step to draw a line at. */
function spark(canvas, row, yMax, mark) {
  const dpr = window.devicePixelRatio || 1;
  const W = canvas.clientWidth || 160, H = canvas.clientHeight || 24;
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  const s = row.sparkline;
  ctx.fillStyle = '#4a7fc1';
  ctx.beginPath();
  ctx.moveTo(0, H);
  s.forEach((b, i) => ctx.lineTo((i / Math.max(1, s.length - 1)) * W, H - (b / yMax) * H));
  ctx.lineTo(W, H);
  ctx.fill();
  if (mark != null && row.steps > 0) {
    ctx.strokeStyle = '#d22';
    ctx.beginPath();
    const x = (mark / row.steps) * W;
    ctx.moveTo(x, 0);
    ctx.lineTo(x, H);
    ctx.stroke();
  }
}

const currentKey = () => { const v = getViewer(); return v && v.file_count() ? `${v.current_file()}/${v.device()}` : ''; };

/** Shows file `file` (device: that one, else its default); `keep`: the window and t stay. */
const show = guard((file, device, keep) => {
  const v = getViewer();
  const w = keep && v.file_count() ? [v.window_start(), v.window_end()] : null;
  const mv = keep ? momentView() : null;
  const step = mv && mv.at ? mv.at.step : null;
  showFile(file, device);
  v.trim_hidden_views();
  if (w) {
    const n = v.n_steps();
    const x0 = Math.min(w[0], Math.max(0, n - 1)), x1 = Math.min(w[1], n);
    if (x1 > x0) v.set_window(x0, x1);
    redraw();
  }
  if (step != null && v.is_active_memory() && v.n_steps() > 0) setMoment('step:' + Math.min(step, v.n_steps() - 1));
  const key = currentKey();
  for (const tr of $('ranks-table').tBodies[0].rows) tr.classList.toggle('current', `${tr.dataset.file}/${tr.dataset.device}` === key);
  panel.dataset.shown = key;
});

// A row clicked: its rank is shown at once when its timeline was kept
// (the viewer's trim_hidden_views); else the timeline is replayed first, a slice a
// frame, while the rank shown stays and the page answers input (~27 ms a
// device on the 2M-event file: two frames' worth in one task otherwise).
// A later click cancels it. data-replay on the panel: the slices' work, ms,
// the last one showing the rank (its style and layout included).
const REPLAY_STEP = 1 << 15;
let rankClick = 0;
async function showRank(row, tr) {
  const v = getViewer();
  const token = ++rankClick;
  let slices;
  try {
    slices = inSlices(guard(() => v.prepare_file_step(row.file, row.device, REPLAY_STEP)), {
      cancelled: () => token !== rankClick || getViewer() !== v,
      progress: () => tr.classList.add('replaying'),
    });
    if (slices instanceof Promise) slices = await slices; // else shown in this task
  } catch (e) {
    return showError(`Could not show ${row.name}: ${e.message || e}`);
  } finally {
    tr.classList.remove('replaying');
  }
  if (!slices) return;
  const t0 = performance.now();
  show(row.file, row.device, true);
  if (slices.length) {
    void document.body.offsetHeight; // the browser's style and layout for this frame, counted in the slice
    slices.push(performance.now() - t0);
  }
  panel.dataset.replay = slices.map((x) => x.toFixed(1)).join(',');
}

// ---- the diff --------------------------------------------------------------
function fillDiffSelects() {
  for (const [id, pick] of [['diff-a', 0], ['diff-b', 1]]) {
    const sel = $(id);
    const old = sel.value;
    sel.replaceChildren(...rows.map((r, i) => new Option(`${r.rank != null ? `rank ${r.rank}: ` : ''}${r.name} · device ${r.device_name}`, i)));
    sel.value = old !== '' && +old < rows.length ? old : String(Math.min(pick, rows.length - 1));
  }
}

// The sides of the last diff, kept while their (viewer, file, device,
// moment) stay: moving one side's moment makes only that side again (a side
// of the 2M-event file is ~6 ms in wasm).
const sides = { a: null, b: null };
const momentOf = (slot) => $(`diff-at-${slot}`).value.trim() || 'peak'; // a side's moment, as typed
function side(slot, row, at) {
  const v = getViewer();
  const old = sides[slot];
  if (old && old.v === v && old.file === row.file && old.device === row.device && old.at === at) return old.side;
  if (old && old.v === v) old.side.free();
  sides[slot] = null;
  const s = v.diff_side(row.file, row.device, at);
  sides[slot] = { v, file: row.file, device: row.device, at, side: s };
  return s;
}

let diffToken = 0; // the last Diff click: a build or an icicle of an older one goes no further
// A side's analysis not yet built (~170 ms a side in one call on the
// 2M-event file) is built first, a slice a frame, the Compare button's
// progress bar moving, then the sides; a later click cancels it.
// data-build on #diff-out: 'pending' while it builds, then those slices'
// work, ms, the last the diff's table, for benches/browser.
const DIFF_STEP = 1 << 12;
const runDiff = guard(() => {
  const v = getViewer();
  const ra = rows[+$('diff-a').value], rb = rows[+$('diff-b').value];
  if (!ra || !rb) return;
  const token = ++diffToken;
  // An error that is no trap (a device gone, a moment that is not one)
  // ends that part of the build: compare() then calls again and shows it.
  const unlessTrap = (f) => {
    try {
      return f();
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) throw e;
      return 1;
    }
  };
  const prepare = (row) => unlessTrap(() => v.prepare_diff_side_step(row.file, row.device, DIFF_STEP));
  // Then each side's moment, a call each (~6 ms a side on the 2M-event
  // file; the first Diff's table had 22-27 ms after them in one frame).
  let sidesMade = 0;
  const step = () => {
    const a = prepare(ra);
    if (a < 1) return 0.45 * a;
    const b = prepare(rb);
    if (b < 1) return 0.45 + 0.45 * b;
    const slot = sidesMade ? 'b' : 'a';
    unlessTrap(() => side(slot, slot === 'a' ? ra : rb, momentOf(slot)));
    return ++sidesMade === 2 ? 1 : 0.95;
  };
  const bar = $('diff-progress');
  const slices = inSlices(guard(step), {
    cancelled: () => token !== diffToken || getViewer() !== v,
    progress: (done) => { bar.hidden = false; bar.value = done; },
  });
  if (!(slices instanceof Promise)) {
    if (slices) compare(v, ra, rb, token);
    return;
  }
  $('diff-out').dataset.build = 'pending';
  slices.then((s) => {
    if (token === diffToken) {
      bar.hidden = true;
      if (!s) delete $('diff-out').dataset.build; // another file: no diff
    }
    if (!s) return;
    const t0 = performance.now();
    guard(() => compare(v, ra, rb, token))();
    void document.body.offsetHeight; // its style and layout, counted in its slice
    s.push(performance.now() - t0);
    $('diff-out').dataset.build = s.map((x) => x.toFixed(1)).join(',');
  });
});

/** The diff of its two sides, built: the table now, the icicle in the next frame. */
function compare(v, ra, rb, token) {
  try {
    const a = side('a', ra, momentOf('a'));
    const b = side('b', rb, momentOf('b'));
    showDiff(JSON.parse(v.diff_json(a, b, $('diff-by').value, 200)), ra, rb);
    // The icicle in the next frame: the table first, each frame's work
    // within its budget (issue 13). Nodes of at least 1/1500 of the larger
    // peak, about a pixel (narrower ones are not drawn).
    $('diff-out').dataset.icicle = 'pending';
    requestAnimationFrame(guard(() => {
      const now = getViewer();
      if (token !== diffToken || !sides.a || !sides.b || sides.a.v !== now || sides.b.v !== now) return;
      const t0 = performance.now();
      const minTree = Math.floor(Math.max(ra.peak_active_bytes, rb.peak_active_bytes) / 1500);
      const { frames, nodes } = JSON.parse(now.diff_tree_json(sides.a.side, sides.b.side, minTree));
      diffTree = nodes.map(([id, parent, depth, f, a, b]) => ({ id, parent, depth, frame: frames[f], bytes_a: a, bytes_b: b }));
      const t1 = performance.now();
      drawIcicle($('diff-icicle'), diffTree);
      $('diff-out').dataset.icicle = 'drawn';
      // For benches/browser/panels.mjs: this frame's work, and its drawing.
      $('diff-out').dataset.icicleMs = (performance.now() - t0).toFixed(2);
      $('diff-out').dataset.icicleDrawMs = (performance.now() - t1).toFixed(2);
    }));
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) throw e;
    showError(`Diff: ${e.message || e}`);
  }
}
$('diff-run').addEventListener('click', runDiff);

let diffTree = [];
function showDiff(d, ra, rb) {
  $('diff-out').hidden = false;
  const yMax = Math.max(1, ra.peak_active_bytes, rb.peak_active_bytes);
  $('diff-name-a').textContent = `A: ${d.a.name}`;
  $('diff-name-b').textContent = `B: ${d.b.name}`;
  spark($('diff-tl-a'), ra, yMax, d.a.at.step);
  spark($('diff-tl-b'), rb, yMax, d.b.at.step);
  const out = $('diff-out');
  Object.assign(out.dataset, { totalA: d.a.total_bytes, totalB: d.b.total_bytes, changed: d.changed,
    groups: d.group_count, onlyA: d.only_in_a, onlyB: d.only_in_b });
  const at = (s) => (s.at.step != null ? `step ${s.at.step}` : `position ${s.at.position}`);
  $('diff-totals').innerHTML = `A ${fmt(d.a.total_bytes)} at ${at(d.a)} · B ${fmt(d.b.total_bytes)} at ${at(d.b)} · ` +
    `<b>B − A ${signed(d.b.total_bytes - d.a.total_bytes)}</b> · ` +
    (d.changed ? `${d.changed} of ${d.group_count} groups changed · only in A: ${d.only_in_a} (${fmt(d.only_in_a_bytes)}) · ` +
      `only in B: ${d.only_in_b} (${fmt(d.only_in_b_bytes)})` : '<b>no change</b>');
  diffRows = d.groups.filter((g) => g.bytes_a !== g.bytes_b || g.count_a !== g.count_b);
  $('diff-table').tBodies[0].innerHTML = '';
  $('diff-table-box').scrollTop = 0;
  moreDiffRows();
}

// The table lays out DIFF_PAGE rows, a few more than its box shows; scrolling
// near its end adds as many again (200 rows of stacks took ~16 ms to lay
// out on the 2M-event file).
const DIFF_PAGE = 40;
let diffRows = [];
function moreDiffRows() {
  const body = $('diff-table').tBodies[0];
  const shown = body.rows.length;
  body.insertAdjacentHTML('beforeend', diffRows.slice(shown, shown + DIFF_PAGE).map((g, i) => {
    const delta = g.bytes_b - g.bytes_a;
    const tag = g.count_a === 0 ? '<span class="only">only in B</span> ' : g.count_b === 0 ? '<span class="only">only in A</span> ' : '';
    // The core's label: user frames first, what differs when two read alike.
    const short = g.label.split('\n').join(' ← ');
    // The group's whole key (a stack: kilobytes) is not written into the
    // row: its index says which, and a hover gives it as the title.
    return `<tr data-i="${shown + i}" data-a="${g.bytes_a}" data-b="${g.bytes_b}"><td class="${delta > 0 ? 'up' : 'down'}">${signed(delta)}</td>` +
      `<td>${fmt(g.bytes_a)}</td><td>${fmt(g.bytes_b)}</td><td class="group">${tag}${esc(short)}</td></tr>`;
  }).join(''));
  $('diff-out').dataset.rowsShown = body.rows.length;
}
$('diff-table').addEventListener('pointerover', (e) => {
  const td = e.target.closest('td.group');
  if (td && !td.title) td.title = diffRows[+td.parentElement.dataset.i]?.key ?? '';
});
$('diff-table-box').addEventListener('scroll', (e) => {
  const b = e.target;
  if ($('diff-table').tBodies[0].rows.length < diffRows.length && b.scrollTop + b.clientHeight > b.scrollHeight - 200) moreDiffRows();
});

// Two-colour icicle: width = the larger side's bytes; red where B has more,
// blue where A has more, the stronger the larger the change.
const ROW = 18;
let boxes = [];
// The fill of a node whose share of change is `rel` (B − A over the larger
// side): 1% steps, each css string made once; any change keeps its side's
// hue (a change under 0.5% is a 1% step, not the gray of none).
const diffColors = new Map();
function diffColor(rel) {
  const k = rel === 0 ? 0 : Math.sign(rel) * Math.max(1, Math.round(Math.abs(rel) * 100));
  let c = diffColors.get(k);
  if (!c) {
    const l = 92 - 42 * Math.abs(k / 100);
    c = k > 0 ? `hsl(0, 75%, ${l}%)` : k < 0 ? `hsl(220, 75%, ${l}%)` : 'hsl(0, 0%, 85%)';
    diffColors.set(k, c);
  }
  return c;
}
function drawIcicle(canvas, tree) {
  boxes = [];
  const root = tree[0];
  const size = (n) => Math.max(n.bytes_a, n.bytes_b);
  if (!root || !size(root)) { canvas.hidden = true; return; }
  canvas.hidden = false;
  const dpr = window.devicePixelRatio || 1;
  const W = canvas.clientWidth;
  const depth = tree.reduce((d, n) => Math.max(d, n.depth), 0) + 1;
  const H = Math.min(depth, 40) * ROW;
  canvas.style.height = H + 'px';
  canvas.width = Math.round(W * dpr);
  canvas.height = Math.round(H * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  ctx.font = '11px monospace';
  ctx.textBaseline = 'middle';
  const charW = ctx.measureText('M').width || 6.6;
  const scale = W / size(root);
  const pos = new Map([[root.id, { x: 0, next: 0 }]]);
  for (const n of tree) {
    let x = 0;
    if (n.id !== root.id) {
      const p = pos.get(n.parent);
      if (!p) continue;
      x = p.next;
      p.next += size(n) * scale;
    }
    pos.set(n.id, { x, next: x });
    const w = size(n) * scale, y = n.depth * ROW;
    if (y >= H) continue;
    boxes.push({ x, y, w, n });
    if (w < 0.5) continue;
    ctx.fillStyle = diffColor((n.bytes_b - n.bytes_a) / size(n));
    ctx.fillRect(x, y, Math.max(w - 1, 0.5), ROW - 1);
    if (w > 30) {
      // Cut to the box (monospace: a fixed advance) instead of clipping:
      // save/clip/restore per box took most of the drawing (15 ms for the
      // 7,000 nodes of the 2M-event file).
      ctx.fillStyle = '#000';
      ctx.fillText(icicle.label(n.frame, w, charW), x + 3, y + ROW / 2);
    }
  }
}
const ici = $('diff-icicle');
ici.addEventListener('pointermove', (e) => {
  const b = boxes.find((q) => e.offsetX >= q.x && e.offsetX < q.x + q.w && e.offsetY >= q.y && e.offsetY < q.y + ROW);
  const tip = $('diff-icicle-tip');
  tip.hidden = !b;
  if (!b) return;
  tip.textContent = `${b.n.frame}\nA ${fmt(b.n.bytes_a)} · B ${fmt(b.n.bytes_b)} · B − A ${signed(b.n.bytes_b - b.n.bytes_a)}`;
  tip.style.left = Math.min(e.offsetX + 12, ici.clientWidth - 300) + 'px';
  tip.style.top = (e.offsetY + 14) + 'px';
});
ici.addEventListener('pointerleave', () => { $('diff-icicle-tip').hidden = true; });
addEventListener('resize', () => { if (!$('diff-out').hidden) drawIcicle(ici, diffTree); });

setOpenMany(openMany);

/** The diff table's groups, in its rows' order (`data-i`): tests read their keys. */
const diffGroups = () => diffRows;
export { openMany, rows as rankRows, diffGroups };
