//! The checker: breadth-first exploration by levels (in parallel), with partial-order
//! reduction, bounds, and counterexamples.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use paces_cwhile::ir::Program;
use paces_trace::Trace;
use rayon::prelude::*;

use crate::compile::{compile, Compiled};
use crate::engine::{Engine, Expansion, Found, Settings, Stand, EXIT};
use crate::error::Error;
use crate::hunt::hunt;
use crate::progress::{Progress, ProgressCallback, Ticker};
use crate::replay::{build_trace, divides_by_zero_at, to_schedule, transitions_to_steps, Schedule};
use crate::store::{encode, hash_bytes, Store};

/// States expanded per batch; batches are merged in order, so results do not depend on the
/// number of worker threads.
const CHUNK: usize = 2048;

/// Bounds and switches of [`check`]. Every setter consumes and returns the config.
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) max_states: usize,
    pub(crate) max_depth: Option<usize>,
    pub(crate) max_time: Option<Duration>,
    pub(crate) max_memory: usize,
    pub(crate) max_atomic_states: usize,
    pub(crate) por: bool,
    pub(crate) unmerged_states: usize,
    pub(crate) hunt_states: usize,
    pub(crate) parallel: bool,
    pub(crate) threads: Option<usize>,
    pub(crate) min_parallel_batch: usize,
    pub(crate) stop_at_first_failure: bool,
    pub(crate) unwind: Option<u32>,
    pub(crate) spin_end_states: bool,
    pub(crate) find: FailureKinds,
    pub(crate) deadlocks_after_failure: bool,
    pub(crate) on_progress: Option<ProgressCallback>,
    pub(crate) progress_every: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_states: Self::DEFAULT_MAX_STATES,
            max_depth: None,
            max_time: None,
            max_memory: Self::DEFAULT_MAX_MEMORY,
            max_atomic_states: 1_000_000,
            por: true,
            unmerged_states: Self::DEFAULT_UNMERGED_STATES,
            hunt_states: 0,
            parallel: true,
            threads: None,
            min_parallel_batch: 64,
            stop_at_first_failure: true,
            unwind: None,
            spin_end_states: false,
            find: FailureKinds::ALL,
            deadlocks_after_failure: false,
            on_progress: None,
            progress_every: Self::DEFAULT_PROGRESS_EVERY,
        }
    }
}

impl Config {
    /// The default of [`Config::max_states`].
    pub const DEFAULT_MAX_STATES: usize = 100_000_000;

    /// The default of [`Config::max_memory`]: 8 GiB.
    pub const DEFAULT_MAX_MEMORY: usize = 8 << 30;

    /// The default of [`Config::unmerged_states`].
    pub const DEFAULT_UNMERGED_STATES: usize = 10_000;

    /// The default of [`Config::progress_every`].
    pub const DEFAULT_PROGRESS_EVERY: Duration = Duration::from_millis(200);

    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// The most states to store. Default: [`Config::DEFAULT_MAX_STATES`] (100,000,000).
    pub fn max_states(mut self, n: usize) -> Self {
        self.max_states = n;
        self
    }

    /// The most breadth-first levels (transitions from the initial state) to explore.
    /// Default: `None` (no bound).
    pub fn max_depth(mut self, n: Option<usize>) -> Self {
        self.max_depth = n;
        self
    }

    /// The longest time to explore. Default: `None` (no bound).
    pub fn max_time(mut self, t: Option<Duration>) -> Self {
        self.max_time = t;
        self
    }

    /// The most bytes the state store may use; the state bound is lowered to fit. Default:
    /// [`Config::DEFAULT_MAX_MEMORY`] (8 GiB).
    pub fn max_memory(mut self, bytes: usize) -> Self {
        self.max_memory = bytes;
        self
    }

    /// The most states one run of an atomic block may visit. Default: 1,000,000.
    pub fn max_atomic_states(mut self, n: usize) -> Self {
        self.max_atomic_states = n;
        self
    }

    /// Partial-order reduction. Default: `true`.
    pub fn por(mut self, on: bool) -> Self {
        self.por = on;
        self
    }

    /// Parallel expansion (rayon) of large levels. Default: `true`.
    pub fn parallel(mut self, on: bool) -> Self {
        self.parallel = on;
        self
    }

    /// The number of worker threads (a private pool); `None` uses rayon's global pool.
    /// Default: `None`.
    pub fn threads(mut self, n: Option<usize>) -> Self {
        self.threads = n;
        self
    }

    /// The fewest states of a batch that are expanded in parallel (smaller batches stay on
    /// the calling thread, where the overhead of splitting outweighs the gain). Default: 64.
    pub fn min_parallel_batch(mut self, n: usize) -> Self {
        self.min_parallel_batch = n;
        self
    }

    /// Stop at the first failure (bad trace, deadlock or atomic livelock). With `false` the
    /// whole state space is explored and every reachable deadlock, livelock and failing
    /// assertion is collected. Default: `true`.
    pub fn stop_at_first_failure(mut self, on: bool) -> Self {
        self.stop_at_first_failure = on;
        self
    }

    /// Which kinds of failure to look for (combine [`FailureKinds`] constants with `|`).
    /// Failures of a kind not in the set are neither reported nor stop the search. Default:
    /// [`FailureKinds::ALL`].
    pub fn find(mut self, kinds: FailureKinds) -> Self {
        self.find = kinds;
        self
    }

