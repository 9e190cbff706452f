//! A check in words and in JSON: what `paces check` (the verdict and its trace), `paces check
//! --all` (every finding) and `paces traces` (the good traces and a bad one) print. The
//! documents' schemas are in docs/json.md; each is built from serde types.

mod all;

use serde::Serialize;

use paces::cwhile::ir::Program;
use paces::explore::{CheckResult, GoodBound, Schedule, Verdict};
use paces::trace::Trace;

use crate::json::ms;
use crate::text::count;
use crate::text_chart;

pub use all::{all_json, all_text, counts_text};

/// A step in JSON: its thread index, label and text (`x := 1`; empty for a label that is no
/// location of the program), and in a schedule whether it is the failing one. For a program
/// read from C a step is a row of consecutive steps of one thread that belong to one statement
/// of the source: its label is the statement's line, `line` that line as a number, `text` the
/// statement's text and `locations` the location names of the steps it stands for.
#[derive(Debug, Serialize)]
struct Step {
    thread: usize,
    label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    locations: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failing: Option<bool>,
}

/// The JSON steps of `steps` (each its thread and label) of `program`; with `failing`, each
/// says whether it holds the failing step of that index (`None`: a trace without one).
fn json_steps(program: &Program, steps: &[(usize, &str)], failing: Option<Option<usize>>) -> Vec<Step> {
    let fails = failing.flatten();
    let rows = crate::shown::rows(program, steps, |i| fails == Some(i));
    rows.into_iter()
        .map(|r| {
            let end = r.first + r.labels.len();
            Step {
                thread: r.thread,
                failing: failing.map(|f| f.is_some_and(|f| (r.first..end).contains(&f))),
                label: r.label,
                line: r.line,
                text: r.text,
                locations: r.line.map(|_| r.labels),
            }
        })
        .collect()
}

/// A schedule in JSON: one step each (a row each, for a C program), the failing one marked.
fn schedule(program: &Program, schedule: &Schedule, failing: Option<usize>) -> Vec<Step> {
    let steps: Vec<(usize, &str)> = schedule.steps.iter().map(|s| (s.thread.index(), s.label.as_str())).collect();
    json_steps(program, &steps, Some(failing))
}

/// A verdict's name in JSON: `correct`, `bad`, `deadlock`, `livelock`, `bound-reached`.
fn verdict_name(verdict: &Verdict) -> String {
    verdict.name().replace(' ', "-")
}

/// The program's thread names, in order: what a step's `thread` index points at.
fn threads(program: &Program) -> Vec<String> {
    (0..program.threads.len()).filter_map(|t| program.thread_name(t)).map(str::to_owned).collect()
}

/// The total time of a check, in milliseconds.
#[derive(Debug, Serialize)]
struct TotalTime {
    total: f64,
}

/// The `paces-check/2` document.
#[derive(Debug, Serialize)]
struct CheckDocument<'a> {
    schema: &'static str,
    file: &'a str,
    threads: Vec<String>,
    verdict: String,
    message: String,
    division_by_zero: bool,
    shift_out_of_range: bool,
    trace: Option<Vec<Step>>,
    deadlock: Option<String>,
    livelock: Option<String>,
    states: usize,
    transitions: u64,
    unwind: Option<u32>,
    unwind_reached: bool,
    bounds: &'a [String],
    time_ms: TotalTime,
}

/// What `paces check` prints of `result`, a check of `program` read from the file `name`
/// whose model has the frontend's `bounds` (in words): the verdict, notes on bounds, the
/// counterexample drawn one column per thread, and the checker's figures.
pub fn check_text(name: &str, program: &Program, result: &CheckResult, bounds: &[String]) -> String {
    let mut s = format!("{name}: {}\n", result.verdict_text_in(program));
    if let Some(unwind) = result.unwind {
        s.push_str(&format!("note: loops unwound at most {unwind} times per entry (not an exact verdict)\n"));
    }
    if matches!(result.verdict, Verdict::Correct) {
        for b in bounds {
            s.push_str(&format!("note: correct within bounds: {b} (not an exact verdict)\n"));
        }
    }
    if let Some(c) = result.verdict.counterexample() {
        s.push('\n');
        s.push_str(&text_chart::columns(program, (&c.schedule).into(), c.failing_step));
    }
    s.push_str(&format!(
        "\n{}, {}, {:.3} s\n",
        count(result.states as u64, "state"),
        count(result.transitions, "transition"),
        result.time.as_secs_f64()
    ));
    s
}

