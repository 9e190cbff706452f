//! `paces repair --exhaustive` through the binary: the cheapest repair of a small shipped
//! example in text and JSON, and the refusal of a large space with its size.

use std::process::{Command, Output};

use serde_json::Value;

fn paces(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_paces")).args(args).env("NO_COLOR", "1").output().expect("the binary runs")
}

fn example(name: &str) -> String {
    paces_heldin::path(name).display().to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The paper's Figure 7 (384 candidates: its asserts keep their place): the brute force finds the loop's repair, moving
/// `A` after `B` and `C` (two inversions), and says it is proved optimal.
#[test]
fn exhaustive_repairs_paper1_with_a_proved_optimum() {
    let out = paces(&["repair", "--exhaustive", &example("paper1")]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("repaired (exhaustive search)"), "{stderr}");
    assert!(stderr.contains("changes:\n    move A below C\n"), "{stderr}");
    let line = stderr.lines().find(|l| l.trim_start().starts_with("exhaustive:")).expect("an exhaustive line");
    assert!(line.contains("of 384 candidates checked"), "{line}");
    assert!(line.contains("cost (atomic 0, inversions 2); proved optimal in the space"), "{line}");
    let (b, c, a) = (stdout.find("B:").unwrap(), stdout.find("C:").unwrap(), stdout.find("A:").unwrap());
    assert!(b < c && c < a, "{stdout}");
}

/// The JSON document carries the cost, the space's size, the count checked and the proof.
#[test]
fn exhaustive_json_names_cost_and_search() {
    let out = paces(&["repair", "--exhaustive", "--format", "json", &example("ex-regr")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(doc["stop_reason"], "repaired");
    assert_eq!(doc["transformations"], serde_json::json!(["atomic [10; 11]"]));
    assert_eq!(doc["changes"], serde_json::json!(["atomic [10; 11]"]));
    assert_eq!(doc["cost"], serde_json::json!({"atomic_weight": 2, "inversions": 0}));
    assert_eq!(doc["exhaustive"]["space_size"], 8);
    assert_eq!(doc["exhaustive"]["proved_optimal"], true);
    let checked = doc["exhaustive"]["checked"].as_u64().expect("a count");
    assert!((2..=8).contains(&checked), "{checked}");
}

/// Without `--exhaustive` the JSON has the loop's cost and no search.
#[test]
fn the_loops_json_has_a_cost_and_no_search() {
    let out = paces(&["repair", "--format", "json", &example("ex-regr")]);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(doc["cost"], serde_json::json!({"atomic_weight": 2, "inversions": 0}));
    assert_eq!(doc["exhaustive"], Value::Null);
}

/// A space above the limit is refused before any check, exit 2, naming its size; the limit
/// is a setting.
#[test]
fn a_large_space_is_refused_with_its_size() {
    let out = paces(&["repair", "--exhaustive", &example("iwl3945")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the space has 1216512 candidates, more than the exhaustive search's limit of 10000"));
    assert!(out.stdout.is_empty());
    let out = paces(&["repair", "--exhaustive", "--exhaustive-limit", "7", &example("ex-regr")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the space has 8 candidates, more than the exhaustive search's limit of 7"));
}

/// `--exhaustive-limit` without `--exhaustive` is a usage error.
#[test]
fn the_limit_needs_the_flag() {
    let out = paces(&["repair", "--exhaustive-limit", "5", &example("ex-regr")]);
    assert_eq!(out.status.code(), Some(2));
}
