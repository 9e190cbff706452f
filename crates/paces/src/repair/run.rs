//! One run of the repair loop, as its phases: judge the original, learn from its good traces,
//! then repeat (learn from the last rejection, propose a candidate, judge it) until a
//! candidate is accepted or the run stops.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use paces_constraint::{BlockId, Candidate, Cost, Space, Transformation};
use paces_cwhile::ir::{Program, StmtKind};
use paces_explore::{
    check, complete_counterexample, freely_bad, search_good_traces, sequential_final_states, translate_trace, Bound,
    CheckResult, Counterexample, DeadlockId, LivelockId, Verdict,
};
use paces_generalize::Elimination;
use paces_learn::{Learner, Proposal};
use paces_trace::Trace;

use super::report::{
    Acceptance, Accepted, AdmittedDeadlock, DeadlockRule, Exhaustive, Iteration, IterationKind, Optimality,
    ReportBuilder, StopReason, TimeSplit,
};
use super::{Mode, Repair, RepairEvent, Report};
use crate::{Error, ErrorKind};

/// Configurations the free-transformation search of one good trace may visit.
const FREE_BUDGET: usize = 5_000;

/// Configurations the completion of a bad trace may visit.
const COMPLETION_BUDGET: usize = 200_000;

/// The most cheaper candidates the optimisation phase judges in a space too large to list.
const OPTIMISE_CHECKS: usize = 10;

/// The largest space the optimisation phase lists whole (or [`Repair::exhaustive_limit`] when
/// that is larger): listing costs little next to judging, and only cheaper candidates are
/// judged.
const OPTIMISE_LIST_LIMIT: usize = 100_000;

/// Iterations in a row whose rejection has nothing to generalise (no fix, or a candidate that
/// hides an assertion or changes the sequential final states) after which the loop stops
/// walking the space one candidate at a time: in a space of at most [`OPTIMISE_LIST_LIMIT`]
/// candidates (or the exhaustive search's limit, if larger) it judges the candidates in cost
/// order instead, which ends in the cheapest repair or a proof that there is none.
const BLIND_ITERATIONS: usize = 5;

/// Runs the loop of `cfg` on `program`.
pub(super) fn run(cfg: &Repair, program: &Program) -> Result<Report, Error> {
    let mut run = Run::new(cfg, program);
    let stop = run.go()?;
    Ok(run.report.finish(stop, run.learner.as_mut()))
}

/// What a candidate (or the original) was rejected for.
pub(super) enum Rejection {
    /// An assertion fails or a new deadlock is reachable: a trace to learn from.
    Trace { kind: IterationKind, problem: String, cex: Counterexample },
    /// A new atomic livelock in the atomic block labelled `block_label`.
    Livelock { problem: String, block_label: String },
    /// The sequential final states changed.
    Sequential,
    /// Assertions the original checks are reached no more (their labels; see
    /// [`Run::unreached`]).
    Unreached(Vec<String>),
}

impl Rejection {
    fn iteration(&self) -> Iteration {
        match self {
            Rejection::Trace { kind, problem, .. } => Iteration::new(*kind, problem.clone()),
            Rejection::Livelock { problem, .. } => Iteration::new(IterationKind::Livelock, problem.clone()),
            Rejection::Sequential => Iteration::new(
                IterationKind::Sequential,
                "the final states of complete sequential traces changed".into(),
            ),
            Rejection::Unreached(labels) => Iteration::new(
                IterationKind::Unreached,
                format!("assertions the original checks are reached no more: {}", labels.join(", ")),
            ),
        }
    }
}

/// A rejected program: the original (no candidate) or a candidate applied.
struct Rejected {
    why: Rejection,
    program: Program,
    candidate: Option<Candidate>,
}

/// The judgement of a candidate.
pub(super) enum Judgement {
    /// Accepted; with the counterexample of the first deadlock admitted only because the
    /// original reaches the same blocked threads after a failure, if any.
    Accepted(Acceptance, Option<(DeadlockId, Counterexample)>),
    Rejected(Rejection),
    Stop(StopReason),
}

/// Deadlock and livelock identities of a program.
type Sets = (BTreeSet<DeadlockId>, BTreeSet<LivelockId>);

/// Facts of the original program that only some candidates need, computed once.
#[derive(Default)]
struct Original {
    sets: Option<Sets>,
    /// The blocked threads of every deadlock reachable after an assertion failed.
    after_failure: Option<BTreeSet<BTreeSet<String>>>,
    sequential: Option<BTreeSet<Vec<i64>>>,
    /// The assertions some check of the original saw pass, and those it saw fail, and
    /// whether that is all of them (a check went through the whole space).
    passed: BTreeSet<String>,
    failed: BTreeSet<String>,
    checked_all: bool,
}

impl Original {
    /// Notes what a check of the original saw pass and fail.
    fn saw(&mut self, result: &CheckResult) {
        self.passed.extend(result.passed_assertions.iter().cloned());
        self.failed.extend(result.failures.keys().cloned());
    }
}

