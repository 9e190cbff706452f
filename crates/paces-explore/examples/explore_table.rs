//! Prints a markdown table for every held-in program (`examples/*.cw`) or the given files: states
//! and wall time of our checker (the default check, which stops at the first failure, and
//! the exhaustive exploration with and without partial-order reduction), and SPIN on the
//! exported Promela (states stored, compile time apart from run time) when `spin` and `gcc`
//! are on PATH.
//!
//! Run from the workspace root:
//! `cargo run --release -p paces-explore --example explore_table [-- FILE.cw ...]`

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use paces_explore::{check, Config};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<PathBuf> = if args.is_empty() {
        paces_heldin::NAMES.iter().map(|name| paces_heldin::path(name)).collect()
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    let spin = Command::new("spin").arg("-V").output().is_ok_and(|o| o.status.success());
    println!(
        "| program | verdict | check: states / time | exhaustive POR: states / time | exhaustive no POR: states / time | SPIN compile (spin -a + gcc) | SPIN exhaustive: states / run time | SPIN to first error: states / run time |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for f in &files {
        let name = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let source = std::fs::read_to_string(f)?;
        let program = paces_cwhile::parse(&source).map_err(|e| format!("{name}: {e:?}"))?;
        let first = check(&program, &Config::new())?;
        let por = check(&program, &Config::new().stop_at_first_failure(false))?;
        let nopor = check(&program, &Config::new().stop_at_first_failure(false).por(false))?;
        let (compile, full, to_first) = if spin { spin_numbers(&program, &source)? } else { Default::default() };
        println!(
            "| {name} | {} | {} / {} | {} / {} | {} / {} | {compile} | {full} | {to_first} |",
            first.verdict.name(),
            first.states,
            secs(first.time),
            por.states,
            secs(por.time),
            nopor.states,
            secs(nopor.time),
        );
    }
    if !spin {
        eprintln!("spin is not on PATH: SPIN columns left empty");
    }
    Ok(())
}

fn secs(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{:.2} ms", d.as_secs_f64() * 1000.0)
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}

/// SPIN's numbers: compile time, exhaustive (`-E -A`) states and time, and first error.
fn spin_numbers(
    program: &paces_cwhile::Program,
    source: &str,
) -> Result<(String, String, String), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("paces-explore-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("model.pml"), paces_cwhile::to_promela(program, source)?)?;
    let start = Instant::now();
    let ok = Command::new("spin").args(["-a", "model.pml"]).current_dir(&dir).output()?.status.success()
        && Command::new("gcc")
            .args(["-O2", "-DVECTORSZ=4096", "-DMEMLIM=8000", "-o", "pan", "pan.c"])
            .current_dir(&dir)
            .output()?
            .status
            .success();
    let compile = secs(start.elapsed());
    if !ok {
        return Ok(("failed".into(), String::new(), String::new()));
    }
    let pan = |flags: &[&str]| -> Result<String, Box<dyn std::error::Error>> {
        let start = Instant::now();
        let out = Command::new("./pan").args(flags).current_dir(&dir).output()?;
        let t = start.elapsed();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let stored = text
            .lines()
            .find(|l| l.contains("states, stored"))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or("?")
            .to_string();
        let note = if text.contains("out of memory") || text.contains("memory limit") {
            " (out of memory)"
        } else if text.contains("max search depth too small") {
            " (depth bound)"
        } else {
            ""
        };
        Ok(format!("{stored} / {}{note}", secs(t)))
    };
    let full = pan(&["-E", "-A", "-m1000000", "-w24"])?;
    let first = pan(&["-m1000000", "-w24"])?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok((compile, full, first))
}
