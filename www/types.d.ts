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

export type RanksCommand = { "do": "order", names: Array<string>, } | { "do": "overview", file: number, } | { "do": "trim" } | { "do": "memory" } | { "do": "prepare_show", file: number, device: number | null, budget: number, } | { "do": "prepare_side", file: number, device: number, budget: number, } | { "do": "peaks", peaks: number[], };

export type PeakCell = { distance: number, fill: string, title: string, };

export type RanksReply = { order: Array<number>, 
/**
 * The rank each name carries, in `names`' order.
 */
ranks: Array<number | null>, overview: OverviewView | null, timeline_bytes: number[], done: number, peaks: Array<PeakCell>, };

export type RankRow = { file: number, device: number, device_name: string, peak_active_bytes: number, peak_reserved_bytes: number, end_bytes: number, peak_active: string, peak_reserved: string, end: string, ooms: number, steps: number, 
/**
 * The Active Memory Timeline's largest totals in [`SAMPLES`] buckets.
 */
sparkline: number[], };

export type OverviewView = { generation: number, name: string, 
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
