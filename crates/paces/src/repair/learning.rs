//! Learning: the learner of a run, once the original program is judged buggy, fed with the
//! original's good traces and with every rejection the judge gives (the fixes of a bad trace,
//! the guess for a new deadlock or livelock, the no-good of the rejected candidate), and asked
//! for the next candidate. It returns what it learned and proposed (into the iteration record
//! the loop hands it and records) and never writes the report; it times its work through the
//! run's context.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use paces_constraint::{Candidate, Cost, NodeId, Space, Transformation};
use paces_explore::{complete_counterexample, freely_bad, translate_trace, Counterexample};
use paces_learn::{Learner, LessonId, Proposal};
use paces_trace::Trace;

use super::context::Context;
use super::judgement::{Rejected, Rejection};
use super::report::{complete_time, learn_time, solve_time, BoundHit, Iteration, IterationKind, LearnedTrace};
use super::report::{NoRepair, Problem, StopReason};
use crate::{Error, ErrorKind};

/// Configurations the free-transformation search of one good trace may visit.
const FREE_BUDGET: usize = 5_000;

/// Configurations the completion of a bad trace may visit.
const COMPLETION_BUDGET: usize = 200_000;

/// A candidate the learner proposed, with its transformations.
pub(super) type Proposed = (Candidate, Vec<Transformation>);

