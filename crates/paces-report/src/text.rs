//! A repair in words: the summary `paces repair` writes on stderr, an iteration's line, the
//! changes as a reviewer reads them.

use std::time::Duration;

use paces::constraint::Transformation;
use paces::{DeadlockRule, Fate, Iteration, Report, TimeSplit};

use crate::text_chart;
use crate::words::Namer;

/// Where a repair command's time went, part by part: reading the program, the parts of the
/// run ([`TimeSplit`]), then printing; the parts sum to the total.
#[derive(Clone, Debug)]
pub struct Times {
    /// From the command's start to the printing of its answer.
    pub total: Duration,
    /// Each part: its key in JSON, its name in the summary, its time.
    pub parts: Vec<(&'static str, &'static str, Duration)>,
}

impl Times {
    /// The parts of a command that read its program in `read` and reached its answer after
    /// `elapsed`, whose run `report` tells.
    pub fn of(report: &Report, read: Duration, elapsed: Duration) -> Times {
        let t: &TimeSplit = &report.time;
        let total = elapsed.max(read + t.total);
        let parts = vec![
            ("read", "reading", read),
            ("explore", "checking", t.explore),
            ("good", "good-trace search", t.good),
            ("complete", "completing bad traces", t.complete),
            ("learn", "learning", t.learn),
            ("solve", "solving", t.solve),
            ("apply", "building candidates", t.apply),
            ("list", "listing candidates", t.list),
            ("print", "printing", total.saturating_sub(read + t.total)),
            ("other", "other", t.other()),
        ];
        Times { total, parts }
    }
}

/// The repair as a reviewer reads it: the fewest moves of single items that reorder the
/// blocks (`move A below B`, `move A above B` for a move to the top of a block; see
/// [`paces::constraint::Candidate::moves`]), then the added sections (`atomic [A; B]`).
/// Empty without a candidate.
pub fn changes(report: &Report) -> Vec<String> {
    let space = &report.space;
    let names = Namer { program: &report.original, space };
    let moves = report.candidate.as_ref().map(|c| c.moves(space)).unwrap_or_default();
    let sections = report.transformations.iter().filter(|t| matches!(t, Transformation::Atomic { .. }));
    moves.iter().map(|m| names.change(m)).chain(sections.map(|t| names.transformation(t))).collect()
}

