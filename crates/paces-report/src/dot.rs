//! The graphs of a repair in DOT: the trace-analysis graph of each good trace learned from,
//! and the partial order and each fix's cycle of each bad trace, labelled with the program's
//! statements.

use paces::cwhile::ir::Program;
use paces::trace::{EventId, Trace, TraceGraph};
use paces::Report;

/// The DOT files of a run made with [`paces::Repair::record_traces`] on, named as
/// `paces repair --dot` writes them: `good-N.dot` for the N-th good trace, `bad-N-order.dot`
/// and `bad-N-fix-K.dot` for the bad trace of iteration N. Empty for a run that kept no trace.
pub fn dot_files(report: &Report) -> Vec<(String, String)> {
    let program = &report.original;
    let threads = thread_names(program);
    let mut files = Vec::new();
    for (i, trace) in report.learned_good.iter().enumerate() {
        let label = |id: EventId| event_label(program, trace, id);
        files.push((format!("good-{}.dot", i + 1), TraceGraph::new(trace).to_dot(trace, &threads, &label)));
    }
    for (i, iteration) in report.history.iter().enumerate() {
        let Some(learned) = &iteration.learned else { continue };
        let (trace, elimination) = (&learned.trace, &learned.elimination);
        let round = i + 1;
        let label = |id: EventId| event_label(program, trace, id);
        files.push((format!("bad-{round}-order.dot"), elimination.partial_order.to_dot(trace, &report.space, &label)));
        for k in 0..elimination.fixes.len() {
            if let Some(dot) = elimination.fix_dot(k, trace, &report.space, &label) {
                files.push((format!("bad-{round}-fix-{}.dot", k + 1), dot));
            }
        }
    }
    files
}

/// A node label for an event: its label and the text of its step. Ids from the trace's
/// length on name its blocked steps, then its pending steps (as a partial order numbers them).
fn event_label(program: &Program, trace: &Trace, id: EventId) -> String {
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

/// The program's thread names, indexed by thread id.
fn thread_names(program: &Program) -> Vec<&str> {
    program.threads.iter().map(|t| t.name.as_str()).collect()
}
