//! The JSON document of a repair (`paces repair --format json`, schema `paces-repair/1`,
//! described in docs/json.md): serde types built from a [`Report`].

use serde::Serialize;

use paces::constraint::Candidate;
use paces::cwhile::ir::Program;
use paces::{Fate, Report, StopReason};

use crate::text::{self, Times};
use crate::words::Namer;

/// What the command adds to the report: the file's name, the program as it printed it, and
/// whether the source's layout was kept.
#[derive(Clone, Copy, Debug)]
pub struct Printed<'a> {
    /// The file's name as the user gave it.
    pub file: &'a str,
    /// The repaired program as written out (the source's own text with the repair, or the
    /// canonical text), `None` when there is none.
    pub program: Option<&'a str>,
    /// Whether the printed program keeps the source's layout.
    pub layout_kept: bool,
}

/// The JSON document of a repair.
#[derive(Debug, Serialize)]
pub struct RepairDocument<'a> {
    schema: &'static str,
    file: &'a str,
    mode: String,
    stop_reason: &'static str,
    message: String,
    explanation: Option<String>,
    program: ProgramFacts,
    iterations: usize,
    good_traces: usize,
    good_search_bounds: Vec<&'static str>,
    relaxed_good_traces: usize,
    deepened_bad_traces: usize,
    dropped_constraints: usize,
    bad_traces: usize,
    transformations: Vec<String>,
    changes: Vec<String>,
    candidate: Option<CandidateJson<'a>>,
    repaired_program: Option<&'a str>,
    layout_kept: bool,
    diff: String,
    acceptance: Option<AcceptanceJson>,
    original_deadlocks: Vec<String>,
    keep_deadlocks: bool,
    deadlock_fates: Vec<FateJson>,
    bug_remains: bool,
    constraint: ConstraintJson,
    states_explored: usize,
    states_split: StatesSplitJson,
    original_states: usize,
    unwind_reached: bool,
    time_ms: std::collections::BTreeMap<&'static str, f64>,
    history: Vec<IterationJson>,
    cost: Option<CostJson>,
    exhaustive: Option<ExhaustiveJson>,
    optimality: Option<OptimalityJson>,
    origin: Option<OriginJson>,
}

#[derive(Debug, Serialize)]
struct OriginJson {
    step: &'static str,
    why: String,
}

#[derive(Debug, Serialize)]
struct ProgramFacts {
    lines: usize,
    threads: usize,
    statements: usize,
}

#[derive(Debug, Serialize)]
struct CandidateJson<'a> {
    blocks: Vec<Vec<&'a str>>,
    sections: Vec<SectionJson<'a>>,
}

#[derive(Debug, Serialize)]
struct SectionJson<'a> {
    first: &'a str,
    last: &'a str,
    items: Vec<&'a str>,
}

#[derive(Debug, Serialize)]
struct AcceptanceJson {
    no_assertion_failure: bool,
    no_new_deadlock: bool,
    no_new_livelock: bool,
    same_sequential_states: bool,
    assertions_reached: bool,
    no_new_outcome: bool,
    outcomes: Option<usize>,
    deadlocks: Vec<AdmittedJson>,
    livelocks: Vec<String>,
    states: usize,
}

#[derive(Debug, Serialize)]
struct StatesSplitJson {
    original: usize,
    original_outcomes: usize,
    candidates: usize,
    candidate_outcomes: usize,
}

#[derive(Debug, Serialize)]
struct AdmittedJson {
    deadlock: String,
    rule: &'static str,
}

#[derive(Debug, Serialize)]
struct FateJson {
    deadlock: String,
    fate: &'static str,
    reason: Option<&'static str>,
    why: Option<String>,
}

#[derive(Debug, Serialize)]
struct ConstraintJson {
    nodes: usize,
    atoms: usize,
    depth: usize,
}

#[derive(Debug, Serialize)]
struct IterationJson {
    kind: &'static str,
    problem: String,
    schedule: Vec<String>,
    fixes: usize,
    more: Vec<String>,
    proposal: Vec<String>,
}

#[derive(Debug, Serialize)]
struct CostJson {
    atomic_weight: u64,
    inversions: u64,
}

#[derive(Debug, Serialize)]
struct ExhaustiveJson {
    space_size: usize,
    checked: usize,
    proved_optimal: bool,
}

#[derive(Debug, Serialize)]
struct OptimalityJson {
    proved: bool,
    why: String,
}

