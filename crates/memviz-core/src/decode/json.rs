//! JSON snapshots (memory_viz accepts them too): parsed with serde_json and
//! put into the same arena the pickle decoder fills, so one builder serves
//! both.

use crate::error::{Error, ErrorKind, Result};
use crate::pickle::{Arena, Value};

pub fn decode(bytes: &[u8]) -> Result<(Value, Arena)> {
    let parsed = serde_json::from_slice(bytes).or_else(|e| {
        // Python's json.dumps writes the lone surrogates of undecodable file
        // names as \udcXX escapes, which serde_json refuses: read them as
        // U+FFFD instead (only on that error, so valid files pay nothing).
        if e.to_string().contains("surrogate") {
            serde_json::from_slice(&replace_lone_surrogates(bytes)).map_err(|_| e)
        } else {
            Err(e)
        }
    });
    let v: serde_json::Value = parsed.map_err(|e| {
        // serde_json reports line/column; turn them into a byte offset.
        let offset = line_col_to_offset(bytes, e.line(), e.column());
        Error::at(ErrorKind::Json, offset, format!("invalid JSON: {e}"))
    })?;
    let mut arena = Arena::new();
    let top = put(&mut arena, &v, 0)?;
    Ok((top, arena))
}

/// Rewrites each `\uD800`-`\uDFFF` escape that is not half of a valid pair
/// as `\uFFFD`; everything else is copied.
fn replace_lone_surrogates(b: &[u8]) -> Vec<u8> {
    let esc = |i: usize| -> Option<u32> {
        let h = b.get(i..i + 6)?;
        if &h[..2] != b"\\u" {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(&h[2..]).ok()?, 16).ok()
    };
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        match esc(i) {
            Some(0xd800..=0xdbff) if matches!(esc(i + 6), Some(0xdc00..=0xdfff)) => {
                out.extend_from_slice(&b[i..i + 12]);
                i += 12;
            }
            Some(0xd800..=0xdfff) => {
                out.extend_from_slice(b"\\ufffd");
                i += 6;
            }
            // Any other escape: copy it whole (so `\\` cannot start one).
            _ => {
                let n = if esc(i).is_some() { 6 } else { 2 };
                out.extend_from_slice(&b[i..(i + n).min(b.len())]);
                i += n;
            }
        }
    }
    out
}

fn line_col_to_offset(bytes: &[u8], line: usize, col: usize) -> u64 {
    let mut l = 1;
    for (i, &b) in bytes.iter().enumerate() {
        if l == line {
            return (i + col.saturating_sub(1)) as u64;
        }
        if b == b'\n' {
            l += 1;
        }
    }
    bytes.len() as u64
}

fn put(arena: &mut Arena, v: &serde_json::Value, depth: usize) -> Result<Value> {
    use serde_json::Value as J;
    if depth > 10_000 {
        return Err(Error::new(ErrorKind::TooLarge, None, "JSON nested too deep"));
    }
    Ok(match v {
        J::Null => Value::None,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else if let Some(u) = n.as_u64() {
                arena.push_big(u as i128)
            } else {
                Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        J::String(s) => arena.push_value_str(s),
        J::Array(items) => {
            let vals = items.iter().map(|x| put(arena, x, depth + 1)).collect::<Result<Vec<_>>>()?;
            arena.push_list(vals)
        }
        J::Object(map) => {
            let mut pairs = Vec::with_capacity(map.len());
            for (k, x) in map {
                let k = arena.push_value_str(k);
                let x = put(arena, x, depth + 1)?;
                pairs.push((k, x));
            }
            arena.push_dict(pairs)
        }
    })
}
