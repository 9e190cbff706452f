//! States and transitions: taking a step, running an atomic block to its end, and expanding a
//! state with partial-order reduction.
//!
//! A state is one `i64` slice: the threads' control points, the globals, every thread's local
//! slots, and (only under `unwind`) every thread's loop counters. A thread never rests inside
//! an atomic region: the step that enters one starts a *macro transition* that runs the
//! region to its end (a depth-first search over the holding thread's steps), so no state has
//! an atomic owner and other threads can never interleave with it.

use std::sync::OnceLock;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::bits::Bits;
use crate::compile::{Compiled, Move, Opt, StepKind, VarRef};
use crate::gates::Gates;

/// Marks, in an internal path of a macro transition, that the holding thread leaves its
/// region without a step.
pub(crate) const EXIT: u16 = u16::MAX;

/// Where each part of a state lives.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub threads: usize,
    pub globals: usize,
    pub local_off: Vec<usize>,
    pub local_len: Vec<usize>,
    pub loop_off: Vec<usize>,
    pub stride: usize,
    pub unwind: Option<u32>,
    /// The slot of the failure flag (set by every failing step), when the state has one.
    pub flag: Option<usize>,
}

impl Layout {
    pub(crate) fn new(c: &Compiled, unwind: Option<u32>, failure_flag: bool) -> Self {
        let threads = c.threads.len();
        let globals = c.global_init.len();
        let mut off = threads + globals;
        let mut local_off = Vec::new();
        let mut local_len = Vec::new();
        for t in &c.threads {
            local_off.push(off);
            local_len.push(t.local_init.len());
            off += t.local_init.len();
        }
        let mut loop_off = Vec::new();
        for t in &c.threads {
            loop_off.push(off);
            if unwind.is_some() {
                off += t.n_loops as usize;
            }
        }
        let flag = failure_flag.then_some(off);
        if failure_flag {
            off += 1;
        }
        Layout { threads, globals, local_off, local_len, loop_off, stride: off.max(1), unwind, flag }
    }
}

/// What taking one step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The step's condition is false; `assume` says whether it is an `assume` (a cut) rather
    /// than an `await` (a wait).
    Disabled { assume: bool },
    /// The loop bound (`unwind`) forbids the step.
    Unwound,
    /// The step was taken; whether it failed (assertion or division by zero), and whether it
    /// is an `assert` that passed.
    Done { failed: bool, passed: bool },
}

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
    /// Some path was cut (a false `assume`).
    pub cut: bool,
    /// Some path stopped at a false `await`.
    pub waited: bool,
    /// Some path was cut by the loop bound.
    pub unwound: bool,
    /// The search inside the region reached its bound.
    pub bound: bool,
}

/// What a run inside an atomic region noted on its way: the path to each failing step, and
/// the `assert` steps passed.
#[derive(Default)]
struct Noted {
    fails: Vec<Vec<u16>>,
    asserts: Vec<u32>,
}

/// The step that entered an atomic region: whether it failed, and the step when it is an
/// `assert` that passed.
#[derive(Clone, Copy)]
struct Entry {
    failed: bool,
    assert: Option<u32>,
}

/// How the chain of single steps at the start of an atomic region ends.
enum ChainEnd {
    /// The holding thread left the region.
    Left,
    /// A step's condition is false (`assume`: an `assume`, rather than an `await`).
    Disabled { assume: bool },
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

/// How the options of one thread that enter atomic regions stop, region by region: a region
/// that no path gets through makes its thread wait before it when some path stopped at a
/// false `await`, and cuts it when every path was cut (a false `assume` or the loop bound).
#[derive(Clone, Debug, Default)]
struct RegionStops {
    /// Per region entered: the region and whether some path was cut.
    regions: Vec<(u32, bool)>,
    /// The waiting options, with their region.
    waits: Vec<(u32, u16)>,
}

impl RegionStops {
    fn clear(&mut self) {
        self.regions.clear();
        self.waits.clear();
    }

    fn entry(&mut self, r: u32) -> &mut (u32, bool) {
        let k = match self.regions.iter().position(|e| e.0 == r) {
            Some(k) => k,
            None => {
                self.regions.push((r, false));
                self.regions.len() - 1
            }
        };
        &mut self.regions[k]
    }

    /// Option `opt` waits (for a step outside regions: at once into `blocked`).
    fn wait(&mut self, region: Option<u32>, opt: u16, blocked: &mut Vec<u16>) {
        match region {
            Some(r) => {
                self.entry(r);
                self.waits.push((r, opt));
            }
            None => blocked.push(opt),
        }
    }

    /// An option is cut (for a step outside regions: at once into `cut`).
    fn cut(&mut self, region: Option<u32>, cut: &mut bool) {
        match region {
            Some(r) => self.entry(r).1 = true,
            None => *cut = true,
        }
    }

    /// Hands each region's verdict to the thread: its waiting options (appended to the
    /// thread's blocking options, `blocked[from..]`, which end sorted), or a cut.
    fn settle(&self, blocked: &mut Vec<u16>, from: usize, cut: &mut bool) {
        for &(r, was_cut) in &self.regions {
            let before = blocked.len();
            blocked.extend(self.waits.iter().filter(|w| w.0 == r).map(|w| w.1));
            if blocked.len() == before && was_cut {
                *cut = true;
            }
        }
        blocked[from..].sort_unstable();
    }
}

/// A successor of a state: the transition, and where the successor state lies in its
/// expansion's buffer ([`Expansion::state`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Trans {
    pub thread: u16,
    pub opt: u16,
    /// For a macro transition: which exit (in the order the region search found them).
    pub exit: u32,
    start: u32,
    end: u32,
    /// The internal path so far, in `Expansion::paths`, and whether the steps its thread
    /// would take alone have been merged (see [`Engine::merge_kept`]).
    path: (u32, u32),
    merged: bool,
}

/// Something found while expanding a state.
#[derive(Clone, Debug)]
pub(crate) enum Found {
    /// A failing step: the transition and, for a macro transition, the internal path to the
    /// failing step (empty when the entering step fails).
    Fail { thread: u16, opt: u16, internal: Vec<u16> },
    /// A cycle inside an atomic region.
    Livelock { thread: u16, opt: u16, path: Vec<u16>, cycle_start: usize },
}

/// Where a thread stands in a state with no step possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stand {
    Done,
    Cut,
    /// Blocked at these awaits (option indices).
    Blocked(Vec<u16>),
}

/// Per thread and option of an expanded state: whether the option can be taken
/// (`enabled[thread][option]`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Enabled {
    flags: Vec<bool>,
    /// Per thread: where its options start in `flags` (one more entry closes the last).
    starts: Vec<usize>,
}

