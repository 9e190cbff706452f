//! The optimisation phase: once the loop has a repair, a search for a cheaper one (see
//! [`optimise`]). The brute-force reference over a whole space is the exhaustive search, in
//! `exhaustive`.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use paces_constraint::{BlockId, Candidate, Cost, NodeId, Transformation};
use paces_cwhile::ir::Program;
use paces_learn::Proposal;

use super::context::Context;
use super::exhaustive::in_cost_order;
use super::judge::Judge;
use super::judgement::{Judgement, Rejected, Rejection};
use super::learning::Learning;
use super::report::{apply_time, list_time, solve_time, Optimality, Origin, Problem, Proof, Unproved};
use super::twins::Twins;
use crate::{Error, ErrorKind};

/// The most cheaper candidates the optimisation phase judges in a space too large to list.
const OPTIMISE_CHECKS: usize = 10;

/// The largest space the optimisation phase lists whole (or [`Repair::exhaustive_limit`](super::Repair::exhaustive_limit)
/// when that is larger): listing costs little next to judging, and only cheaper candidates are
/// judged.
pub(super) const OPTIMISE_LIST_LIMIT: usize = 100_000;

/// The optimisation phase: what the loop learned includes guesses (a good trace's fallback
/// freezes more orders than the trace needs; a bad trace's fixes are the cycles of at most K
/// constraint edges), so the accepted repair may not be a cheapest one. A single swap is the
/// least change there is. In a space small enough to list (`listable`, its number of
/// candidates), every cheaper candidate is judged, cheapest first; otherwise the repair's
/// added sections are taken out one at a time where the judge allows ([`drop_sections`]), then
/// the fallbacks are relaxed and the learner is asked for cheaper candidates, each judged and,
/// when rejected, learned from, up to [`OPTIMISE_CHECKS`]. A cheaper accepted candidate
/// replaces the repair.
pub(super) fn optimise(
    ctx: &mut Context<'_>,
    judge: &mut Judge,
    learning: &mut Learning,
    listable: Option<usize>,
    twins: Option<&Twins>,
    alike: Option<NodeId>,
) -> Result<(), Error> {
    let Some(cost) = ctx.accepted_candidate().map(|c| c.cost(ctx.space())) else {
        return Ok(());
    };
    // A cheaper candidate has fewer sections or moves, so its runs are the repair's and more:
    // its failure, if any, often lies deep, where a breadth-first search gets only after most
    // of the space. Depth first first, for as many states as the repair's own checks stored.
    // (An error ends the run, the judge with it: only the phase's end sets the hunt back.)
    judge.hunt_at_least(ctx.accepted_states());
    let optimality = if cost == (Cost { atomic_weight: 0, inversions: 1 }) {
        Optimality::Proved(Proof::SingleSwap)
    } else {
        let searched = match listable {
            Some(n) => by_listing(ctx, judge, cost, n),
            None => {
                match drop_sections(ctx, judge)
                    .and_then(|u| if u.is_some() { Ok(u) } else { restore_orders(ctx, judge) })
                {
                    Ok(Some(unproved)) => Ok(Optimality::CheapestFound(unproved)),
                    Ok(None) => {
                        let cost = ctx.accepted_candidate().map_or(cost, |c| c.cost(ctx.space()));
                        by_learning(ctx, judge, learning, cost, twins, alike)
                    }
                    Err(e) => Err(e),
                }
            }
        };
        match searched {
            Err(e) if *e.kind() == ErrorKind::Deadline => Optimality::CheapestFound(Unproved::TimeLimit),
            r => r?,
        }
    };
    judge.hunt_at_least(0);
    ctx.record_optimality(Some(optimality));
    Ok(())
}

