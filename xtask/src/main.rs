//! `cargo xtask`: the single entry point for chores.
//!
//! * `cargo xtask ci` runs what `.ci/run` runs (format check, clippy, the test suite).
//! * `cargo xtask table [--runs N] [--out FILE]` measures the paper's Table 1 here.

mod table;

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("table") => table_command(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask ci | cargo xtask table [--runs N] [--out FILE]");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Parses the options of `cargo xtask table` and runs it.
fn table_command(args: &[String]) -> Result<(), String> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut runs = 3;
    let mut out = root.join("docs/evaluation.json");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--runs" => runs = it.next().and_then(|n| n.parse().ok()).ok_or("--runs takes a number")?,
            "--out" => out = it.next().map(std::path::PathBuf::from).ok_or("--out takes a file")?,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    table::table(&root, runs, &out)
}

/// Runs one cargo command, failing with its command line when it fails.
fn cargo(args: &[&str]) -> Result<(), String> {
    eprintln!("xtask: cargo {}", args.join(" "));
    let status = Command::new(env!("CARGO")).args(args).status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

/// The checks of `.ci/run`, in the same order.
fn ci() -> Result<(), String> {
    cargo(&["fmt", "--all", "--", "--check"])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    cargo(&["test", "--workspace"])
}
