//! Bad input gets a clear error, never a panic.

use paces_constraint::{Arena, ItemInfo, NodeId, Space, SpaceBuilder};
use paces_solver::{BackendKind, ErrorKind, Solver, SolverConfig};

fn space(n: usize) -> Space {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    for i in 0..n {
        let loc = b.loc(&format!("s{i}")).unwrap();
        b.item(block, loc, ItemInfo::SIMPLE).unwrap();
    }
    b.build().unwrap()
}

#[test]
fn node_outside_the_arena() {
    let space = space(2);
    let arena = Arena::new();
    let mut solver = Solver::new(&space, SolverConfig::new()).unwrap();
    let err = solver.add(&arena, NodeId::from_u32(7), "ghost").unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::UnknownNode);
    assert_eq!(err.to_string(), "constraint n7 is not a node of the arena (which holds 2 nodes)");
}

#[test]
fn arena_that_shrank() {
    let space = space(2);
    let items = space.items(space.blocks().next().unwrap()).to_vec();
    let mut big = Arena::new();
    let x = big.order(items[1], items[0]);
    let y = big.order(items[0], items[1]);
    let both = big.or([x, y]);
    let mut solver = Solver::new(&space, SolverConfig::new()).unwrap();
    solver.add(&big, both, "big").unwrap();
    let small = Arena::new();
    let err = solver.add(&small, small.constant(true), "small").unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::UnknownNode);
}

#[test]
fn space_too_large() {
    let space = space(60);
    let err = Solver::new(&space, SolverConfig::new().max_clauses(1000)).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::SpaceTooLarge);
    assert!(err.to_string().contains("more than the limit of 1000"), "{err}");
}

#[cfg(not(feature = "cadical"))]
#[test]
fn cadical_without_the_feature() {
    let err = Solver::new(&space(2), SolverConfig::new().backend(BackendKind::Cadical)).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BackendUnavailable);
    assert!(err.to_string().contains("feature `cadical`"));
    assert_eq!(BackendKind::available(), &[BackendKind::Batsat]);
}

#[cfg(feature = "cadical")]
#[test]
fn cadical_with_the_feature() {
    assert!(Solver::new(&space(2), SolverConfig::new().backend(BackendKind::Cadical)).is_ok());
    assert_eq!(BackendKind::available(), &[BackendKind::Batsat, BackendKind::Cadical]);
}

/// Constant constraints: true adds nothing, false conflicts on its own.
#[test]
fn constant_constraints() {
    let space = space(3);
    let arena = Arena::new();
    let mut solver = Solver::new(&space, SolverConfig::new()).unwrap();
    solver.add(&arena, arena.constant(true), "always").unwrap();
    let best = solver.solve().unwrap();
    assert!(best.solution().unwrap().candidate.is_original(&space));
    solver.add(&arena, arena.constant(false), "never").unwrap();
    let paces_solver::Outcome::Unsat(why) = solver.solve().unwrap() else { panic!("false is unsatisfiable") };
    assert_eq!(why.explanation, "no candidate program satisfies this constraint:\n  c1 `never`: false");
}

#[test]
fn retracted_constraint_no_longer_binds() {
    let space = space(2);
    let items = space.items(space.blocks().next().unwrap()).to_vec();
    let mut arena = Arena::new();
    let apart = arena.atomic(items[0], items[1]);
    let apart = arena.not(apart);
    let keep = arena.order(items[0], items[1]);
    let keep = arena.and([keep, apart]);
    let swap = arena.order(items[1], items[0]);
    let swap = arena.and([swap, apart]);
    let mut solver = Solver::new(&space, SolverConfig::new()).unwrap();
    let first = solver.add(&arena, keep, "keep").unwrap();
    let second = solver.add(&arena, swap, "swap").unwrap();
    let paces_solver::Outcome::Unsat(why) = solver.solve().unwrap() else { panic!("the two orders conflict") };
    assert_eq!(why.conflict.iter().map(|c| c.id).collect::<Vec<_>>(), [first, second]);
    solver.retract(first).unwrap();
    solver.retract(first).unwrap();
    assert_eq!(solver.stats().constraints, 1);
    let solution = solver.solve().unwrap();
    let candidate = &solution.solution().expect("satisfiable without `keep`").candidate;
    assert_eq!(candidate.order(space.blocks().next().unwrap()), [items[1], items[0]]);
    let err = solver.retract(paces_solver::ConstraintId::from_u32(9)).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::UnknownNode);
}

#[test]
fn a_passed_deadline_is_its_own_error_and_can_be_lifted() {
    let space = space(3);
    let items = space.items(space.blocks().next().unwrap()).to_vec();
    let mut arena = Arena::new();
    let moved = arena.order(items[2], items[0]);
    let mut solver = Solver::new(&space, SolverConfig::new()).unwrap();
    solver.add(&arena, moved, "s2 first").unwrap();
    solver.set_deadline(Some(std::time::Instant::now() - std::time::Duration::from_millis(1)));
    let err = solver.solve().unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::Deadline, "{err}");
    solver.set_deadline(None);
    match solver.solve().unwrap() {
        paces_solver::Outcome::Solution(s) => assert_eq!(s.cost.inversions, 2, "{}", s.display(&space)),
        other => panic!("expected a solution, got {other:?}"),
    }
}
