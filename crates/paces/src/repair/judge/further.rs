//! The further counterexamples the learner asks of a rejected program ([`Judge::more_failures`]).

use std::collections::BTreeSet;

use paces_cwhile::ir::StmtKind;
use paces_explore::{check, CheckResult, Counterexample, FailureKinds};

use super::{failure_problem, Judge};
use crate::repair::context::Context;
use crate::repair::judgement::Rejected;
use crate::repair::report::{explore_time, Problem};
use crate::Error;

impl Judge {
    /// The further counterexamples of the `rejected` program (the original or a candidate
    /// applied), whose check failed with `first`, asked for by the learner (not by a
    /// judgement, so the optimisation phase and the exhaustive search never search for them):
    /// a shortest bad trace of each other failing assertion (or division) a search finds that
    /// stores at most [`Repair::counterexample_states`](crate::Repair::counterexample_states)
    /// states and at most as many as the check that found `first` (the last check made: the
    /// learner asks right after the judgement), so that it at most doubles a check's cost, in
    /// label order, up to [`Repair::counterexamples`](crate::Repair::counterexamples) in all
    /// with `first`. Two counterexamples are distinct when their failing steps' labels differ.
    /// None when the program has fewer than two assertions (there is nothing else to fail but
    /// a division), or the setting is 1; for a candidate, also none when the original's search
    /// found none. With [`Repair::other_threads`](crate::Repair::other_threads) the search
    /// goes on past the first failure, the bug hunt first (at most
    /// [`Repair::hunt_states`](crate::Repair::hunt_states) states), then at most
    /// [`Repair::counterexample_states`](crate::Repair::counterexample_states) breadth first,
    /// for up to [`Repair::counterexamples`](crate::Repair::counterexamples) traces per failing
    /// assertion, in programs with one assertion too; see [`further_failures`]. For a
    /// candidate whose check met its failure breadth first after storing more states than
    /// that search's breadth-first part may ([`CheckResult::clean_states`]), the hunt alone,
    /// or no search without [`Repair::other_threads`](crate::Repair::other_threads): breadth
    /// first it would meet no failure.
    pub(in crate::repair) fn more_failures(
        &mut self,
        ctx: &mut Context<'_>,
        rejected: &Rejected,
        first: &Counterexample,
    ) -> Result<Vec<(Problem, Counterexample)>, Error> {
        let (program, original) = (&rejected.program, rejected.candidate.is_none());
        let wanted = ctx.cfg().counterexamples.saturating_sub(1);
        // A candidate is searched only when the original's search found another failing
        // assertion: a program that fails one assertion at a time pays one search, not one per
        // candidate.
        if wanted == 0 || (!original && !self.original.several) {
            return Ok(Vec::new());
        }
        let spread = ctx.cfg().other_threads;
        let asserts = program.stmts.iter().filter(|s| matches!(s.kind, StmtKind::Assert(_))).count();
        if asserts < 2 && !spread {
            return Ok(Vec::new());
        }
        // Further traces to learn from, not a verdict: no search without the reduction for
        // failures the reduction starves (the check that found the first one had it).
        let config = self.check_config(ctx).find(FailureKinds::BAD).unreduced_states(0);
        // Breadth first, within its bound, the search would walk only states the candidate's
        // check walked without meeting a failure (`CheckResult::clean_states`).
        let walked = !original && self.last_clean > ctx.cfg().counterexample_states;
        let config = if spread {
            let further = config
                .hunt_states(ctx.cfg().hunt_states)
                .max_states(ctx.cfg().counterexample_states)
                .failures_per_assertion(ctx.cfg().counterexamples);
            // The hunt alone.
            if walked {
                further.unmerged_states(0).max_depth(Some(0))
            } else {
                further
            }
        } else if walked {
            // Breadth first alone: nothing to find.
            return Ok(Vec::new());
        } else {
            config.hunt_states(0).max_states(ctx.cfg().counterexample_states.min(self.last_states.max(1)))
        };
        let result = ctx.timed(explore_time, || check(program, &config))?;
        self.count(ctx, program, false, result.states);
        if original {
            self.original.saw(&result);
        }
        let mut more = further_failures(result, first, spread);
        more.truncate(wanted);
        if original {
            self.original.several = !more.is_empty();
        }
        Ok(more)
    }
}

/// The further counterexamples of a search for them, none of `first`'s assertion: each other
/// failing assertion's, in label order, then, when `spread`, `first`'s assertion failing
/// through other threads (`Counterexample::flow_threads` differ from `first`'s and from each
/// other's), in the order the search met them.
fn further_failures(result: CheckResult, first: &Counterexample, spread: bool) -> Vec<(Problem, Counterexample)> {
    let first_label = first.failing_label();
    let mut flows = BTreeSet::from([first.flow_threads()]);
    let (mut more, mut same) = (Vec::new(), Vec::new());
    let mut further = result.more_failures;
    for (label, cex) in result.failures {
        let others = further.remove(&label).unwrap_or_default();
        if Some(label.as_str()) != first_label {
            more.push((failure_problem(&cex), cex));
        } else if spread {
            same.extend(std::iter::once(cex).chain(others));
        }
    }
    for cex in same {
        if flows.insert(cex.flow_threads()) {
            more.push((failure_problem(&cex), cex));
        }
    }
    more
}
