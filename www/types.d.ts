// Generated from memviz-viewer's Rust types (boundary.rs's `typescript`); do not edit.
// Regenerate: UPDATE_TYPES=1 cargo test -p memviz-viewer --test typescript

export type DecodeErrorKind = "not_a_snapshot" | "truncated" | "refused_opcode" | "unknown_opcode" | "malformed" | "too_large" | "not_snapshot_shaped" | "gzip" | "json";

export type ErrorKind = "no_file" | "bad_command" | "setting" | "capacity" | "recording" | DecodeErrorKind;

export type PageError = { kind: ErrorKind, 
/**
 * The whole sentence the page shows, the file's name and offset included.
 */
message: string, 
/**
 * Byte offset in the (decompressed) file where the problem applies.
 */
offset: number | null, 
/**
 * The form field the refusal is about, where one is.
 */
field: string | null, };

export type OpenCommand = { "cmd": "begin", name: string, } | { "cmd": "finish" } | { "cmd": "adopt_begin", name: string, read_ms: number, } | { "cmd": "adopt_chunk" } | { "cmd": "adopt_end" } | { "cmd": "adopt_replay", budget: number, } | { "cmd": "adopt_finish" } | { "cmd": "sniff" } | { "cmd": "versions_chunk", file: number, } | { "cmd": "decode", name: string, size: number | null, } | { "cmd": "decode_finish" } | { "cmd": "versions_end", file: number, } | { "cmd": "versions_lost", file: number, } | { "cmd": "has_versions", file: number, } | { "cmd": "select_file", file: number, } | { "cmd": "view_named", name: string, } | { "cmd": "example" } | { "cmd": "warm" } | { "cmd": "ahead", plan: AheadPlan, 
/**
 * `model`: the size of the file the worker decodes.
 */
file_bytes: number, } | { "cmd": "debug_panic", message: string, } | { "cmd": "plan", size: number, force: string | null, } | { "cmd": "fetching", paths: Array<string>, } | { "cmd": "progress", waiting: number, name: string, size: number, read: number | null, building: boolean, } | { "cmd": "failed", name: string, failure: OpenFailure, detail: string, };

export type ReadState = { name: string, size: number, read: number | null, building: boolean, };

export type OpenReply = { 
/**
 * The file opened (it is the current file now), for `finish`,
 * `adopt_finish`, `example`.
 */
file: number | null, 
/**
 * `adopt_replay`: the replay is done; `has_versions`: they are known;
 * `ahead`: nothing more to write.
 */
done: boolean, 
/**
 * The viewer's generation after the command.
 */
generation: number, 
/**
 * `ahead`: the bytes written so far.
 */
written: number | null, 
/**
 * `sniff`: what the file is.
 */
sniff: FileSniff | null, 
/**
 * `view_named`: the view's index.
 */
view: number | null, 
/**
 * `plan`: how the file is read.
 */
plan: OpenPlan | null, 
/**
 * `progress`: the line.
 */
text: string | null, 
/**
 * `failed`: the line and how it is shown.
 */
failed: FailedLine | null, 
/**
 * An adopt step's: the time so far (memviz-wasm's).
 */
worker: WorkerTimings | null, };

export type FileKind = "pickle" | "json" | "profiler_timeline" | "profiler_trace" | "profiler_picture";

export type FileSniff = { kind: FileKind, gzip: boolean, 
/**
 * The profiler's chart reads it (profiler.js), not the snapshot loader.
 */
profiler: boolean, };

export type OpenPlan = { 
/**
 * Decoded in the worker, its model adopted; else decoded on the page.
 */
worker: boolean, 
/**
 * The bytes of its start that `sniff` looks at.
 */
sniff_head: number, 
/**
 * Bytes of buffers the page writes ahead for the worker to copy the
 * model's chunks into (its wire form is 0.41-0.43x the file).
 */
pool: number, };

export type OpenFailure = "cancelled" | "worker_trap" | "worker_oom" | "refused" | "profiler" | "hash_empty" | "hash_not_relative" | "hash_from_file" | "hash_other_origin" | "hash_encoding" | "hash_status" | "hash_fetch" | "embedded";

export type FailedLine = { text: string, 
/**
 * A notice (the user's own doing), announced as `announce`; else an error.
 */
announce: string | null, };

