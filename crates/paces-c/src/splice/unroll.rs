//! A `for` loop the reader unrolled (`for (i = 0; i < 2; i++) pthread_join(t[i], 0);`, one copy
//! of the body per iteration with `i` a constant in each) written unrolled in C where a change
//! parts its copies: each copy is the body's text with the counter replaced by its value.

use paces_cwhile::ir::{Expr, StmtId, StmtKind};

use super::relayout::{statements, Body, Dropped};
use super::{Edit, Placed, Splice};

/// A `for` statement's text, split: `for (init; cond; step) body`.
struct Header<'t> {
    /// The counter the initialiser sets (`i` of `i = 0` or of `int i = 0`).
    counter: &'t str,
    /// Whether the initialiser declares it.
    declared: bool,
    /// The body, from its first code to its end.
    body: (usize, usize),
}

impl Splice<'_> {
    /// Adds, for each `for` statement of `body` whose items (of the original's `old`) the
    /// block's items now (`flat`) part, the edit that writes it unrolled, and what of the
    /// original the unrolled text leaves out to `dropped`; `None` when such a loop cannot be
    /// written unrolled.
    pub(super) fn unroll_parted(
        &self,
        flat: &[Placed],
        old: &[StmtId],
        body: &Body,
        edits: &mut Vec<Edit>,
        dropped: &mut Dropped,
    ) -> Option<()> {
        for &(s, e) in &body.stmts {
            if !self.code[s..e].starts_with("for")
                || self.code[s + 3..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let mut items = Vec::new();
            for &o in old {
                let (start, _) = self.written(o)?;
                if (s..e).contains(&start) {
                    items.push(o);
                }
            }
            if items.len() < 2 || !parted(flat, &items) {
                continue;
            }
            let indent = if self.alone(s) { self.indent_at(s) } else { body.indent.clone() };
            let text = self.unrolled(s, e, flat, &items, &indent, dropped)?;
            edits.push(Edit { start: s, end: e, text });
        }
        Some(())
    }

    /// The text of the `for` statement `s..e` unrolled (its lines joined by a line break and
    /// `indent`), whose items are `items`; adds what of them the text leaves out to `dropped`:
    /// the counter's first assignment, its last one unless something reads the counter, and a
    /// counter the loop declares.
    fn unrolled(
        &self,
        s: usize,
        e: usize,
        flat: &[Placed],
        items: &[StmtId],
        indent: &str,
        dropped: &mut Dropped,
    ) -> Option<String> {
        let header = self.header(s, e)?;
        let (&first, &last) = (items.first()?, items.last()?);
        let (var, from) = self.counter_set(first)?;
        let (again, to) = self.counter_set(last)?;
        if var != again || to <= from || to - from > 64 {
            return None;
        }
        // Anything but the loop's own two assignments reading the counter.
        let read = (0..self.original.stmts.len())
            .filter_map(StmtId::new)
            .any(|id| id != first && id != last && self.original.reads(id).contains(&var));
        let at = |id: StmtId| flat.iter().position(|p| p.origin == id);
        let (one, two) = (at(first)?, at(last)?);
        // The first assignment stays when something between the two reads the counter.
        let early = flat.get(one + 1..two).unwrap_or(&[]).iter().any(|p| self.original.reads(p.origin).contains(&var));
        if header.declared {
            // Only the loop sees its own counter.
            if read || early {
                return None;
            }
            dropped.locals.push(var);
        }
        let mut lines = Vec::new();
        let gone = &mut dropped.stmts;
        if early {
            lines.push(format!("{} = {from};", header.counter));
        } else {
            gone.push(first);
        }
        let (bs, be) = header.body;
        let inner = if self.code[bs..be].starts_with('{') { (bs + 1, be - 1) } else { (bs, be) };
        for k in from..to {
            for (a, b) in statements(&self.code, inner.0, inner.1) {
                lines.push(self.substituted(a, b, header.counter, k));
            }
        }
        if read {
            lines.push(format!("{} = {to};", header.counter));
        } else {
            gone.push(last);
        }
        Some(lines.join(&format!("\n{indent}")))
    }

    /// The variable an assignment of a constant sets, and the constant.
    fn counter_set(&self, id: StmtId) -> Option<(paces_cwhile::ir::VarIdx, i64)> {
        match &self.original.stmts.get(id.index())?.kind {
            StmtKind::Assign { var, expr: Expr::Int(v) } => Some((*var, *v)),
            _ => None,
        }
    }

    /// The parts of the `for` statement `s..e` that its unrolling needs; `None` unless its
    /// initialiser sets one variable (`i = 0`, `int i = 0`).
    fn header(&self, s: usize, e: usize) -> Option<Header<'_>> {
        let code = self.code.get(s..e)?;
        let open = s + code.find('(')?;
        if !self.code[s + 3..open].trim().is_empty() {
            return None;
        }
        let b = self.code.as_bytes();
        let (mut depth, mut semis, mut i) = (0usize, Vec::new(), open);
        let close = loop {
            match *b.get(i)? {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break i;
                    }
                }
                b';' if depth == 1 => semis.push(i),
                _ => {}
            }
            i += 1;
        };
        let [init, _] = semis[..] else { return None };
        let (name, _) = self.code[open + 1..init].split_once('=')?;
        let words: Vec<&str> = name.split_whitespace().collect();
        let word = |w: &&str| w.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
        let counter = *words.last()?;
        if !words.iter().all(word) {
            return None;
        }
        let rest = &self.code[close + 1..e];
        let body = close + 1 + (rest.len() - rest.trim_start().len());
        Some(Header { counter, declared: words.len() > 1, body: (body, e) })
    }

    /// The source's statement `a..b` with each use of the identifier `counter` written `value`.
    fn substituted(&self, a: usize, b: usize, counter: &str, value: i64) -> String {
        let code = &self.code[a..b];
        let bytes = code.as_bytes();
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut out = String::new();
        let mut at = 0;
        let mut from = 0;
        while let Some(k) = code[from..].find(counter).map(|k| k + from) {
            let end = k + counter.len();
            let before = code[..k].trim_end();
            let alone = (k == 0 || !word(bytes[k - 1]))
                && bytes.get(end).is_none_or(|&c| !word(c))
                && !before.ends_with('.')
                && !before.ends_with("->");
            if alone {
                out.push_str(&self.source[a + at..a + k]);
                out.push_str(&value.to_string());
                at = end;
            }
            from = end;
        }
        out.push_str(&self.source[a + at..b]);
        out
    }
}

/// Whether `flat` parts `items` (in their order in the original): they do not stand together
/// in that order, or a section starts or ends among them.
fn parted(flat: &[Placed], items: &[StmtId]) -> bool {
    let Some(at) = flat.iter().position(|p| Some(&p.origin) == items.first()) else { return true };
    let Some(run) = flat.get(at..at + items.len()) else { return true };
    let n = items.len();
    !run.iter()
        .zip(items)
        .enumerate()
        .all(|(i, (p, &o))| p.origin == o && (i == 0 || !p.opens) && (i + 1 == n || !p.closes))
}
