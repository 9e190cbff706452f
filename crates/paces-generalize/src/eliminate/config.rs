//! The settings of [`eliminate`](super::eliminate): the paper's K and the bounds on the work
//! and memory of the search.

#[cfg(doc)]
use crate::{Elimination, ErrorKind, PartialOrder};

/// Settings of [`eliminate`](super::eliminate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EliminateConfig {
    pub(super) max_constraint_edges: usize,
    pub(super) max_fixes: usize,
    pub(super) max_work: u64,
    pub(super) preemption_search_budget: u64,
    pub(super) max_memory: u64,
    pub(super) data_flow: bool,
}

impl Default for EliminateConfig {
    fn default() -> Self {
        EliminateConfig {
            max_constraint_edges: 2,
            max_fixes: 1000,
            max_work: 20_000_000,
            preemption_search_budget: 1_000_000,
            max_memory: 1 << 30,
            data_flow: true,
        }
    }
}

impl EliminateConfig {
    /// The default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// The most constraint edges (reorders, kept orders, atomic sections) an elimination cycle
    /// may use: the paper's K. `0` finds no fix. Default: 2.
    pub fn max_constraint_edges(mut self, k: usize) -> Self {
        self.max_constraint_edges = k;
        self
    }

    /// The most fixes returned; the cheapest (by the weights of their constraint edges) are
    /// kept and [`Elimination::complete`] turns false when more may exist. Default: 1000.
    pub fn max_fixes(mut self, n: usize) -> Self {
        self.max_fixes = n;
        self
    }

    /// A bound on the steps of the cycle search (candidate constraint edges tried); when it is
    /// reached the fixes found so far are returned and [`Elimination::complete`] is false.
    /// Default: 20 000 000.
    pub fn max_work(mut self, steps: u64) -> Self {
        self.max_work = steps;
        self
    }

    /// A bound on the events executed while searching for a preemption-free linearisation of
    /// the partial order; when it is reached the trace is treated as not preemption-free
    /// (the cautious answer: fixes that act across preemption points are left out).
    /// Default: 1 000 000.
    pub fn preemption_search_budget(mut self, steps: u64) -> Self {
        self.preemption_search_budget = steps;
        self
    }

    /// The most bytes the reachability tables may take (they grow with the square of the
    /// number of events at the ends of cross-thread orderings, with the events where paths
    /// branch, and with each thread's length times the chains of its forced order); a larger
    /// trace is refused with
    /// [`ErrorKind::TooLarge`] instead of exhausting memory. Default: 1 GiB.
    pub fn max_memory(mut self, bytes: u64) -> Self {
        self.max_memory = bytes;
        self
    }

    /// Whether elimination cycles keep to the failure's data flow: an ordering off it
    /// ([`PartialOrder::is_off_flow`], rule 6 of [`PartialOrder`]) is not used. Off, every
    /// conflict ordering of the partial order may be (a stronger error-eliminating constraint,
    /// for comparison). Default: on.
    pub fn data_flow(mut self, on: bool) -> Self {
        self.data_flow = on;
        self
    }
}
