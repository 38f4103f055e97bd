//! The stable radix sort's pass on one 8-bit digit of `u64` keys, which a
//! caller runs digit by digit, low first: the timeline's size sort (a pass
//! per replay step) and memviz-render's band index (ranks by the step their
//! band vanishes at) both sort this way, in O(n) a pass. A byte, not 16
//! bits: 256 write cursors stay in cache where 65,536 did not (the 950 MB
//! file's 2.7M sizes: 4 byte passes in less time than 2 of 16 bits), and a
//! byte every key shares (the high ones of small sizes) skips its pass.

/// Orders `keys` by their 8 bits at `shift`, equal digits in the order
/// given. `scratch` is swapped with `keys`, so a caller that keeps both
/// reuses the two buffers pass after pass.
pub fn pass(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, shift: u32) {
    let digit = |k: u64| (k >> shift) as usize & 0xff;
    let mut at = [0usize; 256];
    for &k in keys.iter() {
        at[digit(k)] += 1;
    }
    if at.contains(&keys.len()) {
        return; // one digit for all: already in order
    }
    let mut sum = 0;
    for a in &mut at {
        (*a, sum) = (sum, sum + *a);
    }
    scratch.clear();
    scratch.resize(keys.len(), 0);
    for &k in keys.iter() {
        let d = digit(k);
        scratch[at[d]] = k;
        at[d] += 1;
    }
    std::mem::swap(keys, scratch);
}

#[cfg(test)]
mod tests {
    fn sorted(keys: &[u64], shift: u32) -> Vec<u64> {
        let (mut k, mut s) = (keys.to_vec(), Vec::new());
        super::pass(&mut k, &mut s, shift);
        k
    }

    #[test]
    fn pass_orders_by_one_digit_and_keeps_ties_in_order() {
        let keys = [0x2_05, 0x1_07, 0x3_05, 0x0_01];
        assert_eq!(sorted(&keys, 0), [0x0_01, 0x2_05, 0x3_05, 0x1_07]);
        assert_eq!(sorted(&keys, 8), [0x0_01, 0x1_07, 0x2_05, 0x3_05]);
        // A digit all keys share leaves them as given.
        assert_eq!(sorted(&keys, 16), keys);
        assert_eq!(sorted(&[], 0), Vec::<u64>::new());
    }

    #[test]
    fn passes_low_to_high_sort_stably() {
        // (key, index) pairs: every pass of the low 32 bits' bytes, then the
        // order must be the stable sort by key.
        let key = |i: u64| (i * 2654435761) % 5000 * 37;
        let mut keys: Vec<u64> = (0..20_000u64).map(|i| key(i) << 32 | i).collect();
        let mut want = keys.clone();
        want.sort_by_key(|&k| k >> 32);
        let mut scratch = Vec::new();
        for b in 0..4 {
            super::pass(&mut keys, &mut scratch, 32 + 8 * b);
        }
        assert_eq!(keys, want);
    }
}
