//! An explicit-state model checker for Cwhile that finds bad traces, deadlocks and atomic
//! livelocks, and produces the good traces PACES learns from.
//!
//! # Overview
//! * [`check`] explores every reachable state ([`Config`] sets the bounds) and returns a
//!   [`CheckResult`] with a [`Verdict`]: correct, a bad trace, a deadlock
//!   ([`DeadlockId`]), an atomic livelock ([`LivelockId`]) or a reached [`Bound`].
//!   Counterexamples ([`Counterexample`]) come both as a readable [`Schedule`] and as a
//!   validated [`paces_trace::Trace`].
//! * [`Counterexample::eliminate`] turns a counterexample into its fixes in one call: it runs
//!   the trace on past its failure ([`Counterexample::complete`], the step between [`check`]
//!   and [`generalize::eliminate`], which refuses a checked bad trace that stops at its
//!   failure ([`paces_trace::Trace::stops_short`]) rather than find no fix in it) and
//!   generalises it (the crate's example `check_to_fixes` goes from a check to the fixes).
//! * [`replay`] rebuilds the trace of a schedule, or says where it stops being a trace.
//! * [`Rerun`] carries runs of a program over to the same statements in another order.
//! * [`translate_trace`] turns a trace of a candidate program into one of its original.
//! * [`good_traces`] produces the good traces mixed mode learns from (which ones, and why:
//!   `docs/explore.md`, "Good traces for learning"); [`search_good_traces`] also says
//!   which [`GoodBound`]s cut the search short.
//! * [`sequential_final_states`] gives the final global states of the complete sequential
//!   traces (to check that a repair kept the sequential meaning).
//! * [`Config::on_progress`] reports a running check's [`Progress`] (states, transitions,
//!   depth, time, memory) to a callback, a few times a second.
//! * [`var_id`] and [`var_name`] map program variables to trace variables and back.
//! * The vocabulary crates its signatures use are re-exported: [`constraint`], [`cwhile`],
//!   [`trace`].
//!
//! # Semantics
//! The traces of `docs/language.md`, made precise. Each simple statement and each step a sugar
//! adds is one atomic step. An `atomic` block (also `lock`, `down` and a section added by a
//! repair) is all or nothing: one step of its thread, taken only along a path through it that
//! reaches its end with every `await` and `assume` on the way true; a failure inside it counts
//! only on such a path. When no path gets through, the thread waits before the block if some
//! path stopped at a false `await` or `assume` (inside a block the two are alike), and is cut
//! when every path was cut by the loop bound. An `await` whose condition is false is a disabled
//! step. An `assume` outside atomic blocks whose condition is false is also a disabled step
//! (the path is not a trace beyond that point); a state where no thread can step but some
//! thread could only go on through such an `assume` (or past the loop bound) is therefore
//! *cut*, not deadlocked. A failed assertion or a division (or remainder) by zero makes the
//! trace bad and execution goes on (a division by zero yields 0). `&&` and `||` evaluate their
//! right operand only when needed. The choice of `if (*)`/`while (*)` is made with the first
//! step of the branch taken; a thread is at its end when it can reach its end without a step.
//! A deadlock is a state where no thread can step, not every thread is at its end and no
//! thread is cut. An atomic livelock is a cycle of steps inside one execution of
//! an atomic block. Integers are 64-bit and wrap.
//!
//! # How it explores
//! A state holds every thread's control point, the globals and every thread's locals (and,
//! under [`Config::unwind`], loop counters); a thread never rests inside an atomic block: the
//! step that enters one starts a transition that runs the block to its end, so no state needs
//! an atomic owner. A step whose thread's only next steps touch nothing but the thread's
//! private variables (its locals and globals no other thread uses) carries those steps along
//! (they commute with everything and leave no choice), and private variables that can never
//! be read again are reset to 0. States are stored compactly (varint-encoded) in one arena
//! with a hash table of indices.
//! Exploration is breadth first by levels; each level is expanded in parallel (rayon) in
//! fixed-size batches that are merged in order, so results do not depend on the number of
//! worker threads.
//!
//! ## Partial-order reduction
//! At a state, the checker keeps only the steps of a *persistent set* `S` of threads: grown
//! from one thread that can step by the rules of conflict over the threads' *gated futures*
//! (what a thread can still touch without crossing a closed `await`), tried cheapest first,
//! kept only when (the cycle proviso of breadth-first search) one of its successors is new;
//! otherwise the state is expanded fully. So that no thread waits forever behind one that runs on without repeating
//! a state, a row of reduced expansions on a path is cut short: after a fixed number of them,
//! the state the row started from is expanded fully. Every failing step, deadlock and
//! livelock stays reachable; the argument (the rules, why the sets are persistent, the
//! provisos and fairness in depth) is in `docs/explore.md`,
//! "Partial-order reduction, and why it is sound".
//!
//! The Promela export `paces_cwhile::to_promela` makes a choice with the first step of the
//! branch taken, as the checker does, so SPIN's invalid end states on it are the checker's
//! deadlocks; the differential tests compare them by name (`docs/explore.md`, "Comparing
//! with SPIN").
//!
//! # Example
//! ```
//! use paces_explore::{check, replay, Config, Verdict};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let program = paces_cwhile::parse(
//!     "var x = 0, y = 0, z = 0;
//!      thread t1 { 1: await(x == 1); 2: await(y == 1); 3: assert(z == 1); }
//!      thread t2 { A: x := 1; B: y := 1; C: z := 1; }
//!      thread t3 { n: await(z == 1); p: assert(y == 1); }",
//! )?;
//! let result = check(&program, &Config::new())?;
//! let Verdict::Bad(cex) = &result.verdict else { panic!("expected a bad trace") };
//! // The schedule replays to the same bad trace.
//! assert_eq!(replay(&program, &cex.schedule)?, cex.trace);
//! # Ok(()) }
//! ```
//!
//! # Errors
//! Programs that cannot be explored (recursion, malformed IR, limits) give an [`Error`] whose
//! [`ErrorKind`] says why.

mod bits;
mod check;
mod compile;
mod complete;
mod engine;
mod error;
mod free;
mod generalise;
mod good;
mod progress;
mod replay;
mod rerun;
mod seq;
mod store;
mod translate;

pub use paces_constraint as constraint;
pub use paces_cwhile as cwhile;
pub use paces_generalize as generalize;
pub use paces_trace as trace;

pub use check::{
    check, Bound, CheckResult, Config, Counterexample, DeadlockId, FailureKinds, LivelockId, ThreadStand, Verdict,
};
pub use complete::complete_counterexample;
pub use error::{Error, ErrorKind, ReplayStop};
pub use free::freely_bad;
pub use good::{good_traces, search_good_traces, GoodBound, GoodConfig, GoodTraces};
pub use progress::Progress;
pub use replay::{replay, Schedule, ScheduleStep};
pub use rerun::Rerun;
pub use seq::{sequential_deadlock, sequential_final_states, var_id, var_name, SequentialDeadlock};
pub use translate::translate_trace;
