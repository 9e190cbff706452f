//! A trace as a report draws it: its steps by thread, the failing step, the orderings its
//! failure needs (the partial order's cross-thread edges) and the cycles of the fixes.

use paces::constraint::Space;
use paces::cwhile::ir::Program;
use paces::explore::Schedule;
use paces::generalize::{Elimination, Failure, PartialOrder};
use paces::trace::{Event, EventId, Trace, TraceEdgeKind, TraceGraph};

/// One step of a [`TraceChart`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChartStep {
    /// The thread that took it (an index into [`TraceChart::threads`]).
    pub thread: usize,
    /// Its location's name (`37`, `24.wait`).
    pub label: String,
    /// The statement's text (`shutdown := 1`), empty when it has none.
    pub text: String,
    /// Whether it is a step a deadlocked thread cannot take (not executed).
    pub blocked: bool,
}

/// An edge of a fix's cycle, between steps of a [`TraceChart`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChartEdge {
    /// The step it leaves.
    pub from: usize,
    /// The step it reaches.
    pub to: usize,
    /// The constraint atom the edge stands for, in words (`2 <= 1`), when it is a constraint
    /// edge; `None` for an ordering of the trace.
    pub atom: Option<String>,
}

/// A fix of a bad trace: a cycle of its elimination graph.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChartFix {
    /// The cycle's edges in order; the last one leads back to the first one's step.
    pub edges: Vec<ChartEdge>,
    /// The fix's constraint atoms in words, sorted as the fix keeps them.
    pub atoms: Vec<String>,
}

/// A trace drawn as columns, one per thread: what the HTML report of `paces repair --report`
/// and `paces check --report` shows of each trace. Step `i` is event `i` of the trace; the
/// steps a deadlock leaves blocked follow the executed ones.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TraceChart {
    /// The program's thread names, by thread index.
    pub threads: Vec<String>,
    /// The steps in the order they ran, then the blocked steps.
    pub steps: Vec<ChartStep>,
    /// The steps that fail: the failing assertion, or every blocked step of a deadlock.
    pub failing: Vec<usize>,
    /// The orderings between threads that matter, sorted: of a bad trace, its partial order's
    /// (reads-from and the orders the failure needs); of a good trace, the data flow into its
    /// assertions and conditions.
    pub orderings: Vec<(usize, usize)>,
    /// The fixes of the trace's elimination graph, cheapest first (empty for a good trace, or
    /// when the trace was not generalised).
    pub fixes: Vec<ChartFix>,
    /// The fix the chart shows first (an index into [`TraceChart::fixes`]): the one the
    /// candidate proposed after the trace satisfies ([`TraceChart::choose_fix`]), else the first.
    pub chosen: usize,
}

impl TraceChart {
    /// The chart of `trace` (a trace of `program`), without orderings: a good trace, or a bad
    /// one before it is generalised.
    pub fn new(program: &Program, trace: &Trace) -> TraceChart {
        let threads = program.threads.iter().map(|t| t.name.clone()).collect();
        let step = |e: &Event, blocked: bool| ChartStep {
            thread: e.thread.index(),
            label: program.loc_names.get(e.loc.index()).cloned().unwrap_or_else(|| e.loc.to_string()),
            text: program.step_text(e.loc).unwrap_or_default(),
            blocked,
        };
        let mut steps: Vec<ChartStep> = trace.events().iter().map(|e| step(e, false)).collect();
        steps.extend(trace.blocked().iter().map(|e| step(e, true)));
        let failing = trace.events().iter().enumerate().filter(|(_, e)| e.failed).map(|(i, _)| i).collect();
        TraceChart { threads, steps, failing, ..TraceChart::default() }
    }

