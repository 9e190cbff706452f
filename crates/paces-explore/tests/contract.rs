//! Programs on which the checker once departed from the language's contract, each compared
//! with the brute-force interpreter (`paces_testkit::diff::compare`: every configuration of
//! the checker, witnesses replayed) and with the answer written out.

use paces_explore::{check, Config, Verdict};
use paces_testkit::diff::{compare, deadlock_text, Options, SpinUse};
use paces_testkit::gen::{Cond, Ex, Prog, St};
use paces_testkit::interp::{interpret, Code};

fn no_disagreement(prog: &Prog, limit: usize) {
    let report = compare(prog, Options { limit, spin: false });
    let found: Vec<String> = report.disagreements.iter().map(|d| format!("{}: {}", d.kind.name(), d.detail)).collect();
    assert!(found.is_empty(), "{}\n{}", found.join("\n"), report.text);
}

/// The deadlocks the interpreter finds, as the checker prints them.
fn deadlocks(prog: &Prog) -> Vec<String> {
    let outcome = interpret(&Code::new(prog), 100_000);
    assert!(outcome.complete);
    outcome.deadlocks.iter().map(deadlock_text).collect()
}

/// A thread that may finish by leaving a `while (*)` loop at its end: the other thread then
/// waits forever.
fn leaves_a_final_loop() -> Prog {
    Prog {
        threads: vec![
            vec![St::Assign(0, Ex::Const(2)), St::WhileStar(vec![St::Atomic(None, vec![St::Assign(0, Ex::Const(1))])])],
            vec![St::Atomic(Some(Cond::Eq(1, 2)), vec![St::Skip])],
        ],
        proc_body: vec![St::Skip],
    }
}

#[test]
fn a_thread_leaving_its_final_loop_deadlocks_the_waiting_one() {
    let prog = leaves_a_final_loop();
    assert_eq!(deadlocks(&prog), ["t0 done, t1 at L6"], "{}", Code::new(&prog).text());
    no_disagreement(&prog, 100_000);
}

/// SPIN agrees on the program of the issue itself: its export has an invalid end state, and
/// the checker finds the deadlock, with the reduction and without.
#[test]
fn spin_agrees_that_leaving_a_final_loop_deadlocks() {
    let text = "var b = 0;
        thread t0 { local r = 0; r := 3; while (*) { L1: atomic { L2: r := 1; } } }
        thread t1 { A: atomic { await(b > 3); skip; } }";
    let program = paces_cwhile::parse(text).expect("parses");
    for por in [true, false] {
        let r = check(&program, &Config::new().stop_at_first_failure(false).por(por)).expect("checks");
        let found: Vec<String> = r.deadlocks.keys().map(ToString::to_string).collect();
        assert_eq!(found, ["t0 done, t1 at A"], "por {por}");
    }
    if !paces_testkit::spin::available_for_test() {
        return;
    }
    let model = paces_cwhile::to_promela(&program, text).expect("exports");
    assert_eq!(paces_testkit::spin::verdicts(&model), Ok((Some(false), Some(true))), "{model}");
    // By name too: t0 stopped after leaving its loop (its process ended), t1 waiting.
    let spin = paces_testkit::spin::deadlocks(&model).expect("SPIN runs").expect("SPIN answers");
    let named: Vec<String> = spin.iter().map(deadlock_text).collect();
    assert_eq!(named, ["t0 done, t1 at A"], "{model}");
    let with_spin = compare(&leaves_a_final_loop(), Options { limit: 100_000, spin: true });
    assert!(with_spin.disagreements.is_empty(), "{}", with_spin.text);
}

/// `assume` inside an atomic block waits as `await` does: no path gets through, so the thread
/// waits before the block; both threads wait forever.
fn assume_in_atomic() -> Prog {
    Prog {
        threads: vec![
            vec![St::Await(Cond::Eq(0, 2))],
            vec![St::Atomic(None, vec![St::Assume(Cond::Eq(0, 1)), St::Skip])],
        ],
        proc_body: vec![St::Skip],
    }
}

#[test]
fn a_false_assume_inside_an_atomic_block_waits() {
    let prog = assume_in_atomic();
    assert_eq!(deadlocks(&prog), ["t0 at L2, t1 at L3"], "{}", Code::new(&prog).text());
    no_disagreement(&prog, 100_000);
}

/// A thread that can run forever without repeating a state beside a failure three steps deep.
fn ticker_beside_a_shallow_failure() -> Prog {
    Prog {
        threads: vec![
            vec![St::WhileStar(vec![St::Tick])],
            vec![St::Assign(0, Ex::Const(1)), St::Assign(2, Ex::Const(1))],
            vec![St::Await(Cond::Eq(0, 1)), St::Assert(Cond::Eq(2, 1))],
        ],
        proc_body: vec![St::Skip],
    }
}

