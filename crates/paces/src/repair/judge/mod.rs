//! The judge: checks the original program and candidates with the loop's acceptance (no
//! assertion failure, no deadlock (with
//! [`Repair::keep_deadlocks`](super::Repair::keep_deadlocks): no new deadlock), no new
//! livelock, every assertion the original checks still reached, the original's sequential
//! final states), computing the facts of the original that a judgement needs once, when first
//! needed (kept in `original`). The loop, its phases and the exhaustive search all judge
//! through it, lending it the run's context; it returns judgements and never writes the
//! report, but adds what each check cost and stored through the context.

mod further;
mod original;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use paces_constraint::{BlockId, Candidate};
use paces_cwhile::ir::{Program, StmtKind, VarScope};
use paces_explore::{
    check, sequential_deadlock, sequential_final_states, Bound, CheckResult, Counterexample, DeadlockId, FailureKinds,
    Rerun, Schedule, SequentialDeadlock, Verdict,
};

use super::context::Context;
use super::judgement::{Judgement, OriginalJudgement, OriginalVerdict, Passed, Rejection};
use super::report::{explore_time, Acceptance, AdmittedDeadlock, BoundHit, DeadlockRule, FailureKind, Problem};
use super::report::{StatesSplit, StopReason};
use crate::Error;
use original::Original;

/// A program's outcomes, and a run to some of them.
type Outcomes = (BTreeSet<Vec<i64>>, BTreeMap<Vec<i64>, Schedule>);

/// The most states the search for a deadlock that every candidate keeps may visit
/// ([`Judge::deadlock_alone`]): the sequential runs of a program with an unbounded counter
/// would otherwise run up to the checker's own bound.
const SEQUENTIAL_DEADLOCK_STATES: usize = 200_000;

/// The most rejections the judge remembers (each holds its counterexample).
const REJECTIONS_KEPT: usize = 256;

/// What the judge does with a candidate's deadlocks that the original reaches too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Deadlocks {
    /// Admit every one (the repair of the assertions, and
    /// [`Repair::keep_deadlocks`](super::Repair::keep_deadlocks)).
    KeepAll,
    /// Admit only these; reject a candidate with any other (the removal phase).
    Keep(BTreeSet<DeadlockId>),
}

impl Deadlocks {
    /// Whether a deadlock of the original with identity `id` is admitted.
    fn admits(&self, id: &DeadlockId) -> bool {
        match self {
            Deadlocks::KeepAll => true,
            Deadlocks::Keep(kept) => kept.contains(id),
        }
    }
}

/// Judges programs of one run against its original: what it knows of the original, which of
/// the original's deadlocks it admits, and the bound on each check's states.
pub(super) struct Judge {
    original: Original,
    /// The states the last check of [`Judge::check`] stored (both stages).
    last_states: usize,
    /// The last check's [`CheckResult::clean_states`] (0 when it met no failing assertion
    /// breadth first with merging).
    last_clean: usize,
    /// The fewest states a check's bug hunt may store, when the run hunts at all
    /// ([`Judge::hunt_at_least`]).
    hunt_floor: usize,
    /// The states the checks of the candidate being judged stored so far.
    judged_states: usize,
    /// The states the last exploration for outcomes stored.
    outcome_states: usize,
    /// The candidates rejected so far, with the rejection, each judged with the original's
    /// deadlocks all admitted and no bound of the judge's own: judged again, they are
    /// rejected again, whatever the judge admits then.
    /// At most [`REJECTIONS_KEPT`] (only looked up, never iterated).
    rejected: HashMap<Candidate, Rejection>,
    /// Which deadlocks of the original a candidate may have.
    deadlocks: Deadlocks,
    /// A bound on the states each check may store, beside the run's own (the removal
    /// phase's budget); a check that reaches it stops the phase.
    max_states: Option<usize>,
}

impl Judge {
    /// A judge that knows nothing of the original yet and admits its deadlocks.
    pub(super) fn new() -> Self {
        Judge {
            original: Original::default(),
            last_states: 0,
            last_clean: 0,
            hunt_floor: 0,
            judged_states: 0,
            outcome_states: 0,
            rejected: HashMap::new(),
            deadlocks: Deadlocks::KeepAll,
            max_states: None,
        }
    }

