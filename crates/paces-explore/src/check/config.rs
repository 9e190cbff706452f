//! The bounds and switches of a check: [`Config`] and [`FailureKinds`].

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use crate::progress::{Progress, ProgressCallback};
use crate::DeadlockId;

/// Bounds and switches of [`check`](crate::check()). Every setter consumes and returns the config.
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) max_states: usize,
    pub(crate) max_depth: Option<usize>,
    pub(crate) max_time: Option<Duration>,
    pub(crate) max_memory: usize,
    pub(crate) max_atomic_states: usize,
    pub(crate) por: bool,
    pub(crate) unmerged_states: usize,
    pub(crate) unreduced_states: usize,
    pub(crate) hunt_states: usize,
    pub(crate) parallel: bool,
    pub(crate) threads: Option<usize>,
    pub(crate) min_parallel_batch: usize,
    pub(crate) stop_at_first_failure: bool,
    pub(crate) failures_per_assertion: usize,
    pub(crate) unwind: Option<u32>,
    pub(crate) find: FailureKinds,
    pub(crate) deadlocks_after_failure: bool,
    pub(crate) stop_at_deadlocks: bool,
    pub(crate) wanted_deadlocks: Option<Arc<BTreeSet<DeadlockId>>>,
    pub(crate) outcomes: bool,
    pub(crate) outcome_runs: bool,
    pub(crate) wanted_outcomes: Option<Arc<BTreeSet<Vec<i64>>>>,
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
            unreduced_states: Self::DEFAULT_UNREDUCED_STATES,
            hunt_states: 0,
            parallel: true,
            threads: None,
            min_parallel_batch: 64,
            stop_at_first_failure: true,
            failures_per_assertion: 1,
            unwind: None,
            find: FailureKinds::ALL,
            deadlocks_after_failure: false,
            stop_at_deadlocks: true,
            wanted_deadlocks: None,
            outcomes: false,
            outcome_runs: false,
            wanted_outcomes: None,
            on_progress: None,
            progress_every: Self::DEFAULT_PROGRESS_EVERY,
        }
    }
}

impl Config {
    /// The most outcomes [`Config::outcome_runs`] gives a run to: each run is kept until the
    /// search ends.
    pub const MAX_OUTCOME_RUNS: usize = 10_000;

    /// The default of [`Config::max_states`].
    pub const DEFAULT_MAX_STATES: usize = 100_000_000;

    /// The default of [`Config::max_memory`]: 8 GiB.
    pub const DEFAULT_MAX_MEMORY: usize = 8 << 30;

    /// The default of [`Config::unmerged_states`].
    pub const DEFAULT_UNMERGED_STATES: usize = 10_000;

    /// The default of [`Config::unreduced_states`].
    pub const DEFAULT_UNREDUCED_STATES: usize = 4_000;

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

