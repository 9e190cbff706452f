//! The trace elimination graph of a generalised bad trace, its cycles (the fixes) and the
//! error-eliminating constraint.

use std::collections::BinaryHeap;
use std::fmt::Write as _;

use paces_constraint::{Arena, Atom, Loc, NodeId, SectionRole, Space};
use paces_trace::{lift, Event, EventId, EventKind, Trace};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::partial_order::{escape, node_event};
use crate::{Error, ErrorKind, PartialOrder};

const NONE: u32 = u32::MAX;

/// Settings of [`eliminate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EliminateConfig {
    max_constraint_edges: usize,
    max_fixes: usize,
    max_work: u64,
    preemption_search_budget: u64,
    max_memory: u64,
}

impl Default for EliminateConfig {
    fn default() -> Self {
        EliminateConfig {
            max_constraint_edges: 2,
            max_fixes: 1000,
            max_work: 20_000_000,
            preemption_search_budget: 1_000_000,
            max_memory: 1 << 30,
        }
    }
}

impl EliminateConfig {
    /// The default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// The most constraint edges (reorders, kept orders, atomic sections) an elimination cycle
    /// may use: the paper's K. `0` finds no fix. Default: 2.
    pub fn max_constraint_edges(mut self, k: usize) -> Self {
        self.max_constraint_edges = k;
        self
    }

    /// The most fixes returned; the cheapest (by the weights of their constraint edges) are
    /// kept and [`Elimination::complete`] turns false when more may exist. Default: 1000.
    pub fn max_fixes(mut self, n: usize) -> Self {
        self.max_fixes = n;
        self
    }

    /// A bound on the steps of the cycle search (candidate constraint edges tried); when it is
    /// reached the fixes found so far are returned and [`Elimination::complete`] is false.
    /// Default: 20 000 000.
    pub fn max_work(mut self, steps: u64) -> Self {
        self.max_work = steps;
        self
    }

    /// A bound on the events executed while searching for a preemption-free linearisation of
    /// the partial order; when it is reached the trace is treated as not preemption-free
    /// (the cautious answer: fixes that act across preemption points are left out).
    /// Default: 1 000 000.
    pub fn preemption_search_budget(mut self, steps: u64) -> Self {
        self.preemption_search_budget = steps;
        self
    }

    /// The most bytes the reachability tables may take (they grow with the number of events
    /// of the partial order times the number of events at the ends of cross-thread orderings,
    /// and with the square of each thread's length); a larger trace is refused with
    /// [`ErrorKind::TooLarge`] instead of exhausting memory. Default: 1 GiB.
    pub fn max_memory(mut self, bytes: u64) -> Self {
        self.max_memory = bytes;
        self
    }
}

/// The kind of an edge of the trace elimination graph, with its constraint for the edges
/// that stand for program constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum EdgeKind {
    /// A cross-thread ordering of the partial order (weight 1, no constraint).
    Ordering,
    /// Program order that every candidate keeps: the events lie in different block
    /// instances, in one item, or in items that may never change order (weight: the span,
    /// the number of steps of the thread from one to the other; no constraint). Also the
    /// order of a thread's events before its blocked step.
    Forced,
    /// From one blocked step of a deadlock to another: both stand at the end (weight 0, no
    /// constraint).
    Deadlock,
    /// Forward between items that may be reordered: keep the first one first,
    /// `Order(earlier, later)` (weight: the span; the program need not change).
    Keep(Atom),
    /// Backward between items that may be reordered: put the later one first,
    /// `Order(later, earlier)` (weight R times the item pairs the move inverts at least).
    Reorder(Atom),
    /// Backward: an atomic section holding both items, `Atomic(a, b)` (weight A times the
    /// simple statements of the items it spans in the original order).
    Atomic(Atom),
}

impl EdgeKind {
    /// The constraint of the edge, if it stands for one.
    pub fn atom(&self) -> Option<Atom> {
        match *self {
            EdgeKind::Keep(a) | EdgeKind::Reorder(a) | EdgeKind::Atomic(a) => Some(a),
            EdgeKind::Ordering | EdgeKind::Forced | EdgeKind::Deadlock => None,
        }
    }
}

/// One edge of an elimination cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CycleEdge {
    /// Where the edge starts.
    pub from: EventId,
    /// Where it ends.
    pub to: EventId,
    /// Its kind and constraint.
    pub kind: EdgeKind,
    /// Its weight.
    pub weight: u64,
}

/// One fix: an elimination cycle and the constraint it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// The conjunction of the cycle's constraint atoms, in the arena given to [`eliminate`].
    pub constraint: NodeId,
    /// The distinct atoms of the cycle, sorted.
    pub atoms: Vec<Atom>,
    /// The cycle's weight: the sum of its edges' weights.
    pub cost: u64,
    /// The events of the cycle in order; the last one leads back to the first. Ids from the
    /// trace's length on are blocked steps (see [`Failure::Deadlock`](crate::Failure)).
    pub cycle: Vec<EventId>,
    /// The edges of the cycle, `edges[i]` from `cycle[i]` to `cycle[(i + 1) % len]`.
    pub edges: Vec<CycleEdge>,
}

