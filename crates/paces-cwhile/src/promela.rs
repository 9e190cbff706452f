//! Export to Promela, for differential testing against SPIN.

mod flat;

use std::fmt::Write as _;

use paces_constraint::{BlockId, Waits};

use crate::diag::line_col;
use crate::error::{Error, ErrorKind};
use crate::ir::{BinOp, Chain, Cond, Expr, ProcIdx, Program, StmtId, StmtKind, UnOp, VarIdx, VarScope};
use flat::Step;

/// Translates a program to Promela (see `docs/language.md`, "Promela export").
///
/// Each thread becomes an `active proctype` whose control outside atomic blocks is written
/// point by point: a point is a place where the thread stands between two steps, and it is
/// one `if`, labelled `pcK`, whose options are the steps the thread may take next, each guarded by the step
/// itself and followed by a `goto` to the point after it. The choices of `if (*)` and
/// `while (*)` (leaving a loop, taking an empty branch, reaching a block's end) take no step:
/// they are folded into the options, so a choice is made with the first step of the branch
/// taken, as the language's contract says, and a thread blocks only where no option can
/// start. `await(b)` and `assume(b)` are both the guard `(b)`; a point where the thread may
/// finish has an option to its end (`pc_end`), and so, when no process can move
/// (`timeout`), has a thread's entry that only waits for its create (marked as the threads'
/// structure, [`Parts::thread_structure`](crate::ir::Parts::thread_structure)): a thread never
/// started. A state where no thread can step is a deadlock
/// unless some thread is cut (every option of it is an `assume`): such a thread's point has
/// the option `timeout -> paces_cut = 1`, after which every waiting thread may go to its end,
/// so SPIN's invalid end states are exactly the checker's deadlocks; the `if` of a point where
/// the thread waits names, in a comment, the labels it waits at (the deadlock's name for the
/// thread). Procedures are inlined at every call; an atomic block, `lock` and `down` are
/// SPIN's `atomic` sequences (the block's branches and loops nested inside). `assert` stays
/// `assert`, and a division or remainder by zero or a shift by an amount outside 0..=63 is an
/// assertion failure. Names are prefixed (`g_` globals, `l_` thread locals, `pN_` procedure
/// locals) so they never clash with Promela keywords. Promela's `int` has 32 bits where
/// Cwhile has 64.
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
    let points: Vec<Vec<flat::Point>> = p.threads.iter().map(|t| flat::points(p, t.body)).collect();
    // Whether some thread can be cut: only then the model has the flag and the options.
    let cuts = points.iter().flatten().any(|pt| !pt.can_finish && stops(p, pt) && wait_labels(p, pt).is_empty());
    if cuts {
        out.push_str("bit paces_cut = 0;\n");
    }
    out.push('\n');
    for (thread, points) in p.threads.iter().zip(&points) {
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
        thread_body(p, points, cuts, &mut out);
        out.push_str("}\n\n");
    }
    Ok(out)
}

/// Whether some option of `point` is an `assume` or the guard of an `if (b)`/`while (b)`.
fn stops(p: &Program, point: &flat::Point) -> bool {
    point.options.iter().any(|o| match o.step {
        Step::Guard(..) => true,
        Step::Stmt(id) => matches!(p.stmts.get(id.index()).map(|s| &s.kind), Some(StmtKind::Assume(_))),
    })
}

/// Whether every option of `point` is an `await` that a frontend marks as the threads'
/// structure ([`Parts::thread_structure`](crate::ir::Parts::thread_structure)): at a thread's
/// entry, its wait for the create that starts it.
fn start_gate(p: &Program, point: &flat::Point) -> bool {
    let marked_await = |id: StmtId| {
        p.thread_structure.contains(&id) && matches!(p.stmts.get(id.index()).map(|s| &s.kind), Some(StmtKind::Await(_)))
    };
    !point.options.is_empty() && point.options.iter().all(|o| matches!(o.step, Step::Stmt(id) if marked_await(id)))
}

