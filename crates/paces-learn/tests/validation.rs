//! Traces that do not fit the space are refused at the door, with an error naming the step,
//! the thread and the label at fault; a bad trace that stops at its failure gets a warning.

use paces_learn::constraint::{BlockId, ItemInfo, Loc, Space, SpaceBuilder};
use paces_learn::trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId};
use paces_learn::{ErrorKind, Learner, LearnerConfig, Proposal};

/// Example 4's space, `thread1 { A: x:=1; C: y:=1 } || thread2 { 1: await(x==1); 2: assert(y==1) }`,
/// with its threads declared.
fn space() -> Space {
    let mut b = SpaceBuilder::new();
    let (t1, t2) = (b.block(false), b.block(false));
    let [a, c, one, two] = ["A", "C", "1", "2"].map(|n| b.loc(n).unwrap());
    b.item(t1, a, ItemInfo::SIMPLE).unwrap();
    b.item(t1, c, ItemInfo::SIMPLE).unwrap();
    b.item(t2, one, ItemInfo::AWAIT).unwrap();
    b.item(t2, two, ItemInfo::SIMPLE).unwrap();
    b.thread("thread1", t1).unwrap();
    b.thread("thread2", t2).unwrap();
    b.build().unwrap()
}

fn at(block: u32, item: Loc) -> Vec<ScopeEntry> {
    vec![ScopeEntry { instance: BlockInstance { block: BlockId::from_u32(block), instance: 0 }, item }]
}

fn loc(space: &Space, name: &str) -> Loc {
    space.loc(name).unwrap()
}

const X: VarId = VarId::from_u32(0);
const Y: VarId = VarId::from_u32(1);

/// Learns `trace` as good and returns the error's kind and text.
#[track_caller]
fn refused(trace: &Trace) -> (ErrorKind, String) {
    let mut learner = Learner::new(&space(), LearnerConfig::new()).unwrap();
    let e = learner.learn_good(trace).unwrap_err();
    let bad = learner.learn_bad(trace).unwrap_err();
    assert_eq!(bad.kind(), e.kind(), "good and bad traces are checked alike");
    assert_eq!(learner.counts(), (0, 0), "a refused trace is not counted");
    (e.kind().clone(), e.to_string())
}

#[test]
fn an_unknown_location_is_named_with_its_event_and_thread() {
    let s = space();
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(0), loc(&s, "A"), at(0, loc(&s, "A"))).write(X, 1).push().unwrap();
    tb.step(ThreadId::from_u32(0), Loc::from_u32(99), at(0, Loc::from_u32(99))).push().unwrap();
    let (kind, text) = refused(&tb.finish());
    assert_eq!(kind, ErrorKind::UnknownLocation);
    assert!(text.contains("event 1 (thread `thread1`, at location 99)"), "{text}");
}

#[test]
fn an_undeclared_thread_is_named() {
    let s = space();
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(7), loc(&s, "A"), at(0, loc(&s, "A"))).write(X, 1).push().unwrap();
    let (kind, text) = refused(&tb.finish());
    assert_eq!(kind, ErrorKind::UnknownThread);
    assert!(text.contains("event 0 (thread 7, at `A`)") && text.contains("declares 2 threads"), "{text}");
}

#[test]
fn a_thread_running_another_threads_block_is_named() {
    let s = space();
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(0), loc(&s, "A"), at(0, loc(&s, "A"))).write(X, 1).push().unwrap();
    tb.step(ThreadId::from_u32(1), loc(&s, "C"), at(0, loc(&s, "C"))).write(Y, 1).push().unwrap();
    let (kind, text) = refused(&tb.finish());
    assert_eq!(kind, ErrorKind::ThreadBlock);
    assert!(text.contains("event 1 (thread `thread2`, at `C`)"), "{text}");
    assert!(text.contains("block 0 (`A`, `C`)") && text.contains("block 1 (`1`, `2`)"), "{text}");
}

/// Without declared threads, two threads running one block is still caught.
#[test]
fn two_threads_in_one_block_are_caught_without_declared_threads() {
    let mut b = SpaceBuilder::new();
    let t1 = b.block(false);
    let [a, c] = ["A", "C"].map(|n| b.loc(n).unwrap());
    b.item(t1, a, ItemInfo::SIMPLE).unwrap();
    b.item(t1, c, ItemInfo::SIMPLE).unwrap();
    let mut learner = Learner::new(&b.build().unwrap(), LearnerConfig::new()).unwrap();
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(0), a, at(0, a)).write(X, 1).push().unwrap();
    tb.step(ThreadId::from_u32(1), c, at(0, c)).write(Y, 1).push().unwrap();
    let e = learner.learn_good(&tb.finish()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::ThreadBlock);
    assert!(
        e.to_string().contains("event 1 (thread 1, at `C`): it runs block 0 (`A`, `C`), which thread 0 runs"),
        "{e}"
    );
}

