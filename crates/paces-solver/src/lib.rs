//! The SAT facade of PACES: picks the cheapest candidate program that satisfies every
//! constraint learned so far.
//!
//! # Overview
//! * [`Solver`]: encodes a [`Space`](paces_constraint::Space) into CNF once
//!   ([`Solver::new`]), takes constraints from an [`Arena`](paces_constraint::Arena) one by
//!   one ([`Solver::add`]) and answers [`Solver::solve`] with an [`Outcome`]: a cheapest
//!   [`Solution`] (candidate, [`Cost`](paces_constraint::Cost), transformations) or, when
//!   the constraints conflict, an [`Unsat`] naming the conflicting constraints
//!   ([`Conflict`]); [`Outcome::into_solution`] and [`Outcome::into_unsat`] take either out.
//!   [`Solver::k_best`] lists the `k` cheapest distinct candidates.
//! * [`SolverConfig`]: the backend ([`BackendKind`]) and a few knobs.
//! * [`Error`] with [`ErrorKind`].
//! * [`constraint`]: the vocabulary crate its signatures use, re-exported.
//!
//! `examples/cheapest_candidate.rs` shows a solve and a conflict.
//!
//! Cost is lexicographic, as [`Cost`](paces_constraint::Cost) orders it: first the simple
//! statements inside added atomic sections, then the item pairs inverted against the original
//! order. The solver minimises each component in turn: first the bound 0 (no item in a
//! section, no pair inverted) as plain assumptions, then bounds probed from below (1, 2, 4,
//! 8, ... until one is satisfiable, then bisecting), with cardinality bounds (a generalised
//! totalizer for the weights, a totalizer for the inversions, both from rustsat, encoded only
//! as far as the bounds reached) passed as assumptions, never as clauses: the loop only ever
//! adds clauses, and one backend instance serves every call. Each constraint is guarded by an
//! activation literal, so an unsatisfiable answer names the constraints in its final core
//! (shrunk to a minimal conflict by default).
//!
//! The encoding (see the `encode` module's source for the full account): per block one
//! "inverted" variable per pair of items that may change order (fixed pairs are constants)
//! and two clauses per triple that make the order total; one "same section" variable per pair
//! of items that may share a section, made an equivalence whose classes are contiguous in the
//! new order (nine clauses per triple), waits allowed anywhere in a section, one "alone"
//! variable per compound item that a section may hold by itself (exclusive with its "same
//! section" variables; either costs the item's weight), and closed blocks without sections;
//! constraint nodes by Tseitin, each node once and only in the directions
//! its polarity needs. Blocks larger than [`SolverConfig::lazy_above`] items get their
//! per-triple clauses on demand, when a model violates them, and their "same section"
//! variables only when something names them: memory in proportion to the pairs that may
//! change order, not to the square of the block's length. The search for the cheapest
//! candidate starts a cost component from a lower bound found by disjoint cores when the
//! first model is far from the original. Fresh variables are signed so
//! that "false" is the original program, which the backends try first. A model is decoded
//! through [`Candidate::new`](paces_constraint::Candidate::new), which re-checks it.
//!
//! # Example
//! The space of the paper's Figure 7 (thread 1 is `1: await; 2: await; 3: assert`, thread 2
//! is `A; B; C`, all commuting, thread 3 is `n: await; p: assert`), the error-eliminating
//! constraint of the bad trace `A B 1 2 3` (C before B, or C before A), and the constraint
//! learned from a good trace (`B <= C /\ n <= p`). The cheapest fix moves A after C.
//! ```
//! use paces_constraint::{Arena, ItemInfo, SpaceBuilder};
//! use paces_solver::{Outcome, Solver, SolverConfig};
//!
//! let mut b = SpaceBuilder::new();
//! let mut thread = |b: &mut SpaceBuilder, items: &[(&str, ItemInfo)]| {
//!     let block = b.block(false);
//!     items.iter().map(|&(name, info)| {
//!         let loc = b.loc(name)?;
//!         b.item(block, loc, info)?;
//!         Ok(loc)
//!     }).collect::<Result<Vec<_>, paces_constraint::Error>>()
//! };
//! let t1 = thread(&mut b, &[("1", ItemInfo::AWAIT), ("2", ItemInfo::AWAIT), ("3", ItemInfo::SIMPLE)])?;
//! let t2 = thread(&mut b, &[("A", ItemInfo::SIMPLE), ("B", ItemInfo::SIMPLE), ("C", ItemInfo::SIMPLE)])?;
//! let t3 = thread(&mut b, &[("n", ItemInfo::AWAIT), ("p", ItemInfo::SIMPLE)])?;
//! let space = b.build()?;
//! let ([one, two, three], [a, bb, c], [n, p]) = (t1[..].try_into()?, t2[..].try_into()?, t3[..].try_into()?);
//!
//! let mut arena = Arena::new();
//! // Eliminate the bad trace: C before B (keeping 2 before 3), or C before A (keeping 1 before 3).
//! let (c_b, two_three, c_a, one_three) =
//!     (arena.order(c, bb), arena.order(two, three), arena.order(c, a), arena.order(one, three));
//! let fix_b = arena.and([c_b, two_three]);
//! let fix_a = arena.and([c_a, one_three]);
//! let bad = arena.or([fix_b, fix_a]);
//! // Do not break the good trace: B before C and n before p.
//! let (b_c, n_p) = (arena.order(bb, c), arena.order(n, p));
//! let good = arena.and([b_c, n_p]);
//!
//! let mut solver = Solver::new(&space, SolverConfig::new())?;
//! solver.add(&arena, bad, "eliminate bad trace A B 1 2 3")?;
//! solver.add(&arena, good, "keep good trace A B C 1 2 n 3 p")?;
//! let Outcome::Solution(best) = solver.solve()? else { panic!("satisfiable") };
//! assert_eq!(best.display(&space).to_string(), "swap A <-> B\nswap A <-> C");
//! assert_eq!((best.cost.atomic_weight, best.cost.inversions), (0, 2));
//! assert!(arena.eval(bad, &best.candidate) && arena.eval(good, &best.candidate));
//!
//! // Insisting that A stays first leaves an atomic section as the cheapest fix
//! // (C <= B also holds when B and C share a section).
//! let (a_b, a_c) = (arena.order(a, bb), arena.order(a, c));
//! let a_first = arena.and([a_b, a_c]);
//! solver.add(&arena, a_first, "keep A first")?;
//! let Outcome::Solution(best) = solver.solve()? else { panic!("satisfiable") };
//! assert_eq!(best.display(&space).to_string(), "atomic [B; C]");
//!
//! // Ruling that section out too leaves nothing: the answer names the conflict.
//! let bc_atomic = arena.atomic(bb, c);
//! let no_bc = arena.not(bc_atomic);
//! solver.add(&arena, no_bc, "no atomic section over B and C")?;
//! let Outcome::Unsat(why) = solver.solve()? else { panic!("unsatisfiable") };
//! assert_eq!(why.explanation, "no candidate program satisfies these constraints together:
//!   c0 `eliminate bad trace A B 1 2 3`: C <= B /\\ 2 <= 3 \\/ C <= A /\\ 1 <= 3
//!   c1 `keep good trace A B C 1 2 n 3 p`: B <= C /\\ n <= p
//!   c2 `keep A first`: A <= B /\\ A <= C
//!   c3 `no atomic section over B and C`: ![B; C]");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors
//! [`Solver::new`] fails when the chosen backend is not compiled in or the space is too
//! large to encode; [`Solver::add`] when the constraint is not a node of the arena;
//! [`Solver::solve`] and [`Solver::k_best`] only on backend failures (or a decoding bug,
//! [`ErrorKind::Internal`]). An unsatisfiable set of constraints is an ordinary
//! [`Outcome::Unsat`], not an error.
//!
//! # Crate features
//! * `cadical`: the [`BackendKind::Cadical`] backend (rustsat-cadical, C++). Off by default,
//!   so that a fresh `cargo build` needs nothing but Rust. Building it needs a C++ compiler
//!   and libclang for bindgen (on Debian or Ubuntu: `apt-get install g++ libclang-dev`), then
//!   `cargo test -p paces-solver --features cadical`. Without libclang the build script of
//!   rustsat-cadical stops with "Unable to find libclang".

// The README's example is compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod backend;
mod config;
mod encode;
mod error;
mod solver;

pub use paces_constraint as constraint;

pub use config::{BackendKind, SolverConfig};
pub use error::{Error, ErrorKind};
pub use solver::{Conflict, ConstraintId, Outcome, Solution, Solver, SolverStats, Unsat};
