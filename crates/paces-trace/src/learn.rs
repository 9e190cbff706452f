//! LearnGoodUnder: the paper's Algorithm 1, a sound regression-preventing constraint from a
//! good trace.

use std::collections::{BTreeMap, VecDeque};
use std::hash::Hash;

use paces_constraint::{Arena, Atom, Loc, NodeId};
use rustc_hash::FxHashMap;

use crate::graph::{data_flow_edges, depends_closure, interfere_edges, writers_by_var, TraceNode};
use crate::model::{lift, BlockInstance, EventKind, Trace, VarId};
use crate::ThreadId;

/// Which LearnGoodUnder to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// The paper's Algorithm 1: the recursive `depends` closure, non-free order edges, and the
    /// disjunction over all covers of every edge.
    #[default]
    Full,
    /// The original tool's simplification: only direct reads-from edges into assertions and
    /// conditionals (no recursive `depends`), no non-free order edges, and one cover per edge
    /// (the first a breadth-first search finds) instead of the disjunction over all covers.
    Simplified,
}

/// How [`learn_good`] learns; consuming setters, each documenting its default.
#[derive(Clone, Debug)]
pub struct LearnConfig {
    fallback: bool,
    variant: Variant,
}

impl Default for LearnConfig {
    fn default() -> Self {
        LearnConfig { fallback: true, variant: Variant::Full }
    }
}

impl LearnConfig {
    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether an edge without a cover makes the result the fallback: every intra-thread
    /// order of the trace, lifted and conjoined (the paper's line 3). When off (as in the
    /// original tool), an edge without a cover contributes nothing, and the result is then not
    /// guaranteed to prevent regressions. Default: true.
    pub fn fallback(mut self, on: bool) -> Self {
        self.fallback = on;
        self
    }

    /// Which algorithm to run. Default: [`Variant::Full`].
    pub fn variant(mut self, variant: Variant) -> Self {
        self.variant = variant;
        self
    }
}

/// What [`learn_good`] learned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Learned {
    /// The regression-preventing constraint, a node of the caller's arena.
    pub constraint: NodeId,
    /// Whether some edge had no cover and the fallback (every intra-thread order frozen) was
    /// returned.
    pub fallback_used: bool,
    /// The edges that needed a cover: the DFAsserts edges and their interference edges,
    /// without duplicates.
    pub edges: usize,
    /// How many of them had no cover.
    pub uncovered: usize,
}

/// LearnGoodUnder (the paper's Algorithm 1) on a good trace: a constraint over the program's
/// items that no program satisfying it can turn the trace into a bad one by its reorderings,
/// atomic sections and free switches (Theorem 1), built into `arena`.
///
/// For every DFAsserts edge and every edge of its `interfere` set, the constraint holds the
/// disjunction over all covers of the edge of the conjunction of the lifted intra-thread
/// pairs on the cover ([`lift`]); the disjunction is computed by dynamic programming over the
/// trace-analysis graph, which is a DAG, so covers are never enumerated and shared
/// sub-formulas are stored once. An edge out of bottom is covered by the direct intra-thread
/// edge from bottom and contributes `true`. If an edge has no cover and the fallback is on,
/// the result is the conjunction of every lifted intra-thread pair of the trace instead.
///
/// The trace should be good: the learned constraint speaks of keeping it good. Blocked steps
/// of a deadlock trace are ignored.
///
/// # Example
/// See the crate documentation.
pub fn learn_good(trace: &Trace, arena: &mut Arena, config: &LearnConfig) -> Learned {
    let (asserts, conds): (Vec<bool>, Vec<bool>) = match config.variant {
        Variant::Full => {
            (depends_closure(trace, |k| k == EventKind::Assert), depends_closure(trace, EventKind::is_cond))
        }
        Variant::Simplified => (
            trace.events().iter().map(|e| e.kind == EventKind::Assert).collect(),
            trace.events().iter().map(|e| e.kind.is_cond()).collect(),
        ),
    };
    let df_asserts = data_flow_edges(trace, &asserts);
    let writers = writers_by_var(trace);
    let mut pairs = df_asserts.clone();
    for &(w, r) in &df_asserts {
        pairs.extend(interfere_edges(trace, &writers, w, r));
    }
    pairs.sort_unstable();
    pairs.dedup();

    let covers = match config.variant {
        Variant::Full => {
            let graph = CoverGraph::build(trace, &conds);
            Dp::new(&graph, trace, &conds).run(arena, &pairs)
        }
        Variant::Simplified => simplified_covers(trace, &conds, &pairs, arena),
    };
    let fals = arena.constant(false);
    let uncovered = covers.iter().filter(|&&f| f == fals).count();
    if uncovered > 0 && config.fallback {
        // The cover formulas built so far stay in the arena unused: deciding coverage first
        // would cost a second pass over the graph every time.
        return Learned { constraint: fallback(trace, arena), fallback_used: true, edges: pairs.len(), uncovered };
    }
    let constraint = arena.and(covers.into_iter().filter(|&f| f != fals));
    Learned { constraint, fallback_used: false, edges: pairs.len(), uncovered }
}

