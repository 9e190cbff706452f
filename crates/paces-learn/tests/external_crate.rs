//! The crate in `tests/external/`, outside the workspace, as a user with their own language
//! and checker writes it: its dependency tree holds neither our language nor our checker, and
//! it repairs a message-passing bug (by the reorder, in the driver's default configuration)
//! and a lost update of its toy language with `paces-learn`'s driver, in under 80 lines of
//! glue.
//!
//! The slow test of this crate: it builds that crate with cargo (in a directory of its own
//! under the workspace's target directory, so the outer build's lock is not needed; the
//! first run builds its dependencies there).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/external/Cargo.toml")
}

/// `cargo ARGS --manifest-path tests/external/Cargo.toml`, with its own target directory.
fn cargo(args: &[&str]) -> Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/external-crate");
    let output = Command::new(cargo)
        .args(args)
        .arg("--manifest-path")
        .arg(manifest())
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn the_external_crate_builds_without_our_language_or_checker_and_repairs_its_bugs() {
    let metadata = String::from_utf8(cargo(&["metadata", "--format-version", "1"]).stdout).unwrap();
    assert!(metadata.contains("\"name\":\"paces-learn\""), "paces-learn is its dependency");
    for banned in ["paces-cwhile", "paces-explore", "paces"] {
        assert!(!metadata.contains(&format!("\"name\":\"{banned}\"")), "{banned} is in the dependency tree");
    }
    let run = String::from_utf8(cargo(&["run", "--quiet"]).stdout).unwrap();
    let (message_passing, lost_update) = run.split_once("lost update:").expect("both answers");
    assert!(message_passing.starts_with("message passing: correct"), "{run}");
    assert!(message_passing.contains("  move f below d\nT1: d; f\nT2: w; a\n"), "{run}");
    assert!(lost_update.contains("T1: atomic [r1; s1]\nT2: atomic [r2; s2]\n"), "{run}");
    // The check `finally x == 2` is the trace's final check: no thread stands for it.
    assert!(!run.contains("finally"), "{run}");
}

/// The glue between the toy language and the crate, `tests/external/src/glue.rs`, counted
/// without blank and comment lines.
#[test]
fn the_external_crates_glue_is_under_80_lines() {
    let glue =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/external/src/glue.rs")).unwrap();
    let code = glue.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//")).count();
    assert!(code < 80, "{code} lines of glue");
}