pub(super) struct Run<'a> {
    cfg: &'a Repair,
    program: &'a Program,
    pub(super) space: Space,
    pub(super) report: ReportBuilder,
    original: Original,
    learner: Option<Learner>,
    /// A program accepted with a deadlock admitted only after a failure, in reserve, and the
    /// number of iterations when it was found.
    reserve: Option<(Accepted, usize)>,
    /// The number of candidates of the space when it is small enough to list, once counted.
    listable: Option<Option<usize>>,
    /// Per problem rejected candidates had with nothing to generalise: the changes they
    /// shared, and how many there were (see [`Run::learn_shared_cause`]).
    causes: BTreeMap<String, (BTreeSet<Transformation>, usize)>,
}

/// How many more iterations the loop spends looking for a repair without deadlocks admitted
/// only after a failure, once it holds one with them.
const STRICT_SEARCH_ITERATIONS: usize = 10;

impl<'a> Run<'a> {
    pub(super) fn new(cfg: &'a Repair, program: &'a Program) -> Self {
        let space = program.space();
        let report = ReportBuilder::new(cfg.mode, program, space.clone());
        Run {
            cfg,
            program,
            space,
            report,
            original: Original::default(),
            learner: None,
            reserve: None,
            listable: None,
            causes: BTreeMap::new(),
        }
    }

    /// Runs the loop. A program accepted only because a deadlock of it has the blocked
    /// threads of one the original reaches after a failure is kept in reserve while the loop
    /// looks, for at most [`STRICT_SEARCH_ITERATIONS`] more iterations, for a repair whose
    /// deadlocks the original reaches at the same place (a repair that hangs where the
    /// original failed is worse than one that does neither), with the good traces' fallbacks
    /// relaxed to their covered edges; the reserve is the answer when that search ends
    /// without one.
    fn go(&mut self) -> Result<StopReason, Error> {
        let stop = match self.iterate() {
            // The learner's SAT search stopped at the time limit.
            Err(e) if *e.kind() == ErrorKind::Deadline => StopReason::TimeLimit,
            r => r?,
        };
        let stop = match self.reserve.take() {
            Some((accepted, _)) if !stop.is_success() => {
                self.report.accept(accepted);
                StopReason::Repaired
            }
            _ => stop,
        };
        if stop == StopReason::Repaired && self.cfg.optimise && self.report.optimality.is_none() {
            self.optimise()?;
        }
        Ok(stop)
    }

    /// The optimisation phase: what the loop learned includes guesses (a good trace's
    /// fallback freezes more orders than the trace needs; a bad trace's fixes are the cycles
    /// of at most K constraint edges), so the accepted repair may not be a cheapest one. A
    /// single swap is the least change there is. In a space small enough to list, every
    /// cheaper candidate is judged, cheapest first; otherwise the fallbacks are relaxed and the
    /// learner is asked for cheaper candidates, each judged and, when rejected, learned from,
    /// up to [`OPTIMISE_CHECKS`]. A cheaper accepted candidate replaces the repair.
    fn optimise(&mut self) -> Result<(), Error> {
        let Some(cost) = self.report.accepted_candidate().map(|c| c.cost(&self.space)) else {
            return Ok(());
        };
        let optimality = if cost == (Cost { atomic_weight: 0, inversions: 1 }) {
            Optimality::Proved("a single swap is the least change, and the original program is rejected".into())
        } else {
            let searched = match self.listable() {
                Some(n) => self.optimise_by_listing(cost, n),
                None => self.optimise_by_learning(cost),
            };
            match searched {
                Err(e) if *e.kind() == ErrorKind::Deadline => Optimality::CheapestFound(
                    "the time limit came during the search for a cheaper candidate".to_owned(),
                ),
                r => r?,
            }
        };
        self.report.optimality = Some(optimality);
        Ok(())
    }

    /// Judges every candidate cheaper than `cost` of a space of `size` candidates, cheapest
    /// first; the first accepted replaces the repair.
    fn optimise_by_listing(&mut self, cost: Cost, size: usize) -> Result<Optimality, Error> {
        let mut cheaper = super::optimum::in_cost_order(&self.space, size)?;
        cheaper.retain(|c| c.cost(&self.space) < cost);
        let total = cheaper.len();
        for (checked, candidate) in cheaper.into_iter().enumerate() {
            if self.out_of_time() {
                let why = format!("the time limit came after {checked} of the {total} cheaper candidates");
                return Ok(Optimality::CheapestFound(why));
            }
            let program = self.program.apply(&candidate)?;
            match self.judge(&program)? {
                Judgement::Accepted(acceptance, None) => {
                    let transformations = candidate.transformations(&self.space);
                    let acceptance = Some(acceptance);
                    self.report.accept(Accepted { program, candidate, transformations, acceptance });
                    let why = format!(
                        "the optimisation phase judged the {} candidates cheaper than the loop's repair in cost \
                         order and took the first accepted",
                        checked + 1
                    );
                    return Ok(Optimality::Proved(why));
                }
                Judgement::Accepted(_, Some(_)) | Judgement::Rejected(_) => {}
                Judgement::Stop(stop) => {
                    let why = format!(
                        "the checker stopped ({}) after {checked} of the {total} cheaper candidates",
                        stop.name()
                    );
                    return Ok(Optimality::CheapestFound(why));
                }
            }
        }
        let why = format!("each of the space's {total} cheaper candidates was judged and rejected");
        Ok(Optimality::Proved(why))
    }

