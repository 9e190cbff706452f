//! The trace-analysis graph G(pi) of the paper (section 2, "Trace analysis graphs").

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use smallvec::SmallVec;

use crate::model::{EventId, EventKind, Trace, VarId};
use crate::ThreadId;

/// A node of a [`TraceGraph`]: the initial state (the paper's bottom) or an event.
///
/// Nodes are ordered as the trace is: bottom first, then the events by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TraceNode {
    /// The initial state.
    Bottom,
    /// An event of the trace.
    Event(EventId),
}

impl TraceNode {
    /// Dense index: 0 for bottom, `i + 1` for event `i`.
    pub(crate) fn index(self) -> usize {
        match self {
            TraceNode::Bottom => 0,
            TraceNode::Event(e) => e.index() + 1,
        }
    }

    fn from_index(i: usize) -> TraceNode {
        if i == 0 {
            TraceNode::Bottom
        } else {
            TraceNode::Event(EventId::from_u32((i - 1) as u32))
        }
    }

    /// The event, unless this is bottom.
    pub fn event(self) -> Option<EventId> {
        match self {
            TraceNode::Bottom => None,
            TraceNode::Event(e) => Some(e),
        }
    }
}

/// The kinds of edges of a [`TraceGraph`] (the paper's four).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TraceEdgeKind {
    /// Order of two events of one thread, and bottom before every event.
    IntraThreadOrder,
    /// Data flow into conditionals (`assume`, `await`): the recursive `depends` closure.
    DFConds,
    /// Data flow into assertions: the recursive `depends` closure.
    DFAsserts,
    /// Two writes of different values to one variable, earlier to later.
    NonFreeOrder,
}

/// The edges a cover may use (the paper: intra-thread order, data flow into conditionals,
/// non-free order).
fn is_cover_kind(kind: TraceEdgeKind) -> bool {
    matches!(kind, TraceEdgeKind::IntraThreadOrder | TraceEdgeKind::DFConds | TraceEdgeKind::NonFreeOrder)
}

/// Marks the events in the `depends` closure of the events `seed` selects: an event is marked
/// when it is selected or when a marked event reads from it. One backward pass suffices
/// because reads-from always points to an earlier event.
pub(crate) fn depends_closure(trace: &Trace, seed: impl Fn(EventKind) -> bool) -> Vec<bool> {
    let events = trace.events();
    let mut mark: Vec<bool> = events.iter().map(|e| seed(e.kind)).collect();
    for i in (0..events.len()).rev() {
        if mark[i] {
            for r in &events[i].reads {
                if let Some(w) = r.from {
                    mark[w.index()] = true;
                }
            }
        }
    }
    mark
}