#[test]
fn a_thread_running_forever_does_not_hide_a_shallow_failure() {
    let prog = ticker_beside_a_shallow_failure();
    let outcome = interpret(&Code::new(&prog), 2_000);
    assert!(!outcome.complete && outcome.failures.contains("L7"), "{outcome:?}");
    no_disagreement(&prog, 2_000);
    // The reduced search's witness is no longer than the unreduced one's.
    let program = paces_cwhile::parse(&Code::new(&prog).text()).unwrap();
    let with = check(&program, &Config::new().max_states(10_000)).unwrap();
    let without = check(&program, &Config::new().max_states(10_000).por(false)).unwrap();
    let (Verdict::Bad(a), Verdict::Bad(b)) = (&with.verdict, &without.verdict) else {
        panic!("por: {}, no por: {}", with.verdict, without.verdict)
    };
    assert!(
        a.schedule.steps.len() <= b.schedule.steps.len(),
        "{} > {}",
        a.schedule.steps.len(),
        b.schedule.steps.len()
    );
}

/// A thread whose only way on is a wait, beside a loop exit that starts with a false
/// `assume`: `t2` waits at the lock `t0` holds while `t0` waits for `x == 1`; it is blocked,
/// not cut, so every thread is blocked.
fn wait_beside_an_impossible_exit() -> Prog {
    Prog {
        threads: vec![
            vec![St::Locked(vec![St::Await(Cond::Eq(0, 1))])],
            vec![St::Locked(Vec::new())],
            vec![St::WhileStar(vec![St::Locked(Vec::new())]), St::Assume(Cond::Eq(0, 1))],
        ],
        proc_body: vec![St::Skip],
    }
}

#[test]
fn a_wait_beside_an_impossible_exit_is_a_deadlock() {
    let prog = wait_beside_an_impossible_exit();
    let text = Code::new(&prog).text();
    assert_eq!(deadlocks(&prog), ["t0 at L3, t1 done, t2 at L8", "t0 at L3, t1 at L5, t2 at L8"], "{text}");
    no_disagreement(&prog, 100_000);
    let program = paces_cwhile::parse(&text).unwrap();
    for por in [true, false] {
        let r = check(&program, &Config::new().stop_at_first_failure(false).por(por)).unwrap();
        let found: Vec<String> = r.deadlocks.keys().map(ToString::to_string).collect();
        assert_eq!(found, ["t0 at L3, t1 done, t2 at L8", "t0 at L3, t1 at L5, t2 at L8"], "por {por}");
    }
    // The export gives SPIN the same deadlocks, by name.
    if !paces_testkit::spin::available_for_test() {
        return;
    }
    let model = paces_cwhile::to_promela(&program, &text).expect("exports");
    let spin = paces_testkit::spin::deadlocks(&model).expect("SPIN runs").expect("SPIN answers");
    let named: Vec<String> = spin.iter().map(deadlock_text).collect();
    assert_eq!(named, ["t0 at L3, t1 done, t2 at L8", "t0 at L3, t1 at L5, t2 at L8"], "{model}");
    let with_spin = compare(&prog, Options { limit: 100_000, spin: true });
    assert!(with_spin.disagreements.is_empty(), "{:?}\n{}", with_spin.disagreements, with_spin.text);
    assert_eq!(with_spin.spin, SpinUse::Compared);
}

/// The interpreter's answers on the three programs, which the tests above rely on.
#[test]
fn the_interpreter_answers_the_three_programs() {
    assert_eq!(deadlocks(&leaves_a_final_loop()), ["t0 done, t1 at L6"]);
    assert_eq!(deadlocks(&assume_in_atomic()), ["t0 at L2, t1 at L3"]);
    let outcome = interpret(&Code::new(&ticker_beside_a_shallow_failure()), 2_000);
    assert!(!outcome.complete && outcome.failures.contains("L7"), "{outcome:?}");
}

/// The program of the issue as written, with labels: the checker finds the two deadlocks,
/// and SPIN on its export finds the same two, by name.
#[test]
fn the_issues_program_deadlocks_alike_for_the_checker_and_spin() {
    let text = "var m = 0, stop = 0;
        thread holder { H1: lock(m); H2: await(stop == 1); }
        thread waiter { W1: lock(m); }
        thread poller { P0: while (*) { P1: lock(m); P2: unlock(m); } P3: assume(stop == 1); }";
    let program = paces_cwhile::parse(text).expect("parses");
    let want = ["holder at H1, waiter done, poller at P1", "holder at H2, waiter at W1, poller at P1"];
    for por in [true, false] {
        let r = check(&program, &Config::new().stop_at_first_failure(false).por(por)).expect("checks");
        let found: Vec<String> = r.deadlocks.keys().map(ToString::to_string).collect();
        assert_eq!(found, want, "por {por}");
    }
    if !paces_testkit::spin::available_for_test() {
        return;
    }
    let model = paces_cwhile::to_promela(&program, text).expect("exports");
    let spin = paces_testkit::spin::deadlocks(&model).expect("SPIN runs").expect("SPIN answers");
    let named: Vec<String> = spin.iter().map(deadlock_text).collect();
    let mut want: Vec<String> = want.iter().map(|d| (*d).to_owned()).collect();
    want.sort();
    assert_eq!(named, want, "{model}");
}
