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

use super::judge::{Deadlocks, Judge, Judgement, Rejection};
use super::learning::{Learning, Rejected};
use super::report::{apply_time, solve_time, KeptBecause};
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
    fn keep(&mut self, judge: &mut Judge<'_>, id: DeadlockId, because: KeptBecause) {
        self.kept.entry(id).or_insert(because);
        judge.deadlocks = Deadlocks::Keep(self.kept.keys().cloned().collect());
    }
}

/// Runs the removal phase on the repair in hand (the judge's accepted program: the loop's
/// repair, or the original when it has no failure and only deadlocks). Ends with the judge
/// admitting exactly the deadlocks of the program then in hand, each with the reason it is
/// kept ([`Judge::kept_because`]). Returns whether a program without some of the deadlocks
/// was accepted; the run's time limit ends the phase like its budget.
pub(super) fn remove_deadlocks(judge: &mut Judge<'_>, learning: &mut Learning) -> Result<bool, Error> {
    let mut removal = Removal { kept: BTreeMap::new(), lessons: BTreeMap::new() };
    let removed = match remove(judge, learning, &mut removal) {
        Err(e) if *e.kind() == ErrorKind::Deadline => false,
        r => r?,
    };
    judge.max_states = None;
    judge.deadlocks = Deadlocks::Keep(judge.report.accepted_deadlocks().into_keys().collect());
    judge.kept_because = removal.kept;
    Ok(removed)
}

/// The phase of [`remove_deadlocks`].
fn remove(judge: &mut Judge<'_>, learning: &mut Learning, removal: &mut Removal) -> Result<bool, Error> {
    let start: BTreeMap<DeadlockId, Counterexample> = judge.report.accepted_deadlocks();
    let Some(in_hand) = judge.report.accepted_candidate().cloned() else { return Ok(false) };
    judge.deadlocks = Deadlocks::Keep(BTreeSet::new());
    if let Some(alone) = judge.deadlock_alone()? {
        for id in start.keys().filter(|id| is_alone(id, &alone.thread, &alone.at)) {
            let because = KeptBecause::ThreadAlone {
                before: alone.before.clone(),
                thread: alone.thread.clone(),
                at: alone.at.clone(),
            };
            removal.keep(judge, id.clone(), because);
        }
    }
    let program = judge.report.accepted_program().cloned().unwrap_or_else(|| judge.program.clone());
    let to_remove: Vec<(&DeadlockId, &Counterexample)> =
        start.iter().filter(|(id, _)| !removal.kept.contains_key(*id)).collect();
    for (id, cex) in to_remove {
        let why = Rejection::OriginalDeadlock { id: id.clone(), cex: cex.clone() };
        // The repair in hand is no-good only for this phase's candidates: it stays the answer
        // when the phase finds nothing better.
        let rejected = Rejected { why, program: program.clone(), candidate: Some(in_hand.clone()) };
        learn(judge, learning, removal, &rejected)?;
    }
    let budget = judge.report.states / 3;
    let budget = judge.report.states + budget.max(REMOVAL_MIN_STATES);
    let mut removed_some = false;
    for _ in 0..REMOVAL_ITERATIONS {
        if start.keys().all(|id| removal.kept.contains_key(id)) || judge.report.states >= budget || judge.out_of_time()
        {
            break;
        }
        let Some(candidate) = propose(judge, learning, removal)? else { break };
        // No check of the phase goes past its budget.
        judge.max_states = Some(budget.saturating_sub(judge.report.states).max(1));
        let original = judge.program;
        let applied = judge.report.timed(apply_time, || original.apply(&candidate))?;
        match judge.judge(&applied, &candidate)? {
            Judgement::Accepted(acceptance, _) => {
                let transformations = candidate.transformations(&judge.space);
                judge.accept(applied, candidate, transformations, acceptance);
                removed_some = true;
                break;
            }
            Judgement::Rejected(why) => {
                let rejected = Rejected { why, program: applied, candidate: Some(candidate) };
                learn(judge, learning, removal, &rejected)?;
            }
            Judgement::Stop(_) => break,
        }
    }
    Ok(removed_some)
}

/// Learns from a rejection of the phase, recording it as an iteration; a deadlock of the
/// original whose trace has no fix is kept.
fn learn(
    judge: &mut Judge<'_>,
    learning: &mut Learning,
    removal: &mut Removal,
    rejected: &Rejected,
) -> Result<(), Error> {
    let mut record = rejected.why.iteration();
    // A stop while learning (a memory bound) ends nothing here: the repair in hand stays.
    let _ = learning.learn_from_rejection(judge, rejected, &mut record)?;
    if let Rejection::OriginalDeadlock { id, .. } = &rejected.why {
        match learning.last_lesson() {
            Some(lesson) => {
                removal.lessons.insert(lesson, id.clone());
            }
            None => removal.keep(judge, id.clone(), KeptBecause::NoFix),
        }
    }
    judge.record_iteration(record);
    Ok(())
}

/// The cheapest candidate satisfying everything learned; when the conflict holds lessons of
/// deadlocks, they are taken back (the deadlocks kept) and the learner is asked again.
/// `None` when the conflict holds none (nothing better than the repair in hand).
fn propose(judge: &mut Judge<'_>, learning: &mut Learning, removal: &mut Removal) -> Result<Option<Candidate>, Error> {
    loop {
        let learner = &mut learning.learner;
        let proposal = judge.report.timed(solve_time, || learner.propose())?;
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
