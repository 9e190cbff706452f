//! The repair loop (the paper's Algorithm 2): its configuration in `config` (and `mode`), the
//! loop in `run`, which judges programs with `judge`, learns with `learning`, removes the
//! original's deadlocks in `removal`, looks for a cheaper repair in `optimise` (the
//! optimisation phase) and offers a change to the threads that run the same code with `twins`;
//! what it reports in `report` (data only) and tells an observer in `event`; and the
//! exhaustive search for a cheapest repair, the brute-force reference, in `exhaustive`.
//!
//! A run's shared state is its `context`: the configuration, the original program, its space
//! and the recorder of the report, owned by the loop (or the exhaustive search) and lent to
//! each step. The judge keeps only its own state (the facts of the original, in
//! `judge/original`, which deadlocks of the original it admits, the bound on a check's states)
//! and returns its verdicts as values (`judgement`); learning keeps the learner and returns
//! what it learned and proposed. Neither writes the report: only the recorder does, through
//! the context, where the loop and its phases record iterations and accepted programs and
//! every step adds its time and the states its checks stored (`Context::timed`,
//! `Context::add_states`). The files import one another without a cycle: `run` imports the
//! phases (`removal`, `optimise`, `exhaustive`), which import `judge` and `learning`; those
//! import `context` and `judgement`, and these the configuration, the events and the report.

mod config;
mod context;
mod event;
mod exhaustive;
mod judge;
mod judgement;
mod learning;
mod mode;
mod optimise;
mod races;
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
    IterationKind, KeptBecause, LearnedTrace, NoRepair, Optimality, Origin, Problem, Proof, Report, StatesSplit,
    StopReason, TimeSplit, Unproved,
};
