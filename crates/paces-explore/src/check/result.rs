//! What a check answers: the [`Verdict`], its [`Counterexample`]s, the identities of
//! deadlocks and livelocks, and the [`CheckResult`] around them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::{Duration, Instant};

use paces_cwhile::Program;
use paces_trace::Trace;

use crate::replay::Schedule;

/// A witness: the steps of a trace as a readable schedule and as a validated trace.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counterexample {
    /// The steps by thread and label.
    pub schedule: Schedule,
    /// The trace (for a deadlock its [`Trace::blocked`] holds the blocked awaits).
    pub trace: Trace,
    /// The failing step (an index into the schedule and the trace), for a bad trace.
    pub failing_step: Option<usize>,
    /// Whether the failing step fails by dividing (or taking a remainder) by zero; when this
    /// and [`Counterexample::shift_out_of_range`] are false, a failing step is a false
    /// assertion.
    pub division_by_zero: bool,
    /// Whether the failing step fails by shifting (`<<`, `>>`) by an amount outside 0..=63.
    pub shift_out_of_range: bool,
    /// For an atomic livelock: the schedule index where the cycle starts (the cycle runs
    /// from there to the end and returns to the state before that step).
    pub cycle_start: Option<usize>,
}

impl Counterexample {
    /// The label of the failing step, for a bad trace.
    pub fn failing_label(&self) -> Option<&str> {
        self.failing_step.and_then(|i| self.schedule.steps.get(i)).map(|s| s.label.as_str())
    }
}

/// Where a thread stands in a deadlock.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ThreadStand {
    /// At its end (or able to reach it without a step), or never started (a created thread
    /// whose create has not run: docs/explore.md).
    Done,
    /// Waiting at these awaits (labels, in program order of the choice).
    Blocked(Vec<String>),
}

/// A deadlock, identified by where every thread stands (in thread order). Labels survive
/// reordering, so deadlocks of two programs of one space compare.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeadlockId {
    /// Thread names and where they stand.
    pub threads: Vec<(String, ThreadStand)>,
}

impl DeadlockId {
    /// The names of the threads that are not done (they wait).
    pub fn blocked_threads(&self) -> std::collections::BTreeSet<&str> {
        self.threads.iter().filter(|(_, stand)| *stand != ThreadStand::Done).map(|(name, _)| name.as_str()).collect()
    }
}

impl fmt::Display for DeadlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words(None))
    }
}

impl DeadlockId {
    /// The deadlock in the words of the source `program` was read from: its threads by the
    /// names traces show them by and its places by line (`main at line 19, worker t[0] done`
    /// for a program read from C, [`Program::place_name`]); for a Cwhile program the same as
    /// its `Display` (`main at 19, worker done`).
    pub fn shown(&self, program: &Program) -> String {
        self.words(Some(program))
    }

    fn words(&self, program: Option<&Program>) -> String {
        let mut out = Vec::with_capacity(self.threads.len());
        for (name, stand) in &self.threads {
            let name = program.map_or(name.as_str(), |p| p.shown_thread(name));
            out.push(match stand {
                ThreadStand::Done => format!("{name} done"),
                ThreadStand::Blocked(labels) => {
                    let mut places: Vec<String> = labels.iter().map(|l| place(program, l)).collect();
                    if program.is_some_and(|p| !p.source_steps.is_empty()) {
                        // Two awaits of one statement are one line.
                        places.dedup();
                    }
                    format!("{name} at {}", places.join("|"))
                }
            });
        }
        out.join(", ")
    }
}

/// How a message names the location `label` of `program`: its line for a program read from C
/// (`line 19`), else the label.
fn place(program: Option<&Program>, label: &str) -> String {
    program.and_then(|p| p.place_name(label)).unwrap_or_else(|| label.to_owned())
}

/// An atomic livelock: a thread that can step forever inside an atomic block.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LivelockId {
    /// The thread's name.
    pub thread: String,
    /// The label of the (outermost) atomic block, `lock` or `down`.
    pub block: String,
}

impl fmt::Display for LivelockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words(None))
    }
}

impl LivelockId {
    /// The livelock in the words of the source `program` was read from, as
    /// [`DeadlockId::shown`]: `worker t[0] loops inside atomic block at line 8` for a program
    /// read from C, its `Display` for a Cwhile program.
    pub fn shown(&self, program: &Program) -> String {
        self.words(Some(program))
    }