/// The fallback: every intra-thread pair of the trace, lifted and conjoined.
///
/// Only consecutive events of each thread are lifted: that is equivalent to all pairs.
/// Consecutive events of a thread stand in consecutive items of every block instance they
/// share (a thread never returns to an item or an instance it left), so the lifted pairs of
/// consecutive events are exactly the pairs of items visited one after the other in each
/// block instance, and every other lifted pair `Order(a, c)` follows from a chain
/// `Order(a, b) /\ Order(b, c)`: the order atoms are transitive on every candidate (two
/// items of an atomic section count as ordered both ways, and a section is a run of
/// consecutive items, so an item between two items of a section is in it).
pub(crate) fn fallback(trace: &Trace, arena: &mut Arena) -> NodeId {
    let mut last: FxHashMap<ThreadId, usize> = FxHashMap::default();
    let mut atoms: Vec<Atom> = Vec::new();
    for (i, e) in trace.events().iter().enumerate() {
        if let Some(p) = last.insert(e.thread, i) {
            atoms.extend(lift(&trace.events()[p], e));
        }
    }
    atoms.sort_unstable();
    atoms.dedup();
    let nodes: Vec<NodeId> = atoms.into_iter().map(|a| arena.atom(a)).collect();
    arena.and(nodes)
}

/// An edge under construction: (from, to, guard).
type RawEdge = (u32, u32, u32);

/// The guard of an edge that needs no constraint.
const TRUE_GUARD: u32 = u32::MAX;

/// The cover graph: G(pi)'s cover edges (intra-thread order between EVERY pair of events of
/// one thread, data flow into conditionals, non-free order) in a compact form with the same
/// paths, each path with the conjunction of the lifted intra-thread pairs on it.
///
/// All-pairs intra-thread edges and all-pairs non-free edges would be quadratic, so the graph
/// routes them through hub nodes that carry no constraint:
/// * per thread, for each block instance `I` and item `j` of `I` the thread stands in:
///   `enter(I, j)` reaches every event inside item `j` of `I`; `enter_instance(I)` reaches
///   every event inside `I`; `sofar(I, j)` is reached by every event inside item `j` of `I`
///   so far, except those of the sub-instance still open; `done(I)` by every event inside `I`.
///   Item `j` of `I`, once left, is joined to `enter(I, j')` of each later item `j'` by an edge
///   guarded `Order(j, j')`, which is exactly the lifted pair of any event inside `j` and any
///   event inside `j'`; `sofar(I, j)` feeds the events of `j` itself and each new sub-instance
///   of `j` with guard true, which is the lifted pair of events that part by instance (two
///   loop iterations, two calls) or where one scope extends the other.
///   Hence for events `u < v` of one thread the hub paths from `u` to `v` carry exactly
///   `lift(u, v)` (or a conjunction implying it), and never less.
/// * per variable and value `c`, a chain reached by the writers of `c` so far: a writer of
///   value `b` gets an edge from the chain of value `c`, where `c` is the value of the last
///   earlier writer of another value than `b`; every other earlier writer of another value
///   reaches that last one by a non-free edge, so nothing is lost.
///
/// Node ids are a topological order: every edge goes from a smaller id to a larger one.
struct CoverGraph {
    /// The node of each event.
    event_node: Vec<u32>,
    atoms: Vec<Atom>,
    out_start: Vec<u32>,
    out: Vec<(u32, u32)>,
    in_start: Vec<u32>,
    inc: Vec<(u32, u32)>,
}

