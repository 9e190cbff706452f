//! The exhaustive search, the brute-force reference behind [`Repair::optimum`]: every candidate
//! of a small space, in cost order, judged with the loop's own acceptance; the first one
//! accepted is the cheapest repair of the space. Also the count of a space's candidates, and
//! the judging in cost order that the loop and its optimisation phase use on a small space.

use std::collections::{BTreeSet, HashMap};
use std::ops::ControlFlow;

use paces_constraint::{BlockId, Candidate, Space};
use paces_cwhile::ir::Program;

use super::config::Repair;
use super::context::Context;
use super::judge::{Deadlocks, Judge};
use super::judgement::Judgement;
use super::report::{apply_time, Exhaustive, NoRepair, Origin, Report, StopReason};
use crate::{Error, ErrorKind};

impl Repair {
    /// A cheapest repair of `program`, by brute force: every candidate of the space in cost
    /// order (atomic weight, then inversions; candidates of equal cost in the fixed order of
    /// [`Candidate::enumerate`](crate::constraint::Candidate::enumerate)), each judged with the
    /// loop's acceptance (no assertion failure, no deadlock (with [`Repair::keep_deadlocks`]: no
    /// new deadlock, under either deadlock rule), no new livelock, no new outcome, the original's
    /// sequential final states); the first one accepted is the
    /// answer, and [`Report::exhaustive`] says it is proved optimal. Nothing is learned: the
    /// report has no iterations and an empty constraint. The time limit and the checker's
    /// bounds stop the search as they stop the loop; the mode and the learner's settings play
    /// no part.
    ///
    /// The loop may return a dearer repair than this one even when both accept the same
    /// programs: it keeps looking past a candidate whose deadlocks only the "same threads
    /// after a failure" rule admits, and its learned constraints may exclude cheaper
    /// candidates.
    ///
    /// # Example
    /// ```
    /// let program = paces::cwhile::parse(
    ///     "var x = 0, y = 0;\n thread t1 { A: y := 1; B: x := 1; }\n thread t2 { 1: await(y == 1); 2: assert(x == 1); }",
    /// )?;
    /// let report = paces::Repair::new().optimum(&program)?;
    /// assert_eq!(report.stop, paces::StopReason::Repaired);
    /// let a = report.space.loc("A").unwrap();
    /// let b = report.space.loc("B").unwrap();
    /// assert_eq!(report.transformations, [paces::constraint::Transformation::Swap { first: a, second: b }]);
    /// assert!(report.exhaustive.is_some_and(|e| e.proved_optimal));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::SpaceTooLarge`](crate::ErrorKind::SpaceTooLarge) before any check when the
    /// space has more than [`Repair::exhaustive_limit`] candidates (the message names the
    /// count); otherwise as [`Repair::run`].
    pub fn optimum(&self, program: &Program) -> Result<Report, Error> {
        exhaustive_search(self, program)
    }
}

/// Runs the exhaustive search of `cfg` on `program`: refuses a space of more than
/// [`Repair::exhaustive_limit`] candidates before checking anything.
fn exhaustive_search(cfg: &Repair, program: &Program) -> Result<Report, Error> {
    let space = program.space();
    let limit = cfg.exhaustive_limit;
    let size = candidate_count(&space);
    let size = match size.map(usize::try_from) {
        Some(Ok(n)) if n <= limit => n,
        _ => return Err(too_large(size, limit)),
    };
    let candidates = in_cost_order(&space, size)?;
    let mut ctx = Context::new(cfg, program, &space);
    let mut judge = Judge::new();
    if !cfg.keep_deadlocks {
        // The reference for a repair that removes every deadlock of the original.
        judge.set_deadlock_policy(Deadlocks::Keep(BTreeSet::new()));
    }
    let (stop, checked) = search(&mut ctx, &mut judge, candidates)?;
    let proved_optimal = stop == StopReason::Repaired;
    ctx.record_exhaustive(Exhaustive { space_size: size, checked, proved_optimal });
    if stop.is_success() {
        ctx.settle_fates(judge.reached_deadlocks());
    } else {
        ctx.clear_accepted();
    }
    Ok(ctx.finish(stop, judge.original_deadlocks(), None))
}

