//! Running an atomic region to its ends: a chain of single steps first, then a depth-first
//! search with cycle detection over the holding thread's steps.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Engine, Outcome, EXIT};

/// The result of running an atomic region to its ends.
#[derive(Clone, Debug, Default)]
pub(crate) struct MacroOut {
    /// States where the holding thread has left the region, with the internal path.
    pub exits: Vec<(Box<[i64]>, Vec<u16>)>,
    /// Per failing step after which the region can still be left: a path whose last step
    /// it is (in the order found).
    pub fails: Vec<Vec<u16>>,
    /// The `assert` steps passed after which the region can still be left.
    pub asserts: Vec<u32>,
    /// A path that runs into a cycle, and where the cycle starts in it.
    pub livelock: Option<(Vec<u16>, usize)>,
    /// Some path stopped at a false `await` or `assume` (inside a block both make the thread
    /// wait: the block is all or nothing).
    pub waited: bool,
    /// Some path was cut by the loop bound.
    pub unwound: bool,
    /// The search inside the region reached its bound.
    pub bound: bool,
}

/// What a run inside an atomic region noted on its way: the path to each failing step, and
/// the `assert` steps passed.
#[derive(Default)]
pub(super) struct Noted {
    pub(super) fails: Vec<Vec<u16>>,
    pub(super) asserts: Vec<u32>,
}

/// How the chain of single steps at the start of an atomic region ends.
pub(super) enum ChainEnd {
    /// The holding thread left the region.
    Left,
    /// A step's condition is false (an `await` or an `assume`).
    Disabled,
    /// The loop bound forbids a step.
    Unwound,
    /// The thread has a choice, or may leave silently: the general search takes over.
    Branch,
}

/// The states one run of an atomic region visited, for deciding after the search which of
/// them can still reach a way out.
#[derive(Default)]
struct MacroGraph {
    /// Every state visited, with its id (its index in the vectors below).
    ids: FxHashMap<Box<[i64]>, u32>,
    /// Per id: the state it was first reached from and the option taken (`None` for the
    /// start).
    parent: Vec<Option<(u32, u16)>>,
    /// Per id: whether the region can be left from it in one step or silently.
    exits: Vec<bool>,
    /// Steps between states inside the region.
    edges: Vec<(u32, u32)>,
    /// Failing steps, in the order found: the state, the option, the step taken and the
    /// state reached (`None` when the step leaves the region).
    fails: Vec<(u32, u16, u32, Option<u32>)>,
    /// `assert` steps passed: the step and the state reached (`None` when the step leaves the
    /// region).
    asserts: Vec<(u32, Option<u32>)>,
}

impl MacroGraph {
    fn add(&mut self, state: Box<[i64]>, parent: Option<(u32, u16)>) -> u32 {
        let id = self.parent.len() as u32;
        self.ids.insert(state, id);
        self.parent.push(parent);
        self.exits.push(false);
        id
    }

    /// The options taken from the start to state `id`.
    fn path(&self, mut id: u32) -> Vec<u16> {
        let mut p = Vec::new();
        while let Some((from, opt)) = self.parent[id as usize] {
            p.push(opt);
            id = from;
        }
        p.reverse();
        p
    }

    /// Per id: whether a way out of the region is reachable from it.
    fn can_leave(&self) -> Vec<bool> {
        let n = self.parent.len();
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(a, b) in &self.edges {
            preds[b as usize].push(a);
        }
        let mut ok = self.exits.clone();
        let mut work: Vec<u32> = (0..n as u32).filter(|&i| ok[i as usize]).collect();
        while let Some(b) = work.pop() {
            for &a in &preds[b as usize] {
                if !ok[a as usize] {
                    ok[a as usize] = true;
                    work.push(a);
                }
            }
        }
        ok
    }

    /// Per failing step after which the region can still be left, the path to where it was
    /// first found so; and the `assert` steps passed after which it can still be left.
    fn taken(&self) -> (Vec<Vec<u16>>, Vec<u32>) {
        if self.fails.is_empty() && self.asserts.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let ok = self.can_leave();
        let mut steps: Vec<u32> = Vec::new();
        let mut fails = Vec::new();
        for &(from, opt, step, to) in &self.fails {
            if to.is_none_or(|b| ok[b as usize]) && !steps.contains(&step) {
                steps.push(step);
                let mut p = self.path(from);
                p.push(opt);
                fails.push(p);
            }
        }
        let mut asserts: Vec<u32> =
            self.asserts.iter().filter(|(_, to)| to.is_none_or(|b| ok[b as usize])).map(|&(step, _)| step).collect();
        asserts.sort_unstable();
        asserts.dedup();
        (fails, asserts)
    }
}

