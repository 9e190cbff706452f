//! The repair loop (the paper's Algorithm 2, design section 7), its configuration and report.

use std::collections::BTreeSet;
use std::fmt;
use std::time::{Duration, Instant};

use paces_constraint::{Atom, Candidate, Space, Stats, Transformation};
use paces_cwhile::ir::{Program, StmtId, StmtKind};
use paces_explore::{check, good_traces, sequential_final_states, CheckResult, Counterexample, GoodConfig, Verdict};
use paces_generalize::Elimination;
use paces_solver::BackendKind;
use paces_trace::{Trace, Variant};

use crate::learner::{Learner, LearnerConfig, Proposal};
use crate::translate::translate_trace;
use crate::{diff::line_diff, Error, ErrorKind};

/// Which traces the loop learns from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// PACES: learn from good traces of the original program first, then from bad traces.
    #[default]
    Mixed,
    /// The CEGIS baseline: learn from counterexamples only.
    BadOnly,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Mixed => "mixed",
            Mode::BadOnly => "bad-only",
        })
    }
}

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopReason {
    /// A repair was found and accepted by the checker.
    Repaired,
    /// The program has no reachable assertion failure: nothing to repair.
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
    /// The checker reached one of its bounds.
    BoundReached {
        /// What was reached.
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
            StopReason::BoundReached { what } => write!(f, "the checker reached its {what}"),
        }
    }
}

/// Why the accepted program was accepted: each check the final candidate passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Acceptance {
    /// No assertion can fail.
    pub no_assertion_failure: bool,
    /// Every reachable deadlock was reachable in the original.
    pub no_new_deadlock: bool,
    /// Every reachable atomic livelock was reachable in the original.
    pub no_new_livelock: bool,
    /// The final states of complete sequential traces equal the original's.
    pub same_sequential_states: bool,
}

/// Where the time went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimeSplit {
    /// Model checking (candidates, good traces, sequential states).
    pub explore: Duration,
    /// LearnGoodUnder and bad-trace elimination.
    pub learn: Duration,
    /// Choosing candidates.
    pub solve: Duration,
    /// The whole run.
    pub total: Duration,
}

/// What one iteration learned from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Iteration {
    /// `bad`, `deadlock`, `livelock` or `sequential`.
    pub kind: &'static str,
    /// What went wrong, in words (the failing label, the deadlock, ...).
    pub problem: String,
    /// The schedule of the trace learned from (labels), empty when none.
    pub schedule: Vec<String>,
    /// Fixes its elimination graph offered.
    pub fixes: usize,
    /// The transformations of the candidate proposed afterwards (empty when none).
    pub proposal: Vec<String>,
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
    /// The repaired program's canonical text.
    pub repaired_text: Option<String>,
    /// The original program's canonical text.
    pub original_text: String,
    /// The accepted candidate.
    pub candidate: Option<Candidate>,
    /// The transformations from the original to the repair.
    pub transformations: Vec<Transformation>,
    /// The transformations in words (`swap A <-> B`, `atomic [A; B]`).
    pub transformation_text: Vec<String>,
    /// A line diff of the canonical texts.
    pub diff: String,
    /// Bad-trace rounds (bad, deadlock or livelock traces eliminated).
    pub iterations: usize,
    /// Good traces learned from.
    pub good_traces: usize,
    /// Good traces whose fallback was relaxed to their covered edges because it conflicted
    /// with the other constraints ([`Repair::relax_on_conflict`]).
    pub relaxed_good_traces: usize,
    /// Times a bad trace's fixes were searched again with a larger K because they conflicted
    /// with the other constraints ([`Repair::relax_on_conflict`]).
    pub deepened_bad_traces: usize,
    /// Constraints learned from new deadlocks of candidates that were dropped because they
    /// conflicted with the other constraints ([`Repair::relax_on_conflict`]).
    pub dropped_constraints: usize,
    /// Bad (or deadlock) traces learned from.
    pub bad_traces: usize,
    /// Size of the conjunction of every learned constraint.
    pub constraint: Stats,
    /// States the checker stored, summed over every check.
    pub states_explored: usize,
    /// States of the first check of the original program.
    pub original_states: usize,
    /// Where the time went.
    pub time: TimeSplit,
    /// The checks the final program passed (for a repair).
    pub acceptance: Option<Acceptance>,
    /// The iterations in order.
    pub history: Vec<Iteration>,
    /// Deadlocks of the original program (they are allowed to remain).
    pub original_deadlocks: Vec<String>,
    /// The space of the original program (names locations).
    pub space: Space,
    /// Graphs in DOT, named (`good-1.dot`, `bad-1-order.dot`, `bad-1-fix-1.dot`), when
    /// [`Repair::dot`] is on.
    pub dots: Vec<(String, String)>,
}

