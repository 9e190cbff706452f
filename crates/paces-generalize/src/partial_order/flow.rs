//! Rule 6 of [`PartialOrder`](crate::PartialOrder): the failure's data flow, and the
//! cross-thread orderings off it, which the elimination graph does not use.

use paces_trace::{EventId, ThreadId, VarId};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::index::Indexed;

impl Indexed<'_> {
    /// The writers event `i` reads from: each read's writer, and for a pending step (whose
    /// reads name none) the last executed write of the variable, unless a pending step of its
    /// own thread before it writes the variable (as [`Indexed::preds`] orders it).
    fn sources(&self, i: u32) -> SmallVec<[u32; 4]> {
        let e = self.event(i);
        let pending = (i as usize) >= self.trace.len() + self.trace.blocked().len();
        let mut out = SmallVec::new();
        for r in &e.reads {
            if let Some(w) = r.from {
                out.push(w.as_u32());
            } else if pending {
                let Some(v) = self.vars.get(&r.var) else { continue };
                let own = v.pending.binary_search_by_key(&e.thread, |(t, _)| *t).ok().map(|k| v.pending[k].1);
                match own {
                    Some(w) if w < i => out.push(w),
                    _ => out.extend(v.writes.last().copied()),
                }
            }
        }
        out
    }
}

/// The failure's data flow over the kept events: the smallest set that holds `seeds`, the
/// writers each of its events reads from, and every kept condition of a thread with an event
/// in it (a condition decides which steps its thread takes, and a wait whether it goes on;
/// a candidate may move a condition in front of any step of its block, so every one of the
/// thread's counts). Returns the shared variables its events read, sorted.
fn flow_variables(ix: &Indexed<'_>, keep: &[bool], seeds: &[u32]) -> Vec<VarId> {
    let mut conditions: FxHashMap<ThreadId, Vec<u32>> = FxHashMap::default();
    for (i, _) in keep.iter().enumerate().filter(|(_, &k)| k) {
        let e = ix.event(i as u32);
        if e.kind.is_cond() {
            conditions.entry(e.thread).or_default().push(i as u32);
        }
    }
    let mut flow = vec![false; keep.len()];
    let mut threads: FxHashSet<ThreadId> = FxHashSet::default();
    let mut work: Vec<u32> = Vec::new();
    let add = |i: u32, flow: &mut Vec<bool>, work: &mut Vec<u32>| {
        if keep[i as usize] && !flow[i as usize] {
            flow[i as usize] = true;
            work.push(i);
        }
    };
    for &s in seeds {
        add(s, &mut flow, &mut work);
    }
    while let Some(i) = work.pop() {
        for w in ix.sources(i) {
            add(w, &mut flow, &mut work);
        }
        let t = ix.event(i).thread;
        if threads.insert(t) {
            for &c in conditions.get(&t).into_iter().flatten() {
                add(c, &mut flow, &mut work);
            }
        }
    }
    let mut vars: Vec<VarId> =
        (0..keep.len()).filter(|&i| flow[i]).flat_map(|i| ix.event(i as u32).reads.iter().map(|r| r.var)).collect();
    vars.sort_unstable();
    vars.dedup();
    vars
}

/// The cross-thread orderings of `cross` that are off the failure's data flow (rule 6 of
/// [`PartialOrder`](crate::PartialOrder)): the two events conflict on no variable that an
/// event of the flow reads, and neither is on a chain of rule 4 (`chain`, sorted). Sorted.
pub(super) fn off_flow(
    ix: &Indexed<'_>,
    keep: &[bool],
    seeds: &[u32],
    chain: &[EventId],
    cross: &[(EventId, EventId)],
) -> Vec<(EventId, EventId)> {
    let vars = flow_variables(ix, keep, seeds);
    let read = |v: VarId| vars.binary_search(&v).is_ok();
    let on_chain = |id: EventId| chain.binary_search(&id).is_ok();
    let conflict = |a: EventId, b: EventId| {
        let (x, y) = (ix.event(a.as_u32()), ix.event(b.as_u32()));
        let writes_read = |w: &paces_trace::Event, o: &paces_trace::Event| {
            w.writes.iter().any(|wr| read(wr.var) && (o.writes_var(wr.var) || o.reads_var(wr.var)))
        };
        writes_read(x, y) || writes_read(y, x)
    };
    cross.iter().copied().filter(|&(a, b)| !on_chain(a) && !on_chain(b) && !conflict(a, b)).collect()
}
