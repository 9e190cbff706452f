//! `Printer::splice`: a transformed program written as its source with only the changed
//! blocks rewritten; every comment kept, each moved statement with its own.

use expect_test::{expect, Expect};
use paces_constraint::{Candidate, Transformation};
use paces_cwhile::{parse, Printer};

/// A model with a header, comments above and beside statements, a procedure and two threads.
const MODEL: &str = "// A model of a driver's open and close.
// The header explains the model; a repair must keep it.
var open = 0, power = 0, m = 0;

proc helper {
  // unchanged procedure
  power := 0;
}

thread opener {
  // take the device
  A: open := 1;   // counted
  /* the power comes after */
  B: power := 1;
  C: assert(power == 1 || open == 0);
}

thread closer {
  D: open := 0;
  helper();
}
";

/// Applies `steps` (swaps and sections named by label) to `source` and prints the result
/// preserving the source; compares with `expect` and checks that it reads back as the
/// transformed program.
#[track_caller]
fn check(source: &str, steps: &[(&str, &str, bool)], named: &[&str], expect: Expect) {
    expect.assert_eq(&preserved(source, steps, named));
}

/// Applies `steps` to `MODEL`, whose steps all lie in thread `opener`: compares that thread's
/// text with `expect`, and checks that everything else is the source byte for byte.
#[track_caller]
fn check_opener(steps: &[(&str, &str, bool)], expect: Expect) {
    let text = preserved(MODEL, steps, &["A", "B"]);
    let opener = |t: &str| {
        let start = t.find("thread opener {").unwrap();
        start..start + t[start..].find("\n}\n").unwrap() + 3
    };
    let (new, old) = (opener(&text), opener(MODEL));
    expect.assert_eq(&text[new.clone()]);
    assert_eq!(text[..new.start], MODEL[..old.start]);
    assert_eq!(text[new.end..], MODEL[old.end..]);
}

/// The text of `steps` applied to `source`, printed preserving the source, after checking
/// that it reads back as the transformed program.
#[track_caller]
fn preserved(source: &str, steps: &[(&str, &str, bool)], named: &[&str]) -> String {
    let p = parse(source).unwrap();
    let space = p.space();
    let l = |n: &str| p.loc(n).unwrap();
    let steps: Vec<Transformation> = steps
        .iter()
        .map(|&(a, b, section)| {
            if section {
                Transformation::Atomic { first: l(a), last: l(b) }
            } else {
                Transformation::Swap { first: l(a), second: l(b) }
            }
        })
        .collect();
    let c = Candidate::apply(&space, &steps).unwrap();
    let q = p.apply(&c).unwrap();
    let text = Printer::new(&q).labels(named).splice(source, &p).expect("the layout allows it");
    let back = parse(&text).unwrap();
    assert_eq!(Printer::new(&back).labels(named).print(), Printer::new(&q).labels(named).print());
    text
}