/// The repair loop, configured with consuming setters (each documents its default).
///
/// # Example
/// ```
/// let program = paces_cwhile::parse(
///     "var x = 0, y = 0;\n thread t1 { A: x := 1; B: y := 1; }\n thread t2 { 1: await(y == 1); 2: assert(x == 1); }",
/// )?;
/// let report = paces::Repair::new().run(&program)?;
/// assert_eq!(report.stop, paces::StopReason::AlreadyCorrect);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Repair {
    mode: Mode,
    good: GoodConfig,
    learner: LearnerConfig,
    check: paces_explore::Config,
    max_iterations: usize,
    time_limit: Option<Duration>,
    dot: bool,
}

impl Default for Repair {
    fn default() -> Self {
        Repair {
            mode: Mode::Mixed,
            good: GoodConfig::new(),
            learner: LearnerConfig::new(),
            check: paces_explore::Config::new(),
            max_iterations: 100,
            time_limit: None,
            dot: false,
        }
    }
}

impl Repair {
    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// Mixed (PACES) or bad-only (CEGIS). Default: [`Mode::Mixed`].
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Which good traces to learn from and their limits. Default: [`GoodConfig::new`]
    /// (preemption-free, per-assertion up to 10, sequential).
    pub fn good_traces(mut self, config: GoodConfig) -> Self {
        self.good = config;
        self
    }

    /// LearnGoodUnder's fallback on or off. Default: on.
    pub fn fallback(mut self, on: bool) -> Self {
        self.learner = self.learner.fallback(on);
        self
    }

    /// Whether a constraint stronger than what is known (a good trace's fallback, a bad
    /// trace's fixes found with K constraint edges, a new deadlock's guess) that conflicts
    /// with the other constraints is relaxed rather than ending the run with "no repair"
    /// ([`LearnerConfig::relax_on_conflict`](crate::LearnerConfig::relax_on_conflict)). Default: on.
    pub fn relax_on_conflict(mut self, on: bool) -> Self {
        self.learner = self.learner.relax_on_conflict(on);
        self
    }

    /// LearnGoodUnder variant. Default: [`Variant::Full`].
    pub fn variant(mut self, variant: Variant) -> Self {
        self.learner = self.learner.variant(variant);
        self
    }

    /// The most constraint edges on one elimination cycle (K). Default: 3
    /// ([`LearnerConfig::max_constraint_edges`](crate::LearnerConfig::max_constraint_edges)).
    pub fn max_constraint_edges(mut self, k: usize) -> Self {
        self.learner = self.learner.max_constraint_edges(k);
        self
    }

    /// How far K grows for a bad trace whose fixes conflict with the other constraints
    /// ([`LearnerConfig::deepen_to`](crate::LearnerConfig::deepen_to)). Default: 4.
    pub fn deepen_to(mut self, k: usize) -> Self {
        self.learner = self.learner.deepen_to(k);
        self
    }

    /// The SAT backend. Default: the pure-Rust one.
    pub fn backend(mut self, backend: BackendKind) -> Self {
        self.learner = self.learner.backend(backend);
        self
    }

    /// The checker's bounds and switches. Default: [`paces_explore::Config::new`] (exact,
    /// partial-order reduction on, parallel). The loop always explores fully (it needs every
    /// deadlock), whatever `stop_at_first_failure` says.
    pub fn checker(mut self, config: paces_explore::Config) -> Self {
        self.check = config;
        self
    }

    /// Worker threads of the checker (`None`: all cores). Default: `None`.
    pub fn threads(mut self, n: Option<usize>) -> Self {
        self.check = self.check.threads(n);
        self
    }

