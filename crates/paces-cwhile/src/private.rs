//! Reorders that add no outcome, known without exploring: each pair of items a candidate
//! puts in another order has a member that shares nothing with the other threads.

use std::collections::BTreeSet;

use paces_constraint::{BlockId, Candidate, Loc};

use crate::ir::{Owner, Program, StmtId, StmtKind, VarIdx};

/// The variables each thread may read and write, its calls included.
struct Accesses {
    reads: Vec<BTreeSet<VarIdx>>,
    writes: Vec<BTreeSet<VarIdx>>,
}

impl Program {
    /// Whether every pair of items that `candidate` (of [`Program::space`]) puts in another
    /// order than this program lies in a thread's own block (not a procedure's), holds no
    /// loop or call (where a thread may stop before the pair is done), and has a member that
    /// shares no variable with another thread: it reads none another thread writes, and
    /// writes none another thread reads or writes (nested statements included). Then every run of the candidate ends in the values of the
    /// globals a run of this program ends in, so its reorders add no outcome: in a run of the
    /// candidate the two items of such a pair (adjacent in their thread once the pairs
    /// between them are undone) have only other threads' steps between them, which the
    /// private member commutes with; moved next to its partner, it swaps with it, as the two
    /// commute in their thread (the space fixes every pair that does not). Undoing the
    /// inverted pairs one by one so turns the run into one of this program with the same
    /// final values. Sections only take runs away. `false` when the candidate does not fit.
    pub fn reorders_are_private(&self, candidate: &Candidate) -> bool {
        let access = self.thread_accesses();
        let private = |loc: Loc, thread: usize| -> bool {
            let Some(id) = self.stmt_at(loc) else { return false };
            let (reads, writes) = (self.reads(id), self.writes(id));
            (0..self.threads.len()).filter(|&u| u != thread).all(|u| {
                !reads.iter().any(|v| access.writes[u].contains(v))
                    && !writes.iter().any(|v| access.reads[u].contains(v) || access.writes[u].contains(v))
            })
        };
        for (b, block) in self.blocks.iter().enumerate() {
            let original: Vec<Loc> =
                block.items.iter().filter_map(|&s| self.stmts.get(s.index()).map(|s| s.loc)).collect();
            let Some(order) = candidate.orders().get(b) else { return false };
            let Some(inverted) = inverted_pairs(&original, order) else { return false };
            if inverted.is_empty() {
                continue;
            }
            let Owner::Thread(t) = block.owner else { return false };
            let straight = |l: Loc| self.stmt_at(l).is_some_and(|s| self.is_straight(s));
            let commutes =
                |&(x, y): &(Loc, Loc)| straight(x) && straight(y) && (private(x, t.index()) || private(y, t.index()));
            if !inverted.iter().all(commutes) {
                return false;
            }
        }
        true
    }

    /// Whether statement `id` holds no loop and no call: a thread that starts it ends it
    /// before it may stop.
    fn is_straight(&self, id: StmtId) -> bool {
        let block = |b: BlockId| self.blocks[b.index()].items.iter().all(|&s| self.is_straight(s));
        match &self.stmts[id.index()].kind {
            StmtKind::While { .. } | StmtKind::Call(_) => false,
            StmtKind::If { then_block, else_block, .. } => block(*then_block) && else_block.is_none_or(block),
            StmtKind::Atomic(b) | StmtKind::NoReorder(b) => block(*b),
            _ => true,
        }
    }

    /// The variables each thread's body may read and write.
    fn thread_accesses(&self) -> Accesses {
        let mut acc = Accesses { reads: Vec::new(), writes: Vec::new() };
        for thread in &self.threads {
            let top: &[StmtId] = &self.blocks[thread.body.index()].items;
            acc.reads.push(top.iter().flat_map(|&s| self.reads(s).iter().copied()).collect());
            acc.writes.push(top.iter().flat_map(|&s| self.writes(s).iter().copied()).collect());
        }
        acc
    }
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
