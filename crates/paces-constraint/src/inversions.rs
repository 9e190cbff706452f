//! Counting inversions in O(n log n): the pairs `i < j` with `keys[j] < keys[i]`.

/// The pairs `i < j` of `keys` with `keys[j] < keys[i]`, every key below `bound`: a Fenwick
/// tree counts, for each key from the right, the smaller keys already seen.
pub(crate) fn count(keys: &[usize], bound: usize) -> u64 {
    let mut tree = vec![0u64; bound + 1];
    let mut total = 0;
    for &k in keys.iter().rev() {
        // Keys below k seen so far (to the right): prefix sum over 1..=k.
        let mut i = k;
        while i > 0 {
            total += tree[i];
            i &= i - 1;
        }
        let mut i = k + 1;
        while i <= bound {
            tree[i] += 1;
            i += i & i.wrapping_neg();
        }
    }
    total
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_the_pairs_out_of_order() {
        let mut seed = 7u64;
        for len in 0..40 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let keys: Vec<usize> = (0..len).map(|i| ((seed >> (i % 50)) % 9) as usize).collect();
            let brute = (0..len).flat_map(|i| (i + 1..len).map(move |j| (i, j))).filter(|&(i, j)| keys[j] < keys[i]);
            assert_eq!(super::count(&keys, 9), brute.count() as u64, "{keys:?}");
        }
        assert_eq!(super::count(&[3, 2, 1, 0], 4), 6);
    }
}
