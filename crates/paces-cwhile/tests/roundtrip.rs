//! Property: for generated well-formed programs (every statement kind, nesting, procedures,
//! locals, callers using their callees' locals as `PROC.LOCAL`, labels or none), `print(parse(print(p))) == print(p)`, labels and effects survive
//! printing, and applying the original candidate changes nothing.

use std::fmt::Write as _;

use paces_constraint::Candidate;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum E {
    Int(i64),
    Bool(bool),
    Var(usize),
    Not(Box<E>),
    Neg(Box<E>),
    Bin(&'static str, Box<E>, Box<E>),
}

#[derive(Clone, Debug)]
enum S {
    Assign(usize, E),
    Assume(E),
    Await(E),
    Assert(E),
    Skip,
    If(Option<E>, Vec<S>, Option<Vec<S>>),
    While(Option<E>, Vec<S>),
    Atomic(Vec<S>),
    NoReorder(Vec<S>),
    Call(usize),
    Lock(usize),
    Unlock(usize),
    Down(usize),
    Up(usize),
}

const OPS: [&str; 18] =
    ["||", "&&", "|", "^", "&", "==", "!=", "<", "<=", ">", ">=", "<<", ">>", "+", "-", "*", "/", "%"];

fn expr() -> impl Strategy<Value = E> + Clone {
    let leaf = prop_oneof![
        any::<i64>().prop_map(E::Int),
        (-3i64..10).prop_map(E::Int),
        any::<bool>().prop_map(E::Bool),
        (0usize..8).prop_map(E::Var),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| E::Not(Box::new(e))),
            inner.clone().prop_map(|e| E::Neg(Box::new(e))),
            (0usize..OPS.len(), inner.clone(), inner).prop_map(|(k, a, b)| E::Bin(OPS[k], Box::new(a), Box::new(b))),
        ]
    })
}

fn stmt() -> impl Strategy<Value = S> {
    let cond = prop::option::of(expr());
    let leaf = prop_oneof![
        (0usize..8, expr()).prop_map(|(v, e)| S::Assign(v, e)),
        expr().prop_map(S::Assume),
        expr().prop_map(S::Await),
        expr().prop_map(S::Assert),
        Just(S::Skip),
        (0usize..4).prop_map(S::Call),
        (0usize..3).prop_map(S::Lock),
        (0usize..3).prop_map(S::Unlock),
        (0usize..3).prop_map(S::Down),
        (0usize..3).prop_map(S::Up),
    ];
    leaf.prop_recursive(4, 40, 4, move |inner| {
        let block = prop::collection::vec(inner, 0..4);
        prop_oneof![
            (cond.clone(), block.clone(), prop::option::of(block.clone())).prop_map(|(c, t, e)| S::If(c, t, e)),
            (cond.clone(), block.clone()).prop_map(|(c, b)| S::While(c, b)),
            block.clone().prop_map(S::Atomic),
            block.prop_map(S::NoReorder),
        ]
    })
}

/// A generated program: globals, procedures (proc `i` only calls procs `j > i`), threads.
#[derive(Clone, Debug)]
struct Prog {
    globals: Vec<i64>,
    procs: Vec<(usize, Vec<S>)>,
    threads: Vec<(usize, Vec<S>)>,
    labels: Vec<bool>,
}

fn program() -> impl Strategy<Value = Prog> {
    let body = || (0usize..3, prop::collection::vec(stmt(), 0..5));
    (
        prop::collection::vec(any::<i64>(), 3..5),
        prop::collection::vec(body(), 0..4),
        prop::collection::vec(body(), 1..4),
        prop::collection::vec(any::<bool>(), 64),
    )
        .prop_map(|(globals, procs, threads, labels)| Prog { globals, procs, threads, labels })
}

/// Writes the program as Cwhile text, keeping it well formed: waits inside `atomic` only
/// where allowed (they are replaced by `skip` elsewhere), calls only to later procedures.
struct Writer<'a> {
    prog: &'a Prog,
    out: String,
    label_counter: usize,
    /// Names visible in the current body: globals first, then locals.
    visible: Vec<String>,
    /// The first procedure the current body may call.
    min_callee: usize,
}

