//! The trace builder's validation and the lifting rule.

use paces_constraint::{Atom, BlockId, Loc};
use paces_trace::{
    lift, BlockInstance, ErrorKind, Event, EventId, EventKind, ScopeEntry, ThreadId, TraceBuilder, VarId,
};

const T0: ThreadId = ThreadId::from_u32(0);
const T1: ThreadId = ThreadId::from_u32(1);
const X: VarId = VarId::from_u32(0);
const Y: VarId = VarId::from_u32(1);

fn inst(block: u32, instance: u32) -> BlockInstance {
    BlockInstance { block: BlockId::from_u32(block), instance }
}

fn loc(i: u32) -> Loc {
    Loc::from_u32(i)
}

/// A scope from (block, instance, item) triples, outermost first.
fn scope(levels: &[(u32, u32, u32)]) -> Vec<ScopeEntry> {
    levels.iter().map(|&(b, i, item)| ScopeEntry { instance: inst(b, i), item: loc(item) }).collect()
}

fn event(thread: ThreadId, levels: &[(u32, u32, u32)]) -> Event {
    let scope = scope(levels);
    Event {
        thread,
        loc: scope.last().map_or(loc(0), |s| s.item),
        scope,
        kind: EventKind::Plain,
        failed: false,
        reads: Default::default(),
        writes: Default::default(),
    }
}

#[track_caller]
fn assert_kind<T: std::fmt::Debug>(result: Result<T, paces_trace::Error>, kind: ErrorKind) {
    match result {
        Err(e) => {
            assert_eq!(*e.kind(), kind, "wrong kind: {e}");
            assert!(!e.to_string().is_empty());
        }
        Ok(v) => panic!("expected {kind:?}, got Ok({v:?})"),
    }
}

#[test]
fn reads_from_forward_is_rejected() {
    let mut b = TraceBuilder::new();
    b.step(T0, loc(0), scope(&[(0, 0, 0)])).write(X, 1).push().unwrap();
    // Event 1 cannot read from itself or from event 5.
    for from in [1, 5] {
        let r = b.step(T1, loc(1), scope(&[(1, 0, 1)])).read_from(X, Some(EventId::from_u32(from))).push();
        assert_kind(r, ErrorKind::ReadsFromForward);
    }
    assert_eq!(b.len(), 1);
}

/// A builder without a space names events and threads by their numbers, in words, never by
/// their raw ids (`e5`, `t0`).
#[test]
fn errors_without_a_space_name_events_and_threads_in_words() {
    let mut b = TraceBuilder::new();
    b.step(T0, loc(0), scope(&[(0, 0, 0)])).write(X, 1).push().unwrap();
    let e = b.step(T1, loc(1), scope(&[(1, 0, 1)])).read_from(X, Some(EventId::from_u32(5))).push().unwrap_err();
    assert_eq!(e.to_string(), format!("event 1 reads {X} from event 5, which is not an earlier event"));
    let e = b.step(T0, loc(1), scope(&[(1, 0, 1)])).push().unwrap_err();
    assert_eq!(e.to_string(), "event 1 of thread 0: its top block instance differs from the one thread 0 runs");
}

#[test]
fn reads_from_non_writer_is_rejected() {
    let mut b = TraceBuilder::new();
    let w = b.step(T0, loc(0), scope(&[(0, 0, 0)])).write(Y, 1).push().unwrap();
    let r = b.step(T1, loc(1), scope(&[(1, 0, 1)])).read_from(X, Some(w)).push();
    assert_kind(r, ErrorKind::ReadsFromNonWriter);
}

#[test]
fn stale_reads_are_rejected() {
    let mut b = TraceBuilder::new();
    let w1 = b.step(T0, loc(0), scope(&[(0, 0, 0)])).write(X, 1).push().unwrap();
    let w2 = b.step(T0, loc(1), scope(&[(0, 0, 1)])).write(X, 2).push().unwrap();
    let stale = b.step(T1, loc(2), scope(&[(1, 0, 2)])).read_from(X, Some(w1)).push();
    assert_kind(stale, ErrorKind::ReadsFromStale);
    // Reading the initial state after a write is stale too.
    let initial = b.step(T1, loc(2), scope(&[(1, 0, 2)])).read_from(X, None).push();
    assert_kind(initial, ErrorKind::ReadsFromStale);
    let ok = b.step(T1, loc(2), scope(&[(1, 0, 2)])).read_from(X, Some(w2)).push().unwrap();
    let trace = b.finish();
    assert_eq!(trace.event(ok).reads[0].from, Some(w2));
}

