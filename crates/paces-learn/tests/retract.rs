//! Lessons taken back: a learner that learned a lesson and retracted it (or learned lessons in
//! a scope and popped it) proposes exactly what a learner that never learned them proposes
//! (relaxation off, so that lessons are a plain conjunction), on random small programs and
//! random runs of them.

use paces_learn::constraint::{ItemInfo, Loc, Space, SpaceBuilder};
use paces_learn::trace::{EventKind, ThreadId, Trace, TraceBuilder, VarId};
use paces_learn::{ErrorKind, Learner, LearnerConfig, Proposal};
use proptest::prelude::*;

/// A statement: `x := 1` (`write`) or `assert(x == 1)` on variable `var`.
#[derive(Clone, Copy, Debug)]
struct Stmt {
    write: bool,
    var: u32,
}

/// The space of a program of flat threads, every pair free, the threads declared.
fn space(program: &[Vec<Stmt>]) -> (Space, Vec<Vec<Loc>>) {
    let mut b = SpaceBuilder::new();
    let mut locs = Vec::new();
    for (t, thread) in program.iter().enumerate() {
        let block = b.block(false);
        let mut mine = Vec::new();
        for i in 0..thread.len() {
            let loc = b.loc(&format!("t{t}s{i}")).unwrap();
            b.item(block, loc, ItemInfo::SIMPLE).unwrap();
            mine.push(loc);
        }
        b.thread(&format!("T{t}"), block).unwrap();
        locs.push(mine);
    }
    (b.build().unwrap(), locs)
}

/// The run of the program in original order that `choices` schedules (each choice picks a
/// thread among those with steps left), to its end.
fn run(program: &[Vec<Stmt>], locs: &[Vec<Loc>], space: &Space, choices: &[u8]) -> Trace {
    let mut next = vec![0; program.len()];
    let mut values = [0i64; 3];
    let mut tb = TraceBuilder::new();
    let mut choices = choices.iter().cycle();
    loop {
        let live: Vec<usize> = (0..program.len()).filter(|&t| next[t] < program[t].len()).collect();
        if live.is_empty() {
            return tb.finish();
        }
        let t = live[*choices.next().unwrap() as usize % live.len()];
        let stmt = program[t][next[t]];
        let var = VarId::from_u32(stmt.var);
        let step = tb.flat_step(space, ThreadId::from_u32(t as u32), locs[t][next[t]]);
        if stmt.write {
            values[stmt.var as usize] = 1;
            step.write(var, 1).push().unwrap();
        } else {
            let failed = values[stmt.var as usize] != 1;
            step.kind(EventKind::Assert).failed(failed).read(var).push().unwrap();
        }
        next[t] += 1;
    }
}

/// Checks that two learners propose alike: both find no candidate, or both propose a
/// candidate of the same cost that satisfies the other learner's constraint too. Which of
/// several cheapest candidates the solver picks is not part of the contract: it may depend on
/// the solver's history (a retracted lesson leaves learned clauses behind), so the candidates
/// themselves are not compared.
fn same_answer(x: &mut Learner, y: &mut Learner) -> Result<(), TestCaseError> {
    match (x.propose().unwrap(), y.propose().unwrap()) {
        (Proposal::Candidate { candidate: cx, cost: kx, .. }, Proposal::Candidate { candidate: cy, cost: ky, .. }) => {
            prop_assert_eq!(kx, ky, "costs differ: {} against {}", cx.display(x.space()), cy.display(y.space()));
            prop_assert!(y.arena().eval(y.constraint(), &cx), "{} breaks the other's lessons", cx.display(x.space()));
            prop_assert!(x.arena().eval(x.constraint(), &cy), "{} breaks the other's lessons", cy.display(y.space()));
        }
        (Proposal::Unsatisfiable { .. }, Proposal::Unsatisfiable { .. }) => {}
        (a, b) => return Err(TestCaseError::fail(format!("the learners disagree: {a:?} against {b:?}"))),
    }
    Ok(())
}

/// A learner that learned `parts`, in order.
fn learned(space: &Space, config: &LearnerConfig, parts: &[&[Trace]]) -> Learner {
    let mut learner = Learner::new(space, config.clone()).unwrap();
    parts.iter().flat_map(|p| p.iter()).for_each(|t| {
        learn(&mut learner, t);
    });
    learner
}

/// Learns `trace` as bad when it is, as good otherwise.
fn learn(learner: &mut Learner, trace: &Trace) -> paces_learn::LessonId {
    if trace.is_bad() {
        learner.learn_bad(trace).unwrap().id
    } else {
        learner.learn_good(trace).unwrap().id
    }
}

