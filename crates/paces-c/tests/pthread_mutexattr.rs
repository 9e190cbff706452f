//! pthread C: mutex attributes (`pthread_mutexattr_settype`), error-checking and recursive
//! mutexes, `pthread_mutex_trylock`, and `pthread_create`/`pthread_join` whose value a
//! condition reads, as the race-reachability and C-DAC tasks write them.

mod verdict;

use paces_c::pthread::{parse, Options, Reading};
use verdict::fails;

fn read(source: &str) -> Reading {
    let reading = parse(source, &Options::default()).unwrap_or_else(|d| panic!("{d:?}\n{source}"));
    assert!(reading.bounds.is_empty(), "{:?}", reading.bounds);
    reading
}

const HEAD: &str =
    "#include <pthread.h>\nvoid reach_error() {}\npthread_mutexattr_t attr;\npthread_mutex_t m;\nint x;\n";

/// `worker` runs `work` and `main` runs `mine`, `m` of type `ty`.
fn program(ty: &str, work: &str, mine: &str) -> String {
    format!(
        "{HEAD}void *worker(void *a) {{\n{work}\n  return 0;\n}}\n\
         int main(void) {{\n  pthread_t t;\n  pthread_mutexattr_init(&attr);\n  pthread_mutexattr_settype(&attr, {ty});\n\
         \x20 pthread_mutex_init(&m, &attr);\n  pthread_mutexattr_destroy(&attr);\n  pthread_create(&t, 0, worker, 0);\n\
         {mine}\n  pthread_join(t, 0);\n  return 0;\n}}\n"
    )
}

const GUARDED: &str = "  pthread_mutex_lock(&m);\n  x = 1;\n  x = 0;\n  pthread_mutex_unlock(&m);";

#[test]
fn an_unlock_by_a_thread_that_does_not_hold_an_error_checking_mutex_changes_nothing() {
    let stray = "  pthread_mutex_unlock(&m);\n  pthread_mutex_lock(&m);\n  if (x != 0) reach_error();\n  pthread_mutex_unlock(&m);";
    assert!(!fails(&read(&program("PTHREAD_MUTEX_ERRORCHECK", GUARDED, stray))));
    // A normal mutex has no owner: the stray unlock frees the worker's lock.
    assert!(fails(&read(&program("PTHREAD_MUTEX_NORMAL", GUARDED, stray))));
}

#[test]
fn a_recursive_mutex_counts_and_an_error_checking_one_refuses_the_second_lock() {
    let twice = "  pthread_mutex_lock(&m);\n  pthread_mutex_lock(&m);\n  x = 1;\n  pthread_mutex_unlock(&m);\n  x = 0;\n  pthread_mutex_unlock(&m);";
    let check = "  pthread_mutex_lock(&m);\n  if (x != 0) reach_error();\n  pthread_mutex_unlock(&m);";
    assert!(!fails(&read(&program("PTHREAD_MUTEX_RECURSIVE", twice, check))));
    // The second lock of an error-checking mutex returns an error: the first unlock frees it.
    assert!(fails(&read(&program("PTHREAD_MUTEX_ERRORCHECK", twice, check))));
}

#[test]
fn a_trylock_takes_a_free_mutex_in_one_step_or_yields_busy() {
    for ty in ["PTHREAD_MUTEX_DEFAULT", "PTHREAD_MUTEX_ERRORCHECK"] {
        let taken =
            "  if (!pthread_mutex_trylock(&m)) {\n    if (x != 0) reach_error();\n    pthread_mutex_unlock(&m);\n  }";
        assert!(!fails(&read(&program(ty, GUARDED, taken))), "{ty}");
        let spin = "  while (pthread_mutex_trylock(&m)) {}\n  if (x != 0) reach_error();\n  pthread_mutex_unlock(&m);";
        assert!(!fails(&read(&program(ty, GUARDED, spin))), "{ty}");
        // Its failure is not a lock: the worker may be inside.
        let ignored = "  pthread_mutex_trylock(&m);\n  if (x != 0) reach_error();\n  pthread_mutex_unlock(&m);";
        assert!(fails(&read(&program(ty, GUARDED, ignored))), "{ty}");
        // It fails only while another thread holds the mutex.
        let busy = "  if (pthread_mutex_trylock(&m) == 16) reach_error();";
        assert!(fails(&read(&program(ty, GUARDED, busy))), "{ty}");
        assert!(!fails(&read(&program(ty, "  x = 0;", busy))), "{ty}");
    }
}

#[test]
fn a_create_and_a_join_inside_a_condition_succeed() {
    let source = |check: &str| {
        format!(
            "{HEAD}void *worker(void *a) {{\n  x = 1;\n  return 0;\n}}\n\
             int main(void) {{\n  pthread_t t;\n  if (pthread_create(&t, NULL, worker, NULL)) {{\n    reach_error();\n  }}\n\
             {check}\n  return 0;\n}}\n"
        )
    };
    assert!(!fails(&read(&source("  if (pthread_join(t, NULL) != 0) reach_error();\n  if (x != 1) reach_error();"))));
    assert!(fails(&read(&source("  if (x != 1) reach_error();\n  pthread_join(t, NULL);"))));
}

#[test]
fn what_stays_unread_is_refused_by_name_at_its_place() {
    let cases: &[(&str, &str, usize, usize, &str)] = &[
        ("3", "  x = 0;", 13, 36, "a mutex type that is not a `PTHREAD_MUTEX_` name"),
        (
            "PTHREAD_MUTEX_ERRORCHECK",
            "  pthread_mutexattr_setpshared(&attr, 0);",
            7,
            3,
            "`pthread_mutexattr_setpshared`",
        ),
        ("PTHREAD_MUTEX_NORMAL", "  if (x && pthread_mutex_trylock(&m)) x = 2;", 7, 12, "`pthread_mutex_trylock`"),
    ];
    for (ty, work, line, col, what) in cases {
        let source = program(ty, work, "");
        let d = parse(&source, &Options::default()).expect_err("refused");
        let d = d.iter().next().expect("one");
        let (l, c) = d.line_col(&source);
        assert_eq!((l, c), (*line, *col), "{}\n{source}", d.message);
        assert!(d.message.contains(what), "{}", d.message);
    }
}

/// A mutex pointer whose target changes may lock a plain mutex; an error-checking one reached
/// through it is refused by name, at the call (its owner's steps are not a pointer's choice).
#[test]
fn a_mutex_that_knows_its_owner_is_not_reached_through_a_pointer() {
    let through = "  pthread_mutex_t *p;\n  p = &m;\n  pthread_mutex_lock(p);\n  if (x != 0) reach_error();\n  pthread_mutex_unlock(p);";
    let plain = program("PTHREAD_MUTEX_NORMAL", GUARDED, through);
    let read_plain = |s: &str| parse(s, &Options::default()).unwrap_or_else(|d| panic!("{d:?}"));
    assert!(!fails(&read_plain(&plain)), "the lock through `p` holds the worker out: {plain}");
    let unguarded = plain.replace("  pthread_mutex_lock(p);\n", "");
    assert!(fails(&read_plain(&unguarded)), "{unguarded}");
    let owned = program("PTHREAD_MUTEX_ERRORCHECK", GUARDED, through);
    let Err(d) = parse(&owned, &Options::default()) else { panic!("read: {owned}") };
    let d = d.iter().next().expect("one");
    assert!(d.message.contains("error-checking mutex reached through a pointer"), "{}", d.message);
    let line = owned.lines().position(|l| l.contains("pthread_mutex_lock(p)")).unwrap() + 1;
    assert_eq!(d.line_col(&owned).0, line);
}
