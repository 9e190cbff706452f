//! `print_named`: a transformed program labelled only where the source had labels, where a
//! report names a statement, or where parsing back would otherwise repeat a label.

use expect_test::{expect, Expect};
use paces_constraint::Candidate;
use paces_cwhile::{parse, print, print_named, Program};

/// Three independent writes in thread `t`, unlabelled: `t.0`, `t.1`, `t.2`.
const ABC: &str = "var a, b, c;\nthread t { a := 1; b := 1; c := 1; }\n";

/// Applies `order` (the one block of thread `t`) and `sections`, given by label, to `source`;
/// prints the result naming `named` and compares with `expect`; checks that the text parses
/// back to a program that prints the same, with every named label on the same statement.
#[track_caller]
fn check(source: &str, order: &[&str], sections: &[(&str, &str)], named: &[&str], expect: Expect) {
    let p = parse(source).unwrap();
    let space = p.space();
    let l = |n: &str| p.loc(n).unwrap();
    let sections: Vec<_> = sections.iter().map(|&(a, b)| (l(a), l(b))).collect();
    let c = Candidate::new(&space, vec![order.iter().map(|n| l(n)).collect()], &sections).unwrap();
    let q = p.apply(&c).unwrap();
    let text = print_named(&q, named);
    expect.assert_eq(&text);
    let again = parse(&text).unwrap_or_else(|d| panic!("{text}\n{d}"));
    assert_eq!(print_named(&again, &[]), text);
    for name in named {
        let line = |p: &Program| {
            print(p).lines().find(|l| l.trim_start().starts_with(&format!("{name}: "))).map(str::to_owned)
        };
        assert_eq!(line(&again), line(&q), "`{name}` names another statement");
    }
}

#[test]
fn unnamed_statements_in_place_print_without_labels() {
    let expect = expect![[r#"
        var a = 0, b = 0, c = 0;

        thread t {
          t.1: b := 1;
          t.0: a := 1;
          c := 1;
        }
    "#]];
    check(ABC, &["t.1", "t.0", "t.2"], &[], &["t.0", "t.1"], expect);
}

#[test]
fn written_labels_are_kept() {
    let expect = expect![[r#"
        var a = 0, b = 0;

        thread t {
          x: a := 1;
          b := 1;
        }
    "#]];
    check("var a, b;\nthread t { x: a := 1; b := 1; }\n", &["x", "t.1"], &[], &[], expect);
}

#[test]
fn a_label_that_parsing_back_would_repeat_is_printed() {
    // The added `atomic` takes position 0, whose generated label `t.0` the report names for
    // the section's first item: the section prints its own label so that `t.0` stays unique.
    let expect = expect![[r#"
        var a = 0, b = 0, c = 0;

        thread t {
          atomic_t.0: atomic {
            t.0: a := 1;
            t.1: b := 1;
          }
          c := 1;
        }
    "#]];
    check(ABC, &["t.0", "t.1", "t.2"], &[("t.0", "t.1")], &["t.0", "t.1"], expect);
}

#[test]
fn collisions_chain_until_every_label_is_unique() {
    // Named `t.2` moves to the front. `b` would get `t.2` back at position 2, so it prints
    // `t.1`; then `a` would get `t.1` back at position 1, so it prints `t.0`; `d` keeps its place.
    let expect = expect![[r#"
        var a = 0, b = 0, c = 0, d = 0;

        thread t {
          t.2: c := 1;
          t.0: a := 1;
          t.1: b := 1;
          d := 1;
        }
    "#]];
    let source = "var a, b, c, d;\nthread t { a := 1; b := 1; c := 1; d := 1; }\n";
    check(source, &["t.2", "t.0", "t.1", "t.3"], &[], &["t.2"], expect);
}
