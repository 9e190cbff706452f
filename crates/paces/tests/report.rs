//! The report's figures on every stop reason: each figure says what happened, whichever way
//! the run ended.

mod common;

use std::time::Duration;

use common::{check_accepted, program};
use paces::{IterationKind, Mode, Repair, Report, StopReason};

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

fn parse(source: &str) -> paces::cwhile::Program {
    paces::cwhile::parse(source).unwrap()
}

/// What holds of every report, whatever the stop.
#[track_caller]
fn common_figures(report: &Report, original: &paces::cwhile::Program) {
    // Both texts carry the labels the transformations name (and the written ones).
    let named: Vec<&str> = report
        .transformations
        .iter()
        .flat_map(|t| match *t {
            paces::constraint::Transformation::Swap { first, second } => [first, second],
            paces::constraint::Transformation::Atomic { first, last } => [first, last],
        })
        .map(|l| report.space.name(l))
        .collect();
    assert_eq!(report.original_text(), paces::cwhile::Printer::new(original).labels(&named).print());
    assert_eq!(report.iterations, report.history.len(), "one history entry per iteration");
    assert!(report.original_states > 0, "the original is always checked first");
    assert!(report.states_explored >= report.original_states);
    let split = &report.states_split;
    assert_eq!(split.total(), report.states_explored, "the split counts every state once: {split:?}");
    assert!(split.original >= report.original_states, "{split:?}");
    if let Some(acceptance) = &report.acceptance {
        // The accepted program's own checks are among the candidates' (the original's
        // verdict when it was already correct has no acceptance).
        assert!(acceptance.states > 0 && acceptance.states <= split.candidates + split.candidate_outcomes);
    }
    let t = &report.time;
    assert!(t.total >= t.explore + t.learn + t.solve, "{t:?}");
    assert_eq!(words(report).len(), report.transformations.len());
    assert_eq!(
        report.repaired_text(),
        report.repaired.as_ref().map(|p| paces::cwhile::Printer::new(p).labels(&named).print())
    );
    if report.stop != StopReason::Repaired {
        assert!(report.acceptance.is_none() && report.transformations.is_empty());
    }
    if !report.stop.is_success() {
        assert!(report.repaired.is_none() && report.candidate.is_none());
    }
}

#[test]
fn repaired() {
    let original = program("paper1");
    let report = Repair::new().run(&original).unwrap();
    common_figures(&report, &original);
    check_accepted(&report);
    assert_eq!(report.stop, StopReason::Repaired);
    assert_eq!(words(&report), ["swap A <-> B", "swap A <-> C"]);
    assert_eq!(report.good_traces, 1);
    assert_eq!(report.bad_traces, 1);
    assert_eq!(report.history[0].kind(), IterationKind::Bad);
    assert_eq!(report.history[0].proposal, report.transformations);
    assert!(report.constraint.atoms > 0);
    let candidate = report.candidate.as_ref().unwrap();
    assert_eq!(candidate.transformations(&report.space), report.transformations);
    let acceptance = report.acceptance.as_ref().unwrap();
    assert!(acceptance.accepted());
    assert!(acceptance.deadlocks.is_empty() && acceptance.livelocks.is_empty());
    assert_eq!(acceptance.sequential_final_states, 1);
    // A repair by reorders has its outcomes explored; the original's sequential runs end
    // in each of them, so the original is never searched for one.
    assert!(report.states_split.candidate_outcomes > 0);
    assert_eq!(report.states_split.original_outcomes, 0);
    // The repair has no deadlock: the original's were never needed.
    assert_eq!(report.original_deadlocks, None);
}

#[test]
fn already_correct_records_the_original_and_its_deadlocks() {
    let original = parse("var x = 0; thread a { A: await(x == 1); } thread b { B: x := 0; }");
    let report = Repair::new().keep_deadlocks(true).run(&original).unwrap();
    assert!(report.keep_deadlocks);
    common_figures(&report, &original);
    assert_eq!(report.stop, StopReason::AlreadyCorrect);
    assert_eq!(report.iterations, 0);
    assert_eq!((report.good_traces, report.bad_traces), (0, 0));
    assert_eq!(report.repaired_text(), Some(report.original_text()));
    assert!(report.candidate.as_ref().unwrap().is_original(&report.space));
    let full = paces::explore::Config::new().stop_at_first_failure(false);
    assert_eq!(report.original_states, paces::explore::check(&original, &full).unwrap().states);
    let deadlocks = report.original_deadlocks.as_ref().expect("explored fully");
    assert_eq!(deadlocks.len(), 1, "{deadlocks:?}");
    assert!(deadlocks[0].to_string().contains('A'), "{deadlocks:?}");
}

#[test]
fn no_repair_counts_the_iteration_that_found_no_fix() {
    let original = parse("var x = 0; thread a { A: x := 1; } thread b { B: assert(x == 1); }");
    let report = Repair::new().run(&original).unwrap();
    common_figures(&report, &original);
    let StopReason::NoRepair(why) = &report.stop else { panic!("{}", report.stop) };
    let explanation = why.to_string();
    assert!(explanation.contains("`B` fails"), "{explanation}");
    assert_eq!(report.iterations, 1);
    assert_eq!((report.history[0].kind(), report.history[0].fixes), (IterationKind::Bad, 0));
    assert!(report.history[0].schedule.iter().any(|l| l == "B"), "{:?}", report.history[0].schedule);
    assert_eq!(report.bad_traces, 1);
}

