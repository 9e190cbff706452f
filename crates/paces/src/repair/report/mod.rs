//! What a run of the repair loop reports ([`Report`], data only), and the recorder that notes
//! each fact when the loop computes it.

mod acceptance;
mod iteration;
mod origin;
mod states;
mod stop;
mod time;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use paces_constraint::{Candidate, Space, Stats, Transformation};
use paces_cwhile::ir::Program;
use paces_explore::{Counterexample, DeadlockId, GoodBound};
use paces_learn::Learner;
use paces_trace::Trace;

use super::mode::Mode;

pub use acceptance::{Acceptance, AdmittedDeadlock, DeadlockFate, DeadlockRule, Fate, KeptBecause};
pub use iteration::{FailureKind, Iteration, IterationKind, LearnedTrace, Problem};
pub use origin::Origin;
pub use states::StatesSplit;
pub use stop::{BoundHit, NoRepair, Optimality, Proof, StopReason, Unproved};
pub use time::TimeSplit;
pub(super) use time::{apply_time, complete_time, explore_time, good_time, learn_time, list_time, solve_time};

/// What the exhaustive search ([`Repair::optimum`](super::Repair::optimum)) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Exhaustive {
    /// The number of candidates of the space (the original included).
    pub space_size: usize,
    /// Candidates judged by the checker before the search stopped (the original included).
    pub checked: usize,
    /// Whether the repair is proved to be a cheapest one of the space: every cheaper candidate
    /// was judged and rejected.
    pub proved_optimal: bool,
}

/// What a run did and found: data, never its rendering (every rendering of a report, text,
/// JSON, DOT, charts and HTML, is `paces-report`'s).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Report {
    /// Why the run stopped.
    pub stop: StopReason,
    /// The mode it ran in.
    pub mode: Mode,
    /// The program the run was given.
    pub original: Program,
    /// The repaired program (the original when already correct).
    pub repaired: Option<Program>,
    /// The accepted candidate (the original one when already correct).
    pub candidate: Option<Candidate>,
    /// The transformations from the original to the repair.
    pub transformations: Vec<Transformation>,
    /// Which step of the run found the program it ends with; `None` without one.
    pub origin: Option<Origin>,
    /// Bad-trace rounds (bad, deadlock, livelock or sequential rejections learned from); one
    /// entry of [`Report::history`] each.
    pub iterations: usize,
    /// Good traces learned from.
    pub good_traces: usize,
    /// The bounds that cut the search for good traces short (sorted, no repeats): when there
    /// are any, [`Report::good_traces`] counts a sample (possibly empty). Empty in bad-only
    /// mode and when the run stopped before the search.
    pub good_search_bounds: Vec<GoodBound>,
    /// Good traces whose fallback was relaxed to their covered edges because it conflicted
    /// with the other constraints ([`Repair::relax_on_conflict`](crate::Repair::relax_on_conflict)).
    pub relaxed_good_traces: usize,
    /// Times a bad trace's fixes were searched again with a larger K because they conflicted
    /// with the other constraints ([`Repair::relax_on_conflict`](crate::Repair::relax_on_conflict)).
    pub deepened_bad_traces: usize,
    /// Constraints learned from new deadlocks of candidates that were dropped because they
    /// conflicted with the other constraints ([`Repair::relax_on_conflict`](crate::Repair::relax_on_conflict)).
    pub dropped_constraints: usize,
    /// Bad (or deadlock) traces learned from.
    pub bad_traces: usize,
    /// Size of the conjunction of every learned constraint.
    pub constraint: Stats,
    /// States the checker stored, summed over every check.
    pub states_explored: usize,
    /// The same states by what each check was for.
    pub states_split: StatesSplit,
    /// States of the check that decided the original program's verdict (the first check of
    /// every run).
    pub original_states: usize,
    /// The answer holds only within the checker's loop bound (`Config::unwind`): the check
    /// that accepted the program (the repair's, or the original's when already correct) cut
    /// some path at that bound.
    pub unwind_reached: bool,
    /// Where the time went.
    pub time: TimeSplit,
    /// The checks the accepted program passed (for a repair).
    pub acceptance: Option<Acceptance>,
    /// The iterations in order.
    pub history: Vec<Iteration>,
    /// Deadlocks of the original program (bugs the repair removes, or with
    /// [`Report::keep_deadlocks`] allowed to remain); `None` when the run never explored the
    /// original fully (it stopped at its first bad trace and no candidate had a deadlock or
    /// livelock to compare).
    pub original_deadlocks: Option<Vec<DeadlockId>>,
    /// Whether the run kept the original's deadlocks
    /// ([`Repair::keep_deadlocks`](crate::Repair::keep_deadlocks)) rather than repairing them.
    pub keep_deadlocks: bool,
    /// The deadlocks of the original known to the run, each removed or kept (with why): every
    /// deadlock of the repaired program (or of the original, when it only deadlocks), then
    /// those of the original it no longer reaches. Every deadlock of the original not listed
    /// is removed too: the repaired program's deadlocks are all listed.
    pub deadlock_fates: Vec<DeadlockFate>,
    /// The space of the original program (names locations).
    pub space: Space,
    /// What the exhaustive search did: of [`Repair::optimum`](crate::Repair::optimum), or of
    /// the loop when, walking a small space (candidates rejected with nothing to generalise),
    /// it judged the candidates in cost order; `None` otherwise.
    pub exhaustive: Option<Exhaustive>,
    /// For a repair of the loop: whether it is proved a cheapest one of the space, after the
    /// optimisation phase looked for cheaper ones; `None` otherwise.
    pub optimality: Option<Optimality>,
    /// The good traces learned from, in the order learned, when
    /// [`Repair::record_traces`](crate::Repair::record_traces) is on (the bad ones are in
    /// [`Iteration::learned`]).
    pub learned_good: Vec<Trace>,
}

