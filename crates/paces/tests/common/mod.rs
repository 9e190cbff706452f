//! Shared by the end-to-end tests: the held-in programs and an independent check of a repair.

#![allow(dead_code)] // Reason: each test file uses a different subset of the helpers.

pub mod programs;

use paces::explore::{check, sequential_final_states, Config, FailureKinds};
use paces::{DeadlockRule, StopReason};

/// A held-in program (`examples/NAME.cw`, read through `paces-heldin`).
pub fn program(name: &str) -> paces::cwhile::Program {
    paces::cwhile::parse(paces_heldin::source(name)).unwrap_or_else(|d| panic!("{name}: {d}"))
}

/// Checks what the loop promises of an accepted program, independently of the loop, by
/// exploring it and the original from scratch: the repaired text parses back to itself and
/// holds every label a transformation names, no
/// assertion fails, no deadlock is reachable (with the original's deadlocks kept: none is new,
/// a deadlock being admitted when the original reaches it, or a deadlock of the same blocked
/// threads after a failure), no atomic livelock is new, every
/// assertion that passes on some run of the original still passes on some run of the repair,
/// and the sequential final states are the original's.
#[track_caller]
pub fn check_accepted(report: &paces::Report) {
    assert!(report.stop.is_success(), "not repaired: {}", report.stop);
    let original = paces::cwhile::parse(&report.original_text()).expect("the original parses");
    let text = report.repaired_text().expect("an accepted program has its text");
    let repaired = paces::cwhile::parse(&text).unwrap_or_else(|d| panic!("the repair does not parse: {d}"));
    assert_eq!(
        paces::cwhile::Printer::new(&repaired).labels(&[]).print(),
        text,
        "printing the parsed repair gives another text"
    );
    for t in &report.transformations {
        let (a, b) = match *t {
            paces::constraint::Transformation::Swap { first, second } => (first, second),
            paces::constraint::Transformation::Atomic { first, last } => (first, last),
        };
        for name in [report.space.name(a), report.space.name(b)] {
            assert!(
                repaired.space().loc(name).is_some(),
                "`{name}` of `{}` is not in the repair",
                t.display(&report.space)
            );
        }
    }
    let all = Config::new().stop_at_first_failure(false);
    let after = check(&repaired, &all).expect("the checker runs on the repair");
    assert!(after.bound.is_none(), "the check of the repair reached a bound");
    assert!(after.failures.is_empty(), "assertions still fail: {:?}", after.failures.keys());
    // Every deadlock of the repair is one the report lists as kept.
    for id in after.deadlocks.keys() {
        let listed = report.kept_deadlocks().any(|d| d.deadlock == *id);
        assert!(listed, "the repair deadlocks at {id}, which the report does not list as kept");
    }
    // No new outcome: every outcome of the repair is one of the original's. The original's
    // outcomes take an exploration that keeps every global: asked of programs whose repair has
    // a small space (rtl8169's original has over 6 million such states).
    if after.states <= 200_000 {
        let outcomes = Config::new().stop_at_first_failure(false).find(FailureKinds::NONE).outcomes(true);
        let mine = check(&repaired, &outcomes).expect("the checker runs on the repair");
        let theirs = check(&original, &outcomes).expect("the checker runs on the original");
        assert!(mine.bound.is_none() && theirs.bound.is_none(), "an outcome check reached a bound");
        let new: Vec<&Vec<i64>> = mine.outcomes.difference(&theirs.outcomes).collect();
        assert!(new.is_empty(), "the repair adds outcomes {new:?}");
    }
    // Each deadlock of the repair with the rule that admits it.
    let mut rules = Vec::new();
    if !after.deadlocks.is_empty() || !after.livelocks.is_empty() {
        // The original's whole space can be large (rtl8169: 25 million states): explored
        // only when the repair has a deadlock or livelock to compare.
        // With the failure flag: the deadlocks reached after a failure too (the second rule).
        let config = all.clone().find(FailureKinds::DEADLOCKS | FailureKinds::LIVELOCKS).deadlocks_after_failure(true);
        let before = check(&original, &config).expect("the checker runs on the original");
        assert!(before.bound.is_none(), "the check of the original reached a bound");
        let admitted = |id: &paces::explore::DeadlockId| {
            if before.deadlocks.contains_key(id) {
                Some(DeadlockRule::SamePlace)
            } else {
                let threads = id.blocked_threads();
                let after_failure = before.deadlocks_after_failure.keys().any(|d| d.blocked_threads() == threads);
                after_failure.then_some(DeadlockRule::SameThreadsAfterFailure)
            }
        };
        for id in after.deadlocks.keys() {
            let rule = admitted(id);
            assert!(rule.is_some(), "new deadlock {id:?}");
            rules.push((id.to_string(), rule));
        }
        for id in after.livelocks.keys() {
            assert!(before.livelocks.contains_key(id), "new atomic livelock {id:?}");
        }
    }
    // Every assertion passes somewhere in the repair, or the original's are needed.
    let every = repaired.stmts.iter().filter(|s| matches!(s.kind, paces::cwhile::ir::StmtKind::Assert(_)));
    let unpassed: Vec<&str> =
        every.map(|s| s.label.as_str()).filter(|l| !after.passed_assertions.contains(*l)).collect();
    if !unpassed.is_empty() {
        let before = check(&original, &all.clone().find(FailureKinds::NONE)).expect("the checker runs on the original");
        assert!(before.bound.is_none(), "the check of the original reached a bound");
        let lost: Vec<&&str> = unpassed.iter().filter(|l| before.passed_assertions.contains(**l)).collect();
        assert!(lost.is_empty(), "assertions that pass in the original are reached no more: {lost:?}");
    }
    let seq = Config::new();
    assert_eq!(
        sequential_final_states(&repaired, &seq).expect("sequential runs of the repair"),
        sequential_final_states(&original, &seq).expect("sequential runs of the original"),
        "the sequential final states differ"
    );
    if report.stop == StopReason::Repaired {
        let a = report.acceptance.as_ref().expect("a repair records its acceptance");
        assert!(a.no_assertion_failure && a.no_new_deadlock && a.no_new_livelock && a.same_sequential_states);
        assert!(a.assertions_reached);
        assert!(a.accepted());
        let kept: Vec<_> = a.deadlocks.iter().map(|d| (d.deadlock.to_string(), Some(d.rule))).collect();
        assert_eq!(kept, rules);
        assert_eq!(a.livelocks, after.livelocks.keys().cloned().collect::<Vec<_>>());
    }
}
