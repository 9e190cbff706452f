//! Theorem 1 against a brute-force oracle: on random small programs and random good traces,
//! no candidate program that satisfies the learned constraint has a regression.
//!
//! The programs are straight-line: 2 or 3 threads of 1 to 4 statements over 2 or 3 shared
//! variables (initially 0), each statement one of `x := c`, `x := y`, `assert(x == c)`,
//! `await(x == c)`, run by a tiny interpreter written here (the crate knows no language).
//! Each thread is one block whose items are its statements; two items keep their order when
//! they do not commute (one writes a variable the other reads or writes), as in Cwhile
//! (`docs/language.md`). Atomic sections are part of the space in about half of the cases (and whenever
//! the space stays small enough to enumerate), so candidates with sections are checked too.
//!
//! The oracle follows the paper's definitions literally, with one economy (explained at
//! `closure`): from the good trace pi it explores every sequence reachable by switching two
//! adjacent events, where a switch is allowed when the two orders of the pair leave the same
//! state (modulo the error flag) and every await still runs only when it holds; a switch of two
//! events of one thread is allowed only against the original order and only for a pair the
//! space lets change order. A candidate has a regression with respect to pi when such a
//! sequence is a trace of the candidate (its threads in the candidate's orders, every added
//! atomic section run without interruption) that is bad and whose events read the
//! DFConds edges of pi unchanged (condition (c)), and pi itself does not freely transform into
//! a bad trace (condition (b)).

use std::collections::VecDeque;

use paces_constraint::{Arena, BlockId, Candidate, ErrorKind, ItemInfo, Loc, Space, SpaceBuilder};
use paces_testkit::Rng;
use paces_trace::{
    learn_good, BlockInstance, EventKind, LearnConfig, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId, Variant,
};

/// How many (program, good trace) cases to check (cases where pi freely transforms into a bad
/// trace are not counted: no candidate can have a regression then).
const CASES: usize = 2000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stmt {
    Const(usize, i64),
    Copy(usize, usize),
    Assert(usize, i64),
    Await(usize, i64),
}

impl Stmt {
    fn reads(self) -> Option<usize> {
        match self {
            Stmt::Const(..) => None,
            Stmt::Copy(_, y) | Stmt::Assert(y, _) | Stmt::Await(y, _) => Some(y),
        }
    }

    fn writes(self) -> Option<usize> {
        match self {
            Stmt::Const(x, _) | Stmt::Copy(x, _) => Some(x),
            Stmt::Assert(..) | Stmt::Await(..) => None,
        }
    }

    /// Cwhile's rule: neither writes a variable that the other reads or writes.
    fn commutes(self, other: Stmt) -> bool {
        let clash = |a: Stmt, b: Stmt| a.writes().is_some_and(|w| b.reads() == Some(w) || b.writes() == Some(w));
        !clash(self, other) && !clash(other, self)
    }

    fn text(self) -> String {
        let v = |x: usize| ["x", "y", "z"][x];
        match self {
            Stmt::Const(x, c) => format!("{} := {c}", v(x)),
            Stmt::Copy(x, y) => format!("{} := {}", v(x), v(y)),
            Stmt::Assert(x, c) => format!("assert({} == {c})", v(x)),
            Stmt::Await(x, c) => format!("await({} == {c})", v(x)),
        }
    }
}

struct Program {
    threads: Vec<Vec<Stmt>>,
    /// Event (statement) ids: thread t, statement j is `first[t] + j`.
    first: Vec<usize>,
    vars: usize,
}

impl Program {
    fn random(rng: &mut Rng) -> Program {
        let vars = 2 + rng.below(2);
        let nthreads = 2 + rng.below(2);
        let mut threads = Vec::new();
        for _ in 0..nthreads {
            let len = 1 + rng.below(4);
            let mut body = Vec::new();
            for _ in 0..len {
                let x = rng.below(vars);
                let c = rng.below(3) as i64;
                body.push(match rng.below(10) {
                    0..=3 => Stmt::Const(x, c.max(1)),
                    4..=5 => Stmt::Copy(x, (x + 1 + rng.below(vars - 1)) % vars),
                    6..=7 => Stmt::Assert(x, c),
                    _ => Stmt::Await(x, c),
                });
            }
            threads.push(body);
        }
        let mut first = Vec::new();
        let mut n = 0;
        for t in &threads {
            first.push(n);
            n += t.len();
        }
        Program { threads, first, vars }
    }

