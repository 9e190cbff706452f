//! Every rendering of a run of paces: a [`paces::Report`] (and a check's result) is data; this
//! crate says it in words ([`text`]: the summary, an iteration's line, the changes), as JSON
//! ([`json`], serde types of the `paces-repair/1` schema), as a line diff ([`line_diff`]), as DOT
//! graphs ([`dot_files`]), as trace charts in text ([`text_chart`]) and SVG (through
//! [`TraceChart`]), as a SARIF 2.1.0 log for code-review tools ([`sarif`]), and as one HTML
//! page.
//!
//! The HTML report of a repair or a check is one self-contained page (its style and script
//! inline, no network) that opens from disk in any browser.
//!
//! A repair's page ([`repair_page`]) shows the diff of the repair in the input's own text with
//! each change named, the iteration timeline (per iteration the counterexample, its fixes, the
//! constraint learned, the candidate proposed and why it was rejected or accepted; the good
//! traces and the assertions they protect), each trace as a chart with one column per thread,
//! the partial order and the elimination graph of each bad trace as graphs laid out by
//! `layout-rs`, and the acceptance of the final program. A check's page ([`check_page`]) draws
//! its counterexamples the same way. The page is the same for the same input on every run.
//!
//! The charts and graphs are drawn from the traces a repair keeps when
//! [`paces::Repair::record_traces`] is on.

mod asked;
mod chart;
pub mod check;
mod diff;
mod dot;
mod graph;
mod graph_svg;
mod grid;
pub mod json;
mod page;
mod place;
pub mod sarif;
mod sections;
mod shown;
pub mod text;
pub mod text_chart;
mod trace_chart;
mod words;

pub use diff::line_diff;
pub use dot::dot_files;
pub use trace_chart::{ChartEdge, ChartFix, ChartStep, TraceChart};

use page::escape;

/// The program a page is about.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// The file's name as the user gave it (`examples/ex1.cw`, `<stdin>`).
    pub name: &'a str,
    /// The language it is written in, in words (`Cwhile`, `C`).
    pub language: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// A counterexample of a check: what it shows, in words, and its chart.
#[derive(Clone, Debug)]
pub struct Counterexample {
    /// What the trace shows (`assertion 85 fails`, `deadlock: thread3 at 73`).
    pub title: String,
    /// The trace.
    pub chart: TraceChart,
}

/// The page of a repair of `source`: `repaired` is the repaired program in the input's own
/// text (the source with the repair written in), `None` when there is no repair; `report` is
/// the loop's report, made with [`paces::Repair::record_traces`] on so that it holds the traces.
pub fn repair_page(source: &Source<'_>, repaired: Option<&str>, report: &paces::Report) -> String {
    let mut body = format!("<h1>paces repair: {}</h1>\n", escape(source.name));
    sections::summary(&mut body, source, report);
    sections::changes(&mut body, source, repaired, report);
    sections::timeline(&mut body, report);
    sections::good_traces(&mut body, report);
    sections::acceptance(&mut body, report);
    page::page(&format!("paces repair: {}", source.name), &body)
}

/// The page of a check of `source`: its verdict in words, facts to list (`states`, `98`), and
/// its counterexamples, each drawn as a chart with its partial order.
pub fn check_page(
    source: &Source<'_>,
    verdict: &str,
    facts: &[(String, String)],
    counterexamples: &[Counterexample],
) -> String {
    let mut body = format!("<h1>paces check: {}</h1>\n", escape(source.name));
    let class = if counterexamples.is_empty() { "ok" } else { "bad" };
    body.push_str(&format!("<p class=\"verdict {class}\">{}</p>\n<table class=\"facts\">\n", escape(verdict)));
    body.push_str(&format!("<tr><td>language</td><td>{}</td></tr>\n", escape(source.language)));
    for (name, value) in facts {
        body.push_str(&format!("<tr><td>{}</td><td>{}</td></tr>\n", escape(name), escape(value)));
    }
    body.push_str("</table>\n");
    for (i, c) in counterexamples.iter().enumerate() {
        body.push_str(&format!("<h2>Counterexample {}: {}</h2>\n", i + 1, escape(&c.title)));
        sections::trace_figures(&mut body, &c.chart, &format!("cex-{}", i + 1));
    }
    page::page(&format!("paces check: {}", source.name), &body)
}
