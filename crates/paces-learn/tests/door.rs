//! Harmful traces, refused at the door: a thread that runs a fixed pair out of order, a
//! pending step its thread already ran (also the very step of its last event), an event after
//! its thread's pending or blocked step, and a register shared across threads. Each error
//! names the step, the thread and the labels; the learner goes on exactly as before the
//! refusal.

use paces_learn::constraint::{ItemInfo, Space, SpaceBuilder};
use paces_learn::trace::{EventKind, ThreadId, Trace, TraceBuilder, VarId};
use paces_learn::{ErrorKind, Learner, LearnerConfig, Proposal};

/// `A { A1: x := 1; A2: r := x } || B { B1: y := 1; B2: z := 1; B3: w := y; B4: assert(w == 1) }`,
/// with B3 fixed before B4 (B4 reads what B3 writes), the threads declared `A` and `B`.
fn space() -> Space {
    let mut b = SpaceBuilder::new();
    let (ta, tb) = (b.block(false), b.block(false));
    let mut locs = Vec::new();
    for (block, names) in [(ta, &["A1", "A2"][..]), (tb, &["B1", "B2", "B3", "B4"][..])] {
        for name in names {
            let loc = b.loc(name).unwrap();
            b.item(block, loc, ItemInfo::SIMPLE).unwrap();
            locs.push(loc);
        }
    }
    b.fix(locs[4], locs[5]).unwrap();
    b.thread("A", ta).unwrap();
    b.thread("B", tb).unwrap();
    b.build().unwrap()
}

const X: VarId = VarId::from_u32(0);
const Y: VarId = VarId::from_u32(1);
const Z: VarId = VarId::from_u32(2);
const W: VarId = VarId::from_u32(3);
const R: VarId = VarId::from_u32(4);
const A: ThreadId = ThreadId::from_u32(0);
const B: ThreadId = ThreadId::from_u32(1);

/// A step of one thread at `label`, writing `writes` and reading `reads`.
fn step(tb: &mut TraceBuilder, space: &Space, label: &str, reads: &[VarId], writes: &[VarId], failed: bool) {
    let loc = space.loc(label).unwrap();
    let thread = if label.starts_with('A') { A } else { B };
    let kind = if failed { EventKind::Assert } else { EventKind::Plain };
    let mut event = tb.flat_step(space, thread, loc).kind(kind).failed(failed);
    for &var in reads {
        event = event.read(var);
    }
    for &var in writes {
        event = event.write(var, 1);
    }
    event.push().unwrap();
}

/// A learner that learned one good and one bad trace, its proposal and its constraints as
/// text: what must not change when a trace is refused.
fn learner_with_lessons(space: &Space) -> Learner {
    let mut learner = Learner::new(space, LearnerConfig::new()).unwrap();
    let mut good = TraceBuilder::new();
    for (label, reads, writes) in
        [("A1", &[][..], &[X][..]), ("A2", &[X], &[R]), ("B1", &[], &[Y]), ("B2", &[], &[Z]), ("B3", &[Y], &[W])]
    {
        step(&mut good, space, label, reads, writes, false);
    }
    step(&mut good, space, "B4", &[W], &[], false);
    learner.learn_good(&good.finish()).unwrap();
    // A candidate's run translated back (B1 and B2 may change order): B runs B2 B3 B4
    // before B1, so w reads y's initial value and the assertion fails; B1 is pending.
    let mut bad = TraceBuilder::new();
    step(&mut bad, space, "B2", &[], &[Z], false);
    step(&mut bad, space, "B3", &[Y], &[W], false);
    step(&mut bad, space, "B4", &[W], &[], true);
    bad.flat_step(space, B, space.loc("B1").unwrap()).write(Y, 1).push_pending();
    learner.learn_bad(&bad.finish()).unwrap();
    learner
}

/// What a learner shows: counts, constraints and its next proposal.
fn state(learner: &mut Learner) -> String {
    let proposal = learner.propose().unwrap();
    let shown = match &proposal {
        Proposal::Candidate { .. } => proposal.display(learner.space()).to_string(),
        other => format!("{other:?}"),
    };
    format!("{:?}\n{}\n{shown}", learner.counts(), learner.display_constraints())
}

