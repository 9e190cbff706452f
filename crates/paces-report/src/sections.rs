//! The sections of a repair's page: the summary, the changes with the diff, the iteration
//! timeline, the good traces and the acceptance; and the figures of one trace.

use std::fmt::Write;

use paces::{Report, StopReason};

use crate::page::escape;
use crate::{chart, graph, Source, TraceChart};

/// The most good traces drawn; the others are counted.
const GOOD_DRAWN: usize = 12;

/// The most fixes whose elimination graph is drawn per bad trace (every fix is listed and can
/// be chosen on the chart).
const FIXES_DRAWN: usize = 3;

/// Why the run stopped, and its figures.
pub(crate) fn summary(out: &mut String, source: &Source<'_>, report: &Report) {
    let class = if report.stop.is_success() { "ok" } else { "bad" };
    let _ =
        writeln!(out, "<p class=\"verdict {class}\">{} ({} mode)</p>", escape(&report.stop.to_string()), report.mode);
    out.push_str("<table class=\"facts\">\n");
    let rows = [
        ("language", source.language.to_owned()),
        ("iterations", report.iterations.to_string()),
        ("good traces learned from", report.good_traces.to_string()),
        ("bad traces learned from", report.bad_traces.to_string()),
        ("constraint", format!("{} nodes ({} atoms)", report.constraint.nodes, report.constraint.atoms)),
        ("states explored", report.states_explored.to_string()),
    ];
    for (name, value) in rows {
        let _ = writeln!(out, "<tr><td>{name}</td><td>{}</td></tr>", escape(&value));
    }
    out.push_str("</table>\n");
}

/// The changes in words and the diff of the repair in the input's own text, each changed line
/// tagged with the changes that name its label.
pub(crate) fn changes(out: &mut String, source: &Source<'_>, repaired: Option<&str>, report: &Report) {
    out.push_str("<h2>The repair</h2>\n");
    let Some(repaired) = repaired.filter(|_| report.stop == StopReason::Repaired) else {
        out.push_str("<p>No repair: the program is unchanged.</p>\n");
        return;
    };
    out.push_str("<ol class=\"changes\">\n");
    let why = crate::asked::changes(report);
    let origin = report.origin.map(|o| o.to_string()).unwrap_or_else(|| "the run".to_owned());
    for change in &why {
        let reasons: Vec<String> = if change.asked.is_empty() {
            vec![format!("kept from {}: no lesson asks for it alone", escape(&origin))]
        } else {
            let asked = change.asked.iter().map(|a| {
                let (n, problem) = (a.iteration, escape(&a.problem));
                format!("asked by <a href=\"#iteration-{n}\">iteration {n}</a>: {problem}")
            });
            asked.collect()
        };
        let _ = writeln!(
            out,
            "<li><code>{}</code><ul class=\"why\"><li>{}</li></ul></li>",
            escape(&change.text),
            reasons.join("</li><li>")
        );
    }
    let _ = writeln!(out, "</ol>\n<p>The repair is {}.</p>", escape(&origin));
    let changes: Vec<String> = why.into_iter().map(|c| c.text).collect();
    out.push_str("<div class=\"diff\">");
    for line in crate::line_diff(source.text, repaired).lines() {
        let class = match line.chars().next() {
            Some('-') => "del",
            Some('+') => "add",
            _ => "same",
        };
        let tags: Vec<&str> = match (class, line_label(line)) {
            ("same", _) | (_, None) => Vec::new(),
            (_, Some(label)) => changes.iter().filter(|c| names(c, label)).map(String::as_str).collect(),
        };
        let tag = if tags.is_empty() {
            String::new()
        } else {
            format!("<span class=\"tag\">{}</span>", escape(&tags.join("; ")))
        };
        let _ = writeln!(out, "<div class=\"{class}\">{}{tag}</div>", escape(line));
    }
    out.push_str("</div>\n");
}

/// The label a diff line starts with (`  1: stuff1();` has `1`), if any.
fn line_label(line: &str) -> Option<&str> {
    let rest = line.get(1..)?.trim_start();
    let (label, _) = rest.split_once(':')?;
    (!label.is_empty() && !label.contains(char::is_whitespace) && !rest.starts_with("::")).then_some(label)
}

/// Whether the change `change` (`move 1 below 2`, `atomic [A; B]`) names `label`.
fn names(change: &str, label: &str) -> bool {
    change.split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | ';' | ',')).any(|w| w == label)
}

