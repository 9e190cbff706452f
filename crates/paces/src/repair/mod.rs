//! The repair loop (the paper's Algorithm 2): its configuration in `config` (and `mode`), the
//! loop in `run`, which judges programs with `judge`, learns with `learning`, removes the
//! original's deadlocks in `removal`, looks for a cheaper repair in `optimise` (the
//! optimisation phase) and offers a change to the threads that run the same code with `twins`;
//! what it reports in `report` (data only) and tells an observer in `event`; and the
//! exhaustive search for a cheapest repair, the brute-force reference, in `exhaustive`.

mod config;
mod event;
mod exhaustive;
mod judge;
mod learning;
mod mode;
mod optimise;
mod removal;
mod report;
mod run;
mod twins;

pub use config::{Refusal, Repair};
pub use event::RepairEvent;
pub use exhaustive::candidate_count;
pub use mode::Mode;
pub use report::{
    Acceptance, AdmittedDeadlock, BoundHit, DeadlockFate, DeadlockRule, Exhaustive, FailureKind, Fate, Iteration,
    IterationKind, KeptBecause, LearnedTrace, NoRepair, Optimality, Problem, Proof, Report, StopReason, TimeSplit,
    Unproved,
};
