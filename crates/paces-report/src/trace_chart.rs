//! A trace as a report draws it: its steps by thread, the failing step, the orderings its
//! failure needs (the partial order's cross-thread edges) and the cycles of the fixes.

use paces::constraint::Space;
use paces::cwhile::ir::Program;
use paces::explore::Schedule;
use paces::generalize::{Elimination, Failure, PartialOrder};
use paces::trace::{Event, EventId, Trace, TraceEdgeKind, TraceGraph};

use crate::shown;

/// One step of a [`TraceChart`]: a step of the trace, or for a program read from C the
/// consecutive steps of one thread that belong to one statement of the source.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChartStep {
    /// The thread that took it (an index into [`TraceChart::threads`]).
    pub thread: usize,
    /// What it is named by: its location's name (`37`, `24.wait`), or for a program read from
    /// C its statement's line (`9`).
    pub label: String,
    /// The statement's text (`shutdown := 1`, `hits = hits + 1`), empty when it has none.
    pub text: String,
    /// Whether it is a step a deadlocked thread cannot take (not executed).
    pub blocked: bool,
    /// Its statement's line in the source, for a program read from C.
    pub line: Option<u32>,
    /// The location names of the trace's steps it stands for, in order (one for a Cwhile
    /// program).
    pub labels: Vec<String>,
}

impl ChartStep {
    /// A step of one location, named `label`, with `text`.
    pub fn new(thread: usize, label: &str, text: &str, blocked: bool) -> ChartStep {
        ChartStep {
            thread,
            label: label.to_owned(),
            text: text.to_owned(),
            blocked,
            line: None,
            labels: vec![label.to_owned()],
        }
    }
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
/// and `paces check --report` shows of each trace. For a Cwhile program step `i` is event `i`
/// of the trace; for a program read from C a step is a row of consecutive events of one thread
/// that belong to one statement of the source (`docs/c-frontend.md`, "Traces"). The steps a
/// deadlock leaves blocked follow the executed ones.
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
    /// While the chart is built: the steps of its rows, and each event's row (see
    /// [`TraceChart::merged`]); empty once merged.
    rows: Vec<ChartStep>,
    row_of: Vec<usize>,
}

impl TraceChart {
    /// The chart of `trace` (a trace of `program`), without orderings: a good trace, or a bad
    /// one before it is generalised.
    pub fn new(program: &Program, trace: &Trace) -> TraceChart {
        TraceChart::of_steps(program, trace).merged()
    }

    /// The chart of `trace` with a step for every event, and the rows they are shown in
    /// ([`TraceChart::merged`] puts the rows in their place).
    fn of_steps(program: &Program, trace: &Trace) -> TraceChart {
        let label = |e: &Event| program.loc_names.get(e.loc.index()).cloned().unwrap_or_else(|| e.loc.to_string());
        let ran = trace.events().len();
        let events: Vec<&Event> = trace.events().iter().chain(trace.blocked()).collect();
        let labels: Vec<String> = events.iter().map(|e| label(e)).collect();
        let steps: Vec<(usize, &str)> =
            events.iter().zip(&labels).map(|(e, l)| (e.thread.index(), l.as_str())).collect();
        let failing: Vec<usize> = events[..ran].iter().enumerate().filter(|(_, e)| e.failed).map(|(i, _)| i).collect();
        // The failing step and the last one that ran end their rows.
        let rows = shown::rows(program, &steps, |i| failing.contains(&i) || i + 1 == ran);
        TraceChart::of_rows(program, &rows, steps.len(), ran, failing)
    }

    /// The chart of `trace` whose step `failing` fails (by default its first failed event).
    pub(crate) fn of_trace(program: &Program, trace: &Trace, failing: Option<usize>) -> TraceChart {
        let mut chart = TraceChart::of_steps(program, trace);
        if let Some(f) = failing {
            chart.failing = vec![f];
        }
        chart.merged()
    }

