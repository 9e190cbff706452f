//! The cheapest program of a space that satisfies the constraints learned so far, and the
//! conflict named when none does.
//!
//! Run with `cargo run -p paces-solver --example cheapest_candidate`.

use paces_solver::constraint::{Arena, ItemInfo, SpaceBuilder};
use paces_solver::{Solver, SolverConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One thread `A B C`, every pair free to change order.
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let [a, bb, c] = ["A", "B", "C"].map(|n| b.add_item(block, n, ItemInfo::SIMPLE));
    let (a, bb, c) = (a?, bb?, c?);
    let space = b.build()?;

    // A bad trace is fixed by moving C before A, or by keeping B and C in one atomic section.
    let mut arena = Arena::new();
    let c_first = arena.order(c, a);
    let bc = arena.atomic(bb, c);
    let fixes = arena.or([c_first, bc]);
    let mut solver = Solver::new(&space, SolverConfig::new())?;
    solver.add(&arena, fixes, "eliminate the bad trace")?;
    let best = solver.solve()?.into_solution().ok_or("satisfiable")?;
    println!("cheapest:\n{}", best.display(&space));
    // Reordering is cheaper than a section: C ahead of A takes two adjacent swaps.
    assert!(best.candidate.holds_order(c, a) && best.candidate.sections().is_empty());
    assert_eq!((best.cost.atomic_weight, best.cost.inversions), (0, 2));
    assert!(arena.eval(fixes, &best.candidate));

    // Forbid both (A before C, and no section over B and C, nor over A and C, in which
    // `C <= A` and `A <= C` would both hold): the answer names the constraints that clash.
    let keep_order = arena.order(a, c);
    let ac = arena.atomic(a, c);
    let no_sections = [arena.not(bc), arena.not(ac)];
    let both = arena.and([keep_order, no_sections[0], no_sections[1]]);
    solver.add(&arena, both, "keep A first, no section")?;
    let conflict = solver.solve()?.into_unsat().ok_or("unsatisfiable")?;
    println!("{}", conflict.explanation);
    let names: Vec<&str> = conflict.conflict.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["eliminate the bad trace", "keep A first, no section"]);
    Ok(())
}
