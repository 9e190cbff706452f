//! The repair loop (the paper's Algorithm 2): its configuration in `config`, the loop in `run`,
//! which judges programs with `judge`, learns with `learning` and looks for a cheaper repair in
//! `optimise` (the optimisation phase) and offers a change to the threads that run the same
//! code with `twins`; its report in `report`; and the exhaustive search for
//! a cheapest repair, the brute-force reference, in `exhaustive`.

mod config;
mod event;
mod exhaustive;
mod judge;
mod learning;
mod optimise;
mod removal;
mod report;
mod run;
mod twins;

pub use config::{Mode, Refusal, Repair};
pub use event::RepairEvent;
pub use exhaustive::candidate_count;
pub use report::{
    Acceptance, AdmittedDeadlock, DeadlockFate, DeadlockRule, Exhaustive, Fate, Iteration, IterationKind, KeptBecause,
    Optimality, Report, StopReason, TimeSplit,
};
