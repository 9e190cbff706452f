//! Learning from good traces: the trace model, the trace-analysis graph G(pi) and
//! LearnGoodUnder, the paper's Algorithm 1 (PACES, "Regression-free Synthesis for
//! Concurrency", section 3.1).
//!
//! This crate knows nothing about any programming language: a model checker feeds it traces
//! of its own, built event by event.
//!
//! * [`Trace`], built and validated by [`TraceBuilder`]: [`Event`]s with their thread, their
//!   location, their scope (the chain of [`BlockInstance`] and item, see [`ScopeEntry`]), their
//!   [`EventKind`], the variables they read with the event read from ([`Read`]), and the
//!   values they write ([`Write`]). Bad input gives an [`Error`] with an [`ErrorKind`].
//!   [`Trace::check_against`] checks a trace against a [`paces_constraint::Space`]: its
//!   threads, locations, blocks and scopes. A property checked once every thread has
//!   finished is a final check ([`TraceBuilder::final_check`], of [`ThreadId::FINAL`]).
//! * [`lift`]: an intra-thread pair of events as a program constraint atom (the design's
//!   lifting rule, generalising the paper's "same execution of a basic block").
//! * [`TraceGraph`]: G(pi) with [`TraceNode`]s and the four [`TraceEdgeKind`]s, `interfere`, covers
//!   (existence and one witness path) and a DOT rendering in the paper's styles.
//! * [`learn_good`] with a [`LearnConfig`] (fallback on or off, [`Variant::Full`] or the
//!   original tool's [`Variant::Simplified`]): a regression-preventing constraint in a
//!   [`paces_constraint::Arena`], reported as [`Learned`].
//!
//! # Example
//! The paper's Example 2: `{1: x := 1; 2: y := 1} || {A: await(y == 1); B: assert(x == 1)}`
//! and its good trace `1 2 A B`. The assertion reads x from 1; the one cover of that edge is
//! `1 -> 2 -> A -> B`, so the constraint is `1 <= 2 /\ A <= B`.
//! ```
//! use paces_constraint::{Arena, BlockId, Candidate, ItemInfo, SpaceBuilder};
//! use paces_trace::{learn_good, BlockInstance, EventKind, LearnConfig, ScopeEntry, ThreadId, TraceBuilder, VarId};
//!
//! // The space: one block per thread, every pair free to change order.
//! let mut sb = SpaceBuilder::new();
//! let (b1, b2) = (sb.block(false), sb.block(false));
//! let l1 = sb.loc("1")?;
//! let l2 = sb.loc("2")?;
//! let la = sb.loc("A")?;
//! let lb = sb.loc("B")?;
//! sb.item(b1, l1, ItemInfo::SIMPLE)?;
//! sb.item(b1, l2, ItemInfo::SIMPLE)?;
//! sb.item(b2, la, ItemInfo::AWAIT)?;
//! sb.item(b2, lb, ItemInfo::SIMPLE)?;
//! let space = sb.build()?;
//!
//! // The trace 1 2 A B. Each thread runs in one instance of its block.
//! let (x, y) = (VarId::from_u32(0), VarId::from_u32(1));
//! let (t1, t2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
//! let at = |block: BlockId, item| vec![ScopeEntry { instance: BlockInstance { block, instance: 0 }, item }];
//! let mut tb = TraceBuilder::new();
//! tb.step(t1, l1, at(b1, l1)).write(x, 1).push()?;
//! tb.step(t1, l2, at(b1, l2)).write(y, 1).push()?;
//! tb.step(t2, la, at(b2, la)).kind(EventKind::Await).read(y).push()?;
//! tb.step(t2, lb, at(b2, lb)).kind(EventKind::Assert).read(x).push()?;
//! let trace = tb.finish();
//!
//! let mut arena = Arena::new();
//! let learned = learn_good(&trace, &mut arena, &LearnConfig::new());
//! assert!(!learned.fallback_used);
//! assert_eq!(arena.display(learned.constraint, &space, 80).to_string(), "1 <= 2 /\\ A <= B");
//! // Swapping A and B would let B read x before 1 writes it: the constraint forbids it.
//! let swap_ab = Candidate::new(&space, vec![vec![l1, l2], vec![lb, la]], &[])?;
//! assert!(!arena.eval(learned.constraint, &swap_ab));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Soundness and cost
//! * `tests/soundness.rs` checks Theorem 1 against a brute-force oracle of the paper's
//!   regression definition: 2,000 random small programs with random good traces, 79,352
//!   candidate programs (atomic sections included), 2,922 of them with a regression; the
//!   default configuration let none through. Its incompleteness, the share of
//!   regression-free candidates it rejects, is 11.4% (1.2% without the fallback, which is
//!   then unsound: 2,132 regressions let through).
//! * `tests/covers.rs` checks that the dynamic programme equals the paper's disjunction over
//!   all covers on random traces with nested blocks, loops and calls; `tests/size.rs` that the
//!   arena grows like n^2 on ladders whose covers grow like 2^n.
//! * Cost: G(pi)'s interference sets are quadratic in the trace's length by definition, and
//!   the dynamic programme over covers is polynomial; `cargo bench -p paces-benches --bench
//!   learn_good` measures it (`docs/evaluation.md`, "LearnGoodUnder", has the figures).
//!
//! `docs/learn.md` has the details, the tables and the known limits.
//!
//! # Errors
//! Only the [`TraceBuilder`] and [`Trace::check_against`] fail, with an [`Error`]; a
//! built [`Trace`] is valid on its own (whether it fits a space is the check's job), so
//! [`TraceGraph::new`] and [`learn_good`] always succeed.
//!
//! # Crate features
//! * `serde`: `Serialize` and `Deserialize` for [`Trace`] (read back through a
//!   [`TraceBuilder`], so every check applies), [`EventKind`] and the ids (numbers); also
//!   turns on `paces-constraint`'s `serde` feature. The format is described in the user
//!   guide.

mod check;
mod final_check;
mod graph;
mod learn;
mod model;
mod names;
mod scope;
#[cfg(feature = "serde")]
mod serde_impls;

pub use paces_constraint as constraint;

pub use graph::{TraceEdgeKind, TraceGraph, TraceNode};
pub use learn::{learn_good, LearnConfig, Learned, Variant};
pub use model::{
    lift, BlockInstance, Error, ErrorKind, Event, EventId, EventKind, Read, ScopeEntry, StepBuilder, Trace,
    TraceBuilder, VarId, Write,
};
pub use paces_constraint::ThreadId;
