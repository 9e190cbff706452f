//! What a run of the repair loop reports, and the builder that records each fact when the loop
//! computes it.

use std::fmt;
use std::time::{Duration, Instant};

use paces_constraint::{Candidate, Space, Stats, Transformation};
use paces_cwhile::ir::Program;
use std::collections::BTreeMap;

use paces_explore::{Bound, Counterexample, DeadlockId, GoodBound};

use super::config::Mode;
use crate::chart::TraceChart;
use crate::diff::line_diff;
use paces_learn::Learner;

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopReason {
    /// A repair was found and accepted by the checker.
    Repaired,
    /// The program has no reachable assertion failure and no reachable deadlock (with
    /// [`Repair::keep_deadlocks`](super::Repair::keep_deadlocks): no assertion failure):
    /// nothing to repair.
    AlreadyCorrect,
    /// No program of the space satisfies the learned constraints.
    NoRepair {
        /// Which constraints conflict, in words.
        explanation: String,
    },
    /// The iteration limit was reached.
    IterationLimit,
    /// The time limit was reached.
    TimeLimit,
    /// A bound was reached before an answer.
    #[non_exhaustive]
    BoundReached {
        /// The checker's bound, when a check of a program reached it; `None` for a bound of
        /// another part: the sequential runs' (`what` names it) or the learner's memory bound.
        bound: Option<Bound>,
        /// What was reached, in words (for a check, the bound's name: `state bound`).
        what: String,
    },
}

impl StopReason {
    /// A stable short name: `repaired`, `already-correct`, `no-repair`, `iteration-limit`,
    /// `time-limit`, `bound-reached`.
    pub fn name(&self) -> &'static str {
        match self {
            StopReason::Repaired => "repaired",
            StopReason::AlreadyCorrect => "already-correct",
            StopReason::NoRepair { .. } => "no-repair",
            StopReason::IterationLimit => "iteration-limit",
            StopReason::TimeLimit => "time-limit",
            StopReason::BoundReached { .. } => "bound-reached",
        }
    }

    /// Whether the run ends with a program free of bugs (repaired or already correct).
    pub fn is_success(&self) -> bool {
        matches!(self, StopReason::Repaired | StopReason::AlreadyCorrect)
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Repaired => f.write_str("repaired"),
            StopReason::AlreadyCorrect => f.write_str("already correct: no assertion can fail"),
            StopReason::NoRepair { explanation } => write!(f, "no repair in this space: {explanation}"),
            StopReason::IterationLimit => f.write_str("iteration limit reached"),
            StopReason::TimeLimit => f.write_str("time limit reached"),
            StopReason::BoundReached { what, .. } => write!(f, "the checker reached its {what}"),
        }
    }
}

/// The checks an accepted program passed, with what they compared.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Acceptance {
    /// No assertion can fail.
    pub no_assertion_failure: bool,
    /// No deadlock is reachable; with [`Repair::keep_deadlocks`](super::Repair::keep_deadlocks),
    /// every reachable deadlock is one the original reaches (see [`Acceptance::deadlocks`]).
    pub no_new_deadlock: bool,
    /// Every reachable atomic livelock was reachable in the original.
    pub no_new_livelock: bool,
    /// The final states of complete sequential traces equal the original's.
    pub same_sequential_states: bool,
    /// Every assertion that passes on some run of the original still does on some run of
    /// the program: no check was made vacuous (say by a wait that never passes moved above
    /// it). One that only ever fails in the original may become unreachable.
    pub assertions_reached: bool,
    /// The accepted program's deadlocks, each with the rule that admits it (empty unless the
    /// original's deadlocks are kept).
    pub deadlocks: Vec<AdmittedDeadlock>,
    /// The accepted program's atomic livelocks (each one the original has too), in words.
    pub livelocks: Vec<String>,
    /// How many distinct final states the complete sequential runs reach.
    pub sequential_final_states: usize,
    /// Every outcome of the program (the globals' values where every thread is at its end
    /// or idle at a loop it may leave) is an outcome of some run of the original: the
    /// repair adds no behaviour that no assertion names.
    pub no_new_outcome: bool,
    /// How many distinct outcomes the program has, when they were compared with the
    /// original's; `None` for a program without reorders (an atomic section only takes runs
    /// away, so it adds no outcome, and none is compared).
    pub outcomes: Option<usize>,
    /// The check of the accepted program cut some path at the checker's loop bound
    /// (`Config::unwind`): the checks hold only within that bound.
    pub unwind_reached: bool,
}

