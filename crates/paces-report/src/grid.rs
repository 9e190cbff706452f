//! The one layout of a trace chart ([`Grid`]): a column per thread, a row per step in the
//! order the steps ran (a deadlock's blocked steps last), each cell its step's label and text,
//! the texts of a column aligned. The text chart ([`crate::text_chart::columns`]) prints it;
//! the SVG chart ([`crate::chart`]) draws it, a character of the grid standing for a fixed
//! width of its monospace font.

use crate::TraceChart;

/// How a step's text that is longer than the limit is fitted into its cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fit {
    /// Cut to that many characters, its end replaced by `...` (the text chart: one line per
    /// step).
    Shorten(usize),
    /// Wrapped into lines of at most that many characters, at spaces where it can (the SVG
    /// chart: nothing is cut).
    Wrap(usize),
}

/// What a row's step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    Plain,
    /// The failing step.
    Fails,
    /// A step a deadlocked thread cannot take.
    Blocked,
}

/// A thread's column: its name and its width in characters (the widest of its name and its
/// cells' lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Column {
    pub(crate) name: String,
    pub(crate) width: usize,
}

/// A step's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    /// The step (an index into the chart's steps).
    pub(crate) step: usize,
    /// Its thread's column.
    pub(crate) column: usize,
    /// Its number among the executed steps, from 0; `None` for a blocked step.
    pub(crate) number: Option<usize>,
    /// The cell's lines: the label, padded to the column's widest label, two spaces and the
    /// text (the text's further lines indented as far).
    pub(crate) lines: Vec<String>,
    pub(crate) mark: Mark,
}

/// The layout of a chart: its columns and its rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    pub(crate) columns: Vec<Column>,
    pub(crate) rows: Vec<Row>,
}

impl Grid {
    /// The layout of `chart`, its texts fitted by `fit`; the row of step `failing` (by
    /// default the chart's first failing step that ran) is marked as failing.
    pub(crate) fn new(chart: &TraceChart, failing: Option<usize>, fit: Fit) -> Grid {
        let steps = &chart.steps;
        let failing = failing.or_else(|| chart.failing.iter().copied().filter(|&i| !steps[i].blocked).min());
        let n = chart.threads.len().max(steps.iter().map(|s| s.thread + 1).max().unwrap_or(0));
        let mut label_width = vec![0; n];
        for s in steps {
            label_width[s.thread] = label_width[s.thread].max(s.label.chars().count());
        }
        let mut number = 0;
        let rows: Vec<Row> = steps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let lines = cell(&s.label, &s.text, label_width[s.thread], fit);
                let mark = if s.blocked {
                    Mark::Blocked
                } else if Some(i) == failing {
                    Mark::Fails
                } else {
                    Mark::Plain
                };
                let numbered = (!s.blocked).then_some(number);
                number += usize::from(!s.blocked);
                Row { step: i, column: s.thread, number: numbered, lines, mark }
            })
            .collect();
        let mut columns: Vec<Column> = (0..n)
            .map(|t| {
                let name = chart.threads.get(t).cloned().unwrap_or_else(|| "?".to_owned());
                Column { width: name.chars().count(), name }
            })
            .collect();
        for r in &rows {
            let widest = r.lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
            columns[r.column].width = columns[r.column].width.max(widest);
        }
        Grid { columns, rows }
    }

    /// The grid as text: a header of thread names under `#`, then a line per row, numbered
    /// (`-` for a blocked step), each cell padded to its column's width and two spaces apart,
    /// the failing row ending in `<- fails`, a blocked one in `(blocked)`; no line ends in a
    /// space. A cell of more than one line continues on lines of its own.
    pub(crate) fn text(&self) -> String {
        let numw = self.rows.len().saturating_sub(1).to_string().len().max(1);
        let mut out = String::new();
        let line = |out: &mut String, number: &str, cells: &dyn Fn(usize) -> String, mark: &str| {
            let mut s = format!("{number:<numw$}");
            for (t, c) in self.columns.iter().enumerate() {
                s.push_str(&format!("  {:<w$}", cells(t), w = c.width));
            }
            if !mark.is_empty() {
                s.push_str("  ");
                s.push_str(mark);
            }
            out.push_str(s.trim_end_matches(' '));
            out.push('\n');
        };
        line(&mut out, "#", &|t| self.columns[t].name.clone(), "");
        for r in &self.rows {
            let number = r.number.map_or_else(|| "-".to_owned(), |k| k.to_string());
            let mark = match r.mark {
                Mark::Plain => "",
                Mark::Fails => "<- fails",
                Mark::Blocked => "(blocked)",
            };
            for (k, text) in r.lines.iter().enumerate() {
                let (number, mark) = if k == 0 { (number.as_str(), mark) } else { ("", "") };
                line(&mut out, number, &|t| if t == r.column { text.clone() } else { String::new() }, mark);
            }
        }
        out
    }
}