    fn words(&self, program: Option<&Program>) -> String {
        let thread = program.map_or(self.thread.as_str(), |p| p.shown_thread(&self.thread));
        match program.and_then(|p| p.place_name(&self.block)) {
            Some(at) => format!("{thread} loops inside atomic block at {at}"),
            None => format!("{thread} loops inside atomic block {}", self.block),
        }
    }
}

/// Which bound was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Bound {
    /// [`Config::max_states`](crate::Config::max_states).
    States,
    /// [`Config::max_memory`](crate::Config::max_memory): the state store's bytes.
    Memory,
    /// [`Config::max_depth`](crate::Config::max_depth).
    Depth,
    /// [`Config::max_time`](crate::Config::max_time).
    Time,
    /// [`Config::max_atomic_states`](crate::Config::max_atomic_states).
    AtomicStates,
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Bound::States => "state bound",
            Bound::Memory => "memory bound",
            Bound::Depth => "depth bound",
            Bound::Time => "time bound",
            Bound::AtomicStates => "atomic-block state bound",
        })
    }
}

/// The answer of [`check`](crate::check()).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// No assertion can fail, no deadlock and no atomic livelock is reachable (within the
    /// loop bound when [`Config::unwind`](crate::Config::unwind) is set).
    Correct,
    /// A bad trace.
    Bad(Box<Counterexample>),
    /// A deadlock and a trace into it.
    Deadlock(DeadlockId, Box<Counterexample>),
    /// An atomic livelock and a trace into its cycle.
    Livelock(LivelockId, Box<Counterexample>),
    /// A bound was reached before anything was found.
    BoundReached {
        /// The bound.
        what: Bound,
        /// States stored when it was reached.
        states: usize,
    },
}

impl Verdict {
    /// A short name: `correct`, `bad`, `deadlock`, `livelock` or `bound reached`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::Bad(_) => "bad",
            Verdict::Deadlock(..) => "deadlock",
            Verdict::Livelock(..) => "livelock",
            Verdict::BoundReached { .. } => "bound reached",
        }
    }

    /// The counterexample, when there is one.
    pub fn counterexample(&self) -> Option<&Counterexample> {
        match self {
            Verdict::Bad(c) | Verdict::Deadlock(_, c) | Verdict::Livelock(_, c) => Some(c),
            _ => None,
        }
    }
}