#[test]
fn read_resolves_to_latest_writer_or_initial_state() {
    let mut b = TraceBuilder::new();
    let r0 = b.step(T1, loc(2), scope(&[(1, 0, 2)])).read(X).push().unwrap();
    let w = b.step(T0, loc(0), scope(&[(0, 0, 0)])).write(X, 7).push().unwrap();
    assert_eq!(b.latest_writer(X), Some(w));
    let r1 = b.step(T1, loc(3), scope(&[(1, 0, 3)])).kind(EventKind::Assert).read(X).push().unwrap();
    let trace = b.finish();
    assert_eq!(trace.event(r0).reads[0].from, None);
    assert_eq!(trace.event(r1).reads[0].from, Some(w));
    assert_eq!(trace.event(w).written_value(X), Some(7));
}

#[test]
fn empty_scope_is_rejected() {
    let mut b = TraceBuilder::new();
    assert_kind(b.step(T0, loc(0), Vec::new()).push(), ErrorKind::EmptyScope);
}

#[test]
fn scope_order_different_top_instance() {
    let mut b = TraceBuilder::new();
    b.push(event(T0, &[(0, 0, 0)])).unwrap();
    assert_kind(b.push(event(T0, &[(0, 1, 1)])), ErrorKind::ScopeOrder);
    assert_kind(b.push(event(T0, &[(5, 0, 1)])), ErrorKind::ScopeOrder);
}

#[test]
fn scope_order_returning_to_a_left_item() {
    let mut b = TraceBuilder::new();
    b.push(event(T0, &[(0, 0, 0)])).unwrap();
    b.push(event(T0, &[(0, 0, 1)])).unwrap();
    assert_kind(b.push(event(T0, &[(0, 0, 0)])), ErrorKind::ScopeOrder);
    // Returning to a left item through a nested scope is caught too.
    assert_kind(b.push(event(T0, &[(0, 0, 0), (1, 0, 5)])), ErrorKind::ScopeOrder);
    // Other threads are independent.
    b.push(event(T1, &[(9, 0, 0)])).unwrap();
}

#[test]
fn scope_order_reentering_a_left_instance() {
    let mut b = TraceBuilder::new();
    // A loop item 1 whose body (block 1) runs twice: instances 0 and 1.
    b.push(event(T0, &[(0, 0, 1), (1, 0, 10)])).unwrap();
    b.push(event(T0, &[(0, 0, 1), (1, 0, 11)])).unwrap();
    b.push(event(T0, &[(0, 0, 1)])).unwrap(); // the loop test
    b.push(event(T0, &[(0, 0, 1), (1, 1, 10)])).unwrap();
    // Back into iteration 0: rejected.
    assert_kind(b.push(event(T0, &[(0, 0, 1), (1, 0, 11)])), ErrorKind::ScopeOrder);
    // One instance at two levels: rejected.
    assert_kind(b.push(event(T0, &[(0, 0, 1), (1, 1, 10), (1, 1, 12)])), ErrorKind::ScopeOrder);
    assert_kind(b.push(event(T1, &[(3, 0, 1), (3, 0, 2)])), ErrorKind::ScopeOrder);
}

