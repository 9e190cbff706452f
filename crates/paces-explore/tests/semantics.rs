//! The checker's semantics on small Cwhile programs: failures, deadlocks, cuts, idle loops,
//! atomic blocks, locks, division by zero, livelocks, replay and rendering.

use paces_cwhile::ir::ThreadIdx;
use paces_explore::{
    check, replay, sequential_final_states, CheckResult, Config, ErrorKind, FailureKinds, Schedule, ScheduleStep,
    ThreadStand, Verdict,
};

#[track_caller]
fn run(src: &str, config: Config) -> (paces_cwhile::Program, CheckResult) {
    let program = paces_cwhile::parse(src).unwrap_or_else(|e| panic!("parse failed: {e:?}"));
    let r = check(&program, &config).expect("check");
    // Every counterexample replays to the same trace.
    for c in r
        .verdict
        .counterexample()
        .into_iter()
        .chain(r.deadlocks.values())
        .chain(r.failures.values())
        .chain(r.deadlocks_after_failure.values())
    {
        let t = replay(&program, &c.schedule).expect("replay");
        assert_eq!(t.events(), c.trace.events());
        if let Some(i) = c.failing_step {
            assert!(t.events()[i].failed);
        }
    }
    (program, r)
}

fn labels(p: &paces_cwhile::Program, s: &Schedule) -> String {
    s.steps.iter().map(|st| format!("{}:{}", p.threads[st.thread.index()].name, st.label)).collect::<Vec<_>>().join(" ")
}

#[test]
fn paper_figure7_bad_trace_is_shortest() {
    let (p, r) = run(
        "var x = 0, y = 0, z = 0;
         thread t1 { 1: await(x == 1); 2: await(y == 1); 3: assert(z == 1); }
         thread t2 { A: x := 1; B: y := 1; C: z := 1; }
         thread t3 { n: await(z == 1); p: assert(y == 1); }",
        Config::new().por(false),
    );
    let Verdict::Bad(c) = &r.verdict else { panic!("{r}") };
    assert_eq!(labels(&p, &c.schedule), "t2:A t1:1 t2:B t1:2 t1:3");
    assert_eq!(c.failing_step, Some(4));
    assert_eq!(r.failures.keys().cloned().collect::<Vec<_>>(), vec!["3".to_string()]);
}

#[test]
fn correct_program() {
    let (_, r) =
        run("var x = 0; thread a { A: x := 1; } thread b { B: await(x == 1); C: assert(x == 1); }", Config::new());
    assert_eq!(r.verdict, Verdict::Correct);
    assert!(r.deadlocks.is_empty());
}

#[test]
fn deadlock_found_with_identity() {
    let (_, r) = run(
        "var m = 0, n = 0;
         thread a { A1: lock(m); A2: lock(n); A3: unlock(n); A4: unlock(m); }
         thread b { B1: lock(n); B2: lock(m); B3: unlock(m); B4: unlock(n); }",
        Config::new().stop_at_first_failure(false),
    );
    let Verdict::Deadlock(id, c) = &r.verdict else { panic!("{r}") };
    // A thread waiting before a `lock` is identified by the lock's label.
    assert_eq!(id.to_string(), "a at A2, b at B2");
    assert_eq!(r.deadlocks.len(), 1);
    // The blocked awaits are part of the trace.
    assert_eq!(c.trace.blocked().len(), 2);
}

#[test]
fn assume_cut_is_not_a_deadlock() {
    let (_, r) = run(
        "var x = 0; thread a { A: assume(x == 1); B: skip; } thread b { C: skip; }",
        Config::new().stop_at_first_failure(false),
    );
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
    // The same with an await is a deadlock.
    let (_, r) = run(
        "var x = 0; thread a { A: await(x == 1); B: skip; } thread b { C: skip; }",
        Config::new().stop_at_first_failure(false),
    );
    let Verdict::Deadlock(id, _) = &r.verdict else { panic!("{r}") };
    assert_eq!(id.threads[0].1, ThreadStand::Blocked(vec!["A".into()]));
    assert_eq!(id.threads[1].1, ThreadStand::Done);
}

#[test]
fn idle_loops_count_as_finished() {
    let (_, r) = run(
        "var x = 0; thread w { W: while (*) { A: await(x == 1); B: x := 0; } } thread b { C: skip; }",
        Config::new().stop_at_first_failure(false),
    );
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
}

