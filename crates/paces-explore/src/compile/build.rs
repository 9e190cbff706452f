//! A thread's body inlined into a control graph: every block at every place it is reached
//! (through branches, loops, atomic blocks and procedure calls) gets its own control points,
//! each statement its steps (sugar such as `lock` expanded), and the moves that take no step
//! become silent edges. The `options` child module then computes what a thread may do next
//! from every point.

mod options;

use paces_constraint::{BlockId, Loc};
use paces_cwhile::ir::{Cond, Expr, ProcIdx, Program, Stmt, StmtId, StmtKind, VarIdx, VarScope};
use paces_trace::EventKind;
use smallvec::SmallVec;

use super::code::Code;
use super::graph::{Move, Occ, Point, Region, StepInfo, StepKind, TCode};
use super::layout::{VarLayout, VarRef};
use crate::bits::Bits;
use crate::error::{Error, ErrorKind};

/// The most control points a thread may have after inlining.
const MAX_POINTS: usize = 4_000_000;

/// Compiles thread `t` of the program into its control graph, with its options and futures
/// (the dead variables are left to the liveness analysis, which needs every thread).
/// The code of thread `t` (each `assert` a `skip` with `asserts_as_skips`).
pub(super) fn thread(program: &Program, layout: &VarLayout, t: usize, asserts_as_skips: bool) -> Result<TCode, Error> {
    let mut builder = ThreadBuilder::new(program, layout, t);
    builder.asserts_as_skips = asserts_as_skips;
    builder.build()
}

/// Silent edges: target point and the moves along it.
type Silent = SmallVec<[(u32, SmallVec<[Move; 2]>); 2]>;

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
    asserts_as_skips: bool,
}

