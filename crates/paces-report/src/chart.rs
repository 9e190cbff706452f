//! A trace as an SVG chart: one column per thread, its steps in the order they ran (one row
//! each), the failing step outlined in red, the orderings the failure needs drawn as blue
//! arrows between columns, and each fix's cycle as a red layer that the page's script shows
//! one at a time.

use std::fmt::Write;

use crate::TraceChart;

use crate::page::escape;

/// Width of a thread's column.
const COLUMN: usize = 230;
/// Height of a step's row.
const ROW: usize = 24;
/// Height of the column headers.
const HEAD: usize = 30;
/// The most characters of a step's text a box shows (the full text is its tooltip).
const TEXT: usize = 26;

/// The chart of `chart` as an SVG element with id `id`; its fix layers are `id-fix-K`, the
/// chosen one ([`TraceChart::chosen`], also its `data-chosen`) shown.
pub(crate) fn svg(chart: &TraceChart, id: &str) -> String {
    let threads = chart.threads.len().max(1);
    let (width, height) = (threads * COLUMN + 20, HEAD + chart.steps.len() * ROW + 10);
    let mut cycles = String::new();
    for (k, fix) in chart.fixes.iter().enumerate() {
        let steps: Vec<String> = fix.edges.iter().map(|e| e.from.to_string()).collect();
        let _ = write!(cycles, " data-cycle-{}=\"{}\"", k + 1, steps.join(" "));
    }
    if !chart.fixes.is_empty() {
        let _ = write!(cycles, " data-chosen=\"{}\"", chart.chosen + 1);
    }
    let mut out = format!(
        "<svg class=\"chart\" id=\"{id}\" data-threads=\"{}\"{cycles} width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
        chart.threads.len()
    );
    let _ = writeln!(
        out,
        "<defs><marker id=\"{id}-arrow-blue\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" \
         markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#1f5fbf\"/></marker>\
         <marker id=\"{id}-arrow-red\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" \
         markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#c8102e\"/></marker></defs>"
    );
    let (blue, red) = (format!("{id}-arrow-blue"), format!("{id}-arrow-red"));
    for (t, name) in chart.threads.iter().enumerate() {
        thread_column(&mut out, chart, t, name);
    }
    for &(a, b) in &chart.orderings {
        let _ = writeln!(out, "{}", arrow(chart, a, b, "order", &blue));
    }
    for (k, fix) in chart.fixes.iter().enumerate() {
        let shown = if k == chart.chosen { "" } else { " display=\"none\"" };
        let _ = writeln!(out, "<g class=\"fix\" id=\"{id}-fix-{}\"{shown}>", k + 1);
        for e in &fix.edges {
            let class = if e.atom.is_some() { "cycle constraint" } else { "cycle" };
            let _ = writeln!(out, "{}", arrow(chart, e.from, e.to, class, &red));
            if let Some(atom) = &e.atom {
                let (x, y) = midpoint(chart, e.from, e.to);
                let _ = writeln!(out, "<text class=\"atom\" x=\"{x}\" y=\"{y}\">{}</text>", escape(atom));
            }
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// Thread `t`'s column: its name on top, a lane, and a box for each of its steps.
fn thread_column(out: &mut String, chart: &TraceChart, t: usize, name: &str) {
    let x = 10 + t * COLUMN;
    let _ = writeln!(out, "<g class=\"thread\" data-thread=\"{}\">", escape(name));
    let _ = writeln!(out, "<text class=\"head\" x=\"{}\" y=\"18\">{}</text>", x + COLUMN / 2, escape(name));
    let bottom = HEAD + chart.steps.len() * ROW;
    let _ = writeln!(out, "<line class=\"lane\" x1=\"{0}\" y1=\"{HEAD}\" x2=\"{0}\" y2=\"{bottom}\"/>", x + COLUMN / 2);
    for (i, step) in chart.steps.iter().enumerate().filter(|(_, s)| s.thread == t) {
        let mut class = String::from("step");
        if chart.failing.contains(&i) {
            class.push_str(" failing");
        }
        if step.blocked {
            class.push_str(" blocked");
        }
        let full = format!("{}  {}", step.label, step.text);
        let shown: String = if full.chars().count() > TEXT {
            full.chars().take(TEXT - 1).chain(std::iter::once('…')).collect()
        } else {
            full.clone()
        };
        let y = HEAD + i * ROW;
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-step=\"{i}\"><title>step {}: {}</title><rect x=\"{}\" y=\"{}\" \
             width=\"{}\" height=\"{}\" rx=\"3\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
            i + 1,
            escape(&full),
            x + 6,
            y + 2,
            COLUMN - 12,
            ROW - 4,
            x + 12,
            y + 17,
            escape(&shown)
        );
    }
    out.push_str("</g>\n");
}

/// The centre of step `i`'s box.
fn centre(chart: &TraceChart, i: usize) -> (usize, usize) {
    let t = chart.steps.get(i).map_or(0, |s| s.thread);
    (10 + t * COLUMN + COLUMN / 2, HEAD + i * ROW + ROW / 2)
}

/// Halfway between two steps, for an edge's label.
fn midpoint(chart: &TraceChart, a: usize, b: usize) -> (usize, usize) {
    let ((x1, y1), (x2, y2)) = (centre(chart, a), centre(chart, b));
    ((x1 + x2) / 2 + 4, (y1 + y2) / 2)
}

/// An arrow from step `a` to step `b`: straight between columns, bowed out to the right
/// within one column.
fn arrow(chart: &TraceChart, a: usize, b: usize, class: &str, marker: &str) -> String {
    let ((x1, y1), (x2, y2)) = (centre(chart, a), centre(chart, b));
    let half = COLUMN / 2 - 6;
    let d = if x1 == x2 {
        let bow = x1 + half + 14;
        format!("M{} {y1} C{bow} {y1} {bow} {y2} {} {y2}", x1 + half, x1 + half)
    } else if x1 < x2 {
        format!("M{} {y1} L{} {y2}", x1 + half, x2 - half)
    } else {
        format!("M{} {y1} L{} {y2}", x1 - half, x2 + half)
    };
    format!("<path class=\"{class}\" d=\"{d}\" marker-end=\"url(#{marker})\"/>")
}
