//! Verdicts that are easy to get wrong: a shallow failure behind a thread that can run
//! forever, and a false `assume` inside an atomic block, which waits like an `await`.

use paces_explore::{check, CheckResult, Config, Verdict};

#[track_caller]
fn run(src: &str, config: Config) -> CheckResult {
    let program = paces_cwhile::parse(src).unwrap_or_else(|e| panic!("parse failed: {e:?}"));
    check(&program, &config).expect("check")
}

fn deadlocks(r: &CheckResult) -> Vec<String> {
    r.deadlocks.keys().map(ToString::to_string).collect()
}

/// The labels of a counterexample's steps.
fn labels(r: &CheckResult) -> Vec<String> {
    let cex = r.verdict.counterexample().unwrap_or_else(|| panic!("no counterexample: {}", r.verdict));
    cex.schedule.steps.iter().map(|s| s.label.clone()).collect()
}

/// A thread that can run forever without repeating a state must not starve the others: the
/// failure three steps deep is found, not the state bound.
#[test]
fn a_thread_that_runs_forever_does_not_hide_a_shallow_failure() {
    let src = "var x = 0, ready = 0, data = 0;
        thread ticker { while (*) { x := x + 1; } }
        thread prod { p1: ready := 1; p2: data := 1; }
        thread cons { c1: await(ready == 1); c2: assert(data == 1); }";
    let r = run(src, Config::new().max_states(100_000));
    assert!(matches!(r.verdict, Verdict::Bad(_)), "{}", r.verdict);
    assert_eq!(labels(&r).last().map(String::as_str), Some("c2"));
    let unreduced = run(src, Config::new().max_states(100_000).por(false));
    let (n, m) = (labels(&r).len(), labels(&unreduced).len());
    assert!(n <= m, "{n} steps against {m}; {} states", r.states);
}

/// The same with the loop bounded: the counterexample is as short as without the reduction.
#[test]
fn a_long_running_thread_does_not_lengthen_the_counterexample() {
    let src = "var x = 0, ready = 0, data = 0;
        thread ticker { while (x < 100000) { x := x + 1; } }
        thread prod { p1: ready := 1; p2: data := 1; }
        thread cons { c1: await(ready == 1); c2: assert(data == 1); }";
    let r = run(src, Config::new());
    let unreduced = run(src, Config::new().por(false));
    assert!(matches!(r.verdict, Verdict::Bad(_)), "{}", r.verdict);
    let (n, m) = (labels(&r).len(), labels(&unreduced).len());
    assert!(n <= m && n <= 10, "{n} steps against {m}; {} states", r.states);
}

/// A false `assume` inside an atomic block makes its thread wait before the block, as a false
/// `await` does: both threads wait forever.
#[test]
fn a_false_assume_inside_an_atomic_block_waits() {
    for cond in ["assume(c == 2)", "await(c == 2)"] {
        let src = format!(
            "var c = 1;
             thread t0 {{ L1: await(c == 5); }}
             thread t1 {{ L5: atomic {{ {cond}; skip; }} }}"
        );
        for por in [true, false] {
            let r = run(&src, Config::new().stop_at_first_failure(false).por(por));
            assert_eq!(deadlocks(&r), ["t0 at L1, t1 at L5"], "{cond}, por {por}");
        }
    }
}

/// A block that some path gets through is taken along that path; a path stopped by a false
/// `assume` is only dropped.
#[test]
fn a_false_assume_on_one_path_of_a_block_drops_that_path() {
    let src = "var c = 1, d = 0;
        thread t0 { A: atomic { if (*) { assume(c == 2); d := 1; } else { d := 2; } } B: assert(d == 2); }";
    let r = run(src, Config::new().stop_at_first_failure(false));
    assert!(matches!(r.verdict, Verdict::Correct), "{}", r.verdict);
    assert!(r.deadlocks.is_empty());
}

/// A thread that may finish by leaving its final `while (*)` loop at once leaves the other
/// thread waiting forever: a deadlock (t0 done, t1 at its block), with the reduction and
/// without, stopping at the first failure or not. With `if (*)` in place of the loop too.
#[test]
fn a_thread_that_may_leave_its_final_loop_deadlocks_the_waiting_one() {
    for kind in ["while", "if"] {
        let src = format!(
            "var b = 0;
             thread t0 {{ local r = 0; r := 3; {kind} (*) {{ L1: atomic {{ L2: r := 1; }} }} }}
             thread t1 {{ A: atomic {{ await(b > 3); skip; }} }}"
        );
        for por in [true, false] {
            let all = run(&src, Config::new().stop_at_first_failure(false).por(por));
            assert_eq!(deadlocks(&all), ["t0 done, t1 at A"], "{kind}, por {por}");
            let first = run(&src, Config::new().por(por));
            assert!(matches!(first.verdict, Verdict::Deadlock(..)), "{kind}, por {por}: {}", first.verdict);
        }
    }
}

