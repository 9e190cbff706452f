//! `Candidate::moves`: made one after the other from the original order, the moves give the
//! candidate's orders, and there are as few as possible (the block's length less its longest
//! common subsequence with the original order, computed here by the textbook table).

mod common;

use common::{random_candidate, space_desc, Rng};
use paces_constraint::{Candidate, ItemInfo, SpaceBuilder, Waits};
use proptest::prelude::*;

/// The length of a longest common subsequence of two sequences.
fn lcs<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut t = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in 0..a.len() {
        for j in 0..b.len() {
            t[i + 1][j + 1] = if a[i] == b[j] { t[i][j] + 1 } else { t[i][j + 1].max(t[i + 1][j]) };
        }
    }
    t[a.len()][b.len()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn moves_reach_the_candidate_and_are_fewest(desc in space_desc(3, 7), seed in any::<u64>()) {
        let built = desc.build();
        let mut rng = Rng(seed);
        for _ in 0..20 {
            let (c, _) = random_candidate(&built, &mut rng);
            let moves = c.moves(&built.space);
            let reached = Candidate::apply_moves(&built.space, &moves).unwrap();
            prop_assert_eq!(&reached[..], c.orders());
            let fewest: usize = built
                .space
                .blocks()
                .map(|b| c.order(b).len() - lcs(built.space.items(b), c.order(b)))
                .sum();
            prop_assert_eq!(moves.len(), fewest);
            prop_assert_eq!(moves.is_empty(), c.orders().iter().zip(built.space.blocks()).all(|(o, b)| o == built.space.items(b)));
        }
    }
}

/// One statement moved past six others is one move, where the swaps are six.
#[test]
fn one_statement_past_six_others_is_one_move() {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let names = ["187", "188", "190", "191", "194", "195", "199", "200"];
    let locs: Vec<_> = names.iter().map(|n| b.loc(n).unwrap()).collect();
    for &l in &locs {
        b.item(block, l, ItemInfo::new(1, Waits::Never, true)).unwrap();
    }
    let space = b.build().unwrap();
    let mut order = locs.clone();
    let first = order.remove(0);
    order.insert(6, first);
    let c = Candidate::new(&space, vec![order], &[]).unwrap();
    assert_eq!(c.transformations(&space).len(), 6);
    let moves: Vec<String> = c.moves(&space).iter().map(|m| m.display(&space).to_string()).collect();
    assert_eq!(moves, ["move 187 below 199"]);
    // A move to the top names the item it goes above.
    let mut order = locs.clone();
    let last = order.pop().unwrap();
    order.insert(0, last);
    let c = Candidate::new(&space, vec![order], &[]).unwrap();
    let moves: Vec<String> = c.moves(&space).iter().map(|m| m.display(&space).to_string()).collect();
    assert_eq!(moves, ["move 200 above 187"]);
}

/// A swap of two neighbours reads as the first moving below the second.
#[test]
fn a_swap_reads_as_a_move_below() {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let locs: Vec<_> = ["A", "B", "C"].iter().map(|n| b.loc(n).unwrap()).collect();
    for &l in &locs {
        b.item(block, l, ItemInfo::new(1, Waits::Never, true)).unwrap();
    }
    let space = b.build().unwrap();
    let show = |order: Vec<paces_constraint::Loc>| -> Vec<String> {
        let c = Candidate::new(&space, vec![order], &[]).unwrap();
        c.moves(&space).iter().map(|m| m.display(&space).to_string()).collect()
    };
    assert_eq!(show(vec![locs[1], locs[0], locs[2]]), ["move A below B"]);
    assert_eq!(show(vec![locs[1], locs[2], locs[0]]), ["move A below C"]);
    assert_eq!(show(vec![locs[2], locs[0], locs[1]]), ["move C above A"]);
}
