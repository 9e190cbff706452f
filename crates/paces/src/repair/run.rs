//! One run of the repair loop, as its phases: judge the original, learn from its good traces,
//! then repeat (learn from the last rejection, propose a candidate, judge it) until a
//! candidate is accepted or the run stops; then the removal of the original's deadlocks and
//! the optimisation phase. The loop owns the run's context and lends it to each step: judging
//! is the judge's (`judge`), learning the learner's (`learning`), the search for a cheaper
//! repair the optimisation phase's (`optimise`). The judge and the learner return what they
//! found; the loop records the iterations, the accepted program and the report's other facts
//! through the context.

use std::ops::ControlFlow;

use paces_cwhile::ir::Program;
use paces_explore::search_good_traces;
use paces_learn::Learner;

use super::config::Repair;
use super::context::Context;
use super::exhaustive::{candidate_count, in_cost_order, judge_in_order};
use super::judge::Judge;
use super::judgement::{Judgement, Rejected, Rejection};
use super::learning::{Learning, Proposed};
use super::mode::Mode;
use super::optimise::{optimise, OPTIMISE_LIST_LIMIT};
use super::races::Races;
use super::removal::remove_deadlocks;
use super::report::{apply_time, good_time, list_time, Accepted, Exhaustive, Iteration, IterationKind, NoRepair};
use super::report::{Optimality, Origin, Problem, Proof, Report, StopReason};
use super::twins::Twins;
use crate::{Error, ErrorKind};

/// Iterations in a row whose rejection has nothing to generalise (no fix, or a candidate that
/// hides an assertion or changes the sequential final states) after which the loop stops
/// walking the space one candidate at a time: in a space of at most [`OPTIMISE_LIST_LIMIT`]
/// candidates (or the exhaustive search's limit, if larger) it judges the candidates in cost
/// order instead, which ends in the cheapest repair or a proof that there is none.
const BLIND_ITERATIONS: usize = 5;

/// How many more iterations the loop spends looking for a repair without deadlocks admitted
/// only after a failure, once it holds one with them.
const STRICT_SEARCH_ITERATIONS: usize = 10;

/// How many proposals in a row that moved items and were rejected for the same failure make
/// the loop guess that sections are needed ([`Run::sections_guess`]).
const MOVES_TRIED: usize = 2;

/// Whether `t` moves an item.
fn is_swap(t: &paces_constraint::Transformation) -> bool {
    matches!(t, paces_constraint::Transformation::Swap { .. })
}

impl Repair {
    /// Repairs `program`.
    ///
    /// # Errors
    /// Only when a component fails (a bug or a malformed input); every verdict, including
    /// "no repair", is a [`Report`].
    pub fn run(&self, program: &Program) -> Result<Report, Error> {
        run(self, program)
    }
}

/// Runs the loop of `cfg` on `program`: the original is judged first, and the learner is made
/// only when it has a bad trace to learn from.
fn run(cfg: &Repair, program: &Program) -> Result<Report, Error> {
    let space = program.space();
    let mut ctx = Context::new(cfg, program, &space);
    let mut judge = Judge::new();
    let judged = judge.judge_original(&mut ctx).map(|judged| ctx.record_original(judged));
    let first = match until_deadline(judged)? {
        ControlFlow::Continue(first) => first,
        ControlFlow::Break(StopReason::AlreadyCorrect)
            if !cfg.keep_deadlocks && !ctx.accepted_deadlocks().is_empty() =>
        {
            return only_deadlocks(ctx, judge);
        }
        ControlFlow::Break(stop) => return Ok(finish(ctx, &judge, stop, None)),
    };
    let learning = Learning::new(&ctx)?;
    let twins = Some(Twins::new(program)).filter(|t| cfg.twins && t.any());
    let races = cfg.races.then(|| Races::new(program, ctx.space()));
    let mut run = Run {
        ctx,
        judge,
        learning,
        reserve: None,
        listable: None,
        twins,
        alike: None,
        spread: false,
        races,
        no_moves: None,
    };
    let stop = run.go(first)?;
    let Run { ctx, judge, mut learning, .. } = run;
    Ok(finish(ctx, &judge, stop, Some(&mut learning.learner)))
}

