//! The paper's examples: Example 4, the atomic-section example, Figure 8, and a deadlock.

mod support;

use paces_constraint::{Arena, Atom, Candidate};
use paces_generalize::{eliminate, EdgeKind, EliminateConfig, Elimination, ErrorKind, Failure, PartialOrder};
use support::{program, Setup};

fn run(setup: &Setup, steps: &[&str], blocked: &[&str]) -> (Elimination, Arena, paces_trace::Trace) {
    let trace = setup.trace_named(steps, blocked);
    let mut arena = Arena::new();
    let elim = eliminate(&trace, &setup.space, &mut arena, &EliminateConfig::new()).unwrap();
    (elim, arena, trace)
}

fn texts(elim: &Elimination, arena: &Arena, setup: &Setup) -> Vec<String> {
    elim.fixes.iter().map(|f| arena.display(f.constraint, &setup.space, 200).to_string()).collect()
}

/// A candidate from thread orders given by names (no sections).
fn candidate(setup: &Setup, orders: &[&[&str]]) -> Candidate {
    let orders = orders.iter().map(|o| o.iter().map(|n| setup.loc(n)).collect()).collect();
    Candidate::new(&setup.space, orders, &[]).unwrap()
}

fn example4() -> Setup {
    Setup::new(program(&[&["A: x := 1", "B: z := 1", "C: y := 1"], &["1: await(x == 1)", "2: assert(y == 1)"]]))
}

#[test]
fn example4_fix_is_found_and_cheapest() {
    let s = example4();
    let (elim, arena, trace) = run(&s, &["A", "B", "1", "2", "C"], &[]);
    let (a, c, one, two) = (s.loc("A"), s.loc("C"), s.loc("1"), s.loc("2"));
    let best = &elim.fixes[0];
    assert_eq!(best.atoms, vec![Atom::Order(c, a), Atom::Order(one, two)]);
    assert_eq!(texts(&elim, &arena, &s)[0], "C <= A /\\ 1 <= 2");
    assert!(elim.fixes.iter().all(|f| f.weight >= best.weight));
    // The cycle C -> A -> 1 -> 2 -> C, with its edge kinds.
    let names: Vec<String> = best.cycle.iter().map(|&e| s.space.name(trace.event(e).loc).to_owned()).collect();
    assert_eq!(names, ["C", "A", "1", "2"]);
    let kinds: Vec<EdgeKind> = best.edges.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EdgeKind::Reorder(Atom::Order(c, a)),
            EdgeKind::Ordering,
            EdgeKind::Keep(Atom::Order(one, two)),
            EdgeKind::Ordering
        ]
    );
    // The atomic alternative [A; C] /\ 1 <= 2 is there too, but costs more than any reorder.
    assert_eq!(texts(&elim, &arena, &s), ["C <= A /\\ 1 <= 2", "1 <= 2 /\\ [A; C]"]);
    assert!(elim.fixes[1].weight > 10 * elim.fixes[0].weight);
    // The bug needs a preemption inside thread 1, so no fix moves the await.
    assert!(!elim.preemption_free_possible);
    assert!(elim.complete);
    // The error-eliminating constraint is the disjunction of the fixes.
    let original = Candidate::original(&s.space);
    assert!(!arena.eval(elim.constraint, &original));
    let moved = candidate(&s, &[&["C", "A", "B"], &["1", "2"]]);
    assert!(arena.eval(elim.constraint, &moved));
}

#[test]
fn example4_partial_order() {
    let s = example4();
    let trace = s.trace_named(&["A", "B", "1", "2", "C"], &[]);
    let po = PartialOrder::from_bad_trace(&trace).unwrap();
    let id = |name: &str| trace.ids().find(|&e| s.space.name(trace.event(e).loc) == name).unwrap();
    assert_eq!(po.failure(), &Failure::Event(id("2")));
    assert_eq!(po.cross_edges(), &[(id("A"), id("1")), (id("2"), id("C"))]);
    assert!(po.precedes(id("A"), id("C")));
    assert!(po.precedes(id("A"), id("2")));
    assert!(!po.precedes(id("B"), id("1")));
    assert!(po.is_linearisation(&[id("A"), id("1"), id("B"), id("2"), id("C")]));
    assert!(!po.is_linearisation(&[id("A"), id("B"), id("C"), id("1"), id("2")]));
    let dot = po.to_dot(&trace, &s.space, &|e| s.space.name(trace.event(e).loc).to_owned());
    assert!(dot.starts_with("digraph partial_order {"));
    assert!(dot.contains(&format!("e{} -> e{} [color=blue];", id("A").as_u32(), id("1").as_u32())));
    assert_eq!(dot, po.to_dot(&trace, &s.space, &|e| s.space.name(trace.event(e).loc).to_owned()));
}