#[test]
fn atomic_blocks_are_not_interleaved() {
    let src = "var x = 0;
         thread a { A: atomic { A1: x := 1; A2: x := 0; } }
         thread b { B: assert(x == 0); }";
    let (_, r) = run(src, Config::new());
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
    let (_, r) = run(&src.replace("A: atomic {", "A: noreorder {"), Config::new());
    assert!(matches!(r.verdict, Verdict::Bad(_)), "{r}");
}

#[test]
fn atomic_block_waits_to_enter() {
    let (_, r) = run(
        "var x = 0, y = 0;
         thread a { A: atomic { await(x == 1); y := 1; } }
         thread b { B: assert(y == 0); C: x := 1; }",
        Config::new().stop_at_first_failure(false),
    );
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
}

#[test]
fn lock_gives_mutual_exclusion() {
    let src = "var m = 0, c = 0;
         thread a { A1: lock(m); A2: c := c + 1; A3: assert(c == 1); A4: c := c - 1; A5: unlock(m); }
         thread b { B1: lock(m); B2: c := c + 1; B3: assert(c == 1); B4: c := c - 1; B5: unlock(m); }";
    let (_, r) = run(src, Config::new().stop_at_first_failure(false));
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
    let (_, r) = run(&src.replace("B1: lock(m);", "B1: skip;"), Config::new());
    assert!(matches!(r.verdict, Verdict::Bad(_)), "{r}");
}

#[test]
fn semaphores() {
    let (_, r) = run(
        "var s = 1, c = 0;
         thread a { A1: down(s); A2: c := c + 1; A3: assert(c == 1); A4: c := 0; A5: up(s); }
         thread b { B1: down(s); B2: c := c + 1; B3: assert(c == 1); B4: c := 0; B5: up(s); }",
        Config::new().stop_at_first_failure(false),
    );
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
}

#[test]
fn division_by_zero_is_bad_and_execution_goes_on() {
    let (p, r) = run(
        "var x = 0, y = 5; thread a { A: y := 10 / x; B: assert(y == 0); }",
        Config::new().stop_at_first_failure(false),
    );
    let Verdict::Bad(c) = &r.verdict else { panic!("{r}") };
    assert_eq!(labels(&p, &c.schedule), "a:A");
    assert_eq!(r.failures.keys().cloned().collect::<Vec<_>>(), vec!["A".to_string()]);
    // Short-circuit: no division happens.
    let (_, r) = run("var x = 0, y = 0; thread a { A: assume(x != 0 && 10 / x > 1); }", Config::new());
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
}

/// A failing step says whether it divides by zero or asserts something false, after a
/// preemption as well as alone.
#[test]
fn a_division_by_zero_is_told_from_a_false_assertion() {
    let (_, r) = run("var x = 0, y = 5; thread a { q1: y := 10 % x; }", Config::new());
    let Verdict::Bad(c) = &r.verdict else { panic!("{r}") };
    assert!(c.division_by_zero);
    assert_eq!(r.verdict.to_string(), "bad: division by zero at q1");
    let (_, r) =
        run("var x = 1, y = 5; thread a { A: x := 0; } thread b { B: await(x == 0); C: y := 1 / x; }", Config::new());
    assert_eq!(r.verdict.to_string(), "bad: division by zero at C");
    let (_, r) = run("var x = 0; thread a { A: assert(x == 1); }", Config::new());
    let Verdict::Bad(c) = &r.verdict else { panic!("{r}") };
    assert!(!c.division_by_zero);
    assert_eq!(r.verdict.to_string(), "bad: A fails");
    assert!(r.to_string().starts_with("bad: A fails; "), "{r}");
    assert_eq!(r.verdict_text(), "bad: A fails");
}

#[test]
fn failed_assert_continues() {
    let (_, r) = run(
        "var x = 0; thread a { A: assert(x == 1); B: x := 2; C: assert(x == 3); }",
        Config::new().stop_at_first_failure(false),
    );
    assert_eq!(r.failures.keys().cloned().collect::<Vec<_>>(), vec!["A".to_string(), "C".to_string()]);
}

