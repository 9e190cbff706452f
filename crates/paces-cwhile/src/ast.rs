//! The syntax tree with byte spans. Private to the crate: the parser builds it, the lowering
//! checks it and turns it into the IR, and [`Program::apply`](crate::Program::apply) builds one
//! from an IR to lower it again.

use crate::ir::{BinOp, Span, UnOp};

/// The deepest nesting of statements the parser accepts. Everything that walks the tree
/// recursively relies on this bound (and [`MAX_EXPR_DEPTH`]) to stay within the stack, even
/// on a 2 MiB thread stack in a debug build.
pub(crate) const MAX_DEPTH: u32 = 256;

/// The most levels of statements that recursive passes over a program (printer, apply,
/// the checker's compiler) meet on one path: nesting levels and `else if` links together.
/// Nesting alone stops at [`MAX_DEPTH`]; this bound is reached only by long `else if` chains.
pub(crate) const MAX_HEIGHT: u32 = 1024;

/// The deepest nesting of an expression the parser accepts. A chain of operators of one
/// precedence level (`a + b - c + ...`) is one level, however long.
pub(crate) const MAX_EXPR_DEPTH: u32 = 512;

/// A name with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Name {
    pub(crate) text: String,
    pub(crate) span: Span,
}

/// A statement label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Label {
    pub(crate) text: String,
    pub(crate) span: Span,
    /// Whether the label counts as written by the user (false only for trees that
    /// `apply` builds from generated labels).
    pub(crate) explicit: bool,
}

/// An initial value: `[-]NUM`, `true` or `false`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Init {
    pub(crate) negative: bool,
    pub(crate) value: Lit,
    pub(crate) span: Span,
}

/// A literal as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lit {
    /// A decimal number (saturated at `u128::MAX`, which is out of range anyway).
    Num(u128),
    /// `true` / `false`.
    Bool(bool),
}

/// `name [= init]` in `var` or `local`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VarDecl {
    pub(crate) name: Name,
    pub(crate) init: Option<Init>,
}

/// Thread or procedure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    Thread,
    Proc,
}

/// A thread or a procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Body {
    pub(crate) kind: BodyKind,
    pub(crate) name: Name,
    pub(crate) locals: Vec<VarDecl>,
    pub(crate) stmts: Vec<Stmt>,
    pub(crate) span: Span,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Decl {
    Vars(Vec<VarDecl>),
    Body(Body),
    /// A declaration the parser recovered from.
    Error,
}

/// A block `{ ... }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) stmts: Vec<Stmt>,
    pub(crate) span: Span,
}

impl Block {
    pub(crate) fn depth(&self) -> u32 {
        self.stmts.iter().map(|s| s.depth).max().unwrap_or(0)
    }

    /// The `if` of an `else if`: the block's one statement, when it is an `if` (or was one,
    /// before it was reduced for passing a limit).
    pub(crate) fn else_if(&self) -> Option<&Stmt> {
        match self.stmts.as_slice() {
            [s] if matches!(&s.kind, StmtKind::If(..) | StmtKind::TooDeep(Overflow { is_if: true, .. })) => Some(s),
            _ => None,
        }
    }
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stmt {
    pub(crate) label: Option<Label>,
    pub(crate) kind: StmtKind,
    pub(crate) span: Span,
    /// 1 for a simple statement, 1 + the deepest inner statement for a compound one; an
    /// `else if` adds no level (see [`Stmt::new`]).
    pub(crate) depth: u32,
    /// As `depth`, but an `else if` counts as a level: how deep recursive passes go.
    pub(crate) height: u32,
}

/// What a statement is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StmtKind {
    Assign(Name, Expr),
    Assume(Expr),
    Await(Expr),
    Assert(Expr),
    /// `assertd(b);`: an assertion that items may move across.
    AssertD(Expr),
    Skip,
    /// `cond` is `None` for `*`.
    If(Option<Expr>, Block, Option<Block>),
    While(Option<Expr>, Block),
    Atomic(Block),
    NoReorder(Block),
    Call(Name),
    Lock(Name),
    Unlock(Name),
    Down(Name),
    Up(Name),
    /// A statement the parser recovered from.
    Error,
    /// A compound statement that passes a nesting limit, reduced to where its levels start
    /// (the parser reports it once the whole statement is known, see [`checked`]).
    TooDeep(Overflow),
}

/// Which nesting limit a statement passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Limit {
    /// [`MAX_DEPTH`], counted by [`Stmt::depth`].
    Depth,
    /// [`MAX_HEIGHT`], counted by [`Stmt::height`].
    Height,
}

