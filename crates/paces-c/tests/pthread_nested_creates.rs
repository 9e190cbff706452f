//! pthread C: `pthread_create` outside `main`, in a thread that creates another (and joins it
//! or not), read when each create runs at most once; a create in a thread that may run more
//! than once is refused by name at the create.

mod verdict;

use paces_c::pthread::{parse, Options};
use verdict::fails;

/// `main` creates `outer`, which creates `inner` through `spawn`; `inner` writes `x = 2`
/// after `outer` wrote `x = 1`. `JOIN` is where `outer` waits (or not) for `inner`; `main`
/// joins `outer` through `finish`, a function read before `spawn` since `main` calls it first
/// in the text, then checks `CHECK`.
fn program(join: &str, check: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\nint x;\npthread_t a, b;\n\
         void finish(void) {{ pthread_join(a, 0); }}\n\
         void *inner(void *p) {{ x = 2; return 0; }}\n\
         void spawn(void) {{ pthread_create(&b, 0, inner, 0); }}\n\
         void *outer(void *p) {{\n  x = 1;\n  spawn();\n{join}\n  return 0;\n}}\n\
         int main(void) {{\n  pthread_create(&a, 0, outer, 0);\n  finish();\n  if ({check}) reach_error();\n  return 0;\n}}\n"
    )
}

#[test]
fn a_thread_creates_and_joins_another() {
    let joined = program("  pthread_join(b, 0);", "x != 2");
    let reading = parse(&joined, &Options::default()).unwrap_or_else(|d| panic!("{d:?}\n{joined}"));
    assert_eq!(reading.program.threads.len(), 3);
    assert!(reading.bounds.is_empty(), "{:?}", reading.bounds);
    // `inner` ran and finished before `outer` did: `x` is 2.
    assert!(!fails(&reading));
    let wrong = program("  pthread_join(b, 0);", "x == 2");
    assert!(fails(&parse(&wrong, &Options::default()).expect("read")));
}

#[test]
fn a_thread_created_and_not_joined_may_run_late() {
    // `outer` does not wait: `inner` may not have run when `main` checks.
    let source = program("", "x != 2");
    assert!(fails(&parse(&source, &Options::default()).expect("read")));
    let never_zero = program("", "x == 0");
    assert!(!fails(&parse(&never_zero, &Options::default()).expect("read")));
}

#[test]
fn a_create_in_a_thread_loop_is_refused_at_the_create() {
    // `outer` calls `spawn` in a loop: `inner` would be created once per round.
    let source = program("  pthread_join(b, 0);", "0").replace("  spawn();\n", "  while (x < 3) { spawn(); x++; }\n");
    let d = parse(&source, &Options::default()).expect_err("refused");
    let d = d.iter().next().expect("one");
    assert_eq!((d.code, d.line_col(&source)), ("C0410", (7, 20)), "{}\n{source}", d.message);
    assert!(d.message.contains("`pthread_create` in a thread other than `main`"), "{}", d.message);
}

#[test]
fn a_join_after_a_call_that_creates_finds_its_thread() {
    for join in ["pthread_join(b, 0)", "wait_b()"] {
        let source = format!(
            "#include <pthread.h>\nvoid reach_error() {{}}\nint x;\npthread_t b;\n\
             void wait_b(void) {{ pthread_join(b, 0); }}\n\
             void *inner(void *p) {{ x = 2; return 0; }}\n\
             void spawn(void) {{ pthread_create(&b, 0, inner, 0); }}\n\
             int main(void) {{\n  spawn();\n  {join};\n  if (x != 2) reach_error();\n  return 0;\n}}\n"
        );
        let reading = parse(&source, &Options::default()).unwrap_or_else(|d| panic!("{d:?}\n{source}"));
        assert!(!fails(&reading), "{join}");
        assert!(fails(&parse(&source.replace("x != 2", "x == 2"), &Options::default()).expect("read")), "{join}");
    }
}
