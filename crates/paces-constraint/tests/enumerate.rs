//! Exhaustive checks of `Candidate::enumerate` against a brute force that does not use the
//! crate: every permutation of every block filtered by its fixed pairs, times every legal set of
//! atomic sections found by trying all join masks.

mod common;

use std::collections::HashSet;

use common::{legal_section_sets, permutations, respects_fixed, space_desc, BlockDesc, Built, SpaceDesc};
use paces_constraint::{Candidate, ErrorKind, ItemInfo, Loc, SpaceBuilder, Waits};
use proptest::prelude::*;

const LIMIT: usize = 3000;

/// One block's new order with one set of sections over it, as (first, last) items.
type BlockOption = (Vec<Loc>, Vec<(Loc, Loc)>);

/// Per block: every (order, sections) pair, by brute force.
fn block_options(built: &Built, k: usize) -> Vec<BlockOption> {
    let block = &built.desc.blocks[k];
    let locs = &built.locs[k];
    let mut out = Vec::new();
    for perm in permutations(block.items.len()).into_iter().filter(|p| respects_fixed(block, p)) {
        for set in legal_section_sets(block, &perm) {
            let sections = set.into_iter().map(|(s, e)| (locs[perm[s]], locs[perm[e]])).collect();
            out.push((perm.iter().map(|&i| locs[i]).collect(), sections));
        }
    }
    out
}

/// Checks enumeration of one space against the brute force.
#[track_caller]
fn check(desc: &SpaceDesc) {
    let built = desc.build();
    let options: Vec<_> = (0..desc.blocks.len()).map(|k| block_options(&built, k)).collect();
    let total = options.iter().try_fold(1usize, |acc, o| acc.checked_mul(o.len()));
    let total = match total {
        Some(t) if t <= LIMIT => t,
        _ => {
            let err = Candidate::enumerate(&built.space, LIMIT).expect_err("more candidates than the limit");
            assert_eq!(err.kind(), &ErrorKind::TooMany);
            return;
        }
    };
    let all = Candidate::enumerate(&built.space, LIMIT).expect("few enough candidates");
    assert_eq!(all.len(), total, "{desc:?}");
    let distinct: HashSet<&Candidate> = all.iter().collect();
    assert_eq!(distinct.len(), all.len(), "duplicates in the enumeration of {desc:?}");
    // The brute-force cross product, built with the checked constructor.
    let mut expected = HashSet::new();
    let mut idx = vec![0usize; options.len()];
    'outer: loop {
        let orders = options.iter().zip(&idx).map(|(o, &i)| o[i].0.clone()).collect();
        let sections: Vec<(Loc, Loc)> = options.iter().zip(&idx).flat_map(|(o, &i)| o[i].1.clone()).collect();
        expected.insert(Candidate::new(&built.space, orders, &sections).expect("brute force builds legal candidates"));
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < options[k].len() {
                continue 'outer;
            }
            idx[k] = 0;
        }
        break;
    }
    assert_eq!(expected.len(), total);
    assert_eq!(distinct, expected.iter().collect::<HashSet<_>>(), "{desc:?}");
    // The limit is exact.
    assert_eq!(
        Candidate::enumerate(&built.space, total - 1).map(|v| v.len()).map_err(|e| e.kind().clone()),
        Err(ErrorKind::TooMany)
    );
    // The original program comes first.
    assert!(all[0].is_original(&built.space));
}

/// An item kind of the exhaustive tests: where it waits, its weight, whether it is atomic.
type Kind = (Waits, u32, bool);

const FREE: Kind = (Waits::Never, 1, true);
const OPENER: Kind = (Waits::First, 1, true);
/// A compound item holding a wait after its first step: may be a section alone.
const INNER: Kind = (Waits::Inside, 3, false);

fn block(items: Vec<Kind>, closed: bool, fixed: Vec<(usize, usize)>) -> BlockDesc {
    BlockDesc { items, closed, fixed, kept: 0 }
}

/// Every single-block space of up to three items: all fixed-pair sets, item kinds (simple,
/// waiting first, compound waiting inside), closed or not.
#[test]
fn all_single_block_spaces_up_to_three_items() {
    let roles = [FREE, OPENER, INNER];
    let mut spaces = 0;
    for n in 0..=3usize {
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect();
        for fixed_mask in 0..1u32 << pairs.len() {
            let fixed: Vec<_> =
                pairs.iter().enumerate().filter(|(k, _)| fixed_mask >> k & 1 == 1).map(|(_, p)| *p).collect();
            for role_code in 0..3usize.pow(n as u32) {
                let items: Vec<Kind> = (0..n).map(|i| roles[role_code / 3usize.pow(i as u32) % 3]).collect();
                for closed in [false, true] {
                    check(&SpaceDesc { blocks: vec![block(items.clone(), closed, fixed.clone())], extra_locs: 0 });
                    spaces += 1;
                }
            }
        }
    }
    assert_eq!(spaces, 2 * (1 + 3 + 2 * 9 + 8 * 27));
}

/// Four-item blocks with every fixed-pair set, for a few role patterns.
#[test]
fn four_item_blocks() {
    const LOOP: Kind = (Waits::Never, 2, false);
    let patterns = [
        [FREE; 4],
        [OPENER, FREE, FREE, FREE],
        [FREE, OPENER, FREE, FREE],
        [FREE, FREE, INNER, FREE],
        [OPENER, OPENER, LOOP, FREE],
    ];
    let pairs: Vec<(usize, usize)> = (0..4).flat_map(|i| (i + 1..4).map(move |j| (i, j))).collect();
    for fixed_mask in 0..1u32 << pairs.len() {
        let fixed: Vec<_> =
            pairs.iter().enumerate().filter(|(k, _)| fixed_mask >> k & 1 == 1).map(|(_, p)| *p).collect();
        for items in &patterns {
            check(&SpaceDesc { blocks: vec![block(items.to_vec(), false, fixed.clone())], extra_locs: 1 });
        }
    }
}

