//! The page's API for the "What if" panel (www/whatif.js): settings in,
//! the replay a slice a call, the panel's view model out. Forwards to
//! memviz_viewer's whatif.rs, which holds the state and formats every string.
//!
//! The boundary is typed (issue 42): `whatif_set` takes a `WhatIfFields`
//! object, `whatif_view` returns a `WhatIfView` object, and a refusal throws
//! a `PageError` object (`kind`, `field`, `message`); www/types.d.ts
//! declares them, generated from the Rust types (boundary.rs).

use js_sys::Reflect;

use crate::boundary::{error, to_js};
use memviz_viewer::whatif::{WhatIfCommand, WhatIfError, WhatIfFields};
use wasm_bindgen::prelude::*;

use crate::Viewer;

fn js_of<T: serde::Serialize>(t: &T) -> JsValue {
    to_js(t)
}

fn err(e: WhatIfError) -> JsValue {
    error(e)
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
    /// own); the replay runs in `whatif_step`. Throws a `PageError`.
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
    /// settings with expandable_segments:True. Throws a `PageError`.
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

    /// What the panel shows now. Throws a `PageError`.
    #[wasm_bindgen(unchecked_return_type = "WhatIfView")]
    pub fn whatif_view(&mut self) -> Result<JsValue, JsValue> {
        self.inner.whatif_view().map(|v| js_of(&v)).map_err(err)
    }
}
