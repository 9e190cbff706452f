//! Hand-written C models in the dialect's style: each reads, checks as expected, and each
//! buggy one is repaired; the repaired program, printed as C and read again, checks correct.

use paces::Repair;
use paces_explore::{check, Config};

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
];

/// The repairs named by source lines, for the models whose fix is a single clear one.
const REPAIRS: &[(&str, &[&str])] = &[
    ("counter", &["atomic [14; 16]"]),
    ("publish", &["swap 10 <-> 11"]),
    ("hook", &["swap 14 <-> 15"]),
    ("handshake", &["swap 24 <-> 25"]),
];

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
        let report = Repair::new().run(&read(name, source)).unwrap();
        let repaired = report.repaired.unwrap_or_else(|| panic!("{name}: not repaired: {}", report.stop));
        if let Some((_, expected)) = REPAIRS.iter().find(|(n, _)| n == name) {
            assert_eq!(report.transformation_text, *expected, "{name}: the repair, by source lines");
        }
        let text = paces_c::print(&repaired).unwrap().text;
        let again = read(name, &text);
        let result = check(&again, &Config::new().max_states(200_000)).unwrap();
        assert_eq!(result.verdict.name(), "correct", "{name}: repaired C text still {}:\n{text}", result.verdict);
    }
}
