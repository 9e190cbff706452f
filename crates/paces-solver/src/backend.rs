//! Our own narrow interface to SAT solvers, so that rustsat's types and traits stay private
//! and a rustsat upgrade touches this file only.

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
}

fn backend_error(what: &str, err: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Backend, format!("SAT backend failed to {what}: {err}"))
}

/// Any rustsat solver behind our trait.
struct Rs<S>(S);

impl<S: SolveIncremental> Backend for Rs<S> {
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
            SolverResult::Interrupted => Err(Error::new(ErrorKind::Backend, "the SAT backend was interrupted")),
        }
    }

    fn value(&self, lit: Lit) -> Result<bool, Error> {
        // A variable the model leaves open may take either value; false is as good as true.
        self.0.lit_val(lit).map(|v| v == TernaryVal::True).map_err(|e| backend_error("report a model", e))
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
