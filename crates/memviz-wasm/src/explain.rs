//! The analysis panels' exports (www/explain.js, findings.js, moment.js,
//! whatif.js): a `PanelCommand` in, a `PanelView` out, a refusal thrown as a
//! `PageError` (memviz_viewer's explain.rs holds the state and formats every
//! string; www/types.d.ts declares the types); and their canvases drawn.

use crate::boundary::{error, from_js, to_js};
use crate::{ctx2d, put, Viewer};
use memviz_render::icicle::FONT_PX;
use memviz_viewer::explain::{PanelCommand, PanelDraw};
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

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

    /// Draws a `PanelDraw` into `canvas`, sized to it in device pixels: the
    /// pixels in one putImageData, then the texts (labels cut in Rust at the
    /// font's advance, measured here). Cleared when there is nothing to show.
    #[wasm_bindgen(unchecked_return_type = "PanelDrawn")]
    pub fn panel_draw(
        &mut self,
        canvas: &HtmlCanvasElement,
        #[wasm_bindgen(unchecked_param_type = "PanelDraw")] cmd: JsValue,
    ) -> Result<JsValue, JsValue> {
        let cmd: PanelDraw = from_js(&cmd)?;
        let js = |e: JsError| JsValue::from(e);
        // Only the icicle cuts labels at the font's advance; a picture with
        // nothing in it (the what-if overlay on most draws) needs no context.
        let char_w = match cmd {
            PanelDraw::Icicle { .. } => {
                let ctx = ctx2d(canvas).map_err(js)?;
                ctx.set_font(&format!("{FONT_PX}px monospace"));
                ctx.measure_text("M").map_or(6.6, |m| m.width()).max(1.0)
            }
            _ => 0.0,
        };
        let (pic, drawn) = self.at_dpr().panel_draw(cmd, char_w).map_err(error)?;
        let dpr = pic.dpr;
        let img = &pic.image;
        let resize = canvas.width() != img.width || canvas.height() != img.height;
        if resize {
            // Resizing clears it.
            canvas.set_width(img.width);
            canvas.set_height(img.height);
        }
        if img.width == 0 || img.height == 0 {
            return Ok(to_js(&drawn));
        }
        let ctx = ctx2d(canvas).map_err(js)?;
        if !resize {
            ctx.clear_rect(0.0, 0.0, img.width as f64, img.height as f64);
        }
        put(canvas, img, 0, 0).map_err(js)?;
        if !pic.texts.is_empty() {
            ctx.set_font(&format!("{}px {}", FONT_PX * dpr, pic.font));
            ctx.set_fill_style_str(pic.color);
            ctx.set_text_baseline("middle");
            for t in &pic.texts {
                ctx.fill_text(&t.text, t.x * dpr, t.y * dpr)?;
            }
        }
        Ok(to_js(&drawn))
    }
}