#[test]
fn conflicting_writes_need_an_atomic_section() {
    let s = Setup::new(program(&[&["A: x := 0", "B: x := 1"], &["1: assert(x == 1)"]]));
    let (elim, arena, _) = run(&s, &["A", "1", "B"], &[]);
    assert_eq!(elim.fixes.len(), 1, "{:?}", texts(&elim, &arena, &s));
    assert_eq!(elim.fixes[0].atoms, vec![Atom::atomic(s.loc("A"), s.loc("B"))]);
    assert_eq!(texts(&elim, &arena, &s), ["[A; B]"]);
}

fn figure8() -> Setup {
    Setup::new(program(&[
        &["A: x := 1", "B: y := 1", "C: z := 1"],
        &["1: await(x == 1)", "2: await(y == 1)", "3: assert(z == 1)"],
        &["n: await(z == 1)", "p: assert(y == 1)"],
    ]))
}

#[test]
fn figure8_three_fixes_of_the_paper() {
    let s = figure8();
    // The paper's bad trace A B 1 2 3, run on past the failure so that C's write shows.
    let (elim, arena, _) = run(&s, &["A", "B", "1", "2", "3", "C", "n", "p"], &[]);
    let all = texts(&elim, &arena, &s);
    let (a, b, c) = (s.loc("A"), s.loc("B"), s.loc("C"));
    assert!(elim.fixes.iter().any(|f| f.atoms.contains(&Atom::Order(c, b))), "{all:?}");
    assert!(elim.fixes.iter().any(|f| f.atoms.contains(&Atom::Order(c, a))), "{all:?}");
    // Swap B and C; move C before A; move A after C: each program satisfies a fix.
    for order in [["A", "C", "B"], ["C", "A", "B"], ["B", "C", "A"]] {
        let cand = candidate(&s, &[&order, &["1", "2", "3"], &["n", "p"]]);
        assert!(arena.eval(elim.constraint, &cand), "{order:?} satisfies none of {all:?}");
    }
    // Swapping B and C is the cheapest (one inversion).
    assert!(elim.fixes[0].atoms.contains(&Atom::Order(c, b)), "{all:?}");
    assert!(!arena.eval(elim.constraint, &Candidate::original(&s.space)));
}

#[test]
fn a_trace_that_stops_at_its_failure_shows_no_later_write() {
    let s = figure8();
    let (elim, arena, _) = run(&s, &["A", "B", "1", "2", "3"], &[]);
    // Nothing in the trace says who would write z: no cycle, no repair from this trace.
    assert!(elim.fixes.is_empty());
    assert_eq!(elim.constraint, arena.constant(false));
}

#[test]
fn a_pending_write_stands_in_for_one_the_trace_never_reached() {
    // Example 4 where thread 1 never gets to C: the trace stops at the failure, C is pending.
    let s = example4();
    let trace = s.trace_pending(&["A", "B", "1", "2"], &["C"]);
    let po = PartialOrder::from_bad_trace(&trace).unwrap();
    let c = paces_trace::EventId::from_u32(4);
    assert!(po.is_pending_step(c) && !po.is_blocked_step(c));
    // The failing read of y must come before C's write.
    assert!(po.cross_edges().contains(&(paces_trace::EventId::from_u32(3), c)));
    let mut arena = Arena::new();
    let elim = eliminate(&trace, &s.space, &mut arena, &EliminateConfig::new()).unwrap();
    assert_eq!(texts(&elim, &arena, &s)[0], "C <= A /\\ 1 <= 2");
    // Without the pending step nothing shows who writes y: no fix.
    let (elim, arena, _) = run(&s, &["A", "B", "1", "2"], &[]);
    assert_eq!(elim.constraint, arena.constant(false));
}

