//! Diagnostics: plain data in the library, rendered in one place ([`render`]).

use std::fmt;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label as CsLabel};
use codespan_reporting::term::{self, termcolor::Ansi, Config};

use crate::ir::Span;
use crate::snippet::{self, Snippet};

/// One error found in a Cwhile program.
///
/// Codes are stable: `E00xx` for lexical and syntax errors, `E01xx` for the static checks.
/// `docs/language.md` lists them all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code, such as `"E0101"`.
    pub code: &'static str,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The source range the error points at (byte offsets).
    pub primary: Span,
    /// The text shown under the primary range.
    pub label: String,
    /// Further explanations, each printed as `= note`.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub(crate) fn new(code: &'static str, message: impl Into<String>, primary: Span, label: impl Into<String>) -> Self {
        Diagnostic { code, message: message.into(), primary, label: label.into(), notes: Vec::new() }
    }

    pub(crate) fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The 1-based line and column (in characters) of the primary range's start in `source`.
    /// An offset past the end counts as the end of the source.
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        line_col(source, self.primary.start as usize)
    }
}

/// The 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..crate::snippet::clamp(source, offset)];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {} (bytes {}..{})", self.code, self.message, self.primary.start, self.primary.end)
    }
}

/// The errors of one program: never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Wraps a list; `None` when it is empty.
    pub fn new(list: Vec<Diagnostic>) -> Option<Diagnostics> {
        if list.is_empty() {
            None
        } else {
            Some(Diagnostics { list })
        }
    }

    pub(crate) fn one(d: Diagnostic) -> Diagnostics {
        Diagnostics { list: vec![d] }
    }

    /// The diagnostics in the order they were found (source order within each phase).
    pub fn as_slice(&self) -> &[Diagnostic] {
        &self.list
    }

    /// Iterates over the diagnostics.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.list.iter()
    }

    /// How many there are (at least one).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Always `false`: a `Diagnostics` holds at least one diagnostic.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The stable codes, in order (handy in tests).
    pub fn codes(&self) -> Vec<&'static str> {
        self.list.iter().map(|d| d.code).collect()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.list.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// The most diagnostics [`render`] shows; a line says how many more there are.
pub const MAX_RENDERED: usize = 100;

/// Renders diagnostics with the source line and a caret under the primary range, as the
/// command line shows them (`color` adds ANSI colours). This is the workspace's one renderer.
///
/// The output is bounded whatever the input: a snippet shows one line, shortened around the
/// error with `…` where it is cut; control characters of the source, the file name and the
/// messages are escaped (so a file cannot send terminal escapes); messages and notes are cut
/// at 200 characters; at most [`MAX_RENDERED`] diagnostics are shown.
pub fn render(diags: &Diagnostics, file_name: &str, source: &str, color: bool) -> String {
    let name = snippet::text(file_name);
    let mut out = String::new();
    for d in diags.iter().take(MAX_RENDERED) {
        let snippet = Snippet::new(&name, source, d.primary, d.line_col(source));
        match render_one(d, &snippet, color) {
            Some(text) => out.push_str(&text),
            None => {
                let (line, col) = d.line_col(source);
                out.push_str(&format!(
                    "error[{}]: {}\n --> {name}:{line}:{col}\n\n",
                    d.code,
                    snippet::text(&d.message)
                ));
            }
        }
    }
    if diags.len() > MAX_RENDERED {
        out.push_str(&format!("... and {} more errors not shown\n\n", diags.len() - MAX_RENDERED));
    }
    out
}

/// One diagnostic with its snippet; `None` when the renderer fails.
fn render_one(d: &Diagnostic, snippet: &Snippet<'_>, color: bool) -> Option<String> {
    let config = Config::default();
    let cs = CsDiagnostic::error()
        .with_code(d.code)
        .with_message(snippet::text(&d.message))
        .with_labels(vec![CsLabel::primary((), snippet.primary()).with_message(snippet::text(&d.label))])
        .with_notes(d.notes.iter().map(|n| snippet::text(n)).collect());
    if color {
        let mut ansi = Ansi::new(Vec::new());
        term::emit_to_write_style(&mut ansi, &config, snippet, &cs)
            .ok()
            .map(|()| String::from_utf8_lossy(&ansi.into_inner()).into_owned())
    } else {
        term::emit_into_string(&config, snippet, &cs).ok()
    }
}