/// The transformations from the original to the repair in words (`swap A <-> B`,
/// `atomic [A; B]`).
pub fn transformations(report: &Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

/// A line diff of the canonical texts of the original and the repair (empty unless repaired).
pub fn diff(report: &Report) -> String {
    if report.stop != paces::StopReason::Repaired {
        return String::new();
    }
    diff_from(report, &report.original_text())
}

/// [`diff`], given the original's canonical text ([`Report::original_text`]) already printed.
pub(crate) fn diff_from(report: &Report, original: &str) -> String {
    match (&report.stop, report.repaired_text()) {
        (paces::StopReason::Repaired, Some(text)) => crate::line_diff(original, &text),
        _ => String::new(),
    }
}

/// One iteration in words: `iteration 1: bad trace: `3` fails (5 steps), and `4` fails; 2
/// fixes; next: swap A <-> B` (the further failures only when the check found some).
/// `space` names the proposal's locations; the problems are in the words of `program`, the
/// original the repair started from ([`paces::Problem::shown`]: a C program's lines and threads).
pub fn iteration_line(
    number: usize,
    it: &Iteration,
    program: &paces::cwhile::ir::Program,
    space: &paces::constraint::Space,
) -> String {
    let more: Vec<String> = it.more.iter().map(|p| p.shown(program).to_string()).collect();
    let more = if more.is_empty() { String::new() } else { format!(", and {}", more.join(", ")) };
    let names = Namer { program, space };
    let proposal: Vec<String> = it.proposal.iter().map(|t| names.transformation(t)).collect();
    format!(
        "iteration {number}: {} trace: {} ({}){more}; {}; next: {}",
        it.kind(),
        it.problem.shown(program),
        count(it.schedule.len() as u64, "step"),
        if it.fixes == 1 { "1 fix".to_owned() } else { format!("{} fixes", it.fixes) },
        if proposal.is_empty() { "the original program".to_owned() } else { proposal.join(", ") }
    )
}

/// An iteration's line ([`iteration_line`]) followed by its trace as a text chart (columns
/// named `threads`), each chart line indented by four spaces. The trace is one of `program`'s
/// (the original the repair started from): for a program read from C, its steps are named by
/// their statements' lines, the consecutive steps of one thread that belong to one statement
/// once.
pub fn iteration_text(
    number: usize,
    it: &Iteration,
    program: &paces::cwhile::ir::Program,
    space: &paces::constraint::Space,
    threads: &[String],
) -> String {
    let mut text = iteration_line(number, it, program, space);
    if !it.schedule.is_empty() {
        let steps: Vec<(usize, &str)> =
            it.threads.iter().copied().zip(it.schedule.iter().map(String::as_str)).collect();
        let rows = crate::shown::rows(program, &steps, |i| it.failing == Some(i));
        let shown: Vec<(usize, &str)> = rows.iter().map(|r| (r.thread, r.label.as_str())).collect();
        let failing =
            it.failing.and_then(|f| rows.iter().position(|r| (r.first..r.first + r.labels.len()).contains(&f)));
        text.push('\n');
        text.push_str(text_chart::runs(threads, &shown, failing, "    ").trim_end());
    }
    text
}

/// Says which bounds cut the good-trace search short; `None` when none did.
pub fn good_bounds_note(bounds: &[paces::explore::GoodBound]) -> Option<String> {
    if bounds.is_empty() {
        return None;
    }
    let names: Vec<String> = bounds
        .iter()
        .map(|b| match b {
            paces::explore::GoodBound::Steps => format!("{b} (--good-steps raises it)"),
            paces::explore::GoodBound::Time => format!("{b} (--time-limit)"),
            _ => b.to_string(),
        })
        .collect();
    Some(format!("the good-trace search stopped at its {}: the good traces are a sample", names.join(", ")))
}

/// A count and its noun, plural unless the count is 1 (`1 transition`, `2 states`).
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The summary of a run of `paces repair` on the file `name` (with `verbose`, also the diff;
/// the iterations are written as they end, not here); its last line tells the `times`.
pub fn summary(name: &str, report: &Report, times: &Times, verbose: bool) -> String {
    let how = match report.exhaustive {
        Some(_) => "exhaustive search".to_owned(),
        None => format!("{} mode", report.mode),
    };
    let mut s = format!("paces: {name}: {} ({how})\n", report.stop);
    if report.unwind_reached {
        s.push_str("  note: the loop bound (--unwind) cut some path: this holds only within that bound (exit 3)\n");
    }
    let changes = changes(report);
    if !changes.is_empty() {
        s.push_str("  changes:\n");
        for t in &changes {
            s.push_str(&format!("    {t}\n"));
        }
    }
    s.push_str(&learned_line(report));
    if let Some(note) = good_bounds_note(&report.good_search_bounds) {
        s.push_str(&format!("  warning: {note}\n"));
    }
    s.push_str(&deadlock_lines(report));
    s.push_str(&acceptance_lines(report));
    s.push_str(&fate_lines(report));
    if let Some(line) = exhaustive_line(report) {
        s.push_str(&line);
    }
    if let (Some(o), Some(c)) = (&report.optimality, &report.candidate) {
        let verdict = if o.is_proved() { "optimal in the space" } else { "cheapest found" };
        s.push_str(&format!("  cost {}: {verdict} ({})\n", c.cost(&report.space), o.why()));
    }
    s.push_str(&time_line(report, times));
    if verbose {
        s.push_str(&diff_lines(&diff(report)));
    }
    s
}

/// The summary's diff section (`  diff:` and the diff's lines indented): empty for no diff.
pub fn diff_lines(diff: &str) -> String {
    let mut s = String::new();
    if !diff.is_empty() {
        s.push_str("  diff:\n");
        for line in diff.lines() {
            s.push_str(&format!("    {line}\n"));
        }
    }
    s
}

/// A line diff of `source`, the input's own text, and `printed`, the repaired program written
/// in it (empty unless repaired): what the user's `diff` of the two files shows.
pub fn source_diff(report: &Report, source: &str, printed: &str) -> String {
    if report.stop != paces::StopReason::Repaired {
        return String::new();
    }
    crate::line_diff(source, printed)
}

/// The summary's line on what was learned.
fn learned_line(report: &Report) -> String {
    let relaxed = match report.relaxed_good_traces {
        0 => String::new(),
        n => format!(" ({n} relaxed to their covered edges)"),
    };
    let notes: Vec<String> =
        [(report.deepened_bad_traces, "searched again with a larger K"), (report.dropped_constraints, "dropped")]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
    let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join(", ")) };
    format!(
        "  iterations: {}, good traces: {}{relaxed}, bad traces: {}{notes}, constraint: {} nodes ({} atoms)\n",
        report.iterations, report.good_traces, report.bad_traces, report.constraint.nodes, report.constraint.atoms
    )
}

