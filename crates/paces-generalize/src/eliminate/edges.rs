//! The constraint edges of the elimination graph: which reorders, kept orders and atomic
//! sections join two events of one thread, and what each weighs.

use paces_constraint::{Atom, Loc, Waits};
use smallvec::SmallVec;

use super::graph::Graph;
use super::EdgeKind;
use crate::Error;

/// One constraint edge option between two events.
#[derive(Clone, Copy, Debug)]
pub(super) struct Opt {
    pub(super) kind: EdgeKind,
    pub(super) weight: u64,
}

impl Graph<'_> {
    /// Whether an atomic section may hold items `a` and `b` (`a == b`: the item alone): the
    /// block takes sections, neither item is kept out of them, and an item alone is one that
    /// takes a section alone. A section runs all or nothing, so waits may stand anywhere in
    /// it. (The items between `a` and `b` may be kept out too; the solver then finds the
    /// section only in an order that moves them away, or not at all.)
    fn atomic_legal(&self, a: Loc, b: Loc) -> bool {
        let space = self.space;
        if a == b {
            return space.takes_section_alone(a);
        }
        space.common_block(a, b).is_ok() && space.may_be_in_section(a) && space.may_be_in_section(b)
    }

    /// Backward between two events of one item (the guard of an `if` and a step of its
    /// branch, or steps of two iterations of a loop), or of two items of a block closed to
    /// sections: no order between them can change, but a section that holds the item holds
    /// both. The item is the innermost one holding both that a section may hold (its block
    /// takes sections, and it is not kept out of them; a frontend closes the `noreorder` of
    /// one C statement: a section holds the statement); it
    /// is offered alone, `Atomic(item, item)`, and with each neighbour in the original order,
    /// `Atomic(item, neighbour)`.
    fn enclosing_sections(&self, u: u32, v: u32, out: &mut SmallVec<[Opt; 2]>) {
        let (x, y) = (self.ev[u as usize], self.ev[v as usize]);
        let space = self.space;
        let common = x
            .scope
            .iter()
            .zip(&y.scope)
            .take_while(|(sx, sy)| sx.instance == sy.instance && sx.item == sy.item)
            .map(|(sx, _)| sx.item)
            .filter(|&item| space.may_be_in_section(item))
            .last();
        let Some(item) = common else { return };
        let Some((block, pos)) = space.item_position(item) else { return };
        let items = space.items(block);
        let neighbours = [pos.checked_sub(1), Some(pos + 1)];
        let partners =
            std::iter::once(item).chain(neighbours.into_iter().flatten().filter_map(|p| items.get(p).copied()));
        for n in partners {
            if self.atomic_legal(item, n) {
                let w = self.a.saturating_mul(self.section_weight(item, n));
                out.push(Opt { kind: EdgeKind::Atomic(Atom::atomic(item, n)), weight: w });
            }
        }
    }

    /// The simple statements of the items from `a` to `b` in the original order.
    fn section_weight(&self, a: Loc, b: Loc) -> u64 {
        let space = self.space;
        let (Some((block, pa)), Some((_, pb))) = (space.item_position(a), space.item_position(b)) else { return 1 };
        space.items(block)[pa.min(pb)..=pa.max(pb)]
            .iter()
            .map(|&l| u64::from(space.item_info(l).map_or(1, |i| i.weight)))
            .sum()
    }

    /// The constraint edges from `from` to `to` (one thread, different events).
    pub(super) fn options(&self, from: u32, to: u32, out: &mut SmallVec<[Opt; 2]>) -> Result<(), Error> {
        out.clear();
        let space = self.space;
        let (fu, tu) = (from as usize, to as usize);
        if self.tpos[tu] < self.tpos[fu] {
            // Backward: `to` comes first in the thread.
            let Some((a, b)) = self.lifted(to, from)? else {
                self.enclosing_sections(to, from, out);
                return Ok(());
            };
            let may = space.may_change_order(a, b);
            // Only a wait itself counts here (an item that opens with an await: an `await`,
            // a `lock`); moving a call or a branch that holds a wait deeper inside is
            // allowed, as the original tool allowed it (rtl8169's fix moves `free_irq()` in
            // front of `dev_down()`, whose `synchronize_irq()` waits).
            let wait = |l: Loc| space.item_info(l).is_some_and(|i| i.waits == Waits::First);
            let crosses = wait(a) || wait(b);
            if may && (self.preemption_free || !crosses) {
                let (pa, pb) = (space.item_position(a).map_or(0, |p| p.1), space.item_position(b).map_or(0, |p| p.1));
                let dist = pa.abs_diff(pb).max(1) as u64;
                out.push(Opt { kind: EdgeKind::Reorder(Atom::Order(b, a)), weight: self.r.saturating_mul(dist) });
            }
            if self.atomic_legal(a, b) {
                let w = self.a.saturating_mul(self.section_weight(a, b));
                out.push(Opt { kind: EdgeKind::Atomic(Atom::atomic(a, b)), weight: w });
            } else if space.common_block(a, b).is_ok_and(|block| space.is_closed(block)) {
                self.enclosing_sections(to, from, out);
            }
        } else if !self.blocked[tu] {
            if let Some((a, b)) = self.lifted(from, to)? {
                if space.may_change_order(a, b) {
                    let span = u64::from(self.tpos[tu] - self.tpos[fu]);
                    out.push(Opt { kind: EdgeKind::Keep(Atom::Order(a, b)), weight: span });
                }
            }
        }
        Ok(())
    }
}
