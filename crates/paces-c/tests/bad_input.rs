//! Everything outside the dialect is a diagnostic with a code and a position in the C
//! source, never a panic.

/// The code and `line:column` of the first diagnostic for `source`.
fn first_error(source: &str) -> (String, String) {
    let diags = paces_c::parse(source).expect_err("the input is rejected");
    let d = diags.iter().next().expect("at least one diagnostic");
    let (line, col) = d.line_col(source);
    (d.code.to_owned(), format!("{line}:{col}"))
}

const MAIN: &str = "void main() { t(); }\n";

#[test]
fn constructs_outside_the_dialect_point_at_themselves() {
    let cases: &[(&str, &str, &str)] = &[
        ("#include <stdio.h>\n", "C0004", "1:1"),
        ("#define F(x) x\n", "C0004", "1:1"),
        ("int a[3];\n", "C0101", "1:6"),
        ("int *p;\n", "C0101", "1:5"),
        ("struct s { int x; };\n", "C0101", "1:1"),
        ("void t() {\n  int i;\n  for (i = 0; i < 2; i++) {}\n}\n", "C0101", "3:3"),
        ("void t() {\n  goto out;\n}\n", "C0101", "2:3"),
        ("void t() {\n  x = 1;\n}\n", "C0108", "2:3"),
        ("int x;\nvoid t() {\n  x = x >> 64;\n}\n", "C0117", "3:12"),
        ("int x;\nvoid t() {\n  x = x << -1;\n}\n", "C0117", "3:12"),
        ("void t() {\n  /* never closed\n}\n", "C0003", "2:3"),
        ("void t() {\n  x = ;\n}\n", "C0005", "2:7"),
    ];
    for (body, code, at) in cases {
        let source = format!("{body}{MAIN}");
        assert_eq!(first_error(&source), (code.to_string(), at.to_string()), "{body}");
    }
}

#[test]
fn cwhile_checks_point_into_the_c_source() {
    let source = "void f() {\n  g();\n}\nvoid g() {\n  f();\n}\nvoid t() {\n  f();\n}\nvoid main() { t(); }\n";
    let (code, at) = first_error(source);
    assert_eq!(code, "E0110", "recursion is found by the Cwhile checks");
    assert!(at == "2:3" || at == "5:3", "at a call of the cycle, not {at}");
}

#[test]
fn a_return_inside_a_loop_is_refused() {
    let source = "int x;\nvoid t() {\n  while (x == 0) {\n    return;\n  }\n}\nvoid main() { t(); }\n";
    assert_eq!(first_error(source).0, "C0204");
}

#[test]
fn hostile_bytes_are_diagnostics() {
    let deep = format!("void t() {{ {}1{}; }}\n{MAIN}", "(".repeat(5000), ")".repeat(5000));
    assert_eq!(first_error(&deep).0, "C0006");
    assert!(paces_c::parse_bytes(b"void t() { \xff }").is_err());
    assert_eq!(first_error("").0, "C0201");
    assert_eq!(first_error("void main() { }\n").0, "C0206");
}

#[test]
fn labels_are_source_lines_and_second_statements_get_a_suffix() {
    let source = "int x, y;\nvoid t() {\n  x = 1; y = 2;\n  if (x == 1) {\n    y = 3;\n  }\n}\nvoid main() { t(); }\n";
    let program = paces_c::parse(source).unwrap();
    for label in ["3", "3.2", "4", "4.then", "4.else", "5"] {
        assert!(program.loc(label).is_some(), "no location {label}");
    }
    let s = program.stmt_at(program.loc("3.2").unwrap()).unwrap();
    let span = program.stmts[s.index()].span;
    assert_eq!(&source[span.start as usize..span.end as usize], "y = 2");
}

#[test]
fn every_prefix_of_every_model_reads_or_is_refused_without_a_panic() {
    let models = [
        include_str!("models/counter.c"),
        include_str!("models/params.c"),
        include_str!("models/tokens.c"),
        include_str!("models/hook.c"),
        include_str!("models/locks.c"),
        include_str!("models/handshake.c"),
    ];
    for source in models {
        for end in (0..source.len()).filter(|&i| source.is_char_boundary(i)) {
            if let Err(d) = paces_c::parse(&source[..end]) {
                let rendered = paces_cwhile::render(&d, "prefix.c", &source[..end], false);
                assert!(rendered.contains("error["), "{rendered}");
            }
        }
    }
}

#[test]
fn complement_and_constant_left_shifts_compute_as_in_c() {
    let source = "int a = 5, b, c, d;\nvoid t() {\n  b = ~a;\n  c = a << 3;\n  d = 1 << 63;\n  assert(b == -6 & c == 40 & d < 0);\n}\nvoid main() { t(); }\n";
    let program = paces_c::parse(source).unwrap();
    let result = paces_explore::check(&program, &paces_explore::Config::new()).unwrap();
    assert_eq!(result.verdict.name(), "correct", "{}", result.verdict);
}

