//! Races spread: workers that differ (private work of different lengths, the racing
//! statements at different depths and places) lose updates the same way; the section one bad
//! trace asks for in one worker is offered to every worker that makes the same accesses, so
//! the repair takes a few iterations rather than one per pair of workers.

use paces::{Repair, StopReason};

/// Four workers that each add one to `hits` (a read and a write, with private work between
/// them in some) and three that take a slot if one is left (a check, then an act), laid out
/// differently, and a thread that checks the sum and the slots taken once all are done.
const WORKERS: &str = "var hits = 0, done = 0, noise = 0, slots = 2, taken = 0;
thread a {
  local r, p;
  a1: p := p + 1;
  a2: r := hits;
  a3: hits := r + 1;
  a5: if (slots > 0) { a6: slots := slots - 1; a7: taken := taken + 1; }
  a4: done := done + 1;
}
thread b {
  local r, p;
  b1: noise := noise + 1;
  b8: if (slots > 0) { b9: slots := slots - 1; b10: taken := taken + 1; }
  b2: p := p + 2;
  b3: p := p * 3;
  b4: r := hits;
  b5: p := p - 1;
  b6: hits := r + 1;
  b7: done := done + 1;
}
thread c {
  local r, p;
  c1: p := 4;
  c2: if (p > 0) {
    c3: r := hits;
    c4: hits := r + 1;
  }
  c6: p := p - 2;
  c7: if (slots > 0) { c8: slots := slots - 1; c9: taken := taken + 1; }
  c5: done := done + 1;
}
thread d {
  local r, p;
  d1: r := hits;
  d2: hits := r + 1;
  d3: p := r * 2;
  d4: noise := noise + 1;
  d5: done := done + 1;
}
thread check {
  x: await(done == 4);
  y: assert(hits == 4);
  z: assert(taken <= 2);
}
";

/// The sections of a report in words (`atomic [A; B]`), sorted.
fn sections(report: &paces::Report) -> Vec<String> {
    let mut out: Vec<String> = report
        .transformations
        .iter()
        .filter(|t| matches!(t, paces::constraint::Transformation::Atomic { .. }))
        .map(|t| t.display(&report.space).to_string())
        .collect();
    out.sort();
    out
}

#[test]
fn a_lost_update_in_workers_that_differ_is_repaired_in_few_iterations() {
    let program = paces::cwhile::parse(WORKERS).unwrap();
    let spread = Repair::new().run(&program).unwrap();
    assert_eq!(spread.stop, StopReason::Repaired);
    // Each worker's read and write of `hits` in one section, whatever lies between them, and
    // each check-then-act on `slots`.
    let expected = [
        "atomic [a2; a3]",
        "atomic [a5; a5]",
        "atomic [b4; b6]",
        "atomic [b8; b8]",
        "atomic [c3; c4]",
        "atomic [c7; c7]",
        "atomic [d1; d2]",
    ];
    assert_eq!(sections(&spread), expected);
    let one_by_one = Repair::new().races(false).run(&program).unwrap();
    assert_eq!(one_by_one.stop, StopReason::Repaired);
    assert!(
        spread.iterations < one_by_one.iterations,
        "spread: {} iterations, one pair at a time: {}",
        spread.iterations,
        one_by_one.iterations
    );
}

/// After two proposals in a row that move items and are rejected for the same failure, which
/// the check also finds through other threads, the loop guesses that the race needs
/// sections: its next proposal moves nothing.
#[test]
fn after_two_moves_that_miss_the_race_the_loop_guesses_sections() {
    let program = paces::cwhile::parse(WORKERS).unwrap();
    let report = Repair::new().run(&program).unwrap();
    assert_eq!(report.stop, StopReason::Repaired);
    let moves =
        |i: &paces::Iteration| i.proposal.iter().any(|t| matches!(t, paces::constraint::Transformation::Swap { .. }));
    let mut guessed = 0;
    for (k, i) in report.history.iter().enumerate().skip(2) {
        let before = &report.history[k - 2..k];
        if i.more.contains(&i.problem) && before.iter().all(|b| b.problem == i.problem && moves(b)) {
            assert!(!moves(i), "iteration {} still moves items: {:?}", k + 1, i.proposal);
            guessed += 1;
        }
    }
    assert!(guessed > 0, "the rule was met at least once on this program");
}
