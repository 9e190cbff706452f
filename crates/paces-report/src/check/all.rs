//! `paces check --all`: every failing assertion, deadlock and atomic livelock the whole state
//! space holds, each with a shortest witness, in words and in JSON (`paces-check-all/1`).

use std::collections::BTreeMap;

use serde::Serialize;

use paces::cwhile::ir::{Program, VarScope};
use paces::explore::{CheckResult, Counterexample};

use super::{pretty, schedule, threads, verdict_name, Step, TotalTime};
use crate::json::ms;
use crate::text::count;
use crate::text_chart;

/// What was found, counted: `2 failing assertions, 1 deadlock, 0 atomic livelocks`.
pub fn counts_text(result: &CheckResult) -> String {
    format!(
        "{}, {}, {}",
        count(result.failures.len() as u64, "failing assertion"),
        count(result.deadlocks.len() as u64, "deadlock"),
        count(result.livelocks.len() as u64, "atomic livelock")
    )
}

/// A failing step's heading: `` assertion `3` fails ``, `` division by zero at `q1` `` or
/// `` shift out of range at `q1` ``; for a program read from C the step's line
/// (`assertion at line 20 fails`, `division by zero at line 7`).
fn failure_heading(program: &Program, label: &str, cex: &Counterexample) -> String {
    let line = program.place_name(label);
    let at = line.clone().unwrap_or_else(|| format!("`{label}`"));
    if cex.division_by_zero {
        format!("division by zero at {at}")
    } else if cex.shift_out_of_range {
        format!("shift out of range at {at}")
    } else if line.is_some() {
        format!("assertion at {at} fails")
    } else {
        format!("assertion {at} fails")
    }
}

/// One finding: its heading, the length of its witness, and the witness one column per thread.
fn finding(program: &Program, heading: &str, cex: &Counterexample) -> String {
    let steps = count(cex.schedule.steps.len() as u64, "step");
    let columns = text_chart::columns(program, (&cex.schedule).into(), cex.failing_step);
    format!("\n{heading} ({steps}):\n{columns}")
}

/// The names of the program's globals, in declaration order (the order of an outcome's values).
fn global_names(program: &Program) -> impl Iterator<Item = &str> {
    program.vars.iter().filter(|v| matches!(v.scope, VarScope::Global)).map(|v| v.name.as_str())
}

/// Each outcome in words, `x = 1, y = 0`, in order.
fn outcome_texts(program: &Program, result: &CheckResult) -> Vec<String> {
    let globals: Vec<&str> = global_names(program).collect();
    result
        .outcomes
        .iter()
        .map(|o| globals.iter().zip(o).map(|(n, v)| format!("{n} = {v}")).collect::<Vec<_>>().join(", "))
        .collect()
}

/// The text of `paces check --all` (with `outcomes`, the outcomes too): the counts, every
/// finding in a fixed order (failing assertions by label, then deadlocks, then livelocks,
/// each by identity), and the checker's figures.
pub fn all_text(name: &str, program: &Program, result: &CheckResult, outcomes: bool) -> String {
    let mut s = format!("{name}: {}\n", counts_text(result));
    if let Some(unwind) = result.unwind {
        s.push_str(&format!("note: loops unwound at most {unwind} times per entry (not an exact verdict)\n"));
    }
    if let Some(bound) = result.bound {
        s.push_str(&format!("note: the {bound} was reached first: the lists may be incomplete\n"));
    }
    for (label, cex) in &result.failures {
        s.push_str(&finding(program, &failure_heading(program, label, cex), cex));
    }
    for (id, cex) in &result.deadlocks {
        s.push_str(&finding(program, &format!("deadlock: {}", id.shown(program)), cex));
    }
    for (id, cex) in &result.livelocks {
        s.push_str(&finding(program, &format!("atomic livelock: {}", id.shown(program)), cex));
    }
    if outcomes {
        s.push_str(&format!("\n{}:\n", count(result.outcomes.len() as u64, "outcome")));
        for o in outcome_texts(program, result) {
            s.push_str(&format!("  {o}\n"));
        }
    }
    s.push_str(&format!(
        "\n{}, {}, {:.3} s\n",
        count(result.states as u64, "state"),
        count(result.transitions, "transition"),
        result.time.as_secs_f64()
    ));
    s
}

#[derive(Debug, Serialize)]
struct AllDocument<'a> {
    schema: &'static str,
    file: &'a str,
    threads: Vec<String>,
    verdict: String,
    message: String,
    counts: Counts,
    failures: Vec<FailureJson>,
    deadlocks: Vec<DeadlockJson>,
    livelocks: Vec<LivelockJson>,
    outcomes: Option<Vec<BTreeMap<&'a str, i64>>>,
    bound: Option<String>,
    states: usize,
    transitions: u64,
    unwind: Option<u32>,
    unwind_reached: bool,
    time_ms: TotalTime,
}

#[derive(Debug, Serialize)]
struct Counts {
    failures: usize,
    deadlocks: usize,
    livelocks: usize,
}

#[derive(Debug, Serialize)]
struct FailureJson {
    label: String,
    division_by_zero: bool,
    shift_out_of_range: bool,
    trace: Vec<Step>,
}

#[derive(Debug, Serialize)]
struct DeadlockJson {
    deadlock: String,
    trace: Vec<Step>,
}

#[derive(Debug, Serialize)]
struct LivelockJson {
    livelock: String,
    cycle_start: Option<usize>,
    trace: Vec<Step>,
}

/// The `paces-check-all/1` document of the same (docs/json.md), with a final line break.
pub fn all_json(name: &str, program: &Program, result: &CheckResult, outcomes: bool) -> String {
    let trace = |c: &Counterexample| schedule(program, &c.schedule, c.failing_step);
    let globals: Vec<&str> = global_names(program).collect();
    let doc = AllDocument {
        schema: "paces-check-all/1",
        file: name,
        threads: threads(program),
        verdict: verdict_name(&result.verdict),
        message: counts_text(result),
        counts: Counts {
            failures: result.failures.len(),
            deadlocks: result.deadlocks.len(),
            livelocks: result.livelocks.len(),
        },
        failures: result
            .failures
            .iter()
            .map(|(label, c)| FailureJson {
                label: label.clone(),
                division_by_zero: c.division_by_zero,
                shift_out_of_range: c.shift_out_of_range,
                trace: trace(c),
            })
            .collect(),
        deadlocks: result
            .deadlocks
            .iter()
            .map(|(id, c)| DeadlockJson { deadlock: id.shown(program), trace: trace(c) })
            .collect(),
        livelocks: result
            .livelocks
            .iter()
            .map(|(id, c)| LivelockJson { livelock: id.shown(program), cycle_start: c.cycle_start, trace: trace(c) })
            .collect(),
        outcomes: outcomes.then(|| {
            result.outcomes.iter().map(|o| globals.iter().copied().zip(o.iter().copied()).collect()).collect()
        }),
        bound: result.bound.map(|b| b.to_string().replace(' ', "-")),
        states: result.states,
        transitions: result.transitions,
        unwind: result.unwind,
        unwind_reached: result.unwind_reached,
        time_ms: TotalTime { total: ms(result.time) },
    };
    pretty(&doc)
}
