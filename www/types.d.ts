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
