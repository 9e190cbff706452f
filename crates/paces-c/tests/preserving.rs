//! `Printer::splice`: a repaired C model written as its source with only the changed blocks
//! rewritten; every comment kept, each moved statement with its own, added sections as
//! `atomicBegin();` and `atomicEnd();` lines.

mod steps;

use paces::Repair;
use paces_c::{parse, Printer};
use paces_constraint::{BlockId, Candidate};
use paces_cwhile::ir::StmtKind;
use paces_cwhile::Program;

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

/// A model with a header, comments in both styles above and beside statements, a procedure
/// with a parameter, and two threads.
const MODEL: &str = "// A model of a driver's open and close.
// The header explains the model; a repair must keep it.
int open, power, m;

/* the helper sets the power */
void set_power(int v) {
    // first the power
    power = v;
    m = 1;      // then the mutex word
}

void opener() {
    // take the device
    open = 1;   // counted
    /* the power comes after */
    power = 1;
    assert(power == 1 || open == 0);
}

void closer() {
    open = 0;
    set_power(0);
}

void main() {
    opener();
    closer();
}
";

/// The program `steps` make of `source`, each step written as a report writes it: `swap 14
/// <-> 16` or `atomic [14; 16]`.
#[track_caller]
fn transformed(source: &str, steps: &[&str]) -> (Program, Program) {
    let p = parse(source).unwrap();
    let q = steps::apply(&p, steps);
    (p, q)
}

/// `steps` applied to `source` and printed preserving it; checks that the text reads back
/// as the transformed program (by an outline of its own, independent of the one inside).
#[track_caller]
fn preserved(source: &str, steps: &[&str]) -> String {
    let (p, q) = transformed(source, steps);
    let text = Printer::new(&q).splice(source, &p).expect("the layout allows it");
    assert_eq!(outline(&parse(&text).unwrap()), outline(&q), "{text}");
    text
}

/// Each thread and procedure in name order with its statements in order, each as its
/// nesting depth and its text (a section as `atomic`), without labels.
fn outline(p: &Program) -> Vec<String> {
    let mut bodies: Vec<(&String, BlockId)> =
        p.threads.iter().map(|t| (&t.name, t.body)).chain(p.procs.iter().map(|q| (&q.name, q.body))).collect();
    bodies.sort();
    let mut out = Vec::new();
    for (name, body) in bodies {
        out.push(format!("{name}:"));
        let mut stack: Vec<(BlockId, usize, usize)> = vec![(body, 0, 1)];
        while let Some((b, i, depth)) = stack.pop() {
            let Some(&id) = p.blocks[b.index()].items.get(i) else { continue };
            stack.push((b, i + 1, depth));
            let s = &p.stmts[id.index()];
            // A section by its kind: one the source opens shows its `atomicBegin()`, one the
            // repair adds has no text of the source.
            let text = match s.kind {
                StmtKind::Atomic(_) => "atomic".to_owned(),
                _ => p.step_text(s.loc).unwrap(),
            };
            out.push(format!("{}{text}", "  ".repeat(depth)));
            stack.extend(s.kind.blocks().rev().map(|b| (b, 0, depth + 1)));
        }
    }
    out
}

/// The text between `start` (a line of `text`) and the next line that is exactly `}`.
fn function<'t>(text: &'t str, start: &str) -> &'t str {
    let from = text.find(start).unwrap();
    &text[from..from + text[from..].find("\n}\n").unwrap() + 3]
}

/// `text` outside the function starting with `start` is `MODEL` outside it, byte for byte.
#[track_caller]
fn rest_unchanged(text: &str, start: &str) {
    let (new, old) = (function(text, start), function(MODEL, start));
    assert_eq!(text.replacen(new, "", 1), MODEL.replacen(old, "", 1));
}

/// `steps` applied to `MODEL`: the function starting with `start` reads `expected`, and the
/// rest of the text is `MODEL`'s.
#[track_caller]
fn check_function(steps: &[&str], start: &str, expected: &str) {
    let text = preserved(MODEL, steps);
    assert_eq!(function(&text, start), expected);
    rest_unchanged(&text, start);
}

#[test]
fn a_swap_moves_statements_with_their_comments() {
    check_function(
        &["swap 14 <-> 16"],
        "void opener",
        "void opener() {
    /* the power comes after */
    power = 1;
    // take the device
    open = 1;   // counted
    assert(power == 1 || open == 0);
}
",
    );
}

