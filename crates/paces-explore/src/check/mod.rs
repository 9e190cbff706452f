//! The checker: a breadth-first search by levels (in parallel), with partial-order
//! reduction, bounds and counterexamples, preceded by a search without merging and a bug
//! hunt whose results it stitches together.
//!
//! The rooms: `config` (the bounds and switches), `result` (verdicts and counterexamples),
//! `stored` (what the searches share: stored states and witnesses), `distinct` (further
//! counterexamples of one assertion), `bfs` (the breadth-first search), `hunt` (the depth-first bug hunt) and `run` (which runs them);
//! this file declares them and passes their public items on.

mod bfs;
mod config;
mod distinct;
mod hunt;
mod result;
mod run;
mod stored;

pub use config::{Config, FailureKinds};
pub use result::{Bound, CheckResult, Counterexample, DeadlockId, LivelockId, ThreadStand, Verdict};
pub use run::check;