impl Writer<'_> {
    fn expr(&self, e: &E) -> String {
        match e {
            E::Int(v) => format!("{v}"),
            E::Bool(b) => format!("{b}"),
            E::Var(k) => self.visible[k % self.visible.len()].clone(),
            E::Not(a) => format!("!({})", self.expr(a)),
            E::Neg(a) => format!("-({})", self.expr(a)),
            E::Bin(op, a, b) => format!("({} {op} {})", self.expr(a), self.expr(b)),
        }
    }

    fn label(&mut self) -> String {
        let k = self.label_counter;
        self.label_counter += 1;
        if self.prog.labels[k % self.prog.labels.len()] {
            format!("L{k}: ")
        } else {
            String::new()
        }
    }

    fn block(&mut self, stmts: &[S], level: usize, in_atomic: bool) {
        for s in stmts {
            self.stmt(s, level, in_atomic);
        }
    }

    fn stmt(&mut self, s: &S, level: usize, in_atomic: bool) {
        let ind = "  ".repeat(level);
        let label = self.label();
        let procs = self.prog.procs.len();
        let line = match s {
            S::Assign(v, e) => format!("{} := {};", self.visible[v % self.visible.len()], self.expr(e)),
            S::Assume(e) => format!("assume({});", self.expr(e)),
            S::Await(_) | S::Lock(_) | S::Down(_) | S::Call(_) if in_atomic => "skip;".to_owned(),
            S::Await(e) => format!("await({});", self.expr(e)),
            S::Assert(e) => format!("assert({});", self.expr(e)),
            S::Skip => "skip;".to_owned(),
            S::Call(k) if self.min_callee < procs => {
                format!("p{}();", self.min_callee + k % (procs - self.min_callee))
            }
            S::Call(_) => "skip;".to_owned(),
            S::Lock(g) => format!("lock(g{g});"),
            S::Unlock(g) => format!("unlock(g{g});"),
            S::Down(g) => format!("down(g{g});"),
            S::Up(g) => format!("up(g{g});"),
            S::If(c, t, e) => {
                let c = c.as_ref().map_or("*".to_owned(), |c| self.expr(c));
                let _ = writeln!(self.out, "{ind}{label}if ({c}) {{");
                self.block(t, level + 1, in_atomic);
                if let Some(e) = e {
                    let _ = writeln!(self.out, "{ind}}} else {{");
                    self.block(e, level + 1, in_atomic);
                }
                let _ = writeln!(self.out, "{ind}}}");
                return;
            }
            S::While(c, b) => {
                let c = c.as_ref().map_or("*".to_owned(), |c| self.expr(c));
                let _ = writeln!(self.out, "{ind}{label}while ({c}) {{");
                self.block(b, level + 1, in_atomic);
                let _ = writeln!(self.out, "{ind}}}");
                return;
            }
            S::Atomic(b) | S::NoReorder(b) => {
                let kw = if matches!(s, S::Atomic(_)) { "atomic" } else { "noreorder" };
                let _ = writeln!(self.out, "{ind}{label}{kw} {{");
                self.block(b, level + 1, in_atomic || kw == "atomic");
                let _ = writeln!(self.out, "{ind}}}");
                return;
            }
        };
        let _ = writeln!(self.out, "{ind}{label}{line}");
    }
}

/// The procedures a body calls directly, as [`Writer::stmt`] writes its calls (none inside
/// `atomic`): their locals are visible in the body as `pJ.qK`.
fn callees(prog: &Prog, stmts: &[S], min_callee: usize, in_atomic: bool, out: &mut Vec<usize>) {
    let procs = prog.procs.len();
    for s in stmts {
        match s {
            S::Call(k) if !in_atomic && min_callee < procs => out.push(min_callee + k % (procs - min_callee)),
            S::If(_, t, e) => {
                callees(prog, t, min_callee, in_atomic, out);
                callees(prog, e.as_deref().unwrap_or_default(), min_callee, in_atomic, out);
            }
            S::While(_, b) | S::NoReorder(b) => callees(prog, b, min_callee, in_atomic, out),
            S::Atomic(b) => callees(prog, b, min_callee, true, out),
            _ => {}
        }
    }
}

impl Writer<'_> {
    /// Makes the locals of the procedures `body` calls visible as `pJ.qK`.
    fn see_callees(&mut self, body: &[S]) {
        let mut called = Vec::new();
        callees(self.prog, body, self.min_callee, false, &mut called);
        called.sort_unstable();
        called.dedup();
        for j in called {
            self.visible.extend((0..self.prog.procs[j].0).map(|k| format!("p{j}.q{k}")));
        }
    }
}

