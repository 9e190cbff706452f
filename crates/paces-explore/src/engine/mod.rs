//! States and transitions: the layout of a state, taking a step, and what expanding a state
//! gives the searches.
//!
//! A state is one `i64` slice: the threads' control points, the globals, every thread's local
//! slots, and (only under `unwind`) every thread's loop counters. A thread never rests inside
//! an atomic region: the step that enters one starts a *macro transition* that runs the
//! region to its end (a depth-first search over the holding thread's steps, in `atomic`), so
//! no state has an atomic owner and other threads can never interleave with it.
//!
//! The engine's rooms: this file (layout, stepping, the expansion's types), `expand`
//! (expanding a state), `stops` (how a thread's options that enter atomic regions stop),
//! `atomic` (running an atomic block to its ends), `merge` (steps
//! carried along with a transition) and `reduce` (persistent sets and gated futures).

mod atomic;
mod expand;
mod merge;
mod reduce;
mod stops;

use std::sync::OnceLock;
use std::time::Instant;

use paces_cwhile::ir::Fault;

use crate::bits::Bits;
use crate::compile::{Compiled, Move, Opt, StepKind, VarRef};

pub(crate) use atomic::MacroOut;
use reduce::gates::Gates;
use stops::RegionStops;

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
    /// The step was taken; whether it failed (an assertion, or an operation without a value), and whether it
    /// is an `assert` that passed.
    Done { failed: bool, passed: bool },
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
    /// With [`Settings::outcomes`], when every thread may stop where it stands: whether so.
    pub outcome: bool,
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
        self.outcome = false;
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
/// block's search, the state reductions and the deadline.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Settings {
    /// Cut paths where a loop runs more than this many iterations per entry (see
    /// [`crate::Config::unwind`]). Default: `None` (exact).
    pub unwind: Option<u32>,
    /// The most states one run of an atomic block may visit. Default: `usize::MAX` (no
    /// bound).
    pub max_atomic: usize,
    /// Reset dead locals, and globals no thread may read before writing them, in successors
    /// (sound for every query that does not look at final values). Default: `false`.
    pub reset_dead: bool,
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
    /// Note the globals of every state where each thread may stop (see
    /// [`crate::Config::outcomes`]); globals are then never reset. Default: `false`.
    pub outcomes: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            unwind: None,
            max_atomic: usize::MAX,
            reset_dead: false,
            merge: false,
            merge_independent: false,
            deadline: None,
            failure_flag: false,
            outcomes: false,
        }
    }
}

/// The engine: a compiled program, a state layout, and the [`Settings`] it explores with.
pub(crate) struct Engine<'c> {
    pub c: &'c Compiled,
    pub lay: Layout,
    max_atomic: usize,
    reset_dead: bool,
    merge: bool,
    merge_independent: bool,
    deadline: Option<Instant>,
    outcomes: bool,
    /// Per thread: its gates and gated futures, and every thread's gate variables as a mask
    /// over globals; made when the reduction first needs them.
    gates: OnceLock<(Vec<Gates>, u64)>,
}

impl<'c> Engine<'c> {
    pub(crate) fn new(c: &'c Compiled, settings: Settings) -> Self {
        let Settings { unwind, max_atomic, reset_dead, merge, merge_independent, deadline, failure_flag, outcomes } =
            settings;
        Engine {
            c,
            lay: Layout::new(c, unwind, failure_flag),
            max_atomic,
            reset_dead,
            merge,
            merge_independent: merge && merge_independent && c.threads.len() <= 64,
            deadline,
            outcomes,
            gates: OnceLock::new(),
        }
    }

