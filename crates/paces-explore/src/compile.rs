//! Compiles the IR into per-thread control graphs: procedures inlined, sugar expanded into
//! steps, and for every control point the steps a thread may take next (its *options*), found
//! by following the moves that take no step (entering a branch or a loop body, leaving a loop,
//! calling a procedure).

use paces_constraint::{BlockId, Loc};
use paces_cwhile::ir::{BinOp, Cond, Expr, ProcIdx, Program, StmtId, StmtKind, UnOp, VarIdx, VarScope};
use paces_trace::{EventKind, VarId};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::bits::Bits;
use crate::error::{Error, ErrorKind};

/// The most control points a thread may have after inlining.
const MAX_POINTS: usize = 4_000_000;

/// A structural move that takes no step. `Push`/`Pop` open and close block instances (for
/// trace scopes); `LoopEnter`/`LoopExit` count loop iterations (for `unwind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Move {
    Push(u32),
    Pop,
    LoopEnter(u32),
    LoopExit(u32),
}

/// Where a variable lives in the state: a global index or a slot of the thread's locals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum VarRef {
    Global(u32),
    Local(u32),
}

/// One instruction of a compiled expression (a stack machine without recursion).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Const(i64),
    Load(VarRef),
    Not,
    Neg,
    Bin(BinOp),
    /// Pops a value; when it is 0, pushes 0 and jumps (short-circuit `&&`).
    AndJump(u32),
    /// Pops a value; when it is not 0, pushes 1 and jumps (short-circuit `||`).
    OrJump(u32),
    /// Normalises the top of the stack to 0 or 1.
    Bool,
}

/// A compiled expression.
#[derive(Clone, Debug, Default)]
pub(crate) struct Code {
    pub ops: Vec<Op>,
}

impl Code {
    /// Evaluates the expression; a division or remainder by zero yields 0 for that operation
    /// and sets `div0`.
    pub(crate) fn eval(&self, globals: &[i64], locals: &[i64], div0: &mut bool) -> i64 {
        let mut stack: SmallVec<[i64; 16]> = SmallVec::new();
        let mut pc = 0;
        while pc < self.ops.len() {
            match self.ops[pc] {
                Op::Const(v) => stack.push(v),
                Op::Load(VarRef::Global(g)) => stack.push(globals[g as usize]),
                Op::Load(VarRef::Local(l)) => stack.push(locals[l as usize]),
                Op::Not => {
                    let v = stack.pop().unwrap_or(0);
                    stack.push(i64::from(v == 0));
                }
                Op::Neg => {
                    let v = stack.pop().unwrap_or(0);
                    stack.push(v.wrapping_neg());
                }
                Op::Bool => {
                    let v = stack.pop().unwrap_or(0);
                    stack.push(i64::from(v != 0));
                }
                Op::AndJump(target) => {
                    let v = stack.pop().unwrap_or(0);
                    if v == 0 {
                        stack.push(0);
                        pc = target as usize;
                        continue;
                    }
                }
                Op::OrJump(target) => {
                    let v = stack.pop().unwrap_or(0);
                    if v != 0 {
                        stack.push(1);
                        pc = target as usize;
                        continue;
                    }
                }
                Op::Bin(op) => {
                    let b = stack.pop().unwrap_or(0);
                    let a = stack.pop().unwrap_or(0);
                    stack.push(binop(op, a, b, div0));
                }
            }
            pc += 1;
        }
        stack.pop().unwrap_or(0)
    }
}

fn binop(op: BinOp, a: i64, b: i64, div0: &mut bool) -> i64 {
    match op {
        BinOp::Or => i64::from(a != 0 || b != 0),
        BinOp::And => i64::from(a != 0 && b != 0),
        BinOp::Eq => i64::from(a == b),
        BinOp::Ne => i64::from(a != b),
        BinOp::Lt => i64::from(a < b),
        BinOp::Le => i64::from(a <= b),
        BinOp::Gt => i64::from(a > b),
        BinOp::Ge => i64::from(a >= b),
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div | BinOp::Rem if b == 0 => {
            *div0 = true;
            0
        }
        BinOp::Div => a.wrapping_div(b),
        BinOp::Rem => a.wrapping_rem(b),
    }
}

/// What a step does.
#[derive(Clone, Debug)]
pub(crate) enum StepKind {
    Assign(VarRef, Code),
    Assume(Code),
    Await(Code),
    Assert(Code),
    Skip,
}

/// One simple step of a thread (a statement or a derived step), at one inlined place.
#[derive(Clone, Debug)]
pub(crate) struct StepInfo {
    /// The control point where the step is taken.
    pub site: u32,
    /// The control point after the step.
    pub after: u32,
    /// Moves made by the step itself (entering a branch or a loop body, leaving a loop).
    pub after_moves: Vec<Move>,
    pub loc: Loc,
    pub kind: StepKind,
    pub event: EventKind,
    /// Variables read, without repetition, in order of first occurrence.
    pub reads: Vec<VarRef>,
    /// Globals read and written.
    pub r: Bits,
    pub w: Bits,
    /// The atomic region the step belongs to.
    pub region: Option<u32>,
}