    /// Asks the learner, its fallbacks relaxed, for candidates cheaper than `cost`; judges
    /// each, learning from the rejected ones, up to [`OPTIMISE_CHECKS`].
    fn optimise_by_learning(&mut self, mut cost: Cost) -> Result<Optimality, Error> {
        let may_relax = self.cfg.learner.relaxes_on_conflict();
        if may_relax {
            let learner = self.learner.as_mut().expect("the learner is made before the loop learns");
            learner.relax_fallbacks()?;
        }
        self.exclude_accepted()?;
        let mut checked = 0;
        let not_tried = "cheaper candidates that the bad traces' fixes (at most K constraint edges) and the good \
                         traces' covered edges exclude were not judged";
        while checked < OPTIMISE_CHECKS {
            if self.out_of_time() {
                return Ok(Optimality::CheapestFound(format!("the time limit came; {not_tried}")));
            }
            let learner = self.learner.as_mut().expect("the learner is made before the loop learns");
            let proposal = self.report.timed(solve, || learner.propose())?;
            let (candidate, transformations) = match proposal {
                Proposal::Candidate { candidate, cost: c, transformations } if c < cost => (candidate, transformations),
                _ => {
                    let why =
                        format!("no cheaper candidate satisfies what the loop learned ({checked} judged); {not_tried}");
                    return Ok(Optimality::CheapestFound(why));
                }
            };
            checked += 1;
            let program = self.program.apply(&candidate)?;
            match self.judge(&program)? {
                Judgement::Accepted(acceptance, None) => {
                    cost = candidate.cost(&self.space);
                    let acceptance = Some(acceptance);
                    self.report.accept(Accepted { program, candidate, transformations, acceptance });
                    self.exclude_accepted()?;
                }
                Judgement::Accepted(_, Some((_, cex))) => {
                    let problem = "deadlock admitted only after a failure".to_owned();
                    let why = Rejection::Trace { kind: IterationKind::Deadlock, problem, cex };
                    self.learn_quietly(Rejected { why, program, candidate: Some(candidate) })?;
                }
                Judgement::Rejected(why) => {
                    self.learn_quietly(Rejected { why, program, candidate: Some(candidate) })?
                }
                Judgement::Stop(stop) => {
                    let why = format!(
                        "the checker stopped ({}) after {checked} cheaper candidates; {not_tried}",
                        stop.name()
                    );
                    return Ok(Optimality::CheapestFound(why));
                }
            }
        }
        let why = format!("the optimisation phase judged its {OPTIMISE_CHECKS} cheaper candidates; {not_tried}");
        Ok(Optimality::CheapestFound(why))
    }

    /// Keeps the accepted repair from being proposed again: the next proposal is cheaper, or
    /// there is none.
    fn exclude_accepted(&mut self) -> Result<(), Error> {
        if let Some(best) = self.report.accepted_candidate().cloned() {
            let (learner, space) = self.learner();
            let nogood = learner.arena_mut().excluding(&best, space);
            learner.require(nogood, "the accepted repair")?;
        }
        Ok(())
    }

    /// Learns from a candidate the optimisation phase rejected, outside the loop's history.
    fn learn_quietly(&mut self, rejected: Rejected) -> Result<(), Error> {
        let mut record = rejected.why.iteration();
        self.learn_from_rejection(&rejected, &mut record).map(|_| ())
    }

    fn iterate(&mut self) -> Result<StopReason, Error> {
        let first = match self.judge_original()? {
            Ok(cex) => cex,
            Err(stop) => return Ok(stop),
        };
        let mut learner = Learner::new(&self.space, self.cfg.learner.clone())?;
        learner.set_deadline(self.cfg.time_limit.map(|limit| self.report.start() + limit));
        self.learner = Some(learner);
        if self.cfg.mode == Mode::Mixed {
            self.learn_from_good_traces()?;
        }
        let why = Rejection::Trace { kind: IterationKind::Bad, problem: failure_text(&first), cex: first };
        let mut rejected = Rejected { why, program: self.program.clone(), candidate: None };
        loop {
            if self.out_of_time() {
                return Ok(StopReason::TimeLimit);
            }
            if self.report.history.len() >= self.cfg.max_iterations {
                return Ok(StopReason::IterationLimit);
            }
            if self
                .reserve
                .as_ref()
                .is_some_and(|(_, since)| self.report.history.len() >= since + STRICT_SEARCH_ITERATIONS)
            {
                return Ok(StopReason::IterationLimit);
            }
            let mut record = rejected.why.iteration();
            let outcome = self.learn_from_rejection(&rejected, &mut record);
            let outcome = match outcome {
                Ok(None) => self.propose(&mut record),
                Ok(Some(stop)) => Ok(Err(stop)),
                Err(e) => Err(e),
            };
            self.end_iteration(record);
            if self.walking() {
                if let Some(stop) = self.list_the_space()? {
                    return Ok(stop);
                }
            }
            let (candidate, transformations) = match outcome? {
                Ok(proposal) => proposal,
                Err(stop) => return Ok(stop),
            };
            let program = self.program.apply(&candidate)?;
            match self.judge(&program)? {
                Judgement::Accepted(acceptance, None) => {
                    let acceptance = Some(acceptance);
                    self.report.accept(Accepted { program, candidate, transformations, acceptance });
                    return Ok(StopReason::Repaired);
                }
                Judgement::Accepted(acceptance, Some((id, cex))) => {
                    if self.reserve.is_none() {
                        let acceptance = Some(acceptance);
                        let accepted = Accepted {
                            program: program.clone(),
                            candidate: candidate.clone(),
                            transformations,
                            acceptance,
                        };
                        self.reserve = Some((accepted, self.report.history.len()));
                        // The fallbacks' frozen orders may be what kept a better repair out:
                        // look among the candidates they forbid too (each is checked).
                        if self.cfg.learner.relaxes_on_conflict() {
                            let learner = self.learner.as_mut().expect("the learner is made before the loop learns");
                            learner.relax_fallbacks()?;
                        }
                    }
                    let problem = format!("deadlock admitted only after a failure (looking further): {id}");
                    let why = Rejection::Trace { kind: IterationKind::Deadlock, problem, cex };
                    rejected = Rejected { why, program, candidate: Some(candidate) };
                }
                Judgement::Rejected(why) => rejected = Rejected { why, program, candidate: Some(candidate) },
                Judgement::Stop(stop) => return Ok(stop),
            }
        }
    }

