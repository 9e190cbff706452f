//! The Cwhile printer: canonical text (every label explicit, sugar as written, minimal
//! parentheses), or labelled only where needed, with or without the source's comments, or
//! spliced into the source.

use std::fmt::Write as _;

use paces_constraint::{BlockId, Loc};
use rustc_hash::FxHashSet;

use crate::ir::{
    BinOp, Cond, Expr, Owner, ProcIdx, Program, Step, Stmt, StmtId, StmtKind, ThreadIdx, UnOp, VarIdx, VarScope,
};

/// Line width at which the `var` line wraps.
const WIDTH: usize = 100;

/// Prints a program as Cwhile text, set up by its methods: which labels it shows
/// ([`Printer::labels`]) and whether it keeps the comments of a source
/// ([`Printer::comments`]); then [`Printer::print`] writes the program, or
/// [`Printer::splice`] writes it into the source of the program it was made from.
///
/// ```
/// use paces_cwhile::Printer;
///
/// let source = "var x;\nthread t {\n  A: x := 1; // one\n  x := 2;\n}\n";
/// let p = paces_cwhile::parse(source)?;
/// assert_eq!(Printer::new(&p).print(), "var x = 0;\n\nthread t {\n  A: x := 1;\n  t.1: x := 2;\n}\n");
/// assert_eq!(Printer::new(&p).labels(&[]).print(), "var x = 0;\n\nthread t {\n  A: x := 1;\n  x := 2;\n}\n");
/// assert_eq!(
///     Printer::new(&p).labels(&["t.1"]).comments(source).print(),
///     "var x = 0;\n\nthread t {\n  A: x := 1; // one\n  t.1: x := 2;\n}\n"
/// );
/// # Ok::<(), paces_cwhile::Diagnostics>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct Printer<'a> {
    program: &'a Program,
    /// The labels to show besides the written and the needed ones; `None`: every label.
    named: Option<&'a [&'a str]>,
    /// The source whose comments are kept.
    source: Option<&'a str>,
}

impl<'a> Printer<'a> {
    /// A printer of `program` that shows every label and no comments.
    pub fn new(program: &'a Program) -> Self {
        Printer { program, named: None, source: None }
    }

    /// Labels a statement only where a reader or the parser needs it: where the label was
    /// written in the source, where it is one of `named` (the labels a report refers to, such
    /// as the ends of a swap or of an added atomic section), and where parsing the text back
    /// would otherwise give the statement another name (an unlabelled statement gets the
    /// generated label `OWNER.N` of its place in its owner's count, which a printed label
    /// `OWNER.N` sets forward: the statements after a moved one or an added section keep their
    /// names without labels; a statement inside a moved compound one, or after a moved one
    /// named by a label of another form, may need its own). Parsing the text back gives a
    /// program with the same behaviour in which every statement has the name it has in the
    /// printed program. Without this setting every label is printed, generated ones too.
    pub fn labels(self, named: &'a [&'a str]) -> Self {
        Printer { named: Some(named), ..self }
    }

    /// Keeps the comments of `source`, the text the printed program (or the original it was
    /// made from by [`Program::apply`], whose spans point into that text) was parsed from:
    /// what `paces fmt` writes. A comment stands on its own lines above the statement or
    /// declaration that follows it in the source, at that statement's indentation; a comment
    /// after a statement on the statement's last line stays at the end of that line; comments
    /// before the closing brace of a block stay inside the block, and those after the last
    /// declaration end the text. Blank lines are not kept, but for one after a comment above
    /// the first declaration (the file's header) that the source sets apart by blank lines.
    /// The text parses back to the same program.
    ///
    /// Where statements changed order (a repaired program whose source layout cannot take
    /// the repair), comments are still written in source order, each above the first
    /// statement printed after it whose source position follows it: a comment may so stand
    /// above a neighbour of the statement it was written beside, but none is lost.
    /// [`Printer::splice`] keeps the comments of its own source and ignores this setting.
    pub fn comments(self, source: &'a str) -> Self {
        Printer { source: Some(source), ..self }
    }

    /// The program's text: globals first (one `var` declaration), then threads and
    /// procedures in their source order, each statement with its label as
    /// [`Printer::labels`] sets (all by default), two spaces of indentation, the comments
    /// as [`Printer::comments`] sets (none by default). Without comments,
    /// `print(parse(print(p))) == print(p)`.
    #[must_use]
    pub fn print(&self) -> String {
        let p = self.program;
        let shown = match self.named {
            Some(named) => shown_labels(p, named),
            None => vec![true; p.stmts.len()],
        };
        let comments = self.source.map_or_else(Comments::none, Comments::scan);
        Writer { p, shown, comments, out: String::new() }.program()
    }

    /// The program printed, and the labels named ([`Printer::labels`]; none when not set).
    pub(crate) fn parts(&self) -> (&Program, &[&str]) {
        (self.program, self.named.unwrap_or(&[]))
    }
}

