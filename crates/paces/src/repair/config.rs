//! The configuration of the repair loop and the exhaustive search: [`Repair`] and its
//! [`Mode`] (its own file).

use std::time::Duration;

use paces_explore::GoodConfig;
use paces_learn::LearnerConfig;
use paces_solver::BackendKind;
use paces_trace::Variant;

use super::event::{Observer, RepairEvent};
use super::mode::Mode;

/// A frontend's own reasons to refuse a candidate that the checker accepts: given the
/// original program and the candidate program, one sentence per reason (none: no objection).
/// See [`Repair::refuse_when`].
pub type Refusal = fn(original: &paces_cwhile::Program, candidate: &paces_cwhile::Program) -> Vec<String>;

/// The repair loop, configured with consuming setters (each documents its default).
///
/// # Example
/// ```
/// let program = paces_cwhile::parse(
///     "var x = 0, y = 0;\n thread t1 { A: x := 1; B: y := 1; }\n thread t2 { 1: await(y == 1); 2: assert(x == 1); }",
/// )?;
/// let report = paces::Repair::new().run(&program)?;
/// assert_eq!(report.stop, paces::StopReason::AlreadyCorrect);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Repair {
    pub(super) mode: Mode,
    pub(super) good: GoodConfig,
    pub(super) learner: LearnerConfig,
    pub(super) check: paces_explore::Config,
    pub(super) max_iterations: usize,
    pub(super) time_limit: Option<Duration>,
    pub(super) record_traces: bool,
    pub(super) exhaustive_limit: usize,
    pub(super) hunt_states: usize,
    pub(super) counterexamples: usize,
    pub(super) counterexample_states: usize,
    pub(super) other_threads: bool,
    pub(super) optimise: bool,
    pub(super) keep_deadlocks: bool,
    pub(super) twins: bool,
    pub(super) races: bool,
    pub(super) refuse: Option<Refusal>,
    pub(super) observer: Option<Observer>,
}

impl Default for Repair {
    fn default() -> Self {
        Repair {
            mode: Mode::Mixed,
            good: GoodConfig::new(),
            learner: LearnerConfig::new(),
            check: paces_explore::Config::new(),
            max_iterations: Self::DEFAULT_MAX_ITERATIONS,
            time_limit: None,
            record_traces: false,
            exhaustive_limit: Self::DEFAULT_EXHAUSTIVE_LIMIT,
            hunt_states: Self::DEFAULT_HUNT_STATES,
            counterexamples: Self::DEFAULT_COUNTEREXAMPLES,
            counterexample_states: Self::DEFAULT_COUNTEREXAMPLE_STATES,
            other_threads: true,
            optimise: true,
            keep_deadlocks: false,
            twins: true,
            races: true,
            refuse: None,
            observer: None,
        }
    }
}

impl Repair {
    /// The default of [`Repair::max_iterations`].
    pub const DEFAULT_MAX_ITERATIONS: usize = 100;

    /// The default of [`Repair::exhaustive_limit`].
    pub const DEFAULT_EXHAUSTIVE_LIMIT: usize = 10_000;

    /// The default of [`Repair::hunt_states`].
    pub const DEFAULT_HUNT_STATES: usize = 50_000;

    /// The default of [`Repair::counterexamples`].
    pub const DEFAULT_COUNTEREXAMPLES: usize = 4;

    /// The default of [`Repair::counterexample_states`].
    pub const DEFAULT_COUNTEREXAMPLE_STATES: usize = 50_000;

    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// Mixed (PACES) or bad-only (CEGIS). Default: [`Mode::Mixed`].
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Which good traces to learn from and their limits. Default: [`GoodConfig::new`]
    /// (preemption-free, per-assertion up to 10, sequential).
    pub fn good_traces(mut self, config: GoodConfig) -> Self {
        self.good = config;
        self
    }

    /// LearnGoodUnder's fallback on or off. Default: on.
    pub fn fallback(mut self, on: bool) -> Self {
        self.learner = self.learner.fallback(on);
        self
    }

    /// Whether a constraint stronger than what is known (a good trace's fallback, a bad
    /// trace's fixes found with K constraint edges, a new deadlock's guess) that conflicts
    /// with the other constraints is relaxed rather than ending the run with "no repair"
    /// ([`LearnerConfig::relax_on_conflict`](crate::LearnerConfig::relax_on_conflict)). Default: on.
    pub fn relax_on_conflict(mut self, on: bool) -> Self {
        self.learner = self.learner.relax_on_conflict(on);
        self
    }

    /// The most bytes the tables of one bad trace's elimination graph may take
    /// ([`LearnerConfig::max_elimination_memory`](crate::LearnerConfig::max_elimination_memory));
    /// past it the loop stops with "bound reached". Default: 1 GiB.
    pub fn max_elimination_memory(mut self, bytes: u64) -> Self {
        self.learner = self.learner.max_elimination_memory(bytes);
        self
    }

