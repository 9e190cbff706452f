//! `cargo xtask svcomp DIR [--out FILE] [--paces BIN] [--time-limit SECS]`: every SV-COMP task
//! (`.yml`) under DIR with the property `unreach-call`, read as pthread C and checked, in a
//! table like benchexec's (task, expected, verdict, time, states, repair). The `.i` a task names
//! is used when present, else the `.c` of the same stem. A "true" holds only when the model
//! put no bound on the program; with a bound (the range of nondeterministic values) or a limit
//! reached it is "unknown". Each false verdict is repaired with `paces repair` (the binary
//! BIN, default `target/release/paces` or `target/debug/paces`) and the repaired C file
//! checked again.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use paces_c::pthread::{parse, stale_checks, Options};
use paces_explore::{check, Config, FailureKinds, Verdict};

/// What `cargo xtask svcomp` was asked.
pub struct Args {
    /// The folder searched for `.yml` tasks.
    pub dir: PathBuf,
    /// Where the table goes (stdout when `None`).
    pub out: Option<PathBuf>,
    /// The `paces` binary that repairs.
    pub paces: Option<PathBuf>,
    /// The limit of each check and each repair, in seconds.
    pub limit: u64,
}

/// One task's row.
struct Row {
    task: String,
    expected: String,
    verdict: String,
    time: f64,
    states: Option<usize>,
    repair: String,
}

/// Runs the tasks and writes the table.
pub fn svcomp(args: &Args) -> Result<(), String> {
    let mut tasks = Vec::new();
    collect(&args.dir, &mut tasks)?;
    tasks.sort();
    let paces = args.paces.clone().or_else(default_paces);
    let mut rows = Vec::new();
    for yml in &tasks {
        if let Some(row) = task(yml, &args.dir, paces.as_deref(), args.limit)? {
            eprintln!("{} {} {} {:.2}s", row.task, row.expected, row.verdict, row.time);
            rows.push(row);
        }
    }
    let text = table(&rows);
    match &args.out {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn default_paces() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    ["target/release/paces", "target/debug/paces"].iter().map(|p| root.join(p)).find(|p| p.is_file())
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for e in entries {
        let path = e.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "yml") {
            out.push(path);
        }
    }
    Ok(())
}

/// The `input_files` and the expected `unreach-call` verdict of a task file (`None`: the task
/// has no such property).
fn read_yml(text: &str) -> (Option<String>, Option<String>) {
    let mut input = None;
    let mut expected = None;
    let mut in_unreach = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(v) = t.strip_prefix("input_files:") {
            let v = v.trim().trim_matches(['\'', '"']);
            if !v.is_empty() {
                input = Some(v.to_owned());
            }
        } else if input.is_none() && t.starts_with("- ") && !in_unreach && expected.is_none() && line.starts_with("  -")
        {
            input = Some(t[2..].trim().trim_matches(['\'', '"']).to_owned());
        }
        if t.starts_with("- property_file:") {
            in_unreach = t.contains("unreach-call");
        } else if in_unreach {
            if let Some(v) = t.strip_prefix("expected_verdict:") {
                expected = Some(v.trim().to_owned());
                in_unreach = false;
            }
        }
    }
    (input, expected)
}

fn task(yml: &Path, root: &Path, paces: Option<&Path>, limit: u64) -> Result<Option<Row>, String> {
    let text = std::fs::read_to_string(yml).map_err(|e| format!("cannot read {}: {e}", yml.display()))?;
    let (input, expected) = read_yml(&text);
    let Some(expected) = expected else { return Ok(None) };
    let dir = yml.parent().unwrap_or(root);
    let named = dir.join(input.unwrap_or_default());
    let file = if named.is_file() { named } else { named.with_extension("c") };
    let name = yml.strip_prefix(root).unwrap_or(yml).with_extension("").display().to_string();
    let mut row = Row { task: name, expected, verdict: String::new(), time: 0.0, states: None, repair: String::new() };
    let start = Instant::now();
    let source = match std::fs::read_to_string(&file) {
        Ok(s) => s,
        Err(e) => {
            row.verdict = "unsupported".into();
            row.repair = format!("cannot read {}: {e}", file.display());
            return Ok(Some(row));
        }
    };
    let options = Options { include_dir: file.parent().map(Path::to_path_buf), ..Options::default() };
    let read = match parse(&source, &options) {
        Ok(r) => r,
        Err(d) => {
            let d = d.iter().next().expect("one diagnostic");
            let (line, col) = d.line_col(&source);
            row.verdict = "unsupported".into();
            row.repair = format!("{}:{line}:{col}: {}", d.code, d.message.replace('|', "\\|"));
            row.time = start.elapsed().as_secs_f64();
            return Ok(Some(row));
        }
    };
    let config =
        Config::new().find(FailureKinds::BAD).stop_at_first_failure(true).max_time(Some(Duration::from_secs(limit)));
    let result = check(&read.program, &config).map_err(|e| format!("{}: {e}", file.display()))?;
    row.time = start.elapsed().as_secs_f64();
    row.states = Some(result.states);
    row.verdict = match &result.verdict {
        Verdict::Bad(_) => "false".into(),
        Verdict::Correct if read.bounds.is_empty() => "true".into(),
        Verdict::Correct => format!("unknown ({})", read.bounds.join("; ")),
        Verdict::BoundReached { what, .. } => format!("unknown ({what})"),
        other => format!("unknown ({})", other.name()),
    };
    if row.verdict == "false" {
        row.repair = repair(&file, paces, limit);
    }
    Ok(Some(row))
}

