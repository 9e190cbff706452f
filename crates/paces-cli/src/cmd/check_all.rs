//! `paces check --all FILE`: every failing assertion, deadlock and atomic livelock the whole
//! state space holds, each with a shortest witness, in text or JSON.

use paces::cwhile::Program;
use paces::explore::{CheckResult, Counterexample};

use super::{count, ms, schedule_json, threads_json, verdict_json};

/// What was found, counted: `2 failing assertions, 1 deadlock, 0 atomic livelocks`.
fn counts_text(result: &CheckResult) -> String {
    format!(
        "{}, {}, {}",
        count(result.failures.len() as u64, "failing assertion"),
        count(result.deadlocks.len() as u64, "deadlock"),
        count(result.livelocks.len() as u64, "atomic livelock")
    )
}

/// A failing step's heading: `` assertion `3` fails ``, `` division by zero at `q1` `` or
/// `` shift out of range at `q1` ``.
fn failure_heading(label: &str, cex: &Counterexample) -> String {
    if cex.division_by_zero {
        format!("division by zero at `{label}`")
    } else if cex.shift_out_of_range {
        format!("shift out of range at `{label}`")
    } else {
        format!("assertion `{label}` fails")
    }
}

/// One finding: its heading, the length of its witness, and the witness one column per thread.
fn finding(program: &Program, heading: &str, cex: &Counterexample) -> String {
    let steps = count(cex.schedule.steps.len() as u64, "step");
    let columns = paces_report::text_chart::columns(program, (&cex.schedule).into(), cex.failing_step);
    format!("\n{heading} ({steps}):\n{columns}")
}

/// The names of the program's globals, in declaration order (the order of an outcome's values).
fn global_names(program: &Program) -> impl Iterator<Item = &str> {
    program.vars.iter().filter(|v| matches!(v.scope, paces::cwhile::ir::VarScope::Global)).map(|v| v.name.as_str())
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

/// The text report: the counts, every finding in a fixed order (failing assertions by label,
/// then deadlocks, then livelocks, each by identity), and the checker's figures.
pub fn text(name: &str, program: &Program, result: &CheckResult, outcomes: bool) -> String {
    let mut s = format!("{name}: {}\n", counts_text(result));
    if let Some(unwind) = result.unwind {
        s.push_str(&format!("note: loops unwound at most {unwind} times per entry (not an exact verdict)\n"));
    }
    if let Some(bound) = result.bound {
        s.push_str(&format!("note: the {bound} was reached first: the lists may be incomplete\n"));
    }
    for (label, cex) in &result.failures {
        s.push_str(&finding(program, &failure_heading(label, cex), cex));
    }
    for (id, cex) in &result.deadlocks {
        s.push_str(&finding(program, &format!("deadlock: {id}"), cex));
    }
    for (id, cex) in &result.livelocks {
        s.push_str(&finding(program, &format!("atomic livelock: {id}"), cex));
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

/// The `paces-check-all/1` document (docs/json.md).
pub fn json(name: &str, program: &Program, result: &CheckResult, outcomes: bool) -> String {
    let trace = |c: &Counterexample| schedule_json(program, &c.schedule, c.failing_step);
    let failures: Vec<serde_json::Value> = result
        .failures
        .iter()
        .map(
            |(label, c)| serde_json::json!({"label": label, "division_by_zero": c.division_by_zero, "shift_out_of_range": c.shift_out_of_range, "trace": trace(c)}),
        )
        .collect();
    let deadlocks: Vec<serde_json::Value> = result
        .deadlocks
        .iter()
        .map(|(id, c)| serde_json::json!({"deadlock": id.to_string(), "trace": trace(c)}))
        .collect();
    let livelocks: Vec<serde_json::Value> = result
        .livelocks
        .iter()
        .map(|(id, c)| serde_json::json!({"livelock": id.to_string(), "cycle_start": c.cycle_start, "trace": trace(c)}))
        .collect();
    let globals: Vec<&str> = global_names(program).collect();
    let outcomes = outcomes.then(|| {
        let list: Vec<serde_json::Value> = result
            .outcomes
            .iter()
            .map(|o| {
                serde_json::Value::Object(globals.iter().zip(o).map(|(n, v)| ((*n).to_owned(), (*v).into())).collect())
            })
            .collect();
        list
    });
    let v = serde_json::json!({
        "schema": "paces-check-all/1",
        "file": name,
        "threads": threads_json(program),
        "verdict": verdict_json(&result.verdict),
        "message": counts_text(result),
        "counts": {
            "failures": result.failures.len(),
            "deadlocks": result.deadlocks.len(),
            "livelocks": result.livelocks.len(),
        },
        "failures": failures,
        "deadlocks": deadlocks,
        "livelocks": livelocks,
        "outcomes": outcomes,
        "bound": result.bound.map(|b| b.to_string().replace(' ', "-")),
        "states": result.states,
        "transitions": result.transitions,
        "unwind": result.unwind,
        "unwind_reached": result.unwind_reached,
        "time_ms": {"total": ms(result.time)},
    });
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
}