    /// The chart of a schedule of `program` (its steps' labels, no orderings); a label of
    /// no location of the program has no text.
    pub(crate) fn of_schedule(program: &Program, schedule: &Schedule) -> TraceChart {
        let threads = program.threads.iter().map(|t| t.name.clone()).collect();
        let steps = schedule
            .steps
            .iter()
            .map(|s| ChartStep {
                thread: s.thread.index(),
                label: s.label.clone(),
                text: program.loc(&s.label).and_then(|l| program.step_text(l)).unwrap_or_default(),
                blocked: false,
            })
            .collect();
        TraceChart { threads, steps, ..TraceChart::default() }
    }

    /// The chart of a good trace with the data flow that matters: its orderings are the
    /// trace-analysis graph's data-flow edges between threads into assertions and into
    /// conditions (what LearnGoodUnder keeps the repair from breaking).
    pub fn of_good_trace(program: &Program, trace: &Trace) -> TraceChart {
        let mut chart = TraceChart::new(program, trace);
        let graph = TraceGraph::new(trace);
        let len = chart.steps.len();
        let flows = graph.edges(TraceEdgeKind::DFAsserts).chain(graph.edges(TraceEdgeKind::DFConds));
        for (a, b) in flows {
            let (Some(a), Some(b)) = (a.event(), b.event()) else { continue };
            let (a, b) = (a.index(), b.index());
            if a < len && b < len && chart.steps[a].thread != chart.steps[b].thread {
                chart.orderings.push((a, b));
            }
        }
        chart.orderings.sort_unstable();
        chart.orderings.dedup();
        chart
    }

    /// The chart of a bad trace with its partial order: the failure and the orderings it
    /// needs. A trace the partial order cannot be built for (it has no failure) keeps the
    /// chart of [`TraceChart::new`].
    pub fn of_bad_trace(program: &Program, trace: &Trace) -> TraceChart {
        let mut chart = TraceChart::new(program, trace);
        if let Ok(order) = PartialOrder::from_bad_trace(trace) {
            chart.add_order(&order);
        }
        chart
    }

    /// The chart of a bad trace with its elimination: the partial order and every fix.
    pub fn of_elimination(program: &Program, trace: &Trace, elimination: &Elimination, space: &Space) -> TraceChart {
        let mut chart = TraceChart::new(program, trace);
        chart.add_order(&elimination.partial_order);
        let len = chart.steps.len();
        let index = |id: EventId| (id.index() < len).then_some(id.index());
        for fix in &elimination.fixes {
            let edges = fix
                .edges
                .iter()
                .filter_map(|e| {
                    let atom = e.kind.atom().map(|a| a.display(space).to_string());
                    Some(ChartEdge { from: index(e.from)?, to: index(e.to)?, atom })
                })
                .collect();
            let atoms = fix.atoms.iter().map(|a| a.display(space).to_string()).collect();
            chart.fixes.push(ChartFix { edges, atoms });
        }
        chart
    }

    /// Chooses the first fix whose atoms all hold in `candidate` (the candidate proposed after
    /// the trace was learned from) as the one shown first; the first fix when none does.
    /// `elimination` is the one the chart was made from.
    pub fn choose_fix(&mut self, elimination: &Elimination, candidate: &paces::constraint::Candidate) {
        let holds = |f: &paces::generalize::Fix| f.atoms.iter().all(|a| a.holds(candidate));
        self.chosen = elimination.fixes.iter().position(holds).unwrap_or(0);
    }

    /// Takes the failure and the edges of `order` (edges with a pending step, which the chart
    /// does not show, are left out).
    fn add_order(&mut self, order: &PartialOrder) {
        let len = self.steps.len();
        let pair =
            |&(a, b): &(EventId, EventId)| (a.index() < len && b.index() < len).then_some((a.index(), b.index()));
        self.orderings = order.cross_edges().iter().filter_map(pair).collect();
        self.orderings.sort_unstable();
        let failing: Vec<usize> = match order.failure() {
            Failure::Event(f) => vec![f.index()],
            Failure::Deadlock(b) => b.iter().map(|id| id.index()).collect(),
            _ => return,
        };
        self.failing = failing.into_iter().filter(|&i| i < len).collect();
    }
}
