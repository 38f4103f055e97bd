//! Values -> model. TODO(decoder): implement.
pub struct Loader;
impl Loader {
    pub fn new() -> Self { Loader }
    pub fn feed(&mut self, _b: &[u8]) -> crate::Result<()> { todo!() }
    pub fn finish(self) -> crate::Result<crate::Snapshot> { todo!() }
}
