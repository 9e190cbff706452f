//! Random small Cwhile programs (proptest strategies, so a failing case shrinks).
//!
//! Values stay in `0..3` (the globals `x`, `y`, `z`), so that state spaces are finite and
//! small, except for `w`, which [`St::Tick`] counts up without bound: a loop around it runs
//! forever without repeating a state. `m` is a lock and `s` a semaphore (at 1).

use proptest::prelude::*;

/// The globals conditions and assignments use (all start at 0).
pub const GLOBALS: &[&str] = &["x", "y", "z"];

/// Which constructs a generator may produce, beyond the base set (assignments, awaits,
/// assertions, `skip`, `if`, `while (*)`, atomic blocks holding awaits, assumes and loops,
/// locks, a semaphore, calls of a procedure).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// `assume` inside atomic blocks.
    pub assume_in_atomic: bool,
    /// A thread's last item may be a `while (*)` or an `if (*)` with an empty branch (a
    /// thread may finish by leaving a loop or taking an empty branch). Without it, every
    /// thread ends with `skip;`.
    pub loop_last: bool,
    /// Loops counting `w` up: they run forever without repeating a state.
    pub unbounded: bool,
    /// Atomic blocks, `lock`/`unlock` and `down`/`up` inside atomic blocks.
    pub nested: bool,
    /// The shapes where waits and cuts meet: `assume` outside atomic blocks (often right
    /// after a `while (*)`, so that leaving the loop starts with a guard), waits and guards
    /// while a lock or the semaphore is held, loops nested three deep, and 2 to 4 threads
    /// (2 or 3 without it).
    pub wide: bool,
}

impl Features {
    /// The base set with assumes inside atomic blocks.
    pub const BASE: Features =
        Features { assume_in_atomic: true, loop_last: false, unbounded: false, nested: false, wide: false };
    /// Every construct.
    pub const ALL: Features =
        Features { assume_in_atomic: true, loop_last: true, unbounded: true, nested: true, wide: true };
}

/// A generated statement.
#[derive(Clone, Debug)]
pub enum St {
    /// `v := e;`
    Assign(usize, Ex),
    /// `await(c);`
    Await(Cond),
    /// `assume(c);`
    Assume(Cond),
    /// `assert(c);`
    Assert(Cond),
    /// `skip;`
    Skip,
    /// `w := w + 1;` (unbounded).
    Tick,
    /// `if (*) { .. } else { .. }` (no `else` when the second is empty).
    IfStar(Vec<St>, Vec<St>),
    /// `if (c) { .. } else { .. }`
    IfCond(Cond, Vec<St>, Vec<St>),
    /// `while (*) { .. }`
    WhileStar(Vec<St>),
    /// An atomic block, optionally opened by an await; its body may wait or assume anywhere.
    Atomic(Option<Cond>, Vec<St>),
    /// `lock(m); body; unlock(m);`
    Locked(Vec<St>),
    /// `down(s); body; up(s);`
    Sem(Vec<St>),
    /// `f.a := (z + 1) % 3; f();`
    Call,
}

/// A bounded expression.
#[derive(Clone, Debug)]
pub enum Ex {
    /// A constant.
    Const(i64),
    /// `(v + k) % 3`
    Inc(usize, i64),
    /// `v`
    Var(usize),
    /// `(v op k) % 3` with `op` one of `&`, `|`, `^`, `<<`, `>>`
    Bits(BitOp, usize, i64),
}

/// A bitwise operator of [`Ex::Bits`].
#[derive(Clone, Copy, Debug)]
pub enum BitOp {
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
}

impl BitOp {
    /// How it is written.
    pub fn symbol(self) -> &'static str {
        match self {
            BitOp::And => "&",
            BitOp::Or => "|",
            BitOp::Xor => "^",
            BitOp::Shl => "<<",
            BitOp::Shr => ">>",
        }
    }

    /// `a op k` (both small and non-negative: no shift leaves 0..=63).
    pub fn apply(self, a: i64, k: i64) -> i64 {
        match self {
            BitOp::And => a & k,
            BitOp::Or => a | k,
            BitOp::Xor => a ^ k,
            BitOp::Shl => a << k,
            BitOp::Shr => a >> k,
        }
    }
}

/// A condition `v == k`, `v != k`, or a conjunction of two.
#[derive(Clone, Debug)]
pub enum Cond {
    /// `v == k`
    Eq(usize, i64),
    /// `v != k`
    Ne(usize, i64),
    /// `(a) && (b)`
    And(Box<Cond>, Box<Cond>),
}

