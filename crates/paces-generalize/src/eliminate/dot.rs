//! DOT output of a fix: the partial order with the fix's cycle drawn over it.

use paces_constraint::Space;
use paces_trace::{EventId, Trace};

use super::{EdgeKind, Elimination};
use crate::partial_order::escape;

impl Elimination {
    /// DOT of the partial order with fix `i`'s cycle drawn in red: its events outlined, its
    /// orderings doubled in red, its constraint edges dashed and labelled with their atoms.
    /// Threads are named as in [`PartialOrder::to_dot`](crate::PartialOrder::to_dot).
    /// `None` when there is no fix `i`.
    pub fn fix_dot(&self, i: usize, trace: &Trace, space: &Space, label: &dyn Fn(EventId) -> String) -> Option<String> {
        let fix = self.fixes.get(i)?;
        let extra: Vec<(EventId, EventId, String)> = fix
            .edges
            .iter()
            .map(|e| {
                let attrs = match e.kind.atom() {
                    Some(atom) => format!(
                        "color=red, style=dashed, penwidth=2, constraint=false, label=\"{}\"",
                        escape(&atom.display(space).to_string())
                    ),
                    None if e.kind == EdgeKind::Deadlock => "color=red, style=dotted, constraint=false".to_owned(),
                    None => "color=red, penwidth=2".to_owned(),
                };
                (e.from, e.to, attrs)
            })
            .collect();
        let names: Vec<&str> = space.threads().map(|(name, _)| name).collect();
        Some(self.partial_order.dot(trace, &names, label, &fix.cycle, &extra))
    }
}