    fn events(&self) -> usize {
        self.threads.iter().map(Vec::len).sum()
    }

    /// (thread, index in the thread) of an event.
    fn at(&self, e: usize) -> (usize, usize) {
        let t = self.first.iter().rposition(|&f| f <= e).unwrap_or(0);
        (t, e - self.first[t])
    }

    fn stmt(&self, e: usize) -> Stmt {
        let (t, j) = self.at(e);
        self.threads[t][j]
    }

    fn show(&self) -> String {
        let threads: Vec<String> = self
            .threads
            .iter()
            .enumerate()
            .map(|(t, body)| {
                let stmts: Vec<String> =
                    body.iter().enumerate().map(|(j, s)| format!("{}: {}", self.first[t] + j, s.text())).collect();
                format!("{{ {} }}", stmts.join("; "))
            })
            .collect();
        threads.join(" || ")
    }

    /// The space: block t holds thread t's statements, location = event id.
    fn space(&self, sections: bool) -> Space {
        let mut b = SpaceBuilder::new();
        for (t, body) in self.threads.iter().enumerate() {
            let block = b.block(!sections);
            for (j, s) in body.iter().enumerate() {
                let loc = b.loc(&(self.first[t] + j).to_string()).expect("fresh name");
                let info = if matches!(s, Stmt::Await(..)) { ItemInfo::AWAIT } else { ItemInfo::SIMPLE };
                b.item(block, loc, info).expect("item");
            }
        }
        for (t, body) in self.threads.iter().enumerate() {
            for i in 0..body.len() {
                for j in i + 1..body.len() {
                    if !body[i].commutes(body[j]) {
                        let loc = |k: usize| Loc::from_u32((self.first[t] + k) as u32);
                        b.fix(loc(i), loc(j)).expect("fix");
                    }
                }
            }
        }
        b.build().expect("space")
    }
}

/// What running a sequence of events from the initial state gives.
struct Run {
    /// Per event: the event its read is from (`None`: the initial state, or no read).
    read_from: Vec<Option<usize>>,
    bad: bool,
}

/// Runs a sequence; `None` when an await runs while its condition is false.
fn run(p: &Program, seq: &[usize]) -> Option<Run> {
    let mut vals = vec![0i64; p.vars];
    let mut writer: Vec<Option<usize>> = vec![None; p.vars];
    let mut read_from = vec![None; p.events()];
    let mut bad = false;
    for &e in seq {
        let s = p.stmt(e);
        if let Some(v) = s.reads() {
            read_from[e] = writer[v];
        }
        match s {
            Stmt::Const(x, c) => vals[x] = c,
            Stmt::Copy(x, y) => vals[x] = vals[y],
            Stmt::Assert(x, c) => bad |= vals[x] != c,
            Stmt::Await(x, c) if vals[x] != c => return None,
            Stmt::Await(..) => {}
        }
        if let Some(x) = s.writes() {
            writer[x] = Some(e);
        }
    }
    Some(Run { read_from, bad })
}

/// The variables' values after a sequence (`None` when an await is not enabled).
fn state(p: &Program, seq: &[usize]) -> Option<Vec<i64>> {
    let mut vals = vec![0i64; p.vars];
    for &e in seq {
        match p.stmt(e) {
            Stmt::Const(x, c) => vals[x] = c,
            Stmt::Copy(x, y) => vals[x] = vals[y],
            Stmt::Await(x, c) if vals[x] != c => return None,
            Stmt::Assert(..) | Stmt::Await(..) => {}
        }
    }
    Some(vals)
}

