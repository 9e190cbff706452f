//! Static checks and lowering of the syntax tree to the IR.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ast::{self, BodyKind, Decl, ExprKind, Lit, StmtKind as A};
use crate::diag::{line_col, Diagnostic, Diagnostics};
use crate::ir::*;
use paces_constraint::{BlockId, Loc};

/// Lowers a parsed program, running every static check.
pub(crate) fn lower(decls: &[Decl], source: &str) -> Result<Program, Diagnostics> {
    let mut l = Lowerer::new(source);
    l.run(decls);
    if let Some(d) = Diagnostics::new(std::mem::take(&mut l.diags)) {
        return Err(d);
    }
    let program = Program::new(Parts {
        vars: l.vars,
        threads: l.threads,
        procs: l.procs,
        stmts: l.stmts,
        blocks: l.blocks,
        loc_names: l.loc_names,
        source_texts: std::collections::BTreeMap::new(),
        source_steps: std::collections::BTreeMap::new(),
        source_threads: std::collections::BTreeMap::new(),
        assertd: l.assertd,
        thread_structure: std::collections::BTreeSet::new(),
    });
    Ok(program)
}

struct Lowerer<'a> {
    source: &'a str,
    diags: Vec<Diagnostic>,
    vars: Vec<Var>,
    globals: FxHashMap<String, VarIdx>,
    threads: Vec<Thread>,
    procs: Vec<Proc>,
    owners: FxHashMap<String, (Owner, Span)>,
    stmts: Vec<Stmt>,
    blocks: Vec<Block>,
    loc_names: Vec<String>,
    /// Every location name: its span and how it was made.
    labels: FxHashMap<String, (Span, LabelKind)>,
    /// Call edges between procedures: (caller, callee, call span).
    proc_calls: Vec<(ProcIdx, ProcIdx, Span)>,
    /// The statements written `assertd`.
    assertd: std::collections::BTreeSet<StmtId>,
}

/// How a location name came about.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LabelKind {
    Written,
    Generated,
    Derived,
}

/// The number of the next generated label of `owner` after a statement labelled `label` was
/// numbered `counter`: `counter + 1`, but at least `N + 1` after a written label `OWNER.N` of
/// the owner's own form (no less than `counter` either: such a label is a statement of the
/// owner that a repair moved or that an added section shifted, and the statements after it
/// keep the names the original gave them). The printer's `shown_labels` counts the same way.
pub(crate) fn next_counter(owner: &str, counter: u64, label: &str) -> u64 {
    match generated_number(owner, label) {
        Some(n) if n != counter => counter.max(n.saturating_add(1)),
        _ => counter + 1,
    }
}

/// `N` when `label` has the form `OWNER.N` of the owner's generated labels (N decimal, as the
/// parser writes it).
fn generated_number(owner: &str, label: &str) -> Option<u64> {
    let digits = label.strip_prefix(owner)?.strip_prefix('.')?;
    let n: u64 = digits.parse().ok()?;
    (n.to_string() == digits).then_some(n)
}

/// What the statements of one thread or procedure see.
struct Ctx {
    owner: Owner,
    owner_name: String,
    locals: FxHashMap<String, VarIdx>,
    /// The procedures the body calls directly: their locals are visible as `PROC.LOCAL`.
    callees: FxHashSet<String>,
    counter: u64,
}

impl Ctx {
    fn owner_kind(&self) -> &'static str {
        match self.owner {
            Owner::Thread(_) => "thread",
            Owner::Proc(_) => "procedure",
        }
    }
}

/// The names of the procedures a body calls directly (outside nested procedures' bodies).
fn direct_callees(stmts: &[ast::Stmt]) -> FxHashSet<String> {
    let mut out = FxHashSet::default();
    let mut stack: Vec<&ast::Stmt> = stmts.iter().collect();
    while let Some(s) = stack.pop() {
        match &s.kind {
            A::Call(name) => {
                out.insert(name.text.clone());
            }
            A::If(_, t, e) => {
                stack.extend(&t.stmts);
                stack.extend(e.iter().flat_map(|e| &e.stmts));
            }
            A::While(_, b) | A::Atomic(b) | A::NoReorder(b) => stack.extend(&b.stmts),
            _ => {}
        }
    }
    out
}

