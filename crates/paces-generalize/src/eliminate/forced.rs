//! The forced program order of one thread: the transitive reduction of the pairs of its
//! events that every candidate keeps in order, found in memory linear in the thread when its
//! forced pairs fall into few chains.
//!
//! Two ways compute the same reduction (the reduction of a DAG is unique):
//! * `Chains`: the events are split greedily into chains, each a sequence of events with a
//!   forced pair between successive ones. What an event reaches over forced pairs is, in
//!   each chain, a tail of it (a chain's later events follow over its own pairs), so it is one
//!   number per chain: the first position of the chain reached. An event's reduction edges
//!   are then found by visiting, in program order, only the later events not reached yet.
//!   Memory: one number per event and chain.
//! * `Bits`: one bitset row of forced successors per event, quadratic in the thread's length;
//!   used when the chains would take more (many events of the thread may change order with
//!   each other, so the thread has no short chain cover).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use smallvec::SmallVec;

use crate::Error;

/// The successors of each event of a thread, by position, ascending.
pub(super) type Successors = Vec<SmallVec<[u32; 2]>>;

/// How [`reduce`] computes the reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Strategy {
    /// Chains when they take fewer bytes than the bitsets, else bitsets.
    Smaller,
    /// Always chains (tests).
    #[cfg_attr(not(test), allow(dead_code))]
    Chains,
    /// Always bitsets (tests).
    #[cfg_attr(not(test), allow(dead_code))]
    Bits,
}

/// One thread's forced relation: `len` events by position, `skip(p)` for an event that starts
/// no forced pair (a blocked step), `forced(p, q)` for `p < q` whether every candidate keeps
/// them in order.
pub(super) struct Thread<'f> {
    pub(super) len: usize,
    pub(super) skip: &'f dyn Fn(usize) -> bool,
    pub(super) forced: &'f mut dyn FnMut(usize, usize) -> Result<bool, Error>,
}

/// The bytes the bitset rows of a thread of `len` events take.
pub(super) fn bits_bytes(len: usize) -> u64 {
    (len as u64).saturating_mul(len.div_ceil(64).max(1) as u64).saturating_mul(8)
}

/// The transitive reduction of the forced pairs of `thread`: per position, the later
/// positions `q` with `forced(p, q)` that no other forced successor of `p` before `q`
/// reaches over forced pairs. `take(bytes)` is asked for the table's memory first and may
/// refuse it.
pub(super) fn reduce(
    thread: Thread<'_>,
    strategy: Strategy,
    take: &mut dyn FnMut(u64) -> Result<(), Error>,
) -> Result<Successors, Error> {
    let Thread { len, skip, forced } = thread;
    let use_bits = match strategy {
        Strategy::Bits => true,
        Strategy::Chains => false,
        Strategy::Smaller => {
            // Chains are found up to the count at which they would take more than the bits.
            let most = (bits_bytes(len) / 4 / (len.max(1) as u64)).max(1) as usize;
            match chains(len, skip, forced, most)? {
                Some(c) => return by_chains(len, skip, forced, &c, take),
                None => true,
            }
        }
    };
    if use_bits {
        take(bits_bytes(len))?;
        by_bits(len, skip, forced)
    } else {
        let c = chains(len, skip, forced, usize::MAX)?.expect("no bound on the chains");
        by_chains(len, skip, forced, &c, take)
    }
}

/// A chain cover of a thread: chain and index in it of each position, and each chain's
/// positions.
struct Chains {
    of: Vec<u32>,
    idx: Vec<u32>,
    list: Vec<Vec<u32>>,
}