/// Every candidate of a space of `size` candidates but the original (judged apart), in cost
/// order; a stable sort keeps candidates of equal cost in the enumeration's deterministic
/// order.
pub(super) fn in_cost_order(space: &Space, size: usize) -> Result<Vec<Candidate>, Error> {
    let mut candidates = Candidate::enumerate(space, size)
        .map_err(|e| Error::from_source(ErrorKind::Internal, "the space's candidates could not be listed", e))?;
    if candidates.len() != size {
        let message = format!("the space counts {size} candidates but lists {}", candidates.len());
        return Err(Error::new(ErrorKind::Internal, message));
    }
    candidates.retain(|c| !c.is_original(space));
    candidates.sort_by_cached_key(|c| c.cost(space));
    Ok(candidates)
}

/// Judges the original, then the other candidates in the given order until one is accepted;
/// the stop and how many candidates were judged (the original included).
fn search(ctx: &mut Context<'_>, judge: &mut Judge, candidates: Vec<Candidate>) -> Result<(StopReason, usize), Error> {
    let judged = judge.judge_original(ctx)?;
    match ctx.record_original(judged) {
        // An original that only deadlocks is not correct when its deadlocks are bugs.
        ControlFlow::Break(StopReason::AlreadyCorrect)
            if *judge.deadlock_policy() != Deadlocks::KeepAll && !ctx.accepted_deadlocks().is_empty() => {}
        ControlFlow::Break(stop) => return Ok((stop, 1)),
        ControlFlow::Continue(_) => {}
    }
    let (stop, checked) = judge_in_order(ctx, judge, candidates)?;
    Ok((stop, checked + 1))
}

/// Judges the candidates in the given order until one is accepted (recorded as the run's
/// accepted program); the stop and how many were judged.
pub(super) fn judge_in_order(
    ctx: &mut Context<'_>,
    judge: &mut Judge,
    candidates: Vec<Candidate>,
) -> Result<(StopReason, usize), Error> {
    let total = candidates.len() + 1;
    let mut checked = 0;
    for candidate in candidates {
        if ctx.out_of_time() {
            return Ok((StopReason::TimeLimit, checked));
        }
        let original = ctx.program();
        let repaired = ctx.timed(apply_time, || original.apply(&candidate))?;
        checked += 1;
        match judge.judge(ctx, &repaired, &candidate)? {
            Judgement::Accepted(passed, _) => {
                let transformations = candidate.transformations(ctx.space());
                // The original, judged first, is counted too.
                let origin = Origin::InCostOrder { checked: checked + 1 };
                ctx.accept(passed.accepted(repaired, candidate, transformations, origin));
                return Ok((StopReason::Repaired, checked));
            }
            Judgement::Rejected(_) => {}
            Judgement::Stop(stop) => return Ok((stop, checked)),
        }
    }
    Ok((StopReason::NoRepair(NoRepair::EveryCandidateRejected { candidates: total }), checked))
}

/// The refusal of a space larger than the limit, naming its size.
fn too_large(size: Option<u128>, limit: usize) -> Error {
    let size = match size {
        Some(u128::MAX) => format!("at least {} candidates", u128::MAX),
        Some(n) => format!("{n} candidates"),
        None => "too many candidates to count".to_owned(),
    };
    let message = format!("the space has {size}, more than the exhaustive search's limit of {limit}");
    Error::new(ErrorKind::SpaceTooLarge, message)
}

/// States of one block's count past which the count gives up.
const COUNT_STATES: usize = 1 << 18;

/// The number of candidates of a space (the product over its blocks of the orders times the
/// section sets over each), without listing them; `None` when a block is too large to count
/// (more than 128 items, or too many partial orders to follow). Saturates at `u128::MAX`.
pub fn candidate_count(space: &Space) -> Option<u128> {
    space.blocks().try_fold(1u128, |total, block| Some(total.saturating_mul(block_count(space, block)?)))
}

