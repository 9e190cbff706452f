//! What [`eliminate`] returns: the [`Elimination`], its [`Fix`]es, the
//! [`CycleEdge`]s of their cycles and the [`EdgeKind`]s of those edges, and a one-line
//! description of a fix.

use std::fmt::Write as _;

use paces_constraint::{Arena, Atom, NodeId, Space};
use paces_trace::EventId;

#[cfg(doc)]
use super::{eliminate, EliminateConfig};
use crate::PartialOrder;

/// The kind of an edge of the trace elimination graph, with its constraint for the edges
/// that stand for program constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum EdgeKind {
    /// A cross-thread ordering of the partial order (weight 1, no constraint).
    Ordering,
    /// Program order that every candidate keeps: the events lie in different block
    /// instances, in one item, or in items that may never change order (weight: the span,
    /// the number of steps of the thread from one to the other; no constraint). Also the
    /// order of a thread's events before its blocked step.
    Forced,
    /// From one blocked step of a deadlock to another: both stand at the end (weight 0, no
    /// constraint).
    Deadlock,
    /// Forward between items that may be reordered: keep the first one first,
    /// `Order(earlier, later)` (weight: the span; the program need not change).
    Keep(Atom),
    /// Backward between items that may be reordered: put the later one first,
    /// `Order(later, earlier)` (weight R times the item pairs the move inverts at least).
    Reorder(Atom),
    /// Backward: an atomic section holding both items, `Atomic(a, b)` (weight A times the
    /// simple statements of the items it spans in the original order).
    Atomic(Atom),
}

impl EdgeKind {
    /// The constraint of the edge, if it stands for one.
    pub fn atom(&self) -> Option<Atom> {
        match *self {
            EdgeKind::Keep(a) | EdgeKind::Reorder(a) | EdgeKind::Atomic(a) => Some(a),
            EdgeKind::Ordering | EdgeKind::Forced | EdgeKind::Deadlock => None,
        }
    }
}

/// One edge of an elimination cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct CycleEdge {
    /// Where the edge starts.
    pub from: EventId,
    /// Where it ends.
    pub to: EventId,
    /// Its kind and constraint.
    pub kind: EdgeKind,
    /// Its weight.
    pub weight: u64,
}

/// One fix: an elimination cycle and the constraint it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fix {
    /// The conjunction of the cycle's constraint atoms, in the arena given to [`eliminate`].
    pub constraint: NodeId,
    /// The distinct atoms of the cycle, sorted.
    pub atoms: Vec<Atom>,
    /// The cycle's weight in the trace elimination graph: the sum of its edges' weights
    /// (fixes are ordered by it, lightest first). Not a candidate's [`Cost`](paces_constraint::Cost).
    pub weight: u64,
    /// The events of the cycle in order; the last one leads back to the first. Ids from the
    /// trace's length on are blocked steps (see [`Failure::Deadlock`](crate::Failure)).
    pub cycle: Vec<EventId>,
    /// The edges of the cycle, `edges[i]` from `cycle[i]` to `cycle[(i + 1) % len]`.
    pub edges: Vec<CycleEdge>,
}

impl Fix {
    /// The fix of a cycle with these distinct sorted atoms, events and edges; its constraint,
    /// the conjunction of the atoms, goes into `arena`.
    pub(super) fn new(atoms: Vec<Atom>, cycle: Vec<EventId>, edges: Vec<CycleEdge>, arena: &mut Arena) -> Fix {
        let weight = edges.iter().fold(0u64, |s, e| s.saturating_add(e.weight));
        let nodes: Vec<NodeId> = atoms.iter().map(|&a| arena.atom(a)).collect();
        let constraint = arena.and(nodes);
        Fix { constraint, atoms, weight, cycle, edges }
    }
}

impl Fix {
    /// Displays the fix with the space's names: its atoms in the paper's notation and its
    /// weight, `C <= A /\ 1 <= 3 (weight 4)`.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl std::fmt::Display + 'a {
        DisplayFix { fix: self, space }
    }
}

struct DisplayFix<'a> {
    fix: &'a Fix,
    space: &'a Space,
}

impl std::fmt::Display for DisplayFix<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (weight {})", describe(self.fix, self.space), self.fix.weight)
    }
}

/// The result of [`eliminate`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Elimination {
    /// The error-eliminating constraint: the disjunction of the fixes' constraints. `false`
    /// when no fix exists: no candidate of the space eliminates the bug pattern with at most K
    /// constraint edges (the caller reports "no repair in this space").
    pub constraint: NodeId,
    /// The fixes, cheapest first (ties broken by their atoms, so `fixes.first()` is the
    /// cheapest fix), deduplicated by their atoms, and minimal: no fix's atoms contain another
    /// fix's atoms (checked for fixes of at most 12 atoms, which every fix is when K <= 12).
    pub fixes: Vec<Fix>,
    /// The generalised partial order.
    pub partial_order: PartialOrder,
    /// Whether the trace can be turned into a preemption-free one: whether some
    /// linearisation of the partial order's events leaves a thread only where its next step
    /// (in the trace) is an await, or where it has no next step (finished, or blocked at the
    /// end of a deadlock); starting a thread is no preemption. Decided by a depth-first search
    /// over the threads' progress at those switch points, bounded by
    /// [`EliminateConfig::preemption_search_budget`] (when the budget runs out the answer is
    /// `false`). When `false`, fixes that act across preemption points are left out: no
    /// reorder moves a wait (an item that opens with an await; an item that holds one deeper
    /// inside, such as a call, may move), and an atomic section never holds a preemption
    /// point anywhere but first.
    pub preemption_free_possible: bool,
    /// Whether the cycle search ran to its end (neither [`EliminateConfig::max_work`] nor
    /// [`EliminateConfig::max_fixes`] cut it short).
    pub complete: bool,
}

/// A one-line description of a fix for reports: its atoms in the paper's notation.
pub fn describe(fix: &Fix, space: &Space) -> String {
    let mut out = String::new();
    for (i, a) in fix.atoms.iter().enumerate() {
        if i > 0 {
            out.push_str(" /\\ ");
        }
        let _ = write!(out, "{}", a.display(space));
    }
    out
}
