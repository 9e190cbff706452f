//! The check-then-act `if`, alone in its block in each of two threads: both spellings are
//! repaired by a section per thread, around the `if` alone or inside its branch.

mod common;

use common::check_accepted;
use paces::explore::{check, Config};
use paces::{Mode, Repair};

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

/// `if (b)` spelled as the language has it.
const GUARDED: &str = "var claimed = 0, owners = 0;
thread a { i: if (claimed == 0) { s: claimed := 1; o: owners := owners + 1; } x: assert(owners <= 1); }
thread b { j: if (claimed == 0) { t: claimed := 1; u: owners := owners + 1; } y: assert(owners <= 1); }
";

/// The same `if` spelled out with a nondeterministic choice and assumes.
const SPELLED_OUT: &str = "var claimed = 0, owners = 0;
thread a {
  i: if (*) { g: assume(claimed == 0); s: claimed := 1; o: owners := owners + 1; } else { n: assume(claimed != 0); }
  x: assert(owners <= 1);
}
thread b {
  j: if (*) { h: assume(claimed == 0); t: claimed := 1; u: owners := owners + 1; } else { m: assume(claimed != 0); }
  y: assert(owners <= 1);
}
";

/// Repairs `source` in mixed mode and checks the repair: accepted, free of failing
/// assertions, and made of one section per thread that holds the `if` alone (`[i; i]`) or
/// stands inside its branch.
#[track_caller]
fn repaired_by_a_section_per_thread(source: &str) -> Vec<String> {
    let p = paces::cwhile::parse(source).unwrap();
    let before = check(&p, &Config::new()).unwrap();
    assert!(!before.failures.is_empty(), "the original must fail");
    let report = Repair::new().mode(Mode::Mixed).run(&p).unwrap();
    check_accepted(&report);
    let text = report.repaired_text().unwrap();
    let after = check(&paces::cwhile::parse(&text).unwrap(), &Config::new().stop_at_first_failure(false)).unwrap();
    assert!(after.failures.is_empty(), "{text}");
    let space = &report.space;
    let candidate = report.candidate.as_ref().unwrap();
    let mut threads = Vec::new();
    for s in candidate.sections() {
        let (first, last) = (space.name(s.first), space.name(s.last));
        let alone = s.first == s.last && ["i", "j"].contains(&first);
        let top = |name: &str| space.block_of(space.loc(name).unwrap());
        let in_branch = s.block != top("i").unwrap() && s.block != top("j").unwrap();
        assert!(alone || in_branch, "[{first}; {last}] is neither the `if` alone nor inside a branch:\n{text}");
        threads.push(if ["i", "g", "s", "o"].contains(&first) { "a" } else { "b" });
    }
    threads.sort_unstable();
    assert_eq!(threads, ["a", "b"], "one section per thread:\n{text}");
    words(&report).clone()
}

#[test]
fn the_guarded_if_gets_a_section_around_it_alone() {
    let steps = repaired_by_a_section_per_thread(GUARDED);
    assert_eq!(steps, ["atomic [i; i]", "atomic [j; j]"]);
}

#[test]
fn the_spelled_out_if_gets_a_section_in_each_thread() {
    let steps = repaired_by_a_section_per_thread(SPELLED_OUT);
    // The assume and the set it guards, inside each branch (weight 2, cheaper than the `if`).
    assert_eq!(steps, ["atomic [g; s]", "atomic [h; t]"]);
}
