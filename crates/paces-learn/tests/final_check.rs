//! A final check (an assertion evaluated once every thread has finished) recorded as such,
//! with no thread invented for it: the learner generalises a bad trace that fails there
//! through the check's reads-from edges from the last writers, with the same fixes as the
//! pseudo-thread encoding (the check as the one step of a thread of its own), and refuses a
//! final check out of place at the door.

use paces_learn::constraint::{ItemInfo, Space, SpaceBuilder};
use paces_learn::trace::{EventId, ThreadId, Trace, TraceBuilder, VarId};
use paces_learn::{ErrorKind, Learner, LearnerConfig, Proposal};

/// A statement: its label, the variables it reads, the one it writes.
type Stmt = (&'static str, &'static [u32], Option<u32>);

/// A program of two threads `T1` and `T2`, each pair of statements that touch a common
/// variable (one writing it) fixed in its order, and a schedule of (thread, statement).
struct Program {
    threads: [&'static [Stmt]; 2],
    schedule: &'static [(usize, usize)],
    /// The variables the final check reads.
    check: &'static [u32],
    /// Variables local to one thread (registers).
    locals: &'static [u32],
}

/// The lost update: both threads read x into a register and write it back plus one; the
/// check `x == 2` fails when both read 0.
const LOST_UPDATE: Program = Program {
    threads: [&[("r1", &[0], Some(1)), ("s1", &[1], Some(0))], &[("r2", &[0], Some(2)), ("s2", &[2], Some(0))]],
    schedule: &[(0, 0), (1, 0), (0, 1), (1, 1)],
    check: &[0],
    locals: &[1, 2],
};

/// Message passing with the flag raised before the data is written: `T2` reads the flag
/// into r1, then the data into r2; the check `r1 == 1 -> r2 == 1` reads T2's registers.
const MESSAGE_PASSING: Program = Program {
    threads: [&[("f", &[], Some(0)), ("d", &[], Some(1))], &[("w", &[0], Some(2)), ("a", &[1], Some(3))]],
    schedule: &[(0, 0), (1, 0), (1, 1), (0, 1)],
    check: &[2, 3],
    locals: &[2, 3],
};

fn conflicts(x: &Stmt, y: &Stmt) -> bool {
    let touches = |s: &Stmt, v: u32| s.1.contains(&v) || s.2 == Some(v);
    x.2.is_some_and(|v| touches(y, v)) || y.2.is_some_and(|v| touches(x, v))
}

/// The space; with `pseudo`, a third thread `finally` with the check as its one item.
fn space(p: &Program, pseudo: bool) -> Space {
    let mut b = SpaceBuilder::new();
    for (t, stmts) in p.threads.iter().enumerate() {
        let block = b.open_block();
        let mut locs = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            let loc = b.add_item(block, s.0, ItemInfo::SIMPLE).unwrap();
            for j in (0..i).filter(|&j| conflicts(&stmts[j], s)) {
                b.fix(locs[j], loc).unwrap();
            }
            locs.push(loc);
        }
        b.thread(&format!("T{}", t + 1), block).unwrap();
    }
    if pseudo {
        let block = b.closed_block();
        b.add_item(block, "check", ItemInfo::SIMPLE).unwrap();
        b.thread("finally", block).unwrap();
    }
    b.build().unwrap()
}

/// The bad run of `p`, its check failing: a final check, or (with `pseudo`) a step of the
/// thread `finally`. Returns the trace and the check's event.
fn bad_trace(p: &Program, space: &Space, pseudo: bool, locals: bool) -> (Trace, EventId) {
    let mut tb = TraceBuilder::for_space(space);
    if locals {
        for &v in p.locals {
            tb.local(VarId::from_u32(v));
        }
    }
    for &(t, i) in p.schedule {
        let (label, reads, write) = p.threads[t][i];
        let mut step = tb.flat(ThreadId::from_u32(t as u32), space.loc(label).unwrap());
        for &v in reads {
            step = step.read(VarId::from_u32(v));
        }
        if let Some(v) = write {
            step = step.write(VarId::from_u32(v), 1);
        }
        step.push().unwrap();
    }
    let mut check = if pseudo {
        tb.flat(ThreadId::from_u32(2), space.loc("check").unwrap()).kind(paces_learn::trace::EventKind::Assert)
    } else {
        tb.final_check()
    };
    for &v in p.check {
        check = check.read(VarId::from_u32(v));
    }
    let id = check.failed(true).push().unwrap();
    (tb.finish(), id)
}

/// The fixes the learner finds for `p`'s bad trace, as text, and its first proposal's
/// threads `T1` and `T2` with its cost.
fn learned(p: &Program, pseudo: bool, locals: bool) -> (Vec<String>, String) {
    let space = space(p, pseudo);
    let (trace, _) = bad_trace(p, &space, pseudo, locals);
    let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
    let (lesson, elimination) = learner.learn_bad_detailed(&trace).unwrap();
    assert_eq!(lesson.warning(), None, "a failing final check is not a trace that stops short");
    let fixes = elimination.fixes.iter().map(|f| f.display(&space).to_string()).collect();
    let Proposal::Candidate { candidate, cost, .. } = learner.propose().unwrap() else { panic!("no candidate") };
    let shown = candidate.display(&space).to_string();
    let threads: Vec<&str> = shown.lines().filter(|l| l.starts_with('T')).collect();
    (fixes, format!("cost {cost}: {}", threads.join(" | ")))
}