export type WhatIfFields = { expandable_segments: boolean, max_split_size_mb: string, roundup_power2_divisions: string, garbage_collection_threshold: string, 
/**
 * Bytes; empty: what the trace shows.
 */
capacity_bytes: string, };

export type OomVerdict = { event: number, happens: boolean, text: string, };

export type WhatIfChart = { recorded: Array<number>, 
/**
 * Empty until the prediction's replay is done.
 */
predicted: Array<number>, 
/**
 * The capacity's height, when known and on the chart.
 */
cap: number | null, 
/**
 * Each recorded OOM's column share of the x axis.
 */
ooms: Array<number>, top_bytes: number, top: string, x_label: string, recorded_label: string, predicted_label: string, 
/**
 * "capacity 2.0GiB" beside the capacity's line; "" when there is none.
 */
cap_label: string, };

export type WhatIfView = { device: string, 
/**
 * `recording`, `self-check`, `replay`, `capacity` or `done`.
 */
stage: "recording" | "self-check" | "replay" | "capacity" | "done", 
/**
 * Share of the whole job done.
 */
share: number, busy: string, 
/**
 * The fields as chosen (the recording's own until the page sets others).
 */
fields: WhatIfFields, recorded_settings: string, self_check: string | null, self_check_exact: boolean | null, capacity: string | null, capacity_size: string | null, 
/**
 * The prediction's first line ("with … the replay peaks at …").
 */
headline: string | null, ooms: Array<OomVerdict>, new_ooms: string | null, needs: string | null, needs_bytes: number | null, 
/**
 * For the OOM panel: the verdict of the OOM it explains (Viewer.panel;
 * the first recorded OOM's here).
 */
advice: string | null, assumption: string, chart: WhatIfChart | null, };

export type MomentArg = "start" | "peak" | "end" | { "step": number } | { "event": number } | { "oom": number };

export type ColorMode = "allocation" | "category" | "frame" | "area";

export type RowsBy = "user_frame" | "frame";

export type RowsSort = "bytes" | "count" | "key";

export type PanelCommand = { "cmd": "generation" } | { "cmd": "overview" } | { "cmd": "color_by", mode: ColorMode, } | { "cmd": "highlight", node: number | null, } | { "cmd": "legend" } | { "cmd": "marker_places", width: number, } | { "cmd": "explain", moment: MomentArg, } | { "cmd": "findings" } | { "cmd": "leaks" } | { "cmd": "moment", moment: MomentArg, } | { "cmd": "tree", min_bytes: number | null, } | { "cmd": "icicle_tree" } | { "cmd": "icicle_tip", x: number, y: number, } | { "cmd": "icicle_click", x: number, y: number, } | { "cmd": "rows", by: RowsBy, filter: string, sort: RowsSort | null, offset: number, limit: number | null, } | { "cmd": "what_if_set", fields: WhatIfFields | null, } | { "cmd": "what_if_advise" } | { "cmd": "what_if_step", budget: number, } | { "cmd": "what_if_view" } | { "cmd": "timings", open: OpenTimings, redraw: RedrawTimings, } | { "cmd": "state_timings", redraw_ms: number, map_ms: number, };

export type WorkerTimings = { 
/**
 * The worker's read and decode.
 */
read: number, model: number, replay: number, views: number, finish?: number, versions?: number, 
/**
 * The longest step, and its kind.
 */
longest: number, longestStep: string, 
/**
 * The last step's: the page guesses the next one's time from it.
 */
last: number, };

export type OpenTimings = { decode: number, firstPaint: number, worker: WorkerTimings | null, };

export type RedrawTimings = { redraw_ms: number, bands_ms: number, axes_ms: number, bands_drawn: number, columns: number, };

export type MarkerView = { 
/**
 * `peak` or `oom`.
 */
what: string, label: string, title: string, event: number, bytes: number, 
/**
 * On the timeline's x axis, in steps (`x_of_step` places it).
 */
x: number, 
/**
 * What a click explains.
 */
moment: MomentArg, };

export type MarkerPlace = { x: number, top: number, };

export type ListItem = { label: string, moment: MomentArg, };

export type KindColor = { name: string, css: string, };

export type OverviewView = { generation: number, markers: Array<MarkerView>, 
/**
 * "1 OOM:" or "No OOM in this trace."
 */
list_title: string, list: Array<ListItem>, 
/**
 * OOMs left out of the list ("" when none).
 */
list_more: string, kinds: Array<KindColor>, 
/**
 * The legend's note before t is set.
 */
legend_note: string, 
/**
 * Whether the findings are worth finding at once (a short trace).
 */
findings_now: boolean, };

