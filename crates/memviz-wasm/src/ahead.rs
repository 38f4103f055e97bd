//! Memory taken and written ahead of need. The first write to a fresh page
//! of wasm memory costs ~0.55-0.7 ms a MB (the kernel maps and zeroes it;
//! 14x a second write, measured in Chromium and Node), and a decode or a
//! model's reading pays it for every page it takes. Written here, by a
//! thread that is idle anyway, then let go, the same pages are taken again
//! by the allocator at a second write's cost.

use memviz_viewer::boundary::{ErrorKind, PageError};
use memviz_viewer::AheadPlan;

const MIB: u64 = 1 << 20;

/// Holds the memory written ahead until it is let go.
#[derive(Default)]
pub struct MemoryAhead {
    buf: Vec<u8>,
}

impl MemoryAhead {
    /// Writes the next step of what `plan` takes; true once all is written.
    /// An error, with nothing more taken, when the memory cannot grow.
    pub fn step(&mut self, plan: AheadPlan, file_bytes: u64) -> Result<bool, PageError> {
        let (total, step) = match plan {
            // The model and its first timeline took 1.1-1.2x the file; at
            // most 128 MiB: this thread's first writes slow the worker's
            // decode about as much as they take (the 950 MB file's open 8.0 s
            // with all written, 5.8 with none, 4.7 with the cap). 2 MiB a
            // step: ~1.5 ms alone, 4-8 while the worker takes memory too.
            AheadPlan::Model => (file_bytes.min(128 * MIB), 2 * MIB),
            // What the decoder of a file the user is about to pick takes
            // (the 119 MB file's decode: ~194 MiB), a step a task.
            AheadPlan::Decode => (256 * MIB, 4 * MIB),
            // A file of up to 4 MiB decoded on the page (its tables: up to
            // ~4x): its first decode 8.8-9.7 -> 7.5-7.9 ms (3.2 MB file).
            AheadPlan::Small => (16 * MIB, 16 * MIB),
            AheadPlan::Release => (0, 0),
        };
        let done = self.touch(total as usize, step as usize)?;
        if plan == AheadPlan::Small {
            self.release();
        }
        Ok(done)
    }

    fn touch(&mut self, total: usize, step: usize) -> Result<bool, PageError> {
        if total == 0 {
            self.release();
            return Ok(true);
        }
        if self.buf.capacity() < total && self.buf.try_reserve_exact(total - self.buf.len()).is_err() {
            return Err(PageError::new(
                ErrorKind::Decode(memviz_core::ErrorKind::TooLarge),
                format!("no room for {total} bytes ahead"),
            ));
        }
        let end = total.min(self.buf.len() + step);
        self.buf.resize(end, 0);
        Ok(end >= total)
    }

    pub fn written(&self) -> u64 {
        self.buf.len() as u64
    }

    /// Lets go of it all (the allocator reuses it; wasm memory never shrinks).
    pub fn release(&mut self) {
        self.buf = Vec::new();
    }
}