/// Judges every candidate cheaper than `cost` of a space of `size` candidates, cheapest
/// first; the first accepted replaces the repair.
fn by_listing(ctx: &mut Context<'_>, judge: &mut Judge, cost: Cost, size: usize) -> Result<Optimality, Error> {
    let space = ctx.space();
    let cheaper = ctx.timed(list_time, || {
        in_cost_order(space, size).map(|mut all| {
            all.retain(|c| c.cost(space) < cost);
            all
        })
    })?;
    let total = cheaper.len();
    for (checked, candidate) in cheaper.into_iter().enumerate() {
        if ctx.out_of_time() {
            return Ok(Optimality::CheapestFound(Unproved::TimeLimitInList { checked, total }));
        }
        let original = ctx.program();
        let program = ctx.timed(apply_time, || original.apply(&candidate))?;
        match judge.judge(ctx, &program, &candidate)? {
            Judgement::Accepted(passed, None) => {
                let transformations = candidate.transformations(space);
                let origin = Origin::CheaperListed { judged: checked + 1 };
                ctx.accept(passed.accepted(program, candidate, transformations, origin));
                return Ok(Optimality::Proved(Proof::FirstCheaperAccepted { judged: checked + 1 }));
            }
            Judgement::Accepted(_, Some(_)) | Judgement::Rejected(_) => {}
            Judgement::Stop(stop) => {
                let why = Unproved::CheckerStoppedInList { stop: stop.name(), checked, total };
                return Ok(Optimality::CheapestFound(why));
            }
        }
    }
    Ok(Optimality::Proved(Proof::EveryCheaperRejected { cheaper: total }))
}

/// Asks the learner, its fallbacks relaxed, for candidates cheaper than `cost`; judges each,
/// learning from the rejected ones, up to [`OPTIMISE_CHECKS`]. A proposal whose changes,
/// made alike in its twin threads ([`Twins::spread`]), still cost less is judged so; first,
/// while there is one cheaper than the repair, the cheapest candidate under `alike`, the
/// guess that twins change alike ([`Twins::alike`]).
fn by_learning(
    ctx: &mut Context<'_>,
    judge: &mut Judge,
    learning: &mut Learning,
    mut cost: Cost,
    twins: Option<&Twins>,
    mut alike: Option<NodeId>,
) -> Result<Optimality, Error> {
    if ctx.cfg().learner.relaxes_on_conflict() {
        learning.relax_fallbacks()?;
    }
    exclude_accepted(ctx, learning)?;
    let mut checked = 0;
    // Twins race alike, so the cheapest candidate that changes them alike comes first, for as
    // long as there is one cheaper than the repair; then the learner's own proposals.
    while checked < OPTIMISE_CHECKS {
        if ctx.out_of_time() {
            return Ok(Optimality::CheapestFound(Unproved::TimeLimitLearning));
        }
        let symmetric = match alike {
            Some(node) => learning.cheapest_under(ctx, node, "twins change alike")?.filter(|(_, c, _)| *c < cost),
            None => None,
        };
        let (candidate, transformations) = match symmetric {
            Some((candidate, _, transformations)) => (candidate, transformations),
            None if alike.take().is_some() => continue,
            None => match cheaper_proposal(ctx, learning, cost, twins)? {
                Some(proposed) => proposed,
                None => {
                    return Ok(Optimality::CheapestFound(Unproved::NoCheaperProposal { checked }));
                }
            },
        };
        checked += 1;
        let original = ctx.program();
        let program = ctx.timed(apply_time, || original.apply(&candidate))?;
        let why = match judge.judge(ctx, &program, &candidate)? {
            Judgement::Accepted(passed, None) => {
                cost = candidate.cost(ctx.space());
                let origin = Origin::CheaperLearned { checked };
                ctx.accept(passed.accepted(program, candidate, transformations, origin));
                exclude_accepted(ctx, learning)?;
                continue;
            }
            Judgement::Accepted(_, Some((id, cex))) => {
                Rejection::Trace { problem: Problem::AdmittedAfterFailure(id), cex }
            }
            Judgement::Rejected(why) => why,
            Judgement::Stop(stop) => {
                return Ok(Optimality::CheapestFound(Unproved::CheckerStopped { stop: stop.name(), checked }));
            }
        };
        // Learned from outside the loop's history; a stop of learning ends nothing here.
        let rejected = Rejected { why, program, candidate: Some(candidate) };
        let mut record = rejected.why.iteration();
        let more = &mut |ctx: &mut Context<'_>, r: &Rejected, first: &_| judge.more_failures(ctx, r, first);
        let _ = learning.learn_from_rejection(ctx, &rejected, more, &mut record)?;
    }
    Ok(Optimality::CheapestFound(Unproved::ChecksSpent { checks: OPTIMISE_CHECKS }))
}

