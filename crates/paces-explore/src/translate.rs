//! Translating traces of a candidate program back to the original program's vocabulary.
//!
//! The constraints live in the original program's space, but the checker runs on candidate
//! programs, where an added atomic section is a new `atomic` statement holding the items it
//! covers. Labels are kept by [`Program::apply`](paces_cwhile::ir::Program), so a trace is
//! translated by label: each location and each scope item is looked up by name in the
//! original; the scope level of an added section (whose statement the original does not have)
//! is dropped, its items taking the enclosing block instance.

use paces_cwhile::ir::Program;
use paces_trace::{BlockInstance, Event, ScopeEntry, Trace, TraceBuilder};

use crate::error::{Error, ErrorKind};

/// Translates `trace` of `from` (a candidate program) into a trace of `to` (the original).
///
/// # Errors
/// [`ErrorKind::Unrelated`] when a location of the trace has no counterpart in `to` (the
/// programs are not a candidate and its original).
pub fn translate_trace(trace: &Trace, from: &Program, to: &Program) -> Result<Trace, Error> {
    if std::ptr::eq(from, to) {
        return Ok(trace.clone());
    }
    let mut builder = TraceBuilder::new();
    for event in trace.events() {
        builder.push(translate_event(event, from, to)?).map_err(|e| Error::new(ErrorKind::Trace, e.to_string()))?;
    }
    for blocked in trace.blocked() {
        let e = translate_event(blocked, from, to)?;
        let mut step = builder.step(e.thread, e.loc, e.scope).kind(e.kind).failed(e.failed);
        for r in &e.reads {
            step = step.read_from(r.var, r.from);
        }
        step.push_blocked().map_err(|e| Error::new(ErrorKind::Trace, e.to_string()))?;
    }
    for pending in trace.pending() {
        let e = translate_event(pending, from, to)?;
        let mut step = builder.step(e.thread, e.loc, e.scope).kind(e.kind);
        for r in &e.reads {
            step = step.read_from(r.var, None);
        }
        for w in &e.writes {
            step = step.write(w.var, w.value);
        }
        step.push_pending();
    }
    Ok(builder.finish())
}

fn translate_event(event: &Event, from: &Program, to: &Program) -> Result<Event, Error> {
    let map_loc = |loc: paces_constraint::Loc| {
        let name = from.loc_names.get(loc.index()).map(String::as_str).unwrap_or("?");
        to.loc(name).ok_or_else(|| {
            Error::new(
                ErrorKind::Unrelated,
                format!("location `{name}` of the candidate is not in the original program"),
            )
        })
    };
    let mut scope: Vec<ScopeEntry> = Vec::with_capacity(event.scope.len());
    let mut carried: Option<BlockInstance> = None;
    for entry in &event.scope {
        let name = from.loc_names.get(entry.item.index()).map(String::as_str).unwrap_or("?");
        match to.loc(name).and_then(|l| to.stmt_at(l).map(|s| (l, s))) {
            Some((item, stmt)) => {
                let instance = carried.take().unwrap_or(entry.instance);
                scope.push(ScopeEntry {
                    instance: BlockInstance { block: to.stmt(stmt).block, instance: instance.instance },
                    item,
                });
            }
            // An added atomic section: its items belong to the enclosing block instance.
            None => carried = Some(carried.unwrap_or(entry.instance)),
        }
    }
    Ok(Event { loc: map_loc(event.loc)?, scope, ..event.clone() })
}
