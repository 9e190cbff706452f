//! An added atomic section inside a statement that another added section holds changes
//! nothing: the outer one already runs it all or nothing. The repair loop's optimisation phase
//! takes such sections out without a check (docs/loop.md, step 5), so the two programs must
//! have the same runs through the same states: compared here on random programs.

use paces_constraint::{Candidate, Loc, Space};
use paces_cwhile::Program;
use paces_explore::{check, CheckResult, Config};
use paces_testkit::gen;
use proptest::prelude::*;

/// Every reachable failure, deadlock, livelock and outcome.
fn full() -> Config {
    Config::new().stop_at_first_failure(false).max_states(200_000).outcomes(true)
}

/// Added sections, each by its first and last item.
type Sections = Vec<(Loc, Loc)>;

/// Pairs of sections: a compound statement sectioned alone, with and without a section over
/// the whole of a block directly inside it.
fn nested_pairs(program: &Program, space: &Space) -> Vec<(Sections, Sections)> {
    let mut out = Vec::new();
    for stmt in &program.stmts {
        if !space.takes_section_alone(stmt.loc) {
            continue;
        }
        for inner in stmt.kind.blocks() {
            let items = space.items(inner);
            if let (Some(&first), Some(&last)) = (items.first(), items.last()) {
                let outer = (stmt.loc, stmt.loc);
                out.push((vec![outer, (first, last)], vec![outer]));
            }
        }
    }
    out
}

/// What a whole exploration finds. The states are compared as a search without the
/// reduction stores them (the reachable states): how many the reduced search stores depends
/// on how the threads' futures are compiled, which the inner block's statement may change.
fn summary(r: &CheckResult) -> (Vec<String>, Vec<String>, usize, Vec<Vec<i64>>) {
    (
        r.failures.keys().cloned().collect(),
        r.deadlocks.keys().map(|d| format!("{d:?}")).collect(),
        r.livelocks.len(),
        r.outcomes.iter().cloned().collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_section_inside_a_sectioned_statement_changes_nothing(prog in gen::prog()) {
        let text = prog.text();
        let program = paces_cwhile::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        let space = program.space();
        let orders: Vec<Vec<Loc>> = space.blocks().map(|b| space.items(b).to_vec()).collect();
        for (nested, flat) in nested_pairs(&program, &space) {
            let (Ok(nested), Ok(flat)) =
                (Candidate::new(&space, orders.clone(), &nested), Candidate::new(&space, orders.clone(), &flat))
            else {
                continue;
            };
            let (a, b) = (program.apply(&nested).unwrap(), program.apply(&flat).unwrap());
            let (ra, rb) = (check(&a, &full()).unwrap(), check(&b, &full()).unwrap());
            if ra.bound.is_some() || rb.bound.is_some() {
                continue;
            }
            prop_assert_eq!(summary(&ra), summary(&rb), "{}", text);
            let unreduced = full().por(false);
            let (ua, ub) = (check(&a, &unreduced).unwrap(), check(&b, &unreduced).unwrap());
            if ua.bound.is_none() && ub.bound.is_none() {
                prop_assert_eq!((ua.states, summary(&ua)), (ub.states, summary(&ub)), "{}", text);
            }
        }
    }
}
