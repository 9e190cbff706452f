//! The learned constraint stays polynomial while the covers multiply: on a ladder of two
//! threads handing a token back and forth, the one DFAsserts edge has exponentially many
//! covers, and the arena grows at most quadratically.

use paces_constraint::{Arena, BlockId, Loc};
use paces_trace::{
    learn_good, BlockInstance, EventKind, LearnConfig, ScopeEntry, ThreadId, Trace, TraceBuilder, TraceEdgeKind,
    TraceGraph, TraceNode, VarId,
};

/// Thread 0: `a_1 .. a_k; c`, thread 1: `b_1; b'_1 .. b_k; b'_k`, each thread one block of
/// distinct items. `a_1` writes z and x_1; `a_(i+1)` awaits y_i and writes x_(i+1); `b_i`
/// awaits x_i; `b'_i` writes y_i; `c` asserts z. Trace: a_1 b_1 b'_1 a_2 b_2 b'_2 .. c.
/// A cover of `a_1 -> c` passes every rung either along thread 0 (`a_i -> a_(i+1)`) or
/// across (`a_i -> b_i -> b'_i -> a_(i+1)`), each way with its own intra-thread guard.
fn ladder(k: usize) -> Trace {
    let (t0, t1) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
    let z = VarId::from_u32(0);
    let x = |i: usize| VarId::from_u32(1 + 2 * i as u32);
    let y = |i: usize| VarId::from_u32(2 + 2 * i as u32);
    let at = |t: u32, item: usize| {
        let loc = Loc::from_u32(item as u32);
        (loc, vec![ScopeEntry { instance: BlockInstance { block: BlockId::from_u32(t), instance: 0 }, item: loc }])
    };
    let mut b = TraceBuilder::new();
    for i in 0..k {
        let (loc, scope) = at(0, i);
        let mut a = b.step(t0, loc, scope).write(x(i), 1);
        a = if i == 0 { a.write(z, 1) } else { a.kind(EventKind::Await).read(y(i - 1)) };
        a.push().expect("valid");
        let (loc, scope) = at(1, k + 1 + 2 * i);
        b.step(t1, loc, scope).kind(EventKind::Await).read(x(i)).push().expect("valid");
        let (loc, scope) = at(1, k + 2 + 2 * i);
        b.step(t1, loc, scope).write(y(i), 1).push().expect("valid");
    }
    let (loc, scope) = at(0, k);
    b.step(t0, loc, scope).kind(EventKind::Assert).read(z).push().expect("valid");
    b.finish()
}

/// The number of covers of `from -> to` in the paper's G(pi) (intra-thread edges between every
/// pair of one thread), counted by dynamic programming.
fn count_covers(trace: &Trace, from: usize, to: usize) -> f64 {
    let graph = TraceGraph::new(trace);
    let conds: Vec<(usize, usize)> = graph
        .edges(TraceEdgeKind::DFConds)
        .filter_map(|(a, b)| Some((a.event()?.index(), b.event()?.index())))
        .collect();
    let mut paths = vec![0f64; trace.len()];
    paths[from] = 1.0;
    for v in from + 1..=to {
        let same_thread: f64 =
            (from..v).filter(|&u| trace.events()[u].thread == trace.events()[v].thread).map(|u| paths[u]).sum();
        let data: f64 = conds.iter().filter(|e| e.1 == v && e.0 >= from).map(|e| paths[e.0]).sum();
        paths[v] = same_thread + data;
    }
    paths[to]
}

#[test]
fn ladder_constraints_grow_polynomially_while_covers_grow_exponentially() {
    let mut rows = Vec::new();
    for k in [4, 8, 16, 32, 64, 128] {
        let trace = ladder(k);
        let n = trace.len();
        let graph = TraceGraph::new(&trace);
        let edges = graph.edges_to_cover();
        assert_eq!(edges.len(), 1, "one DFAsserts edge a_1 -> c and no interference");
        let (TraceNode::Event(from), TraceNode::Event(to)) = edges[0] else { panic!("an edge between events") };
        let covers = count_covers(&trace, from.index(), to.index());
        let mut arena = Arena::new();
        let learned = learn_good(&trace, &mut arena, &LearnConfig::new());
        assert!(!learned.fallback_used);
        let stats = arena.stats(learned.constraint);
        println!("k = {k:3}: {n:3} events, {covers:.3e} covers, {} arena nodes, constraint {stats:?}", arena.len());
        assert!(covers >= 2f64.powi(k as i32), "covers must grow exponentially");
        assert!(arena.len() <= 4 * n * n, "{} arena nodes for {n} events", arena.len());
        assert!(stats.atoms >= k, "every rung contributes its guards");
        assert!(stats.depth >= k, "the rungs nest: the constraint is no flat conjunction");
        rows.push((n as f64, arena.len() as f64));
    }
    // Growth exponent between the two largest ladders: at most quadratic.
    let (a, b) = (rows[rows.len() - 2], rows[rows.len() - 1]);
    let exponent = (b.1 / a.1).ln() / (b.0 / a.0).ln();
    println!("arena growth exponent {exponent:.2}");
    assert!(exponent <= 2.25, "arena grows like n^{exponent:.2}");
}
