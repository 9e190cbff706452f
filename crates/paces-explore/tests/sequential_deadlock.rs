//! `sequential_deadlock`: a deadlock reached when the other threads run one after another to
//! their end and then one thread, alone, cannot reach its end; only a thread without loops
//! and `assume`s counts as the last (with them, a reorder could make it run for ever or cut
//! its run instead of waiting).

use paces_explore::{check, sequential_deadlock, Config, SequentialDeadlock};

fn found(src: &str) -> Option<SequentialDeadlock> {
    let program = paces_cwhile::parse(src).unwrap_or_else(|d| panic!("{d}"));
    sequential_deadlock(&program, &Config::new()).unwrap()
}

#[test]
fn a_lock_taken_for_good_blocks_the_thread_that_comes_after() {
    let src = "var m = 0, x = 0;\n\
               thread a { lock(m); x := 1; }\n\
               thread b { y: x := 2; w: lock(m); unlock(m); }\n\
               thread c { x := 3; }\n";
    let d = found(src).expect("b waits at w once a has run");
    assert_eq!(d.before, ["a", "c"]);
    assert_eq!((d.thread.as_str(), d.at.as_str()), ("b", "w"));
    // It is a deadlock of the program, as the checker sees it.
    let program = paces_cwhile::parse(src).unwrap();
    let all = check(&program, &Config::new().stop_at_first_failure(false)).unwrap();
    assert!(all.deadlocks.keys().any(|id| id.to_string() == "a done, b at w, c done"), "{:?}", all.deadlocks.keys());
}

#[test]
fn a_deadlock_that_needs_the_threads_to_interleave_is_not_one() {
    let abba = "var a = 0, b = 0;\n\
                thread t1 { lock(a); lock(b); unlock(b); unlock(a); }\n\
                thread t2 { lock(b); lock(a); unlock(a); unlock(b); }\n";
    assert_eq!(found(abba), None);
}

#[test]
fn a_thread_with_a_loop_or_an_assume_is_never_the_last() {
    // Alone after `a`, each of these threads waits for good at `w`; but a reorder might let
    // its loop spin or its assume cut the run first, which is no deadlock.
    for last in [
        "thread b { w: await(x == 1); while (y < 2) { y := y + 1; } }",
        "thread b { w: await(x == 1); assume(y == 0); }",
        "proc p { assume(y == 0); }\nthread b { w: await(x == 1); p(); }",
    ] {
        let src = format!("var x = 0, y = 0;\nthread a {{ x := 2; }}\n{last}\n");
        assert_eq!(found(&src), None, "{last}");
    }
    let plain = "var x = 0, y = 0;\nthread a { x := 2; }\nthread b { w: await(x == 1); y := 1; }\n";
    assert_eq!(found(plain).map(|d| d.at), Some("w".to_owned()));
}

#[test]
fn a_branch_that_may_end_is_no_deadlock() {
    // Alone, b may take the branch that does not wait.
    let src = "var x = 0;\nthread a { x := 2; }\nthread b { if (*) { w: await(x == 1); } }\n";
    assert_eq!(found(src), None);
    let both =
        "var x = 0;\nthread a { x := 2; }\nthread b { if (*) { v: await(x == 1); } else { w: await(x == 3); } }\n";
    assert!(found(both).is_some());
}