#[test]
fn a_swap_moves_statements_with_their_comments() {
    check_opener(
        &[("A", "B", false)],
        expect![[r#"
            thread opener {
              // take the device
              /* the power comes after */
              B: power := 1;
              A: open := 1;   // counted
              C: assert(power == 1 || open == 0);
            }
        "#]],
    );
}

#[test]
fn an_added_section_wraps_its_statements_one_level_deeper() {
    check_opener(
        &[("A", "B", true)],
        expect![[r#"
            thread opener {
              // take the device
              atomic {
                A: open := 1;   // counted
                /* the power comes after */
                B: power := 1;
              }
              C: assert(power == 1 || open == 0);
            }
        "#]],
    );
}

/// Unlabelled statements that move get the labels the report names them by.
#[test]
fn moved_statements_get_the_labels_the_report_uses() {
    let source = "var a, b;\nthread t {\n  // first\n  a := 1;\n  b := 1; // second\n}\n";
    check(
        source,
        &[("t.0", "t.1", false)],
        &["t.0", "t.1"],
        expect![[r#"
            var a, b;
            thread t {
              // first
              t.1: b := 1; // second
              t.0: a := 1;
            }
        "#]],
    );
}

/// Nothing changed: the source comes back byte for byte.
#[test]
fn an_unchanged_program_is_its_source() {
    let p = parse(MODEL).unwrap();
    let c = Candidate::original(&p.space());
    let q = p.apply(&c).unwrap();
    assert_eq!(Printer::new(&q).labels(&[]).splice(MODEL, &p).as_deref(), Some(MODEL));
}

/// Two statements on one line cannot move apart by lines: the caller prints canonically.
/// A rewritten block holding a statement with an empty block (paired with its original by
/// its place in the statement, as every nested block is).
#[test]
fn an_empty_block_in_a_rewritten_block() {
    let source = "var x, y, z;\nthread t {\n  // y first\n  A: y := 1; // write y\n  B: if (z == 1) { } else {\n    // nothing\n  }\n  C: x := 1;\n  D: while (*) { }\n}\n";
    check(
        source,
        &[("B", "C", false), ("A", "C", false)],
        &[],
        expect![[r#"
            var x, y, z;
            thread t {
              // y first
              C: x := 1;
              A: y := 1; // write y
              B: if (z == 1) { } else {
                // nothing
              }
              D: while (*) { }
            }
        "#]],
    );
}

#[test]
fn statements_sharing_a_line_fall_back() {
    let source = "var a, b;\nthread t { a := 1; b := 1; }\n";
    let p = parse(source).unwrap();
    let space = p.space();
    let steps = [Transformation::Swap { first: p.loc("t.0").unwrap(), second: p.loc("t.1").unwrap() }];
    let q = p.apply(&Candidate::apply(&space, &steps).unwrap()).unwrap();
    assert_eq!(Printer::new(&q).labels(&["t.0", "t.1"]).splice(source, &p), None);
}

/// A section over every statement of a block, one of them compound (the block then holds only
/// the section).
#[test]
fn a_section_over_a_whole_block_keeps_the_compound_statement_inside() {
    let source = "var a, b;
thread t {
  // take it
  A: a := 1;
  B: if (a == 1) {
    // set it
    b := 1;
  }
}
";
    // `b := 1` keeps its name `t.2` with a label: the added `atomic` takes a place in the
    // count of generated labels before it.
    check(
        source,
        &[("A", "B", true)],
        &["A", "B"],
        expect![[r#"
            var a, b;
            thread t {
              // take it
              atomic {
                A: a := 1;
                B: if (a == 1) {
                  // set it
                  t.2: b := 1;
                }
              }
            }
        "#]],
    );
}

/// A program with comments everywhere: free statements, a branch, a loop and a procedure.
const RICH: &str = "// header
var a, b, c, d, e;

proc p {
  // in the procedure
  d := 1;
  e := 1; // end of p
}

thread t {
  // first
  a := 1;
  /* second */
  b := 1; // after b
  if (c == 0) {
    // inside the branch
    c := 1;
    d := 2;
  }
  while (*) {
    e := 2; // in the loop
  }
}

thread u {
  p();
  assert(a == 1);
}
";

/// Every candidate of the rich program's space: the text reads back as the candidate (checked
/// inside `Printer::splice`), never falls back on this layout, and keeps every comment.
#[test]
fn every_candidate_of_a_commented_program_keeps_its_comments() {
    let p = parse(RICH).unwrap();
    let space = p.space();
    let candidates = Candidate::enumerate(&space, 50_000).unwrap();
    assert!(candidates.len() > 1_000, "{} candidates", candidates.len());
    let comments: Vec<&str> =
        RICH.lines().filter_map(|l| ["//", "/*"].iter().find_map(|m| l.find(m).map(|i| &l[i..]))).collect();
    for c in &candidates {
        let q = p.apply(c).unwrap();
        let named: Vec<&str> = c
            .transformations(&space)
            .iter()
            .flat_map(|t| match *t {
                Transformation::Swap { first, second } => [first, second],
                Transformation::Atomic { first, last } => [first, last],
            })
            .map(|l| space.name(l))
            .collect();
        let text = Printer::new(&q)
            .labels(&named)
            .splice(RICH, &p)
            .unwrap_or_else(|| panic!("fell back on {}", c.display(&space)));
        for comment in &comments {
            assert!(text.contains(comment), "`{comment}` lost:\n{text}");
        }
    }
}