    /// The chart of a schedule of `program` (its steps' labels, no orderings), its step
    /// `failing` failing; a label of no location of the program has no text.
    pub(crate) fn of_schedule(program: &Program, schedule: &Schedule, failing: Option<usize>) -> TraceChart {
        let steps: Vec<(usize, &str)> = schedule.steps.iter().map(|s| (s.thread.index(), s.label.as_str())).collect();
        let rows = shown::rows(program, &steps, |i| failing == Some(i));
        let failing = failing.into_iter().filter(|&f| f < steps.len()).collect();
        TraceChart::of_rows(program, &rows, steps.len(), steps.len(), failing).merged()
    }

    /// An unmerged chart of `n` steps, the first `ran` executed, shown in `rows`.
    fn of_rows(program: &Program, rows: &[shown::Row], n: usize, ran: usize, failing: Vec<usize>) -> TraceChart {
        let threads = (0..program.threads.len()).filter_map(|t| program.thread_name(t)).map(str::to_owned).collect();
        let row_of = shown::row_of(rows, n);
        let rows = rows
            .iter()
            .map(|r| ChartStep {
                thread: r.thread,
                label: r.label.clone(),
                text: r.text.clone(),
                blocked: r.first >= ran,
                line: r.line,
                labels: r.labels.clone(),
            })
            .collect();
        TraceChart { threads, failing, rows, row_of, ..TraceChart::default() }
    }

    /// The chart with its steps in their rows: every index of a step (the failing ones, the
    /// orderings, the fixes' edges) becomes its row's, an ordering within one row dropped.
    fn merged(mut self) -> TraceChart {
        let row_of = std::mem::take(&mut self.row_of);
        self.steps = std::mem::take(&mut self.rows);
        let row = |i: usize| row_of.get(i).copied().unwrap_or(i);
        self.failing = self.failing.iter().map(|&i| row(i)).collect();
        self.failing.dedup();
        self.orderings = self.orderings.iter().map(|&(a, b)| (row(a), row(b))).filter(|(a, b)| a != b).collect();
        self.orderings.sort_unstable();
        self.orderings.dedup();
        for fix in &mut self.fixes {
            for e in &mut fix.edges {
                (e.from, e.to) = (row(e.from), row(e.to));
            }
        }
        self
    }

    /// The chart of a good trace with the data flow that matters: its orderings are the
    /// trace-analysis graph's data-flow edges between threads into assertions and into
    /// conditions (what LearnGoodUnder keeps the repair from breaking).
    pub fn of_good_trace(program: &Program, trace: &Trace) -> TraceChart {
        let mut chart = TraceChart::of_steps(program, trace);
        let graph = TraceGraph::new(trace);
        let len = chart.row_of.len();
        let flows = graph.edges(TraceEdgeKind::DFAsserts).chain(graph.edges(TraceEdgeKind::DFConds));
        for (a, b) in flows {
            let (Some(a), Some(b)) = (a.event(), b.event()) else { continue };
            let (a, b) = (a.index(), b.index());
            if a < len && b < len && chart.rows[chart.row_of[a]].thread != chart.rows[chart.row_of[b]].thread {
                chart.orderings.push((a, b));
            }
        }
        chart.orderings.sort_unstable();
        chart.orderings.dedup();
        chart.merged()
    }

    /// The chart of a bad trace with its partial order: the failure and the orderings it
    /// needs. A trace the partial order cannot be built for (it has no failure) keeps the
    /// chart of [`TraceChart::new`].
    pub fn of_bad_trace(program: &Program, trace: &Trace) -> TraceChart {
        let mut chart = TraceChart::of_steps(program, trace);
        if let Ok(order) = PartialOrder::from_bad_trace(trace) {
            chart.add_order(&order);
        }
        chart.merged()
    }

    /// The chart of a bad trace with its elimination: the partial order and every fix.
    pub fn of_elimination(program: &Program, trace: &Trace, elimination: &Elimination, space: &Space) -> TraceChart {
        let mut chart = TraceChart::of_steps(program, trace);
        chart.add_order(&elimination.partial_order);
        let len = chart.row_of.len();
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
        chart.merged()
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
        let len = self.row_of.len();
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
