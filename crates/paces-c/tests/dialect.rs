//! The paper's tool's dialect beyond the basics: `nondet` compared with a constant is a
//! nondeterministic choice, and elsewhere a value drawn before its statement, `assertd` is an assertion whose neighbours may move (and `assert`
//! one that keeps its place), and a `noReorderBegin(); ... noReorderEnd();` region that a repair
//! moves is written into the C file.

use paces::Repair;
use paces_explore::{check, Config};

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

fn read(source: &str) -> paces_cwhile::Program {
    paces_c::parse(source)
        .unwrap_or_else(|d| panic!("does not read:\n{}", paces_cwhile::render(&d, "t.c", source, false)))
}

/// The Cwhile text of a C model.
fn cwhile(source: &str) -> String {
    paces_cwhile::Printer::new(&read(source)).print()
}

#[test]
fn nondet_compared_with_a_constant_is_a_choice() {
    let source = "int x;\n\
        t() {\n\
        \x20 if (nondet == 1) { x = 1; } else { x = 2; }\n\
        \x20 while (nondet != 0) { x = x + 1; }\n\
        \x20 if (0 == nondet) x = 3;\n\
        \x20 if (!nondet) x = 4;\n\
        \x20 while(nondet==1) {}\n\
        }\n\
        void main() { t(); }\n";
    let text = cwhile(source);
    assert_eq!(text.matches("if (*)").count(), 3, "{text}");
    assert_eq!(text.matches("while (*)").count(), 2, "{text}");
    assert!(!text.contains("nondet"), "{text}");
    // Both ways of each choice are explored: x ends 1 or 2 after the first `if`.
    let twice = "int x;\nt() {\n  if (nondet == 1) { x = 1; } else { x = 2; }\n  assert(x == 1);\n}\n\
        void main() { t(); }\n";
    assert_eq!(check(&read(twice), &Config::new()).unwrap().verdict.name(), "bad");
}

/// `nondet` read as a value in a statement, a declaration's initial value, a `return` or an
/// `if` condition is a value drawn just before it: 0 or 1, a bound that `bounds` reports.
#[test]
fn nondet_in_any_expression_is_a_drawn_value() {
    let source = "int x, y;\n\
        int f() {\n\
        \x20 return nondet * 2;\n\
        }\n\
        t() {\n\
        \x20 int z = nondet + 1;\n\
        \x20 int r = 0;\n\
        \x20 x = nondet + z;\n\
        \x20 if (nondet == 1 && x == 0) y = 1;\n\
        \x20 r = f();\n\
        \x20 x = x + r;\n\
        \x20 assert(x <= 4);\n\
        }\n\
        void main() { t(); }\n";
    let p = read(source);
    // Every value is reached: 1 + 0 + 0 up to 2 + 1 + 2 (x <= 4 may fail at 5).
    assert_eq!(check(&p, &Config::new()).unwrap().verdict.name(), "bad");
    assert_eq!(paces_c::bounds(source), vec!["nondeterministic values in 0..1".to_owned()]);
    // The statement keeps its line's label; the draw is another item of the same line.
    assert!(p.loc("8").is_some() && p.loc("8.2").is_some());
    let bounded = source.replace("x <= 4", "x <= 5");
    assert_eq!(check(&read(&bounded), &Config::new()).unwrap().verdict.name(), "correct");
    // A choice is no bound.
    assert!(paces_c::bounds("int x;\nt() {\n  if (nondet == 1) x = 1;\n}\nvoid main() { t(); }\n").is_empty());
}