/// Runs `f` on a thread with a 2 MiB stack (a debug build's test thread has as much).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(2 << 20).spawn(f).expect("a thread").join().expect("the thread finishes")
}

/// A thread assigning `x = EXPR;` (on line 3) and asserting `x == value`.
fn assigning(expr: &str, value: i64) -> String {
    format!("int x;\nvoid t() {{\n  x = {expr};\n  assert(x == {value});\n}}\n{MAIN}")
}

#[test]
fn long_chains_are_read_within_a_small_stack() {
    for (op, value) in [("+", 10_001), ("*", 1), ("&&", 1), ("==", 1), ("-", -9_999)] {
        let src = assigning(&format!("1{}", format!(" {op} 1").repeat(10_000)), value);
        let verdict = on_small_stack(move || {
            let p = paces_c::parse(&src).unwrap_or_else(|d| panic!("`{op}`: {d}"));
            paces_explore::check(&p, &paces_explore::Config::new()).map(|r| r.verdict.name() == "correct")
        });
        assert_eq!(verdict.ok(), Some(true), "`{op}` chain");
    }
    // The most operators a statement may hold: `x = ` and 19,999 `+`.
    let src = assigning(&format!("1{}", " + 1".repeat(19_999)), 20_000);
    assert!(on_small_stack(move || paces_c::parse(&src).is_ok()));
}

#[test]
fn a_statement_with_too_many_operators_is_refused_where_it_passes_the_bound() {
    // `x = ` holds the first operator (column 5); the 20,001st is on column 5 + 4 * 20,000.
    let src = assigning(&format!("1{}", " + 1".repeat(30_000)), 0);
    assert_eq!(first_error(&src), ("C0009".to_owned(), format!("3:{}", 5 + 4 * 20_000)));
    // The bound is per statement: two statements of 15,000 each are fine.
    let half = format!("1{}", " + 1".repeat(15_000));
    let two = format!("int x;\nvoid t() {{\n  x = {half};\n  x = {half};\n}}\n{MAIN}");
    assert!(on_small_stack(move || paces_c::parse(&two).is_ok()));
}

#[test]
fn a_long_run_of_prefix_operators_is_refused() {
    // `x = ` then 10,000 `- `: the `=` is the first of the run, the 201st is the 200th `-`.
    let src = assigning(&format!("{}1", "- ".repeat(10_000)), 0);
    assert_eq!(first_error(&src), ("C0006".to_owned(), format!("3:{}", 7 + 2 * 199)));
    let fine = assigning(&format!("{}1", "- ".repeat(100)), 1);
    assert!(on_small_stack(move || paces_c::parse(&fine).is_ok()));
    // Assignments nest to the right: the 201st `=` of `x = x = ...` is refused.
    let src = format!("int x;\nvoid t() {{\n  x{} = 1;\n}}\n{MAIN}", " = x".repeat(10_000));
    assert_eq!(first_error(&src), ("C0006".to_owned(), format!("3:{}", 5 + 4 * 200)));
}

#[test]
fn a_long_run_of_signs_is_refused_before_the_parser_tries_every_reading() {
    // At a statement's start the parser would try each split of the run into `++`, `--`,
    // `+` and `-`: 128 of them would take it years. The 17th sign is on column 17.
    let run = "-".repeat(128);
    let src = format!("int x;\nvoid t() {{\n{run} while (nondet == 1) {{ x = 1; }}\n}}\n{MAIN}");
    assert_eq!(first_error(&src), ("C0006".to_owned(), "3:17".to_owned()));
    let mixed = format!("int x;\nvoid t() {{\n  x = 1 {} 1;\n}}\n{MAIN}", "+-".repeat(20));
    assert_eq!(first_error(&mixed).0, "C0006");
    // Sixteen in a row are handed on (and read as C reads them).
    let sixteen = format!("int x;\nvoid t() {{\n  x = 1 {} 1;\n}}\n{MAIN}", "-".repeat(16));
    assert_ne!(first_error(&sixteen).0, "C0006", "{sixteen}");
}

#[test]
fn a_long_run_of_signs_is_refused_in_pthread_c_too() {
    let run = "-".repeat(128);
    let src = format!(
        "#include <pthread.h>\nint x;\nvoid *t(void *a) {{\n{run} while (x) {{ x = 1; }}\n  return 0;\n}}\n\
         int main() {{ pthread_t a; pthread_create(&a, 0, t, 0); return 0; }}\n"
    );
    let diags = paces_c::pthread::parse(&src, &paces_c::pthread::Options::default()).expect_err("refused");
    let d = diags.iter().next().expect("a diagnostic");
    let (line, col) = d.line_col(&src);
    assert_eq!((d.code, line, col), ("C0006", 4, 17));
}
