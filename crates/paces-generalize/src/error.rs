//! The error type of `paces-generalize`.

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The trace is not bad: no event failed and no thread is blocked at its end.
    NotBad,
    /// A bad trace that stops while threads could still run on
    /// ([`Trace::stops_short`](paces_trace::Trace::stops_short)): its fixes that need the
    /// writes after the failure would be lost. Complete it first.
    StopsShort,
    /// The trace and the space disagree: two events of one thread lift to locations that are
    /// not items of one block of the space.
    SpaceMismatch,
    /// An event id that is neither an event nor a blocked step of the trace.
    UnknownEvent,
    /// The elimination graph's tables would exceed
    /// [`EliminateConfig::max_memory`](crate::EliminateConfig::max_memory).
    TooLarge,
}

paces_constraint::define_error!(
    /// The error of every fallible operation of this crate.
    Error,
    ErrorKind
);