/// Takes the repair's added sections out one at a time, in order, keeping each removal that
/// passes every check, with at most [`OPTIMISE_CHECKS`] judged. What the loop learned can ask
/// for a section no run needs (a further trace's fixes are cycles of at most K constraint
/// edges; a good trace's fallback freezes more than the trace needs), and the learner cannot
/// drop it by itself: every cheaper candidate breaks some constraint. The repair without the
/// section is judged like any candidate, so a kept removal is as sound as the loop's answer.
/// `Some` when the time limit or a checker's bound ended the search.
fn drop_sections(ctx: &mut Context<'_>, judge: &mut Judge) -> Result<Option<Unproved>, Error> {
    let Some(mut current) = ctx.accepted_candidate().cloned() else { return Ok(None) };
    let (mut at, mut dropped, mut judged) = (0, 0, 0);
    // A section around others goes first: without it the sections inside may be enough, and
    // they hold less.
    let mut tried = BTreeSet::new();
    while judged < OPTIMISE_CHECKS {
        let nested = nested_sections(ctx.program(), &current);
        let bounds = |k: usize| current.sections().get(k).map(|s| (s.first, s.last));
        let outer = nested.values().copied().find(|o| !nested.contains_key(o) && tried.insert(bounds(*o)));
        let Some(outer) = outer else { break };
        if ctx.out_of_time() {
            return Ok(Some(Unproved::TimeLimitLearning));
        }
        let Ok(candidate) = without(ctx, &current, |k| k == outer) else { continue };
        judged += 1;
        let origin = Origin::SectionsDropped { dropped: dropped + 1 };
        if let ControlFlow::Break(why) = take(ctx, judge, candidate, origin, judged, &mut current, &mut dropped)? {
            return Ok(Some(why));
        }
    }
    // A section inside a statement another added section holds changes nothing: the outer
    // one already runs it all or nothing, so the program without it has the same runs
    // through the same states, and the repair's acceptance stands for it unchecked.
    let nested = nested_sections(ctx.program(), &current);
    let flat = if nested.is_empty() { None } else { without(ctx, &current, |k| nested.contains_key(&k)).ok() };
    if let Some(candidate) = flat {
        let original = ctx.program();
        let program = ctx.timed(apply_time, || original.apply(&candidate))?;
        let transformations = candidate.transformations(ctx.space());
        dropped += nested.len();
        let origin = Origin::SectionsDropped { dropped };
        ctx.same_runs_accepted(program, candidate.clone(), transformations, origin);
        current = candidate;
    }
    while at < current.sections().len() && judged < OPTIMISE_CHECKS {
        if ctx.out_of_time() {
            return Ok(Some(Unproved::TimeLimitLearning));
        }
        let Ok(candidate) = without(ctx, &current, |k| k == at) else {
            at += 1;
            continue;
        };
        judged += 1;
        let origin = Origin::SectionsDropped { dropped: dropped + 1 };
        match take(ctx, judge, candidate, origin, judged, &mut current, &mut dropped)? {
            ControlFlow::Break(why) => return Ok(Some(why)),
            ControlFlow::Continue(taken) => at += usize::from(!taken),
        }
    }
    Ok(None)
}

