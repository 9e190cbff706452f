//! A small seeded random number generator (xorshift64*) for tests and benchmarks that want
//! reproducible data without a dependency.

/// xorshift64*: `Rng(seed)`; a seed of 0 is taken as 1 (xorshift stays at 0 otherwise).
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0 | u64::from(self.0 == 0);
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `0..n` (`n > 0`), as `u64`.
    pub fn below_u64(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Shuffles `v` in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn the_sequence_is_xorshift64_star() {
        let mut r = Rng(1);
        // x = 1: x ^= x >> 12 (1); x ^= x << 25 (1 + 2^25); x ^= x >> 27 (unchanged).
        assert_eq!(r.0, 1);
        assert_eq!(r.next_u64(), (1u64 + (1 << 25)).wrapping_mul(0x2545_f491_4f6c_dd1d));
        assert_eq!(r.0, 1 + (1 << 25));
        let mut zero = Rng(0);
        assert_eq!(zero.next_u64(), Rng(1).next_u64(), "seed 0 is seed 1");
        let mut v: Vec<usize> = (0..10).collect();
        Rng(7).shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>());
        assert_ne!(v, sorted, "a shuffle of ten moves something");
        assert!((0..100).all(|_| r.below(3) < 3));
    }
}
