//! Generalising a bad trace into the partial order of the orderings its failure needs.

use std::fmt::Write as _;

use paces_constraint::Space;
use paces_trace::{Event, EventId, EventKind, ThreadId, Trace, VarId};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::{Error, ErrorKind};

const NONE: u32 = u32::MAX;

/// What makes a trace bad.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// An event failed (the first failed event of the trace).
    Event(EventId),
    /// The trace ends in a deadlock: the blocked steps, as ids from `trace.len()` on (the
    /// `k`-th blocked step of [`Trace::blocked`] has id `trace.len() + k`).
    Deadlock(Vec<EventId>),
}

/// The generalisation of a bad trace: the events its failure depends on, ordered by their
/// threads' program order and by the cross-thread orderings between conflicting events.
///
/// # The rule
/// The *failure* is the first failed event ([`Trace::first_failure`]) or, for a trace ending
/// in a deadlock, the blocked steps ([`Trace::blocked`]), which stand at the end of their
/// threads. Two events *conflict* when they touch one variable and at least one writes it.
///
/// 1. *Dependencies*: the failure, and, closed transitively, the earlier events of each kept
///    event's thread and the earlier events that conflict with a kept event.
/// 2. *Overwrites*: for every read of a dependency, the first later write of that variable by
///    each other thread. The failure needs the read to happen before those writes; this is how
///    a write that comes after the failure (`C` in the paper's Example 4, trace `A;B;1;2;C`)
///    enters the picture. A trace that stops at its failure cannot show such writes, so a
///    checker should run the trace on past the failure (the paper lets execution continue
///    after an assertion fails); where a thread cannot go on (it waits for a lock another
///    thread keeps), its first *pending* write ([`Trace::pending`]) stands in, after the read
///    and after the thread's pending steps before it.
/// 3. *Synchronisation*: every condition (`assume`, `await`) that reads from a write of
///    another thread kept by 1 or 2, except an `assume` of the failing thread after its
///    failure (moved in front of the failure it orders nothing: the thread may take another
///    branch). A condition waits for the write that enables it, so this
///    ordering holds in every trace where it reads from that write; it is what lets a fix move
///    a wait in front of the failing step (ex2's `arizona_wait_for_boot` moved to the top: the
///    write that ends the boot, the wait it enables, the failing check). A pending
///    condition counts too: a pending step reads after the last executed write of its
///    variable (unless its own thread writes it in a pending step before), so a pending wait
///    after such a write waits for it (ex2 when its thread is stuck: the pending wait for the
///    boot after the failing check, which a fix moves in front of it).
///
///    The events of 2 and 3 come with their own dependencies, closed as in 1, so that every
///    linearisation is a trace; those dependencies are *context* ([`PartialOrder::is_context`]):
///    their reads get no overwrites and enable no conditions, and the elimination graph does
///    not use their cross-thread orderings. Breaking such an ordering changes how an overwrite
///    or a wait is reached, not whether the failure happens, so as fixes they would send the
///    loop after unrelated reorderings.
/// 4. *Signals after the failure*: every condition of another thread that reads from a write
///    the failing thread makes after its failure, with the failing thread's steps up to that
///    write, but not the condition's other dependencies. The condition waits for the failing
///    thread to get past its failure; moving a step of the waiting thread behind the
///    condition is a fix (lc-rc: `shutdown` must stop the `rsv` thread only after `neh`,
///    whose check fails, has signalled its end). Such a fix removes this trace's partial
///    order but need not remove the failure (the condition might read from another writer),
///    and the soundness argument below covers the events of steps 1 to 3 only: the caller
///    checks the fixed program anyway. The events of a chain are not context, even when 2
///    or 3 kept them first; but an ordering into an event kept only for a chain from an
///    event off the chain is ([`PartialOrder::is_context_edge`]): where a step after the
///    failure read its values from changes neither the failure nor the signal.
///
///    The future goes on into the pending steps ([`Trace::pending`]): a thread whose last
///    executed event is in the future has its pending steps in it, and a pending condition of
///    another thread that reads a variable such a pending step writes joins it, ordered after
///    that write (the first one found). A joining condition whose thread has kept events
///    before it is kept with its chain, as above. The condition waits for a write that comes
///    only after the failure has been signalled; moving a kept step of its thread behind it
///    is a fix (usb-serial: disconnect's wait 190 for the port work's write, which the port
///    work makes only after the failing write callback woke it, must come before 188).
/// 5. *Orderings*: program order between successive kept events of a thread, and, between
///    kept events of different threads, the trace order of each conflicting pair (kept as the
///    *immediate* conflicts: a read after its writer; a write after the previous write of its
///    variable and after the reads of that previous write; earlier conflicts follow by
///    transitivity).
///
/// Every other event and ordering is dropped. The cross-thread orderings are not reduced
/// further (an ordering implied through program order stays): a candidate may change the
/// program order it would be implied through, so the elimination graph needs it.
///
/// # Why it is sound
/// The kept set is closed under program order and under conflicting predecessors, so every
/// linearisation of the partial order is a trace of the program (each thread runs a prefix of
/// its steps in order) and reaches the same failure: each read keeps its writer (the writer
/// precedes the read), and every other write of that variable that is kept is ordered before
/// the writer or after the read by the write/write and read/write orderings, so the values
/// read, hence the control flow and the failing check, are the same (the paper's
/// data-independence assumption covers steps whose values differ but whose locations do not).
/// For a deadlock, every blocked step reads the same writers at the end, so it is still
/// blocked. Pending steps are not run: the claim is about the executed events, and a pending
/// step only adds the ordering "not before the read" that the failure needs of it. Context
/// events need no overwrites: if one of them reads another value, its thread may not reach the
/// overwrite in that run, and an overwrite that does not happen cannot spoil the failing read.
/// A fix therefore needs to rule out only the pattern without context events and orderings
/// (the property test checks exactly that).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialOrder {
    trace_len: usize,
    blocked_len: usize,
    nodes: Vec<EventId>,
    threads: Vec<ThreadId>,
    /// Node index of an id (executed events first, then blocked steps, then pending steps),
    /// or NONE.
    index: Vec<u32>,
    cross: Vec<(EventId, EventId)>,
    program: Vec<(EventId, EventId)>,
    failure: Failure,
    /// Events kept by rule 4 only, sorted.
    signals: Vec<EventId>,
    /// Events kept only as dependencies of overwrites (and of the conditions they enable),
    /// sorted.
    context: Vec<EventId>,
    /// The events of the chains of rule 4, sorted.
    chain: Vec<EventId>,
}