/// Where the further counterexamples of a rejected program's check come from, asked for
/// after learning from its first bad trace (the judge's `more_failures`).
pub(super) type MoreFailures<'m, 'a> =
    dyn FnMut(&mut Context<'a>, &Rejected, &Counterexample) -> Result<Vec<(Problem, Counterexample)>, Error> + 'm;

/// The learner of a run and what the run keeps to guess causes.
pub(super) struct Learning {
    pub(super) learner: Learner,
    /// Per problem rejected candidates had with nothing to generalise: the changes they
    /// shared, and how many there were (see [`Learning::learn_shared_cause`]).
    causes: BTreeMap<String, (BTreeSet<Transformation>, usize)>,
    /// The lesson of the last trace learned from with fixes (see [`Learning::last_lesson`]).
    last: Option<LessonId>,
}

impl Learning {
    /// A learner over the run's space, with the run's learner settings and deadline.
    pub(super) fn new(ctx: &Context<'_>) -> Result<Self, Error> {
        let mut learner = Learner::new(ctx.space(), ctx.cfg().learner.clone())?;
        learner.set_deadline(ctx.deadline());
        Ok(Learning { learner, causes: BTreeMap::new(), last: None })
    }

    /// LearnGoodUnder on `trace`, a good trace of the original.
    pub(super) fn learn_good(&mut self, ctx: &mut Context<'_>, trace: &Trace) -> Result<(), Error> {
        let (learner, program) = (&mut self.learner, ctx.program());
        ctx.timed(learn_time, || {
            learner.learn_good_checked(trace, || freely_bad(program, trace, FREE_BUDGET).ok().flatten())
        })?;
        Ok(())
    }

    /// Relaxes the good traces' fallbacks to their covered edges.
    pub(super) fn relax_fallbacks(&mut self) -> Result<(), Error> {
        self.learner.relax_fallbacks()?;
        Ok(())
    }

    /// Requires that `candidate` is never proposed again, for the reason `why`.
    pub(super) fn exclude(&mut self, space: &Space, candidate: &Candidate, why: &str) -> Result<(), Error> {
        let nogood = self.learner.arena_mut().excluding(candidate, space);
        self.learner.require(nogood, why)?;
        Ok(())
    }

    /// Learns from a rejected program: the fixes of its trace (or the guess for a livelock),
    /// then the no-good of the rejected candidate; what it learned goes into `record`, and
    /// the further counterexamples of a bad trace come from `more`. A stop when the
    /// original's own bad trace has no fix or learning passes a memory bound.
    pub(super) fn learn_from_rejection<'a>(
        &mut self,
        ctx: &mut Context<'a>,
        rejected: &Rejected,
        more: &mut MoreFailures<'_, 'a>,
        record: &mut Iteration,
    ) -> Result<ControlFlow<StopReason>, Error> {
        self.last = None;
        match &rejected.why {
            Rejection::OriginalDeadlock { cex, .. } => {
                let kind = IterationKind::Deadlock;
                // A deadlock the original reaches too: no move of the candidate made it, so
                // its fixes are learned with no guess of a move to undo.
                if let ControlFlow::Break(stop) = self.learn_from_trace(ctx, rejected, kind, cex, record)? {
                    return Ok(ControlFlow::Break(stop));
                }
            }
            Rejection::Outcome(_) => {
                if let Some(candidate) = &rejected.candidate {
                    self.learn_outcome_guess(ctx.space(), candidate, &record.problem.to_string())?;
                    self.learn_shared_cause(ctx.space(), "adds an outcome", candidate, 2)?;
                }
            }
            Rejection::Trace { cex, problem } => {
                let kind = problem.kind();
                if let ControlFlow::Break(stop) = self.learn_from_trace(ctx, rejected, kind, cex, record)? {
                    return Ok(ControlFlow::Break(stop));
                }
                if kind == IterationKind::Bad {
                    if let ControlFlow::Break(stop) = self.learn_from_more(ctx, rejected, more, cex, record)? {
                        return Ok(ControlFlow::Break(stop));
                    }
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
                    self.learn_shared_cause(ctx.space(), &problem.to_string(), candidate, after)?;
                }
            }
            Rejection::Livelock(id) => {
                let block_label = &id.block;
                let locs = rejected.program.loops_in_added_section(ctx.program(), block_label);
                let constraint = self.learner.arena_mut().outside_sections(&locs, ctx.space());
                self.learner.require(constraint, &format!("livelock in {block_label}"))?;
            }
            Rejection::Unreached(_) => {
                if let Some(candidate) = &rejected.candidate {
                    self.learn_shared_cause(ctx.space(), "hides assertions", candidate, 2)?;
                }
            }
            Rejection::Refused(_) => {
                if let Some(candidate) = &rejected.candidate {
                    self.learn_shared_cause(ctx.space(), "refused by the input's language", candidate, 2)?;
                }
            }
            Rejection::Sequential => {}
        }
        if let Some(candidate) = &rejected.candidate {
            // Safety net: a rejected candidate is never proposed again, even when what was
            // learned from it does not exclude it.
            self.exclude(ctx.space(), candidate, "a rejected candidate")?;
        }
        Ok(ControlFlow::Continue(()))
    }

    /// The lesson learned from the last rejection's trace, when it had fixes (for a deadlock
    /// of the original that the removal phase may give up on: see `removal.rs`).
    pub(super) fn last_lesson(&self) -> Option<LessonId> {
        self.last
    }

    /// Learns from a candidate that reaches an outcome the original never reaches. Only a
    /// reorder adds an outcome (a section only takes runs away), so the guess is that not
    /// all of its reorders are made together; the no-good excludes the candidate itself.
    fn learn_outcome_guess(&mut self, space: &Space, candidate: &Candidate, problem: &str) -> Result<(), Error> {
        let swaps: Vec<Transformation> =
            candidate.transformations(space).into_iter().filter(|t| matches!(t, Transformation::Swap { .. })).collect();
        if swaps.is_empty() {
            return Ok(());
        }
        let lesson = self.learner.arena_mut().not_all_of(&swaps);
        self.learner.require_guess(lesson, &format!("{problem}: not all of its reorders"))?;
        Ok(())
    }

    /// Learns from a candidate rejected with little to generalise: for hiding assertions (no
    /// trace), for a bad trace that offers no fix, or for a new deadlock (`problem`; what its
    /// trace offers is often a guess). The no-good alone lets the loop walk: it keeps the
    /// changes that cause the problem and adds an unrelated one each time, and the same failure
    /// comes back. So the changes that every candidate rejected for the same problem had in
    /// common (since that set last became empty) are taken to be its cause, and once `after`
    /// such candidates share fewer changes than the last one made, the loop requires that not
    /// all of the shared changes are made together. A guess (a change that causes a problem
    /// beside some changes may not beside others), learned as one: a "no repair" whose
    /// conflict holds it says that it rests on a guess; in a
    /// space small enough to list, walking still ends in judging the space in cost order.
    fn learn_shared_cause(
        &mut self,
        space: &Space,
        problem: &str,
        candidate: &Candidate,
        after: usize,
    ) -> Result<(), Error> {
        let made: BTreeSet<Transformation> = candidate.transformations(space).into_iter().collect();
        let (shared, seen) = self
            .causes
            .remove(problem)
            .map(|(before, seen)| (before.intersection(&made).copied().collect::<BTreeSet<_>>(), seen + 1))
            .filter(|(shared, _)| !shared.is_empty())
            .unwrap_or_else(|| (made.clone(), 1));
        if seen >= after && shared.len() < made.len() {
            let names: Vec<String> = shared.iter().map(|t| t.display(space).to_string()).collect();
            let steps: Vec<Transformation> = shared.iter().copied().collect();
            let lesson = self.learner.arena_mut().not_all_of(&steps);
            let name = format!("{problem} (changes shared by {seen} rejected candidates): {}", names.join(", "));
            self.learner.require_guess(lesson, &name)?;
        }
        self.causes.insert(problem.to_owned(), (shared, seen));
        Ok(())
    }

    /// Learns from the further counterexamples of the check that rejected `rejected` with the
    /// bad trace `first` (from `more`), each as from the first (its fixes, or "no repair" when
    /// it is the original's and has none), before the loop proposes again; their problems and
    /// fixes go into `record`.
    fn learn_from_more<'a>(
        &mut self,
        ctx: &mut Context<'a>,
        rejected: &Rejected,
        more: &mut MoreFailures<'_, 'a>,
        first: &Counterexample,
        record: &mut Iteration,
    ) -> Result<ControlFlow<StopReason>, Error> {
        let more = more(ctx, rejected, first)?;
        for (problem, cex) in more {
            let mut also = Iteration::new(problem);
            if let ControlFlow::Break(stop) =
                self.learn_from_trace(ctx, rejected, IterationKind::Bad, &cex, &mut also)?
            {
                return Ok(ControlFlow::Break(stop));
            }
            record.fixes += also.fixes;
            record.more.push(also.problem);
            if ctx.cfg().record_traces {
                record.more_learned.push(also.learned);
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Learns from one trace of `rejected`, recording it in `record` (its schedule, its fixes,
    /// and with [`Repair::record_traces`](crate::Repair::record_traces) the trace and its
    /// elimination).
    fn learn_from_trace(
        &mut self,
        ctx: &mut Context<'_>,
        rejected: &Rejected,
        kind: IterationKind,
        cex: &Counterexample,
        record: &mut Iteration,
    ) -> Result<ControlFlow<StopReason>, Error> {
        let solo = failing_thread_alone(cex);
        // Execution goes on after a failure: complete the trace so that its generalisation
        // sees the writes after the failing read.
        let cex = ctx.timed(complete_time, || complete_counterexample(&rejected.program, cex, COMPLETION_BUDGET))?;
        let trace = translate_trace(&cex.trace, &rejected.program, ctx.program())?;
        record.schedule = cex.schedule.steps.iter().map(|s| s.label.clone()).collect();
        record.threads = cex.schedule.steps.iter().map(|s| s.thread.index()).collect();
        record.failing = cex.failing_step;
        // A new deadlock of a candidate may be freed by a write its trace never reaches: when
        // the trace offers no fix, the guess is that one of the moves that led to it must be
        // undone. When a blocked thread waits at an added section that holds a wait past its
        // first step, the trace is no deadlock of the original's steps at all (the section,
        // all or nothing, may wait for a later step while the step the trace shows could run
        // in the original), so its fixes would be no facts: the guess alone is learned.
        let learner = &mut self.learner;
        let original_s = matches!(rejected.why, Rejection::OriginalDeadlock { .. });
        let undo = match (&rejected.candidate, kind) {
            (Some(candidate), IterationKind::Deadlock) if !original_s => {
                Some(learner.arena_mut().undo_a_move(&trace.blocked_items(), candidate, ctx.space()))
            }
            _ => None,
        };
        if let (Some(candidate), Some(undo)) = (&rejected.candidate, undo) {
            if blocked_at_added_section(&trace, candidate, ctx.space()) {
                // Not a deadlock of the original's steps: learn the guess alone.
                let name =
                    format!("{} (at an added section that waits inside: undo a move or part it)", record.problem);
                ctx.timed(learn_time, || learner.require_guess(undo, &name))?;
                return Ok(ControlFlow::Continue(()));
            }
        }
        let (lesson, elimination) = match ctx.timed(learn_time, || learner.learn_bad_or(&trace, undo)) {
            // A candidate's deadlock whose trace, read back in the original's terms, shows no
            // blocked step (an added section that holds the wait's predecessors): nothing to
            // generalise; the candidate's no-good and the shared-cause guess remain.
            Err(e) if *e.kind() == paces_learn::ErrorKind::NotBad && rejected.candidate.is_some() => {
                return Ok(ControlFlow::Continue(()));
            }
            Err(e) if *e.kind() == paces_learn::ErrorKind::Limit => {
                let detail = std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string);
                let message = format!("{detail} (--max-elimination-memory raises it)");
                return Ok(ControlFlow::Break(StopReason::BoundReached(BoundHit::LearningMemory { message })));
            }
            r => r?,
        };
        if ctx.cfg().record_traces {
            record.learned = Some(Box::new(LearnedTrace { trace, elimination }));
        }
        record.fixes = lesson.fixes;
        if lesson.fixes > 0 {
            self.last = Some(lesson.id);
        }
        if lesson.fixes == 0 && rejected.candidate.is_none() && kind == IterationKind::Deadlock {
            // The original's deadlock may be freed by a write its trace never reaches: no fix
            // proves nothing, so only the original itself is ruled out and the loop looks on.
            let original = Candidate::original(ctx.space());
            self.exclude(ctx.space(), &original, "the original program deadlocks")?;
        } else if lesson.fixes == 0 && rejected.candidate.is_none() {
            let failure = record.problem.clone();
            let why = match solo {
                Some(thread) => {
                    let thread = ctx.program().threads.get(thread).map_or("?", |t| t.name.as_str()).to_owned();
                    NoRepair::FailsAlone { failure, thread }
                }
                None => NoRepair::NoCycle { failure },
            };
            return Ok(ControlFlow::Break(StopReason::NoRepair(why)));
        }
        Ok(ControlFlow::Continue(()))
    }

    /// The learner's cheapest candidate that also satisfies `guess` (asked in a scope of its
    /// own, so nothing of the guess stays), with its cost; `None` when there is none.
    pub(super) fn cheapest_under(
        &mut self,
        ctx: &mut Context<'_>,
        guess: NodeId,
        name: &str,
    ) -> Result<Option<(Candidate, Cost, Vec<Transformation>)>, Error> {
        let learner = &mut self.learner;
        let proposal = ctx.timed(solve_time, || -> Result<Proposal, paces_learn::Error> {
            learner.push();
            let asked = learner.require_guess(guess, name).and_then(|_| learner.propose());
            learner.pop()?;
            asked
        })?;
        Ok(match proposal {
            Proposal::Candidate { candidate, cost, transformations } => Some((candidate, cost, transformations)),
            _ => None,
        })
    }

    /// The cheapest candidate satisfying everything learned, or "no repair".
    pub(super) fn propose(&mut self, ctx: &mut Context<'_>) -> Result<ControlFlow<StopReason, Proposed>, Error> {
        let learner = &mut self.learner;
        let space = ctx.space();
        let may_relax = ctx.cfg().learner.relaxes_on_conflict();
        let proposal = ctx.timed(solve_time, || -> Result<Proposal, paces_learn::Error> {
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
            Proposal::Unsatisfiable { explanation, .. } => {
                Ok(ControlFlow::Break(StopReason::NoRepair(NoRepair::Conflict { explanation })))
            }
            Proposal::Candidate { candidate, transformations, .. } => {
                Ok(ControlFlow::Continue((candidate, transformations)))
            }
            other => Err(Error::new(ErrorKind::Internal, format!("the learner proposed something unknown: {other:?}"))),
        }
    }
}

/// The thread of a bad trace whose failing step and every step before it are that thread's:
/// the failure then needs no other thread. `None` for any other trace.
fn failing_thread_alone(cex: &Counterexample) -> Option<usize> {
    let steps = cex.schedule.steps.get(..=cex.failing_step?)?;
    let thread = steps.last()?.thread;
    steps.iter().all(|s| s.thread == thread).then(|| thread.index())
}

/// Whether a blocked thread of a candidate's deadlock `trace` waits at an added section of
/// `candidate` that holds a wait past its first step
/// ([`Candidate::section_waits_inside`]).
fn blocked_at_added_section(trace: &Trace, candidate: &Candidate, space: &paces_constraint::Space) -> bool {
    let sections = trace.blocked_items().into_iter().filter_map(|item| candidate.section_of(item));
    sections.into_iter().any(|section| candidate.section_waits_inside(section, space))
}