    /// The most bad-trace rounds. Default: 100.
    pub fn max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }

    /// A wall-clock limit for the whole run. Default: none.
    pub fn time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
        self
    }

    /// Collect DOT graphs of every trace graph, partial order and fix cycle. Default: off.
    pub fn dot(mut self, on: bool) -> Self {
        self.dot = on;
        self
    }

    /// Repairs `program`.
    ///
    /// # Errors
    /// Only when a component fails (a bug or a malformed input); every verdict, including
    /// "no repair", is a [`Report`].
    pub fn run(&self, program: &Program) -> Result<Report, Error> {
        Run::new(self, program).go()
    }
}

/// Deadlock and livelock identities of a program.
type Sets = (BTreeSet<paces_explore::DeadlockId>, BTreeSet<paces_explore::LivelockId>);

/// Configurations the free-transformation search of one good trace may visit.
const FREE_BUDGET: usize = 5_000;

/// Configurations the completion of a bad trace may visit.
const COMPLETION_BUDGET: usize = 200_000;

/// What the current candidate is rejected for.
enum Rejection {
    Trace { kind: &'static str, problem: String, cex: Counterexample },
    Livelock { problem: String, block_label: String },
    Sequential,
}

struct Run<'a> {
    cfg: &'a Repair,
    program: &'a Program,
    start: Instant,
    time: TimeSplit,
    states: usize,
    dots: Vec<(String, String)>,
    history: Vec<Iteration>,
}

impl<'a> Run<'a> {
    fn new(cfg: &'a Repair, program: &'a Program) -> Self {
        Run {
            cfg,
            program,
            start: Instant::now(),
            time: TimeSplit::default(),
            states: 0,
            dots: Vec::new(),
            history: Vec::new(),
        }
    }

    fn timed<T>(slot: &mut Duration, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        *slot += t.elapsed();
        out
    }

    /// The final states of the complete sequential runs, or the stop when a bound of the
    /// checker (or the loop's time limit) cut them short.
    fn sequential(&mut self, program: &Program) -> Result<Result<BTreeSet<Vec<i64>>, StopReason>, Error> {
        let config = self.check_config();
        match Self::timed(&mut self.time.explore, || sequential_final_states(program, &config)) {
            Ok(seq) => Ok(Ok(seq)),
            Err(e) if *e.kind() == paces_explore::ErrorKind::BoundReached => Ok(Err(if self.out_of_time() {
                StopReason::TimeLimit
            } else {
                StopReason::BoundReached { what: e.to_string() }
            })),
            Err(e) => Err(e.into()),
        }
    }

    fn check_config(&self) -> paces_explore::Config {
        let mut c = self.cfg.check.clone().stop_at_first_failure(false);
        if let Some(limit) = self.cfg.time_limit {
            c = c.max_time(Some(limit.saturating_sub(self.start.elapsed()).max(Duration::from_millis(1))));
        }
        c
    }

    fn check_with(&mut self, program: &Program, stop_at_first: bool) -> Result<CheckResult, Error> {
        let config = self.check_config().stop_at_first_failure(stop_at_first);
        let result = Self::timed(&mut self.time.explore, || check(program, &config))?;
        self.states += result.states;
        Ok(result)
    }

    /// Checks in two stages: up to the first problem (cheap on a buggy candidate, the usual
    /// case), and fully only when that problem is a deadlock or livelock (then every deadlock
    /// and livelock is needed, to compare with the original's, and failures may lie deeper).
    fn check(&mut self, program: &Program) -> Result<CheckResult, Error> {
        let quick = self.check_with(program, true)?;
        match quick.verdict {
            Verdict::Deadlock(..) | Verdict::Livelock(..) => self.check_with(program, false),
            _ => Ok(quick),
        }
    }

    /// The deadlocks and livelocks of the original program (a full exploration, once).
    fn original_sets(&mut self, original: &mut Option<Sets>) -> Result<Sets, Error> {
        if let Some(sets) = original {
            return Ok(sets.clone());
        }
        let full = self.check_with(self.program, false)?;
        let sets: Sets = (full.deadlocks.keys().cloned().collect(), full.livelocks.keys().cloned().collect());
        *original = Some(sets.clone());
        Ok(sets)
    }

    fn out_of_time(&self) -> bool {
        self.cfg.time_limit.is_some_and(|l| self.start.elapsed() >= l)
    }

