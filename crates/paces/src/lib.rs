//! PACES: regression-free repair of concurrent programs.
//!
//! Give it a Cwhile program whose assertions fail only under preemptive scheduling; it
//! reorders independent statements and adds atomic sections until the model checker finds no
//! failure, learning from counterexamples *and* good traces so that a fix does not break what
//! worked (Positive And Counter-Examples in Synthesis).
//!
//! * [`Repair`]: the loop (the paper's Algorithm 2) with its configuration; [`Repair::run`]
//!   returns a [`Report`] saying why it stopped ([`StopReason`]) and what it did.
//! * [`Learner`]: the embedding API for tools with their own checker (from [`learn`], which
//!   such a tool can depend on alone): feed it good and bad `paces-trace` traces over a space,
//!   ask it for the next candidate.
//! * The crates it composes, re-exported: [`constraint`], [`trace`], [`generalize`],
//!   [`solver`], [`learn`], [`cwhile`], [`explore`].
//!
//! # Example
//! The paper's Figure 7: mixed mode moves `A` after `C` in one iteration.
//! ```
//! let source = "var x = 0, y = 0, z = 0;
//! thread t1 { 1: await(x == 1); 2: await(y == 1); 3: assert(z == 1); }
//! thread t2 { A: x := 1; B: y := 1; C: z := 1; }
//! thread t3 { n: await(z == 1); p: assert(y == 1); }";
//! let program = paces::cwhile::parse(source)?;
//! let report = paces::Repair::new().run(&program)?;
//! assert_eq!(report.stop, paces::StopReason::Repaired);
//! assert_eq!(report.iterations, 1);
//! let text = report.repaired_text().unwrap();
//! assert!(text.find("B:").unwrap() < text.find("C:").unwrap());
//! assert!(text.find("C:").unwrap() < text.find("A:").unwrap());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod repair;

pub use paces_constraint as constraint;
pub use paces_cwhile as cwhile;
pub use paces_explore as explore;
pub use paces_generalize as generalize;
pub use paces_learn as learn;
pub use paces_solver as solver;
pub use paces_trace as trace;

pub use error::{Error, ErrorKind};
pub use paces_explore::translate_trace;
pub use paces_learn::{Learner, LearnerConfig, Lesson, Proposal};
pub use repair::{
    candidate_count, Acceptance, AdmittedDeadlock, BoundHit, DeadlockFate, DeadlockRule, Exhaustive, FailureKind, Fate,
    Iteration, IterationKind, KeptBecause, LearnedTrace, Mode, NoRepair, Optimality, Origin, Problem, Proof, Refusal,
    Repair, RepairEvent, Report, StatesSplit, StopReason, TimeSplit, Unproved,
};
