//! pthread C: numbers read out of `argv` (`sscanf(argv[1], "%d", &n)`, `atoi(argv[1])`) as
//! values of the nondet range, a `pthread_t` array sized by such a value, and
//! `err = pthread_create(...)` inside a condition, as the pthread `reorder` tasks write them.

mod verdict;

use paces_c::pthread::{parse, Options, Reading};
use verdict::fails;

const NONDET: &str = "nondeterministic values in 0..";

fn read(source: &str, hi: i64) -> Reading {
    let options = Options { nondet: (0, hi), ..Options::default() };
    let reading = parse(source, &options).unwrap_or_else(|d| panic!("{d:?}\n{source}"));
    assert!(reading.bounds.iter().any(|b| b.starts_with(NONDET)), "{:?}", reading.bounds);
    reading
}

/// `n` workers (1 unless the command line gives a number) each add 1 to `x` in two steps.
fn program(set_n: &str, check: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\nint x;\n\
         void *w(void *a) {{ x = x + 1; return 0; }}\n\
         int main(int argc, char *argv[]) {{\n  int n = 1, i, err;\n  if (argc == 2) {{\n{set_n}\n  }}\n\
         \x20 pthread_t t[n];\n\
         \x20 for (i = 0; i < n; i++) {{\n    if (0 != (err = pthread_create(&t[i], 0, w, 0))) exit(-1);\n  }}\n\
         \x20 for (i = 0; i < n; i++) pthread_join(t[i], 0);\n\
         \x20 if ({check}) reach_error();\n  return 0;\n}}\n"
    )
}

#[test]
fn a_number_read_from_argv_is_a_nondet_value() {
    for set in ["    sscanf(argv[1], \"%d\", &n);", "    n = atoi(argv[1]);"] {
        // One worker at most: no lost update.
        assert!(!fails(&read(&program(set, "n < 2 && x != n"), 2)), "{set}");
        // Two workers may lose an update; the number read may be 2.
        assert!(fails(&read(&program(set, "x != n"), 2)), "{set}");
        assert!(fails(&read(&program(set, "n == 2 && x == 2"), 2)), "{set}");
        assert!(!fails(&read(&program(set, "n < 0 || n > 2"), 2)), "{set}");
    }
    // `sscanf` may find no number: `n` keeps its value; `atoi` then gives 0.
    let keep = |set: &str| {
        format!(
            "void reach_error() {{}}\nint main(int argc, char **argv) {{\n  int n = 7;\n  if (argc == 2) {{\n{set}\n  }}\n\
             \x20 if (argc == 2 && n == 7) reach_error();\n  return 0;\n}}\n"
        )
    };
    assert!(fails(&read(&keep("    sscanf(argv[1], \"%d\", &n);"), 2)));
    assert!(!fails(&read(&keep("    n = atoi(argv[1]);"), 2)));
}

#[test]
fn other_uses_of_argv_stay_refused() {
    let cases = [
        ("    puts(argv[1]);", (8, 10), "`argv`, the command line's arguments (strings),"),
        ("    int k; sscanf(argv[1], \"%x\", &k);", (8, 12), "an `sscanf` other than"),
    ];
    for (set, at, what) in cases {
        let source = program(set, "0");
        let refused = parse(&source, &Options::default()).expect_err("refused");
        let first = refused.iter().next().expect("one");
        assert_eq!((first.code, first.line_col(&source)), ("C0410", at), "{}\n{source}", first.message);
        assert!(first.message.contains(what), "{}", first.message);
    }
}