/// Splits the positions into chains greedily (each joins the first chain, the one of the
/// position before tried first, whose last position it is forced after; a skipped position
/// ends its chain). `None` past `most` chains.
fn chains(
    len: usize,
    skip: &dyn Fn(usize) -> bool,
    forced: &mut dyn FnMut(usize, usize) -> Result<bool, Error>,
    most: usize,
) -> Result<Option<Chains>, Error> {
    let mut of = vec![0u32; len];
    let mut idx = vec![0u32; len];
    let mut list: Vec<Vec<u32>> = Vec::new();
    for q in 0..len {
        let joins = |c: usize, forced: &mut dyn FnMut(usize, usize) -> Result<bool, Error>| -> Result<bool, Error> {
            let tail = *list[c].last().expect("chains are not empty") as usize;
            Ok(!skip(tail) && forced(tail, q)?)
        };
        let prev = q.checked_sub(1).map(|p| of[p] as usize);
        let mut chosen = None;
        if let Some(c) = prev {
            if joins(c, forced)? {
                chosen = Some(c);
            }
        }
        if chosen.is_none() {
            for c in 0..list.len() {
                if Some(c) != prev && joins(c, forced)? {
                    chosen = Some(c);
                    break;
                }
            }
        }
        let c = match chosen {
            Some(c) => c,
            None if list.len() >= most => return Ok(None),
            None => {
                list.push(Vec::new());
                list.len() - 1
            }
        };
        of[q] = c as u32;
        idx[q] = list[c].len() as u32;
        list[c].push(q as u32);
    }
    Ok(Some(Chains { of, idx, list }))
}

/// The reduction over a chain cover: `first[p * k + c]` is the first index of chain `c`
/// that `p` reaches over one forced pair or more (the chain's length when none).
fn by_chains(
    len: usize,
    skip: &dyn Fn(usize) -> bool,
    forced: &mut dyn FnMut(usize, usize) -> Result<bool, Error>,
    ch: &Chains,
    take: &mut dyn FnMut(u64) -> Result<(), Error>,
) -> Result<Successors, Error> {
    let k = ch.list.len();
    take((len as u64).saturating_mul(k as u64).saturating_mul(4))?;
    let ends: Vec<u32> = ch.list.iter().map(|l| l.len() as u32).collect();
    let mut first = vec![0u32; len * k];
    let mut out: Successors = vec![SmallVec::new(); len];
    // Per chain, the index of its first position after `p`.
    let mut next: Vec<u32> = ends.clone();
    let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    for p in (0..len).rev() {
        if p + 1 < len {
            next[ch.of[p + 1] as usize] = ch.idx[p + 1];
        }
        let (lo, hi) = first.split_at_mut((p + 1) * k);
        let row = &mut lo[p * k..];
        row.copy_from_slice(&ends);
        if skip(p) {
            continue;
        }
        heap.clear();
        for c in 0..k {
            if next[c] < ends[c] {
                heap.push(Reverse((ch.list[c][next[c] as usize], c as u32)));
            }
        }
        while let Some(Reverse((q, c))) = heap.pop() {
            let (q, c) = (q as usize, c as usize);
            let i = ch.idx[q];
            if i >= row[c] {
                continue;
            }
            if forced(p, q)? {
                out[p].push(q as u32);
                // `q` and what it reaches; the rest of chain `c` with it.
                row[c] = i;
                let reached = &hi[(q - p - 1) * k..(q - p) * k];
                for (r, &f) in row.iter_mut().zip(reached) {
                    *r = (*r).min(f);
                }
            } else if i + 1 < row[c] {
                heap.push(Reverse((ch.list[c][i as usize + 1], c as u32)));
            }
        }
    }
    Ok(out)
}