fn write(prog: &Prog) -> String {
    let mut w = Writer { prog, out: String::new(), label_counter: 0, visible: Vec::new(), min_callee: 0 };
    let globals: Vec<String> = prog.globals.iter().enumerate().map(|(i, v)| format!("g{i} = {v}")).collect();
    let _ = writeln!(w.out, "var {};", globals.join(", "));
    let global_names: Vec<String> = (0..prog.globals.len()).map(|i| format!("g{i}")).collect();
    for (i, (locals, body)) in prog.procs.iter().enumerate() {
        w.visible = global_names.clone();
        w.visible.extend((0..*locals).map(|k| format!("q{k}")));
        w.min_callee = i + 1;
        w.see_callees(body);
        let _ = writeln!(w.out, "proc p{i} {{");
        if *locals > 0 {
            let names: Vec<String> = (0..*locals).map(|k| format!("q{k} = {k}")).collect();
            let _ = writeln!(w.out, "  local {};", names.join(", "));
        }
        w.block(body, 1, false);
        let _ = writeln!(w.out, "}}");
    }
    for (i, (locals, body)) in prog.threads.iter().enumerate() {
        w.visible = global_names.clone();
        w.visible.extend((0..*locals).map(|k| format!("r{k}")));
        w.min_callee = 0;
        w.see_callees(body);
        let _ = writeln!(w.out, "thread t{i} {{");
        if *locals > 0 {
            let names: Vec<String> = (0..*locals).map(|k| format!("r{k}")).collect();
            let _ = writeln!(w.out, "  local {};", names.join(", "));
        }
        w.block(body, 1, false);
        let _ = writeln!(w.out, "}}");
    }
    w.out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn print_parse_print_is_stable(prog in program()) {
        let text = write(&prog);
        let p = match paces_cwhile::parse(&text) {
            Ok(p) => p,
            Err(d) => panic!("generated program rejected:\n{}\n{text}", paces_cwhile::render(&d, "gen.cw", &text, false)),
        };
        let printed = paces_cwhile::Printer::new(&p).print();
        let again = paces_cwhile::parse(&printed).map_err(|d| TestCaseError::fail(format!("{d}\n{printed}")))?;
        prop_assert_eq!(&paces_cwhile::Printer::new(&again).print(), &printed);
        prop_assert_eq!(&again.loc_names, &p.loc_names);
        prop_assert_eq!(&again.stmts.iter().map(|s| &s.kind).collect::<Vec<_>>(), &p.stmts.iter().map(|s| &s.kind).collect::<Vec<_>>());
        for i in 0..p.stmts.len() {
            let s = paces_cwhile::ir::StmtId::from_u32(i as u32);
            prop_assert_eq!(again.reads(s), p.reads(s));
            prop_assert_eq!(again.writes(s), p.writes(s));
            prop_assert_eq!(again.waits(s), p.waits(s));
            prop_assert_eq!(again.is_atomic(s), p.is_atomic(s));
        }
        let same = p.apply(&Candidate::original(&p.space())).map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Waits stand in atomic blocks only as their first step, so the export refuses only a
        // block with an `assume` after its first step.
        match paces_cwhile::to_promela(&p, &text) {
            Ok(model) => prop_assert!(!model.is_empty()),
            Err(e) => {
                prop_assert_eq!(e.kind(), &paces_cwhile::ErrorKind::WaitInAtomic);
                prop_assert!(e.to_string().contains("may stop at an `assume`"), "{}", e);
            }
        }
        prop_assert_eq!(paces_cwhile::Printer::new(&same).print(), printed);
        // One-item sections around every compound item that holds no wait parse back too.
        let space = p.space();
        let alone: Vec<_> = space
            .blocks()
            .flat_map(|b| space.items(b).to_vec())
            .filter(|&l| space.takes_section_alone(l) && !space.is_preemption_point(l))
            .map(|l| (l, l))
            .collect();
        let orders = space.blocks().map(|b| space.items(b).to_vec()).collect();
        let sectioned = Candidate::new(&space, orders, &alone).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let applied = p.apply(&sectioned).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let text = paces_cwhile::Printer::new(&applied).print();
        let back = paces_cwhile::parse(&text).map_err(|d| TestCaseError::fail(format!("{d}\n{text}")))?;
        prop_assert_eq!(paces_cwhile::Printer::new(&back).print(), text);
        prop_assert_eq!(applied.space().blocks().count(), space.blocks().count() + alone.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The space fixes exactly the closure of "does not commute": checked against the closure
    /// of every pair of a block that does not commute, computed here by brute force.
    #[test]
    fn space_orders_the_closure_of_what_does_not_commute(prog in program()) {
        let text = write(&prog);
        let p = paces_cwhile::parse(&text).map_err(|d| TestCaseError::fail(format!("{d}\n{text}")))?;
        let space = p.space();
        for block in &p.blocks {
            let items = &block.items;
            let n = items.len();
            let mut before = vec![vec![false; n]; n];
            for i in 0..n {
                for j in i + 1..n {
                    before[i][j] = !p.commutes(items[i], items[j]);
                }
            }
            for k in 0..n {
                for i in 0..k {
                    for j in k + 1..n {
                        before[i][j] |= before[i][k] && before[k][j];
                    }
                }
            }
            for i in 0..n {
                for j in 0..n {
                    let (a, b) = (p.stmt(items[i]).loc, p.stmt(items[j]).loc);
                    prop_assert_eq!(space.is_fixed(a, b), i < j && before[i][j], "{} before {}\n{}", i, j, text);
                }
            }
        }
    }
}