/// A deadlock of an accepted program and why it is no regression.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AdmittedDeadlock {
    /// Where every thread stands, in words (`a at L, b done`).
    pub deadlock: String,
    /// The rule that admits it.
    pub rule: DeadlockRule,
}

/// Why a deadlock of a repaired program is not new.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeadlockRule {
    /// The original reaches a deadlock where every thread stands at the same place.
    SamePlace,
    /// The original reaches a deadlock of the same blocked threads on a run where an
    /// assertion had already failed: a run that was bad already may end in a deadlock instead.
    SameThreadsAfterFailure,
}

impl DeadlockRule {
    /// The rule's name in reports (`same-place`, `same-threads-after-failure`).
    pub fn name(self) -> &'static str {
        match self {
            DeadlockRule::SamePlace => "same-place",
            DeadlockRule::SameThreadsAfterFailure => "same-threads-after-failure",
        }
    }
}

impl Acceptance {
    /// Whether every check passed.
    pub fn accepted(&self) -> bool {
        self.no_assertion_failure
            && self.no_new_deadlock
            && self.no_new_livelock
            && self.same_sequential_states
            && self.assertions_reached
            && self.no_new_outcome
    }
}

/// What became of a deadlock of the original program in the repaired one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeadlockFate {
    /// Where every thread stands, in words (`a at L, b done`).
    pub deadlock: String,
    /// Removed, or kept and why.
    pub fate: Fate,
}

/// Whether the repair removed a deadlock of the original.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fate {
    /// The repaired program does not reach it.
    Removed,
    /// The repaired program still reaches it.
    Kept(KeptBecause),
}

/// Why a deadlock of the original stays in the repaired program.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeptBecause {
    /// [`Repair::keep_deadlocks`](super::Repair::keep_deadlocks) asked to keep every one.
    Asked,
    /// Every program of the space keeps it: once the threads named in `before` ran one
    /// after another to their end, `thread` alone waits at `at` for good, and no reorder or
    /// section changes what a thread does alone.
    ThreadAlone {
        /// The threads that ran to their end first.
        before: Vec<String>,
        /// The thread that waits for good.
        thread: String,
        /// The label it waits at.
        at: String,
    },
    /// Its trace offers no reorder or section that removes it (no elimination cycle).
    NoFix,
    /// Every candidate that removes it conflicts with what the repair of the assertions
    /// (or of another deadlock) learned.
    Conflict,
    /// The removal phase's budget ran out before a program without it was found.
    Budget,
}

impl fmt::Display for KeptBecause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeptBecause::Asked => f.write_str("kept as asked (--keep-deadlocks)"),
            KeptBecause::ThreadAlone { before, thread, at } => {
                let quoted: Vec<String> = before.iter().map(|t| format!("`{t}`")).collect();
                let before = match quoted.as_slice() {
                    [] => "from the start".to_owned(),
                    [one] => format!("after {one} ran to its end"),
                    [rest @ .., last] => {
                        format!("after {} and {last} ran one after another to their end", rest.join(", "))
                    }
                };
                write!(f, "every program of the space keeps it: {before}, `{thread}` alone waits at `{at}` for good")
            }
            KeptBecause::NoFix => f.write_str("its trace offers no reorder or atomic section that removes it"),
            KeptBecause::Conflict => {
                f.write_str("every candidate that removes it conflicts with what the repair of the assertions needs")
            }
            KeptBecause::Budget => {
                f.write_str("the removal phase's budget ran out before a program without it was found")
            }
        }
    }
}