    /// Report deadlocks as SPIN reports invalid end states, for comparing with SPIN on the
    /// exported Promela: a state where every thread that can still step could instead stop
    /// at its end (SPIN lets such a process leave its loop and terminate), where a thread
    /// cut by a false `assume` counts as stopped, and where some thread waits at a false
    /// `await` for good. This is weaker than the language's deadlock (no thread can step)
    /// and turns partial-order reduction off. Default: `false`.
    pub fn spin_end_states(mut self, on: bool) -> Self {
        self.spin_end_states = on;
        self
    }

    /// With partial-order reduction, search at most `n` states without merging the steps a
    /// thread would take alone before searching with merging (docs/explore.md, "The first
    /// failure"): counterexamples found within them are shortest in steps, which the repair
    /// loop generalises best; `0` merges from the first state (fastest, counterexamples
    /// shortest in merged transitions). Default: [`Config::DEFAULT_UNMERGED_STATES`].
    pub fn unmerged_states(mut self, n: usize) -> Self {
        self.unmerged_states = n;
        self
    }

    /// Before the search with merging, look for a failing assertion depth first, storing at
    /// most `n` states (docs/explore.md, "The bug hunt"): a failure found ends a check that
    /// stops at the first failure with a counterexample cut down to the steps the failure
    /// depends on, which is not among the shortest. Only with the reduction on and
    /// [`Config::stop_at_first_failure`]; the hunt's states count in the result's. `0`
    /// (the default) hunts never; the repair loop hunts in its candidates.
    pub fn hunt_states(mut self, n: usize) -> Self {
        self.hunt_states = n;
        self
    }

    /// Bound every loop to at most `n` iterations per entry (like CBMC's `--unwind n`;
    /// paths past the bound are cut). The bound is reported in every verdict. Default:
    /// `None` (exact).
    pub fn unwind(mut self, n: Option<u32>) -> Self {
        self.unwind = n;
        self
    }

    /// Also collect the deadlocks reachable on a run where a step had already failed (an
    /// assertion or a division by zero), in [`CheckResult::deadlocks_after_failure`]. The
    /// state then carries one more slot, a flag that every failing step sets, so up to twice
    /// as many states are stored. Only complete with [`Config::stop_at_first_failure`] off.
    /// Default: `false`.
    pub fn deadlocks_after_failure(mut self, on: bool) -> Self {
        self.deadlocks_after_failure = on;
        self
    }

    /// Calls `callback` with the [`Progress`] of [`check`] while it explores: on the calling
    /// thread, between batches of states, at most once per [`Config::progress_every`] (the
    /// first time one interval after the start), so a check shorter than the interval never
    /// calls it. Clones of the configuration share the callback; [`Debug`](fmt::Debug) shows
    /// only whether one is set. Default: none.
    pub fn on_progress(mut self, callback: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(ProgressCallback(Arc::new(callback)));
        self
    }

    /// The least time between two calls of the [`Config::on_progress`] callback
    /// (`Duration::ZERO`: after every batch). Default: [`Config::DEFAULT_PROGRESS_EVERY`]
    /// (200 ms).
    pub fn progress_every(mut self, interval: Duration) -> Self {
        self.progress_every = interval;
        self
    }
}

/// A set of kinds of failure, for [`Config::find`]: bad traces, deadlocks and atomic
/// livelocks. Combine the constants with `|`.
///
/// # Example
/// ```
/// use paces_explore::{check, Config, FailureKinds, Verdict};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse("var x = 0; thread a { A: x := 1; } thread b { B: assert(x == 0); }")?;
/// let kinds = FailureKinds::DEADLOCKS | FailureKinds::LIVELOCKS;
/// assert!(!kinds.contains(FailureKinds::BAD));
/// // The failing assertion is not looked for.
/// let result = check(&program, &Config::new().find(kinds))?;
/// assert_eq!(result.verdict, Verdict::Correct);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FailureKinds(u8);

impl FailureKinds {
    /// No kind: the search looks for nothing and explores every reachable state.
    pub const NONE: Self = FailureKinds(0);
    /// Bad traces: a failing assertion, or a division or remainder by zero.
    pub const BAD: Self = FailureKinds(1);
    /// Deadlocks.
    pub const DEADLOCKS: Self = FailureKinds(1 << 1);
    /// Atomic livelocks.
    pub const LIVELOCKS: Self = FailureKinds(1 << 2);
    /// All three kinds.
    pub const ALL: Self = FailureKinds(Self::BAD.0 | Self::DEADLOCKS.0 | Self::LIVELOCKS.0);

    /// Whether every kind of `other` is in the set.
    pub fn contains(self, other: FailureKinds) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for FailureKinds {
    type Output = FailureKinds;

    fn bitor(self, other: FailureKinds) -> FailureKinds {
        FailureKinds(self.0 | other.0)
    }
}

/// A witness: the steps of a trace as a readable schedule and as a validated trace.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counterexample {
    /// The steps by thread and label.
    pub schedule: Schedule,
    /// The trace (for a deadlock its [`Trace::blocked`] holds the blocked awaits).
    pub trace: Trace,
    /// The failing step (an index into the schedule and the trace), for a bad trace.
    pub failing_step: Option<usize>,
    /// Whether the failing step fails by dividing (or taking a remainder) by zero; when false,
    /// a failing step is a false assertion.
    pub division_by_zero: bool,
    /// For an atomic livelock: the schedule index where the cycle starts (the cycle runs
    /// from there to the end and returns to the state before that step).
    pub cycle_start: Option<usize>,
}

