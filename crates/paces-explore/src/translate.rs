//! Translating traces of a candidate program back to the original program's vocabulary.
//!
//! The constraints live in the original program's space, but the checker runs on candidate
//! programs, where an added atomic section is a new `atomic` statement holding the items it
//! covers. Labels are kept by [`Program::apply`](paces_cwhile::ir::Program), so a trace is
//! translated by label: each location and each scope item is looked up by name in the
//! original; the scope level of an added section (whose statement the original does not have)
//! is dropped, its items taking the enclosing block instance. A section taken along a path
//! with no step of its own is one step of the candidate (its *pass* step, at the section's
//! label) but none of the original: that event is dropped, and the reads after it name their
//! writers anew (it writes nothing).

use paces_cwhile::ir::{Program, StmtKind};
use paces_trace::{BlockInstance, Event, EventId, ScopeEntry, Trace, TraceBuilder};

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
    // Per event of `trace`: its id in the translation (`None`: dropped).
    let mut ids: Vec<Option<EventId>> = Vec::with_capacity(trace.len());
    let writer = |ids: &[Option<EventId>], from: Option<EventId>| from.and_then(|w| ids[w.index()]);
    for event in trace.events() {
        if section_pass(event, from, to) {
            ids.push(None);
            continue;
        }
        let mut e = translate_event(event, from, to)?;
        for r in &mut e.reads {
            r.from = writer(&ids, r.from);
        }
        ids.push(Some(builder.push(e).map_err(|e| Error::new(ErrorKind::Trace, e.to_string()))?));
    }
    for blocked in trace.blocked() {
        let e = translate_event(blocked, from, to)?;
        let mut step = builder.step(e.thread, e.loc, e.scope).kind(e.kind).failed(e.failed);
        for r in &e.reads {
            step = step.read_from(r.var, writer(&ids, r.from));
        }
        step.push_blocked().map_err(|e| Error::new(ErrorKind::Trace, e.to_string()))?;
    }
    for pending in trace.pending().iter().filter(|e| !section_pass(e, from, to)) {
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

/// Whether `event` of `from` is the pass step of an added section: its location is an
/// `atomic` statement of `from` that `to` does not have.
fn section_pass(event: &Event, from: &Program, to: &Program) -> bool {
    let name = from.loc_names.get(event.loc.index()).map(String::as_str).unwrap_or("?");
    to.loc(name).is_none() && from.stmt_at(event.loc).is_some_and(|s| matches!(from.stmt(s).kind, StmtKind::Atomic(_)))
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
