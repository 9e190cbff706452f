//! Solver configuration.

use std::fmt;

/// The SAT solver behind a [`Solver`](crate::Solver).
///
/// The backends are interchangeable: every backend passes the same conformance suite, and
/// returns optima of the same cost (which optimum among ties may differ).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendKind {
    /// BatSat, a pure-Rust MiniSat descendant: always available.
    #[default]
    Batsat,
    /// CaDiCaL (C++): only with the cargo feature `cadical`.
    Cadical,
}

impl BackendKind {
    /// Every backend compiled into this build, default first.
    pub fn available() -> &'static [BackendKind] {
        #[cfg(feature = "cadical")]
        {
            &[BackendKind::Batsat, BackendKind::Cadical]
        }
        #[cfg(not(feature = "cadical"))]
        {
            &[BackendKind::Batsat]
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackendKind::Batsat => "batsat",
            BackendKind::Cadical => "cadical",
        })
    }
}

/// How a [`Solver`](crate::Solver) works; build it with the consuming setters.
///
/// # Example
/// ```
/// use paces_solver::{BackendKind, SolverConfig};
/// let config = SolverConfig::new().backend(BackendKind::Batsat).minimize_core(false);
/// assert_eq!(config.get_backend(), BackendKind::Batsat);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolverConfig {
    backend: BackendKind,
    minimize_core: bool,
    max_clauses: u64,
    lazy_above: usize,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig { backend: BackendKind::Batsat, minimize_core: true, max_clauses: 50_000_000, lazy_above: 12 }
    }
}

impl SolverConfig {
    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// The SAT backend. Default: [`BackendKind::Batsat`].
    pub fn backend(mut self, backend: BackendKind) -> Self {
        self.backend = backend;
        self
    }

    /// Whether an unsatisfiable answer shrinks the conflicting set of constraints until
    /// dropping any one of them makes the rest satisfiable (one extra solver call per
    /// constraint of the first conflict). Default: `true`.
    pub fn minimize_core(mut self, yes: bool) -> Self {
        self.minimize_core = yes;
        self
    }

    /// The most clauses the up-front encoding of the space may take (estimated before
    /// encoding: the order and section clauses grow with the cube of a block's size, for
    /// blocks up to [`SolverConfig::lazy_above`] items). Default: 50 000 000.
    pub fn max_clauses(mut self, limit: u64) -> Self {
        self.max_clauses = limit;
        self
    }

    /// Blocks with more items than this get their per-triple clauses (total order, section
    /// contiguity; about eleven per triple of items) on demand: each model is checked and the
    /// clauses it violates are added before solving again. Smaller blocks get all of them up
    /// front. The answers are the same; only the time and memory differ: the up-front clauses
    /// grow with the cube of a block's size, the on-demand ones with the triples the models
    /// actually violate, so large blocks gain from them. Default: 12.
    pub fn lazy_above(mut self, items: usize) -> Self {
        self.lazy_above = items;
        self
    }

    /// The block size above which per-triple clauses are added on demand.
    pub fn get_lazy_above(&self) -> usize {
        self.lazy_above
    }

    /// The configured backend.
    pub fn get_backend(&self) -> BackendKind {
        self.backend
    }

    /// Whether unsatisfiable cores are minimised.
    pub fn get_minimize_core(&self) -> bool {
        self.minimize_core
    }

    /// The clause limit of the space encoding.
    pub fn get_max_clauses(&self) -> u64 {
        self.max_clauses
    }
}