/// A generated program: thread bodies and one procedure body.
#[derive(Clone, Debug)]
pub struct Prog {
    /// The threads' bodies.
    pub threads: Vec<Vec<St>>,
    /// The body of the procedure `f`.
    pub proc_body: Vec<St>,
}

fn var() -> impl Strategy<Value = usize> {
    0..GLOBALS.len()
}

fn ex() -> impl Strategy<Value = Ex> {
    prop_oneof![
        (0..3i64).prop_map(Ex::Const),
        (var(), 1..3i64).prop_map(|(v, k)| Ex::Inc(v, k)),
        var().prop_map(Ex::Var),
        (bit_op(), var(), 0..3i64).prop_map(|(op, v, k)| Ex::Bits(op, v, k)),
    ]
}

fn bit_op() -> impl Strategy<Value = BitOp> {
    prop_oneof![Just(BitOp::And), Just(BitOp::Or), Just(BitOp::Xor), Just(BitOp::Shl), Just(BitOp::Shr)]
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

/// Statements of an atomic block's body: as [`plain`], and awaits (and assumes, with
/// [`Features::assume_in_atomic`]) anywhere: the block is taken only along a path that gets
/// through. With [`Features::nested`]: atomic blocks, locks and the semaphore inside.
fn atomic_body(depth: u32, f: Features) -> BoxedStrategy<St> {
    let assume = u32::from(f.assume_in_atomic);
    let leaf = prop_oneof![
        6 => (var(), ex()).prop_map(|(v, e)| St::Assign(v, e)),
        2 => cond().prop_map(St::Assert),
        1 => cond().prop_map(St::Await),
        assume => cond().prop_map(St::Assume),
        1 => Just(St::Skip),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let nested = u32::from(f.nested);
    prop_oneof![
        12 => leaf,
        1 => prop::collection::vec(atomic_body(depth - 1, f), 1..3).prop_map(St::WhileStar),
        2 => (prop::collection::vec(atomic_body(depth - 1, f), 0..3), prop::collection::vec(atomic_body(depth - 1, f), 0..2))
            .prop_map(|(a, b)| St::IfStar(a, b)),
        1 => (cond(), prop::collection::vec(atomic_body(depth - 1, f), 0..2), prop::collection::vec(atomic_body(depth - 1, f), 0..2))
            .prop_map(|(c, a, b)| St::IfCond(c, a, b)),
        nested => (prop::option::of(cond()), prop::collection::vec(atomic_body(depth - 1, f), 0..3)).prop_map(|(c, b)| St::Atomic(c, b)),
        nested => prop::collection::vec(plain(0), 0..2).prop_map(St::Locked),
        nested => prop::collection::vec(plain(0), 0..2).prop_map(St::Sem),
    ]
    .boxed()
}

fn stmt(depth: u32, with_call: bool, f: Features) -> BoxedStrategy<St> {
    let wide = u32::from(f.wide);
    let leaf = prop_oneof![
        8 => (var(), ex()).prop_map(|(v, e)| St::Assign(v, e)),
        2 => cond().prop_map(St::Await),
        1 => cond().prop_map(St::Assert),
        1 => Just(St::Skip),
        wide => cond().prop_map(St::Assume),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let body = move || seq(depth - 1, with_call, f, 0..3);
    let call = u32::from(with_call);
    let unbounded = u32::from(f.unbounded);
    prop_oneof![
        8 => leaf,
        1 => (body(), body()).prop_map(|(a, b)| St::IfStar(a, b)),
        1 => (cond(), body(), body()).prop_map(|(c, a, b)| St::IfCond(c, a, b)),
        1 => seq(depth - 1, with_call, f, 1..3).prop_map(St::WhileStar),
        2 => (prop::option::of(cond()), prop::collection::vec(atomic_body(1 + u32::from(f.nested), f), 1..4)).prop_map(|(c, b)| St::Atomic(c, b)),
        1 => held(f, 0..3).prop_map(St::Locked),
        1 => held(f, 0..2).prop_map(St::Sem),
        call => Just(St::Call),
        unbounded => body().prop_map(|mut b| {
            b.insert(0, St::Tick);
            St::WhileStar(b)
        }),
    ]
    .boxed()
}

/// Statements in sequence: with [`Features::wide`], some of them a `while (*)` followed by an
/// `assume` (leaving the loop starts with a guard) or a lock held while waiting, so that a
/// thread can stand between a wait and a cut.
fn seq(depth: u32, with_call: bool, f: Features, len: std::ops::Range<usize>) -> BoxedStrategy<Vec<St>> {
    if !f.wide {
        return prop::collection::vec(stmt(depth, with_call, f), len).boxed();
    }
    let chunk = prop_oneof![
        6 => stmt(depth, with_call, f).prop_map(|s| vec![s]),
        1 => (prop::collection::vec(stmt(depth.saturating_sub(1), with_call, f), 1..3), cond())
            .prop_map(|(b, c)| vec![St::WhileStar(b), St::Assume(c)]),
        1 => (cond(), prop::collection::vec(plain(0), 0..2))
            .prop_map(|(c, mut b)| {
                b.insert(0, St::Await(c));
                vec![St::Locked(b)]
            }),
    ];
    prop::collection::vec(chunk, len).prop_map(|chunks| chunks.into_iter().flatten().collect()).boxed()
}

/// The body of a `lock`/`unlock` or `down`/`up` pair: statements without awaits, and with
/// [`Features::wide`] also awaits, assumes and nested loops (a thread waits while it holds
/// the lock).
fn held(f: Features, len: std::ops::Range<usize>) -> BoxedStrategy<Vec<St>> {
    if !f.wide {
        return prop::collection::vec(plain(1), len).boxed();
    }
    let item = prop_oneof![
        6 => plain(1),
        2 => cond().prop_map(St::Await),
        1 => cond().prop_map(St::Assume),
        1 => prop::collection::vec(plain(1), 1..3).prop_map(St::WhileStar),
    ];
    prop::collection::vec(item, len).boxed()
}

/// A thread's last item with [`Features::loop_last`]: a `while (*)` or an `if (*)` with an
/// empty branch.
fn last(f: Features) -> BoxedStrategy<Option<St>> {
    if !f.loop_last {
        return Just(None).boxed();
    }
    let body = move || seq(1, true, f, 1..3);
    prop_oneof![
        2 => Just(None),
        1 => body().prop_map(|b| Some(St::WhileStar(b))),
        1 => body().prop_map(|b| Some(St::IfStar(b, Vec::new()))),
        1 => body().prop_map(|b| Some(St::IfStar(Vec::new(), b))),
    ]
    .boxed()
}

/// Random programs of 2 or 3 threads with the base constructs ([`Features::BASE`]).
pub fn prog() -> impl Strategy<Value = Prog> {
    prog_with(Features::BASE)
}

/// Random programs of 2 or 3 threads (2 to 4 with [`Features::wide`], loops nested up to
/// three deep) with the constructs of `f`.
pub fn prog_with(f: Features) -> impl Strategy<Value = Prog> {
    let depth = if f.wide { 3 } else { 2 };
    let thread = (seq(depth, true, f, 1..6), last(f)).prop_map(move |(mut body, last)| {
        body.extend(last);
        if !f.loop_last {
            body.push(St::Skip);
        }
        body
    });
    let threads = if f.wide { 2..5 } else { 2..4 };
    (prop::collection::vec(thread, threads), seq(1, false, f, 1..3))
        .prop_map(|(threads, proc_body)| Prog { threads, proc_body })
}

/// `c` as Cwhile text.
pub fn cond_text(c: &Cond) -> String {
    match c {
        Cond::Eq(v, k) => format!("{} == {k}", GLOBALS[*v]),
        Cond::Ne(v, k) => format!("{} != {k}", GLOBALS[*v]),
        Cond::And(a, b) => format!("({}) && ({})", cond_text(a), cond_text(b)),
    }
}

/// `e` as Cwhile text.
pub fn ex_text(e: &Ex) -> String {
    match e {
        Ex::Const(k) => k.to_string(),
        Ex::Inc(v, k) => format!("({} + {k}) % 3", GLOBALS[*v]),
        Ex::Var(v) => GLOBALS[*v].to_string(),
        Ex::Bits(op, v, k) => format!("({} {} {k}) % 3", GLOBALS[*v], op.symbol()),
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
        St::Tick => out.push_str(&format!("{pad}w := w + 1;\n")),
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
        format!("var x = 0, y = 0, z = 0, m = 0, s = 1, w = 0{qs};\n\nproc f {{\n  local a;\n  y := a;\n")
    }

    /// Thread `i`'s body; `qi` is a global only this thread uses (its steps are private).
    fn thread_body(&self, out: &mut String, i: usize) {
        out.push_str(&format!("  q{i} := (q{i} + 1) % 3;\n  assert(q{i} != 2);\n"));
        block(out, &self.threads[i], 1);
        out.push_str(&format!("  q{i} := (q{i} + 1) % 3;\n  x := q{i};\n"));
    }

    /// The program as Cwhile text, each thread between two private steps of its own (so a
    /// generated last item is not last here: [`crate::interp::Code::text`] prints the
    /// threads as generated).
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
