//! Memory taken and written ahead of need. The first write to a fresh page
//! of wasm memory costs ~0.55-0.7 ms a MB (the kernel maps and zeroes it;
//! 14x a second write, measured in Chromium and Node), and a decode or a
//! model's reading pays it for every page it takes. Written here, by a
//! thread that is idle anyway, then let go, the same pages are taken again
//! by the allocator at a second write's cost. The page and its decode worker
//! drive it with `Viewer.open({cmd: 'ahead', total, step})`.

use memviz_viewer::boundary::{ErrorKind, PageError};

/// Holds the memory written ahead until it is let go.
#[derive(Default)]
pub struct MemoryAhead {
    buf: Vec<u8>,
}

impl MemoryAhead {
    /// Takes up to `total` bytes and writes `step` more of them a call;
    /// true once all are written. `total` 0 lets go of them (the allocator
    /// reuses them; wasm memory never shrinks). An error, with nothing
    /// taken, when the memory cannot grow that far.
    pub fn touch(&mut self, total: u32, step: u32) -> Result<bool, PageError> {
        let total = total as usize;
        if total == 0 {
            self.buf = Vec::new();
            return Ok(true);
        }
        if self.buf.capacity() < total && self.buf.try_reserve_exact(total - self.buf.len()).is_err() {
            return Err(PageError::new(ErrorKind::TooLarge, format!("no room for {total} bytes ahead")));
        }
        let end = total.min(self.buf.len() + step as usize);
        self.buf.resize(end, 0);
        Ok(end >= total)
    }

    pub fn release(&mut self) {
        self.buf = Vec::new();
    }
}
