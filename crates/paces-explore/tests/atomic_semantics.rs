//! The checker against a brute-force interpreter of the language, written here on the
//! generated statements (not on the compiled code): random programs whose atomic blocks hold
//! awaits, assumes, assertions, branches and loops anywhere. An atomic block is one step of
//! its thread, taken only along a path that reaches its end; a failure counts only on such a
//! path; a block no path gets through makes its thread wait before it, whether its paths met
//! a false `await` or a false `assume`. Compared with `check`, with the reduction on and off: the
//! failing assertions, the deadlocks and whether an atomic livelock exists.

mod common;

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use common::{Cond, Ex, Prog, St, GLOBALS};
use paces_explore::{check, CheckResult, Config, ThreadStand, Verdict};
use proptest::prelude::*;

/// Globals: x, y, z (0..3), then the lock `m` and the semaphore `s`.
const M: usize = 3;
const S: usize = 4;
type Globals = [i64; 5];

/// A statement with its label; compound statements name their blocks.
#[derive(Clone, Debug)]
enum Node {
    Assign(usize, Ex),
    Await(Cond),
    Assume(Cond),
    Assert(Cond),
    Skip,
    IfStar(usize, usize),
    IfCond(Cond, usize, usize),
    While(usize),
    Atomic(usize),
    Lock,
    Unlock,
    Down,
    Up,
    Call,
}

/// The program as blocks of labelled statements.
struct Code {
    blocks: Vec<Vec<(String, Node)>>,
    /// The body of the procedure `f`.
    proc_block: usize,
    threads: Vec<usize>,
}

impl Code {
    fn new(prog: &Prog) -> Code {
        let mut c = Code { blocks: Vec::new(), proc_block: 0, threads: Vec::new() };
        let mut n = 0;
        c.proc_block = c.block(&prog.proc_body, &mut n);
        for t in &prog.threads {
            let b = c.block(t, &mut n);
            c.threads.push(b);
        }
        c
    }

    fn label(n: &mut usize) -> String {
        *n += 1;
        format!("L{n}")
    }

    /// Adds a block for `body`; returns its index.
    fn block(&mut self, body: &[St], n: &mut usize) -> usize {
        let mut items = Vec::new();
        for st in body {
            self.item(st, n, &mut items);
        }
        self.blocks.push(items);
        self.blocks.len() - 1
    }

    fn item(&mut self, st: &St, n: &mut usize, items: &mut Vec<(String, Node)>) {
        let node = match st {
            St::Assign(v, e) => Node::Assign(*v, e.clone()),
            St::Await(c) => Node::Await(c.clone()),
            St::Assume(c) => Node::Assume(c.clone()),
            St::Assert(c) => Node::Assert(c.clone()),
            St::Skip => Node::Skip,
            St::IfStar(a, b) => {
                let l = Self::label(n);
                let (a, b) = (self.block(a, n), self.block(b, n));
                items.push((l, Node::IfStar(a, b)));
                return;
            }
            St::IfCond(c, a, b) => {
                let l = Self::label(n);
                let (a, b) = (self.block(a, n), self.block(b, n));
                items.push((l, Node::IfCond(c.clone(), a, b)));
                return;
            }
            St::WhileStar(b) => {
                let l = Self::label(n);
                let b = self.block(b, n);
                items.push((l, Node::While(b)));
                return;
            }
            St::Atomic(first, body) => {
                let l = Self::label(n);
                let mut inner = Vec::new();
                if let Some(c) = first {
                    inner.push((Self::label(n), Node::Await(c.clone())));
                }
                for s in body {
                    self.item(s, n, &mut inner);
                }
                self.blocks.push(inner);
                items.push((l, Node::Atomic(self.blocks.len() - 1)));
                return;
            }
            St::Locked(body) | St::Sem(body) => {
                let sem = matches!(st, St::Sem(_));
                items.push((Self::label(n), if sem { Node::Down } else { Node::Lock }));
                for s in body {
                    self.item(s, n, items);
                }
                items.push((Self::label(n), if sem { Node::Up } else { Node::Unlock }));
                return;
            }
            St::Call => Node::Call,
        };
        items.push((Self::label(n), node));
    }

