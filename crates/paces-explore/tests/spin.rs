//! Differential against SPIN on the exported Promela (`paces_cwhile::to_promela`): for every
//! held-in program, every C model of the tests (read by `paces-c`) and random programs, an
//! assertion failure is reachable for us exactly when SPIN finds an assertion violation, and
//! a deadlock is reachable exactly when SPIN finds an invalid end state; on the random
//! programs, SPIN's invalid end states are our deadlocks by name.
//!
//! The export makes a choice with the first step of the branch taken and lets a thread cut
//! by a false `assume` end the run, so SPIN's invalid end states are the language's
//! deadlocks (docs/language.md, "Promela export").
//!
//! Without `spin` (or `gcc`) on PATH the tests say that they skipped, unless
//! `PACES_REQUIRE_SPIN=1`, then they fail.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use paces_explore::{check, Config, DeadlockId, FailureKinds, ThreadStand, Verdict};
use paces_testkit::diff::deadlock_text;
use paces_testkit::{gen, spin};
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};

fn spin_available() -> bool {
    spin::available_for_test()
}

fn spin_verdicts(promela: &str) -> (Option<bool>, Option<bool>) {
    spin::verdicts(promela).unwrap_or_else(|e| panic!("{e}"))
}

/// Our verdicts: (assertion failure reachable, deadlock reachable).
fn our_verdicts(program: &paces_cwhile::Program) -> (bool, bool) {
    let bad = check(program, &Config::new().find(FailureKinds::BAD)).expect("check");
    let dl = check(program, &Config::new().find(FailureKinds::DEADLOCKS)).expect("check");
    for r in [&bad, &dl] {
        assert!(!matches!(r.verdict, Verdict::BoundReached { .. }), "bound reached: {r}");
    }
    (matches!(bad.verdict, Verdict::Bad(_)), matches!(dl.verdict, Verdict::Deadlock(..)))
}

#[test]
fn heldin_programs_agree_with_spin() {
    if !spin_available() {
        return;
    }
    assert_eq!(paces_heldin::NAMES.len(), 12);
    for &name in paces_heldin::NAMES {
        let program = paces_cwhile::parse(paces_heldin::source(name)).unwrap();
        let ours = our_verdicts(&program);
        let spin = spin_verdicts(&paces_cwhile::to_promela(&program, paces_heldin::source(name)).unwrap());
        eprintln!("{name}: ours (bad, deadlock) = {ours:?}, spin = {spin:?}");
        assert_eq!((Some(ours.0), Some(ours.1)), spin, "{name}");
    }
}

/// The C models of `paces-c`'s tests and `examples/paper1.c`, read by the C frontend (threads
/// from `main`, parameters and return values passed through the callee's locals, early
/// returns, `nondet_int()`, hooks): SPIN on their export agrees with our verdicts.
#[test]
fn c_models_agree_with_spin() {
    if !spin_available() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("crates/paces-c/tests/models"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.push(root.join("examples/paper1.c"));
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    let mut bad = 0;
    for path in &files {
        let source = std::fs::read_to_string(path).unwrap();
        let program = paces_c::parse(&source).unwrap();
        let ours = our_verdicts(&program);
        let spin = spin_verdicts(&paces_cwhile::to_promela(&program, &source).unwrap());
        eprintln!("{}: ours (bad, deadlock) = {ours:?}, spin = {spin:?}", path.display());
        assert_eq!((Some(ours.0), Some(ours.1)), spin, "{}", path.display());
        bad += usize::from(ours.0);
    }
    assert!(bad >= 5 && bad < files.len(), "buggy and correct models both: {bad} of {}", files.len());
}

/// dv1394's known fix needs atomic sections holding a wait after their first step, which the
/// Promela export refuses; written in Promela by hand (`tests/data/dv1394_known_fix.pml`,
/// whose atomic sequences lose atomicity while blocked) it still lets the deadlock detector
/// `E` fail, and the original's check finds the same.
#[test]
fn dv1394_known_fix_still_fails_in_promela() {
    if !spin_available() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixed = std::fs::read_to_string(dir.join("tests/data/dv1394_known_fix.pml")).unwrap();
    assert_eq!(spin_verdicts(&fixed).0, Some(true), "SPIN finds no assertion violation in the fixed model");
    let original = paces_cwhile::parse(paces_heldin::source("dv1394")).unwrap();
    let result = check(&original, &Config::new().find(FailureKinds::BAD)).expect("check");
    let Verdict::Bad(cex) = &result.verdict else { panic!("the original dv1394 has no failure: {result}") };
    let step = cex.failing_step.expect("a failing step");
    let failing = cex.schedule.steps[step].label.clone();
    assert!(["4", "E"].contains(&failing.as_str()), "fails at {failing}");
}

/// Random programs (40 cases; with `assume`s after loops, waits under held locks and up to
/// four threads). A program whose atomic block waits after its first step has
/// no Promela model (the export refuses it): such programs are skipped and counted.
#[test]
fn random_programs_agree_with_spin() {
    if !spin_available() {
        return;
    }
    let compared = AtomicUsize::new(0);
    let refused = AtomicUsize::new(0);
    let mut runner = TestRunner::new(ProptestConfig { cases: 40, ..ProptestConfig::default() });
    let result =
        runner.run(&gen::prog_with(gen::Features { loop_last: true, wide: true, ..gen::Features::BASE }), |prog| {
            let text = prog.text();
            let program = paces_cwhile::parse(&text).map_err(|d| TestCaseError::fail(d.to_string()))?;
            let model = match paces_cwhile::to_promela(&program, &text) {
                Ok(model) => model,
                Err(e) => {
                    prop_assert_eq!(e.kind(), &paces_cwhile::ErrorKind::WaitInAtomic);
                    refused.fetch_add(1, Ordering::Relaxed);
                    return Ok(());
                }
            };
            let ours = our_verdicts(&program);
            let spin = spin_verdicts(&model);
            prop_assert!(spin::agree(ours, spin), "ours {:?}, spin {:?}\n{}\n{}", ours, spin, text, model);
            // Every deadlock by name.
            let all = check(&program, &Config::new().stop_at_first_failure(false)).expect("check");
            // A thread waiting at a choice waits at a set of awaits: our names list them in
            // the choice's order, SPIN's as a set, so both are compared as sets.
            let ours: BTreeSet<String> = all.deadlocks.keys().map(|d| deadlock_text(&as_set(d))).collect();
            if let Some(theirs) = spin::deadlocks(&model).unwrap_or_else(|e| panic!("{e}")) {
                let theirs: BTreeSet<String> = theirs.iter().map(deadlock_text).collect();
                prop_assert_eq!(&ours, &theirs, "{}\n{}", text, model);
            }
            compared.fetch_add(1, Ordering::Relaxed);
            Ok(())
        });
    eprintln!(
        "compared {} random programs with SPIN; skipped {} programs the export refuses",
        compared.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed)
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(compared.load(Ordering::Relaxed) > 0, "every random program was refused by the export");
}

/// Our deadlock with each thread's awaits as a set, as SPIN's deadlocks are read.
fn as_set(d: &DeadlockId) -> spin::Deadlock {
    let stand = |s: &ThreadStand| match s {
        ThreadStand::Done => None,
        ThreadStand::Blocked(labels) => Some(labels.iter().cloned().collect()),
    };
    d.threads.iter().map(|(name, s)| (name.clone(), stand(s))).collect()
}
