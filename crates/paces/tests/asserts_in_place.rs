//! Every repair keeps each `assert` in place: on random small programs (the generator of
//! `random.rs`), the loop's repair and the exhaustive search's optimum (`Repair::optimum`,
//! where the space is small) never move an item of an `assert`'s block from before it to after
//! it or back. Checked against the original program's block orders, not against the space.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::programs::program;
use paces::constraint::{BlockId, Candidate, Loc};
use paces::cwhile::ir::StmtKind;
use paces::cwhile::Program;
use paces::explore::Config;
use paces::{candidate_count, Repair, Report};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{TestRng, TestRunner};

/// Programs whose space has at most this many candidates are searched exhaustively too.
const SPACE_LIMIT: usize = 300;

fn repair() -> Repair {
    Repair::new()
        .checker(Config::new().max_states(50_000))
        .max_iterations(30)
        .time_limit(Some(Duration::from_secs(20)))
        .exhaustive_limit(SPACE_LIMIT)
}

/// An `assert` that moved: its label, the items before it in the original and in the candidate.
type Moved = (String, BTreeSet<Loc>, BTreeSet<Loc>);

/// The `assert`s (not `assertd`) of a candidate's program that changed the set of items of
/// their block before them, as `(label, the items before it in the original, in the
/// candidate)`; the number of `assert`s with a neighbour, for the count of what was checked.
fn moved_asserts(p: &Program, candidate: &Candidate) -> (Vec<Moved>, usize) {
    let mut moved = Vec::new();
    let mut checked = 0;
    for (i, block) in p.blocks.iter().enumerate() {
        let original: Vec<Loc> = block.items.iter().map(|&s| p.stmt(s).loc).collect();
        let order = candidate.order(BlockId::from_u32(i as u32));
        for &s in &block.items {
            let stmt = p.stmt(s);
            if !matches!(stmt.kind, StmtKind::Assert(_)) || p.assertd.contains(&s) {
                continue;
            }
            checked += usize::from(block.items.len() > 1);
            let before =
                |order: &[Loc]| -> BTreeSet<Loc> { order.iter().take_while(|&&l| l != stmt.loc).copied().collect() };
            let (was, is) = (before(&original), before(order));
            if was != is {
                moved.push((stmt.label.clone(), was, is));
            }
        }
    }
    (moved, checked)
}

/// The report's accepted candidate keeps every `assert` in place; the number of `assert`s
/// with a neighbour that it checked (0 without a candidate).
fn in_place(src: &str, p: &Program, report: &Report, how: &str) -> Result<usize, TestCaseError> {
    let Some(candidate) = report.candidate.as_ref() else { return Ok(0) };
    let (moved, checked) = moved_asserts(p, candidate);
    prop_assert!(
        moved.is_empty(),
        "{how} moved an assert across an item of its block: {moved:?}\n{src}\n{}",
        report.repaired_text().unwrap_or_default()
    );
    Ok(checked)
}

#[test]
fn no_repair_moves_an_item_across_an_assert() {
    let config = ProptestConfig { cases: 32, ..ProptestConfig::default() };
    let mut runner = TestRunner::new_with_rng(config.clone(), TestRng::deterministic_rng(config.rng_algorithm));
    let strategy = program();
    let (mut looped, mut searched) = (0, 0);
    for _ in 0..config.cases {
        let src = strategy.new_tree(&mut runner).expect("a program").current();
        let p = paces::cwhile::parse(&src).expect("the generator writes valid programs");
        let report = repair().run(&p).unwrap_or_else(|e| panic!("{src}\n{e}"));
        looped += in_place(&src, &p, &report, "the loop").unwrap_or_else(|e| panic!("{e}"));
        if candidate_count(&p.space()).is_some_and(|n| n <= SPACE_LIMIT as u128) {
            let exact = repair().optimum(&p).unwrap_or_else(|e| panic!("{src}\n{e}"));
            searched += in_place(&src, &p, &exact, "the exhaustive search").unwrap_or_else(|e| panic!("{e}"));
        }
    }
    // The property is exercised: repairs of both searches hold asserts with neighbours.
    assert!(looped > 0 && searched > 0, "asserts checked: {looped} in the loop's repairs, {searched} in the optimum's");
}

/// A hand-made case: the only cheap "repair" moves the check above the wait it follows, which
/// the space forbids; an `assertd` in its place may move, and the loop moves it.
#[test]
fn an_assert_keeps_its_place_where_an_assertd_moves() {
    let text = |kind: &str| {
        format!(
            "var started = 0, go = 0, x = 0;\n\
             thread a {{ a1: await(started == 1); a2: go := 1; a3: x := 2; }}\n\
             thread b {{ b0: started := 1; b1: await(go == 1); b2: {kind}(x <= 1); }}\n"
        )
    };
    let fixed = paces::cwhile::parse(&text("assert")).unwrap();
    let space = fixed.space();
    let (b1, b2) = (space.loc("b1").unwrap(), space.loc("b2").unwrap());
    assert!(space.is_fixed(b1, b2), "an assert is fixed after the item before it");
    let movable = paces::cwhile::parse(&text("assertd")).unwrap();
    let space = movable.space();
    assert!(!space.is_fixed(space.loc("b1").unwrap(), space.loc("b2").unwrap()), "an assertd is not");
    let report = Repair::new().run(&movable).unwrap();
    assert!(report.stop.is_success(), "{}", report.stop);
    let (moved, _) = moved_asserts(&movable, report.candidate.as_ref().unwrap());
    assert!(moved.is_empty(), "an assertd is no `assert`: it is not counted");
    let repaired = report.repaired_text().unwrap();
    assert!(repaired.contains("b2: assertd(x <= 1);"), "{repaired}");
    assert!(repaired.find("b2:").unwrap() < repaired.find("b1:").unwrap(), "the assertd moved above b1:\n{repaired}");
}