/// Where a thread stands in a deadlock.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ThreadStand {
    /// At its end (or able to reach it without a step).
    Done,
    /// Waiting at these awaits (labels, in program order of the choice).
    Blocked(Vec<String>),
}

/// A deadlock, identified by where every thread stands (in thread order). Labels survive
/// reordering, so deadlocks of two programs of one space compare.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeadlockId {
    /// Thread names and where they stand.
    pub threads: Vec<(String, ThreadStand)>,
}

impl DeadlockId {
    /// The names of the threads that are not done (they wait).
    pub fn blocked_threads(&self) -> std::collections::BTreeSet<&str> {
        self.threads.iter().filter(|(_, stand)| *stand != ThreadStand::Done).map(|(name, _)| name.as_str()).collect()
    }
}

impl fmt::Display for DeadlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, stand)) in self.threads.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match stand {
                ThreadStand::Done => write!(f, "{name} done")?,
                ThreadStand::Blocked(l) => write!(f, "{name} at {}", l.join("|"))?,
            }
        }
        Ok(())
    }
}

/// An atomic livelock: a thread that can step forever inside an atomic block.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LivelockId {
    /// The thread's name.
    pub thread: String,
    /// The label of the (outermost) atomic block, `lock` or `down`.
    pub block: String,
}

impl fmt::Display for LivelockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} loops inside atomic block {}", self.thread, self.block)
    }
}

/// Which bound was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Bound {
    /// [`Config::max_states`].
    States,
    /// [`Config::max_memory`]: the state store's bytes.
    Memory,
    /// [`Config::max_depth`].
    Depth,
    /// [`Config::max_time`].
    Time,
    /// [`Config::max_atomic_states`].
    AtomicStates,
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Bound::States => "state bound",
            Bound::Memory => "memory bound",
            Bound::Depth => "depth bound",
            Bound::Time => "time bound",
            Bound::AtomicStates => "atomic-block state bound",
        })
    }
}

/// The answer of [`check`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// No assertion can fail, no deadlock and no atomic livelock is reachable (within the
    /// loop bound when [`Config::unwind`] is set).
    Correct,
    /// A bad trace.
    Bad(Box<Counterexample>),
    /// A deadlock and a trace into it.
    Deadlock(DeadlockId, Box<Counterexample>),
    /// An atomic livelock and a trace into its cycle.
    Livelock(LivelockId, Box<Counterexample>),
    /// A bound was reached before anything was found.
    BoundReached {
        /// The bound.
        what: Bound,
        /// States stored when it was reached.
        states: usize,
    },
}

impl Verdict {
    /// A short name: `correct`, `bad`, `deadlock`, `livelock` or `bound reached`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::Bad(_) => "bad",
            Verdict::Deadlock(..) => "deadlock",
            Verdict::Livelock(..) => "livelock",
            Verdict::BoundReached { .. } => "bound reached",
        }
    }

    /// The counterexample, when there is one.
    pub fn counterexample(&self) -> Option<&Counterexample> {
        match self {
            Verdict::Bad(c) | Verdict::Deadlock(_, c) | Verdict::Livelock(_, c) => Some(c),
            _ => None,
        }
    }
}

/// What [`check`] found and what it did.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CheckResult {
    /// The verdict.
    pub verdict: Verdict,
    /// States stored.
    pub states: usize,
    /// Transitions executed (including those the reduction then dropped).
    pub transitions: u64,
    /// Breadth-first levels explored.
    pub depth: usize,
    /// States whose expansion the partial-order reduction reduced.
    pub reduced_states: usize,
    /// Wall time.
    pub time: Duration,
    /// The loop bound used ([`Config::unwind`]); `None`: exact.
    pub unwind: Option<u32>,
    /// Whether some path was cut by the loop bound (the verdict may then miss behaviours).
    pub unwind_reached: bool,
    /// The bound that ended the search early, if any (also when a failure was found before
    /// it, with [`Config::stop_at_first_failure`] off: the lists below may then be partial).
    pub bound: Option<Bound>,
    /// Every reachable deadlock with one shortest witness (all of them only when
    /// [`Config::stop_at_first_failure`] is off).
    pub deadlocks: BTreeMap<DeadlockId, Counterexample>,
    /// Every reachable atomic livelock with a witness (likewise).
    pub livelocks: BTreeMap<LivelockId, Counterexample>,
    /// For every assertion (or step with a division) found failing: its label and a
    /// shortest bad trace (likewise).
    pub failures: BTreeMap<String, Counterexample>,
    /// With [`Config::deadlocks_after_failure`]: every deadlock reachable on a run where a
    /// step had already failed, with a shortest such run (its trace shows the failure).
    /// Empty otherwise.
    pub deadlocks_after_failure: BTreeMap<DeadlockId, Counterexample>,
    /// The labels of the assertions some explored transition passed: executed with its
    /// condition true (inside an atomic block: on a path that gets through it). Every
    /// assertion that can pass when the search went through the whole space (no
    /// [`CheckResult::bound`], and [`Config::stop_at_first_failure`] off or nothing found); a
    /// part of them otherwise. A check that asks whether a change left some assertion
    /// checking nothing compares these.
    pub passed_assertions: BTreeSet<String>,
}

