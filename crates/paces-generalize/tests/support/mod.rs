//! A tiny straight-line concurrent language for the tests: a space per program, traces
//! built from schedules, and an interpreter for candidates of the space.

#![allow(dead_code)] // Each test file uses a different part of the support module.

use paces_constraint::{BlockId, Candidate, ItemInfo, Loc, Space, SpaceBuilder};
use paces_generalize::{Failure, PartialOrder};
use paces_testkit::Rng;
use paces_trace::{BlockInstance, EventId, EventKind, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId};

/// A step: (thread, statement index in the original program).
pub type Step = (usize, usize);
/// A run: its steps and the blocked threads' next statements.
pub type Run = (Vec<Step>, Vec<Step>);
/// A candidate's shape: statement orders per thread and sections (thread, first, last).
pub type Shape = (Vec<Vec<usize>>, Vec<(usize, usize, usize)>);

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `var := value`.
    Set(u32, i64),
    /// `var := other`.
    Copy(u32, u32),
    /// `assert(var == value)`.
    Assert(u32, i64),
    /// `await(var == value)`.
    Await(u32, i64),
}

impl Stmt {
    fn reads(&self) -> Vec<u32> {
        match *self {
            Stmt::Set(..) => vec![],
            Stmt::Copy(_, y) => vec![y],
            Stmt::Assert(x, _) | Stmt::Await(x, _) => vec![x],
        }
    }
    fn writes(&self) -> Option<u32> {
        match *self {
            Stmt::Set(x, _) | Stmt::Copy(x, _) => Some(x),
            _ => None,
        }
    }
    fn conflicts(&self, other: &Stmt) -> bool {
        let w = |a: &Stmt, b: &Stmt| a.writes().is_some_and(|x| b.writes() == Some(x) || b.reads().contains(&x));
        w(self, other) || w(other, self)
    }
}

/// A program: threads of named statements.
#[derive(Clone, Debug)]
pub struct Program {
    pub threads: Vec<Vec<(String, Stmt)>>,
    pub vars: usize,
}

/// A program with its space.
pub struct Setup {
    pub program: Program,
    pub space: Space,
    pub blocks: Vec<BlockId>,
    /// Per thread, per statement: its location.
    pub locs: Vec<Vec<Loc>>,
}

impl Setup {
    /// One block per thread; statements that conflict are fixed in order; awaits open sections
    /// only.
    pub fn new(program: Program) -> Setup {
        Setup::named(program, &[])
    }

    /// [`Setup::new`], the first threads declared in the space under `names`.
    pub fn named(program: Program, names: &[&str]) -> Setup {
        let mut b = SpaceBuilder::new();
        let mut blocks = Vec::new();
        let mut locs = Vec::new();
        for thread in &program.threads {
            let block = b.block(false);
            let mut ls = Vec::new();
            for (name, stmt) in thread {
                let loc = b.loc(name).unwrap();
                let info = if matches!(stmt, Stmt::Await(..)) { ItemInfo::AWAIT } else { ItemInfo::SIMPLE };
                b.item(block, loc, info).unwrap();
                ls.push(loc);
            }
            for i in 0..thread.len() {
                for j in i + 1..thread.len() {
                    if thread[i].1.conflicts(&thread[j].1) {
                        b.fix(ls[i], ls[j]).unwrap();
                    }
                }
            }
            if let Some(name) = names.get(blocks.len()) {
                b.thread(name, block).unwrap();
            }
            blocks.push(block);
            locs.push(ls);
        }
        Setup { program, space: b.build().unwrap(), blocks, locs }
    }

    /// The (thread, statement) of a name.
    pub fn find(&self, name: &str) -> (usize, usize) {
        for (t, th) in self.program.threads.iter().enumerate() {
            if let Some(i) = th.iter().position(|(n, _)| n == name) {
                return (t, i);
            }
        }
        panic!("no statement {name}");
    }

    pub fn loc(&self, name: &str) -> Loc {
        let (t, i) = self.find(name);
        self.locs[t][i]
    }