/// Repairs a buggy file with the binary and checks the repaired C file again.
fn repair(file: &Path, paces: Option<&Path>, limit: u64) -> String {
    let Some(bin) = paces else { return "no repair: no `paces` binary (build paces-cli)".into() };
    let out = std::env::temp_dir().join(format!("paces-svcomp-{}.c", std::process::id()));
    let status = std::process::Command::new(bin)
        .arg("--lang")
        .arg("pthread")
        .arg("repair")
        // The property is `unreach-call`: deadlocks (a `__VERIFIER_assume` that never holds
        // among them) are not what the task asks about, so the original's are kept.
        .arg("--keep-deadlocks")
        .arg(file)
        .arg("-o")
        .arg(&out)
        .arg("--time-limit")
        .arg(limit.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match status {
        Ok(c) => c,
        Err(e) => return format!("no repair: cannot run {}: {e}", bin.display()),
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > Duration::from_secs(limit) => {
                let _ = child.kill();
                let _ = child.wait();
                return format!("no repair: not found within the {limit} s limit");
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return format!("no repair: {e}"),
        }
    }
    let output = match child.wait_with_output() {
        Ok(o) => o,
        Err(e) => return format!("no repair: {e}"),
    };
    let summary = String::from_utf8_lossy(&output.stderr).into_owned();
    let moves: Vec<String> = summary
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("changes:"))
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .map(|l| l.trim().replace('|', "\\|"))
        .collect();
    // A repair the C file cannot hold is not written (exit 1): say what it was.
    if summary.contains("the repair cannot be written into this C source") {
        return format!("{} (the repair cannot be written in this C file)", moves.join("; "));
    }
    // Exit 3: repaired within a bound of the model (the nondet range), said in the summary.
    if !matches!(output.status.code(), Some(0 | 3)) {
        let first = summary.lines().next().unwrap_or("").replace('|', "\\|");
        return format!("no repair: {first}");
    }
    let repaired = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    // The repaired file's `#include "name"` finds `name` next to the task's.
    let options = Options { include_dir: file.parent().map(Path::to_path_buf), ..Options::default() };
    let again = match parse(&repaired, &options) {
        Ok(r) => r,
        Err(_) => return format!("{} (the repaired file does not read back)", moves.join("; ")),
    };
    // A repair that passes the checks by reading their values before the threads that change
    // them start is no repair (`paces_c::pthread::stale_checks`).
    let source = std::fs::read_to_string(file).unwrap_or_default();
    if let Ok(original) = parse(&source, &options) {
        if let Some(stale) = stale_checks(&original.program, &again.program).first() {
            return format!(
                "no repair: the cheapest repair found ({}) passes because {stale} (lines of the repaired file)",
                moves.join("; ")
            );
        }
    }
    let config = Config::new().find(FailureKinds::BAD).max_time(Some(Duration::from_secs(limit)));
    let recheck = match check(&again.program, &config) {
        Ok(r) if r.verdict == Verdict::Correct => "re-checked: no error",
        Ok(_) => "re-checked: AN ERROR REMAINS",
        Err(_) => "re-check failed",
    };
    format!("{} ({recheck})", moves.join("; "))
}

fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| task | expected | verdict | time (s) | states | repair or reason |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let states = r.states.map_or_else(|| "-".to_owned(), |n| n.to_string());
        let _ =
            writeln!(s, "| {} | {} | {} | {:.2} | {states} | {} |", r.task, r.expected, r.verdict, r.time, r.repair);
    }
    let total = rows.len();
    let read = rows.iter().filter(|r| r.verdict != "unsupported").count();
    let wrong =
        rows.iter().filter(|r| (r.verdict == "true" || r.verdict == "false") && r.verdict != r.expected).count();
    let right = rows.iter().filter(|r| r.verdict == r.expected).count();
    let _ = writeln!(
        s,
        "\n{total} unreach-call tasks: {read} read, {right} right, {wrong} wrong, {} unknown, {} unsupported.",
        rows.iter().filter(|r| r.verdict.starts_with("unknown")).count(),
        total - read
    );
    s
}
