//! The trace with its blocked and pending steps indexed for generalisation: each step's
//! previous step of its thread, and per variable its reads and writes.

use paces_trace::{Event, ThreadId, Trace, VarId};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// No event.
pub(super) const NONE: u32 = u32::MAX;

#[derive(Default)]
pub(super) struct VarIndex {
    pub(super) writes: Vec<u32>,
    pub(super) reads: Vec<u32>,
    /// Writes of the variable per thread, threads sorted.
    pub(super) by_thread: Vec<(ThreadId, Vec<u32>)>,
    /// The first pending write of the variable per thread, threads sorted.
    pub(super) pending: Vec<(ThreadId, u32)>,
}

impl VarIndex {
    /// The first write of the variable by thread `t` after event `i`: executed, or else
    /// pending.
    pub(super) fn next_write(&self, t: ThreadId, i: u32) -> Option<u32> {
        let executed = self.by_thread.binary_search_by_key(&t, |(u, _)| *u).ok().and_then(|k| {
            let ws = &self.by_thread[k].1;
            ws.get(ws.partition_point(|&p| p <= i)).copied()
        });
        executed.or_else(|| self.pending.binary_search_by_key(&t, |(u, _)| *u).ok().map(|k| self.pending[k].1))
    }

    /// The threads that write the variable, executed or pending, sorted.
    pub(super) fn writers(&self) -> impl Iterator<Item = ThreadId> + '_ {
        let mut ts: SmallVec<[ThreadId; 4]> =
            self.by_thread.iter().map(|(t, _)| *t).chain(self.pending.iter().map(|(t, _)| *t)).collect();
        ts.sort_unstable();
        ts.dedup();
        ts.into_iter()
    }
}

/// The trace with blocked steps appended, and the indexes generalisation needs.
pub(super) struct Indexed<'t> {
    pub(super) trace: &'t Trace,
    pub(super) prev: Vec<u32>,
    pub(super) vars: FxHashMap<VarId, VarIndex>,
}

impl<'t> Indexed<'t> {
    pub(super) fn new(trace: &'t Trace) -> Indexed<'t> {
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

    pub(super) fn event(&self, i: u32) -> &'t Event {
        node_event(self.trace, i as usize)
    }

    /// The immediate predecessors of event `i`: its thread's previous event and its
    /// immediate conflicting predecessors (see [`PartialOrder`](crate::PartialOrder)).
    pub(super) fn preds(&self, i: u32) -> SmallVec<[u32; 4]> {
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
    pub(super) fn prev_kept(&self, i: usize, keep: &[bool]) -> u32 {
        let mut p = self.prev[i];
        while p != NONE && !keep[p as usize] {
            p = self.prev[p as usize];
        }
        p
    }

    /// Adds `seeds` and everything they depend on to `keep`.
    pub(super) fn close(&self, seeds: impl IntoIterator<Item = u32>, keep: &mut [bool]) {
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