impl fmt::Display for Fate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fate::Removed => f.write_str("removed"),
            Fate::Kept(why) => write!(f, "kept: {why}"),
        }
    }
}

impl Fate {
    /// A stable short name: `removed` or `kept`.
    pub fn name(&self) -> &'static str {
        match self {
            Fate::Removed => "removed",
            Fate::Kept(_) => "kept",
        }
    }

    /// For a kept deadlock, a stable short name of the reason: `asked`, `thread-alone`,
    /// `no-fix`, `conflict`, `budget`.
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            Fate::Removed => None,
            Fate::Kept(KeptBecause::Asked) => Some("asked"),
            Fate::Kept(KeptBecause::ThreadAlone { .. }) => Some("thread-alone"),
            Fate::Kept(KeptBecause::NoFix) => Some("no-fix"),
            Fate::Kept(KeptBecause::Conflict) => Some("conflict"),
            Fate::Kept(KeptBecause::Budget) => Some("budget"),
        }
    }
}

/// Where the time went: each part apart, so that the parts and [`TimeSplit::other`] sum to
/// [`TimeSplit::total`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimeSplit {
    /// Model checking of programs: the original, the candidates, their sequential final states.
    pub explore: Duration,
    /// The good-trace search of mixed mode.
    pub good: Duration,
    /// Running bad traces on past their failure to their end (before learning from them).
    pub complete: Duration,
    /// LearnGoodUnder and bad-trace elimination.
    pub learn: Duration,
    /// Choosing candidates (the SAT search).
    pub solve: Duration,
    /// Building candidate programs from the original (before each is checked).
    pub apply: Duration,
    /// Counting and listing the candidates of a small space in cost order (the optimisation
    /// phase's and the walking loop's lists).
    pub list: Duration,
    /// The whole run.
    pub total: Duration,
}

impl TimeSplit {
    /// The time of the run outside the named parts (building the space and the learner, the
    /// bookkeeping between the parts).
    pub fn other(&self) -> Duration {
        let parts = [self.explore, self.good, self.complete, self.learn, self.solve, self.apply, self.list];
        self.total.saturating_sub(parts.iter().sum())
    }
}

/// The slot of [`TimeSplit`] for model checking, for [`ReportBuilder::timed`].
pub(super) fn explore_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.explore
}

/// The slot of [`TimeSplit`] for the good-trace search, for [`ReportBuilder::timed`].
pub(super) fn good_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.good
}

/// The slot of [`TimeSplit`] for completing bad traces, for [`ReportBuilder::timed`].
pub(super) fn complete_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.complete
}

/// The slot of [`TimeSplit`] for learning, for [`ReportBuilder::timed`].
pub(super) fn learn_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.learn
}

/// The slot of [`TimeSplit`] for choosing candidates, for [`ReportBuilder::timed`].
pub(super) fn solve_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.solve
}

/// The slot of [`TimeSplit`] for building candidate programs, for [`ReportBuilder::timed`].
pub(super) fn apply_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.apply
}

/// The slot of [`TimeSplit`] for listing candidates, for [`ReportBuilder::timed`].
pub(super) fn list_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.list
}

/// What a rejected program was rejected for, and so what an iteration learned from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IterationKind {
    /// An assertion fails: a bad trace.
    Bad,
    /// A deadlock the original program does not have.
    Deadlock,
    /// An atomic livelock the original program does not have.
    Livelock,
    /// The final states of complete sequential runs differ from the original's.
    Sequential,
    /// An assertion that passes on some run of the original is reached on none.
    Unreached,
    /// The input's language refuses the candidate ([`Repair::refuse_when`](super::Repair::refuse_when)).
    Refused,
    /// The candidate reaches an outcome that no run of the original reaches.
    Outcome,
}

