//! The page's API for the "What if" panel (www/whatif.js): settings in,
//! the replay a slice a call, the panel's view model out. Forwards to
//! memviz_viewer's whatif.rs, which holds the state and formats every string.
//!
//! The boundary is typed (issue 42): `whatif_set` takes a `WhatIfFields`
//! object, `whatif_view` returns a `WhatIfView` object, and a refusal throws
//! a `WhatIfError` object (`kind`, `field`, `message`); the TypeScript
//! declarations below name them. Values cross as JS objects built with
//! js-sys from the view model's serde form, not with serde-wasm-bindgen:
//! no new dependency beside the pinned wasm-bindgen, and a view model is a
//! few kilobytes (two lines of at most 2,048 columns), built once a frame.

use js_sys::{Array, Object, Reflect};
use memviz_viewer::whatif::{WhatIfCommand, WhatIfError, WhatIfFields};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::Viewer;

#[wasm_bindgen(typescript_custom_section)]
const TS: &'static str = r#"
/** The panel's fields in PyTorch's spelling; "" is the setting off / unset, the capacity what the trace shows. */
export interface WhatIfFields {
  expandable_segments: boolean;
  max_split_size_mb: string;
  roundup_power2_divisions: string;
  garbage_collection_threshold: string;
  capacity_bytes: string;
}
/** What whatif_set and whatif_view throw. */
export interface WhatIfError {
  kind: "setting" | "capacity" | "recording" | "no_file";
  field: keyof WhatIfFields | null;
  message: string;
}
export interface OomVerdict { event: number; happens: boolean; text: string; }
/** Lines as shares (0..1) of top_bytes, a value per column over the trace's events. */
export interface WhatIfChart {
  recorded: number[];
  predicted: number[];
  cap: number | null;
  ooms: number[];
  top_bytes: number;
  top: string;
  x_label: string;
  recorded_label: string;
  predicted_label: string;
}
export interface WhatIfView {
  device: string;
  stage: "recording" | "self-check" | "replay" | "capacity" | "done";
  share: number;
  busy: string;
  fields: WhatIfFields;
  recorded_settings: string;
  self_check: string | null;
  self_check_exact: boolean | null;
  capacity: string | null;
  capacity_size: string | null;
  headline: string | null;
  ooms: OomVerdict[];
  new_ooms: string | null;
  needs: string | null;
  needs_bytes: number | null;
  advice: string | null;
  assumption: string;
  chart: WhatIfChart | null;
}
/** The predicted reserved memory over the Active Cached Segment Timeline: x, y pairs in the plot canvas' CSS pixels. */
export interface WhatIfOverlay { points: number[]; label: string; }
"#;

/// A serde value as a JS value (numbers as f64: byte counts stay exact below 2^53).
fn to_js(v: &Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(a) => a.iter().map(to_js).collect::<Array>().into(),
        Value::Object(m) => {
            let o = Object::new();
            for (k, x) in m {
                // Setting a property on a fresh plain object cannot fail.
                let _ = Reflect::set(&o, &JsValue::from_str(k), &to_js(x));
            }
            o.into()
        }
    }
}

fn js_of<T: Serialize>(t: &T) -> JsValue {
    serde_json::to_value(t).map_or(JsValue::NULL, |v| to_js(&v))
}

fn err(e: WhatIfError) -> JsValue {
    js_of(&e)
}

/// A field of the page's object as text (a number typed in is taken as typed).
fn text(o: &JsValue, k: &str) -> String {
    let v = Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED);
    match (v.as_string(), v.as_f64()) {
        (Some(s), _) => s,
        (None, Some(n)) => n.to_string(),
        _ => String::new(),
    }
}

#[wasm_bindgen]
impl Viewer {
    /// Chooses the settings the panel replays under (null: the recording's
    /// own); the replay runs in `whatif_step`. Throws a `WhatIfError`.
    pub fn whatif_set(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "WhatIfFields | null")] fields: JsValue,
    ) -> Result<(), JsValue> {
        let fields = (fields.is_object()).then(|| WhatIfFields {
            expandable_segments: Reflect::get(&fields, &JsValue::from_str("expandable_segments"))
                .ok()
                .and_then(|v| v.as_bool())
                .unwrap_or(false),
            max_split_size_mb: text(&fields, "max_split_size_mb"),
            roundup_power2_divisions: text(&fields, "roundup_power2_divisions"),
            garbage_collection_threshold: text(&fields, "garbage_collection_threshold"),
            capacity_bytes: text(&fields, "capacity_bytes"),
        });
        self.inner.whatif_set(WhatIfCommand { fields }).map_err(err)
    }

    /// Chooses what the OOM panel's advice replays: the recording's own
    /// settings with expandable_segments:True. Throws a `WhatIfError`.
    pub fn whatif_advise(&mut self) -> Result<(), JsValue> {
        self.inner.whatif_advise().map_err(err)
    }

    /// About `budget` trace events of the panel's work; the share done (1 when done).
    pub fn whatif_step(&mut self, budget: u32) -> f64 {
        self.inner.whatif_step(budget as usize)
    }

    /// The prediction drawn over the Active Cached Segment Timeline as last
    /// drawn; null on another view or before the prediction's replay is done.
    #[wasm_bindgen(unchecked_return_type = "WhatIfOverlay | null")]
    pub fn whatif_overlay(&self) -> JsValue {
        js_of(&self.inner.whatif_overlay())
    }

    /// What the panel shows now. Throws a `WhatIfError`.
    #[wasm_bindgen(unchecked_return_type = "WhatIfView")]
    pub fn whatif_view(&mut self) -> Result<JsValue, JsValue> {
        self.inner.whatif_view().map(|v| js_of(&v)).map_err(err)
    }
}
