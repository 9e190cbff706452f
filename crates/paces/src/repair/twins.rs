//! Twins: threads that run the same code race the same way, so a change the learner proposes
//! for one of them is offered to each of its twins too, as a guess the judge checks like any
//! candidate (docs/loop.md, "Twins").
//!
//! Two threads are twins when their bodies are statement for statement the same: the same
//! kinds of statements in the same nesting, reading and writing the same shared variables and
//! calling the same procedures, with only labels, integer literals and the threads' own locals
//! told apart. A twin's statements correspond by their place in that walk.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use paces_constraint::{BlockId, Candidate, Loc, Space, Transformation};
use paces_cwhile::ir::{Cond, Expr, Program, StmtKind, VarIdx, VarScope};
use paces_learn::Learner;

/// The twin classes of a program and, per thread, its statements' locations in walk order.
pub(super) struct Twins {
    /// Per thread (by index): the locations of its body's statements, in walk order.
    walks: Vec<Vec<Loc>>,
    /// Classes of two or more twin threads (indices in thread order), in thread order.
    classes: Vec<Vec<usize>>,
    /// Each location of a thread's body (not of the procedures it calls) with its thread.
    thread_of: BTreeMap<Loc, usize>,
}

impl Twins {
    /// The twins of `program`'s threads.
    pub(super) fn new(program: &Program) -> Self {
        // The shared variables that one thread alone writes are its own.
        let mut users: BTreeMap<VarIdx, BTreeSet<usize>> = BTreeMap::new();
        for (i, thread) in program.threads.iter().enumerate() {
            let mut shape = Shape { program, own: BTreeSet::new(), written: BTreeSet::new(), out: String::new() };
            shape.block(thread.body, &mut Vec::new());
            for v in shape.written {
                users.entry(v).or_default().insert(i);
            }
        }
        let own: BTreeSet<VarIdx> = users.into_iter().filter(|(_, u)| u.len() == 1).map(|(v, _)| v).collect();
        let mut by_shape: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut walks = Vec::new();
        for (i, thread) in program.threads.iter().enumerate() {
            let mut shape = Shape { program, own: own.clone(), written: BTreeSet::new(), out: String::new() };
            let mut walk = Vec::new();
            shape.block(thread.body, &mut walk);
            let shape = shape.out;
            by_shape.entry(shape).or_default().push(i);
            walks.push(walk);
        }
        let mut classes: Vec<Vec<usize>> = by_shape.into_values().filter(|c| c.len() > 1).collect();
        classes.sort();
        let thread_of = walks.iter().enumerate().flat_map(|(th, walk)| walk.iter().map(move |&l| (l, th))).collect();
        Twins { walks, classes, thread_of }
    }

    /// Whether some two threads are twins.
    pub(super) fn any(&self) -> bool {
        !self.classes.is_empty()
    }

    /// `candidate` with the threads of each twin class made to change alike: each pattern of
    /// changes that some thread of the class has (the patterns with more changes first, then
    /// in thread order), and last, when the threads change differently, all their patterns at
    /// once, is tried in turn in place of every thread's own changes, and the first
    /// result that differs from `candidate` and satisfies everything `learner` learned is
    /// kept; the classes one after the other, in thread order. `None` when no class is
    /// changed.
    pub(super) fn spread(&self, space: &Space, learner: &Learner, candidate: &Candidate) -> Option<Candidate> {
        let step_thread = |t: &Transformation| {
            let (a, b) = endpoints(t);
            let ta = self.thread_of.get(&a).copied();
            ta.filter(|&x| Some(x) == self.thread_of.get(&b).copied())
        };
        let mut current = candidate.transformations(space);
        let mut best: Option<Candidate> = None;
        for class in &self.classes {
            let own = |steps: &[Transformation], th: usize| -> Vec<Transformation> {
                steps.iter().copied().filter(|t| step_thread(t) == Some(th)).collect()
            };
            let mut patterns: Vec<(usize, Vec<Transformation>)> =
                class.iter().map(|&th| (th, own(&current, th))).filter(|(_, p)| !p.is_empty()).collect();
            // More changes first; the sort is stable, so ties stay in thread order.
            patterns.sort_by_key(|(_, p)| std::cmp::Reverse(p.len()));
            // Last, when there are several and none of them alone will do, every pattern at
            // once: each thread's changes may answer a race of their own, which its twins have
            // too.
            let all = (patterns.len() > 1).then(|| patterns.clone());
            let options = patterns.iter().map(|p| vec![p.clone()]).chain(all);
            for chosen in options {
                let others: Vec<Transformation> =
                    current.iter().copied().filter(|t| step_thread(t).is_none_or(|th| !class.contains(&th))).collect();
                let mut tried = others;
                let mut complete = true;
                for &th in class {
                    for (source, pattern) in &chosen {
                        match self.map_steps(pattern, *source, th) {
                            Some(mapped) => {
                                for t in mapped {
                                    if !tried.contains(&t) {
                                        tried.push(t);
                                    }
                                }
                            }
                            None => complete = false,
                        }
                    }
                }
                if !complete {
                    continue;
                }
                let Ok(c) = Candidate::apply(space, &tried) else { continue };
                if c != *candidate && best.as_ref() != Some(&c) && learner.arena().eval(learner.constraint(), &c) {
                    current = tried;
                    best = Some(c);
                    break;
                }
            }
        }
        best
    }