#[test]
fn a_rejected_event_leaves_the_builder_unchanged() {
    let mut b = TraceBuilder::new();
    b.push(event(T0, &[(0, 0, 0)])).unwrap();
    b.push(event(T0, &[(0, 0, 1), (1, 0, 10)])).unwrap();
    // Rejected: back to item 0.
    assert_kind(b.push(event(T0, &[(0, 0, 0)])), ErrorKind::ScopeOrder);
    // Rejected for its reads, with a valid scope.
    let stale = b.step(T0, loc(11), scope(&[(0, 0, 1), (1, 0, 11)])).read_from(X, Some(EventId::from_u32(0))).push();
    assert_kind(stale, ErrorKind::ReadsFromNonWriter);
    assert_eq!(b.len(), 2);
    // The thread still stands in item 1, iteration 0 of block 1: going on there is fine,
    // and item 0 is still left.
    b.push(event(T0, &[(0, 0, 1), (1, 0, 10)])).unwrap();
    b.push(event(T0, &[(0, 0, 1), (1, 0, 11)])).unwrap();
    assert_kind(b.push(event(T0, &[(0, 0, 1), (1, 0, 10)])), ErrorKind::ScopeOrder);
    assert_kind(b.push(event(T0, &[(0, 0, 0)])), ErrorKind::ScopeOrder);
    b.push(event(T0, &[(0, 0, 2)])).unwrap();
    assert_eq!(b.finish().len(), 5);
}

#[test]
fn blocked_steps_are_validated_and_kept_apart() {
    let mut b = TraceBuilder::new();
    let w = b.step(T0, loc(0), scope(&[(0, 0, 0)])).write(X, 1).push().unwrap();
    b.step(T1, loc(1), scope(&[(1, 0, 1)])).kind(EventKind::Await).read(X).push_blocked().unwrap();
    let stale = b.step(T1, loc(1), scope(&[(1, 0, 1)])).kind(EventKind::Await).read_from(X, None).push_blocked();
    assert_kind(stale, ErrorKind::ReadsFromStale);
    let trace = b.finish();
    assert_eq!(trace.len(), 1);
    assert_eq!(trace.blocked().len(), 1);
    assert_eq!(trace.blocked()[0].reads[0].from, Some(w));
}

#[test]
fn lift_same_block_instance() {
    let a = event(T0, &[(0, 0, 1)]);
    let b = event(T0, &[(0, 0, 2)]);
    assert_eq!(lift(&a, &b), Some(Atom::Order(loc(1), loc(2))));
    // Two events of one item (e.g. a loop's test taken twice) cannot be reordered.
    assert_eq!(lift(&a, &a.clone()), None);
    // Pairs of different threads are not lifted.
    assert_eq!(lift(&a, &event(T1, &[(0, 0, 2)])), None);
}

#[test]
fn lift_nested_blocks() {
    // Top block 0: item 1 simple, item 2 an `if` whose branch is block 1 (items 10, 11).
    let top = event(T0, &[(0, 0, 1)]);
    let inner1 = event(T0, &[(0, 0, 2), (1, 0, 10)]);
    let inner2 = event(T0, &[(0, 0, 2), (1, 0, 11)]);
    // Across levels: the pair is the items of the innermost common instance.
    assert_eq!(lift(&top, &inner2), Some(Atom::Order(loc(1), loc(2))));
    // Inside the nested instance: its own items.
    assert_eq!(lift(&inner1, &inner2), Some(Atom::Order(loc(10), loc(11))));
    // The compound item's own step (the branch test, scope ending at item 2) and a step inside
    // it lie in one item at every common level.
    let test = event(T0, &[(0, 0, 2)]);
    assert_eq!(lift(&test, &inner1), None);
    // Three levels deep, parting at the middle one.
    let deep1 = event(T0, &[(0, 0, 2), (1, 0, 10), (2, 0, 20)]);
    let deep2 = event(T0, &[(0, 0, 2), (1, 0, 11), (3, 0, 30)]);
    assert_eq!(lift(&deep1, &deep2), Some(Atom::Order(loc(10), loc(11))));
}

#[test]
fn lift_two_loop_iterations() {
    // Item 3 is a loop; its body (block 1, items 10 and 11) runs in instances 0 and 1.
    let first = event(T0, &[(0, 0, 3), (1, 0, 11)]);
    let second = event(T0, &[(0, 0, 3), (1, 1, 10)]);
    assert_eq!(lift(&first, &second), None);
    // Within one iteration the body's items are ordered.
    let same_iter = event(T0, &[(0, 0, 3), (1, 0, 10)]);
    assert_eq!(lift(&same_iter, &first), Some(Atom::Order(loc(10), loc(11))));
    // Before the loop and in an iteration: the top block's items.
    let before = event(T0, &[(0, 0, 2)]);
    assert_eq!(lift(&before, &second), Some(Atom::Order(loc(2), loc(3))));
}