impl Enabled {
    fn clear(&mut self) {
        self.flags.clear();
        self.starts.clear();
        self.starts.push(0);
    }

    /// Adds the next thread, with `options` options, none enabled yet.
    fn push_thread(&mut self, options: usize) {
        self.flags.resize(self.flags.len() + options, false);
        self.starts.push(self.flags.len());
    }

    /// Marks option `opt` of the last thread added as enabled.
    fn enable_last(&mut self, opt: usize) {
        let start = self.starts[self.starts.len() - 2];
        self.flags[start + opt] = true;
    }
}

impl std::ops::Index<usize> for Enabled {
    type Output = [bool];

    fn index(&self, t: usize) -> &[bool] {
        &self.flags[self.starts[t]..self.starts[t + 1]]
    }
}

/// Where a thread stands, as recorded while expanding (its blocking options in
/// [`Expansion`]'s buffer).
#[derive(Clone, Copy, Debug)]
enum StandAt {
    Done,
    Cut,
    Blocked { start: usize, end: usize },
}

/// All about one expanded state. One value is reused for many states ([`Engine::expand`]
/// clears it first), so its buffers are allocated once.
#[derive(Clone, Debug, Default)]
pub(crate) struct Expansion {
    pub succs: Vec<Trans>,
    pub found: Vec<Found>,
    /// When no thread can step and it is a deadlock: where every thread stands.
    pub deadlock: Option<Vec<Stand>>,
    pub bound: bool,
    pub unwound: bool,
    /// Transitions executed (before reduction).
    pub transitions: u64,
    /// The `assert` steps some transition passed (thread, step), before reduction; possibly
    /// repeated.
    pub asserts: Vec<(u16, u32)>,
    /// Whether the expansion was reduced.
    pub reduced: bool,
    /// The successors' states, back to back.
    states: Vec<i64>,
    /// Per thread: its successors' range in `succs` (before reduction).
    ranges: Vec<std::ops::Range<usize>>,
    /// Per thread and option: whether the option can be taken.
    enabled: Enabled,
    /// Per thread: where it stands, for a state where no thread can step.
    stands: Vec<StandAt>,
    /// The blocking options of every thread, back to back.
    blocked: Vec<u16>,
    /// Working space: the state an option leads to.
    next: Vec<i64>,
    /// Working space: the internal path of a transition.
    path: Vec<u16>,
    /// Working space: a state inside an atomic region.
    work: Vec<i64>,
    /// Working space: the atomic regions one thread's options enter.
    regions: RegionStops,
    /// Per thread: its closed gate variables in the expanded state (see [`Gates::closed`]),
    /// when the reduction or merging needs them.
    closed: Vec<u64>,
    /// The expanded state, when merging needs it.
    origin: Vec<i64>,
    /// The successors' internal paths, back to back, when merging needs them.
    paths: Vec<u16>,
}

impl Expansion {
    /// The successor state of `tr`.
    pub(crate) fn state(&self, tr: &Trans) -> &[i64] {
        &self.states[tr.start as usize..tr.end as usize]
    }

    /// Forgets the last state's expansion, keeping the buffers.
    fn clear(&mut self) {
        self.succs.clear();
        self.found.clear();
        self.deadlock = None;
        self.bound = false;
        self.unwound = false;
        self.transitions = 0;
        self.asserts.clear();
        self.reduced = false;
        self.states.clear();
        self.ranges.clear();
        self.enabled.clear();
        self.stands.clear();
        self.blocked.clear();
        self.closed.clear();
        self.paths.clear();
    }

    /// Where every thread stands, from what was recorded.
    fn stands(&self) -> Vec<Stand> {
        self.stands
            .iter()
            .map(|st| match *st {
                StandAt::Done => Stand::Done,
                StandAt::Cut => Stand::Cut,
                StandAt::Blocked { start, end } => Stand::Blocked(self.blocked[start..end].to_vec()),
            })
            .collect()
    }
}

/// How an [`Engine`] explores, beyond the program: the loop bound, the bound of an atomic
/// block's search, the state reductions, SPIN's end states and the deadline.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    /// Cut paths where a loop runs more than this many iterations per entry (see
    /// [`crate::Config::unwind`]). Default: `None` (exact).
    pub unwind: Option<u32>,
    /// The most states one run of an atomic block may visit. Default: `usize::MAX` (no
    /// bound).
    pub max_atomic: usize,
    /// Reset dead private variables in successors (sound for every query that does not
    /// look at final values). Default: `false`.
    pub reset_dead: bool,
    /// Count SPIN's invalid end states as deadlocks (see [`crate::Config::spin_end_states`]).
    /// Default: `false`.
    pub spin_end_states: bool,
    /// Merge private steps into the transition before them (see `Engine::merge_private`).
    /// Default: `false`.
    pub merge: bool,
    /// Also merge the steps that the partial-order reduction would take alone (see
    /// `Engine::merge_after`); only sound for a search that reduces. Default: `false`.
    pub merge_independent: bool,
    /// When the searches built on the engine give up (see [`Engine::late`]). Default: `None`
    /// (never).
    pub deadline: Option<Instant>,
    /// Give the state a flag that every failing step sets (see
    /// [`crate::Config::deadlocks_after_failure`]). Default: `false`.
    pub failure_flag: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            unwind: None,
            max_atomic: usize::MAX,
            reset_dead: false,
            spin_end_states: false,
            merge: false,
            merge_independent: false,
            deadline: None,
            failure_flag: false,
        }
    }
}

/// The engine: a compiled program, a state layout, and the [`Settings`] it explores with.
pub(crate) struct Engine<'c> {
    pub c: &'c Compiled,
    pub lay: Layout,
    max_atomic: usize,
    reset_dead: bool,
    spin_end_states: bool,
    merge: bool,
    merge_independent: bool,
    deadline: Option<Instant>,
    /// Per thread: its gates and gated futures, and every thread's gate variables as a mask
    /// over globals; made when the reduction first needs them.
    gates: OnceLock<(Vec<Gates>, u64)>,
}

impl<'c> Engine<'c> {
    pub(crate) fn new(c: &'c Compiled, settings: Settings) -> Self {
        let Settings {
            unwind,
            max_atomic,
            reset_dead,
            spin_end_states,
            merge,
            merge_independent,
            deadline,
            failure_flag,
        } = settings;
        Engine {
            c,
            lay: Layout::new(c, unwind, failure_flag),
            max_atomic,
            reset_dead,
            spin_end_states,
            merge,
            merge_independent: merge && merge_independent && c.threads.len() <= 64,
            deadline,
            gates: OnceLock::new(),
        }
    }