/// The byte ranges of the comments of a text without string literals (Cwhile, or the C
/// dialect of `paces-c`), ascending: a `//` comment up to the end of its line (the newline not
/// included), a `/* */` comment whole (an unterminated one, which the parsers refuse, up to
/// the end of the text).
///
/// ```
/// let text = "x := 1; // one\n/* two */ y := 2;";
/// assert_eq!(paces_cwhile::comment_ranges(text), [(8, 14), (15, 24)]);
/// ```
pub fn comment_ranges(source: &str) -> Vec<(usize, usize)> {
    let b = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        let end = match (b[i], b[i + 1]) {
            (b'/', b'/') => source[i..].find('\n').map_or(b.len(), |k| i + k),
            (b'/', b'*') => source[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2),
            _ => {
                i += 1;
                continue;
            }
        };
        out.push((i, end));
        i = end;
    }
    out
}

/// The comments of a source, written out as the printer passes their places.
pub(crate) struct Comments<'s> {
    source: &'s str,
    /// Byte ranges, in source order.
    list: Vec<(usize, usize)>,
    /// The first comment not yet written.
    next: usize,
}

impl<'s> Comments<'s> {
    fn none() -> Self {
        Comments { source: "", list: Vec::new(), next: 0 }
    }

    fn scan(source: &'s str) -> Self {
        Comments { source, list: comment_ranges(source), next: 0 }
    }

    /// Writes the comments that start before byte `at`, each on its own line at `level`.
    fn flush(&mut self, at: usize, level: usize, out: &mut String) {
        while let Some(&(start, end)) = self.list.get(self.next) {
            if start >= at {
                break;
            }
            indent(out, level);
            out.push_str(self.source[start..end].trim_end());
            out.push('\n');
            self.next += 1;
        }
    }

    /// Writes the comments that start before byte `at` (the first declaration) at the left
    /// margin, as [`Comments::flush`] does, and one blank line after each that the source sets
    /// apart from what follows it (the next comment, or the declaration) by blank lines: the
    /// file's header comment keeps its blank line.
    fn header(&mut self, at: usize, out: &mut String) {
        while let Some(&(start, end)) = self.list.get(self.next) {
            if start >= at {
                break;
            }
            out.push_str(self.source[start..end].trim_end());
            out.push('\n');
            self.next += 1;
            let gap = self.source.get(end..).unwrap_or("");
            let space = &gap[..gap.find(|ch: char| !ch.is_whitespace()).unwrap_or(gap.len())];
            if space.matches('\n').count() >= 2 {
                out.push('\n');
            }
        }
    }

    /// Appends to the line just printed (before its newline) the next comment when it starts
    /// after byte `end` on the same source line and what stands between is accepted by
    /// `between` (only blanks after a statement; the rest of a declaration after a global).
    fn trailing(&mut self, end: usize, between: fn(&str) -> bool, out: &mut String) {
        let Some(&(start, stop)) = self.list.get(self.next) else { return };
        if self.source.get(end..start).is_some_and(|text| !text.contains('\n') && between(text)) {
            out.push(' ');
            out.push_str(self.source[start..stop].trim_end());
            self.next += 1;
        }
    }

