//! Shared by the view targets: the view parameters a page would use (canvas
//! size, scroll offset, detail limit, selected event, pointer positions),
//! taken from the last 16 bytes of the input. The decoders ignore bytes
//! after a pickle's STOP, so a snapshot with 16 bytes appended is the same
//! snapshot with other parameters, and libFuzzer mutates both.
#![allow(dead_code)]

use memviz_render::Window;

pub struct Params {
    pub w: u32,
    pub h: u32,
    /// Device pixel ratio, rounded: outline thickness.
    pub outline: u32,
    pub scroll: f64,
    pub limit: u32,
    pub event: usize,
    /// Window start and span as fractions of the steps.
    pub x0: f64,
    pub span: f64,
    pub tail: Vec<u8>,
}

impl Params {
    pub fn of(data: &[u8]) -> Params {
        let mut t = [0u8; 16];
        let n = data.len().min(16);
        t[16 - n..].copy_from_slice(&data[data.len() - n..]);
        let u16_at = |i: usize| u16::from_le_bytes([t[i], t[i + 1]]) as u32;
        let u32_at = |i: usize| u32::from_le_bytes([t[i], t[i + 1], t[i + 2], t[i + 3]]);
        // Mostly ordinary canvases, sometimes 1 px or very wide / tall.
        let w = match t[0] % 8 {
            0 => 1,
            1 => 1 + u16_at(0) % 4000,
            _ => 1 + u16_at(0) % 700,
        };
        let h = match t[2] % 8 {
            0 => 1,
            1 => 1 + u16_at(2) % 3000,
            _ => 1 + u16_at(2) % 400,
        };
        let scroll = match t[4] % 8 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => -1e300,
            3 => 1e300,
            _ => u32_at(4) as f64 * 0.37 - 100.0,
        };
        Params {
            w,
            h,
            outline: 1 + (t[8] % 3) as u32,
            scroll,
            limit: u32_at(9),
            event: u16_at(13) as usize,
            x0: t[15] as f64 / 255.0,
            span: (t[14] as f64 + 1.0) / 256.0,
            tail: t.to_vec(),
        }
    }

    /// A window of a timeline of `n` steps, as the page clamps it.
    pub fn window(&self, n: u32) -> Window {
        let nf = n.max(1) as f64;
        Window { x0: self.x0 * nf, x1: self.x0 * nf + self.span * nf }.clamped(n, 4.0f64.min(nf))
    }

    /// Pixels to hover: a coarse grid, the corners and a few outside.
    pub fn points(&self) -> Vec<(f64, f64)> {
        let (w, h) = (self.w as f64, self.h as f64);
        let mut p = Vec::new();
        for i in 0..6 {
            for j in 0..6 {
                p.push((w * (i as f64 + 0.5) / 6.0, h * (j as f64 + 0.5) / 6.0));
            }
        }
        p.extend([(0.0, 0.0), (w - 0.5, h - 0.5), (-1.0, 3.0), (w, h), (f64::NAN, 1.0), (1e300, -1e300)]);
        p
    }
}
