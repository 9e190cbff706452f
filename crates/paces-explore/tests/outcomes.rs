//! Outcomes: the globals' values where every thread may stop, with and without the reduction.

use std::collections::BTreeSet;

use paces_explore::{check, Config};

fn outcomes(src: &str, por: bool) -> BTreeSet<Vec<i64>> {
    let program = paces_cwhile::parse(src).unwrap();
    let config = Config::new().stop_at_first_failure(false).outcomes(true).por(por);
    let r = check(&program, &config).unwrap();
    assert!(r.bound.is_none(), "{src}: the search went through the whole space");
    r.outcomes
}

#[track_caller]
fn assert_outcomes(src: &str, expected: &[&[i64]]) {
    let expected: BTreeSet<Vec<i64>> = expected.iter().map(|o| o.to_vec()).collect();
    assert_eq!(outcomes(src, true), expected, "with the reduction: {src}");
    assert_eq!(outcomes(src, false), expected, "without the reduction: {src}");
}

#[test]
fn a_lost_update_has_both_totals() {
    assert_outcomes(
        "var total = 0; thread a { local t; t := total; total := t + 1; } thread b { local t; t := total; total := t + 1; }",
        &[&[1], &[2]],
    );
}

#[test]
fn a_global_written_once_and_never_read_keeps_its_value() {
    // No thread reads `bsy` after writing it: the checker would reset it, but an outcome
    // keeps it.
    assert_outcomes(
        "var bsy = 0, x = 0; thread a { bsy := 1; x := 1; bsy := 0; } thread b { x := 2; }",
        &[&[0, 1], &[0, 2]],
    );
    assert_outcomes("var bsy = 0; thread a { bsy := 1; } thread b { skip; }", &[&[1]]);
}

#[test]
fn an_idle_loop_may_stop_anywhere_it_may_leave() {
    assert_outcomes(
        "var n = 0; thread a { while (*) { n := n + 1; assume(n < 3); } }",
        // n = 3 fails the `assume`: that run is cut, with no outcome.
        &[&[0], &[1], &[2]],
    );
}

#[test]
fn a_deadlock_and_a_thread_inside_an_atomic_block_have_no_outcome() {
    assert_outcomes("var m = 0; thread a { await(m == 1); }", &[]);
    assert_outcomes("var x = 0; thread a { atomic { x := 1; x := 2; } } thread b { x := x + 10; }", &[&[2], &[12]]);
}

mod random {
    use paces_explore::{check, sequential_final_states, Config, Verdict};
    use paces_testkit::gen;
    use proptest::prelude::*;

    fn full() -> Config {
        Config::new().stop_at_first_failure(false).max_states(200_000).outcomes(true)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

        /// The reduction, merging (from the first state, never, by default) and parallel
        /// expansion keep every outcome: each finds those of the plain search of every
        /// interleaving.
        #[test]
        fn outcomes_agree_with_the_search_without_the_reduction(prog in gen::prog()) {
            let text = prog.text();
            let program = paces_cwhile::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
            let without = check(&program, &full().por(false)).unwrap();
            prop_assert!(!matches!(without.verdict, Verdict::BoundReached { .. }), "{}", text);
            let configs = [
                full().unmerged_states(0).unreduced_states(0),
                full().unmerged_states(usize::MAX),
                full(),
                full().unmerged_states(0).unreduced_states(0).threads(Some(4)).min_parallel_batch(1),
            ];
            for config in configs {
                let r = check(&program, &config).unwrap();
                prop_assert_eq!(&r.outcomes, &without.outcomes, "{}", text);
            }
            // Without the setting no outcome is collected.
            let plain = check(&program, &Config::new().stop_at_first_failure(false)).unwrap();
            prop_assert!(plain.outcomes.is_empty());
            // Every sequential run ends in an outcome (the repair loop's judge takes them as
            // outcomes of the original without exploring it), failing runs too.
            if let Ok(finals) = sequential_final_states(&program, &Config::new().max_states(200_000)) {
                let missing: Vec<&Vec<i64>> = finals.difference(&without.outcomes).collect();
                prop_assert!(missing.is_empty(), "sequential final states {:?} are no outcome\n{}", missing, text);
            }
        }
    }
}
