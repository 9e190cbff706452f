//! Source-preserving output for C models: a transformed program written as its C source with
//! only the blocks whose items changed order or gained an atomic section rewritten, so that
//! `diff -u model.c repaired.c` shows the repair and nothing else.

use paces_constraint::BlockId;
use paces_cwhile::ir::{StmtId, StmtKind};
use paces_cwhile::Program;
use rustc_hash::FxHashMap;

mod relayout;
mod unroll;

/// How a C dialect reads a text and writes an added section.
pub(crate) struct Dialect<'d> {
    /// Reads a text of the dialect.
    pub(crate) parse: &'d dyn Fn(&str) -> Option<Program>,
    /// The statement that opens an added section.
    pub(crate) begin: &'d str,
    /// The statement that closes it.
    pub(crate) end: &'d str,
    /// Whether sections must not nest: an added section drops the begin and end lines of
    /// the sections inside it (`crate::flat`), and the text must read back as `changed` with
    /// its inner atomic blocks flattened, the same program.
    pub(crate) flat: bool,
}

/// `changed` written into `source`, the text of `original`, in the C dialect `dialect`:
/// [`crate::Printer::splice`] for the paper's dialect, [`crate::pthread::Printer::splice`] for
/// pthread C.
///
/// When the source's layout cannot take the change as it stands (two statements of a changed
/// block on one line, a `for` loop the reader unrolled whose copies the change parts), the
/// changed blocks are laid out again first ([`relayout`]: each statement on its own line, a
/// parted loop written unrolled), the new text read back as the original up to labels, and the
/// change written into that text.
pub(crate) fn splice(source: &str, original: &Program, changed: &Program, dialect: &Dialect<'_>) -> Option<String> {
    if changed.threads.len() != original.threads.len() || changed.procs.len() != original.procs.len() {
        return None;
    }
    if let Some(text) = splice_into(source, original, changed, dialect) {
        return Some(text);
    }
    let splice = Splice::new(source, original, changed, dialect)?;
    let mut targets = Vec::new();
    for (now, then) in bodies(original, changed)? {
        splice.targets(now, then, 0, &mut targets)?;
    }
    let (text, dropped) = splice.relayout(&targets)?;
    let back = (dialect.parse)(&text)?;
    let moved = relayout::remap(original, changed, &back, &dropped)?;
    splice_into(&text, &back, &moved, dialect)
}

/// [`splice`] into the source as it is laid out.
fn splice_into(source: &str, original: &Program, changed: &Program, dialect: &Dialect<'_>) -> Option<String> {
    let splice = Splice::new(source, original, changed, dialect)?;
    let mut edits = Vec::new();
    for (now, then) in bodies(original, changed)? {
        splice.walk(now, then, 0, &mut edits)?;
    }
    let text = splice.apply(0, source.len(), &mut edits)?;
    if dialect.flat {
        let text = crate::flat::flatten_text(&text, dialect.begin, dialect.end)?;
        let back = (dialect.parse)(&text)?;
        // No nesting where the source had none (a begin sharing a line with code outside
        // sections escapes `flatten_text`).
        if crate::flat::has_nested(&back) && !crate::flat::has_nested(original) {
            return None;
        }
        let same =
            unlabelled(&crate::flat::flatten_program(&back)) == unlabelled(&crate::flat::flatten_program(changed));
        return same.then_some(text);
    }
    let back = (dialect.parse)(&text)?;
    (unlabelled(&back) == unlabelled(changed)).then_some(text)
}

/// The body of each thread and procedure of `changed`, each with the body of the one of
/// `original` of the same name.
fn bodies(original: &Program, changed: &Program) -> Option<Vec<(BlockId, BlockId)>> {
    let mut out = Vec::new();
    for t in &changed.threads {
        out.push((t.body, original.threads.iter().find(|o| o.name == t.name)?.body));
    }
    for q in &changed.procs {
        out.push((q.body, original.procs.iter().find(|o| o.name == q.name)?.body));
    }
    Some(out)
}

