//! The SARIF 2.1.0 log of a check or a repair (`--format sarif`, described in docs/sarif.md):
//! one run of the tool `paces` whose results are the bugs found, each with its rule, its place
//! in the source, and its trace as a code flow with one thread flow per thread; a repair adds
//! itself to each bug it removes as a fix, replacements of lines of the input's own text.

mod fix;
mod types;

use std::collections::BTreeMap;

use paces::cwhile::ir::Program;
use paces::explore::{CheckResult, Counterexample, DeadlockId, LivelockId, ThreadStand, Verdict};
use paces::{Fate, Report, StopReason};

use crate::Source;
use fix::Lines;
use types::{
    ArtifactLocation, CodeFlow, Configuration, Driver, Fix, Invocation, Location, Log, Message, Notification,
    PhysicalLocation, Region, Rule, Run, SarifResult, ThreadFlow, ThreadFlowLocation, Tool,
};

/// The rules, in the order of the driver's `rules` (a result's `ruleIndex`): id, name, short
/// and full description.
const RULES: [(&str, &str, &str, &str); 5] = [
    (
        "assertion-failure",
        "AssertionFailure",
        "An assertion can fail.",
        "Some interleaving of the threads reaches the assertion with its condition false.",
    ),
    (
        "deadlock",
        "Deadlock",
        "The threads can deadlock.",
        "Some interleaving ends with every thread that has not finished waiting for good: at an \
         await, lock or down that no other thread can let through.",
    ),
    (
        "atomic-livelock",
        "AtomicLivelock",
        "A thread can loop forever inside an atomic section.",
        "Some interleaving lets a thread step forever inside an atomic section, so that no other \
         thread runs again.",
    ),
    (
        "division-by-zero",
        "DivisionByZero",
        "A division can divide by zero.",
        "Some interleaving reaches a division or remainder whose divisor is zero.",
    ),
    (
        "shift-out-of-range",
        "ShiftOutOfRange",
        "A shift can shift by an amount out of range.",
        "Some interleaving reaches a shift (<< or >>) by an amount outside 0..=63.",
    ),
];

/// Indices into [`RULES`].
const ASSERTION: usize = 0;
const DEADLOCK: usize = 1;
const LIVELOCK: usize = 2;
const DIVISION: usize = 3;
const SHIFT: usize = 4;

/// A bug found: its rule, what it is in words, its witness, and the steps to point at.
struct Finding<'a> {
    rule: usize,
    message: String,
    cex: &'a Counterexample,
    /// The result's locations: (label, what is there), the failing step, each blocked step
    /// of a deadlock, or the atomic section of a livelock.
    at: Vec<(String, String)>,
    /// For a deadlock: where each waiting thread waits (thread index, label).
    waits: Vec<(usize, String)>,
    /// For a deadlock: which.
    deadlock: Option<&'a DeadlockId>,
}

/// The bugs of a check: every one with `all`, else the verdict's.
fn findings<'a>(places: &Places<'_>, result: &'a CheckResult, all: bool) -> Vec<Finding<'a>> {
    if !all {
        return match &result.verdict {
            Verdict::Bad(c) => {
                let label = c.failing_label().unwrap_or("?");
                vec![places.failure(label, c)]
            }
            Verdict::Deadlock(id, c) => vec![places.deadlock(id, c)],
            Verdict::Livelock(id, c) => vec![places.livelock(id, c)],
            _ => Vec::new(),
        };
    }
    let failures = result.failures.iter().map(|(label, c)| places.failure(label, c));
    let deadlocks = result.deadlocks.iter().map(|(id, c)| places.deadlock(id, c));
    let livelocks = result.livelocks.iter().map(|(id, c)| places.livelock(id, c));
    failures.chain(deadlocks).chain(livelocks).collect()
}

/// `n steps`, `1 step`.
fn steps(n: usize) -> String {
    crate::text::count(n as u64, "step")
}

/// When a witness of `n` steps ends: `after the 5 steps shown`, `from the start`.
fn after(n: usize) -> String {
    match n {
        0 => "from the start".to_owned(),
        n => format!("after the {} shown", steps(n)),
    }
}

