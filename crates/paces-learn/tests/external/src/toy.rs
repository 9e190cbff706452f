//! A toy language of this crate's own, with its own model checker: none of it knows PACES.
//!
//! A program is threads of labelled statements, one a line, and an optional final check:
//!
//! ```text
//! thread T1
//! f: flag := 1
//! d: data := 42
//! thread T2
//! w: await flag == 1
//! a: assert data == 42
//! finally x == 2
//! ```
//!
//! Statements: `x := 5` (a constant), `r := x` (a load), `x := r + 1` (a register plus a
//! constant), `await x == 1`, `assert x == 1`. Names in lower case that a thread assigns from
//! a global are its registers (local to it); all other names are globals, 0 at the start.

use std::collections::BTreeSet;

/// A value a store writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A constant.
    Const(i64),
    /// A register plus a constant (or a global, read directly).
    Plus(String, i64),
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `x := value`.
    Store(String, Value),
    /// `r := x`.
    Load(String, String),
    /// `await x == n`.
    Await(String, i64),
    /// `assert x == n`.
    Assert(String, i64),
}

/// A labelled statement of a thread.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// Its label.
    pub label: String,
    /// What it does.
    pub op: Op,
}

impl Stmt {
    /// Whether the two statements of one thread touch one name, one of them writing it (they
    /// do not commute).
    pub fn conflicts(&self, other: &Stmt) -> bool {
        let ((ra, wa), (rb, wb)) = (self.reads_writes(), other.reads_writes());
        wa.is_some_and(|w| rb.contains(&w) || wb == Some(w)) || wb.is_some_and(|w| ra.contains(&w))
    }

    /// The names it reads and the name it writes.
    pub fn reads_writes(&self) -> (Vec<&str>, Option<&str>) {
        match &self.op {
            Op::Store(x, Value::Const(_)) => (vec![], Some(x)),
            Op::Store(x, Value::Plus(r, _)) => (vec![r], Some(x)),
            Op::Load(r, x) => (vec![x], Some(r)),
            Op::Await(x, _) | Op::Assert(x, _) => (vec![x], None),
        }
    }
}

/// A program: named threads and a final check.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The threads, each a name and its statements.
    pub threads: Vec<(String, Vec<Stmt>)>,
    /// `finally x == n`: checked when every thread has ended.
    pub finally: Option<(String, i64)>,
}

/// Parses a program; panics on text it does not know (a toy).
pub fn parse(text: &str) -> Program {
    let mut p = Program::default();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let num = |w: &str| w.parse::<i64>().expect("a number");
        match words.as_slice() {
            ["thread", name] => p.threads.push((name.to_string(), Vec::new())),
            ["finally", x, "==", n] => p.finally = Some((x.to_string(), num(n))),
            [label, rest @ ..] => {
                let op = match rest {
                    ["await", x, "==", n] => Op::Await(x.to_string(), num(n)),
                    ["assert", x, "==", n] => Op::Assert(x.to_string(), num(n)),
                    [x, ":=", r, "+", n] => Op::Store(x.to_string(), Value::Plus(r.to_string(), num(n))),
                    [x, ":=", n] if n.parse::<i64>().is_ok() => Op::Store(x.to_string(), Value::Const(num(n))),
                    [r, ":=", x] => Op::Load(r.to_string(), x.to_string()),
                    _ => panic!("not a statement: {line}"),
                };
                let label = label.trim_end_matches(':').to_string();
                p.threads.last_mut().expect("a thread first").1.push(Stmt { label, op });
            }
            [] => {}
        }
    }
    p
}

impl Program {
    /// Whether `name` is a register of thread `t` (a load's target).
    pub fn is_register(&self, t: usize, name: &str) -> bool {
        self.threads[t].1.iter().any(|s| matches!(&s.op, Op::Load(r, _) if r == name))
    }
}

/// A schedule to check: for each thread, its statements (indices) cut into units that run
/// as one step (an atomic section is one unit).
pub type Schedule = Vec<Vec<Vec<usize>>>;

/// What kind of statement a step runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A store or a load.
    Plain,
    /// An await.
    Await,
    /// An assertion (the final check too).
    Assert,
}