    /// The threads' gates and every gate variable (see the `gates` field).
    fn gates(&self) -> &(Vec<Gates>, u64) {
        self.gates.get_or_init(|| {
            let gates: Vec<Gates> = self.c.threads.iter().map(|t| Gates::new(t, self.c.global_init.len())).collect();
            let all = gates.iter().fold(0, |m, g| m | g.all());
            (gates, all)
        })
    }

    /// Whether the deadline has passed, looked up once every 1024 counts of `count` (a
    /// search's step counter), so the clock stays off the hot path.
    pub(crate) fn late(&self, count: usize) -> bool {
        count % 1024 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Resets the dead private variables of every thread (when [`Settings::reset_dead`]).
    pub(crate) fn canon(&self, s: &mut [i64]) {
        for t in 0..self.lay.threads {
            self.canon_thread(s, t);
        }
    }

    /// Resets the dead private variables of thread `t` (when [`Settings::reset_dead`]).
    ///
    /// After a transition of `t` from a state `canon` left unchanged, this is all `canon`
    /// would do: every other thread stands where it stood, and its dead variables are its
    /// own locals and globals no other thread uses, which `t` cannot have written.
    pub(crate) fn canon_thread(&self, s: &mut [i64], t: usize) {
        if !self.reset_dead {
            return;
        }
        let p = &self.c.threads[t].points[s[t] as usize];
        for &v in &p.dead {
            match v {
                VarRef::Global(g) => s[self.lay.threads + g as usize] = 0,
                VarRef::Local(l) => s[self.lay.local_off[t] + l as usize] = 0,
            }
        }
    }

    /// Whether `canon` leaves `s` unchanged.
    fn is_canonical(&self, s: &[i64]) -> bool {
        let mut c = s.to_vec();
        self.canon(&mut c);
        c == s
    }

    pub(crate) fn initial(&self) -> Box<[i64]> {
        let mut s = vec![0i64; self.lay.stride];
        for (t, code) in self.c.threads.iter().enumerate() {
            s[t] = i64::from(code.entry);
            let off = self.lay.local_off[t];
            s[off..off + code.local_init.len()].copy_from_slice(&code.local_init);
        }
        let g = self.lay.threads;
        s[g..g + self.lay.globals].copy_from_slice(&self.c.global_init);
        s.into_boxed_slice()
    }

    #[inline]
    pub(crate) fn pc(&self, s: &[i64], t: usize) -> usize {
        s[t] as usize
    }

    /// Whether a failing step was taken on the way to `s` (always false without the flag).
    pub(crate) fn failed_before(&self, s: &[i64]) -> bool {
        self.lay.flag.is_some_and(|f| s[f] != 0)
    }

    pub(crate) fn globals<'s>(&self, s: &'s [i64]) -> &'s [i64] {
        &s[self.lay.threads..self.lay.threads + self.lay.globals]
    }

    /// Applies loop moves; false when the loop bound forbids them.
    fn loop_moves(&self, s: &mut [i64], t: usize, moves: &[Move]) -> bool {
        let Some(n) = self.lay.unwind else { return true };
        let off = self.lay.loop_off[t];
        for m in moves {
            match *m {
                Move::LoopEnter(l) => {
                    let c = &mut s[off + l as usize];
                    if *c >= i64::from(n) {
                        return false;
                    }
                    *c += 1;
                }
                Move::LoopExit(l) => s[off + l as usize] = 0,
                Move::Push(_) | Move::Pop => {}
            }
        }
        true
    }

    fn split<'s>(&self, s: &'s [i64], t: usize) -> (&'s [i64], &'s [i64]) {
        let g = self.globals(s);
        let off = self.lay.local_off[t];
        (g, &s[off..off + self.lay.local_len[t]])
    }

    /// Takes option `opt` of thread `t` in `s` (in place; `s` is garbage unless `Done`).
    pub(crate) fn apply(&self, s: &mut [i64], t: usize, opt: &Opt) -> Outcome {
        self.apply_step(s, t, opt, false)
    }

    /// Takes option `opt` of thread `t` in `s` with its condition taken as true (an `assume`
    /// or `await` that does not hold is passed): how a pending step is run.
    pub(crate) fn apply_forced(&self, s: &mut [i64], t: usize, opt: &Opt) -> Outcome {
        self.apply_step(s, t, opt, true)
    }

    /// Whether taking option `opt` of thread `t` in `s` divides (or takes a remainder) by zero.
    pub(crate) fn divides_by_zero(&self, s: &[i64], t: usize, opt: &Opt) -> bool {
        let (g, l) = self.split(s, t);
        let mut div0 = false;
        match &self.c.threads[t].steps[opt.step as usize].kind {
            StepKind::Assume(c) | StepKind::Await(c) | StepKind::Assert(c) | StepKind::Assign(_, c) => {
                c.eval(g, l, &mut div0);
            }
            StepKind::Skip => {}
        }
        div0
    }

    fn apply_step(&self, s: &mut [i64], t: usize, opt: &Opt, force: bool) -> Outcome {
        let code = &self.c.threads[t];
        let st = &code.steps[opt.step as usize];
        let mut div0 = false;
        let (g, l) = self.split(s, t);
        let mut failed = false;
        let mut asserted = false;
        let mut write: Option<(VarRef, i64)> = None;
        match &st.kind {
            StepKind::Assume(c) => {
                if !force && c.eval(g, l, &mut div0) == 0 {
                    return Outcome::Disabled { assume: true };
                }
            }
            StepKind::Await(c) => {
                if !force && c.eval(g, l, &mut div0) == 0 {
                    return Outcome::Disabled { assume: false };
                }
            }
            StepKind::Assert(c) => {
                failed = c.eval(g, l, &mut div0) == 0;
                asserted = true;
            }
            StepKind::Assign(v, c) => write = Some((*v, c.eval(g, l, &mut div0))),
            StepKind::Skip => {}
        }
        if self.lay.unwind.is_some()
            && (!self.loop_moves(s, t, if opt.has_loop_moves { &opt.moves } else { &[] })
                || !self.loop_moves(s, t, &st.after_moves))
        {
            return Outcome::Unwound;
        }
        match write {
            Some((VarRef::Global(gi), v)) => s[self.lay.threads + gi as usize] = v,
            Some((VarRef::Local(li), v)) => s[self.lay.local_off[t] + li as usize] = v,
            None => {}
        }
        s[t] = i64::from(st.after);
        let failed = failed || div0;
        if let (true, Some(f)) = (failed, self.lay.flag) {
            s[f] = 1;
        }
        Outcome::Done { failed, passed: asserted && !failed }
    }

    /// Leaves the atomic region silently (the point must allow it); false when the loop bound
    /// forbids the moves.
    pub(crate) fn leave_region(&self, s: &mut [i64], t: usize) -> bool {
        let code = &self.c.threads[t];
        let p = &code.points[self.pc(s, t)];
        let (Some(reg), Some(moves)) = (p.region, &p.exit_moves) else { return false };
        if !self.loop_moves(s, t, moves) {
            return false;
        }
        s[t] = i64::from(code.regions[reg as usize].exit);
        true
    }

    pub(crate) fn in_region(&self, s: &[i64], t: usize) -> bool {
        self.c.threads[t].points[self.pc(s, t)].region.is_some()
    }

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
            ChainEnd::Disabled { assume } => MacroOut { cut: assume, waited: !assume, ..MacroOut::default() },
            ChainEnd::Unwound => MacroOut { unwound: true, ..MacroOut::default() },
            ChainEnd::Branch => self.search_after(t, state, &prefix, noted),
        }
    }

    /// The fast path of `run_macro`: while the holding thread has a single next step and
    /// cannot leave the region silently (a `lock`, or a straight-line block), follows it in
    /// `state` without any bookkeeping (`next` is working space); such a chain cannot cycle
    /// (a loop head always offers two steps). Appends an option index (0) per step to
    /// `prefix`, and the path to each failing step and each `assert` step passed to `noted`.
    fn run_chain(
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
                Outcome::Disabled { assume } => return ChainEnd::Disabled { assume },
                Outcome::Unwound => return ChainEnd::Unwound,
            }
        }
    }

    /// The rest of `run_macro` after a chain (`prefix`, whose failing and passed `assert`
    /// steps are `noted`) led to `state`, where the holding thread has a choice or may leave silently.
    fn search_after(&self, t: usize, state: Vec<i64>, prefix: &[u16], noted: Noted) -> MacroOut {
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
        let mut out = MacroOut::default();
        let mut g = MacroGraph::default();
        let mut exit_seen: FxHashSet<Box<[i64]>> = FxHashSet::default();
        // Per id: its depth on the stack while it is there.
        let mut on_stack: Vec<Option<usize>> = Vec::new();
        // Frames: state, its id, next option.
        let mut stack: Vec<(Box<[i64]>, u32, usize)> = Vec::new();
        // Steps of the paths handed out: a loop that may leave the block at every iteration
        // has an exit at every depth, and their paths together grow with the square of it.
        let mut path_steps = 0usize;
        let max_path_steps = self.max_atomic.saturating_mul(16);
        let enter = |state: Box<[i64]>,
                     parent: Option<(u32, u16)>,
                     g: &mut MacroGraph,
                     stack: &mut Vec<(Box<[i64]>, u32, usize)>,
                     on_stack: &mut Vec<Option<usize>>,
                     out: &mut MacroOut,
                     exit_seen: &mut FxHashSet<Box<[i64]>>,
                     path_steps: &mut usize|
         -> u32 {
            let id = g.add(state.clone(), parent);
            let mut ex = state.to_vec();
            if self.leave_region(&mut ex, t) {
                g.exits[id as usize] = true;
                let ex = ex.into_boxed_slice();
                if exit_seen.insert(ex.clone()) {
                    let mut p = g.path(id);
                    p.push(EXIT);
                    *path_steps += p.len();
                    out.exits.push((ex, p));
                }
            } else if code.points[self.pc(&state, t)].exit_moves.is_some() {
                out.unwound = true;
            }
            on_stack.push(Some(stack.len()));
            stack.push((state, id, 0));
            id
        };
        enter(start, None, &mut g, &mut stack, &mut on_stack, &mut out, &mut exit_seen, &mut path_steps);
        while let Some(top) = stack.last_mut() {
            let pc = top.0[t] as usize;
            let opts = &code.points[pc].options;
            if top.2 >= opts.len() {
                on_stack[top.1 as usize] = None;
                stack.pop();
                continue;
            }
            let i = top.2;
            let from = top.1;
            top.2 += 1;
            let mut next = top.0.to_vec();
            match self.apply(&mut next, t, &opts[i]) {
                Outcome::Disabled { assume } => {
                    out.cut |= assume;
                    out.waited |= !assume;
                }
                Outcome::Unwound => out.unwound = true,
                Outcome::Done { failed, passed } => {
                    let next = next.into_boxed_slice();
                    if !self.in_region(&next, t) {
                        g.exits[from as usize] = true;
                        if failed {
                            g.fails.push((from, i as u16, opts[i].step, None));
                        }
                        if passed {
                            g.asserts.push((opts[i].step, None));
                        }
                        if exit_seen.insert(next.clone()) {
                            let mut p = g.path(from);
                            p.push(i as u16);
                            out.exits.push((next, p));
                        }
                        continue;
                    }
                    let to = match g.ids.get(&next) {
                        Some(&to) => {
                            if let (Some(depth), None) = (on_stack[to as usize], &out.livelock) {
                                let mut p = g.path(from);
                                p.push(i as u16);
                                out.livelock = Some((p, depth));
                            }
                            to
                        }
                        None => {
                            let visited = g.ids.len() + 1;
                            if visited > self.max_atomic || path_steps > max_path_steps || self.late(visited) {
                                out.bound = true;
                                break;
                            }
                            let parent = Some((from, i as u16));
                            enter(
                                next,
                                parent,
                                &mut g,
                                &mut stack,
                                &mut on_stack,
                                &mut out,
                                &mut exit_seen,
                                &mut path_steps,
                            )
                        }
                    };
                    g.edges.push((from, to));
                    if failed {
                        g.fails.push((from, i as u16, opts[i].step, Some(to)));
                    }
                    if passed {
                        g.asserts.push((opts[i].step, Some(to)));
                    }
                }
            }
        }
        (out.fails, out.asserts) = g.taken();
        out
    }

    /// Takes, right after a transition of thread `t`, the steps that follow it when they are
    /// the thread's only next step, touch only its private variables (locals and globals no
    /// other thread uses) and can be taken (when [`Settings::merge`]): they commute with
    /// every other thread's steps and leave no choice, so the states between them need not
    /// be stored. Appends an option index (0) per step to `path` and the `assert` steps
    /// passed to `asserts`; returns the indices in `path` of the failing ones.
    pub(crate) fn merge_private(
        &self,
        s: &mut [i64],
        t: usize,
        path: &mut Vec<u16>,
        asserts: &mut Vec<(u16, u32)>,
    ) -> Vec<usize> {
        let mut fails = Vec::new();
        if !self.merge {
            return fails;
        }
        let code = &self.c.threads[t];
        for _ in 0..10_000 {
            let p = &code.points[self.pc(s, t)];
            if !p.private_next {
                break;
            }
            let before: SmallVec<[i64; 64]> = SmallVec::from_slice(s);
            match self.apply(s, t, &p.options[0]) {
                Outcome::Done { failed, passed } => {
                    if failed {
                        fails.push(path.len());
                    }
                    if passed {
                        asserts.push((t as u16, p.options[0].step));
                    }
                    path.push(0);
                }
                _ => {
                    s.copy_from_slice(&before);
                    break;
                }
            }
        }
        fails
    }

    /// Takes, right after a transition of thread `t`, the steps [`Engine::merge_private`]
    /// takes, and (when [`Settings::merge_independent`]) every further step that `t` would
    /// take alone in the reduced search: `t` has exactly one enabled option, it enters no
    /// atomic block, and `{t}` is a persistent set (its enabled step conflicts with no other
    /// thread's gated future, and no other thread's gated future writes what its disabled
    /// options read). The reduction would keep only that step, so the state before it need
    /// not be stored; the argument is in docs/explore.md. Returns the indices in `path` of
    /// the failing steps.
    pub(crate) fn merge_after(
        &self,
        s: &mut [i64],
        t: usize,
        path: &mut Vec<u16>,
        asserts: &mut Vec<(u16, u32)>,
    ) -> Vec<usize> {
        let mut fails = self.merge_private(s, t, path, asserts);
        fails.extend(self.merge_independent_steps(s, t, path, asserts, None));
        fails
    }

    /// The second part of [`Engine::merge_after`], after the private steps: `origin` is the
    /// expanded state and its closed gates (see [`Engine::closed_gates`]), when known.
    fn merge_independent_steps(
        &self,
        s: &mut [i64],
        t: usize,
        path: &mut Vec<u16>,
        asserts: &mut Vec<(u16, u32)>,
        origin: Option<(&[i64], &[u64])>,
    ) -> Vec<usize> {
        let mut fails = Vec::new();
        if !self.merge_independent {
            return fails;
        }
        let code = &self.c.threads[t];
        // What the other threads' whole futures read and write: the other threads do not
        // move along the merged steps. A step that conflicts with none of them is merged
        // without looking at gates.
        let mut whole: Option<(Bits, Bits)> = None;
        // The same for their gated futures, with `{t}` as the set: no merged step writes
        // what they read, so they stay as they are until a merged step writes a gate variable.
        let mut gated: Option<(Bits, Bits)> = None;
        let mut next: SmallVec<[i64; 64]> = SmallVec::new();
        let mut taken: SmallVec<[i64; 64]> = SmallVec::new();
        // The points passed: a thread going round a loop stops where it came back (the
        // reduction's cycle proviso then looks at the state stored there).
        let mut seen: SmallVec<[usize; 16]> = SmallVec::new();
        loop {
            let pc = self.pc(s, t);
            let point = &code.points[pc];
            if point.region.is_some() || point.options.is_empty() || seen.contains(&pc) {
                break;
            }
            seen.push(pc);
            // Two options without a condition (`if (*)`, `while (*)`) are a choice.
            let unconditional = point
                .options
                .iter()
                .filter(|o| {
                    let step = &code.steps[o.step as usize];
                    step.region.is_none() && !matches!(step.kind, StepKind::Assume(_) | StepKind::Await(_))
                })
                .count();
            if unconditional > 1 {
                break;
            }
            let mut enabled: Option<(usize, bool, bool)> = None;
            let mut waits_on: Option<Bits> = None;
            let mut single = true;
            for (i, opt) in point.options.iter().enumerate() {
                next.clear();
                next.extend_from_slice(s);
                match self.apply(&mut next, t, opt) {
                    Outcome::Done { failed, passed } if enabled.is_none() && !self.in_region(&next, t) => {
                        enabled = Some((i, failed, passed));
                        std::mem::swap(&mut taken, &mut next);
                    }
                    Outcome::Disabled { .. } => {
                        waits_on.get_or_insert_with(|| Bits::new(self.lay.globals)).union_with(&opt.r);
                    }
                    _ => {
                        single = false;
                        break;
                    }
                }
            }
            let (Some((i, failed, passed)), true) = (enabled, single) else { break };
            let opt = &point.options[i];
            let conflicts = |(fut_r, fut_w): &(Bits, Bits)| {
                opt.w.intersects(fut_r)
                    || opt.w.intersects(fut_w)
                    || opt.r.intersects(fut_w)
                    || waits_on.as_ref().is_some_and(|w| w.intersects(fut_w))
            };
            if conflicts(whole.get_or_insert_with(|| self.others_whole_futures(s, t)))
                && conflicts(gated.get_or_insert_with(|| {
                    let mut closed = Vec::new();
                    match origin {
                        Some((o, c)) if self.same_gate_values(o, s) => closed.extend_from_slice(c),
                        _ => self.closed_gates(s, &mut closed),
                    }
                    self.others_futures(s, t, &closed)
                }))
            {
                break;
            }
            s.copy_from_slice(&taken);
            // A write to a gate variable may open a gate (gated futures leave the gate's own
            // read out): the gated futures are computed again at the next step.
            if opt.w.low_word() & self.gates().1 != 0 {
                gated = None;
            }
            if failed {
                fails.push(path.len());
            }
            if passed {
                asserts.push((t as u16, opt.step));
            }
            path.push(i as u16);
            fails.extend(self.merge_private(s, t, path, asserts));
        }
        fails
    }

    /// The union of the whole futures of every thread but `t` in `s`.
    fn others_whole_futures(&self, s: &[i64], t: usize) -> (Bits, Bits) {
        let (mut r, mut w) = (Bits::new(self.lay.globals), Bits::new(self.lay.globals));
        for (u, code) in self.c.threads.iter().enumerate().filter(|&(u, _)| u != t) {
            let point = &code.points[self.pc(s, u)];
            r.union_with(&point.fut_r);
            w.union_with(&point.fut_w);
        }
        (r, w)
    }

    /// Whether every gate variable holds the same value in `a` and `b` (so every thread's
    /// closed gates are the same: a gate's condition reads its variable and nothing else).
    fn same_gate_values(&self, a: &[i64], b: &[i64]) -> bool {
        let g = self.lay.threads;
        let mut all = self.gates().1;
        while all != 0 {
            let v = all.trailing_zeros() as usize;
            if a[g + v] != b[g + v] {
                return false;
            }
            all &= all - 1;
        }
        true
    }

    /// Every thread's closed gate variables in `s` (see [`Gates::closed`]).
    fn closed_gates(&self, s: &[i64], closed: &mut Vec<u64>) {
        closed.clear();
        closed.extend((0..self.lay.threads).map(|u| {
            let (g, l) = self.split(s, u);
            self.gates().0[u].closed(&self.c.threads[u], g, l)
        }));
    }

    /// The union of the gated futures of every thread but `t`, for the persistent set `{t}`
    /// (see [`Engine::reduce`]); `closed` as [`Engine::closed_gates`] gives it for `s`.
    fn others_futures(&self, s: &[i64], t: usize, closed: &[u64]) -> (Bits, Bits) {
        let mut futures = Vec::with_capacity(self.lay.threads);
        self.gated_futures(s, 1 << t, closed, &mut futures);
        let (mut r, mut w) = (Bits::new(self.lay.globals), Bits::new(self.lay.globals));
        for (u, (fr, fw)) in futures.into_iter().enumerate() {
            if u != t {
                r.union_with(fr);
                w.union_with(fw);
            }
        }
        (r, w)
    }

    /// Expands a state into `exp` (cleared first): every transition, what they find, and
    /// (when `por`) the reduced set of successors. `is_old` says whether a successor state was
    /// visited at an earlier or the current level (the cycle proviso). States expanded are canonical (see [`Engine::canon`]), as every state the
    /// expansion produces is.
    pub(crate) fn expand(&self, s: &[i64], por: bool, is_old: &dyn Fn(&[i64]) -> bool, exp: &mut Expansion) {
        debug_assert!(self.is_canonical(s), "an expanded state is canonical");
        self.expand_all(s, exp);
        if por && exp.deadlock.is_none() && !self.spin_end_states {
            self.reduce(s, exp, is_old);
        }
        if self.merge_independent {
            self.merge_kept(exp, 0..exp.succs.len());
        }
    }

    fn expand_all(&self, s: &[i64], exp: &mut Expansion) {
        exp.clear();
        exp.origin.clear();
        if self.merge_independent {
            self.closed_gates(s, &mut exp.closed);
            exp.origin.extend_from_slice(s);
        }
        for t in 0..self.lay.threads {
            let begin = exp.succs.len();
            let stand = self.expand_thread(s, t, exp);
            exp.ranges.push(begin..exp.succs.len());
            exp.stands.push(stand);
        }
        if self.spin_end_states {
            exp.deadlock = self.spin_stuck(s);
            return;
        }
        if exp.succs.is_empty() {
            let all_done = exp.stands.iter().all(|s| matches!(s, StandAt::Done));
            let any_cut = exp.stands.iter().any(|s| matches!(s, StandAt::Cut));
            if !all_done && !any_cut {
                exp.deadlock = Some(exp.stands());
            }
        }
    }

    /// Takes every option of thread `t` in `s` into `exp`; where the thread stands should no
    /// thread be able to step.
    fn expand_thread(&self, s: &[i64], t: usize, exp: &mut Expansion) -> StandAt {
        let code = &self.c.threads[t];
        let point = &code.points[self.pc(s, t)];
        exp.enabled.push_thread(point.options.len());
        let mut cut = false;
        let blocked_start = exp.blocked.len();
        // The atomic regions the options enter, each as one unit: its blocking options and
        // whether some option of it is cut.
        let mut regions = std::mem::take(&mut exp.regions);
        regions.clear();
        let mut next = std::mem::take(&mut exp.next);
        for (i, opt) in point.options.iter().enumerate() {
            next.clear();
            next.extend_from_slice(s);
            // The region the option's step enters, looked up only when needed.
            let region = || code.steps[opt.step as usize].region;
            match self.apply(&mut next, t, opt) {
                Outcome::Disabled { assume: true } => regions.cut(region(), &mut cut),
                Outcome::Disabled { assume: false } => regions.wait(region(), i as u16, &mut exp.blocked),
                Outcome::Unwound => {
                    regions.cut(region(), &mut cut);
                    exp.unwound = true;
                }
                Outcome::Done { failed, passed } => {
                    exp.transitions += 1;
                    if self.in_region(&next, t) {
                        // No path gets through: the thread waits before the block when some
                        // path stopped at a false `await`, and is cut otherwise.
                        let entry = Entry { failed, assert: passed.then_some(opt.step) };
                        match self.enter_region(t, i, entry, &mut next, exp) {
                            Some(true) => regions.wait(region(), i as u16, &mut exp.blocked),
                            Some(false) => regions.cut(region(), &mut cut),
                            None => {}
                        }
                    } else {
                        if failed {
                            exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal: Vec::new() });
                        }
                        if passed {
                            exp.asserts.push((t as u16, opt.step));
                        }
                        let mut path = std::mem::take(&mut exp.path);
                        path.clear();
                        self.push_succ(t, i, 0, &mut next, &mut path, exp);
                        exp.path = path;
                    }
                }
            }
        }
        regions.settle(&mut exp.blocked, blocked_start, &mut cut);
        exp.regions = regions;
        exp.next = next;
        if point.can_finish {
            StandAt::Done
        } else if cut {
            StandAt::Cut
        } else {
            StandAt::Blocked { start: blocked_start, end: exp.blocked.len() }
        }
    }

    /// Runs the atomic region that option `i` of thread `t` entered (`next` is the state
    /// after the entering step, which failed when `failed`), recording its successors and
    /// what it finds in `exp`, as [`Engine::run_macro`] finds them. When no path gets
    /// through: whether some path stopped at a false `await`.
    fn enter_region(&self, t: usize, i: usize, entry: Entry, next: &mut Vec<i64>, exp: &mut Expansion) -> Option<bool> {
        let failed = entry.failed;
        let mut work = std::mem::take(&mut exp.work);
        let mut path = std::mem::take(&mut exp.path);
        path.clear();
        let mut noted = Noted::default();
        let end = self.run_chain(t, next, &mut work, &mut path, &mut noted);
        exp.work = work;
        let stopped = match end {
            ChainEnd::Left => {
                // One way out: the entering step's failure and the chain's count.
                if failed {
                    exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal: Vec::new() });
                }
                for internal in noted.fails {
                    exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal });
                }
                exp.asserts.extend(entry.assert.map(|step| (t as u16, step)));
                exp.asserts.extend(noted.asserts.iter().map(|&step| (t as u16, step)));
                self.push_succ(t, i, 0, next, &mut path, exp);
                None
            }
            ChainEnd::Disabled { assume } => Some(!assume),
            ChainEnd::Unwound => {
                exp.unwound = true;
                Some(false)
            }
            ChainEnd::Branch => {
                let m = self.search_after(t, next.clone(), &path, noted);
                self.record_macro(t, i, entry, m, exp)
            }
        };
        exp.path = path;
        stopped
    }

    /// Records in `exp` what the run `m` of the atomic region that option `i` of thread `t`
    /// entered found, and its successors. When no path gets through: whether some path
    /// stopped at a false `await`.
    fn record_macro(&self, t: usize, i: usize, entry: Entry, m: MacroOut, exp: &mut Expansion) -> Option<bool> {
        let failed = entry.failed;
        exp.bound |= m.bound;
        exp.unwound |= m.unwound;
        // The entering step's failure counts when the region can be left.
        if failed && !m.exits.is_empty() {
            exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal: Vec::new() });
        }
        for internal in m.fails {
            exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal });
        }
        if !m.exits.is_empty() {
            exp.asserts.extend(entry.assert.map(|step| (t as u16, step)));
            exp.asserts.extend(m.asserts.iter().map(|&step| (t as u16, step)));
        }
        if let Some((path, cycle_start)) = m.livelock {
            exp.found.push(Found::Livelock { thread: t as u16, opt: i as u16, path, cycle_start });
        }
        let stopped = m.exits.is_empty().then_some(m.waited);
        for (k, (mut state, mut path)) in m.exits.into_iter().enumerate() {
            self.push_succ(t, i, k as u32, &mut state, &mut path, exp);
        }
        stopped
    }

    /// Records the successor `state` that option `opt` of thread `t` (exit `exit` of its
    /// region) leads to, after merging the private steps that follow it (their failures
    /// found, their options appended to `path`) and resetting dead variables: enables the
    /// option and keeps the state.
    fn push_succ(&self, t: usize, opt: usize, exit: u32, state: &mut [i64], path: &mut Vec<u16>, exp: &mut Expansion) {
        for f in self.merge_private(state, t, path, &mut exp.asserts) {
            let internal = path[..=f].to_vec();
            exp.found.push(Found::Fail { thread: t as u16, opt: opt as u16, internal });
        }
        self.canon_thread(state, t);
        exp.enabled.enable_last(opt);
        let start = exp.states.len();
        exp.states.extend_from_slice(state);
        let end = exp.states.len();
        let path_start = exp.paths.len();
        if self.merge_independent {
            exp.paths.extend_from_slice(path);
        }
        exp.succs.push(Trans {
            thread: t as u16,
            opt: opt as u16,
            exit,
            start: start as u32,
            end: end as u32,
            path: (path_start as u32, exp.paths.len() as u32),
            merged: !self.merge_independent,
        });
    }

    /// Merges into each successor in `succs` (indices into `exp.succs`) the steps its thread
    /// would take alone (see [`Engine::merge_after`]), once: only the successors the
    /// reduction looks at are merged, and a merged successor's state is what the search
    /// stores.
    fn merge_kept(&self, exp: &mut Expansion, succs: impl Iterator<Item = usize>) {
        let mut state: SmallVec<[i64; 64]> = SmallVec::new();
        let mut path = std::mem::take(&mut exp.path);
        for i in succs {
            let tr = exp.succs[i];
            if tr.merged {
                continue;
            }
            let t = tr.thread as usize;
            state.clear();
            state.extend_from_slice(exp.state(&tr));
            path.clear();
            path.extend_from_slice(&exp.paths[tr.path.0 as usize..tr.path.1 as usize]);
            let origin = Some((&exp.origin[..], &exp.closed[..]));
            for f in self.merge_independent_steps(&mut state, t, &mut path, &mut exp.asserts, origin) {
                let internal = path[..=f].to_vec();
                exp.found.push(Found::Fail { thread: tr.thread, opt: tr.opt, internal });
            }
            self.canon_thread(&mut state, t);
            exp.states[tr.start as usize..tr.end as usize].copy_from_slice(&state);
            exp.succs[i].merged = true;
        }
        exp.path = path;
    }

    /// Whether SPIN would find an invalid end state here: every thread can stop (at a valid
    /// end, cut, or waiting) after the moves SPIN takes as steps (`break`, `skip` of an empty
    /// branch), and some thread can stop waiting at a false `await`.
    fn spin_stuck(&self, s: &[i64]) -> Option<Vec<Stand>> {
        let mut stands = Vec::new();
        let mut any_blocked = false;
        for t in 0..self.lay.threads {
            let code = &self.c.threads[t];
            // Positions: where the thread stands, and every point right after a SPIN step
            // reachable without a step of ours.
            let mut positions = vec![self.pc(s, t) as u32];
            let mut seen = FxHashSet::default();
            seen.insert(self.pc(s, t) as u32);
            let mut k = 0;
            while k < positions.len() {
                let mut work = vec![positions[k]];
                let mut inner = FxHashSet::default();
                while let Some(q) = work.pop() {
                    for &(target, commit) in &code.silent[q as usize] {
                        if commit {
                            if seen.insert(target) {
                                positions.push(target);
                            }
                        } else if inner.insert(target) {
                            work.push(target);
                        }
                    }
                }
                k += 1;
            }
            let mut stoppable = false;
            let mut blocked_at: Option<Vec<u16>> = None;
            for &q in &positions {
                // SPIN's position q: its next statements, without further SPIN steps.
                let mut work = vec![q];
                let mut inner = FxHashSet::default();
                inner.insert(q);
                let (mut at_end, mut movable, mut cut) = (false, false, false);
                let mut waits: Vec<u32> = Vec::new();
                while let Some(p) = work.pop() {
                    at_end |= p == code.end;
                    for &st in &code.steps_at[p as usize] {
                        let opt = code.points[p as usize].options.iter().find(|o| o.step == st);
                        let mut next = s.to_vec();
                        // Only a written `assume` cuts (SPIN's `end_cut`); a false guard of an
                        // `if (b)`/`while (b)` is an option that cannot be taken.
                        let written = code.points[p as usize].item == Some(code.steps[st as usize].loc);
                        match opt.map(|o| self.apply(&mut next, t, o)) {
                            Some(Outcome::Done { .. }) => movable = true,
                            Some(Outcome::Disabled { assume: false }) => waits.push(st),
                            Some(Outcome::Disabled { assume: true }) if !written => {}
                            _ => cut = true,
                        }
                    }
                    for &(target, commit) in &code.silent[p as usize] {
                        if commit {
                            movable = true;
                        } else if inner.insert(target) {
                            work.push(target);
                        }
                    }
                }
                if at_end || cut {
                    stoppable = true;
                } else if !movable {
                    stoppable = true;
                    if blocked_at.is_none() {
                        let pc = self.pc(s, t);
                        let opts = waits
                            .iter()
                            .filter_map(|w| code.points[pc].options.iter().position(|o| o.step == *w))
                            .map(|i| i as u16)
                            .collect();
                        blocked_at = Some(opts);
                    }
                }
            }
            if !stoppable {
                return None;
            }
            match blocked_at {
                Some(opts) => {
                    any_blocked = true;
                    stands.push(Stand::Blocked(opts));
                }
                None => stands.push(Stand::Done),
            }
        }
        any_blocked.then_some(stands)
    }

    /// The gated future of every thread outside `set` (the threads inside get their whole
    /// future, unused): the gate variables frozen are those every outside thread leaves
    /// unwritten in its gated future (a greatest fixpoint), and a thread's gates on a frozen
    /// variable count when they are all false (`closed`).
    fn gated_futures<'e>(&'e self, s: &[i64], set: u64, closed: &[u64], futures: &mut Vec<(&'e Bits, &'e Bits)>) {
        let (gates, all) = self.gates();
        let mut frozen = *all;
        loop {
            futures.clear();
            let mut written = 0;
            for (u, &closed_u) in closed.iter().enumerate() {
                let mask = if set >> u & 1 == 1 { 0 } else { frozen & closed_u };
                let future = gates[u].future(&self.c.threads[u], self.pc(s, u), mask);
                if set >> u & 1 == 0 {
                    written |= future.1.low_word();
                }
                futures.push(future);
            }
            if frozen & written == 0 {
                return;
            }
            frozen &= !written;
        }
    }

    /// Keeps only the successors of a persistent set of threads (unless the cycle proviso
    /// asks for all).
    fn reduce(&self, s: &[i64], exp: &mut Expansion, is_old: &dyn Fn(&[i64]) -> bool) {
        let n = self.lay.threads;
        let ranges = &exp.ranges;
        let enabled_opts = &exp.enabled;
        if ranges.len() != n {
            return;
        }
        let active: Vec<usize> = (0..n).filter(|&t| !ranges[t].is_empty()).collect();
        if active.len() <= 1 || n > 64 {
            return;
        }
        // Grow a persistent set from every seed by the rules in the crate docs.
        let mut closed = std::mem::take(&mut exp.closed);
        if closed.len() != n {
            self.closed_gates(s, &mut closed);
        }
        // Per thread: what its enabled next steps read and write, and what its disabled ones
        // read (rules (1) and (2) compare these with the other threads' gated futures).
        let touches: Vec<(Bits, Bits, Bits)> = (0..n)
            .map(|x| {
                let point = &self.c.threads[x].points[self.pc(s, x)];
                let (mut r, mut w, mut waits) =
                    (Bits::new(self.lay.globals), Bits::new(self.lay.globals), Bits::new(self.lay.globals));
                for (i, opt) in point.options.iter().enumerate() {
                    if enabled_opts[x][i] {
                        r.union_with(&opt.r);
                        w.union_with(&opt.w);
                    } else {
                        waits.union_with(&opt.r);
                    }
                }
                (r, w, waits)
            })
            .collect();
        let mut candidates: Vec<(usize, u64)> = Vec::new();
        let mut futures = Vec::with_capacity(n);
        for &seed in &active {
            let mut set = 1u64 << seed;
            loop {
                self.gated_futures(s, set, &closed, &mut futures);
                // What the set's next steps write, and what they read or wait on: a thread
                // outside joins when its gated future touches what they write or writes
                // what they read.
                let (mut writes, mut reads) = (Bits::new(self.lay.globals), Bits::new(self.lay.globals));
                for (r, w, waits) in touches.iter().enumerate().filter(|&(x, _)| set >> x & 1 == 1).map(|(_, t)| t) {
                    writes.union_with(w);
                    reads.union_with(r);
                    reads.union_with(waits);
                }
                let mut grown = set;
                for (u, (fut_r, fut_w)) in futures.iter().enumerate() {
                    if set >> u & 1 == 0
                        && (writes.intersects(fut_r) || writes.intersects(fut_w) || reads.intersects(fut_w))
                    {
                        grown |= 1 << u;
                    }
                }
                if grown == set {
                    break;
                }
                set = grown;
            }
            let cost: usize = (0..n).filter(|&u| set >> u & 1 == 1).map(|u| ranges[u].len()).sum();
            if cost < exp.succs.len() && !candidates.iter().any(|&(_, c)| c == set) {
                candidates.push((cost, set));
            }
        }
        exp.closed = closed;
        // Cheapest first (the seed order breaks ties); the first set with a new successor is
        // kept (the cycle proviso: one new successor is enough for the argument), and the
        // state is expanded fully when there is none.
        candidates.sort_by_key(|&(cost, _)| cost);
        for (_, set) in candidates {
            let in_set = |tr: &Trans| set >> tr.thread & 1 == 1;
            if self.merge_independent {
                let kept: SmallVec<[usize; 16]> = (0..exp.succs.len()).filter(|&i| in_set(&exp.succs[i])).collect();
                self.merge_kept(exp, kept.into_iter());
            }
            if exp.succs.iter().filter(|tr| in_set(tr)).any(|tr| !is_old(exp.state(tr))) {
                exp.succs.retain(in_set);
                exp.reduced = true;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enabled_options_are_indexed_by_thread_and_option() {
        let mut en = Enabled::default();
        for _ in 0..2 {
            en.clear();
            en.push_thread(2);
            en.enable_last(1);
            en.push_thread(0);
            en.push_thread(3);
            en.enable_last(0);
            en.enable_last(2);
            assert_eq!(en[0], [false, true]);
            assert!(en[1].is_empty());
            assert_eq!(en[2], [true, false, true]);
        }
    }

    #[test]
    fn region_stops_wait_when_some_option_waits_and_cut_otherwise() {
        let mut stops = RegionStops::default();
        let (mut blocked, mut cut) = (vec![9, 4], false);
        stops.wait(Some(1), 3, &mut blocked);
        stops.cut(Some(1), &mut cut);
        stops.wait(None, 2, &mut blocked);
        stops.cut(Some(5), &mut cut);
        assert!(!cut, "cuts inside regions wait for the settlement");
        stops.settle(&mut blocked, 1, &mut cut);
        assert_eq!(blocked, [9, 2, 3, 4], "the thread's own options end sorted");
        assert!(cut, "region 5 had no waiting option");
        stops.clear();
        let (mut blocked, mut cut) = (Vec::new(), false);
        stops.wait(Some(1), 0, &mut blocked);
        stops.settle(&mut blocked, 0, &mut cut);
        assert_eq!((blocked, cut), (vec![0], false));
    }
}