    fn go(mut self) -> Result<Report, Error> {
        let program = self.program;
        let space = program.space();
        let original_text = paces_cwhile::print(program);
        let original = self.check(program)?;
        let original_states = original.states;
        if let Verdict::BoundReached { what, .. } = &original.verdict {
            let what = what.to_string();
            return Ok(self.finish(StopReason::BoundReached { what }, space, original_text, 0, None, None));
        }
        // Known after a full exploration of the original: the check above went fully through
        // unless it stopped at a bad trace; then they are computed when first needed.
        let mut original_sets: Option<Sets> = match original.verdict {
            Verdict::Bad(_) => None,
            _ => Some((original.deadlocks.keys().cloned().collect(), original.livelocks.keys().cloned().collect())),
        };
        // The original's sequential final states, computed when a candidate first needs them
        // (they can be costly, and a loop that never reaches acceptance does not need them).
        let mut original_seq: Option<BTreeSet<Vec<i64>>> = None;
        let Some(first_bad) = first_failure(&original) else {
            if let Some(bound) = original.bound {
                // Explored in part (after a deadlock, the whole space is searched): an
                // assertion may fail beyond the bound.
                let what = bound.to_string();
                return Ok(self.finish(StopReason::BoundReached { what }, space, original_text, 0, None, None));
            }
            let mut report = self.finish(StopReason::AlreadyCorrect, space, original_text.clone(), 0, None, None);
            report.repaired_text = Some(original_text);
            report.repaired = Some(program.clone());
            if let Some((deadlocks, _)) = &original_sets {
                report.original_deadlocks = deadlocks.iter().map(ToString::to_string).collect();
            }
            return Ok(report);
        };

        let mut learner = Learner::new(space.clone(), self.cfg.learner.clone())?;
        if self.cfg.mode == Mode::Mixed {
            let remaining = self.cfg.time_limit.map(|limit| limit.saturating_sub(self.start.elapsed()));
            let config = self.cfg.good.clone().max_time(remaining);
            let traces = Self::timed(&mut self.time.explore, || good_traces(program, &config))?;
            for (i, t) in traces.iter().enumerate() {
                if self.out_of_time() {
                    break; // the loop below stops with the time limit
                }
                Self::timed(&mut self.time.learn, || {
                    learner.learn_good_checked(t, || paces_explore::freely_bad(program, t, FREE_BUDGET).ok().flatten())
                })?;
                if self.cfg.dot {
                    self.dots.push((format!("good-{}.dot", i + 1), crate::dot::trace_graph(program, t)));
                }
            }
        }

        let mut rejection = Rejection::Trace { kind: "bad", problem: failure_text(&first_bad), cex: first_bad.clone() };
        let mut from_program = program.clone();
        let mut previous: Option<Candidate> = None;
        let mut iterations = 0;
        loop {
            if self.out_of_time() {
                return Ok(self.stop_with(StopReason::TimeLimit, &mut learner, original_text, iterations));
            }
            if iterations >= self.cfg.max_iterations {
                return Ok(self.stop_with(StopReason::IterationLimit, &mut learner, original_text, iterations));
            }
            iterations += 1;
            let mut record =
                Iteration { kind: "", problem: String::new(), schedule: Vec::new(), fixes: 0, proposal: Vec::new() };
            match rejection {
                Rejection::Trace { kind, problem, cex } => {
                    // Execution goes on after a failure: complete the trace so that its
                    // generalisation sees the writes after the failing read.
                    let cex = Self::timed(&mut self.time.explore, || {
                        paces_explore::complete_counterexample(&from_program, &cex, COMPLETION_BUDGET)
                    })?;
                    let trace = translate_trace(&cex.trace, &from_program, program)?;
                    // A new deadlock of a candidate may be freed by a write its trace never
                    // reaches: when the trace offers no fix, the guess is that one of the
                    // moves that led to it must be undone.
                    let undo = match (&previous, kind) {
                        (Some(prev), "deadlock") => Some(undo_blocking_moves(&trace, prev, &space, &mut learner)),
                        _ => None,
                    };
                    let (lesson, elimination) =
                        match Self::timed(&mut self.time.learn, || learner.learn_bad_or(&trace, undo)) {
                            Err(e) if *e.kind() == ErrorKind::Limit => {
                                let what = format!("memory bound in learning from a bad trace: {e}");
                                return Ok(self.stop_with(
                                    StopReason::BoundReached { what },
                                    &mut learner,
                                    original_text,
                                    iterations,
                                ));
                            }
                            r => r?,
                        };
                    if self.cfg.dot {
                        self.push_bad_dots(program, &trace, &elimination, &space, iterations);
                    }
                    record.kind = kind;
                    record.problem = problem;
                    record.schedule = cex.schedule.steps.iter().map(|s| s.label.clone()).collect();
                    record.fixes = lesson.fixes;
                    if lesson.fixes == 0 && previous.is_none() {
                        let explanation = format!(
                            "the elimination graph of the original program's bad trace ({}) has no cycle: \
                             no reordering or atomic section of this space removes it",
                            record.problem
                        );
                        self.history.push(record);
                        return Ok(self.stop_with(
                            StopReason::NoRepair { explanation },
                            &mut learner,
                            original_text,
                            iterations,
                        ));
                    }
                }
                Rejection::Livelock { problem, block_label } => {
                    let c = livelock_constraint(program, &from_program, &space, &block_label, &mut learner);
                    learner.require(c, &format!("livelock in {block_label}"))?;
                    record.kind = "livelock";
                    record.problem = problem;
                }
                Rejection::Sequential => {
                    record.kind = "sequential";
                    record.problem = "the final states of complete sequential traces changed".into();
                }
            }
            if let Some(prev) = &previous {
                // Safety net: a rejected candidate is never proposed again, even when what was
                // learned from it does not exclude it.
                let nogood = nogood(prev, &space, &mut learner);
                learner.require(nogood, "a rejected candidate")?;
            }
            let proposal = Self::timed(&mut self.time.solve, || learner.propose())?;
            let (candidate, transformations) = match proposal {
                Proposal::Unsatisfiable { explanation } => {
                    self.history.push(record);
                    return Ok(self.stop_with(
                        StopReason::NoRepair { explanation },
                        &mut learner,
                        original_text,
                        iterations,
                    ));
                }
                Proposal::Candidate { candidate, transformations, .. } => (candidate, transformations),
            };
            record.proposal = transformations.iter().map(|t| t.display(&space).to_string()).collect();
            self.history.push(record);
            let repaired = program.apply(&candidate).map_err(|e| Error::new(ErrorKind::Apply, e.to_string()))?;
            let result = self.check(&repaired)?;
            if let Verdict::BoundReached { what, .. } = &result.verdict {
                let what = what.to_string();
                return Ok(self.stop_with(StopReason::BoundReached { what }, &mut learner, original_text, iterations));
            }
            let (original_deadlocks, original_livelocks) = if result.deadlocks.is_empty() && result.livelocks.is_empty()
            {
                Sets::default()
            } else {
                self.original_sets(&mut original_sets)?
            };
            let new_deadlock = result.deadlocks.iter().find(|(id, _)| !original_deadlocks.contains(id));
            let new_livelock = result.livelocks.iter().find(|(id, _)| !original_livelocks.contains(id));
            rejection = if let Some(cex) = first_failure(&result) {
                Rejection::Trace { kind: "bad", problem: failure_text(&cex), cex }
            } else if let Some((id, cex)) = new_deadlock {
                Rejection::Trace { kind: "deadlock", problem: format!("new deadlock: {id}"), cex: cex.clone() }
            } else if let Some((id, _)) = new_livelock {
                Rejection::Livelock { problem: format!("new atomic livelock: {id}"), block_label: id.block.clone() }
            } else if let Some(bound) = result.bound {
                // No failure in the part explored: not enough to accept.
                let what = bound.to_string();
                return Ok(self.stop_with(StopReason::BoundReached { what }, &mut learner, original_text, iterations));
            } else {
                if original_seq.is_none() {
                    match self.sequential(program)? {
                        Ok(seq) => original_seq = Some(seq),
                        Err(stop) => return Ok(self.stop_with(stop, &mut learner, original_text, iterations)),
                    }
                }
                let seq = match self.sequential(&repaired)? {
                    Ok(seq) => seq,
                    Err(stop) => return Ok(self.stop_with(stop, &mut learner, original_text, iterations)),
                };
                if Some(&seq) == original_seq.as_ref() {
                    let acceptance = Acceptance {
                        no_assertion_failure: true,
                        no_new_deadlock: true,
                        no_new_livelock: true,
                        same_sequential_states: true,
                    };
                    let mut report = self.finish(
                        StopReason::Repaired,
                        space.clone(),
                        original_text,
                        iterations,
                        Some(&mut learner),
                        Some(acceptance),
                    );
                    let text = paces_cwhile::print(&repaired);
                    report.diff = line_diff(&report.original_text, &text);
                    report.repaired_text = Some(text);
                    report.repaired = Some(repaired);
                    report.transformation_text =
                        transformations.iter().map(|t| t.display(&space).to_string()).collect();
                    report.transformations = transformations;
                    report.candidate = Some(candidate);
                    report.original_states = original_states;
                    if let Some((deadlocks, _)) = &original_sets {
                        report.original_deadlocks = deadlocks.iter().map(ToString::to_string).collect();
                    }
                    return Ok(report);
                }
                Rejection::Sequential
            };
            from_program = repaired;
            previous = Some(candidate);
        }
    }