/// The result of [`eliminate`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Elimination {
    /// The error-eliminating constraint: the disjunction of the fixes' constraints. `false`
    /// when no fix exists: no candidate of the space eliminates the bug pattern with at most K
    /// constraint edges (the caller reports "no repair in this space").
    pub constraint: NodeId,
    /// The fixes, cheapest first (ties broken by their atoms), deduplicated by their atoms,
    /// and minimal: no fix's atoms contain another fix's atoms.
    pub fixes: Vec<Fix>,
    /// The index of the cheapest fix (`Some(0)` whenever there is a fix).
    pub cheapest: Option<usize>,
    /// The generalised partial order.
    pub partial_order: PartialOrder,
    /// Whether the trace can be turned into a preemption-free one: whether some
    /// linearisation of the partial order's events leaves a thread only where its next step
    /// (in the trace) is an await, or where it has no next step (finished, or blocked at the
    /// end of a deadlock); starting a thread is no preemption. Decided by a depth-first search
    /// over the threads' progress at those switch points, bounded by
    /// [`EliminateConfig::preemption_search_budget`] (when the budget runs out the answer is
    /// `false`). When `false`, fixes that act across preemption points are left out: no
    /// reorder moves a wait (an item that opens with an await; an item that holds one deeper
    /// inside, such as a call, may move), and an atomic section never holds a preemption
    /// point anywhere but first.
    pub preemption_free_possible: bool,
    /// Whether the cycle search ran to its end (neither [`EliminateConfig::max_work`] nor
    /// [`EliminateConfig::max_fixes`] cut it short).
    pub complete: bool,
}

impl Elimination {
    /// DOT of the partial order with fix `i`'s cycle drawn in red: its events outlined, its
    /// orderings doubled in red, its constraint edges dashed and labelled with their atoms.
    /// `None` when there is no fix `i`.
    pub fn fix_dot(&self, i: usize, trace: &Trace, space: &Space, label: &dyn Fn(EventId) -> String) -> Option<String> {
        let fix = self.fixes.get(i)?;
        let extra: Vec<(EventId, EventId, String)> = fix
            .edges
            .iter()
            .map(|e| {
                let attrs = match e.kind.atom() {
                    Some(atom) => format!(
                        "color=red, style=dashed, penwidth=2, constraint=false, label=\"{}\"",
                        escape(&atom.display(space).to_string())
                    ),
                    None if e.kind == EdgeKind::Deadlock => "color=red, style=dotted, constraint=false".to_owned(),
                    None => "color=red, penwidth=2".to_owned(),
                };
                (e.from, e.to, attrs)
            })
            .collect();
        Some(self.partial_order.dot(trace, label, &fix.cycle, &extra))
    }
}

/// One constraint edge option between two events.
#[derive(Clone, Copy, Debug)]
struct Opt {
    kind: EdgeKind,
    weight: u64,
}

/// The elimination graph over the nodes of a partial order, with reachability over its
/// no-constraint edges.
struct Graph<'a> {
    space: &'a Space,
    ids: Vec<EventId>,
    ev: Vec<&'a Event>,
    thread: Vec<u32>,
    tpos: Vec<u32>,
    thread_nodes: Vec<Vec<u32>>,
    blocked: Vec<bool>,
    /// Pending steps (not run: they only stand after the reads they must follow).
    pending: Vec<bool>,
    cross_out: Vec<SmallVec<[u32; 2]>>,
    /// Every cross-thread ordering into a node, context ones too (the preemption-free
    /// decision replays the whole partial order).
    all_cross_in: Vec<SmallVec<[u32; 2]>>,
    forced_out: Vec<SmallVec<[u32; 2]>>,
    /// Index of a node among the interesting nodes (endpoints of cross edges, blocked
    /// steps), or NONE.
    iidx: Vec<u32>,
    inodes: Vec<u32>,
    /// Incoming cross edge, or a blocked step: may start a constraint edge.
    is_tail: Vec<bool>,
    /// Outgoing cross edge: may end a constraint edge.
    is_head: Vec<bool>,
    words: usize,
    /// Row u: interesting nodes reachable from u over no-constraint edges (reflexive).
    reach: Vec<u64>,
    /// Row u: the same, over paths holding a cross-thread ordering.
    reachx: Vec<u64>,
    /// Row i (an interesting node): the interesting nodes that reach it (the transpose of
    /// `reach` on interesting nodes).
    coreach: Vec<u64>,
    r: u64,
    a: u64,
    preemption_free: bool,
    /// Per block of the space, the positions of its items that are not `Free`.
    non_free: Vec<Vec<usize>>,
}

#[inline]
fn bit(bits: &[u64], words: usize, row: usize, col: usize) -> bool {
    bits[row * words + col / 64] >> (col % 64) & 1 == 1
}

fn mismatch(space: &Space, a: Loc, b: Loc) -> Error {
    Error::new(
        ErrorKind::SpaceMismatch,
        format!(
            "the trace orders `{}` and `{}`, which are not items of one block of the space",
            space.name(a),
            space.name(b)
        ),
    )
}

