//! The IR of known programs: labels, effects, commute pairs, the space, applying candidates,
//! and the held-in benchmarks.

use expect_test::expect;
use paces_constraint::{Candidate, Waits};
use paces_cwhile::{parse, Printer, Program};

#[track_caller]
fn program(src: &str) -> Program {
    parse(src).unwrap_or_else(|d| panic!("{}", paces_cwhile::render(&d, "test.cw", src, false)))
}

fn names(p: &Program, vs: &[paces_cwhile::ir::VarIdx]) -> Vec<String> {
    vs.iter().map(|v| p.vars[v.index()].name.clone()).collect()
}

#[test]
fn figure7_labels_effects_and_commute_pairs() {
    let p = program(paces_heldin::source("paper1"));
    // Every location in pre-order; no sugar, so no derived steps.
    assert_eq!(p.loc_names, ["A", "B", "C", "1", "2", "3", "n", "p"]);
    assert_eq!(p.global_count(), 3);
    let expected: [(&str, &[&str], &[&str]); 8] = [
        ("A", &[], &["x"]),
        ("B", &[], &["y"]),
        ("C", &[], &["z"]),
        ("1", &["x"], &[]),
        ("2", &["y"], &[]),
        ("3", &["z"], &[]),
        ("n", &["z"], &[]),
        ("p", &["y"], &[]),
    ];
    for (label, reads, writes) in expected {
        let loc = p.loc(label).unwrap();
        assert_eq!(loc.index(), p.loc_names.iter().position(|n| n == label).unwrap());
        let s = p.stmt_at(loc).unwrap();
        assert_eq!(p.stmt(s).label, label);
        assert!(p.stmt(s).explicit_label);
        assert_eq!(names(&p, p.reads(s)), reads, "reads of {label}");
        assert_eq!(names(&p, p.writes(s)), writes, "writes of {label}");
        assert_eq!(p.weight(s), 1);
    }
    let id = |l: &str| p.stmt_at(p.loc(l).unwrap()).unwrap();
    // Thread 1 writes disjoint variables: every pair commutes.
    assert!(p.commutes(id("A"), id("B")) && p.commutes(id("B"), id("C")) && p.commutes(id("A"), id("C")));
    // Awaits only read: they commute with each other; an assert keeps its place, so it
    // commutes with nothing.
    assert!(p.commutes(id("1"), id("2")));
    assert!(!p.commutes(id("2"), id("3")) && !p.commutes(id("1"), id("3")) && !p.commutes(id("n"), id("p")));
    // Across threads, the conflicts are the shared variables.
    assert!(!p.commutes(id("A"), id("1")));
    assert!(!p.commutes(id("C"), id("n")));
    assert!(p.commutes(id("A"), id("n")));
    // Roles: awaits open sections, the rest is free.
    assert_eq!(p.waits(id("1")), Waits::First);
    assert_eq!(p.waits(id("3")), Waits::Never);
    // The space: ids coincide; the only fixed pairs tie each assert to the item before it.
    let space = p.space();
    assert_eq!(space.loc_count(), 8);
    for (i, name) in p.loc_names.iter().enumerate() {
        assert_eq!(space.name(paces_constraint::Loc::from_u32(i as u32)), name);
    }
    assert_eq!(space.block_count(), 3);
    let fixed: Vec<(String, String)> = space
        .blocks()
        .flat_map(|b| space.fixed_pairs(b).collect::<Vec<_>>())
        .map(|(x, y)| (space.name(x).to_owned(), space.name(y).to_owned()))
        .collect();
    let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    assert_eq!(fixed, [pair("1", "3"), pair("2", "3"), pair("n", "p")]);
    assert!(space.is_preemption_point(p.loc("n").unwrap()));
}

