//! Learning: the learner of a run, once the original program is judged buggy, fed with the
//! original's good traces and with every rejection the judge gives (the fixes of a bad trace,
//! the guess for a new deadlock or livelock, the no-good of the rejected candidate), and asked
//! for the next candidate.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use paces_constraint::{Candidate, Cost, NodeId, Transformation};
use paces_cwhile::ir::Program;
use paces_explore::{complete_counterexample, freely_bad, search_good_traces, translate_trace, Counterexample};
use paces_generalize::Elimination;
use paces_learn::{Learner, LessonId, Proposal};
use paces_trace::Trace;

use super::judge::{Judge, Rejection};
use super::report::{complete_time, good_time, learn_time, solve_time, Iteration, IterationKind, StopReason};
use crate::{Error, ErrorKind};

/// Configurations the free-transformation search of one good trace may visit.
const FREE_BUDGET: usize = 5_000;

/// Configurations the completion of a bad trace may visit.
const COMPLETION_BUDGET: usize = 200_000;

/// A rejected program: the original (no candidate) or a candidate applied.
pub(super) struct Rejected {
    pub(super) why: Rejection,
    pub(super) program: Program,
    pub(super) candidate: Option<Candidate>,
}

/// A candidate the learner proposed, with its transformations.
pub(super) type Proposed = (Candidate, Vec<Transformation>);

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
    /// A learner over the judge's space, with the run's learner settings and deadline.
    pub(super) fn new(judge: &Judge<'_>) -> Result<Self, Error> {
        let mut learner = Learner::new(&judge.space, judge.cfg.learner.clone())?;
        learner.set_deadline(judge.cfg.time_limit.map(|limit| judge.report.start() + limit));
        Ok(Learning { learner, causes: BTreeMap::new(), last: None })
    }

    /// Mixed mode's first phase: LearnGoodUnder on the original's good traces.
    pub(super) fn learn_from_good_traces(&mut self, judge: &mut Judge<'_>) -> Result<(), Error> {
        let remaining = judge.cfg.time_limit.map(|limit| limit.saturating_sub(judge.report.start().elapsed()));
        let config = judge.cfg.good.clone().max_time(remaining);
        let program = judge.program;
        let found = judge.report.timed(good_time, || search_good_traces(program, &config))?;
        judge.report.good_search_bounds = found.bounds;
        let traces = found.traces;
        for t in &traces {
            judge.saw_good_trace(t);
        }
        for (i, t) in traces.iter().enumerate() {
            if judge.out_of_time() {
                break; // the loop stops with the time limit
            }
            let learner = &mut self.learner;
            judge.report.timed(learn_time, || {
                learner.learn_good_checked(t, || freely_bad(program, t, FREE_BUDGET).ok().flatten())
            })?;
            if judge.cfg.dot {
                judge.report.dots.push((format!("good-{}.dot", i + 1), crate::dot::trace_graph(program, t)));
                judge.report.good_charts.push(crate::chart::TraceChart::of_good_trace(program, t));
            }
        }
        Ok(())
    }

    /// Relaxes the good traces' fallbacks to their covered edges.
    pub(super) fn relax_fallbacks(&mut self) -> Result<(), Error> {
        self.learner.relax_fallbacks()?;
        Ok(())
    }

    /// Requires that `candidate` is never proposed again, for the reason `why`.
    pub(super) fn exclude(&mut self, judge: &Judge<'_>, candidate: &Candidate, why: &str) -> Result<(), Error> {
        let nogood = self.learner.arena_mut().excluding(candidate, &judge.space);
        self.learner.require(nogood, why)?;
        Ok(())
    }

    /// Learns from a rejected program: the fixes of its trace (or the guess for a livelock),
    /// then the no-good of the rejected candidate. A stop when the original's own bad trace
    /// has no fix or learning passes a memory bound.
    pub(super) fn learn_from_rejection(
        &mut self,
        judge: &mut Judge<'_>,
        rejected: &Rejected,
        record: &mut Iteration,
    ) -> Result<ControlFlow<StopReason>, Error> {
        self.last = None;
        match &rejected.why {
            Rejection::OriginalDeadlock { cex, .. } => {
                let kind = IterationKind::Deadlock;
                // A deadlock the original reaches too: no move of the candidate made it, so
                // its fixes are learned with no guess of a move to undo.
                if let ControlFlow::Break(stop) = self.learn_from_trace(judge, rejected, kind, cex, record, true)? {
                    return Ok(ControlFlow::Break(stop));
                }
            }
            Rejection::Outcome(_) => {
                if let Some(candidate) = &rejected.candidate {
                    self.learn_outcome_guess(judge, candidate, &record.problem)?;
                    self.learn_shared_cause(judge, "adds an outcome", candidate, 2)?;
                }
            }
            Rejection::Trace { kind, cex, problem } => {
                if let ControlFlow::Break(stop) = self.learn_from_trace(judge, rejected, *kind, cex, record, true)? {
                    return Ok(ControlFlow::Break(stop));
                }
                if *kind == IterationKind::Bad {
                    if let ControlFlow::Break(stop) = self.learn_from_more(judge, rejected, cex, record)? {
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
                    self.learn_shared_cause(judge, problem, candidate, after)?;
                }
            }
            Rejection::Livelock { block_label, .. } => {
                let locs = rejected.program.loops_in_added_section(judge.program, block_label);
                let constraint = self.learner.arena_mut().outside_sections(&locs, &judge.space);
                self.learner.require(constraint, &format!("livelock in {block_label}"))?;
            }
            Rejection::Unreached(_) => {
                if let Some(candidate) = &rejected.candidate {
                    self.learn_shared_cause(judge, "hides assertions", candidate, 2)?;
                }
            }
            Rejection::Refused(_) => {
                if let Some(candidate) = &rejected.candidate {
                    self.learn_shared_cause(judge, "refused by the input's language", candidate, 2)?;
                }
            }
            Rejection::Sequential => {}
        }
        if let Some(candidate) = &rejected.candidate {
            // Safety net: a rejected candidate is never proposed again, even when what was
            // learned from it does not exclude it.
            self.exclude(judge, candidate, "a rejected candidate")?;
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
    fn learn_outcome_guess(&mut self, judge: &Judge<'_>, candidate: &Candidate, problem: &str) -> Result<(), Error> {
        let space = &judge.space;
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
        judge: &Judge<'_>,
        problem: &str,
        candidate: &Candidate,
        after: usize,
    ) -> Result<(), Error> {
        let space = &judge.space;
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
    /// bad trace `first` ([`Judge::more_failures`]), each as from the first (its fixes, or
    /// "no repair" when it is the original's and has none), before the loop proposes again;
    /// their problems and fixes go into `record`.
    fn learn_from_more(
        &mut self,
        judge: &mut Judge<'_>,
        rejected: &Rejected,
        first: &Counterexample,
        record: &mut Iteration,
    ) -> Result<ControlFlow<StopReason>, Error> {
        let more = judge.more_failures(&rejected.program, rejected.candidate.is_none(), first)?;
        for (problem, cex) in more {
            let mut also = Iteration::new(IterationKind::Bad, problem);
            if let ControlFlow::Break(stop) =
                self.learn_from_trace(judge, rejected, IterationKind::Bad, &cex, &mut also, false)?
            {
                return Ok(ControlFlow::Break(stop));
            }
            record.fixes += also.fixes;
            record.more.push(also.problem);
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Learns from one trace of `rejected`, recording it in `record` (its schedule, its fixes,
    /// with `charted` its chart and DOT graphs).
    fn learn_from_trace(
        &mut self,
        judge: &mut Judge<'_>,
        rejected: &Rejected,
        kind: IterationKind,
        cex: &Counterexample,
        record: &mut Iteration,
        charted: bool,
    ) -> Result<ControlFlow<StopReason>, Error> {
        let solo = failing_thread_alone(cex);
        // Execution goes on after a failure: complete the trace so that its generalisation
        // sees the writes after the failing read.
        let cex =
            judge.report.timed(complete_time, || complete_counterexample(&rejected.program, cex, COMPLETION_BUDGET))?;
        let trace = translate_trace(&cex.trace, &rejected.program, judge.program)?;
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
                Some(learner.arena_mut().undo_a_move(&trace.blocked_items(), candidate, &judge.space))
            }
            _ => None,
        };
        if let (Some(candidate), Some(undo)) = (&rejected.candidate, undo) {
            if blocked_at_added_section(&trace, candidate, &judge.space) {
                // Not a deadlock of the original's steps: learn the guess alone.
                let name =
                    format!("{} (at an added section that waits inside: undo a move or part it)", record.problem);
                judge.report.timed(learn_time, || learner.require_guess(undo, &name))?;
                return Ok(ControlFlow::Continue(()));
            }
        }
        let (lesson, elimination) = match judge.report.timed(learn_time, || learner.learn_bad_or(&trace, undo)) {
            // A candidate's deadlock whose trace, read back in the original's terms, shows no
            // blocked step (an added section that holds the wait's predecessors): nothing to
            // generalise; the candidate's no-good and the shared-cause guess remain.
            Err(e) if *e.kind() == paces_learn::ErrorKind::NotBad && rejected.candidate.is_some() => {
                return Ok(ControlFlow::Continue(()));
            }
            Err(e) if *e.kind() == paces_learn::ErrorKind::Limit => {
                let detail = std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string);
                let what =
                    format!("memory bound in learning from a bad trace: {detail} (--max-elimination-memory raises it)");
                return Ok(ControlFlow::Break(StopReason::BoundReached { bound: None, what }));
            }
            r => r?,
        };
        if judge.cfg.dot && charted {
            push_bad_dots(judge, &trace, &elimination);
            record.chart =
                Some(crate::chart::TraceChart::of_elimination(judge.program, &trace, &elimination, &judge.space));
        }
        record.fixes = lesson.fixes;
        if lesson.fixes > 0 {
            self.last = Some(lesson.id);
        }
        if lesson.fixes == 0 && rejected.candidate.is_none() && kind == IterationKind::Deadlock {
            // The original's deadlock may be freed by a write its trace never reaches: no fix
            // proves nothing, so only the original itself is ruled out and the loop looks on.
            let original = Candidate::original(&judge.space);
            self.exclude(judge, &original, "the original program deadlocks")?;
        } else if lesson.fixes == 0 && rejected.candidate.is_none() {
            let explanation = match solo {
                Some(thread) => format!(
                    "the failure ({}) needs no other thread: thread `{}` fails running alone, so no \
                     scheduling repair (reordering or atomic section) exists",
                    record.problem,
                    judge.program.threads.get(thread).map_or("?", |t| t.name.as_str())
                ),
                None => format!(
                    "the elimination graph of the original program's bad trace ({}) has no cycle: \
                     no reordering or atomic section of this space removes it",
                    record.problem
                ),
            };
            return Ok(ControlFlow::Break(StopReason::NoRepair { explanation }));
        }
        Ok(ControlFlow::Continue(()))
    }

    /// The learner's cheapest candidate that also satisfies `guess` (asked in a scope of its
    /// own, so nothing of the guess stays), with its cost; `None` when there is none.
    pub(super) fn cheapest_under(
        &mut self,
        judge: &mut Judge<'_>,
        guess: NodeId,
    ) -> Result<Option<(Candidate, Cost, Vec<Transformation>)>, Error> {
        let learner = &mut self.learner;
        let proposal = judge.report.timed(solve_time, || -> Result<Proposal, paces_learn::Error> {
            learner.push();
            let asked = learner.require_guess(guess, "twins change alike").and_then(|_| learner.propose());
            learner.pop()?;
            asked
        })?;
        Ok(match proposal {
            Proposal::Candidate { candidate, cost, transformations } => Some((candidate, cost, transformations)),
            _ => None,
        })
    }

    /// The cheapest candidate satisfying everything learned, or "no repair".
    pub(super) fn propose(
        &mut self,
        judge: &mut Judge<'_>,
        record: &mut Iteration,
    ) -> Result<ControlFlow<StopReason, Proposed>, Error> {
        let learner = &mut self.learner;
        let space = &judge.space;
        let may_relax = judge.cfg.learner.relaxes_on_conflict();
        let proposal = judge.report.timed(solve_time, || -> Result<Proposal, paces_learn::Error> {
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
            Proposal::Unsatisfiable { explanation, .. } => Ok(ControlFlow::Break(StopReason::NoRepair { explanation })),
            Proposal::Candidate { candidate, transformations, .. } => {
                record.proposal = transformations.iter().map(|t| t.display(&judge.space).to_string()).collect();
                Ok(ControlFlow::Continue((candidate, transformations)))
            }
            other => Err(Error::new(ErrorKind::Internal, format!("the learner proposed something unknown: {other:?}"))),
        }
    }
}

/// Adds the DOT graphs of a bad trace's partial order and fixes to the report.
fn push_bad_dots(judge: &mut Judge<'_>, trace: &Trace, e: &Elimination) {
    let round = judge.report.history.len() + 1;
    let program = judge.program;
    let label = |id: paces_trace::EventId| crate::dot::event_label(program, trace, id);
    let threads = crate::dot::thread_names(program);
    judge.report.dots.push((format!("bad-{round}-order.dot"), e.partial_order.to_dot(trace, &threads, &label)));
    for i in 0..e.fixes.len() {
        if let Some(d) = e.fix_dot(i, trace, &judge.space, &threads, &label) {
            judge.report.dots.push((format!("bad-{round}-fix-{}.dot", i + 1), d));
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