impl Limit {
    /// The most levels allowed.
    pub(crate) fn max(self) -> u32 {
        match self {
            Limit::Depth => MAX_DEPTH,
            Limit::Height => MAX_HEIGHT,
        }
    }
}

/// A construct deeper than a limit: the byte offset where each level of its deepest path
/// starts, innermost first (so the last one is the construct's own head).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Overflow {
    pub(crate) limit: Limit,
    pub(crate) heads: Vec<u32>,
    /// Whether the statement is an `if` (which may be the next link of an `else if` chain).
    pub(crate) is_if: bool,
}

impl Overflow {
    /// Where the first level past the limit starts, counting levels from the outside of the
    /// whole statement.
    pub(crate) fn passed_at(&self) -> Option<Span> {
        level_start(&self.heads, self.limit.max())
    }
}

/// Where level `max + 1` starts, counting from the outside, given where each level starts
/// (innermost first); `None` when there are no more than `max` levels.
fn level_start(heads: &[u32], max: u32) -> Option<Span> {
    let at = heads[heads.len().checked_sub(max as usize + 1)?];
    Some(Span { start: at, end: at.saturating_add(1) })
}

impl Stmt {
    /// A statement; its depth is computed from its blocks. An `else` block that holds one
    /// `if` and nothing else (`else if`, or `else { if .. }`, which is the same program) is
    /// the next link of a chain, at the level of the first `if`: a chain of `else if`s is as
    /// deep as its deepest branch, however long.
    pub(crate) fn new(kind: StmtKind, span: Span) -> Stmt {
        let inner = |b: &Block| b.depth().saturating_add(1);
        let depth = match &kind {
            StmtKind::If(_, t, e) => inner(t).max(e.as_ref().map_or(0, |e| match e.else_if() {
                Some(link) => link.depth,
                None => inner(e),
            })),
            StmtKind::While(_, b) | StmtKind::Atomic(b) | StmtKind::NoReorder(b) => inner(b),
            _ => 1,
        };
        let height = |b: &Block| b.stmts.iter().map(|s| s.height).max().unwrap_or(0).saturating_add(1);
        let height = match &kind {
            StmtKind::If(_, t, e) => height(t).max(e.as_ref().map_or(0, height)),
            StmtKind::While(_, b) | StmtKind::Atomic(b) | StmtKind::NoReorder(b) => height(b),
            _ => 1,
        };
        Stmt { label: None, kind, span, depth, height }
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) span: Span,
    /// 1 for a leaf.
    pub(crate) depth: u32,
}

/// What an expression is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ExprKind {
    Lit(Lit),
    Var(Name),
    Unary(UnOp, Box<Expr>),
    /// `first op1 e1 op2 e2 ...`: left-associative, every operator of one precedence level,
    /// at least one link (as [`crate::ir::Chain`]).
    Chain(Box<Expr>, Vec<(BinOp, Expr)>),
    /// An expression deeper than [`MAX_EXPR_DEPTH`], reduced to where the levels of its
    /// deepest path start, innermost first; `chain` is the precedence level of the chain at
    /// its top, if any, so that a chain that goes on extends it.
    TooDeep {
        heads: Vec<u32>,
        chain: Option<u8>,
    },
}

