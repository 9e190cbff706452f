//! Runs to outcomes ([`Config::outcome_runs`]), the search that stops at the outcomes it
//! wants ([`Config::wanted_outcomes`]) or the deadlocks it wants, hunting them depth first
//! first ([`Config::hunt_states`]), and carrying runs over to another order ([`Rerun`]),
//! against the full exploration of the program.

use std::collections::BTreeSet;
use std::sync::Arc;

use paces_constraint::Candidate;
use paces_explore::{check, replay, CheckResult, Config, FailureKinds, Rerun, Verdict};

fn full() -> Config {
    Config::new().stop_at_first_failure(false).max_states(200_000).outcomes(true)
}

fn explore(program: &paces_cwhile::Program, config: &Config) -> CheckResult {
    let r = check(program, config).unwrap();
    assert!(r.bound.is_none(), "the search went through the whole space");
    r
}

#[test]
fn a_run_to_each_outcome_replays_to_it() {
    let src = "var total = 0; thread a { local t; t := total; total := t + 1; } \
               thread b { local t; t := total; total := t + 1; }";
    let program = paces_cwhile::parse(src).unwrap();
    let r = explore(&program, &full().outcome_runs(true));
    assert_eq!(r.outcomes, BTreeSet::from([vec![1], vec![2]]));
    assert_eq!(r.outcome_runs.keys().cloned().collect::<BTreeSet<_>>(), r.outcomes);
    for (outcome, run) in &r.outcome_runs {
        let trace = replay(&program, run).unwrap();
        let last = trace.events().iter().rev().find(|e| !e.writes.is_empty()).unwrap();
        assert_eq!(last.writes[0].value, outcome[0], "the run's last write of total is its outcome");
        assert_eq!(Rerun::new(&program, &program).unwrap().run(run).unwrap(), Some(outcome.clone()));
    }
    // Without the setting no run is kept.
    assert!(explore(&program, &full()).outcome_runs.is_empty());
}

#[test]
fn a_run_carried_to_the_original_order_ends_alike_unless_its_reads_cannot_be_kept() {
    // The candidate writes `y` before `x`. A run of it where b reads both after a's writes
    // carries over; one where b reads y written and x not cannot keep those reads in the
    // original's order, though the original reaches the same values another way (b reading
    // x written and y not).
    let original =
        paces_cwhile::parse("var x = 0, y = 0, s = 0; thread a { X: x := 1; Y: y := 1; } thread b { S: s := x + y; }")
            .unwrap();
    let swapped =
        paces_cwhile::parse("var x = 0, y = 0, s = 0; thread a { Y: y := 1; X: x := 1; } thread b { S: s := x + y; }")
            .unwrap();
    let runs = explore(&swapped, &full().outcome_runs(true)).outcome_runs;
    let theirs = explore(&original, &full()).outcomes;
    assert_eq!(runs.keys().cloned().collect::<BTreeSet<_>>(), theirs);
    for (outcome, run) in &runs {
        let carried = Rerun::new(&original, &swapped).unwrap().run(run).unwrap();
        let labels: Vec<&str> = run.steps.iter().map(|s| s.label.as_str()).collect();
        if labels == ["Y", "S", "X"] {
            assert_eq!(carried, None, "b's reads and a's order form a cycle");
        } else {
            assert_eq!(carried.as_ref(), Some(outcome), "{labels:?}");
        }
    }
}

#[test]
fn a_search_for_wanted_outcomes_stops_once_it_found_them() {
    // Each thread ends at once or after a long way: the outcome of both ending at once is
    // met early, so a search for it alone stores fewer states than the whole space.
    let program = paces_cwhile::parse(
        "var n = 0, m = 0; thread a { if (*) { n := 1; } else { n := n + 2; m := n; n := n + 4; m := m + n; } } \
         thread b { if (*) { m := 1; } else { m := m + 2; n := m; m := m + 4; n := n + m; } }",
    )
    .unwrap();
    // Without the reduction, which would merge each thread's private way into one step.
    let full = || full().por(false);
    let all = explore(&program, &full());
    let wanted = Arc::new(BTreeSet::from([vec![1, 1]]));
    let some = explore(&program, &full().wanted_outcomes(Some(wanted)));
    assert!(some.outcomes.contains(&vec![1, 1]));
    assert!(some.states < all.states, "{} < {}", some.states, all.states);
    // An outcome the program never reaches makes the search go through the whole space.
    let never = Arc::new(BTreeSet::from([vec![1, 100]]));
    let whole = explore(&program, &full().wanted_outcomes(Some(never)));
    assert_eq!(whole.outcomes, all.outcomes);
}

