//! The trace elimination graph of a generalised bad trace, its cycles (the fixes) and the
//! error-eliminating constraint: [`eliminate`] runs the steps, one module each.
//!
//! * `config`: the settings ([`EliminateConfig`]);
//! * `graph`: the graph's nodes, its no-constraint edges and their reachability;
//! * `forced`: the forced program order of each thread (a transitive reduction);
//! * `edges`: its constraint edges (reorders, kept orders, atomic sections) and weights;
//! * `preemption`: whether a preemption-free linearisation exists;
//! * `search`: the cycle search;
//! * `select`: which cycles become fixes (minimal, the cheapest);
//! * `path`: the full cycle of each fix;
//! * `fix`: the results ([`Elimination`], [`Fix`], [`CycleEdge`], [`EdgeKind`]);
//! * `dot`: DOT output of a fix.

mod config;
mod dot;
mod edges;
mod fix;
mod forced;
mod graph;
mod path;
mod preemption;
mod search;
mod select;
#[cfg(test)]
mod tests;

use paces_constraint::{Arena, Space};
use paces_trace::Trace;

pub use config::EliminateConfig;
pub use fix::{describe, CycleEdge, EdgeKind, Elimination, Fix};

use crate::{Error, ErrorKind, PartialOrder};

/// Eliminates a bad trace: generalises it ([`PartialOrder::from_bad_trace`]), builds its trace
/// elimination graph over `space` and returns every elimination cycle with at most K
/// constraint edges as a [`Fix`], with the disjunction of their constraints in `arena`.
///
/// See the crate documentation for the graph, the weights and the search. Give it a trace
/// that runs on past its failure (to the end of every thread, or until they block): the
/// writes that the failure's reads must come before are found only among the events the
/// trace holds (see [`PartialOrder`]). A trace its producer marked as stopping short
/// ([`Trace::stops_short`]: a model checker's counterexample that ends at the failure) is
/// refused rather than answered with no fix; `paces_explore::Counterexample::complete` runs
/// a counterexample on to its end.
///
/// # Errors
/// [`ErrorKind::StopsShort`] for a trace marked [`Trace::stops_short`];
/// [`ErrorKind::NotBad`] for a trace that is not bad; [`ErrorKind::SpaceMismatch`] when the
/// trace's events lift to locations that are not items of one block of `space`;
/// [`ErrorKind::TooLarge`] past [`EliminateConfig::max_memory`].
pub fn eliminate(
    trace: &Trace,
    space: &Space,
    arena: &mut Arena,
    config: &EliminateConfig,
) -> Result<Elimination, Error> {
    if trace.stops_short() && trace.is_bad() {
        return Err(Error::new(
            ErrorKind::StopsShort,
            "the bad trace stops at its failure while threads could run on, so the writes the \
             failure must precede are missing: complete it first (paces_explore's \
             Counterexample::complete)",
        ));
    }
    let po = PartialOrder::from_bad_trace(trace)?;
    let mut g = graph::Graph::new(trace, space, &po, config);
    let mut budget = g.budget(config.max_memory)?;
    g.compute_forced(forced::Strategy::Smaller, &mut budget)?;
    g.compute_reach(&mut budget)?;
    g.preemption_free = g.preemption_free(trace, config.preemption_search_budget);
    let found = search::search(&g, config)?;
    let (raws, complete) = select::select(found, config.max_fixes);
    let mut fixes = Vec::with_capacity(raws.len());
    for (atoms, raw) in raws {
        let rebuilt = path::rebuild(&g, &raw);
        // Every recorded cycle closes over paths the reachability rows vouch for.
        debug_assert!(rebuilt.is_some(), "no path for a recorded cycle");
        let Some((cycle, edges)) = rebuilt else { continue };
        fixes.push(Fix::new(atoms, cycle, edges, arena));
    }
    fixes.sort_by(|x, y| (x.weight, &x.atoms).cmp(&(y.weight, &y.atoms)));
    let constraint = arena.or(fixes.iter().map(|f| f.constraint).collect::<Vec<_>>());
    let preemption_free_possible = g.preemption_free;
    Ok(Elimination { constraint, fixes, partial_order: po, preemption_free_possible, complete })
}
