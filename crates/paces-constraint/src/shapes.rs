//! Constraints about candidates rather than traces: what a CEGIS loop states when a checker
//! rejects a candidate for a reason no trace explains in full (a rejected candidate never to be
//! proposed again, a move to undo, changes not to make together, a statement to keep out of
//! sections).

use std::collections::BTreeSet;

use crate::{Arena, Candidate, Loc, NodeId, Space, Transformation};

impl Arena {
    /// A constraint every candidate satisfies except those with `candidate`'s block orders and
    /// sections: the no-good of a rejected candidate. The order of the items inside one
    /// section cannot be named by atoms, so candidates that differ from `candidate` only there
    /// are excluded too.
    pub fn excluding(&mut self, candidate: &Candidate, space: &Space) -> NodeId {
        let mut parts = Vec::new();
        for block in space.blocks() {
            // Whether each item that takes a section alone runs as one step; with the pairs
            // below this tells a one-item section from none.
            for &a in candidate.order(block).iter().filter(|&&a| space.takes_section_alone(a)) {
                let alone = self.atomic(a, a);
                parts.push(if candidate.in_one_section(a, a) { alone } else { self.not(alone) });
            }
            for pair in candidate.order(block).windows(2) {
                let (a, b) = (pair[0], pair[1]);
                if candidate.in_one_section(a, b) {
                    parts.push(self.atomic(a, b));
                } else {
                    let together = self.atomic(a, b);
                    let apart = self.not(together);
                    let order = self.order(a, b);
                    parts.push(apart);
                    parts.push(order);
                }
            }
        }
        let all = self.and(parts);
        self.not(all)
    }

    /// "Undo one of `candidate`'s moves that involve `items`": the disjunction, over every item
    /// `w` of `items`, of: for every item `x` of its block whose relative order with `w` the
    /// candidate inverted, the original order of the pair held strictly (in order and not in
    /// one section, since a section holding both satisfies `Order` alone); for every item `x`
    /// the candidate put in one added section with `w`, the two apart; and, for `w` alone in
    /// an added section, `w` outside sections. (A section can cause a deadlock too: it makes
    /// everything in it wait for its waits.) `true` when the candidate moved none of them and
    /// put none in a section. Items outside the space are ignored.
    pub fn undo_a_move(&mut self, items: &BTreeSet<Loc>, candidate: &Candidate, space: &Space) -> NodeId {
        let mut options = Vec::new();
        for &w in items {
            let Some((block, i)) = space.item_position(w) else { continue };
            let Some(pw) = candidate.position(w) else { continue };
            for (j, &x) in space.items(block).iter().enumerate() {
                let Some(px) = candidate.position(x) else { continue };
                // x originally before w and now after it, or the other way round.
                let (a, b) = if j < i && px > pw {
                    (x, w)
                } else if j > i && px < pw {
                    (w, x)
                } else {
                    continue;
                };
                let order = self.order(a, b);
                let together = self.atomic(a, b);
                let apart = self.not(together);
                options.push(self.and([order, apart]));
            }
            if candidate.section_of(w).is_none() {
                continue;
            }
            let mates: Vec<Loc> =
                space.items(block).iter().copied().filter(|&x| x != w && candidate.in_one_section(w, x)).collect();
            if mates.is_empty() && space.takes_section_alone(w) {
                let alone = self.atomic(w, w);
                options.push(self.not(alone));
            }
            for x in mates {
                let together = self.atomic(w, x);
                options.push(self.not(together));
            }
        }
        if options.is_empty() {
            return self.constant(true);
        }
        self.or(options)
    }

    /// "Not all of `steps` together": false exactly on the candidates that make every one of
    /// them (a swap: its second item before its first, or both in one section, as an `Order`
    /// atom holds; a section: its two ends in one section). What a loop states when it takes
    /// the changes that candidates rejected for one problem shared as that problem's cause.
    /// `false` for no steps.
    pub fn not_all_of(&mut self, steps: &[Transformation]) -> NodeId {
        let atoms: Vec<NodeId> = steps
            .iter()
            .map(|t| match *t {
                Transformation::Swap { first, second } => self.order(second, first),
                Transformation::Atomic { first, last } => self.atomic(first, last),
            })
            .collect();
        let all = self.and(atoms);
        self.not(all)
    }

    /// "None of `locs` lies in an added section": for each, no section atom with another item
    /// of its block, nor a section holding it alone. Locations outside the space are ignored.
    pub fn outside_sections(&mut self, locs: &[Loc], space: &Space) -> NodeId {
        let mut parts = Vec::new();
        for &loc in locs {
            let Some(block) = space.block_of(loc) else { continue };
            if space.takes_section_alone(loc) {
                let alone = self.atomic(loc, loc);
                parts.push(self.not(alone));
            }
            for &other in space.items(block) {
                if other != loc {
                    let together = self.atomic(loc, other);
                    parts.push(self.not(together));
                }
            }
        }
        self.and(parts)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Arena, Candidate, ItemInfo, Loc, Space, SpaceBuilder, Transformation};

    /// One block `a b c` whose items may all be reordered and put in sections.
    fn space() -> Space {
        let mut builder = SpaceBuilder::new();
        let block = builder.block(false);
        for name in ["a", "b", "c"] {
            let loc = builder.loc(name).unwrap();
            builder.item(block, loc, ItemInfo::SIMPLE).unwrap();
        }
        builder.build().unwrap()
    }

