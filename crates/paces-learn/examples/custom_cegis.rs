//! Drives the [`paces_learn::Learner`] with hand-made traces, as a tool with its own model checker
//! would: the paper's Example 4 (`A: x:=1; B: z:=1; C: y:=1 || 1: await(x==1); 2: assert(y==1)`).
//!
//! Run with `cargo run -p paces-learn --example custom_cegis`.

use paces_learn::constraint::{ItemInfo, SpaceBuilder};
use paces_learn::trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, TraceBuilder, VarId};
use paces_learn::{Learner, LearnerConfig, Proposal};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The space: two threads, one block each; every pair commutes except none here.
    let mut b = SpaceBuilder::new();
    let (t1, t2) = (b.open_block(), b.open_block());
    let a = b.add_item(t1, "A", ItemInfo::SIMPLE)?;
    let bb = b.add_item(t1, "B", ItemInfo::SIMPLE)?;
    let c = b.add_item(t1, "C", ItemInfo::SIMPLE)?;
    let one = b.add_item(t2, "1", ItemInfo::AWAIT)?;
    let two = b.add_item(t2, "2", ItemInfo::SIMPLE)?;
    let space = b.build()?;

    // The bad trace A; B; 1; 2; C, as our own checker would report it.
    let (x, y, z) = (VarId::from_u32(0), VarId::from_u32(1), VarId::from_u32(2));
    let (th1, th2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
    let at = |block, item| vec![ScopeEntry { instance: BlockInstance { block, instance: 0 }, item }];
    let mut tb = TraceBuilder::new();
    tb.step(th1, a, at(t1, a)).write(x, 1).push()?;
    tb.step(th1, bb, at(t1, bb)).write(z, 1).push()?;
    tb.step(th2, one, at(t2, one)).kind(EventKind::Await).read(x).push()?;
    tb.step(th2, two, at(t2, two)).kind(EventKind::Assert).failed(true).read(y).push()?;
    tb.step(th1, c, at(t1, c)).write(y, 1).push()?;
    let bad = tb.finish();

    let mut learner = Learner::new(&space, LearnerConfig::new())?;
    let lesson = learner.learn_bad(&bad)?;
    // Everything the learner hands out prints with the space's names the same way.
    println!("learned {}", lesson.display(&space));
    match learner.propose()? {
        Proposal::Candidate { cost, transformations, .. } => {
            println!("next candidate (cost {cost}):");
            for t in &transformations {
                println!("  {}", t.display(&space));
            }
            // Example 4's fix: C moves ahead of A.
            assert!(transformations.iter().any(|t| t.display(&space).to_string().contains('C')));
        }
        Proposal::Unsatisfiable { explanation, .. } => println!("no candidate: {explanation}"),
        other => println!("an answer this example does not know: {other:?}"),
    }
    Ok(())
}
