//! The repair loop on random small programs (free-form ones with assignments, assertions,
//! waits, locks, `if` and `while` one level deep, and two driver-like families): it never fails
//! or panics, a repair it reports is checked again from its printed text, an "already correct"
//! program has no failing assertion, and two runs give the same answer. 64 programs from a
//! fixed seed; the test also asserts that repairs, "already correct" and "no repair" all occur
//! among them (16, 9 and 38 when written), so the properties are exercised. A stress run of this kind found the loop walking 100 iterations on
//! programs without a repair and an idle loop run on for 100,000 steps.

use paces::explore::{check, Config};
use paces::{Repair, StopReason};
use proptest::prelude::*;

const VARS: [&str; 3] = ["x", "y", "z"];

fn var() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&VARS[..])
}

fn cond() -> impl Strategy<Value = String> {
    (var(), prop::sample::select(&["==", "!=", "<", ">"][..]), 0..3i64).prop_map(|(v, op, k)| format!("{v} {op} {k}"))
}

fn simple() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (var(), var(), 0..3i64).prop_map(|(v, w, k)| format!("{v} := {w} + {k};")),
        2 => cond().prop_map(|c| format!("assert({c});")),
        1 => cond().prop_map(|c| format!("await({c});")),
        1 => (var(), 0..3i64).prop_map(|(v, k)| format!("lock(m); {v} := {k}; unlock(m);")),
    ]
}

fn stmt() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => simple(),
        1 => (cond(), prop::collection::vec(simple(), 1..3)).prop_map(|(c, b)| format!("if ({c}) {{ {} }}", b.join(" "))),
        1 => prop::collection::vec(simple(), 1..3).prop_map(|b| format!("while (*) {{ {} }}", b.join(" "))),
    ]
}

/// Free-form programs, and two driver-like families whose bug only some schedules show:
/// publishing a flag among the writes it guards (in a random order), and a split
/// read-modify-write of a counter, each with a random extra thread.
fn program() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => free_form(),
        1 => (Just(vec![0usize, 1, 2]).prop_shuffle(), stmt()).prop_map(|(order, extra)| publish(&order, &extra)),
        1 => stmt().prop_map(|extra| format!(
            "var x = 0, y = 0, z = 0, m = 0, c = 0, d1 = 0, d2 = 0;
             thread a {{ local t; A1: t := c; A2: c := t + 1; A3: d1 := 1; }}
             thread b {{ local t; B1: t := c; B2: c := t + 1; B3: d2 := 1; }}
             thread w {{ W1: await(d1 == 1 && d2 == 1); W2: assert(c == 2); }}
             thread n {{ {extra} }}\n"
        )),
    ]
}

/// A writer sets `x`, `y` and the flag `f` in the given order; a reader waits for the flag
/// and checks both.
fn publish(order: &[usize], extra: &str) -> String {
    let writes = ["P1: x := 1;", "P2: y := 2;", "P3: f := 1;"];
    let body: Vec<&str> = order.iter().map(|&i| writes[i]).collect();
    format!(
        "var x = 0, y = 0, z = 0, m = 0, f = 0;
         thread p {{ {} }}
         thread r {{ R1: await(f == 1); R2: assert(x == 1); R3: assert(y == 2); }}
         thread n {{ {extra} }}\n",
        body.join(" ")
    )
}

fn free_form() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::collection::vec(stmt(), 1..4), 2..4).prop_map(|threads| {
        let mut src = String::from("var x = 0, y = 0, z = 0, m = 0;\n");
        for (i, body) in threads.iter().enumerate() {
            src.push_str(&format!("thread t{i} {{ {} }}\n", body.join(" ")));
        }
        src
    })
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
            let text = report.repaired_text.as_ref().expect("repaired text");
            let again = paces::cwhile::parse(text).expect("the repair parses");
            let result = check(&again, &Config::new().max_states(200_000).stop_at_first_failure(false)).unwrap();
            prop_assert!(
                result.failures.is_empty(),
                "{src}\nrepaired:\n{text}\nstill fails: {:?}",
                result.failures.keys()
            );
            prop_assert!(result.bound.is_none(), "{src}: the recheck hit a bound");
        }
        StopReason::AlreadyCorrect => {
            let result = check(&p, &Config::new().max_states(200_000)).unwrap();
            prop_assert!(result.failures.is_empty() && result.bound.is_none(), "{src}");
        }
        _ => {}
    }
    let second = repair().run(&p).unwrap();
    prop_assert_eq!(report.stop.name(), second.stop.name());
    prop_assert_eq!(&report.transformation_text, &second.transformation_text);
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