/// Closed forms: n free items with no fixed pair give n! orders, each with 2^(n-1) section
/// sets (every subset of the n-1 gaps may be joined); a chain of fixed pairs gives one order.
#[test]
fn closed_forms() {
    for n in 1..=5usize {
        let free = block(vec![FREE; n], false, vec![]);
        let built = SpaceDesc { blocks: vec![free], extra_locs: 0 }.build();
        let factorial: usize = (1..=n).product();
        assert_eq!(Candidate::enumerate(&built.space, 100_000).unwrap().len(), factorial << (n - 1));
        let chain = block(vec![FREE; n], false, (1..n).map(|i| (i - 1, i)).collect());
        let built = SpaceDesc { blocks: vec![chain], extra_locs: 0 }.build();
        assert_eq!(Candidate::enumerate(&built.space, 100_000).unwrap().len(), 1 << (n - 1));
        let closed = block(vec![FREE; n], true, vec![]);
        let built = SpaceDesc { blocks: vec![closed.clone(), closed], extra_locs: 0 }.build();
        assert_eq!(Candidate::enumerate(&built.space, 100_000).unwrap().len(), factorial * factorial);
    }
    // No blocks at all: only the original.
    let empty = SpaceBuilder::new().build().unwrap();
    assert_eq!(Candidate::enumerate(&empty, 1).unwrap(), vec![Candidate::original(&empty)]);
}

/// A large block is refused quickly, before its candidates fill memory.
#[test]
fn large_blocks_hit_the_limit_early() {
    let mut b = SpaceBuilder::new();
    let block = b.block(false);
    let mut prev = None;
    for i in 0..60 {
        let loc = b.loc(&format!("s{i}")).unwrap();
        b.item(block, loc, ItemInfo::SIMPLE).unwrap();
        if let Some(p) = prev {
            b.fix(p, loc).unwrap();
        }
        prev = Some(loc);
    }
    // One order, 2^59 section sets.
    let space = b.build().unwrap();
    assert_eq!(Candidate::enumerate(&space, 1000).unwrap_err().kind(), &ErrorKind::TooMany);
    // 60! orders.
    let mut b = SpaceBuilder::new();
    let block = b.block(true);
    for i in 0..60 {
        let loc = b.loc(&format!("s{i}")).unwrap();
        b.item(block, loc, ItemInfo::SIMPLE).unwrap();
    }
    let space = b.build().unwrap();
    assert_eq!(Candidate::enumerate(&space, 1000).unwrap_err().kind(), &ErrorKind::TooMany);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random spaces of several blocks.
    #[test]
    fn random_spaces(desc in space_desc(3, 4)) {
        check(&desc);
    }
}

/// Items kept out of sections: every single-block space of up to four items (simple, waiting
/// first, compound) with every set of kept items agrees with the brute force, and the closed
/// form of three free items with the middle one kept: 3! orders, and per order 2 to the
/// number of gaps not next to the kept item (2, 1 or 2 by where it stands), 10 in all.
#[test]
fn items_kept_out_of_sections() {
    let roles = [FREE, OPENER, INNER];
    for n in 1..=4usize {
        for role_code in 0..3usize.pow(n as u32) {
            let items: Vec<Kind> = (0..n).map(|i| roles[role_code / 3usize.pow(i as u32) % 3]).collect();
            for kept in 1..1u64 << n {
                let desc = BlockDesc { items: items.clone(), closed: false, fixed: vec![], kept };
                check(&SpaceDesc { blocks: vec![desc], extra_locs: 0 });
            }
        }
    }
    let desc = BlockDesc { items: vec![FREE; 3], closed: false, fixed: vec![], kept: 0b010 };
    let built = SpaceDesc { blocks: vec![desc], extra_locs: 0 }.build();
    let all = Candidate::enumerate(&built.space, 1000).unwrap();
    assert_eq!(all.len(), 10);
    let kept = built.locs[0][1];
    assert!(all.iter().all(|c| c.section_of(kept).is_none()));
    // A section holding the kept item is refused by name, alone or with others.
    let order = built.locs[0].clone();
    let err = Candidate::new(&built.space, vec![order.clone()], &[(order[0], order[1])]).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BadSection);
    assert!(err.to_string().contains("b0i1"), "{err}");
    let err = Candidate::new(&built.space, vec![order.clone()], &[(order[0], order[2])]).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BadSection);
    // A compound item kept out of sections takes no section alone, and `[a; a]` holds for it
    // as for an item atomic by itself.
    let desc = BlockDesc { items: vec![INNER, FREE], closed: false, fixed: vec![], kept: 0b01 };
    let built = SpaceDesc { blocks: vec![desc], extra_locs: 0 }.build();
    let inner = built.locs[0][0];
    assert!(!built.space.takes_section_alone(inner));
    assert!(!built.space.may_be_in_section(inner));
    assert!(built.space.may_be_in_section(built.locs[0][1]));
    let err = Candidate::new(&built.space, vec![built.locs[0].clone()], &[(inner, inner)]).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BadSection);
    let original = Candidate::original(&built.space);
    assert!(original.holds_atomic(inner, inner));
}