/// lc-rc in small: `shut` stops `rsv` (1) and later waits for `neh` to end (6); `neh`'s check
/// P fails once `rsv` is gone. The fix waits first: 6 before 1. Its cycle runs through `neh`'s
/// step R after the failure, which signals `shut`'s wait 6.
#[test]
fn a_signal_after_the_failure_enables_moving_a_step_behind_its_wait() {
    let s = Setup::new(program(&[
        &["1: s := 1", "6: await(n == 1)"],
        &["P: assert(r == 0)", "R: n := 1"],
        &["I: await(s == 1)", "J: r := 1"],
    ]));
    let trace = s.trace_named(&["1", "I", "J", "P", "R", "6"], &[]);
    let po = PartialOrder::from_bad_trace(&trace).unwrap();
    let kept: Vec<&str> = po.events().iter().map(|&e| s.space.name(trace.event(e).loc)).collect();
    assert_eq!(kept, ["1", "I", "J", "P", "R", "6"]);
    // R -> 6 is kept: 6 reads n from R.
    let (r, six) = (paces_trace::EventId::from_u32(4), paces_trace::EventId::from_u32(5));
    assert!(po.cross_edges().contains(&(r, six)));
    let mut arena = Arena::new();
    let elim = eliminate(&trace, &s.space, &mut arena, &EliminateConfig::new().max_constraint_edges(3)).unwrap();
    let (one, six_loc) = (s.loc("1"), s.loc("6"));
    assert!(elim.fixes.iter().any(|f| f.atoms.contains(&Atom::Order(six_loc, one))), "{:?}", texts(&elim, &arena, &s));
    // The fixed order (6 before 1) satisfies the error-eliminating constraint.
    let fixed = candidate(&s, &[&["6", "1"], &["P", "R"], &["I", "J"]]);
    assert!(arena.eval(elim.constraint, &fixed));
    // Without the events after the failure the trace shows no such fix.
    let (short, arena, _) = run(&s, &["1", "I", "J", "P"], &[]);
    assert!(
        short.fixes.iter().all(|f| !f.atoms.contains(&Atom::Order(six_loc, one))),
        "{:?}",
        texts(&short, &arena, &s)
    );
}

/// The overwrite `X` of the failing read comes with its dependencies (`U`, `V`, and `W`, `Q`
/// of the third thread, which `U` and `V` order): context. Their orderings form a cycle once
/// `V` moves before `U`, but that only changes how `X` is reached; `1` still fails on every
/// candidate, so no fix may come from them.
#[test]
fn orderings_among_an_overwrites_dependencies_are_no_fix() {
    let s = Setup::new(program(&[
        &["1: assert(x == 1)"],
        &["U: u := 1", "V: v := 1", "X: x := 1"],
        &["W: await(u == 1)", "Q: assert(v == 0)"],
    ]));
    let (elim, arena, trace) = run(&s, &["U", "W", "Q", "1", "V", "X"], &[]);
    let po = &elim.partial_order;
    let name = |e: paces_trace::EventId| s.space.name(trace.event(e).loc);
    let kept: Vec<&str> = po.events().iter().map(|&e| name(e)).collect();
    assert_eq!(kept, ["U", "W", "Q", "1", "V", "X"]);
    let context: Vec<&str> = po.events().iter().filter(|&&e| po.is_context(e)).map(|&e| name(e)).collect();
    assert_eq!(context, ["U", "W", "Q", "V"]);
    assert!(elim.fixes.is_empty(), "{:?}", texts(&elim, &arena, &s));
    // Indeed every candidate still fails 1: thread 1 may run first.
    let candidates = Candidate::enumerate(&s.space, 10_000).unwrap();
    assert!(candidates.len() > 1);
    for c in &candidates {
        assert!(s.candidate_shows(c, po, &trace));
    }
}

/// After the failing `P`, its thread reads the overwrite `X` (`Q`) before it signals `6`
/// (`R`). The chain `P Q R 6` is kept for rule 4, but how `Q` read `x` says nothing about
/// the failure: with the ordering `X -> Q`, "move 6 before K" closed a cycle, yet `P` still
/// fails on every candidate (its thread may run first).
#[test]
fn how_a_step_after_the_failure_read_its_values_is_no_fix() {
    let s = Setup::new(program(&[
        &["X: x := 2"],
        &["P: assert(x == 1)", "Q: y := x", "R: n := 1"],
        &["K: x := 3", "6: await(n == 1)"],
    ]));
    let (elim, arena, trace) = run(&s, &["P", "K", "X", "Q", "R", "6"], &[]);
    let po = &elim.partial_order;
    let id = |name: &str| *po.events().iter().find(|&&e| s.space.name(trace.event(e).loc) == name).unwrap();
    assert!(po.cross_edges().contains(&(id("X"), id("Q"))));
    assert!(po.is_context_edge(id("X"), id("Q")));
    assert!(!po.is_context_edge(id("R"), id("6")));
    assert!(elim.fixes.is_empty(), "{:?}", texts(&elim, &arena, &s));
    for c in &Candidate::enumerate(&s.space, 10_000).unwrap() {
        assert!(s.candidate_shows(c, po, &trace));
    }
}

