//! A constraint of a million nodes nested a million deep evaluates, measures and prints on a
//! thread with a 256 KiB stack: nothing in the arena recurses.

use paces_constraint::{Arena, Atom, Candidate, ItemInfo, Loc, NodeId, SpaceBuilder};

const STEPS: usize = 1_000_000;
const ITEMS: usize = 64;

/// The atom of step `i`: an order between two distinct items of the one block.
fn atom_of(i: usize, locs: &[Loc]) -> Atom {
    let a = i % ITEMS;
    let b = (a + 1 + (i / ITEMS) % (ITEMS - 1)) % ITEMS;
    Atom::Order(locs[a], locs[b])
}

fn deep_chain() {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let locs: Vec<Loc> = (0..ITEMS)
        .map(|i| {
            let loc = b.loc(&format!("s{i}")).unwrap();
            b.item(block, loc, ItemInfo::SIMPLE).unwrap();
            loc
        })
        .collect();
    let space = b.build().unwrap();
    // A candidate that interleaves the two halves of the block, so atoms go both ways.
    let order: Vec<Loc> = (0..ITEMS / 2).flat_map(|k| [locs[ITEMS / 2 + k], locs[k]]).collect();
    let candidate = Candidate::new(&space, vec![order.clone()], &[]).unwrap();
    let mut position = vec![0; ITEMS];
    for (p, loc) in order.iter().enumerate() {
        position[loc.index()] = p;
    }
    let holds = |atom: Atom| match atom {
        Atom::Order(a, b) => position[a.index()] < position[b.index()],
        Atom::Atomic(..) => unreachable!(),
    };

    // x_0, then x_1 \/ (...), x_2 /\ (...), alternating: every step adds one node one level up.
    let mut arena = Arena::new();
    let mut cur = arena.atom(atom_of(0, &locs));
    let mut expected = holds(atom_of(0, &locs));
    let mut checkpoints: Vec<(NodeId, bool)> = Vec::new();
    for i in 1..=STEPS {
        let atom = atom_of(i, &locs);
        let x = arena.atom(atom);
        if i % 2 == 0 {
            cur = arena.and([x, cur]);
            expected = holds(atom) && expected;
        } else {
            cur = arena.or([x, cur]);
            expected = holds(atom) || expected;
        }
        if i % 200_000 == 0 {
            checkpoints.push((cur, expected));
        }
    }
    let distinct_atoms = arena.atoms(cur).len();
    // The two constants, the atoms, one node per step.
    assert_eq!(arena.len(), 2 + distinct_atoms + STEPS);

    // Evaluation.
    assert_eq!(arena.eval(cur, &candidate), expected);
    for &(node, value) in &checkpoints {
        assert_eq!(arena.eval(node, &candidate), value);
    }
    let original = Candidate::original(&space);
    let expected_original = {
        // In the original program `a <= b` holds exactly when `a` has the smaller id.
        let in_order = |atom: Atom| match atom {
            Atom::Order(a, b) => a < b,
            Atom::Atomic(..) => unreachable!(),
        };
        let mut v = in_order(atom_of(0, &locs));
        for i in 1..=STEPS {
            let h = in_order(atom_of(i, &locs));
            v = if i % 2 == 0 { h && v } else { h || v };
        }
        v
    };
    assert_eq!(arena.eval(cur, &original), expected_original);

    // Statistics.
    let stats = arena.stats(cur);
    assert_eq!(stats.depth, STEPS);
    assert_eq!(stats.atoms, distinct_atoms);
    assert_eq!(stats.nodes, STEPS + distinct_atoms);

    // Display: the whole text, and a cut one.
    let text = arena.display(cur, &space, usize::MAX).to_string();
    assert_eq!(text.matches(" <= ").count(), STEPS + 1);
    // Each disjunction sits inside a conjunction and gets parentheses; conjunctions do not.
    assert_eq!(text.matches('(').count(), STEPS / 2);
    assert_eq!(text.matches(')').count(), STEPS / 2);
    let short = arena.display(cur, &space, 1000).to_string();
    assert!(short.len() <= 1003 && short.ends_with("..."), "{}", short.len());
    assert!(text.starts_with(&short[..short.len() - 3]));
}

#[test]
fn a_million_nodes_on_a_small_stack() {
    std::thread::Builder::new()
        .name("small stack".into())
        .stack_size(256 * 1024)
        .spawn(deep_chain)
        .unwrap()
        .join()
        .expect("no stack overflow and every check passed");
}