/// The accepted program, as the recorder keeps it until the report is made.
pub(super) struct Accepted {
    pub(super) program: Program,
    pub(super) candidate: Candidate,
    pub(super) transformations: Vec<Transformation>,
    pub(super) acceptance: Option<Acceptance>,
    /// Which step found it.
    pub(super) origin: Origin,
    /// Its deadlocks (each one the original reaches), with their traces.
    pub(super) deadlocks: BTreeMap<DeadlockId, Counterexample>,
}

/// Collects the facts of a run as the loop computes them; [`Recorder::finish`] makes the
/// report. Every figure of the report comes from one field here or from the learner. The
/// run's context holds the one recorder of a run, and every write goes through it.
pub(super) struct Recorder {
    start: Instant,
    mode: Mode,
    space: Space,
    original: Program,
    pub(super) time: TimeSplit,
    pub(super) states: StatesSplit,
    pub(super) original_states: usize,
    pub(super) original_unwind_reached: bool,
    pub(super) original_deadlocks: Option<Vec<DeadlockId>>,
    pub(super) keep_deadlocks: bool,
    pub(super) deadlock_fates: Vec<DeadlockFate>,
    /// Why the removal phase kept each deadlock of the original it kept (a deadlock of the
    /// program in hand without a reason here was kept when the phase's budget ran out).
    pub(super) kept_because: BTreeMap<DeadlockId, KeptBecause>,
    pub(super) good_search_bounds: Vec<GoodBound>,
    pub(super) history: Vec<Iteration>,
    pub(super) learned_good: Vec<Trace>,
    pub(super) exhaustive: Option<Exhaustive>,
    pub(super) optimality: Option<Optimality>,
    accepted: Option<Accepted>,
}

impl Report {
    /// The deadlocks of the original that the program the run ends with still reaches.
    pub fn kept_deadlocks(&self) -> impl Iterator<Item = &DeadlockFate> {
        self.deadlock_fates.iter().filter(|d| matches!(d.fate, Fate::Kept(_)))
    }

    /// Whether a bug remains in the program the run ends with: it was not repaired, or it
    /// keeps deadlocks of the original that [`Repair::keep_deadlocks`](crate::Repair::keep_deadlocks)
    /// did not ask to keep.
    pub fn bug_remains(&self) -> bool {
        !self.stop.is_success() || !self.keep_deadlocks && self.kept_deadlocks().next().is_some()
    }

    /// The labels the transformations name (both items of a swap, both ends of an added
    /// section), in their order: the labels a printed program should show besides the
    /// written ones so that each transformation can be found in it (what
    /// [`paces_cwhile::Printer::labels`] takes, for printing and splicing).
    pub fn named_labels(&self) -> Vec<&str> {
        self.transformations
            .iter()
            .flat_map(|t| match *t {
                Transformation::Swap { first, second } => [first, second],
                Transformation::Atomic { first, last } => [first, last],
            })
            .map(|l| self.space.name(l))
            .collect()
    }

    /// The original program in canonical Cwhile, labelled where the source had a label or a
    /// transformation names the statement ([`Report::named_labels`]).
    pub fn original_text(&self) -> String {
        paces_cwhile::Printer::new(&self.original).labels(&self.named_labels()).print()
    }

    /// The repaired program (the original when already correct) in canonical Cwhile,
    /// labelled as [`Report::original_text`] is; `None` when there is none.
    pub fn repaired_text(&self) -> Option<String> {
        let repaired = self.repaired.as_ref()?;
        Some(paces_cwhile::Printer::new(repaired).labels(&self.named_labels()).print())
    }
}

impl Recorder {
    pub(super) fn new(mode: Mode, program: &Program, space: Space) -> Recorder {
        Recorder {
            start: Instant::now(),
            mode,
            space,
            original: program.clone(),
            time: TimeSplit::default(),
            states: StatesSplit::default(),
            original_states: 0,
            original_unwind_reached: false,
            original_deadlocks: None,
            keep_deadlocks: false,
            deadlock_fates: Vec::new(),
            kept_because: BTreeMap::new(),
            good_search_bounds: Vec::new(),
            history: Vec::new(),
            learned_good: Vec::new(),
            exhaustive: None,
            optimality: None,
            accepted: None,
        }
    }

