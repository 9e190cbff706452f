//! Verdicts that are easy to get wrong: a false `assume` inside an atomic block, which waits
//! like an `await`.

use paces_explore::{check, CheckResult, Config, Verdict};

#[track_caller]
fn run(src: &str, config: Config) -> CheckResult {
    let program = paces_cwhile::parse(src).unwrap_or_else(|e| panic!("parse failed: {e:?}"));
    check(&program, &config).expect("check")
}

fn deadlocks(r: &CheckResult) -> Vec<String> {
    r.deadlocks.keys().map(ToString::to_string).collect()
}

/// A false `assume` inside an atomic block makes its thread wait before the block, as a false
/// `await` does: both threads wait forever.
#[test]
fn a_false_assume_inside_an_atomic_block_waits() {
    for cond in ["assume(c == 2)", "await(c == 2)"] {
        let src = format!(
            "var c = 1;
             thread t0 {{ L1: await(c == 5); }}
             thread t1 {{ L5: atomic {{ {cond}; skip; }} }}"
        );
        for por in [true, false] {
            let r = run(&src, Config::new().stop_at_first_failure(false).por(por));
            assert_eq!(deadlocks(&r), ["t0 at L1, t1 at L5"], "{cond}, por {por}");
        }
    }
}

/// A block that some path gets through is taken along that path; a path stopped by a false
/// `assume` is only dropped.
#[test]
fn a_false_assume_on_one_path_of_a_block_drops_that_path() {
    let src = "var c = 1, d = 0;
        thread t0 { A: atomic { if (*) { assume(c == 2); d := 1; } else { d := 2; } } B: assert(d == 2); }";
    let r = run(src, Config::new().stop_at_first_failure(false));
    assert!(matches!(r.verdict, Verdict::Correct), "{}", r.verdict);
    assert!(r.deadlocks.is_empty());
}
