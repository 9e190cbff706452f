//! DOT output of the graphs the loop builds, labelled with the program's statements.

use paces_cwhile::ir::Program;
use paces_trace::{EventId, Trace, TraceGraph};

/// A node label for an event: its label and the text of its step. Ids from the trace's
/// length on name its blocked steps, then its pending steps (as a partial order numbers them).
pub(crate) fn event_label(program: &Program, trace: &Trace, id: EventId) -> String {
    let i = id.index();
    let blocked = i.checked_sub(trace.len());
    let event = trace.events().get(i).or_else(|| trace.blocked().get(blocked?)).or_else(|| {
        let pending = blocked?.checked_sub(trace.blocked().len())?;
        trace.pending().get(pending)
    });
    let Some(loc) = event.map(|e| e.loc) else { return format!("e{i}") };
    let name = program.loc_names.get(loc.index()).cloned().unwrap_or_else(|| loc.to_string());
    match program.step_text(loc) {
        Some(text) => format!("{name}  {text}"),
        None => name,
    }
}

/// The trace-analysis graph of a good trace.
pub(crate) fn trace_graph(program: &Program, trace: &Trace) -> String {
    TraceGraph::new(trace).to_dot(trace, &thread_names(program), &|id| event_label(program, trace, id))
}

/// The program's thread names, indexed by thread id.
pub(crate) fn thread_names(program: &Program) -> Vec<&str> {
    program.threads.iter().map(|t| t.name.as_str()).collect()
}