    /// Whether the last [`BLIND_ITERATIONS`] rejections had nothing to generalise.
    fn walking(&self) -> bool {
        let history = &self.report.history;
        let blind = |i: &Iteration| match i.kind {
            IterationKind::Unreached | IterationKind::Sequential => true,
            IterationKind::Bad | IterationKind::Deadlock => i.fixes == 0,
            _ => false,
        };
        history.len() >= BLIND_ITERATIONS && history[history.len() - BLIND_ITERATIONS..].iter().all(blind)
    }

    /// Judges the candidates of a space small enough to list in cost order, the first
    /// accepted being the repair (proved the cheapest); `None` when the space is too large.
    fn list_the_space(&mut self) -> Result<Option<StopReason>, Error> {
        let Some(size) = self.listable() else { return Ok(None) };
        let candidates = super::optimum::in_cost_order(&self.space, size)?;
        let program = self.program;
        let (stop, checked) = super::optimum::judge_in_order(self, program, candidates)?;
        let proved_optimal = stop == StopReason::Repaired;
        self.report.exhaustive = Some(Exhaustive { space_size: size, checked: checked + 1, proved_optimal });
        let walked = format!(
            "the loop's last {BLIND_ITERATIONS} candidates were rejected with nothing to generalise, so it judged \
             the space's candidates in cost order"
        );
        Ok(Some(match stop {
            StopReason::Repaired => {
                self.report.optimality = Some(Optimality::Proved(format!("{walked} and took the first accepted")));
                stop
            }
            StopReason::NoRepair { .. } => {
                StopReason::NoRepair { explanation: format!("{walked}: the checker rejects each of its {size}") }
            }
            other => other,
        }))
    }

    /// The number of candidates of the space when it is small enough to list (at most
    /// [`OPTIMISE_LIST_LIMIT`], or the exhaustive search's limit if larger); counted once.
    fn listable(&mut self) -> Option<usize> {
        let limit = self.cfg.exhaustive_limit.max(OPTIMISE_LIST_LIMIT);
        let space = &self.space;
        *self.listable.get_or_insert_with(|| {
            super::optimum::candidate_count(space).and_then(|n| usize::try_from(n).ok()).filter(|&n| n <= limit)
        })
    }

    /// Records an iteration in the history and tells the observer.
    fn end_iteration(&mut self, record: Iteration) {
        if let Some(observer) = &self.cfg.observer {
            let iteration = self.report.history.len() + 1;
            observer.tell(&RepairEvent::IterationEnded { iteration, record: record.clone() });
        }
        self.report.history.push(record);
    }

    /// The learner and the space it learns over, borrowed together.
    fn learner(&mut self) -> (&mut Learner, &Space) {
        (self.learner.as_mut().expect("the learner is made before the loop learns"), &self.space)
    }

    pub(super) fn out_of_time(&self) -> bool {
        self.cfg.time_limit.is_some_and(|l| self.report.start().elapsed() >= l)
    }

    /// The stop for a check cut short by `bound`: the run's time limit when the checker's
    /// time bound was what is left of it, the checker's bound otherwise.
    fn bound_stop(&self, bound: Bound) -> StopReason {
        if bound == Bound::Time && self.out_of_time() {
            StopReason::TimeLimit
        } else {
            StopReason::BoundReached { what: bound.to_string() }
        }
    }

    // ---- checking ----

    /// The checker's configuration, with what is left of the run's time limit and its
    /// progress going to the observer.
    fn check_config(&self) -> paces_explore::Config {
        let mut c = self.cfg.check.clone().stop_at_first_failure(false);
        if let Some(observer) = &self.cfg.observer {
            c = observer.watch(c, self.report.history.len());
        }
        if let Some(limit) = self.cfg.time_limit {
            let left = limit.saturating_sub(self.report.start().elapsed());
            c = c.max_time(Some(left.max(Duration::from_millis(1))));
        }
        c
    }

