//! The judge's memory of the candidates it rejected.

use super::*;
use crate::Repair;

/// A program whose one candidate of the space, the original, fails: `b` may write between
/// `a`'s write and its assertion.
fn racy() -> Program {
    paces_cwhile::parse("var x = 0; thread a { A: x := 1; B: assert(x == 1); } thread b { C: x := 2; }").unwrap()
}

/// Judges `candidate` twice with `judge`: the problems and the states each judgement stored.
fn twice(judge: &mut Judge, program: &Program) -> [(Problem, usize); 2] {
    let (space, cfg) = (program.space(), Repair::new());
    let mut ctx = Context::new(&cfg, program, &space);
    let candidate = Candidate::original(&space);
    let mut one = || {
        let before = ctx.states();
        match judge.judge(&mut ctx, program, &candidate).unwrap() {
            Judgement::Rejected(why) => (why.problem(), ctx.states() - before),
            _ => panic!("the original fails"),
        }
    };
    [one(), one()]
}

#[test]
fn a_rejected_candidate_is_rejected_again_without_a_check() {
    let program = racy();
    let [(first, checked), (again, rechecked)] = twice(&mut Judge::new(), &program);
    assert!(matches!(first, Problem::Failure { kind: FailureKind::Assertion, .. }), "{first:?}");
    assert_eq!(again, first);
    assert!(checked > 0);
    assert_eq!(rechecked, 0, "the second judgement explored nothing");
}

#[test]
fn a_rejection_under_the_judges_own_bound_or_deadlock_rule_is_checked_again() {
    let program = racy();
    let mut bounded = Judge::new();
    bounded.limit_states(Some(1_000_000));
    let [(first, _), (again, rechecked)] = twice(&mut bounded, &program);
    assert_eq!(again, first);
    assert!(rechecked > 0, "a judge with a bound of its own remembers nothing");
    let mut strict = Judge::new();
    strict.set_deadlock_policy(Deadlocks::Keep(BTreeSet::new()));
    let [_, (_, rechecked)] = twice(&mut strict, &program);
    assert!(rechecked > 0, "a judge that admits fewer deadlocks remembers nothing");
}