/// The reduction with one bitset row of forced successors per position: a later position
/// already in `p`'s row is reached through an earlier successor; one that is forced joins the
/// successors and brings its own row.
fn by_bits(
    len: usize,
    skip: &dyn Fn(usize) -> bool,
    forced: &mut dyn FnMut(usize, usize) -> Result<bool, Error>,
) -> Result<Successors, Error> {
    let tw = len.div_ceil(64).max(1);
    let mut rows = vec![0u64; len * tw];
    let mut out: Successors = vec![SmallVec::new(); len];
    for p in (0..len).rev() {
        if skip(p) {
            continue;
        }
        for q in p + 1..len {
            if rows[p * tw + q / 64] >> (q % 64) & 1 == 1 || !forced(p, q)? {
                continue;
            }
            rows[p * tw + q / 64] |= 1 << (q % 64);
            let (lo, hi) = rows.split_at_mut(q * tw);
            for (d, s) in lo[p * tw..p * tw + tw].iter_mut().zip(&hi[..tw]) {
                *d |= *s;
            }
            out[p].push(q as u32);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::{prop_assert_eq, proptest, Strategy as _};

    use super::{bits_bytes, reduce, Strategy, Successors, Thread};

    /// A random forced relation on `len` positions: `p < q` are forced when their labels are
    /// equal (like conflicting statements) or their noise bit is set; skipped positions start
    /// none.
    #[derive(Clone, Debug)]
    struct Relation {
        labels: Vec<u8>,
        noise: Vec<bool>,
        skip: Vec<bool>,
    }

    impl Relation {
        fn len(&self) -> usize {
            self.labels.len()
        }

        fn forced(&self, p: usize, q: usize) -> bool {
            assert!(p < q && q < self.len(), "forced({p}, {q}) out of order");
            self.labels[p] == self.labels[q] || self.noise[p * self.len() + q]
        }

        fn reduce(&self, strategy: Strategy) -> Successors {
            let skip = |p: usize| self.skip[p];
            let mut forced = |p: usize, q: usize| Ok(self.forced(p, q));
            let thread = Thread { len: self.len(), skip: &skip, forced: &mut forced };
            reduce(thread, strategy, &mut |_| Ok(())).expect("no error")
        }

        /// The reduction by its definition: `q` is a successor of `p` when forced after it
        /// and not reached from another forced successor of `p` before it.
        fn brute(&self) -> Successors {
            let n = self.len();
            let mut reach = vec![vec![false; n]; n];
            for p in (0..n).rev() {
                if self.skip[p] {
                    continue;
                }
                for q in p + 1..n {
                    if self.forced(p, q) {
                        reach[p][q] = true;
                        let (lo, hi) = reach.split_at_mut(q);
                        for (d, &b) in lo[p][q + 1..].iter_mut().zip(&hi[0][q + 1..]) {
                            *d |= b;
                        }
                    }
                }
            }
            (0..n)
                .map(|p| {
                    (p + 1..n)
                        .filter(|&q| {
                            !self.skip[p] && self.forced(p, q) && !(p + 1..q).any(|w| self.forced(p, w) && reach[w][q])
                        })
                        .map(|q| q as u32)
                        .collect()
                })
                .collect()
        }
    }

    fn relation() -> impl proptest::strategy::Strategy<Value = Relation> {
        (0usize..40, 1u8..5, 0u32..20).prop_flat_map(|(n, labels, noise)| {
            (
                proptest::collection::vec(0..labels, n),
                proptest::collection::vec(proptest::bool::weighted(f64::from(noise) / 100.0), n * n),
                proptest::collection::vec(proptest::bool::weighted(0.1), n),
            )
                .prop_map(|(labels, noise, skip)| Relation { labels, noise, skip })
        })
    }

    proptest! {
        /// Chains, bitsets and the definition give the same reduction.
        #[test]
        fn chains_and_bits_give_the_reduction(r in relation()) {
            let brute = r.brute();
            prop_assert_eq!(&r.reduce(Strategy::Chains), &brute);
            prop_assert_eq!(&r.reduce(Strategy::Bits), &brute);
            prop_assert_eq!(&r.reduce(Strategy::Smaller), &brute);
        }
    }

    /// A thread whose events all conflict is one chain: its table takes four bytes an event,
    /// where the bitsets take an eighth of the thread's length an event.
    #[test]
    fn a_chain_takes_memory_linear_in_the_thread() {
        let len = 10_000;
        let skip = |_: usize| false;
        let mut forced = |_: usize, _: usize| Ok(true);
        let mut taken = 0;
        let thread = Thread { len, skip: &skip, forced: &mut forced };
        let out = reduce(thread, Strategy::Smaller, &mut |b| {
            taken += b;
            Ok(())
        })
        .unwrap();
        assert_eq!(taken, 4 * len as u64);
        assert!(bits_bytes(len) > 300 * taken);
        assert!(out[..len - 1].iter().enumerate().all(|(p, s)| s.as_slice() == [p as u32 + 1]));
        assert!(out[len - 1].is_empty());
    }
}