    fn check_with(&mut self, program: &Program, stop_at_first: bool) -> Result<CheckResult, Error> {
        let original = std::ptr::eq(program, self.program);
        let hunt = if original { 0 } else { self.cfg.hunt_states };
        let config = self.check_config().stop_at_first_failure(stop_at_first).hunt_states(hunt);
        let result = self.report.timed(explore, || check(program, &config))?;
        self.report.states += result.states;
        // What a check of the original (the very program the run was given) saw pass.
        if original {
            self.original.saw(&result);
            let whole = !stop_at_first || matches!(result.verdict, Verdict::Correct);
            self.original.checked_all |= whole && result.bound.is_none();
        }
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

    /// The final states of the complete sequential runs, or the stop when a bound of the
    /// checker (or the loop's time limit) cut them short.
    fn sequential(&mut self, program: &Program) -> Result<Result<BTreeSet<Vec<i64>>, StopReason>, Error> {
        let config = self.check_config();
        match self.report.timed(explore, || sequential_final_states(program, &config)) {
            Ok(seq) => Ok(Ok(seq)),
            Err(e) if *e.kind() == paces_explore::ErrorKind::BoundReached => Ok(Err(if self.out_of_time() {
                StopReason::TimeLimit
            } else {
                StopReason::BoundReached { what: e.to_string() }
            })),
            Err(e) => Err(e.into()),
        }
    }

    /// Makes sure the deadlocks and livelocks of the original program are known (a full
    /// exploration, once).
    fn ensure_original_sets(&mut self) -> Result<(), Error> {
        if self.original.sets.is_none() {
            let full = self.check_with(self.program, false)?;
            self.record_original_sets(&full);
        }
        Ok(())
    }

    fn record_original_sets(&mut self, full: &CheckResult) {
        let sets: Sets = (full.deadlocks.keys().cloned().collect(), full.livelocks.keys().cloned().collect());
        self.report.original_deadlocks = Some(sets.0.iter().map(ToString::to_string).collect());
        self.original.sets = Some(sets);
    }

    /// Makes sure the blocked-thread sets of the original's deadlocks reached after a failure
    /// are known (one exploration with the failure flag, once). A bound that cuts it short
    /// leaves the sets found so far: a deadlock they miss counts as new.
    fn ensure_original_after_failure(&mut self) -> Result<(), Error> {
        if self.original.after_failure.is_none() {
            let config = self.check_config().stop_at_first_failure(false).deadlocks_after_failure(true);
            let program = self.program;
            let full = self.report.timed(explore, || check(program, &config))?;
            self.report.states += full.states;
            self.original.saw(&full);
            let sets = full.deadlocks_after_failure.keys().map(blocked_threads).collect();
            self.original.after_failure = Some(sets);
        }
        Ok(())
    }

    /// The assertions the original checks that a candidate, which passes `passed` (all it
    /// can: the candidate was checked whole and has no failure), reaches no more: it would
    /// have made them vacuous. Two kinds count:
    /// - an assertion that passes on some run of the original: it must still pass on some
    ///   run, or the repair stopped checking what it checks (a wait that never passes moved
    ///   above it, a branch that no longer runs);
    /// - an assertion at the top level of its thread's body (outside every branch, loop and
    ///   procedure) that the original reaches at all: its thread reaches it on every run that
    ///   gets that far, so a repair that makes it unreachable makes the thread stop before it
    ///   (a wait that never passes, a section that never runs), hiding even an assertion that
    ///   can only fail.
    ///
    /// An assertion inside a branch that only ever fails (`if (p == 0) { assert(false); }`)
    /// may become unreachable: its branch no longer runs, which is the repair.
    ///
    /// The original's sets are known exactly only after a check of it went through its whole
    /// space: the one that gives its deadlocks and livelocks, made here if no candidate needed
    /// it yet, when a candidate first leaves an assertion unpassed that the checks so far do
    /// not settle. When a bound cut it short, an assertion it did not see counts as unchecked
    /// in the original.
    fn unreached(&mut self, passed: &BTreeSet<String>) -> Result<Vec<String>, Error> {
        let program = self.program;
        let bodies: BTreeSet<BlockId> = program.threads.iter().map(|t| t.body).collect();
        let unpassed: Vec<(&str, bool)> = program
            .stmts
            .iter()
            .filter(|s| matches!(s.kind, StmtKind::Assert(_)) && !passed.contains(&s.label))
            .map(|s| (s.label.as_str(), bodies.contains(&s.block)))
            .collect();
        if unpassed.is_empty() {
            return Ok(Vec::new());
        }
        let lost = |original: &Original| -> Vec<String> {
            let checked = |&&(label, top): &&(&str, bool)| {
                original.passed.contains(label) || top && original.failed.contains(label)
            };
            unpassed.iter().filter(checked).map(|(label, _)| (*label).to_owned()).collect()
        };
        let known = lost(&self.original);
        if !known.is_empty() || self.original.checked_all {
            return Ok(known);
        }
        self.ensure_original_sets()?;
        self.original.checked_all = true;
        Ok(lost(&self.original))
    }

    /// The rule that admits a deadlock of a candidate (the original's deadlocks must be
    /// known), or `None` for a new deadlock.
    fn admit(&mut self, id: &DeadlockId) -> Result<Option<DeadlockRule>, Error> {
        if self.original.sets.as_ref().is_some_and(|s| s.0.contains(id)) {
            return Ok(Some(DeadlockRule::SamePlace));
        }
        self.ensure_original_after_failure()?;
        let threads = blocked_threads(id);
        let after = self.original.after_failure.as_ref().is_some_and(|sets| sets.contains(&threads));
        Ok(after.then_some(DeadlockRule::SameThreadsAfterFailure))
    }

    /// Makes sure the original's sequential final states are known, computed when a candidate
    /// first needs them (they can be costly, and a run that never reaches acceptance does not
    /// need them); the stop when a bound cut them short.
    fn ensure_original_sequential(&mut self) -> Result<Option<StopReason>, Error> {
        if self.original.sequential.is_none() {
            match self.sequential(self.program)? {
                Ok(seq) => self.original.sequential = Some(seq),
                Err(stop) => return Ok(Some(stop)),
            }
        }
        Ok(None)
    }

    // ---- the phases ----

    /// Checks the original program: its first bad trace, or why the run stops at once.
    pub(super) fn judge_original(&mut self) -> Result<Result<Counterexample, StopReason>, Error> {
        let original = self.check(self.program)?;
        self.report.original_states = original.states;
        if let Verdict::BoundReached { what, .. } = &original.verdict {
            return Ok(Err(self.bound_stop(*what)));
        }
        // Unless the check stopped at a bad trace, it went through the whole space.
        if !matches!(original.verdict, Verdict::Bad(_)) {
            self.record_original_sets(&original);
        }
        if let Some(cex) = first_failure(&original) {
            return Ok(Ok(cex));
        }
        if let Some(bound) = original.bound {
            // Explored in part (after a deadlock, the whole space is searched): an assertion
            // may fail beyond the bound.
            return Ok(Err(self.bound_stop(bound)));
        }
        self.report.original_unwind_reached = original.unwind_reached;
        let candidate = Candidate::original(&self.space);
        let program = self.program.clone();
        self.report.accept(Accepted { program, candidate, transformations: Vec::new(), acceptance: None });
        Ok(Err(StopReason::AlreadyCorrect))
    }

    /// Mixed mode's first phase: LearnGoodUnder on the original's good traces.
    fn learn_from_good_traces(&mut self) -> Result<(), Error> {
        let remaining = self.cfg.time_limit.map(|limit| limit.saturating_sub(self.report.start().elapsed()));
        let config = self.cfg.good.clone().max_time(remaining);
        let program = self.program;
        let found = self.report.timed(explore, || search_good_traces(program, &config))?;
        self.report.good_search_bounds = found.bounds;
        let traces = found.traces;
        for (i, t) in traces.iter().enumerate() {
            if self.out_of_time() {
                break; // the loop stops with the time limit
            }
            let learner = self.learner.as_mut().expect("the learner is made before the loop learns");
            self.report.timed(learn, || {
                learner.learn_good_checked(t, || freely_bad(program, t, FREE_BUDGET).ok().flatten())
            })?;
            if self.cfg.dot {
                self.report.dots.push((format!("good-{}.dot", i + 1), crate::dot::trace_graph(program, t)));
            }
        }
        Ok(())
    }

    /// Learns from a rejected program: the fixes of its trace (or the guess for a livelock),
    /// then the no-good of the rejected candidate. A stop when the original's own bad trace
    /// has no fix or learning passes a memory bound.
    fn learn_from_rejection(
        &mut self,
        rejected: &Rejected,
        record: &mut Iteration,
    ) -> Result<Option<StopReason>, Error> {
        match &rejected.why {
            Rejection::Trace { kind, cex, problem } => {
                if let Some(stop) = self.learn_from_trace(rejected, *kind, cex, record)? {
                    return Ok(Some(stop));
                }
                // A new deadlock teaches a guess of its own when its trace has no fix (undo
                // one of the moves that led to it), and its fixes may be such guesses too: the
                // shared changes are taken as its cause when the same deadlock comes back a
                // third time. A bad trace with a fix is progress.
                let after = match (kind, record.fixes) {
                    (IterationKind::Deadlock, _) => Some(3),
                    (_, 0) => Some(2),
                    _ => None,
                };
                if let (Some(after), Some(candidate)) = (after, &rejected.candidate) {
                    self.learn_shared_cause(problem, candidate, after)?;
                }
            }
            Rejection::Livelock { block_label, .. } => {
                let locs = rejected.program.loops_in_added_section(self.program, block_label);
                let (learner, space) = self.learner();
                let constraint = learner.arena_mut().outside_sections(&locs, space);
                learner.require(constraint, &format!("livelock in {block_label}"))?;
            }
            Rejection::Unreached(_) => {
                if let Some(candidate) = &rejected.candidate {
                    self.learn_shared_cause("hides assertions", candidate, 2)?;
                }
            }
            Rejection::Sequential => {}
        }
        if let Some(candidate) = &rejected.candidate {
            // Safety net: a rejected candidate is never proposed again, even when what was
            // learned from it does not exclude it.
            let (learner, space) = self.learner();
            let nogood = learner.arena_mut().excluding(candidate, space);
            learner.require(nogood, "a rejected candidate")?;
        }
        Ok(None)
    }

    /// Learns from a candidate rejected with little to generalise: for hiding assertions (no
    /// trace), for a bad trace that offers no fix, or for a new deadlock (`problem`; what its
    /// trace offers is often a guess). The no-good alone lets the loop walk: it keeps the
    /// changes that cause the problem and adds an unrelated one each time, and the same failure
    /// comes back. So the changes that every candidate rejected for the same problem had in
    /// common (since that set last became empty) are taken to be its cause, and once `after`
    /// such candidates share fewer changes than the last one made, the loop requires that not
    /// all of the shared changes are made together. A guess (a change that causes a problem
    /// beside some changes may not beside others), named in a conflict's explanation; in a
    /// space small enough to list, walking still ends in judging the space in cost order.
    fn learn_shared_cause(&mut self, problem: &str, candidate: &Candidate, after: usize) -> Result<(), Error> {
        let made: BTreeSet<Transformation> = candidate.transformations(&self.space).into_iter().collect();
        let (shared, seen) = self
            .causes
            .remove(problem)
            .map(|(before, seen)| (before.intersection(&made).copied().collect::<BTreeSet<_>>(), seen + 1))
            .filter(|(shared, _)| !shared.is_empty())
            .unwrap_or_else(|| (made.clone(), 1));
        if seen >= after && shared.len() < made.len() {
            let (learner, space) = self.learner();
            let names: Vec<String> = shared.iter().map(|t| t.display(space).to_string()).collect();
            let steps: Vec<Transformation> = shared.iter().copied().collect();
            let lesson = learner.arena_mut().not_all_of(&steps);
            let name = format!("{problem} (changes shared by {seen} rejected candidates): {}", names.join(", "));
            learner.require(lesson, &name)?;
        }
        self.causes.insert(problem.to_owned(), (shared, seen));
        Ok(())
    }

    fn learn_from_trace(
        &mut self,
        rejected: &Rejected,
        kind: IterationKind,
        cex: &Counterexample,
        record: &mut Iteration,
    ) -> Result<Option<StopReason>, Error> {
        // Execution goes on after a failure: complete the trace so that its generalisation
        // sees the writes after the failing read.
        let cex = self.report.timed(explore, || complete_counterexample(&rejected.program, cex, COMPLETION_BUDGET))?;
        let trace = translate_trace(&cex.trace, &rejected.program, self.program)?;
        record.schedule = cex.schedule.steps.iter().map(|s| s.label.clone()).collect();
        // A new deadlock of a candidate may be freed by a write its trace never reaches: when
        // the trace offers no fix, the guess is that one of the moves that led to it must be
        // undone.
        let (learner, space) =
            (self.learner.as_mut().expect("the learner is made before the loop learns"), &self.space);
        let undo = match (&rejected.candidate, kind) {
            (Some(candidate), IterationKind::Deadlock) => {
                Some(learner.arena_mut().undo_a_move(&trace.blocked_items(), candidate, space))
            }
            _ => None,
        };
        let (lesson, elimination) = match self.report.timed(learn, || learner.learn_bad_or(&trace, undo)) {
            Err(e) if *e.kind() == paces_learn::ErrorKind::Limit => {
                let detail = std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string);
                let what = format!("memory bound in learning from a bad trace: {detail}");
                return Ok(Some(StopReason::BoundReached { what }));
            }
            r => r?,
        };
        if self.cfg.dot {
            self.push_bad_dots(&trace, &elimination);
        }
        record.fixes = lesson.fixes;
        if lesson.fixes == 0 && rejected.candidate.is_none() {
            let explanation = format!(
                "the elimination graph of the original program's bad trace ({}) has no cycle: \
                 no reordering or atomic section of this space removes it",
                record.problem
            );
            return Ok(Some(StopReason::NoRepair { explanation }));
        }
        Ok(None)
    }

