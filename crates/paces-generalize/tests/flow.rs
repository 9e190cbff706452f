//! Rule 6 of the partial order (the orderings off the failure's data flow are not used for
//! fixes) against brute force on random small programs:
//!
//! * every linearisation of the partial order without those orderings still fails the same
//!   way in the original program (a thread whose wait no longer holds is left there);
//! * every candidate of the space that no run makes fail at the failing statement and that
//!   satisfies the error-eliminating constraint with every ordering used
//!   (`EliminateConfig::data_flow(false)`) satisfies it with the rule too: the orderings left
//!   out never cost a repair.

mod support;

use paces_constraint::{Arena, Candidate};
use paces_generalize::{eliminate, EliminateConfig, Failure, PartialOrder};
use paces_testkit::Rng;
use paces_trace::{EventId, Trace};
use support::{explore, random_program, topological_orders, Setup, Step, Stmt};

/// Up to `limit` linearisations of the partial order's executed events under program order
/// and the cross-thread orderings that are on the flow (those off it left out).
fn flow_linearisations(po: &PartialOrder, limit: usize) -> Vec<Vec<EventId>> {
    let ids: Vec<EventId> =
        po.events().iter().copied().filter(|&e| !po.is_signal(e) && !po.is_pending_step(e)).collect();
    let n = ids.len();
    let at = |id: EventId| ids.iter().position(|&x| x == id);
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); n];
    let kept = po.cross_edges().iter().filter(|&&(a, b)| !po.is_off_flow(a, b));
    for &(a, b) in po.program_edges().iter().chain(kept) {
        if let (Some(x), Some(y)) = (at(a), at(b)) {
            before[y].push(x);
        }
    }
    topological_orders(&before, limit).into_iter().map(|o| o.into_iter().map(|i| ids[i]).collect()).collect()
}

/// Runs `order` in the original program, leaving a thread at a wait that does not hold (and
/// every later step of it); whether the failing step fails again.
fn fails_again(setup: &Setup, po: &PartialOrder, trace: &Trace, order: &[EventId]) -> bool {
    let Failure::Event(f) = po.failure() else { return false };
    let mut vals = vec![0i64; setup.program.vars];
    let mut left = vec![false; setup.program.threads.len()];
    for &id in order {
        let (t, i) = setup.stmt_of(po.event(trace, id).unwrap().loc);
        if left[t] {
            continue;
        }
        match setup.program.threads[t][i].1 {
            Stmt::Set(x, v) => vals[x as usize] = v,
            Stmt::Copy(x, y) => vals[x as usize] = vals[y as usize],
            Stmt::Assert(x, v) => {
                if id == *f {
                    return vals[x as usize] != v;
                }
            }
            Stmt::Await(x, v) => left[t] = vals[x as usize] != v,
        }
    }
    false
}

/// The statements that fail on some run of the candidate.
fn failing(setup: &Setup, c: &Candidate) -> Vec<Step> {
    let (orders, sections) = setup.shape(c);
    let mut out: Vec<Step> = Vec::new();
    explore(&setup.program, &orders, &sections, &mut |steps, _| {
        let mut vals = vec![0i64; setup.program.vars];
        for &(t, i) in steps {
            match setup.program.threads[t][i].1 {
                Stmt::Set(x, v) => vals[x as usize] = v,
                Stmt::Copy(x, y) => vals[x as usize] = vals[y as usize],
                Stmt::Assert(x, v) if vals[x as usize] != v && !out.contains(&(t, i)) => out.push((t, i)),
                _ => {}
            }
        }
        true
    });
    out
}

#[test]
fn orderings_off_the_flow_are_not_needed() {
    let mut rng = Rng(0x5eed_f10e_d00d_1e55);
    let (mut traces, mut off, mut linearisations, mut correct) = (0usize, 0usize, 0usize, 0usize);
    let mut programs = 0;
    while programs < 150 {
        let setup = Setup::new(random_program(&mut rng, 3));
        // Runs to the end with a failing assertion: a trace that stops short, or a deadlock,
        // may hide the writes its fixes need (no completeness is claimed for those).
        let mut bad: Vec<Trace> = Vec::new();
        for (steps, blocked) in setup.runs() {
            let trace = setup.trace(&steps, &blocked);
            if blocked.is_empty() && trace.is_bad() && !bad.contains(&trace) {
                bad.push(trace);
            }
        }
        if bad.is_empty() {
            continue;
        }
        programs += 1;
        let candidates = Candidate::enumerate(&setup.space, 100_000).unwrap();
        let fails: Vec<Vec<Step>> = candidates.iter().map(|c| failing(&setup, c)).collect();
        for trace in bad.iter().take(4) {
            let mut arena = Arena::new();
            let config = EliminateConfig::new().max_constraint_edges(8);
            let elim = eliminate(trace, &setup.space, &mut arena, &config).unwrap();
            let every = eliminate(trace, &setup.space, &mut arena, &config.data_flow(false)).unwrap();
            let po = &elim.partial_order;
            traces += 1;
            off += po.cross_edges().iter().filter(|&&(a, b)| po.is_off_flow(a, b)).count();
            for order in flow_linearisations(po, 30) {
                linearisations += 1;
                assert!(
                    fails_again(&setup, po, trace, &order),
                    "linearisation {order:?} of {po:?} without the orderings off the flow does not fail \
                     (program {:?}, trace {:?})",
                    setup.program,
                    trace.events().iter().map(|e| setup.space.name(e.loc)).collect::<Vec<_>>(),
                );
            }
            let Failure::Event(f) = po.failure() else { unreachable!("a run to the end") };
            let failing_step = setup.stmt_of(trace.event(*f).loc);
            if !elim.complete || !every.complete {
                continue;
            }
            for (c, fails) in candidates.iter().zip(&fails) {
                if fails.contains(&failing_step) || !arena.eval(every.constraint, c) {
                    continue;
                }
                correct += 1;
                assert!(
                    arena.eval(elim.constraint, c),
                    "{:?} never fails at {failing_step:?} but satisfies no fix of {po:?} (program {:?}, trace {:?})",
                    setup.shape(c),
                    setup.program,
                    trace.events().iter().map(|e| setup.space.name(e.loc)).collect::<Vec<_>>(),
                );
            }
        }
    }
    println!(
        "traces {traces}, orderings off the flow {off}, linearisations {linearisations}, correct candidates {correct}"
    );
    assert!(
        traces >= 400 && off >= 100 && linearisations >= 1500 && correct >= 4000,
        "{traces} {off} {linearisations} {correct}"
    );
}