#[test]
fn deadlock_is_eliminated_through_its_blocked_awaits() {
    let s = Setup::new(program(&[&["A: f := 1", "1: await(g == 0)"], &["B: g := 1", "2: await(f == 0)"]]));
    let (elim, arena, trace) = run(&s, &["A", "B"], &["1", "2"]);
    assert!(matches!(elim.partial_order.failure(), Failure::Deadlock(b) if b.len() == 2));
    assert!(elim.preemption_free_possible);
    let all = texts(&elim, &arena, &s);
    assert!(all.contains(&"1 <= A".to_owned()), "{all:?}");
    assert!(all.contains(&"2 <= B".to_owned()), "{all:?}");
    let candidates = Candidate::enumerate(&s.space, 10_000).unwrap();
    for fix in &elim.fixes {
        for c in candidates.iter().filter(|c| arena.eval(fix.constraint, c)) {
            assert!(!s.candidate_shows(c, &elim.partial_order, &trace));
        }
    }
    let dot = elim.fix_dot(0, &trace, &s.space, &|e| format!("{e}")).unwrap();
    assert!(dot.contains("style=dashed, penwidth=2"));
}

#[test]
fn good_trace_is_rejected() {
    let s = example4();
    let trace = s.trace_named(&["A", "B", "C", "1", "2"], &[]);
    let err = eliminate(&trace, &s.space, &mut Arena::new(), &EliminateConfig::new()).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::NotBad);
}

#[test]
fn k_bounds_the_constraint_edges() {
    let s = example4();
    let trace = s.trace_named(&["A", "B", "1", "2", "C"], &[]);
    let mut arena = Arena::new();
    let one = eliminate(&trace, &s.space, &mut arena, &EliminateConfig::new().max_constraint_edges(1)).unwrap();
    assert!(one.fixes.is_empty());
    let none = eliminate(&trace, &s.space, &mut arena, &EliminateConfig::new().max_constraint_edges(0)).unwrap();
    assert_eq!(none.constraint, arena.constant(false));
}

#[test]
fn a_space_that_does_not_match_the_trace_is_an_error() {
    let s = example4();
    let trace = s.trace_named(&["A", "B", "1", "2", "C"], &[]);
    // The same location names, each in a block of its own.
    let mut b = paces_constraint::SpaceBuilder::new();
    for name in ["A", "B", "C", "1", "2"] {
        let block = b.block(false);
        let loc = b.loc(name).unwrap();
        b.item(block, loc, paces_constraint::ItemInfo::SIMPLE).unwrap();
    }
    let other = b.build().unwrap();
    let err = eliminate(&trace, &other, &mut Arena::new(), &EliminateConfig::new()).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::SpaceMismatch);
    assert!(err.to_string().contains("not items of one block"), "{err}");
}

#[test]
fn a_block_closed_to_atomic_sections_gets_none() {
    // The [A; B] example, with thread 1 inside a user-written atomic block: no fix is left.
    let mut b = paces_constraint::SpaceBuilder::new();
    let t1 = b.block(true);
    let t2 = b.block(false);
    let [a, bb, one] = ["A", "B", "1"].map(|n| b.loc(n).unwrap());
    b.item(t1, a, paces_constraint::ItemInfo::SIMPLE).unwrap();
    b.item(t1, bb, paces_constraint::ItemInfo::SIMPLE).unwrap();
    b.fix(a, bb).unwrap();
    b.item(t2, one, paces_constraint::ItemInfo::SIMPLE).unwrap();
    let space = b.build().unwrap();
    let s = Setup::new(program(&[&["A: x := 0", "B: x := 1"], &["1: assert(x == 1)"]]));
    let trace = s.trace_named(&["A", "1", "B"], &[]);
    let mut arena = Arena::new();
    let elim = eliminate(&trace, &space, &mut arena, &EliminateConfig::new()).unwrap();
    assert!(elim.fixes.is_empty());
    assert_eq!(elim.constraint, arena.constant(false));
}

