//! Facts derived from a program's IR: read and write sets, weights, section roles and parts in
//! the threads' structure of every statement (through calls), and lookup tables. Computed once, on first use, without
//! recursion (programs built by hand may nest arbitrarily deep). Their types, and the cache a
//! [`Program`] holds them in, are in `ir.rs` with the program.

use paces_constraint::{BlockId, Loc, Waits};
use rustc_hash::FxHashMap;

use crate::ir::{Cond, Expr, Facts, Owner, ProcIdx, Program, StmtId, StmtKind, Summary, VarIdx};

impl Summary {
    fn waits(&self) -> Waits {
        self.waits.unwrap_or(Waits::Never)
    }
}

impl Program {
    pub(crate) fn facts(&self) -> &Facts {
        self.derived().cell.get_or_init(|| Facts::compute(self))
    }
}

/// The variables an expression reads, appended to `out`.
pub(crate) fn expr_vars(e: &Expr, out: &mut Vec<VarIdx>) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Int(_) | Expr::Bool(_) => {}
            Expr::Var(v) => out.push(*v),
            Expr::Unary(_, a) => stack.push(a),
            Expr::Chain(c) => {
                stack.extend(c.links().iter().rev().map(|(_, e)| e));
                stack.push(c.first());
            }
        }
    }
}

fn sorted(mut v: Vec<VarIdx>) -> Vec<VarIdx> {
    v.sort_unstable();
    v.dedup();
    v
}

impl Facts {
    fn compute(p: &Program) -> Facts {
        let mut loc_by_name = FxHashMap::default();
        for (i, name) in p.loc_names.iter().enumerate() {
            if let Some(loc) = Loc::new(i) {
                loc_by_name.entry(name.clone()).or_insert(loc);
            }
        }
        let mut stmt_at = vec![None; p.loc_names.len()];
        for (i, s) in p.stmts.iter().enumerate() {
            if let Some(slot) = stmt_at.get_mut(s.loc.index()) {
                *slot = StmtId::new(i);
            }
        }
        let stmts = vec![Summary::default(); p.stmts.len()];
        let mut facts = Facts { loc_by_name, stmt_at, stmts, threads: Vec::with_capacity(p.threads.len()) };
        let mut proc_summary: Vec<Option<Summary>> = vec![None; p.procs.len()];
        let mut done = vec![false; p.stmts.len()];
        for owner in owner_order(p) {
            let body = match owner {
                Owner::Thread(t) => p.threads[t.index()].body,
                Owner::Proc(q) => p.procs[q.index()].body,
            };
            facts.summarise_body(p, body, &proc_summary, &mut done);
            let summary = facts.block_summary(p, body);
            match owner {
                Owner::Proc(q) => proc_summary[q.index()] = Some(summary),
                // Threads come last, in order.
                Owner::Thread(_) => facts.threads.push(summary),
            }
        }
        facts
    }

    /// Summarises every statement under `body` in post-order, with an explicit stack.
    fn summarise_body(&mut self, p: &Program, body: BlockId, procs: &[Option<Summary>], done: &mut [bool]) {
        let mut stack: Vec<(StmtId, bool)> = Vec::new();
        let push_block = |stack: &mut Vec<(StmtId, bool)>, b: BlockId| {
            if let Some(block) = p.blocks.get(b.index()) {
                stack.extend(block.items.iter().rev().map(|&s| (s, false)));
            }
        };
        push_block(&mut stack, body);
        while let Some((s, expanded)) = stack.pop() {
            let Some(stmt) = p.stmts.get(s.index()) else { continue };
            if done[s.index()] {
                continue;
            }
            if !expanded {
                stack.push((s, true));
                for b in stmt.kind.blocks().rev() {
                    push_block(&mut stack, b);
                }
                continue;
            }
            done[s.index()] = true;
            let sum = self.stmt_summary(p, s, procs);
            self.stmts[s.index()] = sum;
        }
    }

    /// A statement's summary from those of the statements inside it (and of the procedures it
    /// calls): its effects, then its part in the threads' structure.
    fn stmt_summary(&self, p: &Program, s: StmtId, procs: &[Option<Summary>]) -> Summary {
        let mut sum = self.effects(p, s, procs);
        sum.assigns_only = match p.stmts[s.index()].kind {
            StmtKind::Assign { .. } | StmtKind::Skip => true,
            // The body's summary says it.
            StmtKind::Atomic(_) | StmtKind::NoReorder(_) => sum.assigns_only,
            _ => false,
        };
        sum.thread |= p.thread_structure.contains(&s);
        sum
    }