impl<'a> Graph<'a> {
    fn new(trace: &'a Trace, space: &'a Space, po: &PartialOrder) -> Graph<'a> {
        let ids = po.events().to_vec();
        let n = ids.len();
        let ev: Vec<&Event> = ids.iter().map(|id| node_event(trace, id.index())).collect();
        let mut thread_ids: Vec<_> = ev.iter().map(|e| e.thread).collect();
        thread_ids.sort_unstable();
        thread_ids.dedup();
        let mut thread = vec![0u32; n];
        let mut tpos = vec![0u32; n];
        let mut thread_nodes = vec![Vec::new(); thread_ids.len()];
        for (i, e) in ev.iter().enumerate() {
            let t = thread_ids.binary_search(&e.thread).unwrap_or(0);
            thread[i] = t as u32;
            tpos[i] = thread_nodes[t].len() as u32;
            thread_nodes[t].push(i as u32);
        }
        let blocked: Vec<bool> = ids.iter().map(|id| po.is_blocked_step(*id)).collect();
        let pending: Vec<bool> = ids.iter().map(|id| po.is_pending_step(*id)).collect();
        let mut cross_out = vec![SmallVec::new(); n];
        let mut has_cross_in = vec![false; n];
        let mut all_cross_in = vec![SmallVec::new(); n];
        for &(a, b) in po.cross_edges() {
            let (Some(ia), Some(ib)) = (po.node_index(a), po.node_index(b)) else { continue };
            all_cross_in[ib].push(ia as u32);
            // Orderings with a context event only say how an overwrite was reached.
            if !po.is_context_edge(a, b) {
                cross_out[ia].push(ib as u32);
                has_cross_in[ib] = true;
            }
        }
        let is_tail: Vec<bool> = (0..n).map(|i| blocked[i] || has_cross_in[i]).collect();
        let is_head: Vec<bool> = (0..n).map(|i| !cross_out[i].is_empty()).collect();
        let mut iidx = vec![NONE; n];
        let mut inodes = Vec::new();
        for i in 0..n {
            if is_tail[i] || is_head[i] {
                iidx[i] = inodes.len() as u32;
                inodes.push(i as u32);
            }
        }
        let words = inodes.len().div_ceil(64).max(1);
        Graph {
            space,
            ids,
            ev,
            thread,
            tpos,
            thread_nodes,
            blocked,
            pending,
            cross_out,
            all_cross_in,
            forced_out: vec![SmallVec::new(); n],
            iidx,
            inodes,
            is_tail,
            is_head,
            words,
            reach: Vec::new(),
            reachx: Vec::new(),
            coreach: Vec::new(),
            r: 1,
            a: 1,
            preemption_free: false,
            non_free: space
                .blocks()
                .map(|b| {
                    let items = space.items(b);
                    (0..items.len())
                        .filter(|&i| space.item_info(items[i]).is_some_and(|info| info.role != SectionRole::Free))
                        .collect()
                })
                .collect(),
        }
    }

    fn n(&self) -> usize {
        self.ids.len()
    }

    /// The lifted items of `u` before `v` (one thread), checked against the space.
    fn lifted(&self, u: u32, v: u32) -> Result<Option<(Loc, Loc)>, Error> {
        match lift(self.ev[u as usize], self.ev[v as usize]) {
            Some(Atom::Order(a, b)) => {
                self.space.common_block(a, b).map_err(|_| mismatch(self.space, a, b))?;
                Ok(Some((a, b)))
            }
            _ => Ok(None),
        }
    }

    /// Whether every candidate keeps `u` before `v` (one thread, `u` earlier).
    fn forced(&self, u: u32, v: u32) -> Result<bool, Error> {
        if self.blocked[v as usize] {
            return Ok(true);
        }
        Ok(match self.lifted(u, v)? {
            None => true,
            Some((a, b)) => !self.space.may_change_order(a, b),
        })
    }

    /// Reachability rows and the forced program-order edges (a transitive reduction of the
    /// forced pairs of each thread, found with one bitset of forced successors per event).
    fn compute_reach(&mut self) -> Result<(), Error> {
        let n = self.n();
        let w = self.words;
        self.reach = vec![0u64; n * w];
        self.reachx = vec![0u64; n * w];
        let blocked_bits: Vec<usize> = (0..n).filter(|&i| self.blocked[i]).map(|i| self.iidx[i] as usize).collect();
        let mut forced_rows: Vec<Vec<u64>> = self
            .thread_nodes
            .iter()
            .map(|nodes| {
                let tw = nodes.len().div_ceil(64).max(1);
                vec![0u64; nodes.len() * tw]
            })
            .collect();
        for u in (0..n).rev() {
            if self.blocked[u] {
                for &b in &blocked_bits {
                    self.reach[u * w + b / 64] |= 1 << (b % 64);
                }
                continue;
            }
            if self.iidx[u] != NONE {
                let b = self.iidx[u] as usize;
                self.reach[u * w + b / 64] |= 1 << (b % 64);
            }
            for k in 0..self.cross_out[u].len() {
                let v = self.cross_out[u][k] as usize;
                for j in 0..w {
                    let bits = self.reach[v * w + j];
                    self.reach[u * w + j] |= bits;
                    self.reachx[u * w + j] |= bits;
                }
            }
            let t = self.thread[u] as usize;
            let p = self.tpos[u] as usize;
            let len = self.thread_nodes[t].len();
            let tw = len.div_ceil(64).max(1);
            for q in p + 1..len {
                let rows = &forced_rows[t];
                if rows[p * tw + q / 64] >> (q % 64) & 1 == 1 {
                    continue;
                }
                let v = self.thread_nodes[t][q];
                if !self.forced(u as u32, v)? {
                    continue;
                }
                let rows = &mut forced_rows[t];
                rows[p * tw + q / 64] |= 1 << (q % 64);
                let (lo, hi) = rows.split_at_mut(q * tw);
                for (d, s) in lo[p * tw..p * tw + tw].iter_mut().zip(&hi[..tw]) {
                    *d |= *s;
                }
                self.forced_out[u].push(v);
                let v = v as usize;
                for j in 0..w {
                    let bits = self.reach[v * w + j];
                    self.reach[u * w + j] |= bits;
                    let bits = self.reachx[v * w + j];
                    self.reachx[u * w + j] |= bits;
                }
            }
        }
        let m = self.inodes.len();
        self.coreach = vec![0u64; m * w];
        for (i, &u) in self.inodes.iter().enumerate() {
            let row = u as usize * w;
            for word in 0..w {
                let mut bits = self.reach[row + word];
                while bits != 0 {
                    let j = word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    self.coreach[j * w + i / 64] |= 1 << (i % 64);
                }
            }
        }
        Ok(())
    }

    /// Whether `to` (an interesting node) is reachable from `from` over no-constraint edges.
    fn reaches(&self, from: u32, to: u32) -> bool {
        bit(&self.reach, self.words, from as usize, self.iidx[to as usize] as usize)
    }

    /// The same over a path holding a cross-thread ordering.
    fn reaches_x(&self, from: u32, to: u32) -> bool {
        bit(&self.reachx, self.words, from as usize, self.iidx[to as usize] as usize)
    }

    /// Whether some linearisation of the partial order switches threads only where the
    /// thread left next runs an await (or has finished, or is blocked). Depth-first search
    /// over the per-thread progress at switch points, with a budget of executed events.
    fn preemption_free(&self, trace: &Trace, budget: u64) -> bool {
        let threads = self.thread_nodes.len();
        let run = |v: u32| !self.blocked[v as usize] && !self.pending[v as usize];
        let exec_len: Vec<usize> = self.thread_nodes.iter().map(|ns| ns.iter().filter(|&&v| run(v)).count()).collect();
        let total: usize = exec_len.iter().sum();
        // Whether a thread that ran all its kept events may be left: its next step in the
        // trace is an await, or it has none (finished or blocked).
        let after: Vec<bool> = (0..threads)
            .map(|t| {
                let ns = &self.thread_nodes[t];
                let Some(&last) = ns.iter().rev().find(|&&v| run(v)) else { return true };
                let last_id = self.ids[last as usize].index();
                let thread = self.ev[last as usize].thread;
                // Its next step: a later event, or else its first pending step.
                let later = trace.events()[last_id + 1..].iter().find(|e| e.thread == thread);
                match later.or_else(|| trace.pending().iter().find(|e| e.thread == thread)) {
                    Some(e) => e.kind == EventKind::Await,
                    None => true,
                }
            })
            .collect();
        let switchable = |t: usize, p: usize| -> bool {
            if p < exec_len[t] {
                self.ev[self.thread_nodes[t][p] as usize].kind == EventKind::Await
            } else {
                after[t]
            }
        };
        let enabled = |v: u32, state: &[u32]| -> bool {
            self.all_cross_in[v as usize].iter().all(|&w| {
                let w = w as usize;
                run(w as u32) && self.tpos[w] < state[self.thread[w] as usize]
            })
        };
        let mut spent = 0u64;
        let mut seen: FxHashSet<Vec<u32>> = FxHashSet::default();
        let start = vec![0u32; threads];
        seen.insert(start.clone());
        let mut stack = vec![start];
        while let Some(state) = stack.pop() {
            for t in 0..threads {
                let mut s = state.clone();
                let mut done: usize = s.iter().map(|&x| x as usize).sum();
                loop {
                    let p = s[t] as usize;
                    if p >= exec_len[t] || !enabled(self.thread_nodes[t][p], &s) {
                        break;
                    }
                    s[t] += 1;
                    done += 1;
                    spent += 1;
                    if done == total {
                        return true;
                    }
                    if spent > budget {
                        return false;
                    }
                    if switchable(t, s[t] as usize) && seen.insert(s.clone()) {
                        stack.push(s.clone());
                    }
                }
            }
        }
        total == 0
    }

    /// Whether an atomic section may hold items `a` and `b`: the block takes sections, the
    /// item that opens the section is no `Excluded` item, the other and every item forced
    /// between them are `Free` (an await may only open a section).
    fn atomic_legal(&self, a: Loc, b: Loc, may_change: bool) -> bool {
        let space = self.space;
        let (Some((block, pa)), Some((_, pb))) = (space.item_position(a), space.item_position(b)) else { return false };
        if space.is_closed(block) {
            return false;
        }
        let role = |l: Loc| space.item_info(l).map_or(SectionRole::Excluded, |i| i.role);
        let items = space.items(block);
        let legal = |first: Loc, last: Loc| -> bool {
            if role(first) == SectionRole::Excluded || role(last) != SectionRole::Free {
                return false;
            }
            let (lo, hi) = (pa.min(pb), pa.max(pb));
            let non_free = &self.non_free[block.index()];
            let from = non_free.partition_point(|&p| p <= lo);
            non_free[from..].iter().take_while(|&&p| p < hi).all(|&p| {
                let k = items[p];
                !(space.is_fixed(first, k) && space.is_fixed(k, last))
            })
        };
        let (first, last) = if pa < pb { (a, b) } else { (b, a) };
        legal(first, last) || (may_change && legal(last, first))
    }

    /// Backward between two events of one item (the guard of an `if` and a step of its
    /// branch, or steps of two iterations of a loop): no order between them can change, but a
    /// section that holds the item holds both. Sections hold at least two items, so the item
    /// is offered with each neighbour in the original order, `Atomic(item, neighbour)`.
    fn enclosing_sections(&self, u: u32, v: u32, out: &mut SmallVec<[Opt; 2]>) {
        let (x, y) = (self.ev[u as usize], self.ev[v as usize]);
        let common = x
            .scope
            .iter()
            .zip(&y.scope)
            .take_while(|(sx, sy)| sx.instance == sy.instance && sx.item == sy.item)
            .last()
            .map(|(sx, _)| sx.item);
        let Some(item) = common else { return };
        let space = self.space;
        let Some((block, pos)) = space.item_position(item) else { return };
        let items = space.items(block);
        let neighbours = [pos.checked_sub(1), Some(pos + 1)];
        for n in neighbours.into_iter().flatten().filter_map(|p| items.get(p).copied()) {
            if self.atomic_legal(item, n, space.may_change_order(item, n)) {
                let w = self.a.saturating_mul(self.section_weight(item, n));
                out.push(Opt { kind: EdgeKind::Atomic(Atom::atomic(item, n)), weight: w });
            }
        }
    }

    /// The simple statements of the items from `a` to `b` in the original order.
    fn section_weight(&self, a: Loc, b: Loc) -> u64 {
        let space = self.space;
        let (Some((block, pa)), Some((_, pb))) = (space.item_position(a), space.item_position(b)) else { return 1 };
        space.items(block)[pa.min(pb)..=pa.max(pb)]
            .iter()
            .map(|&l| u64::from(space.item_info(l).map_or(1, |i| i.weight)))
            .sum()
    }

    /// The constraint edges from `from` to `to` (one thread, different events).
    fn options(&self, from: u32, to: u32, out: &mut SmallVec<[Opt; 2]>) -> Result<(), Error> {
        out.clear();
        let space = self.space;
        let (fu, tu) = (from as usize, to as usize);
        if self.tpos[tu] < self.tpos[fu] {
            // Backward: `to` comes first in the thread.
            let Some((a, b)) = self.lifted(to, from)? else {
                self.enclosing_sections(to, from, out);
                return Ok(());
            };
            let may = space.may_change_order(a, b);
            // Only a wait itself counts here (an item that opens with an await: an `await`,
            // a `lock`); moving a call or a branch that holds a wait deeper inside is
            // allowed, as the original tool allowed it (rtl8169's fix moves `free_irq()` in
            // front of `dev_down()`, whose `synchronize_irq()` waits).
            let wait = |l: Loc| space.item_info(l).is_some_and(|i| i.role == SectionRole::Opener);
            let crosses = wait(a) || wait(b);
            if may && (self.preemption_free || !crosses) {
                let (pa, pb) = (space.item_position(a).map_or(0, |p| p.1), space.item_position(b).map_or(0, |p| p.1));
                let dist = pa.abs_diff(pb).max(1) as u64;
                out.push(Opt { kind: EdgeKind::Reorder(Atom::Order(b, a)), weight: self.r.saturating_mul(dist) });
            }
            if self.atomic_legal(a, b, may) {
                let w = self.a.saturating_mul(self.section_weight(a, b));
                out.push(Opt { kind: EdgeKind::Atomic(Atom::atomic(a, b)), weight: w });
            }
        } else if !self.blocked[tu] {
            if let Some((a, b)) = self.lifted(from, to)? {
                if space.may_change_order(a, b) {
                    let span = u64::from(self.tpos[tu] - self.tpos[fu]);
                    out.push(Opt { kind: EdgeKind::Keep(Atom::Order(a, b)), weight: span });
                }
            }
        }
        Ok(())
    }
}