#[derive(Default)]
struct VarIndex {
    writes: Vec<u32>,
    reads: Vec<u32>,
    /// Writes of the variable per thread, threads sorted.
    by_thread: Vec<(ThreadId, Vec<u32>)>,
    /// The first pending write of the variable per thread, threads sorted.
    pending: Vec<(ThreadId, u32)>,
}

impl VarIndex {
    /// The first write of the variable by thread `t` after event `i`: executed, or else
    /// pending.
    fn next_write(&self, t: ThreadId, i: u32) -> Option<u32> {
        let executed = self.by_thread.binary_search_by_key(&t, |(u, _)| *u).ok().and_then(|k| {
            let ws = &self.by_thread[k].1;
            ws.get(ws.partition_point(|&p| p <= i)).copied()
        });
        executed.or_else(|| self.pending.binary_search_by_key(&t, |(u, _)| *u).ok().map(|k| self.pending[k].1))
    }

    /// The threads that write the variable, executed or pending, sorted.
    fn writers(&self) -> impl Iterator<Item = ThreadId> + '_ {
        let mut ts: SmallVec<[ThreadId; 4]> =
            self.by_thread.iter().map(|(t, _)| *t).chain(self.pending.iter().map(|(t, _)| *t)).collect();
        ts.sort_unstable();
        ts.dedup();
        ts.into_iter()
    }
}

/// The trace with blocked steps appended, and the indexes generalisation needs.
struct Indexed<'t> {
    trace: &'t Trace,
    prev: Vec<u32>,
    vars: FxHashMap<VarId, VarIndex>,
}