    /// The program as Cwhile text, every statement labelled.
    fn text(&self) -> String {
        let mut out = String::from("var x = 0, y = 0, z = 0, m = 0, s = 1;\n\nproc f {\n");
        self.block_text(&mut out, self.proc_block, 1);
        out.push_str("}\n");
        for (i, &b) in self.threads.iter().enumerate() {
            out.push_str(&format!("\nthread t{i} {{\n"));
            self.block_text(&mut out, b, 1);
            out.push_str("}\n");
        }
        out
    }

    fn block_text(&self, out: &mut String, b: usize, indent: usize) {
        let pad = "  ".repeat(indent);
        for (l, node) in &self.blocks[b] {
            let line = match node {
                Node::Assign(v, e) => format!("{} := {};", GLOBALS[*v], common::ex_text(e)),
                Node::Await(c) => format!("await({});", common::cond_text(c)),
                Node::Assume(c) => format!("assume({});", common::cond_text(c)),
                Node::Assert(c) => format!("assert({});", common::cond_text(c)),
                Node::Skip => "skip;".into(),
                Node::Lock => "lock(m);".into(),
                Node::Unlock => "unlock(m);".into(),
                Node::Down => "down(s);".into(),
                Node::Up => "up(s);".into(),
                Node::Call => "f();".into(),
                Node::IfStar(a, e) | Node::IfCond(_, a, e) => {
                    let head = match node {
                        Node::IfCond(c, ..) => common::cond_text(c),
                        _ => "*".into(),
                    };
                    out.push_str(&format!("{pad}{l}: if ({head}) {{\n"));
                    self.block_text(out, *a, indent + 1);
                    out.push_str(&format!("{pad}}} else {{\n"));
                    self.block_text(out, *e, indent + 1);
                    out.push_str(&format!("{pad}}}\n"));
                    continue;
                }
                Node::While(body) | Node::Atomic(body) => {
                    let head = if matches!(node, Node::While(_)) { "while (*)" } else { "atomic" };
                    out.push_str(&format!("{pad}{l}: {head} {{\n"));
                    self.block_text(out, *body, indent + 1);
                    out.push_str(&format!("{pad}}}\n"));
                    continue;
                }
            };
            out.push_str(&format!("{pad}{l}: {line}\n"));
        }
    }
}

fn ev(e: &Ex, g: &Globals) -> i64 {
    match e {
        Ex::Const(k) => *k,
        Ex::Inc(v, k) => (g[*v] + k) % 3,
        Ex::Var(v) => g[*v],
    }
}

fn holds(c: &Cond, g: &Globals) -> bool {
    match c {
        Cond::Eq(v, k) => g[*v] == *k,
        Cond::Ne(v, k) => g[*v] != *k,
        Cond::And(a, b) => holds(a, g) && holds(b, g),
    }
}

/// Where a thread stands: a stack of (block, index of the next item). A loop's frame stays at
/// the loop while its body runs.
type Pos = Vec<(usize, usize)>;

/// What a thread can do next from a position, after the moves that take no step.
enum Next {
    /// A step at the position (the item it stands at, or a guard of an `if (c)`).
    Step(Pos, Step),
    /// An atomic region entered at the position: its label, its body (or a lock or down) and
    /// where the thread stands after it.
    Region(String, RegionKind, Pos),
}

#[derive(Clone, Copy)]
enum RegionKind {
    Atomic(usize),
    Lock,
    Down,
}

enum Step {
    Item(usize, usize),
    Guard(bool, usize, usize),
}

/// The result of one step: new globals and position, or why it cannot be taken.
enum Taken {
    /// A step taken: the globals and position after it, the label of a failed assertion, and
    /// the label of a passed one.
    Done {
        g: Globals,
        pos: Pos,
        failed: Option<String>,
        asserted: Option<String>,
    },
    Waits(String),
    Cut,
}

struct Machine {
    code: Code,
}

impl Machine {
    fn item(&self, (b, i): (usize, usize)) -> Option<&(String, Node)> {
        self.code.blocks[b].get(i)
    }

