//! Good traces for learning: every trace is good and valid, classes are distinct, the
//! preemption-free and sequential traces are there, assertions are passed with distinct
//! writers, and the result is deterministic.

use std::collections::BTreeSet;

use paces_explore::{good_traces, search_good_traces, GoodBound, GoodConfig};
use paces_trace::EventKind;

fn heldin(name: &str) -> paces_cwhile::Program {
    paces_cwhile::parse(paces_heldin::source(name)).unwrap()
}

#[test]
fn figure7_good_traces() {
    let p = paces_cwhile::parse(
        "var x = 0, y = 0, z = 0;
         thread t1 { 1: await(x == 1); 2: await(y == 1); 3: assert(z == 1); }
         thread t2 { A: x := 1; B: y := 1; C: z := 1; }
         thread t3 { n: await(z == 1); p: assert(y == 1); }",
    )
    .unwrap();
    let traces = good_traces(&p, &GoodConfig::new()).unwrap();
    assert!(!traces.is_empty());
    for t in &traces {
        assert!(!t.is_bad());
        // Complete: every thread took its last statement.
        let last: BTreeSet<&str> = t.events().iter().map(|e| p.loc_names[e.loc.index()].as_str()).collect();
        assert!(last.contains("3") && last.contains("C") && last.contains("p"), "{last:?}");
    }
    // Assertion 3 is passed reading z from C (the only writer that makes it pass).
    let passes_3 = traces.iter().any(|t| {
        t.events().iter().any(|e| e.kind == EventKind::Assert && p.loc_names[e.loc.index()] == "3" && !e.failed)
    });
    assert!(passes_3);
    // Deterministic.
    assert_eq!(traces, good_traces(&p, &GoodConfig::new()).unwrap());
}

#[test]
fn sequential_and_preemption_free_only() {
    let p = paces_cwhile::parse("var x = 0; thread a { A: x := x + 1; B: x := x + 1; } thread b { C: x := x * 2; }")
        .unwrap();
    let seq = good_traces(&p, &GoodConfig::new().preemption_free(false).assertions(false)).unwrap();
    // Two orders, two reads-from classes.
    assert_eq!(seq.len(), 2);
    let pf = good_traces(&p, &GoodConfig::new().sequential(false).assertions(false)).unwrap();
    // No awaits: preemption-free traces are the sequential ones.
    assert_eq!(pf.len(), 2);
    let all = good_traces(&p, &GoodConfig::new()).unwrap();
    assert!(all.len() >= 2);
}

#[test]
fn heldin_programs_give_bounded_good_traces() {
    for name in ["ex1", "ex4", "dv1394", "usb-serial", "rtl8169"] {
        let p = heldin(name);
        let config = GoodConfig::new().max_traces(50).max_steps(20_000);
        let traces = good_traces(&p, &config).unwrap();
        assert!(traces.len() <= 50, "{name}");
        assert!(traces.iter().all(|t| !t.is_bad()), "{name}");
    }
}

/// A program whose threads never all finish still has good traces: the paths that cannot
/// go on (here `b` waits for good), unless `stuck` is off.
#[test]
fn stuck_paths_are_good_traces_of_a_program_without_complete_runs() {
    let p = paces_cwhile::parse(
        "var x = 0, y = 0;
         thread a { A: x := 1; B: assert(x == 1); }
         thread b { C: await(y == 1); D: x := 2; }",
    )
    .unwrap();
    let none = good_traces(&p, &GoodConfig::new().stuck(false)).unwrap();
    assert!(none.is_empty());
    let traces = good_traces(&p, &GoodConfig::new()).unwrap();
    assert!(!traces.is_empty());
    for t in &traces {
        assert!(!t.is_bad());
        let labels: Vec<&str> = t.events().iter().map(|e| p.loc_names[e.loc.index()].as_str()).collect();
        // `b` never passes its await; `a` runs to its end.
        assert_eq!(labels, ["A", "B"]);
    }
}

/// A time bound already passed stops each search at its first check of the clock, so fewer
/// traces come back than without one (rtl8169 has over a hundred).
#[test]
fn a_passed_time_bound_stops_the_searches() {
    let program = heldin("rtl8169");
    let all = good_traces(&program, &GoodConfig::new()).unwrap();
    let cut = good_traces(&program, &GoodConfig::new().max_time(Some(std::time::Duration::ZERO))).unwrap();
    assert!(cut.len() < all.len(), "{} traces with the bound, {} without", cut.len(), all.len());
    assert!(cut.iter().all(|t| !t.is_bad()));
}

/// Two threads of 250 assignments each: every complete trace is longer than the length bound
/// (500), so the search finds no trace and says which bound it hit; with 240 each it finds
/// some.
#[test]
fn a_search_cut_by_a_bound_says_so() {
    let long = |n: usize| {
        let body = |v: &str| (0..n).map(|i| format!("{v} := {i}; ")).collect::<String>();
        let src = format!("var x = 0, y = 0; thread a {{ {} }} thread b {{ {} }}", body("x"), body("y"));
        paces_cwhile::parse(&src).unwrap()
    };
    let cut = search_good_traces(&long(251), &GoodConfig::new()).unwrap();
    assert!(cut.traces.is_empty());
    assert!(cut.bounds.contains(&GoodBound::Length), "{:?}", cut.bounds);
    let fits = search_good_traces(&long(240), &GoodConfig::new()).unwrap();
    assert!(!fits.traces.is_empty());
    assert!(!fits.bounds.contains(&GoodBound::Length), "{:?}", fits.bounds);
    let few = search_good_traces(&heldin("paper1"), &GoodConfig::new().max_traces(1)).unwrap();
    assert_eq!(few.traces.len(), 1);
    assert!(few.bounds.contains(&GoodBound::Traces), "{:?}", few.bounds);
    let late =
        search_good_traces(&heldin("rtl8169"), &GoodConfig::new().max_time(Some(std::time::Duration::ZERO))).unwrap();
    assert!(late.bounds.contains(&GoodBound::Time), "{:?}", late.bounds);
    assert!(!late.bounds.contains(&GoodBound::Steps), "{:?}", late.bounds);
}