/// The statement of `original` that statement `id` of `changed` is (same label and span), or
/// `None` for an added section.
fn origin(original: &Program, changed: &Program, id: StmtId) -> Option<StmtId> {
    let s = changed.stmts.get(id.index())?;
    let o = original.stmt_at(original.loc(&s.label)?)?;
    (original.stmts.get(o.index())?.span == s.span).then_some(o)
}

/// The canonical Cwhile text of `p` with every statement label replaced by `_` and each
/// thread's and procedure's locals listed by name: everything of the program but its labels
/// and the order its locals are declared in (variables, threads, procedures, and every block
/// with its statements in order). A frontend declares a C block's locals in the order their
/// declarations stand, which a moved declaration changes; every local starts with its
/// declared value whatever the order, so the order means nothing.
fn unlabelled(p: &Program) -> String {
    let mut parts = p.clone().into_parts();
    for s in &mut parts.stmts {
        "_".clone_into(&mut s.label);
    }
    let vars = &parts.vars;
    let name = |v: &paces_cwhile::ir::VarIdx| vars.get(v.index()).map(|var| var.name.clone());
    for locals in parts.threads.iter_mut().map(|t| &mut t.locals).chain(parts.procs.iter_mut().map(|q| &mut q.locals)) {
        locals.sort_by_cached_key(name);
    }
    paces_cwhile::Printer::new(&Program::new(parts)).print()
}

/// The deepest nesting of statements the walk follows (it recurses once per level). The C
/// frontend refuses brackets nested deeper than 200, so only a program that is not the
/// source's reaches it.
const MAX_DEPTH: usize = 512;

/// A replacement of the source's bytes `start..end`.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// An item of a block of `changed`, a section's statements counted as items of the block.
#[derive(Clone, Copy)]
struct Placed {
    /// The statement in `changed`.
    id: StmtId,
    /// The same statement in `original`.
    origin: StmtId,
    /// Whether an added section starts here.
    opens: bool,
    /// Whether an added section ends here.
    closes: bool,
}

/// Where a unit of a rewritten block (its statements that share lines) stands in the source.
#[derive(Clone, Copy)]
struct Lines {
    /// The start of the first comment line attached above it, or of its own first line.
    start: usize,
    /// The start of its own first line.
    own: usize,
    /// The end of its last line (the offset of the newline, or the source's length).
    end: usize,
}

struct Splice<'a> {
    source: &'a str,
    /// The source with the bytes of every comment blanked (newlines kept): offsets are the
    /// source's, and code is told from comments by looking here.
    code: String,
    /// The comments' byte ranges, ascending.
    comments: Vec<(usize, usize)>,
    original: &'a Program,
    changed: &'a Program,
    dialect: &'a Dialect<'a>,
}

