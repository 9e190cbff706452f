//! Reorders that add no outcome, known without exploring: each pair of items a candidate
//! puts in another order has a member that shares nothing with the other threads.

use std::collections::{BTreeMap, HashMap};

use paces_constraint::{Candidate, Loc};

use crate::ir::{Owner, Program, Summary};

impl Program {
    /// Whether every pair of items that `candidate` (of [`Program::space`]) puts in another
    /// order than this program lies in a thread's own block (not a procedure's), holds no
    /// loop, even through a call (where a thread may stop before the pair is done), and has
    /// a member that shares no variable with another thread: it reads none another thread
    /// writes, and writes none another thread reads or writes (nested statements and calls
    /// included). Then every run of the candidate ends in the values of the globals a run of
    /// this program ends in, so its reorders add no outcome: in a run of the candidate the
    /// two items of such a pair (adjacent in their thread once the pairs between them are
    /// undone) have only other threads' steps between and among their steps, which the
    /// private member's steps commute with; moved next to its partner, it swaps with it, as
    /// the two commute in their thread (the space fixes every pair that does not). Undoing the
    /// inverted pairs one by one so turns the run into one of this program with the same
    /// final values. Sections only take runs away. `false` when the candidate does not fit.
    pub fn reorders_are_private(&self, candidate: &Candidate) -> bool {
        let facts = self.facts();
        let summary = |loc: Loc| self.stmt_at(loc).and_then(|id| facts.stmts.get(id.index()));
        for (b, block) in self.blocks.iter().enumerate() {
            let original: Vec<Loc> =
                block.items.iter().filter_map(|&s| self.stmts.get(s.index()).map(|s| s.loc)).collect();
            let Some(order) = candidate.orders().get(b) else { return false };
            let Some(inverted) = inverted_pairs(&original, order) else { return false };
            if inverted.is_empty() {
                continue;
            }
            let Owner::Thread(t) = block.owner else { return false };
            let others: Vec<&Summary> =
                facts.threads.iter().enumerate().filter(|&(u, _)| u != t.index()).map(|(_, s)| s).collect();
            let commutes = |&(x, y): &(Loc, Loc)| match (summary(x), summary(y)) {
                (Some(x), Some(y)) => !x.loops && !y.loops && (private(x, &others) || private(y, &others)),
                _ => false,
            };
            if !inverted.iter().all(commutes) {
                return false;
            }
        }
        true
    }
}

/// Whether a statement of `item`'s summary shares no variable with the threads of `others`
/// (their bodies' summaries): it reads none they write and writes none they read or write.
fn private(item: &Summary, others: &[&Summary]) -> bool {
    let has = |vars: &[_], v| vars.binary_search(v).is_ok();
    others.iter().all(|u| {
        !item.reads.iter().any(|v| has(&u.writes, v))
            && !item.writes.iter().any(|v| has(&u.reads, v) || has(&u.writes, v))
    })
}

/// The pairs of `original`'s items (earlier first) that `order` puts the other way round;
/// `None` when `order` holds other items.
fn inverted_pairs(original: &[Loc], order: &[Loc]) -> Option<Vec<(Loc, Loc)>> {
    if original.len() != order.len() {
        return None;
    }
    let positions: HashMap<Loc, usize> = order.iter().enumerate().map(|(k, &l)| (l, k)).collect();
    let at = original.iter().map(|l| positions.get(l).copied()).collect::<Option<Vec<usize>>>()?;
    // From the last item back, the later items by their new position: those placed before
    // item `i` are the pairs it makes (in time linear in the pairs, not in all pairs).
    let mut later: BTreeMap<usize, usize> = BTreeMap::new();
    let mut per_item: Vec<Vec<usize>> = vec![Vec::new(); original.len()];
    for i in (0..original.len()).rev() {
        let mut before: Vec<usize> = later.range(..at[i]).map(|(_, &j)| j).collect();
        before.sort_unstable();
        per_item[i] = before;
        later.insert(at[i], i);
    }
    let pairs = per_item.iter().enumerate().flat_map(|(i, js)| js.iter().map(move |&j| (original[i], original[j])));
    Some(pairs.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every order of five items, against the pairs counted one by one, in the same order.
    #[test]
    fn inverted_pairs_are_every_pair_the_order_turns() {
        let original: Vec<Loc> = (0..5).map(Loc::from_u32).collect();
        let mut order = original.clone();
        let mut seen = 0;
        permute(&mut order, 0, &mut |order| {
            let at = |l: Loc| order.iter().position(|&x| x == l).unwrap();
            let mut expected = Vec::new();
            for (i, &a) in original.iter().enumerate() {
                for &b in &original[i + 1..] {
                    if at(a) > at(b) {
                        expected.push((a, b));
                    }
                }
            }
            assert_eq!(inverted_pairs(&original, order), Some(expected), "{order:?}");
            seen += 1;
        });
        assert_eq!(seen, 120);
        assert_eq!(inverted_pairs(&original, &original[1..]), None);
    }

    /// Calls `f` on every order of `items[from..]` after `items[..from]`.
    fn permute(items: &mut Vec<Loc>, from: usize, f: &mut impl FnMut(&[Loc])) {
        if from == items.len() {
            f(items);
            return;
        }
        for k in from..items.len() {
            items.swap(from, k);
            permute(items, from + 1, f);
            items.swap(from, k);
        }
    }
}