/// A random complete trace of the original program (threads in program order), or `None`
/// after a few deadlocked attempts.
fn random_trace(p: &Program, rng: &mut Rng) -> Option<Vec<usize>> {
    'attempt: for _ in 0..20 {
        let mut next = vec![0usize; p.threads.len()];
        let mut seq = Vec::new();
        while seq.len() < p.events() {
            let mut enabled = Vec::new();
            for (t, body) in p.threads.iter().enumerate() {
                if next[t] < body.len() {
                    seq.push(p.first[t] + next[t]);
                    if state(p, &seq).is_some() {
                        enabled.push(t);
                    }
                    seq.pop();
                }
            }
            if enabled.is_empty() {
                continue 'attempt;
            }
            let t = enabled[rng.below(enabled.len())];
            seq.push(p.first[t] + next[t]);
            next[t] += 1;
        }
        return Some(seq);
    }
    None
}

/// The trace of a sequence, through the builder: thread t runs in instance 0 of block t.
fn build_trace(p: &Program, seq: &[usize]) -> Trace {
    let mut b = TraceBuilder::new();
    for &e in seq {
        let (t, _) = p.at(e);
        let loc = Loc::from_u32(e as u32);
        let scope =
            vec![ScopeEntry { instance: BlockInstance { block: BlockId::from_u32(t as u32), instance: 0 }, item: loc }];
        let s = p.stmt(e);
        let mut step = b.step(ThreadId::from_u32(t as u32), loc, scope);
        if let Some(v) = s.reads() {
            step = step.read(VarId::from_u32(v as u32));
        }
        step = match s {
            Stmt::Const(x, c) => step.write(VarId::from_u32(x as u32), c),
            Stmt::Copy(x, _) => {
                let value = state(p, &seq[..seq.iter().position(|&f| f == e).unwrap_or(0) + 1]).expect("runs")[x];
                step.write(VarId::from_u32(x as u32), value)
            }
            Stmt::Assert(..) => step.kind(EventKind::Assert),
            Stmt::Await(..) => step.kind(EventKind::Await),
        };
        step.push().expect("a run of the interpreter is a valid trace");
    }
    b.finish()
}

/// One bad sequence of the closure, with what the candidates are checked against.
struct Reached {
    /// Per thread, its events in the order the sequence runs them.
    orders: Vec<Vec<usize>>,
    /// Position of each event.
    pos: Vec<usize>,
    /// Whether every DFConds edge of pi holds unchanged (condition (c)).
    conds_kept: bool,
}

