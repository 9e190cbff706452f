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
    let good = trace(&space, "A B C 1 2 3 n p", None, "")?;
    // As a checker that stops at the failure reports it: the threads' next steps pending.
    let bad = trace(&space, "A 1 B 2 3", Some("3"), "C n p")?;
    let mut learner = Learner::new(&space, LearnerConfig::new().relax_on_conflict(false))?;
    learner.learn_good(&good)?;
    learner.learn_bad(&bad)?;
    assert_eq!(learner.fallbacks(), [1]);
    let loc = |name: &str| learner.space().loc(name).expect("a label");
    let (a, b, c) = (loc("A"), loc("B"), loc("C"));
    let arena = learner.arena_mut();
    let bc = arena.atomic(b, c);
    let ac = arena.atomic(a, c);
    let no_bc = arena.not(bc);
    let no_ac = arena.not(ac);
    let no_section = arena.and([no_bc, no_ac]);
    learner.require(no_section, "no section in thread1")?;
    let Proposal::Unsatisfiable { explanation, conflict } = learner.propose()? else {
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
    assert!(explanation.contains("good trace #1 (fallback: every order frozen)"), "{explanation}");
    assert!(explanation.contains("bad trace #1 (fixes, K = 3)"), "{explanation}");
    assert!(explanation.contains("no section in thread1"), "{explanation}");
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
    assert!(shown.iter().any(|f| f.starts_with("C <= A /\\ 1 <= 3 (cost ")), "{shown:?}");
    assert!(shown.iter().any(|f| f.starts_with("2 <= 3 /\\ [B; C] (cost ")), "{shown:?}");
    Ok(())
}