#[derive(Default)]
struct GraphBuilder {
    nodes: u32,
    edges: Vec<RawEdge>,
    atoms: Vec<Atom>,
    atom_ids: FxHashMap<Atom, u32>,
}

impl GraphBuilder {
    fn node(&mut self) -> u32 {
        self.nodes += 1;
        self.nodes - 1
    }

    fn edge(&mut self, from: u32, to: u32, guard: u32) {
        debug_assert!(from < to, "cover graph edges go forward");
        self.edges.push((from, to, guard));
    }

    fn order(&mut self, a: Loc, b: Loc) -> u32 {
        let atom = Atom::Order(a, b);
        if let Some(&id) = self.atom_ids.get(&atom) {
            return id;
        }
        let id = self.atoms.len() as u32;
        self.atoms.push(atom);
        self.atom_ids.insert(atom, id);
        id
    }
}

/// One open level of a thread's scope.
struct Level {
    instance: BlockInstance,
    item: Loc,
    /// `enter(instance, item)`.
    enter: u32,
    /// `enter_instance(instance)`.
    inst_enter: u32,
    /// `sofar(instance, item)`, once some event is inside the item.
    sofar: Option<u32>,
    /// Items of the instance already left, each with its last `sofar` node.
    done: Vec<(Loc, u32)>,
}

/// Non-free order state of one variable.
struct VarChains {
    last_value: i64,
    /// The value of the last writer whose value differs from `last_value`.
    other_value: Option<i64>,
    chains: FxHashMap<i64, u32>,
}

