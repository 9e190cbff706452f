//! The rows a trace is shown in. A Cwhile program's trace shows each step on a row of its own,
//! named by its location (`37`, `24.wait`) and shown by its Cwhile text. A program a frontend
//! read from C has a source statement for every step ([`Program::source_step`]): its trace is
//! shown in the user's terms, each row named by the statement's line and shown by its text,
//! and the consecutive steps of one thread that belong to one statement (the temporaries of
//! `hits = hits + 1`, a lock's wait and set, a `for`'s counter and guard) on one row; the
//! steps of different copies of an unrolled loop's body are different rows.

use paces::cwhile::ir::Program;

/// A row of a shown trace: one step, or (for a C program) consecutive steps of one thread
/// that belong to one statement of the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    /// The thread that took the steps.
    pub(crate) thread: usize,
    /// The index of the row's first step.
    pub(crate) first: usize,
    /// What the row is named by: the step's location name, or for a C program the line.
    pub(crate) label: String,
    /// The statement's line, for a C program.
    pub(crate) line: Option<u32>,
    /// The step's text: the statement as its source writes it, or its Cwhile text; empty for
    /// a label that is no location of the program.
    pub(crate) text: String,
    /// The location names of the row's steps, in order.
    pub(crate) labels: Vec<String>,
}

/// The rows of `steps` (each its thread and location name) of `program`. A row never goes on
/// past a step `ends` holds true for (the failing step, the last step that ran).
pub(crate) fn rows(program: &Program, steps: &[(usize, &str)], ends: impl Fn(usize) -> bool) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::with_capacity(steps.len());
    // The statement the last row's steps belong to (its start in the source, and the copy of
    // an unrolled loop's body), while it may go on.
    let mut open: Option<(usize, u32, Option<&str>)> = None;
    for (i, &(thread, label)) in steps.iter().enumerate() {
        let loc = program.loc(label);
        let source = loc.and_then(|l| program.source_step(l));
        let key = source.map(|s| (thread, s.start, s.copy.as_deref()));
        match (rows.last_mut(), key) {
            (Some(row), Some(key)) if open == Some(key) => row.labels.push(label.to_owned()),
            _ => rows.push(Row {
                thread,
                first: i,
                label: source.map_or_else(|| label.to_owned(), |s| s.line.to_string()),
                line: source.map(|s| s.line),
                text: loc.and_then(|l| program.step_text(l)).unwrap_or_default(),
                labels: vec![label.to_owned()],
            }),
        }
        open = if ends(i) { None } else { key };
    }
    rows
}

/// For each step, the index of its row among `rows` (made of as many steps).
pub(crate) fn row_of(rows: &[Row], steps: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(steps);
    for (r, row) in rows.iter().enumerate() {
        out.extend(std::iter::repeat_n(r, row.labels.len()));
    }
    debug_assert_eq!(out.len(), steps);
    out
}