fn pos(source: &str, span: Span) -> String {
    let (l, c) = line_col(source, span.start as usize);
    format!("{l}:{c}")
}

fn var_id(i: usize) -> VarIdx {
    VarIdx::new(i).expect("fewer than 2^32 variables (the source is shorter than 4 GiB)")
}

impl<'a> Lowerer<'a> {
    fn new(source: &'a str) -> Self {
        Lowerer {
            source,
            diags: Vec::new(),
            vars: Vec::new(),
            globals: FxHashMap::default(),
            threads: Vec::new(),
            procs: Vec::new(),
            owners: FxHashMap::default(),
            stmts: Vec::new(),
            blocks: Vec::new(),
            loc_names: Vec::new(),
            labels: FxHashMap::default(),
            proc_calls: Vec::new(),
            assertd: std::collections::BTreeSet::new(),
        }
    }

    fn run(&mut self, decls: &[Decl]) {
        // Globals first, wherever they are declared.
        for d in decls {
            if let Decl::Vars(vs) = d {
                for v in vs {
                    if let Some(&prev) = self.globals.get(&v.name.text) {
                        self.duplicate_var(&v.name, prev);
                        continue;
                    }
                    let init = self.init(v.init.as_ref());
                    let idx = var_id(self.vars.len());
                    self.vars.push(Var { name: v.name.text.clone(), init, scope: VarScope::Global, span: v.name.span });
                    self.globals.insert(v.name.text.clone(), idx);
                }
            }
        }
        // Thread and procedure names share one namespace (generated labels start with them).
        let bodies: Vec<&ast::Body> =
            decls.iter().filter_map(|d| if let Decl::Body(b) = d { Some(b) } else { None }).collect();
        let mut ids: Vec<Option<Owner>> = Vec::with_capacity(bodies.len());
        for b in &bodies {
            if let Some(&(prev, span)) = self.owners.get(&b.name.text) {
                let (code, what) = match b.kind {
                    BodyKind::Thread => ("E0104", "thread"),
                    BodyKind::Proc => ("E0105", "procedure"),
                };
                let prev_what = match prev {
                    Owner::Thread(_) => "thread",
                    Owner::Proc(_) => "procedure",
                };
                self.diags.push(
                    Diagnostic::new(
                        code,
                        format!("{what} `{}` is declared twice", b.name.text),
                        b.name.span,
                        "declared again here",
                    )
                    .note(format!("a {prev_what} of that name is declared at {}", pos(self.source, span)))
                    .note("threads and procedures share one namespace"),
                );
                ids.push(None);
                continue;
            }
            let owner = match b.kind {
                BodyKind::Thread => {
                    let id = ThreadIdx::new(self.threads.len()).expect("fewer than 2^32 threads");
                    self.threads.push(Thread {
                        name: b.name.text.clone(),
                        locals: Vec::new(),
                        body: BlockId::from_u32(0),
                        span: b.span,
                    });
                    Owner::Thread(id)
                }
                BodyKind::Proc => {
                    let id = ProcIdx::new(self.procs.len()).expect("fewer than 2^32 procedures");
                    self.procs.push(Proc {
                        name: b.name.text.clone(),
                        locals: Vec::new(),
                        body: BlockId::from_u32(0),
                        span: b.span,
                    });
                    Owner::Proc(id)
                }
            };
            self.owners.insert(b.name.text.clone(), (owner, b.name.span));
            ids.push(Some(owner));
        }
        if self.threads.is_empty() && !bodies.iter().any(|b| b.kind == BodyKind::Thread) {
            let end = self.source.len() as u32;
            self.diags.push(
                Diagnostic::new(
                    "E0112",
                    "the program has no thread",
                    Span { start: 0, end: end.min(1) },
                    "no `thread` in this file",
                )
                .note("a program needs at least one `thread NAME { ... }`"),
            );
        }
        // Locals: thread locals in thread order, then procedure locals in procedure order.
        for kind in [BodyKind::Thread, BodyKind::Proc] {
            for (b, owner) in bodies.iter().zip(&ids) {
                if b.kind == kind {
                    if let Some(owner) = owner {
                        self.declare_locals(b, *owner);
                    }
                }
            }
        }
        // Bodies in source order.
        for (b, owner) in bodies.iter().zip(&ids) {
            if let Some(owner) = *owner {
                self.lower_body(b, owner);
            }
        }
        self.check_recursion();
    }