export type Piece = { text: string, key: string | null, value: number | null, };

export type Fact = { key: string, label: string, value: number, pieces: Array<Piece>, };

export type Row = { 
/**
 * The whole key (a stack: every frame).
 */
key: string, 
/**
 * What the cell shows.
 */
text: string, bytes: number, size: string, count: number, share: string, 
/**
 * The band color of the group in the legend ("" when none).
 */
css: string, };

export type AdviceLine = { kind: string, text: string, };

export type ExplainView = { generation: number, moment: MomentArg, 
/**
 * `oom` or `peak`.
 */
what: string, event: number | null, heading: string, facts: Array<Fact>, advice: Array<AdviceLine>, by_category: Array<Row>, by_user_frame: Array<Row>, by_stack: Array<Row>, };

export type FindingView = { kind: string, title: string, bytes: number | null, event: number | null, 
/**
 * `explain`, `leaks` or `moment`: the panel with its evidence.
 */
open: string, 
/**
 * Where t goes (explained there, for `explain`).
 */
moment: MomentArg | null, };

export type FindingsRoom = "none" | "link" | "findings";

export type FindingsView = { generation: number, 
/**
 * The strip shows: there are findings.
 */
shown: boolean, 
/**
 * False: found (the strip's "find them" link is for a long trace not yet analysed).
 */
compute: boolean, findings: Array<FindingView>, };

export type GrowthRow = { key: string, text: string, growth_bytes: number, growth: string, 
/**
 * Live bytes at each sample, "a → b → c".
 */
samples: string, };

export type PendingRow = { bytes: number, size: string, stream: number, events: string, waited: string, key: string, text: string, };

export type LeaksView = { generation: number, alive_at_end_bytes: number, alive_at_end_count: number, alive_line: string, alive: Array<Row>, iterations_from: string, growth_line: string, growing: Array<GrowthRow>, pending_count: number, pending_line: string, pending: Array<PendingRow>, };

export type AtView = { position: number, step: number | null, event: number | null, };

export type MomentPanelView = { generation: number, moment: MomentArg, at: AtView, 
/**
 * "step 5" or "position 3".
 */
at_text: string, totals: Array<Piece>, 
/**
 * Bytes by kind, every kind (the legend's), in KIND_COLORS order.
 */
kinds: Array<Row>, 
/**
 * The kinds alive then (the panel's "by kind" line).
 */
alive_kinds: Array<Row>, 
/**
 * The largest innermost user frames, with their band colors.
 */
frames: Array<Row>, 
/**
 * The legend's note ("(at step 5; click the timeline to move t)").
 */
note: string, };

export type TreeView = { generation: number, frames: Array<string>, nodes: number[], };

export type RowsView = { generation: number, head: string, rows: Array<Row>, matched: number, 
/**
 * "30 of 120 rows: scroll the table for more" ("" when all shown).
 */
more: string, };

export type PanelView = { "view": "overview" } & OverviewView | { "view": "done", generation: number, } | { "view": "text", generation: number, text: string, } | { "view": "explain" } & ExplainView | { "view": "findings" } & FindingsView | { "view": "leaks" } & LeaksView | { "view": "moment" } & MomentPanelView | { "view": "tree" } & TreeView | { "view": "rows" } & RowsView | { "view": "progress", generation: number, done: number, text: string, } | { "view": "what_if" } & WhatIfView | { "view": "legend", generation: number, rows: Array<Row>, note: string, } | { "view": "places", generation: number, places: Array<MarkerPlace | null>, stale: boolean, } | { "view": "icicle", generation: number, tip: string, left: string, top: string, zoom: number | null, };

export type PanelDraw = { "cmd": "icicle", width: number, } | { "cmd": "what_if_chart", width: number, height: number, } | { "cmd": "what_if_overlay", width: number, height: number, };

export type PanelDrawn = { generation: number, 
/**
 * False: nothing to show (the page hides the canvas).
 */
drawn: boolean, 
/**
 * CSS pixels.
 */
height: number, 
/**
 * Boxes of the icicle, predicted columns of the chart, points of the overlay.
 */
count: number, 
/**
 * The overlay's legend ("" when none).
 */
label: string, };