    /// The cheapest candidate satisfying everything learned, or "no repair".
    fn propose(
        &mut self,
        record: &mut Iteration,
    ) -> Result<Result<(Candidate, Vec<Transformation>), StopReason>, Error> {
        let learner = self.learner.as_mut().expect("the learner is made before the loop learns");
        let space = &self.space;
        let may_relax = self.cfg.learner.relaxes_on_conflict();
        let proposal = self.report.timed(solve, || -> Result<Proposal, paces_learn::Error> {
            let first = learner.propose()?;
            // A section across a preemption point is the dearest kind of repair: when the
            // good traces' fallbacks (frozen orders, more than those traces need) may be what
            // rules out a reorder, relax them and ask again.
            match &first {
                Proposal::Candidate { candidate, .. }
                    if may_relax && candidate.waits_inside_section(space) && learner.relax_fallbacks()? > 0 =>
                {
                    learner.propose()
                }
                _ => Ok(first),
            }
        })?;
        match proposal {
            Proposal::Unsatisfiable { explanation, .. } => Ok(Err(StopReason::NoRepair { explanation })),
            Proposal::Candidate { candidate, transformations, .. } => {
                record.proposal = transformations.iter().map(|t| t.display(&self.space).to_string()).collect();
                Ok(Ok((candidate, transformations)))
            }
            other => Err(Error::new(ErrorKind::Internal, format!("the learner proposed something unknown: {other:?}"))),
        }
    }