/// One step of a run: thread (the final check is thread `threads.len()`), label, kind,
/// the names read and the name written with its value (a register's name is qualified by
/// its thread: `T1.r`), whether it failed.
#[derive(Clone, Debug)]
pub struct Step {
    /// The thread.
    pub thread: usize,
    /// The statement's label (`finally` for the final check).
    pub label: String,
    /// What kind of statement.
    pub kind: Kind,
    /// Names read.
    pub reads: Vec<String>,
    /// The name written and its value.
    pub write: Option<(String, i64)>,
    /// Whether an assertion failed.
    pub failed: bool,
}

/// Whether a name of a step is a register (local to its thread).
pub fn is_register(name: &str) -> bool {
    name.contains('.')
}

/// What the checker found: a run with a failure, or none, and one complete good run.
pub struct Found {
    /// The first run (depth first) with a failed assertion, run to its end.
    pub bad: Option<Vec<Step>>,
    /// The first complete run without a failure.
    pub good: Option<Vec<Step>>,
}

type State = (Vec<usize>, Vec<(String, i64)>);

/// Checks every interleaving of the schedule's units (a deadlocked run is left out).
pub fn check(p: &Program, schedule: &Schedule) -> Found {
    let mut found = Found { bad: None, good: None };
    let mut seen = BTreeSet::new();
    search(p, schedule, &mut (vec![0; schedule.len()], Vec::new()), &mut Vec::new(), &mut seen, &mut found);
    found
}

fn get(env: &[(String, i64)], name: &str) -> i64 {
    env.iter().rev().find(|(n, _)| n == name).map_or(0, |(_, v)| *v)
}

fn set(env: &mut Vec<(String, i64)>, name: &str, value: i64) {
    env.retain(|(n, _)| n != name);
    env.push((name.to_string(), value));
    env.sort();
}

fn search(
    p: &Program,
    schedule: &Schedule,
    state: &mut State,
    run: &mut Vec<Step>,
    seen: &mut BTreeSet<(State, bool)>,
    found: &mut Found,
) {
    let failed_so_far = run.iter().any(|s| s.failed);
    if found.bad.is_some() || !seen.insert((state.clone(), failed_so_far)) {
        return;
    }
    let name = |t: usize, n: &str| if p.is_register(t, n) { format!("{}.{n}", p.threads[t].0) } else { n.to_string() };
    if (0..schedule.len()).all(|t| state.0[t] == schedule[t].len()) {
        let mut run = run.clone();
        if let Some((x, n)) = &p.finally {
            let (label, kind, reads) = ("finally".to_string(), Kind::Assert, vec![x.clone()]);
            let failed = get(&state.1, x) != *n;
            run.push(Step { thread: schedule.len(), label, kind, reads, write: None, failed });
        }
        if run.iter().any(|s| s.failed) {
            found.bad = Some(run);
        } else if found.good.is_none() {
            found.good = Some(run);
        }
        return;
    }
    for t in 0..schedule.len() {
        let Some(unit) = schedule[t].get(state.0[t]) else { continue };
        let (saved, len) = (state.clone(), run.len());
        let mut enabled = true;
        for &i in unit {
            let env = &mut state.1;
            let (mut failed, mut value) = (false, 0);
            let stmt = &p.threads[t].1[i];
            match &stmt.op {
                Op::Store(x, v) => {
                    value = match v {
                        Value::Const(v) => *v,
                        Value::Plus(r, k) => get(env, &name(t, r)) + k,
                    };
                    set(env, &name(t, x), value);
                }
                Op::Load(r, x) => {
                    value = get(env, &name(t, x));
                    set(env, &name(t, r), value);
                }
                Op::Await(x, n) => enabled &= get(env, &name(t, x)) == *n,
                Op::Assert(x, n) => failed = get(env, &name(t, x)) != *n,
            }
            let (reads, write) = stmt.reads_writes();
            let kind = match stmt.op {
                Op::Await(..) => Kind::Await,
                Op::Assert(..) => Kind::Assert,
                _ => Kind::Plain,
            };
            run.push(Step {
                thread: t,
                label: stmt.label.clone(),
                kind,
                reads: reads.iter().map(|r| name(t, r)).collect(),
                write: write.map(|w| (name(t, w), value)),
                failed,
            });
        }
        if enabled {
            state.0[t] += 1;
            search(p, schedule, state, run, seen, found);
        }
        *state = saved;
        run.truncate(len);
    }
}