/// The report of a run that stopped for `stop`, with the fates of the original's deadlocks
/// that `judge` knows settled; what was learned comes from `learner`.
fn finish(mut ctx: Context<'_>, judge: &Judge, stop: StopReason, learner: Option<&mut Learner>) -> Report {
    ctx.settle_fates(judge.reached_deadlocks());
    ctx.finish(stop, judge.original_deadlocks(), learner)
}

/// A run on an original with no failure but deadlocks, which are bugs to repair: the
/// removal phase from the original (after the good traces, in mixed mode). A repair when it
/// removes some; otherwise "no repair", each deadlock kept with its reason.
fn only_deadlocks(mut ctx: Context<'_>, mut judge: Judge) -> Result<Report, Error> {
    let mut learning = Learning::new(&ctx)?;
    if ctx.cfg().mode == Mode::Mixed {
        learn_from_good_traces(&mut ctx, &mut judge, &mut learning)?;
    }
    let removed = remove_deadlocks(&mut ctx, &mut judge, &mut learning)?;
    let stop = if removed {
        if ctx.cfg().optimise {
            let listable = listable_size(&mut ctx);
            optimise(&mut ctx, &mut judge, &mut learning, listable, None, None)?;
        }
        StopReason::Repaired
    } else {
        StopReason::NoRepair(NoRepair::DeadlocksStay)
    };
    ctx.settle_fates(judge.reached_deadlocks());
    if !removed {
        // Nothing changed: no program to print.
        ctx.clear_accepted();
    }
    Ok(ctx.finish(stop, judge.original_deadlocks(), Some(&mut learning.learner)))
}

/// Mixed mode's first phase: the search for good traces of the original, and LearnGoodUnder
/// on each (the judge notes the assertions they pass).
fn learn_from_good_traces(ctx: &mut Context<'_>, judge: &mut Judge, learning: &mut Learning) -> Result<(), Error> {
    let config = ctx.cfg().good.clone().max_time(ctx.time_left());
    let program = ctx.program();
    let found = ctx.timed(good_time, || search_good_traces(program, &config))?;
    ctx.record_good_search(found.bounds);
    judge.saw_good_traces(ctx, &found.traces);
    for trace in &found.traces {
        if ctx.out_of_time() {
            break; // the loop stops with the time limit
        }
        learning.learn_good(ctx, trace)?;
        ctx.record_learned_good(trace);
    }
    Ok(())
}

/// The number of candidates of the run's space when it is small enough to list (at most
/// [`OPTIMISE_LIST_LIMIT`], or the exhaustive search's limit if larger).
fn listable_size(ctx: &mut Context<'_>) -> Option<usize> {
    let limit = ctx.cfg().exhaustive_limit.max(OPTIMISE_LIST_LIMIT);
    let space = ctx.space();
    ctx.timed(list_time, || candidate_count(space)).and_then(|n| usize::try_from(n).ok()).filter(|&n| n <= limit)
}

/// The result of a phase, with the learner's SAT search stopped at the time limit (an error
/// of kind [`ErrorKind::Deadline`]) turned into the stop for the time limit.
fn until_deadline<T>(r: Result<ControlFlow<StopReason, T>, Error>) -> Result<ControlFlow<StopReason, T>, Error> {
    match r {
        Err(e) if *e.kind() == ErrorKind::Deadline => Ok(ControlFlow::Break(StopReason::TimeLimit)),
        r => r,
    }
}

/// The loop's state once the original is judged buggy.
struct Run<'a> {
    ctx: Context<'a>,
    judge: Judge,
    learning: Learning,
    /// A program accepted with a deadlock admitted only after a failure, in reserve, and the
    /// number of iterations when it was found.
    reserve: Option<(Accepted, usize)>,
    /// The number of candidates of the space when it is small enough to list, once counted.
    listable: Option<Option<usize>>,
    /// The program's twin threads, when it has some and the run offers changes to them.
    twins: Option<Twins>,
    /// The guess "twins change alike", once built.
    alike: Option<paces_constraint::NodeId>,
    /// Whether the last proposal was replaced by one whose twins change alike.
    spread: bool,
    /// The places that race alike, when the run offers sections to them.
    races: Option<Races>,
    /// The guess "no item moves" ([`Races::no_moves`]), built once when first asked.
    no_moves: Option<paces_constraint::NodeId>,
}