export type RanksCommand = { "do": "order", names: Array<string>, } | { "do": "overview", file: number, } | { "do": "trim" } | { "do": "memory" } | { "do": "status", loading: number, } | { "do": "reading" } & ReadState | { "do": "at_t", slot: string, file: number, device: number, step: number | null, } | { "do": "diff" } & DiffCommand | { "do": "compare", form: DiffForm, part: DiffPart, } | { "do": "snapshots", names: Array<string>, folder: string | null, };

export type PeakCell = { distance: number, fill: string, title: string, };

export type RanksReply = { order: Array<number>, 
/**
 * The rank each name carries, in `names`' order.
 */
ranks: Array<number | null>, 
/**
 * The overview's rows (`Overview`).
 */
rows: Array<RankTableRow>, 
/**
 * "(4 rows)", "(reading 2 more…)".
 */
status: string, 
/**
 * `Reading`: the row.
 */
reading: ReadingRow | null, timeline_bytes: number[], done: number, diff: DiffView | null, 
/**
 * Why nothing was kept (`Snapshots`), why t cannot be taken (`AtT`), else "".
 */
message: string, 
/**
 * `AtT`: the Diff form's fields, by name, and their values; `Overview`
 * of a file not in it before: the sides to set (`a`, `b`).
 */
pick: Record<string, string>, };

export type RankRow = { file: number, device: number, device_name: string, peak_active_bytes: number, peak_reserved_bytes: number, end_bytes: number, peak_active: string, peak_reserved: string, end: string, ooms: number, steps: number, 
/**
 * The file's name and the rank it carries ("–": none).
 */
name: string, rank: number | null, rank_text: string, 
/**
 * The OOM cell's class: "oom" where there were any.
 */
oom: string, 
/**
 * The diff's side pickers' text: "rank 3: name · device cuda:0".
 */
label: string, 
/**
 * The Active Memory Timeline's largest totals in [`SAMPLES`] buckets.
 */
sparkline: number[], };

export type RankOverview = { generation: number, name: string, 
/**
 * The rank its name carries.
 */
rank: number | null, rows: Array<RankRow>, };

export type RankTableRow = { 
/**
 * The row a click on this one sets the diff's A to (the one nearest
 * the median peak, another one where there is).
 */
median: number, 
/**
 * Its Active Memory Timeline: an SVG path in a [`SPARK_W`] x
 * [`SPARK_H`] box, on the y scale of the whole table.
 */
spark: string, file: number, device: number, device_name: string, peak_active_bytes: number, peak_reserved_bytes: number, end_bytes: number, peak_active: string, peak_reserved: string, end: string, ooms: number, steps: number, 
/**
 * The file's name and the rank it carries ("–": none).
 */
name: string, rank: number | null, rank_text: string, 
/**
 * The OOM cell's class: "oom" where there were any.
 */
oom: string, 
/**
 * The diff's side pickers' text: "rank 3: name · device cuda:0".
 */
label: string, 
/**
 * The Active Memory Timeline's largest totals in [`SAMPLES`] buckets.
 */
sparkline: number[], distance: number, fill: string, title: string, };

export type MomentSpec = { "kind": "start" } | { "kind": "peak" } | { "kind": "end" } | { "kind": "step", step: number, };

export type SideSpec = { file: number, device: number, at: MomentSpec, };

export type DiffBy = "user" | "kind" | "stack" | "frame";

export type DiffPart = "table" | "tree";

export type DiffCommand = { a: SideSpec, b: SideSpec, by: DiffBy, 
/**
 * The largest changes kept in `rows`.
 */
limit: number, part: DiffPart, };

export type DiffRow = { 
/**
 * The whole key (a stack: its frames one a line).
 */
key: string, 
/**
 * The core's short label, lines joined with " ← ".
 */
label: string, 
/**
 * "only in A", "only in B" or "".
 */
tag: string, bytes_a: number, bytes_b: number, delta_text: string, a_text: string, b_text: string, 
/**
 * More in B.
 */
up: boolean, 
/**
 * The delta cell's class: "up" (more in B) or "down".
 */
dir: string, };

export type DiffTreeNode = { x: number, w: number, depth: number, frame: string, fill: string, 
/**
 * Its box in the icicle (index.html's template #diff-box).
 */
style: string, 
/**
 * The frame's file basename on (CSS cuts it to the box).
 */
label: string, 
/**
 * The hover text.
 */
tip: string, };