#[test]
fn an_item_kept_out_of_sections_gets_none() {
    // The [A; B] example in an open block, with B kept out of sections (as a thread's start
    // is): no section may hold it, and the order of A and B is fixed, so no fix is left; with
    // B not kept, the section [A; B] is the fix.
    let space = |kept: bool| {
        let mut b = paces_constraint::SpaceBuilder::new();
        let (t1, t2) = (b.block(false), b.block(false));
        let [a, bb, one] = ["A", "B", "1"].map(|n| b.loc(n).unwrap());
        let info = paces_constraint::ItemInfo::SIMPLE;
        b.item(t1, a, info).unwrap();
        b.item(t1, bb, if kept { info.never_in_section() } else { info }).unwrap();
        b.fix(a, bb).unwrap();
        b.item(t2, one, info).unwrap();
        b.build().unwrap()
    };
    let s = Setup::new(program(&[&["A: x := 0", "B: x := 1"], &["1: assert(x == 1)"]]));
    let trace = s.trace_named(&["A", "1", "B"], &[]);
    let mut arena = Arena::new();
    let elim = eliminate(&trace, &space(true), &mut arena, &EliminateConfig::new()).unwrap();
    assert!(elim.fixes.is_empty());
    assert_eq!(elim.constraint, arena.constant(false));
    let elim = eliminate(&trace, &space(false), &mut arena, &EliminateConfig::new()).unwrap();
    assert_eq!(elim.fixes.len(), 1);
}

/// Thread 0: `L: loop { s: x := x + 1 }`, run twice, then `M: y := 1` when `after` is set;
/// thread 1: `1: assert(x != 1)`, run between the two iterations. The space, the locations
/// L, s, M (when there) and 1, and the trace.
fn loop_twice(after: bool) -> (paces_constraint::Space, Vec<paces_constraint::Loc>, paces_trace::Trace) {
    use paces_constraint::{ItemInfo, SpaceBuilder};
    use paces_trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, TraceBuilder, VarId};
    let mut b = SpaceBuilder::new();
    let (top, body, t2) = (b.block(false), b.block(false), b.block(false));
    let names: &[&str] = if after { &["L", "s", "M", "1"] } else { &["L", "s", "1"] };
    let locs: Vec<_> = names.iter().map(|n| b.loc(n).unwrap()).collect();
    let (l, st, one) = (locs[0], locs[1], locs[locs.len() - 1]);
    b.item(top, l, ItemInfo::SIMPLE).unwrap();
    if after {
        b.item(top, locs[2], ItemInfo::SIMPLE).unwrap();
    }
    b.item(body, st, ItemInfo::SIMPLE).unwrap();
    b.item(t2, one, ItemInfo::SIMPLE).unwrap();
    let space = b.build().unwrap();
    let inst = |block, instance| BlockInstance { block, instance };
    let iteration =
        |k| vec![ScopeEntry { instance: inst(top, 0), item: l }, ScopeEntry { instance: inst(body, k), item: st }];
    let x = VarId::from_u32(0);
    let mut tb = TraceBuilder::new();
    tb.step(ThreadId::from_u32(0), st, iteration(1)).read(x).write(x, 1).push().unwrap();
    let one_scope = vec![ScopeEntry { instance: inst(t2, 0), item: one }];
    tb.step(ThreadId::from_u32(1), one, one_scope).kind(EventKind::Assert).read(x).failed(true).push().unwrap();
    tb.step(ThreadId::from_u32(0), st, iteration(2)).read(x).write(x, 2).push().unwrap();
    (space, locs, tb.finish())
}

#[test]
fn iterations_of_a_loop_never_change_order() {
    let (space, _, trace) = loop_twice(false);
    let mut arena = Arena::new();
    let elim = eliminate(&trace, &space, &mut arena, &EliminateConfig::new()).unwrap();
    // The assertion needs to run between the two iterations; the loop is alone in its block,
    // so no section can hold it: nothing can prevent that here.
    assert_eq!(elim.partial_order.len(), 3);
    assert_eq!(elim.partial_order.cross_edges().len(), 2);
    assert!(elim.fixes.is_empty());
    assert_eq!(elim.constraint, arena.constant(false));
}

