//! The paper's Figure 7 with the good trace's fallback on: the frozen orders leave an atomic
//! section as the cheapest candidate; relaxing the fallback to the covered edges gives the
//! paper's reorder (`thread1: B; C; A`).
//!
//! ```text
//! thread1 { A: x := 1; B: y := 1; C: z := 1 }
//! thread2 { 1: await(x == 1); 2: await(y == 1); 3: assert(z == 1) }
//! thread3 { n: await(z == 1); p: assert(y == 1) }
//! ```

#[path = "external/src/figure7.rs"]
mod figure7;

use figure7::{space, trace, Result};
use paces_learn::{Learner, LearnerConfig, Proposal};

#[test]
fn relaxing_the_fallbacks_finds_the_reorder_they_froze() -> Result<()> {
    let space = space()?;
    let good = trace(&space, "A B C 1 2 3 n p", None)?;
    let bad = trace(&space, "A 1 B 2 3 C n p", Some("3"))?;
    let mut learner = Learner::new(space, LearnerConfig::new())?;
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