impl Engine<'_> {
    /// Runs thread `t`'s atomic region from `start` (the thread stands inside it) to every
    /// way out, depth first. Only paths that reach a way out are taken: a failure counts when
    /// the rest of the region can still reach its end from the failing step.
    pub(crate) fn run_macro(&self, t: usize, start: &[i64]) -> MacroOut {
        let mut state = start.to_vec();
        let mut next = Vec::with_capacity(state.len());
        let mut prefix: Vec<u16> = Vec::new();
        let mut noted = Noted::default();
        match self.run_chain(t, &mut state, &mut next, &mut prefix, &mut noted) {
            ChainEnd::Left => MacroOut {
                exits: vec![(state.into_boxed_slice(), prefix)],
                fails: noted.fails,
                asserts: noted.asserts,
                ..MacroOut::default()
            },
            ChainEnd::Disabled => MacroOut { waited: true, ..MacroOut::default() },
            ChainEnd::Unwound => MacroOut { unwound: true, ..MacroOut::default() },
            ChainEnd::Branch => self.search_after(t, state, &prefix, noted),
        }
    }

    /// The fast path of `run_macro`: while the holding thread has a single next step and
    /// cannot leave the region silently (a `lock`, or a straight-line block), follows it in
    /// `state` without any bookkeeping (`next` is working space); such a chain cannot cycle
    /// (a loop head always offers two steps). Appends an option index (0) per step to
    /// `prefix`, and the path to each failing step and each `assert` step passed to `noted`.
    pub(super) fn run_chain(
        &self,
        t: usize,
        state: &mut Vec<i64>,
        next: &mut Vec<i64>,
        prefix: &mut Vec<u16>,
        noted: &mut Noted,
    ) -> ChainEnd {
        let code = &self.c.threads[t];
        loop {
            let p = &code.points[self.pc(state, t)];
            if p.options.len() != 1 || p.exit_moves.is_some() || prefix.len() >= self.max_atomic {
                return ChainEnd::Branch;
            }
            next.clear();
            next.extend_from_slice(state);
            match self.apply(next, t, &p.options[0]) {
                Outcome::Done { failed, passed } => {
                    prefix.push(0);
                    if failed {
                        noted.fails.push(prefix.clone());
                    }
                    if passed {
                        noted.asserts.push(p.options[0].step);
                    }
                    std::mem::swap(state, next);
                    if !self.in_region(state, t) {
                        return ChainEnd::Left;
                    }
                }
                Outcome::Disabled { .. } => return ChainEnd::Disabled,
                Outcome::Unwound => return ChainEnd::Unwound,
            }
        }
    }

    /// The rest of `run_macro` after a chain (`prefix`, whose failing and passed `assert`
    /// steps are `noted`) led to `state`, where the holding thread has a choice or may leave silently.
    pub(super) fn search_after(&self, t: usize, state: Vec<i64>, prefix: &[u16], noted: Noted) -> MacroOut {
        let mut out = self.search_macro(t, state.into_boxed_slice());
        if !prefix.is_empty() {
            let with = |p: &mut Vec<u16>| {
                let mut v = prefix.to_vec();
                v.append(p);
                *p = v;
            };
            for (_, p) in &mut out.exits {
                with(p);
            }
            for p in &mut out.fails {
                with(p);
            }
            if let Some((p, depth)) = &mut out.livelock {
                with(p);
                *depth += prefix.len();
            }
        }
        // Every path goes through the prefix: its failures and asserts count when some path
        // gets out.
        if !out.exits.is_empty() {
            let Noted { mut fails, mut asserts } = noted;
            if !fails.is_empty() {
                fails.append(&mut out.fails);
                out.fails = fails;
            }
            asserts.append(&mut out.asserts);
            out.asserts = asserts;
        }
        out
    }

    /// The general search of `run_macro`: depth first with cycle detection, recording the
    /// graph of internal states so that a failure counts only when an exit is reachable
    /// after it.
    fn search_macro(&self, t: usize, start: Box<[i64]>) -> MacroOut {
        let code = &self.c.threads[t];
        let mut m = MacroSearch {
            e: self,
            t,
            g: MacroGraph::default(),
            out: MacroOut::default(),
            exit_seen: FxHashSet::default(),
            on_stack: Vec::new(),
            stack: Vec::new(),
            path_steps: 0,
        };
        m.enter(start, None);
        while let Some(top) = m.stack.last_mut() {
            let opts = &code.points[top.0[t] as usize].options;
            if top.2 >= opts.len() {
                let id = top.1;
                m.stack.pop();
                m.on_stack[id as usize] = None;
                continue;
            }
            let (i, from) = (top.2, top.1);
            top.2 += 1;
            let mut next = top.0.to_vec();
            match self.apply(&mut next, t, &opts[i]) {
                Outcome::Disabled { .. } => m.out.waited = true,
                Outcome::Unwound => m.out.unwound = true,
                Outcome::Done { failed, passed } => {
                    let step = Taken { from, opt: i as u16, step: opts[i].step, failed, passed };
                    if !m.took(step, next.into_boxed_slice()) {
                        m.out.bound = true;
                        break;
                    }
                }
            }
        }
        let MacroSearch { g, mut out, .. } = m;
        (out.fails, out.asserts) = g.taken();
        out
    }
}

