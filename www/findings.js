// @ts-check
//# allFunctionsCalledOnLoad
// The Findings strip (issue 40; markup in index.html): one line per finding
// of memviz_core::analysis::findings, most important first, from
// Viewer.panel. Each links to the panel with its evidence (memviz-viewer's
// explain.rs says which and where t goes). The findings need the analysis:
// built after a short trace shows; a long one (the overview says) waits for
// a click.
import { getViewer, guard, onDraw, withAnalysis, afterPaint } from './app.js';
import { esc, ask, generation, setMoment } from './moment.js';

/** @returns {any} */
const $ = (id) => document.getElementById(id);
import { explain } from './explain.js';

const strip = $('findings');
let gen = -1;
/** @type {import('./types').FindingView[]} */
let findings = [];

/** Finds them (the analysis built first, a slice a frame). */
export function computeFindings() {
  const g = gen;
  withAnalysis(() => {
    /** @type {import('./types').FindingsView} */
    const r = ask({ cmd: 'findings' });
    if (r.generation !== g || generation() !== g) return;
    findings = r.findings;
    strip.innerHTML = findings.length ? '<b>Findings</b><ul>' + findings.map((f, i) =>
      `<li data-kind="${f.kind}" data-bytes="${f.bytes ?? ''}" data-event="${f.event ?? ''}"><a href="#" data-i="${i}">${esc(f.title)}</a></li>`).join('') + '</ul>' : '';
  });
}

strip.addEventListener('click', guard((e) => {
  const f = findings[e.target.closest('a[data-i]')?.dataset.i];
  if (e.target.id === 'findings-compute') computeFindings();
  if (f || e.target.id === 'findings-compute') e.preventDefault();
  if (!f) return;
  if (f.open === 'explain') explain(f.moment ?? 'peak');
  else if (f.moment) setMoment(f.moment);
  if (f.open === 'leaks') $('leaks-details').open = true; // its toggle shows the report
  $({ explain: 'explain-panel', leaks: 'leaks-panel', moment: 'moment-panel' }[f.open])?.scrollIntoView({ block: 'start' });
}));

// Another generation: the old findings go at once, the new ones come after
// the frame that shows the file.
onDraw(() => {
  if (!getViewer()) return;
  const g = generation();
  if (g === gen) return;
  gen = g;
  findings = [];
  strip.innerHTML = '';
  if (!getViewer().file_count()) return;
  afterPaint().then(guard(() => {
    if (generation() !== g) return;
    if (ask({ cmd: 'overview' }).findings_now) computeFindings();
    else strip.innerHTML = '<b>Findings</b> <a href="#" id="findings-compute">find them (builds the analysis)</a>';
  }));
});
