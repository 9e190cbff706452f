//! A brute-force interpreter of the language's contract (`docs/language.md`), written on the
//! generated statements, not on the checker's compiled code.
//!
//! An atomic block is one step of its thread, taken only along a path that reaches its end
//! (also one with no step of its own, through an empty branch); a failure counts only on such
//! a path; a block no path gets through makes its thread wait
//! before it (blocked at the block's label, whether the paths met a false `await` or a false
//! `assume`). A false `assume` outside atomic blocks cuts its thread when no other option of
//! it waits (a thread that can wait is blocked, whatever its other options). Every reachable state is
//! visited breadth-first up to a state limit; [`Outcome::complete`] says whether the limit
//! stopped it.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use crate::gen::{cond_text, ex_text, Cond, Ex, Prog, St, GLOBALS};

/// Globals: x, y, z (0..3), the lock `m`, the semaphore `s`, the counter `w`.
const M: usize = 3;
const S: usize = 4;
const W: usize = 5;
type Globals = [i64; 6];
const INITIAL: Globals = [0, 0, 0, 0, 1, 0];

/// A statement with its label; compound statements name their blocks.
#[derive(Clone, Debug)]
enum Node {
    Assign(usize, Ex),
    Await(Cond),
    Assume(Cond),
    Assert(Cond),
    Skip,
    Tick,
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

/// A generated program as blocks of labelled statements (every statement labelled `L1`,
/// `L2`, ..., so that the checker's and the interpreter's names agree).
#[derive(Clone, Debug)]
pub struct Code {
    blocks: Vec<Vec<(String, Node)>>,
    /// The body of the procedure `f`.
    proc_block: usize,
    threads: Vec<usize>,
}

impl Code {
    /// Labels `prog`'s statements.
    pub fn new(prog: &Prog) -> Code {
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
            St::Tick => Node::Tick,
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
    pub fn text(&self) -> String {
        let mut out = String::from("var x = 0, y = 0, z = 0, m = 0, s = 1, w = 0;\n\nproc f {\n");
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
                Node::Assign(v, e) => format!("{} := {};", GLOBALS[*v], ex_text(e)),
                Node::Await(c) => format!("await({});", cond_text(c)),
                Node::Assume(c) => format!("assume({});", cond_text(c)),
                Node::Assert(c) => format!("assert({});", cond_text(c)),
                Node::Skip => "skip;".into(),
                Node::Tick => "w := w + 1;".into(),
                Node::Lock => "lock(m);".into(),
                Node::Unlock => "unlock(m);".into(),
                Node::Down => "down(s);".into(),
                Node::Up => "up(s);".into(),
                Node::Call => "f();".into(),
                Node::IfStar(a, e) | Node::IfCond(_, a, e) => {
                    let head = match node {
                        Node::IfCond(c, ..) => cond_text(c),
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
        Ex::Bits(op, v, k) => op.apply(g[*v], *k) % 3,
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
    /// An atomic block entered at the position: its label, its body and where the thread
    /// stands after it.
    Region(String, usize, Pos),
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

/// A way out of an atomic block: the globals, and the failed and the passed assertions on
/// its path.
type Exit = (Globals, BTreeSet<String>, BTreeSet<String>);

/// What running an atomic block from a state gives: its ways out, and whether some path
/// inside can run forever.
struct RegionRun {
    exits: Vec<Exit>,
    cycle: bool,
}

impl Code {
    fn item_at(&self, (b, i): (usize, usize)) -> Option<&(String, Node)> {
        self.blocks[b].get(i)
    }

    /// Every next step and atomic block from `pos`, and whether the thread can finish without
    /// a step. Inside an atomic block (`inside`), a nested block is entered without a step.
    fn next(&self, pos: &Pos, inside: bool) -> (Vec<Next>, bool) {
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
                if let Some(last) = q.last_mut() {
                    last.1 += 1;
                }
                q
            };
            let Some((label, node)) = self.item_at(top) else {
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
                    q.push((self.proc_block, 0));
                    work.push(q);
                }
                Node::Atomic(body) if inside => {
                    let mut q = advanced(&p);
                    q.push((*body, 0));
                    work.push(q);
                }
                Node::Atomic(body) => out.push(Next::Region(label.clone(), *body, advanced(&p))),
                _ => out.push(Next::Step(p.clone(), Step::Item(top.0, top.1))),
            }
        }
        (out, finish)
    }

    /// Takes a step from `pos` (where it stands).
    fn take(&self, g: &Globals, pos: &Pos, step: &Step) -> Taken {
        let mut after = pos.clone();
        if let Some(last) = after.last_mut() {
            last.1 += 1;
        }
        let mut g2 = *g;
        match *step {
            Step::Guard(then, b, i) => {
                let (_, Node::IfCond(c, a, e)) = &self.blocks[b][i] else { unreachable!("a guard stands at an if") };
                if holds(c, g) != then {
                    return Taken::Cut;
                }
                after.push((if then { *a } else { *e }, 0));
                Taken::Done { g: g2, pos: after, failed: None, asserted: None }
            }
            Step::Item(b, i) => {
                let (label, node) = &self.blocks[b][i];
                let mut failed = None;
                let mut asserted = None;
                match node {
                    Node::Assign(v, e) => g2[*v] = ev(e, g),
                    Node::Tick => g2[W] = g[W].wrapping_add(1),
                    Node::Await(c) if !holds(c, g) => return Taken::Waits(label.clone()),
                    Node::Assume(c) if !holds(c, g) => return Taken::Cut,
                    Node::Assert(c) if !holds(c, g) => failed = Some(label.clone()),
                    Node::Assert(_) => asserted = Some(label.clone()),
                    Node::Lock if g[M] != 0 => return Taken::Waits(label.clone()),
                    Node::Lock => g2[M] = 1,
                    Node::Unlock => g2[M] = 0,
                    Node::Down if g[S] <= 0 => return Taken::Waits(label.clone()),
                    Node::Down => g2[S] -= 1,
                    Node::Up => g2[S] += 1,
                    _ => {}
                }
                Taken::Done { g: g2, pos: after, failed, asserted }
            }
        }
    }

    /// Runs an atomic block from `g`: the ways out of the paths that reach its end (one with
    /// no step of its own, through an empty branch or past a loop left at once, too: the block
    /// is one step along every path), and whether some path can run forever inside it.
    fn region(&self, g: &Globals, body: usize) -> RegionRun {
        // Nodes: globals, position inside the body, failures and assertions so far.
        type N = (Globals, Pos, BTreeSet<String>, BTreeSet<String>);
        let start: N = (*g, vec![(body, 0)], BTreeSet::new(), BTreeSet::new());
        let mut seen: HashSet<N> = HashSet::new();
        let mut work = vec![start];
        let mut exits = Vec::new();
        // The graph over (globals, position) for the cycle check.
        let mut edges: HashMap<(Globals, Pos), Vec<(Globals, Pos)>> = HashMap::new();
        while let Some(n) = work.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            let (g, pos, fails, asserts) = n;
            let (nexts, finish) = self.next(&pos, true);
            if finish {
                exits.push((g, fails.clone(), asserts.clone()));
            }
            for nx in nexts {
                let Next::Step(at, step) = nx else { unreachable!("a nested block is entered without a step") };
                if let Taken::Done { g: g2, pos: p2, failed, asserted } = self.take(&g, &at, &step) {
                    edges.entry((g, pos.clone())).or_default().push((g2, p2.clone()));
                    let mut f2 = fails.clone();
                    f2.extend(failed);
                    let mut a2 = asserts.clone();
                    a2.extend(asserted);
                    work.push((g2, p2, f2, a2));
                }
            }
        }
        RegionRun { exits, cycle: has_cycle(&edges) }
    }
}

fn has_cycle<K: Clone + Eq + std::hash::Hash + Ord>(edges: &HashMap<K, Vec<K>>) -> bool {
    // Colours: absent white, 1 on the stack, 2 done.
    let mut colour: HashMap<K, u8> = HashMap::new();
    let mut roots: Vec<&K> = edges.keys().collect();
    roots.sort();
    for root in roots {
        if colour.contains_key(root) {
            continue;
        }
        let mut stack: Vec<(K, usize)> = vec![(root.clone(), 0)];
        colour.insert(root.clone(), 1);
        while let Some((k, i)) = stack.last().cloned() {
            let succ = edges.get(&k).map_or(&[][..], |v| v.as_slice());
            if i < succ.len() {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
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

/// A deadlock as the checker names it: per thread (`t0`, `t1`, ...), `None` when done, the
/// labels it waits at otherwise.
pub type Deadlock = Vec<(String, Option<BTreeSet<String>>)>;

/// What the interpreter found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The labels of the assertions that can fail.
    pub failures: BTreeSet<String>,
    /// Every reachable deadlock: a state where every thread is blocked or can reach its end
    /// without a step, and one is blocked (a cut thread rules it out).
    pub deadlocks: BTreeSet<Deadlock>,
    /// Whether an atomic livelock is reachable.
    pub livelock: bool,
    /// The assertions some step passes.
    pub passed: BTreeSet<String>,
    /// Whether every reachable state was visited (the limit was not reached). When not, the
    /// sets above hold what the visited states show.
    pub complete: bool,
    /// States visited.
    pub states: usize,
}

/// Explores every reachable state of `code` breadth-first, at most `limit` states.
pub fn interpret(code: &Code, limit: usize) -> Outcome {
    let init: (Globals, Vec<Pos>) = (INITIAL, code.threads.iter().map(|&b| vec![(b, 0)]).collect());
    let mut seen: HashSet<(Globals, Vec<Pos>)> = HashSet::new();
    let mut queue = VecDeque::from([init]);
    let mut out = Outcome {
        failures: BTreeSet::new(),
        deadlocks: BTreeSet::new(),
        livelock: false,
        passed: BTreeSet::new(),
        complete: true,
        states: 0,
    };
    while let Some(state) = queue.pop_front() {
        if seen.contains(&state) {
            continue;
        }
        if seen.len() >= limit {
            out.complete = false;
            break;
        }
        seen.insert(state.clone());
        let (g, pos) = state;
        let mut stands: Deadlock = Vec::new();
        // A deadlock: every thread is blocked or can reach its end without a step (it may
        // leave its loops and finish), and one is blocked.
        let (mut all_blocked_or_done, mut any_blocked) = (true, false);
        for (t, at) in pos.iter().enumerate() {
            let (nexts, finish) = code.next(at, false);
            let mut waits = BTreeSet::new();
            let mut cut = false;
            let mut stepped = false;
            for nx in nexts {
                let succs: Vec<(Globals, Pos, BTreeSet<String>, BTreeSet<String>)> = match nx {
                    Next::Step(at, step) => match code.take(&g, &at, &step) {
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
                    Next::Region(label, body, after) => {
                        let run = code.region(&g, body);
                        out.livelock |= run.cycle;
                        // No path gets through: the thread waits before the block.
                        if run.exits.is_empty() {
                            waits.insert(label);
                        }
                        run.exits.into_iter().map(|(g, f, a)| (g, after.clone(), f, a)).collect()
                    }
                };
                for (g2, p2, failed, asserted) in succs {
                    stepped = true;
                    out.failures.extend(failed);
                    out.passed.extend(asserted);
                    let mut ps = pos.clone();
                    ps[t] = p2;
                    queue.push_back((g2, ps));
                }
            }
            // Blocked when some option waits, even beside a cut one (a loop whose exit is a
            // false `assume`); cut only when every option is.
            let blocked = !finish && !stepped && (!waits.is_empty() || !cut);
            all_blocked_or_done &= finish || blocked;
            any_blocked |= blocked;
            let stands_at = blocked.then_some(waits);
            stands.push((format!("t{t}"), stands_at));
        }
        if all_blocked_or_done && any_blocked {
            out.deadlocks.insert(stands);
        }
    }
    out.states = seen.len();
    out
}