/// The input as a URI reference: its name as the user gave it, each byte outside the
/// unreserved characters and `/` percent-encoded (`<stdin>` becomes `%3Cstdin%3E`).
fn uri(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Where a program's steps are in its source.
struct Places<'a> {
    uri: String,
    lines: Lines<'a>,
    program: &'a Program,
}

impl<'a> Places<'a> {
    fn new(source: &Source<'a>, program: &'a Program) -> Places<'a> {
        Places { uri: uri(source.name), lines: Lines::new(source.text), program }
    }

    /// The region of the statement of the step labelled `label`, on its first line; `None`
    /// for a step the source does not hold.
    fn region(&self, label: &str) -> Option<Region> {
        let loc = self.program.loc(label)?;
        let (start, end) = match self.program.source_step(loc) {
            Some(s) => (s.start as usize, s.end as usize),
            None => {
                let span = self.program.stmts.get(self.program.step_stmt(loc)?.index())?.span;
                (span.start as usize, span.end as usize)
            }
        };
        (start < end && end <= self.lines.bytes()).then(|| self.lines.region(start, end))
    }

    /// The text of the step labelled `label` (the label itself when it has none).
    fn text(&self, label: &str) -> String {
        let text = self.program.loc(label).and_then(|l| self.program.step_text(l)).unwrap_or_default();
        if text.is_empty() {
            format!("`{label}`")
        } else {
            text
        }
    }

    fn location(&self, label: &str, message: Option<String>) -> Location {
        Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation { uri: self.uri.clone() },
                region: self.region(label),
            },
            message: message.map(Message::new),
        }
    }

    fn thread_name(&self, thread: usize) -> String {
        self.program.thread_name(thread).map_or_else(|| format!("thread {thread}"), str::to_owned)
    }

    fn failure<'c>(&self, label: &str, cex: &'c Counterexample) -> Finding<'c> {
        let text = self.text(label);
        let when = after(cex.schedule.len());
        // A C program's step by its line (`assertion at line 20 fails`), else by its label.
        let line = self.program.place_name(label);
        let at = line.clone().unwrap_or_else(|| format!("`{label}`"));
        let (rule, message) = if cex.division_by_zero {
            (DIVISION, format!("division by zero at {at}: {text} divides by zero {when}"))
        } else if cex.shift_out_of_range {
            (SHIFT, format!("shift out of range at {at}: {text} shifts by an amount outside 0..=63 {when}"))
        } else if line.is_some() {
            (ASSERTION, format!("assertion at {at} fails: {text} is false {when}"))
        } else {
            (ASSERTION, format!("assertion {at} fails: {text} is false {when}"))
        };
        let at = vec![(label.to_owned(), format!("{text} fails here"))];
        Finding { rule, message, cex, at, waits: Vec::new(), deadlock: None }
    }

    fn deadlock<'c>(&self, id: &'c DeadlockId, cex: &'c Counterexample) -> Finding<'c> {
        let mut waits = Vec::new();
        for (name, stand) in &id.threads {
            let thread = self.program.threads.iter().position(|t| t.name == *name).unwrap_or(usize::MAX);
            if let ThreadStand::Blocked(labels) = stand {
                waits.extend(labels.iter().map(|l| (thread, l.clone())));
            }
        }
        let at = waits
            .iter()
            .map(|(t, l)| (l.clone(), format!("{} waits here for good: {}", self.thread_name(*t), self.text(l))))
            .collect();
        let message = format!(
            "deadlock: {}: every thread that has not finished waits for good {}",
            id.shown(self.program),
            after(cex.schedule.len())
        );
        Finding { rule: DEADLOCK, message, cex, at, waits, deadlock: Some(id) }
    }

    fn livelock<'c>(&self, id: &LivelockId, cex: &'c Counterexample) -> Finding<'c> {
        let message = format!(
            "atomic livelock: {}: the steps from step {} of the {} shown repeat forever, and no other \
             thread runs again",
            id.shown(self.program),
            cex.cycle_start.map_or(1, |k| k + 1),
            steps(cex.schedule.len()),
        );
        let at = vec![(
            id.block.clone(),
            format!("{} loops forever inside this atomic section", self.program.shown_thread(&id.thread)),
        )];
        Finding { rule: LIVELOCK, message, cex, at, waits: Vec::new(), deadlock: None }
    }

    /// The trace of `f` as one code flow: one thread flow per thread that takes a step or
    /// waits, in thread order; each step numbered by its place in the trace.
    fn code_flow(&self, f: &Finding<'_>) -> CodeFlow {
        let mut flows: BTreeMap<usize, Vec<ThreadFlowLocation>> = BTreeMap::new();
        let schedule = &f.cex.schedule.steps;
        let labels: Vec<(usize, &str)> = schedule.iter().map(|s| (s.thread.index(), s.label.as_str())).collect();
        // A row of a C program's trace stands for the steps of one statement; the failing
        // step ends its row and the cycle's first step starts one.
        let (failing, cycle) = (f.cex.failing_step, f.cex.cycle_start);
        let rows = crate::shown::rows(self.program, &labels, |i| failing == Some(i) || cycle == Some(i + 1));
        for (k, row) in rows.iter().enumerate() {
            let step = &schedule[row.first];
            let label = row.labels[0].as_str();
            let text = self.text(label);
            let holds = |i: Option<usize>| i.is_some_and(|i| (row.first..row.first + row.labels.len()).contains(&i));
            let message = if holds(failing) {
                format!("{text} (fails)")
            } else if cycle == Some(row.first) {
                format!("{text} (the cycle starts here)")
            } else {
                text
            };
            flows.entry(row.thread).or_default().push(ThreadFlowLocation {
                location: self.location(label, Some(message)),
                execution_order: Some(k + 1),
                nesting_level: (!step.calls.is_empty()).then_some(step.calls.len()),
                importance: holds(failing).then_some("essential"),
            });
        }
        for (thread, label) in &f.waits {
            flows.entry(*thread).or_default().push(ThreadFlowLocation {
                location: self.location(label, Some(format!("{} (waits here for good)", self.text(label)))),
                execution_order: None,
                nesting_level: None,
                importance: Some("essential"),
            });
        }
        let thread_flows = flows
            .into_iter()
            .map(|(t, locations)| {
                let name = self.thread_name(t);
                ThreadFlow { id: name.clone(), message: Message::new(format!("thread {name}")), locations }
            })
            .collect();
        CodeFlow {
            message: Message::new(format!(
                "the trace, {}: one thread flow per thread, executionOrder numbers the steps",
                steps(f.cex.schedule.len())
            )),
            thread_flows,
        }
    }

    /// The result of `f`, its message followed by `more` (when not empty), with `fixes`.
    fn result(&self, f: &Finding<'_>, more: &str, fixes: Vec<Fix>) -> SarifResult {
        let message = if more.is_empty() { f.message.clone() } else { format!("{}. {more}", f.message) };
        SarifResult {
            rule_id: RULES[f.rule].0,
            rule_index: f.rule,
            level: "error",
            message: Message::new(message),
            locations: f.at.iter().map(|(label, what)| self.location(label, Some(what.clone()))).collect(),
            code_flows: vec![self.code_flow(f)],
            fixes,
        }
    }
}