    /// Where the first `}` outside comments after byte `at` stands (the end of the block whose
    /// last statement ends at `at`); `at` itself without a source.
    fn close_after(&self, at: usize) -> usize {
        let bytes = self.source.as_bytes();
        let mut k = self.list.partition_point(|&(start, _)| start < at);
        let mut i = at;
        while i < bytes.len() {
            if let Some(&(start, end)) = self.list.get(k) {
                if start == i {
                    i = end;
                    k += 1;
                    continue;
                }
            }
            if bytes[i] == b'}' {
                return i;
            }
            i += 1;
        }
        at
    }

    /// Writes every comment not yet written.
    fn rest(&mut self, level: usize, out: &mut String) {
        self.flush(usize::MAX, level, out);
    }
}

/// Which statements [`Printer::labels`] labels, indexed by statement id: the written and the
/// `named` labels, an unlabelled statement whose generated label, as the parser would number
/// it in the printed text, is not its own (a reorder or an added section moved it in its
/// owner's pre-order), and an added section's `atomic` whose generated label would be another
/// statement's. A printed label `OWNER.N` of the owner's form sets the parser's count forward
/// ([`crate::lower::next_counter`]), so the statements after a moved one or an added section
/// keep their names without labels of their own.
pub(crate) fn shown_labels(p: &Program, named: &[&str]) -> Vec<bool> {
    let named: FxHashSet<&str> = named.iter().copied().collect();
    let mut shown: Vec<bool> = p.stmts.iter().map(|s| s.explicit_label || named.contains(s.label.as_str())).collect();
    let labels: FxHashSet<&str> = p.stmts.iter().map(|s| s.label.as_str()).collect();
    for owner in decl_order(p) {
        let (name, body) = match owner {
            Owner::Thread(t) => (&p.threads[t.index()].name, p.threads[t.index()].body),
            Owner::Proc(q) => (&p.procs[q.index()].name, p.procs[q.index()].body),
        };
        let mut counter = 0;
        for id in pre_order(p, body) {
            let label = &p.stmts[id.index()].label;
            let generated = format!("{name}.{counter}");
            if !shown[id.index()] && *label != generated {
                // A name of the original (generated: of the owner's form) is kept; an added
                // section's `atomic` is new, and needs its label only to keep another's name.
                let original = label.strip_prefix(name.as_str()).is_some_and(|rest| rest.starts_with('.'));
                shown[id.index()] = original || labels.contains(generated.as_str());
            }
            counter = if shown[id.index()] { crate::lower::next_counter(name, counter, label) } else { counter + 1 };
        }
    }
    shown
}

/// The statements of a body in source pre-order (a compound statement before those inside
/// it), the order in which the parser numbers generated labels.
fn pre_order(p: &Program, body: BlockId) -> Vec<StmtId> {
    let mut out = Vec::new();
    let mut stack: Vec<StmtId> = Vec::new();
    let push_block = |stack: &mut Vec<StmtId>, b: BlockId| {
        if let Some(b) = p.blocks.get(b.index()) {
            stack.extend(b.items.iter().rev());
        }
    };
    push_block(&mut stack, body);
    while let Some(id) = stack.pop() {
        out.push(id);
        let Some(s) = p.stmts.get(id.index()) else { continue };
        for b in s.kind.blocks().rev() {
            push_block(&mut stack, b);
        }
    }
    out
}

/// The state the printing functions share: the program, which statements carry their
/// labels (`shown[i]` for statement `i`), the comments still to write, and the text so far.
struct Writer<'p, 's> {
    p: &'p Program,
    shown: Vec<bool>,
    comments: Comments<'s>,
    out: String,
}

impl Writer<'_, '_> {
    /// The whole program's text.
    fn program(mut self) -> String {
        let p = self.p;
        let owners = decl_order(p);
        let owner_start = |o: &Owner| match *o {
            Owner::Thread(t) => p.threads[t.index()].span.start,
            Owner::Proc(q) => p.procs[q.index()].span.start,
        };
        let first_decl =
            p.vars[..p.global_count()].iter().map(|v| v.span.start).chain(owners.iter().map(owner_start)).min();
        if let Some(first) = first_decl {
            self.comments.header(first as usize, &mut self.out);
        }
        // The header ends with its own blank line where it has one.
        let header_len = self.out.len();
        self.globals();
        for owner in owners {
            if self.out.len() > header_len {
                self.out.push('\n');
            }
            self.owner(owner);
        }
        self.comments.rest(0, &mut self.out);
        self.out
    }

