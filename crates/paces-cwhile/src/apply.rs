//! Applying a candidate (new block orders and atomic sections) to a program.

use paces_constraint::{BlockId, Candidate, Loc};
use rustc_hash::FxHashSet;

use crate::ast::{self, BodyKind, Decl, ExprKind, Lit};
use crate::error::{Error, ErrorKind};
use crate::ir::{Cond, Expr, Owner, Program, Span, StmtId, StmtKind, UnOp, VarIdx};
use crate::print::decl_order;

impl Program {
    /// The program that `candidate` describes: every block in its new order, and each added
    /// atomic section as a user-visible `atomic { }` statement around its items. The new
    /// statement is labelled `atomic_<label of its first item>` (with `_2`, `_3`, ... added
    /// when that is taken); every other label is kept, and so are the marks of
    /// [`Parts::thread_structure`](crate::ir::Parts::thread_structure). Spans point into the
    /// original source.
    ///
    /// The candidate must come from [`Program::space`] of this program.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidCandidate`] when the candidate does not fit this program's space.
    pub fn apply(&self, candidate: &Candidate) -> Result<Program, Error> {
        let space = self.space();
        let orders: Vec<Vec<Loc>> = space.blocks().map(|b| candidate.order(b).to_vec()).collect();
        let sections: Vec<(Loc, Loc)> = candidate.sections().iter().map(|s| (s.first, s.last)).collect();
        // Re-validate against this program's own space: a candidate of another space is an
        // error, never a silently wrong program.
        let checked = Candidate::new(&space, orders, &sections).map_err(|e| {
            Error::new(ErrorKind::InvalidCandidate, format!("the candidate does not fit the program: {e}"))
        })?;
        let mut b = Builder { p: self, c: &checked, taken: self.loc_names.iter().cloned().collect() };
        let decls = b.decls();
        let applied = crate::lower::lower(&decls, "")
            .map_err(|d| Error::new(ErrorKind::Rejected, format!("the transformed program is not valid: {d}")))?;
        // The threads' structure is marked on the statements with the same labels.
        let marked: Vec<StmtId> = self
            .thread_structure
            .iter()
            .filter_map(|&id| self.stmts.get(id.index()))
            .filter_map(|s| applied.loc(&s.label).and_then(|l| applied.stmt_at(l)))
            .collect();
        let mut parts = applied.into_parts();
        parts.source_texts.clone_from(&self.source_texts);
        parts.source_steps.clone_from(&self.source_steps);
        parts.source_threads.clone_from(&self.source_threads);
        parts.thread_structure.extend(marked);
        Ok(Program::new(parts))
    }
}

struct Builder<'a> {
    p: &'a Program,
    c: &'a Candidate,
    taken: FxHashSet<String>,
}

fn name(text: &str, span: Span) -> ast::Name {
    ast::Name { text: text.to_owned(), span }
}