impl IterationKind {
    /// A stable short name: `bad`, `deadlock`, `livelock`, `sequential`, `unreached`,
    /// `refused`, `outcome`.
    pub fn name(self) -> &'static str {
        match self {
            IterationKind::Bad => "bad",
            IterationKind::Deadlock => "deadlock",
            IterationKind::Livelock => "livelock",
            IterationKind::Sequential => "sequential",
            IterationKind::Unreached => "unreached",
            IterationKind::Refused => "refused",
            IterationKind::Outcome => "outcome",
        }
    }
}

impl fmt::Display for IterationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one iteration learned from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Iteration {
    /// What the program learned from was rejected for.
    pub kind: IterationKind,
    /// What went wrong, in words (the failing label, the deadlock, ...).
    pub problem: String,
    /// The schedule of the trace learned from (labels), empty when none.
    pub schedule: Vec<String>,
    /// The thread of each step of [`Iteration::schedule`] (an index into the program's
    /// threads).
    pub threads: Vec<usize>,
    /// The failing step of a bad trace (an index into [`Iteration::schedule`]).
    pub failing: Option<usize>,
    /// Fixes the elimination graphs of its traces offered (the first trace's and those of
    /// [`Iteration::more`]).
    pub fixes: usize,
    /// The problems of the further bad traces of the same check learned from in this
    /// iteration, after the one of [`Iteration::schedule`]
    /// ([`Repair::counterexamples`](super::Repair::counterexamples)); empty when there were none.
    pub more: Vec<String>,
    /// The transformations of the candidate proposed afterwards (empty when none).
    pub proposal: Vec<String>,
    /// The trace learned from as a chart, with its partial order and fixes, when
    /// [`Repair::dot`](super::Repair::dot) is on and the trace was generalised.
    pub chart: Option<TraceChart>,
}

impl Iteration {
    pub(super) fn new(kind: IterationKind, problem: String) -> Iteration {
        Iteration {
            kind,
            problem,
            schedule: Vec::new(),
            threads: Vec::new(),
            failing: None,
            fixes: 0,
            more: Vec::new(),
            proposal: Vec::new(),
            chart: None,
        }
    }
}

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

/// Whether a repair of the loop is known to be a cheapest one of the space
/// ([`Report::optimality`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Optimality {
    /// No cheaper candidate of the space is accepted; says how that is known.
    Proved(String),
    /// The cheapest repair the loop found; says what was not tried.
    CheapestFound(String),
}

impl Optimality {
    /// Whether the repair is proved a cheapest one.
    pub fn is_proved(&self) -> bool {
        matches!(self, Optimality::Proved(_))
    }

    /// How it is known, or what was not tried.
    pub fn why(&self) -> &str {
        match self {
            Optimality::Proved(why) | Optimality::CheapestFound(why) => why,
        }
    }
}

