//! The error type of the `paces` crate.

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

paces_constraint::define_error!(
    /// The error of the repair loop and the learner.
    Error,
    ErrorKind
);

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