export type DiffView = { generation: number, 
/**
 * "A: name (device d) at step s".
 */
a_title: string, b_title: string, 
/**
 * The steps marked on the two timelines.
 */
a_step: number | null, b_step: number | null, 
/**
 * The sides' timelines (SVG paths as [`RankTableRow::spark`], on one
 * scale) and the x of their moment on them.
 */
a_spark: string, b_spark: string, a_mark: string, b_mark: string, total_a: number, total_b: number, 
/**
 * The totals line.
 */
totals: string, changed: number, group_count: number, only_in_a: number, only_in_b: number, rows: Array<DiffRow>, tree: Array<DiffTreeNode>, 
/**
 * The icicle's height (CSS): its rows, at most [`ICICLE_ROWS`].
 */
tree_height: string, };

export type ProfilerZoom = { factor: number, x: number, };

export type ProfilerCommand = { 
/**
 * Another chart (a trace's device), shown whole.
 */
chart: number | null, 
/**
 * The whole run again.
 */
reset: boolean, zoom: ProfilerZoom | null, width: number, height: number, dpr: number, 
/**
 * The CSS x of the pointer on the canvas.
 */
hover_x: number | null, 
/**
 * The plot's pixels wanted too (a hover only moves the readout).
 */
draw: boolean, };

export type LegendItem = { name: string, 
/**
 * CSS colour: memviz's colour of the kind the category is.
 */
color: string, max: number, 
/**
 * "name (max 1.5MiB)".
 */
label: string, };

export type ProfilerTick = { 
/**
 * Where on the axis, 0..1.
 */
pos: number, label: string, 
/**
 * Its place over the canvas (CSS px), anchored at its end (y) or middle (x).
 */
style: string, };

export type ProfilerModel = { 
/**
 * The file's name and what it is.
 */
title: string, 
/**
 * What the file is, in words.
 */
format: string, charts: Array<string>, chart: number, warnings: Array<string>, legend: Array<LegendItem>, y_ticks: Array<ProfilerTick>, x_ticks: Array<ProfilerTick>, 
/**
 * The time and the values at the hovered column; "" outside the data.
 */
hover: string, };

export type AxisName = "step" | "time";

export type PhasesCommand = { 
/**
 * Phases whose name holds this text (any case); "" for all.
 */
filter: string, 
/**
 * torch.compile's own phases too.
 */
internal: boolean, 
/**
 * The plot's x axis asked for (kept across views, devices and files).
 */
axis: AxisName | null, 
/**
 * CSS x of the pointer on the plot: the readout says its step's time.
 */
hover_x: number | null, 
/**
 * Only the phases already found: a timeline just shown gets `pending`
 * instead (the page asks again in the next task, so that the first
 * paint waits for nothing but the plot).
 */
peek: boolean, };

export type PhaseBox = { 
/**
 * "phase", "phase phase-dense" (no free lane for its label) or "annotate-marker".
 */
class: string, style: string, name: string, step0: number, step1: number, title: string, 
/**
 * Its label, in a free lane (none: a thin dense one, or a marker).
 */
label: PhaseLabel | null, };

export type PhaseLabel = { name: string, style: string, };

export type AxisTick = { x: number, label: string, };

export type AxisGap = { x0: number, x1: number, label: string, };

export type PhasesView = { generation: number, 
/**
 * `peek` on a timeline whose phases are not found yet: nothing else is set.
 */
pending: boolean, has_time: boolean, 
/**
 * The x axis the plot shows: "step" or "time".
 */
axis: string, 
/**
 * Why the time axis is not available; "" when it is.
 */
reason: string, 
/**
 * The phases shown, then the markers, laid out on the plot as last drawn.
 */
boxes: Array<PhaseBox>, 
/**
 * "3 of 5 shown", or that there are none.
 */
count: string, 
/**
 * The time of the hovered step, or what the file lacks.
 */
readout: string, ticks: Array<AxisTick>, gaps: Array<AxisGap>, 
/**
 * The rows cover another height of the plot's top than the axes last
 * drawn took: draw it again (the peak's label goes below them).
 */
redraw: boolean, };

export type ViewKind = "timeline" | "pools" | "state" | "settings";

export type ViewId = "active_memory" | "cached_segments" | "pools" | "state" | "settings";

export type SearchBy = "address" | "frame";

export type PointerOn = "down" | "move" | "up" | "leave" | "wheel";