impl<'a> Splice<'a> {
    fn new(source: &'a str, original: &'a Program, changed: &'a Program, dialect: &'a Dialect<'a>) -> Option<Self> {
        let comments = paces_cwhile::comment_ranges(source);
        let mut code = source.as_bytes().to_vec();
        for &(start, end) in &comments {
            for b in code.get_mut(start..end)? {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        }
        // Whole comments were blanked, so the bytes are still UTF-8.
        let code = String::from_utf8(code).ok()?;
        Some(Splice { source, code, comments, original, changed, dialect })
    }

    /// The original's statement a statement of `changed` is (same label and span), or `None`
    /// for an added section.
    fn origin(&self, id: StmtId) -> Option<StmtId> {
        origin(self.original, self.changed, id)
    }

    /// Adds the edits for `block` of `changed`, whose original is `before` and which lies
    /// `depth` statements deep: its rewrite when its items changed order or gained a section,
    /// else those of the blocks inside it.
    fn walk(&self, block: BlockId, before: BlockId, depth: usize, edits: &mut Vec<Edit>) -> Option<()> {
        let (flat, old, same) = self.paired(block, before, depth)?;
        if !same {
            return self.rewrite(&flat, old, depth, edits);
        }
        for p in &flat {
            self.nested(p, depth, edits)?;
        }
        Some(())
    }

    /// Adds the blocks [`Splice::walk`] would rewrite, from `block` of `changed` (whose
    /// original is `before`) down: the items of each, now and in the original.
    fn targets(
        &self,
        block: BlockId,
        before: BlockId,
        depth: usize,
        out: &mut Vec<(Vec<Placed>, Vec<StmtId>)>,
    ) -> Option<()> {
        let (flat, old, same) = self.paired(block, before, depth)?;
        for p in &flat {
            for (b, before) in self.inner_blocks(p)? {
                self.targets(b, before, depth + 1, out)?;
            }
        }
        if !same {
            out.push((flat, old.to_vec()));
        }
        Some(())
    }

    /// The items of `block` of `changed` (as [`Splice::flatten`] gives them), those of its
    /// original `before`, and whether they are the same items in the same order with no
    /// section added; `None` past [`MAX_DEPTH`].
    fn paired(&self, block: BlockId, before: BlockId, depth: usize) -> Option<(Vec<Placed>, &'a [StmtId], bool)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let items = &self.changed.blocks.get(block.index())?.items;
        let old = &self.original.blocks.get(before.index())?.items;
        let flat = self.flatten(items)?;
        let same =
            flat.len() == old.len() && flat.iter().zip(old).all(|(p, &o)| p.origin == o && !p.opens && !p.closes);
        Some((flat, old, same))
    }

    /// The items of a block of `changed` with the statements of its added sections in their
    /// place; `None` when one is neither a statement of the original nor an added section
    /// of such statements.
    fn flatten(&self, items: &[StmtId]) -> Option<Vec<Placed>> {
        let mut out = Vec::with_capacity(items.len());
        let placed = |id: StmtId| Some(Placed { id, origin: self.origin(id)?, opens: false, closes: false });
        for &id in items {
            if let Some(p) = placed(id) {
                out.push(p);
                continue;
            }
            let StmtKind::Atomic(body) = self.changed.stmts.get(id.index())?.kind else { return None };
            let first = out.len();
            for &i in &self.changed.blocks.get(body.index())?.items {
                out.push(placed(i)?);
            }
            out.get_mut(first)?.opens = true;
            out.last_mut()?.closes = true;
        }
        Some(out)
    }

    /// Adds the edits for the blocks inside a statement `depth` deep, each paired with its
    /// original.
    fn nested(&self, p: &Placed, depth: usize, edits: &mut Vec<Edit>) -> Option<()> {
        for (b, before) in self.inner_blocks(p)? {
            self.walk(b, before, depth + 1, edits)?;
        }
        Some(())
    }

    /// The blocks inside the statement of `p`, each paired with its original; `None` when the
    /// two statements hold different numbers of blocks.
    fn inner_blocks(&self, p: &Placed) -> Option<Vec<(BlockId, BlockId)>> {
        let now = &self.changed.stmts.get(p.id.index())?.kind;
        let then = &self.original.stmts.get(p.origin.index())?.kind;
        (now.blocks().count() == then.blocks().count()).then(|| now.blocks().zip(then.blocks()).collect())
    }

    /// Adds the edit that rewrites a block whose items are `old` in the original and `flat`
    /// now: the lines from its first unit's chunk to its last unit's end, with the chunks in
    /// the new order, the lines between chunks in their places, and a line before and after
    /// each added section. A unit is a run of items that share lines (the declarators of one
    /// declaration, the statements a macro expands to, `a; b;` on one line): it moves whole,
    /// so its items must stay together and in their order, with no section starting or ending
    /// inside it. The edits of the blocks inside its statements are applied to the chunks they
    /// fall in; those outside the block are passed on.
    fn rewrite(&self, flat: &[Placed], old: &[StmtId], depth: usize, edits: &mut Vec<Edit>) -> Option<()> {
        let mut moved: Vec<StmtId> = flat.iter().map(|p| p.origin).collect();
        let mut kept = old.to_vec();
        moved.sort_unstable();
        kept.sort_unstable();
        if moved != kept {
            return None;
        }
        let (units, lines) = self.units(old)?;
        let region = (lines.first()?.start, lines.last()?.end);
        let mut inner = Vec::new();
        for p in flat {
            self.nested(p, depth, &mut inner)?;
        }
        let mut per_chunk: Vec<Vec<Edit>> = units.iter().map(|_| Vec::new()).collect();
        for e in inner {
            if e.end <= region.0 || e.start >= region.1 {
                edits.push(e);
                continue;
            }
            let k = lines.partition_point(|l| l.start <= e.start).checked_sub(1)?;
            if e.end > lines[k].end {
                return None;
            }
            per_chunk[k].push(e);
        }
        let order = Self::unit_order(flat, old, &units)?;
        let mut text = String::new();
        let mut pad = "";
        for (at, &(k, opens, closes)) in order.iter().enumerate() {
            if at > 0 {
                text.push_str(self.source.get(lines[at - 1].end..lines[at].start)?);
            }
            let l = lines[k];
            if opens {
                let rest = self.source.get(l.own..)?;
                pad = &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()];
                text.push_str(pad);
                text.push_str(self.dialect.begin);
                text.push('\n');
            }
            text.push_str(&self.apply(l.start, l.end, &mut per_chunk[k])?);
            if closes {
                text.push('\n');
                text.push_str(pad);
                text.push_str(self.dialect.end);
            }
        }
        edits.push(Edit { start: region.0, end: region.1, text });
        Some(())
    }

