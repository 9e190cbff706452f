//! LearnGoodUnder's dynamic programme against the paper's definitions written out naively:
//! on random traces with nested blocks, loop iterations and procedure calls, every cover of
//! every edge is enumerated in G(pi) with intra-thread edges between ALL pairs of a thread, and
//! the learned constraint must be the same Boolean function of its atoms as the conjunction
//! over the edges of the disjunction over their covers. The graph's queries (edges of each
//! kind, interfere, covers, witnesses) are checked against the same naive definitions, and the
//! fallback (consecutive pairs only) against all pairs on every candidate of the space.

use std::collections::{BTreeMap, BTreeSet};

use paces_constraint::{Arena, Atom, BlockId, Candidate, ItemInfo, Loc, Node as CNode, NodeId, SpaceBuilder};
use paces_testkit::Rng;
use paces_trace::{
    learn_good, lift, BlockInstance, EventId, EventKind, LearnConfig, ScopeEntry, ThreadId, Trace, TraceBuilder,
    TraceEdgeKind, TraceGraph, TraceNode, VarId,
};

/// Items per block at most; the location of item j of block b is `b * SLOTS + j`.
const SLOTS: usize = 3;

/// A random trace: per thread a top block of 1 to 3 items, each a simple statement, a loop
/// (1 or 2 iterations of a body block with 1 or 2 items, a test step before each) or a call
/// (an instance of the thread's procedure block, 1 or 2 items); threads interleaved at random.
/// Returns the trace and the item count of every block.
fn random_trace(rng: &mut Rng) -> (Trace, Vec<usize>) {
    let nthreads = 2 + rng.below(2);
    let mut blocks: Vec<usize> = Vec::new();
    let mut per_thread: Vec<Vec<Vec<ScopeEntry>>> = Vec::new();
    let entry = |block: usize, instance: u32, item: usize| ScopeEntry {
        instance: BlockInstance { block: BlockId::from_u32(block as u32), instance },
        item: Loc::from_u32((block * SLOTS + item) as u32),
    };
    for _ in 0..nthreads {
        let top = blocks.len();
        let body = top + 1;
        let proc_ = top + 2;
        let body_len = 1 + rng.below(2);
        let proc_len = 1 + rng.below(2);
        let top_len = 1 + rng.below(3);
        blocks.extend([top_len, body_len, proc_len]);
        let mut next_instance = 0u32;
        let mut scopes = Vec::new();
        for i in 0..top_len {
            match rng.below(3) {
                0 => scopes.push(vec![entry(top, 0, i)]),
                1 => {
                    for _ in 0..1 + rng.below(2) {
                        scopes.push(vec![entry(top, 0, i)]);
                        next_instance += 1;
                        for j in 0..body_len {
                            scopes.push(vec![entry(top, 0, i), entry(body, next_instance, j)]);
                        }
                    }
                }
                _ => {
                    next_instance += 1;
                    for j in 0..proc_len {
                        scopes.push(vec![entry(top, 0, i), entry(proc_, next_instance, j)]);
                    }
                }
            }
        }
        scopes.truncate(4);
        per_thread.push(scopes);
    }
    let mut b = TraceBuilder::new();
    let mut next = vec![0usize; nthreads];
    loop {
        let live: Vec<usize> = (0..nthreads).filter(|&t| next[t] < per_thread[t].len()).collect();
        if live.is_empty() {
            break;
        }
        let t = live[rng.below(live.len())];
        let scope = per_thread[t][next[t]].clone();
        next[t] += 1;
        let loc = scope.last().expect("non-empty").item;
        let kind =
            [EventKind::Plain, EventKind::Plain, EventKind::Assert, EventKind::Await, EventKind::Assume][rng.below(5)];
        let mut step = b.step(ThreadId::from_u32(t as u32), loc, scope).kind(kind);
        if kind != EventKind::Plain || rng.below(2) == 0 {
            step = step.read(VarId::from_u32(rng.below(2) as u32));
        }
        if kind == EventKind::Plain && rng.below(3) != 0 {
            step = step.write(VarId::from_u32(rng.below(2) as u32), rng.below(3) as i64);
        }
        step.push().expect("generated traces are valid");
    }
    (b.finish(), blocks)
}

fn ev(i: usize) -> TraceNode {
    TraceNode::Event(EventId::from_u32(i as u32))
}

/// The paper's `depends` closure of the selected events, recursively.
fn depends(trace: &Trace, select: impl Fn(EventKind) -> bool) -> BTreeSet<(TraceNode, TraceNode)> {
    fn go(trace: &Trace, i: usize, out: &mut BTreeSet<(TraceNode, TraceNode)>) {
        for r in &trace.events()[i].reads {
            out.insert((r.from.map_or(TraceNode::Bottom, TraceNode::Event), ev(i)));
            if let Some(w) = r.from {
                go(trace, w.index(), out);
            }
        }
    }
    let mut out = BTreeSet::new();
    for (i, e) in trace.events().iter().enumerate() {
        if select(e.kind) {
            go(trace, i, &mut out);
        }
    }
    out
}