/// A step taken inside an atomic region: from state `from` (an id), by option `opt`, which is
/// step `step`; whether it failed, and whether it is an `assert` that passed.
#[derive(Clone, Copy)]
struct Taken {
    from: u32,
    opt: u16,
    step: u32,
    failed: bool,
    passed: bool,
}

/// The state of one depth-first search inside an atomic region of thread `t` (see
/// `Engine::search_macro`).
struct MacroSearch<'e, 'c> {
    e: &'e Engine<'c>,
    t: usize,
    g: MacroGraph,
    out: MacroOut,
    /// The states the region was left in so far (each is handed out once).
    exit_seen: FxHashSet<Box<[i64]>>,
    /// Per id: its depth on the stack while it is there.
    on_stack: Vec<Option<usize>>,
    /// Frames: state, its id, next option.
    stack: Vec<(Box<[i64]>, u32, usize)>,
    /// Steps of the paths handed out: a loop that may leave the block at every iteration
    /// has an exit at every depth, and their paths together grow with the square of it.
    path_steps: usize,
}

impl MacroSearch<'_, '_> {
    /// Records a new internal state (reached from `parent`), the way out silently from it if
    /// there is one, and pushes it on the stack; returns its id.
    fn enter(&mut self, state: Box<[i64]>, parent: Option<(u32, u16)>) -> u32 {
        let (e, t) = (self.e, self.t);
        let id = self.g.add(state.clone(), parent);
        let mut ex = state.to_vec();
        if e.leave_region(&mut ex, t) {
            self.g.exits[id as usize] = true;
            let ex = ex.into_boxed_slice();
            if self.exit_seen.insert(ex.clone()) {
                let mut p = self.g.path(id);
                p.push(EXIT);
                self.path_steps += p.len();
                self.out.exits.push((ex, p));
            }
        } else if e.c.threads[t].points[e.pc(&state, t)].exit_moves.is_some() {
            self.out.unwound = true;
        }
        self.on_stack.push(Some(self.stack.len()));
        self.stack.push((state, id, 0));
        id
    }

    /// Records the step `s` taken to `next`: a way out, a step back to a known state (a
    /// livelock when that state is on the stack), or a new state. False when the search's
    /// bound is reached.
    fn took(&mut self, s: Taken, next: Box<[i64]>) -> bool {
        let e = self.e;
        if !e.in_region(&next, self.t) {
            self.g.exits[s.from as usize] = true;
            if s.failed {
                self.g.fails.push((s.from, s.opt, s.step, None));
            }
            if s.passed {
                self.g.asserts.push((s.step, None));
            }
            if self.exit_seen.insert(next.clone()) {
                let mut p = self.g.path(s.from);
                p.push(s.opt);
                self.out.exits.push((next, p));
            }
            return true;
        }
        let to = match self.g.ids.get(&next) {
            Some(&to) => {
                if let (Some(depth), None) = (self.on_stack[to as usize], &self.out.livelock) {
                    let mut p = self.g.path(s.from);
                    p.push(s.opt);
                    self.out.livelock = Some((p, depth));
                }
                to
            }
            None => {
                let visited = self.g.ids.len() + 1;
                if visited > e.max_atomic || self.path_steps > e.max_atomic.saturating_mul(16) || e.late(visited) {
                    return false;
                }
                self.enter(next, Some((s.from, s.opt)))
            }
        };
        self.g.edges.push((s.from, to));
        if s.failed {
            self.g.fails.push((s.from, s.opt, s.step, Some(to)));
        }
        if s.passed {
            self.g.asserts.push((s.step, Some(to)));
        }
        true
    }
}
