//! Random small Cwhile programs for differential tests.

#![allow(dead_code)] // Reason: each test file uses a different part of this module.

use proptest::prelude::*;

/// Globals every generated program declares (all start at 0 except `s`, a semaphore at 1).
pub const GLOBALS: &[&str] = &["x", "y", "z"];

/// A generated statement.
#[derive(Clone, Debug)]
pub enum St {
    Assign(usize, Ex),
    Await(Cond),
    Assume(Cond),
    Assert(Cond),
    Skip,
    IfStar(Vec<St>, Vec<St>),
    IfCond(Cond, Vec<St>, Vec<St>),
    WhileStar(Vec<St>),
    /// An atomic block, optionally opened by an await; its body may wait or assume anywhere.
    Atomic(Option<Cond>, Vec<St>),
    /// `lock(m); body; unlock(m);`
    Locked(Vec<St>),
    /// `down(s); body; up(s);`
    Sem(Vec<St>),
    Call,
}

/// A bounded expression: values stay in 0..3 so that state spaces are finite and small.
#[derive(Clone, Debug)]
pub enum Ex {
    Const(i64),
    /// `(v + k) % 3`
    Inc(usize, i64),
    /// `v`
    Var(usize),
}

/// A condition `v == k`, `v != k`, or a conjunction of two.
#[derive(Clone, Debug)]
pub enum Cond {
    Eq(usize, i64),
    Ne(usize, i64),
    And(Box<Cond>, Box<Cond>),
}

/// A generated program: thread bodies and one procedure body.
#[derive(Clone, Debug)]
pub struct Prog {
    pub threads: Vec<Vec<St>>,
    pub proc_body: Vec<St>,
}

fn var() -> impl Strategy<Value = usize> {
    0..GLOBALS.len()
}

fn ex() -> impl Strategy<Value = Ex> {
    prop_oneof![
        (0..3i64).prop_map(Ex::Const),
        (var(), 1..3i64).prop_map(|(v, k)| Ex::Inc(v, k)),
        var().prop_map(Ex::Var)
    ]
}

fn cond() -> impl Strategy<Value = Cond> {
    let leaf = prop_oneof![
        1 => (var(), 0..3i64).prop_map(|(v, k)| Cond::Eq(v, k)),
        3 => (var(), 0..3i64).prop_map(|(v, k)| Cond::Ne(v, k)),
    ];
    leaf.prop_recursive(1, 3, 2, |inner| (inner.clone(), inner).prop_map(|(a, b)| Cond::And(Box::new(a), Box::new(b))))
}

