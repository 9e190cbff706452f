//! The error type of the operations on a checked program.

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
    /// [`to_promela`](crate::to_promela): an atomic block waits (or holds an `assume`) after
    /// its first step, which Promela's `atomic` cannot express.
    WaitInAtomic,
}

paces_constraint::define_error!(
    /// The error of [`Program::apply`](crate::Program::apply) and
    /// [`to_promela`](crate::to_promela).
    Error,
    ErrorKind
);
