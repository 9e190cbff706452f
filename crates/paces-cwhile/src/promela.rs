//! Export to Promela, for differential testing against SPIN.

use std::fmt::Write as _;

use paces_constraint::{BlockId, Waits};

use crate::diag::line_col;
use crate::error::{Error, ErrorKind};
use crate::ir::{BinOp, Chain, Cond, Expr, ProcIdx, Program, StmtId, StmtKind, UnOp, VarIdx, VarScope};

/// Translates a program to Promela (see `docs/language.md`, "Promela export").
///
/// Each thread becomes an `active proctype`; procedures are inlined at every call (each
/// inlined copy gets its own labels); `atomic` stays `atomic`, `await(b)` is the blocking
/// guard `(b)`, `assume(b)` is a guard whose failing branch blocks forever behind an
/// `end`-prefixed label (a trace cut by an assume is not a deadlock), `assert` stays
/// `assert`, and a division or remainder by zero or a shift by an amount outside 0..=63 is an
/// assertion failure. `if (*)` and `while (*)` become nondeterministic `if`/`do` whose options
/// start with the branch's first step; an empty branch is `skip`. Loop heads carry `end` labels so that an idle worker loop
/// is a valid end state. Names are prefixed (`g_` globals, `l_` thread locals, `pN_`
/// procedure locals, `Lk_` statement labels with `k` the location id) so they never clash
/// with Promela keywords. Promela's `int` has 32 bits where Cwhile has 64.
///
/// `source` is the text the program was parsed from (for a program built by
/// [`Program::apply`], the original's): it places the error.
///
/// # Errors
/// [`ErrorKind::WaitInAtomic`] when an atomic block waits somewhere other than at its first
/// step (an `await`, `lock` or `down`, or a call reaching one), or holds an `assume` other
/// than its first item: SPIN's `atomic` gives up its atomicity where it blocks, so the model
/// would mean something else than the program, whose atomic blocks run whole or not at all.
pub fn to_promela(p: &Program, source: &str) -> Result<String, Error> {
    refuse_inner_waits(p, source)?;
    let mut out = String::from("/* Generated from Cwhile by paces. */\n\n");
    for v in &p.vars[..p.global_count()] {
        let _ = writeln!(out, "int g_{} = {};", v.name, v.init);
    }
    if p.global_count() > 0 {
        out.push('\n');
    }
    for thread in &p.threads {
        let _ = writeln!(out, "active proctype t_{}() {{", thread.name);
        for &v in &thread.locals {
            if let Some(var) = p.vars.get(v.index()) {
                let _ = writeln!(out, "  int {} = {};", var_ref(p, v), var.init);
            }
        }
        // One copy of each reachable procedure's locals per thread.
        for q in reachable_procs(p, thread.body) {
            for &v in &p.procs[q.index()].locals {
                if let Some(var) = p.vars.get(v.index()) {
                    let _ = writeln!(out, "  int {} = {};", var_ref(p, v), var.init);
                }
            }
        }
        let mut e = Emitter { p, out: String::new(), counter: 0 };
        e.body(thread.body);
        out.push_str(&e.out);
        out.push_str("}\n\n");
    }
    Ok(out)
}

/// The error for the first atomic block (in statement order) that waits, or stops at an
/// `assume`, after its first step.
fn refuse_inner_waits(p: &Program, source: &str) -> Result<(), Error> {
    for s in &p.stmts {
        let StmtKind::Atomic(body) = s.kind else { continue };
        let (culprit, what) = match (offending_await(p, body), inner_assume(p, body)) {
            (Some(c), _) => (c, "waits"),
            (None, Some(c)) => (c, "may stop at an `assume`"),
            (None, None) => continue,
        };
        let c = &p.stmts[culprit.index()];
        let (line, col) = line_col(source, s.span.start as usize);
        let (wline, wcol) = line_col(source, c.span.start as usize);
        return Err(Error::new(
            ErrorKind::WaitInAtomic,
            format!(
                "cannot export to Promela: atomic block `{}` at {line}:{col} {what} after its first step \
                 (at `{}`, {wline}:{wcol}); SPIN's atomic gives up its atomicity where it blocks",
                s.label, c.label
            ),
        ));
    }
    Ok(())
}

