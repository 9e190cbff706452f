//! Twin threads: four and five workers running the same code on shared counters are repaired in a
//! number of iterations that does not grow with their pairs, at the cost of the repair found
//! without offering changes to twins.

use paces::{Repair, StopReason};

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

/// Four workers, each reading and updating two shared counters among private work, and a
/// thread that checks the totals once every worker is done.
fn workers(n: usize) -> String {
    let flags: Vec<String> = (1..=n).map(|i| format!("done{i} = 0")).collect();
    let mut text = format!("var total = 0, slots = 2, used = 0, {};\n", flags.join(", "));
    for i in 1..=n {
        text += &format!(
            "thread w{i} {{
  local p, t;
  a{i}: p := {i};
  b{i}: p := p * 2;
  c{i}: t := total;
  d{i}: total := t + 1;
  e{i}: p := p + 1;
  f{i}: if (slots > 0) {{ g{i}: slots := slots - 1; h{i}: used := used + 1; }}
  k{i}: p := p - 1;
  m{i}: done{i} := 1;
}}
"
        );
    }
    let all: Vec<String> = (1..=n).map(|i| format!("done{i} == 1")).collect();
    text += &format!(
        "thread check {{\n  x: await({});\n  y: assert(total == {n});\n  z: assert(used <= 2 && slots >= 0);\n}}\n",
        all.join(" && ")
    );
    text
}

#[test]
fn four_workers_on_shared_counters_take_few_iterations() {
    let program = paces::cwhile::parse(&workers(4)).unwrap();
    let report = Repair::new().run(&program).unwrap();
    assert_eq!(report.stop, StopReason::Repaired);
    assert!(report.iterations <= 15, "{} iterations", report.iterations);
    assert_sections_per_race_and_worker(&report, 4);
}

/// Both races in each of the `n` workers: a section over `t := total; total := t + 1` and one
/// over the `if`, and nothing else.
fn assert_sections_per_race_and_worker(report: &paces::Report, n: usize) {
    let mut steps = words(report).clone();
    steps.sort();
    let mut expected: Vec<String> =
        (1..=n).flat_map(|i| [format!("atomic [c{i}; d{i}]"), format!("atomic [f{i}; f{i}]")]).collect();
    expected.sort();
    assert_eq!(steps, expected);
}

/// Five workers: the check thread's assertions run after every worker is done, deep in the
/// state space. The original's first check hunts depth first after its unmerged search, so it
/// stores at most the states of both (breadth first it stores 242,633); a worker changed for
/// one race and another for the other make one candidate with both sections in every worker
/// (every pattern at once), so the loop takes two iterations.
#[test]
fn a_deep_failure_of_the_original_is_hunted_and_both_races_spread_at_once() {
    let program = paces::cwhile::parse(&workers(5)).unwrap();
    let report = Repair::new().run(&program).unwrap();
    assert_eq!(report.stop, StopReason::Repaired);
    let bound = paces::explore::Config::DEFAULT_UNMERGED_STATES + Repair::DEFAULT_HUNT_STATES;
    assert!(report.original_states <= bound, "{} states in the original's check", report.original_states);
    assert!(report.iterations <= 3, "{} iterations", report.iterations);
    assert_sections_per_race_and_worker(&report, 5);
}

#[test]
fn twins_cost_no_more_than_the_loop_without_them() {
    for n in [2, 3] {
        let program = paces::cwhile::parse(&workers(n)).unwrap();
        let with = Repair::new().run(&program).unwrap();
        let without = Repair::new().twins(false).run(&program).unwrap();
        assert_eq!(with.stop, StopReason::Repaired);
        assert_eq!(without.stop, StopReason::Repaired);
        let cost = |r: &paces::Report| r.candidate.as_ref().unwrap().cost(&r.space);
        assert!(cost(&with) <= cost(&without), "{n} workers: {:?} > {:?}", cost(&with), cost(&without));
        assert!(with.iterations <= without.iterations, "{n} workers: {} > {}", with.iterations, without.iterations);
    }
}

/// `n` workers each add one to `total` by a read and a write and take the one slot by a
/// check-then-act, among private work; a thread that waits for them all checks both.
fn counter_and_slot(n: usize) -> String {
    let mut text = String::from("var total = 0, slots = 1, done = 0;\n");
    for i in 1..=n {
        text += &format!(
            "thread w{i} {{
  local t, p;
  p{i}: p := {i};
  r{i}: t := total;
  w{i}: total := t + 1;
  q{i}: p := p * 3;
  s{i}: if (slots > 0) {{ d{i}: slots := slots - 1; }}
  u{i}: p := p + 1;
  e{i}: done := done + 1;
}}
"
        );
    }
    text + &format!(
        "thread check {{\n  c1: await(done == {n});\n  c2: assert(total == {n});\n  c3: assert(slots >= 0);\n}}\n"
    )
}

/// The cheapest repair of [`counter_and_slot`] is a section per race and worker, with no
/// move; a repair that moves each write below the slot's check to put both races in one
/// section costs more. The optimisation phase asks first for the cheapest candidate whose
/// twins change alike, so it ends with the sections alone.
#[test]
fn the_optimisation_phase_finds_the_sections_the_twins_share() {
    let program = paces::cwhile::parse(&counter_and_slot(4)).unwrap();
    let report = Repair::new().run(&program).unwrap();
    assert_eq!(report.stop, StopReason::Repaired);
    let mut steps = words(&report).clone();
    steps.sort();
    let mut expected: Vec<String> =
        (1..=4).flat_map(|i| [format!("atomic [r{i}; w{i}]"), format!("atomic [s{i}; s{i}]")]).collect();
    expected.sort();
    assert_eq!(steps, expected);
}
