//! Traces as text charts, one column per thread: [`columns`] draws every step on a row of its
//! own with its statement (`paces check`, `paces traces`); [`runs`] draws each run of
//! consecutive steps of one thread on one row, with what repeats shortened (`(L3 L4 L5) x12`;
//! the iterations of `paces repair --verbose`).

use paces::cwhile::ir::Program;
use paces::explore::Schedule;
use paces::trace::Trace;

use crate::grid::{Fit, Grid};
use crate::TraceChart;

/// The widest a cell's text grows before its run continues on the next row (a single label or
/// repetition longer than this keeps its row to itself).
const CELL_WIDTH: usize = 48;

/// The longest sequence of labels [`shorten`] looks for repetitions of.
const MAX_PERIOD: usize = 32;

/// The compact chart of a schedule: `threads` names the columns, `steps` holds each step's thread
/// (an index into `threads`) and label, `failing` the failing step, which ends its row with
/// `<- fails`. The first column numbers each row's first step (from 0); every line ends in a
/// line break, and a line starts with `indent`.
pub fn runs(threads: &[String], steps: &[(usize, &str)], failing: Option<usize>, indent: &str) -> String {
    // Rows: (first step, thread, text).
    let mut rows: Vec<(usize, usize, String)> = Vec::new();
    let mut at = 0;
    while at < steps.len() {
        let thread = steps[at].0;
        let mut run = steps[at..].iter().take_while(|(t, _)| *t == thread).count();
        // The failing step ends its run, marked.
        let fails = failing.filter(|&f| f >= at && f < at + run);
        if let Some(f) = fails {
            run = f + 1 - at;
        }
        let labels: Vec<&str> = steps[at..at + run].iter().map(|(_, l)| *l).collect();
        let mut cells = wrap(&shorten(&labels));
        if let (Some(_), Some((_, last))) = (fails, cells.last_mut()) {
            last.push_str(" <- fails");
        }
        for (offset, text) in cells {
            rows.push((at + offset, thread, text));
        }
        at += run;
    }
    let columns = threads.len().max(rows.iter().map(|r| r.1 + 1).max().unwrap_or(0));
    let mut widths: Vec<usize> = (0..columns).map(|t| threads.get(t).map_or(1, |n| n.chars().count())).collect();
    for (_, t, text) in &rows {
        widths[*t] = widths[*t].max(text.chars().count());
    }
    let number_width = steps.len().saturating_sub(1).to_string().len();
    let line = |number: &str, cells: &dyn Fn(usize) -> String| {
        let mut s = format!("{indent}{number:>number_width$}");
        for (t, w) in widths.iter().enumerate() {
            s.push_str(&format!("  {:<w$}", cells(t)));
        }
        format!("{}\n", s.trim_end())
    };
    let name = |t: usize| threads.get(t).cloned().unwrap_or_else(|| format!("thread {t}"));
    let mut out = line("#", &name);
    for (first, thread, text) in &rows {
        out.push_str(&line(&first.to_string(), &|t| if t == *thread { text.clone() } else { String::new() }));
    }
    out
}

/// A run of labels with each repetition written once and counted: `A B A B A B C` gives
/// `(A B) x3` and `C`, each with the index of its first label in the run. At each place the
/// repetition that covers the most labels wins (the shorter block among equals).
fn shorten(labels: &[&str]) -> Vec<(usize, String)> {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < labels.len() {
        let (mut period, mut times) = (1, 1);
        for p in 1..=MAX_PERIOD.min((labels.len() - i) / 2) {
            let block = &labels[i..i + p];
            let k = 1 + labels[i + p..].chunks_exact(p).take_while(|c| *c == block).count();
            if k >= 2 && p * k > period * times {
                (period, times) = (p, k);
            }
        }
        let block = labels[i..i + period].join(" ");
        let text = match (period, times) {
            (_, 1) => block,
            (1, k) => format!("{block} x{k}"),
            (_, k) => format!("({block}) x{k}"),
        };
        parts.push((i, text));
        i += period * times;
    }
    parts
}

/// Parts of a run gathered into cells of at most [`CELL_WIDTH`] characters, each with the
/// index of its first label in the run.
fn wrap(parts: &[(usize, String)]) -> Vec<(usize, String)> {
    let mut cells: Vec<(usize, String)> = Vec::new();
    for (offset, part) in parts {
        match cells.last_mut() {
            Some((_, cell)) if cell.chars().count() + 1 + part.chars().count() <= CELL_WIDTH => {
                cell.push(' ');
                cell.push_str(part);
            }
            _ => cells.push((*offset, part.clone())),
        }
    }
    cells
}

/// What [`columns`] draws.
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
/// step, numbered from 0, each step as its label and its text (`A  x := 1`, a text of more
/// than 40 characters cut, its end `...`): the layout of the SVG chart ([`TraceChart`]) in
/// text. The step at index `failing` is marked `<- fails` (for a trace, `None` marks its
/// first failed event); a trace's blocked steps (a deadlock) follow, marked `(blocked)`.
///
/// # Example
/// ```
/// # use paces::explore::{check, Config};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces::cwhile::parse("var x = 0; thread a { A: x := 1; } thread b { B: assert(x == 0); }")?;
/// let result = check(&program, &Config::new())?;
/// let cex = result.verdict.counterexample().unwrap();
/// let text = paces_report::text_chart::columns(&program, (&cex.trace).into(), None);
/// assert_eq!(text, "#  a          b\n0  A  x := 1\n1             B  assert(x == 0)  <- fails\n");
/// # Ok(()) }
/// ```
pub fn columns(program: &Program, steps: Steps<'_>, failing: Option<usize>) -> String {
    let chart = match steps {
        Steps::Trace(t) => TraceChart::of_trace(program, t, failing),
        Steps::Schedule(s) => TraceChart::of_schedule(program, s, failing),
    };
    Grid::new(&chart, None, Fit::Shorten(TEXT_WIDTH)).text()
}

/// The most characters of a step's text shown beside its label (a longer one is cut, its
/// end `...`).
const TEXT_WIDTH: usize = 40;

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(labels: &str) -> Vec<String> {
        let labels: Vec<&str> = labels.split(' ').collect();
        shorten(&labels).into_iter().map(|(_, t)| t).collect()
    }

    #[test]
    fn repetitions_are_counted() {
        assert_eq!(texts("A B A B A B C"), ["(A B) x3", "C"]);
        assert_eq!(texts("L1 L2 L2 L2 L3"), ["L1", "L2 x3", "L3"]);
        assert_eq!(texts("A B C"), ["A", "B", "C"]);
        let long = ["L3 L4 L5"; 12].join(" ");
        assert_eq!(texts(&format!("L1 {long} L6")), ["L1", "(L3 L4 L5) x12", "L6"]);
    }

    #[test]
    fn each_thread_has_its_column_and_rows_follow_the_steps() {
        let threads = ["t1".to_owned(), "t2".to_owned()];
        let steps = [(0, "A"), (0, "B"), (1, "y"), (1, "y"), (0, "C")];
        assert_eq!(runs(&threads, &steps, None, ""), "#  t1   t2\n0  A B\n2       y x2\n4  C\n");
        // The failing step ends its row, marked; the run goes on in the next row.
        let steps = [(0, "A"), (0, "B"), (0, "C"), (1, "y")];
        assert_eq!(
            runs(&threads, &steps, Some(1), "  "),
            "  #  t1            t2\n  0  A B <- fails\n  2  C\n  3                y\n"
        );
    }
}