/// The verdict in words: `correct`, `bad: 3 fails`, `bad: division by zero at q1`,
/// `deadlock: ...`, `atomic livelock: ...`, `state bound reached after N states`.
impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Correct => f.write_str("correct"),
            Verdict::Bad(c) => {
                let label = c.failing_step.and_then(|i| c.schedule.steps.get(i)).map_or("?", |s| s.label.as_str());
                if c.division_by_zero {
                    write!(f, "bad: division by zero at {label}")
                } else {
                    write!(f, "bad: {label} fails")
                }
            }
            Verdict::Deadlock(id, _) => write!(f, "deadlock: {id}"),
            Verdict::Livelock(id, _) => write!(f, "atomic livelock: {id}"),
            Verdict::BoundReached { what, states } => write!(f, "{what} reached after {states} states"),
        }
    }
}

impl CheckResult {
    /// The verdict in words with what qualifies it (a bound reached after a failure was
    /// found, the loop bound), without the statistics that [`CheckResult`]'s `Display` adds.
    pub fn verdict_text(&self) -> String {
        let mut s = self.verdict.to_string();
        if let (Some(b), false) = (self.bound, matches!(self.verdict, Verdict::BoundReached { .. })) {
            s.push_str(&format!(" ({b} reached)"));
        }
        if let Some(n) = self.unwind {
            s.push_str(&format!(" (loops unwound to {n}{})", if self.unwind_reached { ", bound hit" } else { "" }));
        }
        s
    }
}

impl fmt::Display for CheckResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; {} states, {} transitions, {:.3}s",
            self.verdict_text(),
            self.states,
            self.transitions,
            self.time.as_secs_f64()
        )
    }
}

/// A transition: thread, option, internal path of an atomic block.
type Tr = (usize, u16, Vec<u16>);

/// A kept successor of an expanded state: the transition, the hash of the encoded state,
/// and where the encoding ends in its piece's bytes (it starts where the one before ends).
#[derive(Clone, Copy)]
struct Succ {
    thread: u16,
    opt: u16,
    exit: u32,
    hash: u64,
    end: u32,
}

/// The expansions of a run of consecutive states, flattened so that a run costs a few
/// allocations, not a few per state.
#[derive(Default)]
struct Piece {
    /// Per state, in order: where its successors end in `succs`.
    ends: Vec<u32>,
    succs: Vec<Succ>,
    /// The successors' encoded states, back to back.
    bytes: Vec<u8>,
    /// The states (by position in the run) that found something or deadlock, in order,
    /// with what they found.
    events: Vec<(usize, Vec<Found>, Option<Vec<Stand>>)>,
    transitions: u64,
    reduced: usize,
    unwound: bool,
    bound: bool,
    /// The `assert` steps passed (thread, step), deduplicated.
    asserts: Vec<(u16, u32)>,
}

impl Piece {
    /// Appends the expansion of the next state of the run, its kept successors encoded and
    /// hashed.
    fn add(&mut self, exp: &mut Expansion) {
        self.transitions += exp.transitions;
        self.reduced += usize::from(exp.reduced);
        self.unwound |= exp.unwound;
        self.bound |= exp.bound;
        for &a in &exp.asserts {
            if !self.asserts.contains(&a) {
                self.asserts.push(a);
            }
        }
        if !exp.found.is_empty() || exp.deadlock.is_some() {
            self.events.push((self.ends.len(), std::mem::take(&mut exp.found), exp.deadlock.take()));
        }
        for tr in &exp.succs {
            let start = self.bytes.len();
            encode(exp.state(tr), &mut self.bytes);
            let hash = hash_bytes(&self.bytes[start..]);
            let end = self.bytes.len() as u32;
            self.succs.push(Succ { thread: tr.thread, opt: tr.opt, exit: tr.exit, hash, end });
        }
        self.ends.push(self.succs.len() as u32);
    }
}

/// States expanded by one task of a batch (a piece), one after the other with the same
/// buffers.
const PIECE: usize = 64;

/// How a stored state was first reached: from state `parent` by option `opt` of `thread`
/// (for a macro transition, its exit `exit`).
#[derive(Clone, Copy)]
pub(crate) struct Parent {
    pub parent: u32,
    pub thread: u16,
    pub opt: u16,
    pub exit: u32,
}

/// The states stored by a search, with how each was first reached.
pub(crate) struct Search<'c> {
    pub e: Engine<'c>,
    pub store: Store,
    pub parents: Vec<Parent>,
}

impl<'c> Search<'c> {
    /// A search of `c` under `config` (`merge_independent` as in [`Settings`]; the deadline
    /// counted from `start`) that has stored the initial state.
    pub(crate) fn new(c: &'c Compiled, config: &Config, merge_independent: bool, start: Instant) -> Self {
        let e = Engine::new(
            c,
            Settings {
                unwind: config.unwind,
                max_atomic: config.max_atomic_states,
                reset_dead: true,
                spin_end_states: config.spin_end_states,
                merge: !config.spin_end_states,
                merge_independent,
                deadline: config.max_time.and_then(|t| start.checked_add(t)),
                failure_flag: config.deadlocks_after_failure,
            },
        );
        let mut search = Search { store: Store::new(e.lay.stride), parents: Vec::new(), e };
        let mut init = search.e.initial().to_vec();
        search.e.canon(&mut init);
        search.store.insert(&init);
        search.parents.push(Parent { parent: 0, thread: 0, opt: 0, exit: 0 });
        search
    }

    /// Bytes the stored states and their parent links take (what [`Config::max_memory`]
    /// bounds).
    pub(crate) fn memory(&self) -> usize {
        self.store.bytes() + self.parents.capacity() * 12
    }

