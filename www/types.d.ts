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