    fn duplicate_var(&mut self, name: &ast::Name, prev: VarIdx) {
        let first = self.vars[prev.index()].span;
        self.diags.push(
            Diagnostic::new(
                "E0106",
                format!("variable `{}` is declared twice", name.text),
                name.span,
                "declared again here",
            )
            .note(format!("first declared at {}", pos(self.source, first))),
        );
    }

    fn init(&mut self, init: Option<&ast::Init>) -> i64 {
        let Some(init) = init else { return 0 };
        match init.value {
            Lit::Bool(b) => i64::from(b),
            Lit::Num(n) => self.literal(n, init.negative, init.span),
        }
    }

    /// The value of a literal, negated when `negative`; out of range is an error.
    fn literal(&mut self, n: u128, negative: bool, span: Span) -> i64 {
        let limit = if negative { 1u128 << 63 } else { (1u128 << 63) - 1 };
        if n > limit {
            let text = if n == u128::MAX {
                "a number".to_owned()
            } else {
                format!("`{}{n}`", if negative { "-" } else { "" })
            };
            self.diags.push(
                Diagnostic::new(
                    "E0111",
                    format!("integer literal {text} is out of range"),
                    span,
                    "does not fit in 64 bits",
                )
                .note("integers are 64-bit: from -9223372036854775808 to 9223372036854775807"),
            );
            return 0;
        }
        if negative {
            (n as i128).wrapping_neg() as i64
        } else {
            n as i64
        }
    }

    fn locals_of(&self, owner: Owner) -> &[VarIdx] {
        match owner {
            Owner::Thread(t) => &self.threads[t.index()].locals,
            Owner::Proc(p) => &self.procs[p.index()].locals,
        }
    }

    fn declare_locals(&mut self, b: &ast::Body, owner: Owner) {
        let scope = match owner {
            Owner::Thread(t) => VarScope::Thread(t),
            Owner::Proc(p) => VarScope::Proc(p),
        };
        let mut mine: Vec<VarIdx> = Vec::new();
        for v in &b.locals {
            if let Some(&g) = self.globals.get(&v.name.text) {
                let first = self.vars[g.index()].span;
                self.diags.push(
                    Diagnostic::new(
                        "E0107",
                        format!("local `{}` has the name of a global variable", v.name.text),
                        v.name.span,
                        "this local would hide the global",
                    )
                    .note(format!("the global is declared at {}", pos(self.source, first)))
                    .note("locals may not share a name with a global; rename one of them"),
                );
                continue;
            }
            if let Some(&prev) = mine.iter().find(|&&i| self.vars[i.index()].name == v.name.text) {
                self.duplicate_var(&v.name, prev);
                continue;
            }
            let init = self.init(v.init.as_ref());
            let idx = var_id(self.vars.len());
            self.vars.push(Var { name: v.name.text.clone(), init, scope, span: v.name.span });
            mine.push(idx);
        }
        match owner {
            Owner::Thread(t) => self.threads[t.index()].locals = mine,
            Owner::Proc(p) => self.procs[p.index()].locals = mine,
        }
    }

