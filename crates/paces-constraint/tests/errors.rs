//! Every constructor rejects bad input with the right error kind (and a message), never a panic.

use paces_constraint::{
    BlockId, Candidate, Error, ErrorKind, ItemInfo, Loc, Space, SpaceBuilder, Transformation, Waits,
};

#[track_caller]
fn expect_kind<T: std::fmt::Debug>(result: Result<T, Error>, kind: ErrorKind) {
    let err = result.expect_err("an error");
    assert_eq!(err.kind(), &kind, "{err}");
    assert!(!err.to_string().is_empty());
}

/// Two blocks: `A B C D` (C is an await, D a compound item of weight 3 holding a wait after
/// its first step, A before B fixed) and a closed block `E F`; `G` is no item.
fn space() -> (Space, [Loc; 7]) {
    let mut b = SpaceBuilder::new();
    let open = b.block(false);
    let closed = b.block(true);
    let names = ["A", "B", "C", "D", "E", "F", "G"];
    let locs = names.map(|n| b.loc(n).unwrap());
    let [a, bb, c, d, e, f, _g] = locs;
    b.item(open, a, ItemInfo::SIMPLE).unwrap();
    b.item(open, bb, ItemInfo::SIMPLE).unwrap();
    b.item(open, c, ItemInfo::AWAIT).unwrap();
    b.item(open, d, ItemInfo::compound(3, Waits::Inside)).unwrap();
    b.item(closed, e, ItemInfo::SIMPLE).unwrap();
    b.item(closed, f, ItemInfo::SIMPLE).unwrap();
    b.fix(a, bb).unwrap();
    (b.build().unwrap(), locs)
}

#[test]
fn space_builder_errors() {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let other = b.block(false);
    let x = b.loc("x").unwrap();
    let y = b.loc("y").unwrap();
    let z = b.loc("z").unwrap();
    let free = b.loc("free").unwrap();
    expect_kind(b.loc("x"), ErrorKind::DuplicateLoc);
    expect_kind(b.item(BlockId::from_u32(7), x, ItemInfo::SIMPLE), ErrorKind::UnknownBlock);
    expect_kind(b.item(block, Loc::from_u32(99), ItemInfo::SIMPLE), ErrorKind::UnknownLoc);
    b.item(block, x, ItemInfo::SIMPLE).unwrap();
    b.item(block, y, ItemInfo::SIMPLE).unwrap();
    b.item(other, z, ItemInfo::SIMPLE).unwrap();
    expect_kind(b.item(block, x, ItemInfo::SIMPLE), ErrorKind::DuplicateItem);
    expect_kind(b.item(other, x, ItemInfo::SIMPLE), ErrorKind::DuplicateItem);
    expect_kind(b.fix(x, z), ErrorKind::NotInOneBlock);
    expect_kind(b.fix(x, free), ErrorKind::NotInOneBlock);
    expect_kind(b.fix(Loc::from_u32(99), x), ErrorKind::UnknownLoc);
    expect_kind(b.fix(y, x), ErrorKind::BadFixedPair);
    expect_kind(b.fix(x, x), ErrorKind::BadFixedPair);
    b.fix(x, y).unwrap();
    b.fix(x, y).unwrap(); // twice is harmless
    let space = b.build().unwrap();
    assert_eq!(space.fixed_pairs(BlockId::from_u32(0)).collect::<Vec<_>>(), vec![(x, y)]);
    assert_eq!(space.loc("free"), Some(free));
    assert_eq!(space.block_of(free), None);
}

#[test]
fn space_lookups_of_unknown_ids_are_answers_not_panics() {
    let (space, [a, _, _, _, e, _, g]) = space();
    let unknown = Loc::from_u32(1000);
    assert_eq!(space.name(unknown), "?");
    assert_eq!(space.items(BlockId::from_u32(9)), &[] as &[Loc]);
    assert!(!space.is_closed(BlockId::from_u32(9)));
    assert_eq!(space.item_info(g), None);
    assert!(!space.is_fixed(unknown, a));
    assert!(!space.may_change_order(a, a));
    assert!(!space.may_change_order(a, e));
    expect_kind(space.common_block(a, unknown), ErrorKind::NotInOneBlock);
    expect_kind(space.order(a, e), ErrorKind::NotInOneBlock);
    expect_kind(space.atomic(a, g), ErrorKind::NotInOneBlock);
    expect_kind(space.order(g, g), ErrorKind::NotInOneBlock);
}