/// Learns `trace` as good and as bad, both refused: the error's kind and text, and the
/// learner as before.
#[track_caller]
fn refused(space: &Space, trace: &Trace) -> (ErrorKind, String) {
    let mut learner = learner_with_lessons(space);
    let before = state(&mut learner);
    let good = learner.learn_good(trace).unwrap_err();
    let bad = learner.learn_bad(trace).unwrap_err();
    assert_eq!(good.kind(), bad.kind(), "good and bad traces are checked alike");
    assert_eq!(good.to_string(), bad.to_string());
    assert_eq!(state(&mut learner), before, "a refused trace changes nothing");
    (good.kind().clone(), good.to_string())
}

/// The first trace: B runs B4 before B3, which the space fixes first. Learned as bad
/// it used to add `false` for good.
#[test]
fn a_fixed_pair_run_out_of_order_is_refused() {
    let s = space();
    let mut tb = TraceBuilder::new();
    step(&mut tb, &s, "B1", &[], &[Y], false);
    step(&mut tb, &s, "B2", &[], &[Z], false);
    step(&mut tb, &s, "B4", &[W], &[], true);
    step(&mut tb, &s, "B3", &[Y], &[W], false);
    let (kind, text) = refused(&s, &tb.finish());
    assert_eq!(kind, ErrorKind::ProgramOrder);
    assert_eq!(
        text,
        "the trace does not fit the space: event 3 (thread `B`, at `B3`): thread `B` runs `B3` after `B4` \
         (at event 2), but the space fixes `B3` before `B4`"
    );
}

/// The second trace: thread A's pending step A1, which A already ran.
#[test]
fn a_pending_step_its_thread_already_ran_is_refused() {
    let s = space();
    let mut tb = TraceBuilder::new();
    step(&mut tb, &s, "A1", &[], &[X], false);
    step(&mut tb, &s, "A2", &[X], &[R], false);
    step(&mut tb, &s, "B1", &[], &[Y], false);
    step(&mut tb, &s, "B4", &[W], &[], true);
    tb.flat_step(&s, A, s.loc("A1").unwrap()).write(X, 1).push_pending();
    let (kind, text) = refused(&s, &tb.finish());
    assert_eq!(kind, ErrorKind::ProgramOrder);
    assert_eq!(
        text,
        "the trace does not fit the space: pending step 0 (thread `A`, at `A1`): thread `A` already ran `A1` at \
         event 0 and went on to another item of its block: a step after the thread's last event must \
         come after it in the thread's order"
    );
}

/// The third trace: register r, local to thread A, read by thread B.
#[test]
fn a_register_shared_across_threads_is_refused() {
    let s = space();
    let mut tb = TraceBuilder::new();
    tb.local(R);
    step(&mut tb, &s, "A1", &[], &[X], false);
    step(&mut tb, &s, "A2", &[X], &[R], false);
    step(&mut tb, &s, "B1", &[R], &[Y], false);
    let (kind, text) = refused(&s, &tb.finish());
    assert_eq!(kind, ErrorKind::SharedLocal);
    assert_eq!(
        text,
        "the trace does not fit the space: event 2 (thread `B`, at `B1`): it reads v4, a local variable of thread \
         `A` (first used at event 1 (at `A2`)): a local belongs to one thread"
    );
}

/// The same register used by its own thread only, and a fixed pair kept, pass.
#[test]
fn a_local_of_one_thread_and_pairs_in_order_pass() {
    let s = space();
    let mut tb = TraceBuilder::new();
    tb.local(R);
    step(&mut tb, &s, "B1", &[], &[Y], false);
    step(&mut tb, &s, "A1", &[], &[X], false);
    step(&mut tb, &s, "A2", &[X], &[R], false);
    step(&mut tb, &s, "B3", &[Y], &[W], false);
    let trace = tb.finish();
    assert_eq!(trace.locals(), [R]);
    let mut learner = Learner::new(&s, LearnerConfig::new()).unwrap();
    learner.learn_good(&trace).unwrap();
    assert_eq!(learner.counts(), (1, 0));
}