#[test]
fn choice_is_made_with_the_first_step() {
    // The thread is not blocked: the else branch can step.
    let (_, r) = run(
        "var x = 0; thread a { I: if (*) { A: await(x == 1); } else { B: skip; } }",
        Config::new().stop_at_first_failure(false),
    );
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
    // Both branches wait: blocked at both awaits.
    let (_, r) = run(
        "var x = 0; thread a { I: if (*) { A: await(x == 1); } else { B: await(x == 2); } C: skip; }",
        Config::new().stop_at_first_failure(false),
    );
    let Verdict::Deadlock(id, _) = &r.verdict else { panic!("{r}") };
    assert_eq!(id.to_string(), "a at A|B");
}

#[test]
fn atomic_livelock() {
    let (p, r) = run(
        "var x = 0; thread a { L: atomic { while (*) { S: skip; } } } thread b { B: x := 1; }",
        Config::new().stop_at_first_failure(false),
    );
    let Verdict::Livelock(id, c) = &r.verdict else { panic!("{r}") };
    assert_eq!(id.to_string(), "a loops inside atomic block L");
    assert!(c.cycle_start.is_some());
    assert!(labels(&p, &c.schedule).contains("a:S"));
}

#[test]
fn procedures_and_locals() {
    let (_, r) = run(
        "var x = 0;
         proc inc { local t; t := x; x := t + 1; }
         thread a { A: inc(); } thread b { B: inc(); }
         thread c { C: await(x > 0); D: assert(x == 2); }",
        Config::new().stop_at_first_failure(false),
    );
    // The lost update (both read 0) makes D fail after x == 1.
    assert!(r.failures.contains_key("D"), "{r}");
}

#[test]
fn unwind_bound_is_reported() {
    let src = "var x = 0; thread a { W: while (*) { A: x := x + 1; } } thread b { B: assert(x < 3); }";
    let (_, r) = run(src, Config::new().unwind(Some(2)));
    assert_eq!(r.verdict, Verdict::Correct);
    assert!(r.unwind_reached);
    assert!(r.to_string().contains("loops unwound to 2, bound hit"), "{r}");
    let (_, r) = run(src, Config::new().unwind(Some(3)));
    assert!(matches!(r.verdict, Verdict::Bad(_)), "{r}");
}

#[test]
fn bounds_give_bound_reached() {
    let (_, r) = run("var x = 0; thread a { W: while (*) { A: x := x + 1; } }", Config::new().max_states(1000));
    assert!(matches!(r.verdict, Verdict::BoundReached { .. }), "{r}");
    let (_, r) = run("var x = 0; thread a { W: while (*) { A: x := x + 1; } }", Config::new().max_depth(Some(5)));
    assert!(matches!(r.verdict, Verdict::BoundReached { .. }), "{r}");
}

#[test]
fn replay_says_where_a_schedule_stops() {
    let p = paces_cwhile::parse("var x = 0; thread a { A: await(x == 1); } thread b { B: x := 1; }").unwrap();
    let step = |t: u32, l: &str| ScheduleStep::new(ThreadIdx::from_u32(t), l);
    let err = replay(&p, &Schedule { steps: vec![step(0, "A")] }).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::NotATrace);
    let stop = err.replay_stop().unwrap();
    assert_eq!((stop.index, stop.thread.as_str(), stop.label.as_str()), (0, "a", "A"));
    assert!(stop.reason.contains("await"), "{}", stop.reason);
    let err = replay(&p, &Schedule { steps: vec![step(1, "B"), step(1, "B")] }).unwrap_err();
    assert_eq!(err.replay_stop().unwrap().index, 1);
    let t = replay(&p, &Schedule { steps: vec![step(1, "B"), step(0, "A")] }).unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(t.events()[1].reads[0].from.map(|e| e.index()), Some(0));
}