/// A duration in milliseconds, to the microsecond.
pub fn ms(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

impl<'a> RepairDocument<'a> {
    /// The document of a run of `program` that took `times`, printed as `printed` says.
    pub fn new(program: &Program, report: &'a Report, times: &Times, printed: Printed<'a>) -> Self {
        let space = &report.space;
        let explanation = match &report.stop {
            StopReason::NoRepair(why) => Some(why.to_string()),
            _ => None,
        };
        let history = report
            .history
            .iter()
            .map(|it| IterationJson {
                kind: it.kind().name(),
                problem: it.problem.shown(program).to_string(),
                schedule: it.schedule.clone(),
                fixes: it.fixes,
                more: it.more.iter().map(|p| p.shown(program).to_string()).collect(),
                proposal: it.proposal.iter().map(|t| Namer { program, space }.transformation(t)).collect(),
            })
            .collect();
        // Printed once: the program's line count and the diff both read it.
        let original = report.original_text();
        let mut time_ms: std::collections::BTreeMap<&'static str, f64> =
            times.parts.iter().map(|(key, _, d)| (*key, ms(*d))).collect();
        time_ms.insert("total", ms(times.total));
        RepairDocument {
            schema: "paces-repair/1",
            file: printed.file,
            mode: report.mode.to_string(),
            stop_reason: report.stop.name(),
            message: report.stop.to_string(),
            explanation,
            program: ProgramFacts {
                lines: original.lines().filter(|l| !l.trim().is_empty()).count(),
                threads: program.threads.len(),
                statements: program.stmts.len(),
            },
            iterations: report.iterations,
            good_traces: report.good_traces,
            good_search_bounds: report.good_search_bounds.iter().map(|b| b.name()).collect(),
            relaxed_good_traces: report.relaxed_good_traces,
            deepened_bad_traces: report.deepened_bad_traces,
            dropped_constraints: report.dropped_constraints,
            bad_traces: report.bad_traces,
            transformations: text::transformations(report),
            changes: text::changes(report),
            candidate: report.candidate.as_ref().map(|c| candidate_json(report, c)),
            repaired_program: printed.program,
            layout_kept: printed.layout_kept,
            diff: text::diff_from(report, &original),
            acceptance: report.acceptance.as_ref().map(|a| AcceptanceJson {
                no_assertion_failure: a.no_assertion_failure,
                no_new_deadlock: a.no_new_deadlock,
                no_new_livelock: a.no_new_livelock,
                same_sequential_states: a.same_sequential_states,
                assertions_reached: a.assertions_reached,
                no_new_outcome: a.no_new_outcome,
                outcomes: a.outcomes,
                deadlocks: a
                    .deadlocks
                    .iter()
                    .map(|d| AdmittedJson { deadlock: d.deadlock.shown(program), rule: d.rule.name() })
                    .collect(),
                livelocks: a.livelocks.iter().map(|l| l.shown(program)).collect(),
                states: a.states,
            }),
            original_deadlocks: report.original_deadlocks.iter().flatten().map(|d| d.shown(program)).collect(),
            keep_deadlocks: report.keep_deadlocks,
            deadlock_fates: fates(report),
            bug_remains: report.bug_remains(),
            constraint: ConstraintJson {
                nodes: report.constraint.nodes,
                atoms: report.constraint.atoms,
                depth: report.constraint.depth,
            },
            states_explored: report.states_explored,
            states_split: StatesSplitJson {
                original: report.states_split.original,
                original_outcomes: report.states_split.original_outcomes,
                candidates: report.states_split.candidates,
                candidate_outcomes: report.states_split.candidate_outcomes,
            },
            original_states: report.original_states,
            unwind_reached: report.unwind_reached,
            time_ms,
            history,
            cost: report.candidate.as_ref().map(|c| {
                let cost = c.cost(space);
                CostJson { atomic_weight: cost.atomic_weight, inversions: cost.inversions }
            }),
            exhaustive: report.exhaustive.map(|e| ExhaustiveJson {
                space_size: e.space_size,
                checked: e.checked,
                proved_optimal: e.proved_optimal,
            }),
            optimality: report.optimality.as_ref().map(|o| OptimalityJson { proved: o.is_proved(), why: o.why() }),
            origin: report.origin.map(|o| OriginJson { step: o.name(), why: o.to_string() }),
        }
    }

    /// The document as pretty-printed JSON, with a final line break.
    pub fn to_json(&self) -> String {
        format!("{}\n", serde_json::to_string_pretty(self).unwrap_or_default())
    }
}

/// The candidate's order of each block of more than one item and its sections.
fn candidate_json<'a>(report: &'a Report, c: &Candidate) -> CandidateJson<'a> {
    let space = &report.space;
    let blocks = space
        .blocks()
        .filter(|b| space.items(*b).len() > 1)
        .map(|b| c.order(b).iter().map(|l| space.name(*l)).collect())
        .collect();
    let sections = c
        .sections()
        .iter()
        .map(|s| {
            let order = c.order(s.block);
            let (i, j) = (c.position(s.first).unwrap_or(0), c.position(s.last).unwrap_or(0));
            let items = order.get(i..=j).unwrap_or(&[]).iter().map(|l| space.name(*l)).collect();
            SectionJson { first: space.name(s.first), last: space.name(s.last), items }
        })
        .collect();
    CandidateJson { blocks, sections }
}

/// What became of each deadlock of the original.
fn fates(report: &Report) -> Vec<FateJson> {
    report
        .deadlock_fates
        .iter()
        .map(|d| FateJson {
            deadlock: d.deadlock.shown(&report.original),
            fate: d.fate.name(),
            reason: d.fate.reason(),
            why: match &d.fate {
                Fate::Kept(why) => Some(why.to_string()),
                _ => None,
            },
        })
        .collect()
}