#[test]
fn generated_and_derived_labels() {
    let src = "var x, m;\nproc f {\n  x := 2;\n}\nthread t {\n  if (x == 0) {\n    x := 1;\n  }\n  while (*) {\n    lock(m);\n    f();\n    unlock(m);\n  }\n  L: down(m);\n  up(m);\n}\n";
    let p = program(src);
    expect![[r#"
        [
            "f.0",
            "t.0",
            "t.0.then",
            "t.0.else",
            "t.1",
            "t.2",
            "t.3",
            "t.3.wait",
            "t.3.set",
            "t.4",
            "t.5",
            "L",
            "L.wait",
            "L.set",
            "t.7",
        ]
    "#]]
    .assert_debug_eq(&p.loc_names);
    let loc = |l: &str| p.loc(l).unwrap();
    // Derived steps are locations but not statements.
    assert!(p.stmt_at(loc("t.0.then")).is_none());
    assert!(p.stmt_at(loc("t.3.wait")).is_none());
    let t0 = p.stmt_at(loc("t.0")).unwrap();
    assert!(!p.stmt(t0).explicit_label);
    // `if (x == 0)`: reads x (guard), writes x; weight = 2 guards + 1.
    assert_eq!(names(&p, p.reads(t0)), ["x"]);
    assert_eq!(p.weight(t0), 3);
    // The loop holds lock (weight 2), the call (1), unlock (1); its await is not first.
    // Pre-order: the statement inside the `if` is `t.1`, the loop after it `t.2`.
    assert_eq!(p.block(p.stmt(p.stmt_at(loc("t.1")).unwrap()).block).parent, Some(t0));
    let w = p.stmt_at(loc("t.2")).unwrap();
    assert_eq!(p.weight(w), 4);
    assert_eq!(names(&p, p.reads(w)), ["m"]);
    assert_eq!(names(&p, p.writes(w)), ["x", "m"]);
    assert_eq!(p.waits(w), Waits::Inside);
    let l = p.stmt_at(loc("L")).unwrap();
    assert_eq!(p.waits(l), Waits::First);
    assert_eq!(p.weight(l), 2);
    assert!(!p.commutes(w, l));
    // The printed form names every label and round-trips.
    let printed = Printer::new(&p).print();
    expect![[r#"
        var x = 0, m = 0;

        proc f {
          f.0: x := 2;
        }

        thread t {
          t.0: if (x == 0) {
            t.1: x := 1;
          }
          t.2: while (*) {
            t.3: lock(m);
            t.4: f();
            t.5: unlock(m);
          }
          L: down(m);
          t.7: up(m);
        }
    "#]]
    .assert_eq(&printed);
    assert_eq!(Printer::new(&program(&printed)).print(), printed);
}

#[test]
fn noreorder_fixes_every_pair() {
    let p = program("var x, y;\nthread t {\n  N: noreorder {\n    a: x := 1;\n    b: y := 1;\n  }\n  c: skip;\n}\n");
    let space = p.space();
    let id = |l: &str| p.stmt_at(p.loc(l).unwrap()).unwrap();
    assert!(!p.commutes(id("a"), id("b")));
    assert!(space.is_fixed(p.loc("a").unwrap(), p.loc("b").unwrap()));
    assert!(p.commutes(id("N"), id("c")));
}

#[test]
fn heldin_programs_parse_print_and_round_trip() {
    assert_eq!(paces_heldin::NAMES.len(), 12);
    for &name in paces_heldin::NAMES {
        let p = program(paces_heldin::source(name));
        let printed = Printer::new(&p).print();
        let again = program(&printed);
        assert_eq!(Printer::new(&again).print(), printed, "{name}");
        // Labels, locations and effects survive printing.
        assert_eq!(again.loc_names, p.loc_names, "{name}");
        assert_eq!(again.stmts.len(), p.stmts.len());
        for i in 0..p.stmts.len() {
            let s = paces_cwhile::ir::StmtId::from_u32(i as u32);
            assert_eq!(again.reads(s), p.reads(s));
            assert_eq!(again.writes(s), p.writes(s));
        }
        // The original candidate gives back the same program.
        let space = p.space();
        let same = p.apply(&Candidate::original(&space)).unwrap();
        assert_eq!(Printer::new(&same).print(), printed, "{name}");
        assert!(!paces_cwhile::to_promela(&p, paces_heldin::source(name)).unwrap().is_empty());
    }
}

#[test]
fn apply_reorder_and_atomic_section() {
    let p = program(paces_heldin::source("paper1"));
    let space = p.space();
    let l = |n: &str| p.loc(n).unwrap();
    // The paper's fix: B; C; A. Plus an atomic section [n; p] in thread3.
    let orders = vec![vec![l("B"), l("C"), l("A")], vec![l("1"), l("2"), l("3")], vec![l("n"), l("p")]];
    let c = Candidate::new(&space, orders, &[(l("n"), l("p"))]).unwrap();
    let q = p.apply(&c).unwrap();
    expect![[r#"
        var x = 0, y = 0, z = 0;

        thread thread1 {
          B: y := 1;
          C: z := 1;
          A: x := 1;
        }

        thread thread2 {
          1: await(x == 1);
          2: await(y == 1);
          3: assert(z == 1);
        }

        thread thread3 {
          atomic_n: atomic {
            n: await(z == 1);
            p: assert(y == 1);
          }
        }
    "#]]
    .assert_eq(&Printer::new(&q).print());
    let a = q.stmt_at(q.loc("atomic_n").unwrap()).unwrap();
    assert!(!q.stmt(a).explicit_label);
    // The new program's space closes the new atomic body.
    let body = q.stmt(q.stmt_at(q.loc("n").unwrap()).unwrap()).block;
    assert!(q.is_closed(body));
    assert_eq!(Printer::new(&program(&Printer::new(&q).print())).print(), Printer::new(&q).print());
}

#[test]
fn apply_names_sections_uniquely() {
    let p = program("var x, y;\nthread t {\n  a: x := 1;\n  b: y := 1;\n  atomic_a: skip;\n}\n");
    let space = p.space();
    let l = |n: &str| p.loc(n).unwrap();
    let c = Candidate::new(&space, vec![vec![l("a"), l("b"), l("atomic_a")]], &[(l("a"), l("b"))]).unwrap();
    let q = p.apply(&c).unwrap();
    assert!(q.loc("atomic_a_2").is_some(), "{}", Printer::new(&q).print());
}

#[test]
fn apply_rejects_a_foreign_candidate() {
    let p = program(paces_heldin::source("paper1"));
    let other = program("thread t { a: skip; b: skip; }");
    let c = Candidate::original(&other.space());
    let e = p.apply(&c).unwrap_err();
    assert_eq!(e.kind(), &paces_cwhile::ErrorKind::InvalidCandidate);
}

#[test]
fn where_items_wait_and_which_are_atomic() {
    let p = program(
        "var m, x;\nproc w { await(x == 1); x := 0; }\nproc late { x := 1; await(x == 1); }\nthread t {\n  a: w();\n  b: late();\n  c: atomic { await(x == 1); x := 2; }\n  d: if (*) { await(x == 1); }\n  e: noreorder { skip; lock(m); }\n  f: noreorder { }\n}\n",
    );
    let role = |l: &str| p.waits(p.stmt_at(p.loc(l).unwrap()).unwrap());
    let atomic = |l: &str| p.is_atomic(p.stmt_at(p.loc(l).unwrap()).unwrap());
    // Calls of two-step procedures, an `if` and a two-step `noreorder` take sections alone;
    // the user's `atomic` block and the empty `noreorder` run as one step.
    assert_eq!(["a", "b", "c", "d", "e", "f"].map(atomic), [false, false, true, false, false, true]);
    assert_eq!(role("a"), Waits::First);
    assert_eq!(role("b"), Waits::Inside);
    assert_eq!(role("c"), Waits::First);
    assert_eq!(role("d"), Waits::Inside);
    assert_eq!(role("e"), Waits::Inside);
    assert_eq!(role("f"), Waits::Never);
    let id = |l: &str| p.stmt_at(p.loc(l).unwrap()).unwrap();
    assert!(p.is_preemption_point(id("a")) && p.is_preemption_point(id("d")) && !p.is_preemption_point(id("f")));
    assert_eq!(p.weight(p.stmt_at(p.loc("f").unwrap()).unwrap()), 0);
    let simple = program(
        "var m, x;\nthread t {\n  a: x := 1;\n  b: lock(m);\n  c: noreorder { lock(m); }\n  d: await(x == 1);\n}\n",
    );
    let atomic = |l: &str| simple.is_atomic(simple.stmt_at(simple.loc(l).unwrap()).unwrap());
    assert_eq!(["a", "b", "c", "d"].map(atomic), [true; 4]);
}

/// The check-then-act `if` of two threads, alone in its block.
const CHECK_THEN_ACT: &str = "var claimed = 0, owners = 0;\nthread a {\n  i: if (claimed == 0) {\n    s: claimed := 1;\n    o: owners := owners + 1;\n  }\n}\nthread b {\n  j: if (claimed == 0) {\n    t: claimed := 1;\n    u: owners := owners + 1;\n  }\n}\n";

#[test]
fn apply_a_one_item_section_around_an_if() {
    let p = program(CHECK_THEN_ACT);
    let space = p.space();
    let l = |n: &str| p.loc(n).unwrap();
    assert!(space.takes_section_alone(l("i")) && !space.takes_section_alone(l("s")));
    let orders = space.blocks().map(|b| space.items(b).to_vec()).collect();
    let c = Candidate::new(&space, orders, &[(l("i"), l("i"))]).unwrap();
    assert_eq!(c.cost(&space).atomic_weight, 4);
    let q = p.apply(&c).unwrap();
    expect![[r#"
        var claimed = 0, owners = 0;

        thread a {
          atomic_i: atomic {
            i: if (claimed == 0) {
              s: claimed := 1;
              o: owners := owners + 1;
            }
          }
        }

        thread b {
          j: if (claimed == 0) {
            t: claimed := 1;
            u: owners := owners + 1;
          }
        }
    "#]]
    .assert_eq(&Printer::new(&q).print());
    assert_eq!(Printer::new(&program(&Printer::new(&q).print())).print(), Printer::new(&q).print());
    // Applied, the `if` lies in a closed block and runs as one step.
    let atomic = q.stmt_at(q.loc("atomic_i").unwrap()).unwrap();
    assert!(q.is_atomic(atomic));
    assert!(q.is_closed(q.stmt(q.stmt_at(q.loc("i").unwrap()).unwrap()).block));
}

#[test]
fn apply_a_section_holding_an_await_in_the_middle() {
    let p = program("var x = 0, y = 0;\nthread t {\n  a: x := 1;\n  w: await(y == 1);\n  b: x := 2;\n}\nthread u {\n  c: y := 1;\n}\n");
    let space = p.space();
    let l = |n: &str| p.loc(n).unwrap();
    let orders = space.blocks().map(|b| space.items(b).to_vec()).collect();
    let c = Candidate::new(&space, orders, &[(l("a"), l("b"))]).unwrap();
    let q = p.apply(&c).unwrap();
    expect![[r#"
        var x = 0, y = 0;

        thread t {
          atomic_a: atomic {
            a: x := 1;
            w: await(y == 1);
            b: x := 2;
          }
        }

        thread u {
          c: y := 1;
        }
    "#]]
    .assert_eq(&Printer::new(&q).print());
    assert_eq!(Printer::new(&program(&Printer::new(&q).print())).print(), Printer::new(&q).print());
}

#[test]
fn loops_inside_an_added_section_are_found_through_calls() {
    let p = program(
        "var x = 0;\nproc spin {\n  while (*) {\n    x := x;\n  }\n}\nthread t {\n  A: x := 1;\n  B: spin();\n  C: if (*) {\n    x := 2;\n  }\n}\nthread u {\n  D: atomic {\n    while (*) {\n      x := 3;\n    }\n  }\n  E: x := 4;\n}\n",
    );
    let loc = |label: &str| p.loc(label).unwrap();
    let holds = |label: &str| p.holds_loop(p.stmt_at(loc(label)).unwrap());
    assert_eq!([holds("A"), holds("B"), holds("C"), holds("D"), holds("E")], [false, true, false, true, false]);
    let space = p.space();
    let orders = space.blocks().map(|b| space.items(b).to_vec()).collect();
    let candidate = Candidate::new(&space, orders, &[(loc("A"), loc("C"))]).unwrap();
    let applied = p.apply(&candidate).unwrap();
    assert_eq!(applied.loops_in_added_section(&p, "atomic_A"), [loc("B")]);
    // A user-written atomic block is no added section; a label of no atomic block names none.
    assert!(applied.loops_in_added_section(&p, "D").is_empty());
    assert!(applied.loops_in_added_section(&p, "E").is_empty());
    assert!(applied.loops_in_added_section(&p, "nowhere").is_empty());
}

/// A program taken apart, changed and built again answers from its new parts, although the
/// old one had computed its facts.
#[test]
fn a_rebuilt_program_answers_from_its_new_parts() {
    let p = program("var x, y;\nthread t { a: x := 1; b: y := 1; }");
    let a = p.stmt_at(p.loc("a").unwrap()).unwrap();
    assert_eq!(names(&p, p.writes(a)), ["x"]);
    let write_y = p.stmt(p.stmt_at(p.loc("b").unwrap()).unwrap()).kind.clone();
    let mut parts = p.clone().into_parts();
    parts.stmts[a.index()].kind = write_y;
    parts.loc_names[0] = "c".to_owned();
    let q = Program::new(parts);
    assert_eq!(names(&q, q.writes(a)), ["y"]);
    assert_eq!(q.loc("a"), None);
    assert_eq!(q.stmt_at(q.loc("c").unwrap()), Some(a));
    assert_ne!(p, q);
}

/// A program built by hand from empty parts has no statement and an empty space.
#[test]
fn a_program_from_empty_parts() {
    let p = Program::new(paces_cwhile::ir::Parts::default());
    assert_eq!(p.global_count(), 0);
    assert_eq!(p.loc("a"), None);
    assert_eq!(p.space().blocks().count(), 0);
    assert_eq!(Program::new(p.clone().into_parts()), p);
}

/// `src` with the statements labelled `marks` marked as the threads' structure.
fn with_thread_structure(src: &str, marks: &[&str]) -> Program {
    let p = program(src);
    let ids: Vec<_> = marks.iter().map(|m| p.stmt_at(p.loc(m).expect("a label")).expect("a statement")).collect();
    let mut parts = p.into_parts();
    parts.thread_structure.extend(ids);
    Program::new(parts)
}

/// The items that start and join threads keep their order with each other and with every call,
/// branch, loop and wait of their block, and no section holds them (nor an item holding one);
/// assignments stay free across them, by the commute rule alone. Unmarked, the same program
/// lets them move and puts them in sections.
#[test]
fn the_threads_structure_keeps_its_place_in_the_space() {
    let src = "var x = 0, y = 0, s1 = 0, d1 = 0, s2 = 0, d2 = 0, m = 0;\n\
        thread main {\n  a: x := 1;\n  c1: s1 := 1;\n  b: y := 2;\n  f: work();\n  c2: s2 := 1;\n  \
        w: while (*) { c3: s2 := 1; }\n  l: lock(m);\n  u: unlock(m);\n  j1: await(d1 == 1);\n  j2: await(d2 == 1);\n}\n\
        thread t1 { await(s1 == 1); d1 := 1; }\nthread t2 { await(s2 == 1); d2 := 1; }\nproc work { skip; }\n";
    let plain = program(src);
    let pinned = with_thread_structure(src, &["c1", "c2", "c3", "j1", "j2"]);
    let at = |p: &Program, l: &str| p.loc(l).unwrap();
    let (space, free) = (pinned.space(), plain.space());
    let structural = ["c1", "f", "c2", "w", "l", "u", "j1", "j2"];
    for (i, x) in structural.iter().enumerate() {
        for y in &structural[i + 1..] {
            assert!(space.is_fixed(at(&pinned, x), at(&pinned, y)), "{x} before {y}");
        }
    }
    // Unmarked, a create moves across a call, a wait and a join; the space lists such orders.
    assert!(free.may_change_order(at(&plain, "c1"), at(&plain, "f")));
    assert!(free.may_change_order(at(&plain, "c2"), at(&plain, "j1")));
    // The assignments stay free across the creates: `a` may move below `c1`, `b` above it.
    assert!(space.may_change_order(at(&pinned, "a"), at(&pinned, "c1")));
    assert!(space.may_change_order(at(&pinned, "b"), at(&pinned, "c1")));
    assert!(space.may_change_order(at(&pinned, "b"), at(&pinned, "c2")));
    // The creates, the joins and the loop that holds a create hold the structure and take no
    // section; the rest do.
    for l in ["c1", "c2", "w", "c3", "j1", "j2"] {
        assert!(pinned.holds_thread_structure(pinned.stmt_at(at(&pinned, l)).unwrap()), "{l}");
        assert!(!space.may_be_in_section(at(&pinned, l)), "{l}");
    }
    for l in ["a", "b", "f", "l", "u"] {
        assert!(!pinned.holds_thread_structure(pinned.stmt_at(at(&pinned, l)).unwrap()), "{l}");
        assert!(space.may_be_in_section(at(&pinned, l)), "{l}");
    }
    assert!(free.may_be_in_section(at(&plain, "c1")));
    let dump = pinned.dump();
    assert!(dump.contains("fixed [") && dump.contains("], no section [c1, c2, w, j1, j2]"), "{dump}");
    assert!(dump.lines().any(|l| l.contains(" c1 ") && l.ends_with("waits never atomic thread")), "{dump}");
    assert!(dump.lines().any(|l| l.contains(" a ") && l.ends_with("waits never atomic")), "{dump}");
    // A candidate that moves a create across a call is refused; one that moves an assignment
    // above a create is a candidate.
    let main = space.block_of(at(&pinned, "c1")).unwrap();
    let orders_with = |order: &[&str]| -> Vec<Vec<paces_constraint::Loc>> {
        space
            .blocks()
            .map(|b| if b == main { order.iter().map(|l| at(&pinned, l)).collect() } else { space.items(b).to_vec() })
            .collect()
    };
    let across_call = orders_with(&["a", "b", "f", "c1", "c2", "w", "l", "u", "j1", "j2"]);
    assert!(Candidate::new(&space, across_call, &[]).is_err());
    let up = orders_with(&["a", "b", "c1", "f", "c2", "w", "l", "u", "j1", "j2"]);
    let moved = Candidate::new(&space, up.clone(), &[]).expect("b moves above c1");
    // A section may hold the assignments, never a create.
    let (a, b, c1) = (at(&pinned, "a"), at(&pinned, "b"), at(&pinned, "c1"));
    assert!(Candidate::new(&space, up.clone(), &[(a, b)]).is_ok());
    assert!(Candidate::new(&space, up, &[(b, c1)]).is_err());
    // A candidate applied keeps the marks, under the same labels.
    let applied = pinned.apply(&moved).unwrap();
    let marked: Vec<&str> = applied.thread_structure.iter().map(|&s| applied.stmt(s).label.as_str()).collect();
    assert_eq!(marked, ["c1", "c2", "c3", "j1", "j2"]);
    assert!(program(src).thread_structure.is_empty(), "Cwhile text marks nothing");
}