impl Expr {
    pub(crate) fn leaf(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span, depth: 1 }
    }

    /// `op e`; deeper than [`MAX_EXPR_DEPTH`], it is reduced to an [`ExprKind::TooDeep`].
    pub(crate) fn unary(op: UnOp, e: Expr, span: Span) -> Expr {
        let depth = e.depth.saturating_add(1);
        if depth > MAX_EXPR_DEPTH {
            return Expr::too_deep(e.into_heads(), span, depth, None);
        }
        Expr { kind: ExprKind::Unary(op, Box::new(e)), span, depth }
    }

    /// `a op b`; when `a` is a chain of `op`'s precedence level, `b` extends it, so that a
    /// long flat expression stays one level deep. Deeper than [`MAX_EXPR_DEPTH`], the result
    /// is reduced to an [`ExprKind::TooDeep`].
    pub(crate) fn binary(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
        let level = op.precedence();
        let extends = a.chain_level() == Some(level);
        let depth = if extends { a.depth } else { a.depth.saturating_add(1) }.max(b.depth.saturating_add(1));
        if depth > MAX_EXPR_DEPTH {
            let heads = match (extends, b.depth.saturating_add(1) == depth) {
                // `a` is this chain's level already: its last head is the chain's.
                (true, false) => {
                    let mut heads = a.into_heads();
                    heads.pop();
                    heads
                }
                (_, true) => b.into_heads(),
                (false, false) => a.into_heads(),
            };
            return Expr::too_deep(heads, span, depth, Some(level));
        }
        match a.kind {
            ExprKind::Chain(first, mut links) if extends => {
                links.push((op, b));
                Expr { kind: ExprKind::Chain(first, links), span, depth }
            }
            kind => {
                let a = Expr { kind, ..a };
                Expr { kind: ExprKind::Chain(Box::new(a), vec![(op, b)]), span, depth }
            }
        }
    }

    /// The precedence level of the chain at the top, if the top is a chain.
    fn chain_level(&self) -> Option<u8> {
        match &self.kind {
            ExprKind::Chain(_, links) => Some(links[0].0.precedence()),
            ExprKind::TooDeep { chain, .. } => *chain,
            _ => None,
        }
    }

    /// An over-deep expression at `span` whose operands' deepest path has `heads`.
    fn too_deep(mut heads: Vec<u32>, span: Span, depth: u32, chain: Option<u8>) -> Expr {
        heads.push(span.start);
        Expr { kind: ExprKind::TooDeep { heads, chain }, span, depth }
    }

    /// Where the levels of the deepest path start, innermost first. Linear in the depth: a
    /// tree that is not reduced yet is at most [`MAX_EXPR_DEPTH`] deep.
    fn into_heads(self) -> Vec<u32> {
        if let ExprKind::TooDeep { heads, .. } = self.kind {
            return heads;
        }
        let mut heads = Vec::with_capacity(self.depth as usize);
        let mut at = &self;
        loop {
            heads.push(at.span.start);
            at = match &at.kind {
                ExprKind::Unary(_, inner) => inner,
                ExprKind::Chain(first, links) => {
                    links.iter().map(|(_, e)| e).fold(&**first, |a, e| if e.depth > a.depth { e } else { a })
                }
                _ => break,
            };
        }
        heads.reverse();
        heads
    }

    /// Where the first level past [`MAX_EXPR_DEPTH`] starts, if this whole expression is too
    /// deep.
    pub(crate) fn passed_at(&self) -> Option<Span> {
        match &self.kind {
            ExprKind::TooDeep { heads, .. } => level_start(heads, MAX_EXPR_DEPTH),
            _ => None,
        }
    }
}

/// What the grammar's fallible actions report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum UserError {
    /// Statements nested deeper than [`MAX_DEPTH`]: where level `MAX_DEPTH + 1` starts,
    /// counting from the thread or procedure.
    StmtTooDeep(Span),
    /// Statements and `else if` links more than [`MAX_HEIGHT`] levels high: where level
    /// `MAX_HEIGHT + 1` starts.
    ElseIfTooLong(Span),
    /// An expression nested deeper than [`MAX_EXPR_DEPTH`]: where level
    /// `MAX_EXPR_DEPTH + 1` starts, counting from the statement.
    ExprTooDeep(Span),
}

/// A span from lalrpop's byte offsets (the input length was checked to fit in `u32`).
pub(crate) fn span(l: usize, r: usize) -> Span {
    Span { start: l as u32, end: r as u32 }
}

/// Parses a decimal literal, saturating.
pub(crate) fn num(text: &str) -> Lit {
    Lit::Num(text.parse::<u128>().unwrap_or(u128::MAX))
}

/// The parser's list of errors it recovered from.
pub(crate) type Recovered<T> = Vec<lalrpop_util::ErrorRecovery<usize, T, UserError>>;

fn report<T>(errors: &mut Recovered<T>, error: UserError) {
    errors.push(lalrpop_util::ErrorRecovery {
        error: lalrpop_util::ParseError::User { error },
        dropped_tokens: Vec::new(),
    });
}

/// A whole expression (of a statement); one that is too deep is reported.
pub(crate) fn finished<T>(errors: &mut Recovered<T>, e: Expr) -> Expr {
    if let Some(at) = e.passed_at() {
        report(errors, UserError::ExprTooDeep(at));
    }
    e
}

/// A thread's or procedure's body; every statement in it that is too deep is reported.
pub(crate) fn body<T>(errors: &mut Recovered<T>, body: Body) -> Decl {
    for s in &body.stmts {
        if let StmtKind::TooDeep(o) = &s.kind {
            let at = o.passed_at().unwrap_or(head(s.span));
            report(
                errors,
                match o.limit {
                    Limit::Depth => UserError::StmtTooDeep(at),
                    Limit::Height => UserError::ElseIfTooLong(at),
                },
            );
        }
    }
    Decl::Body(body)
}