impl CoverGraph {
    fn build(trace: &Trace, conds: &[bool]) -> CoverGraph {
        let mut b = GraphBuilder::default();
        let mut threads: FxHashMap<ThreadId, Vec<Level>> = FxHashMap::default();
        let mut vars: FxHashMap<VarId, VarChains> = FxHashMap::default();
        let mut event_node: Vec<u32> = Vec::with_capacity(trace.len());
        for (i, e) in trace.events().iter().enumerate() {
            let stack = threads.entry(e.thread).or_default();
            let scope = &e.scope;
            let mut k = 0;
            while k < stack.len()
                && k < scope.len()
                && stack[k].instance == scope[k].instance
                && stack[k].item == scope[k].item
            {
                k += 1;
            }
            // Leave the items and instances the event is not in.
            while stack.len() > k {
                let l = stack.len() - 1;
                let same_instance = l == k && k < scope.len() && stack[l].instance == scope[k].instance;
                if same_instance {
                    let level = &mut stack[l];
                    if let Some(n) = level.sofar {
                        level.done.push((level.item, n));
                    }
                    break;
                }
                let Some(level) = stack.pop() else { break };
                let done = b.node();
                for &(_, n) in &level.done {
                    b.edge(n, done, TRUE_GUARD);
                }
                if let Some(n) = level.sofar {
                    b.edge(n, done, TRUE_GUARD);
                }
                if let Some(parent) = stack.last_mut() {
                    let s = b.node();
                    if let Some(old) = parent.sofar {
                        b.edge(old, s, TRUE_GUARD);
                    }
                    b.edge(done, s, TRUE_GUARD);
                    parent.sofar = Some(s);
                }
            }
            // Enter the event's items and instances.
            for (l, entry) in scope.iter().enumerate().skip(k) {
                if l < stack.len() {
                    // A new item of an instance the thread is in.
                    let enter = b.node();
                    let level = &mut stack[l];
                    b.edge(level.inst_enter, enter, TRUE_GUARD);
                    for &(j, n) in &level.done {
                        let g = b.order(j, entry.item);
                        b.edge(n, enter, g);
                    }
                    level.item = entry.item;
                    level.enter = enter;
                    level.sofar = None;
                } else {
                    let inst_enter = b.node();
                    if let Some(parent) = stack.last() {
                        b.edge(parent.enter, inst_enter, TRUE_GUARD);
                        if let Some(s) = parent.sofar {
                            b.edge(s, inst_enter, TRUE_GUARD);
                        }
                    }
                    let enter = b.node();
                    b.edge(inst_enter, enter, TRUE_GUARD);
                    stack.push(Level {
                        instance: entry.instance,
                        item: entry.item,
                        enter,
                        inst_enter,
                        sofar: None,
                        done: Vec::new(),
                    });
                }
            }
            let v = b.node();
            if let Some(inner) = stack.last() {
                b.edge(inner.enter, v, TRUE_GUARD);
                if let Some(s) = inner.sofar {
                    b.edge(s, v, TRUE_GUARD);
                }
            }
            if conds[i] {
                for r in &e.reads {
                    if let Some(w) = r.from {
                        b.edge(event_node[w.index()], v, TRUE_GUARD);
                    }
                }
            }
            for (n, w) in e.writes.iter().enumerate() {
                if e.writes[..n].iter().any(|x| x.var == w.var) {
                    continue;
                }
                if let Some(st) = vars.get(&w.var) {
                    let other = if st.last_value != w.value { Some(st.last_value) } else { st.other_value };
                    if let Some(c) = other.and_then(|c| st.chains.get(&c)) {
                        b.edge(*c, v, TRUE_GUARD);
                    }
                }
            }
            event_node.push(v);
            if let Some(inner) = stack.last_mut() {
                let s = b.node();
                if let Some(old) = inner.sofar {
                    b.edge(old, s, TRUE_GUARD);
                }
                b.edge(v, s, TRUE_GUARD);
                inner.sofar = Some(s);
            }
            for (n, w) in e.writes.iter().enumerate() {
                if e.writes[..n].iter().any(|x| x.var == w.var) {
                    continue;
                }
                let st = vars.entry(w.var).or_insert_with(|| VarChains {
                    last_value: w.value,
                    other_value: None,
                    chains: FxHashMap::default(),
                });
                if st.last_value != w.value {
                    st.other_value = Some(st.last_value);
                    st.last_value = w.value;
                }
                let c = b.node();
                if let Some(&old) = st.chains.get(&w.value) {
                    b.edge(old, c, TRUE_GUARD);
                }
                b.edge(v, c, TRUE_GUARD);
                st.chains.insert(w.value, c);
            }
        }
        let n = b.nodes as usize;
        let csr = |key: fn(&RawEdge) -> RawEdge, edges: &mut Vec<RawEdge>| {
            edges.sort_unstable_by_key(key);
            let mut start = vec![0u32; n + 1];
            for e in edges.iter() {
                start[key(e).0 as usize + 1] += 1;
            }
            for i in 0..n {
                start[i + 1] += start[i];
            }
            let list: Vec<(u32, u32)> = edges.iter().map(|e| (key(e).1, key(e).2)).collect();
            (start, list)
        };
        let mut edges = b.edges;
        let (out_start, out) = csr(|&(f, t, g)| (f, t, g), &mut edges);
        let (in_start, inc) = csr(|&(f, t, g)| (t, f, g), &mut edges);
        CoverGraph { event_node, atoms: b.atoms, out_start, out, in_start, inc }
    }

    fn out_edges(&self, v: u32) -> &[(u32, u32)] {
        &self.out[self.out_start[v as usize] as usize..self.out_start[v as usize + 1] as usize]
    }

    fn in_edges(&self, v: u32) -> &[(u32, u32)] {
        &self.inc[self.in_start[v as usize] as usize..self.in_start[v as usize + 1] as usize]
    }
}

/// The dynamic programme over a [`CoverGraph`], with scratch space reused between runs.
struct Dp<'g> {
    graph: &'g CoverGraph,
    trace: &'g Trace,
    conds: &'g [bool],
    atom_nodes: Vec<Option<NodeId>>,
    relevant: Vec<bool>,
    value: Vec<NodeId>,
    terms: Vec<NodeId>,
}

impl<'g> Dp<'g> {
    fn new(graph: &'g CoverGraph, trace: &'g Trace, conds: &'g [bool]) -> Self {
        Dp {
            graph,
            trace,
            conds,
            atom_nodes: vec![None; graph.atoms.len()],
            relevant: Vec::new(),
            value: Vec::new(),
            terms: Vec::new(),
        }
    }

