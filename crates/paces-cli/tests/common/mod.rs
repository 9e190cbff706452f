//! Shared by the binary's tests: running `paces` and writing scratch inputs.

#![allow(dead_code)] // Reason: each test file uses a different part of this module.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `paces` binary with `args`, colours off.
pub fn paces(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_paces")).args(args).env("NO_COLOR", "1").output().expect("the binary runs")
}

/// Bytes of an output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Writes `contents` to the file `name` of the folder `dir` of the test's scratch space; its
/// path.
pub fn scratch(dir: &str, name: &str, contents: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

/// The JSON report of `paces repair --format json FILE EXTRA...`, which must repair (exit 0).
#[track_caller]
pub fn repaired_json(file: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["repair", "--format", "json", file];
    args.extend_from_slice(extra);
    let out = paces(&args);
    assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["stop_reason"], "repaired", "{extra:?}");
    doc
}