/// Where an item of a block occurrence stands.
struct At<'a> {
    /// The block occurrence.
    occ: u32,
    /// The item's index in the block.
    i: u32,
    /// The point before the item.
    here: u32,
    /// The point after the item.
    next: u32,
    /// The atomic region the occurrence lies in.
    region: Option<u32>,
    /// The procedures the occurrence was inlined through.
    procs: &'a [ProcIdx],
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
            asserts_as_skips: false,
        }
    }

    fn err(&self, kind: ErrorKind, msg: impl Into<String>) -> Error {
        Error::new(kind, format!("thread {}: {}", self.program.threads[self.t].name, msg.into()))
    }

    fn build(mut self) -> Result<TCode, Error> {
        let body = self.program.threads[self.t].body;
        let top = self.new_occ(body, None, None, Vec::new())?;
        let mut work = vec![top];
        while let Some(occ) = work.pop() {
            self.occurrence(occ, &mut work)?;
        }
        self.closures()?;
        self.futures();
        Ok(self.finish(top))
    }

    /// Adds the steps and silent edges of the items of occurrence `occ` and of its end;
    /// pushes the occurrences its items open onto `work`.
    fn occurrence(&mut self, occ: u32, work: &mut Vec<u32>) -> Result<(), Error> {
        let block = self.occs[occ as usize].block;
        let items = self.program.blocks[block.index()].items.clone();
        let first = self.occs[occ as usize].first_point;
        let region = self.occ_region[occ as usize];
        let procs = self.occ_procs[occ as usize].clone();
        for (i, &s) in items.iter().enumerate() {
            let here = first + i as u32;
            let at = At { occ, i: i as u32, here, next: here + 1, region, procs: &procs };
            self.item(&at, s, work)?;
        }
        self.block_end(occ, first + items.len() as u32)
    }

    /// Adds the steps and silent edges of statement `s`, the item at `at`.
    fn item(&mut self, at: &At<'_>, s: StmtId, work: &mut Vec<u32>) -> Result<(), Error> {
        let stmt = self.stmt(s)?;
        match &stmt.kind {
            StmtKind::Assign { var, expr } => {
                let target = self.var(*var)?;
                let (code, reads) = self.code(expr)?;
                self.assign_step(at, stmt.loc, target, code, reads);
            }
            StmtKind::Assume(e) => self.test_step(at, stmt.loc, e, StepKind::Assume)?,
            StmtKind::Await(e) => self.test_step(at, stmt.loc, e, StepKind::Await)?,
            StmtKind::Assert(e) if !self.asserts_as_skips => self.test_step(at, stmt.loc, e, StepKind::Assert)?,
            StmtKind::Assert(_) | StmtKind::Skip => {
                self.add_step(at.here, at.next, Vec::new(), stmt.loc, StepKind::Skip, Vec::new());
            }
            StmtKind::Unlock(v) => {
                let target = self.var(*v)?;
                self.assign_step(at, stmt.loc, target, Code::constant(0), Vec::new());
            }
            StmtKind::Up(v) => {
                let target = self.var(*v)?;
                self.assign_step(at, stmt.loc, target, Code::increment(target), vec![target]);
            }
            StmtKind::Lock { var, wait, set } | StmtKind::Down { var, wait, set } => {
                self.lock(at, stmt.loc, *var, wait, set)?;
            }
            StmtKind::If { cond, then_block, else_block } => self.branch(at, cond, *then_block, *else_block, work)?,
            StmtKind::While { cond, body } => self.loop_edges(at, cond, *body, work)?,
            StmtKind::Atomic(b) => {
                let r = match at.region {
                    Some(r) => r,
                    None => {
                        let wait_loc = self.added_section_first(stmt, *b).unwrap_or(stmt.loc);
                        let r = self.new_region(stmt.loc, wait_loc, at.next);
                        self.pass_step(at, stmt.loc, r);
                        r
                    }
                };
                let (body_occ, p) = self.open(at, *b, Some(r), at.procs.to_vec(), work)?;
                self.silent_edge(at.here, p, &[Move::Push(body_occ)]);
            }
            StmtKind::NoReorder(b) => {
                let (body_occ, p) = self.open(at, *b, at.region, at.procs.to_vec(), work)?;
                self.silent_edge(at.here, p, &[Move::Push(body_occ)]);
            }
            StmtKind::Call(p) => self.call(at, stmt, *p, work)?,
        }
        Ok(())
    }

    /// An assignment of `code` (which reads `reads`) to `target`.
    fn assign_step(&mut self, at: &At<'_>, loc: Loc, target: VarRef, code: Code, reads: Vec<VarRef>) {
        self.add_step(at.here, at.next, Vec::new(), loc, StepKind::Assign(target, code), reads);
    }

    /// An `assume`, `await` or `assert` of `e` (`kind` says which).
    fn test_step(&mut self, at: &At<'_>, loc: Loc, e: &Expr, kind: fn(Code) -> StepKind) -> Result<(), Error> {
        let (code, reads) = self.code(e)?;
        self.add_step(at.here, at.next, Vec::new(), loc, kind(code), reads);
        Ok(())
    }

    /// A `lock` or `down`: an `await` that enters an atomic region (a new one when the item
    /// lies outside any), a point in its middle, and the assignment that leaves it.
    fn lock(
        &mut self,
        at: &At<'_>,
        loc: Loc,
        var: VarIdx,
        wait: &paces_cwhile::ir::Step,
        set: &paces_cwhile::ir::Step,
    ) -> Result<(), Error> {
        let target = self.var(var)?;
        let r = match at.region {
            Some(r) => r,
            None => self.new_region(loc, loc, at.next),
        };
        let mid = self.new_point(at.occ, Some(r), Some(loc))?;
        let (wcode, wreads) = self.code(&wait.expr)?;
        self.add_step(at.here, mid, Vec::new(), wait.loc, StepKind::Await(wcode), wreads);
        let (scode, sreads) = self.code(&set.expr)?;
        self.add_step(mid, at.next, Vec::new(), set.loc, StepKind::Assign(target, scode), sreads);
        Ok(())
    }

    /// An `if`: into the then block, and into the else block or past the item. A `*` choice
    /// is made silently (with the first step of the branch taken); a condition is
    /// made guard steps.
    fn branch(
        &mut self,
        at: &At<'_>,
        cond: &Cond,
        then_block: BlockId,
        else_block: Option<BlockId>,
        work: &mut Vec<u32>,
    ) -> Result<(), Error> {
        let (then_occ, then_first) = self.open(at, then_block, at.region, at.procs.to_vec(), work)?;
        let else_target = match else_block {
            Some(b) => {
                let (else_occ, else_first) = self.open(at, b, at.region, at.procs.to_vec(), work)?;
                Some((else_first, else_occ))
            }
            None => None,
        };
        match cond {
            Cond::Star => {
                self.silent_edge(at.here, then_first, &[Move::Push(then_occ)]);
                match else_target {
                    Some((p, o)) => self.silent_edge(at.here, p, &[Move::Push(o)]),
                    None => self.silent_edge(at.here, at.next, &[]),
                }
            }
            Cond::Expr { then_guard, else_guard, .. } => {
                self.guard_step(at.here, then_first, vec![Move::Push(then_occ)], then_guard)?;
                match else_target {
                    Some((p, o)) => self.guard_step(at.here, p, vec![Move::Push(o)], else_guard)?,
                    None => self.guard_step(at.here, at.next, Vec::new(), else_guard)?,
                }
            }
        }
        Ok(())
    }

    /// A `while`: into the body (counting an iteration) and past the item (resetting the
    /// count), silently for a `*` condition, as guard steps otherwise.
    fn loop_edges(&mut self, at: &At<'_>, cond: &Cond, body: BlockId, work: &mut Vec<u32>) -> Result<(), Error> {
        let (body_occ, body_first) = self.open(at, body, at.region, at.procs.to_vec(), work)?;
        let loop_id = self.n_loops;
        self.n_loops += 1;
        let enter = [Move::Push(body_occ), Move::LoopEnter(loop_id)];
        let leave = [Move::LoopExit(loop_id)];
        match cond {
            Cond::Star => {
                self.silent_edge(at.here, body_first, &enter);
                self.silent_edge(at.here, at.next, &leave);
            }
            Cond::Expr { then_guard, else_guard, .. } => {
                self.guard_step(at.here, body_first, enter.to_vec(), then_guard)?;
                self.guard_step(at.here, at.next, leave.to_vec(), else_guard)?;
            }
        }
        Ok(())
    }

    /// A call: the procedure's body inlined here (a procedure that calls itself, directly or
    /// not, is rejected).
    fn call(&mut self, at: &At<'_>, stmt: &Stmt, p: ProcIdx, work: &mut Vec<u32>) -> Result<(), Error> {
        let proc = self
            .program
            .procs
            .get(p.index())
            .ok_or_else(|| self.err(ErrorKind::InvalidProgram, format!("call of unknown procedure {p}")))?;
        if at.procs.contains(&p) {
            return Err(
                self.err(ErrorKind::Recursion, format!("procedure {} calls itself (at {})", proc.name, stmt.label))
            );
        }
        let mut chain = at.procs.to_vec();
        chain.push(p);
        let (body_occ, first) = self.open(at, proc.body, at.region, chain, work)?;
        self.silent_edge(at.here, first, &[Move::Push(body_occ)]);
        Ok(())
    }

    /// The silent edge from the end of occurrence `occ` (at point `end`) back into its
    /// parent: to the loop head for a loop body, past the item otherwise.
    fn block_end(&mut self, occ: u32, end: u32) -> Result<(), Error> {
        if let Some((pocc, j)) = self.occs[occ as usize].parent {
            let pfirst = self.occs[pocc as usize].first_point;
            let pstmt = self.program.blocks[self.occs[pocc as usize].block.index()].items[j as usize];
            let target = match self.stmt(pstmt)?.kind {
                StmtKind::While { .. } => pfirst + j,
                _ => pfirst + j + 1,
            };
            self.silent_edge(end, target, &[Move::Pop]);
        }
        Ok(())
    }

    /// The finished graph.
    fn finish(mut self, top: u32) -> TCode {
        let entry = self.occs[top as usize].first_point;
        let local_init = self.local_init();
        let gate = self.is_start_gate(entry);
        self.points[entry as usize].start_gate = gate;
        TCode {
            name: self.program.threads[self.t].name.clone(),
            points: self.points,
            steps: self.steps,
            occs: self.occs,
            regions: self.regions,
            entry,
            n_loops: self.n_loops,
            local_init,
        }
    }

    /// Whether every option of point `p` (the entry) waits at an `await` of the threads'
    /// structure ([`Point::start_gate`]).
    fn is_start_gate(&self, p: u32) -> bool {
        let options = &self.points[p as usize].options;
        let marked = |loc| self.program.stmt_at(loc).is_some_and(|id| self.program.thread_structure.contains(&id));
        !options.is_empty()
            && options.iter().all(|o| {
                let step = &self.steps[o.step as usize];
                matches!(step.kind, StepKind::Await(_)) && step.region.is_none() && marked(step.loc)
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

    fn new_point(&mut self, occ: u32, region: Option<u32>, item: Option<Loc>) -> Result<u32, Error> {
        if self.points.len() >= MAX_POINTS {
            return Err(self.err(ErrorKind::TooLarge, "too many control points after inlining procedures"));
        }
        let n = Bits::new(self.layout.n_globals);
        self.points.push(Point {
            occ,
            region,
            item,
            options: Vec::new(),
            can_finish: false,
            exit_moves: None,
            fut_r: n.clone(),
            fut_w: n.clone(),
            live_r: n,
            dead: Vec::new(),
            private_next: false,
            start_gate: false,
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
        for s in &items {
            let loc = self.stmt(*s)?.loc;
            self.new_point(occ, region, Some(loc))?;
        }
        self.new_point(occ, region, None)?;
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

    /// Opens an occurrence of `block` held by the item at `at` and queues it on `work`;
    /// returns the occurrence and its first point.
    fn open(
        &mut self,
        at: &At<'_>,
        block: BlockId,
        region: Option<u32>,
        procs: Vec<ProcIdx>,
        work: &mut Vec<u32>,
    ) -> Result<(u32, u32), Error> {
        let occ = self.new_occ(block, Some((at.occ, at.i)), region, procs)?;
        work.push(occ);
        Ok((occ, self.occs[occ as usize].first_point))
    }

    fn new_region(&mut self, loc: Loc, wait_loc: Loc, exit: u32) -> u32 {
        let n = Bits::new(self.layout.n_globals);
        self.regions.push(Region { loc, wait_loc, exit, pass: None, r: n.clone(), w: n });
        self.regions.len() as u32 - 1
    }

    /// For an atomic statement labelled as a transformation labels the sections it adds
    /// (`atomic_FIRST`, maybe with `_2`, `_3`, ... after it, where `FIRST` labels the first
    /// item of its body): the location of that first item. The label alone decides, so a
    /// repaired program names its deadlocks the same way once printed and parsed again.
    fn added_section_first(&self, stmt: &Stmt, body: BlockId) -> Option<Loc> {
        let first = self.stmt(*self.program.blocks.get(body.index())?.items.first()?).ok()?;
        let rest = stmt.label.strip_prefix("atomic_")?.strip_prefix(first.label.as_str())?;
        let numbered = rest.strip_prefix('_').is_some_and(|k| !k.is_empty() && k.bytes().all(|c| c.is_ascii_digit()));
        (rest.is_empty() || numbered).then_some(first.loc)
    }

    fn stmt(&self, s: StmtId) -> Result<&'p Stmt, Error> {
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

    /// Compiles an expression of this thread; also returns the variables it reads.
    fn code(&self, e: &Expr) -> Result<(Code, Vec<VarRef>), Error> {
        Code::compile(e, |v| self.var(v))
    }

    /// Adds a step from point `site` to point `after` (making `after_moves` on the way) that
    /// reads `reads` and, for an assignment, writes its target.
    fn add_step(
        &mut self,
        site: u32,
        after: u32,
        after_moves: Vec<Move>,
        loc: Loc,
        kind: StepKind,
        reads: Vec<VarRef>,
    ) {
        let write = match kind {
            StepKind::Assign(target, _) => Some(target),
            _ => None,
        };
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

    /// The step that takes region `r`, the user `atomic` block at `at` (labelled `loc`),
    /// along a path with no step of its own (see [`Region::pass`]): kept out of the points'
    /// steps, the closures offer it where such a path starts.
    fn pass_step(&mut self, at: &At<'_>, loc: Loc, r: u32) {
        let n = Bits::new(self.layout.n_globals);
        let id = self.steps.len() as u32;
        self.steps.push(StepInfo {
            site: at.here,
            after: at.next,
            after_moves: Vec::new(),
            loc,
            kind: StepKind::Skip,
            event: EventKind::Plain,
            reads: Vec::new(),
            r: n.clone(),
            w: n,
            region: Some(r),
        });
        self.regions[r as usize].pass = Some(id);
    }

    /// The guard step of a branch or a loop: an `assume` of the guard's expression.
    fn guard_step(
        &mut self,
        site: u32,
        after: u32,
        moves: Vec<Move>,
        step: &paces_cwhile::ir::Step,
    ) -> Result<(), Error> {
        let (code, reads) = self.code(&step.expr)?;
        self.add_step(site, after, moves, step.loc, StepKind::Assume(code), reads);
        Ok(())
    }

    fn silent_edge(&mut self, from: u32, to: u32, moves: &[Move]) {
        self.silent[from as usize].push((to, moves.iter().copied().collect()));
    }
}
