//! The paper's Figure 7 with the good trace's fallback on: the frozen orders leave an atomic
//! section as the cheapest candidate; relaxing the fallback to the covered edges gives the
//! paper's reorder (`thread1: B; C; A`).
//!
//! ```text
//! thread1 { A: x := 1; B: y := 1; C: z := 1 }
//! thread2 { 1: await(x == 1); 2: await(y == 1); 3: assert(z == 1) }
//! thread3 { n: await(z == 1); p: assert(y == 1) }
//! ```

#[path = "support/figure7.rs"]
mod figure7;

use figure7::{space, trace, Result};
use paces_learn::{Learner, LearnerConfig, Proposal};

#[test]
fn relaxing_the_fallbacks_finds_the_reorder_they_froze() -> Result<()> {
    let space = space()?;
    let good = trace(&space, "A B C 1 2 3 n p", None, "")?;
    let bad = trace(&space, "A 1 B 2 3 C n p", Some("3"), "")?;
    let mut learner = Learner::new(&space, LearnerConfig::new())?;
    assert!(learner.learn_good(&good)?.fallback_used);
    learner.learn_bad(&bad)?;
    let Proposal::Candidate { candidate, .. } = learner.propose()? else { panic!("a candidate exists") };
    assert!(!candidate.sections().is_empty(), "{}", candidate.display(learner.space()));
    assert_eq!(learner.relax_fallbacks()?, 1);
    assert_eq!(learner.relax_fallbacks()?, 0, "nothing is left to relax");
    let Proposal::Candidate { candidate, .. } = learner.propose()? else { panic!("a candidate exists") };
    let text = candidate.display(learner.space()).to_string();
    assert!(text.starts_with("thread1: B; C; A\n"), "{text}");
    Ok(())
}

/// Without relaxing on conflict, a fallback that conflicts with the fixes and a caller's own
/// constraint makes the learner answer unsatisfiable, naming each conjunct by its trace and
/// kind, and the likely cause.
#[test]
fn an_unsatisfiable_answer_names_the_traces_and_kinds_in_conflict() -> Result<()> {
    use paces_learn::{ConjunctKind, Role};
    let space = space()?;
    let mut learner = Learner::new(&space, LearnerConfig::new().relax_on_conflict(false))?;
    let no_section = fallback_fixes_and_no_section(&mut learner)?;
    assert_eq!(learner.fallbacks(), [1]);
    learner.require(no_section, "no section in thread1")?;
    let Proposal::Unsatisfiable { explanation, conflict, lessons, guesses } = learner.propose()? else {
        panic!("the fallback, the fixes and the caller's constraint conflict")
    };
    let kinds: Vec<(Option<(Role, usize)>, ConjunctKind)> = conflict.iter().map(|c| (c.trace, c.kind)).collect();
    assert_eq!(
        kinds,
        [
            (Some((Role::Good, 1)), ConjunctKind::Fallback),
            (Some((Role::Bad, 1)), ConjunctKind::Fixes { k: 3 }),
            (None, ConjunctKind::Required),
        ]
    );
    // The lessons in the solver's core, by id and name; none of them a guess.
    assert_eq!(lessons.iter().map(|l| l.index()).collect::<Vec<_>>(), [0, 1, 2]);
    assert!(guesses.is_empty(), "{guesses:?}");
    assert!(explanation.contains("lesson 0 `good trace #1 (fallback: every order frozen)`"), "{explanation}");
    assert!(explanation.contains("lesson 1 `bad trace #1 (fixes, K = 3)`"), "{explanation}");
    assert!(explanation.contains("lesson 2 `no section in thread1`"), "{explanation}");
    assert!(!explanation.contains("guess"), "{explanation}");
    assert!(explanation.contains("relax_fallbacks"), "the likely cause: {explanation}");
    Ok(())
}

/// Relaxing a fallback marks it and adds the covered edges in its place.
#[test]
fn the_conjuncts_record_a_relaxed_fallback_and_its_replacement() -> Result<()> {
    use paces_learn::ConjunctKind;
    let space = space()?;
    let good = trace(&space, "A B C 1 2 3 n p", None, "")?;
    let mut learner = Learner::new(&space, LearnerConfig::new())?;
    assert!(learner.learn_good(&good)?.fallback_used);
    learner.relax_fallbacks()?;
    let conjuncts = learner.conjuncts();
    assert_eq!(conjuncts.len(), 2);
    assert!(conjuncts[0].relaxed && conjuncts[0].kind == ConjunctKind::Fallback);
    assert_eq!(conjuncts[1].kind, ConjunctKind::Covers { after_fallback: true });
    assert_eq!(conjuncts[1].name, "good trace #1 (covered edges, fallback relaxed)");
    assert!(learner.fallbacks().is_empty());
    let shown = learner.display_constraints().to_string();
    assert!(shown.starts_with("good trace #1 (fallback: every order frozen) (relaxed): true\n"), "{shown}");
    Ok(())
}

