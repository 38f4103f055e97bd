//! The page's API for many snapshots at once (www/ranks.js): the rank
//! panel's commands (order, overview rows, timelines kept or replayed,
//! which names are snapshots, the median pick) and the Diff, one command
//! type. Forwards to memviz_viewer's ranks.rs (the logic and its tests are
//! there and in memviz_core).

use crate::boundary::{error, from_js, to_js};
use crate::Viewer;
use memviz_viewer::ranks;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// The rank and Diff panels (`RanksCommand`) and what they answer (`RanksReply`).
    pub fn ranks(&mut self, cmd: JsValue) -> Result<JsValue, JsValue> {
        let cmd: ranks::RanksCommand = from_js(&cmd)?;
        self.inner.ranks(&cmd).map(|v| to_js(&v)).map_err(error)
    }
}