/// Per iteration: what was rejected and why, the counterexample, its fixes, the constraint
/// learned and the candidate proposed, with why it was rejected (the next iteration) or
/// accepted.
pub(crate) fn timeline(out: &mut String, report: &Report) {
    out.push_str("<h2>Iterations</h2>\n");
    if report.history.is_empty() {
        out.push_str("<p>No iteration: the original program was judged and the run stopped.</p>\n");
        return;
    }
    for (n, it) in report.history.iter().enumerate() {
        let last = n + 1 == report.history.len();
        let accepted = last && report.stop == StopReason::Repaired;
        let class = if accepted { "iteration accepted" } else { "iteration" };
        let judged = if n == 0 { "the original program".to_owned() } else { format!("the candidate of iteration {n}") };
        let _ = writeln!(
            out,
            "<div class=\"{class}\" id=\"iteration-{}\">\n<h3>Iteration {}: {}</h3>",
            n + 1,
            n + 1,
            it.kind()
        );
        let _ =
            writeln!(out, "<p>{judged} is rejected: {}.</p>", escape(&it.problem.shown(&report.original).to_string()));
        let chart = it.learned.as_ref().map(|l| {
            let mut chart = TraceChart::of_elimination(&report.original, &l.trace, &l.elimination, &report.space);
            // The fix shown first is the one the next candidate takes.
            let next = match (&report.candidate, last) {
                (Some(accepted), true) => Some(accepted.clone()),
                _ => paces::constraint::Candidate::apply(&report.space, &it.proposal).ok(),
            };
            if let Some(next) = next {
                chart.choose_fix(&l.elimination, &next);
            }
            chart
        });
        match &chart {
            Some(c) => {
                let _ = writeln!(
                    out,
                    "<p>Counterexample: {} steps.</p>",
                    c.steps.iter().map(|s| s.labels.len()).sum::<usize>()
                );
                trace_figures(out, c, &format!("bad-{}", n + 1));
                constraint(out, c);
            }
            None if it.schedule.is_empty() => out.push_str("<p>No trace was learned from.</p>\n"),
            None => {
                let _ = writeln!(out, "<p>Schedule: <code>{}</code></p>", escape(&it.schedule.join(" ")));
            }
        }
        further(out, report, it, n + 1);
        let proposal = if it.proposal.is_empty() {
            "none (the original order)".to_owned()
        } else {
            let names = crate::words::Namer { program: &report.original, space: &report.space };
            let texts = it.proposal.iter().map(|t| names.transformation(t));
            texts.map(|p| format!("<code>{}</code>", escape(&p))).collect::<Vec<_>>().join(", ")
        };
        let _ = writeln!(out, "<p>Candidate proposed: {proposal}.</p>");
        let verdict = match report.history.get(n + 1) {
            Some(next) => format!(
                "Rejected in iteration {}: {}.",
                n + 2,
                escape(&next.problem.shown(&report.original).to_string())
            ),
            None if accepted => "Accepted: it passed every check of the acceptance below.".to_owned(),
            None => format!("The run stopped: {}.", escape(&report.stop.to_string())),
        };
        let _ = writeln!(out, "<p><b>{verdict}</b></p>\n</div>");
    }
}

/// The further bad traces of iteration `n`'s check learned from, each with its chart and the
/// constraint it taught.
fn further(out: &mut String, report: &Report, it: &paces::Iteration, n: usize) {
    for (m, (problem, learned)) in it.more.iter().zip(&it.more_learned).enumerate() {
        let _ = writeln!(
            out,
            "<h4>Further counterexample of the same check: {}</h4>",
            escape(&problem.shown(&report.original).to_string())
        );
        let Some(l) = learned else {
            out.push_str("<p>Not generalised: nothing was learned from it.</p>\n");
            continue;
        };
        let mut chart = TraceChart::of_elimination(&report.original, &l.trace, &l.elimination, &report.space);
        if let Some(accepted) = &report.candidate {
            chart.choose_fix(&l.elimination, accepted);
        }
        let _ = writeln!(
            out,
            "<p>Counterexample: {} steps.</p>",
            chart.steps.iter().map(|s| s.labels.len()).sum::<usize>()
        );
        trace_figures(out, &chart, &format!("bad-{n}-more-{}", m + 1));
        constraint(out, &chart);
    }
}

/// The constraint a bad trace taught: one of its fixes must hold.
fn constraint(out: &mut String, c: &TraceChart) {
    if c.fixes.is_empty() {
        out.push_str("<p>Constraint learned: none (its elimination graph has no cycle).</p>\n");
        return;
    }
    let fixes: Vec<String> = c.fixes.iter().map(|f| format!("({})", f.atoms.join(" ∧ "))).collect();
    let _ = writeln!(out, "<p>Constraint learned (one fix must hold): <code>{}</code></p>", escape(&fixes.join(" ∨ ")));
}