/// Every bad sequence reachable from `pi` by allowed switches.
///
/// The paper composes the closures of the candidate's transformations one after the other
/// (theta_k^f o ... o theta_1^f). Here one exploration serves every candidate: a switch of two
/// events of one thread only ever puts them against the original order, so along any path the
/// set of inverted pairs only grows, and a sequence whose threads run in a candidate's orders
/// was reached only through sequences inverting a subset of the candidate's pairs. This
/// explores the union of the candidate's reorderings in any order, a superset of the composed
/// closures: a stricter oracle, on which Theorem 1's argument holds just the same.
fn closure(p: &Program, space: &Space, pi: &[usize]) -> Vec<Reached> {
    let n = pi.len();
    // DFConds edges of pi: the reads-from of every conditional and, recursively, of the
    // writers they read from.
    let base = run(p, pi).expect("pi runs");
    let mut in_closure: Vec<bool> = (0..p.events()).map(|e| matches!(p.stmt(e), Stmt::Await(..))).collect();
    for &e in pi.iter().rev() {
        if in_closure[e] {
            if let Some(w) = base.read_from[e] {
                in_closure[w] = true;
            }
        }
    }
    // Which same-thread pairs may be switched (first before second originally).
    let movable = |a: usize, b: usize| {
        let ((ta, ja), (tb, jb)) = (p.at(a), p.at(b));
        ta != tb || (ja < jb && space.may_change_order(Loc::from_u32(a as u32), Loc::from_u32(b as u32)))
    };
    // Sequences are packed four bits per event (at most 12 events).
    let pack = |seq: &[usize]| seq.iter().rev().fold(0u64, |acc, &e| acc << 4 | e as u64);
    let unpack = |code: u64| (0..n).map(|i| (code >> (4 * i) & 15) as usize).collect::<Vec<usize>>();
    let mut seen: rustc_hash::FxHashSet<u64> = rustc_hash::FxHashSet::default();
    seen.insert(pack(pi));
    let mut queue = VecDeque::from([pack(pi)]);
    let mut out = Vec::new();
    let mut states = vec![[0i64; 3]; n + 1];
    while let Some(code) = queue.pop_front() {
        let mut seq = unpack(code);
        // The state before each position (every sequence queued runs).
        for (i, &e) in seq.iter().enumerate() {
            states[i + 1] = step(p, states[i], e).expect("queued sequences run");
        }
        let r = run(p, &seq).expect("queued sequences run");
        let conds_kept = (0..p.events())
            .filter(|&e| in_closure[e] && p.stmt(e).reads().is_some())
            .all(|e| r.read_from[e] == base.read_from[e]);
        if r.bad {
            let mut orders = vec![Vec::new(); p.threads.len()];
            let mut pos = vec![0; p.events()];
            for (i, &e) in seq.iter().enumerate() {
                orders[p.at(e).0].push(e);
                pos[e] = i;
            }
            out.push(Reached { orders, pos, conds_kept });
        }
        for i in 0..n.saturating_sub(1) {
            let (a, b) = (seq[i], seq[i + 1]);
            if !movable(a, b) {
                continue;
            }
            // Same state after the pair (modulo the error flag), and every await enabled. The
            // suffix then runs as before.
            let after = step(p, states[i], b).and_then(|s| step(p, s, a));
            if after != Some(states[i + 2]) {
                continue;
            }
            seq.swap(i, i + 1);
            let next = pack(&seq);
            seq.swap(i, i + 1);
            if seen.insert(next) {
                queue.push_back(next);
            }
        }
    }
    out
}

/// One event on a state; `None` when it is an await whose condition is false.
fn step(p: &Program, mut vals: [i64; 3], e: usize) -> Option<[i64; 3]> {
    match p.stmt(e) {
        Stmt::Const(x, c) => vals[x] = c,
        Stmt::Copy(x, y) => vals[x] = vals[y],
        Stmt::Await(x, c) if vals[x] != c => return None,
        Stmt::Assert(..) | Stmt::Await(..) => {}
    }
    Some(vals)
}

/// Whether a reached sequence is a trace of the candidate: every thread in the candidate's
/// order and every added section run without a context switch.
fn is_trace_of(cand: &Candidate, r: &Reached) -> bool {
    for (t, order) in r.orders.iter().enumerate() {
        let want = cand.order(BlockId::from_u32(t as u32));
        if want.len() != order.len() || want.iter().zip(order).any(|(l, &e)| l.index() != e) {
            return false;
        }
    }
    cand.sections().iter().all(|s| {
        let items = cand.section_items(s);
        let mut positions: Vec<usize> = items.iter().map(|l| r.pos[l.index()]).collect();
        positions.sort_unstable();
        positions.windows(2).all(|w| w[1] == w[0] + 1)
    })
}

#[derive(Default, Debug)]
struct Tally {
    /// Whether a candidate that satisfies the constraint and has a regression is a failure.
    must_be_sound: bool,
    candidates: usize,
    satisfying: usize,
    with_regression: usize,
    /// Candidates without a regression that the constraint rejects.
    rejected_without_regression: usize,
    /// Candidates that satisfy the constraint and have a regression (unsound).
    unsound: usize,
    fallbacks: usize,
}

impl Tally {
    fn incompleteness(&self) -> f64 {
        let free = self.candidates - self.with_regression;
        self.rejected_without_regression as f64 / free.max(1) as f64
    }
}