export type ViewCommand = { "cmd": "get" } | { "cmd": "set_file", file: number, 
/**
 * A device to show (else the file's default).
 */
device: number | null, } | { "cmd": "set_device", device: number, } | { "cmd": "set_view", view: ViewId, } | { "cmd": "set_detail", detail: number, } | { "cmd": "set_window", x0: number, x1: number, } | { "cmd": "zoom", factor: number, x: number, } | { "cmd": "pan", dx: number, } | { "cmd": "reset_window" } | { "cmd": "center", at: number, } | { "cmd": "hover", x: number, y: number, } | { "cmd": "leave" } | { "cmd": "click", x: number, y: number, } | { "cmd": "show_element", element: number, } | { "cmd": "search", by: SearchBy, text: string, } | { "cmd": "search_next", backwards: boolean, } | { "cmd": "search_show", index: number, } | { "cmd": "state_select", event: number, } | { "cmd": "state_step", delta: number, } | { "cmd": "state_rows", first: number, count: number, } | { "cmd": "state_event", event: number, } | { "cmd": "show_in_state" } | { "cmd": "show_in_timeline" } | { "cmd": "hit_at", x: number, y: number, } | { "cmd": "step_at_x", x: number, } | { "cmd": "x_of_step", step: number, } | { "cmd": "element", element: number, } | { "cmd": "locate", element: number, } | { "cmd": "prepare_hover" } | { "cmd": "analysis_step", budget: number, state: boolean, } | { "cmd": "numbers" } | { "cmd": "next_band", x: number, y: number, dir: number, height: number, } | { "cmd": "brush", from: number, to: number, } | { "cmd": "state_scroll", dy: number, } | { "cmd": "state_hover", x: number, y: number, } | { "cmd": "state_locate", block: boolean, } | { "cmd": "plot_key", key: string, shift: boolean, width: number, height: number, } | { "cmd": "state_list", scroll_top: number, height: number, follow: boolean, } | { "cmd": "state_key", key: string, height: number, } | { "cmd": "pointer", on: PointerOn, mini: boolean, x: number, y: number, width: number, dy: number, };

export type Choice = { value: number, label: string, };

export type ViewChoice = { id: ViewId, name: string, };

export type SummaryItem = { key: string, value: number, label: string, text: string, };

export type Card = { head: string, frames: Array<string>, 
/**
 * "+42 frames in torch and C++"; "" when nothing is folded.
 */
fold: string, folded: Array<string>, tail: string, };

export type PointerView = { 
/**
 * Element index, -1 for none, -2 for the summarized band, -(10 + pool)
 * for a private pool's envelope.
 */
hit: number, 
/**
 * Whether `hit` differs from the last command's (the page redraws the
 * outline and the card only then).
 */
changed: boolean, 
/**
 * The memory_viz text of what is under the pointer (or pinned).
 */
context: string, 
/**
 * The hover card of `hit` (or of the pinned element after a click).
 */
card: Card | null, };

export type Match = { index: number, text: string, };

export type SearchView = { count: number, 
/**
 * "3 matches (Enter: next)".
 */
count_text: string, 
/**
 * The first [`SEARCH_LIST_MAX`] matches.
 */
matches: Array<Match>, 
/**
 * "… 12 more (Enter steps through all)", "" when all are listed.
 */
more: string, 
/**
 * The match shown last.
 */
current: number | null, };

export type StateRow = { index: number, 
/**
 * "12  alloc 1.0MiB b7f…" as the list shows it.
 */
text: string, selected: boolean, 
/**
 * Among the last search's matches.
 */
matched: boolean, 
/**
 * The row's class: "sel", "match" or "".
 */
mark: string, };

export type StateListView = { 
/**
 * The spacer's height ("342000px").
 */
spacer: string, 
/**
 * The rows' offset in the list ("translateY(1800px)").
 */
transform: string, first: number, 
/**
 * Where the page scrolls the list to (`follow`), else null.
 */
scroll_top: number | null, };