impl Run<'_> {
    /// Runs the loop from the original's bad trace `first`. A program accepted only because a
    /// deadlock of it has the blocked threads of one the original reaches after a failure is
    /// kept in reserve while the loop looks, for at most [`STRICT_SEARCH_ITERATIONS`] more
    /// iterations, for a repair whose deadlocks the original reaches at the same place (a
    /// repair that hangs where the original failed is worse than one that does neither), with
    /// the good traces' fallbacks relaxed to their covered edges; the reserve is the answer
    /// when that search ends without one.
    fn go(&mut self, first: Rejection) -> Result<StopReason, Error> {
        let cfg = self.ctx.cfg();
        let stop = match self.iterate(first) {
            // The learner's SAT search stopped at the time limit.
            Err(e) if *e.kind() == ErrorKind::Deadline => StopReason::TimeLimit,
            r => r?,
        };
        let stop = match self.reserve.take() {
            Some((accepted, _)) if !stop.is_success() => {
                self.ctx.accept(accepted);
                StopReason::Repaired
            }
            _ => stop,
        };
        if stop == StopReason::Repaired && !cfg.keep_deadlocks {
            // The assertions are repaired with the original's deadlocks kept; now remove
            // those the repair still reaches where the space can.
            let removed = remove_deadlocks(&mut self.ctx, &mut self.judge, &mut self.learning)?;
            if removed {
                // A cheaper program than the one the removal found may exist: look again.
                self.ctx.record_optimality(None);
            }
        }
        if stop == StopReason::Repaired && cfg.optimise && self.ctx.optimality().is_none() {
            let (listable, alike) = (self.listable(), self.alike());
            let (ctx, judge, learning) = (&mut self.ctx, &mut self.judge, &mut self.learning);
            optimise(ctx, judge, learning, listable, self.twins.as_ref(), alike)?;
        }
        Ok(stop)
    }

    /// Mixed mode's good traces, then the iterations from the rejection of the original.
    fn iterate(&mut self, first: Rejection) -> Result<StopReason, Error> {
        if self.ctx.cfg().mode == Mode::Mixed {
            learn_from_good_traces(&mut self.ctx, &mut self.judge, &mut self.learning)?;
        }
        let mut rejected = Rejected { why: first, program: self.ctx.program().clone(), candidate: None };
        loop {
            if let Some(stop) = self.at_a_limit() {
                return Ok(stop);
            }
            let mut record = rejected.why.iteration();
            let outcome = self.learn_and_propose(&rejected, &mut record);
            self.ctx.record_iteration(record);
            if self.walking() {
                if let Some(stop) = self.list_the_space()? {
                    return Ok(stop);
                }
            }
            let proposed = match outcome? {
                ControlFlow::Continue(proposed) => proposed,
                ControlFlow::Break(stop) => return Ok(stop),
            };
            match self.judge_proposed(proposed)? {
                ControlFlow::Continue(next) => rejected = next,
                ControlFlow::Break(stop) => return Ok(stop),
            }
        }
    }

    /// One iteration's learning and proposal: learns from `rejected`, then asks for the next
    /// candidate (with its changes offered to twins, [`Run::spread`]); what it learned and
    /// proposed goes into `record`, which the loop records even when this fails.
    fn learn_and_propose(
        &mut self,
        rejected: &Rejected,
        record: &mut Iteration,
    ) -> Result<ControlFlow<StopReason, Proposed>, Error> {
        let judge = &mut self.judge;
        let more = &mut |ctx: &mut Context<'_>, r: &Rejected, first: &_| judge.more_failures(ctx, r, first);
        if let ControlFlow::Break(stop) = self.learning.learn_from_rejection(&mut self.ctx, rejected, more, record)? {
            return Ok(ControlFlow::Break(stop));
        }
        match self.learning.propose(&mut self.ctx)? {
            ControlFlow::Continue(proposed) => {
                record.proposal = proposed.1.clone();
                self.spread(proposed, record).map(ControlFlow::Continue)
            }
            ControlFlow::Break(stop) => Ok(ControlFlow::Break(stop)),
        }
    }

    /// The proposed candidate with its changes offered to the twins of the threads it changes:
    /// when its twins do not change alike, the cheapest candidate whose twins do
    /// ([`Twins::alike`]) if there is one, else the proposal spread ([`Twins::spread`]);
    /// recorded as the iteration's proposal. The proposed candidate itself when its twins
    /// change alike already (none changed, say) or no twin gets a change.
    fn spread(&mut self, proposed: Proposed, record: &mut Iteration) -> Result<Proposed, Error> {
        let proposed = self.spread_twins(proposed, record)?;
        let proposed = self.sections_guess(proposed, record)?;
        let Some(races) = &self.races else { return Ok(proposed) };
        let Some(candidate) = races.spread(self.ctx.space(), &self.learning.learner, &proposed.0) else {
            return Ok(proposed);
        };
        let transformations = candidate.transformations(self.ctx.space());
        record.proposal = transformations.clone();
        self.spread = true;
        Ok((candidate, transformations))
    }

    /// The guess that the race moves keep missing needs sections (docs/loop.md, "Races
    /// spread"): when the check found the failure through other threads too, the proposal
    /// moves items and the same failure rejected the last [`MOVES_TRIED`] proposals, each of
    /// which moved items too, the cheapest candidate that moves nothing and satisfies
    /// everything learned, with its sections offered to every place with the same accesses
    /// ([`Races::spread`]), is judged instead, when there is one and the offer adds a section.
    /// Like every guess it is judged with the loop's acceptance, and a rejection teaches only
    /// what any rejection teaches.
    fn sections_guess(&mut self, proposed: Proposed, record: &mut Iteration) -> Result<Proposed, Error> {
        let space = self.ctx.space();
        let Some(races) = &self.races else { return Ok(proposed) };
        if proposed.0.cost(space).inversions == 0 {
            return Ok(proposed);
        }
        // A race through several pairs of threads: the check found the same failure through
        // other threads too.
        if !record.more.contains(&record.problem) {
            return Ok(proposed);
        }
        let history = self.ctx.history();
        let moved = |i: &Iteration| i.problem == record.problem && i.proposal.iter().any(is_swap);
        if history.len() < MOVES_TRIED || !history[history.len() - MOVES_TRIED..].iter().all(moved) {
            return Ok(proposed);
        }
        let still = *self.no_moves.get_or_insert_with(|| Races::no_moves(self.learning.learner.arena_mut(), space));
        let asked = self.learning.cheapest_under(&mut self.ctx, still, "no item moves")?;
        let Some((still, ..)) = asked else { return Ok(proposed) };
        // Only a race that other places make too: a section needed once is the learner's to find.
        let Some(candidate) = races.spread(space, &self.learning.learner, &still) else { return Ok(proposed) };
        let transformations = candidate.transformations(space);
        record.proposal = transformations.clone();
        self.spread = true;
        Ok((candidate, transformations))
    }

    /// [`Run::spread`] to twins.
    fn spread_twins(&mut self, proposed: Proposed, record: &mut Iteration) -> Result<Proposed, Error> {
        self.spread = false;
        let Some(alike) = self.alike() else { return Ok(proposed) };
        if self.learning.learner.arena().eval(alike, &proposed.0) {
            // Already alike (or no twin changed): the proposal is the cheapest such.
            return Ok(proposed);
        }
        let space = self.ctx.space();
        let candidate = match self.learning.cheapest_under(&mut self.ctx, alike, "twins change alike")? {
            Some((candidate, _, _)) => Some(candidate).filter(|c| *c != proposed.0),
            None => self.twins.as_ref().and_then(|t| t.spread(space, &self.learning.learner, &proposed.0)),
        };
        let Some(candidate) = candidate else { return Ok(proposed) };
        let transformations = candidate.transformations(space);
        record.proposal = transformations.clone();
        self.spread = true;
        Ok((candidate, transformations))
    }

    /// The guess "twins change alike" ([`Twins::alike`]), built once; `None` without twins.
    fn alike(&mut self) -> Option<paces_constraint::NodeId> {
        let twins = self.twins.as_ref()?;
        let space = self.ctx.space();
        Some(*self.alike.get_or_insert_with(|| twins.alike(self.learning.learner.arena_mut(), space)))
    }

    /// The stop for the time limit or an iteration limit when one is reached.
    fn at_a_limit(&self) -> Option<StopReason> {
        let iterations = self.ctx.iterations();
        if self.ctx.out_of_time() {
            Some(StopReason::TimeLimit)
        } else if iterations >= self.ctx.cfg().max_iterations
            || self.reserve.as_ref().is_some_and(|(_, since)| iterations >= since + STRICT_SEARCH_ITERATIONS)
        {
            Some(StopReason::IterationLimit)
        } else {
            None
        }
    }

    /// Judges a proposed candidate: the stop when it is accepted (the repair) or the check
    /// stops; otherwise the rejected program to learn from next. A candidate accepted with a
    /// deadlock admitted only after a failure goes into reserve (the first such) and is
    /// learned from as a deadlock.
    fn judge_proposed(&mut self, proposed: Proposed) -> Result<ControlFlow<StopReason, Rejected>, Error> {
        let (candidate, transformations) = proposed;
        let original = self.ctx.program();
        let program = self.ctx.timed(apply_time, || original.apply(&candidate))?;
        let why = match self.judge.judge(&mut self.ctx, &program, &candidate)? {
            Judgement::Accepted(passed, None) => {
                let origin = Origin::Loop { iteration: self.ctx.iterations(), twins: self.spread };
                self.ctx.accept(passed.accepted(program, candidate, transformations, origin));
                return Ok(ControlFlow::Break(StopReason::Repaired));
            }
            Judgement::Accepted(passed, Some((id, cex))) => {
                if self.reserve.is_none() {
                    let origin = Origin::Reserve { iteration: self.ctx.iterations(), twins: self.spread };
                    let accepted = passed.accepted(program.clone(), candidate.clone(), transformations, origin);
                    self.reserve = Some((accepted, self.ctx.iterations()));
                    // The fallbacks' frozen orders may be what kept a better repair out:
                    // look among the candidates they forbid too (each is checked).
                    if self.ctx.cfg().learner.relaxes_on_conflict() {
                        self.learning.relax_fallbacks()?;
                    }
                }
                let problem = Problem::InReserve { deadlock: id, iterations: STRICT_SEARCH_ITERATIONS };
                Rejection::Trace { problem, cex }
            }
            Judgement::Rejected(why) => why,
            Judgement::Stop(stop) => return Ok(ControlFlow::Break(stop)),
        };
        Ok(ControlFlow::Continue(Rejected { why, program, candidate: Some(candidate) }))
    }

    /// Whether the last [`BLIND_ITERATIONS`] rejections had nothing to generalise.
    fn walking(&self) -> bool {
        let history = self.ctx.history();
        let blind = |i: &Iteration| match i.kind() {
            IterationKind::Unreached | IterationKind::Sequential | IterationKind::Refused => true,
            IterationKind::Bad | IterationKind::Deadlock => i.fixes == 0,
            _ => false,
        };
        history.len() >= BLIND_ITERATIONS && history[history.len() - BLIND_ITERATIONS..].iter().all(blind)
    }

    /// Judges the candidates of a space small enough to list in cost order, the first
    /// accepted being the repair (proved the cheapest); `None` when the space is too large.
    fn list_the_space(&mut self) -> Result<Option<StopReason>, Error> {
        let Some(size) = self.listable() else { return Ok(None) };
        let space = self.ctx.space();
        let candidates = self.ctx.timed(list_time, || in_cost_order(space, size))?;
        let (stop, checked) = judge_in_order(&mut self.ctx, &mut self.judge, candidates)?;
        let proved_optimal = stop == StopReason::Repaired;
        self.ctx.record_exhaustive(Exhaustive { space_size: size, checked: checked + 1, proved_optimal });
        let blind = BLIND_ITERATIONS;
        Ok(Some(match stop {
            StopReason::Repaired => {
                self.ctx.record_optimality(Some(Optimality::Proved(Proof::WalkedInCostOrder { blind })));
                stop
            }
            StopReason::NoRepair(_) => StopReason::NoRepair(NoRepair::WalkedAndRejected { candidates: size, blind }),
            other => other,
        }))
    }

    /// The number of candidates of the space when it is small enough to list (at most
    /// [`OPTIMISE_LIST_LIMIT`], or the exhaustive search's limit if larger); counted once.
    fn listable(&mut self) -> Option<usize> {
        if let Some(known) = self.listable {
            return known;
        }
        let size = listable_size(&mut self.ctx);
        self.listable = Some(size);
        size
    }
}