/// `current` without the added sections at the positions `drop` names, its orders kept.
fn without(
    ctx: &Context<'_>,
    current: &Candidate,
    drop: impl Fn(usize) -> bool,
) -> Result<Candidate, paces_constraint::Error> {
    let rest: Vec<_> =
        current.sections().iter().enumerate().filter(|&(k, _)| !drop(k)).map(|(_, s)| (s.first, s.last)).collect();
    Candidate::new(ctx.space(), current.orders().to_vec(), &rest)
}

/// The added sections of `candidate` that lie inside a statement another of its added
/// sections holds (their block is the body of a compound statement in a section, or of one
/// inside such a statement), each with the nearest such section: positions in
/// [`Candidate::sections`].
pub(super) fn nested_sections(program: &Program, candidate: &Candidate) -> BTreeMap<usize, usize> {
    let sections = candidate.sections();
    let around = |block: BlockId| {
        let mut parent = program.blocks.get(block.index()).and_then(|b| b.parent);
        while let Some(stmt) = parent.and_then(|id| program.stmts.get(id.index())) {
            if let Some(outer) = candidate.section_of(stmt.loc) {
                return sections.iter().position(|s| std::ptr::eq(s, outer));
            }
            parent = program.blocks.get(stmt.block.index()).and_then(|b| b.parent);
        }
        None
    };
    sections.iter().enumerate().filter_map(|(k, s)| around(s.block).map(|o| (k, o))).collect()
}

/// Judges `candidate`, a simplification of the repair in hand `current` (the `judged`th of its
/// step): accepted, it becomes `current` and the repair, found by `origin`, and `taken` counts
/// it. Whether it was taken, or the stop that ended the judging.
fn take(
    ctx: &mut Context<'_>,
    judge: &mut Judge,
    candidate: Candidate,
    origin: Origin,
    judged: usize,
    current: &mut Candidate,
    taken: &mut usize,
) -> Result<ControlFlow<Unproved, bool>, Error> {
    Ok(match simpler(ctx, judge, &candidate, origin, judged)? {
        Simpler::Accepted => {
            *taken += 1;
            *current = candidate;
            ControlFlow::Continue(true)
        }
        Simpler::Passed => ControlFlow::Continue(false),
        Simpler::Stopped(why) => ControlFlow::Break(why),
    })
}

/// What judging a simpler repair gave.
enum Simpler {
    /// It passed every check and is now the repair.
    Accepted,
    /// It did not: the repair in hand stays.
    Passed,
    /// The time limit or a checker's bound ended the judging.
    Stopped(Unproved),
}

/// Judges `candidate`, a simplification of the repair in hand (the `judged`th of its step):
/// accepted, it becomes the repair, found by `origin`.
fn simpler(
    ctx: &mut Context<'_>,
    judge: &mut Judge,
    candidate: &Candidate,
    origin: Origin,
    judged: usize,
) -> Result<Simpler, Error> {
    let original = ctx.program();
    let program = ctx.timed(apply_time, || original.apply(candidate))?;
    Ok(match judge.judge(ctx, &program, candidate)? {
        Judgement::Accepted(passed, None) => {
            let transformations = candidate.transformations(ctx.space());
            ctx.accept(passed.accepted(program, candidate.clone(), transformations, origin));
            Simpler::Accepted
        }
        Judgement::Stop(stop) => Simpler::Stopped(Unproved::CheckerStopped { stop: stop.name(), checked: judged }),
        Judgement::Accepted(..) | Judgement::Rejected(_) => Simpler::Passed,
    })
}