/// A cycle found by the search: its constraint edges in cycle order.
#[derive(Clone, Debug)]
struct Raw {
    edges: SmallVec<[(u32, u32, Opt); 2]>,
    weight: u64,
}

/// A backward constraint edge with its rank key: cycles are found from their heaviest
/// backward edge, in increasing order of (weight, tail, head, option).
type Rank = (u64, u32, u32, usize);

struct Search<'g, 'a> {
    g: &'g Graph<'a>,
    k: usize,
    max_fixes: usize,
    max_work: u64,
    work: u64,
    cut: bool,
    found: FxHashMap<Vec<Atom>, Raw>,
    /// Insertion order of `found`'s keys, for deterministic tie-breaking.
    order: Vec<Vec<Atom>>,
    /// The weights of the cheapest `max_fixes` cycles found (a max-heap).
    best: BinaryHeap<u64>,
    cache: FxHashMap<(u32, u32), SmallVec<[Opt; 2]>>,
    /// Per thread, its heads (events with an outgoing cross-thread ordering).
    heads: &'g [Vec<u32>],
}

impl Search<'_, '_> {
    fn options(&mut self, from: u32, to: u32) -> Result<SmallVec<[Opt; 2]>, Error> {
        if let Some(o) = self.cache.get(&(from, to)) {
            return Ok(o.clone());
        }
        let mut out = SmallVec::new();
        self.g.options(from, to, &mut out)?;
        self.cache.insert((from, to), out.clone());
        Ok(out)
    }