/// The data-flow edges into the marked events: one edge per (writer or bottom, reader) pair,
/// sorted.
pub(crate) fn data_flow_edges(trace: &Trace, mark: &[bool]) -> Vec<(TraceNode, TraceNode)> {
    let mut out = Vec::new();
    for (i, e) in trace.events().iter().enumerate() {
        if !mark[i] {
            continue;
        }
        let reader = TraceNode::Event(EventId::from_u32(i as u32));
        for r in &e.reads {
            out.push((r.from.map_or(TraceNode::Bottom, TraceNode::Event), reader));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The interference edges of a data-flow edge `w -> r`, as the paper defines them.
pub(crate) fn interfere_edges(
    trace: &Trace,
    writers: &BTreeMap<VarId, Vec<(EventId, i64)>>,
    w: TraceNode,
    r: TraceNode,
) -> Vec<(TraceNode, TraceNode)> {
    let Some(r_id) = r.event().filter(|e| e.index() < trace.len()) else { return Vec::new() };
    if w.event().is_some_and(|e| e.index() >= trace.len()) {
        return Vec::new();
    }
    let reader = trace.event(r_id);
    // The variables that matter: those `r` reads and (unless `w` is bottom) `w` writes.
    let mut vars: SmallVec<[VarId; 2]> = reader.reads.iter().map(|x| x.var).collect();
    if let Some(w_id) = w.event() {
        let writer = trace.event(w_id);
        vars.retain(|v| writer.writes_var(*v));
    }
    vars.sort_unstable();
    vars.dedup();
    let mut out = Vec::new();
    for v in vars {
        let Some(list) = writers.get(&v) else { continue };
        // Later writers than r: r -> w'.
        let after = list.partition_point(|&(e, _)| e <= r_id);
        out.extend(list[after..].iter().map(|&(e, _)| (r, TraceNode::Event(e))));
        // Earlier writers than w: w' -> w.
        if let Some(w_id) = w.event() {
            let before = list.partition_point(|&(e, _)| e < w_id);
            out.extend(list[..before].iter().map(|&(e, _)| (TraceNode::Event(e), w)));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Per variable, its writers in trace order with the values written.
pub(crate) fn writers_by_var(trace: &Trace) -> BTreeMap<VarId, Vec<(EventId, i64)>> {
    let mut writers: BTreeMap<VarId, Vec<(EventId, i64)>> = BTreeMap::new();
    for (i, e) in trace.events().iter().enumerate() {
        let id = EventId::from_u32(i as u32);
        for w in &e.writes {
            let list = writers.entry(w.var).or_default();
            // An event that writes a variable twice counts once, with its first value.
            if list.last().is_none_or(|&(last, _)| last != id) {
                list.push((id, w.value));
            }
        }
    }
    writers
}

/// The trace-analysis graph G(pi) of a trace: bottom plus one node per event, and the
/// paper's four edge kinds ([`TraceEdgeKind`]).
///
/// Representation. Every edge goes forward in trace order (bottom first), so the graph is a
/// DAG. Transitively implied edges are represented by paths, which is all that covers and
/// reachability need:
/// * [`TraceEdgeKind::IntraThreadOrder`]: the paper has `x -> y` for every pair `x < y` of one
///   thread and `bottom -> y` for every event; the graph stores consecutive events of each
///   thread and bottom before the first event of each thread, and every other pair is a path
///   of those. (The *constraint* of a direct pair differs from that of the path through the
///   events between; [`learn_good`](crate::learn_good) uses the direct pairs, as the paper.)
/// * [`TraceEdgeKind::DFConds`], [`TraceEdgeKind::DFAsserts`]: the recursive `depends` closure from
///   every condition (assertion) event through its writers, locals included, with an edge
///   from bottom for a read of the initial state. An edge in both closures is in both lists.
/// * [`TraceEdgeKind::NonFreeOrder`]: every pair of writes of different values to one variable
///   (computed from per-variable writer lists when asked for; not stored pairwise, so a
///   variable written many times costs no quadratic memory).
///
/// Blocked steps of a deadlock trace ([`Trace::blocked`]) are not part of the graph.
///
/// # Example
/// ```
/// use paces_constraint::{BlockId, Loc};
/// use paces_trace::{BlockInstance, TraceEdgeKind, EventKind, TraceNode, ScopeEntry, ThreadId, TraceBuilder, TraceGraph, VarId};
/// let (x, y) = (VarId::from_u32(0), VarId::from_u32(1));
/// let at = |t: u32, l: u32| {
///     vec![ScopeEntry { instance: BlockInstance { block: BlockId::from_u32(t), instance: 0 }, item: Loc::from_u32(l) }]
/// };
/// let (t1, t2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
/// let mut b = TraceBuilder::new();
/// let e1 = b.step(t1, Loc::from_u32(0), at(0, 0)).write(x, 1).push()?; // 1: x := 1
/// let e2 = b.step(t1, Loc::from_u32(1), at(0, 1)).write(y, 1).push()?; // 2: y := 1
/// let ea = b.step(t2, Loc::from_u32(2), at(1, 2)).kind(EventKind::Await).read(y).push()?; // A: await(y == 1)
/// let eb = b.step(t2, Loc::from_u32(3), at(1, 3)).kind(EventKind::Assert).read(x).push()?; // B: assert(x == 1)
/// let trace = b.finish();
/// let g = TraceGraph::new(&trace);
/// let df: Vec<_> = g.edges(TraceEdgeKind::DFAsserts).collect();
/// assert_eq!(df, [(TraceNode::Event(e1), TraceNode::Event(eb))]);
/// assert_eq!(g.cover_witness(TraceNode::Event(e1), TraceNode::Event(eb)),
///            Some(vec![TraceNode::Event(e1), TraceNode::Event(e2), TraceNode::Event(ea), TraceNode::Event(eb)]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct TraceGraph {
    /// TraceNode `i` of the graph is `TraceNode::from_index(i)`.
    graph: DiGraph<TraceNode, TraceEdgeKind>,
    threads: Vec<ThreadId>,
    writers: BTreeMap<VarId, Vec<(EventId, i64)>>,
    df_asserts: Vec<(TraceNode, TraceNode)>,
    df_conds: Vec<(TraceNode, TraceNode)>,
    intra: Vec<(TraceNode, TraceNode)>,
    trace: Trace,
}

impl TraceGraph {
    /// Builds G(pi) of a trace.
    pub fn new(trace: &Trace) -> TraceGraph {
        let n = trace.len();
        let mut graph: DiGraph<TraceNode, TraceEdgeKind> = DiGraph::with_capacity(n + 1, 3 * n);
        for i in 0..=n {
            graph.add_node(TraceNode::from_index(i));
        }
        let mut intra = Vec::new();
        let mut last: BTreeMap<ThreadId, TraceNode> = BTreeMap::new();
        for (i, e) in trace.events().iter().enumerate() {
            let node = TraceNode::Event(EventId::from_u32(i as u32));
            let prev = last.insert(e.thread, node).unwrap_or(TraceNode::Bottom);
            intra.push((prev, node));
        }
        intra.sort_unstable();
        let df_conds = data_flow_edges(trace, &depends_closure(trace, EventKind::is_cond));
        let df_asserts = data_flow_edges(trace, &depends_closure(trace, |k| k == EventKind::Assert));
        for (kind, list) in [
            (TraceEdgeKind::IntraThreadOrder, &intra),
            (TraceEdgeKind::DFConds, &df_conds),
            (TraceEdgeKind::DFAsserts, &df_asserts),
        ] {
            for &(a, b) in list {
                graph.add_edge(NodeIndex::new(a.index()), NodeIndex::new(b.index()), kind);
            }
        }
        TraceGraph {
            graph,
            threads: trace.events().iter().map(|e| e.thread).collect(),
            writers: writers_by_var(trace),
            df_asserts,
            df_conds,
            intra,
            trace: trace.clone(),
        }
    }

    /// The number of nodes (bottom included).
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// The edges of one kind, sorted by (source, target). See [`TraceGraph`] for which edges
    /// are listed and which are represented by paths.
    pub fn edges(&self, kind: TraceEdgeKind) -> impl Iterator<Item = (TraceNode, TraceNode)> + '_ {
        let list: Vec<(TraceNode, TraceNode)> = match kind {
            TraceEdgeKind::IntraThreadOrder => self.intra.clone(),
            TraceEdgeKind::DFConds => self.df_conds.clone(),
            TraceEdgeKind::DFAsserts => self.df_asserts.clone(),
            TraceEdgeKind::NonFreeOrder => {
                let mut out = Vec::new();
                for list in self.writers.values() {
                    for (i, &(a, va)) in list.iter().enumerate() {
                        for &(b, vb) in &list[i + 1..] {
                            if va != vb {
                                out.push((TraceNode::Event(a), TraceNode::Event(b)));
                            }
                        }
                    }
                }
                out.sort_unstable();
                out.dedup();
                out
            }
        };
        list.into_iter()
    }

    /// `interfere(w -> r)` of the paper for a data-flow edge `w -> r`: `r -> w'` for every
    /// later writer `w'` of a variable that `w` writes and `r` reads, and `w' -> w` for every
    /// earlier such writer; when `w` is bottom, `r -> w'` for every later writer of any
    /// variable `r` reads. Sorted; empty when `r` is bottom or a node is not in the graph.
    pub fn interfere(&self, w: TraceNode, r: TraceNode) -> Vec<(TraceNode, TraceNode)> {
        interfere_edges(&self.trace, &self.writers, w, r)
    }

    /// Every edge Algorithm 1 must cover: the [`TraceEdgeKind::DFAsserts`] edges and their
    /// interference edges, sorted, without duplicates.
    pub fn edges_to_cover(&self) -> Vec<(TraceNode, TraceNode)> {
        let mut out = self.df_asserts.clone();
        for &(w, r) in &self.df_asserts {
            out.extend(self.interfere(w, r));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether the edge `from -> to` has a cover: a path of intra-thread order, data flow into
    /// conditionals and non-free order edges from `from` to `to` (a node covers itself).
    pub fn is_covered(&self, from: TraceNode, to: TraceNode) -> bool {
        self.search(from, to).is_some()
    }

    /// One cover of `from -> to` for display: a shortest path (fewest edges of the stored
    /// graph) from `from` to `to`, both included; `None` when there is none.
    pub fn cover_witness(&self, from: TraceNode, to: TraceNode) -> Option<Vec<TraceNode>> {
        let parent = self.search(from, to)?;
        let mut path = vec![to];
        let mut at = to.index();
        while at != from.index() {
            at = parent[at - from.index()];
            path.push(TraceNode::from_index(at));
        }
        path.reverse();
        Some(path)
    }

    /// Breadth-first search from `from` over cover edges, only through nodes up to `to`
    /// (every edge goes forward). Returns the parents (indexed from `from`) when `to` is
    /// reached.
    fn search(&self, from: TraceNode, to: TraceNode) -> Option<Vec<usize>> {
        let (lo, hi) = (from.index(), to.index());
        if hi < lo || hi >= self.graph.node_count() {
            return None;
        }
        const UNSEEN: usize = usize::MAX;
        let mut parent = vec![UNSEEN; hi - lo + 1];
        parent[0] = lo;
        let mut queue = VecDeque::from([lo]);
        while let Some(u) = queue.pop_front() {
            if u == hi {
                return Some(parent);
            }
            let mut visit = |v: usize, queue: &mut VecDeque<usize>| {
                if v <= hi && parent[v - lo] == UNSEEN {
                    parent[v - lo] = u;
                    queue.push_back(v);
                }
            };
            let mut next: SmallVec<[usize; 8]> = self
                .graph
                .edges_directed(NodeIndex::new(u), Direction::Outgoing)
                .filter(|e| is_cover_kind(*e.weight()))
                .map(|e| e.target().index())
                .collect();
            // Non-free order successors: later writers of a variable u writes, with a
            // different value.
            if let TraceNode::Event(e) = TraceNode::from_index(u) {
                for w in &self.trace.event(e).writes {
                    let Some(list) = self.writers.get(&w.var) else { continue };
                    let start = list.partition_point(|&(x, _)| x <= e);
                    for &(x, v) in &list[start..] {
                        if x.index() + 1 > hi {
                            break;
                        }
                        if v != w.value {
                            next.push(x.index() + 1);
                        }
                    }
                }
            }
            next.sort_unstable();
            next.dedup();
            for v in next {
                visit(v, &mut queue);
            }
        }
        None
    }

    /// G(pi) in Graphviz DOT: one column (cluster) per thread with the events in trace order,
    /// bottom on top, each column headed by the thread's name in `threads` (indexed by thread id; `t0` where it has none),
    /// node labels from `label`. Styles: intra-thread order plain black,
    /// DFConds dashed blue, DFAsserts thick red, NonFreeOrder dotted dark green, interference
    /// edges (of the DFAsserts edges) dashed orange and labelled `interfere`. The output is
    /// deterministic.
    pub fn to_dot(&self, trace: &Trace, threads: &[&str], label: &dyn Fn(EventId) -> String) -> String {
        let mut s = String::new();
        s.push_str("digraph trace {\n  rankdir=TB;\n  newrank=true;\n  node [shape=box, fontname=\"monospace\"];\n");
        s.push_str("  n0 [label=\"⊥\", shape=circle];\n");
        let mut by_thread: BTreeMap<ThreadId, Vec<usize>> = BTreeMap::new();
        for (i, &t) in self.threads.iter().enumerate() {
            by_thread.entry(t).or_default().push(i);
        }
        for (t, events) in &by_thread {
            let name = escape(&t.name_in(threads));
            let _ = writeln!(s, "  subgraph cluster_{} {{\n    label=\"thread {name}\";\n    color=gray;", t.as_u32());
            for &i in events {
                let id = EventId::from_u32(i as u32);
                let text = if i < trace.len() { label(id) } else { id.to_string() };
                let _ = writeln!(s, "    n{} [label=\"{}: {}\"];", i + 1, id, escape(&text));
            }
            s.push_str("  }\n");
        }
        let name = |n: TraceNode| format!("n{}", n.index());
        let style = [
            (TraceEdgeKind::IntraThreadOrder, "color=black, weight=10"),
            (TraceEdgeKind::DFConds, "style=dashed, color=blue"),
            (TraceEdgeKind::DFAsserts, "penwidth=3, color=red"),
            (TraceEdgeKind::NonFreeOrder, "style=dotted, color=darkgreen, constraint=false"),
        ];
        for (kind, attrs) in style {
            for (a, b) in self.edges(kind) {
                let _ = writeln!(s, "  {} -> {} [{attrs}];", name(a), name(b));
            }
        }
        let mut interfere: Vec<(TraceNode, TraceNode)> = Vec::new();
        for &(w, r) in &self.df_asserts {
            interfere.extend(self.interfere(w, r));
        }
        interfere.sort_unstable();
        interfere.dedup();
        for (a, b) in interfere {
            let _ = writeln!(
                s,
                "  {} -> {} [style=dashed, color=orange, label=\"interfere\", constraint=false];",
                name(a),
                name(b)
            );
        }
        s.push_str("}\n");
        s
    }
}

/// Escapes a label for a double-quoted DOT string.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out
}
