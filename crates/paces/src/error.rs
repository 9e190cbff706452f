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
    /// A resource limit of a component (an elimination graph whose tables would pass their
    /// memory bound); the repair loop reports it as a stop, "bound reached".
    Limit,
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
impl From<paces_generalize::Error> for Error {
    fn from(e: paces_generalize::Error) -> Self {
        let kind = match e.kind() {
            paces_generalize::ErrorKind::TooLarge => ErrorKind::Limit,
            _ => ErrorKind::Learn,
        };
        Error::new(kind, e.to_string())
    }
}
from_error!(paces_solver::Error, Solve);

#[cfg(test)]
mod tests {
    use super::*;

    /// An elimination graph past its memory bound is a resource limit, not a learning error:
    /// the loop turns it into the stop "bound reached".
    #[test]
    fn an_elimination_past_its_memory_bound_is_a_limit() {
        let program = paces_cwhile::parse(
            "var x = 0, y = 0; thread a { A: x := 1; C: y := 1; } thread b { 1: await(x == 1); 2: assert(y == 1); }",
        )
        .unwrap();
        let result = paces_explore::check(&program, &paces_explore::Config::new()).unwrap();
        let cex = result.verdict.counterexample().expect("2 fails");
        let mut arena = paces_constraint::Arena::new();
        let config = paces_generalize::EliminateConfig::new().max_memory(1);
        let e = paces_generalize::eliminate(&cex.trace, &program.space(), &mut arena, &config).unwrap_err();
        assert_eq!(Error::from(e).kind(), &ErrorKind::Limit);
    }
}