/// What a run did and found.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Report {
    /// Why the run stopped.
    pub stop: StopReason,
    /// The mode it ran in.
    pub mode: Mode,
    /// The repaired program (the original when already correct).
    pub repaired: Option<Program>,
    /// The repaired program's text (the original's when already correct): canonical, but
    /// labelled only where the source had a label or a transformation names the statement
    /// (see [`paces_cwhile::print_named`]).
    pub repaired_text: Option<String>,
    /// The original program's text, labelled as [`Report::repaired_text`] is.
    pub original_text: String,
    /// The accepted candidate (the original one when already correct).
    pub candidate: Option<Candidate>,
    /// The transformations from the original to the repair.
    pub transformations: Vec<Transformation>,
    /// The transformations in words (`swap A <-> B`, `atomic [A; B]`).
    pub transformation_text: Vec<String>,
    /// The repair as a reviewer reads it: the fewest moves of single items that reorder the
    /// blocks (`move A below B`, `move A above B` for a move to the top of a block; see
    /// [`Candidate::moves`]), then the added sections (`atomic [A; B]`).
    pub change_text: Vec<String>,
    /// A line diff of the canonical texts (empty unless repaired).
    pub diff: String,
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
    /// with the other constraints ([`Repair::relax_on_conflict`](super::Repair::relax_on_conflict)).
    pub relaxed_good_traces: usize,
    /// Times a bad trace's fixes were searched again with a larger K because they conflicted
    /// with the other constraints ([`Repair::relax_on_conflict`](super::Repair::relax_on_conflict)).
    pub deepened_bad_traces: usize,
    /// Constraints learned from new deadlocks of candidates that were dropped because they
    /// conflicted with the other constraints ([`Repair::relax_on_conflict`](super::Repair::relax_on_conflict)).
    pub dropped_constraints: usize,
    /// Bad (or deadlock) traces learned from.
    pub bad_traces: usize,
    /// Size of the conjunction of every learned constraint.
    pub constraint: Stats,
    /// States the checker stored, summed over every check.
    pub states_explored: usize,
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
    /// Deadlocks of the original program, in words (bugs the repair removes, or with
    /// [`Report::keep_deadlocks`] allowed to remain); `None` when the run never explored the
    /// original fully (it stopped at its first bad trace and no candidate had a deadlock or
    /// livelock to compare).
    pub original_deadlocks: Option<Vec<String>>,
    /// Whether the run kept the original's deadlocks
    /// ([`Repair::keep_deadlocks`](super::Repair::keep_deadlocks)) rather than repairing them.
    pub keep_deadlocks: bool,
    /// The deadlocks of the original known to the run, each removed or kept (with why): every
    /// deadlock of the repaired program (or of the original, when it only deadlocks), then
    /// those of the original it no longer reaches. Every deadlock of the original not listed
    /// is removed too: the repaired program's deadlocks are all listed.
    pub deadlock_fates: Vec<DeadlockFate>,
    /// The space of the original program (names locations).
    pub space: Space,
    /// What the exhaustive search did: of [`Repair::optimum`](super::Repair::optimum), or of
    /// the loop when, walking a small space (candidates rejected with nothing to generalise),
    /// it judged the candidates in cost order; `None` otherwise.
    pub exhaustive: Option<Exhaustive>,
    /// For a repair of the loop: whether it is proved a cheapest one of the space, after the
    /// optimisation phase looked for cheaper ones; `None` otherwise.
    pub optimality: Option<Optimality>,
    /// Graphs in DOT, named (`good-1.dot`, `bad-1-order.dot`, `bad-1-fix-1.dot`), when
    /// [`Repair::dot`](super::Repair::dot) is on.
    pub dots: Vec<(String, String)>,
    /// The good traces learned from as charts, in the order learned, when
    /// [`Repair::dot`](super::Repair::dot) is on.
    pub good_charts: Vec<TraceChart>,
}

/// The accepted program, as the builder keeps it until the report is made.
pub(super) struct Accepted {
    pub(super) program: Program,
    pub(super) candidate: Candidate,
    pub(super) transformations: Vec<Transformation>,
    pub(super) acceptance: Option<Acceptance>,
    /// Its deadlocks (each one the original reaches), with their traces.
    pub(super) deadlocks: BTreeMap<DeadlockId, Counterexample>,
}

/// Collects the facts of a run as the loop computes them; [`ReportBuilder::finish`] makes the
/// report. Every figure of the report comes from one field here or from the learner.
pub(super) struct ReportBuilder {
    start: Instant,
    mode: Mode,
    space: Space,
    original: Program,
    pub(super) time: TimeSplit,
    pub(super) states: usize,
    pub(super) original_states: usize,
    pub(super) original_unwind_reached: bool,
    pub(super) original_deadlocks: Option<Vec<String>>,
    pub(super) keep_deadlocks: bool,
    pub(super) deadlock_fates: Vec<DeadlockFate>,
    pub(super) good_search_bounds: Vec<GoodBound>,
    pub(super) history: Vec<Iteration>,
    pub(super) dots: Vec<(String, String)>,
    pub(super) good_charts: Vec<TraceChart>,
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
    /// keeps deadlocks of the original that [`Repair::keep_deadlocks`](super::Repair::keep_deadlocks)
    /// did not ask to keep.
    pub fn bug_remains(&self) -> bool {
        !self.stop.is_success() || !self.keep_deadlocks && self.kept_deadlocks().next().is_some()
    }

