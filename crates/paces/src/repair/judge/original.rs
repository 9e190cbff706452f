//! The facts of the original program that the judge needs, each noted when a check of the
//! original (or of a good trace of it) shows it. The judge makes the checks; this file only
//! keeps what they found and answers from it.

use std::collections::BTreeSet;

use paces_cwhile::ir::Program;
use paces_explore::{CheckResult, DeadlockId, LivelockId};
use paces_trace::{EventKind, Trace};

/// Facts of the original program that only some candidates need, computed once.
#[derive(Default)]
pub(super) struct Original {
    /// Every deadlock and livelock, from one full exploration.
    pub(super) sets: Option<(BTreeSet<DeadlockId>, BTreeSet<LivelockId>)>,
    /// Deadlocks the original is known to reach (from searches for one of them, and all of
    /// [`Original::sets`] once known).
    pub(super) reached: BTreeSet<DeadlockId>,
    /// Every deadlock of the original, as the last search that went through its whole space
    /// found them; `None` until one did.
    pub(super) all_deadlocks: Option<BTreeSet<DeadlockId>>,
    /// The blocked threads of every deadlock reachable after an assertion failed.
    pub(super) after_failure: Option<BTreeSet<BTreeSet<String>>>,
    pub(super) sequential: Option<BTreeSet<Vec<i64>>>,
    /// Every outcome of the original (from one full exploration).
    pub(super) outcomes: Option<BTreeSet<Vec<i64>>>,
    /// Outcomes of the original seen at the end of single runs of it, or met by a search.
    reached_outcomes: BTreeSet<Vec<i64>>,
    /// Whether a search of the original for outcomes was made.
    pub(super) searched_outcomes: bool,
    /// The assertions some check of the original saw pass, and those it saw fail, and
    /// whether that is all of them (a check went through the whole space).
    passed: BTreeSet<String>,
    failed: BTreeSet<String>,
    pub(super) checked_all: bool,
    /// Whether the search for the original's further counterexamples found some (the
    /// judge's `more_failures`): only then are candidates searched too.
    pub(super) several: bool,
}

impl Original {
    /// Notes the assertions a good trace of the original passes (every assertion step of a
    /// trace with no failed step passed on that run).
    pub(super) fn saw_good(&mut self, program: &Program, trace: &Trace) {
        if trace.is_bad() {
            return;
        }
        let asserts = trace.events().iter().filter(|e| e.kind == EventKind::Assert);
        self.passed.extend(asserts.filter_map(|e| program.loc_names.get(e.loc.index()).cloned()));
    }

    /// Notes what a check of the original saw pass and fail.
    pub(super) fn saw(&mut self, result: &CheckResult) {
        self.passed.extend(result.passed_assertions.iter().cloned());
        self.failed.extend(result.failures.keys().cloned());
    }

    /// Notes the deadlocks and livelocks of `full`, a check that went through the whole space.
    pub(super) fn saw_sets(&mut self, full: &CheckResult) {
        let deadlocks: BTreeSet<DeadlockId> = full.deadlocks.keys().cloned().collect();
        let livelocks: BTreeSet<LivelockId> = full.livelocks.keys().cloned().collect();
        self.saw_all_deadlocks(deadlocks.clone());
        self.sets = Some((deadlocks, livelocks));
    }

    /// Notes `all`, every deadlock of the original.
    pub(super) fn saw_all_deadlocks(&mut self, all: BTreeSet<DeadlockId>) {
        self.reached.extend(all.iter().cloned());
        self.all_deadlocks = Some(all);
    }

    /// Whether livelock `id` is one the original does not have (every livelock is, while
    /// the original's are unknown).
    pub(super) fn livelock_is_new(&self, id: &LivelockId) -> bool {
        !self.sets.as_ref().is_some_and(|s| s.1.contains(id))
    }

    /// The assertions of `unpassed` (labels, each with whether it lies at the top level of
    /// its thread's body) that the original is known to check: one that passes on some run
    /// of it, or one at the top level that it reaches at all (see the judge's `unreached`).
    pub(super) fn checked(&self, unpassed: &[(&str, bool)]) -> Vec<String> {
        let checked =
            |&&(label, top): &&(&str, bool)| self.passed.contains(label) || top && self.failed.contains(label);
        unpassed.iter().filter(checked).map(|(label, _)| (*label).to_owned()).collect()
    }

    /// Whether the original reaches a deadlock that blocks `threads` after an assertion
    /// failed (as far as the search for them went).
    pub(super) fn blocks_after_failure(&self, threads: &BTreeSet<String>) -> bool {
        self.after_failure.as_ref().is_some_and(|sets| sets.contains(threads))
    }

    /// Whether `outcome` is one the original is not known to reach: not the final state of
    /// one of its sequential runs (each a run of it to every thread's end, so an outcome),
    /// nor the end of another run of it seen, nor one of its outcomes (when they are known).
    pub(super) fn outcome_is_new(&self, outcome: &[i64]) -> bool {
        let sequential = self.sequential.as_ref().is_some_and(|finals| finals.contains(outcome));
        let reached = self.reached_outcomes.contains(outcome);
        !sequential && !reached && !self.outcomes.as_ref().is_some_and(|known| known.contains(outcome))
    }

    /// Notes `outcome`, the globals' values at the end of a run of the original to every
    /// thread's end.
    pub(super) fn reached_outcome(&mut self, outcome: Vec<i64>) {
        self.reached_outcomes.insert(outcome);
    }
}