    /// Which deadlocks of the original a candidate may have.
    pub(super) fn deadlock_policy(&self) -> &Deadlocks {
        &self.deadlocks
    }

    /// Admits, from now on, the deadlocks of the original that `policy` admits.
    pub(super) fn set_deadlock_policy(&mut self, policy: Deadlocks) {
        self.deadlocks = policy;
    }

    /// Bounds the states each check may store (beside the run's own bound), or, with `None`,
    /// lifts that bound.
    pub(super) fn limit_states(&mut self, max: Option<usize>) {
        self.max_states = max;
    }

    /// Notes the assertions that each of `good`, good traces of the original, passes: a run
    /// of the original on which they pass, so that [`Judge::unreached`] need not explore the
    /// original to know it.
    pub(super) fn saw_good_traces(&mut self, ctx: &Context<'_>, good: &[paces_trace::Trace]) {
        for trace in good {
            self.original.saw_good(ctx.program(), trace);
        }
    }

    /// The deadlocks the original is known to reach.
    pub(super) fn reached_deadlocks(&self) -> &BTreeSet<DeadlockId> {
        &self.original.reached
    }

    /// Every deadlock of the original, in order, once a search went through its whole space
    /// (the last such search's); `None` before.
    pub(super) fn original_deadlocks(&self) -> Option<Vec<DeadlockId>> {
        self.original.all_deadlocks.as_ref().map(|all| all.iter().cloned().collect())
    }

    /// Checks the original program: the rejection of its first bad trace (a failing assertion,
    /// else, unless the original's deadlocks are kept, a deadlock), or its acceptance, or why
    /// the run stops at once.
    pub(super) fn judge_original(&mut self, ctx: &mut Context<'_>) -> Result<OriginalJudgement, Error> {
        let program = ctx.program();
        let original = self.check(ctx, program)?;
        let states = original.states;
        let judged = |verdict| Ok(OriginalJudgement { states, verdict });
        if let Verdict::BoundReached { what, .. } = &original.verdict {
            return judged(OriginalVerdict::Stop(bound_stop(ctx, *what)));
        }
        // Unless the check stopped at a bad trace, it went through the whole space.
        if !matches!(original.verdict, Verdict::Bad(_)) {
            self.original.saw_sets(&original);
        }
        if let Some(cex) = first_failure(&original) {
            let problem = failure_problem(&cex);
            return judged(OriginalVerdict::Buggy(Rejection::Trace { problem, cex }));
        }
        if let Some(bound) = original.bound {
            // Explored in part (after a deadlock, the whole space is searched): an assertion
            // may fail beyond the bound.
            return judged(OriginalVerdict::Stop(bound_stop(ctx, bound)));
        }
        let (unwind_reached, deadlocks) = (original.unwind_reached, original.deadlocks);
        judged(OriginalVerdict::Correct { unwind_reached, deadlocks })
    }