/// The log of one run with `results` and the invocation's `notifications`, as pretty-printed
/// JSON with a final line break.
fn log(results: Vec<SarifResult>, notifications: Vec<Notification>, successful: bool) -> String {
    let rules = RULES
        .iter()
        .map(|&(id, name, short, full)| Rule {
            id,
            name,
            short_description: Message::new(short),
            full_description: Message::new(full),
            default_configuration: Configuration { level: "error" },
        })
        .collect();
    let version = env!("CARGO_PKG_VERSION");
    let log = Log {
        schema: types::SCHEMA_URI,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool { driver: Driver { name: "paces", version, semantic_version: version, rules } },
            invocations: vec![Invocation {
                execution_successful: successful,
                tool_execution_notifications: notifications,
            }],
            column_kind: "unicodeCodePoints",
            results,
        }],
    };
    format!("{}\n", serde_json::to_string_pretty(&log).unwrap_or_default())
}

fn note(level: &'static str, text: String) -> Notification {
    Notification { level, message: Message::new(text), locations: Vec::new() }
}

/// The SARIF log of a check of `program` (read from `source`): a result for each failing
/// assertion, division by zero, shift out of range, deadlock and atomic livelock found (with
/// `all` every one the result lists, else the verdict's), and the verdict in words as a
/// notification.
pub fn check_log(source: &Source<'_>, program: &Program, result: &CheckResult, all: bool) -> String {
    let places = Places::new(source, program);
    let results = findings(&places, result, all).iter().map(|f| places.result(f, "", Vec::new())).collect();
    let level = match result.verdict {
        Verdict::Correct => "note",
        Verdict::BoundReached { .. } => "warning",
        _ => "error",
    };
    log(results, vec![note(level, format!("{}: {}", source.name, result.verdict_text_in(program)))], true)
}

