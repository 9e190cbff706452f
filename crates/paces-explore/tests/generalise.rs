//! `Counterexample::eliminate`, the one call from the checker's counterexample to its fixes:
//! it gives what completing and generalising in two steps gives, for bad traces and
//! deadlocks, and says so when the generalisation refuses.

use paces_explore::constraint::Arena;
use paces_explore::generalize::{eliminate, EliminateConfig};
use paces_explore::{check, Config, ErrorKind};

const PROGRAMS: [&str; 3] = [
    // The paper's Example 4: the fix needs `C`, which runs after the failure.
    "var x = 0, y = 0, z = 0;
     thread t1 { A: x := 1; B: z := 1; C: y := 1; }
     thread t2 { 1: await(x == 1); 2: assert(y == 1); }",
    // A lost update.
    "var n = 0, d = 0;
     thread a { local t; a1: t := n; a2: n := t + 1; a3: d := d + 1; }
     thread b { local t; b1: t := n; b2: n := t + 1; b3: d := d + 1; }
     thread c { c1: await(d == 2); c2: assert(n == 2); }",
    // A deadlock: two locks taken in opposite orders.
    "var m = 0, k = 0;
     thread a { a1: lock(m); a2: lock(k); a3: unlock(k); a4: unlock(m); }
     thread b { b1: lock(k); b2: lock(m); b3: unlock(m); b4: unlock(k); }",
];

#[test]
fn one_call_gives_the_fixes_of_two_steps() {
    for text in PROGRAMS {
        let program = paces_explore::cwhile::parse(text).expect("parses");
        let space = program.space();
        let result = check(&program, &Config::new()).expect("checks");
        let cex = result.verdict.counterexample().expect("a counterexample");
        let mut arena = Arena::new();
        let one = cex.eliminate(&program, &space, &mut arena, &EliminateConfig::new()).expect("fixes");
        let complete = cex.complete(&program, 200_000).expect("completes");
        let two = eliminate(&complete.trace, &space, &mut arena, &EliminateConfig::new()).expect("fixes");
        assert!(!one.fixes.is_empty(), "no fix for\n{text}");
        assert_eq!(one.fixes, two.fixes, "{text}");
    }
}

#[test]
fn a_refusal_of_the_generalisation_is_an_error_of_its_kind() {
    let program = paces_explore::cwhile::parse(PROGRAMS[1]).expect("parses");
    let result = check(&program, &Config::new()).expect("checks");
    let cex = result.verdict.counterexample().expect("a counterexample");
    // A space of another program: its locations are not the trace's.
    let other = paces_explore::cwhile::parse("var x = 0; thread a { x := 1; }").expect("parses").space();
    let err = cex.eliminate(&program, &other, &mut Arena::new(), &EliminateConfig::new()).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::Generalize, "{err}");
}
