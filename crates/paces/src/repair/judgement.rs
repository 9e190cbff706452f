//! What the judge returns: the judgement of the original program and of a candidate, and a
//! rejection with what the loop learns from it. Values only; the loop records them.

use std::collections::BTreeMap;

use paces_constraint::{Candidate, Transformation};
use paces_cwhile::ir::Program;
use paces_explore::{Counterexample, DeadlockId, LivelockId};

use super::report::{Acceptance, Accepted, Iteration, Origin, Problem, StopReason};

/// What a candidate (or the original) was rejected for.
#[derive(Clone)]
pub(super) enum Rejection {
    /// An assertion fails or a deadlock is reachable (the original's too, unless they are
    /// kept): a trace to learn from.
    Trace { problem: Problem, cex: Counterexample },
    /// A deadlock the original reaches too, while the removal phase looks for a program
    /// without it (see `removal.rs`): its trace to learn from.
    OriginalDeadlock { id: DeadlockId, cex: Counterexample },
    /// A new atomic livelock.
    Livelock(LivelockId),
    /// An outcome that no run of the original reaches (the globals' values, by name).
    Outcome(Vec<(String, i64)>),
    /// The sequential final states changed.
    Sequential,
    /// Assertions the original checks are reached no more (their labels; see the judge's
    /// `unreached`).
    Unreached(Vec<String>),
    /// The input's language refuses the candidate: the reasons
    /// ([`Repair::refuse_when`](super::Repair::refuse_when)).
    Refused(Vec<String>),
}

impl Rejection {
    /// The problem of the rejected program.
    pub(super) fn problem(&self) -> Problem {
        match self {
            Rejection::Trace { problem, .. } => problem.clone(),
            Rejection::OriginalDeadlock { id, .. } => Problem::OriginalDeadlock(id.clone()),
            Rejection::Livelock(id) => Problem::NewLivelock(id.clone()),
            Rejection::Outcome(values) => Problem::NewOutcome(values.clone()),
            Rejection::Sequential => Problem::SequentialStates,
            Rejection::Unreached(labels) => Problem::Unreached(labels.clone()),
            Rejection::Refused(reasons) => Problem::Refused(reasons.clone()),
        }
    }

    /// The record of an iteration that learns from this rejection, before it learned.
    pub(super) fn iteration(&self) -> Iteration {
        Iteration::new(self.problem())
    }
}

/// A rejected program: the original (no candidate) or a candidate applied.
pub(super) struct Rejected {
    pub(super) why: Rejection,
    pub(super) program: Program,
    pub(super) candidate: Option<Candidate>,
}

/// What a candidate the judge accepted passed: its acceptance, and its deadlocks (each one
/// the original reaches) with their traces.
pub(super) struct Passed {
    pub(super) acceptance: Acceptance,
    pub(super) deadlocks: BTreeMap<DeadlockId, Counterexample>,
}

impl Passed {
    /// The accepted program to record: `program`, the `candidate` applied, made by
    /// `transformations`, found by the step `origin`.
    pub(super) fn accepted(
        self,
        program: Program,
        candidate: Candidate,
        transformations: Vec<Transformation>,
        origin: Origin,
    ) -> Accepted {
        let Passed { acceptance, deadlocks } = self;
        Accepted { program, candidate, transformations, acceptance: Some(acceptance), deadlocks, origin }
    }
}

/// The judgement of a candidate.
pub(super) enum Judgement {
    /// Accepted; with the counterexample of the first deadlock admitted only because the
    /// original reaches the same blocked threads after a failure, if any.
    Accepted(Passed, Option<(DeadlockId, Counterexample)>),
    Rejected(Rejection),
    Stop(StopReason),
}

/// The judgement of the original program, with the states its first check stored.
pub(super) struct OriginalJudgement {
    pub(super) states: usize,
    pub(super) verdict: OriginalVerdict,
}

/// What the first check of the original found.
pub(super) enum OriginalVerdict {
    /// A bad trace: its rejection, the first to learn from.
    Buggy(Rejection),
    /// No failure in the whole space (`unwind_reached`: the check cut some path at the
    /// checker's loop bound); its deadlocks, if any, with their traces (bugs for the removal
    /// phase, unless they are kept).
    Correct { unwind_reached: bool, deadlocks: BTreeMap<DeadlockId, Counterexample> },
    /// Why the run stops at once (a bound of the checker cut the check short).
    Stop(StopReason),
}
