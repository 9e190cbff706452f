//! Deadlocks of the original program are bugs to repair, through the binary: a lock-order
//! deadlock is repaired (one thread takes the locks in the other's order, or holds both in one
//! section), a program whose deadlock no change removes ends in "no repair" (exit 1), and
//! `--keep-deadlocks` keeps the paper's behaviour (the original's deadlocks may remain), said
//! in the summary and the JSON report.

mod common;

use serde_json::Value;

use common::{paces, repaired_json, text};

fn scratch(name: &str, contents: &str) -> String {
    common::scratch("deadlocks", name, contents)
}

/// t1 takes `a` then `b`, t2 `b` then `a`: each can hold one lock and wait for the other.
const LOCK_ORDER: &str = "var a = 0, b = 0;\n\
thread t1 { a1: lock(a); b1: lock(b); unlock(b); unlock(a); }\n\
thread t2 { b2: lock(b); a2: lock(a); unlock(a); unlock(b); }\n";

/// `a` waits for a write nobody makes: no order or section removes the deadlock.
const HOPELESS: &str = "var x = 0;\nthread a { A: await(x == 1); }\nthread b { B: x := 0; }\n";

/// Whether t2 of a JSON report's candidate takes `a` before `b`, or holds both in one section.
fn t2_is_repaired(doc: &Value) -> bool {
    let blocks = doc["candidate"]["blocks"].as_array().expect("a candidate");
    let t2 = blocks.iter().find(|b| b.as_array().unwrap().iter().any(|l| l == "a2")).expect("t2's block");
    let t2: Vec<&str> = t2.as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let at = |l: &str| t2.iter().position(|x| *x == l).unwrap();
    let sections = doc["candidate"]["sections"].as_array().unwrap();
    let both_held = sections.iter().any(|s| {
        let items = s["items"].as_array().unwrap();
        items.iter().any(|l| l == "a2") && items.iter().any(|l| l == "b2")
    });
    at("a2") < at("b2") || both_held
}

#[test]
fn a_lock_order_deadlock_is_repaired() {
    let file = scratch("lock-order.cw", LOCK_ORDER);
    let check = paces(&["check", &file]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stdout));
    assert!(text(&check.stdout).contains("deadlock"), "{}", text(&check.stdout));
    for extra in [&[][..], &["--exhaustive"][..]] {
        let doc = repaired_json(&file, extra);
        assert_eq!(doc["keep_deadlocks"], false);
        assert!(t2_is_repaired(&doc), "{extra:?}: {}", doc["candidate"]);
        // One swap: the cheapest change of the space.
        assert_eq!(doc["cost"], serde_json::json!({"atomic_weight": 0, "inversions": 1}), "{extra:?}");
        assert_eq!(doc["original_deadlocks"], serde_json::json!(["t1 at b1, t2 at a2"]), "{extra:?}");
        assert_eq!(doc["acceptance"]["deadlocks"], serde_json::json!([]), "{extra:?}");
        // The repaired program checks correct: no deadlock is left.
        let repaired = scratch("lock-order-repaired.cw", doc["repaired_program"].as_str().unwrap());
        let check = paces(&["check", "--all", &repaired]);
        assert_eq!(check.status.code(), Some(0), "{extra:?}: {}", text(&check.stdout));
    }
    // The loop learns from the original's deadlock trace.
    let doc: Value = serde_json::from_slice(&paces(&["repair", "--format", "json", &file]).stdout).unwrap();
    let first = &doc["history"][0];
    assert_eq!(first["kind"], "deadlock");
    assert_eq!(first["problem"], "deadlock of the original: t1 at b1, t2 at a2");
    assert!(first["fixes"].as_u64().unwrap() > 0, "{first}");
}

