//! The conformance suite, run against every backend compiled in (eager and lazy encodings): the solver agrees with brute
//! force over `Candidate::enumerate` on random small spaces and random constraints.

use paces_constraint::{Arena, Atom, Candidate, Cost, ItemInfo, Loc, NodeId, Space, SpaceBuilder, Waits};
use paces_solver::{BackendKind, Outcome, Solver, SolverConfig};
use proptest::prelude::*;

/// One block: per item (kind selector, weight), closed, and a bit set of direct fixed pairs.
type BlockSpec = (Vec<(u8, u32)>, bool, u32);

fn block_spec() -> impl Strategy<Value = BlockSpec> {
    (prop::collection::vec((0u8..10, 1u32..=3), 1..=5), prop::bool::weighted(0.2), any::<u32>())
}

fn space_spec() -> impl Strategy<Value = Vec<BlockSpec>> {
    prop::collection::vec(block_spec(), 1..=3)
}

/// Builds the space; kinds: mostly simple statements, some compound items without waits, some
/// awaits, few compound items waiting inside (compound items of weight 2 or more may be
/// sections alone), few items kept out of sections (simple, kind 8, and compound, kind 9).
fn build_space(spec: &[BlockSpec]) -> Space {
    let mut b = SpaceBuilder::new();
    let mut count = 0;
    for (items, closed, fixed_bits) in spec {
        let block = b.block(*closed);
        let mut locs = Vec::new();
        for &(kind, weight) in items {
            let loc = b.loc(&format!("i{count}")).unwrap();
            count += 1;
            let info = match kind {
                0..=3 => ItemInfo::new(weight, Waits::Never, true),
                4 => ItemInfo::compound(weight, Waits::Never),
                5 | 6 => ItemInfo::new(weight, Waits::First, true),
                7 => ItemInfo::compound(weight, Waits::Inside),
                8 => ItemInfo::new(weight, Waits::Never, true).never_in_section(),
                _ => ItemInfo::compound(weight, Waits::Never).never_in_section(),
            };
            b.item(block, loc, info).unwrap();
            locs.push(loc);
        }
        let mut bit = 0;
        for i in 0..locs.len() {
            for j in i + 1..locs.len() {
                // About one pair in four is fixed.
                if fixed_bits >> (bit % 32) & 1 == 1 && (fixed_bits >> ((bit + 7) % 32)) & 1 == 1 {
                    b.fix(locs[i], locs[j]).unwrap();
                }
                bit += 1;
            }
        }
    }
    b.build().unwrap()
}

/// One step of a random constraint DAG: (kind, three operand selectors).
type Op = (u8, u16, u16, u16);

fn dag_spec(len: usize) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec((0u8..10, any::<u16>(), any::<u16>(), any::<u16>()), 1.max(len / 3)..=len)
}

/// Builds a random formula over atoms of the space; returns its root.
fn build_constraint(space: &Space, arena: &mut Arena, ops: &[Op]) -> NodeId {
    let items: Vec<Loc> = space.blocks().flat_map(|b| space.items(b).to_vec()).collect();
    let mut nodes: Vec<NodeId> = Vec::new();
    let atom_pair = |x: u16, y: u16| {
        let a = items[x as usize % items.len()];
        // Mostly a partner from the same block; sometimes any item (the atom is then false).
        let b = if y % 5 == 0 {
            items[y as usize / 5 % items.len()]
        } else {
            let block = space.items(space.block_of(a).unwrap());
            block[y as usize % block.len()]
        };
        (a, b)
    };
    for &(kind, x, y, z) in ops {
        // Operands are mostly recent nodes, so that formulas nest deeply.
        let pick = |k: u16| {
            let len = nodes.len();
            if k % 3 == 0 {
                nodes[k as usize / 3 % len]
            } else {
                nodes[len - 1 - (k as usize / 3 % len.min(3))]
            }
        };
        let node = match kind {
            _ if nodes.is_empty() || kind <= 1 => {
                let (a, b) = atom_pair(x, y);
                arena.order(a, b)
            }
            2 => {
                let (a, b) = atom_pair(x, y);
                arena.atomic(a, b)
            }
            3 | 4 => arena.not(nodes[nodes.len() - 1]),
            5 | 6 => arena.and([pick(x), pick(y), pick(z)].into_iter().take(2 + (z % 2) as usize)),
            7 | 8 => arena.or([pick(x), pick(y), pick(z)].into_iter().take(2 + (z % 2) as usize)),
            _ => arena.not(pick(x)),
        };
        nodes.push(node);
    }
    *nodes.last().unwrap()
}