    /// Whether G(pi) has a cover edge `a -> b` (events, `a < b`) that needs no constraint: an
    /// intra-thread pair that lifts to nothing, a data-flow edge into a conditional, or a
    /// non-free order edge.
    fn true_edge(&self, a: usize, b: usize) -> bool {
        let events = self.trace.events();
        let (ea, eb) = (&events[a], &events[b]);
        (ea.thread == eb.thread && lift(ea, eb).is_none())
            || (self.conds[b] && eb.reads.iter().any(|r| r.from.is_some_and(|w| w.index() == a)))
            || ea.writes.iter().any(|x| eb.writes.iter().any(|y| x.var == y.var && x.value != y.value))
    }

    /// The cover formula of every pair (true for an edge out of bottom, false for an edge
    /// without a cover), or `true` for a pair whose cover formula is implied by another
    /// pair's, which leaves the conjunction over all pairs the same.
    ///
    /// Implied pairs: if G(pi) has an edge `t -> t'` that needs no constraint, every cover of
    /// `s -> t` extends to a cover of `s -> t'` with the same constraint, so the cover formula
    /// of `s -> t` implies that of `s -> t'`; likewise an edge `s -> s'` makes the formula of
    /// `s' -> t` imply that of `s -> t`. Each implication leads to a pair of shorter span, so
    /// following them ends at a computed pair. An implied pair whose implying pair has no cover
    /// is computed after all, so that a pair without a cover is always reported as such.
    fn run(&mut self, arena: &mut Arena, pairs: &[(TraceNode, TraceNode)]) -> Vec<NodeId> {
        let mut result = vec![arena.constant(true); pairs.len()];
        // Pairs between events that need a sweep: (pair, source, target) as event indices.
        let mut todo: Vec<(usize, usize, usize)> = Vec::new();
        for (p, &(s, t)) in pairs.iter().enumerate() {
            match (s.event(), t.event()) {
                // Out of bottom: the direct edge from bottom covers it, with no constraint.
                (None, _) => {}
                (Some(s), Some(t)) if t > s && !self.true_edge(s.index(), t.index()) => {
                    todo.push((p, s.index(), t.index()))
                }
                (Some(s), Some(t)) if t >= s => {}
                // Into bottom, or backwards: no path.
                _ => result[p] = arena.constant(false),
            }
        }
        // Find the implied pairs: per source, targets in ascending order; per target, sources
        // in descending order. Each is checked against its neighbour, the first of its group
        // and the last pair kept (cheap, and enough to catch the usual chains of writes).
        let mut implied_by: Vec<Option<usize>> = vec![None; pairs.len()];
        for by_source in [true, false] {
            let mut groups: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
            for &(p, s, t) in &todo {
                let (key, other) = if by_source { (s, t) } else { (t, s) };
                groups.entry(key).or_default().push((other, p));
            }
            for (_, mut group) in groups {
                group.sort_unstable();
                if !by_source {
                    group.reverse();
                }
                let mut kept: Option<(usize, usize)> = None;
                for k in 1..group.len() {
                    let (x, p) = group[k];
                    let candidates = [Some(group[k - 1]), Some(group[0]), kept];
                    let anchor = candidates.into_iter().flatten().find(|&(y, _)| {
                        if by_source {
                            self.true_edge(y, x)
                        } else {
                            self.true_edge(x, y)
                        }
                    });
                    match anchor {
                        Some((_, q)) if implied_by[p].is_none() => implied_by[p] = Some(q),
                        Some(_) => {}
                        None => kept = Some((x, p)),
                    }
                }
            }
        }
        let span = |p: usize| pairs[p].1.index() - pairs[p].0.index();
        let (kept, mut implied): (Vec<_>, Vec<_>) = todo.iter().partition(|&&(p, _, _)| implied_by[p].is_none());
        self.sweeps(arena, &kept, &mut result);
        // Resolve implied pairs from the shortest span up; those implied by a pair without a
        // cover are computed.
        implied.sort_unstable_by_key(|&(p, _, _)| span(p));
        let mut uncovered_anchor = Vec::new();
        for &(p, s, t) in &implied {
            let q = implied_by[p].expect("implied");
            if result[q] == arena.constant(false) {
                uncovered_anchor.push((p, s, t));
                // Marked false for now, so that pairs it implies are computed too.
                result[p] = arena.constant(false);
            }
        }
        self.sweeps(arena, &uncovered_anchor, &mut result);
        result
    }