    /// The weight no new cycle may exceed to be among the cheapest `max_fixes`.
    fn bound(&self) -> u64 {
        if self.best.len() >= self.max_fixes {
            self.best.peek().copied().unwrap_or(0)
        } else {
            u64::MAX
        }
    }

    fn record(&mut self, edges: SmallVec<[(u32, u32, Opt); 2]>) {
        let mut atoms: Vec<Atom> = edges.iter().filter_map(|e| e.2.kind.atom()).collect();
        atoms.sort_unstable();
        atoms.dedup();
        let weight = edges.iter().fold(0u64, |s, e| s.saturating_add(e.2.weight));
        match self.found.get_mut(&atoms) {
            Some(old) => {
                if weight < old.weight {
                    *old = Raw { edges, weight };
                }
            }
            None => {
                self.order.push(atoms.clone());
                self.found.insert(atoms, Raw { edges, weight });
                self.best.push(weight);
                if self.best.len() > self.max_fixes {
                    self.best.pop();
                }
            }
        }
    }

    fn tick(&mut self) -> bool {
        self.work += 1;
        if self.work > self.max_work {
            self.cut = true;
        }
        self.cut
    }

    fn run(&mut self) -> Result<(), Error> {
        let (g, heads) = (self.g, self.heads);
        if self.k == 0 || self.max_fixes == 0 {
            return Ok(());
        }
        // Every backward constraint edge, cheapest first.
        let mut firsts: Vec<(Rank, Opt)> = Vec::new();
        let mut opts = SmallVec::new();
        for (nodes, hs) in g.thread_nodes.iter().zip(heads) {
            for &x in nodes {
                if !g.is_tail[x as usize] {
                    continue;
                }
                for &y in hs {
                    if g.tpos[y as usize] >= g.tpos[x as usize] {
                        break;
                    }
                    g.options(x, y, &mut opts)?;
                    for (oi, &o) in opts.iter().enumerate() {
                        firsts.push(((o.weight, x, y, oi), o));
                    }
                }
            }
        }
        firsts.sort_by_key(|f| f.0);
        // The backward edges processed so far that do not close a cycle alone: the only
        // backward edges a cycle may use besides its heaviest.
        let mut lighter: Vec<(Rank, Opt)> = Vec::new();
        for (rank, opt) in firsts {
            if rank.0 > self.bound() {
                // Every cycle left weighs at least this edge: none is among the cheapest.
                self.cut = true;
                return Ok(());
            }
            if self.tick() {
                return Ok(());
            }
            let (_, x, y, _) = rank;
            if g.reaches_x(y, x) {
                self.record(SmallVec::from_slice(&[(x, y, opt)]));
            } else {
                if self.k >= 2 {
                    self.extend((rank, opt), &lighter)?;
                    if self.cut {
                        return Ok(());
                    }
                }
                lighter.push((rank, opt));
            }
        }
        Ok(())
    }