    /// The `var` declaration of the globals, if any, wrapped at [`WIDTH`].
    fn globals(&mut self) {
        let p = self.p;
        let globals: Vec<String> =
            p.vars[..p.global_count()].iter().map(|v| format!("{} = {}", v.name, v.init)).collect();
        if let Some(first) = p.vars[..p.global_count()].first() {
            self.comments.flush(first.span.start as usize, 0, &mut self.out);
        }
        if globals.is_empty() {
            return;
        }
        let mut line = String::from("var ");
        for (i, g) in globals.iter().enumerate() {
            let piece = if i + 1 == globals.len() { format!("{g};") } else { format!("{g},") };
            if line.len() > 4 && line.len() + 1 + piece.len() > WIDTH {
                self.out.push_str(line.trim_end());
                self.out.push('\n');
                line = String::from("    ");
            }
            line.push_str(&piece);
            line.push(' ');
        }
        self.out.push_str(line.trim_end());
        if let Some(last) = p.vars[..p.global_count()].iter().map(|v| v.span.end).max() {
            self.comments.trailing(last as usize, |_| true, &mut self.out);
        }
        self.out.push('\n');
    }

    /// A thread or procedure.
    fn owner(&mut self, owner: Owner) {
        let p = self.p;
        let (kw, name, locals, body, span) = match owner {
            Owner::Thread(t) => {
                let t = &p.threads[t.index()];
                ("thread", &t.name, &t.locals, t.body, t.span)
            }
            Owner::Proc(q) => {
                let q = &p.procs[q.index()];
                ("proc", &q.name, &q.locals, q.body, q.span)
            }
        };
        self.comments.flush(span.start as usize, 0, &mut self.out);
        let _ = writeln!(self.out, "{kw} {name} {{");
        if !locals.is_empty() {
            let list: Vec<String> = locals.iter().map(|&v| format!("{} = {}", var_name(p, v), init(p, v))).collect();
            let _ = writeln!(self.out, "  local {};", list.join(", "));
        }
        self.items(body, 1);
        self.comments.flush(span.end as usize, 1, &mut self.out);
        self.out.push('}');
        self.comments.trailing(span.end as usize, blanks, &mut self.out);
        self.out.push('\n');
    }

    fn items(&mut self, block: BlockId, level: usize) {
        let Some(b) = self.p.blocks.get(block.index()) else { return };
        for &s in &b.items {
            self.stmt(s, level);
        }
    }

    /// `{ ... }` after a statement head: `{ }` when empty. The comments before the block's
    /// closing brace in the source are written inside it.
    fn block(&mut self, block: BlockId, level: usize) {
        let p = self.p;
        let Some(last) = p.blocks.get(block.index()).and_then(|b| b.items.last()) else {
            self.out.push_str("{ }");
            return;
        };
        let close = self.comments.close_after(p.stmts.get(last.index()).map_or(0, |s| s.span.end as usize));
        self.out.push_str("{\n");
        self.items(block, level + 1);
        self.comments.flush(close, level + 1, &mut self.out);
        indent(&mut self.out, level);
        self.out.push('}');
    }

    fn stmt(&mut self, id: StmtId, level: usize) {
        let p = self.p;
        let Some(s) = p.stmts.get(id.index()) else { return };
        self.comments.flush(s.span.start as usize, level, &mut self.out);
        indent(&mut self.out, level);
        self.label(id, &s.label);
        self.out.push_str(&head(p, s));
        let end = s.span.end as usize;
        match &s.kind {
            StmtKind::If { .. } => self.if_chain(id, level),

            StmtKind::While { body, .. } | StmtKind::Atomic(body) | StmtKind::NoReorder(body) => {
                self.out.push(' ');
                self.block(*body, level);
            }
            _ => self.out.push(';'),
        }
        self.comments.trailing(end, blanks, &mut self.out);
        self.out.push('\n');
    }