#[test]
fn iteration_limit_reports_the_iterations_run() {
    let original = program("ex4");
    let report = Repair::new().mode(Mode::BadOnly).max_iterations(2).run(&original).unwrap();
    common_figures(&report, &original);
    assert_eq!(report.stop, StopReason::IterationLimit);
    assert_eq!(report.iterations, 2);
    // One trace per iteration, and the further failing assertions its check found.
    let more: usize = report.history.iter().map(|it| it.more.len()).sum();
    assert_eq!(report.bad_traces, 2 + more);
    assert!(report.history.iter().all(|it| !it.proposal.is_empty()), "each iteration proposed a candidate");
    assert!(report.states_explored > report.original_states, "candidates were checked");
}

#[test]
fn time_limit_is_reported_as_the_time_limit() {
    let original = program("paper1");
    let report = Repair::new().time_limit(Some(Duration::ZERO)).run(&original).unwrap();
    common_figures(&report, &original);
    assert_eq!(report.stop, StopReason::TimeLimit);
    assert_eq!(report.iterations, 0);
}

#[test]
fn bound_reached_on_the_original() {
    let original = program("paper1");
    let report = Repair::new().checker(paces::explore::Config::new().max_states(2)).run(&original).unwrap();
    common_figures(&report, &original);
    let StopReason::BoundReached(hit) = &report.stop else { panic!("{}", report.stop) };
    assert_eq!(hit.to_string(), "state bound");
    assert_eq!(report.stop.bound(), Some(paces::explore::Bound::States));
    assert_eq!(report.iterations, 0);
    assert_eq!(report.states_explored, report.original_states);
}

/// A good-trace search cut short by a bound says so; with no bound hit the list is empty.
#[test]
fn a_good_trace_search_cut_by_a_bound_is_recorded() {
    let original = program("paper1");
    let report = Repair::new().run(&original).unwrap();
    assert!(report.good_search_bounds.is_empty(), "{:?}", report.good_search_bounds);
    let short = paces::explore::GoodConfig::new().max_len(3);
    let report = Repair::new().good_traces(short.clone()).run(&original).unwrap();
    common_figures(&report, &original);
    assert_eq!(report.good_traces, 0);
    assert_eq!(report.good_search_bounds, [paces::explore::GoodBound::Length]);
    let bad_only = Repair::new().mode(Mode::BadOnly).good_traces(short).run(&original).unwrap();
    assert!(bad_only.good_search_bounds.is_empty(), "bad-only mode searches for no good trace");
}

/// A division by zero is named as one in the iteration that learned from it.
#[test]
fn a_division_by_zero_is_named_in_the_history() {
    let original = parse("var x = 0, y = 1; thread a { A: x := 1; } thread b { B: y := 10 / x; }");
    let report = Repair::new().run(&original).unwrap();
    assert_eq!(report.history[0].problem.to_string(), "division by zero at `B`");
    let division = paces::FailureKind::DivisionByZero;
    assert_eq!(report.history[0].problem, paces::Problem::Failure { at: Some("B".to_owned()), kind: division });
}

/// By default a deadlock of the original is a bug: the removal phase learns from its trace,
/// and a deadlock no change removes is kept, with the reason, never "already correct" (said
/// before any learning when the deadlock needs no other thread's interleaving).
#[test]
fn a_deadlock_of_the_original_is_a_bug_by_default() {
    let original = parse(
        "var a = 0, b = 0; thread t1 { a1: lock(a); b1: lock(b); unlock(b); unlock(a); } \
         thread t2 { b2: lock(b); a2: lock(a); unlock(a); unlock(b); }",
    );
    let report = Repair::new().run(&original).unwrap();
    assert_eq!(report.stop, StopReason::Repaired);
    assert_eq!(report.history[0].kind(), paces::IterationKind::Deadlock);
    assert_eq!(report.history[0].problem.to_string(), "deadlock of the original: t1 at b1, t2 at a2");
    let fates: Vec<String> = report.deadlock_fates.iter().map(|d| format!("{}: {}", d.fate, d.deadlock)).collect();
    assert_eq!(fates, ["removed: t1 at b1, t2 at a2"]);
    assert!(!report.bug_remains());
    let original = parse("var x = 0; thread a { A: await(x == 1); } thread b { B: x := 0; }");
    let report = Repair::new().run(&original).unwrap();
    assert_eq!(report.stop, StopReason::NoRepair(paces::NoRepair::DeadlocksStay));
    assert!(report.stop.to_string().contains("no program of the space removes its deadlocks"), "{}", report.stop);
    let fates: Vec<String> = report.deadlock_fates.iter().map(|d| format!("{}: {}", d.fate, d.deadlock)).collect();
    let why = "kept: every program of the space keeps it: after `b` ran to its end, `a` alone waits at `A` for good";
    assert_eq!(fates, [format!("{why}: a at A, b done")]);
    assert!(report.bug_remains());
    assert!(!report.keep_deadlocks);
    assert!(report.repaired.is_none());
    assert!(report.history.is_empty());
    let original: Vec<String> = report.original_deadlocks.iter().flatten().map(ToString::to_string).collect();
    assert_eq!(original, ["a at A, b done"]);
}
