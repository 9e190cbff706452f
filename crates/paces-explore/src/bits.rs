//! A small fixed-width bit set over global variables.

use smallvec::SmallVec;

/// A set of global variable indices.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Bits(SmallVec<[u64; 2]>);

impl Bits {
    pub(crate) fn new(n: usize) -> Self {
        Bits(smallvec::smallvec![0; n.div_ceil(64).max(1)])
    }

    pub(crate) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    pub(crate) fn remove(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }

    pub(crate) fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// Adds every member of `other`; whether something was added.
    pub(crate) fn union_with(&mut self, other: &Bits) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }

    /// The members below 64, as a mask.
    pub(crate) fn low_word(&self) -> u64 {
        self.0[0]
    }

    pub(crate) fn intersects(&self, other: &Bits) -> bool {
        match (self.0.as_slice(), other.0.as_slice()) {
            // Up to 64 globals: one word each.
            ([a], [b]) => a & b != 0,
            (a, b) => a.iter().zip(b).any(|(a, b)| a & b != 0),
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(w, &word)| (0..64).filter(move |b| word >> b & 1 == 1).map(move |b| w * 64 + b))
    }
}
