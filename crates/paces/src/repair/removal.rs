//! The removal phase: once the assertions are repaired with the original's deadlocks kept,
//! look for a program of the space that also removes the deadlocks of the original that the
//! repair still reaches, starting from everything learned so far. A deadlock whose removal
//! conflicts with the rest is kept (its lesson taken back), and so is one that every program
//! keeps, one whose trace offers no fix, and every one left when the phase's budget runs out:
//! the repair in hand is the answer then. docs/loop.md ("Deadlocks of the original") says
//! why this is sound and what it may miss.

use std::collections::{BTreeMap, BTreeSet};

use paces_constraint::Candidate;
use paces_explore::{Counterexample, DeadlockId, ThreadStand};
use paces_learn::{LessonId, Proposal};

use super::context::Context;
use super::judge::{Deadlocks, Judge};
use super::judgement::{Judgement, Rejected, Rejection};
use super::learning::Learning;
use super::report::{apply_time, solve_time, KeptBecause, Origin};
use crate::{Error, ErrorKind};

/// The most candidates the removal phase judges.
pub(super) const REMOVAL_ITERATIONS: usize = 10;

/// The fewest states the removal phase may explore, whatever the repair of the assertions
/// explored (its budget is a third of that, see [`remove_deadlocks`]).
const REMOVAL_MIN_STATES: usize = 100_000;

/// What the removal phase keeps track of.
struct Removal {
    /// The deadlocks kept so far, and why.
    kept: BTreeMap<DeadlockId, KeptBecause>,
    /// The lesson learned from each deadlock's trace, to take back when it conflicts.
    lessons: BTreeMap<LessonId, DeadlockId>,
}

impl Removal {
    /// Keeps deadlock `id` (unless kept already, for another reason), and has the judge admit
    /// it from now on.
    fn keep(&mut self, judge: &mut Judge, id: DeadlockId, because: KeptBecause) {
        self.kept.entry(id).or_insert(because);
        judge.set_deadlock_policy(Deadlocks::Keep(self.kept.keys().cloned().collect()));
    }
}

/// Runs the removal phase on the repair in hand (the context's accepted program: the loop's
/// repair, or the original when it has no failure and only deadlocks). Ends with the judge
/// admitting exactly the deadlocks of the program then in hand, and the reason each is kept
/// recorded. Returns whether a program without some of the deadlocks was accepted; the run's
/// time limit ends the phase like its budget.
pub(super) fn remove_deadlocks(
    ctx: &mut Context<'_>,
    judge: &mut Judge,
    learning: &mut Learning,
) -> Result<bool, Error> {
    let mut removal = Removal { kept: BTreeMap::new(), lessons: BTreeMap::new() };
    let removed = match remove(ctx, judge, learning, &mut removal) {
        Err(e) if *e.kind() == ErrorKind::Deadline => false,
        r => r?,
    };
    judge.limit_states(None);
    judge.set_deadlock_policy(Deadlocks::Keep(ctx.accepted_deadlocks().into_keys().collect()));
    ctx.record_kept(removal.kept);
    Ok(removed)
}