/// The first `assume` statement inside `block` (through branches, loops, nested blocks and
/// calls) other than the block's first step: where a path through the block may stop after
/// changing something, which SPIN would let the other processes see.
fn inner_assume(p: &Program, block: BlockId) -> Option<StmtId> {
    // The block's first step, when it is an `assume`: its first item, through nested blocks.
    let mut allowed = None;
    let mut first = p.blocks.get(block.index())?.items.first().copied();
    while let Some(item) = first {
        match p.stmts.get(item.index()).map(|s| &s.kind) {
            Some(StmtKind::Assume(_)) => allowed = Some(item),
            Some(StmtKind::Atomic(b) | StmtKind::NoReorder(b)) => {
                first = p.blocks.get(b.index()).and_then(|b| b.items.first().copied());
                continue;
            }
            _ => {}
        }
        break;
    }
    let mut stack: Vec<StmtId> = p.blocks.get(block.index())?.items.iter().rev().copied().collect();
    let mut seen_procs = vec![false; p.procs.len()];
    while let Some(s) = stack.pop() {
        let Some(stmt) = p.stmts.get(s.index()) else { continue };
        let blocks = match &stmt.kind {
            StmtKind::Assume(_) if allowed != Some(s) => return Some(s),
            StmtKind::Call(q) => match seen_procs.get_mut(q.index()) {
                Some(seen) if !*seen => {
                    *seen = true;
                    vec![p.procs[q.index()].body]
                }
                _ => Vec::new(),
            },
            kind => kind.blocks().collect(),
        };
        for b in blocks.into_iter().rev() {
            if let Some(block) = p.blocks.get(b.index()) {
                stack.extend(block.items.iter().rev());
            }
        }
    }
    None
}

/// Procedures reachable through calls from a block, each once, in first-call order.
fn reachable_procs(p: &Program, body: BlockId) -> Vec<ProcIdx> {
    let mut seen = vec![false; p.procs.len()];
    let mut order = Vec::new();
    let mut blocks = vec![body];
    while let Some(b) = blocks.pop() {
        let Some(block) = p.blocks.get(b.index()) else { continue };
        for &s in block.items.iter().rev() {
            let Some(stmt) = p.stmts.get(s.index()) else { continue };
            match &stmt.kind {
                StmtKind::Call(q) => {
                    if let Some(flag) = seen.get_mut(q.index()) {
                        if !*flag {
                            *flag = true;
                            order.push(*q);
                            blocks.push(p.procs[q.index()].body);
                        }
                    }
                }
                kind => blocks.extend(kind.blocks()),
            }
        }
    }
    order
}

fn var_ref(p: &Program, v: VarIdx) -> String {
    match p.vars.get(v.index()) {
        Some(var) => match var.scope {
            VarScope::Global => format!("g_{}", var.name),
            VarScope::Thread(_) => format!("l_{}", var.name),
            VarScope::Proc(q) => format!("p{}_{}", q.index(), var.name),
        },
        None => "g_undefined".to_owned(),
    }
}

fn promela_expr(p: &Program, e: &Expr) -> String {
    fn go(p: &Program, e: &Expr, out: &mut String) {
        match e {
            Expr::Int(v) => {
                let _ = write!(out, "({v})");
            }
            Expr::Bool(b) => out.push_str(if *b { "1" } else { "0" }),
            Expr::Var(v) => out.push_str(&var_ref(p, *v)),
            Expr::Unary(op, a) => {
                out.push_str(match op {
                    UnOp::Not => "(!",
                    UnOp::Neg => "(-",
                });
                go(p, a, out);
                out.push(')');
            }
            // Every operand is an atom or parenthesised, and Promela's operators of one
            // level are left-associative like Cwhile's: the chain needs one pair.
            Expr::Chain(c) => {
                out.push('(');
                go(p, c.first(), out);
                for (op, e) in c.links() {
                    let _ = write!(out, " {} ", op.symbol());
                    go(p, e, out);
                }
                out.push(')');
            }
        }
    }
    let mut out = String::new();
    go(p, e, &mut out);
    out
}

