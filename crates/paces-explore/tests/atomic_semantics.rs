//! The checker against the brute-force interpreter of the language's contract
//! (`paces_testkit::interp`, written on the generated statements, not on the compiled code):
//! random programs whose atomic blocks hold awaits, assumes, assertions, branches and loops
//! anywhere. Compared with `check`, with the reduction on and off: the failing assertions,
//! the deadlocks and whether an atomic livelock exists.

use paces_explore::{check, Config, Verdict};
use paces_testkit::diff::{expected, observed};
use paces_testkit::gen::{self, Cond, Ex, Features, Prog, St};
use paces_testkit::interp::{interpret, Code};
use proptest::prelude::*;

/// The interpreter's state limit: the generated programs of these tests have fewer states.
const LIMIT: usize = 200_000;

fn agrees_with_the_interpreter(prog: &Prog) -> Result<(), TestCaseError> {
    let code = Code::new(prog);
    let text = code.text();
    let program = paces_cwhile::parse(&text).map_err(|d| TestCaseError::fail(format!("{d}\n{text}")))?;
    let outcome = interpret(&code, LIMIT);
    if !outcome.complete {
        return Ok(());
    }
    for por in [true, false] {
        let r = check(&program, &Config::new().stop_at_first_failure(false).por(por).max_states(500_000)).unwrap();
        prop_assert!(!matches!(r.verdict, Verdict::BoundReached { .. }), "{}", text);
        prop_assert_eq!(&observed(&r), &expected(&outcome), "por {}\n{}", por, text);
    }
    Ok(())
}

/// The base constructs without `assume` inside atomic blocks (the next two tests add them and
/// every other construct).
const WITHOUT_ASSUME_IN_ATOMIC: Features = Features { assume_in_atomic: false, ..Features::BASE };

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn checker_agrees_with_a_brute_force_interpreter(prog in gen::prog_with(WITHOUT_ASSUME_IN_ATOMIC)) {
        agrees_with_the_interpreter(&prog)?;
    }

    #[test]
    fn checker_agrees_with_the_interpreter_on_assumes_in_atomic_blocks(prog in gen::prog()) {
        agrees_with_the_interpreter(&prog)?;
    }

    #[test]
    fn checker_agrees_with_the_interpreter_on_every_construct(
        prog in gen::prog_with(Features { unbounded: false, ..Features::ALL })
    ) {
        agrees_with_the_interpreter(&prog)?;
    }
}

/// The interpreter on a hand-written case: a failure on a path that then waits forever is not
/// one, and the thread waits before the block.
#[test]
fn the_interpreter_drops_paths_that_do_not_get_through() {
    let prog = Prog {
        threads: vec![
            vec![St::Atomic(None, vec![St::Assert(Cond::Eq(0, 1)), St::Await(Cond::Eq(0, 1))])],
            vec![St::Assign(1, Ex::Const(1))],
        ],
        proc_body: vec![St::Skip],
    };
    let code = Code::new(&prog);
    let text = code.text();
    let out = interpret(&code, LIMIT);
    assert!(out.complete && out.failures.is_empty());
    assert_eq!(out.deadlocks.len(), 1, "{text}");
    let program = paces_cwhile::parse(&text).unwrap();
    let r = check(&program, &Config::new().stop_at_first_failure(false)).unwrap();
    assert_eq!(observed(&r), expected(&out), "{text}");
}
