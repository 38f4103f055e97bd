//! The analysis panels' one export (www/explain.js, findings.js, moment.js,
//! whatif.js): a `PanelCommand` in, a `PanelView` out, a refusal thrown as a
//! `PageError` (memviz_viewer's explain.rs holds the state and formats every
//! string; www/types.d.ts declares the types).

use crate::boundary::{error, from_js, to_js};
use crate::Viewer;
use memviz_viewer::explain::PanelCommand;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// One command of the analysis panels. The stacked area's hover reads
    /// CSS pixels at the page's device pixel ratio.
    #[wasm_bindgen(unchecked_return_type = "PanelView")]
    pub fn panel(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "PanelCommand")] cmd: JsValue,
    ) -> Result<JsValue, JsValue> {
        let cmd: PanelCommand = from_js(&cmd)?;
        self.at_dpr().panel(cmd).map(|v| to_js(&v)).map_err(error)
    }
}
