//! The error type of `paces-solver`.

use std::fmt;

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The requested backend was not compiled in (enable its cargo feature).
    BackendUnavailable,
    /// The SAT backend reported a failure (it ran out of memory, or was interrupted).
    Backend,
    /// A constraint names a node that its arena does not hold, or the arena passed to
    /// [`Solver::add`](crate::Solver::add) is smaller than one passed before (all constraints
    /// of one solver must come from one growing arena).
    UnknownNode,
    /// The space is too large to encode within [`SolverConfig::max_clauses`](crate::SolverConfig::max_clauses).
    SpaceTooLarge,
    /// A model of the backend did not decode into a candidate of the space. This is a bug in
    /// the encoding, never the caller's fault; the message says what did not fit.
    Internal,
}

/// The error of every fallible operation of this crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into() }
    }

    /// The kind of error.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
