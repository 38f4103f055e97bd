//! Values across the boundary: a command from the page (a plain JS object)
//! into its Rust type, a view model out as a plain JS object, a refusal as
//! memviz_viewer's `PageError` object. The types and their TypeScript
//! declarations (www/types.d.ts) live in memviz_viewer::boundary.
//!
//! Values cross through serde_json's value, built into JS objects with
//! js-sys: no dependency beside the pinned wasm-bindgen, and a view model is
//! a few kilobytes, built at most once a frame.

use js_sys::{Array, Object, Reflect};
use memviz_viewer::boundary::PageError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// A serde value as a JS value (numbers as f64: byte counts stay exact below 2^53).
fn value_to_js(v: &Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(a) => a.iter().map(value_to_js).collect::<Array>().into(),
        Value::Object(m) => {
            let o = Object::new();
            for (k, x) in m {
                // Setting a property on a fresh plain object cannot fail.
                let _ = Reflect::set(&o, &JsValue::from_str(k), &value_to_js(x));
            }
            o.into()
        }
    }
}

/// A view model as a plain JS object.
pub fn to_js<T: Serialize>(t: &T) -> JsValue {
    serde_json::to_value(t).map_or(JsValue::NULL, |v| value_to_js(&v))
}

/// A refusal as the `PageError` object the page catches.
pub fn error(e: PageError) -> JsValue {
    to_js(&e)
}

/// A command from the page as its Rust type; a malformed one is a
/// `bad_command` refusal naming what serde found wrong.
pub fn from_js<T: DeserializeOwned>(v: &JsValue) -> Result<T, JsValue> {
    let text = js_sys::JSON::stringify(v)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| error(PageError::bad_command("not a JSON value")))?;
    serde_json::from_str(&text).map_err(|e| error(PageError::bad_command(e)))
}