/// A compound statement as built; reduced to a [`StmtKind::TooDeep`] when it passes
/// [`MAX_DEPTH`] (or else [`MAX_HEIGHT`]). An inner statement reduced before decides the
/// limit, so that the levels stay countable down to its innermost one.
pub(crate) fn checked(s: Stmt) -> Stmt {
    let limit = match inner_limit(&s) {
        Some(limit) => limit,
        None if s.depth > MAX_DEPTH => Limit::Depth,
        None if s.height > MAX_HEIGHT => Limit::Height,
        None => return s,
    };
    let (label, span, depth, height) = (s.label.clone(), s.span, s.depth, s.height);
    let is_if = matches!(s.kind, StmtKind::If(..));
    let heads = s.into_heads(limit);
    Stmt { label, kind: StmtKind::TooDeep(Overflow { limit, heads, is_if }), span, depth, height }
}

/// The limit of the inner statements reduced before, [`Limit::Depth`] first.
fn inner_limit(s: &Stmt) -> Option<Limit> {
    let blocks: &[&Block] = match &s.kind {
        StmtKind::If(_, t, Some(e)) => &[t, e],
        StmtKind::If(_, t, None) | StmtKind::While(_, t) | StmtKind::Atomic(t) | StmtKind::NoReorder(t) => &[t],
        _ => &[],
    };
    let limits = blocks.iter().flat_map(|b| &b.stmts).filter_map(|s| match &s.kind {
        StmtKind::TooDeep(o) => Some(o.limit),
        _ => None,
    });
    limits.min_by_key(|l| *l != Limit::Depth)
}

impl Stmt {
    /// How many levels deep this statement is, counted as `limit` counts them.
    fn levels(&self, limit: Limit) -> u32 {
        match limit {
            Limit::Depth => self.depth,
            Limit::Height => self.height,
        }
    }

    /// Where the levels of the deepest path start as `limit` counts them, innermost first.
    /// Follows the path down to an inner statement reduced for the same limit; without one,
    /// the tree is at most [`MAX_HEIGHT`] high, so the walk is linear in its size.
    fn into_heads(self, limit: Limit) -> Vec<u32> {
        let mut outer = Vec::new();
        let mut at = self;
        loop {
            let start = at.span.start;
            if let StmtKind::TooDeep(o) = at.kind {
                let mut heads = o.heads;
                heads.extend(outer.iter().rev());
                return heads;
            }
            match at.into_deepest(limit) {
                Some((inner, new_level)) => {
                    if new_level {
                        outer.push(start);
                    }
                    at = inner;
                }
                None => {
                    outer.push(start);
                    outer.reverse();
                    return outer;
                }
            }
        }
    }

    /// The inner statement on the deepest path as `limit` counts levels, and whether it is a
    /// level of its own (the `if` of an `else if` is not, for [`Limit::Depth`]). Inner
    /// statements reduced for the other limit are passed over: their levels are not known.
    fn into_deepest(self, limit: Limit) -> Option<(Stmt, bool)> {
        let mut inner: Vec<(Stmt, bool)> = Vec::new();
        let mut add = |b: Block| inner.extend(b.stmts.into_iter().map(|s| (s, true)));
        match self.kind {
            StmtKind::If(_, t, e) => {
                add(t);
                match e {
                    Some(e) if e.else_if().is_some() => {
                        inner.extend(e.stmts.into_iter().map(|s| (s, limit == Limit::Height)));
                    }
                    Some(e) => add(e),
                    None => {}
                }
            }
            StmtKind::While(_, b) | StmtKind::Atomic(b) | StmtKind::NoReorder(b) => add(b),
            _ => {}
        }
        let comparable = |s: &Stmt| !matches!(&s.kind, StmtKind::TooDeep(o) if o.limit != limit);
        inner
            .into_iter()
            .filter(|(s, _)| comparable(s))
            .max_by_key(|(s, new_level)| s.levels(limit).saturating_add(u32::from(*new_level)))
    }
}

/// The first byte of a span: where a too-deep construct starts (the whole span may be huge).
pub(crate) fn head(s: Span) -> Span {
    Span { start: s.start, end: s.start.saturating_add(1).min(s.end.max(s.start)) }
}
