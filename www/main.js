// memviz page entry point: index.html loads it as a module script.
//
// Who imports whom (all ES modules, no globals between them):
//   boot.js    the wasm: wasmLoaded, reinstantiate (the one seam with trunk's
//              loader, see there)
//   announce.js no imports; the polite aria-live region (hover text, debounced)
//   decode-worker.js imports boot.js; decodes large files in a Web Worker
//   app.js     imports boot.js, announce.js, decode-worker.js; the Viewer,
//              files, controls, timelines, the plot's keys; exports
//              getViewer, guard, redraw, openFiles, loadFile, showError,
//              ready, timings, onPin, addViewHooks, setOpenMany, showFile
//   views.js   imports app.js, announce.js; pools, state history, settings,
//              search; registers its hooks with app.js
//   icicle.js  no imports; draws the icicle graph
//   moment.js  imports app.js, icicle.js; the "Alive at" panel
//   explain.js imports app.js, moment.js; Color by, peak/OOM markers, the
//              OOM and peak panel, leaks
//   findings.js imports app.js, moment.js, explain.js; the Findings strip
//   whatif.js  imports app.js; the What if panel (the allocator replayed
//              under other settings), a line in the OOM panel's advice
//   share.js   imports app.js; embedded snapshot, #file=, MemoryViz.js posts
//   ranks.js   imports app.js, moment.js; many files at once: overview, diff
//   profiler.js imports boot.js, app.js; torch.profiler exports as a chart
//   phases.js  imports app.js; record_function phases, annotate markers, time
//   main.js    imports them all, in this order (the order they run in).
// scripts/finish-dist.mjs bundles the same graph into the standalone file.
import { getViewer, getRecovering, guard, redraw, openFiles, showError, timings } from './app.js';
import { debugPanicNext, debugOomNext } from './decode-worker.js';
import * as views from './views.js';
import * as moment from './moment.js';
import * as explain from './explain.js';
import './findings.js';
import './whatif.js';
import './share.js';
import * as ranks from './ranks.js';
import './profiler.js';
import './phases.js';

// For tests and the curious (browser console, benches/browser): a read-only
// handle on the page's state. No file of the page uses it.
window.memviz = Object.freeze({
  get viewer() { return getViewer(); },
  get recovering() { return getRecovering(); },
  openFiles, showError, timings, redraw, guard, debugPanicNext, debugOomNext,
  views: { select: views.select, stats: views.stats },
  moment: { setMoment: moment.setMoment, get view() { return moment.momentView(); } },
  explain: { explain: explain.explain, get shown() { return explain.shownExplanation(); } },
  ranks: { get diffGroups() { return ranks.diffGroups(); } },
});