    /// Every next step and region from `pos`, and whether the thread can finish without a
    /// step.
    fn next(&self, pos: &Pos) -> (Vec<Next>, bool) {
        let mut out = Vec::new();
        let mut finish = false;
        let mut seen: HashSet<Pos> = HashSet::new();
        let mut work = vec![pos.clone()];
        while let Some(p) = work.pop() {
            if !seen.insert(p.clone()) {
                continue;
            }
            let Some(&top) = p.last() else {
                finish = true;
                continue;
            };
            let advanced = |p: &Pos| {
                let mut q = p.clone();
                q.last_mut().unwrap().1 += 1;
                q
            };
            let Some((label, node)) = self.item(top) else {
                // The end of a block: back to the item holding it (branches and calls advanced
                // their frame on entry; a loop's frame stays at the loop).
                let mut q = p.clone();
                q.pop();
                work.push(q);
                continue;
            };
            match node {
                Node::IfStar(a, e) => {
                    for blk in [*a, *e] {
                        let mut q = advanced(&p);
                        q.push((blk, 0));
                        work.push(q);
                    }
                }
                Node::IfCond(..) => {
                    out.push(Next::Step(p.clone(), Step::Guard(true, top.0, top.1)));
                    out.push(Next::Step(p.clone(), Step::Guard(false, top.0, top.1)));
                }
                Node::While(body) => {
                    let mut q = p.clone();
                    q.push((*body, 0));
                    work.push(q);
                    work.push(advanced(&p));
                }
                Node::Call => {
                    let mut q = advanced(&p);
                    q.push((self.code.proc_block, 0));
                    work.push(q);
                }
                Node::Atomic(body) => {
                    out.push(Next::Region(label.clone(), RegionKind::Atomic(*body), advanced(&p)));
                    // A body that can end without a step is passed silently as well.
                    if self.next(&vec![(*body, 0)]).1 {
                        work.push(advanced(&p));
                    }
                }
                Node::Lock => out.push(Next::Region(label.clone(), RegionKind::Lock, advanced(&p))),
                Node::Down => out.push(Next::Region(label.clone(), RegionKind::Down, advanced(&p))),
                _ => out.push(Next::Step(p.clone(), Step::Item(top.0, top.1))),
            }
        }
        (out, finish)
    }

    /// Takes a step from `pos` (where it stands).
    fn take(&self, g: &Globals, pos: &Pos, step: &Step) -> Taken {
        let mut after = pos.clone();
        after.last_mut().unwrap().1 += 1;
        let mut g2 = *g;
        match *step {
            Step::Guard(then, b, i) => {
                let (_, Node::IfCond(c, a, e)) = &self.code.blocks[b][i] else { unreachable!() };
                if holds(c, g) != then {
                    return Taken::Cut;
                }
                after.push((if then { *a } else { *e }, 0));
                Taken::Done { g: g2, pos: after, failed: None, asserted: None }
            }
            Step::Item(b, i) => {
                let (label, node) = &self.code.blocks[b][i];
                let mut failed = None;
                let mut asserted = None;
                match node {
                    Node::Assign(v, e) => g2[*v] = ev(e, g),
                    Node::Await(c) if !holds(c, g) => return Taken::Waits(label.clone()),
                    Node::Assume(c) if !holds(c, g) => return Taken::Cut,
                    Node::Assert(c) if !holds(c, g) => failed = Some(label.clone()),
                    Node::Assert(_) => asserted = Some(label.clone()),
                    Node::Unlock => g2[M] = 0,
                    Node::Up => g2[S] += 1,
                    _ => {}
                }
                Taken::Done { g: g2, pos: after, failed, asserted }
            }
        }
    }

