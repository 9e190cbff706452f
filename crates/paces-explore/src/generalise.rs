//! From the checker's counterexample to its fixes in one call: completion past the failure
//! ([`Counterexample::complete`]) and the generalisation (`paces_generalize::eliminate`).

use paces_constraint::{Arena, Space};
use paces_cwhile::ir::Program;
use paces_generalize::{eliminate, EliminateConfig, Elimination};

use crate::check::Counterexample;
use crate::error::{Error, ErrorKind};

impl Counterexample {
    /// The most configurations [`Counterexample::eliminate`] lets the completion explore.
    pub const COMPLETION_STEPS: usize = 200_000;

    /// The fixes of this counterexample of `program`: the trace is
    /// [completed](Counterexample::complete) past its failure when the check stopped there
    /// (within [`Counterexample::COMPLETION_STEPS`]), then generalised against `space`, the
    /// program's own ([`Program::space`]), which names the fixes' locations. A checked bad
    /// trace handed to `paces_generalize::eliminate` as it is would be refused (it
    /// [stops short](paces_trace::Trace::stops_short)); this call cannot lose the writes the
    /// failure must precede.
    ///
    /// # Errors
    /// When the completion fails (the counterexample is not a trace of `program`), or the
    /// generalisation refuses the trace ([`ErrorKind::Generalize`], with its message: a trace
    /// of another program, a memory bound of `config`).
    ///
    /// # Example
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use paces_explore::{check, constraint::Arena, generalize::EliminateConfig, Config};
    /// let program = paces_explore::cwhile::parse(
    ///     "var x = 0, y = 0; thread a { A: x := 1; C: y := 1; } thread b { 1: await(x == 1); 2: assert(y == 1); }",
    /// )?;
    /// let cex = check(&program, &Config::new())?.verdict.counterexample().cloned().unwrap();
    /// let space = program.space();
    /// let fixes = cex.eliminate(&program, &space, &mut Arena::new(), &EliminateConfig::new())?.fixes;
    /// // `C` before `A`: the write `2` reads comes before the one `1` waits for.
    /// assert_eq!(fixes[0].display(&space).to_string(), format!("C <= A (weight {})", fixes[0].weight));
    /// # Ok(()) }
    /// ```
    pub fn eliminate(
        &self,
        program: &Program,
        space: &Space,
        arena: &mut Arena,
        config: &EliminateConfig,
    ) -> Result<Elimination, Error> {
        let complete = self.complete(program, Self::COMPLETION_STEPS)?;
        eliminate(&complete.trace, space, arena, config).map_err(|e| Error::new(ErrorKind::Generalize, e.to_string()))
    }
}
