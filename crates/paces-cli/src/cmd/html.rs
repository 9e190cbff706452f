//! `--report FILE.html` of `paces repair` and `paces check`: the page of `paces-report`,
//! written to a file; the input as the reports see it.

use std::path::Path;

use paces::cwhile::Program;
use paces::explore::CheckResult;
use paces::Report;
use paces_report::{Counterexample, Source, TraceChart};

use paces_report::text::count;

use super::{Input, Lang};

/// The input's language in words.
fn language(lang: Lang) -> &'static str {
    match lang {
        Lang::Cwhile => "Cwhile",
        Lang::C => "C",
        Lang::Pthread => "pthread C",
    }
}

/// The input as a report sees it: its name, its language in words and `text`.
pub fn source<'a>(input: &'a Input, text: &'a str) -> Source<'a> {
    Source { name: &input.name, language: language(input.lang), text }
}

/// Whether `path` can be written (a file that exists is opened for appending, a new one
/// created and removed), checked before a long run; why not, in words.
pub fn check_writable(path: &Path) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot write `{}`: {e}", path.display());
    if path.is_dir() {
        return Err(format!("cannot write `{}`: it is a directory", path.display()));
    }
    if path.exists() {
        std::fs::OpenOptions::new().append(true).open(path).map_err(cannot)?;
    } else {
        std::fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(cannot)?;
        std::fs::remove_file(path).map_err(cannot)?;
    }
    Ok(())
}

/// Writes `text` to `path`; the error in words.
fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write the report to `{}`: {e}", path.display()))
}

/// Writes the page of a repair whose program was printed as `printed`. `kept` says whether
/// that is the input's own text with the repair written in; otherwise the diff is of the
/// canonical texts.
pub fn write_repair(
    path: &Path,
    input: &Input,
    report: &Report,
    printed: Option<&str>,
    kept: bool,
) -> Result<(), String> {
    let source_text = String::from_utf8_lossy(&input.bytes);
    let original = if kept { source_text.into_owned() } else { report.original_text() };
    let source = source(input, &original);
    write(path, &paces_report::repair_page(&source, printed, report))
}

/// Writes the page of a check: its verdict, figures and counterexamples.
pub fn write_check(path: &Path, input: &Input, program: &Program, result: &CheckResult) -> Result<(), String> {
    let source_text = String::from_utf8_lossy(&input.bytes);
    let source = source(input, &source_text);
    let facts = [
        ("states".to_owned(), count(result.states as u64, "state")),
        ("transitions".to_owned(), count(result.transitions, "transition")),
        ("time".to_owned(), format!("{:.3} s", result.time.as_secs_f64())),
    ];
    let mut found: Vec<(String, &paces::explore::Counterexample)> = Vec::new();
    // A C program's places by line and threads by their shown names (`assertion at line 20`).
    let assertion = |label: &str| program.place_name(label).map_or_else(|| label.to_owned(), |at| format!("at {at}"));
    found.extend(result.failures.iter().map(|(label, c)| (format!("assertion {} fails", assertion(label)), c)));
    found.extend(result.deadlocks.iter().map(|(id, c)| (format!("deadlock {}", id.shown(program)), c)));
    found.extend(result.livelocks.iter().map(|(id, c)| (format!("atomic livelock {}", id.shown(program)), c)));
    if found.is_empty() {
        if let Some(c) = result.verdict.counterexample() {
            found.push((result.verdict.name().to_owned(), c));
        }
    }
    let counterexamples: Vec<Counterexample> = found
        .into_iter()
        .map(|(title, c)| Counterexample { title, chart: TraceChart::of_bad_trace(program, &c.trace) })
        .collect();
    // A page with findings of more than the verdict's kind (a failure and a deadlock) says
    // what it holds in its heading.
    let heading = if counterexamples.len() > 1 {
        format!("{} ({})", result.verdict_text_in(program), paces_report::check::counts_text(result))
    } else {
        result.verdict_text_in(program)
    };
    write(path, &paces_report::check_page(&source, &heading, &facts, &counterexamples))
}
