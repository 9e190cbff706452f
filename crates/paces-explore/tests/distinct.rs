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