impl<'t> Indexed<'t> {
    fn new(trace: &'t Trace) -> Indexed<'t> {
        let len = trace.len();
        let executed_and_blocked = len + trace.blocked().len();
        let total = executed_and_blocked + trace.pending().len();
        let mut prev = vec![NONE; total];
        let mut last: FxHashMap<ThreadId, u32> = FxHashMap::default();
        let mut vars: FxHashMap<VarId, VarIndex> = FxHashMap::default();
        for (i, e) in trace.events().iter().enumerate() {
            prev[i] = last.insert(e.thread, i as u32).unwrap_or(NONE);
            for r in &e.reads {
                vars.entry(r.var).or_default().reads.push(i as u32);
            }
            for w in &e.writes {
                let v = vars.entry(w.var).or_default();
                v.writes.push(i as u32);
                match v.by_thread.binary_search_by_key(&e.thread, |(t, _)| *t) {
                    Ok(k) => v.by_thread[k].1.push(i as u32),
                    Err(k) => v.by_thread.insert(k, (e.thread, vec![i as u32])),
                }
            }
        }
        let mut tail = last.clone();
        for (k, b) in trace.blocked().iter().enumerate() {
            prev[len + k] = last.get(&b.thread).copied().unwrap_or(NONE);
            tail.insert(b.thread, (len + k) as u32);
        }
        for (k, p) in trace.pending().iter().enumerate() {
            let i = (executed_and_blocked + k) as u32;
            prev[i as usize] = tail.insert(p.thread, i).unwrap_or(NONE);
            for w in &p.writes {
                let v = vars.entry(w.var).or_default();
                if let Err(at) = v.pending.binary_search_by_key(&p.thread, |(t, _)| *t) {
                    v.pending.insert(at, (p.thread, i));
                }
            }
        }
        // An event that reads a variable twice (or reads and writes it) is listed once.
        for v in vars.values_mut() {
            v.reads.dedup();
            v.writes.dedup();
            for (_, ws) in &mut v.by_thread {
                ws.dedup();
            }
        }
        Indexed { trace, prev, vars }
    }

    fn event(&self, i: u32) -> &'t Event {
        node_event(self.trace, i as usize)
    }