/// The summary's lines on the checks the accepted program passed.
fn acceptance_lines(report: &Report) -> String {
    let Some(a) = &report.acceptance else { return String::new() };
    let outcomes = match a.outcomes {
        Some(n) => format!("{} ({}, each the original's)", a.no_new_outcome, count(n as u64, "outcome")),
        None => format!("{} (no reorder)", a.no_new_outcome),
    };
    let mut s = format!(
        "  accepted: no assertion failure: {}, no new deadlock: {}, no new livelock: {}, same sequential final \
         states: {}, passing assertions still reached: {}, no new outcome: {outcomes}\n",
        a.no_assertion_failure, a.no_new_deadlock, a.no_new_livelock, a.same_sequential_states, a.assertions_reached,
    );
    for d in &a.deadlocks {
        let deadlock = d.deadlock.shown(&report.original);
        s.push_str(&format!("    deadlock admitted: {deadlock} ({})\n", deadlock_rule_text(d.rule)));
    }
    s
}

/// The summary's last line: the states and where the time went (the parts that show as
/// 0.001 s or more; each left out is under half a millisecond).
fn time_line(report: &Report, times: &Times) -> String {
    let parts: Vec<String> = times
        .parts
        .iter()
        .filter(|(_, _, d)| *d >= Duration::from_micros(500))
        .map(|(_, what, d)| format!("{what} {:.3} s", d.as_secs_f64()))
        .collect();
    format!(
        "  states explored: {}; time {:.3} s ({})\n",
        report.states_explored,
        times.total.as_secs_f64(),
        if parts.is_empty() { "each part under a millisecond".to_owned() } else { parts.join(", ") }
    )
}

/// The summary's lines on the original's deadlocks: whether they are kept, and which they are.
fn deadlock_lines(report: &Report) -> String {
    let mut s = String::new();
    if report.keep_deadlocks {
        s.push_str("  --keep-deadlocks: the original's deadlocks are kept, only new ones refused\n");
    }
    if let Some(deadlocks) = report.original_deadlocks.as_ref().filter(|d| !d.is_empty()) {
        s.push_str(if report.keep_deadlocks {
            "  the original program deadlocks (a repair may keep these, never add one):\n"
        } else {
            "  the original program deadlocks (removed where the space can, else kept; --keep-deadlocks keeps them):\n"
        });
        for d in deadlocks {
            s.push_str(&format!("    {}\n", d.shown(&report.original)));
        }
    }
    s
}

/// The summary's lines on what became of the original's deadlocks in the program the run
/// ends with: each kept one with its reason, then the removed ones known.
fn fate_lines(report: &Report) -> String {
    let mut s = String::new();
    for d in &report.deadlock_fates {
        s.push_str(&format!("  {} deadlock of the original: {}\n", d.fate.name(), d.deadlock.shown(&report.original)));
        if let Fate::Kept(why) = &d.fate {
            s.push_str(&format!("    {why}\n"));
        }
    }
    if !report.keep_deadlocks && report.kept_deadlocks().next().is_some() {
        s.push_str("  a bug remains: the program still deadlocks where the original does (exit 1)\n");
    }
    s
}

/// What the exhaustive search did, as a summary line; `None` for a run of the loop.
fn exhaustive_line(report: &Report) -> Option<String> {
    let e = report.exhaustive?;
    let cost = match (&report.candidate, &report.stop) {
        (Some(c), paces::StopReason::Repaired) => format!(", cost {}", c.cost(&report.space)),
        _ => String::new(),
    };
    let verdict = if e.proved_optimal { "; proved optimal in the space" } else { "" };
    Some(format!("  exhaustive: {} of {} candidates checked{cost}{verdict}\n", e.checked, e.space_size))
}

/// Why a kept deadlock is no regression, in words.
pub fn deadlock_rule_text(rule: DeadlockRule) -> &'static str {
    match rule {
        DeadlockRule::SamePlace => "the original reaches it",
        DeadlockRule::SameThreadsAfterFailure => {
            "the original deadlocks with the same threads blocked after an assertion failed"
        }
        _ => "admitted",
    }
}
