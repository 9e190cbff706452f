//! Candidates and transformations shown with the space's names.

use paces_constraint::{Candidate, ItemInfo, Space, SpaceBuilder, Transformation};

/// The paper's Figure 7: `thread1 { A; B; C } || thread2 { 1; 2; 3 } || thread3 { n; p }`,
/// with `thread3` left undeclared.
fn figure7() -> Space {
    let mut b = SpaceBuilder::new();
    let blocks = [b.block(false), b.block(false), b.block(false)];
    for (block, names) in blocks.iter().zip([&["A", "B", "C"][..], &["1", "2", "3"], &["n", "p"]]) {
        for name in names {
            let loc = b.loc(name).unwrap();
            let info = if *name == "1" || *name == "n" { ItemInfo::AWAIT } else { ItemInfo::SIMPLE };
            b.item(*block, loc, info).unwrap();
        }
    }
    b.thread("thread1", blocks[0]).unwrap();
    b.thread("thread2", blocks[1]).unwrap();
    b.build().unwrap()
}

#[test]
fn a_candidate_shows_each_block_with_its_sections_and_every_item_inside() {
    let space = figure7();
    let l = |n| space.loc(n).unwrap();
    let orders = vec![vec![l("B"), l("C"), l("A")], vec![l("1"), l("2"), l("3")], vec![l("n"), l("p")]];
    let candidate = Candidate::new(&space, orders, &[(l("C"), l("A")), (l("1"), l("3"))]).unwrap();
    assert_eq!(
        candidate.display(&space).to_string(),
        "thread1: B; atomic [C; A]\nthread2: atomic [1; 2; 3]\nblock 2: n; p"
    );
}

#[test]
fn an_atomic_step_towards_a_candidate_lists_the_items_between_its_ends() {
    let space = figure7();
    let l = |n| space.loc(n).unwrap();
    let step = Transformation::Atomic { first: l("A"), last: l("C") };
    let candidate = Candidate::apply(&space, &[step]).unwrap();
    assert_eq!(step.display(&space).to_string(), "atomic [A; C]");
    assert_eq!(step.display_in(&space, &candidate).to_string(), "atomic [A; B; C]");
    assert_eq!(candidate.display(&space).to_string(), "thread1: atomic [A; B; C]\nthread2: 1; 2; 3\nblock 2: n; p");
}
