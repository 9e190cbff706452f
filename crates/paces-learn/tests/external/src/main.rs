//! The paper's Figure 7 repaired by `paces-learn` alone, from the traces a foreign model
//! checker reports:
//!
//! ```text
//! thread1 { A: x := 1; B: y := 1; C: z := 1 }
//! thread2 { 1: await(x == 1); 2: await(y == 1); 3: assert(z == 1) }
//! thread3 { n: await(z == 1); p: assert(y == 1) }
//! ```
//!
//! The good trace A B C 1 2 3 n p and the bad trace A 1 B 2 3, run on past its failure
//! (C n p). Swapping B and C fixes 3 but lets p fail; the good trace rules that out, so the
//! answer moves A after C: `thread1: B; C; A`.

mod figure7;

use figure7::{space, trace, Result};
use paces_learn::{Learner, LearnerConfig, Proposal};

fn main() -> Result<()> {
    let space = space()?;
    let good = trace(&space, "A B C 1 2 3 n p", None)?;
    let bad = trace(&space, "A 1 B 2 3 C n p", Some("3"))?;
    // The good trace's assertion edges have no cover: with the fallback, every order would be
    // frozen and the cheapest fix left an atomic section. This checker cannot tell whether a
    // good trace turns bad by scheduling alone (`Learner::learn_good_checked`), so it leaves
    // out the fallback and relies on checking each candidate.
    let mut learner = Learner::new(space, LearnerConfig::new().fallback(false))?;
    let lesson = learner.learn_good(&good)?;
    println!("{}", lesson.display(&learner));
    let lesson = learner.learn_bad(&bad)?;
    println!("{}", lesson.display(&learner));
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
