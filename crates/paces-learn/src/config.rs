//! The learner's configuration: [`LearnerConfig`].

use paces_solver::BackendKind;
use paces_trace::{LearnConfig, Variant};

/// How a [`Learner`](crate::Learner) learns; consuming setters, each documenting its default.
#[derive(Clone, Debug)]
pub struct LearnerConfig {
    pub(crate) learn: LearnConfig,
    pub(crate) max_constraint_edges: usize,
    pub(crate) deepen_to: usize,
    pub(crate) backend: BackendKind,
    pub(crate) relax_on_conflict: bool,
    pub(crate) max_elimination_memory: u64,
}

impl Default for LearnerConfig {
    fn default() -> Self {
        LearnerConfig {
            learn: LearnConfig::new(),
            max_constraint_edges: Self::DEFAULT_MAX_CONSTRAINT_EDGES,
            deepen_to: Self::DEFAULT_DEEPEN_TO,
            backend: BackendKind::default(),
            relax_on_conflict: true,
            max_elimination_memory: Self::DEFAULT_MAX_ELIMINATION_MEMORY,
        }
    }
}

impl LearnerConfig {
    /// The default of [`LearnerConfig::max_constraint_edges`](crate::LearnerConfig::max_constraint_edges).
    pub const DEFAULT_MAX_CONSTRAINT_EDGES: usize = 3;

    /// The default of [`LearnerConfig::deepen_to`](crate::LearnerConfig::deepen_to).
    pub const DEFAULT_DEEPEN_TO: usize = 4;

    /// The default of [`LearnerConfig::max_elimination_memory`](crate::LearnerConfig::max_elimination_memory):
    /// 1 GiB.
    pub const DEFAULT_MAX_ELIMINATION_MEMORY: u64 = 1 << 30;

    /// The most bytes the tables of one bad trace's elimination graph may take
    /// ([`paces_generalize::EliminateConfig::max_memory`]); a bad trace past it ends learning
    /// with [`ErrorKind::Limit`](crate::ErrorKind::Limit). Default:
    /// [`LearnerConfig::DEFAULT_MAX_ELIMINATION_MEMORY`] (1 GiB).
    pub fn max_elimination_memory(mut self, bytes: u64) -> Self {
        self.max_elimination_memory = bytes;
        self
    }

    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether LearnGoodUnder falls back to freezing every intra-thread order when an edge has
    /// no cover (the paper's Algorithm 1, line 3). Default: true.
    pub fn fallback(mut self, on: bool) -> Self {
        self.learn = self.learn.fallback(on);
        self
    }

    /// Which LearnGoodUnder: the paper's full algorithm or the original tool's simplified one.
    /// Default: [`Variant::Full`].
    pub fn variant(mut self, variant: Variant) -> Self {
        self.learn = self.learn.variant(variant);
        self
    }

    /// The most constraint edges on one elimination cycle (the K of the fixes). Default:
    /// [`LearnerConfig::DEFAULT_MAX_CONSTRAINT_EDGES`] (3: one more than [`paces_generalize::EliminateConfig`]'s: a fix that moves a step behind
    /// a signal the failing thread sends after its failure also needs the orders on the way
    /// kept, as lc-rc's does).
    pub fn max_constraint_edges(mut self, k: usize) -> Self {
        self.max_constraint_edges = k;
        self
    }

    /// How far K grows for a bad trace whose fixes take part in a conflict (see
    /// [`LearnerConfig::relax_on_conflict`](crate::LearnerConfig::relax_on_conflict)); never below the starting K. Default:
    /// [`LearnerConfig::DEFAULT_DEEPEN_TO`] (4).
    pub fn deepen_to(mut self, k: usize) -> Self {
        self.deepen_to = k;
        self
    }

    /// The SAT backend. Default: the pure-Rust backend ([`BackendKind::default`]).
    pub fn backend(mut self, backend: BackendKind) -> Self {
        self.backend = backend;
        self
    }

    /// Whether a constraint that is stronger than what is known is relaxed when it takes part
    /// in a conflict, instead of ending the search with "unsatisfiable". A good trace's
    /// fallback (every order frozen) is the paper's guarantee that no fix regresses that trace,
    /// but it also rules out fixes that regress nothing (an edge without a cover need not be
    /// endangered by a move): it is relaxed to the trace's covered edges (what the original
    /// tool learned from every trace). A bad trace's fixes are the cycles with at most K
    /// constraint edges, and a longer cycle is a fix too: they are searched again with K + 1,
    /// up to [`LearnerConfig::deepen_to`](crate::LearnerConfig::deepen_to); past that, a bad trace learned with an alternative
    /// ([`Learner::learn_bad_or`](crate::Learner::learn_bad_or)) is dropped. A regression the stronger constraint would
    /// have prevented is left to the checker, which finds it as a bad trace of the candidate.
    /// Default: true.
    pub fn relax_on_conflict(mut self, on: bool) -> Self {
        self.relax_on_conflict = on;
        self
    }

    /// Whether constraints stronger than what is known are relaxed (see
    /// [`LearnerConfig::relax_on_conflict`](crate::LearnerConfig::relax_on_conflict)).
    pub fn relaxes_on_conflict(&self) -> bool {
        self.relax_on_conflict
    }
}