/// A step a thread may take next from a control point, with the moves that lead to it.
#[derive(Clone, Debug)]
pub(crate) struct Opt {
    pub step: u32,
    pub moves: Vec<Move>,
    /// Whether `moves` holds loop moves (only those matter for the state).
    pub has_loop_moves: bool,
    /// Globals the transition may read and write (for a step that enters an atomic region:
    /// everything the region may touch).
    pub r: Bits,
    pub w: Bits,
}

/// A block at one inlined place.
#[derive(Clone, Debug)]
pub(crate) struct Occ {
    pub block: BlockId,
    /// The enclosing occurrence and the index of the item holding this one.
    pub parent: Option<(u32, u32)>,
    pub first_point: u32,
    pub len: u32,
    /// The call statements this occurrence was inlined through, outermost first.
    pub calls: Vec<Loc>,
}

/// A control point: before an item of a block occurrence, at its end, or in the middle of a
/// `lock`/`down`.
#[derive(Clone, Debug)]
pub(crate) struct Point {
    pub occ: u32,
    pub region: Option<u32>,
    /// The item the point stands at (the block's item, or the `lock` for a middle point).
    pub item: Option<Loc>,
    pub options: Vec<Opt>,
    /// Whether the thread can reach its end from here without a step.
    pub can_finish: bool,
    /// For a point in an atomic region: the moves that leave the region without a step.
    pub exit_moves: Option<Vec<Move>>,
    /// Globals that steps reachable from here may read and write.
    pub fut_r: Bits,
    pub fut_w: Bits,
    /// Variables private to the thread (its locals, and globals no other thread uses) whose
    /// value can never be read again from here: the checker resets them to 0.
    pub dead: Vec<VarRef>,
    /// Whether the point's only next step is outside atomic blocks, not an `await`, and
    /// touches only variables private to the thread (it may be merged into the step before).
    pub private_next: bool,
}

/// An outermost atomic block (a user `atomic`, or a `lock`/`down` outside one) at one
/// inlined place.
#[derive(Clone, Debug)]
pub(crate) struct Region {
    /// The atomic statement (its label names the region).
    pub loc: Loc,
    /// The point after the region.
    pub exit: u32,
    pub r: Bits,
    pub w: Bits,
}

/// One thread, compiled.
#[derive(Clone, Debug)]
pub(crate) struct TCode {
    pub name: String,
    pub points: Vec<Point>,
    pub steps: Vec<StepInfo>,
    pub occs: Vec<Occ>,
    pub regions: Vec<Region>,
    /// The point where the thread starts.
    pub entry: u32,
    /// Number of loop occurrences (loop counter slots).
    pub n_loops: u32,
    /// Initial values of the local slots.
    pub local_init: Vec<i64>,
    /// Per point: the silent edges (target, whether SPIN takes it as a step).
    pub silent: Vec<Vec<(u32, bool)>>,
    /// Per point: the steps taken there.
    pub steps_at: Vec<Vec<u32>>,
    /// The end point of the thread body.
    pub end: u32,
}

/// A compiled program.
#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    pub threads: Vec<TCode>,
    pub global_init: Vec<i64>,
    /// Program locations' names.
    pub loc_names: Vec<String>,
    pub layout: VarLayout,
}

/// How program variables map to state slots and to trace [`VarId`]s.
#[derive(Clone, Debug)]
pub(crate) struct VarLayout {
    pub n_globals: usize,
    /// For each thread: the first `VarId` of its locals.
    pub local_base: Vec<u32>,
    /// For each thread: the number of local slots (own locals, then every procedure's).
    pub local_len: Vec<u32>,
    /// For each thread: the number of its own locals.
    pub own_len: Vec<u32>,
    /// Slot of each thread-local variable (by `VarIdx`) within its thread.
    pub thread_slot: FxHashMap<VarIdx, (usize, u32)>,
    /// Slot offset of each procedure's locals within any thread (after the thread's own).
    pub proc_base: Vec<u32>,
    /// Slot of each procedure-local variable within its procedure's part.
    pub proc_slot: FxHashMap<VarIdx, u32>,
    /// Names for `var_name`: per `VarId`.
    pub names: Vec<String>,
}