#[test]
fn a_final_check_reads_the_last_writers() {
    for p in [LOST_UPDATE, MESSAGE_PASSING] {
        let space = space(&p, false);
        let (trace, check) = bad_trace(&p, &space, false, true);
        let event = trace.event(check);
        assert!(event.is_final_check() && event.failed);
        assert_eq!(check.index(), trace.len() - 1, "the check is the last event");
        for read in &event.reads {
            let last = trace.ids().filter(|&e| trace.event(e).writes_var(read.var)).last();
            assert_eq!(read.from, last, "{read:?}");
        }
        trace.check_against(&space).unwrap();
    }
}

#[test]
fn a_lost_update_checked_at_the_end_has_the_fixes_of_the_pseudo_thread() {
    let (fixes, proposal) = learned(&LOST_UPDATE, false, true);
    assert_eq!((fixes.clone(), proposal.clone()), learned(&LOST_UPDATE, true, true));
    // The check reads x from s2, which wrote what r2 read from the initial state before s1
    // wrote: only a section around r2 and s2 rules that out (r1 plays no part).
    assert_eq!(fixes.len(), 1, "{fixes:?}");
    assert!(fixes[0].starts_with("[r2; s2] "), "{fixes:?}");
    assert!(proposal.contains("T2: atomic [r2; s2]"), "{proposal}");
}

#[test]
fn message_passing_checked_at_the_end_reads_registers_and_gets_the_reorder() {
    // The check reads T2's registers: as a final check it may, as a thread of its own it may
    // not (a register shared across threads is refused), so the pseudo-thread encoding
    // compared declares no locals.
    let (fixes, proposal) = learned(&MESSAGE_PASSING, false, true);
    assert_eq!((fixes.clone(), proposal.clone()), learned(&MESSAGE_PASSING, true, false));
    let space = space(&MESSAGE_PASSING, true);
    let (trace, _) = bad_trace(&MESSAGE_PASSING, &space, true, true);
    let e = Learner::new(&space, LearnerConfig::new()).unwrap().learn_bad(&trace).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::SharedLocal, "{e}");
    assert!(fixes.iter().any(|f| f.starts_with("d <= f")), "{fixes:?}");
    assert!(proposal.contains("T1: d; f"), "{proposal}");
}

#[test]
fn a_good_trace_checked_at_the_end_teaches_what_the_pseudo_thread_teaches() {
    // The correct message passing, `d f w a`, its check holding.
    let good = Program { schedule: &[(0, 1), (0, 0), (1, 0), (1, 1)], ..MESSAGE_PASSING };
    let taught = |pseudo: bool| {
        let space = space(&good, pseudo);
        let (trace, check) = bad_trace(&good, &space, pseudo, !pseudo);
        // The same run with the check holding: rebuilt without the failure.
        let mut tb = TraceBuilder::new();
        for (i, e) in trace.events().iter().enumerate() {
            let mut event = e.clone();
            event.failed &= i != check.index();
            tb.push(event).unwrap();
        }
        let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
        let lesson = learner.learn_good(&tb.finish()).unwrap();
        let text = lesson.display(&space).to_string();
        text
    };
    let text = taught(false);
    assert_eq!(text, taught(true));
    assert!(text.starts_with("good trace #1: ") && text.contains("d <= f"), "{text}");
}

#[test]
fn a_final_check_out_of_place_is_refused_and_changes_nothing() {
    let p = &LOST_UPDATE;
    let space = space(p, false);
    let x = VarId::from_u32(0);
    let (t1, t2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
    let [r1, r2] = ["r1", "r2"].map(|l| space.loc(l).unwrap());
    // A final check that writes, and a thread's step after a final check.
    let mut tb = TraceBuilder::for_space(&space);
    tb.flat(t1, r1).read(x).write(VarId::from_u32(1), 0).push().unwrap();
    let e = tb.final_check().read(x).write(x, 5).push().unwrap_err();
    assert_eq!(e.to_string(), "event 1 (the final check) writes v0: a final check only reads the final values");
    tb.final_check().read(x).push().unwrap();
    let e = tb.flat(t2, r2).read(x).write(VarId::from_u32(2), 0).push().unwrap_err();
    assert_eq!(
        e.to_string(),
        "event 2 (thread `T2`, at `r2`) comes after a final check: final checks run once every thread has \
         finished"
    );
    let e = tb.flat(t2, r2).push_blocked().unwrap_err();
    assert!(e.to_string().contains("no step is blocked"), "{e}");
    // A pending step in a trace with a final check: refused at the learner's door.
    tb.flat(t1, space.loc("s1").unwrap()).push_pending();
    let trace = tb.finish();
    let (bad, _) = bad_trace(p, &space, false, true);
    let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
    learner.learn_bad(&bad).unwrap();
    let before = (learner.display_constraints().to_string(), learner.counts());
    let e = learner.learn_good(&trace).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::ProgramOrder);
    assert_eq!(
        e.to_string(),
        "the trace does not fit the space: pending step 0 (thread `T1`, at `s1`): the trace has a final check, \
         which runs once every thread has finished: no step is blocked or pending"
    );
    assert_eq!(before, (learner.display_constraints().to_string(), learner.counts()));
}

#[test]
fn a_final_check_draws_as_a_cluster_of_its_own() {
    let space = space(&LOST_UPDATE, false);
    let (trace, _) = bad_trace(&LOST_UPDATE, &space, false, true);
    let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
    let (_, elimination) = learner.learn_bad_detailed(&trace).unwrap();
    let label = |e: EventId| format!("e{}", e.index());
    let dot = elimination.fix_dot(0, &trace, &space, &label).expect("a fix");
    // The check, event 4, in a cluster of its own named as such, read from s2 (event 3).
    assert!(dot.contains("label=\"final check\";\n    e4 [label=\"e4\""), "{dot}");
    assert!(dot.contains("e3 -> e4 [color=blue]"), "{dot}");
}