    /// Runs the programme for the given pairs: one sweep per node serves every pair with that
    /// source (forwards) or that target (backwards), whichever serves more pairs.
    fn sweeps(&mut self, arena: &mut Arena, todo: &[(usize, usize, usize)], result: &mut [NodeId]) {
        let node = |e: usize| self.graph.event_node[e];
        let (forward, backward) = group_runs(todo.iter().map(|&(p, s, t)| (p, node(s), node(t))));
        for (s, targets) in forward {
            self.sweep(arena, s, &targets, true, result);
        }
        for (t, sources) in backward {
            self.sweep(arena, t, &sources, false, result);
        }
    }

    fn guard(&mut self, arena: &mut Arena, g: u32) -> NodeId {
        if g == TRUE_GUARD {
            return arena.constant(true);
        }
        *self.atom_nodes[g as usize].get_or_insert_with(|| arena.atom(self.graph.atoms[g as usize]))
    }

    /// One run from `start`: forwards (the disjunction over paths from `start` to each end)
    /// or backwards (from each end to `start`). Only nodes between `start` and the farthest
    /// end that lie on some path to an end are computed.
    fn sweep(&mut self, arena: &mut Arena, start: u32, ends: &[(u32, usize)], forward: bool, result: &mut [NodeId]) {
        let graph = self.graph;
        let far = if forward {
            ends.iter().map(|e| e.0).max().unwrap_or(start)
        } else {
            ends.iter().map(|e| e.0).min().unwrap_or(start)
        };
        let span = start.abs_diff(far) as usize + 1;
        // Offset of a node from `start`, in the direction of the run.
        let off = |v: u32| if forward { (v - start) as usize } else { (start - v) as usize };
        let within = |v: u32| if forward { v >= start && v <= far } else { v <= start && v >= far };
        self.relevant.clear();
        self.relevant.resize(span, false);
        for &(e, _) in ends {
            self.relevant[off(e)] = true;
        }
        // Which nodes lead to an end: scan from the far end back towards `start`.
        for d in (0..span).rev() {
            if self.relevant[d] {
                continue;
            }
            let v = if forward { start + d as u32 } else { start - d as u32 };
            let next = if forward { graph.out_edges(v) } else { graph.in_edges(v) };
            self.relevant[d] = next.iter().any(|&(u, _)| within(u) && self.relevant[off(u)]);
        }
        self.value.clear();
        self.value.resize(span, arena.constant(false));
        self.value[0] = arena.constant(true);
        for d in 1..span {
            if !self.relevant[d] {
                continue;
            }
            let v = if forward { start + d as u32 } else { start - d as u32 };
            let prev = if forward { graph.in_edges(v) } else { graph.out_edges(v) };
            self.terms.clear();
            for &(u, g) in prev {
                if !within(u) {
                    continue;
                }
                let x = self.value[off(u)];
                if x == arena.constant(false) {
                    continue;
                }
                let term = if g != TRUE_GUARD {
                    let guard = self.guard(arena, g);
                    arena.and([x, guard])
                } else {
                    x
                };
                if term == arena.constant(true) {
                    self.terms.clear();
                    self.terms.push(term);
                    break;
                }
                self.terms.push(term);
            }
            self.value[d] = arena.or(self.terms.drain(..));
        }
        for &(e, p) in ends {
            result[p] = self.value[off(e)];
        }
    }
}

/// Pairs grouped by where one run starts: per start, its (other end, pair) entries.
type Groups<K> = BTreeMap<K, Vec<(K, usize)>>;

/// Groups `(pair, source, target)` triples so that one run serves each group: by source (a
/// forward run) when the pair's source serves at least as many pairs as its target, by target
/// (a backward run) otherwise. Returns the forward and the backward groups, in `todo`'s order
/// within each group.
fn group_runs<K: Copy + Ord + Hash>(todo: impl Iterator<Item = (usize, K, K)> + Clone) -> (Groups<K>, Groups<K>) {
    let mut by_source: FxHashMap<K, usize> = FxHashMap::default();
    let mut by_target: FxHashMap<K, usize> = FxHashMap::default();
    for (_, s, t) in todo.clone() {
        *by_source.entry(s).or_default() += 1;
        *by_target.entry(t).or_default() += 1;
    }
    let mut forward: Groups<K> = BTreeMap::new();
    let mut backward: Groups<K> = BTreeMap::new();
    for (p, s, t) in todo {
        if by_source[&s] >= by_target[&t] {
            forward.entry(s).or_default().push((t, p));
        } else {
            backward.entry(t).or_default().push((s, p));
        }
    }
    (forward, backward)
}

