//! Every bad input gets a diagnostic with a stable code at the right line:column, and no
//! input makes the parser panic or overflow the stack.

use paces_cwhile::{parse, parse_bytes};

/// Asserts that `source` fails with `code` as its first diagnostic, at `line:col`.
#[track_caller]
fn check(source: &str, code: &str, line: usize, col: usize) {
    let diags = parse(source).expect_err("the program must be rejected");
    let first = &diags.as_slice()[0];
    assert_eq!(first.code, code, "diagnostics: {diags}");
    assert_eq!(first.line_col(source), (line, col), "diagnostics: {diags}");
}

#[test]
fn unknown_variable() {
    check("var x;\nthread t {\n  assert(y == 1);\n}\n", "E0101", 3, 10);
}

#[test]
fn assignment_to_unknown_variable() {
    check("var x;\nthread t {\n  A: y := 1;\n}\n", "E0102", 3, 6);
}

#[test]
fn duplicate_label() {
    check("var x;\nthread t {\n  A: x := 1;\n  A: x := 2;\n}\n", "E0103", 4, 3);
}

#[test]
fn explicit_label_colliding_with_a_generated_one() {
    // The first statement's generated label is `t.0`.
    check("var x;\nthread t {\n  x := 1;\n  t.0: x := 2;\n}\n", "E0103", 4, 3);
}

/// A written label `t.K` out of its place sets the count of generated labels on (the form a
/// repaired program is printed in: the statements after it keep their names).
#[test]
fn a_generated_form_label_sets_the_count_on() {
    let p = parse("var x;\nthread t {\n  t.1: x := 1;\n  x := 2;\n  t.0: x := 3;\n  x := 4;\n}\n").unwrap();
    let labels: Vec<&str> = p.stmts.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["t.1", "t.2", "t.0", "t.3"]);
}

#[test]
fn duplicate_thread() {
    check("thread t { skip; }\nthread t { skip; }\n", "E0104", 2, 8);
}

#[test]
fn duplicate_proc() {
    check("proc p { skip; }\nproc p { skip; }\nthread t { p(); }\n", "E0105", 2, 6);
}

#[test]
fn proc_named_like_a_thread() {
    check("thread t { skip; }\nproc t { skip; }\n", "E0105", 2, 6);
}

#[test]
fn duplicate_variable() {
    check("var x = 1;\nvar y, x;\nthread t { skip; }\n", "E0106", 2, 8);
    check("thread t {\n  local a, a;\n  skip;\n}\n", "E0106", 2, 12);
}

#[test]
fn local_named_like_a_global() {
    check("var x;\nthread t {\n  local x = 2;\n  skip;\n}\n", "E0107", 3, 9);
    check("var x;\nproc p {\n  local x;\n  skip;\n}\nthread t { p(); }\n", "E0107", 3, 9);
}

/// Asserts that `source` parses and that its Promela export is refused, naming the atomic
/// block `label` at `line:col`.
#[track_caller]
fn export_refused(source: &str, label: &str, line: usize, col: usize) {
    let p = parse(source).unwrap_or_else(|d| panic!("an await anywhere in an atomic block is accepted: {d}"));
    let err = paces_cwhile::to_promela(&p, source).expect_err("the export must refuse it");
    assert_eq!(err.kind(), &paces_cwhile::ErrorKind::WaitInAtomic);
    let text = err.to_string();
    assert!(text.contains(&format!("atomic block `{label}` at {line}:{col}")), "{text}");
}

#[test]
fn await_not_first_in_atomic() {
    export_refused("var x;\nthread t {\n  A: atomic {\n    x := 1;\n    await(x == 1);\n  }\n}\n", "A", 3, 6);
}

#[test]
fn await_nested_in_if_inside_atomic() {
    export_refused(
        "var x;\nthread t {\n  atomic {\n    if (x == 0) {\n      await(x == 1);\n    }\n  }\n}\n",
        "t.0",
        3,
        3,
    );
}

#[test]
fn lock_after_first_step_of_atomic() {
    export_refused("var m, x;\nthread t {\n  K: atomic {\n    x := 1;\n    lock(m);\n  }\n}\n", "K", 3, 6);
}

#[test]
fn await_through_call_inside_atomic() {
    export_refused(
        "var x;\nproc w { await(x == 1); }\nthread t {\n  K: atomic {\n    x := 1;\n    w();\n  }\n}\n",
        "K",
        4,
        6,
    );
}

