//! The caret line of a rendered C diagnostic underlines exactly the text it points at, in both
//! C dialects: the C parser's expression nodes end after the blanks that follow them, which
//! the frontends cut off.

use paces_c::pthread::{self, Options, Preprocessor};

/// The line of `rendered` that holds the carets.
#[track_caller]
fn caret_line(rendered: &str) -> String {
    let lines: Vec<&str> = rendered.lines().filter(|l| l.contains('^')).collect();
    assert_eq!(lines.len(), 1, "one caret line:\n{rendered}");
    lines[0].to_owned()
}

/// The paper's dialect: a global `x`, a macro `N`, a function `g`, and `t1` with `body` on
/// line 3, which `main` calls. The rendered first diagnostic's code and caret line.
fn paper(body: &str) -> (String, String) {
    let source =
        format!("#define N 1\nint x; int g() {{ return 1; }}\nvoid t1() {{ {body} }}\nvoid main() {{ t1(); }}\n");
    let diags = paces_c::parse(&source).expect_err("the model is refused");
    let first = paces_cwhile::Diagnostics::new(vec![diags.as_slice()[0].clone()]).unwrap();
    (first.as_slice()[0].code.to_owned(), caret_line(&paces_cwhile::render(&first, "t.c", &source, false)))
}

/// pthread C: a global `x` and the thread function `t1` with `body` on line 3, which `main`
/// starts. The rendered first diagnostic's code and caret line, the same with either
/// preprocessor.
fn posix(body: &str) -> (String, String) {
    let source = format!(
        "#include <pthread.h>\nint x;\nvoid *t1(void *arg) {{ {body} return NULL; }}\nint main() {{ pthread_t a; pthread_create(&a, NULL, t1, NULL); return 0; }}\n"
    );
    let mut seen = Vec::new();
    for which in [Preprocessor::Own, Preprocessor::Auto] {
        let diags = pthread::parse(&source, &Options { preprocessor: which, ..Options::default() })
            .expect_err("the program is refused");
        let first = paces_cwhile::Diagnostics::new(vec![diags.as_slice()[0].clone()]).unwrap();
        seen.push((
            first.as_slice()[0].code.to_owned(),
            caret_line(&paces_cwhile::render(&first, "t.c", &source, false)),
        ));
    }
    assert_eq!(seen[0], seen[1], "both preprocessors");
    seen.remove(0)
}

fn pair(code: &str, line: &str) -> (String, String) {
    (code.to_owned(), line.to_owned())
}

#[test]
fn an_unknown_variable_is_underlined_exactly() {
    assert_eq!(paper("x = y + 1;"), pair("C0108", "  │                 ^ not declared"));
    assert_eq!(paper("x = yyy + 1;"), pair("C0108", "  │                 ^^^ not declared"));
    assert_eq!(paper("x = yyy   + 1;"), pair("C0108", "  │                 ^^^ not declared"));
    assert_eq!(paper("y = 1;"), pair("C0108", "  │             ^ not declared"));
    assert_eq!(paper("x = 1 + y ;"), pair("C0108", "  │                     ^ not declared"));
}

#[test]
fn other_expressions_of_the_paper_dialect_are_underlined_exactly() {
    assert_eq!(paper("N = 1;"), pair("C0107", "  │             ^ assigned here"));
    assert_eq!(paper("x = x << 70 ;"), pair("C0117", "  │                      ^^ the amount must be from 0 to 63"));
    // Literals and calls end where their text ends.
    assert_eq!(
        paper("x = 99999999999999999999 + 1;"),
        pair("C0114", "  │                 ^^^^^^^^^^^^^^^^^^^^ does not fit in 64 bits")
    );
    assert_eq!(paper("x = g() + 1;"), pair("C0116", "  │                 ^^^ call it as a statement `x = f(...);`"));
}

#[test]
fn an_unknown_name_of_pthread_c_is_underlined_exactly() {
    assert_eq!(posix("x = y + 1;"), pair("C0416", "  │                           ^ unknown name"));
    assert_eq!(posix("x = yyy + 1;"), pair("C0416", "  │                           ^^^ unknown name"));
    assert_eq!(posix("y = 1;"), pair("C0416", "  │                       ^ unknown name"));
}

#[test]
fn other_expressions_of_pthread_c_are_underlined_exactly() {
    assert_eq!(posix("x = x & 1 ;"), pair("C0410", "  │                           ^^^^^ not supported"));
    // A call ends where its text ends.
    assert_eq!(
        posix("x = malloc(4) + 1;"),
        pair(
            "C0421",
            "  │                           ^^^^^^^^^ only the program's own functions are called inside expressions (outside `&&` and `||`)"
        )
    );
}