    /// `steps` of thread `from` with each location replaced by its twin in thread `to`.
    fn map_steps(&self, steps: &[Transformation], from: usize, to: usize) -> Option<Vec<Transformation>> {
        let (src, dst) = (&self.walks[from], &self.walks[to]);
        let map = |l: Loc| src.iter().position(|&x| x == l).and_then(|i| dst.get(i).copied());
        steps
            .iter()
            .map(|t| match *t {
                Transformation::Swap { first, second } => {
                    Some(Transformation::Swap { first: map(first)?, second: map(second)? })
                }
                Transformation::Atomic { first, last } => {
                    Some(Transformation::Atomic { first: map(first)?, last: map(last)? })
                }
            })
            .collect()
    }
}

/// The two locations a transformation names.
fn endpoints(t: &Transformation) -> (Loc, Loc) {
    match *t {
        Transformation::Swap { first, second } => (first, second),
        Transformation::Atomic { first, last } => (first, last),
    }
}

/// The shape of a thread's body as it is walked: statements with labels, literals and locals
/// left out, and the variables it writes.
struct Shape<'a> {
    program: &'a Program,
    /// Shared variables that one thread alone names, shown as `own`.
    own: BTreeSet<VarIdx>,
    /// The variables written so far.
    written: BTreeSet<VarIdx>,
    out: String,
}

impl Shape<'_> {
    /// Appends the shape of `block` to `out` and its statements' locations, in walk order, to
    /// `walk`.
    fn block(&mut self, block: BlockId, walk: &mut Vec<Loc>) {
        let program = self.program;
        self.out.push('{');
        for &id in &program.blocks[block.index()].items {
            let stmt = &program.stmts[id.index()];
            walk.push(stmt.loc);
            match &stmt.kind {
                StmtKind::Assign { var: v, expr } => {
                    let name = self.written(*v);
                    let _ = write!(self.out, "{name}:=");
                    self.expr(expr);
                }
                StmtKind::Assume(e) => self.shaped("assume", e),
                StmtKind::Await(e) => self.shaped("await", e),
                StmtKind::Assert(e) => self.shaped("assert", e),
                StmtKind::Skip => self.out.push_str("skip"),
                StmtKind::If { cond, .. } => {
                    self.out.push_str("if");
                    self.cond(cond);
                }
                StmtKind::While { cond, .. } => {
                    self.out.push_str("while");
                    self.cond(cond);
                }
                StmtKind::Atomic(_) => self.out.push_str("atomic"),
                StmtKind::NoReorder(_) => self.out.push_str("noreorder"),
                StmtKind::Call(p) => {
                    let _ = write!(self.out, "call {}", program.procs[p.index()].name);
                }
                StmtKind::Lock { var: v, .. } => self.sync("lock", *v),
                StmtKind::Unlock(v) => self.sync("unlock", *v),
                StmtKind::Down { var: v, .. } => self.sync("down", *v),
                StmtKind::Up(v) => self.sync("up", *v),
            }
            for inner in stmt.kind.blocks() {
                self.block(inner, walk);
            }
            self.out.push(';');
        }
        self.out.push('}');
    }

    fn shaped(&mut self, what: &str, e: &Expr) {
        self.out.push_str(what);
        self.expr(e);
    }

    fn cond(&mut self, cond: &Cond) {
        match cond {
            Cond::Star => self.out.push('*'),
            Cond::Expr { cond, .. } => self.expr(cond),
        }
    }

    /// A lock or semaphore statement `what` on `v` (which it writes).
    fn sync(&mut self, what: &str, v: VarIdx) {
        let name = self.written(v);
        let _ = write!(self.out, "{what} {name}");
    }

    /// A variable written: [`Shape::var`], noted as written.
    fn written(&mut self, v: VarIdx) -> String {
        self.written.insert(v);
        self.var(v)
    }

    /// A shared variable by its name; a thread's local as `local` (each twin has its own).
    fn var(&mut self, v: VarIdx) -> String {
        let program = self.program;
        let var = &program.vars[v.index()];
        match var.scope {
            VarScope::Global if self.own.contains(&v) => "own".into(),
            VarScope::Global => var.name.clone(),
            VarScope::Thread(_) => "local".into(),
            VarScope::Proc(p) => format!("{}.{}", program.procs[p.index()].name, var.name),
        }
    }

    /// An expression with its literals as `#`.
    fn expr(&mut self, e: &Expr) {
        self.out.push('(');
        match e {
            Expr::Int(_) | Expr::Bool(_) => self.out.push('#'),
            Expr::Var(v) => {
                let name = self.var(*v);
                self.out.push_str(&name);
            }
            Expr::Unary(op, inner) => {
                let _ = write!(self.out, "{op:?}");
                self.expr(inner);
            }
            Expr::Chain(chain) => {
                self.expr(chain.first());
                for (op, operand) in chain.links() {
                    self.out.push_str(op.symbol());
                    self.expr(operand);
                }
            }
        }
        self.out.push(')');
    }
}