    fn locs(space: &Space, names: &[&str]) -> Vec<Loc> {
        names.iter().map(|n| space.loc(n).unwrap()).collect()
    }

    /// A candidate as atoms see it: per block, the units (sections as sorted item sets,
    /// other items alone) in order.
    fn units(candidate: &Candidate, space: &Space) -> Vec<Vec<Vec<Loc>>> {
        let mut all = Vec::new();
        for block in space.blocks() {
            let mut units: Vec<Vec<Loc>> = Vec::new();
            let mut previous = None;
            for &loc in candidate.order(block) {
                let section = candidate.section_of(loc).map(|s| s.first);
                match units.last_mut() {
                    Some(unit) if section.is_some() && section == previous => unit.push(loc),
                    _ => units.push(vec![loc]),
                }
                previous = section;
            }
            units.iter_mut().for_each(|u| u.sort());
            all.push(units);
        }
        all
    }

    #[test]
    fn excluding_rejects_exactly_the_candidate_up_to_the_order_inside_sections() {
        let space = space();
        let all = Candidate::enumerate(&space, 10_000).unwrap();
        assert!(all.len() > 10 && all.iter().any(|c| !c.sections().is_empty()));
        for rejected in &all {
            let mut arena = Arena::new();
            let root = arena.excluding(rejected, &space);
            for other in &all {
                let same = units(rejected, &space) == units(other, &space);
                assert_eq!(arena.eval(root, other), !same, "{other:?} against {rejected:?}");
            }
        }
    }

    #[test]
    fn undo_a_move_asks_for_an_inverted_pair_back() {
        let space = space();
        let [a, b, c] = locs(&space, &["a", "b", "c"])[..] else { unreachable!() };
        let moved = Candidate::new(&space, vec![vec![c, a, b]], &[]).unwrap();
        let mut arena = Arena::new();
        let undo = arena.undo_a_move(&[c].into(), &moved, &space);
        assert!(!arena.eval(undo, &moved));
        assert!(arena.eval(undo, &Candidate::original(&space)));
        // Moving c behind b alone undoes the move of c in front of b.
        assert!(arena.eval(undo, &Candidate::new(&space, vec![vec![a, c, b]], &[]).unwrap()));
        // An item the candidate did not move gives nothing to undo.
        let untouched = arena.undo_a_move(&[a].into(), &Candidate::original(&space), &space);
        assert_eq!(untouched, arena.constant(true));
    }

    #[test]
    fn undo_a_move_asks_for_a_section_apart() {
        let space = space();
        let [a, b, c] = locs(&space, &["a", "b", "c"])[..] else { unreachable!() };
        let sectioned = Candidate::new(&space, vec![vec![a, b, c]], &[(a, b)]).unwrap();
        let mut arena = Arena::new();
        let undo = arena.undo_a_move(&[b].into(), &sectioned, &space);
        // Exactly the candidates that keep a and b apart (every order, every other section).
        for other in Candidate::enumerate(&space, 10_000).unwrap() {
            assert_eq!(arena.eval(undo, &other), !other.in_one_section(a, b), "{other:?}");
        }
        // c is in no section and was not moved: nothing to undo.
        assert_eq!(arena.undo_a_move(&[c].into(), &sectioned, &space), arena.constant(true));
    }

    #[test]
    fn not_all_of_excludes_the_candidates_that_make_every_step() {
        let space = space();
        let [a, b, c] = locs(&space, &["a", "b", "c"])[..] else { unreachable!() };
        let steps = [Transformation::Swap { first: a, second: b }, Transformation::Atomic { first: b, last: c }];
        let mut arena = Arena::new();
        let root = arena.not_all_of(&steps);
        let both = Candidate::new(&space, vec![vec![b, a, c]], &[(b, c)]).unwrap();
        let swap_only = Candidate::new(&space, vec![vec![b, a, c]], &[]).unwrap();
        let section_only = Candidate::new(&space, vec![vec![a, b, c]], &[(b, c)]).unwrap();
        assert!(!arena.eval(root, &both));
        assert!(arena.eval(root, &swap_only));
        assert!(arena.eval(root, &section_only));
        assert!(arena.eval(root, &Candidate::original(&space)));
        for other in Candidate::enumerate(&space, 10_000).unwrap() {
            let makes_both = other.holds_order(b, a) && other.in_one_section(b, c);
            assert_eq!(arena.eval(root, &other), !makes_both, "{other:?}");
        }
        assert_eq!(arena.not_all_of(&[]), arena.constant(false));
    }

    #[test]
    fn outside_sections_forbids_every_section_holding_the_location() {
        let space = space();
        let [a, b, c] = locs(&space, &["a", "b", "c"])[..] else { unreachable!() };
        let mut arena = Arena::new();
        let root = arena.outside_sections(&[a], &space);
        let section = |x, y| Candidate::new(&space, vec![vec![a, b, c]], &[(x, y)]).unwrap();
        assert!(!arena.eval(root, &section(a, b)));
        assert!(!arena.eval(root, &section(a, c)));
        assert!(arena.eval(root, &section(b, c)));
        assert!(arena.eval(root, &Candidate::original(&space)));
    }
}