    /// Checks a candidate program: accepted with no assertion failure, no new deadlock or
    /// livelock and the original's sequential final states; otherwise rejected for the first
    /// of those it fails, or a stop when a bound cut the check short.
    pub(super) fn judge(&mut self, program: &Program) -> Result<Judgement, Error> {
        let result = self.check(program)?;
        if let Verdict::BoundReached { what, .. } = &result.verdict {
            return Ok(Judgement::Stop(self.bound_stop(*what)));
        }
        if !result.deadlocks.is_empty() || !result.livelocks.is_empty() {
            self.ensure_original_sets()?;
        }
        let failure = first_failure(&result);
        let mut admitted = Vec::new();
        let mut new_deadlock = None;
        let mut after_failure = None;
        if failure.is_none() {
            for (id, cex) in &result.deadlocks {
                match self.admit(id)? {
                    Some(rule) => {
                        if rule == DeadlockRule::SameThreadsAfterFailure && after_failure.is_none() {
                            after_failure = Some((id.clone(), cex.clone()));
                        }
                        admitted.push(AdmittedDeadlock { deadlock: id.to_string(), rule });
                    }
                    None => {
                        new_deadlock = Some((id, cex));
                        break;
                    }
                }
            }
        }
        // The original's sets are unknown only when the candidate has neither.
        let sets = self.original.sets.as_ref();
        let new_livelock = result.livelocks.iter().find(|(id, _)| !sets.is_some_and(|s| s.1.contains(id)));
        let mut acceptance = Acceptance {
            no_assertion_failure: failure.is_none(),
            no_new_deadlock: failure.is_none() && new_deadlock.is_none(),
            no_new_livelock: new_livelock.is_none(),
            same_sequential_states: false,
            deadlocks: admitted,
            livelocks: result.livelocks.keys().map(ToString::to_string).collect(),
            sequential_final_states: 0,
            assertions_reached: false,
            unwind_reached: result.unwind_reached,
        };
        if let Some(cex) = failure {
            let problem = failure_text(&cex);
            return Ok(Judgement::Rejected(Rejection::Trace { kind: IterationKind::Bad, problem, cex }));
        }
        if let Some((id, cex)) = new_deadlock {
            let (problem, cex) = (format!("new deadlock: {id}"), cex.clone());
            return Ok(Judgement::Rejected(Rejection::Trace { kind: IterationKind::Deadlock, problem, cex }));
        }
        if let Some((id, _)) = new_livelock {
            let problem = format!("new atomic livelock: {id}");
            return Ok(Judgement::Rejected(Rejection::Livelock { problem, block_label: id.block.clone() }));
        }
        if let Some(bound) = result.bound {
            // No failure in the part explored: not enough to accept.
            return Ok(Judgement::Stop(self.bound_stop(bound)));
        }
        // With no failure, every assertion the candidate reaches passes.
        let unreached = self.unreached(&result.passed_assertions)?;
        acceptance.assertions_reached = unreached.is_empty();
        if !unreached.is_empty() {
            return Ok(Judgement::Rejected(Rejection::Unreached(unreached)));
        }
        if let Some(stop) = self.ensure_original_sequential()? {
            return Ok(Judgement::Stop(stop));
        }
        let after = match self.sequential(program)? {
            Ok(seq) => seq,
            Err(stop) => return Ok(Judgement::Stop(stop)),
        };
        acceptance.same_sequential_states = self.original.sequential.as_ref() == Some(&after);
        acceptance.sequential_final_states = after.len();
        if !acceptance.same_sequential_states {
            return Ok(Judgement::Rejected(Rejection::Sequential));
        }
        debug_assert!(acceptance.accepted());
        Ok(Judgement::Accepted(acceptance, after_failure))
    }

