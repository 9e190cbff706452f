//! The learner alone on the paper's Example 4, with traces as another checker would build them.

use paces_learn::constraint::{ItemInfo, Space, SpaceBuilder};
use paces_learn::trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId};
use paces_learn::{Learner, LearnerConfig, Proposal};

/// `A: x:=1; B: z:=1; C: y:=1 || 1: await(x==1); 2: assert(y==1)` and its bad trace
/// A B 1 2 C (run on past the failure, as the learner needs).
fn example4() -> (Space, Trace) {
    let mut b = SpaceBuilder::new();
    let (t1, t2) = (b.block(false), b.block(false));
    let [a, bb, c, one, two] = ["A", "B", "C", "1", "2"].map(|n| b.loc(n).unwrap());
    for l in [a, bb, c] {
        b.item(t1, l, ItemInfo::SIMPLE).unwrap();
    }
    b.item(t2, one, ItemInfo::AWAIT).unwrap();
    b.item(t2, two, ItemInfo::SIMPLE).unwrap();
    let space = b.build().unwrap();
    let (x, y, z) = (VarId::from_u32(0), VarId::from_u32(1), VarId::from_u32(2));
    let (th1, th2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
    let at = |block, item| vec![ScopeEntry { instance: BlockInstance { block, instance: 0 }, item }];
    let mut tb = TraceBuilder::new();
    tb.step(th1, a, at(t1, a)).write(x, 1).push().unwrap();
    tb.step(th1, bb, at(t1, bb)).write(z, 1).push().unwrap();
    tb.step(th2, one, at(t2, one)).kind(EventKind::Await).read(x).push().unwrap();
    tb.step(th2, two, at(t2, two)).kind(EventKind::Assert).failed(true).read(y).push().unwrap();
    tb.step(th1, c, at(t1, c)).write(y, 1).push().unwrap();
    (space, tb.finish())
}

#[test]
fn the_cheapest_fix_moves_c_ahead_of_a() {
    let (space, bad) = example4();
    let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
    let lesson = learner.learn_bad(&bad).unwrap();
    assert!(lesson.fixes > 0);
    let Proposal::Candidate { candidate, transformations, .. } = learner.propose().unwrap() else {
        panic!("a fix exists")
    };
    let space = learner.space();
    let (a, c) = (space.loc("A").unwrap(), space.loc("C").unwrap());
    assert!(candidate.holds_order(c, a) || candidate.in_one_section(a, c), "{transformations:?}");
    assert!(!transformations.is_empty());
}
