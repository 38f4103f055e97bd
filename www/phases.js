//# allFunctionsCalledOnLoad
// Phases and time over the timelines (crates/memviz-wasm/src/phases.rs,
// memviz_core::phases): the snapshot's record_function ranges
// (external_annotations: forward / backward / optimizer step...) as labelled
// bands along the top of the plot, torch.compile's own ones hidden unless
// asked for, filterable by name; `annotate` events as markers; a click on a
// phase zooms to it. The wall-clock time (time_us) of the step under the
// pointer is shown next to the controls; a file without time_us says so.
//
// The "x: steps | time" control (#x-axis) picks the plot's x axis: alloc /
// free steps, or wall-clock time from time_us with idle gaps compressed
// (memviz-viewer's xaxis.rs); the choice is kept across views, devices and
// files, and a timeline without time_us disables it with the reason
// (#x-axis-reason). On the time axis phases are placed at their times.
//
// It follows the plot: after each draw (app.js's onDraw) it compares what
// the plot shows (file, device, view, window, width, x axis) with what it
// laid out, and lays out again only when that changed, in the same task, so
// the phases move with the plot in the same frame. It does not poll: a page
// left open with a file requests no frames (it did each frame, 2.4% of the
// main thread while idle).
import { getViewer, guard, redraw, onDraw, afterPaint } from './app.js';

const $ = (id) => document.getElementById(id);
const box = $('plot-box');
const plot = $('plot');
const COLORS = ['#2b6c3f', '#1f4e9a', '#8a4b08', '#6b2d7a'];

const bar = document.createElement('div');
bar.id = 'phase-controls';
bar.style.cssText = 'font-size:13px;margin:0.3em 0';
bar.hidden = true;
bar.innerHTML = `
  <label>Phases <input id="phase-filter" type="search" size="18" placeholder="filter by name"></label>
  <label><input id="phase-internal" type="checkbox"> torch.compile internals</label>
  · <span id="phase-count"></span> · <span id="time-readout"></span>`;
box.before(bar);
const layer = document.createElement('div');
layer.id = 'phase-layer';
layer.style.cssText = 'position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none;overflow:hidden;z-index:3';
box.style.position = box.style.position || 'relative';
box.appendChild(layer);

let data = null; // phases_json of the current timeline
let dataKey = '';
let seenKey = ''; // the timeline the last frame showed (its phases follow a frame later)
let layoutKey = '';

function currentKey(v) {
  return [v.current_file(), v.device(), v.view(), v.file_count()].join('/');
}

function shown() {
  if (!data || !data.phases) return [];
  const f = $('phase-filter').value.trim().toLowerCase();
  const internal = $('phase-internal').checked;
  return data.phases.filter((p) => (internal || !p.internal) && (!f || p.name.toLowerCase().includes(f)));
}

/** The x axis control: the axis shown, disabled with the reason when time is not available. */
function axisControl(v) {
  const sel = $('x-axis'), reason = v.x_axis_reason();
  sel.value = v.x_axis();
  sel.disabled = reason !== '';
  $('x-axis-reason').textContent = reason ? `(${reason})` : '';
}

$('x-axis').addEventListener('change', guard((e) => {
  const v = getViewer();
  if (!v) return;
  v.set_x_axis(e.target.value);
  axisControl(v);
  redraw();
}));

// Phases are laid out in LANES rows of labels; a label is never cut and
// never leaves the plot (at the plot's right edge it ends at its phase's
// end). A phase whose label finds no free row is drawn in one thin row
// without labels: zoom in (or click it) to read it.
const LANES = 3, ROW = 16;
const widths = new Map(); // label width by name (measured once)
let measure = null;
function labelWidth(name) {
  let w = widths.get(name);
  if (w === undefined) {
    measure ||= document.createElement('canvas').getContext('2d');
    measure.font = '11px sans-serif';
    w = Math.ceil(measure.measureText(name).width) + 6;
    widths.set(name, w);
  }
  return w;
}