impl VarLayout {
    pub(crate) fn new(program: &Program) -> Result<Self, Error> {
        let n_globals = program.vars.iter().take_while(|v| v.scope == VarScope::Global).count();
        if program.vars[n_globals..].iter().any(|v| v.scope == VarScope::Global) {
            return Err(Error::new(ErrorKind::InvalidProgram, "globals must come first in the variable list"));
        }
        let mut thread_locals: Vec<Vec<VarIdx>> = vec![Vec::new(); program.threads.len()];
        let mut proc_locals: Vec<Vec<VarIdx>> = vec![Vec::new(); program.procs.len()];
        for (i, v) in program.vars.iter().enumerate() {
            let idx = VarIdx::new(i).ok_or_else(|| Error::new(ErrorKind::TooLarge, "too many variables"))?;
            match v.scope {
                VarScope::Global => {}
                VarScope::Thread(t) => thread_locals
                    .get_mut(t.index())
                    .ok_or_else(|| {
                        Error::new(ErrorKind::InvalidProgram, format!("variable {} of unknown thread", v.name))
                    })?
                    .push(idx),
                VarScope::Proc(p) => proc_locals
                    .get_mut(p.index())
                    .ok_or_else(|| {
                        Error::new(ErrorKind::InvalidProgram, format!("variable {} of unknown procedure", v.name))
                    })?
                    .push(idx),
            }
        }
        let mut proc_base = Vec::new();
        let mut proc_slot = FxHashMap::default();
        let mut acc = 0u32;
        for locals in &proc_locals {
            proc_base.push(acc);
            for (k, &v) in locals.iter().enumerate() {
                proc_slot.insert(v, k as u32);
            }
            acc += locals.len() as u32;
        }
        let proc_total = acc;
        let mut names: Vec<String> = program.vars[..n_globals].iter().map(|v| v.name.clone()).collect();
        let mut local_base = Vec::new();
        let mut local_len = Vec::new();
        let mut own_len = Vec::new();
        let mut thread_slot = FxHashMap::default();
        for (t, locals) in thread_locals.iter().enumerate() {
            local_base.push(names.len() as u32);
            local_len.push(locals.len() as u32 + proc_total);
            own_len.push(locals.len() as u32);
            let tname = &program.threads[t].name;
            for (k, &v) in locals.iter().enumerate() {
                thread_slot.insert(v, (t, k as u32));
                names.push(format!("{tname}.{}", program.vars[v.index()].name));
            }
            for (p, pl) in proc_locals.iter().enumerate() {
                for &v in pl {
                    names.push(format!("{tname}.{}.{}", program.procs[p].name, program.vars[v.index()].name));
                }
            }
        }
        Ok(VarLayout { n_globals, local_base, local_len, own_len, thread_slot, proc_base, proc_slot, names })
    }

    /// The slot of `var` as seen from thread `t`.
    pub(crate) fn var_ref(&self, program: &Program, t: usize, var: VarIdx) -> Option<VarRef> {
        let v = program.vars.get(var.index())?;
        match v.scope {
            VarScope::Global => Some(VarRef::Global(var.as_u32())),
            VarScope::Thread(_) => {
                let &(owner, slot) = self.thread_slot.get(&var)?;
                (owner == t).then_some(VarRef::Local(slot))
            }
            VarScope::Proc(p) => {
                let own = *self.own_len.get(t)?;
                Some(VarRef::Local(own + self.proc_base.get(p.index())? + self.proc_slot.get(&var)?))
            }
        }
    }

    /// The trace variable of a slot of thread `t`.
    pub(crate) fn var_id(&self, t: usize, r: VarRef) -> VarId {
        match r {
            VarRef::Global(g) => VarId::from_u32(g),
            VarRef::Local(l) => VarId::from_u32(self.local_base[t] + l),
        }
    }
}

/// Builds the compiled program.
pub(crate) fn compile(program: &Program) -> Result<Compiled, Error> {
    if program.threads.len() >= usize::from(u16::MAX) {
        return Err(Error::new(ErrorKind::TooLarge, "more than 65,534 threads"));
    }
    let layout = VarLayout::new(program)?;
    let global_init = program.vars[..layout.n_globals].iter().map(|v| v.init).collect();
    let mut threads = Vec::new();
    for t in 0..program.threads.len() {
        threads.push(ThreadBuilder::new(program, &layout, t).build()?);
    }
    dead_variables(&mut threads, layout.n_globals);
    Ok(Compiled { threads, global_init, loc_names: program.loc_names.clone(), layout })
}

/// Silent edge: target point, the moves along it, and whether SPIN's Promela export makes
/// it a step of its own (a loop's `break`, an empty branch's `skip`).
type Silent = SmallVec<[(u32, SmallVec<[Move; 2]>, bool); 2]>;

struct ThreadBuilder<'p> {
    program: &'p Program,
    layout: &'p VarLayout,
    t: usize,
    occs: Vec<Occ>,
    occ_region: Vec<Option<u32>>,
    occ_procs: Vec<Vec<ProcIdx>>,
    points: Vec<Point>,
    silent: Vec<Silent>,
    steps: Vec<StepInfo>,
    steps_at: Vec<SmallVec<[u32; 2]>>,
    regions: Vec<Region>,
    n_loops: u32,
}

