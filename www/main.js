// memviz page entry point (index.html's module script; scripts/finish-dist.mjs
// bundles the same graph into the standalone file). Imported in the order they run in.
import { getViewer, getRecovering, getWorkers, guard, redraw, openFiles, showError, timings, command, listenersSettled, debugNext } from './app.js';
import * as views from './views.js';
import * as moment from './moment.js';
import * as explain from './explain.js';
import './whatif.js';
import './share.js';
import * as ranks from './ranks.js';
import './profiler.js';
import './phases.js';

// For tests, benches/browser and the console: a read-only handle (no page module uses it).
window.memviz = Object.freeze({
  get viewer() { return getViewer(); },
  get recovering() { return getRecovering(); },
  get settled() { return listenersSettled() && explain.findingsPlaced(); }, // the plot has stopped moving
  get workers() { return getWorkers(); }, // memviz-worker page.rs decode_workers
  openFiles, showError, timings, redraw, guard, command,
  debugPanicNext: (why) => debugNext(why), debugOomNext: () => debugNext('oom'),
  views: { select: views.select, stats: views.stats },
  moment: { setMoment: moment.setMoment, get view() { return moment.momentView(); } },
  explain: { explain: explain.explain, get shown() { return explain.shownExplanation(); } },
  ranks: { get diffGroups() { return ranks.diffGroups(); } },
});
