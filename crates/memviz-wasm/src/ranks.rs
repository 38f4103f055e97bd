//! The page's API for many snapshots at once (www/ranks.js): the rank
//! panel's commands (order, overview rows, timelines kept or replayed) and
//! the Diff. Forwards to memviz_viewer's ranks.rs (the logic and its tests
//! are in memviz_core).

use crate::boundary::{error, from_js, to_js};
use crate::Viewer;
use memviz_viewer::ranks;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// The rank panel (`RanksCommand`) and what it answers (`RanksReply`).
    pub fn ranks(&mut self, cmd: JsValue) -> Result<JsValue, JsValue> {
        let cmd: ranks::RanksCommand = from_js(&cmd)?;
        self.inner.ranks(&cmd).map(|v| to_js(&v)).map_err(error)
    }

    /// The Diff panel: B against A (`DiffCommand`: two sides, a grouping,
    /// the table or the icicle) as a `DiffView`.
    pub fn diff(&mut self, cmd: JsValue) -> Result<JsValue, JsValue> {
        let cmd: ranks::DiffCommand = from_js(&cmd)?;
        self.inner.diff(&cmd).map(|v| to_js(&v)).map_err(error)
    }
}
