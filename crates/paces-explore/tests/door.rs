//! Every trace the checker hands the learner passes the learner's door
//! (`paces_trace::Trace::check_against`, which `paces_learn::Learner` runs on every trace it
//! is given): the witnesses of failing assertions and deadlocks (with their blocked steps), the
//! completions of counterexamples (with their pending steps) and the good traces, on random
//! programs with loops, locks held while waiting, `assume`s after loops and up to four
//! threads; and every good trace is good (no failing event, no blocked or pending step, as
//! `Learner::learn_good` asks). The door's checks (a step after its thread's blocked or pending
//! steps, the very step of a thread's last event again, a good trace that fails or stops
//! short) refuse malformed traces only: what the learner learns from these is what it learned
//! before them.

use paces_explore::{check, complete_counterexample, good_traces, Config, GoodConfig};
use paces_testkit::gen::{self, Features};
use proptest::prelude::*;

const FEATURES: Features = Features { unbounded: false, ..Features::ALL };

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn the_checkers_traces_pass_the_door(prog in gen::prog_with(FEATURES)) {
        let text = prog.text();
        let program = paces_cwhile::parse(&text).expect("parses");
        let space = program.space();
        let r = check(&program, &Config::new().stop_at_first_failure(false).max_states(20_000)).expect("checks");
        let mut seen = 0;
        for (what, cex) in r.failures.values().map(|c| ("failure", c)).chain(r.deadlocks.values().map(|c| ("deadlock", c))) {
            prop_assert!(cex.trace.check_against(&space).is_ok(), "{} witness: {:?}\n{}", what, cex.trace.check_against(&space), text);
            let completed = complete_counterexample(&program, cex, 2_000).expect("completes");
            prop_assert!(
                completed.trace.check_against(&space).is_ok(),
                "completed {} witness: {:?}\n{}",
                what,
                completed.trace.check_against(&space),
                text
            );
            seen += 1;
        }
        for trace in good_traces(&program, &GoodConfig::new().max_traces(8)).expect("good traces") {
            prop_assert!(trace.check_against(&space).is_ok(), "good trace: {:?}\n{}", trace.check_against(&space), text);
            // And it is good, as the door asks of a good trace: no failing event, no blocked
            // or pending step.
            prop_assert!(trace.events().iter().all(|e| !e.failed), "a good trace fails\n{}", text);
            prop_assert!(trace.blocked().is_empty() && trace.pending().is_empty(), "a good trace stops short\n{}", text);
            seen += 1;
        }
        prop_assume!(seen > 0);
    }
}

/// A thread that waits at a choice waits on every branch: its blocked steps are alternatives,
/// each of which continues the thread's events (a later item first, then one inside the
/// choice, is no step back in program order).
#[test]
fn blocked_alternatives_pass_the_door() {
    let shapes = [
        "if (*) { } else { lock(m); }",
        "if (*) { lock(m); } else { }",
        "if (*) { } else { while (*) { lock(m); unlock(m); } }",
        "if (*) { while (*) { lock(m); unlock(m); } } else { }",
    ];
    for shape in shapes {
        let text = format!("var m = 0;\n\nthread t0 {{\n  lock(m);\n}}\n\nthread t1 {{\n  {shape}\n  lock(m);\n}}\n");
        let program = paces_cwhile::parse(&text).expect("parses");
        let space = program.space();
        let r = check(&program, &Config::new().stop_at_first_failure(false)).expect("checks");
        let choices: Vec<_> = r.deadlocks.values().filter(|c| c.trace.blocked().len() > 1).collect();
        assert!(!choices.is_empty(), "a deadlock blocked at the choice:\n{text}");
        for cex in r.deadlocks.values() {
            let door = cex.trace.check_against(&space);
            assert!(door.is_ok(), "{door:?}\n{text}");
        }
    }
}
