//! Hand-written C models in the dialect's style: each reads, checks as expected, and each
//! buggy one is repaired; the repaired C file (the source with the repair written into it)
//! reads again and checks correct.

use paces::Repair;
use paces_explore::{check, Config};

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

/// Name, source, expected verdict of the model as written.
const MODELS: &[(&str, &str, &str)] = &[
    ("counter", include_str!("models/counter.c"), "bad"),
    ("publish", include_str!("models/publish.c"), "bad"),
    ("params", include_str!("models/params.c"), "correct"),
    ("tokens", include_str!("models/tokens.c"), "bad"),
    ("hook", include_str!("models/hook.c"), "bad"),
    ("locks", include_str!("models/locks.c"), "correct"),
    ("pair", include_str!("models/pair.c"), "bad"),
    ("handshake", include_str!("models/handshake.c"), "bad"),
    ("adders", include_str!("models/adders.c"), "bad"),
    ("styled", include_str!("models/styled.c"), "correct"),
    ("registers", include_str!("models/registers.c"), "bad"),
    ("bits", include_str!("models/bits.c"), "correct"),
];

/// The repairs named by source lines, for the models whose fix is a single clear one.
const REPAIRS: &[(&str, &[&str])] = &[
    ("counter", &["atomic [14; 16]"]),
    ("publish", &["swap 10 <-> 11"]),
    ("hook", &["swap 14 <-> 15"]),
    ("handshake", &["swap 24 <-> 25"]),
    ("adders", &["atomic [15; 16]"]),
    ("registers", &["swap 27 <-> 28"]),
];

/// The models whose repair C cannot hold, so that it is printed as Cwhile: `tokens`'s repair is
/// a section around `take`'s `if` (its early return inside) and one around the thief's `if`
/// (moving the decrement above the consumer's `assert` is no repair, and no other reorder is).
const CWHILE_ONLY: &[&str] = &["tokens"];

fn read(name: &str, source: &str) -> paces_cwhile::Program {
    paces_c::parse(source)
        .unwrap_or_else(|d| panic!("{name} does not read:\n{}", paces_cwhile::render(&d, name, source, false)))
}

#[test]
fn every_model_checks_as_expected() {
    for (name, source, expected) in MODELS {
        let result = check(&read(name, source), &Config::new().max_states(200_000)).unwrap();
        assert_eq!(result.verdict.name(), *expected, "{name}: {}", result.verdict);
    }
}

#[test]
fn every_buggy_model_is_repaired_and_the_repaired_c_checks_correct() {
    for (name, source, expected) in MODELS {
        if *expected == "correct" {
            continue;
        }
        let original = read(name, source);
        let report = Repair::new().run(&original).unwrap();
        let repaired = report.repaired.clone().unwrap_or_else(|| panic!("{name}: not repaired: {}", report.stop));
        if let Some((_, expected)) = REPAIRS.iter().find(|(n, _)| n == name) {
            assert_eq!(words(&report), *expected, "{name}: the repair, by source lines");
        }
        if CWHILE_ONLY.contains(name) {
            assert!(paces_c::Printer::new(&repaired).splice(source, &original).is_none(), "{name}: written into C");
            let result = check(&repaired, &Config::new().max_states(200_000)).unwrap();
            assert_eq!(result.verdict.name(), "correct", "{name}: the repaired program still {}", result.verdict);
            continue;
        }
        let text = paces_c::Printer::new(&repaired)
            .splice(source, &original)
            .unwrap_or_else(|| panic!("{name}: the repair cannot be written into the source"));
        let again = read(name, &text);
        let result = check(&again, &Config::new().max_states(200_000)).unwrap();
        assert_eq!(result.verdict.name(), "correct", "{name}: repaired C text still {}:\n{text}", result.verdict);
    }
}

