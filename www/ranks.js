// @ts-check
//# allFunctionsCalledOnLoad
// Many snapshots at once (the ranks of one run) and what changed between two
// moments (crates/memviz-viewer/src/ranks.rs builds the table, the diff and
// its icicle; index.html's templates show them). Files opened together are
// read one after the other, in rank order, into the one Viewer. A row clicked
// shows that rank (the zoom and t stay) and sets the diff's B to it, A to the
// median rank. The Diff works with one file too (two moments or devices).
import { getViewer, guard, showError, redraw, openFiles, setOpenMany, showFile, loadFile, build, failedLine, onDraw, command, pageNow }
  from './app.js';
import { setMoment, momentView } from './moment.js';
import { $, add, fill, onCmd } from './bind.js';

const panel = $('ranks-panel'), tbody = $('ranks-table').tBodies[0];

// ---- Open folder… (which names are snapshots: ranks.rs) ---------------------------
const openSnapshots = guard((files, folder) => {
  /** @type {import('./types').RanksReply} */
  const r = getViewer()?.ranks({ do: 'snapshots', names: files.map((f) => f.name), folder });
  if (r?.order.length) openFiles(r.order.map((i) => files[i])); else if (r) showError(r.message);
});
$('open-folder').addEventListener('click', async () => {
  const w = /** @type {any} */ (window);
  if (!w.showDirectoryPicker) return $('dir-input').click();
  let dir;
  try { dir = await w.showDirectoryPicker(); } catch (_) { return; } // cancelled
  const files = [];
  for await (const h of dir.values()) if (h.kind === 'file') files.push(await h.getFile());
  openSnapshots(files, dir.name);
});
$('dir-input').addEventListener('change', () => {
  const files = Array.from($('dir-input').files);
  $('dir-input').value = '';
  openSnapshots(files, null);
});

// ---- opening many files --------------------------------------------------------
/** @type {import('./types').RankTableRow[]} the overview's rows (and the diff's sides) */
let rows = [];
let rowsOf = null; // the Viewer the rows are of
let loading = 0;

async function openMany(files) {
  const v = getViewer();
  if (!v) return;
  panel.hidden = $('diff-panel').hidden = false;
  /** @type {import('./types').RanksReply} */
  const o = v.ranks({ do: 'order', names: files.map((f) => f.name) });
  const pending = o.order.map((i) => {
    const f = files[i], tr = $('rank-loading').content.firstElementChild.cloneNode(true);
    // The row as ranks.rs words it: `read` bytes of the file (null: not yet), or its timeline built.
    const at = guard((read, building = false) => fill(tr, v.ranks({ do: 'reading', name: f.name, size: f.size, read, building }).reading));
    at(null);
    tbody.append(tr);
    return { f, tr, at };
  });
  loading += pending.length;
  status();
  let first = null;
  try {
    for (const { f, tr, at } of pending) {
      const idx = await loadFile(f, at, () => at(f.size, true)).catch((e) => {
        if (e instanceof WebAssembly.RuntimeError) throw e;
        return void showError(failedLine(f.name, e).text);
      });
      loading--;
      tr.remove();
      if (idx != null) {
        first ??= idx;
        addRows(idx);
        getViewer().ranks({ do: 'trim' });
      }
      status();
    }
    if (first != null) show(first, null, false);
  } catch (e) {
    loading = 0;
    if (e instanceof WebAssembly.RuntimeError) guard(() => { throw e; })(); // app.js restarts the viewer
    else showError(String((e && e.message) || e));
    status();
  }
}

/** Open file `idx`'s rows join the table and the diff's sides (ranks.rs keeps them). */
function addRows(idx) {
  /** @type {import('./types').RanksReply} */
  const r = (rowsOf = getViewer()).ranks({ do: 'overview', file: idx });
  rows = r.rows;
  tbody.querySelectorAll('tr:not(.loading)').forEach((tr) => tr.remove());
  add(tbody, rows); // index.html's template #rank-row
  tbody.append(...tbody.querySelectorAll('tr.loading')); // rows still reading stay last
  marked();
  status();
  for (const slot of ['a', 'b']) {
    const sel = $(`diff-${slot}`), old = sel.value;
    fill(sel, r); // an option per row (index.html's template #diff-option)
    sel.value = r.pick[slot] ?? (old !== '' && +old < rows.length ? old : '0'); // a file new to the table: ranks.rs picks
  }
}

// One file opened (no batch): its rows, for the diff of two moments or devices.
onDraw(() => {
  const v = getViewer();
  if (loading || !v || !v.file_count() || document.body.dataset.page !== 'snapshot') return;
  if (rowsOf === v && rows.some((r) => r.file === pageNow().file)) return;
  $('diff-panel').hidden = false;
  try { addRows(pageNow().file); } catch (_) { /* the viewer is restarting */ }
});

function status() {
  Object.assign(panel.dataset, { rows: rows.length, loading });
  $('ranks-status').textContent = getViewer()?.ranks({ do: 'status', loading }).status ?? '';
}

// ---- the overview table ----------------------------------------------------------
onCmd($('ranks-table'), (i, tr) => {
  $('diff-b').value = String(i);
  $('diff-a').value = String(rows[i].median);
  showRank(rows[i], tr);
});

/** Marks the row shown; data-shown: "file/device" for tests. */
function marked() {
  const { file: f, device: d } = pageNow();
  for (const tr of tbody.rows) tr.classList.toggle('current', +tr.dataset.file === f && +tr.dataset.device === d);
  panel.dataset.shown = `${f}/${d}`;
}

