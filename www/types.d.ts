// Generated from memviz-viewer's Rust types (boundary.rs's `typescript`); do not edit.
// Regenerate: UPDATE_TYPES=1 cargo test -p memviz-viewer --test typescript

export type ErrorKind = "not_a_snapshot" | "truncated" | "refused_opcode" | "unknown_opcode" | "malformed" | "too_large" | "not_snapshot_shaped" | "gzip" | "json" | "no_file" | "bad_command" | "setting" | "capacity" | "recording";

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

export type OpenCommand = { "cmd": "begin", name: string, } | { "cmd": "finish" } | { "cmd": "adopt_begin", name: string, } | { "cmd": "adopt_end" } | { "cmd": "adopt_replay", budget: number, } | { "cmd": "adopt_finish" } | { "cmd": "versions_end", file: number, } | { "cmd": "versions_lost", file: number, } | { "cmd": "has_versions", file: number, } | { "cmd": "select_file", file: number, } | { "cmd": "example" } | { "cmd": "warm" } | { "cmd": "ahead", plan: AheadPlan, 
/**
 * `model`: the size of the file the worker decodes.
 */
file_bytes: number, } | { "cmd": "debug_panic", message: string, };

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
written: number | null, };

export type FileKind = "pickle" | "json" | "profiler_timeline" | "profiler_trace" | "profiler_picture";

export type FileSniff = { kind: FileKind, gzip: boolean, 
/**
 * The profiler's chart reads it (profiler.js), not the snapshot loader.
 */
profiler: boolean, };

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
ooms: Array<number>, top_bytes: number, top: string, x_label: string, recorded_label: string, predicted_label: string, };

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
 * For the OOM panel: the first recorded OOM's verdict.
 */
advice: string | null, assumption: string, chart: WhatIfChart | null, };

export type WhatIfOverlay = { 
/**
 * x, y pairs: a level per chart column, from the step after its first
 * event to the step after its last.
 */
points: Array<number>, label: string, };

export type MomentArg = "start" | "peak" | "end" | { "step": number } | { "event": number } | { "oom": number };

export type ColorMode = "allocation" | "category" | "frame" | "area";

export type RowsBy = "user_frame" | "frame";

export type RowsSort = "bytes" | "count" | "key";

export type PanelCommand = { "cmd": "generation" } | { "cmd": "overview" } | { "cmd": "color_by", mode: ColorMode, } | { "cmd": "highlight", node: number | null, } | { "cmd": "area_text", x: number, y: number, } | { "cmd": "explain", moment: MomentArg, } | { "cmd": "findings" } | { "cmd": "leaks" } | { "cmd": "moment", moment: MomentArg, } | { "cmd": "tree", min_bytes: number, } | { "cmd": "tree_tip", node: number, zoomed: boolean, } | { "cmd": "rows", by: RowsBy, filter: string, sort: RowsSort, descending: boolean, offset: number, limit: number, } | { "cmd": "what_if_set", fields: WhatIfFields | null, } | { "cmd": "what_if_advise" } | { "cmd": "what_if_step", budget: number, } | { "cmd": "what_if_view" } | { "cmd": "what_if_overlay" };

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

export type FindingsView = { generation: number, findings: Array<FindingView>, };

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

export type PanelView = { "view": "overview" } & OverviewView | { "view": "done", generation: number, } | { "view": "text", generation: number, text: string, } | { "view": "explain" } & ExplainView | { "view": "findings" } & FindingsView | { "view": "leaks" } & LeaksView | { "view": "moment" } & MomentPanelView | { "view": "tree" } & TreeView | { "view": "rows" } & RowsView | { "view": "progress", generation: number, done: number, } | { "view": "what_if" } & WhatIfView | { "view": "overlay", generation: number, overlay: WhatIfOverlay | null, };

export type RanksCommand = { "do": "order", names: Array<string>, } | { "do": "overview", file: number, } | { "do": "trim" } | { "do": "memory" } | { "do": "prepare_show", file: number, device: number | null, budget: number, } | { "do": "prepare_side", file: number, device: number, budget: number, } | { "do": "peaks", peaks: number[], };

export type PeakCell = { distance: number, fill: string, title: string, };

export type RanksReply = { order: Array<number>, 
/**
 * The rank each name carries, in `names`' order.
 */
ranks: Array<number | null>, overview: RankOverview | null, timeline_bytes: number[], done: number, peaks: Array<PeakCell>, };

export type RankRow = { file: number, device: number, device_name: string, peak_active_bytes: number, peak_reserved_bytes: number, end_bytes: number, peak_active: string, peak_reserved: string, end: string, ooms: number, steps: number, 
/**
 * The Active Memory Timeline's largest totals in [`SAMPLES`] buckets.
 */
sparkline: number[], };

export type RankOverview = { generation: number, name: string, 
/**
 * The rank its name carries.
 */
rank: number | null, rows: Array<RankRow>, };

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
up: boolean, };

export type DiffTreeNode = { x: number, w: number, depth: number, frame: string, fill: string, 
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
a_step: number | null, b_step: number | null, total_a: number, total_b: number, 
/**
 * The totals line.
 */
totals: string, changed: number, group_count: number, only_in_a: number, only_in_b: number, rows: Array<DiffRow>, tree: Array<DiffTreeNode>, };

export type ProfilerZoom = { factor: number, frac: number, };

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
 * The pixel column hovered (as last rendered).
 */
hover_x: number | null, };

export type LegendItem = { name: string, 
/**
 * CSS colour: memviz's colour of the kind the category is.
 */
color: string, max: number, 
/**
 * "name (max 1.5MiB)".
 */
label: string, };

export type ProfilerTick = { pos: number, label: string, };

export type ProfilerModel = { 
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

export type PhaseBox = { name: string, x0: number, x1: number, step0: number, step1: number, title: string, };

export type MarkerBox = { x: number, title: string, };

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
reason: string, phases: Array<PhaseBox>, markers: Array<MarkerBox>, 
/**
 * "3 of 5 shown", or that there are none.
 */
count: string, 
/**
 * The time of the hovered step, or what the file lacks.
 */
readout: string, ticks: Array<AxisTick>, gaps: Array<AxisGap>, };