    /// Transitions from the initial state to state `i`, with internal paths.
    pub(crate) fn path_to(&self, mut i: u32) -> Vec<(usize, u16, Vec<u16>)> {
        let mut rev = Vec::new();
        while i != 0 {
            let p = self.parents[i as usize];
            rev.push((p.parent, p.thread, p.opt, p.exit));
            i = p.parent;
        }
        rev.reverse();
        let mut out = Vec::new();
        for (parent, t, opt, exit) in rev {
            let s = self.store.get(parent);
            let t = t as usize;
            let code = &self.e.c.threads[t];
            let o = &code.points[self.e.pc(&s, t)].options[opt as usize];
            let mut next = s.to_vec();
            self.e.apply(&mut next, t, o);
            let internal = if self.e.in_region(&next, t) {
                let m = self.e.run_macro(t, &next);
                match m.exits.into_iter().nth(exit as usize) {
                    Some((mut state, mut path)) => {
                        self.e.merge_after(&mut state, t, &mut path, &mut Vec::new());
                        path
                    }
                    None => Vec::new(),
                }
            } else {
                let mut path = Vec::new();
                self.e.merge_after(&mut next, t, &mut path, &mut Vec::new());
                path
            };
            out.push((t, opt, internal));
        }
        out
    }

    pub(crate) fn witness(
        &self,
        state: u32,
        last: Option<(usize, u16, Vec<u16>)>,
        blocked: Option<&[Stand]>,
    ) -> Result<Counterexample, Error> {
        let mut trans = self.path_to(state);
        if let Some(l) = last {
            trans.push(l);
        }
        let xs = transitions_to_steps(&self.e, &trans);
        let trace = build_trace(&self.e, &xs, blocked, false)?;
        let failing_step = trace.first_failure().map(|e| e.index());
        let division_by_zero = failing_step.is_some_and(|i| divides_by_zero_at(&self.e, &xs, i));
        Ok(Counterexample {
            schedule: to_schedule(self.e.c, &xs),
            trace,
            failing_step,
            division_by_zero,
            cycle_start: None,
        })
    }
}

/// Explores every reachable state of the program and reports whether an assertion can fail,
/// a deadlock or an atomic livelock is reachable.
///
/// Exploration is breadth first, so the first bad trace found is among the shortest (in
/// transitions of the reduced state graph; an atomic block counts as one transition). With
/// partial-order reduction a transition may also carry the steps its thread would take alone,
/// after a first search without merging ([`Config::unmerged_states`]; docs/explore.md,
/// "Merging the steps a thread would take alone"). The verdict and counterexample do not
/// depend on [`Config::threads`].
///
/// # Errors
/// When the program cannot be compiled (see [`ErrorKind`](crate::ErrorKind)).
///
/// # Example
/// ```
/// use paces_explore::{check, Config, Verdict};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse(
///     "var x = 0; thread a { A: x := 1; B: x := 0; } thread b { C: assert(x == 0); }",
/// )?;
/// let result = check(&program, &Config::new())?;
/// let Verdict::Bad(cex) = &result.verdict else { panic!("expected a bad trace") };
/// assert_eq!(cex.schedule.len(), 2); // A, then C fails
/// # Ok(()) }
/// ```
pub fn check(program: &Program, config: &Config) -> Result<CheckResult, Error> {
    let c = compile(program)?;
    check_compiled(&c, config)
}

/// The search behind [`check`]. With the reduction on, the search merges the steps a thread
/// would take alone (docs/explore.md), which stores far fewer states but makes a
/// counterexample shortest in merged transitions, not in steps. The repair loop generalises a
/// trace shortest in steps best, so a search without merging, bounded by
/// [`Config::unmerged_states`], comes first: when it covers the whole space or finds the
/// failure a check stops at, it is the answer. Then, with [`Config::hunt_states`], the bug
/// hunt looks for a failing assertion depth first; what it finds is the answer. Otherwise the
/// merged search follows, and for what both breadth-first searches found, the witnesses of
/// the unmerged one are kept. The states and transitions of every search are counted.
pub(crate) fn check_compiled(c: &Compiled, config: &Config) -> Result<CheckResult, Error> {
    let start = Instant::now();
    let merging = config.por && !config.spin_end_states;
    if !merging {
        return search(c, config, false, start, (0, 0));
    }
    let first = if config.unmerged_states == 0 {
        None
    } else {
        let bounded = config.clone().max_states(config.unmerged_states.min(config.max_states));
        let first = search(c, &bounded, false, start, (0, 0))?;
        if first.bound != Some(Bound::States) || config.max_states <= config.unmerged_states {
            return Ok(first);
        }
        Some(first)
    };
    let mut earlier = first.as_ref().map_or((0, 0), |f| (f.states, f.transitions));
    let hunting = config.hunt_states > 0
        && config.stop_at_first_failure
        && config.find.contains(FailureKinds::BAD)
        && !config.deadlocks_after_failure;
    let hunted = if hunting { Some(hunt(c, config, start, earlier)?) } else { None };
    if let Some(h) = &hunted {
        earlier = (earlier.0 + h.states, earlier.1 + h.transitions);
        if let Some((label, cex)) = &h.found {
            let mut passed = first.as_ref().map(|f| f.passed_assertions.clone()).unwrap_or_default();
            passed.extend(passed_labels(c, &h.asserts));
            return Ok(CheckResult {
                verdict: Verdict::Bad(Box::new(cex.clone())),
                states: earlier.0,
                transitions: earlier.1,
                depth: first.as_ref().map_or(0, |f| f.depth),
                reduced_states: first.as_ref().map_or(0, |f| f.reduced_states),
                time: start.elapsed(),
                unwind: config.unwind,
                unwind_reached: h.unwound || first.as_ref().is_some_and(|f| f.unwind_reached),
                bound: None,
                deadlocks: BTreeMap::new(),
                livelocks: BTreeMap::new(),
                failures: BTreeMap::from([(label.clone(), cex.clone())]),
                deadlocks_after_failure: BTreeMap::new(),
                passed_assertions: passed,
            });
        }
    }
    let mut r = search(c, config, true, start, earlier)?;
    if let Some(h) = hunted {
        r.states += h.states;
        r.transitions += h.transitions;
        r.unwind_reached |= h.unwound;
        r.passed_assertions.extend(passed_labels(c, &h.asserts));
    }
    let Some(first) = first else { return Ok(r) };
    if first.verdict.counterexample().is_some() {
        r.verdict = first.verdict;
    }
    fn replace<K: Ord, V>(into: &mut BTreeMap<K, V>, from: BTreeMap<K, V>) {
        for (k, v) in from {
            if let Some(slot) = into.get_mut(&k) {
                *slot = v;
            }
        }
    }
    replace(&mut r.failures, first.failures);
    replace(&mut r.deadlocks, first.deadlocks);
    replace(&mut r.livelocks, first.livelocks);
    replace(&mut r.deadlocks_after_failure, first.deadlocks_after_failure);
    r.states += first.states;
    r.transitions += first.transitions;
    r.passed_assertions.extend(first.passed_assertions);
    Ok(r)
}

