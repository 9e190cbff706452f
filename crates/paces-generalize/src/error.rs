//! The error type of `paces-generalize`.

use std::fmt;

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The trace is not bad: no event failed and no thread is blocked at its end.
    NotBad,
    /// The trace and the space disagree: two events of one thread lift to locations that are
    /// not items of one block of the space.
    SpaceMismatch,
    /// An event id that is neither an event nor a blocked step of the trace.
    UnknownEvent,
    /// The elimination graph's tables would exceed
    /// [`EliminateConfig::max_memory`](crate::EliminateConfig::max_memory).
    TooLarge,
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
