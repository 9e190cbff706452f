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

use paces_learn::constraint::{BlockId, ItemInfo, Loc, Space, SpaceBuilder};
use paces_learn::trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId};
use paces_learn::{Learner, LearnerConfig, Proposal};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// One step of the foreign checker's program: label, thread, kind, variables read, variable
/// written (always with 1), whether the step failed.
struct Step {
    label: &'static str,
    thread: u32,
    kind: EventKind,
    reads: &'static [u32],
    writes: Option<u32>,
}

const PROGRAM: [Step; 8] = [
    Step { label: "A", thread: 0, kind: EventKind::Plain, reads: &[], writes: Some(0) },
    Step { label: "B", thread: 0, kind: EventKind::Plain, reads: &[], writes: Some(1) },
    Step { label: "C", thread: 0, kind: EventKind::Plain, reads: &[], writes: Some(2) },
    Step { label: "1", thread: 1, kind: EventKind::Await, reads: &[0], writes: None },
    Step { label: "2", thread: 1, kind: EventKind::Await, reads: &[1], writes: None },
    Step { label: "3", thread: 1, kind: EventKind::Assert, reads: &[2], writes: None },
    Step { label: "n", thread: 2, kind: EventKind::Await, reads: &[2], writes: None },
    Step { label: "p", thread: 2, kind: EventKind::Assert, reads: &[1], writes: None },
];

fn step(label: &str) -> &'static Step {
    PROGRAM.iter().find(|s| s.label == label).expect("a label of the program")
}

/// The space: one block per thread, every pair free to change order (no two steps of one
/// thread conflict), awaits as preemption points, the threads declared.
fn space() -> Result<Space> {
    let mut b = SpaceBuilder::new();
    let blocks: Vec<BlockId> = (0..3).map(|_| b.block(false)).collect();
    for s in &PROGRAM {
        let loc = b.loc(s.label)?;
        let info = if s.kind == EventKind::Await { ItemInfo::AWAIT } else { ItemInfo::SIMPLE };
        b.item(blocks[s.thread as usize], loc, info)?;
    }
    for (i, &block) in blocks.iter().enumerate() {
        b.thread(&format!("thread{}", i + 1), block)?;
    }
    Ok(b.build()?)
}

/// A trace of flat threads: each label's step, in order, the last `pending` of them after the
/// end, `failed` the label of the failing step.
fn trace(space: &Space, labels: &str, failed: Option<&str>) -> Result<Trace> {
    let mut tb = TraceBuilder::new();
    for label in labels.split_whitespace() {
        let s = step(label);
        let loc: Loc = space.loc(label).ok_or("an unknown label")?;
        let instance = BlockInstance { block: BlockId::from_u32(s.thread), instance: 0 };
        let scope = vec![ScopeEntry { instance, item: loc }];
        let mut event = tb.step(ThreadId::from_u32(s.thread), loc, scope).kind(s.kind).failed(failed == Some(label));
        for &var in s.reads {
            event = event.read(VarId::from_u32(var));
        }
        if let Some(var) = s.writes {
            event = event.write(VarId::from_u32(var), 1);
        }
        event.push()?;
    }
    Ok(tb.finish())
}

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
