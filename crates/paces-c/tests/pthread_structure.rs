//! The threads' structure is not the repair's to change: `pthread_create` and `pthread_join`
//! keep their order with each other and with every call, loop, branch and wait of their block,
//! and no added atomic section holds one (`docs/c-frontend.md`, "The threads' structure").
//! Assignments may still move across them. Checked on the space of hand-written programs, on
//! the repairs the loop returns, and on the spaces and candidates of generated programs.

use paces::constraint::{Candidate, Loc, Space};
use paces::Repair;
use paces_c::pthread::{parse, Options, Reading};
use paces_cwhile::ir::StmtKind;
use paces_cwhile::Program;
use proptest::prelude::*;

fn read_source(name: &str, source: &str) -> Reading {
    match parse(source, &Options::default()) {
        Ok(r) => r,
        Err(d) => panic!("{name}: {}", paces_cwhile::render(&d, name, source, false)),
    }
}

fn read(name: &str) -> (Reading, String) {
    let path = format!("{}/tests/pthread/{name}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("test program");
    (read_source(name, &source), source)
}

/// The label of the statement on the first line of `source` that contains `needle` (labels
/// are line numbers).
fn line_of(source: &str, needle: &str) -> String {
    let line = source.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("`{needle}` in the source"));
    (line + 1).to_string()
}

/// The top-level items of `main` in a program, in order, each with whether an atomic section
/// the repair added holds it.
fn main_items(p: &Program) -> Vec<(String, bool)> {
    let main = p.threads.iter().find(|t| t.name == "main").expect("a main thread");
    let mut out = Vec::new();
    for &item in &p.block(main.body).items {
        let s = p.stmt(item);
        match s.kind {
            StmtKind::Atomic(body) if s.label.starts_with("atomic_") => {
                out.extend(p.block(body).items.iter().map(|&i| (p.stmt(i).label.clone(), true)));
            }
            _ => out.push((s.label.clone(), false)),
        }
    }
    out
}

/// Repairs the program with the library's loop; the repaired program.
fn repair(reading: &Reading) -> Program {
    let report = Repair::new().run(&reading.program).expect("the loop runs");
    assert_eq!(report.stop, paces::StopReason::Repaired, "{:?}", report.stop);
    report.repaired.expect("a repaired program")
}

/// The position of `label` among `main`'s items.
fn at(items: &[(String, bool)], label: &str) -> usize {
    items.iter().position(|(l, _)| l == label).unwrap_or_else(|| panic!("`{label}` in {items:?}"))
}

/// Whether an added section holds one of `labels`.
fn in_section(items: &[(String, bool)], labels: &[&str]) -> bool {
    items.iter().any(|(l, held)| *held && labels.contains(&l.as_str()))
}

/// The program with no statement marked as the threads' structure: what the space was before.
fn unmarked(p: &Program) -> Program {
    let mut parts = p.clone().into_parts();
    parts.thread_structure.clear();
    Program::new(parts)
}