    /// The units of a block whose items are `old` (each the range of its items in `old`: a run
    /// of items whose text starts on the line another item of the run ends on, or inside it)
    /// and where each stands in the source.
    fn units(&self, old: &[StmtId]) -> Option<(Vec<std::ops::Range<usize>>, Vec<Lines>)> {
        let mut units: Vec<(std::ops::Range<usize>, usize, usize)> = Vec::new();
        for (k, &o) in old.iter().enumerate() {
            let (start, end) = self.written(o)?;
            if let Some((range, _, last)) = units.last_mut() {
                let stop = self.source.get(*last..)?.find('\n').map_or(self.source.len(), |i| *last + i);
                if start < stop {
                    range.end = k + 1;
                    *last = (*last).max(end);
                    continue;
                }
            }
            units.push((k..k + 1, start, end));
        }
        let mut lines: Vec<Lines> = Vec::with_capacity(units.len());
        for &(_, start, end) in &units {
            let floor = lines.last().map(|l| l.end);
            lines.push(self.lines(start, end, floor)?);
        }
        Some((units.into_iter().map(|(range, _, _)| range).collect(), lines))
    }

    /// The units of `old` (as [`Splice::units`] gives them) in the order `flat` puts their
    /// items, each with whether an added section starts before it and ends after it; `None`
    /// when the items of a unit are parted, reordered, or a section starts or ends inside it.
    fn unit_order(
        flat: &[Placed],
        old: &[StmtId],
        units: &[std::ops::Range<usize>],
    ) -> Option<Vec<(usize, bool, bool)>> {
        let unit_of: FxHashMap<StmtId, usize> = units
            .iter()
            .enumerate()
            .flat_map(|(u, r)| old.get(r.clone()).unwrap_or(&[]).iter().map(move |&o| (o, u)))
            .collect();
        let mut order = Vec::with_capacity(units.len());
        let mut at = 0;
        while let Some(first) = flat.get(at) {
            let u = *unit_of.get(&first.origin)?;
            let items = old.get(units.get(u)?.clone())?;
            let run = flat.get(at..at + items.len())?;
            let n = items.len();
            let whole = run
                .iter()
                .zip(items)
                .enumerate()
                .all(|(i, (p, &o))| p.origin == o && (i == 0 || !p.opens) && (i + 1 == n || !p.closes));
            if !whole {
                return None;
            }
            order.push((u, run.first()?.opens, run.last()?.closes));
            at += n;
        }
        Some(order)
    }