function layout(v) {
  layer.replaceChildren();
  const list = shown();
  const w = plot.clientWidth;
  const time = v.x_axis() === 'time';
  const ends = new Array(LANES).fill(-Infinity); // where each row is taken up to
  list.forEach((p, i) => {
    const x0 = time ? v.x_of_seconds(p.start_s) : v.x_of_step(p.step0);
    const x1 = time ? v.x_of_seconds(p.end_s) : v.x_of_step(p.step1);
    if (!(x1 >= 0 && x0 <= w)) return;
    const left = Math.max(0, Math.min(x0, w - 2)), right = Math.min(w, Math.max(x1, left + 2));
    const lw = labelWidth(p.name);
    const atEnd = left + lw > w; // the label ends at the phase's end instead
    const from = Math.min(left, atEnd ? right - lw : left), to = Math.max(right, atEnd ? right : left + lw);
    const lane = from >= 0 ? ends.findIndex((e) => e + 3 <= from) : -1;
    if (lane >= 0) ends[lane] = to;
    const el = document.createElement('div');
    el.className = lane >= 0 ? 'phase' : 'phase phase-dense';
    el.dataset.name = p.name;
    el.dataset.step0 = p.step0;
    el.dataset.step1 = p.step1;
    el.title = `${p.name}: ${p.start_s.toFixed(6)} s to ${p.end_s.toFixed(6)} s${p.open ? ' (no END)' : ''}, ` +
      `steps ${p.step0} to ${p.step1} · click: zoom to it`;
    const c = COLORS[i % COLORS.length];
    el.style.cssText = `position:absolute;top:${(lane >= 0 ? lane : LANES) * ROW}px;left:${plot.offsetLeft + left}px;` +
      `width:${right - left}px;height:${lane >= 0 ? 15 : 5}px;background:${c}22;border-left:2px solid ${c};color:${c};` +
      'font:11px sans-serif;white-space:nowrap;overflow:visible;pointer-events:auto;cursor:zoom-in';
    if (lane >= 0) {
      const label = document.createElement('span');
      label.className = 'phase-label';
      label.textContent = p.name;
      // Over the peak / OOM badges, on white: a label stays readable where a marker crosses it.
      label.style.cssText = `position:absolute;top:0;${atEnd ? 'right:0' : 'left:0'};background:#ffffffd9;padding:0 2px`;
      el.appendChild(label);
    }
    el.addEventListener('click', guard(() => {
      const n = v.n_steps();
      // A phase with no step inside: the steps around it.
      const a = Math.min(p.step0, Math.max(0, n - 1)), b = Math.max(p.step1, a + 1);
      v.set_window(a, b);
      redraw();
    }));
    layer.appendChild(el);
  });
  for (const m of data.markers || []) {
    const x = v.x_of_step(m.step);
    if (!(x >= 0 && x <= w)) continue;
    const el = document.createElement('div');
    el.className = 'annotate-marker';
    el.title = `annotate event ${m.event}`;
    el.style.cssText = `position:absolute;bottom:0;left:${plot.offsetLeft + x - 4}px;width:0;height:0;` +
      'border-left:4px solid transparent;border-right:4px solid transparent;border-bottom:8px solid #b8860b';
    layer.appendChild(el);
  }
  $('phase-count').textContent = data.phases && data.phases.length
    ? `${list.length} of ${data.phases.length} shown` : 'no record_function phases in this file';
}

// A new timeline's phases come in a task after the frame that shows it.
let later = false;
function followLater() {
  if (later) return;
  later = true;
  afterPaint().then(() => {
    later = false;
    follow();
  });
}

function follow() {
  try {
    const v = getViewer();
    // Only with a timeline on screen (not before a file, not in the state history).
    // (From the view's kind rather than offsetParent, which would force a
    // layout inside the draw.)
    bar.hidden = !(v && v.file_count() && !box.hidden && !/^(state|settings)$/.test(document.body.dataset.kind || ''));
    if (!bar.hidden) {
      const key = currentKey(v);
      if (key !== dataKey && key !== seenKey) {
        // The first frame of a timeline just shown: its phases come in the
        // next one, so that this frame (a file's first paint) waits for
        // nothing but the plot (issue 13); the old timeline's go now.
        seenKey = key;
        data = null;
        layoutKey = '';
        layer.replaceChildren();
        $('phase-count').textContent = '';
        $('time-readout').textContent = '';
        followLater();
      } else if (key !== dataKey) {
        dataKey = key;
        data = JSON.parse(v.phases_json());
        $('time-readout').textContent = data.has_time ? 'time: hover the plot'
          : 'this file has no time_us: steps only';
        axisControl(v);
      }
      // Where steps land on the plot (NaN until it is drawn) is part of the key.
      const lk = key !== dataKey ? '' : [key, v.x_axis(), v.x_of_step(0), v.x_of_step(v.n_steps()), plot.width,
        $('phase-filter').value, $('phase-internal').checked].join('|');
      if (lk !== layoutKey) { layoutKey = lk; layout(v); }
    }
  } catch (_) { /* the viewer is restarting */ }
}
onDraw(follow);
$('phase-filter').addEventListener('input', follow);
$('phase-internal').addEventListener('change', follow);

plot.addEventListener('pointermove', (e) => {
  const v = getViewer();
  if (!v || !data || !data.has_time) return;
  try {
    const s = v.step_at_x(e.offsetX);
    const t = v.time_at_step(s);
    if (Number.isFinite(t)) $('time-readout').textContent = `step ${s}: t = ${t.toFixed(6)} s from the first event`;
  } catch (_) { /* restarting */ }
});

/** For tests: the phases of the current timeline. */
export const phaseData = () => data;