/// `text` in at most `width` characters, cut with `...` where longer; the copy of an
/// unrolled loop's body a C step shows after its text (`  [i = 0]`) is kept whole after the
/// text, beyond the width.
fn shorten(text: &str, width: usize) -> String {
    let (body, copy) = match text.rfind("  [") {
        Some(at) if text.ends_with(']') => text.split_at(at),
        _ => (text, ""),
    };
    if body.chars().count() <= width {
        return text.to_owned();
    }
    body.chars().take(width.saturating_sub(3)).chain("...".chars()).chain(copy.chars()).collect()
}

/// A cell's lines: `label` alone when `text` is empty, else the label padded to `label_width`,
/// two spaces and the text fitted by `fit`.
fn cell(label: &str, text: &str, label_width: usize, fit: Fit) -> Vec<String> {
    if text.is_empty() {
        return vec![label.to_owned()];
    }
    let pad = label_width.saturating_sub(label.chars().count());
    let head = format!("{label}{:pad$}  ", "");
    match fit {
        Fit::Shorten(width) => vec![format!("{head}{}", shorten(text, width))],
        Fit::Wrap(width) => {
            let indent = " ".repeat(head.chars().count());
            wrap(text, width)
                .into_iter()
                .enumerate()
                .map(|(k, l)| format!("{}{l}", if k == 0 { &head } else { &indent }))
                .collect()
        }
    }
}

/// `text` in lines of at most `width` characters (at least one), broken after spaces where
/// a line can end there, else inside a word; every character kept, in order.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let chars: Vec<char> = text.chars().collect();
    let mut lines = Vec::new();
    let mut start = 0;
    while chars.len() - start > width {
        let window = &chars[start..start + width + 1];
        // The last space that a line can end after (the space stays on the line it ends).
        let cut = window[..width].iter().rposition(|&c| c == ' ').filter(|&p| p > 0).map_or(width, |p| p + 1);
        lines.push(chars[start..start + cut].iter().collect::<String>().trim_end().to_owned());
        start += cut;
    }
    lines.push(chars[start..].iter().collect());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChartStep;

    fn chart(steps: &[(usize, &str, &str, bool)]) -> TraceChart {
        let mut c = TraceChart::default();
        c.threads = vec!["a".to_owned(), "bb".to_owned()];
        for &(thread, label, text, blocked) in steps {
            c.steps.push(ChartStep::new(thread, label, text, blocked));
        }
        c
    }

    #[test]
    fn wrapping_keeps_every_character_within_the_width() {
        let text = "assert(want_mtx == 0 || sem == 1 || mtx == 0)";
        let lines = wrap(text, 16);
        assert!(lines.iter().all(|l| l.chars().count() <= 16), "{lines:?}");
        assert_eq!(lines.join(" "), text);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("short", 40), ["short"]);
    }

    #[test]
    fn shortening_keeps_an_unrolled_copy() {
        let text = "pthread_create(&t[i], 0, worker, 0)  [i = 1]";
        assert_eq!(shorten(text, 35), text);
        assert_eq!(shorten(text, 20), "pthread_create(&t...  [i = 1]");
        assert_eq!(shorten("x := a[1] + a[2] + a[3]", 12), "x := a[1]...");
    }

    #[test]
    fn one_grid_two_fits() {
        let long = "x := aaaaaaaaaa + bbbbbbbbbb + cccccccccc + dddddddddd";
        let c = chart(&[(0, "A", "x := 1", false), (1, "B1", long, false), (0, "A2", "", true)]);
        let text = Grid::new(&c, Some(1), Fit::Shorten(20)).text();
        assert_eq!(
            text,
            "#  a           bb\n\
             0  A   x := 1\n\
             1              B1  x := aaaaaaaaaa +...  <- fails\n\
             -  A2                                    (blocked)\n"
        );
        let wrapped = Grid::new(&c, Some(1), Fit::Wrap(20));
        let row = &wrapped.rows[1];
        assert_eq!(row.lines[0], "B1  x := aaaaaaaaaa +");
        assert!(row.lines.iter().all(|l| !l.ends_with("...")));
        let joined: Vec<&str> = row.lines.iter().map(|l| l.trim()).collect();
        assert_eq!(joined.join(" "), format!("B1  {long}"));
        assert_eq!(wrapped.columns[1].width, row.lines.iter().map(|l| l.chars().count()).max().unwrap());
        assert_eq!(wrapped.rows[2].number, None);
    }
}