/// Puts the repair's reordered blocks back in their original order one at a time, in block
/// order, keeping each that is cheaper and passes every check (its sections kept), with at most
/// [`OPTIMISE_CHECKS`] judged: a move the loop proposed for a trace that a section now
/// removes is no longer needed. `Some` when the time limit or a checker's bound ended it.
fn restore_orders(ctx: &mut Context<'_>, judge: &mut Judge) -> Result<Option<Unproved>, Error> {
    let Some(mut current) = ctx.accepted_candidate().cloned() else { return Ok(None) };
    let (mut restored, mut judged) = (0, 0);
    let blocks: Vec<_> = ctx.space().blocks().collect();
    for block in blocks {
        if judged >= OPTIMISE_CHECKS {
            break;
        }
        if ctx.out_of_time() {
            return Ok(Some(Unproved::TimeLimitLearning));
        }
        let space = ctx.space();
        if current.order(block) == space.items(block) {
            continue;
        }
        let mut orders = current.orders().to_vec();
        orders[block.index()] = space.items(block).to_vec();
        let sections: Vec<_> = current.sections().iter().map(|s| (s.first, s.last)).collect();
        // The original order may hold more items between a section's ends: only a cheaper
        // repair is judged.
        let Ok(candidate) = Candidate::new(space, orders, &sections) else { continue };
        if candidate.cost(space) >= current.cost(space) {
            continue;
        }
        judged += 1;
        let origin = Origin::OrdersRestored { restored: restored + 1 };
        if let ControlFlow::Break(why) = take(ctx, judge, candidate, origin, judged, &mut current, &mut restored)? {
            return Ok(Some(why));
        }
    }
    Ok(None)
}

/// The learner's cheapest candidate if it costs less than `cost`, with its changes made
/// alike in its twin threads ([`Twins::spread`]) when that still costs less.
fn cheaper_proposal(
    ctx: &mut Context<'_>,
    learning: &mut Learning,
    cost: Cost,
    twins: Option<&Twins>,
) -> Result<Option<(Candidate, Vec<Transformation>)>, Error> {
    let learner = &mut learning.learner;
    let proposal = ctx.timed(solve_time, || learner.propose())?;
    let Proposal::Candidate { candidate, cost: c, transformations } = proposal else { return Ok(None) };
    if c >= cost {
        return Ok(None);
    }
    let space = ctx.space();
    let spread = twins.and_then(|t| t.spread(space, &learning.learner, &candidate));
    Ok(Some(match spread {
        Some(s) if s.cost(space) < cost => {
            let transformations = s.transformations(space);
            (s, transformations)
        }
        _ => (candidate, transformations),
    }))
}

/// Keeps the accepted repair from being proposed again: the next proposal is cheaper, or
/// there is none.
fn exclude_accepted(ctx: &Context<'_>, learning: &mut Learning) -> Result<(), Error> {
    if let Some(best) = ctx.accepted_candidate() {
        learning.exclude(ctx.space(), best, "the accepted repair")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `w`'s `if` in a section, a section in its branch and one in that branch's `if`: the two
    /// inside are nested, both in the `if`'s section; `v`'s section, beside an `if` with no
    /// section, is not.
    #[test]
    fn sections_inside_a_sectioned_statement_are_nested() {
        let program = paces_cwhile::parse(
            "var x = 0, y = 0;
             thread w { q: if (x > 0) { r: x := 1; s: y := 1; i: if (y > 0) { a: x := 2; b: y := 2; } } }
             thread v { g: if (x > 0) { c: x := 3; d: y := 3; } e: x := 4; f: y := 4; }",
        )
        .unwrap();
        let space = program.space();
        let at = |name: &str| space.loc(name).unwrap();
        let orders = space.blocks().map(|b| space.items(b).to_vec()).collect();
        let sections = [("q", "q"), ("r", "s"), ("a", "b"), ("c", "d"), ("e", "f")].map(|(x, y)| (at(x), at(y)));
        let candidate = Candidate::new(&space, orders, &sections).unwrap();
        let name = |k: usize| space.name(candidate.sections()[k].first);
        let pairs: Vec<(&str, &str)> =
            nested_sections(&program, &candidate).into_iter().map(|(k, o)| (name(k), name(o))).collect();
        assert_eq!(pairs, [("r", "q"), ("a", "q")]);
    }
}