    /// What a statement reads, writes, weighs, where it waits, whether it is atomic, and
    /// whether anything inside it is part of the threads' structure.
    fn effects(&self, p: &Program, s: StmtId, procs: &[Option<Summary>]) -> Summary {
        let stmt = &p.stmts[s.index()];
        let mut reads = Vec::new();
        let simple = |reads: Vec<VarIdx>, writes: Vec<VarIdx>, weight: u32, waits: Waits| Summary {
            reads: sorted(reads),
            writes: sorted(writes),
            weight,
            waits: Some(waits),
            atomic: true,
            thread: false,
            assigns_only: false,
            loops: false,
        };
        match &stmt.kind {
            StmtKind::Assign { var, expr } => {
                expr_vars(expr, &mut reads);
                simple(reads, vec![*var], 1, Waits::Never)
            }
            StmtKind::Assume(e) | StmtKind::Assert(e) => {
                expr_vars(e, &mut reads);
                simple(reads, Vec::new(), 1, Waits::Never)
            }
            StmtKind::Await(e) => {
                expr_vars(e, &mut reads);
                simple(reads, Vec::new(), 1, Waits::First)
            }
            StmtKind::Skip => simple(Vec::new(), Vec::new(), 1, Waits::Never),
            StmtKind::Lock { var, .. } | StmtKind::Down { var, .. } => simple(vec![*var], vec![*var], 2, Waits::First),
            StmtKind::Unlock(v) => simple(Vec::new(), vec![*v], 1, Waits::Never),
            StmtKind::Up(v) => simple(vec![*v], vec![*v], 1, Waits::Never),
            StmtKind::Atomic(b) => Summary { atomic: true, ..self.block_summary(p, *b) },
            StmtKind::NoReorder(b) => self.block_summary(p, *b),
            StmtKind::Call(q) => procs.get(q.index()).cloned().flatten().unwrap_or_default(),
            StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => {
                let mut writes = Vec::new();
                let mut weight = 0u32;
                if let Cond::Expr { cond, .. } = cond {
                    expr_vars(cond, &mut reads);
                    weight = 2;
                }
                let mut waits = Waits::Never;
                let mut thread = false;
                let mut loops = matches!(stmt.kind, StmtKind::While { .. });
                for b in stmt.kind.blocks() {
                    let sum = self.block_summary(p, b);
                    let branch_waits = sum.waits();
                    thread |= sum.thread;
                    loops |= sum.loops;
                    reads.extend(sum.reads);
                    writes.extend(sum.writes);
                    weight = weight.saturating_add(sum.weight);
                    if branch_waits != Waits::Never {
                        // A branch or a loop body never starts the item for sure (a guard,
                        // another branch or a repetition may come first).
                        waits = Waits::Inside;
                    }
                }
                Summary { atomic: false, thread, loops, ..simple(reads, writes, weight, waits) }
            }
        }
    }

    /// The summary of a block from the summaries of its items.
    pub(crate) fn block_summary(&self, p: &Program, b: BlockId) -> Summary {
        let Some(block) = p.blocks.get(b.index()) else { return Summary::default() };
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        let mut weight = 0u32;
        let mut waits: Option<Waits> = None;
        let mut steps = 0usize;
        let mut atomic = true;
        let (mut thread, mut assigns_only, mut loops) = (false, true, false);
        for &item in &block.items {
            let Some(sum) = self.stmts.get(item.index()) else { continue };
            thread |= sum.thread;
            loops |= sum.loops;
            assigns_only &= sum.assigns_only;
            reads.extend_from_slice(&sum.reads);
            writes.extend_from_slice(&sum.writes);
            weight = weight.saturating_add(sum.weight);
            if sum.weight == 0 {
                continue;
            }
            steps += 1;
            atomic &= sum.atomic;
            waits = Some(match waits {
                None => sum.waits(),
                Some(_) if sum.waits() != Waits::Never => Waits::Inside,
                Some(w) => w,
            });
        }
        Summary {
            reads: sorted(reads),
            writes: sorted(writes),
            weight,
            waits: Some(waits.unwrap_or(Waits::Never)),
            atomic: atomic && steps <= 1,
            thread,
            assigns_only,
            loops,
        }
    }
}

/// Procedures callees first, then threads.
fn owner_order(p: &Program) -> Vec<Owner> {
    let n = p.procs.len();
    let mut callees: Vec<Vec<ProcIdx>> = vec![Vec::new(); n];
    for s in &p.stmts {
        if let StmtKind::Call(q) = s.kind {
            if let Some(Owner::Proc(caller)) = p.blocks.get(s.block.index()).map(|b| b.owner) {
                if caller.index() < n && q.index() < n {
                    callees[caller.index()].push(q);
                }
            }
        }
    }
    let mut order = Vec::with_capacity(n + p.threads.len());
    let mut state = vec![0u8; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        state[root] = 1;
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&c) = callees[node].get(*next) {
                *next += 1;
                if state[c.index()] == 0 {
                    state[c.index()] = 1;
                    stack.push((c.index(), 0));
                }
            } else {
                state[node] = 2;
                order.push(Owner::Proc(ProcIdx::from_u32(node as u32)));
                stack.pop();
            }
        }
    }
    order.extend((0..p.threads.len()).map(|t| Owner::Thread(crate::ir::ThreadIdx::from_u32(t as u32))));
    order
}
