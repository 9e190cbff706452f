//! The changed blocks of a C source laid out again so that a change can be written into them:
//! each statement of such a block on its own line (an inline `{ ... }` body becomes a
//! multi-line one), and a `for` loop the reader unrolled written as its copies where the change
//! parts them (`unroll.rs`). Line breaks between tokens mean nothing to C, so the new text is
//! the same program up to labels, which [`remap`] checks before the change is written into it.

use paces_cwhile::ir::{StmtId, VarIdx};
use paces_cwhile::Program;

use super::{Edit, Placed, Splice};

/// A `{ ... }` of the source: the offsets of its braces.
#[derive(Clone, Copy)]
pub(super) struct Braces {
    pub(super) open: usize,
    pub(super) close: usize,
}

/// What of the original a re-laid-out text no longer holds: an unrolled loop's counter
/// assignments that nothing reads, and the counter itself when the loop declared it.
#[derive(Default)]
pub(super) struct Dropped {
    pub(super) stmts: Vec<StmtId>,
    pub(super) locals: Vec<VarIdx>,
}

/// What the re-layout of one block needs to know of it.
pub(super) struct Body {
    pub(super) braces: Braces,
    /// Its statements (the items of the C block, declarations included), each `start..end`:
    /// from its first code to the end of its last (its `;` or `}`).
    pub(super) stmts: Vec<(usize, usize)>,
    /// The indentation of its statements.
    pub(super) indent: String,
}

impl Splice<'_> {
    /// The source with the blocks of `targets` (each block's items now and in the original)
    /// laid out again, and what of the original the new text no longer holds.
    pub(super) fn relayout(&self, targets: &[(Vec<Placed>, Vec<StmtId>)]) -> Option<(String, Dropped)> {
        let pairs = self.brace_pairs();
        let mut edits = Vec::new();
        let mut dropped = Dropped::default();
        let mut done = Vec::new();
        for (flat, old) in targets {
            let mut first = usize::MAX;
            for &o in old {
                first = first.min(self.written(o)?.0);
            }
            // The innermost braces around the block's first statement.
            let braces = pairs.iter().filter(|b| b.open < first && first < b.close).max_by_key(|b| b.open)?;
            let body = self.body(*braces)?;
            // A section or region and the block around it share their braces: split once.
            if !done.contains(&braces.open) {
                done.push(braces.open);
                self.split(&body, &mut edits)?;
            }
            self.unroll_parted(flat, old, &body, &mut edits, &mut dropped)?;
        }
        let text = self.apply(0, self.source.len(), &mut edits)?;
        Some((text, dropped))
    }

    /// Every pair of matching braces of the code, outside string and character literals;
    /// none when they do not match.
    fn brace_pairs(&self) -> Vec<Braces> {
        let b = self.code.as_bytes();
        let (mut open, mut pairs, mut i) = (Vec::new(), Vec::new(), 0);
        while i < b.len() {
            match b[i] {
                b'"' | b'\'' => i = literal_end(b, i),
                b'{' => open.push(i),
                b'}' => match open.pop() {
                    Some(o) => pairs.push(Braces { open: o, close: i }),
                    None => return Vec::new(),
                },
                _ => {}
            }
            i += 1;
        }
        pairs
    }

    /// The statements of the block inside `braces` and their indentation; `None` when a
    /// preprocessor line stands inside it.
    fn body(&self, braces: Braces) -> Option<Body> {
        let inside = self.code.get(braces.open + 1..braces.close)?;
        if inside.lines().any(|l| l.trim_start().starts_with('#')) {
            return None;
        }
        let stmts = statements(&self.code, braces.open + 1, braces.close);
        let own = stmts.iter().find(|&&(s, _)| self.alone(s)).map(|&(s, _)| self.indent_at(s));
        let indent = own.unwrap_or_else(|| format!("{}{}", self.indent_at(braces.open), self.unit()));
        Some(Body { braces, stmts, indent })
    }

    /// The line breaks that put each statement of `body` and its closing brace on a line of
    /// their own: each replaces the blanks before a statement (or the brace) that has code
    /// before it on its line. Comments stay where they stand.
    fn split(&self, body: &Body, edits: &mut Vec<Edit>) -> Option<()> {
        for &(s, _) in &body.stmts {
            if !self.alone(s) {
                edits.push(self.break_before(s, &body.indent));
            }
        }
        let close = body.braces.close;
        if !self.alone(close) {
            edits.push(self.break_before(close, &self.indent_at(body.braces.open)));
        }
        Some(())
    }

    /// The edit that starts a new line at `at`, indented by `indent`.
    fn break_before(&self, at: usize, indent: &str) -> Edit {
        let blanks = self.source[..at].len() - self.source[..at].trim_end_matches([' ', '\t']).len();
        Edit { start: at - blanks, end: at, text: format!("\n{indent}") }
    }

    /// Whether only blanks and comments stand before `at` on its line.
    pub(super) fn alone(&self, at: usize) -> bool {
        self.code.get(self.line_start(at)..at).is_some_and(|c| c.trim().is_empty())
    }

    /// The blanks that start the line `at` stands on.
    pub(super) fn indent_at(&self, at: usize) -> String {
        let line = &self.source[self.line_start(at)..];
        line[..line.len() - line.trim_start_matches([' ', '\t']).len()].to_owned()
    }

    /// One level of indentation as the source writes it: the blanks of its first indented
    /// line of code, four spaces when it has none.
    fn unit(&self) -> String {
        for (code, line) in self.code.split_inclusive('\n').zip(self.source.split_inclusive('\n')) {
            let blanks = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
            if !blanks.is_empty() && code.get(blanks.len()..).is_some_and(|c| !c.trim().is_empty()) {
                return blanks.to_owned();
            }
        }
        "    ".to_owned()
    }
}

