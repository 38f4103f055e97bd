//! The segment tree over leaf buckets behind both interval indexes (the
//! analysis's `LiveIndex` over trace positions, the timeline's detail over
//! steps): an interval is stored at the canonical nodes that cover its
//! buckets, and a point query reads the nodes from its leaf to the root.

/// Positions per leaf. A query filters at most the intervals that start or
/// end inside its leaf besides the live ones; and each position starts or
/// ends at most one interval, so this bounds a query's extra work.
pub(crate) const LEAF: u32 = 64;

/// Leaves of a tree over `n` positions: a power of two, 0 for none.
pub(crate) fn leaves(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        n.div_ceil(LEAF).next_power_of_two()
    }
}

/// Calls `f` with each canonical node covering the buckets of `[lo, hi)`
/// (`lo < hi`), in a tree of `leaves` leaves (node 1 the root).
#[inline]
pub(crate) fn cover(lo: u32, hi: u32, leaves: u32, f: &mut impl FnMut(usize)) {
    let mut l = (lo / LEAF + leaves) as usize;
    let mut r = ((hi - 1) / LEAF + leaves) as usize + 1;
    while l < r {
        if l & 1 == 1 {
            f(l);
            l += 1;
        }
        if r & 1 == 1 {
            r -= 1;
            f(r);
        }
        l >>= 1;
        r >>= 1;
    }
}

/// The leaf node of position `p`; its ancestors are `node >> 1` up to 1.
pub(crate) fn leaf(p: u32, leaves: u32) -> usize {
    (p / LEAF + leaves) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position of [lo, hi) is under exactly one covering node, and no
    /// other bucket is.
    #[test]
    fn cover_partitions_the_buckets() {
        let leaves = leaves(1000);
        assert_eq!(leaves, 16);
        for (lo, hi) in [(0, 1), (0, 1000), (63, 64), (63, 65), (100, 900), (999, 1000)] {
            let mut hits = vec![0u32; (leaves * LEAF) as usize];
            cover(lo, hi, leaves, &mut |node| {
                // The node's buckets: shift down to leaf level.
                let (mut first, mut last) = (node, node);
                while first < leaves as usize {
                    first <<= 1;
                    last = (last << 1) | 1;
                }
                for b in first..=last {
                    let b = (b - leaves as usize) as u32;
                    for p in b * LEAF..(b + 1) * LEAF {
                        hits[p as usize] += 1;
                    }
                }
            });
            let (blo, bhi) = (lo / LEAF * LEAF, (hi - 1) / LEAF * LEAF + LEAF);
            for (p, &h) in hits.iter().enumerate() {
                let want = u32::from((blo..bhi).contains(&(p as u32)));
                assert_eq!(h, want, "[{lo}, {hi}) at {p}");
            }
        }
        assert_eq!(super::leaves(0), 0);
    }
}