/// The labels of the `assert` steps `asserts` (thread, step).
fn passed_labels<'a>(c: &'a Compiled, asserts: &'a BTreeSet<(u16, u32)>) -> impl Iterator<Item = String> + 'a {
    asserts.iter().map(|&(t, step)| c.loc_names[c.threads[t as usize].steps[step as usize].loc.index()].clone())
}

/// One breadth-first search (see [`check`]); `merge_independent` as in [`Settings`];
/// `earlier`: the states and transitions of an earlier search of the same check, which its
/// progress reports add.
fn search(
    c: &Compiled,
    config: &Config,
    merge_independent: bool,
    start: Instant,
    earlier: (usize, u64),
) -> Result<CheckResult, Error> {
    let max_states = config.max_states.max(1);
    let mut search = Search::new(c, config, merge_independent, start);
    let pool = match (config.parallel, config.threads) {
        (true, Some(n)) => rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build().ok(),
        _ => None,
    };
    let mut transitions = 0u64;
    let mut reduced_states = 0usize;
    let mut depth = 0usize;
    let mut unwind_reached = false;
    let mut bound: Option<Bound> = None;
    let mut first_bad: Option<(u32, Tr)> = None;
    let mut deadlocks: BTreeMap<DeadlockId, (u32, Vec<Stand>)> = BTreeMap::new();
    let mut after_failure: BTreeMap<DeadlockId, (u32, Vec<Stand>)> = BTreeMap::new();
    let mut livelocks: BTreeMap<LivelockId, (u32, Tr, usize)> = BTreeMap::new();
    let mut failures: BTreeMap<String, (u32, Tr)> = BTreeMap::new();
    let mut asserts: BTreeSet<(u16, u32)> = BTreeSet::new();
    let mut first_kind: Option<u8> = None;
    let mut ticker = Ticker::new(config.on_progress.as_ref(), config.progress_every, start);
    let (mut lo, mut hi) = (0usize, 1usize);
    'levels: while lo < hi {
        if config.max_depth.is_some_and(|d| depth >= d) {
            bound = Some(Bound::Depth);
            break;
        }
        let mut a = lo;
        while a < hi {
            let b = (a + CHUNK).min(hi);
            let pieces: Vec<Piece> = {
                let s = &search;
                let hi32 = hi as u32;
                let is_old = move |st: &[i64]| s.store.find(st).is_some_and(|j| j < hi32);
                // Kept successors are encoded and hashed here, in parallel; the merge only
                // looks them up.
                let expand = |p: usize| {
                    let from = a + p * PIECE;
                    let mut piece = Piece::default();
                    let mut exp = Expansion::default();
                    let mut state = Vec::new();
                    for i in from..(from + PIECE).min(b) {
                        s.store.get_into(i as u32, &mut state);
                        s.e.expand(&state, config.por, &is_old, &mut exp);
                        piece.add(&mut exp);
                    }
                    piece
                };
                let starts = 0..(b - a).div_ceil(PIECE);
                if config.parallel && b - a >= config.min_parallel_batch {
                    match &pool {
                        Some(p) => p.install(|| starts.into_par_iter().map(expand).collect()),
                        None => starts.into_par_iter().map(expand).collect(),
                    }
                } else {
                    starts.map(expand).collect()
                }
            };
            for (p, piece) in pieces.into_iter().enumerate() {
                transitions += piece.transitions;
                reduced_states += piece.reduced;
                unwind_reached |= piece.unwound;
                asserts.extend(piece.asserts.iter().copied());
                if piece.bound && bound.is_none() {
                    bound = Some(Bound::AtomicStates);
                }
                let mut events = piece.events.into_iter().peekable();
                let (mut succ_from, mut byte_from) = (0usize, 0usize);
                for (k, &succ_end) in piece.ends.iter().enumerate() {
                    let i = (a + p * PIECE + k) as u32;
                    let (found, deadlock): (Vec<Found>, Option<Vec<Stand>>) = match events.next_if(|e| e.0 == k) {
                        Some((_, found, deadlock)) => (found, deadlock),
                        None => (Vec::new(), None),
                    };
                    for f in found {
                        match f {
                            Found::Fail { .. } if !config.find.contains(FailureKinds::BAD) => {}
                            Found::Livelock { .. } if !config.find.contains(FailureKinds::LIVELOCKS) => {}
                            Found::Fail { thread, opt, internal } => {
                                let last = (thread as usize, opt, internal);
                                let label = fail_label(&search.e, &search.store.get(i), &last);
                                if first_bad.is_none() {
                                    first_bad = Some((i, last.clone()));
                                    first_kind.get_or_insert(0);
                                }
                                failures.entry(label).or_insert((i, last));
                            }
                            Found::Livelock { thread, opt, path, cycle_start } => {
                                let t = thread as usize;
                                let code = &search.e.c.threads[t];
                                let o = &code.points[search.e.pc(&search.store.get(i), t)].options[opt as usize];
                                let reg = code.steps[o.step as usize].region.unwrap_or(0);
                                let id = LivelockId {
                                    thread: code.name.clone(),
                                    block: c.loc_names[code.regions[reg as usize].loc.index()].clone(),
                                };
                                first_kind.get_or_insert(2);
                                livelocks.entry(id).or_insert((i, (t, opt, path), cycle_start));
                            }
                        }
                    }
                    if let Some(stands) = deadlock.filter(|_| config.find.contains(FailureKinds::DEADLOCKS)) {
                        let state = search.store.get(i);
                        let id = deadlock_id(&search.e, &state, &stands);
                        first_kind.get_or_insert(1);
                        if search.e.failed_before(&state) {
                            after_failure.entry(id.clone()).or_insert((i, stands.clone()));
                        }
                        deadlocks.entry(id).or_insert((i, stands));
                    }
                    for tr in &piece.succs[succ_from..succ_end as usize] {
                        let (_, new) = search.store.insert_hashed(tr.hash, &piece.bytes[byte_from..tr.end as usize]);
                        if new {
                            search.parents.push(Parent { parent: i, thread: tr.thread, opt: tr.opt, exit: tr.exit });
                        }
                        byte_from = tr.end as usize;
                    }
                    succ_from = succ_end as usize;
                }
            }
            if config.stop_at_first_failure && first_kind.is_some() {
                break 'levels;
            }
            if bound.is_some() {
                break 'levels;
            }
            if search.store.len() > max_states {
                bound = Some(Bound::States);
                break 'levels;
            }
            if search.memory() > config.max_memory {
                bound = Some(Bound::Memory);
                break 'levels;
            }
            if config.max_time.is_some_and(|t| start.elapsed() > t) {
                bound = Some(Bound::Time);
                break 'levels;
            }
            ticker.tick(|| Progress {
                states: earlier.0 + search.store.len(),
                transitions: earlier.1 + transitions,
                depth,
                elapsed: start.elapsed(),
                memory: search.memory(),
            });
            a = b;
        }
        lo = hi;
        hi = search.store.len();
        depth += 1;
    }
    // Witnesses.
    let mut dl = BTreeMap::new();
    for (id, (i, stands)) in &deadlocks {
        dl.insert(id.clone(), search.witness(*i, None, Some(stands))?);
    }
    let mut dl_after = BTreeMap::new();
    for (id, (i, stands)) in &after_failure {
        dl_after.insert(id.clone(), search.witness(*i, None, Some(stands))?);
    }
    let mut ll = BTreeMap::new();
    for (id, (i, last, cycle_start)) in &livelocks {
        let mut w = search.witness(*i, Some(last.clone()), None)?;
        // The entering step comes before the internal path.
        w.cycle_start = Some(transitions_to_steps(&search.e, &search.path_to(*i)).len() + 1 + cycle_start);
        ll.insert(id.clone(), w);
    }
    let mut fl = BTreeMap::new();
    for (label, (i, last)) in &failures {
        fl.insert(label.clone(), search.witness(*i, Some(last.clone()), None)?);
    }
    let verdict = if let Some((i, last)) = &first_bad {
        Verdict::Bad(Box::new(search.witness(*i, Some(last.clone()), None)?))
    } else if let Some((id, w)) = dl.iter().next() {
        Verdict::Deadlock(id.clone(), Box::new(w.clone()))
    } else if let Some((id, w)) = ll.iter().next() {
        Verdict::Livelock(id.clone(), Box::new(w.clone()))
    } else if let Some(what) = bound {
        Verdict::BoundReached { what, states: search.store.len() }
    } else {
        Verdict::Correct
    };
    // With stop at first failure, prefer the kind found first for deadlock vs livelock.
    let verdict = match (first_kind, &verdict) {
        (Some(2), Verdict::Deadlock(..)) if first_bad.is_none() => match ll.iter().next() {
            Some((id, w)) => Verdict::Livelock(id.clone(), Box::new(w.clone())),
            None => verdict,
        },
        _ => verdict,
    };
    Ok(CheckResult {
        verdict,
        states: search.store.len(),
        transitions,
        depth,
        reduced_states,
        time: start.elapsed(),
        unwind: config.unwind,
        unwind_reached,
        bound,
        deadlocks: dl,
        livelocks: ll,
        failures: fl,
        deadlocks_after_failure: dl_after,
        passed_assertions: passed_labels(c, &asserts).collect(),
    })
}

