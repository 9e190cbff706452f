//! The error type of the `paces` crate.

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input program does not parse or check (the source holds the diagnostics).
    Input,
    /// The model checker failed (not a verdict: an error such as a malformed program).
    Check,
    /// Learning from a trace failed for a reason other than those below.
    Learn,
    /// A trace given as bad has no failing event and no blocked thread.
    NotBad,
    /// A trace does not fit the space: its events lift to locations that are not items of one
    /// block, or it names events it does not hold.
    SpaceMismatch,
    /// The solver failed.
    Solve,
    /// A candidate could not be applied to the program.
    Apply,
    /// An inconsistency between the crates (a bug: please report it).
    Internal,
    /// A resource limit of a component (an elimination graph whose tables would pass their
    /// memory bound); the repair loop reports it as a stop, "bound reached".
    Limit,
    /// The space has more candidates than the exhaustive search takes (the message names how
    /// many).
    SpaceTooLarge,
    /// The repair's time limit passed during a SAT search (the loop reports it as its time
    /// limit; only a caller driving the learner itself sees this kind).
    Deadline,
}

impl ErrorKind {
    /// What failed, in words: the first part of an error's message.
    fn context(&self) -> &'static str {
        match self {
            ErrorKind::Input => "the program is not valid",
            ErrorKind::Check => "the model checker failed",
            ErrorKind::Learn => "learning from a trace failed",
            ErrorKind::NotBad => "the trace is not bad",
            ErrorKind::SpaceMismatch => "the trace does not fit the space",
            ErrorKind::Solve => "the solver failed",
            ErrorKind::Apply => "the candidate does not apply to the program",
            ErrorKind::Internal => "internal inconsistency",
            ErrorKind::Limit => "a resource bound was reached",
            ErrorKind::SpaceTooLarge => "the space is too large for an exhaustive search",
            ErrorKind::Deadline => "the time limit passed",
        }
    }
}

paces_constraint::define_sourced_error!(
    /// The error of the repair loop and the learner: a [kind](Error::kind), a message, and the component's own error
    /// as its [source](std::error::Error::source) when a component failed.
    ///
    /// `Display` prints the message followed by the source's (so `{e}` says everything); walk
    /// `source()` to get the component's error itself, e.g. to downcast it.
    Error,
    ErrorKind
);

macro_rules! from_error {
    ($t:ty, $kind:ident) => {
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::from_source(ErrorKind::$kind, ErrorKind::$kind.context(), e)
            }
        }
    };
}

from_error!(paces_cwhile::Diagnostics, Input);
from_error!(paces_cwhile::Error, Apply);
from_error!(paces_explore::Error, Check);
from_error!(paces_trace::Error, Internal);

impl From<paces_learn::Error> for Error {
    fn from(e: paces_learn::Error) -> Self {
        let kind = match e.kind() {
            paces_learn::ErrorKind::Limit => ErrorKind::Limit,
            paces_learn::ErrorKind::NotBad => ErrorKind::NotBad,
            paces_learn::ErrorKind::SpaceMismatch
            | paces_learn::ErrorKind::UnknownThread
            | paces_learn::ErrorKind::UnknownLocation
            | paces_learn::ErrorKind::UnknownBlock
            | paces_learn::ErrorKind::ScopeMismatch
            | paces_learn::ErrorKind::ThreadBlock
            | paces_learn::ErrorKind::ProgramOrder
            | paces_learn::ErrorKind::SharedLocal => ErrorKind::SpaceMismatch,
            paces_learn::ErrorKind::Solve => ErrorKind::Solve,
            paces_learn::ErrorKind::Deadline => ErrorKind::Deadline,
            paces_learn::ErrorKind::Internal => ErrorKind::Internal,
            _ => ErrorKind::Learn,
        };
        Error::from_source(kind.clone(), kind.context(), e)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    /// The learner's error keeps its kind and stays reachable as the source.
    #[test]
    fn a_learner_error_keeps_its_kind_and_source() {
        let program = paces_cwhile::parse(
            "var x = 0, y = 0; thread a { A: x := 1; C: y := 1; } thread b { 1: await(x == 1); 2: assert(y == 1); }",
        )
        .unwrap();
        let traces = paces_explore::good_traces(&program, &paces_explore::GoodConfig::new()).unwrap();
        let good = traces.first().expect("a good trace");
        let mut learner = paces_learn::Learner::new(&program.space(), paces_learn::LearnerConfig::new()).unwrap();
        let inner = learner.learn_bad(good).unwrap_err();
        let text = inner.to_string();
        let error = Error::from(inner);
        assert_eq!(error.kind(), &ErrorKind::NotBad);
        let source = error.source().expect("the source is kept");
        assert!(source.downcast_ref::<paces_learn::Error>().is_some());
        // The learner's message already says what failed: it is not said twice.
        assert!(text.starts_with("the trace is not bad: "), "{text}");
        assert_eq!(error.to_string(), text);
    }
}