#[test]
fn an_added_section_is_a_begin_line_and_an_end_line() {
    check_function(
        &["atomic [14; 16]"],
        "void opener",
        "void opener() {
    atomicBegin();
    // take the device
    open = 1;   // counted
    /* the power comes after */
    power = 1;
    atomicEnd();
    assert(power == 1 || open == 0);
}
",
    );
}

#[test]
fn a_procedure_body_is_rewritten_in_place() {
    check_function(
        &["swap 8 <-> 9"],
        "void set_power",
        "void set_power(int v) {
    m = 1;      // then the mutex word
    // first the power
    power = v;
}
",
    );
}

/// A call with an argument is one item: it moves as its one line.
#[test]
fn a_call_with_an_argument_moves_as_one_item() {
    check_function(&["swap 21 <-> 22"], "void closer", "void closer() {\n    set_power(0);\n    open = 0;\n}\n");
}

/// Nothing changed: the source comes back byte for byte.
#[test]
fn an_unchanged_program_is_its_source() {
    let p = parse(MODEL).unwrap();
    let q = p.apply(&Candidate::original(&p.space())).unwrap();
    assert_eq!(Printer::new(&q).splice(MODEL, &p).as_deref(), Some(MODEL));
}

/// A section over every statement of a block, one of them compound: the block then holds
/// only the section, and the compound statement's lines stay whole inside it.
#[test]
fn a_section_over_a_whole_block_keeps_the_compound_statement_inside() {
    let source = "int a, b;
void t() {
    // take it
    a = 1;
    if (a == 1) {
        // set it
        b = 1;
    }
}
void main() { t(); }
";
    assert_eq!(
        preserved(source, &["atomic [4; 5]"]),
        "int a, b;
void t() {
    atomicBegin();
    // take it
    a = 1;
    if (a == 1) {
        // set it
        b = 1;
    }
    atomicEnd();
}
void main() { t(); }
"
    );
}

/// Lines that belong to no statement (a blank line, a comment set apart by one, a
/// declaration) stay in their places while the statements around them move.
#[test]
fn lines_between_statements_stay_in_place() {
    let source = "int a, b;
void t() {
    int r;
    a = 1;

    // about the rest of the thread

    b = 2;
    r = 3;
}
void main() { t(); }
";
    assert_eq!(
        preserved(source, &["swap 4 <-> 8"]),
        "int a, b;
void t() {
    int r;
    b = 2;

    // about the rest of the thread

    a = 1;
    r = 3;
}
void main() { t(); }
"
    );
}

/// A changed block inside a branch that does not move: only its lines change.
#[test]
fn a_nested_block_is_rewritten_alone() {
    let source = "int a, b, c; int d;
void t() {
    if (c == 0) {
        a = 1;
        b = 1; // b
    }
    c = 1; d = 1;
}
void main() { t(); }
";
    // The thread's own block has two statements on one line: it is not rewritten, so that
    // does not matter.
    assert_eq!(
        preserved(source, &["swap 4 <-> 5"]),
        "int a, b, c; int d;
void t() {
    if (c == 0) {
        b = 1; // b
        a = 1;
    }
    c = 1; d = 1;
}
void main() { t(); }
"
    );
}

/// After an early return, the statements of the function's block are the `else` branch of
/// the `if`: they are rewritten where they stand, after the `if`, also when the block of the
/// `if` is rewritten too.
#[test]
fn statements_after_an_early_return_move_in_place() {
    let source = "int a, b, c, d, e;
void u() {
    d = 1;
    e = 1;
    if (c == 0) return;   // early
    // a first
    a = 1;
    b = 1;   // then b
}
void main() { u(); }
";
    let moved = "int a, b, c, d, e;
void u() {
    d = 1;
    e = 1;
    if (c == 0) return;   // early
    b = 1;   // then b
    // a first
    a = 1;
}
void main() { u(); }
";
    assert_eq!(preserved(source, &["swap 7 <-> 8"]), moved);
    assert_eq!(
        preserved(source, &["swap 7 <-> 8", "swap 3 <-> 4"]),
        moved.replace("d = 1;\n    e = 1;", "e = 1;\n    d = 1;")
    );
}