    /// When the run started.
    pub(super) fn start(&self) -> Instant {
        self.start
    }

    /// Runs `f`, adding its time to `slot` of the time split.
    pub(super) fn timed<T>(&mut self, slot: fn(&mut TimeSplit) -> &mut Duration, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        *slot(&mut self.time) += t.elapsed();
        out
    }

    /// Records the program the run ends with.
    pub(super) fn accept(&mut self, accepted: Accepted) {
        self.accepted = Some(accepted);
    }

    /// Forgets the program accepted so far.
    pub(super) fn clear_accepted(&mut self) {
        self.accepted = None;
    }

    /// The deadlocks of the program accepted so far (none when there is none).
    pub(super) fn accepted_deadlocks(&self) -> BTreeMap<DeadlockId, Counterexample> {
        self.accepted.as_ref().map(|a| a.deadlocks.clone()).unwrap_or_default()
    }

    /// The program accepted so far, if any.
    pub(super) fn accepted_program(&self) -> Option<&Program> {
        self.accepted.as_ref().map(|a| &a.program)
    }

    /// The candidate accepted so far, if any.
    pub(super) fn accepted_candidate(&self) -> Option<&Candidate> {
        self.accepted.as_ref().map(|a| &a.candidate)
    }

    /// The states the accepted program's own checks stored (0 when none is, or it was not
    /// judged).
    pub(super) fn accepted_states(&self) -> usize {
        self.accepted.as_ref().and_then(|a| a.acceptance.as_ref()).map_or(0, |a| a.states)
    }

    /// Puts `program`, `candidate` made by `transformations` and found by `origin`, in place
    /// of the accepted program, whose acceptance it keeps: it has the same runs.
    pub(super) fn same_runs_accepted(
        &mut self,
        program: Program,
        candidate: Candidate,
        transformations: Vec<Transformation>,
        origin: Origin,
    ) {
        if let Some(a) = &mut self.accepted {
            (a.program, a.candidate, a.transformations, a.origin) = (program, candidate, transformations, origin);
        }
    }

    /// Settles what became of each deadlock of the original known to the run (`reached`), for
    /// the program the run ends with (the report's [`DeadlockFate`]s): each of its deadlocks is
    /// kept, with the reason recorded ([`Recorder::kept_because`]; with
    /// [`Repair::keep_deadlocks`](crate::Repair::keep_deadlocks) because asked), and every
    /// other one is removed. Nothing is settled without a program.
    pub(super) fn settle_fates(&mut self, reached: &BTreeSet<DeadlockId>) {
        let Some(accepted) = &self.accepted else { return };
        let now = &accepted.deadlocks;
        let mut fates = Vec::new();
        for id in now.keys() {
            let because = match self.kept_because.get(id) {
                _ if self.keep_deadlocks => KeptBecause::Asked,
                Some(because) => because.clone(),
                None => KeptBecause::Budget,
            };
            fates.push(DeadlockFate { deadlock: id.clone(), fate: Fate::Kept(because) });
        }
        for id in reached.iter().filter(|id| !now.contains_key(*id)) {
            fates.push(DeadlockFate { deadlock: id.clone(), fate: Fate::Removed });
        }
        self.deadlock_fates = fates;
    }

    /// The report of a run that stopped for `stop`; what was learned comes from `learner`
    /// (none when the run stopped before learning).
    pub(super) fn finish(mut self, stop: StopReason, learner: Option<&mut Learner>) -> Report {
        self.time.total = self.start.elapsed();
        let (constraint, (good_traces, bad_traces), relaxed_good_traces, deepened_bad_traces, dropped_constraints) =
            match learner {
                Some(l) => (l.stats(), l.counts(), l.relaxed(), l.deepened(), l.dropped()),
                None => (Stats::default(), (0, 0), 0, 0, 0),
            };
        let (repaired, candidate, transformations, acceptance, origin) = match self.accepted {
            Some(a) => (Some(a.program), Some(a.candidate), a.transformations, a.acceptance, Some(a.origin)),
            None => (None, None, Vec::new(), None, None),
        };
        let unwind_reached = match (&stop, &acceptance) {
            (_, Some(a)) => a.unwind_reached,
            (StopReason::AlreadyCorrect, None) => self.original_unwind_reached,
            _ => false,
        };
        Report {
            stop,
            mode: self.mode,
            original: self.original,
            repaired,
            candidate,
            transformations,
            origin,
            iterations: self.history.len(),
            good_traces,
            good_search_bounds: self.good_search_bounds,
            relaxed_good_traces,
            deepened_bad_traces,
            dropped_constraints,
            bad_traces,
            constraint,
            states_explored: self.states.total(),
            states_split: self.states,
            original_states: self.original_states,
            unwind_reached,
            time: self.time,
            acceptance,
            history: self.history,
            original_deadlocks: self.original_deadlocks,
            keep_deadlocks: self.keep_deadlocks,
            deadlock_fates: self.deadlock_fates,
            space: self.space,
            exhaustive: self.exhaustive,
            optimality: self.optimality,
            learned_good: self.learned_good,
        }
    }
}