    /// The (thread, statement) of a location.
    pub fn stmt_of(&self, loc: Loc) -> (usize, usize) {
        for (t, ls) in self.locs.iter().enumerate() {
            if let Some(i) = ls.iter().position(|&l| l == loc) {
                return (t, i);
            }
        }
        panic!("unknown location");
    }

    /// The trace of running `steps` (thread, statement) in order from the initial state in the
    /// original program, then `blocked` as blocked steps. Failed assertions are marked.
    pub fn trace(&self, steps: &[(usize, usize)], blocked: &[(usize, usize)]) -> Trace {
        let mut vals = vec![0i64; self.program.vars];
        let mut b = TraceBuilder::new();
        for &(t, i) in steps {
            self.push(&mut b, &mut vals, t, i, Push::Run);
        }
        for &(t, i) in blocked {
            self.push(&mut b, &mut vals, t, i, Push::Blocked);
        }
        b.finish()
    }

    /// The trace of `steps` cut after its first failing step, with every statement each
    /// thread has not run yet as a pending step (a checker that stops at the failure); `None`
    /// when no step fails.
    pub fn trace_stopped(&self, steps: &[(usize, usize)]) -> Option<Trace> {
        let full = self.trace(steps, &[]);
        let f = full.first_failure()?.index();
        let mut vals = vec![0i64; self.program.vars];
        let mut b = TraceBuilder::new();
        let mut next = vec![0usize; self.program.threads.len()];
        for &(t, i) in &steps[..=f] {
            self.push(&mut b, &mut vals, t, i, Push::Run);
            next[t] = i + 1;
        }
        for (t, stmts) in self.program.threads.iter().enumerate() {
            for i in next[t]..stmts.len() {
                self.push(&mut b, &mut vals, t, i, Push::Pending);
            }
        }
        Some(b.finish())
    }

    /// The trace of `steps` (by name) with `pending` as pending steps after it.
    pub fn trace_pending(&self, steps: &[&str], pending: &[&str]) -> Trace {
        let mut vals = vec![0i64; self.program.vars];
        let mut b = TraceBuilder::new();
        for n in steps {
            let (t, i) = self.find(n);
            self.push(&mut b, &mut vals, t, i, Push::Run);
        }
        for n in pending {
            let (t, i) = self.find(n);
            self.push(&mut b, &mut vals, t, i, Push::Pending);
        }
        b.finish()
    }

    /// The trace of a schedule given by statement names.
    pub fn trace_named(&self, steps: &[&str], blocked: &[&str]) -> Trace {
        let s: Vec<_> = steps.iter().map(|n| self.find(n)).collect();
        let bl: Vec<_> = blocked.iter().map(|n| self.find(n)).collect();
        self.trace(&s, &bl)
    }

    fn push(&self, b: &mut TraceBuilder, vals: &mut [i64], t: usize, i: usize, how: Push) {
        let loc = self.locs[t][i];
        let scope = vec![ScopeEntry { instance: BlockInstance { block: self.blocks[t], instance: 0 }, item: loc }];
        let stmt = &self.program.threads[t][i].1;
        let mut step = b.step(ThreadId::from_u32(t as u32), loc, scope);
        for r in stmt.reads() {
            step = step.read(VarId::from_u32(r));
        }
        match *stmt {
            Stmt::Set(x, v) => {
                vals[x as usize] = v;
                step = step.write(VarId::from_u32(x), v);
            }
            Stmt::Copy(x, y) => {
                let v = vals[y as usize];
                vals[x as usize] = v;
                step = step.write(VarId::from_u32(x), v);
            }
            Stmt::Assert(x, v) => step = step.kind(EventKind::Assert).failed(vals[x as usize] != v),
            Stmt::Await(..) => step = step.kind(EventKind::Await),
        }
        match how {
            Push::Run => {
                step.push().unwrap();
            }
            Push::Blocked => step.push_blocked().unwrap(),
            Push::Pending => step.push_pending(),
        }
    }