/// Where a block's order stands in its section sets after a prefix of items.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SectionState {
    /// No section is open.
    Outside,
    /// A section holds one item, which does not take a section alone: it must grow.
    OpenOne,
    /// A section is open and may end here.
    Closable,
}

/// The section states after one more item, from `state`; `alone` says whether the item takes
/// a section alone, `open` whether the block takes sections at all.
fn section_steps(state: SectionState, alone: bool, open: bool) -> impl Iterator<Item = SectionState> {
    use SectionState::{Closable, OpenOne, Outside};
    let start = if alone { Closable } else { OpenOne };
    let fresh = [Some(Outside), open.then_some(start)];
    let after_close = if state == OpenOne { [None, None] } else { fresh };
    let from = if state == Outside { fresh } else { after_close };
    let grow = (state != Outside).then_some(Closable);
    from.into_iter().chain([grow]).flatten()
}

/// The number of (order, section set) pairs of one block: a walk over the sets of items
/// placed so far (each closed under the fixed pairs) and the section state.
fn block_count(space: &Space, block: BlockId) -> Option<u128> {
    let items = space.items(block);
    if items.len() > 128 {
        return None;
    }
    // An item no added section may hold (a thread's create or join) is only ever outside one.
    let open: Vec<bool> = items.iter().map(|&l| space.may_be_in_section(l)).collect();
    let before: Vec<u128> = items
        .iter()
        .map(|&b| items.iter().enumerate().filter(|&(_, &a)| space.is_fixed(a, b)).map(|(j, _)| 1u128 << j).sum())
        .collect();
    let alone: Vec<bool> = items.iter().map(|&l| space.takes_section_alone(l)).collect();
    let mut layer: HashMap<(u128, SectionState), u128> = HashMap::from([((0, SectionState::Outside), 1)]);
    for _ in 0..items.len() {
        let mut next: HashMap<(u128, SectionState), u128> = HashMap::new();
        for (&(placed, state), &ways) in &layer {
            let free = (0..items.len()).filter(|&i| placed & (1 << i) == 0 && before[i] & !placed == 0);
            for i in free {
                for s in section_steps(state, alone[i], open[i]).filter(|&s| open[i] || s == SectionState::Outside) {
                    let slot = next.entry((placed | (1 << i), s)).or_insert(0);
                    *slot = slot.saturating_add(ways);
                }
            }
        }
        if next.len() > COUNT_STATES {
            return None;
        }
        layer = next;
    }
    let ends = layer.into_iter().filter(|((_, s), _)| *s != SectionState::OpenOne);
    Some(ends.fold(0u128, |total, (_, ways)| total.saturating_add(ways)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space(source: &str) -> Space {
        paces_cwhile::parse(source).expect("the program parses").space()
    }

    /// The count equals the length of the enumeration on programs with free, fixed and
    /// awaiting items, loops and an atomic block.
    #[test]
    fn the_count_is_the_enumerations_length() {
        let sources = [
            "var x = 0, y = 0; thread a { A: x := 1; B: y := 1; C: x := 2; } thread b { 1: await(y == 1); 2: assert(x == 1); }",
            "var x = 0, y = 0, z = 0; thread a { A: x := 1; B: y := 1; C: z := 1; D: x := y; }",
            "var x = 0; thread a { A: x := 1; atomic { B: x := 2; C: x := 3; } } thread b { while (*) { 1: x := 0; 2: x := 1; } }",
        ];
        for src in sources {
            let s = space(src);
            let listed = Candidate::enumerate(&s, 100_000).expect("a small space").len();
            assert_eq!(candidate_count(&s), Some(listed as u128), "{src}");
        }
    }

    /// A block too large to count gives `None`, not a panic or a wrong number.
    #[test]
    fn a_wide_block_is_too_large_to_count() {
        let writes: Vec<String> = (0..40).map(|i| format!("L{i}: v{i} := 1;")).collect();
        let vars: Vec<String> = (0..40).map(|i| format!("v{i} = 0")).collect();
        let src = format!("var {};\nthread a {{ {} }}", vars.join(", "), writes.join(" "));
        assert_eq!(candidate_count(&space(&src)), None);
    }
}