    fn push_bad_dots(&mut self, trace: &Trace, e: &Elimination) {
        let round = self.report.history.len() + 1;
        let program = self.program;
        let label = |id: paces_trace::EventId| crate::dot::event_label(program, trace, id);
        let threads = crate::dot::thread_names(program);
        self.report.dots.push((format!("bad-{round}-order.dot"), e.partial_order.to_dot(trace, &threads, &label)));
        for i in 0..e.fixes.len() {
            if let Some(d) = e.fix_dot(i, trace, &self.space, &threads, &label) {
                self.report.dots.push((format!("bad-{round}-fix-{}.dot", i + 1), d));
            }
        }
    }
}

fn explore(t: &mut TimeSplit) -> &mut Duration {
    &mut t.explore
}

fn learn(t: &mut TimeSplit) -> &mut Duration {
    &mut t.learn
}

fn solve(t: &mut TimeSplit) -> &mut Duration {
    &mut t.solve
}

/// The bad trace of a check: the verdict's, else the shortest failure found; `None` when no
/// assertion fails.
fn first_failure(result: &CheckResult) -> Option<Counterexample> {
    if let Verdict::Bad(c) = &result.verdict {
        return Some((**c).clone());
    }
    result.failures.values().min_by_key(|c| c.schedule.steps.len()).cloned()
}

fn failure_text(cex: &Counterexample) -> String {
    match cex.failing_step.and_then(|i| cex.schedule.steps.get(i)) {
        Some(step) if cex.division_by_zero => format!("division by zero at `{}`", step.label),
        Some(step) => format!("`{}` fails", step.label),
        None => "a failure".into(),
    }
}

/// The names of the threads a deadlock blocks (those not done).
fn blocked_threads(id: &DeadlockId) -> BTreeSet<String> {
    id.blocked_threads().into_iter().map(str::to_owned).collect()
}