/// The paper's interfere(w -> r).
fn interfere(trace: &Trace, w: TraceNode, r: TraceNode) -> BTreeSet<(TraceNode, TraceNode)> {
    let events = trace.events();
    let TraceNode::Event(r_id) = r else { return BTreeSet::new() };
    let read: BTreeSet<VarId> = events[r_id.index()].reads.iter().map(|x| x.var).collect();
    let relevant: BTreeSet<VarId> = match w {
        TraceNode::Bottom => read,
        TraceNode::Event(w_id) => {
            events[w_id.index()].writes.iter().map(|x| x.var).filter(|v| read.contains(v)).collect()
        }
    };
    let mut out = BTreeSet::new();
    for (i, e) in events.iter().enumerate() {
        if !e.writes.iter().any(|x| relevant.contains(&x.var)) {
            continue;
        }
        if i > r_id.index() {
            out.insert((r, ev(i)));
        }
        if let TraceNode::Event(w_id) = w {
            if i < w_id.index() {
                out.insert((ev(i), w));
            }
        }
    }
    out
}

/// Cover edges of the paper's G(pi) with their guards (`None`: no constraint): intra-thread
/// order between every pair of one thread (lifted), DFConds, non-free order. Bottom is only
/// ever a source, and its edges need no constraint.
fn cover_edges(trace: &Trace) -> BTreeMap<usize, Vec<(usize, Option<Atom>)>> {
    let events = trace.events();
    let mut out: BTreeMap<usize, Vec<(usize, Option<Atom>)>> = BTreeMap::new();
    for (x, ex) in events.iter().enumerate() {
        for (y, ey) in events.iter().enumerate().skip(x + 1) {
            if ex.thread == ey.thread {
                out.entry(x).or_default().push((y, lift(ex, ey)));
            }
            let nonfree = ex.writes.iter().any(|a| ey.writes.iter().any(|b| a.var == b.var && a.value != b.value));
            if nonfree {
                out.entry(x).or_default().push((y, None));
            }
        }
    }
    for (a, b) in depends(trace, EventKind::is_cond) {
        if let (TraceNode::Event(a), TraceNode::Event(b)) = (a, b) {
            out.entry(a.index()).or_default().push((b.index(), None));
        }
    }
    out
}

/// Every cover of `s -> t` as its set of guard atoms.
fn covers(edges: &BTreeMap<usize, Vec<(usize, Option<Atom>)>>, s: usize, t: usize) -> Vec<BTreeSet<Atom>> {
    let mut out = Vec::new();
    // Depth-first over (node, atoms so far), explicitly stacked.
    let mut stack = vec![(s, BTreeSet::new())];
    while let Some((u, atoms)) = stack.pop() {
        if u == t {
            out.push(atoms);
            continue;
        }
        for &(v, g) in edges.get(&u).map_or(&[][..], Vec::as_slice) {
            if v <= t {
                let mut next = atoms.clone();
                next.extend(g);
                stack.push((v, next));
            }
        }
    }
    out
}

/// A constraint under an assignment of truth values to its atoms.
fn eval(arena: &Arena, id: NodeId, value: &dyn Fn(Atom) -> bool) -> bool {
    match arena.node(id) {
        CNode::True => true,
        CNode::False => false,
        CNode::Atom(a) => value(*a),
        CNode::Not(c) => !eval(arena, *c, value),
        CNode::And(cs) => cs.iter().all(|&c| eval(arena, c, value)),
        CNode::Or(cs) => cs.iter().any(|&c| eval(arena, c, value)),
    }
}