#[test]
fn steps_of_one_item_are_held_together_by_a_section_around_it() {
    // With an item after the loop, a section over the loop and M keeps both iterations
    // together, so the assertion cannot see x == 1.
    let (space, locs, trace) = loop_twice(true);
    let (l, st, m, one) = (locs[0], locs[1], locs[2], locs[3]);
    let mut arena = Arena::new();
    let elim = eliminate(&trace, &space, &mut arena, &EliminateConfig::new()).unwrap();
    let fixes: Vec<String> = elim.fixes.iter().map(|f| arena.display(f.constraint, &space, 200).to_string()).collect();
    assert_eq!(fixes, ["[L; M]"]);
    let with = Candidate::new(&space, vec![vec![l, m], vec![st], vec![one]], &[(l, m)]).unwrap();
    assert!(arena.eval(elim.constraint, &with));
    assert!(!arena.eval(elim.constraint, &Candidate::original(&space)));
}

#[test]
fn a_memory_limit_refuses_large_graphs() {
    let s = example4();
    let trace = s.trace_named(&["A", "B", "1", "2", "C"], &[]);
    let config = EliminateConfig::new().max_memory(8);
    let err = eliminate(&trace, &s.space, &mut Arena::new(), &config).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::TooLarge);
}

/// usb-serial in small: `a` takes `m` (A0), sets `x` (A1) and then waits for `w` to clear (A2); the failing
/// check C2 reads `x`, and its thread then signals `d` (C3, D1), which needs `m` (D0) before
/// its pending write D2, what A2 waits for. The fix waits first: A2 before A1. Its cycle runs through the pending steps
/// of two threads (D2, then A2 waiting for it), which come in the partial order in an order
/// their orderings respect.
#[test]
fn a_pending_wait_for_a_pending_write_after_the_failure_enables_moving_it_up() {
    let s = Setup::new(program(&[
        &["A0: m := 1", "A1: x := 1", "A2: await(w == 0)"],
        &["B1: w := 1", "B2: c := 1"],
        &["C1: await(c == 1)", "C2: assert(x == 0)", "C3: s := 1"],
        &["D1: await(s == 1)", "D0: await(m == 0)", "D2: w := 0"],
    ]));
    let steps = ["B1", "B2", "A0", "A1", "C1", "C2", "C3", "D1"];
    let trace = s.trace_pending(&steps, &["A2", "D0", "D2"]);
    let po = PartialOrder::from_bad_trace(&trace).unwrap();
    let (a2, d2) = (paces_trace::EventId::from_u32(8), paces_trace::EventId::from_u32(10));
    assert!(po.is_pending_step(a2) && po.is_pending_step(d2));
    // A2 waits for D2's write: the ordering is kept, and D2 comes first among the nodes.
    assert!(po.cross_edges().contains(&(d2, a2)));
    let at = |e| po.events().iter().position(|&x| x == e).unwrap();
    assert!(at(d2) < at(a2));
    // The cycle keeps the order of three independent pairs (C2 C3, D1 D0, D0 D2): K = 4.
    let config = EliminateConfig::new().max_constraint_edges(4);
    let mut arena = Arena::new();
    let elim = eliminate(&trace, &s.space, &mut arena, &config).unwrap();
    let (a1_loc, a2_loc) = (s.loc("A1"), s.loc("A2"));
    assert!(
        elim.fixes.iter().any(|f| f.atoms.contains(&Atom::Order(a2_loc, a1_loc))),
        "{:?}",
        texts(&elim, &arena, &s)
    );
    let fixed = candidate(&s, &[&["A0", "A2", "A1"], &["B1", "B2"], &["C1", "C2", "C3"], &["D1", "D0", "D2"]]);
    assert!(arena.eval(elim.constraint, &fixed));
    // Without the pending steps nothing shows what A2 waits for.
    let mut arena = Arena::new();
    let short = eliminate(&s.trace_named(&steps, &[]), &s.space, &mut arena, &config).unwrap();
    assert!(
        short.fixes.iter().all(|f| !f.atoms.contains(&Atom::Order(a2_loc, a1_loc))),
        "{:?}",
        texts(&short, &arena, &s)
    );
}