    /// LearnGoodUnder variant. Default: [`Variant::Full`].
    pub fn variant(mut self, variant: Variant) -> Self {
        self.learner = self.learner.variant(variant);
        self
    }

    /// The most constraint edges on one elimination cycle (K). Default:
    /// [`LearnerConfig::DEFAULT_MAX_CONSTRAINT_EDGES`] (3; see
    /// [`LearnerConfig::max_constraint_edges`]).
    pub fn max_constraint_edges(mut self, k: usize) -> Self {
        self.learner = self.learner.max_constraint_edges(k);
        self
    }

    /// How far K grows for a bad trace whose fixes conflict with the other constraints
    /// ([`LearnerConfig::deepen_to`](crate::LearnerConfig::deepen_to)). Default:
    /// [`LearnerConfig::DEFAULT_DEEPEN_TO`] (4).
    pub fn deepen_to(mut self, k: usize) -> Self {
        self.learner = self.learner.deepen_to(k);
        self
    }

    /// The SAT backend. Default: the pure-Rust one.
    pub fn backend(mut self, backend: BackendKind) -> Self {
        self.learner = self.learner.backend(backend);
        self
    }

    /// The checker's bounds and switches. Default: [`paces_explore::Config::new`] (exact,
    /// partial-order reduction on, parallel). The loop decides itself how far each check
    /// goes, whatever `stop_at_first_failure` says: a candidate is checked up to its first
    /// problem, and fully when that problem is a deadlock or an atomic livelock (then every
    /// deadlock and livelock is compared with the original's); the original is explored
    /// fully when a candidate first needs its deadlocks. The loop also sets the bug hunt
    /// ([`Repair::hunt_states`]).
    pub fn checker(mut self, config: paces_explore::Config) -> Self {
        self.check = config;
        self
    }

    /// The bug hunt of each check that stops at its first failure (the original's first check
    /// and each candidate's): when the breadth-first search without merging
    /// ([`paces_explore::Config::unmerged_states`]) finds no failure, a depth-first search
    /// storing at most `n` states looks for a failing assertion before the merged search
    /// ([`paces_explore::Config::hunt_states`]; docs/explore.md, "The bug hunt"). A failure it
    /// finds rejects the program with a bad trace cut down to the steps the failure depends
    /// on (not a shortest one: the learner generalises any bad trace); `0` turns the hunt off,
    /// so every bad trace is a shortest one. The optimisation phase's checks hunt for at
    /// least as many states as the repair's own checks stored (docs/loop.md, step 5).
    /// Default: [`Repair::DEFAULT_HUNT_STATES`] (50,000).
    pub fn hunt_states(mut self, n: usize) -> Self {
        self.hunt_states = n;
        self
    }

    /// The most counterexamples one check gives the loop to learn from: when a check of the
    /// original or of a candidate finds a failing assertion and the program has other
    /// assertions, a second search ([`Repair::counterexample_states`]) looks for other
    /// failing assertions, and the loop learns from a shortest bad trace of each (in label
    /// order, up to `n` in all) before it proposes again (docs/loop.md, "Several
    /// counterexamples"). `1` learns from the first failure alone. Default:
    /// [`Repair::DEFAULT_COUNTEREXAMPLES`] (4).
    pub fn counterexamples(mut self, n: usize) -> Self {
        self.counterexamples = n.max(1);
        self
    }

    /// Whether the search for further counterexamples ([`Repair::counterexamples`]) also
    /// looks for the first failing assertion failing through other threads (the same race
    /// between other workers: `paces_explore::Counterexample::flow_threads` differ), with the
    /// bug hunt first, in programs with one assertion too (docs/loop.md, "Several
    /// counterexamples"). It teaches a race between workers that differ in a few iterations
    /// rather than one pair of workers per iteration. Default: `true`.
    pub fn other_threads(mut self, on: bool) -> Self {
        self.other_threads = on;
        self
    }

    /// The most states the search for further counterexamples ([`Repair::counterexamples`])
    /// stores (and never more than the check that found the first failure stored); what it
    /// found when a bound cuts it short is learned from. Default:
    /// [`Repair::DEFAULT_COUNTEREXAMPLE_STATES`] (50,000).
    pub fn counterexample_states(mut self, n: usize) -> Self {
        self.counterexample_states = n;
        self
    }

    /// Worker threads of the checker (`None`: all cores). Default: `None`.
    pub fn threads(mut self, n: Option<usize>) -> Self {
        self.check = self.check.threads(n);
        self
    }

    /// The most bad-trace rounds. Default: [`Repair::DEFAULT_MAX_ITERATIONS`] (100).
    pub fn max_iterations(mut self, n: usize) -> Self {
        self.max_iterations = n;
        self
    }