    fn push_bad_dots(&mut self, program: &Program, trace: &Trace, e: &Elimination, space: &Space, round: usize) {
        let label = |id: paces_trace::EventId| crate::dot::event_label(program, trace, id);
        self.dots.push((format!("bad-{round}-order.dot"), e.partial_order.to_dot(trace, &label)));
        for i in 0..e.fixes.len() {
            if let Some(d) = e.fix_dot(i, trace, space, &label) {
                self.dots.push((format!("bad-{round}-fix-{}.dot", i + 1), d));
            }
        }
    }

    fn stop_with(
        &mut self,
        stop: StopReason,
        learner: &mut Learner,
        original_text: String,
        iterations: usize,
    ) -> Report {
        let space = learner.space().clone();
        self.finish(stop, space, original_text, iterations, Some(learner), None)
    }

    /// The report; what was learned comes from `learner` (none before learning starts).
    fn finish(
        &mut self,
        stop: StopReason,
        space: Space,
        original_text: String,
        iterations: usize,
        learner: Option<&mut Learner>,
        acceptance: Option<Acceptance>,
    ) -> Report {
        self.time.total = self.start.elapsed();
        let (constraint, (good_traces, bad_traces), relaxed_good_traces, deepened_bad_traces, dropped_constraints) =
            match learner {
                Some(l) => (l.stats(), l.counts(), l.relaxed(), l.deepened(), l.dropped()),
                None => (Stats::default(), (0, 0), 0, 0, 0),
            };
        Report {
            stop,
            mode: self.cfg.mode,
            repaired: None,
            repaired_text: None,
            original_text,
            candidate: None,
            transformations: Vec::new(),
            transformation_text: Vec::new(),
            diff: String::new(),
            iterations,
            good_traces,
            relaxed_good_traces,
            deepened_bad_traces,
            dropped_constraints,
            bad_traces,
            constraint,
            states_explored: self.states,
            original_states: 0,
            time: self.time,
            acceptance,
            history: std::mem::take(&mut self.history),
            original_deadlocks: Vec::new(),
            space,
            dots: std::mem::take(&mut self.dots),
        }
    }
}

