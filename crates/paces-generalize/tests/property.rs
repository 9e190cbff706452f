//! Property: on random small programs, every fix really eliminates the bug pattern (the partial
//! order without its context events, which only say how an overwrite was reached, and without
//! the orderings off the failure's data flow), and every linearisation of the generalised
//! partial order reproduces the failure.

mod support;

use paces_constraint::{Arena, Atom, Candidate};
use paces_generalize::{eliminate, EdgeKind, EliminateConfig, Failure, PartialOrder};
use paces_testkit::Rng;
use paces_trace::{EventId, Trace};
use support::{random_program, topological_orders, Setup};

/// Up to `limit` linearisations of the partial order.
fn linearisations(po: &PartialOrder, limit: usize) -> Vec<Vec<EventId>> {
    let ids = po.events();
    let before: Vec<Vec<usize>> =
        (0..ids.len()).map(|j| (0..ids.len()).filter(|&i| i != j && po.precedes(ids[i], ids[j])).collect()).collect();
    topological_orders(&before, limit).into_iter().map(|o| o.into_iter().map(|i| ids[i]).collect()).collect()
}

fn check_trace(setup: &Setup, trace: &Trace, k: usize, candidates: &[Candidate], stats: &mut [usize; 6]) {
    let mut arena = Arena::new();
    let config = EliminateConfig::new().max_constraint_edges(k);
    let elim = eliminate(trace, &setup.space, &mut arena, &config).unwrap();
    let po = &elim.partial_order;
    // Generalisation is sound: each linearisation runs in the original and fails the same way
    // (the signals after the failure left out: rule 4 keeps them without their dependencies).
    for order in linearisations(po, 30) {
        assert!(po.is_linearisation(&order));
        let order: Vec<_> = order.into_iter().filter(|&e| !po.is_signal(e) && !po.is_pending_step(e)).collect();
        assert!(
            setup.replay_fails(po, trace, &order),
            "linearisation {order:?} of {po:?} does not fail (program {:?}, trace {:?})",
            setup.program,
            trace.events().iter().map(|e| setup.space.name(e.loc)).collect::<Vec<_>>(),
        );
    }
    let original = Candidate::original(&setup.space);
    assert!(setup.candidate_shows(&original, po, trace), "the original must show its own bug");
    assert!(!arena.eval(elim.constraint, &original), "the original satisfies a fix");
    // The preemption-free decision: "yes" is backed by a preemption-free run with the bug
    // pattern; when "no", no fix moves a preemption point.
    if elim.preemption_free_possible {
        assert!(setup.shows_preemption_free(po, trace), "no preemption-free run shows {po:?}");
        stats[4] += 1;
    } else {
        for fix in &elim.fixes {
            for e in &fix.edges {
                if let EdgeKind::Reorder(Atom::Order(a, b)) = e.kind {
                    assert!(!setup.space.is_preemption_point(a) && !setup.space.is_preemption_point(b));
                }
            }
        }
    }
    stats[0] += 1;
    if po.events().iter().any(|&e| po.is_context(e)) {
        stats[5] += 1;
    }
    if matches!(po.failure(), Failure::Deadlock(_)) {
        stats[3] += 1;
    }
    for fix in &elim.fixes {
        stats[1] += 1;
        assert!(elim.fixes[0].weight <= fix.weight);
        for c in candidates.iter().filter(|c| arena.eval(fix.constraint, c)) {
            stats[2] += 1;
            assert!(
                !setup.candidate_shows(c, po, trace),
                "fix {} leaves the bug pattern in {:?} (program {:?}, trace {:?})",
                arena.display(fix.constraint, &setup.space, 200),
                setup.shape(c),
                setup.program,
                trace.events().iter().map(|e| setup.space.name(e.loc)).collect::<Vec<_>>(),
            );
        }
    }
}

#[test]
fn fixes_eliminate_the_bug_pattern() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut stats = [0usize; 6];
    let mut programs = 0;
    let mut pending_kept = 0;
    let mut pending_waits = 0;
    while programs < 600 {
        let setup = Setup::new(random_program(&mut rng, 2));
        let mut bad: Vec<Trace> = Vec::new();
        let mut stopped: Vec<Trace> = Vec::new();
        for (steps, blocked) in setup.runs() {
            let trace = setup.trace(&steps, &blocked);
            if (trace.is_bad() || !blocked.is_empty()) && !bad.contains(&trace) {
                bad.push(trace);
            }
            // The same failure as a checker that stops there reports it: what comes after is
            // pending.
            if let Some(cut) = setup.trace_stopped(&steps) {
                if !stopped.contains(&cut) {
                    stopped.push(cut);
                }
            }
        }
        if bad.is_empty() {
            continue;
        }
        programs += 1;
        let candidates = Candidate::enumerate(&setup.space, 100_000).unwrap();
        for trace in bad.iter().take(4) {
            // K = 2 (the default) mostly, and 1 and 3 for the search's other depths.
            check_trace(&setup, trace, [2, 1, 2, 3][programs % 4], &candidates, &mut stats);
        }
        for trace in stopped.iter().take(2) {
            check_trace(&setup, trace, [2, 1, 2, 3][programs % 4], &candidates, &mut stats);
            let po = PartialOrder::from_bad_trace(trace).unwrap();
            if po.events().iter().any(|&e| po.is_pending_step(e)) {
                pending_kept += 1;
            }
            // Rule 4 continued: a pending condition ordered after a pending write.
            if po.cross_edges().iter().any(|&(a, b)| po.is_pending_step(a) && po.is_pending_step(b)) {
                pending_waits += 1;
            }
        }
    }
    // The generator must exercise the interesting cases.
    println!(
        "traces, fixes, candidates checked, deadlocks, preemption-free, with context: {stats:?}; \
         pending kept: {pending_kept}, pending waits: {pending_waits}"
    );
    assert!(pending_waits >= 5, "{pending_waits} stopped traces ordered a pending wait after a pending write");
    assert!(pending_kept >= 100, "{pending_kept} stopped traces kept a pending step");
    let [traces, fixes, checked, deadlocks, preemption_free, context] = stats;
    assert!(
        traces >= 1000
            && fixes >= 300
            && checked >= 10_000
            && deadlocks >= 100
            && preemption_free >= 100
            && context >= 100,
        "{stats:?}"
    );
}
