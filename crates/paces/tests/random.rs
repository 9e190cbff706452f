//! The repair loop on random small programs (free-form ones with assignments, assertions,
//! waits, locks, `if` and `while` one level deep, and two driver-like families): it never fails
//! or panics, a repair it reports is checked again from its printed text (no failing assertion,
//! no deadlock), an "already correct" program has no failing assertion and no deadlock, and two runs give the same answer. 64 programs from a
//! fixed seed; the test also asserts that repairs, "already correct" and "no repair" all occur
//! among them (16, 9 and 38 when written), so the properties are exercised. A stress run of this kind found the loop walking 100 iterations on
//! programs without a repair and an idle loop run on for 100,000 steps.

mod common;

use common::programs::program;
use paces::explore::{check, Config};
use paces::{Repair, StopReason};
use proptest::prelude::*;

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

fn repair() -> Repair {
    Repair::new().checker(Config::new().max_states(50_000)).max_iterations(30)
}

/// One program: the properties above; returns the stop reason's name.
fn answer_soundly(src: &str) -> Result<&'static str, TestCaseError> {
    let p = paces::cwhile::parse(src).expect("the generator writes valid programs");
    let report = repair().run(&p).unwrap_or_else(|e| panic!("{src}\n{e}"));
    match &report.stop {
        StopReason::Repaired => {
            let text = report.repaired_text().expect("repaired text");
            let again = paces::cwhile::parse(&text).expect("the repair parses");
            let result = check(&again, &Config::new().max_states(200_000).stop_at_first_failure(false)).unwrap();
            prop_assert!(
                result.failures.is_empty(),
                "{src}\nrepaired:\n{text}\nstill fails: {:?}",
                result.failures.keys()
            );
            prop_assert!(result.bound.is_none(), "{src}: the recheck hit a bound");
            prop_assert!(
                result.deadlocks.is_empty(),
                "{src}\nrepaired:\n{text}\ndeadlocks: {:?}",
                result.deadlocks.keys()
            );
        }
        StopReason::AlreadyCorrect => {
            let result = check(&p, &Config::new().max_states(200_000).stop_at_first_failure(false)).unwrap();
            prop_assert!(result.failures.is_empty() && result.bound.is_none(), "{src}");
            prop_assert!(result.deadlocks.is_empty(), "{src}: deadlocks {:?}", result.deadlocks.keys());
        }
        _ => {}
    }
    let second = repair().run(&p).unwrap();
    prop_assert_eq!(report.stop.name(), second.stop.name());
    prop_assert_eq!(&words(&report), &words(&second));
    prop_assert_eq!(report.iterations, second.iterations);
    Ok(report.stop.name())
}

#[test]
fn the_loop_answers_every_small_program_soundly() {
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    let seen: RefCell<BTreeMap<&'static str, usize>> = RefCell::default();
    let config = ProptestConfig { cases: 64, ..ProptestConfig::default() };
    let rng = proptest::test_runner::TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = proptest::test_runner::TestRunner::new_with_rng(config, rng);
    let outcome = runner.run(&program(), |src| {
        let name = answer_soundly(&src)?;
        *seen.borrow_mut().entry(name).or_default() += 1;
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
    // The generator reaches the interesting answers, so the properties are exercised.
    let seen = seen.into_inner();
    eprintln!("answers: {seen:?}");
    for kind in ["repaired", "already-correct", "no-repair"] {
        assert!(seen.get(kind).copied().unwrap_or(0) > 0, "no `{kind}` among {seen:?}");
    }
}
