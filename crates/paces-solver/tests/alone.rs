//! One-item sections: a compound item alone in an added section, with its weight as cost.

use paces_constraint::{Arena, Cost, ItemInfo, Loc, Space, SpaceBuilder, Waits};
use paces_solver::{Solver, SolverConfig};

/// One open block `s; i; w`: a simple statement, an `if` of weight 3, and a loop of weight 2
/// that waits inside.
fn space() -> (Space, [Loc; 3]) {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let s = b.loc("s").unwrap();
    let i = b.loc("i").unwrap();
    let w = b.loc("w").unwrap();
    b.item(block, s, ItemInfo::SIMPLE).unwrap();
    b.item(block, i, ItemInfo::compound(3, Waits::Never)).unwrap();
    b.item(block, w, ItemInfo::compound(2, Waits::Inside)).unwrap();
    b.fix(s, i).unwrap();
    b.fix(i, w).unwrap();
    (b.build().unwrap(), [s, i, w])
}

fn solve(space: &Space, arena: &Arena, root: paces_constraint::NodeId) -> Option<(Vec<(Loc, Loc)>, Cost)> {
    let mut solver = Solver::new(space, SolverConfig::new()).unwrap();
    solver.add(arena, root, "c").unwrap();
    let outcome = solver.solve().unwrap();
    outcome.solution().map(|s| (s.candidate.sections().iter().map(|x| (x.first, x.last)).collect(), s.cost))
}

#[test]
fn atomic_a_a_of_a_compound_item_gets_the_cheapest_section_holding_it() {
    let (space, [s, i, w]) = space();
    let mut arena = Arena::new();
    // [i; i]: the item alone (weight 3) is cheaper than with s (4) or with w (5).
    let root = arena.atomic(i, i);
    assert_eq!(solve(&space, &arena, root), Some((vec![(i, i)], Cost { atomic_weight: 3, inversions: 0 })));
    // [i; i] and [w; w] apart: two one-item sections, weights added.
    let alone_w = arena.atomic(w, w);
    let not_together = arena.atomic(i, w);
    let apart = arena.not(not_together);
    let root = arena.and([root, alone_w, apart]);
    assert_eq!(solve(&space, &arena, root), Some((vec![(i, i), (w, w)], Cost { atomic_weight: 5, inversions: 0 })));
    // [s; i] holds i in a larger section: [i; i] holds too, with no one-item section.
    let pair = arena.atomic(s, i);
    let alone_i = arena.atomic(i, i);
    let root = arena.and([pair, alone_i]);
    assert_eq!(solve(&space, &arena, root), Some((vec![(s, i)], Cost { atomic_weight: 4, inversions: 0 })));
    // The simple statement is one step anyway: [s; s] costs nothing.
    let root = arena.atomic(s, s);
    assert_eq!(solve(&space, &arena, root), Some((vec![], Cost::default())));
    // Not running as one step: no section holds i.
    let alone_i = arena.atomic(i, i);
    let outside = arena.not(alone_i);
    let root = arena.and([outside, alone_w]);
    assert_eq!(solve(&space, &arena, root), Some((vec![(w, w)], Cost { atomic_weight: 2, inversions: 0 })));
}

#[test]
fn a_section_may_hold_a_wait_anywhere() {
    let (space, [s, _, w]) = space();
    let mut arena = Arena::new();
    let root = arena.atomic(s, w);
    let (sections, cost) = solve(&space, &arena, root).unwrap();
    assert_eq!(sections, vec![(s, w)]);
    assert_eq!(cost, Cost { atomic_weight: 6, inversions: 0 });
}
