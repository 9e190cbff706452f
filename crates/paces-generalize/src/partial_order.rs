//! Generalising a bad trace into the partial order of the orderings its failure needs.

use std::fmt::Write as _;

use paces_constraint::Space;
use paces_trace::{Event, EventId, EventKind, ThreadId, Trace};

#[cfg(doc)]
use crate::EliminateConfig;
use crate::{Error, ErrorKind};

mod flow;
mod future;
mod index;

use future::{keep_signals, pending_conditions, pending_order, Signals};
pub(crate) use index::node_event;
use index::{Indexed, NONE};

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
/// 6. *Data flow*: the failure's *flow* is the smallest set of kept events that holds the
///    failure (or the blocked steps) and the conditions of 3, the writers each of its events
///    reads from, and every kept condition of a thread with an event in it. An ordering of 5
///    between two events that conflict on no variable an event of the flow reads, neither of
///    them on a chain of 4, is *off the flow* ([`PartialOrder::is_off_flow`]): it stays in the
///    partial order, but the elimination graph does not use it
///    ([`EliminateConfig::data_flow`]). It decides values the failure never reads (workers'
///    updates `s2 := s2 + 1` of a counter no check reads): breaking it removes one schedule,
///    never the failure. Used as fixes, such orderings had the loop move a worker's racing
///    steps past its own updates of such counters, once per schedule, each move leaving the
///    race as it was.
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
///
/// Nor are the orderings off the flow (rule 6) needed. Take a linearisation that respects
/// every other ordering, and run it, leaving a thread where one of its conditions would go
/// another way than in the trace. By induction along the linearisation, every event of the
/// flow runs and reads from the writer it read from in the trace: that writer is in the flow
/// and runs before it, writing the same value (its own reads are of the flow), and every other
/// kept write of the variable keeps its orderings with both, since the flow reads the
/// variable. No thread with an event of the flow is left: its conditions are in the flow and
/// read what they read in the trace. So the failing check reads the same values and fails (a
/// blocked step, at the end, is blocked again). The events off the flow may read other values
/// and write other values, but only where no event of the flow reads them.

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
    /// The cross-thread orderings off the failure's data flow (rule 6), sorted.
    off_flow: Vec<(EventId, EventId)>,
}
/// The nodes and orderings of a partial order (the fields of [`PartialOrder`] they fill).
#[derive(Default)]
struct Nodes {
    nodes: Vec<EventId>,
    threads: Vec<ThreadId>,
    index: Vec<u32>,
    cross: Vec<(EventId, EventId)>,
    program: Vec<(EventId, EventId)>,
}

impl Indexed<'_> {
    /// The nodes of the partial order, in `order`, with their threads and index, and its
    /// orderings: program order between successive kept events of a thread, the immediate
    /// conflicts between kept events of different threads, and `waits` (rule 4).
    fn nodes(&self, order: impl Iterator<Item = usize>, keep: &[bool], waits: &[(u32, u32)]) -> Nodes {
        let mut out = Nodes { index: vec![NONE; keep.len()], ..Nodes::default() };
        for i in order {
            out.index[i] = out.nodes.len() as u32;
            let id = EventId::from_u32(i as u32);
            let e = self.event(i as u32);
            out.nodes.push(id);
            out.threads.push(e.thread);
            // The previous kept event of the thread (signals leave gaps).
            let p = self.prev_kept(i, keep);
            if p != NONE {
                out.program.push((EventId::from_u32(p), id));
            }
            for p in self.preds(i as u32) {
                if keep[p as usize] && self.event(p).thread != e.thread {
                    out.cross.push((EventId::from_u32(p), id));
                }
            }
        }
        out.cross.extend(waits.iter().map(|&(w, c)| (EventId::from_u32(w), EventId::from_u32(c))));
        out.cross.sort_unstable();
        out.cross.dedup();
        out
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
        ix.close(seeds.iter().copied(), &mut needed);
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
        ix.close(overwrites.into_iter().chain(conditions.iter().copied()), &mut keep);
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
        let Nodes { nodes, threads, index, cross, program } = ix.nodes(order, &keep, &waits);
        let flow_seeds: Vec<u32> = seeds.into_iter().chain(conditions).collect();
        Ok(PartialOrder {
            off_flow: flow::off_flow(&ix, &keep, &flow_seeds, &chain, &cross),
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
    /// an ordering of a context event, an ordering into an event kept only as a signal
    /// (rule 4) from an event off its chain (how a step after the failure read its values
    /// says nothing about the failure or the signal). Nor, by default, does it use an ordering
    /// off the failure's data flow ([`PartialOrder::is_off_flow`]).
    pub fn is_context_edge(&self, a: EventId, b: EventId) -> bool {
        self.is_context(a) || self.is_context(b) || (self.is_signal(b) && self.chain.binary_search(&a).is_err())
    }

    /// Whether the cross-thread ordering `a` before `b` is off the failure's data flow (rule
    /// 6): the two events conflict on no variable that the flow reads. An elimination cycle
    /// does not use it unless [`EliminateConfig::data_flow`] is off.
    pub fn is_off_flow(&self, a: EventId, b: EventId) -> bool {
        self.off_flow.binary_search(&(a, b)).is_ok()
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