#[test]
fn the_dynamic_programme_is_the_disjunction_over_all_covers() {
    let mut rng = Rng(0x00c0_ffee_1234_5678);
    let (mut checked, mut with_atoms, mut uncovered_seen, mut fallback_checked) = (0, 0, 0, 0);
    for case in 0..600 {
        let (trace, blocks) = random_trace(&mut rng);
        let graph = TraceGraph::new(&trace);

        // The graph's edges against the naive definitions.
        let df_asserts = depends(&trace, |k| k == EventKind::Assert);
        let df_conds = depends(&trace, EventKind::is_cond);
        assert_eq!(graph.edges(TraceEdgeKind::DFAsserts).collect::<BTreeSet<_>>(), df_asserts, "case {case}");
        assert_eq!(graph.edges(TraceEdgeKind::DFConds).collect::<BTreeSet<_>>(), df_conds, "case {case}");
        let edges = cover_edges(&trace);
        let nonfree: BTreeSet<(TraceNode, TraceNode)> = (0..trace.len())
            .flat_map(|x| (x + 1..trace.len()).map(move |y| (x, y)))
            .filter(|&(x, y)| {
                let (ex, ey) = (&trace.events()[x], &trace.events()[y]);
                ex.writes.iter().any(|a| ey.writes.iter().any(|b| a.var == b.var && a.value != b.value))
            })
            .map(|(x, y)| (ev(x), ev(y)))
            .collect();
        assert_eq!(graph.edges(TraceEdgeKind::NonFreeOrder).collect::<BTreeSet<_>>(), nonfree, "case {case}");
        let mut pairs = df_asserts.clone();
        for &(w, r) in &df_asserts {
            let naive = interfere(&trace, w, r);
            assert_eq!(graph.interfere(w, r).into_iter().collect::<BTreeSet<_>>(), naive, "case {case}");
            pairs.extend(naive);
        }
        assert_eq!(graph.edges_to_cover().into_iter().collect::<BTreeSet<_>>(), pairs);

        // Covers of every pair, and the learned constraint without the fallback.
        let mut arena = Arena::new();
        let learned = learn_good(&trace, &mut arena, &LearnConfig::new().fallback(false));
        let mut expected: Vec<Vec<BTreeSet<Atom>>> = Vec::new();
        let mut uncovered = 0;
        for &(s, t) in &pairs {
            let (TraceNode::Event(s), TraceNode::Event(t)) = (s, t) else {
                assert!(graph.is_covered(s, t), "an edge out of bottom is covered");
                continue;
            };
            let all = covers(&edges, s.index(), t.index());
            assert_eq!(graph.is_covered(TraceNode::Event(s), TraceNode::Event(t)), !all.is_empty(), "case {case}");
            match graph.cover_witness(TraceNode::Event(s), TraceNode::Event(t)) {
                None => uncovered += 1,
                Some(path) => {
                    assert_eq!(path.first(), Some(&TraceNode::Event(s)));
                    assert_eq!(path.last(), Some(&TraceNode::Event(t)));
                    for w in path.windows(2) {
                        let (TraceNode::Event(a), TraceNode::Event(b)) = (w[0], w[1]) else {
                            panic!("bottom inside a cover")
                        };
                        assert!(
                            edges[&a.index()].iter().any(|e| e.0 == b.index()),
                            "case {case}: {a} -> {b} is no edge"
                        );
                    }
                    expected.push(all);
                }
            }
        }
        assert_eq!(learned.uncovered, uncovered);
        assert_eq!(learned.edges, pairs.len());
        uncovered_seen += usize::from(uncovered > 0);
        let naive =
            |value: &dyn Fn(Atom) -> bool| expected.iter().all(|cs| cs.iter().any(|c| c.iter().all(|&a| value(a))));
        let mut atoms: BTreeSet<Atom> = arena.atoms(learned.constraint).into_iter().collect();
        atoms.extend(expected.iter().flatten().flatten().copied());
        let atoms: Vec<Atom> = atoms.into_iter().collect();
        with_atoms += usize::from(!atoms.is_empty());
        let assignments: Vec<u64> = if atoms.len() <= 12 {
            (0..1u64 << atoms.len()).collect()
        } else {
            (0..4096).map(|_| rng.below(usize::MAX) as u64).collect()
        };
        for bits in assignments {
            let value = |a: Atom| atoms.binary_search(&a).is_ok_and(|i| bits >> i & 1 == 1);
            assert_eq!(
                eval(&arena, learned.constraint, &value),
                naive(&value),
                "case {case}: the learned constraint differs from the covers' disjunction at {bits:b} over {atoms:?}"
            );
        }
        checked += 1;

        // The fallback (consecutive pairs of each thread) against every pair of each thread, on
        // every candidate of the space of the trace's blocks.
        let with_fallback = learn_good(&trace, &mut arena, &LearnConfig::new());
        if uncovered > 0 {
            assert!(with_fallback.fallback_used);
            let mut sb = SpaceBuilder::new();
            for (b, &len) in blocks.iter().enumerate() {
                let block = sb.block(false);
                for j in 0..SLOTS {
                    let loc = sb.loc(&format!("b{b}.{j}")).expect("fresh");
                    if j < len {
                        sb.item(block, loc, ItemInfo::SIMPLE).expect("item");
                    }
                }
            }
            let space = sb.build().expect("space");
            let Ok(candidates) = Candidate::enumerate(&space, 20_000) else { continue };
            let events = trace.events();
            let mut all_pairs = Vec::new();
            for (x, ex) in events.iter().enumerate() {
                for ey in &events[x + 1..] {
                    all_pairs.extend(lift(ex, ey).map(|a| arena.atom(a)));
                }
            }
            let all_pairs = arena.and(all_pairs);
            for c in &candidates {
                assert_eq!(arena.eval(with_fallback.constraint, c), arena.eval(all_pairs, c), "case {case}");
            }
            fallback_checked += 1;
        } else {
            assert_eq!(with_fallback.constraint, learned.constraint);
        }
    }
    println!(
        "{checked} traces checked, {with_atoms} with constraint atoms, {uncovered_seen} with an edge without cover, \
         {fallback_checked} fallbacks compared on every candidate"
    );
    assert!(with_atoms > 100 && uncovered_seen > 10 && fallback_checked > 10, "the generator is too tame");
}