    fn new_block(&mut self, owner: Owner, parent: Option<StmtId>, in_atomic: bool) -> BlockId {
        let id = BlockId::new(self.blocks.len()).expect("fewer than 2^32 blocks");
        self.blocks.push(Block { items: Vec::new(), owner, parent, in_atomic });
        id
    }

    fn new_loc(&mut self, name: String, span: Span, kind: LabelKind) -> Loc {
        if let Some(&(first, first_kind)) = self.labels.get(&name) {
            let mut d = Diagnostic::new("E0103", format!("label `{name}` is used twice"), span, "used again here")
                .note(format!("first used at {}", pos(self.source, first)));
            if kind == LabelKind::Generated || first_kind == LabelKind::Generated {
                d = d.note(format!(
                    "`{name}` is also the label generated for an unlabelled statement; \
                     give that statement a label or pick another name"
                ));
            }
            if kind == LabelKind::Derived || first_kind == LabelKind::Derived {
                d = d.note(format!(
                    "`{name}` names a step that a sugar (`if (b)`, `while (b)`, `lock`, `down`) adds; \
                     pick another name"
                ));
            }
            self.diags.push(d);
        } else {
            self.labels.insert(name.clone(), (span, kind));
        }
        let loc = Loc::new(self.loc_names.len()).expect("fewer than 2^32 locations");
        self.loc_names.push(name);
        loc
    }

    fn lower_body(&mut self, b: &ast::Body, owner: Owner) {
        let body = self.new_block(owner, None, false);
        match owner {
            Owner::Thread(t) => self.threads[t.index()].body = body,
            Owner::Proc(p) => self.procs[p.index()].body = body,
        }
        let locals = self.locals_of(owner).iter().map(|&v| (self.vars[v.index()].name.clone(), v)).collect();
        let callees = direct_callees(&b.stmts);
        let mut ctx = Ctx { owner, owner_name: b.name.text.clone(), locals, callees, counter: 0 };
        self.lower_block(&b.stmts, body, &mut ctx, 0);
    }

    fn lower_block(&mut self, stmts: &[ast::Stmt], block: BlockId, ctx: &mut Ctx, depth: u32) {
        for s in stmts {
            if depth >= ast::MAX_DEPTH {
                self.diags.push(Diagnostic::new(
                    "E0006",
                    format!("statements are nested deeper than {} levels", ast::MAX_DEPTH),
                    s.span,
                    "too deep",
                ));
                return;
            }
            let id = self.lower_stmt(s, block, ctx, depth);
            self.blocks[block.index()].items.push(id);
        }
    }