/// Two threads call `id`, which holds its argument across a preemption point: with one copy
/// of `v` and of the return value per thread, each thread gets its own argument back. The same
/// model with the copies shared by hand (globals) fails, so the check can tell them apart.
#[test]
fn parameters_and_return_values_are_private_to_each_thread() {
    let private = "int shared;\nint id(int v) {\n  shared = shared + 1;\n  return v;\n}\n\
        void a() {\n  int r;\n  r = id(1);\n  assert(r == 1);\n}\n\
        void b() {\n  int s;\n  s = id(2);\n  assert(s == 2);\n}\n\
        void main() { a(); b(); }\n";
    let shared = "int shared, v, ret;\nvoid id() {\n  shared = shared + 1;\n  ret = v;\n}\n\
        void a() {\n  int r;\n  v = 1;\n  id();\n  r = ret;\n  assert(r == 1);\n}\n\
        void b() {\n  int s;\n  v = 2;\n  id();\n  s = ret;\n  assert(s == 2);\n}\n\
        void main() { a(); b(); }\n";
    let config = Config::new().max_states(200_000);
    let result = check(&read("private", private), &config).unwrap();
    assert_eq!(result.verdict.name(), "correct", "{}", result.verdict);
    let result = check(&read("shared", shared), &config).unwrap();
    assert_eq!(result.verdict.name(), "bad", "{}", result.verdict);
}

/// A function `main` starts twice gets each call's constant arguments in its own thread; a
/// function `main` starts once runs as the thread itself, its parameters set from the start.
#[test]
fn thread_arguments_from_main_are_per_thread() {
    let twice = "int sum;\nvoid w(int k) {\n  sum = sum + k;\n  assert(k != 0);\n}\n\
        void main() { w(1); w(2); }\n";
    let program = read("twice", twice);
    assert_eq!(program.threads.len(), 2);
    let result = check(&program, &Config::new()).unwrap();
    assert_eq!(result.verdict.name(), "correct", "{}", result.verdict);
    // Both threads ran to their end: `sum` is 3 in some final state, so a check of `sum != 3`
    // at the end of a third thread that waits for both must fail.
    let waits = "int sum, done;\nvoid w(int k) {\n  sum = sum + k;\n  done = done + 1;\n}\n\
        void last() {\n  assume(done == 2);\n  assert(sum != 3);\n}\n\
        void main() { w(1); w(2); last(); }\n";
    let result = check(&read("waits", waits), &Config::new()).unwrap();
    assert_eq!(result.verdict.name(), "bad", "{}", result.verdict);
    for (k, verdict) in [(3, "correct"), (4, "bad")] {
        let once = format!("void t(int k) {{\n  assert(k == {k});\n}}\nvoid main() {{ t(3); }}\n");
        let result = check(&read("once", &once), &Config::new()).unwrap();
        assert_eq!(result.verdict.name(), verdict, "t(3) asserting k == {k}: {}", result.verdict);
    }
}

/// Traces show a C statement's own text beside its line, the steps added for it too (a call's
/// parameter and return steps show the call, the guards of an `if` its head); a transformed
/// program keeps them.
#[test]
fn steps_show_their_c_text() {
    let source = include_str!("models/adders.c");
    let program = read("adders", source);
    let text = |p: &paces_cwhile::Program, label: &str| p.step_text(p.loc(label).unwrap()).unwrap();
    let expected = [
        ("15", "old = count"),
        ("16", "count = old + by"),
        ("17", "return old"),
        ("22.2", "before = add(by)"),
        ("22.4", "before = add(by)"),
        ("23", "assert(before <= FIRST + SECOND - by)"),
        ("24.then", "if (by == FIRST)"),
        ("24.else", "if (by == FIRST)"),
        ("32", "assume(done1 == 1 & done2 == 1)"),
    ];
    for (label, want) in expected {
        assert_eq!(text(&program, label), want, "{label}");
    }
    let space = program.space();
    let swapped = paces_constraint::Candidate::apply(
        &space,
        &[paces_constraint::Transformation::Atomic {
            first: program.loc("15").unwrap(),
            last: program.loc("16").unwrap(),
        }],
    )
    .unwrap();
    let changed = program.apply(&swapped).unwrap();
    for (label, want) in expected {
        assert_eq!(text(&changed, label), want, "{label} after the transformation");
    }
}

/// A user's `noReorderBegin()` group inside an atomic block is no call: its statements show
/// their C text too.
#[test]
fn a_no_reorder_group_shows_its_c_text() {
    let source = "int x, y;\nvoid t() {\n    atomicBegin();\n    noReorderBegin();\n    x = 1;\n    y = x + 1;\n    noReorderEnd();\n    atomicEnd();\n}\nvoid main() { t(); }\n";
    let program = read("group", source);
    let text = |label: &str| program.step_text(program.loc(label).unwrap()).unwrap();
    assert_eq!(text("5"), "x = 1");
    assert_eq!(text("6"), "y = x + 1");
}
