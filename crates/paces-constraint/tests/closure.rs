//! Property: a space's fixed order is the transitive closure of its fixed pairs, whichever
//! form the space keeps it in (the free pairs of a block whose items mostly conflict, a bit
//! matrix for one whose items mostly commute), checked against a brute-force closure.

use paces_constraint::{ItemInfo, Loc, SpaceBuilder};
use proptest::prelude::*;

/// A block of `n` items and random direct pairs `(i, j)`, `i < j`: random pairs alone (mostly
/// free: the bit matrix), or over a chain through the items that skips a few (mostly fixed:
/// the free pairs, with items of several direct successors).
fn block() -> impl Strategy<Value = (usize, Vec<(usize, usize)>)> {
    (1usize..70, any::<bool>()).prop_flat_map(|(n, chained)| {
        let pairs = proptest::collection::vec((0..n, 0..n), 0..3 * n);
        let skipped = proptest::collection::vec(0..n, 0..4);
        (Just(n), pairs, skipped).prop_map(move |(n, raw, skipped)| {
            let mut pairs: Vec<(usize, usize)> = raw.into_iter().filter(|(i, j)| i < j).collect();
            if chained {
                pairs.extend((1..n).filter(|i| !skipped.contains(i)).map(|i| (i - 1, i)));
            }
            (n, pairs)
        })
    })
}

fn brute_closure(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<bool>> {
    let mut before = vec![vec![false; n]; n];
    for &(i, j) in pairs {
        before[i][j] = true;
    }
    for k in 0..n {
        for i in 0..k {
            for j in k + 1..n {
                before[i][j] |= before[i][k] && before[k][j];
            }
        }
    }
    before
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn fixed_order_is_the_closure_of_the_fixed_pairs((n, pairs) in block()) {
        let mut b = SpaceBuilder::new();
        let block = b.block(false);
        let locs: Vec<Loc> = (0..n).map(|i| b.loc(&format!("i{i}")).unwrap()).collect();
        for &l in &locs {
            b.item(block, l, ItemInfo::SIMPLE).unwrap();
        }
        for &(i, j) in &pairs {
            b.fix(locs[i], locs[j]).unwrap();
        }
        let space = b.build().unwrap();
        let before = brute_closure(n, &pairs);
        let free: Vec<(usize, usize)> =
            (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).filter(|&(i, j)| !before[i][j]).collect();
        prop_assert_eq!(space.free_pairs(block).collect::<Vec<_>>(), free);
        for i in 0..n {
            for j in 0..n {
                prop_assert_eq!(space.is_fixed(locs[i], locs[j]), before[i][j], "{} before {}", i, j);
                let free = i != j && !before[i][j] && !before[j][i];
                prop_assert_eq!(space.may_change_order(locs[i], locs[j]), free, "{} and {}", i, j);
            }
        }
    }
}

/// A long chain keeps only its few free pairs, and the block's last items stay free of an
/// item that conflicts with nothing: the free form answers both.
#[test]
fn a_long_chain_with_one_free_item() {
    let n = 20_000;
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let locs: Vec<Loc> = (0..n).map(|i| b.loc(&format!("i{i}")).unwrap()).collect();
    for &l in &locs {
        b.item(block, l, ItemInfo::SIMPLE).unwrap();
    }
    // Items 1.. form a chain; item 0 conflicts with nothing.
    for i in 1..n - 1 {
        b.fix(locs[i], locs[i + 1]).unwrap();
    }
    let space = b.build().unwrap();
    assert!(space.is_fixed(locs[1], locs[n - 1]));
    assert!(!space.is_fixed(locs[n - 1], locs[1]));
    assert!(space.may_change_order(locs[0], locs[n - 1]));
    assert!(!space.may_change_order(locs[5], locs[n - 7]));
}