#[test]
fn candidate_new_errors() {
    let (space, [a, b, c, d, e, f, g]) = space();
    let ok = || vec![vec![a, b, c, d], vec![e, f]];
    Candidate::new(&space, ok(), &[(a, b)]).unwrap();
    // Orders.
    expect_kind(Candidate::new(&space, vec![vec![a, b, c, d]], &[]), ErrorKind::NotAPermutation);
    expect_kind(Candidate::new(&space, vec![vec![a, b, c, d], vec![e, f], vec![]], &[]), ErrorKind::NotAPermutation);
    expect_kind(Candidate::new(&space, vec![vec![a, b, c], vec![e, f]], &[]), ErrorKind::NotAPermutation);
    expect_kind(Candidate::new(&space, vec![vec![a, b, c, c], vec![e, f]], &[]), ErrorKind::NotAPermutation);
    expect_kind(Candidate::new(&space, vec![vec![a, b, c, d, g], vec![e, f]], &[]), ErrorKind::NotAPermutation);
    expect_kind(Candidate::new(&space, vec![vec![a, b, c, e], vec![d, f]], &[]), ErrorKind::NotAPermutation);
    expect_kind(
        Candidate::new(&space, vec![vec![a, b, c, Loc::from_u32(77)], vec![e, f]], &[]),
        ErrorKind::NotAPermutation,
    );
    expect_kind(Candidate::new(&space, vec![vec![b, a, c, d], vec![e, f]], &[]), ErrorKind::FixedPairViolated);
    // Sections.
    expect_kind(Candidate::new(&space, ok(), &[(b, b)]), ErrorKind::BadSection);
    expect_kind(Candidate::new(&space, ok(), &[(b, a)]), ErrorKind::BadSection);
    expect_kind(Candidate::new(&space, ok(), &[(a, b), (b, c)]), ErrorKind::BadSection);
    expect_kind(Candidate::new(&space, ok(), &[(a, b), (a, b)]), ErrorKind::BadSection);
    expect_kind(Candidate::new(&space, ok(), &[(a, e)]), ErrorKind::NotInOneBlock);
    expect_kind(Candidate::new(&space, ok(), &[(a, g)]), ErrorKind::NotInOneBlock);
    expect_kind(Candidate::new(&space, ok(), &[(e, f)]), ErrorKind::BlockClosed);
    // Sections run all or nothing: waits may stand anywhere in them.
    Candidate::new(&space, vec![vec![a, c, b, d], vec![e, f]], &[(c, b)]).unwrap();
    Candidate::new(&space, ok(), &[(b, c)]).unwrap();
    Candidate::new(&space, ok(), &[(c, d)]).unwrap();
    Candidate::new(&space, vec![vec![a, d, b, c], vec![e, f]], &[(d, b)]).unwrap();
    // One item alone: a compound item that is not atomic by itself, in an open block.
    let alone = Candidate::new(&space, ok(), &[(d, d), (a, b)]).unwrap();
    assert_eq!(alone.section_items(alone.section_of(d).unwrap()), &[d]);
    expect_kind(Candidate::new(&space, ok(), &[(c, c)]), ErrorKind::BadSection);
    expect_kind(Candidate::new(&space, ok(), &[(c, d), (d, d)]), ErrorKind::BadSection);
    expect_kind(Candidate::new(&space, ok(), &[(e, e)]), ErrorKind::BlockClosed);
}

/// Items of weight 2 or more that are not atomic by themselves take a section alone when
/// their block is open; simple statements, atomic compound items and closed blocks do not.
#[test]
fn which_items_take_a_section_alone() {
    let mut b = SpaceBuilder::new();
    let open = b.block(false);
    let closed = b.block(true);
    let infos = [
        ("simple", open, ItemInfo::SIMPLE),
        ("await", open, ItemInfo::AWAIT),
        ("if", open, ItemInfo::compound(2, Waits::Never)),
        ("tiny", open, ItemInfo::compound(1, Waits::Never)),
        ("lock", open, ItemInfo::new(2, Waits::First, true)),
        ("loop", open, ItemInfo::compound(4, Waits::Inside)),
        ("inner", closed, ItemInfo::compound(3, Waits::Never)),
    ];
    for (name, block, info) in infos {
        let loc = b.loc(name).unwrap();
        b.item(block, loc, info).unwrap();
    }
    let space = b.build().unwrap();
    let takes: Vec<&str> =
        infos.iter().map(|i| i.0).filter(|n| space.takes_section_alone(space.loc(n).unwrap())).collect();
    assert_eq!(takes, ["if", "loop"]);
}