/// A thread that may stop where it can finish, between steps it would take alone: the state
/// where it stops is not skipped by merging (its private step, then a wait it never passes,
/// follow a point where it can finish).
#[test]
fn a_thread_may_stop_before_its_private_steps() {
    let src = "var x = 0, b = 0;
        thread t0 { local r = 0; x := 1; if (*) { r := 1; W: await(r == 2); } }
        thread t1 { y1: x := 2; A: await(b == 1); }";
    for por in [true, false] {
        let all = run(src, Config::new().stop_at_first_failure(false).por(por));
        assert_eq!(deadlocks(&all), ["t0 done, t1 at A", "t0 at W, t1 at A"], "por {por}");
    }
}

/// A check that does not stop at deadlocks goes through the whole space and collects them all,
/// its verdict correct; one that wants some deadlocks stops once it met them all, and goes
/// through the whole space when the program does not reach them all.
#[test]
fn deadlocks_passed_by_and_wanted() {
    let src = "var b = 0, c = 0, y = 0;
        thread t0 { A: await(b == 1); }
        thread t1 { if (*) { y := 1; B: await(c == 1); } }";
    let all = run(src, Config::new().stop_at_first_failure(false));
    let ids: Vec<_> = all.deadlocks.keys().cloned().collect();
    assert_eq!(deadlocks(&all), ["t0 at A, t1 done", "t0 at A, t1 at B"]);
    let passed = run(src, Config::new().stop_at_deadlocks(false));
    assert!(matches!(passed.verdict, Verdict::Correct), "{}", passed.verdict);
    assert_eq!(deadlocks(&passed), deadlocks(&all));
    assert_eq!(passed.states, all.states);
    let wanted = |ids: &[paces_explore::DeadlockId]| Some(std::sync::Arc::new(ids.iter().cloned().collect()));
    for one in [&ids[..1], &ids[1..]] {
        let r = run(src, Config::new().wanted_deadlocks(wanted(one)));
        match &r.verdict {
            Verdict::Deadlock(id, _) => assert_eq!(id, &one[0]),
            v => panic!("{v}"),
        }
    }
    // A deadlock the program does not reach: the whole space, every deadlock, correct.
    let other = run("var b = 0; thread t0 { C: await(b == 1); } thread t1 { D: await(b == 1); }", Config::new());
    let Verdict::Deadlock(absent, _) = &other.verdict else { panic!("{}", other.verdict) };
    let mut more = ids.clone();
    more.push(absent.clone());
    let only = || Config::new().find(paces_explore::FailureKinds::DEADLOCKS).unmerged_states(0).unreduced_states(0);
    // Hunted depth first first (with room for two states or for many), alike.
    for hunt in [0, 2, 10_000] {
        let r = run(src, only().hunt_states(hunt).wanted_deadlocks(wanted(&more)));
        assert!(matches!(r.verdict, Verdict::Correct), "{}", r.verdict);
        assert_eq!(deadlocks(&r), deadlocks(&all));
        for one in [&ids[..1], &ids[1..], &ids[..]] {
            let r = run(src, only().hunt_states(hunt).wanted_deadlocks(wanted(one)));
            let Verdict::Deadlock(id, w) = &r.verdict else { panic!("{}", r.verdict) };
            assert!(one.contains(id), "{id}");
            assert!(w.trace.events().iter().all(|e| !e.failed), "a run to the deadlock");
            assert!(one.iter().all(|id| r.deadlocks.contains_key(id)));
            assert!(r.deadlocks.keys().all(|id| ids.contains(id)));
        }
    }
}

/// Two threads that end in `while (*)` loops over their private variables (one of them an
/// unbounded counter): a merged run of private steps ends where it comes back to the loop's
/// head (it went its full 10,000 steps, and a search of 2,000 states took minutes). Found by
/// `cargo xtask differential` (seed 7, program 1179).
#[test]
fn private_loops_at_the_threads_ends_do_not_stall_the_search() {
    let src = "var x = 0, y = 0, z = 0, m = 0, s = 1, w = 0;
        proc f { L1: y := (z + 1) % 3; }
        thread t0 { L2: while (*) { L3: w := w + 1; } }
        thread t1 {
          L4: x := 0; L5: x := y; L6: lock(m); L7: unlock(m);
          L8: while (*) { L9: assert((x == 1) && (x == 1)); L10: z := 1; }
        }";
    let config = Config::new().stop_at_first_failure(false).max_states(2_000);
    let r = run(src, config.max_time(Some(std::time::Duration::from_secs(30))));
    assert_ne!(r.bound, Some(paces_explore::Bound::Time), "{}", r.verdict);
    assert!(matches!(r.verdict, Verdict::Bad(_)), "{}", r.verdict);
}