    fn lower_stmt(&mut self, s: &ast::Stmt, block: BlockId, ctx: &mut Ctx, depth: u32) -> StmtId {
        let id = StmtId::new(self.stmts.len()).expect("fewer than 2^32 statements");
        let (label, explicit, kind) = match &s.label {
            Some(l) => (l.text.clone(), l.explicit, LabelKind::Written),
            None => (format!("{}.{}", ctx.owner_name, ctx.counter), false, LabelKind::Generated),
        };
        ctx.counter = next_counter(&ctx.owner_name, ctx.counter, &label);
        let label_span = s.label.as_ref().map_or(s.span, |l| l.span);
        let loc = self.new_loc(label.clone(), label_span, kind);
        // Reserve the id so that statements are numbered in pre-order.
        self.stmts.push(Stmt {
            label: label.clone(),
            explicit_label: explicit,
            loc,
            kind: StmtKind::Skip,
            block,
            span: s.span,
        });
        let in_atomic = self.blocks[block.index()].in_atomic;
        let kind = match &s.kind {
            A::Assign(name, e) => {
                let var = self.resolve(name, ctx, true);
                let expr = self.expr(e, ctx);
                StmtKind::Assign { var, expr }
            }
            A::Assume(e) => StmtKind::Assume(self.expr(e, ctx)),
            A::Await(e) => StmtKind::Await(self.expr(e, ctx)),
            A::Assert(e) => StmtKind::Assert(self.expr(e, ctx)),
            A::AssertD(e) => {
                self.assertd.insert(id);
                StmtKind::Assert(self.expr(e, ctx))
            }
            // The parser reported the last two: a tree holding them is never lowered.
            A::Skip | A::Error | A::TooDeep(_) => StmtKind::Skip,
            A::If(c, t, e) => {
                let cond = self.cond(c.as_ref(), &label, ["then", "else"], s.span, ctx);
                let then_block = self.new_block(ctx.owner, Some(id), in_atomic);
                self.lower_block(&t.stmts, then_block, ctx, depth + 1);
                let else_block = e.as_ref().map(|e| {
                    let b = self.new_block(ctx.owner, Some(id), in_atomic);
                    let link = if e.else_if().is_some() { depth } else { depth + 1 };
                    self.lower_block(&e.stmts, b, ctx, link);
                    b
                });
                StmtKind::If { cond, then_block, else_block }
            }
            A::While(c, b) => {
                let cond = self.cond(c.as_ref(), &label, ["body", "exit"], s.span, ctx);
                let body = self.new_block(ctx.owner, Some(id), in_atomic);
                self.lower_block(&b.stmts, body, ctx, depth + 1);
                StmtKind::While { cond, body }
            }
            A::Atomic(b) => {
                let body = self.new_block(ctx.owner, Some(id), true);
                self.lower_block(&b.stmts, body, ctx, depth + 1);
                StmtKind::Atomic(body)
            }
            A::NoReorder(b) => {
                let body = self.new_block(ctx.owner, Some(id), in_atomic);
                self.lower_block(&b.stmts, body, ctx, depth + 1);
                StmtKind::NoReorder(body)
            }
            A::Call(name) => self.lower_call(name, s.span, ctx),
            A::Lock(m) | A::Down(m) => self.lower_acquire(m, &s.kind, &label, label_span, ctx),
            A::Unlock(m) => StmtKind::Unlock(self.resolve_sync(m, &s.kind, ctx)),
            A::Up(m) => StmtKind::Up(self.resolve_sync(m, &s.kind, ctx)),
        };
        self.stmts[id.index()].kind = kind;
        id
    }

    /// Lowers a call of `name`: a procedure's, or an error for an unknown name or a thread.
    fn lower_call(&mut self, name: &ast::Name, span: Span, ctx: &Ctx) -> StmtKind {
        match self.owners.get(&name.text) {
            Some(&(Owner::Proc(p), _)) => {
                if let Owner::Proc(caller) = ctx.owner {
                    self.proc_calls.push((caller, p, span));
                }
                StmtKind::Call(p)
            }
            other => {
                let mut d = Diagnostic::new(
                    "E0109",
                    format!("call to unknown procedure `{}`", name.text),
                    name.span,
                    "no procedure of this name",
                );
                if let Some((Owner::Thread(_), _)) = other {
                    d = d.note(format!("`{}` is a thread; only procedures can be called", name.text));
                }
                self.diags.push(d);
                StmtKind::Skip
            }
        }
    }

    /// Lowers `lock(m)` or `down(m)` (by `kind`): a wait step and a set step, labelled after
    /// the statement's `label`.
    fn lower_acquire(&mut self, m: &ast::Name, kind: &A, label: &str, label_span: Span, ctx: &Ctx) -> StmtKind {
        let var = self.resolve_sync(m, kind, ctx);
        let v = Expr::Var(var);
        let is_lock = matches!(kind, A::Lock(_));
        let (wait_expr, set_expr) = if is_lock {
            (Expr::binary(BinOp::Eq, v, Expr::Int(0)), Expr::Int(1))
        } else {
            (Expr::binary(BinOp::Gt, v.clone(), Expr::Int(0)), Expr::binary(BinOp::Sub, v, Expr::Int(1)))
        };
        let wait_label = format!("{label}.wait");
        let wait = Step {
            loc: self.new_loc(wait_label.clone(), label_span, LabelKind::Derived),
            label: wait_label,
            expr: wait_expr,
        };
        let set_label = format!("{label}.set");
        let set = Step {
            loc: self.new_loc(set_label.clone(), label_span, LabelKind::Derived),
            label: set_label,
            expr: set_expr,
        };
        if is_lock {
            StmtKind::Lock { var, wait, set }
        } else {
            StmtKind::Down { var, wait, set }
        }
    }