#[test]
fn apply_errors() {
    let (space, [a, b, c, d, e, f, g]) = space();
    let swap = |first, second| Transformation::Swap { first, second };
    let atomic = |first, last| Transformation::Atomic { first, last };
    // Fixed pair, not adjacent, reversed, across blocks, no item.
    expect_kind(Candidate::apply(&space, &[swap(a, b)]), ErrorKind::BadTransformation);
    expect_kind(Candidate::apply(&space, &[swap(a, c)]), ErrorKind::BadTransformation);
    expect_kind(Candidate::apply(&space, &[swap(c, b)]), ErrorKind::BadTransformation);
    expect_kind(Candidate::apply(&space, &[swap(d, e)]), ErrorKind::NotInOneBlock);
    expect_kind(Candidate::apply(&space, &[swap(g, g)]), ErrorKind::NotInOneBlock);
    // A swap that would move an item of an added section.
    expect_kind(Candidate::apply(&space, &[atomic(a, b), swap(b, c)]), ErrorKind::BadTransformation);
    // Swapping in the closed block is fine; a section there is not.
    let c1 = Candidate::apply(&space, &[swap(e, f), swap(b, c)]).unwrap();
    assert_eq!(c1.order(BlockId::from_u32(1)), &[f, e]);
    assert_eq!(c1.order(BlockId::from_u32(0)), &[a, c, b, d]);
    expect_kind(Candidate::apply(&space, &[atomic(e, f)]), ErrorKind::BlockClosed);
    expect_kind(Candidate::apply(&space, &[atomic(c, c)]), ErrorKind::BadSection);
    let held = Candidate::apply(&space, &[atomic(c, d)]).unwrap();
    assert_eq!(held.section_items(&held.sections()[0]), &[c, d]);
    // Swapping back and forth is a valid (if wasteful) theta sequence.
    assert_eq!(Candidate::apply(&space, &[swap(b, c), swap(c, b)]).unwrap(), Candidate::original(&space));
}

#[test]
fn enumerate_limit() {
    let (space, _) = space();
    let all = Candidate::enumerate(&space, 1000).unwrap();
    // Block 1: orders A B C D with A before B: 12; sections as in the tests of enumerate.rs.
    assert!(all.len() > 12);
    expect_kind(Candidate::enumerate(&space, all.len() - 1), ErrorKind::TooMany);
    expect_kind(Candidate::enumerate(&space, 0), ErrorKind::TooMany);
}

#[test]
fn error_is_a_std_error() {
    let err = SpaceBuilder::new().fix(Loc::from_u32(0), Loc::from_u32(1)).unwrap_err();
    let boxed: Box<dyn std::error::Error> = Box::new(err.clone());
    assert_eq!(boxed.to_string(), err.to_string());
    assert!(boxed.source().is_none());
}

#[test]
fn a_candidate_of_another_space_gives_answers_not_panics() {
    let (big, [a, b, c, d, e, f, _]) = space();
    let candidate = Candidate::new(&big, vec![vec![a, c, b, d], vec![f, e]], &[(c, b)]).unwrap();
    let mut builder = SpaceBuilder::new();
    let block = builder.block(false);
    let x = builder.loc("x").unwrap();
    builder.item(block, x, ItemInfo::SIMPLE).unwrap();
    let small = builder.build().unwrap();
    // Meaningless, but answers.
    let _ = candidate.transformations(&small);
    let _ = candidate.cost(&small);
    let _ = candidate.is_original(&small);
    let small_candidate = Candidate::original(&small);
    let _ = small_candidate.transformations(&big);
    let _ = small_candidate.cost(&big);
    assert!(!small_candidate.holds_order(a, b));
    assert!(!small_candidate.in_one_section(c, b));
    assert!(candidate.in_one_section(c, b));
    assert_eq!(small_candidate.section_items(&candidate.sections()[0]), &[] as &[Loc]);
}

/// `add_item` is `loc` then `item` in one call, with their errors; an unknown block leaves the
/// name free. `open_block` and `closed_block` are `block(false)` and `block(true)`.
#[test]
fn add_item_registers_and_appends_in_one_call() {
    let mut b = SpaceBuilder::new();
    let (open, closed) = (b.open_block(), b.closed_block());
    expect_kind(b.add_item(BlockId::from_u32(7), "A", ItemInfo::SIMPLE), ErrorKind::UnknownBlock);
    let a = b.add_item(open, "A", ItemInfo::SIMPLE).unwrap();
    let c = b.add_item(open, "C", ItemInfo::AWAIT).unwrap();
    expect_kind(b.add_item(closed, "A", ItemInfo::SIMPLE), ErrorKind::DuplicateLoc);
    let e = b.add_item(closed, "E", ItemInfo::SIMPLE).unwrap();
    let space = b.build().unwrap();
    assert_eq!(space.items(open), [a, c]);
    assert_eq!(space.items(closed), [e]);
    assert_eq!((space.is_closed(open), space.is_closed(closed)), (false, true));
    assert_eq!(space.item_info(c), Some(ItemInfo::AWAIT));
    assert_eq!(space.loc("A"), Some(a));
}
