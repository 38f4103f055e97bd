// @ts-check
//# allFunctionsCalledOnLoad
// The Findings strip (issue 40; its template in index.html): one line per finding of memviz_core::analysis::findings,
// most important first, each a link to the panel with its evidence (memviz-viewer's explain.rs says which and where
// t goes). They need the analysis: built after a short trace shows; a long one (the overview says) waits for a click.
import { getViewer, guard, onDraw, withAnalysis, afterPaint } from './app.js';
import { $, ask, generation, setMoment } from './moment.js';
import { explain } from './explain.js';
import { fill, onCmd } from './bind.js';

const strip = $('findings');
let gen = -1;

/** Finds them (the analysis built first, a slice a frame). */
function computeFindings() {
  const g = gen;
  withAnalysis(() => {
    /** @type {import('./types').FindingsView} */
    const r = ask({ cmd: 'findings' });
    if (r.generation === g && generation() === g) fill(strip, r);
  });
}

$('findings-compute').addEventListener('click', guard((e) => { e.preventDefault(); computeFindings(); }));
onCmd(strip, guard((/** @type {import('./types').FindingView} */ f) => {
  if (f.open === 'explain') explain(f.moment ?? 'peak');
  else if (f.moment) setMoment(f.moment);
  if (f.open === 'leaks') $('leaks-details').open = true; // its toggle shows the report
  $(`${f.open}-panel`)?.scrollIntoView({ block: 'start' });
}));

// Another generation: the old findings go at once, the new ones come after the frame that shows the file.
onDraw(() => {
  if (!getViewer() || generation() === gen) return;
  const g = (gen = generation());
  fill(strip, {});
  if (!getViewer().file_count()) return;
  afterPaint().then(guard(() => { if (generation() === g) ask({ cmd: 'overview' }).findings_now ? computeFindings() : fill(strip, { shown: true, compute: true }); }));
});