    /// Every maximal run of the original program: (steps, blocked threads' statements).
    /// Assertions that fail do not stop the run.
    pub fn runs(&self) -> Vec<Run> {
        let orders: Vec<Vec<usize>> = self.program.threads.iter().map(|t| (0..t.len()).collect()).collect();
        let mut out = Vec::new();
        explore(&self.program, &orders, &[], &mut |steps, blocked| {
            out.push((steps.to_vec(), blocked.to_vec()));
            true
        });
        out
    }

    /// The statement orders and atomic sections (as position ranges) of a candidate.
    pub fn shape(&self, c: &Candidate) -> Shape {
        let orders: Vec<Vec<usize>> =
            self.blocks.iter().map(|&b| c.order(b).iter().map(|&l| self.stmt_of(l).1).collect()).collect();
        let sections = c
            .sections()
            .iter()
            .map(|s| {
                let t = self.blocks.iter().position(|&b| b == s.block).unwrap();
                (t, c.position(s.first).unwrap(), c.position(s.last).unwrap())
            })
            .collect();
        (orders, sections)
    }

    /// Whether some run of the candidate shows the bug pattern of `po`: every kept event runs
    /// (every blocked step is where its thread is blocked at the end of a deadlock), every
    /// cross-thread ordering of `po` is respected, and a kept pending step does not run before
    /// what must precede it (it may not run at all).
    pub fn candidate_shows(&self, c: &Candidate, po: &PartialOrder, trace: &Trace) -> bool {
        self.shows(c, po, trace, false)
    }

    /// Whether some preemption-free run of the original program shows the bug pattern: a run
    /// that leaves a thread only where its next statement is an await or it has finished.
    pub fn shows_preemption_free(&self, po: &PartialOrder, trace: &Trace) -> bool {
        self.shows(&Candidate::original(&self.space), po, trace, true)
    }

    fn shows(&self, c: &Candidate, po: &PartialOrder, trace: &Trace, preemption_free: bool) -> bool {
        let (orders, sections) = self.shape(c);
        let program = &self.program;
        let is_pf = |steps: &[Step]| {
            let mut pc = vec![0usize; orders.len()];
            for w in steps.windows(2) {
                let (t, _) = w[0];
                pc[t] += 1;
                if w[1].0 != t
                    && pc[t] < orders[t].len()
                    && !matches!(program.threads[t][orders[t][pc[t]]].1, Stmt::Await(..))
                {
                    return false;
                }
            }
            true
        };
        let mut exec: Vec<(usize, usize)> = Vec::new();
        let mut want_blocked: Vec<(usize, usize)> = Vec::new();
        // The pattern is what the failure needs: context events (dependencies of overwrites)
        // and their orderings are left out, and so are the orderings off the data flow.
        for &id in po.events().iter().filter(|&&id| !po.is_context(id)) {
            let e = po.event(trace, id).unwrap();
            let ts = self.stmt_of(e.loc);
            if po.is_blocked_step(id) {
                want_blocked.push(ts);
            } else if !po.is_pending_step(id) {
                exec.push(ts);
            }
        }
        let key = |id: EventId| {
            let e = po.event(trace, id).unwrap();
            (self.stmt_of(e.loc), po.is_blocked_step(id), po.is_pending_step(id))
        };
        // (earlier, later, later is blocked, later is pending)
        let cross: Vec<(Step, Step, bool, bool)> = po
            .cross_edges()
            .iter()
            .filter(|&&(a, b)| !po.is_context_edge(a, b) && !po.is_off_flow(a, b))
            .map(|&(a, b)| {
                let (ka, _, _) = key(a);
                let (kb, bb, pb) = key(b);
                (ka, kb, bb, pb)
            })
            .collect();
        let mut shows = false;
        explore(&self.program, &orders, &sections, &mut |steps, blocked| {
            let pos = |s: (usize, usize)| steps.iter().position(|&x| x == s);
            let ok = (!preemption_free || is_pf(steps))
                && exec.iter().all(|&s| pos(s).is_some())
                && want_blocked.iter().all(|s| blocked.contains(s))
                && cross.iter().all(|&(a, b, bb, pb)| {
                    bb || match (pos(a), pos(b)) {
                        (Some(x), Some(y)) => x < y,
                        (Some(_), None) => pb,
                        _ => false,
                    }
                });
            if ok {
                shows = true;
                return false;
            }
            true
        });
        shows
    }