/// The shortest bad trace of a check, if an assertion can fail.
fn first_failure(result: &CheckResult) -> Option<Counterexample> {
    if let Verdict::Bad(c) = &result.verdict {
        return Some((**c).clone());
    }
    result.failures.values().min_by_key(|c| c.schedule.steps.len()).cloned()
}

fn failure_text(cex: &Counterexample) -> String {
    match cex.failing_step.and_then(|i| cex.schedule.steps.get(i)) {
        Some(step) => format!("`{}` fails", step.label),
        None => "a failure".into(),
    }
}

/// A constraint that excludes exactly the block orders and sections of `candidate` (up to the
/// order inside its sections, which atoms cannot name).
fn nogood(candidate: &Candidate, space: &Space, learner: &mut Learner) -> paces_constraint::NodeId {
    let arena = learner.arena_mut();
    let mut parts = Vec::new();
    for block in space.blocks() {
        let order = candidate.order(block);
        for w in order.windows(2) {
            let (a, b) = (w[0], w[1]);
            if candidate.in_one_section(a, b) {
                parts.push(arena.atom(Atom::atomic(a, b)));
            } else {
                let at = arena.atom(Atom::atomic(a, b));
                let not_at = arena.not(at);
                let ord = arena.atom(Atom::Order(a, b));
                parts.push(not_at);
                parts.push(ord);
            }
        }
    }
    let all = arena.and(parts);
    arena.not(all)
}

