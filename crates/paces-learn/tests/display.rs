//! One spelling for printing: everything the learner and the runner hand out shows with the
//! space's names through `display(&space)`, lessons too, even inside a runner's progress
//! events where the learner is out of reach.

use std::cell::RefCell;

use paces_learn::constraint::{Candidate, ItemInfo, Space, SpaceBuilder};
use paces_learn::trace::{EventKind, ThreadId, Trace, TraceBuilder, VarId};
use paces_learn::{Event, Learner, LearnerConfig, Runner, Verdict};

/// The paper's Example 4, `thread1 { A: x := 1; C: y := 1 } || thread2 { 1: await(x == 1);
/// 2: assert(y == 1) }`, and its bad run `A 1 2 C`.
fn example() -> (Space, Trace) {
    let mut b = SpaceBuilder::new();
    let (t1, t2) = (b.open_block(), b.open_block());
    let a = b.add_item(t1, "A", ItemInfo::SIMPLE).unwrap();
    let c = b.add_item(t1, "C", ItemInfo::SIMPLE).unwrap();
    let one = b.add_item(t2, "1", ItemInfo::AWAIT).unwrap();
    let two = b.add_item(t2, "2", ItemInfo::SIMPLE).unwrap();
    b.thread("thread1", t1).unwrap();
    b.thread("thread2", t2).unwrap();
    let space = b.build().unwrap();
    let (x, y) = (VarId::from_u32(0), VarId::from_u32(1));
    let (th1, th2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
    let mut tb = TraceBuilder::for_space(&space);
    tb.flat(th1, a).write(x, 1).push().unwrap();
    tb.flat(th2, one).kind(EventKind::Await).read(x).push().unwrap();
    tb.flat(th2, two).kind(EventKind::Assert).failed(true).read(y).push().unwrap();
    tb.flat(th1, c).write(y, 1).push().unwrap();
    (space, tb.finish())
}

#[test]
fn a_lesson_shows_with_the_space_alone_as_the_learner_shows_it() {
    let (space, bad) = example();
    let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
    let lesson = learner.learn_bad(&bad).unwrap();
    let shown = lesson.display(&space).to_string();
    let (first, rest) = shown.split_once('\n').expect("the number of fixes below");
    // The lesson's constraint is the one the learner holds, under the same names.
    let held = learner.display_constraints().to_string();
    let (_, text) = held.split_once(": ").unwrap();
    assert_eq!(first, format!("bad trace #1: {text}"));
    assert_eq!(rest, format!("  ({} fixes)", lesson.fixes));
    assert!(lesson.fixes > 1 && text.contains("C <= A"), "{shown}");
}

#[test]
fn a_lesson_shows_in_a_runners_progress_events_and_the_report_shows_whole() {
    let (space, bad) = example();
    let c_first = |candidate: &Candidate| {
        let (a, c) = (space.loc("A").unwrap(), space.loc("C").unwrap());
        candidate.position(c) < candidate.position(a)
    };
    let seen = RefCell::new(Vec::new());
    let report = Runner::new(&space, LearnerConfig::new())
        .unwrap()
        .on_event(|event| {
            if let Event::Learned { lesson, .. } = event {
                seen.borrow_mut().push(lesson.display(&space).to_string());
            }
        })
        .run(|candidate| {
            Ok(if c_first(candidate) { Verdict::correct(vec![]) } else { Verdict::wrong(vec![bad.clone()], vec![]) })
        })
        .unwrap();
    let seen = seen.into_inner();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].starts_with("bad trace #1: ") && seen[0].contains("C <= A"), "{seen:?}");
    let shown = report.display(&space).to_string();
    let best = report.best.as_ref().unwrap();
    assert_eq!(shown, format!("correct after 2 checks\n{}", best.display(&space)));
    assert!(shown.ends_with("thread1: C; A\nthread2: 1; 2"), "{shown}");
}

/// A bad trace with one fix says so in the singular.
#[test]
fn one_fix_is_one_fix() {
    let mut b = SpaceBuilder::new();
    let (t1, t2) = (b.open_block(), b.open_block());
    let a = b.add_item(t1, "A", ItemInfo::SIMPLE).unwrap();
    let c = b.add_item(t1, "C", ItemInfo::SIMPLE).unwrap();
    let two = b.add_item(t2, "2", ItemInfo::SIMPLE).unwrap();
    // A and C keep their order: the one fix is the section [A; C].
    b.fix(a, c).unwrap();
    let space = b.build().unwrap();
    let (x, y) = (VarId::from_u32(0), VarId::from_u32(1));
    let (th1, th2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
    let mut tb = TraceBuilder::for_space(&space);
    tb.flat(th1, a).write(x, 1).push().unwrap();
    tb.flat(th2, two).kind(EventKind::Assert).failed(true).read(x).read(y).push().unwrap();
    tb.flat(th1, c).write(y, 1).push().unwrap();
    let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
    let lesson = learner.learn_bad(&tb.finish()).unwrap();
    let shown = lesson.display(&space).to_string();
    assert_eq!(lesson.fixes, 1, "{shown}");
    assert_eq!(shown, "bad trace #1: [A; C]\n  (1 fix)");
}
