//! Compiles the IR into per-thread control graphs: procedures inlined, sugar expanded into
//! steps, and for every control point the steps a thread may take next (its *options*), found
//! by following the moves that take no step (entering a branch or a loop body, leaving a loop,
//! calling a procedure).
//!
//! One job per module:
//! * `layout`: where each program variable lives in a state, and its trace variable;
//! * `code`: expressions as code for a small stack machine, and its evaluation;
//! * `graph`: the types of a control graph (points, steps, options, block occurrences,
//!   atomic regions);
//! * `build`: one thread's body inlined into a control graph, with every point's options and
//!   future;
//! * `liveness`: the private variables dead at each point, and the points whose next step is
//!   private.

mod build;
mod code;
mod graph;
mod layout;
mod liveness;

use paces_cwhile::ir::Program;

pub(crate) use code::Code;
pub(crate) use graph::{Move, Opt, StepInfo, StepKind, TCode};
pub(crate) use layout::{VarLayout, VarRef};

use crate::error::{Error, ErrorKind};

/// A compiled program.
#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    pub threads: Vec<TCode>,
    pub global_init: Vec<i64>,
    /// Program locations' names.
    pub loc_names: Vec<String>,
    pub layout: VarLayout,
}

/// Builds the compiled program.
pub(crate) fn compile(program: &Program) -> Result<Compiled, Error> {
    compile_with(program, false)
}

/// [`compile`], with every `assert` compiled as a `skip` (same label, same place) when
/// `asserts_as_skips` says so: for a search that looks for no failing assertion, where an
/// assertion changes no variable and stops nothing (docs/explore.md, "Searches that look for
/// no failure").
pub(crate) fn compile_with(program: &Program, asserts_as_skips: bool) -> Result<Compiled, Error> {
    if program.threads.len() >= usize::from(u16::MAX) {
        return Err(Error::new(ErrorKind::TooLarge, "more than 65,534 threads"));
    }
    let layout = VarLayout::new(program)?;
    let global_init = program.vars[..layout.n_globals].iter().map(|v| v.init).collect();
    let mut threads = Vec::new();
    for t in 0..program.threads.len() {
        threads.push(build::thread(program, &layout, t, asserts_as_skips)?);
    }
    liveness::analyse(&mut threads, layout.n_globals);
    Ok(Compiled { threads, global_init, loc_names: program.loc_names.clone(), layout })
}
