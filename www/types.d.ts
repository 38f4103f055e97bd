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

export type ViewKind = "timeline" | "pools" | "state" | "settings";

export type ViewId = "active_memory" | "cached_segments" | "pools" | "state" | "settings";

export type SearchBy = "address" | "frame";

export type ViewCommand = { "cmd": "get" } | { "cmd": "set_file", file: number, 
/**
 * A device to show (else the file's default).
 */
device: number | null, } | { "cmd": "set_device", device: number, } | { "cmd": "set_view", view: ViewId, } | { "cmd": "set_detail", detail: number, } | { "cmd": "set_window", x0: number, x1: number, } | { "cmd": "zoom", factor: number, x: number, } | { "cmd": "pan", dx: number, } | { "cmd": "reset_window" } | { "cmd": "center", at: number, } | { "cmd": "hover", x: number, y: number, } | { "cmd": "leave" } | { "cmd": "click", x: number, y: number, } | { "cmd": "show_element", element: number, } | { "cmd": "search", by: SearchBy, text: string, } | { "cmd": "search_next", backwards: boolean, } | { "cmd": "search_show", index: number, } | { "cmd": "state_select", event: number, } | { "cmd": "state_step", delta: number, } | { "cmd": "state_rows", first: number, count: number, } | { "cmd": "state_event", event: number, } | { "cmd": "show_in_state" } | { "cmd": "show_in_timeline" };

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
matched: boolean, };

export type StateSummary = { 
/**
 * Events in the list.
 */
len: number, selected: number | null, 
/**
 * The rows asked for (StateRows), else none.
 */
rows: Array<StateRow>, totals: string, fragmentation: string, 
/**
 * "rows a-b of n" when the map scrolls.
 */
map_rows: string, issues: string, 
/**
 * The text under the list: the event asked for (StateEvent), else the
 * selected one.
 */
event_text: string, };

export type PageView = { 
/**
 * [`Viewer::generation`]: changes with the file or device.
 */
generation: number, files: Array<string>, file: number, devices: Array<Choice>, device: number, views: Array<ViewChoice>, view: ViewId, kind: ViewKind, 
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
color_by_acts: boolean, pointer: PointerView | null, search: SearchView | null, state: StateSummary | null, 
/**
 * A sentence for the user when the command could not do what it asked
 * (a jump to an allocation without trace event).
 */
note: string | null, 
/**
 * What ShowInState / ShowInTimeline found: an event or an element.
 */
target: number | null, };

export type Work = { "work": "view", view: ViewId, } | { "work": "analysis", state: boolean, };

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