    /// Depth-first extension of the cycle started by the backward edge `first`, its
    /// heaviest: the other backward edges come from `lighter` (ranked below it and not
    /// closing a cycle alone), so each cycle is found once. Kept orders (forward edges) are
    /// tried in order of span while the cycle stays under the bound. The last edge must end
    /// at a head that reaches the first edge's tail.
    fn extend(&mut self, first: (Rank, Opt), lighter: &[(Rank, Opt)]) -> Result<(), Error> {
        let (g, heads) = (self.g, self.heads);
        let ((_, x0, y0, _), first_opt) = first;
        let co = g.iidx[x0 as usize] as usize;
        let closes = |d: u32| bit(&g.coreach, g.words, co, g.iidx[d as usize] as usize);
        // Per thread, the heads that reach x0, in program order.
        let closing: Vec<Vec<u32>> =
            heads.iter().map(|hs| hs.iter().copied().filter(|&d| closes(d)).collect()).collect();
        struct Frame {
            edges: SmallVec<[(u32, u32, Opt); 2]>,
            head: u32,
            x: bool,
            weight: u64,
        }
        let mut stack = vec![Frame {
            edges: SmallVec::from_slice(&[(x0, y0, first_opt)]),
            head: y0,
            x: false,
            weight: first_opt.weight,
        }];
        while let Some(f) = stack.pop() {
            let last = f.edges.len() + 1 == self.k;
            // Candidate next edges: (tail, head, option).
            let mut next: Vec<(u32, u32, Opt)> = Vec::new();
            // Backward edges ranked below the first.
            for &((w, c, d, _), o) in lighter {
                if f.weight.saturating_add(w) > self.bound() {
                    break;
                }
                if self.tick() {
                    return Ok(());
                }
                if g.reaches(f.head, c) && (!last || closes(d)) {
                    next.push((c, d, o));
                }
            }
            // Kept orders: forward from a reached tail to a later head of its thread.
            let row = f.head as usize * g.words;
            for word in 0..g.words {
                let mut bits = g.reach[row + word];
                while bits != 0 {
                    let b = word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let c = g.inodes[b];
                    if !g.is_tail[c as usize] {
                        continue;
                    }
                    let s = g.thread[c as usize] as usize;
                    let list = if last { &closing[s] } else { &heads[s] };
                    let tc = g.tpos[c as usize];
                    let start = list.partition_point(|&d| g.tpos[d as usize] <= tc);
                    for &d in &list[start..] {
                        let span = u64::from(g.tpos[d as usize] - tc);
                        if f.weight.saturating_add(span) > self.bound() {
                            break;
                        }
                        if self.tick() {
                            return Ok(());
                        }
                        for o in self.options(c, d)? {
                            next.push((c, d, o));
                        }
                    }
                }
            }
            for (c, d, o) in next {
                let weight = f.weight.saturating_add(o.weight);
                if weight > self.bound() || f.edges.iter().any(|e| (e.0, e.1) == (c, d)) {
                    continue;
                }
                let seg_x = f.x || g.reaches_x(f.head, c);
                let mut edges = f.edges.clone();
                edges.push((c, d, o));
                if closes(d) && (seg_x || g.reaches_x(d, x0)) {
                    self.record(edges);
                } else if !last {
                    stack.push(Frame { edges, head: d, x: seg_x, weight });
                }
            }
        }
        Ok(())
    }
}