/// A trace's chart with its fix buttons, then its partial order and the elimination graph of
/// its first fixes.
pub(crate) fn trace_figures(out: &mut String, c: &TraceChart, id: &str) {
    let fixes =
        if c.fixes.is_empty() { "" } else { "; red: the cycle of the chosen fix (dashed: its constraint edges)" };
    let _ = writeln!(
        out,
        "<p class=\"legend\">One column per thread, steps top to bottom in the order they ran; the \
         failing step in red; blue arrows: the orderings its failure needs{fixes}.</p>"
    );
    for (k, fix) in c.fixes.iter().enumerate() {
        let _ = writeln!(
            out,
            "<button class=\"fix-pick\" data-chart=\"{id}\" data-fix=\"{}\">fix {}: {}</button>",
            k + 1,
            k + 1,
            escape(&fix.atoms.join(" ∧ "))
        );
    }
    let _ = writeln!(out, "<div class=\"figures\">\n<div class=\"figure\">{}</div>", chart::svg(c, id));
    let mut graphs = vec![("Partial order".to_owned(), graph::partial_order(c, &format!("{id}-order")))];
    for k in 0..c.fixes.len().min(FIXES_DRAWN) {
        let (svg, whole) = graph::elimination(c, k, &format!("{id}-fix-graph-{}", k + 1));
        let part = if whole { "" } else { " (the fix's cycle; the whole graph is too large to draw)" };
        graphs.push((format!("Elimination graph, fix {}{part}", k + 1), svg));
    }
    for (title, svg) in graphs {
        let svg = if svg.is_empty() {
            format!("<p>Not drawn: more than {} steps (`--dot` writes it in DOT).</p>", graph::MAX_NODES)
        } else {
            svg
        };
        let _ = writeln!(out, "<div class=\"figure\"><h3>{title}</h3>{svg}</div>");
    }
    out.push_str("</div>\n");
}

/// The good traces learned from, each with the assertions it protects.
pub(crate) fn good_traces(out: &mut String, report: &Report) {
    if report.learned_good.is_empty() {
        return;
    }
    let charts = report.learned_good.iter().take(GOOD_DRAWN).map(|t| TraceChart::of_good_trace(&report.original, t));
    out.push_str(
        "<h2>Good traces</h2>\n<p>Traces of the original program on which the assertions hold: \
                  the constraint they teach keeps every repair from breaking them. Blue arrows: \
                  the data flow between threads into their assertions and conditions.</p>\n",
    );
    for (g, c) in charts.enumerate() {
        let asserts: Vec<String> = c
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.text.starts_with("assert"))
            .map(|(i, s)| format!("<code>{}</code> (step {})", escape(&format!("{}  {}", s.label, s.text)), i + 1))
            .collect();
        let protects = if asserts.is_empty() { "no assertion".to_owned() } else { asserts.join(", ") };
        let _ = writeln!(out, "<div class=\"good\">\n<h3>Good trace {}</h3>\n<p>Protects {protects}.</p>", g + 1);
        let _ = writeln!(out, "<div class=\"figure\">{}</div>\n</div>", chart::svg(&c, &format!("good-{}", g + 1)));
    }
    if report.learned_good.len() > GOOD_DRAWN {
        let _ = writeln!(out, "<p>{} more good traces are not drawn.</p>", report.learned_good.len() - GOOD_DRAWN);
    }
}

/// What was checked on the final program, the states, the cost and its optimality.
pub(crate) fn acceptance(out: &mut String, report: &Report) {
    out.push_str("<h2>Acceptance</h2>\n");
    let Some(a) = &report.acceptance else {
        out.push_str("<p>No program was accepted.</p>\n");
        return;
    };
    out.push_str("<table class=\"facts\">\n");
    let checks = [
        ("no assertion failure", a.no_assertion_failure),
        ("no new deadlock", a.no_new_deadlock),
        ("no new atomic livelock", a.no_new_livelock),
        ("same final states of the sequential runs", a.same_sequential_states),
        ("every passing assertion still reached", a.assertions_reached),
    ];
    for (name, passed) in checks {
        let (class, word) = if passed { ("ok", "passed") } else { ("bad", "failed") };
        let _ = writeln!(out, "<tr><td>{name}</td><td class=\"{class}\">{word}</td></tr>");
    }
    let _ = writeln!(out, "<tr><td>sequential final states</td><td>{}</td></tr>", a.sequential_final_states);
    for d in &a.deadlocks {
        let _ = writeln!(
            out,
            "<tr><td>deadlock kept</td><td>{} ({})</td></tr>",
            escape(&d.deadlock.shown(&report.original)),
            d.rule.name()
        );
    }
    let _ = writeln!(out, "<tr><td>states explored (all checks)</td><td>{}</td></tr>", report.states_explored);
    if let Some(c) = &report.candidate {
        let _ = writeln!(out, "<tr><td>cost</td><td>{}</td></tr>", escape(&c.cost(&report.space).to_string()));
    }
    if let Some(o) = &report.optimality {
        let word = if o.is_proved() { "optimal in the space" } else { "cheapest found" };
        let _ = writeln!(out, "<tr><td>optimality</td><td>{word}: {}</td></tr>", escape(&o.why()));
    }
    if a.unwind_reached {
        out.push_str("<tr><td>bound</td><td>the checks hold only within the loop bound (--unwind)</td></tr>\n");
    }
    out.push_str("</table>\n");
}