    /// A deadlock of the original that every program of the space keeps, if the search
    /// for one finds it ([`paces_explore::sequential_deadlock`]: the other threads run one
    /// after another to their end, then a thread alone waits for good); `None` otherwise, or
    /// when the search passed [`SEQUENTIAL_DEADLOCK_STATES`] states or another bound of the
    /// checker.
    pub(super) fn deadlock_alone(&mut self, ctx: &mut Context<'_>) -> Result<Option<SequentialDeadlock>, Error> {
        // A shortcut, not a verdict: a search cut by its bound answers nothing.
        let config = self.check_config(ctx).max_states(SEQUENTIAL_DEADLOCK_STATES);
        let program = ctx.program();
        match ctx.timed(explore_time, || sequential_deadlock(program, &config)) {
            Ok(found) => Ok(found),
            Err(e) if *e.kind() == paces_explore::ErrorKind::BoundReached => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Checks a candidate program: accepted with no assertion failure, no deadlock (with
    /// [`Repair::keep_deadlocks`](super::Repair::keep_deadlocks): none the original does not
    /// reach), no new livelock, every assertion the original checks still reached and the
    /// original's sequential final states; otherwise rejected for the first of those it fails, or a stop
    /// when a bound cut the check short.
    pub(super) fn judge(
        &mut self,
        ctx: &mut Context<'_>,
        program: &Program,
        candidate: &Candidate,
    ) -> Result<Judgement, Error> {
        if let Some(why) = self.rejected.get(candidate) {
            // Nothing was checked: the search for further failures of it finds none.
            (self.last_states, self.last_clean) = (0, 0);
            return Ok(Judgement::Rejected(why.clone()));
        }
        let judgement = self.judge_anew(ctx, program, candidate)?;
        // A rejection with every deadlock of the original admitted and no bound of the
        // judge's own stands under any stricter rule, and what the judge learns of the
        // original later only adds reasons (more assertions known checked; the outcomes and
        // deadlocks of the original a rejection names come from whole explorations, or from
        // one a bound of the run cut short, where remembering errs towards rejecting).
        if let Judgement::Rejected(why) = &judgement {
            let kept = self.rejected.len() < REJECTIONS_KEPT;
            if kept && self.deadlocks == Deadlocks::KeepAll && self.max_states.is_none() {
                self.rejected.insert(candidate.clone(), why.clone());
            }
        }
        Ok(judgement)
    }

    /// [`Judge::judge`] for a candidate not rejected before.
    fn judge_anew(
        &mut self,
        ctx: &mut Context<'_>,
        program: &Program,
        candidate: &Candidate,
    ) -> Result<Judgement, Error> {
        if let Some(rule) = ctx.cfg().refuse {
            let reasons = rule(ctx.program(), program);
            if !reasons.is_empty() {
                return Ok(Judgement::Rejected(Rejection::Refused(reasons)));
            }
        }
        // Only a reorder can add an outcome: an atomic section only takes runs away (each run
        // of a program with sections is a run of it without them, to the same final state),
        // and neither does a reorder of statements private to their thread
        // (`Program::reorders_are_private`).
        let reorders = candidate.cost(ctx.space()).inversions > 0 && !ctx.program().reorders_are_private(candidate);
        self.judged_states = 0;
        let result = self.check(ctx, program)?;
        if let Verdict::BoundReached { what, .. } = &result.verdict {
            return Ok(Judgement::Stop(bound_stop(ctx, *what)));
        }
        if !result.livelocks.is_empty() {
            self.ensure_original_sets(ctx)?;
        }
        let failure = first_failure(&result);
        let mut admitted = Vec::new();
        let mut new_deadlock = None;
        let mut not_kept = None;
        let mut after_failure = None;
        if failure.is_none() {
            // The candidate's deadlocks are asked of the original alone
            // ([`Judge::ask_original`]).
            self.ask_original(ctx, result.deadlocks.keys())?;
            for (id, cex) in &result.deadlocks {
                match self.admit(ctx, id)? {
                    Some(rule) if self.deadlocks.admits(id) => {
                        if rule == DeadlockRule::SameThreadsAfterFailure && after_failure.is_none() {
                            after_failure = Some((id.clone(), cex.clone()));
                        }
                        admitted.push(AdmittedDeadlock { deadlock: id.clone(), rule });
                    }
                    Some(_) => {
                        not_kept = Some((id, cex));
                        break;
                    }
                    None => {
                        new_deadlock = Some((id, cex));
                        break;
                    }
                }
            }
        }
        // The original's sets are unknown only when the candidate has neither.
        let new_livelock = result.livelocks.iter().find(|(id, _)| self.original.livelock_is_new(id));
        let mut acceptance = Acceptance {
            no_assertion_failure: failure.is_none(),
            no_new_deadlock: failure.is_none() && new_deadlock.is_none() && not_kept.is_none(),
            no_new_livelock: new_livelock.is_none(),
            same_sequential_states: false,
            deadlocks: admitted,
            livelocks: result.livelocks.keys().cloned().collect(),
            sequential_final_states: 0,
            assertions_reached: false,
            no_new_outcome: false,
            outcomes: None,
            unwind_reached: result.unwind_reached,
            states: 0,
        };
        if let Some(cex) = failure {
            let problem = failure_problem(&cex);
            return Ok(Judgement::Rejected(Rejection::Trace { problem, cex }));
        }
        if let Some((id, cex)) = not_kept {
            return Ok(Judgement::Rejected(Rejection::OriginalDeadlock { id: id.clone(), cex: cex.clone() }));
        }
        if let Some((id, cex)) = new_deadlock {
            let problem = Problem::NewDeadlock(id.clone());
            return Ok(Judgement::Rejected(Rejection::Trace { problem, cex: cex.clone() }));
        }
        if let Some((id, _)) = new_livelock {
            return Ok(Judgement::Rejected(Rejection::Livelock(id.clone())));
        }
        if let Some(bound) = result.bound {
            // No failure in the part explored: not enough to accept.
            return Ok(Judgement::Stop(bound_stop(ctx, bound)));
        }
        if let Some(judgement) = self.judge_reach_and_sequential(ctx, program, &result, &mut acceptance)? {
            return Ok(judgement);
        }
        if let Some(judgement) = self.judge_outcomes(ctx, program, reorders, &mut acceptance)? {
            return Ok(judgement);
        }
        debug_assert!(acceptance.accepted());
        acceptance.states = self.judged_states;
        Ok(Judgement::Accepted(Passed { acceptance, deadlocks: result.deadlocks }, after_failure))
    }

    /// The outcome check of [`Judge::judge`], last: every outcome of the candidate (checked
    /// whole with no failure, so each is an outcome of a run on which no assertion failed)
    /// is one of the original's. A candidate without reorders, or whose reorders each move a
    /// statement private to its thread past another, has only outcomes of the original, and
    /// is not asked (`reorders` false). `None` when it holds.
    fn judge_outcomes(
        &mut self,
        ctx: &mut Context<'_>,
        program: &Program,
        reorders: bool,
        acceptance: &mut Acceptance,
    ) -> Result<Option<Judgement>, Error> {
        acceptance.no_new_outcome = true;
        if !reorders {
            return Ok(None);
        }
        // The check that accepted the candidate forgets the globals no thread reads again; its
        // outcomes come from a check that keeps them.
        let (mine, runs) = match self.outcomes_of(ctx, program, true, None)? {
            ControlFlow::Continue(mine) => mine,
            ControlFlow::Break(stop) => return Ok(Some(Judgement::Stop(stop))),
        };
        acceptance.outcomes = Some(mine.len());
        // Each outcome the original is not known to reach is asked of one run of the
        // original first: the candidate's run to it, carried over to the original's order.
        let new_runs: Vec<&Schedule> =
            runs.iter().filter(|(o, _)| self.original.outcome_is_new(o)).map(|(_, run)| run).collect();
        if !new_runs.is_empty() {
            let original = ctx.program();
            let reached = ctx.timed(explore_time, || -> Result<Vec<_>, paces_explore::Error> {
                let rerun = Rerun::new(original, program)?;
                new_runs.into_iter().map(|run| rerun.run(run)).collect()
            });
            // A shortcut, not a verdict: the search below answers what it does not.
            debug_assert!(reached.is_ok(), "a candidate's run is not one: {reached:?}");
            reached.unwrap_or_default().into_iter().flatten().for_each(|o| self.original.reached_outcome(o));
        }
        // The rest are looked for in the original's space: the first time by a search that
        // stops once it met them all, after that (or when it does not meet them all) by one
        // exploration to its end, once per run.
        let wanted: BTreeSet<Vec<i64>> = mine.iter().filter(|o| self.original.outcome_is_new(o)).cloned().collect();
        if self.original.outcomes.is_none() && !wanted.is_empty() {
            let (original, first) = (ctx.program(), !self.original.searched_outcomes);
            self.original.searched_outcomes = true;
            let ask = first.then(|| wanted.clone());
            let (theirs, _) = match self.outcomes_of(ctx, original, false, ask)? {
                ControlFlow::Continue(theirs) => theirs,
                ControlFlow::Break(stop) => return Ok(Some(Judgement::Stop(stop))),
            };
            if first && wanted.is_subset(&theirs) {
                theirs.into_iter().for_each(|o| self.original.reached_outcome(o));
            } else {
                self.original.outcomes = Some(theirs);
            }
        }
        let new = mine.iter().find(|o| self.original.outcome_is_new(o));
        let Some(new) = new else { return Ok(None) };
        acceptance.no_new_outcome = false;
        let globals = program.vars.iter().filter(|v| matches!(v.scope, VarScope::Global)).map(|v| v.name.clone());
        let values = globals.zip(new.iter().copied()).collect();
        Ok(Some(Judgement::Rejected(Rejection::Outcome(values))))
    }

    /// The outcomes of `program` (the original or a candidate applied), from one
    /// exploration that looks for nothing else and keeps every global: every one (with a run
    /// to each when `runs` asks), or, when `wanted` names some, those found until it found
    /// them all; the stop when a bound cut it short.
    fn outcomes_of(
        &mut self,
        ctx: &mut Context<'_>,
        program: &Program,
        runs: bool,
        wanted: Option<BTreeSet<Vec<i64>>>,
    ) -> Result<ControlFlow<StopReason, Outcomes>, Error> {
        let config = self.check_config(ctx).stop_at_first_failure(false).find(FailureKinds::NONE).outcomes(true);
        // The outcomes wanted of the original are hunted depth first, in up to as many states
        // as the candidate's check or its exploration for outcomes stored.
        let budget = ctx.cfg().hunt_states.max(self.last_states).max(self.outcome_states);
        let hunt = if wanted.is_some() { budget } else { 0 };
        let config = config.outcome_runs(runs).wanted_outcomes(wanted.map(Arc::new)).hunt_states(hunt);
        let full = ctx.timed(explore_time, || check(program, &config))?;
        self.count(ctx, program, true, full.states);
        self.outcome_states = full.states;
        Ok(match full.bound {
            Some(bound) => ControlFlow::Break(bound_stop(ctx, bound)),
            None => ControlFlow::Continue((full.outcomes, full.outcome_runs)),
        })
    }

    /// The last two checks of [`Judge::judge`], on a candidate with no failure, no new
    /// deadlock or livelock and no bound reached: its assertions are reached, and its
    /// sequential final states are the original's. `None` when both hold.
    fn judge_reach_and_sequential(
        &mut self,
        ctx: &mut Context<'_>,
        program: &Program,
        result: &CheckResult,
        acceptance: &mut Acceptance,
    ) -> Result<Option<Judgement>, Error> {
        // With no failure, every assertion the candidate reaches passes.
        let unreached = self.unreached(ctx, &result.passed_assertions)?;
        acceptance.assertions_reached = unreached.is_empty();
        if !unreached.is_empty() {
            return Ok(Some(Judgement::Rejected(Rejection::Unreached(unreached))));
        }
        if let ControlFlow::Break(stop) = self.ensure_original_sequential(ctx)? {
            return Ok(Some(Judgement::Stop(stop)));
        }
        let after = match self.sequential(ctx, program)? {
            ControlFlow::Continue(seq) => seq,
            ControlFlow::Break(stop) => return Ok(Some(Judgement::Stop(stop))),
        };
        acceptance.same_sequential_states = self.original.sequential.as_ref() == Some(&after);
        acceptance.sequential_final_states = after.len();
        if !acceptance.same_sequential_states {
            return Ok(Some(Judgement::Rejected(Rejection::Sequential)));
        }
        Ok(None)
    }

    /// Lets each check's bug hunt store at least `states` states from now on (when the run
    /// hunts at all, [`Repair::hunt_states`](super::Repair::hunt_states)); 0 goes back to the
    /// run's setting.
    pub(super) fn hunt_at_least(&mut self, states: usize) {
        self.hunt_floor = states;
    }

    /// The checker's configuration, with the judge's bound on states, what is left of the
    /// run's time limit and its progress going to the observer.
    fn check_config(&self, ctx: &Context<'_>) -> paces_explore::Config {
        let cfg = ctx.cfg();
        let mut c = cfg.check.clone().stop_at_first_failure(false);
        if let Some(n) = self.max_states {
            c = c.max_states(n.min(cfg.check.max_states_bound()));
        }
        if let Some(observer) = &cfg.observer {
            c = observer.watch(c, ctx.iterations());
        }
        if let Some(left) = ctx.time_left() {
            c = c.max_time(Some(left.max(Duration::from_millis(1))));
        }
        c
    }

    /// Counts the `states` a check of `program` stored (one for outcomes when `outcomes`
    /// says so) in the report's split, and for a candidate in its judgement's.
    fn count(&mut self, ctx: &mut Context<'_>, program: &Program, outcomes: bool, states: usize) {
        let original = std::ptr::eq(program, ctx.program());
        ctx.add_states(StatesSplit::slot(original, outcomes), states);
        if !original {
            self.judged_states += states;
        }
    }

    fn check_with(
        &mut self,
        ctx: &mut Context<'_>,
        program: &Program,
        stop_at_first: bool,
    ) -> Result<CheckResult, Error> {
        let original = std::ptr::eq(program, ctx.program());
        // A candidate's check that stops at its first failure goes on past every deadlock,
        // which the candidate may share with the original: they are asked of the original
        // when the check ends (`Judge::judge`).
        let pass_deadlocks = stop_at_first && !original;
        let hunt = match ctx.cfg().hunt_states {
            0 => 0,
            n => n.max(self.hunt_floor),
        };
        let config = self
            .check_config(ctx)
            .stop_at_first_failure(stop_at_first)
            .hunt_states(hunt)
            .stop_at_deadlocks(!pass_deadlocks);
        let result = ctx.timed(explore_time, || check(program, &config))?;
        self.count(ctx, program, false, result.states);
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
    ///
    /// With the original's deadlocks kept, a candidate's first stage goes on past every
    /// deadlock: when it ends with no failure or livelock it went through the whole space and
    /// found every deadlock, which [`Judge::judge`] asks of the original.
    fn check(&mut self, ctx: &mut Context<'_>, program: &Program) -> Result<CheckResult, Error> {
        let quick = self.check_with(ctx, program, true)?;
        (self.last_states, self.last_clean) = (quick.states, quick.clean_states);
        match quick.verdict {
            Verdict::Deadlock(..) | Verdict::Livelock(..) => {
                let full = self.check_with(ctx, program, false)?;
                self.last_states += full.states;
                self.last_clean = 0;
                Ok(full)
            }
            _ => Ok(quick),
        }
    }

    /// The final states of the complete sequential runs, or the stop when a bound of the
    /// checker (or the loop's time limit) cut them short.
    fn sequential(
        &self,
        ctx: &mut Context<'_>,
        program: &Program,
    ) -> Result<ControlFlow<StopReason, BTreeSet<Vec<i64>>>, Error> {
        let config = self.check_config(ctx);
        match ctx.timed(explore_time, || sequential_final_states(program, &config)) {
            Ok(seq) => Ok(ControlFlow::Continue(seq)),
            Err(e) if *e.kind() == paces_explore::ErrorKind::BoundReached => {
                Ok(ControlFlow::Break(if ctx.out_of_time() {
                    StopReason::TimeLimit
                } else {
                    StopReason::BoundReached(BoundHit::SequentialRuns { message: e.to_string() })
                }))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Makes sure the deadlocks and livelocks of the original program are known (a full
    /// exploration, once).
    fn ensure_original_sets(&mut self, ctx: &mut Context<'_>) -> Result<(), Error> {
        if self.original.sets.is_none() {
            let original = ctx.program();
            let full = self.check_with(ctx, original, false)?;
            self.original.saw_sets(&full);
        }
        Ok(())
    }

    /// Makes sure it is known whether the original reaches each of the deadlocks `ids`
    /// ([`Original::reached`]). Unless it is, a search of the original that stops once it has
    /// met each of those not known yet ([`paces_explore::Config::wanted_deadlocks`]) answers:
    /// every deadlock it meets on the way is one the original reaches, and when it ends
    /// without meeting them all it went through the whole space, so those it met are all of
    /// the original's. A bound that cuts it short leaves the others unreached: a deadlock it
    /// did not meet counts as new, as one a full exploration cut short misses.
    fn ask_original<'i>(
        &mut self,
        ctx: &mut Context<'_>,
        ids: impl IntoIterator<Item = &'i DeadlockId>,
    ) -> Result<(), Error> {
        if self.original.all_deadlocks.is_some() {
            return Ok(());
        }
        let wanted: BTreeSet<DeadlockId> =
            ids.into_iter().filter(|id| !self.original.reached.contains(id)).cloned().collect();
        if wanted.is_empty() {
            return Ok(());
        }
        // Not hunted depth first first: on the usb-serial variants the breadth-first search
        // meets them in fewer states (docs/evaluation.md, "The checker on rtl8169").
        let config = self
            .check_config(ctx)
            .stop_at_first_failure(true)
            .find(FailureKinds::DEADLOCKS)
            .hunt_states(0)
            .wanted_deadlocks(Some(Arc::new(wanted)));
        let program = ctx.program();
        let result = ctx.timed(explore_time, || check(program, &config))?;
        self.count(ctx, program, false, result.states);
        let all: BTreeSet<DeadlockId> = result.deadlocks.keys().cloned().collect();
        if matches!(result.verdict, Verdict::Correct) {
            self.original.saw_all_deadlocks(all);
        } else {
            self.original.reached.extend(all);
        }
        Ok(())
    }

    /// Makes sure the blocked-thread sets of the original's deadlocks reached after a failure
    /// are known (one exploration with the failure flag, once). A bound that cuts it short
    /// leaves the sets found so far: a deadlock they miss counts as new.
    fn ensure_original_after_failure(&mut self, ctx: &mut Context<'_>) -> Result<(), Error> {
        if self.original.after_failure.is_none() {
            let config = self.check_config(ctx).stop_at_first_failure(false).deadlocks_after_failure(true);
            let program = ctx.program();
            let full = ctx.timed(explore_time, || check(program, &config))?;
            self.count(ctx, program, false, full.states);
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
    fn unreached(&mut self, ctx: &mut Context<'_>, passed: &BTreeSet<String>) -> Result<Vec<String>, Error> {
        let program = ctx.program();
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
        let known = self.original.checked(&unpassed);
        if !known.is_empty() || self.original.checked_all {
            return Ok(known);
        }
        self.ensure_original_sets(ctx)?;
        self.original.checked_all = true;
        Ok(self.original.checked(&unpassed))
    }

    /// The rule that admits a deadlock of a candidate (asked of the original with
    /// [`Judge::ask_original`] before), or `None` for a new deadlock.
    fn admit(&mut self, ctx: &mut Context<'_>, id: &DeadlockId) -> Result<Option<DeadlockRule>, Error> {
        if self.original.reached.contains(id) {
            return Ok(Some(DeadlockRule::SamePlace));
        }
        self.ensure_original_after_failure(ctx)?;
        let after = self.original.blocks_after_failure(&blocked_threads(id));
        Ok(after.then_some(DeadlockRule::SameThreadsAfterFailure))
    }

    /// Makes sure the original's sequential final states are known, computed when a candidate
    /// first needs them (they can be costly, and a run that never reaches acceptance does not
    /// need them); the stop when a bound cut them short.
    fn ensure_original_sequential(&mut self, ctx: &mut Context<'_>) -> Result<ControlFlow<StopReason>, Error> {
        if self.original.sequential.is_none() {
            let original = ctx.program();
            match self.sequential(ctx, original)? {
                ControlFlow::Continue(seq) => self.original.sequential = Some(seq),
                ControlFlow::Break(stop) => return Ok(ControlFlow::Break(stop)),
            }
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// The stop for a check cut short by `bound`: the run's time limit when the checker's time
/// bound was what is left of it, the checker's bound otherwise.
fn bound_stop(ctx: &Context<'_>, bound: Bound) -> StopReason {
    if bound == Bound::Time && ctx.out_of_time() {
        StopReason::TimeLimit
    } else {
        StopReason::BoundReached(BoundHit::Check(bound))
    }
}

/// The bad trace of a check: the verdict's, else the shortest failure found; `None` when no
/// assertion fails.
fn first_failure(result: &CheckResult) -> Option<Counterexample> {
    if let Verdict::Bad(c) = &result.verdict {
        return Some((**c).clone());
    }
    result.failures.values().min_by_key(|c| c.schedule.steps.len()).cloned()
}

fn failure_problem(cex: &Counterexample) -> Problem {
    // A failure whose step the trace does not name reads "a failure" whatever its kind.
    let kind = if cex.division_by_zero {
        FailureKind::DivisionByZero
    } else if cex.shift_out_of_range {
        FailureKind::ShiftOutOfRange
    } else {
        FailureKind::Assertion
    };
    Problem::Failure { at: cex.failing_label().map(str::to_owned), kind }
}

/// The names of the threads a deadlock blocks (those not done).
fn blocked_threads(id: &DeadlockId) -> BTreeSet<String> {
    id.blocked_threads().into_iter().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests;
