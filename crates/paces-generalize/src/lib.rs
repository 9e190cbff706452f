//! From a bad trace to the constraint that removes it and every trace like it: the trace is
//! generalised into the partial order of the orderings its failure needs, and every cycle of
//! its trace elimination graph is a fix.
//!
//! This is the bad-trace half of PACES (section 3.2 of the CAV 2014 paper, which reuses the
//! CAV 2013 algorithm). It works on [`paces_trace`] traces and [`paces_constraint`] spaces
//! only, so any checker that produces such traces can use it.
//!
//! # Overview
//! * [`PartialOrder::from_bad_trace`] keeps the events the failure depends on (and the later
//!   writes its reads must precede, executed or [pending](paces_trace::Trace::pending), and
//!   the conditions that wait for what the failing thread does after its failure), ordered by
//!   program order and by the trace order of conflicting cross-thread pairs, and marks the
//!   orderings off the failure's data flow, which no fix uses; the rules and the soundness
//!   argument are on [`PartialOrder`]. [`PartialOrder::to_dot`] draws it, one column per thread.
//! * [`eliminate`] builds the *trace elimination graph* over the space and returns an
//!   [`Elimination`]: every [`Fix`] (an elimination cycle, its atoms, constraint and weight),
//!   cheapest first, and the *error-eliminating constraint*, the disjunction of the fixes'
//!   constraints in the [`Arena`](paces_constraint::Arena). [`Elimination::fix_dot`] draws a
//!   fix's cycle. [`EliminateConfig`] holds the settings (K, bounds).
//! * The trace must run on past its failure: the writes the failure must precede come after
//!   it. A model checker's counterexample that ends at the failure is marked
//!   [`stops_short`](paces_trace::Trace::stops_short) and [`eliminate`] refuses it
//!   ([`ErrorKind::StopsShort`]) rather than return no fix; with `paces-explore`,
//!   `Counterexample::complete` is the step between the check and [`eliminate`], and
//!   `Counterexample::eliminate` does both in one call.
//! * The vocabulary crates its signatures use are re-exported: [`constraint`], [`trace`].
//!
//! # The trace elimination graph
//! One node per event of the partial order. Edges, with their [`EdgeKind`] and weight (R and
//! A are below):
//! 1. **cross-thread ordering** of the partial order: weight 1, no constraint (not those of
//!    context events, nor those off the failure's data flow: [`PartialOrder::is_context_edge`],
//!    [`PartialOrder::is_off_flow`]);
//! 2. **forced program order**, from an event to a later one of its thread that every
//!    candidate keeps after it (different block instances, one item, or items the space fixes
//!    in order, lifted with [`paces_trace::lift`]): weight the span, no constraint;
//! 3. **atomic section**, backwards from an event to an earlier one of its thread, when some
//!    legal atomic section holds both items (the block is not closed; waits may stand anywhere,
//!    a section runs all or nothing): constraint `[a; b]`, weight A times the simple statements
//!    of the items the section spans; two events of one compound item (a guard and a step of
//!    its branch) are also held by the item alone, `[item; item]`, when it is not atomic by
//!    itself;
//! 4. **reorder**, backwards between items that may change order: constraint `b <= a`
//!    ("put this one first"), weight R times the item pairs the move inverts at least (one
//!    plus the items between); and **keep**, forwards between items that may change order:
//!    constraint `a <= b`, weight the span (the program need not change).
//!
//! Two events of one thread that lift to no atom (they lie in one item, or in different
//! iterations or calls of a block) are joined forwards by a forced edge: no reorder can
//! separate them. Backwards, a section around the deepest item that holds both (the guard of
//! an `if` and a step of its branch: check-then-act) keeps them together; sections hold two
//! items at least, so it is offered with each neighbour of that item in the original order,
//! `[prev; item]` and `[item; next]` (an item alone in its block gets none).
//!
//! For a deadlock, the blocked steps stand at the end of their threads: each thread's events
//! lead to its blocked step by forced edges, and the blocked steps are joined to each other by
//! weight-0 edges (they all hold at once, at the end).
//!
//! A deadlock is eliminated when the orderings that lead into it cannot all hold; a blocked
//! await could also be freed by a write the trace never reached (a step after another
//! thread's blocked await), but the trace does not show such writes, so fixes of that kind
//! are not found from it.
//!
//! R is larger than the weight of any cycle's no-constraint edges and A > R * n^2 (n the
//! number of nodes), so a cycle with an atomic section is cheaper than one with reorders only
//! when no reordering works.
//!
//! # Fixes
//! A **fix** is a cycle holding a cross-thread ordering (so events of two threads) with at
//! most K constraint edges (K = 2 by default). Its constraint is the conjunction of its
//! atoms: a candidate satisfying it has no trace with the partial order's cross-thread
//! orderings, because every edge of the cycle then says "not later than" (program order in
//! the candidate, or one atomic section: the same point of the trace) and the cross-thread
//! ordering says "strictly earlier". Fixes are deduplicated by their atoms and kept minimal
//! (no fix's atoms contain another's; checked for fixes of at most 12 atoms, so for every
//! fix when K <= 12); the error-eliminating constraint is their
//! disjunction, and `false` when there is none: the caller reports "no repair in this space".
//!
//! The search: reachability over the no-constraint edges is precomputed as bitsets over the
//! *interesting* events (the ends of cross-thread orderings and the blocked steps), once
//! plain, once over paths holding a cross-thread ordering, and once transposed; constraint
//! edges join interesting events only (a constraint edge ending inside a chain of forced
//! program order is implied by the one ending where the chain meets another thread). The
//! backward constraint edges are taken cheapest first; each closes a cycle alone (one bitset
//! test) or starts a depth-first search for at most K - 1 further constraint edges: lighter
//! backward edges that do not close a cycle alone, and kept orders in order of their span.
//! A cycle is found from its heaviest backward edge only, and since every cycle weighs at
//! least that edge, the search stops as soon as the next backward edge is heavier than the
//! [`EliminateConfig::max_fixes`] cheapest cycles found (then [`Elimination::complete`] is
//! false). [`EliminateConfig::max_work`] bounds the search in any case.
//!
//! When no linearisation of the partial order is preemption-free (threads switch only before
//! an await, or at a thread's end or blocked step), fixes that act across preemption points
//! are left out (the paper's FixBad (c)): no reorder moves a wait (an item that opens with an
//! await; a call or branch holding one deeper inside may move, as in the original tool), and
//! (always, by the section roles) no atomic section holds a preemption point anywhere but
//! first.
//!
//! # Example
//! The paper's Example 4: thread 1 is `A: x:=1; B: z:=1; C: y:=1`, thread 2 is
//! `1: await(x==1); 2: assert(y==1)`, and the bad trace is `A;B;1;2;C`. The bug needs `A`
//! before `1` and `2` before `C`; the cycle `C -> A -> 1 -> 2 -> C` gives the fix
//! `C <= A /\ 1 <= 2`: move `C` ahead of `A`.
//! ```
//! use paces_constraint::{Arena, Atom, BlockId, ItemInfo, SpaceBuilder};
//! use paces_generalize::{eliminate, EliminateConfig};
//! use paces_trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, TraceBuilder, VarId};
//!
//! // The space: one block per thread; the statements of each thread commute.
//! let mut sb = SpaceBuilder::new();
//! let (t1, t2) = (sb.block(false), sb.block(false));
//! let [a, b, c, one, two] = ["A", "B", "C", "1", "2"].map(|n| sb.loc(n).unwrap());
//! for l in [a, b, c] {
//!     sb.item(t1, l, ItemInfo::SIMPLE)?;
//! }
//! sb.item(t2, one, ItemInfo::AWAIT)?;
//! sb.item(t2, two, ItemInfo::SIMPLE)?;
//! let space = sb.build()?;
//!
//! // The bad trace A;B;1;2;C.
//! let (x, y, z) = (VarId::from_u32(0), VarId::from_u32(1), VarId::from_u32(2));
//! let at = |block: BlockId, item| vec![ScopeEntry { instance: BlockInstance { block, instance: 0 }, item }];
//! let (th1, th2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
//! let mut tb = TraceBuilder::new();
//! tb.step(th1, a, at(t1, a)).write(x, 1).push()?;
//! tb.step(th1, b, at(t1, b)).write(z, 1).push()?;
//! tb.step(th2, one, at(t2, one)).kind(EventKind::Await).read(x).push()?;
//! tb.step(th2, two, at(t2, two)).kind(EventKind::Assert).read(y).failed(true).push()?;
//! tb.step(th1, c, at(t1, c)).write(y, 1).push()?;
//! let trace = tb.finish();
//!
//! let mut arena = Arena::new();
//! let elim = eliminate(&trace, &space, &mut arena, &EliminateConfig::new())?;
//! let best = &elim.fixes[0];
//! assert_eq!(best.atoms, vec![Atom::Order(c, a), Atom::Order(one, two)]);
//! assert_eq!(arena.display(best.constraint, &space, 80).to_string(), "C <= A /\\ 1 <= 2");
//! assert!(!elim.preemption_free_possible);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors
//! [`Error`] with an [`ErrorKind`]: a trace that is not bad, or a trace whose events do not
//! match the space. Nothing here panics on bad input, and no search recurses.
//!
//! # Performance
//! Generalising is linear in the trace's events for each closure. The elimination search
//! keeps reachability bitsets over the interesting events, one per interesting event and per
//! event where paths branch (the rest share their successor's), their transpose, and per thread
//! its forced order as one number per event and chain of a chain cover (a thread of statements
//! that keep their order is one chain), or a bitset of forced successors per event when that
//! takes less; the cheapest-first search with the [`EliminateConfig::max_fixes`] cap keeps its
//! time near linear in the fixes returned. `cargo bench -p paces-benches --bench eliminate`
//! measures it on synthetic bad traces of 100 to 10 000 events; `docs/evaluation.md`, "Trace
//! elimination", has the figures.

mod eliminate;
mod error;
mod partial_order;

pub use paces_constraint as constraint;
pub use paces_trace as trace;

pub use eliminate::{describe, eliminate, CycleEdge, EdgeKind, EliminateConfig, Elimination, Fix};
pub use error::{Error, ErrorKind};
pub use partial_order::{Failure, PartialOrder};
