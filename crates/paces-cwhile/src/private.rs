//! Reorders that add no outcome, known without exploring: each pair of items a candidate
//! puts in another order has a member that shares nothing with the other threads.

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
    let pos = |l: &Loc| order.iter().position(|x| x == l);
    let at = original.iter().map(pos).collect::<Option<Vec<usize>>>()?;
    let mut out = Vec::new();
    for i in 0..original.len() {
        for j in i + 1..original.len() {
            if at[i] > at[j] {
                out.push((original[i], original[j]));
            }
        }
    }
    Some(out)
}
