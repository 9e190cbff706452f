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

    /// The `if` of an `else if`: the block's one statement, when it is an `if`.
    pub(crate) fn else_if(&self) -> Option<&Stmt> {
        match self.stmts.as_slice() {
            [s] if matches!(s.kind, StmtKind::If(..)) => Some(s),
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
}

impl Expr {
    pub(crate) fn leaf(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span, depth: 1 }
    }

    pub(crate) fn unary(op: UnOp, e: Expr, span: Span) -> Expr {
        let depth = e.depth.saturating_add(1);
        Expr { kind: ExprKind::Unary(op, Box::new(e)), span, depth }
    }

    /// `a op b`; when `a` is a chain of `op`'s precedence level, `b` extends it, so that a
    /// long flat expression stays one level deep.
    pub(crate) fn binary(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
        let depth = a.depth.max(b.depth.saturating_add(1));
        match a.kind {
            ExprKind::Chain(first, mut links) if links[0].0.precedence() == op.precedence() => {
                links.push((op, b));
                Expr { kind: ExprKind::Chain(first, links), span, depth }
            }
            kind => {
                let a = Expr { kind, ..a };
                let depth = depth.max(a.depth.saturating_add(1));
                Expr { kind: ExprKind::Chain(Box::new(a), vec![(op, b)]), span, depth }
            }
        }
    }
}

/// What the grammar's fallible actions report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum UserError {
    /// Statements nested deeper than [`MAX_DEPTH`]: the whole (innermost) statement that
    /// passes it.
    StmtTooDeep(Span),
    /// Statements and `else if` links more than [`MAX_HEIGHT`] levels high: the head of the
    /// statement that passes it.
    ElseIfTooLong(Span),
    /// An expression nested deeper than [`MAX_EXPR_DEPTH`]: the head of the expression that
    /// passes it.
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

type ActionResult<'s, T> = Result<T, lalrpop_util::ParseError<usize, crate::lexer::Tok<'s>, UserError>>;

/// A compound statement, unless it nests too deep.
pub(crate) fn checked<'s>(s: Stmt) -> ActionResult<'s, Stmt> {
    if s.depth > MAX_DEPTH {
        Err(lalrpop_util::ParseError::User { error: UserError::StmtTooDeep(s.span) })
    } else if s.height > MAX_HEIGHT {
        Err(lalrpop_util::ParseError::User { error: UserError::ElseIfTooLong(head(s.span)) })
    } else {
        Ok(s)
    }
}

fn checked_expr<'s>(e: Expr) -> ActionResult<'s, Expr> {
    if e.depth > MAX_EXPR_DEPTH {
        Err(lalrpop_util::ParseError::User { error: UserError::ExprTooDeep(head(e.span)) })
    } else {
        Ok(e)
    }
}

/// A binary expression, unless it nests too deep (a chain of one precedence level is one
/// level: [`Expr::binary`]).
pub(crate) fn bin<'s>(op: BinOp, a: Expr, b: Expr, l: usize, r: usize) -> ActionResult<'s, Expr> {
    checked_expr(Expr::binary(op, a, b, span(l, r)))
}

/// A unary expression, unless it nests too deep.
pub(crate) fn un<'s>(op: UnOp, e: Expr, l: usize, r: usize) -> ActionResult<'s, Expr> {
    checked_expr(Expr::unary(op, e, span(l, r)))
}

/// The first byte of a span: where a too-deep construct starts (the whole span may be huge).
pub(crate) fn head(s: Span) -> Span {
    Span { start: s.start, end: s.start.saturating_add(1).min(s.end.max(s.start)) }
}