/// A shortest path over no-constraint edges, as (nodes, edges) with the edges' kinds and
/// weights; `need_x` asks for a path holding a cross-thread ordering.
/// A path: its nodes, and the kind and weight of each edge.
type Path = (Vec<u32>, Vec<(EdgeKind, u64)>);

fn segment(g: &Graph<'_>, s: u32, t: u32, need_x: bool) -> Option<Path> {
    if s == t && !need_x {
        return Some((vec![s], Vec::new()));
    }
    let (s, t) = (s as usize, t as usize);
    let hi = if g.blocked[t] { g.n() - 1 } else { t };
    if s > hi {
        return None;
    }
    let width = hi - s + 1;
    const INF: u64 = u64::MAX;
    let mut dist = vec![[INF; 2]; width];
    let mut pred: Vec<[(u32, u8, u64, bool); 2]> = vec![[(NONE, 0, 0, false); 2]; width];
    dist[0][0] = 0;
    for u in s..=hi {
        for layer in 0..2 {
            let du = dist[u - s][layer];
            if du == INF {
                continue;
            }
            for &v in &g.cross_out[u] {
                let v = v as usize;
                if v <= hi && du + 1 < dist[v - s][1] {
                    dist[v - s][1] = du + 1;
                    pred[v - s][1] = (u as u32, layer as u8, 1, true);
                }
            }
            for &v in &g.forced_out[u] {
                let v = v as usize;
                let w = u64::from(g.tpos[v] - g.tpos[u]);
                if v <= hi && du + w < dist[v - s][layer] {
                    dist[v - s][layer] = du + w;
                    pred[v - s][layer] = (u as u32, layer as u8, w, false);
                }
            }
        }
    }
    let layers: &[usize] = if need_x { &[1] } else { &[0, 1] };
    let ends: Vec<usize> = if g.blocked[t] { (s..=hi).filter(|&v| g.blocked[v]).collect() } else { vec![t] };
    let mut best: Option<(u64, usize, usize)> = None;
    for &e in &ends {
        for &l in layers {
            let d = dist[e - s][l];
            if d != INF && best.is_none_or(|(bd, _, _)| d < bd) {
                best = Some((d, e, l));
            }
        }
    }
    let (_, mut v, mut layer) = best?;
    let end = v;
    let mut nodes = vec![v as u32];
    let mut kinds = Vec::new();
    while v != s || layer != 0 {
        let (u, l, w, cross) = pred[v - s][layer];
        if u == NONE {
            return None;
        }
        kinds.push((if cross { EdgeKind::Ordering } else { EdgeKind::Forced }, w));
        nodes.push(u);
        v = u as usize;
        layer = l as usize;
    }
    nodes.reverse();
    kinds.reverse();
    if end != t {
        nodes.push(t as u32);
        kinds.push((EdgeKind::Deadlock, 0));
    }
    Some((nodes, kinds))
}

