//! What the wasm tests share: a canvas in the test page's document.
#![allow(dead_code)] // each test file uses a part

use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

/// A `w` x `h` canvas appended to the document's body.
pub fn canvas(w: u32, h: u32) -> HtmlCanvasElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let c: HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    c.set_width(w);
    c.set_height(h);
    doc.body().unwrap().append_child(&c).unwrap();
    c
}
