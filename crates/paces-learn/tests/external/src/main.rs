//! The paper's Figure 7 repaired by `paces-learn` alone, from the traces a foreign model
//! checker reports:
//!
//! ```text
//! thread1 { A: x := 1; B: y := 1; C: z := 1 }
//! thread2 { 1: await(x == 1); 2: await(y == 1); 3: assert(z == 1) }
//! thread3 { n: await(z == 1); p: assert(y == 1) }
//! ```
//!
//! The good trace A B C 1 2 3 n p and the bad trace A 1 B 2 3 with its threads' next steps
//! C n p pending. Swapping B and C fixes 3 but lets p fail; the good trace rules that out, so
//! the answer moves A after C: `thread1: B; C; A`.

mod figure7;

use figure7::{space, trace, Result};
use paces_learn::{Learner, LearnerConfig, Proposal};

fn main() -> Result<()> {
    let space = space()?;
    // The traces as a checker reports them: the bad one stops at its failure and lists what
    // each thread would run next as pending steps.
    let good = trace(&space, "A B C 1 2 3 n p", None, "")?;
    let bad = trace(&space, "A 1 B 2 3", Some("3"), "C n p")?;
    let mut learner = Learner::new(space, LearnerConfig::new())?;
    let lesson = learner.learn_good(&good)?;
    println!("{}", lesson.display(&learner));
    let lesson = learner.learn_bad(&bad)?;
    println!("{}", lesson.display(&learner));
    let first = learner.propose()?;
    println!("{}", first.display(learner.space()));
    // The good trace's assertion edge has no cover, so its fallback froze every order and the
    // cheapest candidate holds an atomic section. Our checker would accept it; a caller that
    // prefers a reorder relaxes the fallbacks to the covered edges and checks the cheaper
    // candidate the learner proposes then (here: it is the paper's answer, and correct).
    if learner.fallbacks() != [1] {
        return Err(format!("expected good trace #1's fallback in force, got {:?}", learner.fallbacks()).into());
    }
    learner.relax_fallbacks()?;
    let proposal = learner.propose()?;
    println!("{}", proposal.display(learner.space()));
    let Proposal::Candidate { candidate, .. } = &proposal else {
        return Err("no candidate".into());
    };
    let text = candidate.display(learner.space()).to_string();
    if !text.starts_with("thread1: B; C; A\n") {
        return Err(format!("not the paper's answer: {text}").into());
    }
    Ok(())
}