/// Two threads take two mutexes in opposite orders (a deadlock). Running them one after the
/// other (the second create below the first join) would remove it; the repair must change the
/// threads' code instead.
#[test]
fn abba_keeps_both_creates_above_both_joins() {
    let (r, source) = read("abba.c");
    let (create_r, join_l) = (line_of(&source, "pthread_create(&r"), line_of(&source, "pthread_join(l"));
    let p = &r.program;
    let loc = |l: &str| p.loc(l).expect("a label");
    // Unmarked, the space lets the create move below the join; marked, it does not.
    assert!(unmarked(p).space().may_change_order(loc(&create_r), loc(&join_l)));
    let space = p.space();
    assert!(space.is_fixed(loc(&create_r), loc(&join_l)));
    let items = main_items(&repair(&r));
    let structure: Vec<String> = ["pthread_create(&l", "pthread_create(&r", "pthread_join(l", "pthread_join(r"]
        .iter()
        .map(|n| line_of(&source, n))
        .collect();
    let positions: Vec<usize> = structure.iter().map(|l| at(&items, l)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{items:?}");
    let labels: Vec<&str> = structure.iter().map(String::as_str).collect();
    assert!(!in_section(&items, &labels), "{items:?}");
}

/// Three clerks sell two seats (check, then act): the repair keeps create, create, create,
/// join, join, join and makes the clerk's check and sale one atomic step.
#[test]
fn three_clerks_keep_their_threads_and_get_a_section() {
    let (r, source) = read("clerks.c");
    let repaired = repair(&r);
    let items = main_items(&repaired);
    let structure: Vec<String> =
        ["(&a, 0", "(&b, 0", "(&c, 0", "join(a", "join(b", "join(c"].iter().map(|n| line_of(&source, n)).collect();
    let positions: Vec<usize> = structure.iter().map(|l| at(&items, l)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{items:?}");
    assert!(!items.iter().any(|(_, held)| *held), "no section in main: {items:?}");
    // The fix is a section in the clerk's code: an atomic block main's original has not.
    let atomics = |p: &Program| p.stmts.iter().filter(|s| matches!(s.kind, StmtKind::Atomic(_))).count();
    assert!(atomics(&repaired) > atomics(&r.program), "{}", paces_cwhile::Printer::new(&repaired).print());
}

/// main starts a helper and then calls the racing function itself: moving the create below the
/// call would run the two one after the other. The create stays first; the function's steps
/// become atomic.
#[test]
fn a_create_stays_above_main_s_own_call() {
    let (r, source) = read("helper.c");
    let (create, call) = (line_of(&source, "pthread_create"), line_of(&source, "main's own share"));
    let p = &r.program;
    let loc = |l: &str| p.loc(l).expect("a label");
    assert!(unmarked(p).space().may_change_order(loc(&create), loc(&call)));
    assert!(p.space().is_fixed(loc(&create), loc(&call)));
    let items = main_items(&repair(&r));
    assert!(at(&items, &create) < at(&items, &call), "{items:?}");
    assert!(!in_section(&items, &[&create]), "{items:?}");
}

/// An assignment of main that the worker reads moves above the worker's create: initialising
/// shared data before the thread that reads it starts is the fix.
#[test]
fn an_initialisation_still_moves_above_the_create() {
    let (r, source) = read("late_limit.c");
    let (create, init) = (line_of(&source, "pthread_create"), line_of(&source, "limit = 5;"));
    let p = &r.program;
    let loc = |l: &str| p.loc(l).expect("a label");
    assert!(p.space().may_change_order(loc(&create), loc(&init)));
    let report = Repair::new().run(&r.program).expect("the loop runs");
    assert_eq!(report.stop, paces::StopReason::Repaired);
    // One change as a reviewer reads it: one move of a single item.
    let moves = report.candidate.as_ref().expect("a candidate").moves(&report.space);
    assert_eq!(moves.len(), 1, "{:?}", report.transformations);
    assert!(report.transformations.iter().all(|t| matches!(t, paces::constraint::Transformation::Swap { .. })));
    let items = main_items(report.repaired.as_ref().expect("repaired"));
    assert!(at(&items, &init) < at(&items, &create), "{items:?}");
}

/// The statements that hold a create or a join wherever the frontend reads one: in a function
/// `main` calls once (the call holds it), in the rounds of a loop without a bound (each round's
/// `if` holds it) and in an unrolled `for` (each copy is one); the marks are exactly the
/// create and join steps, and each created thread's wait for its create.
#[test]
fn every_create_and_join_is_marked_where_it_stands() {
    let holding = |p: &Program| -> Vec<String> {
        let main = p.threads.iter().find(|t| t.name == "main").expect("main");
        p.block(main.body)
            .items
            .iter()
            .filter(|&&s| p.holds_thread_structure(s))
            .map(|&s| p.stmt(s).label.clone())
            .collect()
    };
    // The marks in `main`'s thread, after checking that every other one is a created
    // thread's wait for its create, one per created thread.
    let marked_steps = |p: &Program| -> Vec<String> {
        let starts: Vec<String> = p.threads.iter().skip(1).map(|t| format!("{}_start", t.name)).collect();
        let (waits, rest): (Vec<_>, Vec<_>) =
            p.thread_structure.iter().map(|&s| p.stmt(s)).partition(|s| starts.contains(&s.label));
        assert_eq!(waits.len(), starts.len(), "one wait per created thread");
        assert!(waits.iter().all(|s| matches!(s.kind, StmtKind::Await(_))));
        rest.iter().filter_map(|s| p.step_text(s.loc)).collect()
    };
    let helper = "#include <pthread.h>\nint x;\nvoid *t(void *a) { x = 1; return 0; }\n\
        void start() {\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n  pthread_join(h, 0);\n}\n\
        int main() {\n  x = 2;\n  start();\n  return 0;\n}\n";
    let r = read_source("helper_fn.c", helper);
    assert_eq!(holding(&r.program), ["11"]);
    assert_eq!(marked_steps(&r.program), ["pthread_create(&h, 0, t, 0)", "pthread_join(h, 0)"]);
    // `while (1)`: each round's create is an item of main; a loop with a condition: each
    // round is an `if` holding its create and the next round.
    let (rounds, _) = read("spawner.c");
    assert_eq!(holding(&rounds.program), ["24", "24.2"]);
    let counted = "#include <pthread.h>\nint x;\nvoid *t(void *a) { x = x + 1; return 0; }\n\
        int main() {\n  pthread_t h;\n  int n = __VERIFIER_nondet_int();\n  \
        for (int i = 0; i < n; i++) { pthread_create(&h, 0, t, 0); }\n  return 0;\n}\n";
    let r = read_source("counted.c", counted);
    let items = holding(&r.program);
    assert_eq!(items.len(), 1, "the first round holds the second: {items:?}");
    assert_eq!(marked_steps(&r.program).len(), 2, "two rounds, one create each");
    let pool = "#include <pthread.h>\nint x;\nvoid *t(void *a) { x = 1; return 0; }\n\
        int main() {\n  pthread_t u[3];\n  int i;\n  for (i = 0; i < 3; i++) pthread_create(&u[i], 0, t, 0);\n\
        for (i = 0; i < 3; i++) pthread_join(u[i], 0);\n  return 0;\n}\n";
    let r = read_source("pool.c", pool);
    assert_eq!(holding(&r.program), ["7.2", "7.3", "7.4", "8.2", "8.3", "8.4"]);
    assert_eq!(marked_steps(&r.program).len(), 6);
}

/// One statement of a generated `main`.
#[derive(Clone, Debug)]
enum Step {
    /// `pthread_create` of handle `k`.
    Create(usize),
    /// `pthread_join` of handle `k` (only after its create).
    Join(usize),
    /// A call of `work()`, which writes `x`.
    Call,
    /// A loop that writes `y`.
    Loop,
    /// A branch on `y` that writes `z`.
    Branch,
    /// A plain assignment of a global (`x`, `y` or `z`).
    Assign(usize),
    /// A `for` loop, unrolled, that creates the two threads of array handle `u`, then one that
    /// joins them.
    Pool,
}

/// What a statement of `main` is for the contract: the threads' structure, or another item
/// that keeps its order with it (a call, a loop, a branch), or an assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Structure,
    Compound,
    Assignment,
}

/// The C text of a generated program: its steps in `main`, one per line, the handles that
/// were created joined at the end when `join_rest` says so.
fn program_text(steps: &[Step]) -> (String, Vec<Role>) {
    let mut text = String::from(
        "#include <pthread.h>\n\nextern void abort(void);\nvoid reach_error() {}\n\nint x = 0, y = 0, z = 0;\n\nvoid work() { x = x + 1; }\n\n\
         void *worker(void *arg) {\n  int seen = x;\n  x = seen + 1;\n  if (x != seen + 1) { reach_error(); abort(); }\n  \
         z = y;\n  return 0;\n}\n\nint main() {\n  \
         pthread_t t0, t1, t2;\n  pthread_t u[2];\n  int i;\n",
    );
    // Roles by line number (1-based); the header has no statement of main.
    let mut roles = vec![Role::Assignment; text.lines().count() + 1];
    let line = |text: &mut String, roles: &mut Vec<Role>, s: &str, role: Role| {
        text.push_str("  ");
        text.push_str(s);
        text.push('\n');
        roles.push(role);
    };
    let vars = ["x", "y", "z"];
    for step in steps {
        match *step {
            Step::Create(k) => {
                line(&mut text, &mut roles, &format!("pthread_create(&t{k}, 0, worker, 0);"), Role::Structure)
            }
            Step::Join(k) => line(&mut text, &mut roles, &format!("pthread_join(t{k}, 0);"), Role::Structure),
            Step::Call => line(&mut text, &mut roles, "work();", Role::Compound),
            Step::Loop => line(&mut text, &mut roles, "while (y < 2) { y = y + 1; }", Role::Compound),
            Step::Branch => line(&mut text, &mut roles, "if (y > 0) { z = 1; }", Role::Compound),
            Step::Assign(v) => line(&mut text, &mut roles, &format!("{} = {};", vars[v % 3], v + 2), Role::Assignment),
            Step::Pool => {
                line(
                    &mut text,
                    &mut roles,
                    "for (i = 0; i < 2; i++) pthread_create(&u[i], 0, worker, 0);",
                    Role::Structure,
                );
                line(&mut text, &mut roles, "for (i = 0; i < 2; i++) pthread_join(u[i], 0);", Role::Structure);
            }
        }
    }
    line(&mut text, &mut roles, "return 0;", Role::Assignment);
    text.push_str("}\n");
    (text, roles)
}

/// Steps of `main`: each handle created at most once and joined at most once after it.
fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        3 => (0usize..3).prop_map(Step::Create),
        2 => (0usize..3).prop_map(Step::Join),
        1 => Just(Step::Call),
        1 => Just(Step::Loop),
        1 => Just(Step::Branch),
        3 => (0usize..6).prop_map(Step::Assign),
        1 => Just(Step::Pool),
    ];
    prop::collection::vec(step, 1..7).prop_map(|raw| {
        let (mut created, mut joined, mut pool) = ([false; 3], [false; 3], false);
        raw.into_iter()
            .filter(|s| match *s {
                Step::Create(k) => !std::mem::replace(&mut created[k], true),
                Step::Join(k) => created[k] && !std::mem::replace(&mut joined[k], true),
                Step::Pool => !std::mem::replace(&mut pool, true),
                _ => true,
            })
            .collect()
    })
}