/// The simplified variant's covers: for each pair, the first cover a breadth-first search
/// finds over consecutive intra-thread edges and direct reads-from edges into conditionals
/// (data-flow steps tried first); each maximal run of intra-thread steps on it stands for the
/// direct intra-thread edge from its first to its last event, lifted. One search serves every
/// pair with its source (searching forwards) or every pair with its target (backwards),
/// whichever serves more. The vector holds `false` for an edge without a cover.
fn simplified_covers(
    trace: &Trace,
    conds: &[bool],
    pairs: &[(TraceNode, TraceNode)],
    arena: &mut Arena,
) -> Vec<NodeId> {
    let events = trace.events();
    let n = events.len();
    const NONE: usize = usize::MAX;
    let mut next_same = vec![NONE; n];
    let mut prev_same = vec![NONE; n];
    let mut last: FxHashMap<ThreadId, usize> = FxHashMap::default();
    let mut df: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut df_rev: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in events.iter().enumerate() {
        if let Some(p) = last.insert(e.thread, i) {
            next_same[p] = i;
            prev_same[i] = p;
        }
        if conds[i] {
            for r in &e.reads {
                if let Some(w) = r.from {
                    df[w.index()].push(i);
                    df_rev[i].push(w.index());
                }
            }
        }
    }
    for list in df.iter_mut().chain(df_rev.iter_mut()) {
        list.sort_unstable();
        list.dedup();
    }
    let mut result = vec![arena.constant(true); pairs.len()];
    let mut todo: Vec<(usize, usize, usize)> = Vec::new();
    for (p, &(s, t)) in pairs.iter().enumerate() {
        match (s.event(), t.event()) {
            (None, _) => {}
            (Some(s), Some(t)) if t >= s => todo.push((p, s.index(), t.index())),
            _ => result[p] = arena.constant(false),
        }
    }
    let (forward, backward) = group_runs(todo.iter().copied());
    // The search tree: `link[v]` is v's neighbour towards the search's start, `intra[v]`
    // whether that step is an intra-thread one.
    let mut link = vec![NONE; n];
    let mut intra = vec![false; n];
    let mut lifted: Vec<Atom> = Vec::new();
    for (forwards, groups) in [(true, forward), (false, backward)] {
        for (start, ends) in groups {
            let far = if forwards {
                ends.iter().map(|e| e.0).max().unwrap_or(start)
            } else {
                ends.iter().map(|e| e.0).min().unwrap_or(start)
            };
            let (lo, hi) = (start.min(far), start.max(far));
            link[lo..=hi].fill(NONE);
            link[start] = start;
            let mut queue = VecDeque::from([start]);
            while let Some(u) = queue.pop_front() {
                let (data, same) = if forwards { (&df[u], next_same[u]) } else { (&df_rev[u], prev_same[u]) };
                for (v, is_intra) in data.iter().map(|&v| (v, false)).chain([(same, true)]) {
                    if v != NONE && (lo..=hi).contains(&v) && link[v] == NONE {
                        link[v] = u;
                        intra[v] = is_intra;
                        queue.push_back(v);
                    }
                }
            }
            for (end, p) in ends {
                if link[end] == NONE {
                    result[p] = arena.constant(false);
                    continue;
                }
                // Walk from `end` back to `start`, lifting each maximal run of intra-thread
                // steps as one pair (earlier event first).
                lifted.clear();
                let mut at = end;
                while at != start {
                    if intra[at] {
                        let run_from = at;
                        while at != start && intra[at] {
                            at = link[at];
                        }
                        let (x, y) = if forwards { (at, run_from) } else { (run_from, at) };
                        lifted.extend(lift(&events[x], &events[y]));
                    } else {
                        at = link[at];
                    }
                }
                let nodes: Vec<NodeId> = lifted.iter().map(|&a| arena.atom(a)).collect();
                result[p] = arena.and(nodes);
            }
        }
    }
    result
}
