//! Measures building and evaluating constraints of one million arena nodes (nodes per second): the baseline for LearnGoodUnder.
//!
//! Two shapes: a chain nested a million deep (`x /\ (y \/ (z /\ ...))`, no sharing) and a
//! layered DAG shaped like LearnGoodUnder's reachability formulas (`reach(v) = OR over
//! predecessors u of reach(u) /\ guard`), where every node is shared by several parents.
//! Throughput is reported in arena nodes reachable from the root.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use paces_constraint::{Arena, Atom, Candidate, ItemInfo, Loc, NodeId, Space, SpaceBuilder};

const ITEMS: usize = 64;
const NODES: usize = 1_000_000;

/// One block of `ITEMS` free items, and a candidate that interleaves its two halves.
fn space() -> (Space, Vec<Loc>, Candidate) {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let locs: Vec<Loc> = (0..ITEMS)
        .map(|i| {
            let loc = b.loc(&format!("s{i}")).expect("fresh name");
            b.item(block, loc, ItemInfo::SIMPLE).expect("fresh item");
            loc
        })
        .collect();
    let space = b.build().expect("valid space");
    let order = (0..ITEMS / 2).flat_map(|k| [locs[ITEMS / 2 + k], locs[k]]).collect();
    let candidate = Candidate::new(&space, vec![order], &[]).expect("a permutation without fixed pairs");
    (space, locs, candidate)
}

/// An order atom between two distinct items, chosen by `i`.
fn atom_of(i: usize, locs: &[Loc]) -> Atom {
    let a = i % ITEMS;
    let b = (a + 1 + (i / ITEMS) % (ITEMS - 1)) % ITEMS;
    Atom::Order(locs[a], locs[b])
}

/// `x_n op (... (x_1 \/ x_0))`, alternating and/or: one new node per step.
fn chain(arena: &mut Arena, locs: &[Loc]) -> NodeId {
    let mut cur = arena.atom(atom_of(0, locs));
    let mut i = 1;
    while arena.len() < NODES {
        let x = arena.atom(atom_of(i, locs));
        cur = if i % 2 == 0 { arena.and([x, cur]) } else { arena.or([x, cur]) };
        i += 1;
    }
    cur
}

/// Layers of `WIDTH` disjunctions, each over three predecessors of the layer below guarded by
/// an atom; the root is the disjunction of the last layer.
fn layered(arena: &mut Arena, locs: &[Loc]) -> NodeId {
    const WIDTH: usize = 1000;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    let mut layer: Vec<NodeId> = (0..WIDTH).map(|_| arena.atom(atom_of(next(), locs))).collect();
    while arena.len() + 4 * WIDTH < NODES {
        layer = (0..WIDTH)
            .map(|v| {
                let guarded: Vec<NodeId> = [v, (v + 1) % WIDTH, next() % WIDTH]
                    .into_iter()
                    .map(|u| {
                        let guard = arena.atom(atom_of(next(), locs));
                        arena.and([layer[u], guard])
                    })
                    .collect();
                arena.or(guarded)
            })
            .collect();
    }
    arena.or(layer)
}

/// Builds one shape of constraint in an arena and returns its root.
type Shape = fn(&mut Arena, &[Loc]) -> NodeId;

fn bench(c: &mut Criterion) {
    let (_space, locs, candidate) = space();
    let shapes: [(&str, Shape); 2] = [("chain", chain), ("layered", layered)];
    let mut group = c.benchmark_group("constraint");
    for (name, build) in shapes {
        let mut arena = Arena::new();
        let root = build(&mut arena, &locs);
        let nodes = arena.stats(root).nodes as u64;
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(BenchmarkId::new("eval", name), |b| b.iter(|| arena.eval(black_box(root), &candidate)));
        group.bench_function(BenchmarkId::new("build", name), |b| {
            b.iter(|| {
                let mut arena = Arena::new();
                black_box(build(&mut arena, &locs))
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