    /// Replays a linearisation of the partial order in the original program: whether it runs
    /// and the failing event fails again (other assertions may fail too), or every blocked
    /// step is blocked at the end.
    pub fn replay_fails(&self, po: &PartialOrder, trace: &Trace, order: &[EventId]) -> bool {
        let mut vals = vec![0i64; self.program.vars];
        let mut pc = vec![0usize; self.program.threads.len()];
        let mut failed = Vec::new();
        for &id in order {
            let e = po.event(trace, id).unwrap();
            let (t, i) = self.stmt_of(e.loc);
            if po.is_blocked_step(id) {
                if pc[t] != i {
                    return false;
                }
                continue;
            }
            if pc[t] != i {
                return false;
            }
            pc[t] += 1;
            match self.program.threads[t][i].1 {
                Stmt::Set(x, v) => vals[x as usize] = v,
                Stmt::Copy(x, y) => vals[x as usize] = vals[y as usize],
                Stmt::Assert(x, v) => {
                    if vals[x as usize] != v {
                        failed.push(id);
                    }
                }
                Stmt::Await(x, v) => {
                    if vals[x as usize] != v {
                        return false;
                    }
                }
            }
        }
        match po.failure() {
            Failure::Event(f) => failed.contains(f),
            Failure::Deadlock(bs) => bs.iter().all(|&b| {
                let e = po.event(trace, b).unwrap();
                let (t, i) = self.stmt_of(e.loc);
                matches!(self.program.threads[t][i].1, Stmt::Await(x, v) if vals[x as usize] != v)
            }),
            _ => false,
        }
    }
}

/// Explores every maximal run of the program with the given statement orders and atomic
/// sections (thread, first position, last position); `visit(steps, blocked)` is called per
/// run and returns whether to go on. Depth-first with an explicit stack.
///
/// A section runs all or nothing: one step that is taken only when every await in it holds
/// where it stands; otherwise its thread waits before it (blocked at its first statement).
pub fn explore(
    program: &Program,
    orders: &[Vec<usize>],
    sections: &[(usize, usize, usize)],
    visit: &mut dyn FnMut(&[Step], &[Step]) -> bool,
) {
    #[derive(Clone)]
    struct State {
        pc: Vec<usize>,
        vals: Vec<i64>,
        steps: Vec<(usize, usize)>,
    }
    let n = orders.len();
    let section_end = |t: usize, p: usize| sections.iter().find(|&&(st, i, _)| st == t && i == p).map_or(p, |s| s.2);
    let mut stack = vec![State { pc: vec![0; n], vals: vec![0; program.vars], steps: Vec::new() }];
    while let Some(s) = stack.pop() {
        let mut moved = false;
        for (t, order) in orders.iter().enumerate() {
            let p = s.pc[t];
            if p >= order.len() {
                continue;
            }
            // The step at p: one statement, or a whole section.
            let mut ns = s.clone();
            let taken = (p..=section_end(t, p)).all(|q| {
                let i = order[q];
                match program.threads[t][i].1 {
                    Stmt::Await(x, v) if ns.vals[x as usize] != v => return false,
                    Stmt::Set(x, v) => ns.vals[x as usize] = v,
                    Stmt::Copy(x, y) => ns.vals[x as usize] = ns.vals[y as usize],
                    _ => {}
                }
                ns.pc[t] += 1;
                ns.steps.push((t, i));
                true
            });
            if taken {
                moved = true;
                stack.push(ns);
            }
        }
        if !moved {
            let blocked: Vec<(usize, usize)> =
                (0..n).filter(|&t| s.pc[t] < orders[t].len()).map(|t| (t, orders[t][s.pc[t]])).collect();
            if !visit(&s.steps, &blocked) {
                return;
            }
        }
    }
}

