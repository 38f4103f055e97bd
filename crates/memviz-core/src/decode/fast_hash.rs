//! A fast hasher for the decoder's integer-keyed maps (stack hashes, stream
//! handles, pool ids, far memo indices). std's SipHash resists collision
//! attacks on keys an attacker picks, which these maps do not need: a
//! colliding stack hash is checked against the stack itself, and the other
//! keys are few or bounded by the input's size. FxHash's multiply-rotate is a
//! few cycles a key, and SipHash showed in the decoder's profile (one lookup
//! per trace event, more in wasm where there is no SIMD).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// rustc's FxHasher: one rotate, xor and multiply per word.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_keep_every_key() {
        let mut m: FastMap<(i64, i64), u32> = FastMap::default();
        for i in 0..10_000i64 {
            m.insert((i, -i), i as u32);
        }
        assert_eq!(m.len(), 10_000);
        assert!((0..10_000i64).all(|i| m[&(i, -i)] == i as u32));
    }
}
