//! pthread C: a forward `goto` out of nested statements (`goto out;` inside loops, `switch`
//! cases and `if` branches, `out:` labelling a later item of an enclosing block), the C
//! cleanup shape of SV-COMP's driver tasks: the jump ends every loop it lies in and skips the
//! rest of every block up to its label.

mod verdict;

use paces_c::pthread::{parse, Options, Reading};
use verdict::fails;

fn read(source: &str) -> Reading {
    let reading = parse(source, &Options::default()).unwrap_or_else(|d| panic!("{d:?}\n{source}"));
    assert!(reading.bounds.iter().all(|b| b.starts_with("nondeterministic values")), "{:?}", reading.bounds);
    reading
}

/// A worker that loops on a nondet choice: case 0 counts and leaves at 3 (before it sets
/// `dev`), case 1 leaves once it counted; `main` joins it and checks `checked`.
fn worker(checked: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\nint __VERIFIER_nondet_int(void);\n\
         int dev;\nint n;\n\
         void *worker(void *arg) {{\n  while (1) {{\n    switch (__VERIFIER_nondet_int()) {{\n\
         \x20     case 0:\n        n = n + 1;\n        if (n == 3)\n          goto done;\n        dev = n;\n        break;\n\
         \x20     case 1:\n        if (n >= 1) {{\n          goto done;\n        }}\n        break;\n    }}\n  }}\n\
         done:\n  n = n + 10;\n  return 0;\n}}\n\
         int main(void) {{\n  pthread_t t;\n  pthread_create(&t, 0, worker, 0);\n  pthread_join(t, 0);\n\
         \x20 if (!({checked})) reach_error();\n  return 0;\n}}\n"
    )
}

#[test]
fn a_jump_out_of_a_loop_in_a_switch_ends_the_loop_and_skips_to_its_label() {
    // Leaving by case 1 finds `dev == n`; leaving at 3 skips `dev = 3`.
    assert!(!fails(&read(&worker("dev == n - 10 || (n == 13 && dev == 2)"))));
    assert!(!fails(&read(&worker("n >= 11 && n <= 13"))));
    // Each way out is taken on some run, and the label's statements run after both.
    assert!(fails(&read(&worker("n == 13"))));
    assert!(fails(&read(&worker("n != 13"))));
    assert!(fails(&read(&worker("dev == n - 10"))));
}

/// Two nested loops left from the inner one when `i + j == hit`; a `return` between the loops
/// and the label.
fn nested(hit: i32, checked: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\n\
         int main(void) {{\n  int i = 0;\n  int j = 0;\n  while (i < 3) {{\n    j = 0;\n    while (j < 3) {{\n\
         \x20     if (i + j == {hit})\n        goto out;\n      j = j + 1;\n    }}\n    i = i + 1;\n  }}\n  return 0;\n\
         out:\n  if (!({checked})) reach_error();\n  return 0;\n}}\n"
    )
}

#[test]
fn a_jump_out_of_nested_loops_keeps_their_variables_and_a_return_before_the_label_holds() {
    assert!(!fails(&read(&nested(3, "i == 1 && j == 2"))));
    assert!(fails(&read(&nested(3, "i == 2"))));
    // No jump: the `return` before the label ends `main`, the label's statements never run.
    assert!(!fails(&read(&nested(9, "0"))));
}

fn refusal(source: &str) -> (String, usize, usize, String) {
    let d = parse(source, &Options::default()).expect_err("refused");
    let d = d.iter().next().expect("one");
    let (line, col) = d.line_col(source);
    (d.code.to_owned(), line, col, d.message.clone())
}

#[test]
fn what_stays_unread_is_refused_by_name_at_its_place() {
    let head = "#include <pthread.h>\nint x;\nint __VERIFIER_nondet_int(void);\n";
    let cases: &[(&str, usize, usize, &str)] = &[
        // A loop on a nondet value cannot take the flag into its condition.
        (
            "int main(void) {\n  while (__VERIFIER_nondet_int()) {\n    if (x) goto out;\n    x = 1;\n  }\nout:\n  return 0;\n}\n",
            5,
            3,
            "a `goto` out of a loop on a nondet value",
        ),
        // A jump into a block is not out of one.
        (
            "int main(void) {\n  if (x) goto in;\n  if (x == 0) {\n  in:\n    x = 2;\n  }\n  return 0;\n}\n",
            5,
            10,
            "a `goto` other than",
        ),
    ];
    for (body, line, col, what) in cases {
        let source = format!("{head}{body}");
        let (code, l, c, message) = refusal(&source);
        assert_eq!((code.as_str(), l, c), ("C0410", *line, *col), "{message}\n{source}");
        assert!(message.contains(what), "{message}");
    }
}