/// The SARIF log of a repair of `source`: the results of `check`, a check of the original
/// (`report.original`) that lists every bug, each with the repair as a fix when the repair
/// removes it. `repaired` is the repaired program in the input's own text, `None` when there
/// is none or it cannot be written there; a result without a fix says why in its message.
pub fn repair_log(source: &Source<'_>, check: &CheckResult, report: &Report, repaired: Option<&str>) -> String {
    let places = Places::new(source, &report.original);
    let changes = crate::text::changes(report).join(", ");
    let fix = repaired.and_then(|text| fix::artifact_change(&places.uri, source.text, text)).map(|change| Fix {
        description: Message::new(format!("paces repair: {changes}")),
        artifact_changes: vec![change],
    });
    let results = findings(&places, check, true)
        .iter()
        .map(|f| {
            let kept = f.deadlock.and_then(|id| {
                report.deadlock_fates.iter().find(|d| d.deadlock == *id).and_then(|d| match &d.fate {
                    Fate::Kept(why) => Some(why.to_string()),
                    _ => None,
                })
            });
            let (more, fixes) = match (&report.stop, kept, &fix) {
                (_, Some(why), _) => (format!("paces repair keeps this deadlock: {why}"), Vec::new()),
                (StopReason::Repaired, None, _) if f.rule == LIVELOCK => (
                    "paces repair keeps it: a repair removes failures and deadlocks, and may keep an atomic \
                     livelock of the original"
                        .to_owned(),
                    Vec::new(),
                ),
                (StopReason::Repaired, None, Some(fix)) => {
                    (format!("paces repair removes it: {changes}"), vec![fix.clone()])
                }
                (StopReason::Repaired, None, None) => (
                    format!("paces repair removes it ({changes}), but cannot write the repair into this source"),
                    Vec::new(),
                ),
                (stop, None, _) => (format!("paces repair found no repair: {stop}"), Vec::new()),
            };
            places.result(f, &more, fixes)
        })
        .collect();
    let mut notes = vec![note(
        if report.bug_remains() { "warning" } else { "note" },
        format!("{}: paces repair: {}", source.name, report.stop),
    )];
    if let Some(bound) = check.bound {
        notes.push(note(
            "warning",
            format!("the check of the original reached its {bound} first: the results may be incomplete"),
        ));
    }
    log(results, notes, true)
}

/// The SARIF log of a run that read no program: no result, and each error (its message, and
/// its line and column when known) as a notification of an unsuccessful run about the file
/// `name`.
pub fn error_log(name: &str, errors: &[(String, Option<(usize, usize)>)]) -> String {
    let notifications = errors
        .iter()
        .map(|(message, at)| Notification {
            level: "error",
            message: Message::new(message.clone()),
            locations: at
                .iter()
                .map(|&(line, column)| Location {
                    physical_location: PhysicalLocation {
                        artifact_location: ArtifactLocation { uri: uri(name) },
                        region: Some(Region {
                            start_line: line.max(1),
                            start_column: column.max(1),
                            end_line: line.max(1),
                            end_column: column.max(1),
                        }),
                    },
                    message: None,
                })
                .collect(),
        })
        .collect();
    log(Vec::new(), notifications, false)
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn names_become_uri_references() {
        assert_eq!(uri("examples/paper1.cw"), "examples/paper1.cw");
        assert_eq!(uri("<stdin>"), "%3Cstdin%3E");
        assert_eq!(uri("my prog.c"), "my%20prog.c");
    }
}
