//# allFunctionsCalledOnLoad
// The Findings strip (issue 40), right under the file's summary line: one
// line per finding of memviz_core::analysis::findings (Viewer.findings_json;
// the titles are the core's), most important first. Each is a link that
// moves t there and opens the panel with its evidence: an OOM or a cap, the
// OOM explained; the peak or caching, the peak explained; growth, the leak
// report (t at the OOM it runs into, or the end); gradients kept and the
// optimizer state, the "Alive at" panel at its event.
//
// The findings need the analysis: it is built (a slice a frame) after a
// file shows when its trace is at most AUTO_EVENTS long; a longer one shows
// a link that builds it.
import { getViewer, guard, onDraw, withAnalysis, afterPaint } from './app.js';
import { setMoment } from './moment.js';
import { explain } from './explain.js';

const $ = (id) => document.getElementById(id);
const AUTO_EVENTS = 100000;
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

const strip = document.createElement('div');
strip.id = 'findings';
strip.setAttribute('aria-label', 'Findings');
$('summary').after(strip);
const style = document.createElement('style');
style.textContent = `
#findings { margin: 0 0 6px; font-size: 13px; }
#findings:empty { display: none; }
#findings ul { margin: 0; padding-left: 1.2em; }
#findings li { margin: 1px 0; }
#findings a { color: #1f4e9a; }
#findings li[data-kind="oom"] a, #findings li[data-kind="capped"] a, #findings li[data-kind="growth"] a,
#findings li[data-kind="gradients_kept"] a { color: #b3261e; }
`;
document.head.appendChild(style);

let key = '';
let findings = [];
const keyOf = (v) => `${v.current_file()}/${v.device()}/${v.file_count()}`;

function show(v) {
  const r = JSON.parse(v.findings_json());
  findings = r.findings;
  strip.innerHTML = findings.length
    ? '<b>Findings</b><ul>' + findings.map((f, i) =>
      `<li data-kind="${f.kind}" data-bytes="${f.bytes ?? ''}" data-event="${f.event ?? ''}">` +
      `<a href="#" data-i="${i}">${esc(f.title)}</a></li>`).join('') + '</ul>'
    : '';
}

function compute() {
  const v = getViewer();
  if (!v || !v.file_count() || keyOf(v) !== key) return;
  const k = key;
  withAnalysis(() => {
    const now = getViewer();
    if (now === v && keyOf(v) === k) show(v);
  });
}

/** Opens the evidence of finding `f`. */
function open(f) {
  const evidence = (id) => $(id)?.scrollIntoView({ block: 'start' });
  switch (f.kind) {
    case 'oom':
    case 'capped':
      explain(`oom:${f.detail.oom}`);
      evidence('explain-panel');
      break;
    case 'peak':
    case 'caching':
      explain('peak');
      evidence('explain-panel');
      break;
    case 'growth':
      if (f.event != null) setMoment(String(f.event));
      $('leaks-details').open = true; // its toggle shows the report
      evidence('leaks-panel');
      break;
    default:
      if (f.event != null) setMoment(String(f.event));
      evidence('moment-panel');
  }
}

strip.addEventListener('click', guard((e) => {
  const a = e.target.closest('a[data-i]');
  if (!a) return;
  e.preventDefault();
  open(findings[Number(a.dataset.i)]);
}));

// A new file or device: the old findings go at once; the new ones come
// after the frame that shows the file.
onDraw(() => {
  const v = getViewer();
  if (!v) return;
  const k = keyOf(v);
  if (k === key) return;
  key = k;
  findings = [];
  strip.innerHTML = '';
  if (!v.file_count()) return;
  if (JSON.parse(v.summary_json()).trace_events > AUTO_EVENTS) {
    strip.innerHTML = '<b>Findings</b> <a href="#" id="findings-compute">find them (builds the analysis)</a>';
    $('findings-compute').addEventListener('click', guard((e) => { e.preventDefault(); compute(); }));
    return;
  }
  afterPaint().then(guard(compute));
});

export { compute as computeFindings };
