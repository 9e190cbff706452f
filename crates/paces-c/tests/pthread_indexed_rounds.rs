//! pthread C: `for (i = 0; i < n; i++) pthread_create(&t[i], ...)` with `n` nondet, as the
//! pthread-nondet tasks write it: rounds up to `--thread-rounds`, `i` a constant in each, so
//! that `t[i]` names one handle per round; a path on which the loop would go on is cut, a
//! bound the reading names.

mod verdict;

use paces_c::pthread::{parse, Options, Reading};
use verdict::fails;

const ROUNDS: &str = "loops that create threads cut after 2 round(s)";

fn read(source: &str, hi: i64) -> Reading {
    let options = Options { nondet: (0, hi), ..Options::default() };
    let reading = parse(source, &options).unwrap_or_else(|d| panic!("{d:?}\n{source}"));
    assert!(reading.bounds.iter().any(|b| b == ROUNDS), "{:?}", reading.bounds);
    reading
}

/// `n` nondet workers each add 1 to `x` (two steps: a lost update may happen), joined by
/// handle; then `check`.
fn program(body: &str, check: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\nint x;\n\
         void *thr(void *a) {{\n  x = x + 1;\n  return 0;\n}}\n\
         int main(void) {{\n  pthread_t t[4];\n  int n = __VERIFIER_nondet_int();\n  int i;\n\
         \x20 for (i = 0; i < n; i++) {{\n{body}\n  }}\n  for (i = 0; i < n; i++) pthread_join(t[i], 0);\n\
         \x20 if ({check}) reach_error();\n  return 0;\n}}\n"
    )
}

const CREATE: &str = "    pthread_create(&t[i], 0, thr, 0);";

#[test]
fn each_round_creates_the_thread_its_index_names() {
    // One worker at most: no lost update, and `i` ends at `n`.
    assert!(!fails(&read(&program(CREATE, "x != n || i != n"), 1)));
    // Two workers race on `x`.
    assert!(fails(&read(&program(CREATE, "x != n"), 2)));
    assert!(!fails(&read(&program(CREATE, "x > n || i != n"), 2)));
    // A third round is cut: no run of the model gets past the loop with `n == 3`.
    assert!(!fails(&read(&program(CREATE, "n == 3"), 3)));
    assert!(fails(&read(&program(CREATE, "n == 2"), 3)));
}

#[test]
fn a_loop_that_changes_its_index_stays_refused() {
    let source = program("    pthread_create(&t[i], 0, thr, 0);\n    i = i + 0;", "0");
    let d = parse(&source, &Options::default()).expect_err("refused");
    let d = d.iter().next().expect("one");
    assert_eq!((d.code, d.line_col(&source)), ("C0410", (13, 20)), "{}\n{source}", d.message);
    assert!(d.message.contains("a thread handle that is not"), "{}", d.message);
}
