//! A space, its candidates and the constraint helpers a CEGIS loop uses: exclude the candidates
//! a checker rejected, one after the other, and see which stay allowed.
//!
//! Run with `cargo run -p paces-constraint --example exclude_candidates`.

use paces_constraint::{Arena, Candidate, ItemInfo, SpaceBuilder};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One thread of three statements; `A` and `C` must keep their order.
    let mut builder = SpaceBuilder::new();
    let block = builder.block(false);
    let [a, b, c] = ["A", "B", "C"].map(|name| builder.add_item(block, name, ItemInfo::SIMPLE));
    let (a, b, c) = (a?, b?, c?);
    builder.fix(a, c)?;
    let thread = builder.thread("main", block)?;
    let space = builder.build()?;
    assert_eq!(space.thread(thread), Some(("main", block)));

    // Every candidate of the space: the orders of A, B, C with A before C, with and without
    // atomic sections.
    let all = Candidate::enumerate(&space, 1000)?;
    let orders: Vec<&Candidate> = all.iter().filter(|k| k.sections().is_empty()).collect();
    assert_eq!(orders.len(), 3, "A B C, B A C, A C B");

    // The checker rejects the original and then the cheapest other order: exclude both.
    let mut arena = Arena::new();
    let original = Candidate::original(&space);
    let not_original = arena.excluding(&original, &space);
    let b_first = Candidate::new(&space, vec![vec![b, a, c]], &[])?;
    let not_b_first = arena.excluding(&b_first, &space);
    let both = arena.and([not_original, not_b_first]);
    let allowed: Vec<&Candidate> = orders.into_iter().filter(|k| arena.eval(both, k)).collect();
    assert_eq!(allowed.len(), 1);
    assert_eq!(allowed[0].order(block), [a, c, b]);
    println!("allowed after two rejections:\n{}", allowed[0].display(&space));

    // `constant(true)` is what every candidate satisfies; `B` kept out of sections.
    let anything = arena.constant(true);
    assert!(all.iter().all(|k| arena.eval(anything, k)));
    let b_alone = arena.outside_sections(&[b], &space);
    assert!(all.iter().filter(|k| arena.eval(b_alone, k)).all(|k| k.section_of(b).is_none()));
    println!("constraint: {}", arena.display(both, &space, 100));
    Ok(())
}
