//! The PACES learner, for any CEGIS loop: give it the good and bad traces your own model
//! checker finds, as [`paces_trace::Trace`]s over a [`paces_constraint::Space`], and it
//! proposes the cheapest program of the space that keeps every good trace's behaviour
//! (regression-preventing constraints, LearnGoodUnder) and removes every bad trace's pattern
//! (error-eliminating constraints). It needs no Cwhile and no checker of ours: this crate
//! depends only on the vocabulary, the trace model, the generalisation and the solver.
//!
//! * [`Learner`]: learn from traces ([`Learner::learn_good`], [`Learner::learn_bad`]), then
//!   ask for the next candidate ([`Learner::propose`], a [`Proposal`]).
//! * [`LearnerConfig`]: K, relaxing on conflict, the LearnGoodUnder variant and fallback, the
//!   SAT backend.
//! * The crates it speaks, re-exported: [`constraint`], [`trace`], [`generalize`], [`solver`].
//!
//! A bad trace should run on past its failure, or list each thread's next steps as
//! [pending](paces_trace::Trace::pending) steps: a fix is an ordering of the failure before a
//! write that comes after it, and a trace that stops at its failure shows no such write.
//! `examples/custom_cegis.rs` drives the learner with hand-made traces of the paper's
//! Example 4; `examples/json_cegis.rs` runs a whole loop against a checker in another process
//! that speaks JSON.
//!
//! Every constraint the learner holds is a [`Conjunct`]: the trace it came from and its
//! [`ConjunctKind`] (covered edges, a fallback, fixes with their K, ...), under the name its
//! explanations use; an unsatisfiable [`Proposal`] lists those in conflict.
//!
//! # Crate features
//! * `serde`: serde's traits on [`Proposal`], [`Conjunct`] and what the lower crates define
//!   (spaces, traces, candidates, constraints: their own `serde` features), so that a tool in
//!   another language can exchange them as JSON. The formats are in the user guide.

mod error;
mod learner;

pub use paces_constraint as constraint;
pub use paces_generalize as generalize;
pub use paces_solver as solver;
pub use paces_trace as trace;

pub use error::{Error, ErrorKind};
pub use learner::{Conjunct, ConjunctKind, Learner, LearnerConfig, Lesson, Proposal, Role};
