//! Our own narrow interface to SAT solvers, so that rustsat's types and traits stay private
//! and a rustsat upgrade touches this file only.

use std::time::Instant;

use rustsat::solvers::{SolveIncremental, SolverResult};
use rustsat::types::{Lit, TernaryVal, Var};

use crate::{BackendKind, Error, ErrorKind};

/// An incremental SAT solver: clauses only ever grow; every call may assume literals.
pub(crate) trait Backend {
    /// Adds a clause (an empty clause makes every later call unsatisfiable).
    fn add_clause(&mut self, clause: &[Lit]) -> Result<(), Error>;
    /// Makes sure variables up to `max` exist, so that the model covers them.
    fn reserve(&mut self, max: Var) -> Result<(), Error>;
    /// Solves under assumptions: `true` when satisfiable.
    fn solve(&mut self, assumptions: &[Lit]) -> Result<bool, Error>;
    /// The value of a literal in the last model.
    fn value(&self, lit: Lit) -> Result<bool, Error>;
    /// The variables of the assumptions that the last unsatisfiable call used.
    fn failed(&mut self) -> Result<Vec<Var>, Error>;
    /// Makes every later call stop (as [`ErrorKind::Deadline`]) once `deadline` passes.
    fn set_deadline(&mut self, deadline: Option<Instant>);
}

/// A solver that can be told to stop at a deadline.
trait Stoppable {
    fn stop_at(&mut self, deadline: Option<Instant>);
}

impl Stoppable for rustsat_batsat::BasicSolver {
    fn stop_at(&mut self, deadline: Option<Instant>) {
        // Asked between conflicts and restarts.
        self.batsat_mut().cb_mut().set_stop(move || deadline.is_some_and(|d| Instant::now() >= d));
    }
}

#[cfg(feature = "cadical")]
impl Stoppable for rustsat_cadical::CaDiCaL<'static, 'static> {
    fn stop_at(&mut self, deadline: Option<Instant>) {
        use rustsat::solvers::{ControlSignal, Terminate as _};
        match deadline {
            Some(d) => self.attach_terminator(move || {
                if Instant::now() >= d {
                    ControlSignal::Terminate
                } else {
                    ControlSignal::Continue
                }
            }),
            None => self.detach_terminator(),
        }
    }
}

fn backend_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Backend, format!("SAT backend failed to {what}: {err}"))
}

/// Any rustsat solver behind our trait.
struct Rs<S>(S);

impl<S: SolveIncremental + Stoppable> Backend for Rs<S> {
    fn add_clause(&mut self, clause: &[Lit]) -> Result<(), Error> {
        self.0.add_clause_ref(clause).map_err(|e| backend_error("add a clause", e))
    }

    fn reserve(&mut self, max: Var) -> Result<(), Error> {
        self.0.reserve(max).map_err(|e| backend_error("reserve variables", e))
    }

    fn solve(&mut self, assumptions: &[Lit]) -> Result<bool, Error> {
        match self.0.solve_assumps(assumptions).map_err(|e| backend_error("solve", e))? {
            SolverResult::Sat => Ok(true),
            SolverResult::Unsat => Ok(false),
            SolverResult::Interrupted => {
                Err(Error::new(ErrorKind::Deadline, "the SAT search was stopped at its deadline"))
            }
        }
    }

    fn value(&self, lit: Lit) -> Result<bool, Error> {
        // A variable the model leaves open may take either value; false is as good as true.
        self.0.lit_val(lit).map(|v| v == TernaryVal::True).map_err(|e| backend_error("report a model", e))
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.0.stop_at(deadline);
    }

    fn failed(&mut self) -> Result<Vec<Var>, Error> {
        self.0
            .core()
            .map(|core| core.into_iter().map(Lit::var).collect())
            .map_err(|e| backend_error("report a core", e))
    }
}

/// A fresh solver of the given kind.
pub(crate) fn make(kind: BackendKind) -> Result<Box<dyn Backend>, Error> {
    match kind {
        BackendKind::Batsat => Ok(Box::new(Rs(rustsat_batsat::BasicSolver::default()))),
        #[cfg(feature = "cadical")]
        BackendKind::Cadical => Ok(Box::new(Rs(rustsat_cadical::CaDiCaL::default()))),
        #[cfg(not(feature = "cadical"))]
        BackendKind::Cadical => Err(Error::new(
            ErrorKind::BackendUnavailable,
            "the CaDiCaL backend is not compiled in: build paces-solver with the cargo feature `cadical`",
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use rustsat::types::Var;

    use super::*;

    /// Eight pigeons in seven holes: unsatisfiable, and only after many conflicts.
    fn pigeonhole(backend: &mut dyn Backend) {
        let var = |p: u32, h: u32| Var::new(p * 7 + h).pos_lit();
        for p in 0..8 {
            backend.add_clause(&(0..7).map(|h| var(p, h)).collect::<Vec<_>>()).unwrap();
        }
        for h in 0..7 {
            for p in 0..8 {
                for q in p + 1..8 {
                    backend.add_clause(&[!var(p, h), !var(q, h)]).unwrap();
                }
            }
        }
    }

    fn kinds() -> Vec<BackendKind> {
        let mut kinds = vec![BackendKind::Batsat];
        if cfg!(feature = "cadical") {
            kinds.push(BackendKind::Cadical);
        }
        kinds
    }

    #[test]
    fn a_passed_deadline_stops_the_search_inside_the_backend() {
        for kind in kinds() {
            let mut backend = make(kind).unwrap();
            pigeonhole(backend.as_mut());
            backend.set_deadline(Some(Instant::now() - Duration::from_millis(1)));
            let err = backend.solve(&[]).unwrap_err();
            assert_eq!(err.kind(), &ErrorKind::Deadline, "{kind:?}: {err}");
            // Lifted, the same instance is answered.
            backend.set_deadline(None);
            assert!(!backend.solve(&[]).unwrap(), "{kind:?}");
        }
    }
}