/// Reads-from is the builder's check: a read from a later event, or from one that does not
/// write the variable, never makes a trace.
#[test]
fn reads_from_a_non_writer_never_make_a_trace() {
    let s = space();
    let mut tb = TraceBuilder::new();
    step(&mut tb, &s, "A1", &[], &[X], false);
    let b1 = s.loc("B1").unwrap();
    let first = paces_learn::trace::EventId::from_u32(0);
    let e = tb.flat_step(&s, B, b1).read_from(Y, Some(first)).push().unwrap_err();
    assert!(e.to_string().contains("which does not write it"), "{e}");
    let later = paces_learn::trace::EventId::from_u32(3);
    let e = tb.flat_step(&s, B, b1).read_from(X, Some(later)).push().unwrap_err();
    assert!(e.to_string().contains("not an earlier event"), "{e}");
}

/// A builder made for the space names threads and locations by their labels in its errors,
/// as the learner's door does.
#[test]
fn a_builder_for_the_space_names_the_labels_in_its_errors() {
    let s = space();
    let loc = |label: &str| s.loc(label).unwrap();
    let mut tb = TraceBuilder::for_space(&s);
    tb.flat(A, loc("A1")).write(X, 1).push().unwrap();
    tb.flat(A, loc("A2")).read(X).write(R, 1).push().unwrap();
    let e = tb.flat(A, loc("A1")).push().unwrap_err();
    assert_eq!(
        e.to_string(),
        "event 2 (thread `A`, at `A1`): thread `A` already ran `A1` at event 0 and went on to another item \
         of its block: a step after the thread's last event must come after it in the thread's order"
    );
    let first = paces_learn::trace::EventId::from_u32(0);
    let e = tb.flat(B, loc("B1")).read_from(Y, Some(first)).push().unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("event 2 (thread `B`, at `B1`) reads {Y} from event 0 (thread `A`, at `A1`), which does not write it")
    );
    // The refused steps left the builder as it was.
    assert_eq!(tb.len(), 2);
}

/// A thread's pending step listed first and then run as an event (pending first, event
/// after): the builder refuses the event, since a pending step comes after its thread's last
/// event; the builder is left as it was.
#[test]
fn an_event_after_its_threads_pending_step_is_refused() {
    let s = space();
    let mut tb = TraceBuilder::for_space(&s);
    let (a1, a2) = (s.loc("A1").unwrap(), s.loc("A2").unwrap());
    tb.flat(A, a1).write(X, 1).push().unwrap();
    tb.flat(A, a2).read(X).write(R, 1).push_pending();
    let e = tb.flat(A, a2).read(X).write(R, 1).push().unwrap_err();
    assert_eq!(e.kind(), &paces_learn::trace::ErrorKind::ScopeOrder);
    assert_eq!(
        e.to_string(),
        "event 1 (thread `A`, at `A2`) comes after pending step 0 of thread `A`: a blocked or pending step comes \
         after its thread's last event"
    );
    // The same after a blocked step, and in a builder without a space.
    let mut plain = TraceBuilder::new();
    plain.flat_step(&s, B, s.loc("B1").unwrap()).write(Y, 1).push_blocked().unwrap();
    let e = plain.flat_step(&s, B, s.loc("B1").unwrap()).write(Y, 1).push().unwrap_err();
    assert_eq!(
        e.to_string(),
        "event 0 of thread 1 comes after blocked step 0 of thread 1: a blocked or pending step comes after its \
         thread's last event"
    );
    assert_eq!(tb.len(), 1);
    // Another thread's event may still come.
    tb.flat(B, s.loc("B1").unwrap()).write(Y, 1).push().unwrap();
}