    /// The text of statement `o` in the source: from its span's start to the end of its last
    /// code, without the blanks and comments some spans run on over.
    /// A statement that a bare block holds alone (`{ atomicBegin(); ... atomicEnd(); }`, as
    /// the paper's models write a section) is written with that block's braces.
    fn written(&self, o: StmtId) -> Option<(usize, usize)> {
        let span = self.original.stmts.get(o.index())?.span;
        let start = span.start as usize;
        let written = self.code.get(start..span.end as usize)?.trim_end();
        (!written.is_empty()).then(|| self.braced(start, start + written.len()))
    }

    /// `start..end` widened over the braces of each bare block (one that follows a `;`, `{`,
    /// `}` or `:`, or starts the text) that holds nothing else (but the statement's `;`).
    fn braced(&self, mut start: usize, mut end: usize) -> (usize, usize) {
        while let (Some(before), Some(after)) = (self.code.get(..start), self.code.get(end..)) {
            // A statement's span may end before its `;`.
            let semi = after.trim_start().strip_prefix(';').unwrap_or(after);
            let (before, rest) = (before.trim_end(), semi.trim_start());
            if !before.ends_with('{') || !rest.starts_with('}') {
                break;
            }
            let open = before.len() - 1;
            let prev = before[..open].trim_end();
            if !(prev.is_empty() || prev.ends_with([';', '{', '}', ':'])) {
                break;
            }
            start = open;
            end += after.len() - rest.len() + 1;
        }
        (start, end)
    }

    /// Where a unit of a rewritten block whose text is `start..end` stands, when it has lines
    /// of its own: only blanks or a declaration's type words (and `*`s) before it on its first line,
    /// only blanks, a `;` and comments after it on its last, its first line after `floor`
    /// (the end of the unit before it in its block), and no comment cut at either end.
    fn lines(&self, start: usize, end: usize, floor: Option<usize>) -> Option<Lines> {
        let own = self.line_start(start);
        // A pointer's declaration (`int *p = ...`, `struct S *p`) has its `*` there too.
        let words = |w: &str| w != "else" && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'*');
        if !self.code.get(own..start)?.split_whitespace().all(words) {
            return None;
        }
        let stop = self.source.get(end..)?.find('\n').map_or(self.source.len(), |i| end + i);
        if !matches!(self.code.get(end..stop)?.trim(), "" | ";") || floor.is_some_and(|f| own <= f) {
            return None;
        }
        let first = self.attached(own, floor);
        let cut = |at: usize| !self.in_comment(at);
        (first.checked_sub(1).is_none_or(cut) && cut(stop)).then_some(Lines { start: first, own, end: stop })
    }

    /// The start of the comment-only lines directly above the line starting at `own` (no
    /// higher than the line after `floor`), or `own` when there are none.
    fn attached(&self, own: usize, floor: Option<usize>) -> usize {
        let mut start = own;
        while let Some(newline) = start.checked_sub(1) {
            let above = self.line_start(newline);
            if floor.is_some_and(|f| above <= f) {
                break;
            }
            let only_comment = self.code.get(above..newline).is_some_and(|c| c.trim().is_empty())
                && self.source.get(above..newline).is_some_and(|s| !s.trim().is_empty());
            if !only_comment {
                break;
            }
            start = above;
        }
        start
    }

    /// Whether offset `at` lies inside a comment.
    fn in_comment(&self, at: usize) -> bool {
        let k = self.comments.partition_point(|&(start, _)| start <= at);
        k.checked_sub(1).is_some_and(|k| self.comments[k].1 > at)
    }

    fn line_start(&self, at: usize) -> usize {
        self.source.get(..at).and_then(|s| s.rfind('\n')).map_or(0, |i| i + 1)
    }

    /// The source's bytes `start..end` with `edits` applied; `None` when one lies outside
    /// that range or two overlap.
    fn apply(&self, start: usize, end: usize, edits: &mut [Edit]) -> Option<String> {
        edits.sort_by_key(|e| (e.start, e.end));
        let mut out = String::new();
        let mut at = start;
        for e in edits.iter() {
            if e.start < at || e.end > end {
                return None;
            }
            out.push_str(self.source.get(at..e.start)?);
            out.push_str(&e.text);
            at = e.end;
        }
        out.push_str(self.source.get(at..end)?);
        Some(out)
    }
}
