//! Memory taken and written ahead of need. The first write to a fresh page
//! of wasm memory costs ~0.55-0.7 ms a MB (the kernel maps and zeroes it;
//! 14x a second write, measured in Chromium and Node), and a decode or a
//! model's reading pays it for every page it takes. Written here, by a
//! thread that is idle anyway, then let go, the same pages are taken again
//! by the allocator at a second write's cost.

use wasm_bindgen::prelude::*;

/// Holds the memory written ahead until it is dropped (or `free`d from JS).
#[wasm_bindgen]
#[derive(Default)]
pub struct MemoryAhead {
    buf: Vec<u8>,
}

#[wasm_bindgen]
impl MemoryAhead {
    #[wasm_bindgen(constructor)]
    pub fn new() -> MemoryAhead {
        MemoryAhead::default()
    }

    /// Takes up to `total` bytes and writes `step` more of them a call;
    /// true while some remain. Nothing is taken when the memory cannot grow.
    pub fn touch(&mut self, total: u32, step: u32) -> bool {
        let total = total as usize;
        if self.buf.capacity() < total && self.buf.try_reserve_exact(total - self.buf.len()).is_err() {
            return false;
        }
        let end = total.min(self.buf.len() + step as usize);
        self.buf.resize(end, 0);
        end < total
    }

    /// Bytes written so far.
    pub fn written(&self) -> u32 {
        self.buf.len() as u32
    }

    /// Lets go of it all (the allocator reuses it; wasm memory never shrinks).
    pub fn release(&mut self) {
        self.buf = Vec::new();
    }
}
