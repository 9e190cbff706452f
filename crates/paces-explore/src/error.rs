//! The error type of `paces-explore`.

use std::fmt;

/// Where a schedule stops being a trace (see [`ErrorKind::NotATrace`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayStop {
    /// The index of the schedule step that cannot be taken.
    pub index: usize,
    /// The thread of that step (its name).
    pub thread: String,
    /// The label of that step.
    pub label: String,
    /// Why the step cannot be taken.
    pub reason: String,
}

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The program is not well formed for exploration (for instance a variable of another
    /// thread used in a thread, or globals not listed first).
    InvalidProgram,
    /// A procedure calls itself, directly or indirectly.
    Recursion,
    /// The program is too large to be explored (too many control points after inlining).
    TooLarge,
    /// A schedule is not a trace of the program; [`Error::replay_stop`] says where.
    NotATrace,
    /// A bound was reached and the answer would be incomplete.
    BoundReached,
    /// A trace could not be built (an internal inconsistency; please report it).
    Trace,
    /// A trace of one program was to be translated into another that is not its original
    /// ([`translate_trace`](crate::translate_trace)).
    Unrelated,
    /// The generalisation refused a counterexample
    /// ([`Counterexample::eliminate`](crate::Counterexample::eliminate)); the message is its.
    Generalize,
}

/// The error of every fallible operation of this crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    stop: Option<Box<ReplayStop>>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), stop: None }
    }

    pub(crate) fn not_a_trace(stop: ReplayStop) -> Self {
        let message =
            format!("step {} ({} at {}) is not possible: {}", stop.index, stop.thread, stop.label, stop.reason);
        Error { kind: ErrorKind::NotATrace, message, stop: Some(Box::new(stop)) }
    }

    /// The kind of error.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// For [`ErrorKind::NotATrace`]: the step where the schedule stops being a trace.
    pub fn replay_stop(&self) -> Option<&ReplayStop> {
        self.stop.as_deref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