/// The points of a thread (see [`to_promela`]), then its end; with `cuts`, the options of a
/// cut thread and of the threads that may end after it.
fn thread_body(p: &Program, points: &[flat::Point], cuts: bool, out: &mut String) {
    for (k, point) in points.iter().enumerate() {
        let waits = wait_labels(p, point);
        let comment = if waits.is_empty() { String::new() } else { format!(" /* waits at {} */", waits.join(" ")) };
        if point.options.is_empty() {
            let _ = writeln!(out, "pc{k}: goto pc_end;");
            continue;
        }
        let _ = writeln!(out, "pc{k}: if{comment}");
        for opt in &point.options {
            let target = opt.target.map_or_else(|| "pc_end".to_owned(), |t| format!("pc{t}"));
            let text = match opt.step {
                Step::Stmt(id) => match p.stmts.get(id.index()).map(|s| &s.kind) {
                    Some(StmtKind::Atomic(b)) => {
                        let mut e = Emitter { p, out: String::new() };
                        e.body(*b, 3);
                        format!("atomic {{\n{}    }}", e.out)
                    }
                    _ => simple_step(p, id).unwrap_or_else(|| "skip".to_owned()),
                },
                Step::Guard(id, then) => {
                    let cond = match p.stmts.get(id.index()).map(|s| &s.kind) {
                        Some(StmtKind::If { cond, .. } | StmtKind::While { cond, .. }) => guards(p, cond),
                        _ => (None, None),
                    };
                    let g = if then { cond.0 } else { cond.1 };
                    g.unwrap_or_else(|| "skip".to_owned())
                }
            };
            let _ = writeln!(out, "  :: {text}; goto {target}");
        }
        if point.can_finish {
            out.push_str("  :: goto pc_end\n");
        } else if k == 0 && start_gate(p, point) {
            // A thread whose create never ran (no process can move, so none will run it)
            // was never started: it ends, as the checker lets it stand at its end.
            out.push_str("  :: timeout -> goto pc_end\n");
        } else if cuts {
            let stops = stops(p, point);
            if !waits.is_empty() || stops {
                out.push_str("  :: paces_cut == 1 -> goto pc_end\n");
            }
            if waits.is_empty() && stops {
                out.push_str("  :: timeout -> paces_cut = 1; goto pc_end\n");
            }
        }
        out.push_str("  fi;\n");
    }
    out.push_str("pc_end: skip\n");
}

/// The labels a thread blocked at `point` waits at, as the checker names them: an `await`'s,
/// a `lock`'s or `down`'s, an atomic block's (for a section a repair added, `atomic_FIRST`,
/// the label `FIRST` of its first item).
fn wait_labels(p: &Program, point: &flat::Point) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for opt in &point.options {
        let Step::Stmt(id) = opt.step else { continue };
        let Some(s) = p.stmts.get(id.index()) else { continue };
        let label = match &s.kind {
            StmtKind::Await(_) | StmtKind::Lock { .. } | StmtKind::Down { .. } => s.label.clone(),
            StmtKind::Atomic(b) => added_section_first(p, &s.label, *b).unwrap_or_else(|| s.label.clone()),
            _ => continue,
        };
        if !out.contains(&label) {
            out.push(label);
        }
    }
    out
}

/// For an atomic block labelled `atomic_FIRST` or `atomic_FIRST_k` (a section a repair added)
/// whose first item is labelled `FIRST`: that label.
fn added_section_first(p: &Program, label: &str, body: BlockId) -> Option<String> {
    let first = p.stmts.get(p.blocks.get(body.index())?.items.first()?.index())?;
    let rest = label.strip_prefix("atomic_")?.strip_prefix(first.label.as_str())?;
    let numbered = rest.strip_prefix('_').is_some_and(|k| !k.is_empty() && k.bytes().all(|c| c.is_ascii_digit()));
    (rest.is_empty() || numbered).then(|| first.label.clone())
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

/// Work for the iterative emitter of an atomic block's body.
enum Work {
    Stmt {
        id: StmtId,
        level: usize,
    },
    Line(String),
    /// The items of a block as one sequence (`skip` when empty).
    Seq {
        block: BlockId,
        level: usize,
    },
}

/// Writes the body of an atomic block as SPIN's atomic sequence: nested `if`/`do` for the
/// branches and loops (the block runs whole, so SPIN's `break` and empty `skip` are steps no
/// other process sees), `assume` and `await` as guards (a false one stops the path, and the
/// export refuses a block where that can happen after its first step). No statement carries a
/// label: one block may be written as an option of several points.
struct Emitter<'a> {
    p: &'a Program,
    out: String,
}

fn pad(level: usize) -> String {
    "  ".repeat(level)
}

