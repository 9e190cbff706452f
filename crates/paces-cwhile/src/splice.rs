//! Source-preserving output: a transformed program written as its source text with only the
//! changed blocks rewritten, so that comments and layout stay where statements did not move.

use paces_constraint::BlockId;

use crate::ir::{Program, StmtId, StmtKind};
use crate::print::{shown_labels, Printer};

impl Printer<'_> {
    /// Writes the program, made from `original` by [`Program::apply`], as the source text
    /// `source` of `original` with the blocks whose items changed order or gained an atomic
    /// section rewritten: each statement keeps its own text, the comment lines above it (those
    /// above a block's first statement stay at the top of the block) and the comment at the
    /// end of its last line, and moves with them; an added section is an `atomic {` line and
    /// a `}` line around its statements, indented one level (two spaces) deeper. A statement
    /// gets a label where [`Printer::labels`] would print one that the source does not have
    /// (with the labels given to it, or none named when it is not set). Everything outside
    /// the rewritten blocks is the source's text, byte for byte.
    ///
    /// `None` when the source's layout does not allow it (a rewritten block whose statements
    /// do not each stand on lines of their own, a nested block written on one line), or when
    /// the text does not read back as the program (checked by parsing it and comparing the
    /// two programs printed with those labels): the caller then prints the program another
    /// way.
    #[must_use]
    pub fn splice(&self, source: &str, original: &Program) -> Option<String> {
        let (program, named) = self.parts();
        splice(source, original, program, named)
    }
}

/// [`Printer::splice`] of `changed` labelled by `named`: `source` (the text of `original`)
/// with the blocks of `changed` that differ from `original` rewritten, checked by reading it
/// back.
pub(crate) fn splice(source: &str, original: &Program, changed: &Program, named: &[&str]) -> Option<String> {
    if changed.threads.len() != original.threads.len() || changed.procs.len() != original.procs.len() {
        return None;
    }
    let splice = Splice::new(source, original, changed, named)?;
    let mut edits = Vec::new();
    for (t, o) in changed.threads.iter().zip(&original.threads) {
        splice.block(t.body, o.body, &mut edits)?;
    }
    for (q, o) in changed.procs.iter().zip(&original.procs) {
        splice.block(q.body, o.body, &mut edits)?;
    }
    let text = splice.apply(0, source.len(), &edits);
    let back = crate::parse(&text).ok()?;
    (Printer::new(&back).labels(named).print() == Printer::new(changed).labels(named).print()).then_some(text)
}

/// A replacement of the source's bytes `start..end`.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

struct Splice<'a> {
    source: &'a str,
    original: &'a Program,
    changed: &'a Program,
    /// Per statement of `changed`: whether its label is printed.
    shown: Vec<bool>,
}

impl<'a> Splice<'a> {
    fn new(source: &'a str, original: &'a Program, changed: &'a Program, named: &[&str]) -> Option<Self> {
        let shown = shown_labels(changed, named);
        let in_source = |s: &crate::ir::Stmt| (s.span.end as usize) <= source.len() && s.span.start < s.span.end;
        original.stmts.iter().all(in_source).then_some(Splice { source, original, changed, shown })
    }

    /// The original's statement a statement of `changed` is, or `None` for an added section.
    fn origin(&self, id: StmtId) -> Option<StmtId> {
        let s = &self.changed.stmts[id.index()];
        let o = self.original.stmt_at(self.original.loc(&s.label)?)?;
        (self.original.stmts[o.index()].span == s.span).then_some(o)
    }

    /// Whether `block` of `changed` (or a block inside it) differs from `ob`, its original.
    fn changed_deeply(&self, block: BlockId, ob: BlockId) -> bool {
        let items = &self.changed.blocks[block.index()].items;
        let before = &self.original.blocks[ob.index()].items;
        let same_items = items.len() == before.len()
            && items.iter().zip(before).all(|(&a, &b)| self.origin(a) == Some(b) && !self.relabelled(a));
        !same_items || items.iter().any(|&i| self.nested_pairs(i).into_iter().any(|(b, o)| self.changed_deeply(b, o)))
    }

    /// Whether a statement of `changed` gets a printed label its source text does not have.
    fn relabelled(&self, id: StmtId) -> bool {
        self.shown[id.index()] && !self.changed.stmts[id.index()].explicit_label
    }

    /// The blocks directly inside a statement of `changed`, each with the block in the same
    /// place of the statement's original (paired by position, so empty blocks pair too); none
    /// for an added section.
    fn nested_pairs(&self, id: StmtId) -> Vec<(BlockId, BlockId)> {
        let Some(o) = self.origin(id) else { return Vec::new() };
        let (changed, original) = (&self.changed.stmts[id.index()].kind, &self.original.stmts[o.index()].kind);
        if changed.blocks().count() != original.blocks().count() {
            return Vec::new();
        }
        changed.blocks().zip(original.blocks()).collect()
    }