/// Every read of `nondet` in one statement draws its own value (`x = nondet - nondet;` is -1,
/// 0 or 1), and a loop condition that reads it draws before the loop and again after every
/// iteration, as C evaluates the condition each time.
#[test]
fn nondet_read_twice_or_in_a_loop_condition_draws_each_time() {
    let twice = "int x;\nt() {\n  x = nondet - nondet;\n  assert(x != K);\n}\nvoid main() { t(); }\n";
    for (k, verdict) in [("-1", "bad"), ("1", "bad"), ("2", "correct")] {
        let p = read(&twice.replace('K', k));
        assert_eq!(check(&p, &Config::new()).unwrap().verdict.name(), verdict, "x != {k}");
    }
    // `nondet_2` is the second read's local; a source that uses that name keeps it.
    let named =
        "int nondet_2;\nt() {\n  nondet_2 = nondet + nondet;\n  assert(nondet_2 < 2);\n}\nvoid main() { t(); }\n";
    let text = paces_cwhile::Printer::new(&read(named)).print();
    assert!(text.contains("nondet_2 := nondet + nondet_3"), "{text}");
    assert_eq!(check(&read(named), &Config::new()).unwrap().verdict.name(), "bad");
    // The loop runs while the value drawn for each test is above x: x climbs to 1 at most.
    let looping = "int x;\nt() {\n  while (x < nondet) x = x + 1;\n  assert(x < K);\n}\nvoid main() { t(); }\n";
    assert_eq!(check(&read(&looping.replace('K', "1")), &Config::new()).unwrap().verdict.name(), "bad");
    assert_eq!(check(&read(&looping.replace('K', "2")), &Config::new()).unwrap().verdict.name(), "correct");
    assert_eq!(paces_c::bounds(&looping.replace('K', "2")), vec!["nondeterministic values in 0..1".to_owned()]);
    // The forms of the paper's tool's models, each a choice or a drawn value.
    let forms = "int x, y;\nt() {\n  while(nondet==1) { y = 1; }\n  while (nondet != 0) y = 2;\n  \
                 x = nondet;\n  if (nondet == 1) y = 3;\n  if (nondet == x) y = 4;\n  \
                 while (nondet == x) y = 5;\n  assert(y != 5);\n}\nvoid main() { t(); }\n";
    let p = read(forms);
    let text = paces_cwhile::Printer::new(&p).print();
    assert_eq!(text.matches("while (*)").count(), 2, "{text}");
    assert!(text.contains("while (nondet == x)"), "{text}");
    assert_eq!(check(&p, &Config::new()).unwrap().verdict.name(), "bad");
}

#[test]
fn assertd_reads_as_assertd_and_assert_as_assert() {
    let source = "int x, y;\n\
        t() {\n\
        \x20 x = 1;\n\
        \x20 assertd(y == 0);\n\
        \x20 y = 1;\n\
        \x20 assert(x == 1);\n\
        \x20 x = 2;\n\
        }\n\
        void main() { t(); }\n";
    let p = read(source);
    let text = paces_cwhile::Printer::new(&p).print();
    assert!(text.contains("4: assertd(y == 0);") && text.contains("6: assert(x == 1);"), "{text}");
    let space = p.space();
    let loc = |l: &str| space.loc(l).unwrap();
    // 3 and the assertd commute (x is not read by it): free; the assert is fixed to all.
    assert!(!space.is_fixed(loc("3"), loc("4")));
    for other in ["3", "4", "5"] {
        assert!(space.is_fixed(loc(other), loc("6")), "{other} before 6");
    }
    assert!(space.is_fixed(loc("6"), loc("7")));
    // Printed back as C, the kinds stay.
    let c = paces_c::Printer::new(&p).print().unwrap().text;
    assert!(c.contains("assertd(y == 0);") && c.contains("assert(x == 1);"), "{c}");
}

/// The developers' fix of iwl3945 in miniature: the region `C..G` (a `noReorderBegin/End`
/// block) moves below `H`, and the repaired C file is the source with those lines moved.
#[test]
fn a_moved_noreorder_region_is_written_into_the_c_file() {
    let source = include_str!("models/region.c");
    let original = read(source);
    assert_eq!(check(&original, &Config::new()).unwrap().verdict.name(), "bad");
    let report = Repair::new().run(&original).unwrap();
    let repaired = report.repaired.clone().unwrap_or_else(|| panic!("not repaired: {}", report.stop));
    let text = paces_c::Printer::new(&repaired)
        .splice(source, &original)
        .unwrap_or_else(|| panic!("the repair ({:?}) is not written into C", words(&report)));
    let again = read(&text);
    assert_eq!(check(&again, &Config::new()).unwrap().verdict.name(), "correct", "{text}");
    let (h, begin) = (text.find("ready = 1;").unwrap(), text.find("noReorderBegin();").unwrap());
    assert!(h < begin, "the region moved below H:\n{text}");
    // Nothing but the moved lines changed.
    let mut a: Vec<&str> = source.lines().collect();
    let mut b: Vec<&str> = text.lines().collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "{text}");
}