#[test]
fn learned_constraints_prevent_every_regression() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    // The paper's algorithm (the default), which must be sound, and for comparison the
    // variants without the fallback and the original tool's simplification.
    let configs = [
        LearnConfig::new(),
        LearnConfig::new().fallback(false),
        LearnConfig::new().variant(Variant::Simplified),
        LearnConfig::new().variant(Variant::Simplified).fallback(false),
    ];
    let names = ["full, fallback on", "full, no fallback", "simplified, fallback on", "simplified, no fallback"];
    let mut tallies: Vec<Tally> =
        (0..configs.len()).map(|i| Tally { must_be_sound: i == 0, ..Tally::default() }).collect();
    let (mut cases, mut programs, mut skipped_b, mut with_sections) = (0, 0, 0, 0);
    let mut failures: Vec<String> = Vec::new();
    while cases < CASES {
        programs += 1;
        let p = Program::random(&mut rng);
        let Some(pi) = random_trace(&p, &mut rng) else { continue };
        if run(&p, &pi).expect("runs").bad {
            continue;
        }
        let mut sections = rng.below(2) == 0;
        let candidates = loop {
            let space = p.space(sections);
            match Candidate::enumerate(&space, 3000) {
                Ok(c) => break Some((space, c)),
                Err(e) if *e.kind() == ErrorKind::TooMany && sections => sections = false,
                Err(_) => break None,
            }
        };
        let Some((space, candidates)) = candidates else { continue };
        let reached = closure(&p, &space, &pi);
        // Condition (b): pi freely transforms into a bad trace of the original program.
        let original = Candidate::original(&space);
        if reached.iter().any(|r| is_trace_of(&original, r)) {
            skipped_b += 1;
            continue;
        }
        cases += 1;
        with_sections += usize::from(sections);
        let trace = build_trace(&p, &pi);
        // Only bad sequences that keep pi's DFConds edges can be regressions.
        let bad: Vec<&Reached> = reached.iter().filter(|r| r.conds_kept).collect();
        let regression: Vec<bool> = candidates.iter().map(|c| bad.iter().any(|r| is_trace_of(c, r))).collect();
        for (config, tally) in configs.iter().zip(tallies.iter_mut()) {
            let mut arena = Arena::new();
            let learned = learn_good(&trace, &mut arena, config);
            tally.fallbacks += usize::from(learned.fallback_used);
            for (cand, &regression) in candidates.iter().zip(&regression) {
                let sat = arena.eval(learned.constraint, cand);
                tally.candidates += 1;
                tally.satisfying += usize::from(sat);
                tally.with_regression += usize::from(regression);
                tally.rejected_without_regression += usize::from(!sat && !regression);
                if sat && regression {
                    tally.unsound += 1;
                    if tally.must_be_sound && failures.len() < 5 {
                        let order: Vec<String> = space
                            .blocks()
                            .map(|b| {
                                cand.order(b).iter().map(|l| space.name(*l).to_owned()).collect::<Vec<_>>().join(" ")
                            })
                            .collect();
                        failures.push(format!(
                            "program {}\n  trace {:?}\n  constraint {}\n  candidate {:?} sections {:?}",
                            p.show(),
                            pi,
                            arena.display(learned.constraint, &space, 200),
                            order,
                            cand.sections()
                        ));
                    }
                }
            }
        }
    }
    println!(
        "soundness oracle: {cases} cases from {programs} programs ({with_sections} with atomic sections, \
         {skipped_b} good traces skipped because they freely turn bad)"
    );
    for (name, t) in names.iter().zip(&tallies) {
        println!(
            "{name}: {} candidates, {} satisfy the constraint, {} have a regression, {} unsound, \
             {} fallbacks; incompleteness {:.1}% ({} of {} regression-free candidates rejected)",
            t.candidates,
            t.satisfying,
            t.with_regression,
            t.unsound,
            t.fallbacks,
            100.0 * t.incompleteness(),
            t.rejected_without_regression,
            t.candidates - t.with_regression
        );
    }
    assert!(failures.is_empty(), "regressions allowed by the learned constraint:\n{}", failures.join("\n"));
    assert_eq!(tallies[0].unsound, 0);
    assert!(tallies[0].with_regression > 0, "the oracle found no regression at all: the programs are too tame");
}