    fn label(&mut self, id: StmtId, label: &str) {
        if self.shown.get(id.index()).copied().unwrap_or(true) {
            let _ = write!(self.out, "{label}: ");
        }
    }

    /// The blocks of the `if` statement `id`, whose head is printed, and its `else if`s: a
    /// loop along the chain, so that a long chain is printed flat.
    fn if_chain(&mut self, mut id: StmtId, level: usize) {
        let p = self.p;
        while let Some(StmtKind::If { then_block, else_block, .. }) = p.stmts.get(id.index()).map(|s| &s.kind) {
            self.out.push(' ');
            self.block(*then_block, level);
            let Some(e) = else_block else { return };
            self.out.push_str(" else ");
            let Some(link) = else_if(p, *e) else {
                self.block(*e, level);
                return;
            };
            self.label(link, &p.stmts[link.index()].label);
            self.out.push_str(&head(p, &p.stmts[link.index()]));
            id = link;
        }
    }
}

/// Threads and procedures in source order (by declaration span; threads before procedures
/// on ties, as in programs built by hand).
pub(crate) fn decl_order(p: &Program) -> Vec<Owner> {
    let mut v: Vec<(u32, Owner)> = p
        .threads
        .iter()
        .enumerate()
        .map(|(i, t)| (t.span.start, Owner::Thread(ThreadIdx::from_u32(i as u32))))
        .chain(p.procs.iter().enumerate().map(|(i, q)| (q.span.start, Owner::Proc(ProcIdx::from_u32(i as u32)))))
        .collect();
    v.sort_by_key(|&(start, _)| start);
    v.into_iter().map(|(_, o)| o).collect()
}

fn init(p: &Program, v: VarIdx) -> i64 {
    p.vars.get(v.index()).map_or(0, |v| v.init)
}

pub(crate) fn var_name(p: &Program, v: VarIdx) -> &str {
    p.vars.get(v.index()).map_or("?", |v| v.name.as_str())
}

/// A variable as a statement of `owner` writes it: a procedure's local seen from outside the
/// procedure is `PROC.NAME`.
pub(crate) fn var_text(p: &Program, v: VarIdx, owner: Option<Owner>) -> std::borrow::Cow<'_, str> {
    match p.vars.get(v.index()).map(|var| var.scope) {
        Some(VarScope::Proc(q)) if owner != Some(Owner::Proc(q)) => {
            let proc_name = p.procs.get(q.index()).map_or("?", |q| q.name.as_str());
            format!("{proc_name}.{}", var_name(p, v)).into()
        }
        _ => var_name(p, v).into(),
    }
}

/// The thread or procedure a statement belongs to.
pub(crate) fn owner_of(p: &Program, stmt: &Stmt) -> Option<Owner> {
    p.blocks.get(stmt.block.index()).map(|b| b.owner)
}