/// A local's initial value is a statement: it moves with its declaration, a comment of
/// several lines moves whole, and a written section moves as its lines from `atomicBegin` to
/// `atomicEnd`.
#[test]
fn declarations_long_comments_and_written_sections_move_whole() {
    let source = "int a, b, c;
void t() {
    int r = a;   // a copy
    /* two
       lines */
    b = 1;
    atomicBegin();
    c = 1;
    atomicEnd();   // end
}
void main() { t(); }
";
    assert_eq!(
        preserved(source, &["swap 3 <-> 6", "swap 3 <-> 7"]),
        "int a, b, c;
void t() {
    /* two
       lines */
    b = 1;
    atomicBegin();
    c = 1;
    atomicEnd();   // end
    int r = a;   // a copy
}
void main() { t(); }
"
    );
}

/// Two statements on one line of a changed block are split onto lines of their own at the
/// block's indentation; an inline body becomes a multi-line one. The declarators of one
/// declaration stay one unit: a change that parts them falls back.
#[test]
fn statements_sharing_a_line_are_split() {
    let source = "int a, b;\nvoid t() {\n    a = 1; b = 1;\n}\nvoid main() { t(); }\n";
    let (p, q) = transformed(source, &["swap 3 <-> 3.2"]);
    let text = Printer::new(&q).splice(source, &p);
    assert_eq!(text.as_deref(), Some("int a, b;\nvoid t() {\n    b = 1;\n    a = 1;\n}\nvoid main() { t(); }\n"));
    // A thread written on one line, and one whose body starts on its brace's line.
    let source = "int a, b;\nvoid t() { a = 1; b = 1; } // t\nvoid main() { t(); }\n";
    let (p, q) = transformed(source, &["swap 2 <-> 2.2"]);
    let text = Printer::new(&q).splice(source, &p);
    assert_eq!(text.as_deref(), Some("int a, b;\nvoid t() {\n    b = 1;\n    a = 1;\n} // t\nvoid main() { t(); }\n"));
    let source = "int a, b;\nvoid t() { a = 1;\n  b = 1; }\nvoid main() { t(); }\n";
    let (p, q) = transformed(source, &["swap 2 <-> 3"]);
    let text = Printer::new(&q).splice(source, &p);
    assert_eq!(text.as_deref(), Some("int a, b;\nvoid t() {\n  b = 1;\n  a = 1;\n}\nvoid main() { t(); }\n"));
    let source = "int a, b;\nvoid t() {\n    int r = a, s = b;\n}\nvoid main() { t(); }\n";
    let (p, q) = transformed(source, &["swap 3 <-> 3.2"]);
    assert_eq!(Printer::new(&q).splice(source, &p), None);
}

/// A comment that starts on a moved statement's line and ends on the next line would be cut
/// by moving whole lines: the caller falls back.
#[test]
fn a_comment_across_a_cut_falls_back() {
    let source =
        "int a, b;\nvoid t() {\n    a = 1; /* a comment\n    on two lines */\n    b = 1;\n}\nvoid main() { t(); }\n";
    let (p, q) = transformed(source, &["swap 3 <-> 5"]);
    assert_eq!(Printer::new(&q).splice(source, &p), None);
}

/// A source that is not the original's falls back rather than printing something else.
#[test]
fn another_source_falls_back() {
    let (p, q) = transformed(MODEL, &["swap 14 <-> 16"]);
    let other = MODEL.replace("power = 1;\n    assert", "power = 2;\n    assert");
    assert_eq!(Printer::new(&q).splice(&other, &p), None);
    assert_eq!(Printer::new(&q).splice("", &p), None);
}

/// A commented model with a branch, a loop, a function with a parameter and a return value,
/// its call, and a local with an initial value.
const RICH: &str = "// header
int a, b, c, d, e, f;

/* p takes a value */
int p(int v) {
    // in the procedure
    d = v;
    e = d; // end of p
    return e;
}

void t() {
    int r = c;   // a local
    // first
    a = 1;   /* after a */
    if (c == 0) {
        // inside the branch
        c = 1;
        d = c;
    }
    while (nondet) {
        e = a; // in the loop
    }
    r = p(2);    // the call
}

void u() {
    assume(a == 1);
    assert(c == 1);
}

void main() {
    t();
    u();
}
";

/// The comments of a source, each as written from its `//` or `/*`.
fn comments(source: &str) -> Vec<&str> {
    source.lines().filter_map(|l| ["//", "/*"].iter().filter_map(|m| l.find(m)).min().map(|i| &l[i..])).collect()
}