/// The condition under which evaluating `e` divides by zero nowhere and shifts by no amount
/// outside 0..=63 (respecting the short-circuit of `&&` and `||`); `None` when `e` neither
/// divides nor shifts.
fn defined(p: &Program, e: &Expr) -> Option<String> {
    match e {
        Expr::Int(_) | Expr::Bool(_) | Expr::Var(_) => None,
        Expr::Unary(_, a) => defined(p, a),
        Expr::Chain(c) => chain_defined(p, c),
    }
}

/// [`defined`] for a chain: every operand defined, every divisor nonzero and every shift
/// amount from 0 to 63; for `&&` and
/// `||`, an operand needs to be defined only where the operands before it let it run, which
/// nests from the right (`d1 && (!a1 || (d2 && (!a2 || d3)))`) to stay linear in size.
fn chain_defined(p: &Program, c: &Chain) -> Option<String> {
    let operands: Vec<&Expr> = std::iter::once(c.first()).chain(c.links().iter().map(|(_, e)| e)).collect();
    match c.links()[0].0 {
        BinOp::And | BinOp::Or => {
            let negate = if c.links()[0].0 == BinOp::And { "!" } else { "" };
            let mut after: Option<String> = None;
            for e in operands.iter().rev() {
                let guarded = after.map(|d| format!("({negate}{} || {d})", promela_expr(p, e)));
                after = conjunction([defined(p, e), guarded]);
            }
            after
        }
        _ => {
            let valued = c.links().iter().filter_map(|(op, e)| match op {
                BinOp::Div | BinOp::Rem => Some(format!("({} != 0)", promela_expr(p, e))),
                BinOp::Shl | BinOp::Shr => {
                    let k = promela_expr(p, e);
                    Some(format!("(({k} >= 0) && ({k} <= 63))"))
                }
                _ => None,
            });
            conjunction(operands.iter().map(|e| defined(p, e)).chain(valued.map(Some)))
        }
    }
}

/// The conjunction of the conditions present; `None` when there are none.
fn conjunction(parts: impl IntoIterator<Item = Option<String>>) -> Option<String> {
    let parts: Vec<String> = parts.into_iter().flatten().collect();
    (!parts.is_empty()).then(|| format!("({})", parts.join(" && ")))
}

/// Work for the iterative emitter.
enum Work {
    /// A statement; `bare` when it may not carry a label (SPIN forbids labels on the first
    /// statement of an option or an atomic sequence).
    Stmt {
        id: StmtId,
        level: usize,
        copy: u32,
        bare: bool,
    },
    Line(String),
    /// The items of a block as one sequence (`skip` when empty); `bare` for its first item.
    Seq {
        block: BlockId,
        level: usize,
        copy: u32,
        bare: bool,
    },
}

struct Emitter<'a> {
    p: &'a Program,
    out: String,
    /// Numbers `end` labels and inlined copies, unique within the proctype.
    counter: u32,
}

fn pad(level: usize) -> String {
    "  ".repeat(level)
}