/// Parses `"A: x := 1"`-style statement lists: `name: x := 1`, `name: x := y`,
/// `name: assert(x == 1)`, `name: await(x == 1)`; variables are single letters.
pub fn program(threads: &[&[&str]]) -> Program {
    fn var(names: &mut Vec<char>, text: &str) -> u32 {
        let c = text.trim().chars().next().unwrap();
        if let Some(i) = names.iter().position(|&n| n == c) {
            i as u32
        } else {
            names.push(c);
            (names.len() - 1) as u32
        }
    }
    fn cond(names: &mut Vec<char>, inner: &str) -> (u32, i64) {
        let (x, v) = inner.split_once("==").unwrap();
        (var(names, x), v.trim().parse::<i64>().unwrap())
    }
    let mut names: Vec<char> = Vec::new();
    let mut out = Vec::new();
    for stmts in threads {
        let mut thread = Vec::new();
        for s in stmts.iter() {
            let (name, body) = s.split_once(':').unwrap();
            let body = body.trim();
            let stmt = if let Some(inner) = body.strip_prefix("assert(").and_then(|b| b.strip_suffix(')')) {
                let (x, v) = cond(&mut names, inner);
                Stmt::Assert(x, v)
            } else if let Some(inner) = body.strip_prefix("await(").and_then(|b| b.strip_suffix(')')) {
                let (x, v) = cond(&mut names, inner);
                Stmt::Await(x, v)
            } else {
                let (x, rhs) = body.split_once(":=").unwrap();
                let x = var(&mut names, x);
                match rhs.trim().parse::<i64>() {
                    Ok(v) => Stmt::Set(x, v),
                    Err(_) => Stmt::Copy(x, var(&mut names, rhs)),
                }
            };
            thread.push((name.trim().to_owned(), stmt));
        }
        out.push(thread);
    }
    Program { threads: out, vars: names.len() }
}

/// Two threads of up to four statements, or three threads of up to three, over `vars_from`
/// or one more variables and the values 0 and 1.
pub fn random_program(rng: &mut Rng, vars_from: u32) -> Program {
    let threads = 2 + rng.below_u64(2) as usize;
    let max_len = if threads == 2 { 4 } else { 3 };
    let vars = vars_from + rng.below_u64(2) as u32;
    let mut out = Vec::new();
    for t in 0..threads {
        let len = 1 + rng.below_u64(max_len) as usize;
        let mut thread = Vec::new();
        for i in 0..len {
            let x = rng.below_u64(u64::from(vars)) as u32;
            let v = rng.below_u64(2) as i64;
            let stmt = match rng.below_u64(20) {
                0..=6 => Stmt::Set(x, v),
                7..=9 => Stmt::Copy(x, (x + 1 + rng.below_u64(u64::from(vars) - 1) as u32) % vars),
                10..=15 => Stmt::Assert(x, v),
                _ => Stmt::Await(x, v),
            };
            thread.push((format!("t{t}s{i}"), stmt));
        }
        out.push(thread);
    }
    Program { threads: out, vars: vars as usize }
}

/// Up to `limit` orders of `0..before.len()` in which each `j` comes after every `before[j]`
/// (depth-first).
pub fn topological_orders(before: &[Vec<usize>], limit: usize) -> Vec<Vec<usize>> {
    let n = before.len();
    let mut out = Vec::new();
    let mut stack: Vec<Vec<usize>> = vec![Vec::new()];
    while let Some(prefix) = stack.pop() {
        if prefix.len() == n {
            out.push(prefix);
            if out.len() >= limit {
                break;
            }
            continue;
        }
        for j in (0..n).rev() {
            if !prefix.contains(&j) && before[j].iter().all(|i| prefix.contains(i)) {
                let mut next = prefix.clone();
                next.push(j);
                stack.push(next);
            }
        }
    }
    out
}

/// How a step enters a trace.
#[derive(Clone, Copy)]
enum Push {
    Run,
    Blocked,
    Pending,
}