/// A bad trace's fixes read with the space's names.
#[test]
fn fixes_display_with_names_and_cost() -> Result<()> {
    let space = space()?;
    let bad = trace(&space, "A 1 B 2 3", Some("3"), "C n p")?;
    let mut learner = Learner::new(&space, LearnerConfig::new())?;
    let (_, elimination) = learner.learn_bad_detailed(&bad)?;
    let shown: Vec<String> = elimination.fixes.iter().map(|f| f.display(learner.space()).to_string()).collect();
    assert!(shown.iter().any(|f| f.starts_with("C <= A /\\ 1 <= 3 (weight ")), "{shown:?}");
    assert!(shown.iter().any(|f| f.starts_with("2 <= 3 /\\ [B; C] (weight ")), "{shown:?}");
    Ok(())
}

/// Learns Figure 7's good trace (its fallback in force) and a bad trace that stops at its
/// failure; returns the constraint that rules out every atomic section in thread1, which
/// conflicts with the two.
fn fallback_fixes_and_no_section(learner: &mut Learner) -> Result<paces_learn::constraint::NodeId> {
    let good = trace(learner.space(), "A B C 1 2 3 n p", None, "")?;
    // As a checker that stops at the failure reports it: the threads' next steps pending.
    let bad = trace(learner.space(), "A 1 B 2 3", Some("3"), "C n p")?;
    learner.learn_good(&good)?;
    learner.learn_bad(&bad)?;
    let loc = |name: &str| learner.space().loc(name).expect("a label");
    let (a, b, c) = (loc("A"), loc("B"), loc("C"));
    let arena = learner.arena_mut();
    let bc = arena.atomic(b, c);
    let ac = arena.atomic(a, c);
    let no_bc = arena.not(bc);
    let no_ac = arena.not(ac);
    Ok(arena.and([no_bc, no_ac]))
}

/// What a proposal says, to compare two learners: the candidate, or no candidate.
fn answer(learner: &mut Learner) -> Result<String> {
    Ok(match learner.propose()? {
        Proposal::Candidate { candidate, cost, .. } => format!("{cost}\n{}", candidate.display(learner.space())),
        other => format!("{other:?}"),
    })
}

/// A conflict that holds a guess says so and lists it; taking the guess back lifts the
/// conflict, and the learner proposes what it proposed before the guess.
#[test]
fn a_conflict_that_rests_on_a_guess_names_it() -> Result<()> {
    let space = space()?;
    let mut learner = Learner::new(&space, LearnerConfig::new().relax_on_conflict(false))?;
    let no_section = fallback_fixes_and_no_section(&mut learner)?;
    let before = answer(&mut learner)?;
    let guess = learner.require_guess(no_section, "no section in thread1, supposed")?;
    let Proposal::Unsatisfiable { explanation, conflict, lessons, guesses } = learner.propose()? else {
        panic!("the fallback, the fixes and the guess conflict")
    };
    assert_eq!(guesses, [guess]);
    assert_eq!(lessons.len(), 3, "{lessons:?}");
    assert_eq!(conflict.last().map(|c| c.kind), Some(paces_learn::ConjunctKind::Guess));
    assert!(explanation.contains("lesson 2 `no section in thread1, supposed`"), "{explanation}");
    assert!(
        explanation.contains("this answer rests on a guess, not on what the traces proved: lesson 2 is a guess"),
        "{explanation}"
    );
    assert!(learner.retract(guess)?);
    assert_eq!(answer(&mut learner)?, before);
    Ok(())
}

/// With relaxation on, a conflict with a caller's constraint relaxes the fallback; taking that
/// constraint back (by `retract` or by popping its scope) undoes the relaxation: the fallback
/// binds again, and the learner proposes what a learner that never learned the constraint
/// proposes (an atomic section, under the fallback).
#[test]
fn taking_back_a_lesson_undoes_the_relaxations_its_conflicts_caused() -> Result<()> {
    let space = space()?;
    let mut never = Learner::new(&space, LearnerConfig::new())?;
    fallback_fixes_and_no_section(&mut never)?;
    let expected = answer(&mut never)?;
    assert!(expected.contains("thread1: A; atomic [B; C]"), "a section under the fallback: {expected}");
    for by_pop in [false, true] {
        let mut learner = Learner::new(&space, LearnerConfig::new())?;
        let no_section = fallback_fixes_and_no_section(&mut learner)?;
        assert_eq!(learner.push(), 1);
        let lesson = learner.require(no_section, "no section in thread1")?;
        let relaxed = answer(&mut learner)?;
        assert_eq!(learner.relaxed(), 1, "the conflict relaxed the fallback");
        assert!(learner.fallbacks().is_empty());
        assert!(relaxed.contains("thread1: B; C; A"), "the reorder: {relaxed}");
        if by_pop {
            assert_eq!(learner.pop()?, 1);
        } else {
            assert!(learner.retract(lesson)?);
        }
        assert_eq!(learner.fallbacks(), [1], "the fallback binds again");
        assert_eq!(answer(&mut learner)?, expected);
        let kinds: Vec<(paces_learn::ConjunctKind, bool)> = learner
            .conjuncts()
            .iter()
            .filter(|c| c.trace.is_some_and(|(r, _)| r == paces_learn::Role::Good))
            .map(|c| (c.kind, c.relaxed))
            .collect();
        assert_eq!(
            kinds,
            [
                (paces_learn::ConjunctKind::Fallback, true),
                (paces_learn::ConjunctKind::Covers { after_fallback: true }, true),
                (paces_learn::ConjunctKind::Fallback, false),
            ]
        );
    }
    Ok(())
}