/// The phase of [`remove_deadlocks`].
fn remove(
    ctx: &mut Context<'_>,
    judge: &mut Judge,
    learning: &mut Learning,
    removal: &mut Removal,
) -> Result<bool, Error> {
    let start: BTreeMap<DeadlockId, Counterexample> = ctx.accepted_deadlocks();
    let Some(in_hand) = ctx.accepted_candidate().cloned() else { return Ok(false) };
    judge.set_deadlock_policy(Deadlocks::Keep(BTreeSet::new()));
    if let Some(alone) = judge.deadlock_alone(ctx)? {
        for id in start.keys().filter(|id| is_alone(id, &alone.thread, &alone.at)) {
            let because = KeptBecause::ThreadAlone {
                before: alone.before.clone(),
                thread: alone.thread.clone(),
                at: alone.at.clone(),
            };
            removal.keep(judge, id.clone(), because);
        }
    }
    let program = ctx.accepted_program().cloned().unwrap_or_else(|| ctx.program().clone());
    let to_remove: Vec<(&DeadlockId, &Counterexample)> =
        start.iter().filter(|(id, _)| !removal.kept.contains_key(*id)).collect();
    for (id, cex) in to_remove {
        let why = Rejection::OriginalDeadlock { id: id.clone(), cex: cex.clone() };
        // The repair in hand is no-good only for this phase's candidates: it stays the answer
        // when the phase finds nothing better.
        let rejected = Rejected { why, program: program.clone(), candidate: Some(in_hand.clone()) };
        learn(ctx, judge, learning, removal, &rejected)?;
    }
    let budget = ctx.states() / 3;
    let budget = ctx.states() + budget.max(REMOVAL_MIN_STATES);
    let mut removed_some = false;
    for _ in 0..REMOVAL_ITERATIONS {
        if start.keys().all(|id| removal.kept.contains_key(id)) || ctx.states() >= budget || ctx.out_of_time() {
            break;
        }
        let Some(candidate) = propose(ctx, judge, learning, removal)? else { break };
        // No check of the phase goes past its budget.
        judge.limit_states(Some(budget.saturating_sub(ctx.states()).max(1)));
        let original = ctx.program();
        let applied = ctx.timed(apply_time, || original.apply(&candidate))?;
        match judge.judge(ctx, &applied, &candidate)? {
            Judgement::Accepted(passed, _) => {
                let transformations = candidate.transformations(ctx.space());
                let origin = Origin::Removal { iteration: ctx.iterations() };
                ctx.accept(passed.accepted(applied, candidate, transformations, origin));
                removed_some = true;
                break;
            }
            Judgement::Rejected(why) => {
                let rejected = Rejected { why, program: applied, candidate: Some(candidate) };
                learn(ctx, judge, learning, removal, &rejected)?;
            }
            Judgement::Stop(_) => break,
        }
    }
    Ok(removed_some)
}

/// Learns from a rejection of the phase, recording it as an iteration; a deadlock of the
/// original whose trace has no fix is kept.
fn learn(
    ctx: &mut Context<'_>,
    judge: &mut Judge,
    learning: &mut Learning,
    removal: &mut Removal,
    rejected: &Rejected,
) -> Result<(), Error> {
    let mut record = rejected.why.iteration();
    // A stop while learning (a memory bound) ends nothing here: the repair in hand stays.
    let more = &mut |ctx: &mut Context<'_>, r: &Rejected, first: &_| judge.more_failures(ctx, r, first);
    let _ = learning.learn_from_rejection(ctx, rejected, more, &mut record)?;
    if let Rejection::OriginalDeadlock { id, .. } = &rejected.why {
        match learning.last_lesson() {
            Some(lesson) => {
                removal.lessons.insert(lesson, id.clone());
            }
            None => removal.keep(judge, id.clone(), KeptBecause::NoFix),
        }
    }
    ctx.record_iteration(record);
    Ok(())
}

/// The cheapest candidate satisfying everything learned; when the conflict holds lessons of
/// deadlocks, they are taken back (the deadlocks kept) and the learner is asked again.
/// `None` when the conflict holds none (nothing better than the repair in hand).
fn propose(
    ctx: &mut Context<'_>,
    judge: &mut Judge,
    learning: &mut Learning,
    removal: &mut Removal,
) -> Result<Option<Candidate>, Error> {
    loop {
        let learner = &mut learning.learner;
        let proposal = ctx.timed(solve_time, || learner.propose())?;
        match proposal {
            Proposal::Candidate { candidate, .. } => return Ok(Some(candidate)),
            Proposal::Unsatisfiable { lessons, .. } => {
                let conflicting: Vec<(LessonId, DeadlockId)> =
                    lessons.iter().filter_map(|l| removal.lessons.get(l).map(|id| (*l, id.clone()))).collect();
                if conflicting.is_empty() {
                    return Ok(None);
                }
                for (lesson, id) in conflicting {
                    learning.learner.retract(lesson)?;
                    removal.lessons.remove(&lesson);
                    removal.keep(judge, id, KeptBecause::Conflict);
                }
            }
            _ => return Ok(None),
        }
    }
}

/// Whether deadlock `id` is thread `thread` waiting at `at` with every other thread done.
fn is_alone(id: &DeadlockId, thread: &str, at: &str) -> bool {
    id.threads.iter().all(|(name, stand)| match stand {
        ThreadStand::Done => name != thread,
        ThreadStand::Blocked(labels) => name == thread && labels.iter().any(|l| l == at),
    })
}