#[test]
fn a_hunt_meets_deep_outcomes_before_a_breadth_first_search_would() {
    // The one outcome lies at the bottom of a space of interleaved increments: breadth first,
    // a search for it stores the whole space; depth first, its first run ends there.
    let program = paces_cwhile::parse(
        "var x = 0, y = 0; thread a { x := x + 1; y := y + 1; x := x + 1; y := y + 1; } \
         thread b { x := x + 2; y := y + 2; x := x + 2; y := y + 2; } \
         thread c { y := y + 3; x := x + 3; y := y + 3; x := x + 3; }",
    )
    .unwrap();
    let all = explore(&program, &full());
    assert_eq!(all.outcomes, BTreeSet::from([vec![12, 12]]));
    let wanted = Arc::new(all.outcomes.clone());
    // Only the merged search (the small space would be covered by the ones before it).
    let merged = || full().unmerged_states(0).unreduced_states(0).wanted_outcomes(Some(wanted.clone()));
    let breadth = explore(&program, &merged());
    let hunted = explore(&program, &merged().hunt_states(10_000));
    assert!(wanted.is_subset(&hunted.outcomes) && hunted.outcomes.is_subset(&all.outcomes));
    assert!(hunted.states < breadth.states, "{} < {}", hunted.states, breadth.states);
    // A hunt too short to meet them leaves the rest to the breadth-first search, which then
    // stops once it met them.
    let short = explore(&program, &merged().hunt_states(2));
    assert!(wanted.is_subset(&short.outcomes) && short.outcomes.is_subset(&all.outcomes));
    // With an outcome the program never reaches, the hunt and the whole space: every one.
    let never = Arc::new(BTreeSet::from([vec![-1, -1]]));
    let whole = explore(&program, &full().unmerged_states(0).wanted_outcomes(Some(never)).hunt_states(50));
    assert_eq!(whole.outcomes, all.outcomes);
}

#[test]
fn a_reorder_of_private_statements_adds_no_outcome() {
    // `u` and `z` are a's alone, `y` is read by b and `x` written by b: B is private, A and C
    // are not.
    let original = paces_cwhile::parse(
        "var x = 0, y = 0, z = 0, u = 0, w = 0; thread a { A: y := 1; B: u := 2; C: z := x; } \
         thread b { D: x := 1; E: w := y; }",
    )
    .unwrap();
    let space = original.space();
    let order = |names: &[&str]| names.iter().map(|n| space.loc(n).unwrap()).collect::<Vec<_>>();
    let orders = |names: &[&str]| -> Vec<Vec<_>> {
        space.blocks().map(|b| if b.index() == 0 { order(names) } else { space.items(b).to_vec() }).collect()
    };
    let private = Candidate::new(&space, orders(&["B", "A", "C"]), &[]).unwrap();
    assert!(original.reorders_are_private(&private));
    let shared = Candidate::new(&space, orders(&["C", "A", "B"]), &[]).unwrap();
    assert!(!original.reorders_are_private(&shared), "A and C both share a variable with b");
    // And indeed: C reading x = 0 before A writes y lets b read y = 1 with z = 0, which no
    // run of the original ends in.
    let theirs = explore(&original, &full()).outcomes;
    let mine = explore(&original.apply(&shared).unwrap(), &full()).outcomes;
    assert!(!mine.is_subset(&theirs));
    let private_outcomes = explore(&original.apply(&private).unwrap(), &full()).outcomes;
    assert!(private_outcomes.is_subset(&theirs));
}

mod random {
    use paces_constraint::Space;
    use paces_testkit::gen;
    use proptest::prelude::*;

    use super::*;

    /// The candidates that swap one pair of adjacent items the space lets move.
    fn swaps(space: &Space) -> Vec<Candidate> {
        let orders: Vec<Vec<_>> = space.blocks().map(|b| space.items(b).to_vec()).collect();
        let mut out = Vec::new();
        for (b, items) in orders.iter().enumerate() {
            for i in 1..items.len() {
                if space.is_fixed(items[i - 1], items[i]) {
                    continue;
                }
                let mut swapped = orders.clone();
                swapped[b].swap(i - 1, i);
                out.extend(Candidate::new(space, swapped, &[]));
            }
        }
        out
    }