/// The role of each item of `main`, in order, by the C line its label names (`12`, or `12.3`
/// for the steps and copies of line 12); the assignments of an unrolled loop's variable `i`
/// are assignments.
fn main_roles(p: &Program, space: &Space, roles: &[Role]) -> Vec<(Loc, Role)> {
    let main = p.threads.iter().find(|t| t.name == "main").map(|t| t.body).expect("main");
    let loop_variable = |loc: Loc| {
        p.stmt_at(loc)
            .is_some_and(|s| matches!(&p.stmt(s).kind, StmtKind::Assign { var, .. } if p.vars[var.index()].name == "i"))
    };
    let role = |loc: Loc| {
        let line: usize = space.name(loc).split('.').next().and_then(|l| l.parse().ok()).unwrap_or(0);
        match roles.get(line).copied().unwrap_or(Role::Assignment) {
            Role::Structure if loop_variable(loc) => Role::Assignment,
            r => r,
        }
    };
    space.items(main).iter().map(|&l| (l, role(l))).collect()
}

/// Whether a pair of roles keeps its order: the threads' structure with itself and with
/// compound items.
fn pinned(a: Role, b: Role) -> bool {
    (a == Role::Structure && b != Role::Assignment) || (b == Role::Structure && a != Role::Assignment)
}