#[test]
fn trace_scopes_follow_loops_and_calls() {
    let p =
        paces_cwhile::parse("var x = 0; proc f { F: x := x + 1; } thread a { W: while (x < 2) { C: f(); } }").unwrap();
    let r = check(&p, &Config::new()).unwrap();
    assert_eq!(r.verdict, Verdict::Correct);
    let steps = ["W.body", "F", "W.body", "F", "W.exit"];
    let schedule = Schedule { steps: steps.iter().map(|l| ScheduleStep::new(ThreadIdx::from_u32(0), *l)).collect() };
    let t = replay(&p, &schedule).unwrap();
    let scope = |i: usize| {
        t.events()[i]
            .scope
            .iter()
            .map(|s| format!("{}#{}:{}", s.instance.block, s.instance.instance, p.loc_names[s.item.index()]))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    // Two iterations and two calls open four distinct instances.
    assert_ne!(scope(1), scope(3));
    assert_eq!(t.events()[0].scope.len(), 1);
    assert_eq!(t.events()[1].scope.len(), 3);
    assert_eq!(p.loc_names[t.events()[4].scope[0].item.index()], "W");
}

/// An `await` may stand anywhere in an atomic block: the block runs whole or not at all, so
/// the thread waits before it until a path through it reaches its end.
#[test]
fn await_in_the_middle_of_an_atomic_block() {
    let src = "var x = 0, y = 0;
         thread a { A: atomic { A1: y := 1; A2: await(x == 1); A3: y := 2; } }
         thread b { B: assert(y != 1); C: x := 1; }";
    let (_, r) = run(src, Config::new().stop_at_first_failure(false));
    // `y == 1` is never visible: the block is taken only once x is 1, then whole.
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
    // Without `C` the thread waits before the block for good: a deadlock named by the block.
    let (_, r) = run(&src.replace("C: x := 1;", "C: skip;"), Config::new().stop_at_first_failure(false));
    let Verdict::Deadlock(id, c) = &r.verdict else { panic!("{r}") };
    assert_eq!(id.to_string(), "a at A, b done");
    assert_eq!(id.threads[0].1, ThreadStand::Blocked(vec!["A".into()]));
    // The trace's blocked step is the block's first step and reads what the block reads (x).
    assert_eq!(c.trace.blocked().len(), 1);
    assert_eq!(c.trace.blocked()[0].reads.len(), 1);
    // A `lock` after the first step waits the same way.
    let (_, r) = run(
        "var m = 1, x = 0; thread a { A: atomic { A1: x := 1; A2: lock(m); } } thread b { B: skip; }",
        Config::new(),
    );
    let Verdict::Deadlock(id, _) = &r.verdict else { panic!("{r}") };
    assert_eq!(id.to_string(), "a at A, b done");
}

/// A failing assertion on a path through an atomic block that then meets a false `await` is
/// on no path that is taken: it is not a failure.
#[test]
fn a_failure_on_a_dropped_path_is_not_reported() {
    let (_, r) = run(
        "var x = 0, y = 0;
         thread a { A: atomic { A1: assert(x == 1); A2: await(x == 1); } }
         thread b { B: y := 1; }",
        Config::new().stop_at_first_failure(false),
    );
    assert!(r.failures.is_empty(), "{r}");
    assert_eq!(r.deadlocks.len(), 1, "{r}");
    assert_eq!(r.deadlocks.keys().next().unwrap().to_string(), "a at A, b done");
    // The same failure on a path that gets through is reported, also in the entering step.
    let (_, r) = run(
        "var x = 0; thread a { A: atomic { A1: assert(x == 1); A2: await(x == 0); } } thread b { B: skip; }",
        Config::new(),
    );
    let Verdict::Bad(c) = &r.verdict else { panic!("{r}") };
    assert_eq!(c.schedule.steps[c.failing_step.unwrap()].label, "A1");
    // Only the branch that gets through counts: here the failing branch always blocks.
    let (_, r) = run(
        "var x = 0;
         thread a { A: atomic { I: if (*) { A1: assert(x == 1); A2: await(x == 1); } else { A3: x := 2; } } }
         thread b { B: assert(x != 1); }",
        Config::new().stop_at_first_failure(false),
    );
    assert_eq!(r.verdict, Verdict::Correct, "{r}");
    // A failing step inside a loop that can still get out later counts.
    let (_, r) = run(
        "var x = 0;
         thread a { A: atomic { W: while (*) { A1: assert(x == 1); A2: x := (x + 1) % 3; } A3: await(x == 2); } }",
        Config::new().stop_at_first_failure(false),
    );
    assert_eq!(r.failures.keys().cloned().collect::<Vec<_>>(), ["A1"], "{r}");
}

/// A block whose every path stops at a false `assume` makes the thread wait before it, as a
/// false `await` does (the block is all or nothing): a deadlock, alone or mixed with an `await`.
#[test]
fn an_atomic_block_no_path_gets_through_waits() {
    let (_, r) = run(
        "var x = 0; thread a { A: atomic { A1: x := 1; A2: assume(x == 2); } } thread b { B: skip; }",
        Config::new().stop_at_first_failure(false),
    );
    let Verdict::Deadlock(id, _) = &r.verdict else { panic!("{r}") };
    assert_eq!(id.to_string(), "a at A, b done");
    let (_, r) = run(
        "var x = 0;
         thread a { A: atomic { I: if (*) { A1: assume(x == 2); } else { A2: await(x == 2); } } }
         thread b { B: skip; }",
        Config::new().stop_at_first_failure(false),
    );
    let Verdict::Deadlock(id, _) = &r.verdict else { panic!("{r}") };
    assert_eq!(id.to_string(), "a at A, b done");
}

/// A path through an atomic block with no step of its own (an empty branch) still takes the
/// block as one step: the thread does not wait before a block it can get through, and passes
/// it in one step, as SPIN's `skip` of the empty branch does.
#[test]
fn an_empty_path_through_an_atomic_block_is_its_one_step() {
    let src = "var x = 0, z = 1;
         thread t1 {
           L1: atomic { L2: if (*) { L3: await(x == 1); } else { } }
           L4: atomic { L5: await((x == 0) && (z == 0)); L6: x := 0; }
         }";
    for por in [true, false] {
        let (p, r) = run(src, Config::new().stop_at_first_failure(false).por(por));
        assert_eq!(r.deadlocks.len(), 1, "{r}");
        let (id, w) = r.deadlocks.iter().next().unwrap();
        assert_eq!(id.to_string(), "t1 at L4", "por {por}");
        assert_eq!(labels(&p, &w.schedule), "t1:L1", "por {por}");
        assert_eq!(w.trace.events().len(), 1, "por {por}");
    }
    // A block whose only path has no step is one step too, at the thread's end as well.
    let (_, r) = run(
        "var x = 0;
         thread a { A: atomic { I: if (*) { } else { } } B: await(x == 1); C: atomic { } }
         thread b { D: x := 1; }",
        Config::new().stop_at_first_failure(false),
    );
    assert!(r.deadlocks.is_empty(), "{r}");
    let (p, r) = run(
        "var x = 0; thread a { A: atomic { } B: atomic { I: if (*) { } else { } } C: await(x == 1); }",
        Config::new(),
    );
    let Verdict::Deadlock(id, w) = &r.verdict else { panic!("{r}") };
    assert_eq!(id.to_string(), "a at C");
    assert_eq!(labels(&p, &w.schedule), "a:A a:B");
}

/// A loop inside an atomic block that can run forever is an atomic livelock, also when the
/// block holds a later `await`.
#[test]
fn a_livelock_inside_an_atomic_block_is_still_found() {
    let (_, r) = run(
        "var x = 0;
         thread a { A: atomic { W: while (*) { A1: x := 1 - x; } A2: await(x == 5); } }
         thread b { B: skip; }",
        Config::new().stop_at_first_failure(false),
    );
    assert_eq!(r.livelocks.len(), 1, "{r}");
    assert_eq!(r.livelocks.keys().next().unwrap().to_string(), "a loops inside atomic block A");
}

/// A section added by a transformation (`atomic_FIRST`) is named by its first item when its
/// thread waits before it, so deadlocks compare with the original's, also once the repaired
/// program is printed and parsed again.
#[test]
fn a_thread_waiting_before_an_added_section_is_named_by_its_first_item() {
    let original = paces_cwhile::parse(
        "var m = 0, n = 0;
         thread a { A1: lock(m); A2: lock(n); A3: unlock(n); A4: unlock(m); }
         thread b { B1: lock(n); B2: lock(m); B3: unlock(m); B4: unlock(n); }",
    )
    .unwrap();
    let space = original.space();
    let a = space.blocks().next().unwrap();
    let order = space.items(a).to_vec();
    let mut orders: Vec<Vec<paces_constraint::Loc>> = space.blocks().map(|b| space.items(b).to_vec()).collect();
    orders[0] = order.clone();
    let candidate = paces_constraint::Candidate::new(&space, orders, &[(order[1], order[2])]).unwrap();
    let repaired = original.apply(&candidate).unwrap();
    assert!(paces_cwhile::Printer::new(&repaired).print().contains("atomic_A2: atomic"));
    let r = check(&repaired, &Config::new().stop_at_first_failure(false)).unwrap();
    let ids: Vec<String> = r.deadlocks.keys().map(ToString::to_string).collect();
    assert_eq!(ids, ["a at A2, b at B2"]);
    let reparsed = paces_cwhile::parse(&paces_cwhile::Printer::new(&repaired).print()).unwrap();
    let r = check(&reparsed, &Config::new().stop_at_first_failure(false)).unwrap();
    let ids: Vec<String> = r.deadlocks.keys().map(ToString::to_string).collect();
    assert_eq!(ids, ["a at A2, b at B2"]);
    // A user atomic block keeps its own label.
    let (_, r) = run("var m = 1; thread a { K: atomic { A1: lock(m); } } thread b { B: skip; }", Config::new());
    let Verdict::Deadlock(id, _) = &r.verdict else { panic!("{r}") };
    assert_eq!(id.to_string(), "a at K, b done");
}

#[test]
fn sequential_final_states_of_all_orders() {
    let p = paces_cwhile::parse(
        "var x = 0, y = 0; thread a { x := 1; y := x + y; } thread b { await(x == 1); y := y * 10; }",
    )
    .unwrap();
    let finals = sequential_final_states(&p, &Config::new()).unwrap();
    // b first blocks forever: only the order a, b completes.
    assert_eq!(finals.into_iter().collect::<Vec<_>>(), vec![vec![1, 10]]);
}

/// Workers that each read a shared counter into a local before adding one: the orders leave
/// different locals behind but the same globals, and each order's final counter is counted
/// once (the finished threads' locals are forgotten, never their globals).
#[test]
fn sequential_final_states_forget_the_locals_of_finished_threads() {
    let mut src = String::from("var total = 0, last = 0;");
    for i in 0..6 {
        src.push_str(&format!("thread w{i} {{ local t; t := total; total := t + 1; last := {i}; }}"));
    }
    let p = paces_cwhile::parse(&src).unwrap();
    let finals = sequential_final_states(&p, &Config::new()).unwrap();
    let want: Vec<Vec<i64>> = (0..6).map(|i| vec![6, i]).collect();
    assert_eq!(finals.into_iter().collect::<Vec<_>>(), want);
    // Without forgetting, the 6! orders leave 6! distinct states of the locals; with it, 2^6
    // sets of one state each fit in a small state bound.
    assert!(sequential_final_states(&p, &Config::new().max_states(2_000)).is_ok());
}

/// The memory bound of the sequential runs counts the states they keep, not those they visit:
/// twelve threads that each set their own flag visit every one of the 2^12 sets of finished
/// threads (about 24,600 runs alone), but keep at most two layers of sets at a time.
#[test]
fn sequential_runs_bound_the_states_they_keep_not_those_they_visit() {
    let n = 12;
    let mut src = String::from("var ");
    src.push_str(&(0..n).map(|i| format!("f{i} = 0")).collect::<Vec<_>>().join(", "));
    src.push(';');
    for i in 0..n {
        src.push_str(&format!("thread t{i} {{ f{i} := 1; }}"));
    }
    let p = paces_cwhile::parse(&src).unwrap();
    // 2 MB hold the two largest layers (C(12, 6) + C(12, 7) = 1,716 states of a few hundred
    // bytes) many times over, and less than the visited states would take.
    let finals = sequential_final_states(&p, &Config::new().max_memory(2_000_000)).expect("within the memory bound");
    assert_eq!(finals.into_iter().collect::<Vec<_>>(), vec![vec![1; n]]);
    let e = sequential_final_states(&p, &Config::new().max_memory(50_000)).expect_err("past the memory bound");
    assert_eq!(*e.kind(), ErrorKind::BoundReached, "{e}");
    assert!(e.to_string().contains("memory bound"), "{e}");
}

/// A counterexample whose threads cannot all finish after the failure: the longest run goes
/// on past the failure, and each thread's next steps are pending (run alone, conditions taken
/// as true), so the write that comes too late is visible.
#[test]
fn incomplete_counterexample_gets_pending_steps() {
    let (p, result) = run(
        "var x = 0, y = 0, z = 0;
         thread a { A: await(y == 1); C: x := 1; }
         thread b { B: assert(x == 1); E: z := 3; }",
        Config::new(),
    );
    let cex = result.verdict.counterexample().expect("B fails");
    assert!(cex.trace.pending().is_empty());
    let full = paces_explore::complete_counterexample(&p, cex, 1000).unwrap();
    let names = |evs: &[paces_trace::Event]| -> Vec<String> {
        evs.iter().map(|e| p.loc_names[e.loc.index()].clone()).collect()
    };
    // E runs after the failure; `a` waits for good, so A and C are pending.
    assert_eq!(names(full.trace.events()), ["B", "E"]);
    assert_eq!(names(full.trace.pending()), ["A", "C"]);
    assert_eq!(full.trace.pending()[1].writes[0].value, 1);
    assert!(full.trace.pending().iter().all(|e| e.reads.iter().all(|r| r.from.is_none())));
    assert_eq!(full.schedule.steps.len(), 2);
}

/// The longest run of a completion never stops halfway through an atomic block: a block
/// whose later wait never holds is not started at all (all or nothing), so its first step is
/// pending, not executed.
#[test]
fn completion_never_ends_inside_an_atomic_block() {
    let (p, result) = run(
        "var starting = 1, m = 0;
         thread a { A1: assert(starting == 0); A2: await(starting == 0); }
         thread b { S: atomic { B1: starting := 0; B2: await(m == 1); } }",
        Config::new(),
    );
    let cex = result.verdict.counterexample().expect("A1 fails");
    let full = paces_explore::complete_counterexample(&p, cex, 1000).unwrap();
    let names = |evs: &[paces_trace::Event]| -> Vec<String> {
        evs.iter().map(|e| p.loc_names[e.loc.index()].clone()).collect()
    };
    assert_eq!(names(full.trace.events()), ["A1"]);
    assert!(names(full.trace.pending()).contains(&"B1".to_owned()), "{:?}", names(full.trace.pending()));
}

/// A worker loop that could stop at its head is not run on while another thread still has
/// to finish: the completion stays short even when the loop's counter grows without bound.
/// (The producer stopping at once leaves the consumer waiting: a deadlock at the first state,
/// so the check looks for the failing assertion only.)
#[test]
fn completion_does_not_run_an_idle_loop_on() {
    let (p, result) = run(
        "var count = 0, item = 0;
         thread producer { while (*) { 1: count := count + 1; 2: item := 1; } }
         thread consumer { A: await(count > 0); B: assert(item == 1); C: count := count - 1; }",
        Config::new().find(FailureKinds::BAD),
    );
    let cex = result.verdict.counterexample().expect("B fails");
    let full = paces_explore::complete_counterexample(&p, cex, 100_000).unwrap();
    let names: Vec<&str> = full.trace.events().iter().map(|e| p.loc_names[e.loc.index()].as_str()).collect();
    assert_eq!(names, ["1", "A", "B", "2", "C"]);
    assert!(full.trace.pending().is_empty());
}

/// Sequential runs of a loop with an unbounded counter end at a bound, with a clear error.
#[test]
fn sequential_runs_of_an_unbounded_loop_end_at_a_bound() {
    let p = paces_cwhile::parse("var n = 0; thread t { while (*) { n := n + 1; } }").unwrap();
    for config in [Config::new().max_states(10_000), Config::new().max_memory(100_000)] {
        let err = sequential_final_states(&p, &config).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::BoundReached);
        assert!(err.to_string().contains("of the sequential runs"), "{err}");
    }
    let err = sequential_final_states(&p, &Config::new().max_time(Some(std::time::Duration::ZERO))).unwrap_err();
    assert!(err.to_string().starts_with("time bound"), "{err}");
}

