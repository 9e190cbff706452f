//! A few hundred random programs through `paces_testkit::diff::compare` (the checker's
//! configurations against the interpreter, witnesses replayed), as CI runs them;
//! `cargo xtask differential` runs the same at scale, with SPIN.

use paces_testkit::diff::{compare, Options};
use paces_testkit::gen::Features;
use paces_testkit::programs::Programs;

fn no_disagreement(features: Features, n: usize, seed: u64) {
    let mut programs = Programs::new(seed, features);
    let mut found = Vec::new();
    for _ in 0..n {
        let report = compare(&programs.next_case().prog(), Options { limit: 5_000, spin: false });
        if let Some(d) = report.disagreements.first() {
            found.push(format!("{}: {}\n{}", d.kind.name(), d.detail, report.text));
        }
    }
    assert!(found.is_empty(), "{} of {n} programs disagree; the first:\n{}", found.len(), found[0]);
}

/// Nested atomic blocks, locks and the semaphore inside atomic blocks, awaits anywhere in
/// them; every thread ends with a step.
#[test]
fn nested_atomic_blocks_agree() {
    no_disagreement(
        Features { assume_in_atomic: false, loop_last: false, unbounded: false, nested: true, wide: false },
        150,
        7,
    );
}

#[test]
fn every_construct_agrees() {
    no_disagreement(Features::ALL, 300, 11);
}

/// Program 1139 of seed 2 (`cargo xtask differential --seed 2`): the merged search meets the
/// atomic livelock before the deadlock and names it its verdict; what it finds is the same.
#[test]
fn the_merged_search_may_name_another_first_failure() {
    let mut programs = Programs::new(2, Features::ALL);
    for _ in 0..1139 {
        programs.next_case();
    }
    let report = compare(&programs.next_case().prog(), Options { limit: 20_000, spin: false });
    assert!(report.complete, "{}", report.text);
    let found: Vec<String> = report.disagreements.iter().map(|d| format!("{}: {}", d.kind.name(), d.detail)).collect();
    assert!(found.is_empty(), "{}\n{}", found.join("\n"), report.text);
}
