//! pthread C: an atomic section that a `return` leaves from a nested block (`begin(); if (c)
//! { end(); return -1; } ...; end(); return 0;`), as the KISS-derived tasks write it.

mod verdict;

use paces_c::pthread::{parse, Options, Reading};
use verdict::fails;

fn read(source: &str) -> Reading {
    let reading = parse(source, &Options::default()).unwrap_or_else(|d| panic!("{d:?}\n{source}"));
    assert!(reading.bounds.is_empty(), "{:?}", reading.bounds);
    reading
}

/// `enter` fails once `stopping` is set, else counts itself in `pending`, in one section
/// (`enter` as given); the stopper waits for `pending` to drop to 0; `main` runs `check`.
fn program(enter: &str, check: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\nint stopping;\nint pending = 1;\nint stopped;\nint entered;\n\
         {enter}\n\
         void leave() {{\n  __VERIFIER_atomic_begin();\n  pending = pending - 1;\n  __VERIFIER_atomic_end();\n}}\n\
         void *stopper(void *a) {{\n  stopping = 1;\n  leave();\n  __VERIFIER_assume(pending == 0);\n  stopped = 1;\n  return 0;\n}}\n\
         int main(void) {{\n  pthread_t t;\n  pthread_create(&t, 0, stopper, 0);\n  int r = enter();\n{check}\n  return 0;\n}}\n"
    )
}

const ENTER: &str = "int enter() {\n  __VERIFIER_atomic_begin();\n  if (stopping) {\n    __VERIFIER_atomic_end();\n    return -1;\n  }\n  \
    pending = pending + 1;\n  entered = 1;\n  __VERIFIER_atomic_end();\n  return 0;\n}";

#[test]
fn a_return_leaves_the_section_and_skips_the_rest_of_it() {
    let inside = "  if (r == 0) {\n    if (stopped) reach_error();\n    leave();\n  }";
    assert!(!fails(&read(&program(ENTER, inside))));
    assert!(!fails(&read(&program(ENTER, "  if (r != 0 && entered) reach_error();"))));
    assert!(!fails(&read(&program(ENTER, "  if (r == 0 && !entered) reach_error();"))));
    // Both ways out are taken on some run.
    assert!(fails(&read(&program(ENTER, "  if (r != 0) reach_error();"))));
    assert!(fails(&read(&program(ENTER, "  if (r == 0) reach_error();"))));
    // The test and the count in two sections: the stopper may stop in between.
    let split =
        ENTER.replace("  }\n  pending", "  }\n  __VERIFIER_atomic_end();\n  __VERIFIER_atomic_begin();\n  pending");
    assert!(fails(&read(&program(&split, inside))));
}

#[test]
fn an_end_in_a_nested_block_not_right_before_a_plain_return_is_refused() {
    for (from, to) in
        [("    return -1;", "    entered = 2;\n    return -1;"), ("    return -1;", "    return pending;")]
    {
        let source = program(&ENTER.replace(from, to), "");
        let d = parse(&source, &Options::default()).expect_err("refused");
        let d = d.iter().next().expect("one");
        assert_eq!((d.code, d.line_col(&source)), ("C0415", (10, 5)), "{}\n{source}", d.message);
        assert!(d.message.contains("`__VERIFIER_atomic_end()` without its begin"), "{}", d.message);
    }
}