/** Shows file `file` (device: that one, else its default); `keep`: the window and t stay. */
const show = guard((file, device, keep) => {
  const v = getViewer();
  const w = keep && v.file_count() ? pageNow().window : null;
  const step = keep ? momentView()?.at?.step : null;
  showFile(file, device);
  v.ranks({ do: 'trim' });
  if (w) {
    const n = pageNow().steps, x0 = Math.min(w[0], Math.max(0, n - 1)), x1 = Math.min(w[1], n);
    if (x1 > x0) command({ cmd: 'set_window', x0, x1 });
    redraw();
  }
  const p = pageNow();
  if (step != null && p.active_memory && p.steps > 0) setMoment({ step: Math.min(step, p.steps - 1) });
  marked();
});

// A row clicked: shown at once when its timeline was kept, else replayed first, a slice
// a frame (app.js's build; a later click cancels it). data-replay: the slices' work, ms
// ('' when shown at once: build's one slice is then the show's own).
let rankClick = 0;
async function showRank(row, tr) {
  const v = getViewer(), token = ++rankClick;
  tr.classList.add('replaying'); // painted only when the replay takes frames
  const slices = await build(() => ({ work: 'rank_show', file: row.file, device: row.device }), undefined,
    () => token !== rankClick || getViewer() !== v, () => show(row.file, row.device, true), false)
    .finally(() => tr.classList.remove('replaying'));
  if (slices) panel.dataset.replay = slices.length > 1 ? slices.map((x) => x.toFixed(1)).join(',') : '';
}

// ---- the diff ----------------------------------------------------------------
/** Side `slot` ('a' or 'b') at the moment t of the row shown: ranks.rs picks its fields. */
function sideAtT(slot) {
  const p = pageNow(), step = momentView()?.at?.step ?? null;
  const r = getViewer().ranks({ do: 'at_t', slot, file: p.file, device: p.device, step });
  if (r.message) return showError(r.message);
  for (const [name, value] of Object.entries(r.pick)) $('diff-controls').elements[name].value = value;
}
$('diff-t-a').addEventListener('click', () => sideAtT('a'));
$('diff-t-b').addEventListener('click', () => sideAtT('b'));

/** The form's values as they are (ranks.rs diff_form reads them). @returns {import('./types').DiffForm} */
const diffForm = () => /** @type {any} */ (Object.fromEntries(new FormData($('diff-controls'))));

let diffToken = 0; // the last Compare: a build or an icicle of an older one goes no further
// A side's analysis not yet built is built first, a slice a frame (app.js's build,
// docs/ranks.md); data-build on #diff-out: 'pending', then the slices' work, ms, the last the table's.
const runDiff = guard(() => {
  const v = getViewer(), out = $('diff-out');
  if (!rows.length) return;
  const token = ++diffToken, w = { work: 'diff_sides', form: diffForm() };
  let now = false; // compared in this task (no slices): no data-build
  const built = build(() => w, undefined, () => token !== diffToken || getViewer() !== v,
    guard(() => { now = true; compare(v, token); }), false);
  if (now) return;
  out.dataset.build = 'pending';
  built.then((s) => {
    if (s) out.dataset.build = s.map((x) => x.toFixed(1)).join(',');
    else if (token === diffToken) delete out.dataset.build;
  });
});
$('diff-controls').addEventListener('submit', (e) => { e.preventDefault(); runDiff(); }); // Compare, or Enter in a step

/** @type {import('./types').DiffRow[]} */
let diffRows = [];
/** The table now, the icicle in the next frame (each frame's work within its budget). */
function compare(v, token) {
  const cmd = { do: 'compare', form: diffForm(), part: 'table' }, out = $('diff-out');
  /** @type {import('./types').DiffView} */
  let d;
  try {
    d = v.ranks(cmd).diff;
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) throw e;
    return showError(e.message || e); // ranks.rs words it: "Diff: …"
  }
  out.hidden = false;
  fill(out, d); // the titles, timelines, totals and their data-* for tests; the icicle emptied
  diffRows = d.rows;
  $('diff-table').tBodies[0].replaceChildren();
  $('diff-table-box').scrollTop = 0;
  moreDiffRows();
  out.dataset.icicle = 'pending';
  requestAnimationFrame(guard(() => {
    if (token !== diffToken || getViewer() !== v) return;
    const t0 = performance.now();
    /** @type {import('./types').DiffView} */
    const t = v.ranks({ ...cmd, part: 'tree' }).diff;
    const t1 = performance.now();
    fill($('diff-icicle'), t); // index.html: a box per stack frame, its tip the title
    const ms = (t) => (performance.now() - t).toFixed(2);
    Object.assign(out.dataset, { icicle: 'drawn', icicleMs: ms(t0), icicleDrawMs: ms(t1) });
  }));
}

// 40 rows laid out, as many again when scrolled near the end (docs/ranks.md).
function moreDiffRows() {
  const body = $('diff-table').tBodies[0], shown = body.rows.length;
  add(body, diffRows.slice(shown, shown + 40), shown); // index.html's template #diff-row
  $('diff-out').dataset.rowsShown = body.rows.length;
}
$('diff-table').addEventListener('pointerover', (e) => {
  const td = e.target.closest('td.group'); // the whole key (a stack: kilobytes) once hovered
  if (td && !td.title) td.title = diffRows[+td.parentElement.dataset.i]?.key ?? '';
});
$('diff-table-box').addEventListener('scroll', (e) => {
  const b = e.target;
  if ($('diff-table').tBodies[0].rows.length < diffRows.length && b.scrollTop + b.clientHeight > b.scrollHeight - 200) moreDiffRows();
});

setOpenMany(openMany);

/** The diff table's groups, in its rows' order (`data-i`): tests read their keys. */
export const diffGroups = () => diffRows;