/// Every candidate of the space, or `None` when there are too many for a quick test.
fn all_candidates(space: &Space) -> Option<Vec<Candidate>> {
    Candidate::enumerate(space, 4000).ok()
}

fn optimum(space: &Space, arena: &Arena, roots: &[NodeId], all: &[Candidate]) -> Option<Cost> {
    all.iter().filter(|c| roots.iter().all(|&r| arena.eval(r, c))).map(|c| c.cost(space)).min()
}

/// The conjunction that gives each of `atoms` the value of its bit of `mask` (bit k for atom k).
fn pinned(atoms: &[Atom], mask: u32) -> (Arena, NodeId) {
    let mut arena = Arena::new();
    let lits: Vec<NodeId> = atoms
        .iter()
        .enumerate()
        .map(|(k, &a)| {
            let x = arena.atom(a);
            if mask >> k & 1 == 1 {
                x
            } else {
                arena.not(x)
            }
        })
        .collect();
    let root = arena.and(lits);
    (arena, root)
}

macro_rules! conformance {
    ($name:ident, $config:expr) => {
        mod $name {
            use super::*;

            fn solver(space: &Space) -> Solver {
                Solver::new(space, $config).unwrap()
            }

            proptest! {
                #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

                /// Satisfiable exactly when brute force finds a candidate; the cost is the
                /// brute-force optimum; the candidate satisfies the constraint by `eval`.
                #[test]
                fn optimum_matches_brute_force(spec in space_spec(), ops in dag_spec(12)) {
                    let space = build_space(&spec);
                    let all = all_candidates(&space);
                    prop_assume!(all.is_some());
                    let all = all.unwrap();
                    let mut arena = Arena::new();
                    let formula = build_constraint(&space, &mut arena, &ops);
                    // The formula and its negation: every node is needed in both polarities.
                    let negated = arena.not(formula);
                    for root in [formula, negated] {
                        let expected = optimum(&space, &arena, &[root], &all);
                        let mut solver = solver(&space);
                        solver.add(&arena, root, "random").unwrap();
                        match solver.solve().unwrap() {
                            Outcome::Solution(s) => {
                                prop_assert!(arena.eval(root, &s.candidate));
                                prop_assert_eq!(Some(s.cost), expected);
                                prop_assert_eq!(s.cost, s.candidate.cost(&space));
                                prop_assert_eq!(Candidate::apply(&space, &s.transformations).unwrap(), s.candidate);
                            }
                            Outcome::Unsat(u) => {
                                prop_assert_eq!(expected, None);
                                prop_assert_eq!(u.conflict.len(), 1);
                                prop_assert_eq!(&u.conflict[0].name, "random");
                            }
                        }
                    }
                }
            }

            proptest! {
                #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

                /// Adding constraints one by one (solving after each) ends at the optimum of a
                /// fresh solver given all of them, and every step matches brute force.
                #[test]
                fn incremental_matches_fresh(spec in space_spec(), dags in prop::collection::vec(dag_spec(6), 2..=4)) {
                    let space = build_space(&spec);
                    let all = all_candidates(&space);
                    prop_assume!(all.is_some());
                    let all = all.unwrap();
                    let mut arena = Arena::new();
                    let mut roots = Vec::new();
                    let mut step = solver(&space);
                    let mut last = None;
                    for (k, ops) in dags.iter().enumerate() {
                        let formula = build_constraint(&space, &mut arena, ops);
                        // Every other constraint negated, so shared nodes are needed both ways.
                        let root = if k % 2 == 1 { arena.not(formula) } else { formula };
                        roots.push(root);
                        step.add(&arena, root, &format!("c{k}")).unwrap();
                        let outcome = step.solve().unwrap();
                        let cost = outcome.solution().map(|s| s.cost);
                        prop_assert_eq!(cost, optimum(&space, &arena, &roots, &all));
                        if let Some(s) = outcome.solution() {
                            prop_assert!(roots.iter().all(|&r| arena.eval(r, &s.candidate)));
                        }
                        last = Some(cost);
                    }
                    let mut fresh = solver(&space);
                    for (k, &root) in roots.iter().enumerate() {
                        fresh.add(&arena, root, &format!("c{k}")).unwrap();
                    }
                    let cost = fresh.solve().unwrap().solution().map(|s| s.cost);
                    prop_assert_eq!(Some(cost), last);
                }

                /// `k_best` lists distinct candidates in non-decreasing cost, and its costs are
                /// the brute-force costs in order; afterwards the optimum is reachable again.
                #[test]
                fn k_best_matches_brute_force(spec in space_spec(), ops in dag_spec(8), k in 1usize..8) {
                    let space = build_space(&spec);
                    let all = all_candidates(&space);
                    prop_assume!(all.is_some());
                    let all = all.unwrap();
                    let mut arena = Arena::new();
                    let root = build_constraint(&space, &mut arena, &ops);
                    let mut expected: Vec<Cost> =
                        all.iter().filter(|c| arena.eval(root, c)).map(|c| c.cost(&space)).collect();
                    expected.sort_unstable();
                    expected.truncate(k);
                    let mut solver = solver(&space);
                    solver.add(&arena, root, "random").unwrap();
                    let best = solver.k_best(k).unwrap();
                    let costs: Vec<Cost> = best.iter().map(|s| s.cost).collect();
                    prop_assert_eq!(&costs, &expected);
                    for (i, s) in best.iter().enumerate() {
                        prop_assert!(arena.eval(root, &s.candidate));
                        prop_assert!(best[..i].iter().all(|t| t.candidate != s.candidate));
                    }
                    let again = solver.solve().unwrap().solution().map(|s| s.cost);
                    prop_assert_eq!(again, expected.first().copied());
                }
            }

            /// Every combination of atom values over a small block: satisfiable exactly when
            /// some candidate gives the atoms those values, at the cheapest such candidate's
            /// cost. Three items: all `Order` and `Atomic` atoms (`[a; a]` of the weight-2 item
            /// too), every kind, with and without a fixed pair, open and closed. Four items:
            /// the `Atomic` atoms (sections of up to four items, contiguity and transitivity,
            /// `[a; a]` of the weight-2 items), every kind. Kind 7 at a weight-2 item is a
            /// compound item waiting inside that may be a section alone.
            #[test]
            fn exhaustive_atom_combinations() {
                let roles = |code: usize, n: usize| -> Vec<(u8, u32)> {
                    (0..n).map(|i| ([0u8, 5, 7][code / 3usize.pow(i as u32) % 3], 1 + (i as u32 % 2))).collect()
                };
                let mut checked = 0;
                for (n, with_order) in [(3usize, true), (4, false)] {
                    for code in 0..3usize.pow(n as u32) {
                        for (closed, fixed) in [(false, 0u32), (false, u32::MAX), (true, 0)] {
                            if closed && code > 0 {
                                continue;
                            }
                            let space = build_space(&[(roles(code, n), closed, fixed)]);
                            let all = Candidate::enumerate(&space, 100_000).unwrap();
                            let items = space.items(space.blocks().next().unwrap()).to_vec();
                            let mut atoms = Vec::new();
                            for i in 0..n {
                                for j in 0..n {
                                    if with_order && i != j {
                                        atoms.push(Atom::Order(items[i], items[j]));
                                    }
                                    if i < j || (i == j && i % 2 == 1) {
                                        atoms.push(Atom::atomic(items[i], items[j]));
                                    }
                                }
                            }
                            for mask in 0..1u32 << atoms.len() {
                                let (arena, root) = pinned(&atoms, mask);
                                let expected = optimum(&space, &arena, &[root], &all);
                                let mut solver = solver(&space);
                                solver.add(&arena, root, "pin").unwrap();
                                let got = solver.solve().unwrap().solution().map(|s| s.cost);
                                assert_eq!(got, expected, "space {space:?}, atoms {atoms:?}, mask {mask:b}");
                                checked += 1;
                            }
                        }
                    }
                }
                assert!(checked > 10_000);
            }

            /// Items kept out of sections, every combination of `Atomic` atom values over four
            /// items (simple, compound waiting inside, kept compound, kept simple): the solver
            /// agrees with the enumeration, which never puts a kept item in a section.
            #[test]
            fn kept_items_atom_combinations() {
                let roles = |code: usize| -> Vec<(u8, u32)> {
                    (0..4).map(|i| ([0u8, 7, 9, 8][code >> (2 * i) & 3], 2)).collect()
                };
                let mut checked = 0;
                for code in 0..256usize {
                    let space = build_space(&[(roles(code), false, 0)]);
                    let all = Candidate::enumerate(&space, 100_000).unwrap();
                    let items = space.items(space.blocks().next().unwrap()).to_vec();
                    let kept: Vec<Loc> = items.iter().copied().filter(|&l| !space.may_be_in_section(l)).collect();
                    assert!(all.iter().all(|c| kept.iter().all(|&k| c.section_of(k).is_none())));
                    let mut atoms = Vec::new();
                    for i in 0..4 {
                        for j in i..4 {
                            atoms.push(Atom::atomic(items[i], items[j]));
                        }
                    }
                    for mask in (0..1u32 << atoms.len()).step_by(7) {
                        let (arena, root) = pinned(&atoms, mask);
                        let expected = optimum(&space, &arena, &[root], &all);
                        let mut solver = solver(&space);
                        solver.add(&arena, root, "pin").unwrap();
                        let got = solver.solve().unwrap();
                        assert_eq!(got.solution().map(|s| s.cost), expected, "space {space:?}, mask {mask:b}");
                        if let Some(s) = got.solution() {
                            assert!(kept.iter().all(|&k| s.candidate.section_of(k).is_none()));
                        }
                        checked += 1;
                    }
                }
                assert!(checked > 10_000);
            }

            proptest! {
                #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

                /// On blocks too large for brute force, all clauses up front and clauses on
                /// demand give optima of one cost, and both candidates satisfy the constraints.
                #[test]
                fn eager_and_lazy_agree_on_larger_blocks(
                    items in prop::collection::vec((0u8..10, 1u32..=3), 8..=16),
                    fixed in any::<u32>(),
                    dags in prop::collection::vec(dag_spec(30), 1..=3),
                ) {
                    let space = build_space(&[(items, false, fixed)]);
                    let mut arena = Arena::new();
                    let roots: Vec<NodeId> = dags.iter().map(|ops| build_constraint(&space, &mut arena, ops)).collect();
                    let mut costs = Vec::new();
                    for lazy_above in [usize::MAX, 0] {
                        let mut solver = Solver::new(&space, $config.lazy_above(lazy_above)).unwrap();
                        for (k, &root) in roots.iter().enumerate() {
                            solver.add(&arena, root, &format!("c{k}")).unwrap();
                        }
                        let outcome = solver.solve().unwrap();
                        if let Some(s) = outcome.solution() {
                            prop_assert!(roots.iter().all(|&r| arena.eval(r, &s.candidate)));
                        }
                        costs.push(outcome.solution().map(|s| s.cost));
                    }
                    prop_assert_eq!(costs[0], costs[1]);
                }
            }

            /// Two contradicting constraints are both named; an innocent third is not.
            #[test]
            fn unsat_names_the_conflict() {
                let space = build_space(&[(vec![(0, 1), (0, 1), (0, 1)], true, 0)]);
                let items = space.items(space.blocks().next().unwrap()).to_vec();
                let mut arena = Arena::new();
                let ab = arena.order(items[0], items[1]);
                let ba = arena.order(items[1], items[0]);
                let bc = arena.order(items[1], items[2]);
                let mut solver = solver(&space);
                solver.add(&arena, ab, "keep i0 before i1").unwrap();
                solver.add(&arena, bc, "keep i1 before i2").unwrap();
                solver.add(&arena, ba, "move i1 before i0").unwrap();
                let Outcome::Unsat(why) = solver.solve().unwrap() else { panic!("expected a conflict") };
                let names: Vec<&str> = why.conflict.iter().map(|c| c.name.as_str()).collect();
                assert_eq!(names, ["keep i0 before i1", "move i1 before i0"]);
                assert_eq!(
                    why.explanation,
                    "no candidate program satisfies these constraints together:\n  \
                     c0 `keep i0 before i1`: i0 <= i1\n  c2 `move i1 before i0`: i1 <= i0"
                );
            }

            /// The same input gives the same answer.
            #[test]
            fn deterministic() {
                let spec = vec![(vec![(0, 1), (5, 2), (0, 1), (0, 3)], false, 0), (vec![(0, 1); 4], false, 0)];
                let space = build_space(&spec);
                let mut arena = Arena::new();
                let ops: Vec<Op> = (0..30u16).map(|k| ((k % 10) as u8, k * 7, k * 13 + 1, k * 3 + 2)).collect();
                let root = build_constraint(&space, &mut arena, &ops);
                let run = || {
                    let mut s = solver(&space);
                    s.add(&arena, root, "c").unwrap();
                    (s.solve().unwrap(), s.k_best(5).unwrap())
                };
                assert_eq!(run(), run());
            }
        }
    };
}

conformance!(batsat, SolverConfig::new().backend(BackendKind::Batsat));
// Every block lazy: per-triple clauses only when a model violates them.
conformance!(batsat_lazy, SolverConfig::new().backend(BackendKind::Batsat).lazy_above(0));
#[cfg(feature = "cadical")]
conformance!(cadical, SolverConfig::new().backend(BackendKind::Cadical));
#[cfg(feature = "cadical")]
conformance!(cadical_lazy, SolverConfig::new().backend(BackendKind::Cadical).lazy_above(0));