impl Emitter<'_> {
    fn body(&mut self, block: BlockId, level: usize) {
        let mut stack = vec![Work::Seq { block, level }];
        while let Some(w) = stack.pop() {
            match w {
                Work::Line(l) => {
                    self.out.push_str(&l);
                    self.out.push('\n');
                }
                Work::Seq { block, level } => {
                    let items = self.p.blocks.get(block.index()).map_or(&[][..], |b| &b.items[..]);
                    if items.is_empty() {
                        stack.push(Work::Line(format!("{}skip;", pad(level))));
                    }
                    stack.extend(items.iter().rev().map(|&id| Work::Stmt { id, level }));
                }
                Work::Stmt { id, level } => self.stmt(id, level, &mut stack),
            }
        }
    }

    fn stmt(&mut self, id: StmtId, level: usize, stack: &mut Vec<Work>) {
        let p = self.p;
        let Some(s) = p.stmts.get(id.index()) else { return };
        let ind = pad(level);
        if let Some(text) = simple_step(p, id) {
            stack.push(Work::Line(format!("{ind}{text};")));
            return;
        }
        // Compound statements: push in reverse order of output.
        match &s.kind {
            StmtKind::If { cond, then_block, else_block } => {
                stack.push(Work::Line(format!("{ind}fi;")));
                let (then_guard, else_guard) = guards(p, cond);
                match else_block {
                    Some(b) => self.option(stack, else_guard.as_deref(), *b, level),
                    None => stack.push(Work::Line(format!("{ind}:: {}", else_guard.as_deref().unwrap_or("skip")))),
                }
                self.option(stack, then_guard.as_deref(), *then_block, level);
                stack.push(Work::Line(format!("{ind}if")));
            }
            StmtKind::While { cond, body } => {
                stack.push(Work::Line(format!("{ind}od;")));
                let (body_guard, exit_guard) = guards(p, cond);
                match exit_guard {
                    Some(g) => stack.push(Work::Line(format!("{ind}:: {g} -> break"))),
                    None => stack.push(Work::Line(format!("{ind}:: break"))),
                }
                self.option(stack, body_guard.as_deref(), *body, level);
                stack.push(Work::Line(format!("{ind}do")));
            }
            StmtKind::Atomic(b) => {
                stack.push(Work::Line(format!("{ind}}};")));
                stack.push(Work::Seq { block: *b, level: level + 1 });
                stack.push(Work::Line(format!("{ind}atomic {{")));
            }
            StmtKind::NoReorder(b) => stack.push(Work::Seq { block: *b, level }),
            StmtKind::Call(q) => {
                if let Some(proc_) = p.procs.get(q.index()) {
                    stack.push(Work::Seq { block: proc_.body, level });
                }
            }
            _ => {}
        }
    }

    /// One option `:: guard -> body` (or the body's own first step when there is no guard).
    fn option(&mut self, stack: &mut Vec<Work>, guard: Option<&str>, block: BlockId, level: usize) {
        let ind = pad(level);
        let empty = self.p.blocks.get(block.index()).is_none_or(|b| b.items.is_empty());
        match (guard, empty) {
            (Some(g), true) => stack.push(Work::Line(format!("{ind}:: {g}"))),
            (None, true) => stack.push(Work::Line(format!("{ind}:: skip"))),
            (Some(g), false) => {
                stack.push(Work::Seq { block, level: level + 1 });
                stack.push(Work::Line(format!("{ind}:: {g} ->")));
            }
            (None, false) => {
                stack.push(Work::Seq { block, level: level + 1 });
                stack.push(Work::Line(format!("{ind}::")));
            }
        }
    }
}

/// A blocking guard `(b)`; with a division in `b`, a guard that also fires when a divisor is
/// zero and then fails an assertion, in one atomic step.
fn guard(p: &Program, x: &Expr, text: String) -> String {
    match defined(p, x) {
        None => text,
        Some(d) => format!("atomic {{ (!{d} || {text}); assert({d}) }}"),
    }
}

/// A simple statement with its division check.
fn guarded(p: &Program, checks: &[&Expr], text: String) -> String {
    let conds: Vec<String> = checks.iter().filter_map(|e| defined(p, e)).collect();
    if conds.is_empty() {
        text
    } else {
        format!("atomic {{ assert({}); {} }}", conds.join(" && "), text)
    }
}

/// The guards of a condition: `None` for `*`.
fn guards(p: &Program, cond: &Cond) -> (Option<String>, Option<String>) {
    match cond {
        Cond::Star => (None, None),
        Cond::Expr { cond, .. } => {
            let c = promela_expr(p, cond);
            (Some(guard(p, cond, c.clone())), Some(guard(p, cond, format!("(!{c})"))))
        }
    }
}

/// A statement that is one step and no block, as one Promela statement (without its `;`);
/// `None` for the others. `assume(b)` is the guard `(b)` as `await(b)` is: where a thread can
/// only stop at one, the model's `timeout` option says so (see [`to_promela`]).
fn simple_step(p: &Program, id: StmtId) -> Option<String> {
    let s = p.stmts.get(id.index())?;
    let e = |x: &Expr| promela_expr(p, x);
    Some(match &s.kind {
        StmtKind::Assign { var, expr } => guarded(p, &[expr], format!("{} = {}", var_ref(p, *var), e(expr))),
        StmtKind::Await(x) | StmtKind::Assume(x) => guard(p, x, e(x)),
        StmtKind::Assert(x) => guarded(p, &[x], format!("assert({})", e(x))),
        StmtKind::Skip => "skip".to_owned(),
        StmtKind::Unlock(v) => format!("{} = 0", var_ref(p, *v)),
        StmtKind::Up(v) => format!("{0} = {0} + 1", var_ref(p, *v)),
        StmtKind::Lock { var, .. } => format!("atomic {{ ({0} == 0); {0} = 1 }}", var_ref(p, *var)),
        StmtKind::Down { var, .. } => format!("atomic {{ ({0} > 0); {0} = {0} - 1 }}", var_ref(p, *var)),
        _ => return None,
    })
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