/// For a new deadlock whose trace offers no fix: one of the candidate's inversions that moved a
/// blocked step's item in front of an item it originally followed must be undone (the
/// disjunction of `a` strictly before `b` over those pairs). `true` when there is none (the no-good of
/// the rejected candidate still excludes it).
fn undo_blocking_moves(
    trace: &Trace,
    candidate: &Candidate,
    space: &Space,
    learner: &mut Learner,
) -> paces_constraint::NodeId {
    let mut blocked_items = BTreeSet::new();
    for step in trace.blocked() {
        for entry in &step.scope {
            blocked_items.insert(entry.item);
        }
    }
    let arena = learner.arena_mut();
    let mut options = Vec::new();
    for &w in &blocked_items {
        let Some((block, i)) = space.item_position(w) else { continue };
        let items = space.items(block);
        let Some(pw) = candidate.position(w) else { continue };
        for (j, &x) in items.iter().enumerate() {
            let Some(px) = candidate.position(x) else { continue };
            // x originally after w but now before it: a later write may have been moved up;
            // x originally before w but now after it: the wait was moved up.
            // Strictly before: an atomic section holding both would satisfy `Order` alone.
            let (a, b) = if j < i && px > pw {
                (x, w)
            } else if j > i && px < pw {
                (w, x)
            } else {
                continue;
            };
            let order = arena.atom(Atom::Order(a, b));
            let together = arena.atom(Atom::atomic(a, b));
            let apart = arena.not(together);
            options.push(arena.and([order, apart]));
        }
    }
    if options.is_empty() {
        return arena.tru();
    }
    arena.or(options)
}

/// Whether a statement holds a loop (through calls).
fn holds_loop(program: &Program, stmt: StmtId) -> bool {
    let mut stack = vec![stmt];
    let mut seen_procs = BTreeSet::new();
    while let Some(s) = stack.pop() {
        let blocks: Vec<paces_constraint::BlockId> = match &program.stmt(s).kind {
            StmtKind::While { .. } => return true,
            StmtKind::If { then_block, else_block, .. } => std::iter::once(*then_block).chain(*else_block).collect(),
            StmtKind::Atomic(b) | StmtKind::NoReorder(b) => vec![*b],
            StmtKind::Call(p) => {
                if seen_procs.insert(p.index()) {
                    vec![program.procs[p.index()].body]
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        };
        for b in blocks {
            stack.extend(program.block(b).items.iter().copied());
        }
    }
    false
}

/// For a livelock inside an added atomic section labelled `block_label` of `candidate_program`:
/// every item of that section holding a loop may not be in any section. For a livelock in a
/// user-written atomic block (which no transformation can change), `true` (the loop's no-good
/// of the rejected candidate does the work).
fn livelock_constraint(
    program: &Program,
    candidate_program: &Program,
    space: &Space,
    block_label: &str,
    learner: &mut Learner,
) -> paces_constraint::NodeId {
    let arena = learner.arena_mut();
    let Some(stmt) = candidate_program.loc(block_label).and_then(|l| candidate_program.stmt_at(l)) else {
        return arena.tru();
    };
    let StmtKind::Atomic(body) = candidate_program.stmt(stmt).kind else { return arena.tru() };
    if program.loc(block_label).is_some() {
        // A user-written atomic block: no transformation changes it; the no-good of the
        // rejected candidate excludes it instead.
        return arena.tru();
    }
    let mut parts = Vec::new();
    for &item in &candidate_program.block(body).items {
        if !holds_loop(candidate_program, item) {
            continue;
        }
        let Some(loc) = program.loc(&candidate_program.stmt(item).label) else { continue };
        let Some(block) = space.block_of(loc) else { continue };
        for &other in space.items(block) {
            if other != loc {
                let at = arena.atom(Atom::atomic(loc, other));
                parts.push(arena.not(at));
            }
        }
    }
    arena.and(parts)
}
