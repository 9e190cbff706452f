//! pthread C: function pointers whose targets are known at read time. A pointer holds a
//! function's number; a call through it chooses among the functions whose address the
//! program takes by that number.

mod verdict;

use paces_c::pthread::{parse, Options, Reading};
use verdict::fails;

fn read(source: &str) -> Reading {
    parse(source, &Options::default()).unwrap_or_else(|d| panic!("{d:?}\n{source}"))
}

/// A thread calls through the global `f`, which starts as `one`; `main` runs `MAIN` while
/// the thread may run, joins it, then checks `CHECK`.
fn global(main: &str, check: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\nint x;\n\
         void one() {{ x = 1; }}\nvoid two() {{ x = 2; }}\nvoid (*f)() = one;\n\
         void *t(void *a) {{ f(); return 0; }}\n\
         int main(void) {{\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n{main}\n  pthread_join(h, 0);\n\
         \x20 if ({check}) reach_error();\n  return 0;\n}}\n"
    )
}

#[test]
fn a_call_through_a_global_runs_the_function_it_holds() {
    // Never reassigned: the thread runs `one`.
    assert!(!fails(&read(&global("", "x != 1"))));
    // `main` sets `f = two` while the thread may call through it: either may run.
    let set = "  f = two;";
    assert!(!fails(&read(&global(set, "x != 1 && x != 2"))));
    assert!(fails(&read(&global(set, "x == 1"))));
    assert!(fails(&read(&global(set, "x == 2"))));
    // `&two` is the same value; set before the thread starts, the thread runs `two`.
    let before = global("", "x != 2").replace("  pthread_create", "  f = &two;\n  pthread_create");
    assert!(!fails(&read(&before)));
}

/// A function taking a callback and a value, called with `inc` and `dbl` in turn.
fn callback(body: &str, check: &str) -> String {
    format!(
        "void reach_error() {{}}\nint x;\n\
         int inc(int a) {{ return a + 1; }}\nint dbl(int a) {{ return a * 2; }}\n\
         void apply(int (*cb)(int), int v) {{\n{body}\n}}\n\
         int main(void) {{\n  apply(inc, 3);\n  int y = x;\n  int (*g)(int) = &dbl;\n  apply(g, 5);\n\
         \x20 if ({check}) reach_error();\n  return 0;\n}}\n"
    )
}

#[test]
fn a_callback_parameter_calls_the_function_passed() {
    for body in ["  x = cb(v);", "  x = (*cb)(v);", "  int r = cb(v);\n  x = r;"] {
        assert!(!fails(&read(&callback(body, "y != 4 || x != 10"))), "{body}");
        assert!(fails(&read(&callback(body, "y == 4 && x == 10"))), "{body}");
    }
}

#[test]
fn a_call_through_no_function_ends_the_path() {
    // `f` holds no function: the call crashes the program, which never reaches the error.
    let source = "void reach_error() {}\nvoid one() {}\nvoid (*f)() = one;\n\
         int main(void) {\n  void (*g)();\n  g = 0;\n  g();\n  reach_error();\n  return 0;\n}\n";
    assert!(!fails(&read(source)));
    assert!(fails(&read(&source.replace("g = 0", "g = f"))));
}

#[test]
fn a_call_no_addressed_function_fits_is_refused() {
    // No function taking one argument has its address taken.
    let source = "void reach_error() {}\nvoid one() {}\nvoid (*f)(int) = one;\n\
         int main(void) {\n  f(1);\n  return 0;\n}\n";
    let d = parse(source, &Options::default()).expect_err("refused");
    let d = d.iter().next().expect("one");
    assert_eq!((d.code, d.line_col(source)), ("C0410", (5, 3)), "{}", d.message);
    assert!(d.message.contains("a call through a pointer with 1 argument(s)"), "{}", d.message);
    // A library function given a callback stays refused by name.
    let ftw = "void reach_error() {}\nint cb(const char *p, int f) { return 0; }\n\
         int main(void) {\n  ftw(\".\", cb, 10);\n  return 0;\n}\n";
    let d = parse(ftw, &Options::default()).expect_err("refused");
    let d = d.iter().next().expect("one");
    assert_eq!((d.code, d.line_col(ftw)), ("C0414", (4, 3)), "{}", d.message);
    assert!(d.message.contains("`ftw`"), "{}", d.message);
}