/// Eliminates a bad trace: generalises it ([`PartialOrder::from_bad_trace`]), builds its trace
/// elimination graph over `space` and returns every elimination cycle with at most K
/// constraint edges as a [`Fix`], with the disjunction of their constraints in `arena`.
///
/// See the crate documentation for the graph, the weights and the search. Give it a trace
/// that runs on past its failure (to the end of every thread, or until they block): the
/// writes that the failure's reads must come before are found only among the events the
/// trace holds (see [`PartialOrder`]).
///
/// # Errors
/// [`ErrorKind::NotBad`] for a trace that is not bad; [`ErrorKind::SpaceMismatch`] when the
/// trace's events lift to locations that are not items of one block of `space`;
/// [`ErrorKind::TooLarge`] past [`EliminateConfig::max_memory`].
pub fn eliminate(
    trace: &Trace,
    space: &Space,
    arena: &mut Arena,
    config: &EliminateConfig,
) -> Result<Elimination, Error> {
    let po = PartialOrder::from_bad_trace(trace)?;
    let mut g = Graph::new(trace, space, &po);
    let n = g.n() as u64;
    let k = config.max_constraint_edges as u64;
    // R exceeds the weight of any path of no-constraint edges of K + 1 segments (each at most
    // 2n), and A exceeds R * n^2, so an atomic section is chosen only where no reordering works.
    g.r = n.saturating_mul(2).saturating_mul(k.saturating_add(1)).saturating_add(1);
    g.a = g.r.saturating_mul(n.saturating_mul(n)).saturating_add(1);
    let words = g.words as u64;
    let thread_bits: u64 =
        g.thread_nodes.iter().map(|ns| (ns.len() as u64) * (ns.len() as u64).div_ceil(64).max(1)).sum();
    let bytes = 8u64.saturating_mul(words.saturating_mul(2 * n + g.inodes.len() as u64).saturating_add(thread_bits));
    if bytes > config.max_memory {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "the elimination graph of {n} events ({} at cross-thread orderings) needs {bytes} bytes of tables, \
                 more than the limit of {}",
                g.inodes.len(),
                config.max_memory
            ),
        ));
    }
    g.compute_reach()?;
    g.preemption_free = g.preemption_free(trace, config.preemption_search_budget);

    let heads: Vec<Vec<u32>> =
        g.thread_nodes.iter().map(|ns| ns.iter().copied().filter(|&v| g.is_head[v as usize]).collect()).collect();
    let mut search = Search {
        g: &g,
        k: config.max_constraint_edges,
        max_fixes: config.max_fixes,
        max_work: config.max_work,
        best: BinaryHeap::new(),
        heads: &heads,
        work: 0,
        cut: false,
        found: FxHashMap::default(),
        order: Vec::new(),
        cache: FxHashMap::default(),
    };
    search.run()?;
    let mut complete = !search.cut;
    let keys: FxHashSet<Vec<Atom>> = search.order.iter().cloned().collect();
    // Minimal fixes only: drop those whose atoms contain another fix's atoms.
    let mut raws: Vec<(Vec<Atom>, Raw)> = Vec::new();
    for atoms in &search.order {
        let minimal = atoms.len() < 2
            || atoms.len() > 12
            || (1..(1u32 << atoms.len()) - 1).all(|mask| {
                let sub: Vec<Atom> =
                    atoms.iter().enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, a)| *a).collect();
                !keys.contains(&sub)
            });
        if minimal {
            if let Some(raw) = search.found.get(atoms) {
                raws.push((atoms.clone(), raw.clone()));
            }
        }
    }
    raws.sort_by(|x, y| (x.1.weight, &x.0).cmp(&(y.1.weight, &y.0)));
    if raws.len() > config.max_fixes {
        raws.truncate(config.max_fixes);
        complete = false;
    }

    let mut fixes = Vec::with_capacity(raws.len());
    for (atoms, raw) in raws {
        let kk = raw.edges.len();
        // The segment that carries the cross-thread ordering.
        let seg = |i: usize| (raw.edges[i].1, raw.edges[(i + 1) % kk].0);
        let x_seg = (0..kk).find(|&i| {
            let (h, t) = seg(i);
            g.reaches_x(h, t)
        });
        let mut cycle: Vec<u32> = Vec::new();
        let mut edges: Vec<CycleEdge> = Vec::new();
        let mut ok = true;
        for i in 0..kk {
            let (tail, head, opt) = raw.edges[i];
            let (h, t) = seg(i);
            let Some((nodes, kinds)) = segment(&g, h, t, x_seg == Some(i)) else {
                ok = false;
                break;
            };
            cycle.push(tail);
            edges.push(CycleEdge {
                from: g.ids[tail as usize],
                to: g.ids[head as usize],
                kind: opt.kind,
                weight: opt.weight,
            });
            for (j, (kind, w)) in kinds.iter().enumerate() {
                cycle.push(nodes[j]);
                edges.push(CycleEdge {
                    from: g.ids[nodes[j] as usize],
                    to: g.ids[nodes[j + 1] as usize],
                    kind: *kind,
                    weight: *w,
                });
            }
        }
        // Every recorded cycle closes over paths the reachability rows vouch for.
        debug_assert!(ok, "no path for a recorded cycle");
        if !ok {
            continue;
        }
        let cost = edges.iter().fold(0u64, |s, e| s.saturating_add(e.weight));
        let nodes: Vec<NodeId> = atoms.iter().map(|&a| arena.atom(a)).collect();
        let constraint = arena.and(nodes);
        let cycle = cycle.iter().map(|&v| g.ids[v as usize]).collect();
        fixes.push(Fix { constraint, atoms, cost, cycle, edges });
    }
    fixes.sort_by(|x, y| (x.cost, &x.atoms).cmp(&(y.cost, &y.atoms)));
    let constraint = arena.or(fixes.iter().map(|f| f.constraint).collect::<Vec<_>>());
    let cheapest = if fixes.is_empty() { None } else { Some(0) };
    let preemption_free_possible = g.preemption_free;
    drop(g);
    Ok(Elimination { constraint, fixes, cheapest, partial_order: po, preemption_free_possible, complete })
}

/// A one-line description of a fix for reports: its atoms in the paper's notation.
pub fn describe(fix: &Fix, space: &Space) -> String {
    let mut out = String::new();
    for (i, a) in fix.atoms.iter().enumerate() {
        if i > 0 {
            out.push_str(" /\\ ");
        }
        let _ = write!(out, "{}", a.display(space));
    }
    out
}