/// SPIN would show what a block did before a false `assume` to the other processes: only a
/// block's first step may be an `assume` in an exported program.
#[test]
fn assume_after_first_step_of_atomic() {
    export_refused("var x;\nthread t {\n  K: atomic {\n    x := 1;\n    assume(x == 2);\n  }\n}\n", "K", 3, 6);
    let src = "var x;\nthread t {\n  K: atomic {\n    x := 1;\n    assume(x == 2);\n  }\n}\n";
    let err = paces_cwhile::to_promela(&parse(src).unwrap(), src).unwrap_err();
    assert!(err.to_string().contains("may stop at an `assume` after its first step (at `t.2`, 5:5)"), "{err}");
    let first = "var x;\nthread t { K: atomic { noreorder { assume(x == 0); } x := 1; } }";
    assert!(paces_cwhile::to_promela(&parse(first).unwrap(), first).is_ok());
}

#[test]
fn await_first_in_atomic_is_fine() {
    let ok = [
        "var x;\nthread t { atomic { await(x == 1); x := 2; } }",
        "var m, x;\nthread t { atomic { lock(m); x := 2; } }",
        "var m, x;\nthread t { atomic { atomic { await(m == 0); m := 1; } x := 2; } }",
        "var x;\nproc w { await(x == 1); }\nthread t { atomic { w(); x := 2; } }",
    ];
    for src in ok {
        let p = parse(src).unwrap_or_else(|d| panic!("{src}: {d}"));
        // A wait that opens the block has a Promela model.
        assert!(paces_cwhile::to_promela(&p, src).is_ok(), "{src}");
    }
}

#[test]
fn call_to_unknown_procedure() {
    check("thread t {\n  f();\n}\n", "E0109", 2, 3);
}

#[test]
fn direct_recursion() {
    check("proc p {\n  p();\n}\nthread t { p(); }\n", "E0110", 2, 3);
}

#[test]
fn indirect_recursion_names_the_cycle() {
    let src = "proc p { q(); }\nproc q { r(); }\nproc r { p(); }\nthread t { p(); }\n";
    check(src, "E0110", 3, 10);
    let d = parse(src).unwrap_err();
    assert!(d.as_slice()[0].message.contains("`p` -> `q` -> `r` -> `p`"), "{d}");
}

#[test]
fn integer_literal_out_of_range() {
    check("var x;\nthread t {\n  x := 9223372036854775808;\n}\n", "E0111", 3, 8);
    check("var x = 99999999999999999999999999999999999999999999;\nthread t { skip; }\n", "E0111", 1, 9);
    // The most negative value is fine.
    assert!(parse("var x = -9223372036854775808;\nthread t { x := -9223372036854775808; }").is_ok());
}

#[test]
fn no_thread() {
    check("var x;\nproc p { skip; }\n", "E0112", 1, 1);
}

#[test]
fn sync_on_a_local() {
    check("thread t {\n  local m;\n  lock(m);\n}\n", "E0113", 3, 8);
}

#[test]
fn callee_local_outside_its_callers() {
    // Visible to a body that calls the procedure ...
    let ok = "proc p {\n  local a;\n  a := a + 1;\n}\nthread t {\n  p.a := 2;\n  p();\n  assert(p.a == 3);\n}\n";
    assert!(parse(ok).is_ok());
    // ... and nowhere else.
    check("proc p {\n  local a;\n  skip;\n}\nthread t {\n  p.a := 2;\n}\n", "E0114", 6, 3);
    check("proc p {\n  local a;\n  skip;\n}\nthread t {\n  p();\n  assert(p.b == 0);\n}\n", "E0114", 7, 10);
    check("var x;\nthread t {\n  x := q.a;\n}\n", "E0114", 3, 8);
    check("var x;\nthread t {\n  local a;\n  x := t.a;\n}\n", "E0114", 4, 8);
    check("var x;\nproc p {\n  local a;\n  skip;\n}\nthread t {\n  p();\n  x := p.a.b;\n}\n", "E0114", 8, 8);
    let diags = parse("proc p {\n  local a;\n  skip;\n}\nthread t {\n  p.a := 2;\n}\n").unwrap_err();
    assert!(diags.to_string().contains("does not call `p`"), "{diags}");
}

#[test]
fn empty_file() {
    check("", "E0112", 1, 1);
    check("  // only a comment\n", "E0112", 1, 1);
}

#[test]
fn lone_block_comment() {
    check("/*", "E0003", 1, 1);
    check("var x;\nthread t { skip; }\n/* never closed", "E0003", 3, 1);
}