export type StateSummary = { 
/**
 * Events in the list.
 */
len: number, selected: number | null, 
/**
 * The rows asked for (StateRows, StateList), else none.
 */
rows: Array<StateRow>, 
/**
 * The list's geometry (StateList).
 */
list: StateListView | null, totals: string, fragmentation: string, 
/**
 * "rows a-b of n" when the map scrolls.
 */
map_rows: string, issues: string, 
/**
 * The text under the list: the event asked for (StateEvent), else the
 * selected one.
 */
event_text: string, 
/**
 * The selected state's numbers as `memviz state --json` names them.
 */
numbers: { event: number | null, reserved_bytes: number, allocated_bytes: number, segments: number, blocks: number, pending_free_blocks: number, free_bytes: number, largest_free_bytes: number, free_pieces: number, rows: number, rects: number } | Record<string, never>, };

export type KeyDid = "none" | "hover" | "pin" | "unpin" | "leave" | "moved";

export type KeyView = { did: KeyDid, 
/**
 * The cursor, CSS `[x, y]` of the plot.
 */
at: [number, number], };

export type PageView = { 
/**
 * [`Viewer::generation`]: changes with the file or device.
 */
generation: number, files: Array<string>, file: number, devices: Array<Choice>, device: number, views: Array<ViewChoice>, view: ViewId, 
/**
 * The view selector's value: `view`'s place in `views`.
 */
view_index: number, kind: ViewKind, 
/**
 * Elements of the current view (the detail slider's maximum).
 */
elements: number, detail: number, 
/**
 * "12 of 40".
 */
detail_text: string, 
/**
 * "allocations" or "segments".
 */
detail_unit: string, 
/**
 * Elements drawn as their own band.
 */
drawn: number, window: [number, number], steps: number, pinned: number | null, summary: Array<SummaryItem>, 
/**
 * "name: warning: ..." for each thing the reader left out.
 */
warnings: Array<string>, 
/**
 * The allocator settings' text, in the settings view.
 */
settings: string | null, 
/**
 * Whether "Show in state history" applies (a pinned Active Memory band).
 */
to_state: boolean, 
/**
 * Whether "Show in timeline" applies (the selected event has an element).
 */
to_timeline: boolean, 
/**
 * Whether "Color by" changes what the view draws.
 */
color_by_acts: boolean, 
/**
 * The Findings strip's room, kept from the file's first frame.
 */
findings_room: FindingsRoom, pointer: PointerView | null, search: SearchView | null, state: StateSummary | null, 
/**
 * A sentence for the user when the command could not do what it asked
 * (a jump to an allocation without trace event).
 */
note: string | null, 
/**
 * What ShowInState / ShowInTimeline found: an event or an element.
 */
target: number | null, 
/**
 * The largest element (the first drawn band).
 */
largest: number | null, 
/**
 * Whether the current view is the Active Memory Timeline.
 */
active_memory: boolean, 
/**
 * Whether the analysis of the current file and device is built.
 */
analysis_built: boolean, 
/**
 * The answer of StepAtX, XOfStep, AnalysisStep, StateScroll.
 */
value: number | null, 
/**
 * The answer of Element, StateHover.
 */
text: string | null, 
/**
 * The answer of Locate, StateLocate: CSS `[x, y]`.
 */
point: [number, number] | null, 
/**
 * What PlotKey did.
 */
key: KeyView | null, 
/**
 * The answer of Numbers: `memviz summary --json`'s numbers of the
 * current device, the timeline's totals under `timeline`.
 */
numbers: { file: string, device: number, device_name: string, view: string, trace_events: number, segments: number, reserved_bytes: number, allocated_bytes: number, active_blocks: number, timeline: { start_bytes: number, peak_bytes: number, end_bytes: number, elements: number, actions: number, initially_allocated: number }, peak_step: number, steps: number } | null, };

export type Work = { "work": "view", view: ViewId, } | { "work": "analysis", state: boolean, } | { "work": "rank_show", file: number, device: number | null, } | { "work": "diff_sides", form: DiffForm, };

export type Progress = { 
/**
 * More ticks are needed.
 */
busy: boolean, 
/**
 * The share done, 1 once built.
 */
share: number, 
/**
 * "Building the Allocator State History of f.pickle: 42%…".
 */
label: string, 
/**
 * [`Viewer::generation`]: the work is stale once it changes.
 */
generation: number, };

export type DiffForm = { a: string, at_a: string, step_a: string, b: string, at_b: string, step_b: string, by: DiffBy, };

export type ReadingRow = { name: string, 
/**
 * The rank its name carries, "–": none.
 */
rank_text: string, 
/**
 * The share read, 0 to 1.
 */
share: number, 
/**
 * "42%", "building the timeline…".
 */
text: string, };
