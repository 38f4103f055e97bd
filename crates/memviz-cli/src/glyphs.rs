//! Text for the PNG charts: a drawing backend that passes everything to the
//! one it wraps but draws text itself with ab_glyph and DejaVu Sans.
//!
//! plotters 0.3.7's ab_glyph text places each glyph at its pen position but
//! leaves out the glyph's left side bearing, so "10.0GiB" reads "1 0.0GiB";
//! here a glyph goes where its outline's bounds say. Layout and anchors
//! follow plotters' (text width = advances + kerning, as it measures).

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform};

/// DejaVu Sans, from one call site: each inlined call of the dejavu
/// crate's function would link its own 740 KB copy of the font.
pub fn font_bytes() -> &'static [u8] {
    static BYTES: OnceLock<&'static [u8]> = OnceLock::new();
    BYTES.get_or_init(dejavu::sans::regular)
}

fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    // DejaVu Sans is a valid font: this cannot fail.
    FONT.get_or_init(|| FontRef::try_from_slice(font_bytes()).expect("DejaVu Sans"))
}

pub struct GlyphText<DB>(pub DB);

type Res<E> = Result<(), DrawingErrorKind<E>>;

impl<DB: DrawingBackend> DrawingBackend for GlyphText<DB> {
    type ErrorType = DB::ErrorType;
    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Res<DB::ErrorType> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Res<DB::ErrorType> {
        self.0.present()
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Res<DB::ErrorType> {
        self.0.draw_pixel(p, c)
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Res<DB::ErrorType> {
        self.0.draw_line(a, b, s)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Res<DB::ErrorType> {
        self.0.draw_rect(a, b, s, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, p: I, s: &S) -> Res<DB::ErrorType> {
        self.0.draw_path(p, s)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        v: I,
        s: &S,
    ) -> Res<DB::ErrorType> {
        self.0.fill_polygon(v, s)
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res<DB::ErrorType> {
        self.0.blit_bitmap(pos, size, src)
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Res<DB::ErrorType> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        if !matches!(style.transform(), FontTransform::None) {
            return self.0.draw_text(text, style, pos); // no rotated text in the charts
        }
        let font = font().as_scaled(PxScale::from(style.size() as f32));
        let mut width = 0f32;
        let mut prev = None;
        for c in text.chars() {
            let g = font.glyph_id(c);
            if let Some(p) = prev {
                width += font.kern(p, g);
            }
            width += font.h_advance(g);
            prev = Some(g);
        }
        let height = font.ascent() - font.descent();
        let x0 = pos.0 as f32
            - match style.anchor().h_pos {
                HPos::Left => 0.0,
                HPos::Center => width / 2.0,
                HPos::Right => width,
            };
        let top = pos.1 as f32
            - match style.anchor().v_pos {
                VPos::Top => 0.0,
                VPos::Center => height / 2.0,
                VPos::Bottom => height,
            };
        let baseline = top + font.ascent();
        let (w, h) = self.get_size();
        let mut caret = x0;
        let mut prev = None;
        let mut result = Ok(());
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                caret += font.kern(p, id);
            }
            prev = Some(id);
            let glyph = id.with_scale_and_position(font.scale(), ab_glyph::point(caret, baseline));
            caret += font.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else { continue };
            let b = outline.px_bounds();
            outline.draw(|gx, gy, coverage| {
                let (x, y) = (b.min.x as i32 + gx as i32, b.min.y as i32 + gy as i32);
                if result.is_ok() && coverage > 0.0 && x >= 0 && y >= 0 && (x as u32) < w && (y as u32) < h {
                    let c = BackendColor { alpha: color.alpha * coverage.min(1.0) as f64, rgb: color.rgb };
                    result = self.0.draw_pixel((x, y), c);
                }
            });
        }
        result
    }
}