/// What [`check`](crate::check()) found and what it did.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CheckResult {
    /// The verdict.
    pub verdict: Verdict,
    /// States stored.
    pub states: usize,
    /// Transitions executed (including those the reduction then dropped).
    pub transitions: u64,
    /// Breadth-first levels explored.
    pub depth: usize,
    /// States whose expansion the partial-order reduction reduced.
    pub reduced_states: usize,
    /// Wall time.
    pub time: Duration,
    /// The loop bound used ([`Config::unwind`](crate::Config::unwind)); `None`: exact.
    pub unwind: Option<u32>,
    /// Whether some path was cut by the loop bound (the verdict may then miss behaviours).
    pub unwind_reached: bool,
    /// The bound that ended the search early, if any (also when a failure was found before
    /// it, with [`Config::stop_at_first_failure`](crate::Config::stop_at_first_failure) off: the lists below may then be partial).
    pub bound: Option<Bound>,
    /// When the breadth-first search with merging met the failing assertion the verdict
    /// names: the states it had stored when it began to expand the level where it met it
    /// (every state of the levels above, and their successors); 0 otherwise. That search
    /// expands states in the same order whatever it looks for beyond failing assertions and
    /// wherever it stops, so a search breadth first with merging of the same program, bounded
    /// by [`Config::max_states`](crate::Config::max_states) below this, meets no failing
    /// assertion, and nor does one without merging that the check ran before it (it met
    /// none within its bound, [`Config::unmerged_states`](crate::Config::unmerged_states)).
    pub clean_states: usize,
    /// Every reachable deadlock with one shortest witness (all of them only when
    /// [`Config::stop_at_first_failure`](crate::Config::stop_at_first_failure) is off).
    pub deadlocks: BTreeMap<DeadlockId, Counterexample>,
    /// Every reachable atomic livelock with a witness (likewise).
    pub livelocks: BTreeMap<LivelockId, Counterexample>,
    /// For every assertion (or step with a division) found failing: its label and a
    /// shortest bad trace (likewise).
    pub failures: BTreeMap<String, Counterexample>,
    /// With [`Config::failures_per_assertion`](crate::Config::failures_per_assertion) above
    /// 1: per failing assertion of [`CheckResult::failures`], further shortest bad traces
    /// whose failures' data flows run through other threads than the first's and each
    /// other's. Empty otherwise.
    pub more_failures: BTreeMap<String, Vec<Counterexample>>,
    /// With [`Config::deadlocks_after_failure`](crate::Config::deadlocks_after_failure): every deadlock reachable on a run where a
    /// step had already failed, with a shortest such run (its trace shows the failure).
    /// Empty otherwise.
    pub deadlocks_after_failure: BTreeMap<DeadlockId, Counterexample>,
    /// The labels of the assertions some explored transition passed: executed with its
    /// condition true (inside an atomic block: on a path that gets through it). Every
    /// assertion that can pass when the search went through the whole space (no
    /// [`CheckResult::bound`], and [`Config::stop_at_first_failure`](crate::Config::stop_at_first_failure) off or nothing found); a
    /// part of them otherwise. A check that asks whether a change left some assertion
    /// checking nothing compares these.
    pub passed_assertions: BTreeSet<String>,
    /// With [`Config::outcomes`](crate::Config::outcomes): the program's outcomes, the values
    /// of its globals (in declaration order) in each state reached where every thread is at
    /// its end or may stop where it stands. All of them when the search went through the
    /// whole space (no [`CheckResult::bound`], and nothing found that stopped it); every one
    /// listed is reachable. Empty otherwise.
    pub outcomes: BTreeSet<Vec<i64>>,
    /// With [`Config::outcome_runs`](crate::Config::outcome_runs): per outcome of
    /// [`CheckResult::outcomes`] (up to [`Config::MAX_OUTCOME_RUNS`](crate::Config::MAX_OUTCOME_RUNS)),
    /// a schedule of a run that ends in it (replayable with [`replay`](crate::replay)). Empty
    /// otherwise.
    pub outcome_runs: BTreeMap<Vec<i64>, Schedule>,
}

/// The verdict in words: `correct`, `bad: 3 fails`, `bad: division by zero at q1`, `bad:
/// shift out of range at q1`,
/// `deadlock: ...`, `atomic livelock: ...`, `state bound reached after N states`.
impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words(None))
    }
}

impl Verdict {
    /// The verdict in the words of the source `program` was read from: for a program read
    /// from C, its places by line and its threads by the names traces show them by (`bad:
    /// assertion at line 20 fails`, `deadlock: main at line 19, worker t[0] done`,
    /// [`DeadlockId::shown`]); for a Cwhile program the same as its `Display`.
    pub fn shown(&self, program: &Program) -> String {
        self.words(Some(program))
    }

    fn words(&self, program: Option<&Program>) -> String {
        match self {
            Verdict::Correct => "correct".to_owned(),
            Verdict::Bad(c) => {
                let label = c.failing_label().unwrap_or("?");
                let line = program.and_then(|p| p.place_name(label));
                let at = line.as_deref().unwrap_or(label);
                if c.division_by_zero {
                    format!("bad: division by zero at {at}")
                } else if c.shift_out_of_range {
                    format!("bad: shift out of range at {at}")
                } else if line.is_some() {
                    format!("bad: assertion at {at} fails")
                } else {
                    format!("bad: {label} fails")
                }
            }
            Verdict::Deadlock(id, _) => format!("deadlock: {}", id.words(program)),
            Verdict::Livelock(id, _) => format!("atomic livelock: {}", id.words(program)),
            Verdict::BoundReached { what, states } => format!("{what} reached after {states} states"),
        }
    }
}

impl CheckResult {
    /// The verdict in words with what qualifies it (a bound reached after a failure was
    /// found, the loop bound), without the statistics that [`CheckResult`]'s `Display` adds.
    pub fn verdict_text(&self) -> String {
        self.qualified(self.verdict.to_string())
    }