    /// With the search going on past its first failure
    /// ([`Config::stop_at_first_failure`] off): up to `n` counterexamples per failing
    /// assertion, the first in [`CheckResult::failures`](crate::CheckResult::failures), the
    /// others in [`CheckResult::more_failures`](crate::CheckResult::more_failures). They are
    /// distinct in the threads of their failure's data flow (the threads of the writes the
    /// failing step reads from, and of those they read from, and so on): the same race between
    /// other threads. Among the first failing states the search meets (shortest first), at most
    /// 16 per counterexample asked for are looked at. With [`Config::hunt_states`] the bug
    /// hunt collects them first, and when it finds a failure the check ends there: its lists
    /// then hold what the hunt found (no deadlock, no livelock), counterexamples to learn
    /// from rather than every one the program has. Default: 1.
    pub fn failures_per_assertion(mut self, n: usize) -> Self {
        self.failures_per_assertion = n.max(1);
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
    /// Failures of a kind not in the set are neither reported nor stop the search. Without
    /// [`FailureKinds::BAD`] (and without [`Config::deadlocks_after_failure`]) every `assert`
    /// runs as a `skip`, which changes no deadlock, livelock or outcome and lets the reduction
    /// keep fewer states; [`CheckResult::passed_assertions`](crate::CheckResult::passed_assertions)
    /// is then empty. Default: [`FailureKinds::ALL`].
    pub fn find(mut self, kinds: FailureKinds) -> Self {
        self.find = kinds;
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

    /// With partial-order reduction, when the search without merging
    /// ([`Config::unmerged_states`]) ends at its bound having met nothing that ends the check,
    /// search at most `n` states without the reduction before going on (docs/explore.md,
    /// "Fairness in depth"): the reduction may keep a thread waiting while others run on
    /// without repeating a state, and a failure within these states is found all the same,
    /// with a witness among the shortest. `0` skips it. Default:
    /// [`Config::DEFAULT_UNREDUCED_STATES`].
    pub fn unreduced_states(mut self, n: usize) -> Self {
        self.unreduced_states = n;
        self
    }

    /// Before the search with merging, look for a failing assertion depth first, storing at
    /// most `n` states (docs/explore.md, "The bug hunt"): a failure found ends a check that
    /// stops at the first failure with a counterexample cut down to the steps the failure
    /// depends on, which is not among the shortest. Only with the reduction on, and with
    /// [`Config::stop_at_first_failure`] or [`Config::failures_per_assertion`] above 1 (then
    /// the hunt's failures end the check, see there); the hunt's states count in the
    /// result's. With [`Config::wanted_outcomes`], or [`Config::wanted_deadlocks`] with
    /// deadlocks alone looked for, the hunt looks for those outcomes or deadlocks depth first
    /// instead, and when it meets them all the check ends there (no run to an outcome is
    /// kept).
    /// `0` (the default) hunts never; the repair loop hunts in the original and its
    /// candidates, and for the outcomes it asks of the original.
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
    /// assertion or a division by zero), in [`CheckResult::deadlocks_after_failure`](crate::CheckResult::deadlocks_after_failure). The
    /// state then carries one more slot, a flag that every failing step sets, so up to twice
    /// as many states are stored. Only complete with [`Config::stop_at_first_failure`] off.
    /// Default: `false`.
    pub fn deadlocks_after_failure(mut self, on: bool) -> Self {
        self.deadlocks_after_failure = on;
        self
    }

    /// The bound [`Config::max_states`] set.
    pub fn max_states_bound(&self) -> usize {
        self.max_states
    }

    /// Also collect the program's *outcomes*: the values of the globals (in declaration
    /// order) in every state where each thread is at its end or may stop where it stands
    /// (idle at a loop it may leave), in [`CheckResult::outcomes`](crate::CheckResult::outcomes).
    /// States between steps are never inside an atomic block, so no outcome is. The search
    /// then keeps every global's value (it resets no global that no thread reads again, see
    /// docs/explore.md), so it may store more states. Complete when the search went through
    /// the whole space. Default: `false`.
    pub fn outcomes(mut self, on: bool) -> Self {
        self.outcomes = on;
        self
    }

    /// With [`Config::outcomes`]: also a shortest run to each outcome (to the first
    /// [`Config::MAX_OUTCOME_RUNS`] outcomes found), in
    /// [`CheckResult::outcome_runs`](crate::CheckResult::outcome_runs). Default: `false`.
    pub fn outcome_runs(mut self, on: bool) -> Self {
        self.outcome_runs = on;
        self
    }

    /// With [`Config::outcomes`]: the outcomes the check looks for. It stops once it has
    /// found every one of them (no bound is then reported, and
    /// [`CheckResult::outcomes`](crate::CheckResult::outcomes) holds those found so far); when
    /// it ends without finding them all and with no bound, it went through the whole space.
    /// With [`Config::hunt_states`], a depth-first search for them comes first.
    /// Default: none (the search goes on to its end).
    pub fn wanted_outcomes(mut self, wanted: Option<Arc<BTreeSet<Vec<i64>>>>) -> Self {
        self.wanted_outcomes = wanted;
        self
    }

    /// Whether a deadlock ends a check that stops at its first failure and is its verdict.
    /// With `false` every deadlock found is collected (in
    /// [`CheckResult::deadlocks`](crate::CheckResult::deadlocks)) and the search goes on: a
    /// check that ends without a failure or a livelock has then gone through the whole space
    /// and found every deadlock (the repair loop checks a candidate so when it keeps the
    /// original's deadlocks, and asks the original about the candidate's afterwards). Default:
    /// `true`.
    pub fn stop_at_deadlocks(mut self, on: bool) -> Self {
        self.stop_at_deadlocks = on;
        self
    }

    /// The deadlocks a check that stops at its first failure looks for: it stops once it has
    /// found every one of them, and only then is one of them its verdict; every deadlock found
    /// is collected. With [`Config::find`] set to deadlocks alone, such a check asks whether
    /// the program reaches all of `wanted`: when it does not, it went through the whole space
    /// and its verdict is correct (or a bound's), with every deadlock of the program collected
    /// (the repair loop asks the original so about a candidate's deadlocks). With
    /// [`Config::hunt_states`] and deadlocks alone looked for, a depth-first search for them
    /// comes first. Default: none (every deadlock is looked for, as
    /// [`Config::stop_at_deadlocks`] says).
    pub fn wanted_deadlocks(mut self, wanted: Option<Arc<BTreeSet<DeadlockId>>>) -> Self {
        self.wanted_deadlocks = wanted;
        self
    }

    /// The deadlocks the check wants when it looks for deadlocks alone: what a hunt looks for
    /// in place of failing assertions ([`Config::hunt_states`]).
    pub(crate) fn wanted_deadlocks_alone(&self) -> Option<&BTreeSet<DeadlockId>> {
        self.wanted_deadlocks.as_deref().filter(|_| self.find == FailureKinds::DEADLOCKS)
    }

    /// Whether the deadlock `id`, just found when those `found` before it were, ends a check
    /// that stops at its first failure.
    pub(crate) fn deadlock_ends(&self, id: &DeadlockId, found: impl Fn(&DeadlockId) -> bool) -> bool {
        match &self.wanted_deadlocks {
            Some(w) => w.contains(id) && w.iter().all(|x| x == id || found(x)),
            None => self.stop_at_deadlocks,
        }
    }

    /// Calls `callback` with the [`Progress`] of [`check`](crate::check()) while it explores: on the calling
    /// thread, between batches of states, at most once per [`Config::progress_every`] (the
    /// first time one interval after the start), so a check shorter than the interval never
    /// calls it. Clones of the configuration share the callback; [`Debug`](std::fmt::Debug) shows
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
