//! The stable radix sort's pass on one 16-bit digit of `u64` keys, which a
//! caller runs digit by digit, low first: the timeline's size sort (a pass
//! per replay step) and memviz-render's band index (ranks by the step their
//! band vanishes at) both sort this way, in O(n) a pass.

/// `keys` ordered by their 16 bits at `shift`, equal digits in the order given.
pub fn pass(keys: &[u64], shift: u32) -> Vec<u64> {
    let digit = |k: u64| (k >> shift) as usize & 0xffff;
    let mut at = vec![0usize; 1 << 16];
    for &k in keys {
        at[digit(k)] += 1;
    }
    let mut sum = 0;
    for a in &mut at {
        (*a, sum) = (sum, sum + *a);
    }
    let mut out = vec![0u64; keys.len()];
    for &k in keys {
        let d = digit(k);
        out[at[d]] = k;
        at[d] += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn pass_orders_by_one_digit_and_keeps_ties_in_order() {
        let keys = [0x2_0005, 0x1_0007, 0x3_0005, 0x0_0001];
        assert_eq!(super::pass(&keys, 0), [0x0_0001, 0x2_0005, 0x3_0005, 0x1_0007]);
        assert_eq!(super::pass(&keys, 16), [0x0_0001, 0x1_0007, 0x2_0005, 0x3_0005]);
    }
}
