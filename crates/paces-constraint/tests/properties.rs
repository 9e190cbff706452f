//! Property tests: the arena's simplification and hash-consing, the meaning of the atoms, and
//! the theta sequence of a candidate.

mod common;

use std::collections::HashSet;

use common::{atom, formula, naive_atom, naive_order, random_candidate, space_desc, Built, Rng, SpaceDesc, F};
use paces_constraint::{Arena, Atom, Candidate, Loc, Node, NodeId, Transformation};
use proptest::prelude::*;

/// Every candidate of a small space, or (when there are too many) a few hundred random ones.
fn some_candidates(built: &Built, seed: u64) -> Vec<Candidate> {
    match Candidate::enumerate(&built.space, 2000) {
        Ok(all) => all,
        Err(_) => {
            let mut rng = Rng(seed);
            (0..300).map(|_| random_candidate(built, &mut rng).0).collect()
        }
    }
}

/// The number of location ids atoms are drawn from: every location of the space and one id the
/// space never made.
fn loc_range(desc: &SpaceDesc) -> u32 {
    (desc.blocks.iter().map(|b| b.items.len()).sum::<usize>() + desc.extra_locs + 1) as u32
}

/// Checks the structural promises of the arena on every node it holds.
fn check_arena_invariants(arena: &Arena) {
    let mut distinct = HashSet::new();
    for i in 0..arena.len() {
        let id = NodeId::new(i).unwrap();
        let node = arena.node(id);
        assert!(distinct.insert(node.clone()), "node {id} is stored twice");
        let is_const = |c: NodeId| matches!(arena.node(c), Node::True | Node::False);
        match node {
            Node::True => assert_eq!(i, 0),
            Node::False => assert_eq!(i, 1),
            Node::Atom(Atom::Order(a, b)) => assert_ne!(a, b, "{id}: a <= a is not simplified"),
            Node::Atom(Atom::Atomic(a, b)) => assert!(a <= b, "{id}: [a; b] is not normal"),
            Node::Not(c) => {
                assert!(*c < id, "{id}: child {c} is not smaller");
                assert!(!is_const(*c) && !matches!(arena.node(*c), Node::Not(_)), "{id}: not of {c} not simplified");
            }
            Node::And(cs) | Node::Or(cs) => {
                assert!(cs.len() >= 2, "{id}: fewer than two children");
                assert!(cs.windows(2).all(|w| w[0] < w[1]), "{id}: children not sorted and distinct");
                assert!(cs.iter().all(|c| *c < id), "{id}: a child is not smaller");
                assert!(!cs.iter().any(|&c| is_const(c)), "{id}: a constant child");
                for &c in cs.iter() {
                    if let Node::Not(y) = arena.node(c) {
                        assert!(cs.binary_search(y).is_err(), "{id}: holds x and !x");
                    }
                }
            }
        }
    }
}

/// The depth of every node reachable from `id` (edges to the farthest leaf), by recursion.
fn naive_depth(arena: &Arena, id: NodeId, memo: &mut std::collections::HashMap<NodeId, usize>) -> usize {
    if let Some(&d) = memo.get(&id) {
        return d;
    }
    let d = match arena.node(id) {
        Node::True | Node::False | Node::Atom(_) => 0,
        Node::Not(c) => 1 + naive_depth(arena, *c, memo),
        Node::And(cs) | Node::Or(cs) => 1 + cs.iter().map(|&c| naive_depth(arena, c, memo)).max().unwrap_or(0),
    };
    memo.insert(id, d);
    d
}

/// Splits a list of formulas into a random nesting of the same connective.
fn regroup(mut xs: Vec<F>, is_and: bool, rng: &mut Rng) -> F {
    let wrap = |v: Vec<F>| if is_and { F::And(v) } else { F::Or(v) };
    if xs.len() <= 2 {
        return wrap(xs);
    }
    let cut = 1 + rng.below(xs.len() - 1);
    let right = xs.split_off(cut);
    let left = if xs.len() == 1 { xs.pop().unwrap() } else { regroup(xs, is_and, rng) };
    let right = regroup(right, is_and, rng);
    wrap(vec![left, right])
}

