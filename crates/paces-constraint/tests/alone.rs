//! One-item sections: a compound item alone in an added section, and the atom `[a; a]`.

use paces_constraint::{Arena, Atom, Candidate, ItemInfo, Loc, Space, SpaceBuilder, Transformation, Waits};

/// One thread `s; i; w` (a simple statement, an `if` of weight 3, a loop of weight 2 that waits
/// inside) and a closed block holding a compound item `c`.
fn space() -> (Space, [Loc; 4]) {
    let mut b = SpaceBuilder::new();
    let open = b.block(false);
    let closed = b.block(true);
    let s = b.loc("s").unwrap();
    let i = b.loc("i").unwrap();
    let w = b.loc("w").unwrap();
    let c = b.loc("c").unwrap();
    b.item(open, s, ItemInfo::SIMPLE).unwrap();
    b.item(open, i, ItemInfo::compound(3, Waits::Never)).unwrap();
    b.item(open, w, ItemInfo::compound(2, Waits::Inside)).unwrap();
    b.item(closed, c, ItemInfo::compound(2, Waits::Never)).unwrap();
    b.thread("t", open).unwrap();
    (b.build().unwrap(), [s, i, w, c])
}

#[test]
fn atomic_a_a_holds_for_atomic_items_and_for_items_inside_a_section() {
    let (space, [s, i, w, c]) = space();
    let orders = || vec![vec![s, i, w], vec![c]];
    let original = Candidate::original(&space);
    let alone = Candidate::new(&space, orders(), &[(i, i)]).unwrap();
    let pair = Candidate::new(&space, orders(), &[(s, i)]).unwrap();
    let mut arena = Arena::new();
    let holds = |arena: &mut Arena, a: Loc, candidate: &Candidate| {
        let node = arena.atomic(a, a);
        arena.eval(node, candidate)
    };
    // Simple statements and items of a closed block run as one step anyway.
    for candidate in [&original, &alone, &pair] {
        assert!(holds(&mut arena, s, candidate));
        assert!(holds(&mut arena, c, candidate));
    }
    // A compound item runs as one step only inside a section, alone or with others.
    assert!(!holds(&mut arena, i, &original));
    assert!(holds(&mut arena, i, &alone));
    assert!(holds(&mut arena, i, &pair));
    assert!(!holds(&mut arena, w, &alone));
    assert!(Atom::atomic(i, i).holds(&alone) && !Atom::atomic(i, i).holds(&original));
    // `[i; w]` still asks for both in one section.
    assert!(!Atom::atomic(i, w).holds(&alone));
}

#[test]
fn a_one_item_section_costs_its_weight_and_shows_as_l_semicolon_l() {
    let (space, [s, i, w, c]) = space();
    let alone = Candidate::new(&space, vec![vec![s, i, w], vec![c]], &[(i, i), (w, w)]).unwrap();
    assert_eq!(alone.cost(&space).atomic_weight, 5);
    assert_eq!(alone.cost(&space).inversions, 0);
    assert_eq!(alone.display(&space).to_string(), "t: s; atomic [i; i]; atomic [w; w]\nblock 1: c");
    let steps = alone.transformations(&space);
    assert_eq!(steps, [Transformation::Atomic { first: i, last: i }, Transformation::Atomic { first: w, last: w }]);
    assert_eq!(steps[0].display(&space).to_string(), "atomic [i; i]");
    assert_eq!(steps[0].display_in(&space, &alone).to_string(), "atomic [i; i]");
    assert_eq!(Candidate::apply(&space, &steps).unwrap(), alone);
    let mut arena = Arena::new();
    let atom = arena.atomic(i, i);
    assert_eq!(arena.display(atom, &space, 80).to_string(), "[i; i]");
}

#[test]
fn enumeration_offers_one_item_sections_of_compound_items_only() {
    let (space, [s, i, w, _]) = space();
    let all = Candidate::enumerate(&space, 10_000).unwrap();
    let alone: Vec<Loc> = all
        .iter()
        .flat_map(|c| c.sections().iter().filter(|x| x.first == x.last).map(|x| x.first).collect::<Vec<_>>())
        .collect();
    assert!(alone.contains(&i) && alone.contains(&w));
    assert!(!alone.contains(&s));
    // The closed block's item never gets one.
    assert!(all.iter().all(|c| c.sections().iter().all(|x| x.block.index() == 0)));
    // Per order of the three items (each order twice: `s` is the same in both halves of the
    // pair of orders with `i` and `w` swapped): the section sets, counted from the right.
    let per_order: usize = {
        // f(p): the section sets over positions p..; `true` marks an item that may be alone.
        fn count(order: &[bool]) -> usize {
            let n = order.len();
            let mut f = vec![0usize; n + 1];
            f[n] = 1;
            for p in (0..n).rev() {
                f[p] = f[p + 1] + if order[p] { f[p + 1] } else { 0 } + (p + 1..n).map(|e| f[e + 1]).sum::<usize>();
            }
            f[0]
        }
        let orders = [[false, true, true], [true, false, true], [true, true, false]];
        orders.iter().map(|o| 2 * count(o)).sum()
    };
    assert_eq!(all.len(), per_order);
}

#[test]
fn a_section_acts_across_a_preemption_point_when_it_waits_past_its_first_step() {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let [s, a, w] = ["s", "a", "w"].map(|n| b.loc(n).unwrap());
    b.item(block, s, ItemInfo::SIMPLE).unwrap();
    b.item(block, a, ItemInfo::AWAIT).unwrap();
    b.item(block, w, ItemInfo::compound(2, Waits::Inside)).unwrap();
    let space = b.build().unwrap();
    let with = |order: Vec<Loc>, sections: &[(Loc, Loc)]| Candidate::new(&space, vec![order], sections).unwrap();
    assert!(!Candidate::original(&space).waits_inside_section(&space));
    // A wait that opens its section enters it; a wait after the first step is inside.
    assert!(!with(vec![a, s, w], &[(a, s)]).waits_inside_section(&space));
    assert!(with(vec![s, a, w], &[(s, a)]).waits_inside_section(&space));
    // An item that waits after its own first step is inside even as the section's first.
    assert!(with(vec![s, w, a], &[(w, a)]).waits_inside_section(&space));
    assert!(with(vec![s, a, w], &[(w, w)]).waits_inside_section(&space));
}

#[test]
fn each_section_says_whether_it_waits_past_its_first_step() {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let [s, a, t, w] = ["s", "a", "t", "w"].map(|n| b.loc(n).unwrap());
    b.item(block, s, ItemInfo::SIMPLE).unwrap();
    b.item(block, a, ItemInfo::AWAIT).unwrap();
    b.item(block, t, ItemInfo::SIMPLE).unwrap();
    b.item(block, w, ItemInfo::AWAIT).unwrap();
    let space = b.build().unwrap();
    // [a; t] waits only as its first step, [s; w] at its second.
    let candidate = Candidate::new(&space, vec![vec![a, t, s, w]], &[(a, t), (s, w)]).unwrap();
    let waits: Vec<bool> = candidate.sections().iter().map(|x| candidate.section_waits_inside(x, &space)).collect();
    assert_eq!(waits, [false, true]);
    assert!(candidate.waits_inside_section(&space));
}