#[test]
fn the_summary_says_the_deadlock_is_repaired() {
    let file = scratch("lock-order-text.cw", LOCK_ORDER);
    let out = paces(&["repair", &file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains(": repaired (mixed mode)"), "{err}");
    assert!(
        err.contains(
            "the original program deadlocks (removed where the space can, else kept; --keep-deadlocks keeps them):"
        ),
        "{err}"
    );
    assert!(err.contains("    t1 at b1, t2 at a2\n"), "{err}");
    assert!(err.contains("no new deadlock: true"), "{err}");
    assert!(err.contains("  removed deadlock of the original: t1 at b1, t2 at a2\n"), "{err}");
    assert!(!err.contains("a bug remains"), "{err}");
    assert!(!err.contains("--keep-deadlocks: "), "{err}");
}

#[test]
fn keep_deadlocks_keeps_the_original_s_deadlock_and_says_so() {
    let file = scratch("lock-order-kept.cw", LOCK_ORDER);
    let out = paces(&["repair", "--keep-deadlocks", &file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("already correct"), "{err}");
    assert!(err.contains("--keep-deadlocks: the original's deadlocks are kept, only new ones refused"), "{err}");
    assert!(err.contains("the original program deadlocks (a repair may keep these, never add one):"), "{err}");
    assert_eq!(text(&out.stdout), LOCK_ORDER, "the program as it is");
    let json = paces(&["repair", "--keep-deadlocks", "--format", "json", &file]);
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["stop_reason"], "already-correct");
    assert_eq!(doc["keep_deadlocks"], true);
    assert_eq!(doc["iterations"], 0);
}

#[test]
fn a_deadlock_no_change_removes_is_no_repair() {
    let file = scratch("hopeless.cw", HOPELESS);
    for extra in [&[][..], &["--exhaustive"][..]] {
        let mut args = vec!["repair", &file];
        args.extend_from_slice(extra);
        let out = paces(&args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.contains("no repair in this space"), "{extra:?}: {err}");
        assert!(!err.contains("correct"), "{extra:?}: {err}");
        assert!(err.contains("    a at A, b done\n"), "{extra:?}: {err}");
        if extra.is_empty() {
            // Said at once: once `b` has run, `a` alone waits for good in every candidate.
            let why = "  kept deadlock of the original: a at A, b done\n    every program of the space keeps it: \
                       after `b` ran to its end, `a` alone waits at `A` for good\n";
            assert!(err.contains(why), "{err}");
            assert!(err.contains("iterations: 0,"), "{err}");
        }
        assert!(text(&out.stdout).is_empty(), "{extra:?}: no program printed");
        args.push("--keep-deadlocks");
        let kept = paces(&args);
        assert_eq!(kept.status.code(), Some(0), "{extra:?}: {}", text(&kept.stderr));
        assert!(text(&kept.stderr).contains("already correct"), "{extra:?}");
    }
}

/// t0 may leave its final `while (*)` at once and finish; t1 then waits forever for a `b`
/// nobody sets.
const LEAVES_ITS_LOOP: &str = "var b = 0;\n\
thread t0 { local r = 0; r := 3; while (*) { L1: atomic { L2: r := 1; } } }\n\
thread t1 { A: atomic { await(b > 3); skip; } }\n";

#[test]
fn a_thread_leaving_its_final_loop_deadlocks_check_and_repair() {
    let file = scratch("leaves-its-loop.cw", LEAVES_ITS_LOOP);
    for extra in [&[][..], &["--all"][..], &["--no-por"][..], &["--all", "--no-por"][..]] {
        let mut args = vec!["check", &file];
        args.extend_from_slice(extra);
        let out = paces(&args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {}", text(&out.stdout));
        assert!(text(&out.stdout).contains("t0 done, t1 at A"), "{extra:?}: {}", text(&out.stdout));
    }
    // No order or section makes t0 set `b`: no repair, and with the deadlock kept the
    // program is correct as it is.
    let out = paces(&["repair", &file]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("no repair in this space") && err.contains("    t0 done, t1 at A\n"), "{err}");
    let kept = paces(&["repair", "--keep-deadlocks", &file]);
    assert_eq!(kept.status.code(), Some(0), "{}", text(&kept.stderr));
    assert!(text(&kept.stderr).contains("already correct"), "{}", text(&kept.stderr));
}

/// The lock-order deadlock in the C dialect of the paper's tool: repaired by default too, and
/// the repair, written as C, checks with no deadlock left.
const LOCK_ORDER_C: &str = "int a = 0;\nint b = 0;\n\n\
void t1() {\n    lock(a);\n    lock(b);\n    unlock(b);\n    unlock(a);\n}\n\n\
void t2() {\n    lock(b);\n    lock(a);\n    unlock(a);\n    unlock(b);\n}\n\n\
void main() {\n    t1();\n    t2();\n}\n";

#[test]
fn a_lock_order_deadlock_in_the_papers_c_is_repaired() {
    let file = scratch("lock-order.c", LOCK_ORDER_C);
    let doc = repaired_json(&file, &[]);
    every_deadlock_removed(&doc, "lock-order-repaired.c");
}

/// The report `doc` removed every deadlock of the original and kept none, and its repaired
/// program, written to the scratch file `name`, checks with no deadlock left.
#[track_caller]
fn every_deadlock_removed(doc: &Value, name: &str) {
    assert_eq!(doc["bug_remains"], false);
    let fates = doc["deadlock_fates"].as_array().unwrap();
    assert!(!fates.is_empty() && fates.iter().all(|d| d["fate"] == "removed"), "{fates:?}");
    let repaired = scratch(name, doc["repaired_program"].as_str().unwrap());
    let check = paces(&["check", "--all", &repaired]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
}

/// `poller`'s only way on once `holder` has `m` is the lock's wait: leaving its loop starts
/// with `assume(stop == 1)`, which cannot step (the choice is made with the first step of the
/// branch taken). So every thread is blocked: a deadlock, with `waiter` at its lock or done.
const WAIT_BESIDE_AN_IMPOSSIBLE_EXIT: &str = "var m = 0, stop = 0;\n\
thread holder { H1: lock(m); H2: await(stop == 1); }\n\
thread waiter { W1: lock(m); }\n\
thread poller { P0: while (*) { P1: lock(m); P2: unlock(m); } P3: assume(stop == 1); }\n";

#[test]
fn a_wait_beside_an_impossible_exit_is_a_deadlock() {
    let file = scratch("wait-beside-impossible-exit.cw", WAIT_BESIDE_AN_IMPOSSIBLE_EXIT);
    let both = ["holder at H1, waiter done, poller at P1", "holder at H2, waiter at W1, poller at P1"];
    for extra in [&[][..], &["--no-por"][..]] {
        let mut args = vec!["check", &file];
        args.extend_from_slice(extra);
        let out = paces(&args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {}", text(&out.stdout));
        let first = text(&out.stdout);
        assert!(
            first.lines().next().is_some_and(|l| both.iter().any(|d| l.ends_with(&format!("deadlock: {d}")))),
            "{extra:?}: {first}"
        );
        args.push("--all");
        let all = paces(&args);
        assert_eq!(all.status.code(), Some(1), "{extra:?}: {}", text(&all.stdout));
        let out = text(&all.stdout);
        assert!(out.contains(": 0 failing assertions, 2 deadlocks, 0 atomic livelocks"), "{extra:?}: {out}");
        for d in both {
            assert!(out.contains(&format!("deadlock: {d} (")), "{extra:?}: {d} missing from\n{out}");
        }
    }
    // The repair answers by the contract: both deadlocks are the original's bugs, and the
    // program it prints has none (moving the `assume` first cuts `poller` at its start, so no
    // stuck state is a deadlock any more).
    let out = paces(&["repair", &file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    for d in both {
        assert!(err.contains(&format!("    {d}\n")), "{d} missing from\n{err}");
    }
    let repaired = scratch("wait-beside-impossible-exit-repaired.cw", &text(&out.stdout));
    let check = paces(&["check", "--all", &repaired]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
    assert!(text(&check.stdout).contains("0 deadlocks"), "{}", text(&check.stdout));
}

/// The lock-order deadlock in pthread C (two mutexes taken in opposite orders): repaired by
/// default, the creates and joins where they were, and the repair, written as C, checks with
/// no deadlock left.
#[test]
fn a_lock_order_deadlock_in_pthread_c_is_repaired() {
    let file = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../paces-c/tests/pthread/abba.c");
    let doc = repaired_json(&file.display().to_string(), &[]);
    every_deadlock_removed(&doc, "abba-repaired.c");
    let repaired = doc["repaired_program"].as_str().unwrap();
    let order: Vec<usize> = ["pthread_create(&l", "pthread_create(&r", "pthread_join(l", "pthread_join(r"]
        .iter()
        .map(|call| repaired.find(call).unwrap_or_else(|| panic!("{call} missing from\n{repaired}")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "the creates and joins moved:\n{repaired}");
}
