//! The error type of the `paces` crate.

use std::fmt;

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input program does not parse or check (the message holds the diagnostics).
    Input,
    /// The model checker failed (not a verdict: an error such as a malformed program).
    Check,
    /// Learning from a trace failed.
    Learn,
    /// The solver failed.
    Solve,
    /// A candidate could not be applied to the program.
    Apply,
    /// An inconsistency between the crates (a bug: please report it).
    Internal,
}

/// The error of the repair loop and the learner.
#[derive(Clone, Debug)]
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

macro_rules! from_error {
    ($t:ty, $kind:ident) => {
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::new(ErrorKind::$kind, e.to_string())
            }
        }
    };
}

from_error!(paces_cwhile::Diagnostics, Input);
from_error!(paces_explore::Error, Check);
from_error!(paces_generalize::Error, Learn);
from_error!(paces_solver::Error, Solve);