    /// `text` parsed, and its exploration with `config`; `None` when that stopped at a bound
    /// or could not run.
    fn whole(text: &str, config: &Config) -> Result<Option<(paces_cwhile::Program, CheckResult)>, TestCaseError> {
        let program = paces_cwhile::parse(text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        Ok(check(&program, config).ok().filter(|r| r.bound.is_none()).map(|r| (program, r)))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// A check that looks for no failing assertion (its assertions run as skips) finds the
        /// same outcomes, deadlocks and livelocks as one that looks for every failure.
        #[test]
        fn assertions_as_skips_keep_outcomes_deadlocks_and_livelocks(prog in gen::prog()) {
            let text = prog.text();
            let Some((program, all)) = whole(&text, &full())? else { return Ok(()) };
            let quiet = check(&program, &full().find(FailureKinds::DEADLOCKS | FailureKinds::LIVELOCKS)).unwrap();
            prop_assert!(quiet.bound.is_none());
            prop_assert_eq!(&quiet.outcomes, &all.outcomes, "{}", text);
            let ids = |r: &CheckResult| (r.deadlocks.keys().cloned().collect::<Vec<_>>(), r.livelocks.keys().cloned().collect::<Vec<_>>());
            prop_assert_eq!(ids(&quiet), ids(&all), "{}", text);
            prop_assert!(quiet.failures.is_empty() && quiet.passed_assertions.is_empty());
        }

        /// A check that hunts for wanted outcomes (each of the program's outcomes in turn,
        /// with a hunt of a few states or of many) meets them, and every outcome it reports
        /// is one of the program's.
        #[test]
        fn a_hunt_for_outcomes_meets_only_outcomes(prog in gen::prog(), budget in prop_oneof![Just(3usize), Just(5_000usize)]) {
            let text = prog.text();
            let Some((program, all)) = whole(&text, &full())? else { return Ok(()) };
            for outcome in all.outcomes.iter().take(4) {
                let wanted = Arc::new(BTreeSet::from([outcome.clone()]));
                let r = check(&program, &full().wanted_outcomes(Some(wanted)).hunt_states(budget)).unwrap();
                prop_assert!(r.outcomes.contains(outcome), "{:?} not met in\n{}", outcome, text);
                let foreign: Vec<&Vec<i64>> = r.outcomes.difference(&all.outcomes).collect();
                prop_assert!(foreign.is_empty(), "{:?} are no outcomes of\n{}", foreign, text);
            }
        }

        /// A check that asks for one of the program's deadlocks, hunting depth first first
        /// (with room for a few states or for many), meets it, and every deadlock it reports
        /// is one of the program's.
        #[test]
        fn a_hunt_for_deadlocks_meets_only_deadlocks(prog in gen::prog(), budget in prop_oneof![Just(3usize), Just(5_000usize)]) {
            let text = prog.text();
            let every = Config::new().stop_at_first_failure(false).max_states(200_000);
            let Some((program, all)) = whole(&text, &every)? else { return Ok(()) };
            for id in all.deadlocks.keys().take(4) {
                let wanted = Arc::new(BTreeSet::from([id.clone()]));
                let only = Config::new().find(FailureKinds::DEADLOCKS).max_states(200_000);
                let r = check(&program, &only.hunt_states(budget).wanted_deadlocks(Some(wanted))).unwrap();
                prop_assert!(matches!(&r.verdict, Verdict::Deadlock(v, _) if v == id), "{} not met in\n{}", id, text);
                let foreign: Vec<_> = r.deadlocks.keys().filter(|d| !all.deadlocks.contains_key(*d)).collect();
                prop_assert!(foreign.is_empty(), "{:?} are no deadlocks of\n{}", foreign, text);
            }
        }

        /// Whatever a carried run ends in is an outcome of the program it was carried to
        /// (checked against that program's full exploration), for every reordering the space
        /// offers; a run carried to its own program ends where it did.
        #[test]
        fn a_carried_run_ends_in_an_outcome_of_its_target(prog in gen::prog()) {
            let text = prog.text();
            let Some((program, theirs)) = whole(&text, &full())? else { return Ok(()) };
            for candidate in swaps(&program.space()) {
                let applied = program.apply(&candidate).unwrap();
                let mine = check(&applied, &full().outcome_runs(true)).unwrap();
                prop_assume!(mine.bound.is_none());
                // A reorder the static rule calls private adds no outcome.
                if program.reorders_are_private(&candidate) {
                    let new: Vec<&Vec<i64>> = mine.outcomes.difference(&theirs.outcomes).collect();
                    prop_assert!(new.is_empty(), "{:?} added by a private reorder of\n{}", new, text);
                }
                let (to_original, to_itself) =
                    (Rerun::new(&program, &applied).unwrap(), Rerun::new(&applied, &applied).unwrap());
                let shown = paces_cwhile::Printer::new(&applied).print();
                for (outcome, run) in &mine.outcome_runs {
                    let carried = to_original.run(run).unwrap();
                    if let Some(c) = &carried {
                        prop_assert!(theirs.outcomes.contains(c), "{:?} is no outcome of\n{}", c, text);
                    }
                    let own = to_itself.run(run).unwrap();
                    let failed = replay(&applied, run).unwrap().is_bad();
                    prop_assert!(own.as_ref() == Some(outcome) || failed && own.is_none(), "{:?}: {:?}\n{}", outcome, own, shown);
                }
            }
        }
    }
}