    /// A wall-clock limit for the whole run. Default: none.
    pub fn time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
        self
    }

    /// Keep the traces the loop learns from in the report: the good ones
    /// ([`Report::learned_good`](super::Report::learned_good)) and each bad one with its
    /// partial order and fixes ([`Iteration::learned`](super::Iteration::learned)), what
    /// `paces-report` draws as charts and DOT graphs. Default: off.
    pub fn record_traces(mut self, on: bool) -> Self {
        self.record_traces = on;
        self
    }

    /// Whether the loop looks for a cheaper repair once it has one (the optimisation phase,
    /// see [`Report::optimality`](super::Report::optimality)): what it learned includes guesses that may have excluded a
    /// cheaper repair. In a space of at most 100,000 candidates (or
    /// [`Repair::exhaustive_limit`], when larger) every cheaper candidate is judged; in a
    /// larger one, the good traces' fallbacks are relaxed and up to 10 cheaper candidates the
    /// learner proposes are judged. Default: on.
    pub fn optimise(mut self, on: bool) -> Self {
        self.optimise = on;
        self
    }

    /// Whether the original program's deadlocks are kept (the paper's behaviour) rather than
    /// repaired. Off: a deadlock of the original is a bug like a failing assertion, its trace
    /// is learned from, and a program is accepted (or called already correct) only when it
    /// has no reachable deadlock at all. On: a deadlock of the original is allowed to remain,
    /// and a candidate is refused only for a deadlock the original does not reach (at the same
    /// place, or with the same threads blocked after an assertion failed; see
    /// [`DeadlockRule`](super::DeadlockRule)). Default: off.
    pub fn keep_deadlocks(mut self, on: bool) -> Self {
        self.keep_deadlocks = on;
        self
    }

    /// Whether a proposed candidate's changes in one thread are offered to the threads that
    /// run the same code too (its *twins*: statement for statement the same body, labels,
    /// literals and locals aside): the candidate with the mapped changes, when it satisfies
    /// everything learned, is judged in place of the proposed one. A guess, checked like any
    /// candidate; when it is rejected, only what its rejection teaches is learned (docs/loop.md,
    /// "Twins"). Default: on.
    pub fn twins(mut self, on: bool) -> Self {
        self.twins = on;
        self
    }

    /// Whether a proposed candidate's atomic sections are offered to every other place of the
    /// program that makes the same accesses to shared variables in the same order (the same
    /// race through other threads, whatever their private work: docs/loop.md, "Races
    /// spread"): the candidate with those sections, when it satisfies everything learned, is
    /// judged in place of the proposed one. A guess, checked like any candidate; sections no
    /// run needs are taken out again by the optimisation phase. Default: on.
    pub fn races(mut self, on: bool) -> Self {
        self.races = on;
        self
    }

    /// A rule of the input's language that a repair must keep beside what the checker
    /// verifies: a candidate for which `rule` gives a reason is rejected before it is checked
    /// (the iteration's kind is `refused`, its problem the reasons), never proposed again, and
    /// the changes that refused candidates share are learned as a guess (as for an assertion
    /// no longer reached). The pthread C frontend refuses a repair that makes a check
    /// meaningless (`paces_c::pthread::stale_checks`). Default: none.
    pub fn refuse_when(mut self, rule: Refusal) -> Self {
        self.refuse = Some(rule);
        self
    }

    /// Calls `observer` with each [`RepairEvent`] of a run as it happens: the progress of its
    /// checks (with the iteration; it replaces the checker's own
    /// [`on_progress`](paces_explore::Config::on_progress) callback, and the checker's
    /// [`progress_every`](paces_explore::Config::progress_every) sets how often) and the end
    /// of each iteration with its record. Called on the thread that runs the repair. Clones
    /// of the configuration share the observer. Default: none.
    ///
    /// # Example
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// let program = paces::cwhile::parse(
    ///     "var x = 0, y = 0;\n thread t1 { A: y := 1; B: x := 1; }\n thread t2 { 1: await(y == 1); 2: assert(x == 1); }",
    /// )?;
    /// let ended = Arc::new(Mutex::new(Vec::new()));
    /// let sink = ended.clone();
    /// let repair = paces::Repair::new().on_event(move |event| {
    ///     if let paces::RepairEvent::IterationEnded { iteration, .. } = event {
    ///         sink.lock().unwrap().push(*iteration);
    ///     }
    /// });
    /// let report = repair.run(&program)?;
    /// assert_eq!(*ended.lock().unwrap(), (1..=report.iterations).collect::<Vec<_>>());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn on_event(mut self, observer: impl Fn(&RepairEvent) + Send + Sync + 'static) -> Self {
        self.observer = Some(Observer::new(observer));
        self
    }

    /// The most candidates a space may have for [`Repair::optimum`] to search it. Default:
    /// [`Repair::DEFAULT_EXHAUSTIVE_LIMIT`] (10,000).
    pub fn exhaustive_limit(mut self, n: usize) -> Self {
        self.exhaustive_limit = n;
        self
    }
}