    /// Runs an atomic region from `g`: the ways out (globals, labels of the failed and of the
    /// passed assertions on the path) of the paths with at least one step that reach its end, whether
    /// some path met a false await or assume, and whether the region can run forever.
    fn region(&self, g: &Globals, kind: RegionKind) -> (Vec<Exit>, bool, bool) {
        match kind {
            RegionKind::Lock => {
                let ok = g[M] == 0;
                let mut g2 = *g;
                g2[M] = 1;
                return (if ok { vec![(g2, BTreeSet::new(), BTreeSet::new())] } else { Vec::new() }, !ok, false);
            }
            RegionKind::Down => {
                let ok = g[S] > 0;
                let mut g2 = *g;
                g2[S] -= 1;
                return (if ok { vec![(g2, BTreeSet::new(), BTreeSet::new())] } else { Vec::new() }, !ok, false);
            }
            RegionKind::Atomic(_) => {}
        }
        let RegionKind::Atomic(body) = kind else { unreachable!() };
        // Nodes: globals, position inside the body, whether a step was taken, failures and
        // assertions so far.
        type N = (Globals, Pos, bool, BTreeSet<String>, BTreeSet<String>);
        let start: N = (*g, vec![(body, 0)], false, BTreeSet::new(), BTreeSet::new());
        let mut seen: HashSet<N> = HashSet::new();
        let mut work = vec![start];
        let mut exits = Vec::new();
        let mut waited = false;
        // The graph over (globals, position) for the cycle check.
        let mut edges: HashMap<(Globals, Pos), Vec<(Globals, Pos)>> = HashMap::new();
        while let Some(n) = work.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            let (g, pos, moved, fails, asserts) = n;
            let (nexts, finish) = self.next(&pos);
            if finish && moved {
                exits.push((g, fails.clone(), asserts.clone()));
            }
            for nx in nexts {
                let Next::Step(at, step) = nx else { panic!("no region inside a region") };
                match self.take(&g, &at, &step) {
                    Taken::Done { g: g2, pos: p2, failed, asserted } => {
                        edges.entry((g, pos.clone())).or_default().push((g2, p2.clone()));
                        let mut f2 = fails.clone();
                        f2.extend(failed);
                        let mut a2 = asserts.clone();
                        a2.extend(asserted);
                        work.push((g2, p2, true, f2, a2));
                    }
                    // Inside a block, a false `assume` stops a path as a false `await` does.
                    Taken::Waits(_) | Taken::Cut => waited = true,
                }
            }
        }
        (exits, waited, has_cycle(&edges))
    }
}

fn has_cycle<K: Clone + Eq + std::hash::Hash>(edges: &HashMap<K, Vec<K>>) -> bool {
    // Colours: absent white, 1 on the stack, 2 done.
    let mut colour: HashMap<K, u8> = HashMap::new();
    for root in edges.keys() {
        if colour.contains_key(root) {
            continue;
        }
        let mut stack: Vec<(K, usize)> = vec![(root.clone(), 0)];
        colour.insert(root.clone(), 1);
        while let Some((k, i)) = stack.last().cloned() {
            let succ = edges.get(&k).map_or(&[][..], |v| v.as_slice());
            if i < succ.len() {
                stack.last_mut().unwrap().1 += 1;
                let s = &succ[i];
                match colour.get(s) {
                    Some(1) => return true,
                    Some(_) => {}
                    None => {
                        colour.insert(s.clone(), 1);
                        stack.push((s.clone(), 0));
                    }
                }
            } else {
                colour.insert(k, 2);
                stack.pop();
            }
        }
    }
    false
}

/// A deadlock as compared: per thread, `None` when done, the labels it waits at otherwise.
type Dl = Vec<(String, Option<BTreeSet<String>>)>;

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    failures: BTreeSet<String>,
    deadlocks: BTreeSet<Dl>,
    livelock: bool,
    /// The assertions some step passes.
    passed: BTreeSet<String>,
}

/// A way out of an atomic region: the globals, and the failed and the passed assertions on
/// its path.
type Exit = (Globals, BTreeSet<String>, BTreeSet<String>);

