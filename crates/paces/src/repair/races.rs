//! Races spread: a section the learner proposes around a thread's accesses to shared
//! variables is offered to every other place of the program that makes the same accesses in
//! the same order, as a guess the judge checks like any candidate (docs/loop.md, "Races
//! spread").
//!
//! Threads that differ still race the same way: each worker's `t := total; total := t + 1;`
//! loses updates against every other worker's, wherever its private work puts it. One bad
//! trace shows the race through one pair of threads; the section that removes it there is
//! what the other threads need too. A place makes the same accesses when its items, skipping
//! those that touch no shared variable, read and write the same shared variables item for
//! item as the section's; the section offered there runs from its first such item to its last.

use paces_constraint::{Arena, Candidate, Loc, NodeId, Space, Transformation};
use paces_cwhile::ir::{Program, VarIdx, VarScope};
use paces_learn::Learner;

/// The shared variables an item reads and writes (sorted): what places are matched by.
type Access = (Vec<VarIdx>, Vec<VarIdx>);

/// Every block's items with their accesses, in the original order.
pub(super) struct Races {
    blocks: Vec<Vec<(Loc, Access)>>,
    /// Each location's accesses, by its index.
    access: Vec<Access>,
}

impl Races {
    /// The accesses of `program`'s items, as `space` places them.
    pub(super) fn new(program: &Program, space: &Space) -> Self {
        let global = |v: &VarIdx| matches!(program.vars[v.index()].scope, VarScope::Global);
        let access = |loc: Loc| -> Access {
            let Some(id) = program.stmt_at(loc) else { return (Vec::new(), Vec::new()) };
            let reads = program.reads(id).iter().copied().filter(global).collect();
            let writes = program.writes(id).iter().copied().filter(global).collect();
            (reads, writes)
        };
        let access: Vec<Access> = space.locs().map(access).collect();
        let blocks = space.blocks().map(|b| space.items(b).iter().map(|&l| (l, access[l.index()].clone())).collect());
        Races { blocks: blocks.collect(), access }
    }

    /// `candidate` with each of its sections offered to every place that makes the same
    /// accesses and is in no section yet, when the result differs from `candidate` and
    /// satisfies everything `learner` learned; `None` otherwise.
    pub(super) fn spread(&self, space: &Space, learner: &Learner, candidate: &Candidate) -> Option<Candidate> {
        let mut steps = candidate.transformations(space);
        let before = steps.len();
        let taken = |l: Loc| candidate.section_of(l).is_some();
        for section in candidate.sections() {
            let shape = self.shape(candidate.section_items(section));
            if shape.is_empty() {
                continue;
            }
            for items in &self.blocks {
                for (first, last) in places(items, &shape) {
                    let step = Transformation::Atomic { first, last };
                    if !taken(first) && !taken(last) && !steps.contains(&step) {
                        steps.push(step);
                    }
                }
            }
        }
        if steps.len() == before {
            return None;
        }
        let spread = Candidate::apply(space, &steps).ok()?;
        (spread != *candidate && learner.arena().eval(learner.constraint(), &spread)).then_some(spread)
    }

    /// The guess "no item moves": every block in its original order, so that only sections
    /// are left to repair with (see `Run::sections_guess`).
    pub(super) fn no_moves(arena: &mut Arena, space: &Space) -> NodeId {
        let mut parts = Vec::new();
        for block in space.blocks() {
            for pair in space.items(block).windows(2) {
                parts.push(arena.order(pair[0], pair[1]));
            }
        }
        arena.and(parts)
    }

    /// The accesses of `items` (a section's), skipping the items that access nothing shared.
    fn shape(&self, items: &[Loc]) -> Vec<Access> {
        items
            .iter()
            .filter_map(|&l| self.access.get(l.index()))
            .filter(|(r, w)| !r.is_empty() || !w.is_empty())
            .cloned()
            .collect()
    }
}

/// The places of `items` (a block's, in order) whose accesses are `shape`: each window from
/// an item with the shape's first access through items that access nothing shared or the
/// shape's next, to one with its last; as (first item, last item).
fn places(items: &[(Loc, Access)], shape: &[Access]) -> Vec<(Loc, Loc)> {
    let mut out = Vec::new();
    for start in 0..items.len() {
        if items[start].1 != shape[0] {
            continue;
        }
        let mut k = 1;
        let mut end = start;
        for (i, (_, access)) in items.iter().enumerate().skip(start + 1) {
            if k == shape.len() {
                break;
            }
            if *access == shape[k] {
                k += 1;
                end = i;
            } else if !access.0.is_empty() || !access.1.is_empty() {
                break;
            }
        }
        if k == shape.len() {
            out.push((items[start].0, items[end].0));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(i: usize) -> Loc {
        Loc::new(i).unwrap()
    }

    fn var(i: u32) -> VarIdx {
        VarIdx::from_u32(i)
    }

    /// `r := x` (reads x), private work, `x := r + 1` (writes x): one place, its ends the
    /// accesses; a place broken by another shared access is none.
    #[test]
    fn places_skip_private_items_and_stop_at_other_accesses() {
        let (none, read, write) = ((vec![], vec![]), (vec![var(0)], vec![]), (vec![], vec![var(0)]));
        let other = (vec![var(1)], vec![var(1)]);
        let shape = [read.clone(), write.clone()];
        let items = |a: &[&Access]| a.iter().enumerate().map(|(i, x)| (loc(i), (*x).clone())).collect::<Vec<_>>();
        assert_eq!(places(&items(&[&none, &read, &none, &none, &write, &none]), &shape), [(loc(1), loc(4))]);
        assert_eq!(places(&items(&[&read, &other, &write]), &shape), []);
        assert_eq!(places(&items(&[&read, &write, &read, &write]), &shape), [(loc(0), loc(1)), (loc(2), loc(3))]);
        assert_eq!(places(&items(&[&write, &read]), &shape), []);
    }
}