impl Builder<'_> {
    fn decls(&mut self) -> Vec<Decl> {
        let p = self.p;
        let mut decls = Vec::new();
        let globals: Vec<ast::VarDecl> =
            p.vars[..p.global_count()].iter().map(|v| var_decl(&v.name, v.init, v.span)).collect();
        if !globals.is_empty() {
            decls.push(Decl::Vars(globals));
        }
        for owner in decl_order(p) {
            let (kind, n, locals, body, span) = match owner {
                Owner::Thread(t) => {
                    let t = &p.threads[t.index()];
                    (BodyKind::Thread, &t.name, &t.locals, t.body, t.span)
                }
                Owner::Proc(q) => {
                    let q = &p.procs[q.index()];
                    (BodyKind::Proc, &q.name, &q.locals, q.body, q.span)
                }
            };
            let locals = locals
                .iter()
                .filter_map(|v| p.vars.get(v.index()))
                .map(|v| var_decl(&v.name, v.init, v.span))
                .collect();
            let stmts = self.block(body);
            decls.push(Decl::Body(ast::Body { kind, name: name(n, span), locals, stmts, span }));
        }
        decls
    }

    /// The statements of a block in the candidate's order, with its sections wrapped.
    fn block(&mut self, block: BlockId) -> Vec<ast::Stmt> {
        let order = self.c.order(block).to_vec();
        let mut out = Vec::with_capacity(order.len());
        let mut i = 0;
        while i < order.len() {
            let section = self.c.section_of(order[i]).filter(|s| s.first == order[i]).copied();
            match section {
                Some(s) => {
                    let mut inner = Vec::new();
                    let first = self.stmt_of(order[i]);
                    while i < order.len() {
                        let loc = order[i];
                        if let Some(id) = self.stmt_of(loc) {
                            inner.push(self.stmt(id));
                        }
                        i += 1;
                        if loc == s.last {
                            break;
                        }
                    }
                    let first_label = first.map_or("section", |id| self.p.stmts[id.index()].label.as_str()).to_owned();
                    let span = inner.first().map_or(Span::default(), |s| s.span);
                    let label = self.fresh(&format!("atomic_{first_label}"));
                    let body = ast::Block { stmts: inner, span };
                    let mut st = ast::Stmt::new(ast::StmtKind::Atomic(body), span);
                    st.label = Some(ast::Label { text: label, span, explicit: false });
                    out.push(st);
                }
                None => {
                    if let Some(id) = self.stmt_of(order[i]) {
                        out.push(self.stmt(id));
                    }
                    i += 1;
                }
            }
        }
        out
    }

    fn fresh(&mut self, base: &str) -> String {
        let mut label = base.to_owned();
        let mut k = 2;
        while self.taken.contains(&label) {
            label = format!("{base}_{k}");
            k += 1;
        }
        self.taken.insert(label.clone());
        label
    }

    fn stmt_of(&self, loc: Loc) -> Option<StmtId> {
        self.p.stmt_at(loc)
    }

    /// A variable as a statement of `owner` names it (`PROC.NAME` for a callee's local).
    fn var(&self, v: VarIdx, owner: Option<Owner>, span: Span) -> ast::Name {
        name(&crate::print::var_text(self.p, v, owner), span)
    }

    fn stmt(&mut self, id: StmtId) -> ast::Stmt {
        let s = &self.p.stmts[id.index()];
        let span = s.span;
        let owner = crate::print::owner_of(self.p, s);
        let e = |e: &Expr| self.expr(e, owner, span);
        let cond = |c: &Cond| match c {
            Cond::Star => None,
            Cond::Expr { cond, .. } => Some(self.expr(cond, owner, span)),
        };
        use ast::StmtKind as A;
        let kind = match &s.kind {
            StmtKind::Assign { var, expr } => A::Assign(self.var(*var, owner, span), e(expr)),
            StmtKind::Assume(x) => A::Assume(e(x)),
            StmtKind::Await(x) => A::Await(e(x)),
            StmtKind::Assert(x) if self.p.assertd.contains(&id) => A::AssertD(e(x)),
            StmtKind::Assert(x) => A::Assert(e(x)),
            StmtKind::Skip => A::Skip,
            StmtKind::If { cond: c, then_block, else_block } => {
                let c = cond(c);
                let t = ast::Block { stmts: self.block(*then_block), span };
                let el = else_block.map(|b| ast::Block { stmts: self.block(b), span });
                A::If(c, t, el)
            }
            StmtKind::While { cond: c, body } => {
                let c = cond(c);
                A::While(c, ast::Block { stmts: self.block(*body), span })
            }
            StmtKind::Atomic(b) => A::Atomic(ast::Block { stmts: self.block(*b), span }),
            StmtKind::NoReorder(b) => A::NoReorder(ast::Block { stmts: self.block(*b), span }),
            StmtKind::Call(q) => A::Call(name(self.p.procs.get(q.index()).map_or("?", |q| q.name.as_str()), span)),
            StmtKind::Lock { var, .. } => A::Lock(self.var(*var, owner, span)),
            StmtKind::Unlock(v) => A::Unlock(self.var(*v, owner, span)),
            StmtKind::Down { var, .. } => A::Down(self.var(*var, owner, span)),
            StmtKind::Up(v) => A::Up(self.var(*v, owner, span)),
        };
        let mut st = ast::Stmt::new(kind, span);
        st.label = Some(ast::Label { text: s.label.clone(), span, explicit: s.explicit_label });
        st
    }

    fn expr(&self, e: &Expr, owner: Option<Owner>, span: Span) -> ast::Expr {
        match e {
            Expr::Int(v) if *v < 0 => {
                let lit = ast::Expr::leaf(ExprKind::Lit(Lit::Num(u128::from(v.unsigned_abs()))), span);
                ast::Expr::unary(UnOp::Neg, lit, span)
            }
            Expr::Int(v) => ast::Expr::leaf(ExprKind::Lit(Lit::Num(*v as u128)), span),
            Expr::Bool(b) => ast::Expr::leaf(ExprKind::Lit(Lit::Bool(*b)), span),
            Expr::Var(v) => ast::Expr::leaf(ExprKind::Var(self.var(*v, owner, span)), span),
            Expr::Unary(op, a) => ast::Expr::unary(*op, self.expr(a, owner, span), span),
            Expr::Chain(c) => c.links().iter().fold(self.expr(c.first(), owner, span), |acc, (op, e)| {
                ast::Expr::binary(*op, acc, self.expr(e, owner, span), span)
            }),
        }
    }
}

fn var_decl(n: &str, init: i64, span: Span) -> ast::VarDecl {
    ast::VarDecl {
        name: name(n, span),
        init: Some(ast::Init { negative: init < 0, value: Lit::Num(u128::from(init.unsigned_abs())), span }),
    }
}