    /// The labels the transformations name (both items of a swap, both ends of an added
    /// section), in their order: the labels [`Report::repaired_text`] prints besides the
    /// written ones, and what [`paces_cwhile::print_preserving`] should be given.
    pub fn named_labels(&self) -> Vec<&str> {
        named_labels(&self.space, &self.transformations)
    }
}

impl ReportBuilder {
    pub(super) fn new(mode: Mode, program: &Program, space: Space) -> ReportBuilder {
        ReportBuilder {
            start: Instant::now(),
            mode,
            space,
            original: program.clone(),
            time: TimeSplit::default(),
            states: 0,
            original_states: 0,
            original_unwind_reached: false,
            original_deadlocks: None,
            keep_deadlocks: false,
            deadlock_fates: Vec::new(),
            good_search_bounds: Vec::new(),
            history: Vec::new(),
            dots: Vec::new(),
            good_charts: Vec::new(),
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

    /// The report of a run that stopped for `stop`; what was learned comes from `learner`
    /// (none when the run stopped before learning).
    pub(super) fn finish(mut self, stop: StopReason, learner: Option<&mut Learner>) -> Report {
        self.time.total = self.start.elapsed();
        let (constraint, (good_traces, bad_traces), relaxed_good_traces, deepened_bad_traces, dropped_constraints) =
            match learner {
                Some(l) => (l.stats(), l.counts(), l.relaxed(), l.deepened(), l.dropped()),
                None => (Stats::default(), (0, 0), 0, 0, 0),
            };
        let (repaired, candidate, transformations, acceptance) = match self.accepted {
            Some(a) => (Some(a.program), Some(a.candidate), a.transformations, a.acceptance),
            None => (None, None, Vec::new(), None),
        };
        let unwind_reached = match (&stop, &acceptance) {
            (_, Some(a)) => a.unwind_reached,
            (StopReason::AlreadyCorrect, None) => self.original_unwind_reached,
            _ => false,
        };
        let named = named_labels(&self.space, &transformations);
        let original_text = paces_cwhile::print_named(&self.original, &named);
        let repaired_text = repaired.as_ref().map(|p| paces_cwhile::print_named(p, &named));
        let diff = match (&stop, &repaired_text) {
            (StopReason::Repaired, Some(text)) => line_diff(&original_text, text),
            _ => String::new(),
        };
        let transformation_text = transformations.iter().map(|t| t.display(&self.space).to_string()).collect();
        let change_text = change_text(&self.space, candidate.as_ref(), &transformations);
        Report {
            stop,
            mode: self.mode,
            repaired,
            repaired_text,
            original_text,
            candidate,
            transformations,
            transformation_text,
            change_text,
            diff,
            iterations: self.history.len(),
            good_traces,
            good_search_bounds: self.good_search_bounds,
            relaxed_good_traces,
            deepened_bad_traces,
            dropped_constraints,
            bad_traces,
            constraint,
            states_explored: self.states,
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
            dots: self.dots,
            good_charts: self.good_charts,
        }
    }
}

/// The moves of a candidate, then its sections, in words (see [`Report::change_text`]).
fn change_text(space: &Space, candidate: Option<&Candidate>, transformations: &[Transformation]) -> Vec<String> {
    let moves = candidate.map(|c| c.moves(space)).unwrap_or_default();
    let sections = transformations.iter().filter(|t| matches!(t, Transformation::Atomic { .. }));
    moves.iter().map(|m| m.display(space).to_string()).chain(sections.map(|t| t.display(space).to_string())).collect()
}

/// The labels the transformations name (both items of a swap, both ends of a section): the
/// printed texts keep them so that each transformation can be found in the program.
fn named_labels<'a>(space: &'a Space, transformations: &[Transformation]) -> Vec<&'a str> {
    transformations
        .iter()
        .flat_map(|t| match *t {
            Transformation::Swap { first, second } => [first, second],
            Transformation::Atomic { first, last } => [first, last],
        })
        .map(|l| space.name(l))
        .collect()
}