    fn cond(&mut self, c: Option<&ast::Expr>, label: &str, names: [&str; 2], span: Span, ctx: &Ctx) -> Cond {
        let Some(c) = c else { return Cond::Star };
        let cond = self.expr(c, ctx);
        let then_label = format!("{label}.{}", names[0]);
        let then_guard = Step {
            loc: self.new_loc(then_label.clone(), span, LabelKind::Derived),
            label: then_label,
            expr: cond.clone(),
        };
        let else_label = format!("{label}.{}", names[1]);
        let else_guard = Step {
            loc: self.new_loc(else_label.clone(), span, LabelKind::Derived),
            label: else_label,
            expr: Expr::Unary(UnOp::Not, Box::new(cond.clone())),
        };
        Cond::Expr { cond, then_guard, else_guard }
    }

    /// A variable visible in `ctx`; reports an unknown one (and returns a placeholder).
    fn resolve(&mut self, name: &ast::Name, ctx: &Ctx, assigned: bool) -> VarIdx {
        if let Some(&v) = ctx.locals.get(&name.text).or_else(|| self.globals.get(&name.text)) {
            return v;
        }
        if let Some((proc_name, local)) = name.text.split_once('.') {
            return self.resolve_qualified(name, proc_name, local, ctx);
        }
        let (code, message) = if assigned {
            ("E0102", format!("assignment to unknown variable `{}`", name.text))
        } else {
            ("E0101", format!("unknown variable `{}`", name.text))
        };
        let mut d = Diagnostic::new(code, message, name.span, "not declared here");
        if let Some(other) = self.vars.iter().find(|v| v.name == name.text) {
            let whose = match other.scope {
                VarScope::Global => String::new(),
                VarScope::Thread(t) => format!("thread `{}`", self.threads[t.index()].name),
                VarScope::Proc(p) => format!("procedure `{}`", self.procs[p.index()].name),
            };
            d = d.note(format!(
                "`{}` is a local of {whose}; only globals and the {}'s own locals are visible here",
                name.text,
                ctx.owner_kind()
            ));
        } else {
            d = d.note("declare it with `var` (shared) or `local` (at the start of the thread or procedure)");
        }
        self.diags.push(d);
        VarIdx::from_u32(0)
    }

    /// `PROC.LOCAL`: a local of a procedure the body calls directly (how a caller passes values
    /// to a procedure and reads its results; each thread has its own copy).
    fn resolve_qualified(&mut self, name: &ast::Name, proc_name: &str, local: &str, ctx: &Ctx) -> VarIdx {
        let proc = match self.owners.get(proc_name) {
            Some(&(Owner::Proc(p), _)) => Some(p),
            _ => None,
        };
        let found = proc
            .and_then(|p| self.procs[p.index()].locals.iter().copied().find(|&v| self.vars[v.index()].name == local));
        let (message, note) = match (proc, found) {
            (_, Some(v)) if ctx.callees.contains(proc_name) => return v,
            (_, Some(_)) => (
                format!("`{}` is used here, but this {} does not call `{proc_name}`", name.text, ctx.owner_kind()),
                format!("a procedure's locals are visible as `{proc_name}.NAME` only in the bodies that call it"),
            ),
            (Some(_), None) => (
                format!("procedure `{proc_name}` has no local `{local}`"),
                "`PROC.NAME` names a `local` declared at the start of procedure PROC".to_owned(),
            ),
            (None, _) => (
                format!("unknown variable `{}`: there is no procedure `{proc_name}`", name.text),
                "`PROC.NAME` names a local of procedure PROC; other names may not contain `.`".to_owned(),
            ),
        };
        self.diags.push(Diagnostic::new("E0114", message, name.span, "not visible here").note(note));
        VarIdx::from_u32(0)
    }