impl Emitter<'_> {
    fn next(&mut self) -> u32 {
        self.counter += 1;
        self.counter
    }

    fn label(&self, id: StmtId, copy: u32) -> String {
        let s = &self.p.stmts[id.index()];
        let clean: String = s.label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        if copy == 0 {
            format!("L{}_{clean}", s.loc.index())
        } else {
            format!("L{}_{clean}_c{copy}", s.loc.index())
        }
    }

    fn body(&mut self, block: BlockId) {
        let mut stack = vec![Work::Seq { block, level: 1, copy: 0, bare: false }];
        while let Some(w) = stack.pop() {
            match w {
                Work::Line(l) => {
                    self.out.push_str(&l);
                    self.out.push('\n');
                }
                Work::Seq { block, level, copy, bare } => {
                    let items = self.p.blocks.get(block.index()).map_or(&[][..], |b| &b.items[..]);
                    if items.is_empty() {
                        stack.push(Work::Line(format!("{}skip;", pad(level))));
                    }
                    stack.extend(items.iter().enumerate().rev().map(|(k, &id)| Work::Stmt {
                        id,
                        level,
                        copy,
                        bare: bare && k == 0,
                    }));
                }
                Work::Stmt { id, level, copy, bare } => self.stmt(id, level, copy, bare, &mut stack),
            }
        }
    }

    /// A blocking guard `(b)`; with a division in `b`, a guard that also fires when a
    /// divisor is zero and then fails an assertion, in one atomic step.
    fn guard(&self, x: &Expr, text: String) -> String {
        match defined(self.p, x) {
            None => text,
            Some(d) => format!("atomic {{ (!{d} || {text}); assert({d}) }}"),
        }
    }

    /// A simple statement with its division check, as one line.
    fn guarded(&self, checks: &[&Expr], text: String) -> String {
        let conds: Vec<String> = checks.iter().filter_map(|e| defined(self.p, e)).collect();
        if conds.is_empty() {
            text
        } else {
            format!("atomic {{ assert({}); {} }}", conds.join(" && "), text.trim_end_matches(';'))
        }
    }

    fn stmt(&mut self, id: StmtId, level: usize, copy: u32, bare: bool, stack: &mut Vec<Work>) {
        let p = self.p;
        let Some(s) = p.stmts.get(id.index()) else { return };
        let ind = pad(level);
        let label = if bare { String::new() } else { format!("{}: ", self.label(id, copy)) };
        let e = |x: &Expr| promela_expr(p, x);
        let simple = match &s.kind {
            StmtKind::Assign { var, expr } => {
                Some(self.guarded(&[expr], format!("{} = {};", var_ref(p, *var), e(expr))))
            }
            StmtKind::Await(x) => Some(format!("{};", self.guard(x, e(x)))),
            StmtKind::Assert(x) => Some(self.guarded(&[x], format!("assert({});", e(x)))),
            StmtKind::Skip => Some("skip;".to_owned()),
            StmtKind::Unlock(v) => Some(format!("{} = 0;", var_ref(p, *v))),
            StmtKind::Up(v) => Some(format!("{0} = {0} + 1;", var_ref(p, *v))),
            StmtKind::Lock { var, .. } => Some(format!("atomic {{ ({0} == 0); {0} = 1 }};", var_ref(p, *var))),
            StmtKind::Down { var, .. } => Some(format!("atomic {{ ({0} > 0); {0} = {0} - 1 }};", var_ref(p, *var))),
            StmtKind::Assume(x) => {
                let n = self.next();
                let guard = self.guard(x, e(x));
                Some(format!("if :: {guard} :: else -> end_cut{n}: false fi;"))
            }
            _ => None,
        };
        if let Some(text) = simple {
            stack.push(Work::Line(format!("{ind}{label}{text}")));
            return;
        }
        // Compound statements: push in reverse order of output.
        match &s.kind {
            StmtKind::If { cond, then_block, else_block } => {
                stack.push(Work::Line(format!("{ind}fi;")));
                let (then_guard, else_guard) = self.guards(cond);
                match else_block {
                    Some(b) => self.option(stack, else_guard.as_deref(), *b, level, copy),
                    None => stack.push(Work::Line(format!("{ind}:: {}", else_guard.as_deref().unwrap_or("skip")))),
                }
                self.option(stack, then_guard.as_deref(), *then_block, level, copy);
                stack.push(Work::Line(format!("{ind}{label}if")));
            }
            StmtKind::While { cond, body } => {
                stack.push(Work::Line(format!("{ind}od;")));
                let (body_guard, exit_guard) = self.guards(cond);
                match exit_guard {
                    Some(g) => stack.push(Work::Line(format!("{ind}:: {g} -> break"))),
                    None => stack.push(Work::Line(format!("{ind}:: break"))),
                }
                self.option(stack, body_guard.as_deref(), *body, level, copy);
                let n = self.next();
                let end = if bare { String::new() } else { format!("end_loop{n}: ") };
                stack.push(Work::Line(format!("{ind}{label}{end}do")));
            }
            StmtKind::Atomic(b) => {
                stack.push(Work::Line(format!("{ind}}};")));
                stack.push(Work::Seq { block: *b, level: level + 1, copy, bare: true });
                stack.push(Work::Line(format!("{ind}{label}atomic {{")));
            }
            StmtKind::NoReorder(b) => {
                stack.push(Work::Seq { block: *b, level, copy, bare });
                stack.push(Work::Line(format!("{ind}/* {}: noreorder */", s.label)));
            }
            StmtKind::Call(q) => {
                let copy = self.next();
                let name = p.procs.get(q.index()).map_or("?", |q| q.name.as_str());
                stack.push(Work::Line(format!("{ind}/* end of {name}() */")));
                if let Some(proc_) = p.procs.get(q.index()) {
                    stack.push(Work::Seq { block: proc_.body, level, copy, bare });
                }
                stack.push(Work::Line(format!("{ind}/* {}: {name}() */", s.label)));
            }
            _ => {}
        }
    }

    /// The guards of a condition: `None` for `*`.
    fn guards(&self, cond: &Cond) -> (Option<String>, Option<String>) {
        match cond {
            Cond::Star => (None, None),
            Cond::Expr { cond, .. } => {
                let c = promela_expr(self.p, cond);
                let then_g = self.guard(cond, c.clone());
                let else_g = self.guard(cond, format!("(!{c})"));
                (Some(then_g), Some(else_g))
            }
        }
    }

    /// One option `:: guard -> body` (or the body's own first step when there is no guard).
    fn option(&mut self, stack: &mut Vec<Work>, guard: Option<&str>, block: BlockId, level: usize, copy: u32) {
        let ind = pad(level);
        let empty = self.p.blocks.get(block.index()).is_none_or(|b| b.items.is_empty());
        match (guard, empty) {
            (Some(g), true) => stack.push(Work::Line(format!("{ind}:: {g}"))),
            (None, true) => stack.push(Work::Line(format!("{ind}:: skip"))),
            (Some(g), false) => {
                stack.push(Work::Seq { block, level: level + 1, copy, bare: false });
                stack.push(Work::Line(format!("{ind}:: {g} ->")));
            }
            (None, false) => {
                stack.push(Work::Seq { block, level: level + 1, copy, bare: true });
                stack.push(Work::Line(format!("{ind}::")));
            }
        }
    }
}