/// The `paces-check/2` document of the same check (docs/json.md), with a final line break.
pub fn check_json(name: &str, program: &Program, result: &CheckResult, bounds: &[String]) -> String {
    let cex = result.verdict.counterexample();
    let doc = CheckDocument {
        schema: "paces-check/2",
        file: name,
        threads: threads(program),
        verdict: verdict_name(&result.verdict),
        message: result.verdict_text_in(program),
        division_by_zero: cex.is_some_and(|c| c.division_by_zero),
        shift_out_of_range: cex.is_some_and(|c| c.shift_out_of_range),
        trace: cex.map(|c| schedule(program, &c.schedule, c.failing_step)),
        deadlock: match &result.verdict {
            Verdict::Deadlock(id, _) => Some(id.shown(program)),
            _ => None,
        },
        livelock: match &result.verdict {
            Verdict::Livelock(id, _) => Some(id.shown(program)),
            _ => None,
        },
        states: result.states,
        transitions: result.transitions,
        unwind: result.unwind,
        unwind_reached: result.unwind_reached,
        bounds,
        time_ms: TotalTime { total: ms(result.time) },
    };
    pretty(&doc)
}

/// A document as pretty-printed JSON with a final line break.
fn pretty(doc: &impl Serialize) -> String {
    format!("{}\n", serde_json::to_string_pretty(doc).unwrap_or_default())
}

/// The `paces-traces/2` document.
#[derive(Debug, Serialize)]
struct TracesDocument<'a> {
    schema: &'static str,
    file: &'a str,
    threads: Vec<String>,
    good: Vec<Vec<Step>>,
    good_search_bounds: Vec<&'static str>,
    verdict: String,
    bad: Option<Vec<Step>>,
}

/// What `paces traces` prints: the `good` traces of `program` (the search stopped at
/// `bounds`), each drawn one column per thread, then the bad trace of `result`, if any.
pub fn traces_text(program: &Program, good: &[Trace], bounds: &[GoodBound], result: &CheckResult) -> String {
    let mut s = String::new();
    for (i, t) in good.iter().enumerate() {
        s.push_str(&format!("good trace {} ({} steps):\n", i + 1, t.len()));
        s.push_str(&text_chart::columns(program, t.into(), None));
        s.push('\n');
    }
    if let Some(note) = crate::text::good_bounds_note(bounds) {
        s.push_str(&format!("note: {note}\n"));
    }
    match result.verdict.counterexample() {
        Some(c) => {
            s.push_str(&format!("{} trace ({} steps):\n", result.verdict.name(), c.schedule.steps.len()));
            s.push_str(&text_chart::columns(program, (&c.schedule).into(), c.failing_step));
        }
        None => s.push_str(&format!("no bad trace: {}\n", result.verdict.name())),
    }
    s
}

/// The `paces-traces/2` document of the same (docs/json.md), for the file `name`.
pub fn traces_json(
    name: &str,
    program: &Program,
    good: &[Trace],
    bounds: &[GoodBound],
    result: &CheckResult,
) -> String {
    let label = |loc: paces::constraint::Loc| program.loc_names.get(loc.index()).map_or("", String::as_str);
    let good = good
        .iter()
        .map(|t| {
            let steps: Vec<(usize, &str)> = t.events().iter().map(|e| (e.thread.index(), label(e.loc))).collect();
            json_steps(program, &steps, None)
        })
        .collect();
    let doc = TracesDocument {
        schema: "paces-traces/2",
        file: name,
        threads: threads(program),
        good,
        good_search_bounds: bounds.iter().map(|b| b.name()).collect(),
        verdict: verdict_name(&result.verdict),
        bad: result.verdict.counterexample().map(|c| schedule(program, &c.schedule, c.failing_step)),
    };
    pretty(&doc)
}
