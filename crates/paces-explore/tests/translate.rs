//! Traces of a candidate program translated back to the original's locations and blocks.

use paces_constraint::Candidate;
use paces_explore::{check, translate_trace, Config, ErrorKind};

#[test]
fn a_trace_through_an_added_section_names_the_originals_items() {
    let original = paces_cwhile::parse(
        "var x = 0, y = 0;\nthread a {\n  A: x := 1;\n  B: y := 1;\n  C: x := 0;\n}\nthread b {\n  1: await(y == 1);\n  2: assert(x == 1);\n}\n",
    )
    .unwrap();
    let space = original.space();
    let loc = |label: &str| original.loc(label).unwrap();
    let orders = space.blocks().map(|b| space.items(b).to_vec()).collect();
    // A section around B and C leaves `2` failing only when it runs before A.
    let candidate = Candidate::new(&space, orders, &[(loc("B"), loc("C"))]).unwrap();
    let program = original.apply(&candidate).unwrap();
    assert!(program.loc("atomic_B").is_some(), "the section is a statement of the candidate");
    let result = check(&program, &Config::new()).unwrap();
    let cex = result.verdict.counterexample().expect("2 can still fail");
    let translated = translate_trace(&cex.trace, &program, &original).unwrap();
    assert_eq!(translated.len(), cex.trace.len());
    for (before, after) in cex.trace.events().iter().zip(translated.events()) {
        assert_eq!(program.loc_name(before.loc), original.loc_name(after.loc));
        for entry in &after.scope {
            // Every scope level is an item of the original's block that holds it.
            let block = space.block_of(entry.item).expect("an item of the original");
            assert_eq!(block, entry.instance.block);
        }
    }
    // The translation is a trace of the original: its failure is still `2`.
    let failing = translated.first_failure().expect("still bad");
    assert_eq!(original.loc_name(translated.event(failing).loc), "2");
    // A program that is not the candidate's original is refused.
    let other = paces_cwhile::parse("var x = 0;\nthread a {\n  Z: x := 1;\n}\n").unwrap();
    let err = translate_trace(&cex.trace, &program, &other).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::Unrelated);
}

/// A section taken along a path with no step of its own is one step of the candidate (at
/// the section's label) and none of the original: the translation drops it, and the reads
/// after it keep their writers.
#[test]
fn a_section_passed_along_an_empty_path_is_no_step_of_the_original() {
    let original = paces_cwhile::parse(
        "var x = 0, y = 0;\nthread a {\n  A: if (*) {\n    A1: x := 1;\n    A2: x := 1;\n  }\n  B: y := 1;\n}\nthread b {\n  1: await(y == 1);\n  2: assert(x == 1);\n}\n",
    )
    .unwrap();
    let space = original.space();
    let loc = |label: &str| original.loc(label).unwrap();
    let orders = space.blocks().map(|b| space.items(b).to_vec()).collect();
    let candidate = Candidate::new(&space, orders, &[(loc("A"), loc("A"))]).unwrap();
    let program = original.apply(&candidate).unwrap();
    let result = check(&program, &Config::new()).unwrap();
    let cex = result.verdict.counterexample().expect("2 fails after the empty branch");
    let labels: Vec<&str> = cex.schedule.steps.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["atomic_A", "B", "1", "2"]);
    let translated = translate_trace(&cex.trace, &program, &original).unwrap();
    let names: Vec<&str> = translated.events().iter().map(|e| original.loc_name(e.loc)).collect();
    assert_eq!(names, ["B", "1", "2"]);
    // `1` reads y from B, now the first event.
    let read = translated.events()[1].reads[0];
    assert_eq!(read.from.map(|w| w.index()), Some(0));
    assert_eq!(original.loc_name(translated.event(translated.first_failure().unwrap()).loc), "2");
}