impl<'p> ThreadBuilder<'p> {
    fn new(program: &'p Program, layout: &'p VarLayout, t: usize) -> Self {
        ThreadBuilder {
            program,
            layout,
            t,
            occs: Vec::new(),
            occ_region: Vec::new(),
            occ_procs: Vec::new(),
            points: Vec::new(),
            silent: Vec::new(),
            steps: Vec::new(),
            steps_at: Vec::new(),
            regions: Vec::new(),
            n_loops: 0,
        }
    }

    fn err(&self, kind: ErrorKind, msg: impl Into<String>) -> Error {
        Error::new(kind, format!("thread {}: {}", self.program.threads[self.t].name, msg.into()))
    }

    fn new_point(&mut self, occ: u32, idx: u32, region: Option<u32>, item: Option<Loc>) -> Result<u32, Error> {
        if self.points.len() >= MAX_POINTS {
            return Err(self.err(ErrorKind::TooLarge, "too many control points after inlining procedures"));
        }
        let n = Bits::new(self.layout.n_globals);
        let _ = idx;
        self.points.push(Point {
            occ,
            region,
            item,
            options: Vec::new(),
            can_finish: false,
            exit_moves: None,
            fut_r: n.clone(),
            fut_w: n,
            dead: Vec::new(),
            private_next: false,
        });
        self.silent.push(SmallVec::new());
        self.steps_at.push(SmallVec::new());
        Ok(self.points.len() as u32 - 1)
    }

    fn new_occ(
        &mut self,
        block: BlockId,
        parent: Option<(u32, u32)>,
        region: Option<u32>,
        procs: Vec<ProcIdx>,
    ) -> Result<u32, Error> {
        let b = self
            .program
            .blocks
            .get(block.index())
            .ok_or_else(|| self.err(ErrorKind::InvalidProgram, format!("unknown block {block}")))?;
        let items = b.items.clone();
        let occ = self.occs.len() as u32;
        let first_point = self.points.len() as u32;
        for (i, s) in items.iter().enumerate() {
            let loc = self.stmt(*s)?.loc;
            self.new_point(occ, i as u32, region, Some(loc))?;
        }
        self.new_point(occ, items.len() as u32, region, None)?;
        let mut calls = match parent {
            Some((p, _)) => self.occs[p as usize].calls.clone(),
            None => Vec::new(),
        };
        if let Some((p, i)) = parent {
            let pblock = self.occs[p as usize].block;
            let stmt = self.stmt(self.program.blocks[pblock.index()].items[i as usize])?;
            if matches!(stmt.kind, StmtKind::Call(_)) {
                calls.push(stmt.loc);
            }
        }
        self.occs.push(Occ { block, parent, first_point, len: items.len() as u32, calls });
        self.occ_region.push(region);
        self.occ_procs.push(procs);
        Ok(occ)
    }