#[test]
fn invalid_character() {
    check("var x;\nthread t { x := 1 @ 2; }\n", "E0002", 2, 19);
}

#[test]
fn non_utf8() {
    let d = parse_bytes(b"var x;\nthread t { \xff }").unwrap_err();
    assert_eq!(d.codes(), ["E0001"]);
    assert_eq!(d.as_slice()[0].primary.start, 18);
}

#[test]
fn syntax_errors_are_recovered() {
    let src = "var x;\nthread t {\n  x := ;\n  skip;\n  assert(x ==);\n  x := 1\n}\n";
    let d = parse(src).unwrap_err();
    let at: Vec<_> = d.iter().map(|d| (d.code, d.line_col(src))).collect();
    assert_eq!(at, [("E0004", (3, 8)), ("E0004", (5, 14)), ("E0004", (6, 9))], "{d}");
}

#[test]
fn unexpected_end_of_file() {
    check("var x;\nthread t {\n  skip;\n", "E0005", 3, 8);
}

fn nested_ifs(n: usize) -> String {
    format!("var x;\nthread t {{\n{}skip;{}\n}}\n", "if (x == 1) {".repeat(n), "}".repeat(n))
}

#[test]
fn ten_thousand_nested_ifs() {
    let src = nested_ifs(10_000);
    let d = parse(&src).unwrap_err();
    assert_eq!(d.codes(), ["E0006"]);
    assert!(d.as_slice()[0].message.contains("nested deeper than 256 levels"), "{d}");
}

#[test]
fn deep_expression() {
    let src = format!("var x;\nthread t {{ x := {}1; }}\n", "-".repeat(100_000));
    assert_eq!(parse(&src).unwrap_err().codes(), ["E0006"]);
    let src = format!("var x;\nthread t {{ x := {}1{}; }}\n", "(".repeat(100_000), ")".repeat(100_000));
    assert!(parse(&src).is_ok(), "parentheses add no depth");
}

#[test]
fn nesting_at_the_limit_is_fine() {
    // 256 levels of statements with a 511-deep expression at the bottom (on the 2 MiB stack
    // of a test thread, in a debug build): each `x + -( .. )` is two levels.
    let src = format!(
        "var x;\nthread t {{\n{}x := {}x{};{}\n}}\n",
        "if (x == 1) {".repeat(255),
        "x + -(".repeat(255),
        ")".repeat(255),
        "}".repeat(255)
    );
    let p = parse(&src).expect("within the limits");
    assert_eq!(p.stmts.len(), 256);
    // Every recursive pass copes with the deepest accepted program.
    let printed = paces_cwhile::Printer::new(&p).print();
    assert_eq!(paces_cwhile::Printer::new(&parse(&printed).unwrap()).print(), printed);
    let same = p.apply(&paces_constraint::Candidate::original(&p.space())).unwrap();
    assert_eq!(paces_cwhile::Printer::new(&same).print(), printed);
    assert!(paces_cwhile::to_promela(&p, &src).unwrap().contains("active proctype t_t()"));
    assert!(p.dump().contains("weight"));
    let too_deep = format!("var x;\nthread t {{\n{}skip;{}\n}}\n", "if (x == 1) {".repeat(257), "}".repeat(257));
    assert_eq!(parse(&too_deep).unwrap_err().codes(), ["E0006"]);
}

#[test]
fn five_megabytes() {
    let mut src = String::from("var x, y;\nthread t {\n");
    let mut i = 0;
    while src.len() < 5_000_000 {
        src.push_str(&format!("  L{i}: x := (y + {i}) * x - 1;\n"));
        i += 1;
    }
    src.push_str("}\n");
    let p = parse(&src).expect("a large flat program parses");
    assert_eq!(p.stmts.len(), i);
}

#[test]
fn a_run_of_invalid_characters_is_one_error() {
    let d = parse("var x;\nthread t { x := 1; } ### é€\n").unwrap_err();
    assert_eq!(d.codes(), ["E0002", "E0002"], "{d}");
    assert_eq!(d.as_slice()[0].message, "invalid characters");
}

#[test]
fn nesting_error_points_where_the_limit_is_passed() {
    // One `if` per line: line 3 holds level 1, so level 257 is on line 259.
    let n = 10_000;
    let src = format!("var x;\nthread t {{\n{}skip;\n{}}}\n", "if (x == 1) {\n".repeat(n), "}\n".repeat(n));
    check(&src, "E0006", 259, 1);
}

