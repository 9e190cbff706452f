//! The vocabulary every PACES crate speaks, and the constraint algebra over it.
//!
//! A concurrent program is repaired by reordering adjacent, independent statements inside a
//! block and by adding atomic sections. This crate names the pieces:
//!
//! * [`Loc`]: a program location (a statement); [`BlockId`]: a block (statements between one
//!   pair of braces) whose direct members are its *items*.
//! * [`Space`] (built with [`SpaceBuilder`]): every program reachable by the transformations:
//!   per block its items in original order, the pairs that keep their order, the preemption
//!   points ([`SectionRole`]) and whether the block may receive atomic sections.
//! * [`Candidate`]: one program of the space, with its [`Cost`] and the [`Transformation`]s
//!   (the paper's theta sequence) that lead to it from the original.
//! * [`Atom`]s `Order(a, b)` (`a <= b`) and `Atomic(a, b)` (`[a; b]`), and an [`Arena`] of
//!   hash-consed formulas over them ([`NodeId`] names one); `arena.eval(c, &candidate)` is the
//!   paper's `candidate |= c`.
//!
//! # Example
//! The space of the paper's Figure 7, the constraint `B <= C /\ n <= p` (learned from a good
//! trace), and two candidates: swapping B and C violates it, moving A to the end does not.
//! ```
//! use paces_constraint::{Arena, Candidate, ItemInfo, SpaceBuilder};
//!
//! let mut b = SpaceBuilder::new();
//! let mut thread = |b: &mut SpaceBuilder, names: &[&str], info: ItemInfo| {
//!     let block = b.block(false);
//!     names.iter().map(|n| {
//!         let loc = b.loc(n)?;
//!         b.item(block, loc, info)?;
//!         Ok(loc)
//!     }).collect::<Result<Vec<_>, paces_constraint::Error>>()
//! };
//! let t1 = thread(&mut b, &["1", "2"], ItemInfo::AWAIT)?;
//! let assert3 = b.loc("3")?;
//! b.item(paces_constraint::BlockId::from_u32(0), assert3, ItemInfo::SIMPLE)?;
//! let t2 = thread(&mut b, &["A", "B", "C"], ItemInfo::SIMPLE)?;
//! let n = b.loc("n")?;
//! let p = b.loc("p")?;
//! let t3 = b.block(false);
//! b.item(t3, n, ItemInfo::AWAIT)?;
//! b.item(t3, p, ItemInfo::SIMPLE)?;
//! let space = b.build()?;
//! let (a, bb, c) = (t2[0], t2[1], t2[2]);
//! assert_eq!(t1.len(), 2);
//!
//! let mut arena = Arena::new();
//! let b_before_c = arena.order(bb, c);
//! let n_before_p = arena.order(n, p);
//! let phi = arena.and([b_before_c, n_before_p]);
//! assert_eq!(arena.display(phi, &space, 80).to_string(), "B <= C /\\ n <= p");
//!
//! // Swap B and C in thread 2: violates the constraint.
//! let swap_bc = Candidate::new(&space, vec![
//!     space.items(space.block_of(t1[0]).unwrap()).to_vec(), vec![a, c, bb], vec![n, p],
//! ], &[])?;
//! assert!(!arena.eval(phi, &swap_bc));
//! // Move A after C: satisfies it (the paper's repair).
//! let a_last = Candidate::new(&space, vec![
//!     space.items(space.block_of(t1[0]).unwrap()).to_vec(), vec![bb, c, a], vec![n, p],
//! ], &[])?;
//! assert!(arena.eval(phi, &a_last));
//! assert_eq!(a_last.cost(&space).inversions, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors
//! Every constructor validates its input and returns an [`Error`] whose [`ErrorKind`] says
//! what was wrong; nothing here panics on bad input.

mod candidate;
mod constraint;
mod error;
mod ids;
mod space;

pub use candidate::{Candidate, Cost, Section, Transformation};
pub use constraint::{Arena, Atom, Node, Stats, FLATTEN_LIMIT};
pub use error::{Error, ErrorKind};
pub use ids::{BlockId, Loc, NodeId};
pub use space::{ItemInfo, SectionRole, Space, SpaceBuilder};
