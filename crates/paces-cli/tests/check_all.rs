//! `paces check --all` (every failing assertion, deadlock and livelock with a witness), and the
//! live progress line and streamed `--verbose` iterations as seen off a terminal.

use std::process::Command;

use serde_json::Value;

/// Two assertions that fail (`C` after `A`, `D` before it) and a deadlock (`a` waits at `B`
/// for a `y` nobody sets).
const THREE: &str = "var x = 0, y = 0;\nthread a { A: x := 1; B: await(y == 1); }\n\
                     thread b { C: assert(x == 0); D: assert(x == 1); }\n";

fn paces(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paces")).args(args).env("NO_COLOR", "1").output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str, contents: &str) -> String {
    let dir = std::env::temp_dir().join(format!("paces-check-all-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

fn example(name: &str) -> String {
    paces_heldin::path(name).display().to_string()
}

/// The text between `heading` and the next empty line.
#[track_caller]
fn section<'a>(out: &'a str, heading: &str) -> &'a str {
    let start = out.find(heading).unwrap_or_else(|| panic!("no `{heading}` in\n{out}"));
    let rest = &out[start..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

#[test]
fn text_lists_both_failures_and_the_deadlock_with_witnesses() {
    let path = scratch("three.cw", THREE);
    let (status, out, err) = paces(&["check", "--all", &path]);
    assert_eq!(status, 1, "{err}");
    assert!(out.starts_with(&format!("{path}: 2 failing assertions, 1 deadlock, 0 atomic livelocks\n")), "{out}");
    let c = section(&out, "assertion `C` fails (2 steps):");
    assert!(c.contains("A  x := 1") && c.contains("C  assert(x == 0)  <- fails"), "{c}");
    let d = section(&out, "assertion `D` fails (2 steps):");
    assert!(d.contains("C  assert(x == 0)\n") && d.contains("D  assert(x == 1)  <- fails"), "{d}");
    let dl = section(&out, "deadlock: a at B, b done (3 steps):");
    assert!(dl.contains("A  x := 1"), "{dl}");
    // A fixed order: failures by label, then deadlocks.
    let at = |s: &str| out.find(s).unwrap();
    assert!(at("assertion `C`") < at("assertion `D`") && at("assertion `D`") < at("deadlock:"));
    assert!(out.trim_end().ends_with(" s") && out.contains("6 states, 7 transitions"), "{out}");
    // The same run again prints the same text but for the time.
    let (_, again, _) = paces(&["check", "--all", &path]);
    let untimed = |s: &str| s.lines().filter(|l| !l.ends_with(" s")).collect::<Vec<_>>().join("\n");
    assert_eq!(untimed(&out), untimed(&again));
}

#[test]
fn plain_check_still_shows_one_trace() {
    let path = scratch("one.cw", THREE);
    let (status, out, _) = paces(&["check", &path]);
    assert_eq!(status, 1);
    assert!(out.starts_with(&format!("{path}: bad: C fails")), "{out}");
    assert!(!out.contains("deadlock"), "{out}");
}

#[test]
fn json_lists_every_finding_with_its_trace() {
    let path = scratch("three-json.cw", THREE);
    let (status, out, _) = paces(&["check", "--all", &path, "--format", "json"]);
    assert_eq!(status, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "paces-check-all/1");
    assert_eq!(v["verdict"], "bad");
    assert_eq!(v["counts"], serde_json::json!({"failures": 2, "deadlocks": 1, "livelocks": 0}));
    let labels: Vec<&str> = v["failures"].as_array().unwrap().iter().map(|f| f["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["C", "D"]);
    for f in v["failures"].as_array().unwrap() {
        let trace = f["trace"].as_array().unwrap();
        let last = trace.last().unwrap();
        assert_eq!(last["label"], f["label"], "a failure's witness ends at its failing step");
        assert_eq!(last["failing"], true);
        assert_eq!(f["division_by_zero"], false);
    }
    let deadlocks = v["deadlocks"].as_array().unwrap();
    assert_eq!(deadlocks.len(), 1);
    assert_eq!(deadlocks[0]["deadlock"], "a at B, b done");
    let steps: Vec<&str> =
        deadlocks[0]["trace"].as_array().unwrap().iter().map(|s| s["label"].as_str().unwrap()).collect();
    assert_eq!(steps.len(), 3);
    assert!(steps.contains(&"A"), "a waits at B only after A: {steps:?}");
    assert_eq!(v["livelocks"], serde_json::json!([]));
    assert_eq!(v["bound"], Value::Null);
    assert_eq!(v["states"], 6);
}

#[test]
fn exit_codes_follow_plain_check() {
    let (status, out, _) =
        paces(&["check", "--all", &scratch("ok.cw", "var x = 0;\nthread a { x := 1; assert(x == 1); }\n")]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains(": 0 failing assertions, 0 deadlocks, 0 atomic livelocks\n"), "{out}");
    let looping = scratch("loop.cw", "var x = 0;\nthread a { while (true) { x := x + 1; } }\n");
    let (status, out, _) = paces(&["check", "--all", &looping, "--max-states", "50"]);
    assert_eq!(status, 3, "{out}");
    assert!(out.contains("note: the state bound was reached first: the lists may be incomplete"), "{out}");
    let (status, out, _) = paces(&["check", "--all", &looping, "--max-states", "50", "--format", "json"]);
    assert_eq!(status, 3);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["verdict"].as_str(), v["bound"].as_str()), (Some("bound-reached"), Some("state-bound")));
    // The memory bound in MiB of stored states: its own name, the same exit code.
    let endless = scratch("endless.cw", "var x = 0;\nthread a { while (true) { x := x + 1; } }\n");
    let (status, out, _) = paces(&["check", "--all", &endless, "--max-memory", "1", "--format", "json"]);
    assert_eq!(status, 3, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["verdict"].as_str(), v["bound"].as_str()), (Some("bound-reached"), Some("memory-bound")));
    let (status, out, err) = paces(&["check", &endless, "--max-memory", "1"]);
    assert_eq!(status, 3, "{out}{err}");
    assert!(out.contains("memory bound reached after"), "{out}");
    let (status, _, err) = paces(&["check", &endless, "--max-memory", "0"]);
    assert_eq!(status, 2);
    assert!(err.contains("--max-memory takes a positive number of MiB"), "{err}");
}

/// rtl8169 explores for a second here, long enough for progress reports, but stderr is a pipe.
#[test]
fn no_progress_line_off_a_terminal() {
    let (status, out, err) = paces(&["check", "--all", &example("rtl8169"), "--max-time", "1"]);
    assert!(matches!(status, 1 | 3), "a failure, or the time bound first on a slow machine: {out}");
    assert!(err.is_empty(), "nothing on stderr off a terminal: {err:?}");
    assert!(!out.contains('\r'));
}

#[test]
fn verbose_repair_streams_each_iteration_once_before_the_summary() {
    let path = example("ex2");
    let (status, _, err) = paces(&["repair", &path, "--verbose"]);
    assert_eq!(status, 0, "{err}");
    assert!(!err.contains('\r') && !err.contains('\x1b'), "no progress line off a terminal: {err:?}");
    let header = format!("paces: {path}: repaired (mixed mode)");
    let summary_at = err.find(&header).unwrap_or_else(|| panic!("{err}"));
    let iterations: Vec<&str> = err.lines().filter(|l| l.contains(": iteration ")).collect();
    assert_eq!(iterations.len(), 3, "ex2 takes three iterations, each told once: {err}");
    for (i, line) in iterations.iter().enumerate() {
        assert!(line.starts_with(&format!("paces: {path}: iteration {}: bad trace: ", i + 1)), "{line}");
        assert!(err.find(line).unwrap() < summary_at, "iterations come as they end, before the summary");
    }
    assert!(err.contains("  iterations: 3,"), "{err}");
    assert!(err.contains("  diff:"), "{err}");
    let (_, _, quiet) = paces(&["repair", &path]);
    assert!(!quiet.contains(": iteration "), "without --verbose: {quiet}");
}
