//! The error type of the `paces` crate.

use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;

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
        }
    }
}

/// The error of the repair loop and the learner: a [kind](Error::kind), a message, and the
/// component's own error as its [source](std::error::Error::source) when a component failed.
///
/// `Display` prints the message followed by the source's (so `{e}` says everything); walk
/// `source()` to get the component's error itself, e.g. to downcast it.
#[derive(Clone, Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Arc<dyn StdError + Send + Sync + 'static>>,
}

impl Error {
    /// An error of the loop itself, with no source.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), source: None }
    }

    /// An error of a component, kept as the source.
    pub(crate) fn from_source(kind: ErrorKind, source: impl StdError + Send + Sync + 'static) -> Self {
        Error { message: kind.context().to_owned(), kind, source: Some(Arc::new(source)) }
    }

    /// The kind of error.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        self.kind == other.kind && self.to_string() == other.to_string()
    }
}

impl Eq for Error {}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(source) = &self.source {
            write!(f, ": {source}")?;
        }
        Ok(())
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source.as_deref().map(|s| s as &(dyn StdError + 'static))
    }
}

macro_rules! from_error {
    ($t:ty, $kind:ident) => {
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::from_source(ErrorKind::$kind, e)
            }
        }
    };
}

from_error!(paces_cwhile::Diagnostics, Input);
from_error!(paces_cwhile::Error, Apply);
from_error!(paces_explore::Error, Check);
from_error!(paces_solver::Error, Solve);
from_error!(paces_trace::TraceError, Internal);

impl From<paces_generalize::Error> for Error {
    fn from(e: paces_generalize::Error) -> Self {
        let kind = match e.kind() {
            paces_generalize::ErrorKind::TooLarge => ErrorKind::Limit,
            paces_generalize::ErrorKind::NotBad => ErrorKind::NotBad,
            paces_generalize::ErrorKind::SpaceMismatch | paces_generalize::ErrorKind::UnknownEvent => {
                ErrorKind::SpaceMismatch
            }
            _ => ErrorKind::Learn,
        };
        Error::from_source(kind, e)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    fn program() -> paces_cwhile::Program {
        paces_cwhile::parse(
            "var x = 0, y = 0; thread a { A: x := 1; C: y := 1; } thread b { 1: await(x == 1); 2: assert(y == 1); }",
        )
        .unwrap()
    }

    /// An elimination graph past its memory bound is a resource limit, not a learning error:
    /// the loop turns it into the stop "bound reached".
    #[test]
    fn an_elimination_past_its_memory_bound_is_a_limit() {
        let program = program();
        let result = paces_explore::check(&program, &paces_explore::Config::new()).unwrap();
        let cex = result.verdict.counterexample().expect("2 fails");
        let mut arena = paces_constraint::Arena::new();
        let config = paces_generalize::EliminateConfig::new().max_memory(1);
        let e = paces_generalize::eliminate(&cex.trace, &program.space(), &mut arena, &config).unwrap_err();
        assert_eq!(Error::from(e).kind(), &ErrorKind::Limit);
    }

    /// A component's error keeps its kind and stays reachable as the source.
    #[test]
    fn a_component_error_keeps_its_kind_and_source() {
        let program = program();
        // The original's good trace is not bad: the generalisation refuses it.
        let traces = paces_explore::good_traces(&program, &paces_explore::GoodConfig::new()).unwrap();
        let good = traces.first().expect("a good trace");
        let mut arena = paces_constraint::Arena::new();
        let config = paces_generalize::EliminateConfig::new();
        let e = paces_generalize::eliminate(good, &program.space(), &mut arena, &config).unwrap_err();
        let text = e.to_string();
        let error = Error::from(e);
        assert_eq!(error.kind(), &ErrorKind::NotBad);
        let source = error.source().expect("the source is kept");
        let inner = source.downcast_ref::<paces_generalize::Error>().expect("as the generalisation's error");
        assert_eq!(inner.kind(), &paces_generalize::ErrorKind::NotBad);
        assert_eq!(error.to_string(), format!("the trace is not bad: {text}"));
    }
}