pub(crate) fn fail_label(e: &Engine<'_>, s: &[i64], last: &(usize, u16, Vec<u16>)) -> String {
    let xs = {
        let (t, opt, internal) = last;
        let code = &e.c.threads[*t];
        let mut st = s.to_vec();
        let o = &code.points[e.pc(&st, *t)].options[*opt as usize];
        let mut step = o.step;
        e.apply(&mut st, *t, o);
        for &i in internal {
            if i == EXIT {
                e.leave_region(&mut st, *t);
                continue;
            }
            let o = &code.points[e.pc(&st, *t)].options[i as usize];
            step = o.step;
            e.apply(&mut st, *t, o);
        }
        code.steps[step as usize].loc
    };
    e.c.loc_names[xs.index()].clone()
}

fn deadlock_id(e: &Engine<'_>, s: &[i64], stands: &[Stand]) -> DeadlockId {
    let threads = stands
        .iter()
        .enumerate()
        .map(|(t, st)| {
            let code = &e.c.threads[t];
            let stand = match st {
                Stand::Blocked(opts) => {
                    let pc = e.pc(s, t);
                    let mut labels: Vec<String> = Vec::new();
                    for &i in opts {
                        let step = &code.steps[code.points[pc].options[i as usize].step as usize];
                        // A step that enters an atomic region waits for the whole region.
                        let loc = step.region.map_or(step.loc, |r| code.regions[r as usize].wait_loc);
                        let label = &e.c.loc_names[loc.index()];
                        if !labels.contains(label) {
                            labels.push(label.clone());
                        }
                    }
                    ThreadStand::Blocked(labels)
                }
                Stand::Done | Stand::Cut => ThreadStand::Done,
            };
            (code.name.clone(), stand)
        })
        .collect();
    DeadlockId { threads }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(src: &str) -> Compiled {
        compile(&paces_cwhile::parse(src).unwrap()).unwrap()
    }

    /// Every failing label, deadlock and livelock of an exhaustive search.
    fn findings(r: &CheckResult) -> Vec<String> {
        let mut out: Vec<String> = r.failures.keys().cloned().collect();
        out.extend(r.deadlocks.keys().map(|d| format!("deadlock {d}")));
        out.extend(r.livelocks.keys().map(|l| format!("livelock {l}")));
        out
    }

    fn exhaustive(c: &Compiled, merge: bool) -> CheckResult {
        let config = Config::new().stop_at_first_failure(false);
        search(c, &config, merge, Instant::now(), (0, 0)).unwrap()
    }

    /// Threads that work under one lock: the steps inside the lock are merged into the
    /// transition that takes it, so far fewer states are stored, with the same findings.
    #[test]
    fn steps_under_a_held_lock_are_merged() {
        let c = compiled(
            "var l = 0, x = 0, y = 0;
             thread a { while (*) { lock(l); x := 1; y := x; assert(y == 1); unlock(l); } }
             thread b { while (*) { lock(l); x := 2; y := x; assert(y == 2); x := 0; unlock(l); } }
             thread c { while (*) { lock(l); assert(x == 0); unlock(l); } }",
        );
        let (merged, unmerged) = (exhaustive(&c, true), exhaustive(&c, false));
        assert_eq!(findings(&merged), findings(&unmerged));
        assert_eq!(findings(&merged).len(), 1, "{:?}", findings(&merged));
        assert!(merged.states * 2 <= unmerged.states, "{} against {}", merged.states, unmerged.states);
    }

    /// A merged step can open another thread's gate (`x := y` lets `b` pass its `await`):
    /// the next step is judged again, so the state where `b` may pass is stored and the
    /// deadlock after it (a waits for `y == 0`, b and c done) is found.
    #[test]
    fn a_merged_step_that_opens_a_gate_ends_the_merge() {
        let c = compiled(
            "var x = 0, y = 0;
             thread a { atomic { await(y == 0); x := 0; } }
             thread b { y := 1; x := y; x := 2; }
             thread c { await(x != 0 && x != 2); x := 2; }",
        );
        let (merged, unmerged) = (exhaustive(&c, true), exhaustive(&c, false));
        assert!(
            findings(&unmerged).contains(&"deadlock a at a.0, b done, c done".to_string()),
            "{:?}",
            findings(&unmerged)
        );
        assert_eq!(findings(&merged), findings(&unmerged));
    }

    /// A check that stops at its first failure gives, when the failure lies within its first
    /// states, the counterexample of the search without merging.
    #[test]
    fn a_first_failure_within_the_bound_has_the_unmerged_counterexample() {
        // c never gets past its `await`, so `a`'s writes of z are merged after `x := 1`.
        let c = compiled(
            "var l = 1, x = 0, z = 0, w = 0;
             thread a { x := 1; z := 1; z := 2; }
             thread b { assert(x == 0); }
             thread c { await(l == 0); w := z; }",
        );
        let config = Config::new();
        let checked = check_compiled(&c, &config).unwrap();
        let unmerged = search(&c, &config, false, Instant::now(), (0, 0)).unwrap();
        let merged = search(&c, &config, true, Instant::now(), (0, 0)).unwrap();
        let steps = |r: &CheckResult| r.verdict.counterexample().unwrap().trace.events().len();
        assert_eq!(checked.verdict, unmerged.verdict);
        assert!(steps(&merged) > steps(&unmerged), "{} against {}", steps(&merged), steps(&unmerged));
    }
}