/// The offset of the quote that closes the string or character literal opening at `i`.
pub(super) fn literal_end(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != quote && b[j] != b'\n' {
        j += usize::from(b[j] == b'\\') + 1;
    }
    j.min(b.len().saturating_sub(1))
}

/// The statements of `code[from..to]` (a block's inside), each `start..end`: a statement ends
/// with a `;` or with the `}` of a block it opened, outside parentheses and brackets, unless
/// `else`, `while` (of a `do`), `;`, `,` or `)` follows.
pub(super) fn statements(code: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut depth, mut i) = (None, 0usize, from);
    // Whether each `{` open at depth 0 of the statement opened a block of statements.
    let mut block = false;
    while i < to {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let first = *start.get_or_insert(i);
        let mut ends = false;
        match c {
            b'"' | b'\'' => i = literal_end(b, i),
            b'(' | b'[' => depth += 1,
            b'{' => {
                if depth == 0 {
                    let prev = code[first..i].trim_end();
                    block = prev.is_empty()
                        || prev.ends_with([')', ';', '}', ':'])
                        || ends_word(prev, "else")
                        || ends_word(prev, "do");
                }
                depth += 1;
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            b'}' => {
                depth = depth.saturating_sub(1);
                ends = depth == 0 && block && !continued(&code[i + 1..to], true);
            }
            b';' => ends = depth == 0 && !continued(&code[i + 1..to], false),
            _ => {}
        }
        i += 1;
        if ends {
            out.push((first, i));
            start = None;
        }
    }
    if let Some(first) = start {
        out.push((first, first + code[first..to].trim_end().len()));
    }
    out
}

/// Whether `text` ends with the word `word`.
fn ends_word(text: &str, word: &str) -> bool {
    text.strip_suffix(word).is_some_and(|t| !t.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
}

/// Whether the statement goes on after a `;` (or a block's `}`) followed by `rest`: an `else`,
/// or after a `}` a `while`, `;`, `,` or `)`.
fn continued(rest: &str, brace: bool) -> bool {
    let rest = rest.trim_start();
    let word =
        |w: &str| rest.strip_prefix(w).is_some_and(|t| !t.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'));
    word("else") || (brace && (word("while") || rest.starts_with([';', ',', ')'])))
}

/// `changed` for the text `back` reads as: each statement that is one of `original` takes the
/// label and span of the same statement of `back`, and the statements made from `dropped`
/// (what of `original` the text no longer holds) are left out. `None` unless `back` is
/// `original` without `dropped`, up to labels.
pub(super) fn remap(original: &Program, changed: &Program, back: &Program, dropped: &Dropped) -> Option<Program> {
    let mut parts = original.clone().into_parts();
    for b in &mut parts.blocks {
        b.items.retain(|i| !dropped.stmts.contains(i));
    }
    without_locals(&mut parts, &dropped.locals);
    let expected = Program::new(parts);
    if super::unlabelled(&expected) != super::unlabelled(back) {
        return None;
    }
    let mut pairs = vec![None; expected.stmts.len()];
    if expected.threads.len() != back.threads.len() || expected.procs.len() != back.procs.len() {
        return None;
    }
    let bodies = expected.threads.iter().map(|t| t.body).chain(expected.procs.iter().map(|q| q.body));
    let again = back.threads.iter().map(|t| t.body).chain(back.procs.iter().map(|q| q.body));
    for (a, b) in bodies.zip(again) {
        pair(&expected, back, a, b, &mut pairs)?;
    }
    let mut parts = changed.clone().into_parts();
    let mut gone = Vec::new();
    for (k, s) in parts.stmts.iter_mut().enumerate() {
        let Some(o) = StmtId::new(k).and_then(|id| super::origin(original, changed, id)) else { continue };
        if dropped.stmts.contains(&o) {
            gone.push(StmtId::new(k)?);
            continue;
        }
        let now = back.stmts.get(pairs.get(o.index()).copied().flatten()?.index())?;
        s.label.clone_from(&now.label);
        s.span = now.span;
    }
    for b in &mut parts.blocks {
        b.items.retain(|i| !gone.contains(i));
    }
    without_locals(&mut parts, &dropped.locals);
    Some(Program::new(parts))
}

/// Takes `locals` out of every thread's and procedure's list of locals.
fn without_locals(parts: &mut paces_cwhile::ir::Parts, locals: &[VarIdx]) {
    for list in parts.threads.iter_mut().map(|t| &mut t.locals).chain(parts.procs.iter_mut().map(|q| &mut q.locals)) {
        list.retain(|v| !locals.contains(v));
    }
}

/// Pairs the statements of block `a` of `p` with those of block `b` of `q` (the same program
/// up to labels), item by item and inside them.
fn pair(
    p: &Program,
    q: &Program,
    a: paces_constraint::BlockId,
    b: paces_constraint::BlockId,
    out: &mut [Option<StmtId>],
) -> Option<()> {
    let (xs, ys) = (&p.blocks.get(a.index())?.items, &q.blocks.get(b.index())?.items);
    if xs.len() != ys.len() {
        return None;
    }
    for (&x, &y) in xs.iter().zip(ys) {
        *out.get_mut(x.index())? = Some(y);
        let (kx, ky) = (&p.stmts.get(x.index())?.kind, &q.stmts.get(y.index())?.kind);
        if kx.blocks().count() != ky.blocks().count() {
            return None;
        }
        for (bx, by) in kx.blocks().zip(ky.blocks()) {
            pair(p, q, bx, by, out)?;
        }
    }
    Some(())
}