/// The searches the two tests below try: with and without the search without merging first,
/// and with and without the bug hunt.
const SEARCHES: [(usize, usize); 4] = [(0, 0), (10_000, 0), (0, 50_000), (10_000, 50_000)];

/// The start of the two tests' programs: `t0` takes one step, then goes round a loop over its
/// own counter forever inside a procedure whose end waits for good.
const COUNTING_T0: &str = "var x = 0, y = 0, z = 0, s = 1, w = 0;
    proc f { L1: while (*) { L2: w := w + 1; } L3: await((z != 0) && (z == 0)); }
    thread t0 { L4: y := (x + 1) % 3; L5: f(); }";

/// The failure at `L22` of [`COUNTING_T0`] followed by `threads` is found by every search
/// within `bound` states, each search after a search without the reduction of up to
/// `unreduced` states; the counterexamples, one per search.
#[track_caller]
fn finds_l22_within(bound: usize, unreduced: usize, threads: &str) -> Vec<Vec<String>> {
    let src = format!("{COUNTING_T0}\n{threads}");
    let mut found = Vec::new();
    for (unmerged, hunt) in SEARCHES {
        let config =
            Config::new().max_states(bound).unmerged_states(unmerged).hunt_states(hunt).unreduced_states(unreduced);
        let r = run(&src, config);
        assert!(matches!(r.verdict, Verdict::Bad(_)), "unmerged {unmerged}, hunt {hunt}: {}", r.verdict);
        assert_eq!(labels(&r).last().map(String::as_str), Some("L22"));
        found.push(labels(&r));
    }
    found
}

/// [`COUNTING_T0`] beside a thread whose failure needs `t0`'s first step: the failure lies on a
/// transition that only the full expansion of a row's origin takes (fairness in depth), and
/// what that expansion finds is reported; the merged search finds it after about 44,000
/// states (the unreduced one after 16), here with no search without the reduction first.
/// Found by `cargo xtask differential` (seed 11, program 71954, shrunk).
#[test]
fn a_failure_on_the_full_expansion_of_a_rows_origin_is_reported() {
    finds_l22_within(
        100_000,
        0,
        "thread t1 {
          L10: if (*) { L15: x := (y >> 0) % 3; L22: assert((x == 0) && (x != 2)); L25: y := (x + 1) % 3; }
          L30: while (*) { L31: await((y == 1) && (z != 1)); L34: up(s); }
        }",
    );
}

/// The same program shrunk another way: two threads go round loops that never repeat a state
/// (a counter, a semaphore raised for good), and the row of reduced expansions started before
/// the first one's step that the failure needs, so the failing thread gets a step only every
/// 256 levels of rows that fork at every level: the reduced searches alone store more than
/// 100,000,000 states first. The search without the reduction that follows a search without
/// merging cut at its bound finds it, with a counterexample as short as the unreduced
/// search's (docs/explore.md, "Fairness in depth").
#[test]
fn two_loops_that_never_repeat_a_state_do_not_hide_a_shallow_failure() {
    let threads = "thread t1 { L10: if (*) { L15: x := (y >> 0) % 3; L22: assert((x == 0) && (x != 2)); } }
        thread t2 { L30: while (*) { L33: z := (z | 1) % 3; L34: up(s); } }";
    let found = finds_l22_within(8_000, Config::DEFAULT_UNREDUCED_STATES, threads);
    let src = format!("{COUNTING_T0}\n{threads}");
    let shortest = labels(&run(&src, Config::new().max_states(8_000).por(false)));
    for cex in found {
        assert!(cex.len() <= shortest.len(), "{cex:?} against {shortest:?}");
    }
    // Without it, the reduced searches store their 8,000 states and find nothing.
    let starved = run(&src, Config::new().max_states(8_000).unreduced_states(0));
    assert!(matches!(starved.verdict, Verdict::BoundReached { .. }), "{}", starved.verdict);
    // A bounded search for every failure reports what it found too, with its witness, beside
    // the bound the later searches reached.
    let all = run(&src, Config::new().max_states(8_000).stop_at_first_failure(false));
    assert_eq!(all.bound, Some(paces_explore::Bound::States), "{}", all.verdict);
    let witness = all.failures.get("L22").unwrap_or_else(|| panic!("L22 not among {:?}", all.failures.keys()));
    assert_eq!(witness.schedule.len(), shortest.len());
    assert!(matches!(all.verdict, Verdict::Bad(_)), "{}", all.verdict);
}