/// An unknown block in event 0's scope is blamed on event 0.
#[test]
fn an_unknown_block_is_blamed_on_its_own_event() {
    let s = space();
    let (a, one, two) = (loc(&s, "A"), loc(&s, "1"), loc(&s, "2"));
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(1), one, at(9, one)).kind(EventKind::Await).read(X).push().unwrap();
    tb.step(ThreadId::from_u32(0), a, at(0, a)).write(X, 1).push().unwrap();
    tb.step(ThreadId::from_u32(1), two, at(9, two)).kind(EventKind::Assert).read(Y).push().unwrap();
    let (kind, text) = refused(&tb.finish());
    assert_eq!(kind, ErrorKind::UnknownBlock);
    assert!(text.contains("event 0 (thread `thread2`, at `1`)") && text.contains("block 9"), "{text}");
}

#[test]
fn an_item_outside_its_scope_block_is_named() {
    let s = space();
    let (a, one) = (loc(&s, "A"), loc(&s, "1"));
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(0), a, at(0, one)).write(X, 1).push().unwrap();
    let (kind, text) = refused(&tb.finish());
    assert_eq!(kind, ErrorKind::ScopeMismatch);
    assert!(text.contains("event 0 (thread `thread1`, at `A`)") && text.contains("puts `1` in block 0"), "{text}");
}

/// A pending step is checked like an event.
#[test]
fn a_pending_step_is_checked_too() {
    let s = space();
    let a = loc(&s, "A");
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(0), a, at(0, a)).write(X, 1).push().unwrap();
    tb.step(ThreadId::from_u32(0), Loc::from_u32(42), at(0, a)).push_pending();
    let (kind, text) = refused(&tb.finish());
    assert_eq!(kind, ErrorKind::UnknownLocation);
    assert!(text.contains("pending step 0 (thread `thread1`, at location 42)"), "{text}");
}

/// Example 4's bad trace A 1 2, as a checker that stops at the failure reports it.
fn stopped_at_failure(space: &Space) -> Trace {
    let (a, one, two) = (loc(space, "A"), loc(space, "1"), loc(space, "2"));
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(0), a, at(0, a)).write(X, 1).push().unwrap();
    tb.step(ThreadId::from_u32(1), one, at(1, one)).kind(EventKind::Await).read(X).push().unwrap();
    tb.step(ThreadId::from_u32(1), two, at(1, two)).kind(EventKind::Assert).failed(true).read(Y).push().unwrap();
    tb.finish()
}

#[test]
fn a_bad_trace_that_stops_at_its_failure_says_what_to_add() {
    let mut learner = Learner::new(&space(), LearnerConfig::new()).unwrap();
    let lesson = learner.learn_bad(&stopped_at_failure(learner.space())).unwrap();
    assert!(lesson.stops_at_failure);
    assert_eq!(lesson.fixes, 0);
    let warning = lesson.warning().expect("a warning");
    assert!(warning.contains("run the trace on past its failure") && warning.contains("pending steps"), "{warning}");
    assert!(lesson.display(learner.space()).to_string().contains("warning: the bad trace ends at its failure"));
    let Proposal::Unsatisfiable { explanation, .. } = learner.propose().unwrap() else { panic!("no fix") };
    assert!(explanation.contains("pending steps") && !explanation.contains("at most"), "{explanation}");
}

/// The same trace with C listed as a pending step offers Example 4's fix, with no warning.
#[test]
fn the_same_trace_with_its_pending_step_offers_a_fix() {
    let s = space();
    let (a, c, one, two) = (loc(&s, "A"), loc(&s, "C"), loc(&s, "1"), loc(&s, "2"));
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(0), a, at(0, a)).write(X, 1).push().unwrap();
    tb.step(ThreadId::from_u32(1), one, at(1, one)).kind(EventKind::Await).read(X).push().unwrap();
    tb.step(ThreadId::from_u32(1), two, at(1, two)).kind(EventKind::Assert).failed(true).read(Y).push().unwrap();
    tb.step(ThreadId::from_u32(0), c, at(0, c)).write(Y, 1).push_pending();
    let mut learner = Learner::new(&s, LearnerConfig::new()).unwrap();
    let lesson = learner.learn_bad(&tb.finish()).unwrap();
    assert!(!lesson.stops_at_failure && lesson.fixes > 0 && lesson.warning().is_none());
    assert!(matches!(learner.propose().unwrap(), Proposal::Candidate { .. }));
}

/// A deadline that has passed stops a proposal with its own kind; lifted, the same learner
/// answers, with what it learned kept.
#[test]
fn a_passed_deadline_stops_a_proposal_and_can_be_lifted() {
    let space = space();
    let (a, c) = (loc(&space, "A"), loc(&space, "C"));
    let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
    let c_first = learner.arena_mut().order(c, a);
    learner.require(c_first, "C before A").unwrap();
    learner.set_deadline(Some(std::time::Instant::now() - std::time::Duration::from_millis(1)));
    let err = learner.propose().unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::Deadline, "{err}");
    learner.set_deadline(None);
    match learner.propose().unwrap() {
        Proposal::Candidate { transformations, .. } => assert_eq!(transformations.len(), 1),
        other => panic!("expected a candidate, got {other:?}"),
    }
}