/// Statements without awaits (the bodies of `lock`/`down` pairs).
fn plain(depth: u32) -> BoxedStrategy<St> {
    let leaf = prop_oneof![
        6 => (var(), ex()).prop_map(|(v, e)| St::Assign(v, e)),
        1 => cond().prop_map(St::Assert),
        1 => Just(St::Skip),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    prop_oneof![
        12 => leaf,
        1 => prop::collection::vec(plain(depth - 1), 1..2).prop_map(St::WhileStar),
        1 => (prop::collection::vec(plain(depth - 1), 0..2), prop::collection::vec(plain(depth - 1), 0..2))
            .prop_map(|(a, b)| St::IfStar(a, b)),
        1 => (cond(), prop::collection::vec(plain(depth - 1), 0..2), prop::collection::vec(plain(depth - 1), 0..2))
            .prop_map(|(c, a, b)| St::IfCond(c, a, b)),
    ]
    .boxed()
}

/// Statements of an atomic block's body: as [`plain`], and awaits and assumes anywhere (the
/// block is taken only along a path that gets through).
fn atomic_body(depth: u32) -> BoxedStrategy<St> {
    let leaf = prop_oneof![
        6 => (var(), ex()).prop_map(|(v, e)| St::Assign(v, e)),
        2 => cond().prop_map(St::Assert),
        1 => cond().prop_map(St::Await),
        1 => cond().prop_map(St::Assume),
        1 => Just(St::Skip),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    prop_oneof![
        12 => leaf,
        1 => prop::collection::vec(atomic_body(depth - 1), 1..3).prop_map(St::WhileStar),
        2 => (prop::collection::vec(atomic_body(depth - 1), 0..3), prop::collection::vec(atomic_body(depth - 1), 0..2))
            .prop_map(|(a, b)| St::IfStar(a, b)),
        1 => (cond(), prop::collection::vec(atomic_body(depth - 1), 0..2), prop::collection::vec(atomic_body(depth - 1), 0..2))
            .prop_map(|(c, a, b)| St::IfCond(c, a, b)),
    ]
    .boxed()
}

fn stmt(depth: u32, with_call: bool) -> BoxedStrategy<St> {
    let leaf = prop_oneof![
        8 => (var(), ex()).prop_map(|(v, e)| St::Assign(v, e)),
        2 => cond().prop_map(St::Await),
        1 => cond().prop_map(St::Assert),
        1 => Just(St::Skip),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let body = || prop::collection::vec(stmt(depth - 1, with_call), 0..3);
    let call = if with_call { 1 } else { 0 };
    prop_oneof![
        8 => leaf,
        1 => (body(), body()).prop_map(|(a, b)| St::IfStar(a, b)),
        1 => (cond(), body(), body()).prop_map(|(c, a, b)| St::IfCond(c, a, b)),
        1 => prop::collection::vec(stmt(depth - 1, with_call), 1..3).prop_map(St::WhileStar),
        2 => (prop::option::of(cond()), prop::collection::vec(atomic_body(1), 1..4)).prop_map(|(c, b)| St::Atomic(c, b)),
        1 => prop::collection::vec(plain(1), 0..3).prop_map(St::Locked),
        1 => prop::collection::vec(plain(1), 0..2).prop_map(St::Sem),
        call => Just(St::Call),
    ]
    .boxed()
}

/// Random programs of 2 or 3 threads.
pub fn prog() -> impl Strategy<Value = Prog> {
    (
        prop::collection::vec(prop::collection::vec(stmt(2, true), 1..6), 2..4),
        prop::collection::vec(stmt(1, false), 1..3),
    )
        .prop_map(|(threads, proc_body)| Prog { threads, proc_body })
}

pub fn cond_text(c: &Cond) -> String {
    match c {
        Cond::Eq(v, k) => format!("{} == {k}", GLOBALS[*v]),
        Cond::Ne(v, k) => format!("{} != {k}", GLOBALS[*v]),
        Cond::And(a, b) => format!("({}) && ({})", cond_text(a), cond_text(b)),
    }
}

pub fn ex_text(e: &Ex) -> String {
    match e {
        Ex::Const(k) => k.to_string(),
        Ex::Inc(v, k) => format!("({} + {k}) % 3", GLOBALS[*v]),
        Ex::Var(v) => GLOBALS[*v].to_string(),
    }
}

fn block(out: &mut String, body: &[St], indent: usize) {
    for s in body {
        stmt_text(out, s, indent);
    }
}

fn stmt_text(out: &mut String, s: &St, indent: usize) {
    let pad = "  ".repeat(indent);
    match s {
        St::Assign(v, e) => out.push_str(&format!("{pad}{} := {};\n", GLOBALS[*v], ex_text(e))),
        St::Await(c) => out.push_str(&format!("{pad}await({});\n", cond_text(c))),
        St::Assume(c) => out.push_str(&format!("{pad}assume({});\n", cond_text(c))),
        St::Assert(c) => out.push_str(&format!("{pad}assert({});\n", cond_text(c))),
        St::Skip => out.push_str(&format!("{pad}skip;\n")),
        St::IfStar(a, b) | St::IfCond(_, a, b) => {
            let head = match s {
                St::IfCond(c, ..) => cond_text(c),
                _ => "*".into(),
            };
            out.push_str(&format!("{pad}if ({head}) {{\n"));
            block(out, a, indent + 1);
            if b.is_empty() {
                out.push_str(&format!("{pad}}}\n"));
            } else {
                out.push_str(&format!("{pad}}} else {{\n"));
                block(out, b, indent + 1);
                out.push_str(&format!("{pad}}}\n"));
            }
        }
        St::WhileStar(b) => {
            out.push_str(&format!("{pad}while (*) {{\n"));
            block(out, b, indent + 1);
            out.push_str(&format!("{pad}}}\n"));
        }
        St::Atomic(c, b) => {
            out.push_str(&format!("{pad}atomic {{\n"));
            if let Some(c) = c {
                out.push_str(&format!("{pad}  await({});\n", cond_text(c)));
            }
            block(out, b, indent + 1);
            out.push_str(&format!("{pad}}}\n"));
        }
        St::Locked(b) => {
            out.push_str(&format!("{pad}lock(m);\n"));
            block(out, b, indent);
            out.push_str(&format!("{pad}unlock(m);\n"));
        }
        St::Sem(b) => {
            out.push_str(&format!("{pad}down(s);\n"));
            block(out, b, indent);
            out.push_str(&format!("{pad}up(s);\n"));
        }
        // The caller passes a value through the procedure's local (its own copy; a value of
        // the globals, so that running the threads one after another in one thread, with one
        // copy, gives the same final states).
        St::Call => out.push_str(&format!("{pad}f.a := (z + 1) % 3;\n{pad}f();\n")),
    }
}

impl Prog {
    fn header(&self) -> String {
        let qs: String = (0..self.threads.len()).map(|i| format!(", q{i} = 0")).collect();
        format!("var x = 0, y = 0, z = 0, m = 0, s = 1{qs};\n\nproc f {{\n  local a;\n  y := a;\n")
    }

    /// Thread `i`'s body; `qi` is a global only this thread uses (its steps are private).
    fn thread_body(&self, out: &mut String, i: usize) {
        out.push_str(&format!("  q{i} := (q{i} + 1) % 3;\n  assert(q{i} != 2);\n"));
        block(out, &self.threads[i], 1);
        out.push_str(&format!("  q{i} := (q{i} + 1) % 3;\n  x := q{i};\n"));
    }

    /// The program as Cwhile text.
    pub fn text(&self) -> String {
        let mut out = self.header();
        block(&mut out, &self.proc_body, 1);
        out.push_str("}\n");
        for i in 0..self.threads.len() {
            out.push_str(&format!("\nthread t{i} {{\n"));
            self.thread_body(&mut out, i);
            out.push_str("}\n");
        }
        out
    }

    /// The threads run one after another in `order`, as one thread.
    pub fn sequentialised(&self, order: &[usize]) -> String {
        let mut out = self.header();
        block(&mut out, &self.proc_body, 1);
        out.push_str("}\n\nthread main {\n");
        for &i in order {
            self.thread_body(&mut out, i);
        }
        out.push_str("}\n");
        out
    }
}

/// Every permutation of `0..n`.
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new()];
    for k in 0..n {
        let mut next = Vec::new();
        for p in &out {
            for pos in 0..=k {
                let mut q = p.clone();
                q.insert(pos, k);
                next.push(q);
            }
        }
        out = next;
    }
    out
}