/// Explores every reachable state of the program by brute force.
fn interpret(m: &Machine) -> Option<Outcome> {
    let n = m.code.threads.len();
    let init: (Globals, Vec<Pos>) = ([0, 0, 0, 0, 1], m.code.threads.iter().map(|&b| vec![(b, 0)]).collect());
    let mut seen: HashSet<(Globals, Vec<Pos>)> = HashSet::new();
    let mut queue = VecDeque::from([init]);
    let mut out =
        Outcome { failures: BTreeSet::new(), deadlocks: BTreeSet::new(), livelock: false, passed: BTreeSet::new() };
    while let Some(state) = queue.pop_front() {
        if !seen.insert(state.clone()) {
            continue;
        }
        if seen.len() > 200_000 {
            return None;
        }
        let (g, pos) = state;
        let mut any_step = false;
        let mut stands: Dl = Vec::new();
        let mut any_cut = false;
        for t in 0..n {
            let (nexts, finish) = m.next(&pos[t]);
            let mut waits = BTreeSet::new();
            let mut cut = false;
            for nx in nexts {
                let succs: Vec<(Globals, Pos, BTreeSet<String>, BTreeSet<String>)> = match nx {
                    Next::Step(at, step) => match m.take(&g, &at, &step) {
                        Taken::Done { g, pos, failed, asserted } => {
                            vec![(g, pos, failed.into_iter().collect(), asserted.into_iter().collect())]
                        }
                        Taken::Waits(l) => {
                            waits.insert(l);
                            continue;
                        }
                        Taken::Cut => {
                            cut = true;
                            continue;
                        }
                    },
                    Next::Region(label, kind, after) => {
                        let (exits, waited, cycle) = m.region(&g, kind);
                        out.livelock |= cycle;
                        // A block whose only paths take no step is passed silently (`next`)
                        // and stops nothing.
                        if exits.is_empty() && waited {
                            waits.insert(label);
                        }
                        exits.into_iter().map(|(g, f, a)| (g, after.clone(), f, a)).collect()
                    }
                };
                for (g2, p2, failed, asserted) in succs {
                    any_step = true;
                    out.failures.extend(failed);
                    out.passed.extend(asserted);
                    let mut ps = pos.clone();
                    ps[t] = p2;
                    queue.push_back((g2, ps));
                }
            }
            any_cut |= cut && !finish;
            let name = format!("t{t}");
            // A done or cut thread shows as done (a cut thread rules the deadlock out).
            stands.push((name, (!finish && !cut).then_some(waits)));
        }
        if !any_step && !any_cut && stands.iter().any(|(_, s)| s.is_some()) {
            out.deadlocks.insert(stands);
        }
    }
    Some(out)
}

fn observed(r: &CheckResult) -> Outcome {
    let deadlocks = r
        .deadlocks
        .keys()
        .map(|id| {
            id.threads
                .iter()
                .map(|(name, stand)| match stand {
                    ThreadStand::Done => (name.clone(), None),
                    ThreadStand::Blocked(l) => (name.clone(), Some(l.iter().cloned().collect())),
                })
                .collect()
        })
        .collect();
    Outcome {
        failures: r.failures.keys().cloned().collect(),
        deadlocks,
        livelock: !r.livelocks.is_empty(),
        passed: r.passed_assertions.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn checker_agrees_with_a_brute_force_interpreter(prog in common::prog()) {
        let code = Code::new(&prog);
        let text = code.text();
        let program = paces_cwhile::parse(&text).map_err(|d| TestCaseError::fail(format!("{d}\n{text}")))?;
        let Some(expected) = interpret(&Machine { code }) else { return Ok(()) };
        for por in [true, false] {
            let r = check(&program, &Config::new().stop_at_first_failure(false).por(por).max_states(500_000)).unwrap();
            prop_assert!(!matches!(r.verdict, Verdict::BoundReached { .. }), "{}", text);
            prop_assert_eq!(&observed(&r), &expected, "por {}\n{}", por, text);
        }
    }
}

/// The interpreter on a hand-written case: a failure on a path that then waits forever is not
/// one, and the thread waits before the block.
#[test]
fn the_interpreter_drops_paths_that_do_not_get_through() {
    let prog = Prog {
        threads: vec![
            vec![St::Atomic(None, vec![St::Assert(Cond::Eq(0, 1)), St::Await(Cond::Eq(0, 1))])],
            vec![St::Assign(1, Ex::Const(1))],
        ],
        proc_body: vec![St::Skip],
    };
    let code = Code::new(&prog);
    let text = code.text();
    let out = interpret(&Machine { code }).unwrap();
    assert!(out.failures.is_empty());
    assert_eq!(out.deadlocks.len(), 1, "{text}");
    let program = paces_cwhile::parse(&text).unwrap();
    let r = check(&program, &Config::new().stop_at_first_failure(false)).unwrap();
    assert_eq!(observed(&r), out, "{text}");
}
