//! Differential, property-based: random small programs give the same verdicts with
//! partial-order reduction on and off, with one worker thread and with several; every
//! counterexample replays to the same failure; the final states of complete sequential
//! traces agree with running each thread order as one sequential thread.

use std::collections::BTreeSet;

use paces_explore::{check, replay, sequential_final_states, CheckResult, Config, Verdict};
use paces_testkit::gen;
use proptest::prelude::*;

/// What must agree between two explorations: failing labels, deadlocks and livelocks.
fn summary(r: &CheckResult) -> (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>) {
    (
        r.failures.keys().cloned().collect(),
        r.deadlocks.keys().map(|d| d.to_string()).collect(),
        r.livelocks.keys().map(|d| d.to_string()).collect(),
    )
}

fn full() -> Config {
    Config::new().stop_at_first_failure(false).max_states(200_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn por_parallel_and_replay_agree(prog in gen::prog()) {
        let text = prog.text();
        let program = paces_cwhile::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        // The reduced search merging from the first state (with no search without the
        // reduction first), never merging, and by default (its first 10,000 states without
        // merging, then up to 4,000 without the reduction, then merging; its states count all).
        let with = check(&program, &full().unmerged_states(0).unreduced_states(0)).unwrap();
        let unmerged = check(&program, &full().unmerged_states(usize::MAX)).unwrap();
        let default = check(&program, &full()).unwrap();
        let without = check(&program, &full().por(false)).unwrap();
        prop_assert!(!matches!(without.verdict, Verdict::BoundReached { .. }), "{}", text);
        for r in [&with, &unmerged, &default] {
            prop_assert_eq!(summary(r), summary(&without), "{}", text);
            prop_assert_eq!(&r.passed_assertions, &without.passed_assertions, "{}", text);
        }
        prop_assert!(with.states <= without.states, "{} {}\n{}", with.states, without.states, text);
        prop_assert!(unmerged.states <= without.states, "{} {}\n{}", unmerged.states, without.states, text);
        // Stopping at the first failure finds one exactly when there is one.
        let first = check(&program, &Config::new()).unwrap();
        prop_assert_eq!(first.verdict.name() == "correct", without.verdict.name() == "correct", "{}", text);
        // Parallel expansion with a private pool, one thread or four, changes nothing.
        let one = check(&program, &Config::new().threads(Some(1)).min_parallel_batch(1)).unwrap();
        let four = check(&program, &Config::new().threads(Some(4)).min_parallel_batch(1)).unwrap();
        let seq = check(&program, &Config::new().parallel(false)).unwrap();
        prop_assert_eq!(&one.verdict, &four.verdict, "{}", text);
        prop_assert_eq!(&one.verdict, &seq.verdict, "{}", text);
        prop_assert_eq!(one.states, four.states);
        prop_assert_eq!(&one.passed_assertions, &four.passed_assertions, "{}", text);
        prop_assert_eq!(&one.passed_assertions, &seq.passed_assertions, "{}", text);
        let merged = |threads| Config::new().unmerged_states(0).unreduced_states(0).threads(Some(threads)).min_parallel_batch(1);
        let (one, four) = (check(&program, &merged(1)).unwrap(), check(&program, &merged(4)).unwrap());
        prop_assert_eq!(&one.verdict, &four.verdict, "{}", text);
        prop_assert_eq!(one.states, four.states);
        // Every counterexample replays to its trace and its failure.
        for r in [&with, &unmerged, &default, &without, &first] {
            let all = r.verdict.counterexample().into_iter()
                .chain(r.failures.values()).chain(r.deadlocks.values()).chain(r.livelocks.values());
            for c in all {
                let t = replay(&program, &c.schedule).unwrap();
                prop_assert_eq!(t.events(), c.trace.events());
                if let Some(i) = c.failing_step {
                    prop_assert!(t.events()[i].failed);
                }
            }
        }
    }

    #[test]
    fn a_hunted_failure_is_a_real_one(prog in gen::prog()) {
        let text = prog.text();
        let program = paces_cwhile::parse(&text).unwrap();
        let without = check(&program, &full().por(false)).unwrap();
        prop_assert!(!matches!(without.verdict, Verdict::BoundReached { .. }), "{}", text);
        // The hunt first with room for the whole space, with room for a few states (then
        // the breadth-first search finds what it missed), and after the unmerged search.
        for (unmerged, hunt) in [(0, usize::MAX), (0, 3), (10, 1_000)] {
            let r = check(&program, &Config::new().unmerged_states(unmerged).hunt_states(hunt)).unwrap();
            prop_assert_eq!(r.verdict.name() == "correct", without.verdict.name() == "correct", "{}", text);
            if let Verdict::Bad(c) = &r.verdict {
                // Failures the exhaustive search finds too; the verdict's replays to its
                // trace, ending in its failure.
                for label in r.failures.keys() {
                    prop_assert!(without.failures.contains_key(label), "{}\n{}", label, text);
                }
                let t = replay(&program, &c.schedule).unwrap();
                prop_assert_eq!(t.events(), c.trace.events());
                let i = c.failing_step.unwrap();
                prop_assert!(t.events()[i].failed && i + 1 == t.events().len(), "{}", text);
            }
        }
    }

    #[test]
    fn sequential_final_states_match_sequentialised_runs(prog in gen::prog()) {
        let text = prog.text();
        let program = paces_cwhile::parse(&text).unwrap();
        let config = Config::new().max_states(200_000);
        let Ok(finals) = sequential_final_states(&program, &config) else { return Ok(()) };
        let mut expected = BTreeSet::new();
        for order in gen::permutations(prog.threads.len()) {
            let single = paces_cwhile::parse(&prog.sequentialised(&order)).unwrap();
            let Ok(f) = sequential_final_states(&single, &config) else { return Ok(()) };
            expected.extend(f);
        }
        prop_assert_eq!(finals, expected, "{}", text);
    }
}
