//! Traces as text charts, one column per thread: [`columns`] draws every step on a row of its
//! own with its statement (`paces check`, `paces traces`); [`runs`] draws each run of
//! consecutive steps of one thread on one row, with what repeats shortened (`(L3 L4 L5) x12`;
//! the iterations of `paces repair --verbose`).

use paces::cwhile::ir::Program;
use paces::explore::Schedule;
use paces::trace::Trace;

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
/// step, numbered from 0, each step as its label and its text (`A  x := 1`). The step at index `failing` is marked `<- fails` (for a trace,
/// `None` marks its first failed event); a trace's blocked steps (a deadlock) follow, marked
/// `(blocked)`.
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
    // Rows: (thread index, label, mark).
    let mut rows: Vec<(usize, String, &str)> = Vec::new();
    let name =
        |loc: paces::constraint::Loc| program.loc_names.get(loc.index()).cloned().unwrap_or_else(|| format!("{loc}"));
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