    /// The variable of `lock`/`unlock`/`down`/`up`: it must be a global.
    fn resolve_sync(&mut self, name: &ast::Name, kind: &A, ctx: &Ctx) -> VarIdx {
        let v = self.resolve(name, ctx, false);
        if ctx.locals.contains_key(&name.text) {
            let what = match kind {
                A::Lock(_) => "lock",
                A::Unlock(_) => "unlock",
                A::Down(_) => "down",
                _ => "up",
            };
            self.diags.push(
                Diagnostic::new(
                    "E0113",
                    format!("`{what}` needs a global variable, but `{}` is a local", name.text),
                    name.span,
                    "a local",
                )
                .note("locks and semaphores synchronise threads, so they must be shared: declare them with `var`"),
            );
        }
        v
    }

    fn expr(&mut self, e: &ast::Expr, ctx: &Ctx) -> Expr {
        match &e.kind {
            ExprKind::Lit(Lit::Bool(b)) => Expr::Bool(*b),
            ExprKind::Lit(Lit::Num(n)) => Expr::Int(self.literal(*n, false, e.span)),
            ExprKind::Var(name) => Expr::Var(self.resolve(name, ctx, false)),
            // `-9223372036854775808` is the one literal that only exists negated; every other
            // negation stays an operator, so that printing and parsing again gives the same IR.
            ExprKind::Unary(UnOp::Neg, inner) if inner.kind == ExprKind::Lit(Lit::Num(1 << 63)) => {
                Expr::Int(self.literal(1 << 63, true, e.span))
            }
            ExprKind::Unary(op, inner) => Expr::Unary(*op, Box::new(self.expr(inner, ctx))),
            // The parser reported it: a tree holding it is never lowered.
            ExprKind::TooDeep { .. } => Expr::Bool(false),
            ExprKind::Chain(first, links) => {
                links.iter().fold(self.expr(first, ctx), |acc, (op, e)| Expr::binary(*op, acc, self.expr(e, ctx)))
            }
        }
    }

    /// Reports every cycle of procedure calls (one report per procedure that closes one).
    fn check_recursion(&mut self) {
        let n = self.procs.len();
        let mut succ: Vec<Vec<(ProcIdx, Span)>> = vec![Vec::new(); n];
        for &(a, b, span) in &self.proc_calls {
            succ[a.index()].push((b, span));
        }
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; n];
        let mut reported = vec![false; n];
        for root in 0..n {
            if state[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            state[root] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if let Some(&(callee, span)) = succ[node].get(*next) {
                    *next += 1;
                    let c = callee.index();
                    match state[c] {
                        0 => {
                            state[c] = 1;
                            stack.push((c, 0));
                        }
                        1 if !reported[c] => {
                            reported[c] = true;
                            let start = stack.iter().position(|&(p, _)| p == c).unwrap_or(0);
                            let mut path: Vec<String> =
                                stack[start..].iter().map(|&(p, _)| format!("`{}`", self.procs[p].name)).collect();
                            path.push(format!("`{}`", self.procs[c].name));
                            let cycle = path.join(" -> ");
                            self.diags.push(
                                Diagnostic::new(
                                    "E0110",
                                    format!("recursive call: {cycle}"),
                                    span,
                                    format!("this call closes the cycle {cycle}"),
                                )
                                .note("procedures may not call themselves, directly or through other procedures"),
                            );
                        }
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
    }
}