    /// The immediate predecessors of event `i`: its thread's previous event and its
    /// immediate conflicting predecessors (see [`PartialOrder`]).
    fn preds(&self, i: u32) -> SmallVec<[u32; 4]> {
        let mut out = SmallVec::new();
        if self.prev[i as usize] != NONE {
            out.push(self.prev[i as usize]);
        }
        let e = self.event(i);
        for r in &e.reads {
            if let Some(from) = r.from {
                out.push(from.as_u32());
            }
        }
        let executed = (i as usize) < self.trace.len();
        let pending = (i as usize) >= self.trace.len() + self.trace.blocked().len();
        if pending {
            // A pending read comes after the last executed write of its variable, unless its
            // own thread writes the variable in a pending step before it.
            for r in &e.reads {
                let Some(v) = self.vars.get(&r.var) else { continue };
                let own_first = v.pending.binary_search_by_key(&e.thread, |(t, _)| *t).ok().map(|k| v.pending[k].1);
                if own_first.is_some_and(|w| w < i) {
                    continue;
                }
                if let Some(&w) = v.writes.last() {
                    out.push(w);
                }
            }
        }
        if executed || pending {
            // A pending write comes after every executed event.
            for w in &e.writes {
                let Some(v) = self.vars.get(&w.var) else { continue };
                let k = if executed { v.writes.partition_point(|&p| p < i) } else { v.writes.len() };
                let last_write = if k > 0 { Some(v.writes[k - 1]) } else { None };
                if let Some(lw) = last_write {
                    out.push(lw);
                }
                let from = last_write.map_or(0, |lw| lw + 1);
                let lo = v.reads.partition_point(|&p| p < from);
                let hi = if executed { v.reads.partition_point(|&p| p < i) } else { v.reads.len() };
                out.extend_from_slice(&v.reads[lo..hi]);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The last event of `i`'s thread before it that is kept, or NONE.
    fn prev_kept(&self, i: usize, keep: &[bool]) -> u32 {
        let mut p = self.prev[i];
        while p != NONE && !keep[p as usize] {
            p = self.prev[p as usize];
        }
        p
    }

    /// Adds `seeds` and everything they depend on to `keep`.
    fn close(&self, seeds: impl IntoIterator<Item = u32>, keep: &mut [bool]) {
        let mut work: Vec<u32> = Vec::new();
        for s in seeds {
            if !keep[s as usize] {
                keep[s as usize] = true;
                work.push(s);
            }
        }
        while let Some(i) = work.pop() {
            for p in self.preds(i) {
                if !keep[p as usize] {
                    keep[p as usize] = true;
                    work.push(p);
                }
            }
        }
    }
}

/// Rule 4 of [`PartialOrder`]: the failure's causal future through conditions is the
/// failing thread's later events, a condition of another thread that reads from one of
/// them, that thread's later events, and so on. Every condition of the future that reads
/// from it (a thread joining it) is kept when its thread has a kept event before it,
/// together with the chain that leads to it from the failure. Returns the events it adds,
/// sorted, and the events of the chains (kept before or not).
fn keep_signals(trace: &Trace, ix: &Indexed<'_>, f: usize, keep: &mut [bool]) -> Signals {
    let events = trace.events();
    let mut future = vec![false; events.len()];
    future[f] = true;
    let in_future = |future: &[bool], i: usize| i < future.len() && future[i];
    // A condition joining the future: it reads from a future write of another thread.
    let joins = |future: &[bool], i: usize| {
        let e = &events[i];
        e.kind.is_cond()
            && e.reads
                .iter()
                .any(|r| r.from.is_some_and(|w| in_future(future, w.index()) && events[w.index()].thread != e.thread))
    };
    let mut targets = Vec::new();
    for i in f + 1..events.len() {
        let prev = ix.prev[i] as usize;
        let joined = joins(&future, i);
        if in_future(&future, prev) || joined {
            future[i] = true;
        }
        // The thread had kept events before: a fix may move one of them behind `i`.
        if joined && ix.prev_kept(i, keep) != NONE {
            targets.push(i);
        }
    }
    let mut stack = targets;
    let mut seen = vec![false; events.len()];
    let mut added = Vec::new();
    let mut chain = Vec::new();
    let mut waits = Vec::new();
    for (c, w) in pending_signals(trace, ix, &future, keep) {
        waits.push((w, c));
        // The chain inside the pending steps: the condition, then the writer and its thread's
        // pending steps back to its last executed event, which the loop below goes on from.
        let mut i = c;
        loop {
            chain.push(i);
            if !keep[i as usize] {
                keep[i as usize] = true;
                added.push(EventId::from_u32(i));
            }
            let next = if i == c { w } else { ix.prev[i as usize] };
            if next == NONE || (next as usize) < events.len() {
                if next != NONE && in_future(&future, next as usize) {
                    stack.push(next as usize);
                }
                break;
            }
            i = next;
        }
    }
    while let Some(i) = stack.pop() {
        if seen[i] {
            continue;
        }
        seen[i] = true;
        chain.push(i as u32);
        if !keep[i] {
            keep[i] = true;
            added.push(EventId::from_u32(i as u32));
        }
        if i == f {
            continue;
        }
        let prev = ix.prev[i] as usize;
        if in_future(&future, prev) {
            stack.push(prev);
        }
        for r in &events[i].reads {
            if let Some(w) = r.from.map(|w| w.index()) {
                if in_future(&future, w) && events[w].thread != events[i].thread {
                    stack.push(w);
                }
            }
        }
    }
    added.sort_unstable();
    added.dedup();
    chain.sort_unstable();
    chain.dedup();
    Signals { added, chain, waits }
}

/// Rule 3 for pending steps: every pending condition whose read comes after a needed write
/// of another thread (the last executed write of its variable, see [`Indexed::preds`]),
/// except those `left_out` says the failing thread reaches after its failure.
fn pending_conditions(
    trace: &Trace,
    ix: &Indexed<'_>,
    needed: &[bool],
    left_out: &dyn Fn(usize, &Event) -> bool,
) -> Vec<u32> {
    let base = trace.len() + trace.blocked().len();
    let mut out = Vec::new();
    for (k, e) in trace.pending().iter().enumerate() {
        let i = (base + k) as u32;
        if needed[i as usize] || !e.kind.is_cond() || left_out(i as usize, e) {
            continue;
        }
        let waits_for_needed = ix
            .preds(i)
            .iter()
            .any(|&w| (w as usize) < trace.len() && needed[w as usize] && ix.event(w).thread != e.thread);
        if waits_for_needed {
            out.push(i);
        }
    }
    out
}

/// The kept pending steps in an order that every ordering between them respects (program
/// order and `waits`), ties broken by id; `None` when `waits` close a cycle.
fn pending_order(ix: &Indexed<'_>, keep: &[bool], from: usize, waits: &[(u32, u32)]) -> Option<Vec<u32>> {
    let kept: Vec<u32> = (from..keep.len()).filter(|&i| keep[i]).map(|i| i as u32).collect();
    let mut succ: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    let mut indegree: FxHashMap<u32, usize> = kept.iter().map(|&i| (i, 0)).collect();
    let mut edge = |a: u32, b: u32| {
        succ.entry(a).or_default().push(b);
        *indegree.entry(b).or_default() += 1;
    };
    for &i in &kept {
        let p = ix.prev_kept(i as usize, keep);
        if p != NONE && p as usize >= from {
            edge(p, i);
        }
    }
    for &(w, c) in waits {
        if keep[w as usize] && keep[c as usize] {
            edge(w, c);
        }
    }
    let mut ready: std::collections::BTreeSet<u32> = kept.iter().copied().filter(|i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(kept.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &j in succ.get(&i).into_iter().flatten() {
            let d = indegree.get_mut(&j).expect("every successor is kept");
            *d -= 1;
            if *d == 0 {
                ready.insert(j);
            }
        }
    }
    (order.len() == kept.len()).then_some(order)
}

/// What rule 4 adds: the events it keeps (sorted), the events of its chains, and the
/// orderings from a pending write to the pending condition waiting for it (rule 4 continued
/// into the pending steps).
struct Signals {
    added: Vec<EventId>,
    chain: Vec<u32>,
    waits: Vec<(u32, u32)>,
}

/// Rule 4 continued into the pending steps ([`Trace::pending`]): the pending steps of a
/// thread whose last executed event is in the failure's future are in it too, and a pending
/// condition of another thread that reads a variable such a pending step writes joins it
/// (it waits for that write: usb-serial's disconnect waits at 190 for the write that the port
/// work makes only after the failing callback has signalled it). Returns the joining
/// conditions whose threads have kept events before them, each with the pending write it
/// waits for (the first one found), as node ids.
fn pending_signals(trace: &Trace, ix: &Indexed<'_>, future: &[bool], keep: &[bool]) -> Vec<(u32, u32)> {
    let len = trace.len();
    let base = len + trace.blocked().len();
    let pending = trace.pending();
    let mut fut = vec![false; pending.len()];
    let in_future = |fut: &[bool], i: u32| {
        let i = i as usize;
        if i < len {
            future[i]
        } else {
            i >= base && fut[i - base]
        }
    };
    let mut out = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        for (k, e) in pending.iter().enumerate() {
            if fut[k] {
                continue;
            }
            let i = (base + k) as u32;
            let prev = ix.prev[i as usize];
            let writer = || {
                if !e.kind.is_cond() {
                    return None;
                }
                pending.iter().enumerate().find_map(|(j, w)| {
                    let writes = w.thread != e.thread
                        && fut[j]
                        && w.writes.iter().any(|x| e.reads.iter().any(|r| r.var == x.var));
                    writes.then_some((base + j) as u32)
                })
            };
            let by_order = prev != NONE && in_future(&fut, prev);
            let joined = if by_order { None } else { writer() };
            if by_order || joined.is_some() {
                fut[k] = true;
                changed = true;
            }
            if let Some(w) = joined {
                if ix.prev_kept(i as usize, keep) != NONE {
                    out.push((i, w));
                }
            }
        }
    }
    out
}

/// The event or blocked step behind a node id (`i >= trace.len()` names a blocked step).
pub(crate) fn node_event(trace: &Trace, i: usize) -> &Event {
    let len = trace.len();
    let blocked = trace.blocked().len();
    if i < len {
        &trace.events()[i]
    } else if i < len + blocked {
        &trace.blocked()[i - len]
    } else {
        &trace.pending()[i - len - blocked]
    }
}

impl PartialOrder {
    /// Generalises a bad trace (see the rule and its soundness argument on [`PartialOrder`]).
    ///
    /// # Errors
    /// [`ErrorKind::NotBad`] when no event failed and no thread is blocked at the end.
    pub fn from_bad_trace(trace: &Trace) -> Result<PartialOrder, Error> {
        let len = trace.len();
        let total = len + trace.blocked().len() + trace.pending().len();
        if u32::try_from(total).is_err() || total == u32::MAX as usize {
            return Err(Error::new(ErrorKind::UnknownEvent, "too many events and blocked steps"));
        }
        let (seeds, failure): (Vec<u32>, Failure) = if let Some(f) = trace.first_failure() {
            (vec![f.as_u32()], Failure::Event(f))
        } else if !trace.blocked().is_empty() {
            let ids: Vec<u32> = (len..len + trace.blocked().len()).map(|i| i as u32).collect();
            let failure = Failure::Deadlock(ids.iter().map(|&i| EventId::from_u32(i)).collect());
            (ids, failure)
        } else {
            return Err(Error::new(
                ErrorKind::NotBad,
                "the trace is not bad: no event failed and no thread is blocked",
            ));
        };
        let ix = Indexed::new(trace);
        // `needed`: the events whose orderings the failure needs (rule 1's closure, the
        // overwrites, the conditions of rule 3, the chains of rule 4); `keep` adds the
        // dependencies of overwrites and conditions, so that every linearisation is a trace.
        let mut needed = vec![false; total];
        ix.close(seeds, &mut needed);
        let mut keep = needed.clone();
        // Overwrites: the first later write of each variable a dependency reads, by each
        // other thread.
        let mut overwrites: Vec<u32> = Vec::new();
        for (i, e) in trace.events().iter().enumerate().filter(|&(i, _)| needed[i]) {
            for r in &e.reads {
                let Some(v) = ix.vars.get(&r.var) else { continue };
                overwrites.extend(v.writers().filter(|&t| t != e.thread).filter_map(|t| v.next_write(t, i as u32)));
            }
        }
        for &w in &overwrites {
            needed[w as usize] = true;
        }
        // Synchronisation: every condition that reads from a dependency or an overwrite of
        // another thread (an await or assume such a write enables). An `assume` the failing
        // thread reaches after its failure is left out: moving it in front of the failure
        // orders nothing (the thread can take another branch), while a moved `await` does
        // (ex2's wait for the boot).
        let after_failure = |i: usize, e: &Event| match &failure {
            Failure::Event(f) => i > f.index() && e.thread == trace.event(*f).thread && e.kind != EventKind::Await,
            Failure::Deadlock(_) => false,
        };
        let conditions: Vec<u32> = (trace.events().iter().enumerate())
            .filter(|&(i, e)| {
                !needed[i]
                    && !after_failure(i, e)
                    && e.kind.is_cond()
                    && e.reads
                        .iter()
                        .any(|r| r.from.is_some_and(|f| needed[f.index()] && trace.event(f).thread != e.thread))
            })
            .map(|(i, _)| i as u32)
            .chain(pending_conditions(trace, &ix, &needed, &after_failure))
            .collect();
        for &c in &conditions {
            needed[c as usize] = true;
        }
        ix.close(overwrites.into_iter().chain(conditions), &mut keep);
        // Signals after the failure (rule 4).
        let Signals { added: signals, chain: chains, waits } = match &failure {
            Failure::Event(f) => keep_signals(trace, &ix, f.index(), &mut keep),
            Failure::Deadlock(_) => Signals { added: Vec::new(), chain: Vec::new(), waits: Vec::new() },
        };
        let mut chain: Vec<EventId> = chains.iter().map(|&i| EventId::from_u32(i)).collect();
        chain.sort_unstable();
        for i in chains {
            needed[i as usize] = true;
        }
        let context: Vec<EventId> =
            (0..total).filter(|&i| keep[i] && !needed[i]).map(|i| EventId::from_u32(i as u32)).collect();

        let executed_and_blocked = len + trace.blocked().len();
        let (pending_order, waits) = match pending_order(&ix, &keep, executed_and_blocked, &waits) {
            Some(order) => (order, waits),
            None => (pending_order(&ix, &keep, executed_and_blocked, &[]).unwrap_or_default(), Vec::new()),
        };
        let order = (0..executed_and_blocked).filter(|&i| keep[i]).chain(pending_order.into_iter().map(|i| i as usize));
        let mut nodes = Vec::new();
        let mut threads = Vec::new();
        let mut index = vec![NONE; total];
        let mut cross = Vec::new();
        let mut program = Vec::new();
        for i in order {
            index[i] = nodes.len() as u32;
            let id = EventId::from_u32(i as u32);
            let e = ix.event(i as u32);
            nodes.push(id);
            threads.push(e.thread);
            // The previous kept event of the thread (signals leave gaps).
            let p = ix.prev_kept(i, &keep);
            if p != NONE {
                program.push((EventId::from_u32(p), id));
            }
            for p in ix.preds(i as u32) {
                if keep[p as usize] && ix.event(p).thread != e.thread {
                    cross.push((EventId::from_u32(p), id));
                }
            }
        }
        cross.extend(waits.iter().map(|&(w, c)| (EventId::from_u32(w), EventId::from_u32(c))));
        cross.sort_unstable();
        cross.dedup();
        Ok(PartialOrder {
            signals,
            chain,
            context,
            trace_len: len,
            blocked_len: trace.blocked().len(),
            nodes,
            threads,
            index,
            cross,
            program,
            failure,
        })
    }

    /// What makes the trace bad.
    pub fn failure(&self) -> &Failure {
        &self.failure
    }

    /// The kept events in trace order, then the kept blocked steps (ids from the trace length
    /// on, see [`Failure::Deadlock`]), then the kept pending steps in an order that their
    /// orderings respect (program order, and a pending condition after the pending write it
    /// waits for), ties broken by id: every ordering goes from an earlier to a later node.
    pub fn events(&self) -> &[EventId] {
        &self.nodes
    }

    /// The number of kept events and blocked steps.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether nothing is kept (never the case for a partial order built from a bad trace).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Whether an event (or blocked step) is kept.
    pub fn contains(&self, id: EventId) -> bool {
        self.node_index(id).is_some()
    }

    /// Whether the id names a blocked step rather than an event of the trace.
    pub fn is_blocked_step(&self, id: EventId) -> bool {
        (self.trace_len..self.trace_len + self.blocked_len).contains(&id.index())
    }

    /// Whether the event was kept only as a signal after the failure (rule 4): the soundness
    /// argument does not cover it (its own dependencies are not kept).
    pub fn is_signal(&self, id: EventId) -> bool {
        self.signals.binary_search(&id).is_ok()
    }

    /// Whether the event is kept only as a dependency of an overwrite (rule 2) or of a
    /// condition an overwrite enables (rule 3): it makes every linearisation a trace, but the
    /// failure does not need its cross-thread orderings, so an elimination cycle should not
    /// use them (breaking one changes how the overwrite is reached, not the failure).
    pub fn is_context(&self, id: EventId) -> bool {
        self.context.binary_search(&id).is_ok()
    }

    /// Whether an elimination cycle may not use the cross-thread ordering `a` before `b`:
    /// an ordering of a context event, or an ordering into an event kept only as a signal
    /// (rule 4) from an event off its chain (how a step after the failure read its values
    /// says nothing about the failure or the signal).
    pub fn is_context_edge(&self, a: EventId, b: EventId) -> bool {
        self.is_context(a) || self.is_context(b) || (self.is_signal(b) && self.chain.binary_search(&a).is_err())
    }

    /// Whether the id names a pending step ([`Trace::pending`]; ids from the trace length
    /// plus the number of blocked steps on).
    pub fn is_pending_step(&self, id: EventId) -> bool {
        id.index() >= self.trace_len + self.blocked_len
    }

    /// The thread of a kept event.
    pub fn thread(&self, id: EventId) -> Option<ThreadId> {
        self.node_index(id).map(|i| self.threads[i])
    }

    /// The immediate cross-thread orderings (earlier, later) between conflicting kept events,
    /// sorted.
    pub fn cross_edges(&self) -> &[(EventId, EventId)] {
        &self.cross
    }

    /// Program order: each kept event after the previous kept event of its thread, sorted by
    /// the later event.
    pub fn program_edges(&self) -> &[(EventId, EventId)] {
        &self.program
    }

    /// The event or blocked step behind an id of this partial order.
    ///
    /// # Errors
    /// [`ErrorKind::UnknownEvent`] when the id is not kept here or `trace` is not the trace
    /// this partial order was built from.
    pub fn event<'t>(&self, trace: &'t Trace, id: EventId) -> Result<&'t Event, Error> {
        if self.node_index(id).is_none()
            || trace.len() != self.trace_len
            || trace.blocked().len() != self.blocked_len
            || id.index() >= trace.len() + trace.blocked().len() + trace.pending().len()
        {
            return Err(Error::new(ErrorKind::UnknownEvent, format!("{id} is not an event of this partial order")));
        }
        Ok(node_event(trace, id.index()))
    }

    /// Whether `a` must come before `b` (a path of program and cross-thread orderings leads
    /// from `a` to `b`). Linear in the size of the partial order.
    pub fn precedes(&self, a: EventId, b: EventId) -> bool {
        let (Some(ia), Some(ib)) = (self.node_index(a), self.node_index(b)) else { return false };
        if ia >= ib {
            return false;
        }
        let succ = self.successors();
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![ia];
        while let Some(u) = stack.pop() {
            for &v in &succ[u] {
                let v = v as usize;
                if v == ib {
                    return true;
                }
                if v < ib && !seen[v] {
                    seen[v] = true;
                    stack.push(v);
                }
            }
        }
        false
    }

    /// Whether `order` lists every kept event and blocked step exactly once, each after all
    /// that must precede it.
    pub fn is_linearisation(&self, order: &[EventId]) -> bool {
        if order.len() != self.nodes.len() {
            return false;
        }
        let mut pos = vec![NONE; self.nodes.len()];
        for (p, &id) in order.iter().enumerate() {
            match self.node_index(id) {
                Some(i) if pos[i] == NONE => pos[i] = p as u32,
                _ => return false,
            }
        }
        self.program.iter().chain(&self.cross).all(|&(a, b)| {
            let (ia, ib) = (self.index[a.index()] as usize, self.index[b.index()] as usize);
            pos[ia] < pos[ib]
        })
    }

    pub(crate) fn node_index(&self, id: EventId) -> Option<usize> {
        self.index.get(id.index()).filter(|&&i| i != NONE).map(|&i| i as usize)
    }

    /// Successor lists over node indices (program and cross edges).
    pub(crate) fn successors(&self) -> Vec<Vec<u32>> {
        let mut succ = vec![Vec::new(); self.nodes.len()];
        for &(a, b) in self.program.iter().chain(&self.cross) {
            succ[self.index[a.index()] as usize].push(self.index[b.index()]);
        }
        succ
    }

    /// Graphviz DOT text: one column per thread with its events in program order, headed by
    /// the thread's name in `space` ([`Space::threads`]; `t0` for one it does not declare),
    /// cross-thread orderings between columns, the failing event bold and blocked steps dashed.
    /// `label` names an event (say by its location's [`Space::name`]). The output is deterministic.
    pub fn to_dot(&self, trace: &Trace, space: &Space, label: &dyn Fn(EventId) -> String) -> String {
        let names: Vec<&str> = space.threads().map(|(name, _)| name).collect();
        self.dot(trace, &names, label, &[], &[])
    }

    /// DOT with `highlight` nodes and extra `(from, to, attributes)` edges.
    pub(crate) fn dot(
        &self,
        trace: &Trace,
        names: &[&str],
        label: &dyn Fn(EventId) -> String,
        highlight: &[EventId],
        extra: &[(EventId, EventId, String)],
    ) -> String {
        let mut out = String::from("digraph partial_order {\n  rankdir=TB;\n  node [shape=box];\n");
        let mut threads: Vec<ThreadId> = self.threads.clone();
        threads.sort_unstable();
        threads.dedup();
        let failing: Vec<EventId> = match &self.failure {
            Failure::Event(f) => vec![*f],
            Failure::Deadlock(b) => b.clone(),
        };
        for t in &threads {
            let _ = writeln!(out, "  subgraph cluster_{} {{\n    label=\"{}\";", t.as_u32(), escape(&t.name_in(names)));
            for (i, &id) in self.nodes.iter().enumerate() {
                if self.threads[i] != *t {
                    continue;
                }
                let mut attrs = format!("label=\"{}\"", escape(&label(id)));
                if failing.contains(&id) {
                    attrs.push_str(", penwidth=2");
                }
                if self.is_blocked_step(id) {
                    attrs.push_str(", style=dashed");
                }
                if self.is_pending_step(id) {
                    attrs.push_str(", style=dotted");
                }
                if highlight.contains(&id) {
                    attrs.push_str(", color=red");
                }
                if id.index() < trace.len() + trace.blocked().len() + trace.pending().len() {
                    let kind = node_event(trace, id.index()).kind;
                    let _ = write!(attrs, ", tooltip=\"{kind:?}\"");
                }
                let _ = writeln!(out, "    e{} [{attrs}];", id.as_u32());
            }
            for &(a, b) in &self.program {
                if self.thread(b) == Some(*t) {
                    let _ = writeln!(out, "    e{} -> e{};", a.as_u32(), b.as_u32());
                }
            }
            out.push_str("  }\n");
        }
        for &(a, b) in &self.cross {
            let _ = writeln!(out, "  e{} -> e{} [color=blue];", a.as_u32(), b.as_u32());
        }
        for (a, b, attrs) in extra {
            let _ = writeln!(out, "  e{} -> e{} [{attrs}];", a.as_u32(), b.as_u32());
        }
        out.push_str("}\n");
        out
    }
}

/// Escapes a DOT string literal.
pub(crate) fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}