/// The same step as its thread's last event, listed again as pending: the thread already
/// ran it, so it is no step the thread would take next. Refused at the door with the step
/// named, the learner unchanged.
#[test]
fn a_pending_step_that_repeats_its_threads_last_event_is_refused() {
    let s = space();
    let mut tb = TraceBuilder::new();
    step(&mut tb, &s, "B1", &[], &[Y], false);
    step(&mut tb, &s, "B4", &[W], &[], true);
    tb.flat_step(&s, B, s.loc("B4").unwrap()).read(W).push_pending();
    let (kind, text) = refused(&s, &tb.finish());
    assert_eq!(kind, ErrorKind::ProgramOrder);
    assert_eq!(
        text,
        "the trace does not fit the space: pending step 0 (thread `B`, at `B4`): thread `B` already ran `B4` at \
         event 1 in the same block instance: a step after the thread's last event must come after it in the \
         thread's order"
    );
    // A blocked step that repeats the last event, and an event that repeats the one before.
    let mut tb = TraceBuilder::new();
    step(&mut tb, &s, "A1", &[], &[X], false);
    tb.flat_step(&s, A, s.loc("A1").unwrap()).push_blocked().unwrap();
    let (kind, text) = refused(&s, &tb.finish());
    assert_eq!(kind, ErrorKind::ProgramOrder);
    assert!(text.contains("blocked step 0 (thread `A`, at `A1`): thread `A` already ran `A1` at event 0"), "{text}");
    // A builder without the space cannot tell a one-step item from a loop's test at its
    // own location, so it takes the repeated event; the door refuses it.
    let mut tb = TraceBuilder::new();
    step(&mut tb, &s, "A1", &[], &[X], false);
    step(&mut tb, &s, "A1", &[], &[X], false);
    let (kind, text) = refused(&s, &tb.finish());
    assert_eq!(kind, ErrorKind::ProgramOrder);
    assert!(text.contains("event 1 (thread `A`, at `A1`): thread `A` already ran `A1` at event 0"), "{text}");
    // A builder for the space refuses it at once.
    let mut tb = TraceBuilder::for_space(&s);
    tb.flat(A, s.loc("A1").unwrap()).write(X, 1).push().unwrap();
    let e = tb.flat(A, s.loc("A1").unwrap()).write(X, 1).push().unwrap_err();
    assert_eq!(
        e.to_string(),
        "event 1 (thread `A`, at `A1`): thread `A` already ran `A1` at event 0 in the same block instance: a step \
         after the thread's last event must come after it in the thread's order"
    );
}

/// A trace given as good must be one: no failing event (learned as good it would keep the
/// failure's orders), no blocked or pending steps (a run cut short). Each is refused with the
/// learner unchanged; the same traces are taken as bad.
#[test]
fn a_good_trace_that_fails_or_stops_short_is_refused() {
    let s = space();
    let mut failing = TraceBuilder::new();
    step(&mut failing, &s, "B1", &[], &[Y], false);
    step(&mut failing, &s, "B3", &[Y], &[W], false);
    step(&mut failing, &s, "B4", &[W], &[], true);
    let mut pending = TraceBuilder::new();
    step(&mut pending, &s, "A1", &[], &[X], false);
    pending.flat_step(&s, A, s.loc("A2").unwrap()).read(X).write(R, 1).push_pending();
    let mut blocked = TraceBuilder::new();
    step(&mut blocked, &s, "A1", &[], &[X], false);
    blocked.flat_step(&s, B, s.loc("B1").unwrap()).kind(EventKind::Await).read(X).push_blocked().unwrap();
    let cases = [
        (failing.finish(), "the trace is not good: event 2 (at `B4`) fails: a good trace has no failing step"),
        (pending.finish(), "the trace is not good: it lists pending steps: a good trace has none"),
        (blocked.finish(), "the trace is not good: it ends with blocked steps (a deadlock): a good trace has none"),
    ];
    for (trace, message) in cases {
        let mut learner = learner_with_lessons(&s);
        let before = state(&mut learner);
        let e = learner.learn_good(&trace).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::NotGood);
        assert_eq!(e.to_string(), message);
        assert_eq!(state(&mut learner), before, "a refused trace changes nothing");
    }
}