/// The first statement in `block` (run as an atomic body) that waits after the block's first
/// step, following the same rule as [`Program::waits`].
fn offending_await(p: &Program, block: BlockId) -> Option<StmtId> {
    let mut first = true;
    let mut current = block;
    let mut start = 0usize;
    loop {
        let items = &p.blocks.get(current.index())?.items;
        let mut descend = None;
        for &item in items.iter().skip(start) {
            if p.weight(item) == 0 {
                continue;
            }
            let role = p.waits(item);
            if first {
                first = false;
                if role == Waits::Inside {
                    descend = Some(item);
                    break;
                }
            } else if role != Waits::Never {
                return Some(first_wait_in(p, item));
            }
        }
        let item = descend?;
        // The first item is itself excluded: find the culprit inside it.
        match &p.stmts[item.index()].kind {
            StmtKind::Atomic(b) | StmtKind::NoReorder(b) => {
                // Its first step is the block's first step: apply the same rule inside; the
                // rest of the outer block must then hold no wait either, which the inner
                // culprit search covers (an inner culprit exists since the item is excluded).
                current = *b;
                start = 0;
                first = true;
            }
            _ => return Some(first_wait_in(p, item)),
        }
    }
}

/// The first statement in pre-order inside `item` that waits (an `await`, `lock`, `down`, or a
/// call that reaches one); `item` itself when nothing more precise is found.
fn first_wait_in(p: &Program, item: StmtId) -> StmtId {
    let mut stack = vec![item];
    while let Some(s) = stack.pop() {
        let Some(stmt) = p.stmts.get(s.index()) else { continue };
        match &stmt.kind {
            StmtKind::Await(_) | StmtKind::Lock { .. } | StmtKind::Down { .. } => return s,
            StmtKind::Call(_) if p.waits(s) != Waits::Never => return s,
            _ => {
                for b in stmt.kind.blocks().rev() {
                    if let Some(block) = p.blocks.get(b.index()) {
                        stack.extend(block.items.iter().rev());
                    }
                }
            }
        }
    }
    item
}
