//! The error type of `paces-solver`.

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The requested backend was not compiled in (enable its cargo feature).
    BackendUnavailable,
    /// The SAT backend reported a failure (it ran out of memory).
    Backend,
    /// A constraint names a node that its arena does not hold, or the arena passed to
    /// [`Solver::add`](crate::Solver::add) is smaller than one passed before (all constraints
    /// of one solver must come from one growing arena).
    UnknownNode,
    /// The space is too large to encode within [`SolverConfig::max_clauses`](crate::SolverConfig::max_clauses).
    SpaceTooLarge,
    /// The deadline given with [`Solver::set_deadline`](crate::Solver::set_deadline) passed
    /// before the search ended.
    Deadline,
    /// A model of the backend did not decode into a candidate of the space. This is a bug in
    /// the encoding, never the caller's fault; the message says what did not fit.
    Internal,
}

paces_constraint::define_error!(
    /// The error of every fallible operation of this crate.
    Error,
    ErrorKind
);