/// Whether a candidate keeps the contract in `main`'s block: the items of the threads'
/// structure keep their original order with each other and with every compound item, and no
/// added section holds one.
fn keeps_structure(space: &Space, c: &Candidate, main: &[(Loc, Role)]) -> Result<(), String> {
    for (i, &(a, ra)) in main.iter().enumerate() {
        for &(b, rb) in &main[i + 1..] {
            if pinned(ra, rb) && c.position(a) > c.position(b) {
                return Err(format!("`{}` moved below `{}`", space.name(a), space.name(b)));
            }
        }
        if ra == Role::Structure && c.section_of(a).is_some() {
            return Err(format!("a section holds `{}`", space.name(a)));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// On generated programs: in the space, every item of the threads' structure in `main` is
    /// fixed against every other such item and every call, loop and branch, and kept out of
    /// sections, while an assignment next to a create or a join that it commutes with stays
    /// free; every candidate of a small space, and the repair the loop returns, keep the
    /// structure and hold none of it in a section.
    #[test]
    fn no_candidate_and_no_repair_changes_the_threads_structure(steps in steps()) {
        let (source, roles) = program_text(&steps);
        let reading = read_source("generated.c", &source);
        let p = &reading.program;
        let space = p.space();
        let main = main_roles(p, &space, &roles);
        prop_assert!(main.iter().any(|&(_, r)| r == Role::Structure) == p.thread_structure.iter().next().is_some());
        for (i, &(a, ra)) in main.iter().enumerate() {
            if ra == Role::Structure {
                prop_assert!(!space.may_be_in_section(a), "{} in a section\n{source}", space.name(a));
            }
            for (j, &(b, rb)) in main.iter().enumerate().skip(i + 1) {
                if pinned(ra, rb) {
                    prop_assert!(space.is_fixed(a, b), "{} / {}\n{source}", space.name(a), space.name(b));
                }
                let (sa, sb) = (p.stmt_at(a).expect("a statement"), p.stmt_at(b).expect("a statement"));
                let assignment_by_structure = matches!((ra, rb), (Role::Structure, Role::Assignment) | (Role::Assignment, Role::Structure));
                if j == i + 1 && assignment_by_structure && p.commutes(sa, sb) {
                    prop_assert!(space.may_change_order(a, b), "{} / {} pinned\n{source}", space.name(a), space.name(b));
                }
            }
        }
        if let Ok(all) = Candidate::enumerate(&space, 20_000) {
            for c in &all {
                let kept = keeps_structure(&space, c, &main);
                prop_assert!(kept.is_ok(), "{kept:?}: {}\n{source}", c.display(&space));
            }
        }
        let report = Repair::new().time_limit(Some(std::time::Duration::from_secs(20))).run(p).expect("the loop runs");
        if let Some(c) = &report.candidate {
            let kept = keeps_structure(&space, c, &main);
            prop_assert!(kept.is_ok(), "{kept:?}: {}\n{source}", c.display(&space));
        }
    }
}