/// Whether a text holds only spaces and tabs.
fn blanks(text: &str) -> bool {
    text.chars().all(|c| c == ' ' || c == '\t')
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// The `if` of an `else if`: the one item of `block`, when it is an `if`.
pub(crate) fn else_if(p: &Program, block: BlockId) -> Option<StmtId> {
    match p.blocks.get(block.index())?.items.as_slice() {
        [s] if matches!(p.stmts.get(s.index())?.kind, StmtKind::If { .. }) => Some(*s),
        _ => None,
    }
}

/// The statement as written up to its first block (`if (b)`, `x := e`, `lock(m)`).
pub(crate) fn head(p: &Program, stmt: &Stmt) -> String {
    let owner = owner_of(p, stmt);
    let expr = |e: &Expr| expr(p, e, owner);
    let name = |v: VarIdx| var_text(p, v, owner);
    let cond = |c: &Cond| match c {
        Cond::Star => "*".to_owned(),
        Cond::Expr { cond, .. } => expr(cond),
    };
    match &stmt.kind {
        StmtKind::Assign { var, expr: e } => format!("{} := {}", name(*var), expr(e)),
        StmtKind::Assume(e) => format!("assume({})", expr(e)),
        StmtKind::Await(e) => format!("await({})", expr(e)),
        StmtKind::Assert(e) if p.is_assertd(stmt) => format!("assertd({})", expr(e)),
        StmtKind::Assert(e) => format!("assert({})", expr(e)),
        StmtKind::Skip => "skip".to_owned(),
        StmtKind::If { cond: c, .. } => format!("if ({})", cond(c)),
        StmtKind::While { cond: c, .. } => format!("while ({})", cond(c)),
        StmtKind::Atomic(_) => "atomic".to_owned(),
        StmtKind::NoReorder(_) => "noreorder".to_owned(),
        StmtKind::Call(q) => format!("{}()", p.procs.get(q.index()).map_or("?", |q| q.name.as_str())),
        StmtKind::Lock { var, .. } => format!("lock({})", name(*var)),
        StmtKind::Unlock(v) => format!("unlock({})", name(*v)),
        StmtKind::Down { var, .. } => format!("down({})", name(*var)),
        StmtKind::Up(v) => format!("up({})", name(*v)),
    }
}

impl Program {
    /// The text of the step at `loc`, as a trace shows it beside the label: the text of the
    /// source statement it belongs to where the program has one ([`Program::source_step`]),
    /// with the copy of an unrolled loop's body it lies in (`hits++  [i = 0]`), else the
    /// statement's source text ([`Parts::source_texts`](crate::ir::Parts)), else its head
    /// (`x := 1`, `await(x == 1)`, `if (b)`), or the step a sugar adds (`assume(!b)` for
    /// `L.else`, `m := 1` for a `lock`'s `L.set`). `None` for a location of another program.
    pub fn step_text(&self, loc: Loc) -> Option<String> {
        if let Some(step) = self.source_step(loc) {
            return Some(match &step.copy {
                Some(copy) => format!("{}  [{copy}]", step.text),
                None => step.text.clone(),
            });
        }
        if let Some(id) = self.stmt_at(loc) {
            let stmt = self.stmts.get(id.index())?;
            return Some(self.source_texts.get(&stmt.label).cloned().unwrap_or_else(|| head(self, stmt)));
        }
        let owner = self.step_stmt(loc)?;
        derived_text(self, self.stmts.get(owner.index())?, loc)
    }

    /// The source statement the step at `loc` belongs to, its line and its text
    /// ([`Parts::source_steps`](crate::ir::Parts)): `None` for a program that has none (Cwhile's
    /// own) and for a location of another program.
    pub fn source_step(&self, loc: Loc) -> Option<&crate::ir::SourceStep> {
        self.source_steps.get(self.loc_names.get(loc.index())?)
    }

    /// The source steps of the statement at `loc` and of the statements inside it, in program
    /// order: how a source names an item that moves or that a section holds (an `if` by its
    /// guard, a block of statements by their lines). Empty for a program that has no source
    /// steps and for a location that is no statement's.
    pub fn source_steps_in(&self, loc: Loc) -> Vec<&crate::ir::SourceStep> {
        let Some(item) = self.stmt_at(loc) else { return Vec::new() };
        let inside = |mut s: StmtId| {
            for _ in 0..=self.stmts.len() {
                if s == item {
                    return true;
                }
                match self.blocks.get(self.stmts[s.index()].block.index()).and_then(|b| b.parent) {
                    Some(parent) => s = parent,
                    None => return false,
                }
            }
            false
        };
        let within = (loc.index()..self.loc_names.len()).map_while(|i| {
            let l = Loc::new(i)?;
            self.step_stmt(l).filter(|&s| inside(s)).map(|_| l)
        });
        within.filter_map(|l| self.source_step(l)).collect()
    }

    /// How a message names the location `label` where the program was read from a source
    /// that places it ([`Program::source_step`]): `line 20`, its statement's line. `None` for
    /// a location the program has no source step for (every location of a Cwhile program):
    /// messages then name the label itself.
    pub fn place_name(&self, label: &str) -> Option<String> {
        self.loc(label).and_then(|l| self.source_step(l)).map(|s| format!("line {}", s.line))
    }

    /// How a message names the thread whose own name is `name`: the source's name for it
    /// ([`Parts::source_threads`](crate::ir::Parts), `worker t[0]`) where the program has one,
    /// else `name`.
    pub fn shown_thread<'n>(&'n self, name: &'n str) -> &'n str {
        self.source_threads.get(name).map_or(name, String::as_str)
    }

    /// The name traces show thread `thread` by (an index into [`Parts::threads`](crate::ir::Parts)):
    /// the source's ([`Parts::source_threads`](crate::ir::Parts)) where the program has one,
    /// else the thread's own; `None` for no thread of the program.
    pub fn thread_name(&self, thread: usize) -> Option<&str> {
        Some(self.shown_thread(&self.threads.get(thread)?.name))
    }

    /// The statement the step at `loc` belongs to: the statement whose own label it is, or for
    /// a derived step (the guard of an `if`, the await of a `lock`) the statement that adds
    /// it. Its [`Stmt::span`](crate::ir::Stmt) places the step in the source. `None` for a
    /// location of another program.
    pub fn step_stmt(&self, loc: Loc) -> Option<StmtId> {
        if let Some(id) = self.stmt_at(loc) {
            return Some(id);
        }
        // A derived step follows its statement's location directly (at most two steps).
        (loc.index().saturating_sub(2)..loc.index()).rev().find_map(|i| self.stmt_at(Loc::new(i)?))
    }
}

/// The text of the derived step at `loc` of statement `stmt`.
fn derived_text(p: &Program, stmt: &Stmt, loc: Loc) -> Option<String> {
    let owner = owner_of(p, stmt);
    let expr = |e: &Expr| expr(p, e, owner);
    let is = |step: &Step| step.loc == loc;
    match &stmt.kind {
        StmtKind::If { cond: Cond::Expr { then_guard, else_guard, .. }, .. }
        | StmtKind::While { cond: Cond::Expr { then_guard, else_guard, .. }, .. } => {
            [then_guard, else_guard].into_iter().find(|s| is(s)).map(|s| format!("assume({})", expr(&s.expr)))
        }
        StmtKind::Lock { var, wait, set } | StmtKind::Down { var, wait, set } => {
            if is(wait) {
                Some(format!("await({})", expr(&wait.expr)))
            } else {
                is(set).then(|| format!("{} := {}", var_text(p, *var, owner), expr(&set.expr)))
            }
        }
        _ => None,
    }
}

const UNARY: u8 = BinOp::MAX_PRECEDENCE + 1;
const ATOM: u8 = BinOp::MAX_PRECEDENCE + 2;

/// An expression in Cwhile syntax with minimal parentheses (all binary operators are
/// left-associative).
pub(crate) fn expr(p: &Program, e: &Expr, owner: Option<Owner>) -> String {
    let mut out = String::new();
    write_expr(p, e, owner, 0, &mut out);
    out
}

fn write_expr(p: &Program, e: &Expr, owner: Option<Owner>, min: u8, out: &mut String) {
    let own = match e {
        Expr::Int(v) if *v < 0 => UNARY,
        Expr::Int(_) | Expr::Bool(_) | Expr::Var(_) => ATOM,
        Expr::Unary(..) => UNARY,
        Expr::Chain(c) => c.level(),
    };
    let paren = own < min;
    if paren {
        out.push('(');
    }
    match e {
        Expr::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Expr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Expr::Var(v) => out.push_str(&var_text(p, *v, owner)),
        Expr::Unary(op, a) => {
            out.push(match op {
                UnOp::Not => '!',
                UnOp::Neg => '-',
            });
            // `-(-5)` rather than `--5`, which reads like a decrement.
            let min = if matches!(**a, Expr::Int(v) if v < 0) || matches!(**a, Expr::Unary(UnOp::Neg, _)) {
                ATOM
            } else {
                UNARY
            };
            write_expr(p, a, owner, min, out);
        }
        Expr::Chain(c) => {
            let q = c.level();
            write_expr(p, c.first(), owner, q, out);
            for (op, e) in c.links() {
                let _ = write!(out, " {} ", op.symbol());
                write_expr(p, e, owner, q + 1, out);
            }
        }
    }
    if paren {
        out.push(')');
    }
}
