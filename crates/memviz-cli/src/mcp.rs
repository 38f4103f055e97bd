//! `memviz mcp`: a Model Context Protocol server on stdin/stdout for coding
//! agents. JSON-RPC 2.0, one message a line (the MCP stdio transport):
//! initialize, notifications/initialized, ping, tools/list and tools/call.
//! The tools are [`api::QUESTIONS`]; a call's result is the JSON the CLI's
//! `--json` prints, as text and as structuredContent. Logs go to stderr.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::time::SystemTime;

use memviz_core::Loaded;
use serde_json::{json, Map, Value};

use crate::api::{self, Question};

/// The protocol versions this server speaks, newest first; a client asking
/// for another gets the newest (it may then disconnect).
const VERSIONS: &[&str] = &["2025-06-18", "2025-03-26", "2024-11-05"];

/// Snapshots read, by path, while the file's modification time is the same:
/// an agent asks several questions of one file.
#[derive(Default)]
struct Cache {
    files: HashMap<String, (Option<SystemTime>, Loaded)>,
}

/// At most this many snapshots kept (a big one is a few hundred MB).
const CACHED: usize = 4;

impl Cache {
    fn get(&mut self, path: &str) -> Result<&Loaded, String> {
        let mtime = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?.modified().ok();
        let fresh = matches!(self.files.get(path), Some((t, _)) if *t == mtime && mtime.is_some());
        if !fresh {
            if self.files.len() >= CACHED {
                self.files.clear();
            }
            let loaded = crate::load_any(path)?;
            self.files.insert(path.to_string(), (mtime, loaded));
        }
        Ok(&self.files[path].1)
    }
}

/// The file arguments of a question: `file`, or `a` and `b` (diff).
fn file_args(q: &Question) -> &'static [&'static str] {
    if q.files == 2 {
        &["a", "b"]
    } else {
        &["file"]
    }
}

fn tool(q: &Question) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for &f in file_args(q) {
        let about = match f {
            "a" => "path of snapshot A (torch.cuda.memory._dump_snapshot's pickle, JSON, or gzip of either)",
            "b" => "path of snapshot B (may be A again: two moments or devices of one trace)",
            _ => "path of the snapshot (torch.cuda.memory._dump_snapshot's pickle, JSON, or gzip of either)",
        };
        props.insert(f.into(), json!({"type": "string", "description": about}));
        required.push(f);
    }
    for &(name, kind, about) in q.options {
        let schema = if kind == "array" {
            json!({"type": "array", "items": {"type": "string"}, "description": about})
        } else {
            json!({"type": kind, "description": about})
        };
        props.insert(name.into(), schema);
    }
    json!({
        "name": q.name,
        "description": q.about,
        "inputSchema": {"type": "object", "properties": props, "required": required},
    })
}

fn call(cache: &mut Cache, params: &Value) -> Result<Value, String> {
    let name = params["name"].as_str().ok_or("tools/call: params.name missing")?;
    let q = api::question(name).ok_or_else(|| format!("no tool {name:?}"))?;
    let empty = Map::new();
    let args = params["arguments"].as_object().unwrap_or(&empty);
    let files = file_args(q);
    let opts = api::opts_from_json(q, args, files)?;
    let paths: Vec<String> = files
        .iter()
        .map(|f| args.get(*f).and_then(Value::as_str).map(str::to_string).ok_or_else(|| format!("{name}: {f} missing")))
        .collect::<Result<_, _>>()?;
    for p in &paths {
        cache.get(p)?;
    }
    let loaded: Vec<(&Loaded, &str)> = paths.iter().map(|p| (&cache.files[p].1, p.as_str())).collect();
    (q.answer)(&loaded, &opts)
}

/// The answer to one message, or None for a notification.
fn handle(cache: &mut Cache, msg: &Value) -> Option<Value> {
    let id = msg.get("id").cloned();
    let method = msg["method"].as_str().unwrap_or("");
    let result = match method {
        "initialize" => {
            let asked = msg["params"]["protocolVersion"].as_str().unwrap_or("");
            let version = VERSIONS.iter().find(|v| **v == asked).unwrap_or(&VERSIONS[0]);
            Ok(json!({
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "memviz", "version": env!("CARGO_PKG_VERSION")},
                "instructions": "memviz reads PyTorch CUDA memory snapshots (torch.cuda.memory._dump_snapshot). \
                    Start with summary, then top (what is alive at the peak), oom or leaks; diff compares two.",
            }))
        }
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": api::QUESTIONS.iter().map(tool).collect::<Vec<_>>()})),
        // A tool's failure (a missing file, a bad option) is its result, for the model to read.
        "tools/call" => Ok(match call(cache, &msg["params"]) {
            Ok(v) => json!({
                "content": [{"type": "text", "text": serde_json::to_string(&v).unwrap_or_default()}],
                "structuredContent": v,
                "isError": false,
            }),
            Err(e) => json!({"content": [{"type": "text", "text": e}], "isError": true}),
        }),
        _ if id.is_none() => return None,
        _ => Err((-32601, format!("method not found: {method:?}"))),
    };
    let id = id?;
    Some(match result {
        Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
        Err((code, message)) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
    })
}

pub fn run() -> Result<(), String> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut cache = Cache::default();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("mcp: stdin: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Value>(&line) {
            Ok(Value::Array(_)) => Some(json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32600, "message": "batches are not supported"}})),
            Ok(msg) => handle(&mut cache, &msg),
            Err(e) => Some(
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("parse error: {e}")}}),
            ),
        };
        if let Some(r) = reply {
            writeln!(stdout, "{r}").and_then(|_| stdout.flush()).map_err(|e| format!("mcp: stdout: {e}"))?;
        }
    }
    Ok(())
}
