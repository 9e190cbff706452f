//! Measures the solver facade: encoding a space with one constraint, and solving it to the optimum, per backend.
//!
//! Spaces have one block of 10, 50 or 200 items (pairs up to four apart fixed with
//! probability 0.3, some awaits, some items excluded from sections, weights 1 and 2).
//! Constraints have 10^3, 10^4 or 10^5 arena nodes and are shaped like learned constraints:
//! a conjunction of disjunctions of small conjunctions of atoms, with shared sub-formulas,
//! built so that a hidden target candidate (the original program with up to n/5 adjacent
//! swaps) satisfies them, so every instance has a solution; about one clause in fifty asks
//! for a pair that the target inverts, so the optimum is not the original program (unless
//! the target happens to be it).
//!
//! `encode` is `Solver::new` plus `Solver::add`; `solve` is `Solver::solve` on a freshly
//! encoded solver (lexicographic minimisation included); `total` is both.
//! `cargo bench -p paces-benches --bench solver` (add `--features cadical` for CaDiCaL).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use paces_constraint::{Arena, Atom, Candidate, ItemInfo, Loc, NodeId, Space, SpaceBuilder, Waits};
use paces_solver::{BackendKind, Solver, SolverConfig};

/// SplitMix64: a tiny deterministic generator, so runs are comparable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

fn space(n: usize, rng: &mut Rng) -> (Space, Vec<Loc>) {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let locs: Vec<Loc> = (0..n)
        .map(|i| {
            let loc = b.loc(&format!("s{i}")).expect("fresh name");
            let weight = 1 + u32::from(i % 3 == 0);
            let info = match i % 10 {
                3 => ItemInfo::new(weight, Waits::First, true),
                7 if i % 20 == 7 => ItemInfo::compound(weight, Waits::Inside),
                _ => ItemInfo::new(weight, Waits::Never, true),
            };
            b.item(block, loc, info).expect("fresh item");
            loc
        })
        .collect();
    for i in 0..n {
        for j in i + 1..n.min(i + 5) {
            if rng.chance(0.3) {
                b.fix(locs[i], locs[j]).expect("in original order");
            }
        }
    }
    (b.build().expect("valid space"), locs)
}

/// The original program with about n/5 random adjacent swaps that the space allows.
fn target(space: &Space, locs: &[Loc], rng: &mut Rng) -> Candidate {
    let mut order = locs.to_vec();
    for _ in 0..locs.len() / 5 {
        let p = rng.below(order.len() - 1);
        if !space.is_fixed(order[p], order[p + 1]) {
            order.swap(p, p + 1);
        }
    }
    Candidate::new(space, vec![order], &[]).expect("adjacent swaps of unfixed pairs")
}

/// A constraint of about `nodes` arena nodes that `target` satisfies; some of its clauses
/// ask for a pair that `target` inverts, so the original program does not satisfy it.
fn constraint(arena: &mut Arena, locs: &[Loc], target: &Candidate, nodes: usize, rng: &mut Rng) -> NodeId {
    let n = locs.len();
    // The pairs the target inverts: a clause of one of them forces a swap.
    let inverted: Vec<(Loc, Loc)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (locs[i], locs[j])))
        .filter(|&(a, b)| target.position(b) < target.position(a))
        .collect();
    let mut clauses = Vec::new();
    let mut conjunctions: Vec<NodeId> = Vec::new();
    while arena.len() < nodes {
        if !inverted.is_empty() && rng.chance(0.02) {
            let (a, b) = inverted[rng.below(inverted.len())];
            clauses.push(arena.order(b, a));
            continue;
        }
        let mut disjuncts = Vec::new();
        let width = 2 + rng.below(2);
        let satisfied = rng.below(width);
        for d in 0..width {
            // Share an earlier conjunction now and then, as learned constraints do.
            if d != satisfied && !conjunctions.is_empty() && rng.chance(0.3) {
                disjuncts.push(conjunctions[rng.below(conjunctions.len())]);
                continue;
            }
            let mut atoms = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let a = rng.below(n);
                // Mostly near neighbours: far pairs rarely matter to a repair.
                let b = (a + 1 + rng.below(6)).min(n - 1);
                let atom = if rng.chance(0.1) { Atom::atomic(locs[a], locs[b]) } else { Atom::Order(locs[a], locs[b]) };
                let x = arena.atom(atom);
                let x = if d == satisfied && !atom.holds(target) { arena.not(x) } else { x };
                atoms.push(x);
            }
            let conj = arena.and(atoms);
            conjunctions.push(conj);
            disjuncts.push(conj);
        }
        clauses.push(arena.or(disjuncts));
    }
    let root = arena.and(clauses);
    assert!(arena.eval(root, target), "the target satisfies the constraint by construction");
    root
}

struct Case {
    items: usize,
    nodes: usize,
    space: Space,
    arena: Arena,
    root: NodeId,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for items in [10, 50, 200] {
        for nodes in [1_000, 10_000, 100_000] {
            let mut rng = Rng(items as u64 * 1_000_003 + nodes as u64);
            let (space, locs) = space(items, &mut rng);
            let target = target(&space, &locs, &mut rng);
            let mut arena = Arena::new();
            let root = constraint(&mut arena, &locs, &target, nodes, &mut rng);
            out.push(Case { items, nodes, space, arena, root });
        }
    }
    out
}

fn encode(case: &Case, backend: BackendKind) -> Solver {
    let mut solver = Solver::new(&case.space, SolverConfig::new().backend(backend)).expect("encodable space");
    solver.add(&case.arena, case.root, "learned").expect("a node of the arena");
    solver
}

fn bench(c: &mut Criterion) {
    let cases = cases();
    for &backend in BackendKind::available() {
        let mut group = c.benchmark_group(format!("solver/{backend}"));
        group.sample_size(10).warm_up_time(Duration::from_millis(200)).measurement_time(Duration::from_secs(1));
        for case in &cases {
            let id = format!("{}items/{}nodes", case.items, case.nodes);
            let stats = encode(case, backend).stats();
            eprintln!("{backend} {id}: {} vars, {} clauses", stats.vars, stats.clauses);
            group.bench_function(BenchmarkId::new("encode", &id), |b| b.iter(|| black_box(encode(case, backend))));
            group.bench_function(BenchmarkId::new("solve", &id), |b| {
                b.iter_batched(
                    || encode(case, backend),
                    |mut solver| black_box(solver.solve().expect("solvable")),
                    BatchSize::LargeInput,
                )
            });
            group.bench_function(BenchmarkId::new("total", &id), |b| {
                b.iter(|| black_box(encode(case, backend).solve().expect("solvable")))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
