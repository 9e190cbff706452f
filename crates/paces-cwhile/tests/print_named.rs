//! `Printer::labels`: a transformed program labelled only where the source had labels, where a
//! report names a statement, or where parsing back would otherwise give a statement another
//! name; parsing back keeps every statement's name, generated ones included.

use expect_test::{expect, Expect};
use paces_constraint::Candidate;
use paces_cwhile::{parse, Printer, Program};

/// Three independent writes in thread `t`, unlabelled: `t.0`, `t.1`, `t.2`.
const ABC: &str = "var a, b, c;\nthread t { a := 1; b := 1; c := 1; }\n";

/// Applies `order` (the one block of thread `t`) and `sections`, given by label, to `source`;
/// prints the result naming `named` and compares with `expect`; checks that the text parses
/// back to a program that prints the same, with every label (generated ones too) on the same
/// statement.
#[track_caller]
fn check(source: &str, order: &[&str], sections: &[(&str, &str)], named: &[&str], expect: Expect) {
    check_blocks(source, &[order], sections, named, expect);
}

/// [`check`] for a program of several blocks: `orders` has one order per block, in the
/// space's block order.
#[track_caller]
fn check_blocks(source: &str, orders: &[&[&str]], sections: &[(&str, &str)], named: &[&str], expect: Expect) {
    let p = parse(source).unwrap();
    let space = p.space();
    let l = |n: &str| p.loc(n).unwrap();
    let sections: Vec<_> = sections.iter().map(|&(a, b)| (l(a), l(b))).collect();
    let orders = orders.iter().map(|order| order.iter().map(|n| l(n)).collect()).collect();
    let c = Candidate::new(&space, orders, &sections).unwrap();
    let q = p.apply(&c).unwrap();
    let text = Printer::new(&q).labels(named).print();
    expect.assert_eq(&text);
    let again = parse(&text).unwrap_or_else(|d| panic!("{text}\n{d}"));
    assert_eq!(Printer::new(&again).labels(&[]).print(), text);
    // Every statement keeps its name: the canonical texts, every label printed, agree.
    assert_eq!(
        Printer::new(&again).print(),
        Printer::new(&q).print(),
        "a statement has another name after parsing back"
    );
    for name in named {
        let line = |p: &Program| {
            Printer::new(p)
                .print()
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{name}: ")))
                .map(str::to_owned)
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

/// Five unlabelled writes: `t.0` to `t.4`.
const FIVE: &str = "var a, b, c, d, e;\nthread t { a := 1; b := 1; c := 1; d := 1; e := 1; }\n";

#[test]
fn statements_after_an_added_section_keep_their_names_unlabelled() {
    // The section's `atomic` takes a place in the count; the printed `t.1` and `t.2` set the
    // count back, so `d` and `e` are `t.3` and `t.4` again without labels.
    let expect = expect![[r#"
        var a = 0, b = 0, c = 0, d = 0, e = 0;

        thread t {
          a := 1;
          atomic_t.1: atomic {
            t.1: b := 1;
            t.2: c := 1;
          }
          d := 1;
          e := 1;
        }
    "#]];
    check(FIVE, &["t.0", "t.1", "t.2", "t.3", "t.4"], &[("t.1", "t.2")], &["t.1", "t.2"], expect);
}

#[test]
fn statements_after_a_swap_keep_their_names_unlabelled() {
    let expect = expect![[r#"
        var a = 0, b = 0, c = 0, d = 0, e = 0;

        thread t {
          a := 1;
          t.2: c := 1;
          t.1: b := 1;
          d := 1;
          e := 1;
        }
    "#]];
    check(FIVE, &["t.0", "t.2", "t.1", "t.3", "t.4"], &[], &["t.1", "t.2"], expect);
}

#[test]
fn a_statement_inside_a_moved_branch_prints_its_name() {
    // The `if` moves below `c`: its inner statement, `t.2`, would be counted `t.4`.
    let source = "var a, b, c, d;\nthread t { a := 1; if (a == 1) { b := 1; } c := 1; d := 1; }\n";
    let expect = expect![[r#"
        var a = 0, b = 0, c = 0, d = 0;

        thread t {
          a := 1;
          t.3: c := 1;
          t.1: if (a == 1) {
            t.2: b := 1;
          }
          d := 1;
        }
    "#]];
    check_blocks(source, &[&["t.0", "t.3", "t.1", "t.4"], &["t.2"]], &[], &["t.1", "t.3"], expect);
}