    /// Adds the edits that rewrite `block` of `changed`, or of the blocks inside it.
    fn block(&self, block: BlockId, ob: BlockId, edits: &mut Vec<Edit>) -> Option<()> {
        if !self.changed_deeply(block, ob) {
            return Some(());
        }
        let before = &self.original.blocks[ob.index()].items;
        let (first, last) = (*before.first()?, *before.last()?);
        let start = self.chunk(first, None)?.0;
        let end = self.line_end(self.original.stmts[last.index()].span.end as usize)?;
        let text = self.items(&self.changed.blocks[block.index()].items, before, 0)?;
        edits.push(Edit { start, end, text });
        Some(())
    }

    /// The text of `items` of `changed` in their order, the statements of `before` (the
    /// original block) keeping their chunks, each line indented `extra` more spaces.
    fn items(&self, items: &[StmtId], before: &[StmtId], extra: usize) -> Option<String> {
        let mut lines: Vec<String> = Vec::new();
        for &id in items {
            match self.origin(id) {
                Some(o) => {
                    let prev = before.iter().position(|&b| b == o).and_then(|k| k.checked_sub(1)).map(|k| before[k]);
                    let (start, stmt_start) = self.chunk(o, prev)?;
                    let end = self.line_end(self.original.stmts[o.index()].span.end as usize)?;
                    let mut inner = Vec::new();
                    for (b, ob) in self.nested_pairs(id) {
                        self.block(b, ob, &mut inner)?;
                    }
                    if self.relabelled(id) {
                        let label = format!("{}: ", self.changed.stmts[id.index()].label);
                        inner.push(Edit { start: stmt_start, end: stmt_start, text: label });
                    }
                    let text = self.apply(start, end, &inner);
                    lines.extend(text.split('\n').map(|l| indent(l, extra)));
                }
                None => {
                    // An added section: its statements, one level deeper.
                    let StmtKind::Atomic(body) = self.changed.stmts[id.index()].kind else { return None };
                    let body_items = &self.changed.blocks[body.index()].items;
                    let first = self.origin(*body_items.first()?)?;
                    let at = self.line_start(self.stmt_start(first)?);
                    let pad: String = self.source[at..].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
                    let pad = indent(&pad, extra);
                    let label = if self.shown[id.index()] {
                        format!("{}: ", self.changed.stmts[id.index()].label)
                    } else {
                        String::new()
                    };
                    lines.push(format!("{pad}{label}atomic {{"));
                    lines.push(self.items(body_items, before, extra + 2)?);
                    lines.push(format!("{pad}}}"));
                }
            }
        }
        Some(lines.join("\n"))
    }

    /// Where the chunk of statement `o` starts (the first comment line above it after `prev`,
    /// the statement before it in its block, or the line of its own start) and where its text
    /// (its label, if written) starts; `None` when something other than blanks stands before
    /// it on its line.
    fn chunk(&self, o: StmtId, prev: Option<StmtId>) -> Option<(usize, usize)> {
        let at = self.stmt_start(o)?;
        let line = self.line_start(at);
        if !self.source[line..at].chars().all(|c| c == ' ' || c == '\t') {
            return None;
        }
        let floor = match prev {
            Some(p) => self.line_end(self.original.stmts[p.index()].span.end as usize)? + 1,
            None => line,
        };
        Some((floor.min(line), at))
    }

    /// Where statement `o`'s text starts: its written label, or its span.
    fn stmt_start(&self, o: StmtId) -> Option<usize> {
        let s = &self.original.stmts[o.index()];
        let start = s.span.start as usize;
        if !s.explicit_label {
            return Some(start);
        }
        let before = self.source[..start].trim_end();
        let before = before.strip_suffix(':')?.trim_end();
        let label_start = before.len().checked_sub(s.label.len())?;
        (before.get(label_start..)? == s.label).then_some(label_start)
    }

    fn line_start(&self, at: usize) -> usize {
        self.source[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// The end of the line `at` lies on (before its newline), when only blanks or a `//`
    /// comment follow `at` there.
    fn line_end(&self, at: usize) -> Option<usize> {
        let end = self.source[at..].find('\n').map_or(self.source.len(), |i| at + i);
        let rest = self.source[at..end].trim();
        (rest.is_empty() || rest.starts_with("//")).then_some(end)
    }

    /// The source's bytes `start..end` with `edits` (inside that range, not overlapping)
    /// applied.
    fn apply(&self, start: usize, end: usize, edits: &[Edit]) -> String {
        let mut sorted: Vec<&Edit> = edits.iter().filter(|e| e.start >= start && e.end <= end).collect();
        sorted.sort_by_key(|e| (e.start, e.end));
        let mut out = String::new();
        let mut at = start;
        for e in sorted {
            if e.start < at {
                continue;
            }
            out.push_str(&self.source[at..e.start]);
            out.push_str(&e.text);
            at = e.end;
        }
        out.push_str(&self.source[at..end]);
        out
    }
}

/// `line` with `extra` more spaces in front, unless it is empty.
fn indent(line: &str, extra: usize) -> String {
    if line.trim().is_empty() || extra == 0 {
        line.to_owned()
    } else {
        format!("{}{line}", " ".repeat(extra))
    }
}