    /// [`CheckResult::verdict_text`] in the words of the source `program` was read from
    /// ([`Verdict::shown`]).
    pub fn verdict_text_in(&self, program: &Program) -> String {
        self.qualified(self.verdict.shown(program))
    }

    fn qualified(&self, mut s: String) -> String {
        if let (Some(b), false) = (self.bound, matches!(self.verdict, Verdict::BoundReached { .. })) {
            s.push_str(&format!(" ({b} reached)"));
        }
        if let Some(n) = self.unwind {
            s.push_str(&format!(" (loops unwound to {n}{})", if self.unwind_reached { ", bound hit" } else { "" }));
        }
        s
    }
}

impl fmt::Display for CheckResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; {} states, {} transitions, {:.3}s",
            self.verdict_text(),
            self.states,
            self.transitions,
            self.time.as_secs_f64()
        )
    }
}

/// What a check found, with a witness each, keyed as in [`CheckResult`].
#[derive(Default)]
pub(super) struct Findings {
    pub deadlocks: BTreeMap<DeadlockId, Counterexample>,
    pub livelocks: BTreeMap<LivelockId, Counterexample>,
    pub failures: BTreeMap<String, Counterexample>,
    pub more_failures: BTreeMap<String, Vec<Counterexample>>,
    pub deadlocks_after_failure: BTreeMap<DeadlockId, Counterexample>,
    pub passed_assertions: BTreeSet<String>,
    pub outcomes: BTreeSet<Vec<i64>>,
    pub outcome_runs: BTreeMap<Vec<i64>, Schedule>,
}

impl Findings {
    /// Takes in what an earlier search of the same check found: every passed assertion, and
    /// per failing assertion, deadlock and livelock its witness where `take` says so, given
    /// the witness held (if any) and the one offered.
    pub(super) fn take_from(&mut self, from: Findings, take: fn(Option<&Counterexample>, &Counterexample) -> bool) {
        fn merge<K: Ord>(
            into: &mut BTreeMap<K, Counterexample>,
            from: BTreeMap<K, Counterexample>,
            take: fn(Option<&Counterexample>, &Counterexample) -> bool,
        ) {
            for (k, w) in from {
                if take(into.get(&k), &w) {
                    into.insert(k, w);
                }
            }
        }
        merge(&mut self.failures, from.failures, take);
        for (label, more) in from.more_failures {
            self.more_failures.entry(label).or_insert(more);
        }
        merge(&mut self.deadlocks, from.deadlocks, take);
        merge(&mut self.livelocks, from.livelocks, take);
        merge(&mut self.deadlocks_after_failure, from.deadlocks_after_failure, take);
        self.passed_assertions.extend(from.passed_assertions);
        self.outcomes.extend(from.outcomes);
        for (outcome, run) in from.outcome_runs {
            self.outcome_runs.entry(outcome).or_insert(run);
        }
    }
}

/// What a search did, as [`CheckResult`] counts it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Effort {
    pub states: usize,
    pub transitions: u64,
    pub depth: usize,
    pub reduced_states: usize,
    pub unwind_reached: bool,
    pub bound: Option<Bound>,
    /// [`CheckResult::clean_states`].
    pub clean: usize,
}

/// What one search, or the searches of a check together, answer: a [`CheckResult`] but for
/// the clock and the loop bound asked for.
pub(super) struct Answer {
    pub verdict: Verdict,
    pub found: Findings,
    pub effort: Effort,
}

impl Answer {
    /// The result of a check that started at `start` with loop bound `unwind`.
    pub(super) fn into_result(self, unwind: Option<u32>, start: Instant) -> CheckResult {
        let Answer { verdict, found, effort } = self;
        CheckResult {
            verdict,
            states: effort.states,
            transitions: effort.transitions,
            depth: effort.depth,
            reduced_states: effort.reduced_states,
            time: start.elapsed(),
            unwind,
            unwind_reached: effort.unwind_reached,
            bound: effort.bound,
            clean_states: effort.clean,
            deadlocks: found.deadlocks,
            livelocks: found.livelocks,
            failures: found.failures,
            more_failures: found.more_failures,
            deadlocks_after_failure: found.deadlocks_after_failure,
            passed_assertions: found.passed_assertions,
            outcomes: found.outcomes,
            outcome_runs: found.outcome_runs,
        }
    }
}