/// When the threads cannot all finish (one waits for good) and another could loop forever,
/// the run on past the failure is cut at twice the program's code, not at the search budget.
#[test]
fn completion_of_a_stuck_run_does_not_follow_an_endless_loop() {
    let (p, result) = run(
        "var x = 0, y = 0;
         thread t0 { A: x := 1; L: while (*) { B: y := y + 1; } }
         thread t1 { C: await(y < 0); }
         thread t2 { D: assert(x == 0); }",
        Config::new(),
    );
    let cex = result.verdict.counterexample().expect("D fails");
    let full = paces_explore::complete_counterexample(&p, cex, 100_000).unwrap();
    assert!(full.trace.len() < 40, "{} events", full.trace.len());
    assert!(full.trace.is_bad());
}

/// A loop inside an atomic block that may leave it after every iteration, with a counter
/// that only grows: every depth of the search inside the block is an exit. The paths of
/// those exits together grow with the square of the depth; the search stops at its bound
/// instead of running for hours.
#[test]
fn an_unbounded_loop_inside_an_atomic_block_ends_at_a_bound() {
    let (_, result) = run(
        "var x = 0, y = 0;
         thread t { atomic { while (*) { x := x + 1; } } }
         thread u { y := 1; }",
        Config::new(),
    );
    assert!(matches!(result.verdict, Verdict::BoundReached { .. }), "{result}");
    assert_eq!(result.bound, Some(paces_explore::Bound::AtomicStates));
}