    /// Whether the deadline has passed, looked up once every 1024 counts of `count` (a
    /// search's step counter), so the clock stays off the hot path.
    pub(crate) fn late(&self, count: usize) -> bool {
        count % 1024 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Resets the dead locals of every thread and the globals no thread may read before
    /// writing them (when [`Settings::reset_dead`]).
    pub(crate) fn canon(&self, s: &mut [i64]) {
        if !self.reset_dead {
            return;
        }
        for t in 0..self.lay.threads {
            self.reset_dead_locals(s, t);
        }
        self.reset_unread_globals(s);
    }

    /// Resets the dead locals of thread `t` and the globals no thread may read before writing
    /// them (when [`Settings::reset_dead`]).
    ///
    /// After a transition of `t` from a state `canon` left unchanged, this is all `canon`
    /// would do: every other thread stands where it stood, with locals `t` cannot have
    /// written, and the globals are looked at again.
    pub(crate) fn canon_thread(&self, s: &mut [i64], t: usize) {
        if !self.reset_dead {
            return;
        }
        self.reset_dead_locals(s, t);
        self.reset_unread_globals(s);
    }

    /// Resets the locals of thread `t` that it can never read again.
    fn reset_dead_locals(&self, s: &mut [i64], t: usize) {
        let off = self.lay.local_off[t];
        for &l in &self.c.threads[t].points[s[t] as usize].dead {
            s[off + l as usize] = 0;
        }
    }

    /// Resets every global that no thread may read before writing it, from where each
    /// stands: its value is never read (docs/explore.md, "How it explores").
    fn reset_unread_globals(&self, s: &mut [i64]) {
        if self.outcomes {
            // The outcomes are the globals' final values: every one is kept.
            return;
        }
        let mut live = Bits::new(self.lay.globals);
        for (u, code) in self.c.threads.iter().enumerate() {
            live.union_with(&code.points[s[u] as usize].live_r);
        }
        let g = self.lay.threads;
        for (v, value) in s[g..g + self.lay.globals].iter_mut().enumerate() {
            if !live.contains(v) {
                *value = 0;
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

    /// The operation without a value (a division by zero, a shift out of range) that taking
    /// option `opt` of thread `t` in `s` evaluates, if any.
    pub(crate) fn fault(&self, s: &[i64], t: usize, opt: &Opt) -> Option<Fault> {
        let (g, l) = self.split(s, t);
        let mut fault = None;
        match &self.c.threads[t].steps[opt.step as usize].kind {
            StepKind::Assume(c) | StepKind::Await(c) | StepKind::Assert(c) | StepKind::Assign(_, c) => {
                c.eval(g, l, &mut fault);
            }
            StepKind::Skip => {}
        }
        fault
    }

    fn apply_step(&self, s: &mut [i64], t: usize, opt: &Opt, force: bool) -> Outcome {
        let code = &self.c.threads[t];
        let st = &code.steps[opt.step as usize];
        let mut fault = None;
        let (g, l) = self.split(s, t);
        let mut failed = false;
        let mut asserted = false;
        let mut write: Option<(VarRef, i64)> = None;
        match &st.kind {
            StepKind::Assume(c) => {
                if !force && c.eval(g, l, &mut fault) == 0 {
                    return Outcome::Disabled { assume: true };
                }
            }
            StepKind::Await(c) => {
                if !force && c.eval(g, l, &mut fault) == 0 {
                    return Outcome::Disabled { assume: false };
                }
            }
            StepKind::Assert(c) => {
                failed = c.eval(g, l, &mut fault) == 0;
                asserted = true;
            }
            StepKind::Assign(v, c) => write = Some((*v, c.eval(g, l, &mut fault))),
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
        let failed = failed || fault.is_some();
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A global that every thread writes before it reads it (or never reads) is reset; once
    /// a thread may read it first, it is kept.
    #[test]
    fn globals_no_thread_reads_before_writing_are_reset() {
        let program =
            paces_cwhile::parse("var g = 0, h = 0; thread a { g := 1; h := g; } thread b { g := 2; }").unwrap();
        let c = crate::compile::compile(&program).unwrap();
        let e = Engine::new(&c, Settings { reset_dead: true, ..Settings::default() });
        let (g, h) = (e.lay.threads, e.lay.threads + 1);
        let mut s = e.initial().to_vec();
        s[g] = 7;
        s[h] = 5;
        e.canon(&mut s);
        assert_eq!((s[g], s[h]), (0, 0), "both written before any read");
        let a0 = &c.threads[0].points[e.pc(&s, 0)].options[0];
        assert_eq!(e.apply(&mut s, 0, a0), Outcome::Done { failed: false, passed: false });
        s[g] = 7;
        e.canon_thread(&mut s, 0);
        assert_eq!((s[g], s[h]), (7, 0), "`a` reads g next; h is never read");
        let off = Engine::new(&c, Settings::default());
        let mut kept = s.clone();
        kept[h] = 5;
        off.canon(&mut kept);
        assert_eq!(kept[h], 5, "nothing is reset without `reset_dead`");
    }

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
}