#[test]
fn lift_two_calls_of_one_procedure() {
    // Procedure body block 7 (items 70, 71), called from items 4 and 5 of the top block.
    let call1 = event(T0, &[(0, 0, 4), (7, 0, 71)]);
    let call2 = event(T0, &[(0, 0, 5), (7, 1, 70)]);
    // Different call sites: the calls' items are ordered, whatever the body items are.
    assert_eq!(lift(&call1, &call2), Some(Atom::Order(loc(4), loc(5))));
    // One call site inside a loop body (block 1) reached twice: two instances of the body
    // and two of the procedure, nothing to reorder.
    let it1 = event(T0, &[(0, 0, 3), (1, 0, 12), (7, 2, 71)]);
    let it2 = event(T0, &[(0, 0, 3), (1, 1, 12), (7, 3, 70)]);
    assert_eq!(lift(&it1, &it2), None);
    // Within one call, the body's items.
    let call1_first = event(T0, &[(0, 0, 4), (7, 0, 70)]);
    assert_eq!(lift(&call1_first, &call1), Some(Atom::Order(loc(70), loc(71))));
}

/// A builder made for a space gives a flat step the scope `flat_step` gives it with the space,
/// and an empty (refused) scope to a location that is no item.
#[test]
fn a_builder_for_a_space_starts_flat_steps_without_the_space() {
    use paces_constraint::{ItemInfo, SpaceBuilder};
    let mut b = SpaceBuilder::new();
    let (b0, b1) = (b.block(false), b.block(false));
    let (a, c, free) = (b.loc("a").unwrap(), b.loc("c").unwrap(), b.loc("free").unwrap());
    b.item(b0, a, ItemInfo::SIMPLE).unwrap();
    b.item(b1, c, ItemInfo::SIMPLE).unwrap();
    let space = b.build().unwrap();
    let (t0, t1) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
    let mut with_space = TraceBuilder::new();
    with_space.flat_step(&space, t0, a).write(VarId::from_u32(0), 1).push().unwrap();
    with_space.flat_step(&space, t1, c).read(VarId::from_u32(0)).push().unwrap();
    let mut for_space = TraceBuilder::for_space(&space);
    for_space.flat(t0, a).write(VarId::from_u32(0), 1).push().unwrap();
    for_space.flat(t1, c).read(VarId::from_u32(0)).push().unwrap();
    assert_eq!(for_space.finish(), with_space.finish());
    let mut tb = TraceBuilder::for_space(&space);
    assert_kind(tb.flat(t0, free).push(), ErrorKind::EmptyScope);
    assert_kind(TraceBuilder::new().flat(t0, a).push(), ErrorKind::EmptyScope);
}

/// A thread that runs an item after one the space fixes it before is refused, whether the
/// items between run in the original order or not; in the original order it passes.
#[test]
fn check_against_refuses_items_run_against_a_fixed_pair() {
    use paces_constraint::{ItemInfo, SpaceBuilder};
    use paces_trace::TraceBuilder;
    let mut sb = SpaceBuilder::new();
    let block = sb.block(false);
    let [a, b, c] = ["a", "b", "c"].map(|n| sb.loc(n).unwrap());
    for l in [a, b, c] {
        sb.item(block, l, ItemInfo::SIMPLE).unwrap();
    }
    sb.fix(a, c).unwrap();
    let space = sb.build().unwrap();
    let t = ThreadId::from_u32(0);
    let run = |order: &[Loc]| {
        let mut tb = TraceBuilder::new();
        for &l in order {
            let at = vec![ScopeEntry { instance: BlockInstance { block, instance: 0 }, item: l }];
            tb.step(t, l, at).push().unwrap();
        }
        tb.finish().check_against(&space)
    };
    assert!(run(&[a, b, c]).is_ok());
    assert!(run(&[b, a, c]).is_ok());
    assert_kind(run(&[c, a, b]), ErrorKind::FixedOrder);
    assert_kind(run(&[b, c, a]), ErrorKind::FixedOrder);
}