/// Every candidate of the rich model's space: the text reads back as the candidate (checked
/// inside `Printer::splice`, and here by an outline), keeps every comment, and never falls
/// back on this layout, except for the candidates that no C text can say: a section over the
/// `return` (the dialect has no `return` inside a section). A call with an argument is one C
/// statement, so the frontend closes its `noreorder` to sections: no candidate has one there.
#[test]
fn every_candidate_of_a_commented_model_keeps_its_comments() {
    let p = parse(RICH).unwrap();
    let space = p.space();
    let candidates = Candidate::enumerate(&space, 50_000).unwrap();
    let comments = comments(RICH);
    assert_eq!(comments.len(), 10);
    let call: Vec<BlockId> = p
        .stmts
        .iter()
        .filter_map(|s| match s.kind {
            StmtKind::NoReorder(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(call.len(), 1);
    let ret = p.loc("9").unwrap();
    assert!(RICH.lines().nth(8).unwrap().trim().starts_with("return"));
    assert!(candidates.iter().all(|c| c.sections().iter().all(|s| !call.contains(&s.block))));
    assert!(candidates.iter().any(|c| !c.sections().is_empty()));
    let mut inexpressible = 0;
    for (k, c) in candidates.iter().enumerate() {
        let q = p.apply(c).unwrap();
        let text = Printer::new(&q).splice(RICH, &p);
        if c.sections().iter().any(|s| c.section_items(s).contains(&ret)) {
            assert_eq!(text, None, "{}", c.display(&space));
            inexpressible += 1;
            continue;
        }
        let text = text.unwrap_or_else(|| panic!("fell back on {}", c.display(&space)));
        for comment in &comments {
            assert!(text.contains(comment), "`{comment}` lost:\n{text}");
        }
        // Lines are only moved or added: as many as the source's plus two per section.
        assert_eq!(text.lines().count(), RICH.lines().count() + 2 * c.sections().len(), "{text}");
        if k % 97 == 0 {
            assert_eq!(outline(&parse(&text).unwrap()), outline(&q), "{text}");
        }
    }
    // 1,488 are written (each `assert` of the model keeps its place in every candidate).
    let written = candidates.len() - inexpressible;
    assert!(written > 1_000 && inexpressible > 0, "{written} written, {inexpressible} not");
}

/// The C models of the tests and `examples/paper1.c`, repaired: the output keeps every
/// comment, reads back as the repair, and differs from the source only by moved lines and
/// added section lines.
#[test]
fn the_repaired_models_keep_their_comments() {
    let models = [
        ("counter", include_str!("models/counter.c")),
        ("publish", include_str!("models/publish.c")),
        // `tokens` is left out: its repair is a section over a `return`, which C cannot
        // hold (models.rs checks that it is printed as Cwhile).
        ("hook", include_str!("models/hook.c")),
        ("pair", include_str!("models/pair.c")),
        ("handshake", include_str!("models/handshake.c")),
        ("params", include_str!("models/params.c")),
        ("locks", include_str!("models/locks.c")),
        ("paper1", include_str!("../../../examples/paper1.c")),
    ];
    let mut repaired = 0;
    for (name, source) in models {
        let p = parse(source).unwrap();
        let report = Repair::new().run(&p).unwrap();
        let q = report.repaired.clone().unwrap_or_else(|| panic!("{name}: {}", report.stop));
        let text = Printer::new(&q).splice(source, &p).unwrap_or_else(|| panic!("{name}: fell back"));
        for comment in comments(source) {
            assert!(text.contains(comment), "{name}: `{comment}` lost:\n{text}");
        }
        assert_eq!(outline(&parse(&text).unwrap()), outline(&q), "{name}:\n{text}");
        let mut added: Vec<&str> = text.lines().collect();
        let mut kept: Vec<&str> = source.lines().collect();
        added.sort_unstable();
        kept.sort_unstable();
        for line in &kept {
            let at = added.iter().position(|l| l == line).unwrap_or_else(|| panic!("{name}: `{line}` lost"));
            added.remove(at);
        }
        assert!(added.iter().all(|l| ["atomicBegin();", "atomicEnd();"].contains(&l.trim())), "{name}: {added:?}");
        if report.transformations.is_empty() {
            assert_eq!(text, source, "{name}: already correct");
        } else {
            assert_ne!(text, source, "{name}: {:?}", words(&report));
            repaired += 1;
        }
    }
    assert!(repaired >= 6, "{repaired} models repaired");
}