/// A space together with formulas over its locations.
fn space_and_formulas() -> impl Strategy<Value = (SpaceDesc, Vec<F>)> {
    space_desc(3, 4).prop_flat_map(|d| {
        let locs = loc_range(&d);
        (Just(d), proptest::collection::vec(formula(locs), 1..4))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Simplification on construction never changes the value of a formula on any candidate.
    #[test]
    fn simplification_keeps_the_value((desc, formulas) in space_and_formulas(), seed in any::<u64>()) {
        let built = desc.build();
        let candidates = some_candidates(&built, seed);
        let mut arena = Arena::new();
        for f in &formulas {
            let root = f.build(&mut arena);
            for c in &candidates {
                prop_assert_eq!(arena.eval(root, c), f.eval(&built.space, c), "formula {:?} on {:?}", f, c);
            }
            // Building it again changes nothing.
            let before = arena.len();
            prop_assert_eq!(f.build(&mut arena), root);
            prop_assert_eq!(arena.len(), before);
            // Statistics, against a recursive walk of the (small) DAG.
            let stats = arena.stats(root);
            let mut depth = std::collections::HashMap::new();
            let d = naive_depth(&arena, root, &mut depth);
            prop_assert_eq!(stats.depth, d);
            prop_assert_eq!(stats.nodes, depth.len());
            let atoms: std::collections::BTreeSet<Atom> = depth
                .keys()
                .filter_map(|&id| match arena.node(id) {
                    Node::Atom(a) => Some(*a),
                    _ => None,
                })
                .collect();
            prop_assert_eq!(stats.atoms, atoms.len());
            prop_assert_eq!(arena.atoms(root), atoms.into_iter().collect::<Vec<_>>());
        }
        check_arena_invariants(&arena);
    }

    /// Hash-consing: shuffling the children of every connective gives the same node.
    #[test]
    fn permuted_children_give_the_same_node(f in formula(6), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let mut arena = Arena::new();
        let a = f.build(&mut arena);
        let g = f.permuted(&mut rng);
        let b = g.build(&mut arena);
        prop_assert_eq!(a, b, "{:?} vs {:?}", f, g);
        // In a fresh arena, building the permuted one first still gives one node for both.
        let mut fresh = Arena::new();
        let b2 = g.build(&mut fresh);
        let a2 = f.build(&mut fresh);
        prop_assert_eq!(a2, b2);
        prop_assert_eq!(arena.stats(a), fresh.stats(a2));
    }

    /// Hash-consing: nesting a conjunction (disjunction) in any grouping and order gives the
    /// node of the flat one (below the flattening limit).
    #[test]
    fn regrouping_gives_the_same_node(
        leaves in proptest::collection::vec((atom(5), 0u8..3, atom(5)), 1..9),
        is_and in any::<bool>(),
        seed in any::<u64>(),
    ) {
        // Leaves of the other connective (or negations, or atoms) are never spliced.
        let leaves: Vec<F> = leaves
            .into_iter()
            .map(|(a, kind, b)| match kind {
                0 => F::Atom(a),
                1 => F::Not(Box::new(F::Atom(a))),
                _ if is_and => F::Or(vec![F::Atom(a), F::Atom(b)]),
                _ => F::And(vec![F::Atom(a), F::Atom(b)]),
            })
            .collect();
        let mut rng = Rng(seed);
        let mut arena = Arena::new();
        let flat = if is_and { F::And(leaves.clone()) } else { F::Or(leaves.clone()) }.build(&mut arena);
        let mut shuffled = leaves;
        rng.shuffle(&mut shuffled);
        let nested = regroup(shuffled, is_and, &mut rng);
        prop_assert_eq!(nested.build(&mut arena), flat, "{:?}", nested);
        check_arena_invariants(&arena);
    }

    /// `Order(a, b)` and `Atomic(a, b)` mean what `docs/glossary.md` ("Program constraint") says,
    /// on every candidate and every pair of locations (items of one block, of different blocks,
    /// non-items, one id the space never made).
    #[test]
    fn atoms_agree_with_their_definition(desc in space_desc(3, 4), seed in any::<u64>()) {
        let built = desc.build();
        let locs = loc_range(&desc);
        let mut arena = Arena::new();
        for c in some_candidates(&built, seed) {
            for a in 0..locs {
                for b in 0..locs {
                    let (a, b) = (Loc::from_u32(a), Loc::from_u32(b));
                    let expected = naive_order(&built.space, &c, a, b);
                    prop_assert_eq!(Atom::Order(a, b).holds(&c), expected, "{} <= {} on {:?}", a, b, c);
                    prop_assert_eq!(c.holds_order(a, b), expected);
                    let node = arena.order(a, b);
                    prop_assert_eq!(arena.eval(node, &c), expected);
                    let atomic = Atom::atomic(a, b);
                    prop_assert_eq!(atomic.holds(&c), naive_atom(&built.space, &c, atomic));
                    let node = arena.atomic(a, b);
                    prop_assert_eq!(arena.eval(node, &c), naive_atom(&built.space, &c, atomic));
                    // The checked constructors accept exactly the pairs of one block.
                    let one_block = built.space.block_of(a).is_some() && built.space.block_of(a) == built.space.block_of(b);
                    prop_assert_eq!(built.space.order(a, b).is_ok(), one_block);
                    prop_assert_eq!(built.space.atomic(a, b).is_ok(), one_block);
                }
            }
        }
    }

    /// The theta sequence of a random candidate is adjacent swaps of pairs that may change
    /// order, then its sections; replaying it gives the candidate back; the swaps are exactly
    /// as many as the inversions (no swap is wasted).
    #[test]
    fn theta_replays_to_the_candidate(desc in space_desc(3, 6), seed in any::<u64>()) {
        let built = desc.build();
        let space = &built.space;
        let mut rng = Rng(seed);
        for _ in 0..8 {
            let (c, perms) = random_candidate(&built, &mut rng);
            let theta = c.transformations(space);
            let swaps = theta.iter().take_while(|t| matches!(t, Transformation::Swap { .. })).count();
            for t in &theta[..swaps] {
                let Transformation::Swap { first, second } = *t else { unreachable!() };
                prop_assert!(space.may_change_order(first, second), "swap of a fixed pair {:?}", t);
                prop_assert!(!space.is_fixed(first, second) && !space.is_fixed(second, first));
            }
            let atomics: HashSet<(Loc, Loc)> = theta[swaps..]
                .iter()
                .map(|t| match *t {
                    Transformation::Atomic { first, last } => Ok((first, last)),
                    Transformation::Swap { .. } => Err(()),
                })
                .collect::<Result<_, _>>()
                .map_err(|()| TestCaseError::fail("a swap after an atomic section"))?;
            let sections: HashSet<(Loc, Loc)> = c.sections().iter().map(|s| (s.first, s.last)).collect();
            prop_assert_eq!(atomics, sections);
            prop_assert_eq!(Candidate::apply(space, &theta), Ok(c.clone()));
            // The cost, computed from the orders drawn.
            let inversions: usize = perms
                .iter()
                .map(|p| (0..p.len()).flat_map(|i| (i + 1..p.len()).map(move |j| (i, j))).filter(|&(i, j)| p[i] > p[j]).count())
                .sum();
            let weight: u64 = c
                .sections()
                .iter()
                .flat_map(|s| c.section_items(s).iter().map(|l| u64::from(space.item_info(*l).unwrap().weight)))
                .sum();
            let cost = c.cost(space);
            prop_assert_eq!(swaps as u64, cost.inversions);
            prop_assert_eq!(cost.inversions, inversions as u64);
            prop_assert_eq!(cost.atomic_weight, weight);
            prop_assert_eq!(c.is_original(space), theta.is_empty());
        }
    }

    /// Garbage block orders and sections give an error or a valid candidate, never a panic.
    #[test]
    fn candidate_new_never_panics(
        desc in space_desc(3, 4),
        orders in proptest::collection::vec(proptest::collection::vec(0u32..16, 0..6), 0..5),
        sections in proptest::collection::vec((0u32..16, 0u32..16), 0..4),
    ) {
        let built = desc.build();
        let orders: Vec<Vec<Loc>> = orders.into_iter().map(|o| o.into_iter().map(Loc::from_u32).collect()).collect();
        let sections: Vec<(Loc, Loc)> = sections.into_iter().map(|(a, b)| (Loc::from_u32(a), Loc::from_u32(b))).collect();
        if let Ok(c) = Candidate::new(&built.space, orders, &sections) {
            // Accepted: it must be one of the enumerated candidates when those are few.
            if let Ok(all) = Candidate::enumerate(&built.space, 2000) {
                prop_assert!(all.contains(&c));
            }
        }
    }

    /// Garbage transformation sequences give an error or a candidate, never a panic, and a
    /// candidate obtained is valid (its own theta sequence replays to it).
    #[test]
    fn apply_never_panics(
        desc in space_desc(2, 4),
        steps in proptest::collection::vec((any::<bool>(), 0u32..10, 0u32..10), 0..12),
    ) {
        let built = desc.build();
        let steps: Vec<Transformation> = steps
            .into_iter()
            .map(|(swap, a, b)| {
                let (a, b) = (Loc::from_u32(a), Loc::from_u32(b));
                if swap { Transformation::Swap { first: a, second: b } } else { Transformation::Atomic { first: a, last: b } }
            })
            .collect();
        if let Ok(c) = Candidate::apply(&built.space, &steps) {
            let theta = c.transformations(&built.space);
            prop_assert_eq!(Candidate::apply(&built.space, &theta), Ok(c));
        }
    }
}

#[test]
fn simplification_rules() {
    let l = Loc::from_u32;
    let mut arena = Arena::new();
    let (x, y, z) = (arena.order(l(0), l(1)), arena.order(l(1), l(2)), arena.atomic(l(2), l(0)));
    assert_eq!(arena.node(z), &Node::Atom(Atom::Atomic(l(0), l(2))));
    assert_eq!(arena.atomic(l(0), l(2)), z);
    assert_eq!(arena.order(l(3), l(3)), arena.constant(true));
    // `[a; a]` depends on the item (atomic by itself, or inside a section): it stays an atom.
    let alone = arena.atomic(l(3), l(3));
    assert_eq!(arena.node(alone), &Node::Atom(Atom::Atomic(l(3), l(3))));
    // Constants.
    assert_eq!(arena.and([]), arena.constant(true));
    assert_eq!(arena.or([]), arena.constant(false));
    let t = arena.constant(true);
    let f = arena.constant(false);
    assert_eq!(arena.and([x, t]), x);
    assert_eq!(arena.and([x, f, y]), f);
    assert_eq!(arena.or([x, f]), x);
    assert_eq!(arena.or([y, t, x]), t);
    assert_eq!(arena.not(t), f);
    assert_eq!(arena.not(f), t);
    // Duplicates and single children.
    assert_eq!(arena.and([x, x]), x);
    assert_eq!(arena.or([y]), y);
    // Flattening and order.
    let xy = arena.and([x, y]);
    let yz = arena.and([y, z]);
    let left = arena.and([xy, z]);
    let right = arena.and([x, yz]);
    let flat = arena.and([z, y, x]);
    assert_eq!(left, right);
    assert_eq!(left, flat);
    assert_eq!(arena.node(flat), &Node::And(vec![x, y, z].into_boxed_slice()));
    // x with !x, also when !x sits in a spliced child.
    let nx = arena.not(x);
    assert_eq!(arena.not(nx), x);
    assert_eq!(arena.and([x, nx]), f);
    assert_eq!(arena.or([nx, x]), t);
    let nx_or_y = arena.or([nx, y]);
    assert_eq!(arena.or([nx_or_y, x]), t);
    let nxy = arena.not(xy);
    assert_eq!(arena.or([xy, nxy]), t);
    assert_eq!(arena.and([nxy, xy]), f);
    assert_eq!(arena.and([x, nxy, y]), f);
    assert_eq!(arena.and([x, nxy]), arena.and([nxy, x]));
    let x_or_z = arena.or([x, z]);
    let not_x_or_z = arena.not(x_or_z);
    assert_eq!(arena.or([z, not_x_or_z, x]), t);
    // Mixed connectives are not spliced.
    let x_or_y = arena.or([x, y]);
    let mixed = arena.and([x_or_y, z]);
    assert_eq!(arena.node(mixed), &Node::And(vec![z, x_or_y].into_boxed_slice()));
    check_arena_invariants(&arena);
}

#[test]
fn flattening_stops_at_the_limit() {
    let l = Loc::from_u32;
    let mut arena = Arena::new();
    let atoms: Vec<NodeId> = (0..40).map(|i| arena.order(l(i), l(i + 1))).collect();
    let small = arena.and(atoms[..paces_constraint::FLATTEN_LIMIT].iter().copied());
    let spliced = arena.and([small, atoms[39]]);
    match arena.node(spliced) {
        Node::And(cs) => assert_eq!(cs.len(), paces_constraint::FLATTEN_LIMIT + 1),
        other => panic!("expected a conjunction, got {other:?}"),
    }
    let big = arena.and(atoms[..paces_constraint::FLATTEN_LIMIT + 1].iter().copied());
    let shared = arena.and([big, atoms[39]]);
    assert_eq!(arena.node(shared), &Node::And(vec![atoms[39], big].into_boxed_slice()));
    check_arena_invariants(&arena);
}

#[test]
fn display_uses_the_papers_notation() {
    let space = {
        let mut b = paces_constraint::SpaceBuilder::new();
        let block = b.block(false);
        for name in ["A", "B", "C", "Ä"] {
            let loc = b.loc(name).unwrap();
            b.item(block, loc, paces_constraint::ItemInfo::SIMPLE).unwrap();
        }
        b.build().unwrap()
    };
    let loc = |n: &str| space.loc(n).unwrap();
    let mut arena = Arena::new();
    let c_a = arena.order(loc("C"), loc("A"));
    let bc = arena.atomic(loc("C"), loc("B"));
    let phi = arena.and([c_a, bc]);
    assert_eq!(arena.display(phi, &space, 80).to_string(), "C <= A /\\ [B; C]");
    let ab = arena.order(loc("A"), loc("B"));
    let or = arena.or([phi, ab]);
    let not = arena.not(or);
    let both = arena.and([not, c_a]);
    assert_eq!(arena.display(both, &space, 80).to_string(), "C <= A /\\ !(C <= A /\\ [B; C] \\/ A <= B)");
    assert_eq!(arena.display(both, &space, 10).to_string(), "C <= A /\\ ...");
    assert_eq!(arena.display(arena.constant(true), &space, 10).to_string(), "true");
    // Cutting never splits a character.
    let umlaut = arena.order(loc("Ä"), loc("A"));
    assert_eq!(arena.display(umlaut, &space, 1).to_string(), "...");
    assert_eq!(arena.display(umlaut, &space, 2).to_string(), "Ä...");
}
