//! The vocabulary every PACES crate speaks, and the constraint algebra over it.
//!
//! A concurrent program is repaired by reordering adjacent, independent statements inside a
//! block and by adding atomic sections. This crate names the pieces:
//!
//! * [`Loc`]: a program location (a statement); [`BlockId`]: a block (statements between one
//!   pair of braces) whose direct members are its *items*.
//! * [`Space`] (built with [`SpaceBuilder`]): every program reachable by the transformations:
//!   per block its items in original order, the pairs that keep their order, the preemption
//!   points, the items atomic by themselves and those kept out of atomic sections
//!   ([`ItemInfo`], [`Waits`]) and whether the block may receive atomic sections.
//! * [`Candidate`]: one program of the space, with its [`Cost`] and the [`Transformation`]s
//!   (the paper's theta sequence) that lead to it from the original.
//! * [`Candidate`]s hold their added atomic [`Section`]s; [`Candidate::enumerate`] lists every
//!   candidate of a small space (for tests and oracles).
//! * [`Atom`]s `Order(a, b)` (`a <= b`) and `Atomic(a, b)` (`[a; b]`), and an [`Arena`] of
//!   hash-consed, simplified formulas over them ([`NodeId`] names one, [`Node`] is what it
//!   holds); [`Arena::eval`] is the paper's `candidate |= phi`, [`Arena::display`] prints the
//!   paper's notation, [`Arena::stats`] gives the [`Stats`] (nodes, atoms, depth).
//! * [`Arena::constant`] (`true`, `false`), [`Arena::atom`], [`Arena::order`],
//!   [`Arena::atomic`], [`Arena::not`], [`Arena::and`] and [`Arena::or`] build formulas;
//!   [`Arena::export`] and [`Arena::import`] move one between arenas as a [`Formula`].
//! * Constraints about candidates rather than traces, for a CEGIS loop whose checker rejects a
//!   candidate for a reason no trace explains: [`Arena::excluding`] (every candidate but this
//!   one: the "next cheapest" constraint), [`Arena::undo_a_move`] (undo one of the moves
//!   that touch some items), [`Arena::not_all_of`] (not all of these transformations
//!   together) and [`Arena::outside_sections`] (these statements in no atomic section).
//! * [`ThreadId`]: a thread, as [`SpaceBuilder::thread`] numbers it and as traces name it.
//! * [`define_id!`] makes the `u32` newtype ids of every crate of the workspace.
//!
//! # Example
//! The space of the paper's Figure 7 (three threads, one block each, every pair of items free
//! to change order), the constraint `B <= C /\ n <= p` learned from a good trace, and two
//! candidates: swapping B and C violates it, moving A after C (the paper's repair) does not.
//! ```
//! use paces_constraint::{Arena, Candidate, ItemInfo, Loc, SpaceBuilder};
//!
//! let threads: [&[(&str, ItemInfo)]; 3] = [
//!     // 1: await(x==1)  2: await(y==1)  3: assert(z==1)
//!     &[("1", ItemInfo::AWAIT), ("2", ItemInfo::AWAIT), ("3", ItemInfo::SIMPLE)],
//!     // A: x:=1  B: y:=1  C: z:=1
//!     &[("A", ItemInfo::SIMPLE), ("B", ItemInfo::SIMPLE), ("C", ItemInfo::SIMPLE)],
//!     // n: await(z==1)  p: assert(y==1)
//!     &[("n", ItemInfo::AWAIT), ("p", ItemInfo::SIMPLE)],
//! ];
//! let mut builder = SpaceBuilder::new();
//! for items in threads {
//!     let block = builder.block(false);
//!     for &(name, info) in items {
//!         let loc = builder.loc(name)?;
//!         builder.item(block, loc, info)?;
//!     }
//! }
//! let space = builder.build()?;
//! let loc = |name: &str| space.loc(name).ok_or("unknown name");
//! let orders = |names: [&[&str]; 3]| -> Result<Vec<Vec<Loc>>, &str> {
//!     names.iter().map(|block| block.iter().map(|n| loc(n)).collect()).collect()
//! };
//!
//! // The constraint, checked against the space: B <= C /\ n <= p.
//! let mut arena = Arena::new();
//! let b_before_c = arena.atom(space.order(loc("B")?, loc("C")?)?);
//! let n_before_p = arena.atom(space.order(loc("n")?, loc("p")?)?);
//! let phi = arena.and([b_before_c, n_before_p]);
//! assert_eq!(arena.display(phi, &space, 80).to_string(), "B <= C /\\ n <= p");
//!
//! // Swapping B and C (thread 2 becomes A; C; B) violates it: that is the regression.
//! let swap_bc = Candidate::new(&space, orders([&["1", "2", "3"], &["A", "C", "B"], &["n", "p"]])?, &[])?;
//! assert!(!arena.eval(phi, &swap_bc));
//! // Moving A after C (thread 2 becomes B; C; A) satisfies it.
//! let a_last = Candidate::new(&space, orders([&["1", "2", "3"], &["B", "C", "A"], &["n", "p"]])?, &[])?;
//! assert!(arena.eval(phi, &a_last));
//! // Its theta sequence: two adjacent swaps, which are also its cost.
//! let theta: Vec<String> = a_last.transformations(&space).iter().map(|t| t.display(&space).to_string()).collect();
//! assert_eq!(theta, ["swap A <-> B", "swap A <-> C"]);
//! assert_eq!(a_last.cost(&space).inversions, 2);
//! assert_eq!(Candidate::apply(&space, &a_last.transformations(&space))?, a_last);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Atoms over locations that are not items of one block are rejected by [`Space::order`] and
//! [`Space::atomic`]; see [`Atom`] for what an unchecked one means.
//!
//! # Performance
//! Evaluation is two sequential passes over the ids up to the root (children always have
//! smaller ids than their parent): down to mark what the root reaches, up to compute it. It is
//! linear in the nodes the root reaches and never recurses. Building a node is one hash-table
//! lookup (hash-consing). `cargo bench -p paces-benches --bench constraint` measures both;
//! `docs/evaluation.md`, "Constraints", has the figures.
//!
//! # Errors
//! Every constructor validates its input and returns an [`Error`] whose [`ErrorKind`] says
//! what was wrong; nothing here panics on bad input. (Ids are the caller's to keep straight: a
//! [`NodeId`] another arena returned makes an [`Arena`] panic, like a slice index.)
//!
//! # Crate features
//! * `serde`: `Serialize` and `Deserialize` for the ids (numbers), [`Space`] (its locations by
//!   name, blocks with their items and fixed pairs, threads; read back through
//!   [`SpaceBuilder`], so every check applies), [`Atom`], [`Node`] and [`Formula`] (a
//!   constraint on its own, see [`Arena::export`]), and `Serialize` for [`Candidate`] (block
//!   orders and sections; read back with [`Candidate::new`]), [`Section`], [`Cost`],
//!   [`Transformation`] and [`Stats`]. The formats are described in the user guide.

mod candidate;
mod constraint;
mod error;
mod formula;
mod ids;
mod inversions;
#[cfg(feature = "serde")]
mod serde_impls;
mod shapes;
mod space;

pub use candidate::{Candidate, Cost, Move, Section, Transformation};
pub use constraint::{Arena, Atom, Node, Stats, FLATTEN_LIMIT};
pub use error::{Error, ErrorKind};
pub use formula::Formula;
pub use ids::{BlockId, Loc, NodeId, ThreadId};
pub use space::{ItemInfo, Space, SpaceBuilder, Waits};
