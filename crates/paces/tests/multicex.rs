//! Several counterexamples per check: a check that finds a failing assertion gives the loop a
//! bad trace of each other failing assertion too, and the loop learns from all of them before
//! it proposes again. Twins and races spread are off: they would answer the other races by
//! themselves.

use paces::{Repair, StopReason};

/// Two workers that each update two shared counters, and a thread that checks each counter
/// with its own assertion once both workers are done: a lost update of either counter fails
/// a different assertion.
const TWO_COUNTERS: &str = "var a = 0, b = 0, done = 0;
thread w1 {
  local r, s;
  p1: r := a;
  p2: a := r + 1;
  q1: s := b;
  q2: b := s + 1;
  e1: done := done + 1;
}
thread w2 {
  local r, s;
  p3: r := a;
  p4: a := r + 1;
  q3: s := b;
  q4: b := s + 1;
  e2: done := done + 1;
}
thread check {
  c0: await(done == 2);
  c1: assert(a == 2);
  c2: assert(b == 2);
}
";

#[test]
fn the_first_check_gives_a_trace_per_failing_assertion() {
    let program = paces::cwhile::parse(TWO_COUNTERS).unwrap();
    let report = Repair::new().twins(false).races(false).run(&program).unwrap();
    assert_eq!(report.stop, StopReason::Repaired);
    let first = &report.history[0];
    assert_eq!(first.kind().name(), "bad");
    // The first trace fails one assertion, the further one the other.
    let failed = first.schedule.get(first.failing.unwrap()).unwrap().clone();
    let other = if failed == "c1" { "`c2` fails" } else { "`c1` fails" };
    let more: Vec<String> = first.more.iter().map(ToString::to_string).collect();
    assert_eq!(more, vec![other.to_owned()], "{first:?}");
    let more: usize = report.history.iter().map(|i| i.more.len()).sum();
    assert_eq!(report.bad_traces, report.iterations + more);
}

#[test]
fn one_counterexample_per_check_learns_one_trace_per_iteration() {
    let program = paces::cwhile::parse(TWO_COUNTERS).unwrap();
    let one = Repair::new().twins(false).races(false).counterexamples(1).run(&program).unwrap();
    assert_eq!(one.stop, StopReason::Repaired);
    assert!(one.history.iter().all(|i| i.more.is_empty()), "{:?}", one.history);
    assert_eq!(one.bad_traces, one.iterations);
    // Learning from both failures at once takes fewer iterations, for a repair as cheap.
    let several = Repair::new().twins(false).races(false).run(&program).unwrap();
    assert!(several.iterations < one.iterations, "{} >= {}", several.iterations, one.iterations);
    let cost = |r: &paces::Report| r.candidate.as_ref().unwrap().cost(&r.space);
    assert_eq!(cost(&several), cost(&one));
}

/// Three workers that differ (private work of different lengths, the read and write of
/// `total` placed differently) and one assertion: a lost update between any two of them fails
/// it.
const THREE_WORKERS: &str = "var total = 0, done = 0;
thread w1 {
  local t, u;
  a1: t := total;
  a2: total := t + 1;
  a3: u := u + 1;
  a4: done := done + 1;
}
thread w2 {
  local t, u;
  b1: u := u + 2;
  b2: u := u + 3;
  b3: t := total;
  b4: total := t + 1;
  b5: done := done + 1;
}
thread w3 {
  local t, u;
  c1: u := u + 1;
  c2: t := total;
  c3: u := u + 4;
  c4: total := t + 1;
  c5: done := done + 1;
}
thread check {
  k1: await(done == 3);
  k2: assert(total == 3);
}
";

#[test]
fn other_threads_teach_the_race_through_every_pair() {
    let program = paces::cwhile::parse(THREE_WORKERS).unwrap();
    let plain = Repair::new().twins(false).races(false).other_threads(false).run(&program).unwrap();
    // One assertion: without other threads nothing more is looked for.
    assert!(plain.history.iter().all(|i| i.more.is_empty()), "{:?}", plain.history);
    let spread = Repair::new().twins(false).races(false).run(&program).unwrap();
    assert_eq!(spread.stop, StopReason::Repaired);
    // The first check gives further traces of the same assertion, through other threads.
    let first = &spread.history[0];
    let more: Vec<String> = first.more.iter().map(ToString::to_string).collect();
    assert!(!more.is_empty() && more.iter().all(|p| p == "`k2` fails"), "{more:?}");
    assert!(spread.iterations < plain.iterations, "{} >= {}", spread.iterations, plain.iterations);
    let cost = |r: &paces::Report| r.candidate.as_ref().unwrap().cost(&r.space);
    assert_eq!(cost(&spread), cost(&plain));
}