#[test]
fn expression_error_points_where_the_limit_is_passed() {
    // `x := ` ends at column 16: the 513th `-` from the outside is on column 529.
    let src = format!("var x;\nthread t {{ x := {}1; }}\n", "-".repeat(100_000));
    check(&src, "E0006", 2, 529);
    let d = parse(&src).unwrap_err();
    assert_eq!(d.as_slice()[0].label, "level 513 starts here", "{d}");
    // Unary operators and parentheses mixed: each `-(` is one level.
    let src = format!("var x;\nthread t {{\nassume({}x{});\n}}\n", "-(\n".repeat(600), ")".repeat(600));
    check(&src, "E0006", 515, 1);
    // One chain per line, each the right operand of the one above: level 513 is on line 515.
    let src = format!("var x;\nthread t {{\nx := {}1{};\n}}\n", "1 + (\n".repeat(2_000), ")".repeat(2_000));
    check(&src, "E0006", 515, 1);
    // Nested as first operands, `+` and `*` in turn, one `(` per line from line 4; the
    // outermost chain goes on outside its parentheses. The chain of level k > 1 starts at
    // the parenthesis of line k + 4.
    let closing: String = (0..1_000).map(|i| if i % 2 == 0 { " + 1)" } else { " * 1)" }).collect();
    let src = format!("var x;\nthread t {{\nx :=\n{}1{closing}{};\n}}\n", "(\n".repeat(1_000), " * 1".repeat(10_000));
    check(&src, "E0006", 517, 1);
}

#[test]
fn too_deep_expressions_are_each_reported_and_parsing_goes_on() {
    let deep = format!("{}1", "!".repeat(600));
    let src = format!("var x;\nthread t {{\nx := {deep};\nassert({deep});\nx := 1 +;\n}}\n");
    let d = parse(&src).unwrap_err();
    let at: Vec<_> = d.iter().map(|d| (d.code, d.line_col(&src))).collect();
    assert_eq!(at, [("E0006", (3, 518)), ("E0006", (4, 520)), ("E0004", (5, 9))], "{d}");
}

#[test]
fn else_braces_holding_one_if_are_no_nesting_level() {
    // 100 links of `else { if`, the last one holding 300 nested `if`s: the chain is level 1,
    // so level 257 is the 256th nested `if`, on line 103 + 256.
    let mut src = String::from("var x;\nthread t {\n");
    src.push_str(&"if (x == 0) { skip; } else {\n".repeat(100));
    src.push_str("if (x == 0) {\n");
    src.push_str(&"if (x == 1) {\n".repeat(300));
    src.push_str(&format!("skip;\n{}}}{}\n}}\n", "}\n".repeat(300), "}".repeat(100)));
    check(&src, "E0006", 359, 1);
}

#[test]
fn else_if_error_points_where_the_limit_is_passed() {
    // The first `if` is level 1 on line 3; `else if` number k is level k + 1, on line k + 3.
    let src =
        format!("var x;\nthread t {{\nif (x == 0) {{ skip; }}\n{}}}\n", "else if (x == 1) { skip; }\n".repeat(2_000));
    check(&src, "E0006", 1_027, 6);
    let d = parse(&src).unwrap_err();
    assert!(d.as_slice()[0].message.contains("`else if`s"), "{d}");
}

#[test]
fn a_long_flat_expression_is_long_not_deep() {
    for op in ["+", "-", "*", "/", "%", "&&", "||", "==", "!=", "<", "<=", ">", ">="] {
        let src = format!("var x;\nthread t {{ x := 1{}; }}\n", format!(" {op} 1").repeat(10_000));
        let p = parse(&src).unwrap_or_else(|d| panic!("`{op}` chain: {d}"));
        let printed = paces_cwhile::Printer::new(&p).print();
        assert_eq!(paces_cwhile::Printer::new(&parse(&printed).unwrap()).print(), printed, "`{op}` chain");
    }
}

/// An unknown variable's caret underlines its name exactly, one character or three.
#[test]
fn an_unknown_variable_is_underlined_exactly() {
    let source = "var x;\nthread t { x := y + 1; x := yyy   + 1; }\n";
    let rendered = paces_cwhile::render(&parse(source).expect_err("refused"), "t.cw", source, false);
    let carets: Vec<&str> = rendered.lines().filter(|l| l.contains('^')).collect();
    assert_eq!(
        carets,
        ["  │                 ^ not declared here", "  │                             ^^^ not declared here"],
        "{rendered}"
    );
}
