//! The error type of the operations on a checked program.

use std::fmt;

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The candidate does not belong to this program's space (wrong blocks or items, a fixed
    /// pair out of order, an illegal atomic section).
    InvalidCandidate,
    /// The transformed program fails a static check (this points at a bug: the space only
    /// allows transformations that keep a program valid).
    Rejected,
}

/// The error of [`Program::apply`](crate::Program::apply).
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
