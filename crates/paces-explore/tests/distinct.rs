//! `Config::failures_per_assertion`: further counterexamples of one assertion whose failures
//! run through other threads (`Counterexample::flow_threads`).

use std::collections::BTreeSet;

use paces_explore::{check, Config};

/// Three workers that each add to `total` with a read and a write: any two can lose an update.
const WORKERS: &str = "var total = 0, done = 0;
thread w1 { local t; a1: t := total; a2: total := t + 1; a3: done := done + 1; }
thread w2 { local t, u; b0: u := u + 1; b1: t := total; b2: total := t + 1; b3: done := done + 1; }
thread w3 { local t; c1: t := total; c2: total := t + 1; c3: done := done + 1; }
thread check { k1: await(done == 3); k2: assert(total == 3); }";

fn further(config: Config) -> (BTreeSet<paces_explore::trace::ThreadId>, Vec<paces_explore::Counterexample>) {
    let program = paces_cwhile::parse(WORKERS).unwrap();
    let result = check(&program, &config.stop_at_first_failure(false)).unwrap();
    let first = result.failures.get("k2").expect("the assertion fails");
    (first.flow_threads(), result.more_failures.get("k2").cloned().unwrap_or_default())
}

#[test]
fn further_failures_run_through_other_threads() {
    for hunt in [0, 50_000] {
        let (first, more) = further(Config::new().failures_per_assertion(3).hunt_states(hunt));
        assert!(!more.is_empty(), "hunt {hunt}: no further counterexample");
        assert!(more.len() <= 2);
        let mut flows = BTreeSet::from([first]);
        for cex in &more {
            assert!(cex.trace.is_bad(), "a further counterexample fails");
            assert_eq!(cex.failing_label(), Some("k2"));
            assert!(flows.insert(cex.flow_threads()), "hunt {hunt}: two counterexamples through the same threads");
        }
    }
}

#[test]
fn one_per_assertion_by_default() {
    let (first, more) = further(Config::new());
    assert!(more.is_empty());
    // The check thread and at least one worker.
    assert!(first.len() >= 2, "{first:?}");
}

/// A check that met its failure breadth first says how many states it walked without one
/// (`CheckResult::clean_states`): a search for further failures bounded below that meets
/// none, bounded at the check's states it meets the check's failure.
mod clean {
    use paces_explore::{check, Config, FailureKinds, Verdict};
    use paces_testkit::gen;
    use proptest::prelude::*;

    /// A candidate's check in the repair loop: to the first failure, past deadlocks, with
    /// small bounds on the searches before the merged one.
    fn first_failure() -> Config {
        Config::new().unmerged_states(3).unreduced_states(2).stop_at_deadlocks(false).max_states(100_000)
    }

    /// The loop's search for further failures, breadth first only, at most `states` states.
    fn further(states: usize) -> Config {
        Config::new()
            .stop_at_first_failure(false)
            .find(FailureKinds::BAD)
            .unmerged_states(3)
            .unreduced_states(0)
            .failures_per_assertion(3)
            .max_states(states)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        #[test]
        fn no_failure_within_the_clean_states(prog in gen::prog()) {
            let text = prog.text();
            let program = paces_cwhile::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
            let result = check(&program, &first_failure()).unwrap();
            let Verdict::Bad(cex) = &result.verdict else { return Ok(()) };
            if result.clean_states == 0 {
                return Ok(());
            }
            prop_assert!(result.clean_states <= result.states, "{}", text);
            let below = check(&program, &further(result.clean_states - 1)).unwrap();
            prop_assert!(below.failures.is_empty(), "{:?} within {} states\n{}", below.failures.keys(), result.clean_states - 1, text);
            let label = cex.failing_label().unwrap();
            let at = check(&program, &further(result.states)).unwrap();
            prop_assert!(at.failures.contains_key(label), "{} not met within {} states\n{}", label, result.states, text);
        }
    }
}

#[test]
fn a_failure_met_by_the_first_searches_leaves_no_clean_states() {
    let program = paces_cwhile::parse(WORKERS).unwrap();
    // Within the search without merging (10,000 states by default): nothing to say.
    let early = check(&program, &Config::new()).unwrap();
    assert!(early.failures.contains_key("k2"));
    assert_eq!(early.clean_states, 0);
    // Without it, the merged search meets the failure below the first level.
    let merged = check(&program, &Config::new().unmerged_states(0).unreduced_states(0)).unwrap();
    assert!(merged.failures.contains_key("k2"));
    assert!(merged.clean_states > 1 && merged.clean_states <= merged.states, "{}", merged.clean_states);
}
