//! pthread C repairs written into the C file (`paces_c::pthread::Printer::splice`).

mod steps;

use paces::Repair;
use paces_c::pthread::{parse, Options};
use paces_cwhile::Program;
use paces_explore::{check, Config, FailureKinds, Verdict};

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

fn source(name: &str) -> String {
    let path = format!("{}/tests/pthread/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).expect("test program")
}

/// The program `steps` make of `source`, each step `swap A <-> B` or `atomic [A; B]`.
#[track_caller]
fn transformed(source: &str, steps: &[&str]) -> (Program, Program) {
    let p = parse(source, &Options::default()).unwrap().program;
    let q = steps::apply(&p, steps);
    (p, q)
}

/// The lines of `text`, sorted: two texts with the same sorted lines differ only in where
/// their lines stand.
fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

/// A moved atomic block that declares a local (`int low = ...;` between
/// `__VERIFIER_atomic_begin();` and `__VERIFIER_atomic_end();`) is written into the file: the
/// locals of the text read back are declared in another order, which means nothing.
#[test]
fn a_moved_declaration_in_an_atomic_block_is_written_into_the_file() {
    let s = source("snapshot.c");
    // The read of `lo` moves above the second create.
    let (p, q) = transformed(&s, &["swap 34 <-> 38", "swap 32 <-> 38"]);
    let text = paces_c::pthread::Printer::new(&q).splice(&s, &p).expect("written into the file");
    assert_eq!(sorted_lines(&text), sorted_lines(&s), "only lines moved:\n{text}");
    let create = text.find("pthread_create(&b").unwrap();
    let low = text.find("int low = lo > CAP;").unwrap();
    let high = text.find("int high = hi > CAP;").unwrap();
    assert!(low < create && create < high, "{text}");
    // The block moved whole: its begin right above it, its end right below.
    assert!(
        text.contains("  __VERIFIER_atomic_begin();\n  int low = lo > CAP;\n  __VERIFIER_atomic_end();\n"),
        "{text}"
    );
}

/// The lines of `text` other than the added section markers, sorted.
fn lines_without_markers(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text
        .lines()
        .filter(|l| !matches!(l.trim(), "__VERIFIER_atomic_begin();" | "__VERIFIER_atomic_end();"))
        .collect();
    lines.sort_unstable();
    lines
}

/// Statements that share a line (`left--; right++;`, two declarators, a macro that expands
/// to an `if`) move and take sections as one unit of lines; a section over one of two
/// statements of a line splits the line first.
#[test]
fn statements_sharing_a_line_move_as_one_unit() {
    let s = source("tally.c");
    let (p, q) = transformed(&s, &["atomic [16; 16.4]", "atomic [24; 27]"]);
    let text = paces_c::pthread::Printer::new(&q).splice(&s, &p).expect("written into the file");
    assert_eq!(lines_without_markers(&text), sorted_lines(&s), "only markers added:\n{text}");
    let mover = "  __VERIFIER_atomic_begin();\n  left--; right++;\n  __VERIFIER_atomic_end();\n";
    assert!(text.contains(mover), "{text}");
    let reads = "  __VERIFIER_atomic_begin();\n  add_both;\n  first = total;\n  add_both;\n  second = total;\n  \
                 __VERIFIER_atomic_end();\n";
    assert!(text.contains(reads), "{text}");
    // A section over `left--;` alone splits the line first.
    let (p, q) = transformed(&s, &["atomic [16; 16]"]);
    let text = paces_c::pthread::Printer::new(&q).splice(&s, &p).expect("written into the file");
    let alone = "  __VERIFIER_atomic_begin();\n  left--;\n  __VERIFIER_atomic_end();\n  right++;\n  return 0;\n}\n";
    assert!(text.contains(alone), "{text}");
    // The two declarators of one declaration are one item (`22`): no candidate parts them,
    // and the declaration moves whole.
    let p = parse(&s, &Options::default()).unwrap().program;
    let (second, create) = (p.loc("22.2").unwrap(), p.loc("23").unwrap());
    let parting = paces_constraint::Transformation::Swap { first: second, second: create };
    assert!(paces_constraint::Candidate::apply(&p.space(), &[parting]).is_err());
    let (p, q) = transformed(&s, &["swap 22 <-> 23"]);
    let text = paces_c::pthread::Printer::new(&q).splice(&s, &p).expect("written into the file");
    assert!(text.contains("  pthread_create(&m, 0, mover, 0);\n  int first = 0, second = 0;\n"), "{text}");
}

/// An atomic section added over statements that the frontend splits into one step per
/// shared access (`total += right;`) reads back as the same program: a statement is lowered
/// the same way inside and outside a section.
#[test]
fn a_section_over_split_statements_reads_back() {
    let s = source("tally.c");
    let (p, q) = transformed(&s, &["atomic [24; 25]"]);
    let text = paces_c::pthread::Printer::new(&q).splice(&s, &p).expect("written into the file");
    let again = parse(&text, &Options::default()).unwrap().program;
    assert_eq!(
        paces_cwhile::Printer::new(&again).print().matches("noreorder").count(),
        paces_cwhile::Printer::new(&q).print().matches("noreorder").count()
    );
}

/// The loop's own repairs of programs in the style of the triangular and qrcu tasks are
/// written into the C file, and the file read back has no failing assertion.
#[test]
fn repairs_of_programs_with_shared_lines_are_written_and_recheck() {
    for name in ["snapshot.c", "tally.c"] {
        let s = source(name);
        let original = parse(&s, &Options::default()).unwrap().program;
        let config = Config::new().find(FailureKinds::BAD);
        assert!(matches!(check(&original, &config).unwrap().verdict, Verdict::Bad(_)), "{name} fails");
        let report = Repair::new().run(&original).unwrap();
        let repaired = report.repaired.clone().unwrap_or_else(|| panic!("{name}: not repaired: {}", report.stop));
        let text = paces_c::pthread::Printer::new(&repaired)
            .splice(&s, &original)
            .unwrap_or_else(|| panic!("{name}: {:?} not written into C", words(&report)));
        let again = parse(&text, &Options::default()).unwrap().program;
        assert!(matches!(check(&again, &config).unwrap().verdict, Verdict::Correct), "{name}:\n{text}");
    }
}

/// A `for` loop with its initialiser is one item, and every statement's steps one unit that
/// a section holds whole: the loop's repair, a section around the climber's whole loop, is
/// written into the file, the loop's own sections dropped (SV-COMP forbids nested sections),
/// and the file read back has no failing assertion.
#[test]
fn a_section_around_a_for_loop_is_written_without_nesting() {
    let s = source("ladder.c");
    let original = parse(&s, &Options::default()).unwrap().program;
    let report = Repair::new().run(&original).unwrap();
    let repaired = report.repaired.clone().unwrap_or_else(|| panic!("not repaired: {}", report.stop));
    assert_eq!(words(&report), ["atomic [12; 12]"]);
    let text = paces_c::pthread::Printer::new(&repaired).splice(&s, &original).expect("written into the file");
    let body = "  __VERIFIER_atomic_begin();\n  for (step = 0; step < 2; step++) {\n    rung = rung + 1;\n  }\n  \
                __VERIFIER_atomic_end();\n";
    assert!(text.contains(body), "{text}");
    assert_eq!(text.matches("  __VERIFIER_atomic_begin();").count(), 1, "{text}");
    let again = parse(&text, &Options::default()).unwrap().program;
    let config = Config::new().find(FailureKinds::BAD);
    assert!(matches!(check(&again, &config).unwrap().verdict, Verdict::Correct), "{text}");
    // No candidate puts a section inside the statement: around the loop without its
    // initialiser, or around the initialiser and the loop inside the `for`'s item.
    let space = original.space();
    for (a, b) in [("12.2", "12.2"), ("12.4", "12.2")] {
        let (a, b) = (original.loc(a).unwrap(), original.loc(b).unwrap());
        let section = paces_constraint::Transformation::Atomic { first: a, last: b };
        assert!(paces_constraint::Candidate::apply(&space, &[section]).is_err(), "{a:?}");
    }
}

/// A repair that reads a checked value before the thread that changes it starts makes the
/// check meaningless, and `stale_checks` says so; one that only adds a section around the
/// threads' work does not.
#[test]
fn a_repair_that_reads_a_checked_value_before_its_thread_starts_is_stale() {
    let s = source("snapshot.c");
    let original = parse(&s, &Options::default()).unwrap().program;
    assert!(paces_c::pthread::stale_checks(&original, &original).is_empty());
    // The read of `lo` above the creation of the thread that grows it.
    let (p, q) = transformed(&s, &["swap 34 <-> 38", "swap 32 <-> 38"]);
    let stale = paces_c::pthread::stale_checks(&p, &q);
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert!(stale[0].contains("the check at line 42") && stale[0].contains("`grow_lo "), "{stale:?}");
    // The creation below the read of `hi`, which that thread does not write: not stale.
    let (p, q) = transformed(&s, &["swap 32 <-> 34"]);
    assert!(paces_c::pthread::stale_checks(&p, &q).is_empty());
    // The creation below both reads: stale.
    let (p, q) = transformed(&s, &["swap 32 <-> 34", "swap 32 <-> 38"]);
    assert_eq!(paces_c::pthread::stale_checks(&p, &q).len(), 1);
    // A section over the creation and the read: the thread cannot run before the read. No
    // candidate holds a create in a section (`docs/c-frontend.md`, "The threads' structure"),
    // so the program is made from a copy without the marks of the threads' structure.
    let p = parse(&s, &Options::default()).unwrap().program;
    let (create, read) = (p.loc("32").unwrap(), p.loc("38").unwrap());
    let section = paces_constraint::Transformation::Atomic { first: create, last: read };
    let refused = paces_constraint::Candidate::apply(&p.space(), &[section]).unwrap_err();
    assert_eq!(refused.kind(), &paces_constraint::ErrorKind::BadSection);
    let mut parts = p.clone().into_parts();
    parts.thread_structure.clear();
    let q = steps::apply(&Program::new(parts), &["atomic [32; 38]"]);
    assert_eq!(paces_c::pthread::stale_checks(&p, &q).len(), 1);
    // Moving the reads of `tally.c` into one section reads after the creation: not stale.
    let s = source("tally.c");
    let (p, q) = transformed(&s, &["atomic [24; 27]"]);
    assert!(paces_c::pthread::stale_checks(&p, &q).is_empty());
}