fn stmt() -> impl Strategy<Value = Stmt> {
    (any::<bool>(), 0..3u32).prop_map(|(write, var)| Stmt { write, var })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_retracted_lesson_leaves_what_a_learner_that_never_learned_it_proposes(
        program in prop::collection::vec(prop::collection::vec(stmt(), 1..4), 2..4),
        schedules in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..12), 1..5),
        pick in any::<prop::sample::Index>(),
    ) {
        let (space, locs) = space(&program);
        let traces: Vec<Trace> = schedules.iter().map(|s| run(&program, &locs, &space, s)).collect();
        let left_out = pick.index(traces.len());
        let config = LearnerConfig::new().relax_on_conflict(false);
        let mut retracting = Learner::new(&space, config.clone()).unwrap();
        let mut never = Learner::new(&space, config.clone()).unwrap();
        let mut taken_back = None;
        for (i, trace) in traces.iter().enumerate() {
            let id = learn(&mut retracting, trace);
            if i == left_out {
                taken_back = Some(id);
            } else {
                learn(&mut never, trace);
            }
        }
        prop_assert!(retracting.retract(taken_back.unwrap()).unwrap());
        same_answer(&mut retracting, &mut never)?;
        // Taken back twice: nothing more to take.
        prop_assert!(!retracting.retract(taken_back.unwrap()).unwrap());
        // Learned again, the lesson is back in force.
        learn(&mut retracting, &traces[left_out]);
        same_answer(&mut retracting, &mut learned(&space, &config, &[&traces]))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Scopes: lessons learned in a popped scope are gone, those of the scope around it stay.
    /// `base` traces are learned outside every scope, `outer` in a scope, `inner` in a scope
    /// inside it; each pop leaves what a learner that never learned the popped traces proposes.
    #[test]
    fn a_popped_scope_leaves_what_a_learner_that_never_learned_it_proposes(
        program in prop::collection::vec(prop::collection::vec(stmt(), 1..4), 2..4),
        schedules in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..12), 1..6),
        cut in any::<(prop::sample::Index, prop::sample::Index)>(),
    ) {
        let (space, locs) = space(&program);
        let traces: Vec<Trace> = schedules.iter().map(|s| run(&program, &locs, &space, s)).collect();
        let (a, b) = (cut.0.index(traces.len() + 1), cut.1.index(traces.len() + 1));
        let (base, outer, inner) = (&traces[..a.min(b)], &traces[a.min(b)..a.max(b)], &traces[a.max(b)..]);
        let config = LearnerConfig::new().relax_on_conflict(false);
        let fresh = |parts: &[&[Trace]]| learned(&space, &config, parts);
        let mut scoped = Learner::new(&space, config.clone()).unwrap();
        base.iter().for_each(|t| { learn(&mut scoped, t); });
        prop_assert_eq!(scoped.push(), 1);
        outer.iter().for_each(|t| { learn(&mut scoped, t); });
        prop_assert_eq!(scoped.push(), 2);
        inner.iter().for_each(|t| { learn(&mut scoped, t); });
        same_answer(&mut scoped, &mut fresh(&[base, outer, inner]))?;
        prop_assert_eq!(scoped.pop().unwrap(), inner.len());
        prop_assert_eq!(scoped.scopes(), 1);
        same_answer(&mut scoped, &mut fresh(&[base, outer]))?;
        prop_assert_eq!(scoped.pop().unwrap(), outer.len());
        same_answer(&mut scoped, &mut fresh(&[base]))?;
        let e = scoped.pop().unwrap_err();
        prop_assert_eq!(e.kind(), &ErrorKind::NoScope);
        // Learned again after the pops, the traces bind as before.
        outer.iter().chain(inner).for_each(|t| { learn(&mut scoped, t); });
        same_answer(&mut scoped, &mut fresh(&[base, outer, inner]))?;
    }
}

/// A lesson retracted inside a scope is not counted again by the pop; `pop` with no scope
/// open is an error that changes nothing.
#[test]
fn pop_counts_only_the_lessons_still_in_force() {
    let program = vec![vec![Stmt { write: false, var: 0 }], vec![Stmt { write: true, var: 0 }]];
    let (space, locs) = space(&program);
    let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
    let e = learner.pop().unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::NoScope);
    assert_eq!(e.to_string(), "`pop` without a `push`: no scope is open");
    learner.push();
    let first = learn(&mut learner, &run(&program, &locs, &space, &[0]));
    learn(&mut learner, &run(&program, &locs, &space, &[1]));
    assert!(learner.retract(first).unwrap());
    assert_eq!(learner.pop().unwrap(), 1);
    assert_eq!(learner.scopes(), 0);
    assert!(learner.conjuncts().iter().all(|c| c.retracted));
}

/// Retracting the one bad lesson that made the constraints unsatisfiable brings the
/// original program back; a conflict names the lessons in it; an unknown id is an error.
#[test]
fn retracting_a_lesson_in_a_conflict_lifts_it() {
    let program = vec![vec![Stmt { write: false, var: 0 }], vec![Stmt { write: true, var: 1 }]];
    let (space, locs) = space(&program);
    // The assertion reads x, which no thread writes: no candidate avoids the failure.
    let bad = run(&program, &locs, &space, &[0]);
    let mut learner = Learner::new(&space, LearnerConfig::new()).unwrap();
    let lesson = learner.learn_bad(&bad).unwrap().id;
    let Proposal::Unsatisfiable { conflict, explanation, lessons, guesses } = learner.propose().unwrap() else {
        panic!("no fix for an assertion no write can satisfy");
    };
    assert!(conflict.iter().all(|c| c.lesson == lesson) && !conflict.is_empty(), "{conflict:?}");
    assert_eq!((lessons, guesses), (vec![lesson], vec![]));
    // The conflict deepened K from the configured 3 before giving up, and says so.
    assert!(explanation.contains("lesson 0 `bad trace #1 (fixes, K = 4, deepened from 3)`"), "{explanation}");
    assert!(explanation.contains("(K = 3 as configured, deepened on conflict"), "{explanation}");
    assert!(learner.retract(lesson).unwrap());
    assert!(learner.conjuncts().iter().all(|c| c.retracted));
    let Proposal::Candidate { cost, transformations, .. } = learner.propose().unwrap() else {
        panic!("nothing learned stands");
    };
    assert!(transformations.is_empty(), "{transformations:?}");
    assert_eq!(cost.to_string(), "(atomic 0, inversions 0)");
    // An id another learner gave, past this one's lessons.
    let mut other = Learner::new(learner.space(), LearnerConfig::new()).unwrap();
    learn(&mut other, &bad);
    let second = learn(&mut other, &bad);
    let e = learner.retract(second).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::UnknownLesson);
    assert_eq!(e.to_string(), "lesson 1 was not learned: this learner gave 1 lesson");
}