    fn stmt(&self, s: StmtId) -> Result<&'p paces_cwhile::ir::Stmt, Error> {
        self.program
            .stmts
            .get(s.index())
            .ok_or_else(|| self.err(ErrorKind::InvalidProgram, format!("unknown statement {s}")))
    }

    fn var(&self, v: VarIdx) -> Result<VarRef, Error> {
        self.layout
            .var_ref(self.program, self.t, v)
            .ok_or_else(|| self.err(ErrorKind::InvalidProgram, format!("variable {v} is not visible in this thread")))
    }

    /// Compiles an expression without recursion; also returns the variables it reads.
    fn code(&self, e: &Expr) -> Result<(Code, Vec<VarRef>), Error> {
        enum Task<'e> {
            Visit(&'e Expr),
            Emit(Op),
            AndJump,
            OrJump,
            Patch,
        }
        let mut ops: Vec<Op> = Vec::new();
        let mut reads: Vec<VarRef> = Vec::new();
        let mut patches: Vec<usize> = Vec::new();
        let mut tasks = vec![Task::Visit(e)];
        while let Some(task) = tasks.pop() {
            match task {
                Task::Visit(e) => match e {
                    Expr::Int(v) => ops.push(Op::Const(*v)),
                    Expr::Bool(b) => ops.push(Op::Const(i64::from(*b))),
                    Expr::Var(v) => {
                        let r = self.var(*v)?;
                        if !reads.contains(&r) {
                            reads.push(r);
                        }
                        ops.push(Op::Load(r));
                    }
                    Expr::Unary(op, a) => {
                        tasks.push(Task::Emit(match op {
                            UnOp::Not => Op::Not,
                            UnOp::Neg => Op::Neg,
                        }));
                        tasks.push(Task::Visit(a));
                    }
                    Expr::Binary(BinOp::And, a, b) => {
                        tasks.extend([
                            Task::Patch,
                            Task::Emit(Op::Bool),
                            Task::Visit(b),
                            Task::AndJump,
                            Task::Visit(a),
                        ]);
                    }
                    Expr::Binary(BinOp::Or, a, b) => {
                        tasks.extend([Task::Patch, Task::Emit(Op::Bool), Task::Visit(b), Task::OrJump, Task::Visit(a)]);
                    }
                    Expr::Binary(op, a, b) => {
                        tasks.extend([Task::Emit(Op::Bin(*op)), Task::Visit(b), Task::Visit(a)]);
                    }
                },
                Task::Emit(op) => ops.push(op),
                Task::AndJump => {
                    patches.push(ops.len());
                    ops.push(Op::AndJump(0));
                }
                Task::OrJump => {
                    patches.push(ops.len());
                    ops.push(Op::OrJump(0));
                }
                Task::Patch => {
                    let at = patches.pop().unwrap_or(0);
                    let target = ops.len() as u32;
                    match &mut ops[at] {
                        Op::AndJump(t) | Op::OrJump(t) => *t = target,
                        _ => {}
                    }
                }
            }
        }
        Ok((Code { ops }, reads))
    }

    #[allow(clippy::too_many_arguments)] // Reason: a private constructor called from one place per step kind.
    fn add_step(
        &mut self,
        site: u32,
        after: u32,
        after_moves: Vec<Move>,
        loc: Loc,
        kind: StepKind,
        reads: Vec<VarRef>,
        write: Option<VarRef>,
    ) {
        let event = match kind {
            StepKind::Assign(..) | StepKind::Skip => EventKind::Plain,
            StepKind::Assume(_) => EventKind::Assume,
            StepKind::Await(_) => EventKind::Await,
            StepKind::Assert(_) => EventKind::Assert,
        };
        let mut r = Bits::new(self.layout.n_globals);
        let mut w = Bits::new(self.layout.n_globals);
        for v in &reads {
            if let VarRef::Global(g) = v {
                r.insert(*g as usize);
            }
        }
        if let Some(VarRef::Global(g)) = write {
            w.insert(g as usize);
        }
        let region = self.points[site as usize].region.or(self.points[after as usize].region);
        let id = self.steps.len() as u32;
        self.steps.push(StepInfo { site, after, after_moves, loc, kind, event, reads, r, w, region });
        self.steps_at[site as usize].push(id);
    }

    fn silent_edge(&mut self, from: u32, to: u32, moves: &[Move]) {
        self.silent[from as usize].push((to, moves.iter().copied().collect(), false));
    }

    /// A silent edge that SPIN takes as a step (`break`, `skip` of an empty branch).
    fn commit_edge(&mut self, from: u32, to: u32, moves: &[Move]) {
        self.silent[from as usize].push((to, moves.iter().copied().collect(), true));
    }

    fn is_empty_occ(&self, occ: u32) -> bool {
        self.occs[occ as usize].len == 0
    }

    fn guard_step(
        &mut self,
        site: u32,
        after: u32,
        moves: Vec<Move>,
        step: &paces_cwhile::ir::Step,
    ) -> Result<(), Error> {
        let (code, reads) = self.code(&step.expr)?;
        self.add_step(site, after, moves, step.loc, StepKind::Assume(code), reads, None);
        Ok(())
    }

    fn build(mut self) -> Result<TCode, Error> {
        let body = self.program.threads[self.t].body;
        let top = self.new_occ(body, None, None, Vec::new())?;
        let mut work = vec![top];
        while let Some(occ) = work.pop() {
            let block = self.occs[occ as usize].block;
            let items = self.program.blocks[block.index()].items.clone();
            let first = self.occs[occ as usize].first_point;
            let region = self.occ_region[occ as usize];
            let procs = self.occ_procs[occ as usize].clone();
            for (i, &s) in items.iter().enumerate() {
                let here = first + i as u32;
                let next = here + 1;
                let stmt = self.stmt(s)?;
                let i = i as u32;
                match &stmt.kind {
                    StmtKind::Assign { var, expr } => {
                        let target = self.var(*var)?;
                        let (code, reads) = self.code(expr)?;
                        self.add_step(
                            here,
                            next,
                            Vec::new(),
                            stmt.loc,
                            StepKind::Assign(target, code),
                            reads,
                            Some(target),
                        );
                    }
                    StmtKind::Assume(e) => {
                        let (code, reads) = self.code(e)?;
                        self.add_step(here, next, Vec::new(), stmt.loc, StepKind::Assume(code), reads, None);
                    }
                    StmtKind::Await(e) => {
                        let (code, reads) = self.code(e)?;
                        self.add_step(here, next, Vec::new(), stmt.loc, StepKind::Await(code), reads, None);
                    }
                    StmtKind::Assert(e) => {
                        let (code, reads) = self.code(e)?;
                        self.add_step(here, next, Vec::new(), stmt.loc, StepKind::Assert(code), reads, None);
                    }
                    StmtKind::Skip => self.add_step(here, next, Vec::new(), stmt.loc, StepKind::Skip, Vec::new(), None),
                    StmtKind::Unlock(v) => {
                        let target = self.var(*v)?;
                        let code = Code { ops: vec![Op::Const(0)] };
                        self.add_step(
                            here,
                            next,
                            Vec::new(),
                            stmt.loc,
                            StepKind::Assign(target, code),
                            Vec::new(),
                            Some(target),
                        );
                    }
                    StmtKind::Up(v) => {
                        let target = self.var(*v)?;
                        let code = Code { ops: vec![Op::Load(target), Op::Const(1), Op::Bin(BinOp::Add)] };
                        self.add_step(
                            here,
                            next,
                            Vec::new(),
                            stmt.loc,
                            StepKind::Assign(target, code),
                            vec![target],
                            Some(target),
                        );
                    }
                    StmtKind::Lock { var, wait, set } | StmtKind::Down { var, wait, set } => {
                        let target = self.var(*var)?;
                        let r = match region {
                            Some(r) => r,
                            None => self.new_region(stmt.loc, next),
                        };
                        let mid = self.new_point(occ, i, Some(r), Some(stmt.loc))?;
                        let (wcode, wreads) = self.code(&wait.expr)?;
                        self.add_step(here, mid, Vec::new(), wait.loc, StepKind::Await(wcode), wreads, None);
                        let (scode, sreads) = self.code(&set.expr)?;
                        self.add_step(
                            mid,
                            next,
                            Vec::new(),
                            set.loc,
                            StepKind::Assign(target, scode),
                            sreads,
                            Some(target),
                        );
                    }
                    StmtKind::If { cond, then_block, else_block } => {
                        let then_occ = self.new_occ(*then_block, Some((occ, i)), region, procs.clone())?;
                        work.push(then_occ);
                        let then_first = self.occs[then_occ as usize].first_point;
                        let else_target = match else_block {
                            Some(b) => {
                                let else_occ = self.new_occ(*b, Some((occ, i)), region, procs.clone())?;
                                work.push(else_occ);
                                Some((self.occs[else_occ as usize].first_point, else_occ))
                            }
                            None => None,
                        };
                        match cond {
                            Cond::Star => {
                                if self.is_empty_occ(then_occ) {
                                    self.commit_edge(here, then_first, &[Move::Push(then_occ)]);
                                } else {
                                    self.silent_edge(here, then_first, &[Move::Push(then_occ)]);
                                }
                                match else_target {
                                    Some((p, o)) if self.is_empty_occ(o) => self.commit_edge(here, p, &[Move::Push(o)]),
                                    Some((p, o)) => self.silent_edge(here, p, &[Move::Push(o)]),
                                    None => self.commit_edge(here, next, &[]),
                                }
                            }
                            Cond::Expr { then_guard, else_guard, .. } => {
                                self.guard_step(here, then_first, vec![Move::Push(then_occ)], then_guard)?;
                                match else_target {
                                    Some((p, o)) => self.guard_step(here, p, vec![Move::Push(o)], else_guard)?,
                                    None => self.guard_step(here, next, Vec::new(), else_guard)?,
                                }
                            }
                        }
                    }
                    StmtKind::While { cond, body } => {
                        let body_occ = self.new_occ(*body, Some((occ, i)), region, procs.clone())?;
                        work.push(body_occ);
                        let loop_id = self.n_loops;
                        self.n_loops += 1;
                        let body_first = self.occs[body_occ as usize].first_point;
                        let enter = [Move::Push(body_occ), Move::LoopEnter(loop_id)];
                        let leave = [Move::LoopExit(loop_id)];
                        match cond {
                            Cond::Star => {
                                if self.is_empty_occ(body_occ) {
                                    self.commit_edge(here, body_first, &enter);
                                } else {
                                    self.silent_edge(here, body_first, &enter);
                                }
                                self.commit_edge(here, next, &leave);
                            }
                            Cond::Expr { then_guard, else_guard, .. } => {
                                self.guard_step(here, body_first, enter.to_vec(), then_guard)?;
                                self.guard_step(here, next, leave.to_vec(), else_guard)?;
                            }
                        }
                    }
                    StmtKind::Atomic(b) => {
                        let r = match region {
                            Some(r) => r,
                            None => self.new_region(stmt.loc, next),
                        };
                        let body_occ = self.new_occ(*b, Some((occ, i)), Some(r), procs.clone())?;
                        work.push(body_occ);
                        let p = self.occs[body_occ as usize].first_point;
                        self.silent_edge(here, p, &[Move::Push(body_occ)]);
                    }
                    StmtKind::NoReorder(b) => {
                        let body_occ = self.new_occ(*b, Some((occ, i)), region, procs.clone())?;
                        work.push(body_occ);
                        let p = self.occs[body_occ as usize].first_point;
                        self.silent_edge(here, p, &[Move::Push(body_occ)]);
                    }
                    StmtKind::Call(p) => {
                        let proc = self.program.procs.get(p.index()).ok_or_else(|| {
                            self.err(ErrorKind::InvalidProgram, format!("call of unknown procedure {p}"))
                        })?;
                        if procs.contains(p) {
                            return Err(self.err(
                                ErrorKind::Recursion,
                                format!("procedure {} calls itself (at {})", proc.name, stmt.label),
                            ));
                        }
                        let mut chain = procs.clone();
                        chain.push(*p);
                        let body_occ = self.new_occ(proc.body, Some((occ, i)), region, chain)?;
                        work.push(body_occ);
                        let first = self.occs[body_occ as usize].first_point;
                        self.silent_edge(here, first, &[Move::Push(body_occ)]);
                    }
                }
            }
            // The end of the block.
            let end = first + items.len() as u32;
            if let Some((pocc, j)) = self.occs[occ as usize].parent {
                let pfirst = self.occs[pocc as usize].first_point;
                let pstmt = self.program.blocks[self.occs[pocc as usize].block.index()].items[j as usize];
                let target = match self.stmt(pstmt)?.kind {
                    StmtKind::While { .. } => pfirst + j,
                    _ => pfirst + j + 1,
                };
                self.silent_edge(end, target, &[Move::Pop]);
            }
        }
        self.closures()?;
        self.futures();
        let entry = self.occs[top as usize].first_point;
        let end = entry + self.occs[top as usize].len;
        let silent = self.silent.iter().map(|v| v.iter().map(|(t, _, c)| (*t, *c)).collect()).collect();
        let steps_at = self.steps_at.iter().map(|v| v.to_vec()).collect();
        let local_init = self.local_init();
        Ok(TCode {
            name: self.program.threads[self.t].name.clone(),
            points: self.points,
            steps: self.steps,
            occs: self.occs,
            regions: self.regions,
            entry,
            n_loops: self.n_loops,
            local_init,
            silent,
            steps_at,
            end,
        })
    }

    fn local_init(&self) -> Vec<i64> {
        let n = self.layout.local_len[self.t] as usize;
        let mut init = vec![0; n];
        for (i, v) in self.program.vars.iter().enumerate() {
            let idx = VarIdx::from_u32(i as u32);
            if v.scope == VarScope::Global {
                continue;
            }
            if let Some(VarRef::Local(l)) = self.layout.var_ref(self.program, self.t, idx) {
                if let Some(slot) = init.get_mut(l as usize) {
                    *slot = v.init;
                }
            }
        }
        init
    }

    fn new_region(&mut self, loc: Loc, exit: u32) -> u32 {
        let n = Bits::new(self.layout.n_globals);
        self.regions.push(Region { loc, exit, r: n.clone(), w: n });
        self.regions.len() as u32 - 1
    }

    /// For every point: the options (steps reachable by silent moves), whether the thread can
    /// finish, and for points in an atomic region whether the region can be left silently.
    fn closures(&mut self) -> Result<(), Error> {
        let top_end = self.occs[0].first_point + self.occs[0].len;
        // Region read/write sets.
        for s in &self.steps {
            if let Some(r) = s.region {
                let reg = &mut self.regions[r as usize];
                reg.r.union_with(&s.r);
                reg.w.union_with(&s.w);
            }
        }
        let n = self.points.len();
        let mut stamp = vec![u32::MAX; n];
        for p in 0..n {
            let region = self.points[p].region;
            let mut options: Vec<Opt> = Vec::new();
            let mut can_finish = false;
            let mut exit_moves = None;
            let mut queue: std::collections::VecDeque<(u32, Vec<Move>)> = std::collections::VecDeque::new();
            queue.push_back((p as u32, Vec::new()));
            stamp[p] = p as u32;
            while let Some((q, moves)) = queue.pop_front() {
                if q == top_end {
                    can_finish = true;
                }
                for &st in &self.steps_at[q as usize] {
                    if options.iter().any(|o| o.step == st) {
                        continue;
                    }
                    let step = &self.steps[st as usize];
                    let (r, w) = match step.region {
                        Some(reg) => (self.regions[reg as usize].r.clone(), self.regions[reg as usize].w.clone()),
                        None => (step.r.clone(), step.w.clone()),
                    };
                    let has_loop_moves = moves.iter().any(|m| matches!(m, Move::LoopEnter(_) | Move::LoopExit(_)));
                    options.push(Opt { step: st, moves: moves.clone(), has_loop_moves, r, w });
                }
                for (target, emoves, _) in &self.silent[q as usize] {
                    let mut m = moves.clone();
                    m.extend(emoves.iter().copied());
                    if region.is_some() && self.points[*target as usize].region != region {
                        if exit_moves.is_none() {
                            exit_moves = Some(m);
                        }
                        continue;
                    }
                    if stamp[*target as usize] != p as u32 {
                        stamp[*target as usize] = p as u32;
                        queue.push_back((*target, m));
                    }
                }
            }
            if options.len() >= usize::from(u16::MAX) {
                return Err(self.err(ErrorKind::TooLarge, "a control point with more than 65,534 next steps"));
            }
            let point = &mut self.points[p];
            point.options = options;
            point.can_finish = can_finish && region.is_none();
            point.exit_moves = exit_moves;
        }
        // An await inside an atomic region may only be the step that enters it.
        for s in &self.steps {
            if self.points[s.after as usize].region.is_some() {
                for o in &self.points[s.after as usize].options {
                    let st = &self.steps[o.step as usize];
                    if matches!(st.kind, StepKind::Await(_)) {
                        let label = &self.program.loc_names[st.loc.index()];
                        return Err(self.err(
                            ErrorKind::AwaitInAtomic,
                            format!("await {label} stands inside an atomic block but does not open it"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Globals read and written by steps reachable from each point (a fixpoint).
    fn futures(&mut self) {
        let n = self.points.len();
        let mut changed = true;
        while changed {
            changed = false;
            for p in (0..n).rev() {
                let mut r = self.points[p].fut_r.clone();
                let mut w = self.points[p].fut_w.clone();
                for o in &self.points[p].options {
                    let step = &self.steps[o.step as usize];
                    r.union_with(&step.r);
                    w.union_with(&step.w);
                    let after = &self.points[step.after as usize];
                    r.union_with(&after.fut_r);
                    w.union_with(&after.fut_w);
                }
                if let (Some(reg), Some(_)) = (self.points[p].region, &self.points[p].exit_moves) {
                    let exit = &self.points[self.regions[reg as usize].exit as usize];
                    r.union_with(&exit.fut_r);
                    w.union_with(&exit.fut_w);
                }
                let point = &mut self.points[p];
                if point.fut_r.union_with(&r) | point.fut_w.union_with(&w) {
                    changed = true;
                }
            }
        }
    }
}

/// Computes, for every point of every thread, the private variables that are dead there
/// (backward liveness over the thread's control graph, to a fixpoint).
fn dead_variables(threads: &mut [TCode], n_globals: usize) {
    let used: Vec<Bits> = threads
        .iter()
        .map(|t| {
            let p = &t.points[t.entry as usize];
            let mut b = p.fut_r.clone();
            b.union_with(&p.fut_w);
            b
        })
        .collect();
    for (t, code) in threads.iter_mut().enumerate() {
        let n_locals = code.local_init.len();
        let width = n_globals + n_locals;
        let index = |r: VarRef| match r {
            VarRef::Global(g) => g as usize,
            VarRef::Local(l) => n_globals + l as usize,
        };
        let mut private = Bits::new(width);
        for g in 0..n_globals {
            if used[t].contains(g) && used.iter().enumerate().all(|(u, b)| u == t || !b.contains(g)) {
                private.insert(g);
            }
        }
        for l in 0..n_locals {
            private.insert(n_globals + l);
        }
        let n = code.points.len();
        let mut live: Vec<Bits> = vec![Bits::new(width); n];
        let mut changed = true;
        while changed {
            changed = false;
            for p in (0..n).rev() {
                let mut acc = Bits::new(width);
                for o in &code.points[p].options {
                    let st = &code.steps[o.step as usize];
                    let mut after = live[st.after as usize].clone();
                    if let StepKind::Assign(v, _) = st.kind {
                        let reads_itself = st.reads.contains(&v);
                        if !reads_itself {
                            after.remove(index(v));
                        }
                    }
                    acc.union_with(&after);
                    for &r in &st.reads {
                        acc.insert(index(r));
                    }
                }
                if let (Some(reg), Some(_)) = (code.points[p].region, &code.points[p].exit_moves) {
                    let exit = code.regions[reg as usize].exit as usize;
                    let l = live[exit].clone();
                    acc.union_with(&l);
                }
                if live[p].union_with(&acc) {
                    changed = true;
                }
            }
        }
        let steps = &code.steps;
        for point in code.points.iter_mut() {
            point.private_next = point.options.len() == 1 && point.region.is_none() && {
                let st = &steps[point.options[0].step as usize];
                st.region.is_none()
                    && !matches!(st.kind, StepKind::Await(_))
                    && st.r.iter().chain(st.w.iter()).all(|g| private.contains(g))
            };
        }
        for (p, point) in code.points.iter_mut().enumerate() {
            point.dead = private
                .iter()
                .filter(|&i| !live[p].contains(i))
                .map(|i| if i < n_globals { VarRef::Global(i as u32) } else { VarRef::Local((i - n_globals) as u32) })
                .collect();
        }
    }
}
