//! A readable trace: one column per thread, one row per step, the failing step marked.

use paces_cwhile::ir::Program;
use paces_trace::Trace;

use crate::replay::Schedule;

/// What [`render_columns`] draws.
#[derive(Clone, Copy, Debug)]
pub enum Steps<'a> {
    /// A trace (its failing step is found by itself; its blocked steps are drawn at the end).
    Trace(&'a Trace),
    /// A schedule.
    Schedule(&'a Schedule),
}

impl<'a> From<&'a Trace> for Steps<'a> {
    fn from(t: &'a Trace) -> Self {
        Steps::Trace(t)
    }
}

impl<'a> From<&'a Schedule> for Steps<'a> {
    fn from(s: &'a Schedule) -> Self {
        Steps::Schedule(s)
    }
}

/// Draws steps with one column per thread (headed by the thread's name) and one row per
/// step, numbered from 0, each step as its label and its text (`A  x := 1`). The step at index `failing` is marked `<- fails` (for a trace,
/// `None` marks its first failed event); a trace's blocked steps (a deadlock) follow, marked
/// `(blocked)`.
///
/// # Example
/// ```
/// # use paces_explore::{check, render_columns, Config};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse("var x = 0; thread a { A: x := 1; } thread b { B: assert(x == 0); }")?;
/// let result = check(&program, &Config::new())?;
/// let cex = result.verdict.counterexample().unwrap();
/// let text = render_columns(&program, (&cex.trace).into(), None);
/// assert_eq!(text, "#  a          b\n0  A  x := 1\n1             B  assert(x == 0)  <- fails\n");
/// # Ok(()) }
/// ```
pub fn render_columns(program: &Program, steps: Steps<'_>, failing: Option<usize>) -> String {
    // Rows: (thread index, label, mark).
    let mut rows: Vec<(usize, String, &str)> = Vec::new();
    let name =
        |loc: paces_constraint::Loc| program.loc_names.get(loc.index()).cloned().unwrap_or_else(|| format!("{loc}"));
    let mut failing = failing;
    match steps {
        Steps::Trace(t) => {
            if failing.is_none() {
                failing = t.first_failure().map(|e| e.index());
            }
            for e in t.events() {
                rows.push((e.thread.index(), name(e.loc), ""));
            }
            for (i, row) in rows.iter_mut().enumerate() {
                if Some(i) == failing {
                    row.2 = "<- fails";
                }
            }
            for e in t.blocked() {
                rows.push((e.thread.index(), name(e.loc), "(blocked)"));
            }
        }
        Steps::Schedule(s) => {
            for (i, st) in s.steps.iter().enumerate() {
                rows.push((st.thread.index(), st.label.clone(), if Some(i) == failing { "<- fails" } else { "" }));
            }
        }
    }
    let n = program.threads.len().max(rows.iter().map(|r| r.0 + 1).max().unwrap_or(0));
    let rows = with_texts(program, rows, n);
    let mut widths: Vec<usize> =
        (0..n).map(|t| program.threads.get(t).map_or(1, |th| th.name.chars().count())).collect();
    for (t, label, _) in &rows {
        widths[*t] = widths[*t].max(label.chars().count());
    }
    let numw = rows.len().saturating_sub(1).to_string().len().max(1);
    let mut out = String::new();
    let cell = |out: &mut String, text: &str, w: usize| {
        out.push_str("  ");
        out.push_str(text);
        for _ in text.chars().count()..w {
            out.push(' ');
        }
    };
    out.push_str(&format!("{:<numw$}", "#"));
    for (t, w) in widths.iter().enumerate() {
        cell(&mut out, program.threads.get(t).map_or("?", |th| th.name.as_str()), *w);
    }
    trim_end(&mut out);
    out.push('\n');
    let mut k = 0;
    for (t, label, mark) in &rows {
        let num = if *mark == "(blocked)" { "-".to_string() } else { k.to_string() };
        if *mark != "(blocked)" {
            k += 1;
        }
        out.push_str(&format!("{num:<numw$}"));
        for (u, w) in widths.iter().enumerate() {
            cell(&mut out, if u == *t { label } else { "" }, *w);
        }
        if !mark.is_empty() {
            out.push_str("  ");
            out.push_str(mark);
        }
        trim_end(&mut out);
        out.push('\n');
    }
    out
}

/// The most characters of a step's text shown beside its label.
const TEXT_WIDTH: usize = 40;

/// Each row's label followed by its step's text (shortened to [`TEXT_WIDTH`] characters with
/// `...`), the texts of one thread's column aligned; a label of no location of the program
/// stays alone.
fn with_texts<'m>(
    program: &Program,
    rows: Vec<(usize, String, &'m str)>,
    threads: usize,
) -> Vec<(usize, String, &'m str)> {
    let mut label_width = vec![0; threads];
    for (t, label, _) in &rows {
        label_width[*t] = label_width[*t].max(label.chars().count());
    }
    rows.into_iter()
        .map(|(t, label, mark)| {
            let Some(text) = program.loc(&label).and_then(|l| program.step_text(l)) else { return (t, label, mark) };
            let short: String = if text.chars().count() > TEXT_WIDTH {
                text.chars().take(TEXT_WIDTH - 3).chain("...".chars()).collect()
            } else {
                text
            };
            let pad = label_width[t] - label.chars().count();
            (t, format!("{label}{:pad$}  {short}", ""), mark)
        })
        .collect()
}

fn trim_end(s: &mut String) {
    while s.ends_with(' ') {
        s.pop();
    }
}