/// The state bound and the memory bound are told apart.
#[test]
fn the_memory_bound_is_its_own_bound() {
    let src = "var x = 0; thread a { W: while (*) { A: x := x + 1; } }";
    let (_, by_states) = run(src, Config::new().max_states(1000));
    assert_eq!(by_states.bound, Some(paces_explore::Bound::States), "{by_states}");
    let (_, by_memory) = run(src, Config::new().max_memory(100_000));
    assert!(matches!(by_memory.verdict, Verdict::BoundReached { .. }), "{by_memory}");
    assert_eq!(by_memory.bound, Some(paces_explore::Bound::Memory), "{by_memory}");
    assert_eq!(paces_explore::Bound::Memory.to_string(), "memory bound");
}

/// `Config::deadlocks_after_failure`: the deadlocks reachable on a run where an assertion had
/// already failed, each with a witness that shows the failure, with and without the
/// reduction.
#[test]
fn deadlocks_after_a_failure() {
    let only_after = "var x = 0, y = 0;
         thread a { A: x := 1; }
         thread b { B: y := x; C: assert(y == 0); D: await(y == 0); }";
    let only_without = "var x = 0, y = 0;
         thread a { A: x := 1; }
         thread b { B: y := x; C: assert(y == 1); D: await(y == 0); }";
    let both = "var x = 0, y = 0, z = 0;
         thread a { A: x := 1; }
         thread b { B: y := x; C: assert(y == 0); D: await(z == 1); }";
    for por in [true, false] {
        let config = || Config::new().stop_at_first_failure(false).por(por).deadlocks_after_failure(true);
        let (_, r) = run(only_after, config());
        assert_eq!(r.deadlocks.len(), 1, "{r}");
        let ids: Vec<String> = r.deadlocks_after_failure.keys().map(ToString::to_string).collect();
        assert_eq!(ids, ["a done, b at D"]);
        let (id, w) = r.deadlocks_after_failure.iter().next().unwrap();
        assert_eq!(id.blocked_threads().into_iter().collect::<Vec<_>>(), ["b"]);
        assert!(w.trace.is_bad(), "the witness shows the failure");
        assert_eq!(w.trace.blocked().len(), 1);

        let (_, r) = run(only_without, config());
        assert_eq!(r.deadlocks.len(), 1, "{r}");
        assert!(r.deadlocks_after_failure.is_empty(), "{r}");

        let (_, r) = run(both, config());
        assert_eq!(r.deadlocks.len(), 1, "{r}");
        assert_eq!(r.deadlocks_after_failure.keys().collect::<Vec<_>>(), r.deadlocks.keys().collect::<Vec<_>>());
        // The plain witness is the shortest run into the deadlock; the other shows a failure.
        assert!(r.deadlocks_after_failure.values().all(|w| w.trace.is_bad()));
    }
    // Off by default: nothing collected.
    let (_, r) = run(only_after, Config::new().stop_at_first_failure(false));
    assert!(r.deadlocks_after_failure.is_empty());
    assert_eq!(r.deadlocks.len(), 1);
}

/// A failure inside an atomic block on a path that does not get through does not set the
/// flag: the deadlock after it is not one after a failure.
#[test]
fn a_dropped_failure_does_not_count_for_deadlocks_after_failure() {
    let (_, r) = run(
        "var x = 0, z = 0;
         thread a { A: atomic { I: if (*) { A1: assert(x == 1); A2: await(x == 1); } else { A3: skip; } } D: await(z == 1); }",
        Config::new().stop_at_first_failure(false).deadlocks_after_failure(true),
    );
    assert!(r.failures.is_empty(), "{r}");
    assert_eq!(r.deadlocks.len(), 1, "{r}");
    assert!(r.deadlocks_after_failure.is_empty(), "{r}");
}
