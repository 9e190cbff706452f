//! Rules 3 and 4 of [`PartialOrder`](crate::PartialOrder) where they look past the failure
//! or into the pending steps: the signals after the failure, the pending conditions, and an
//! order of the kept pending steps.

use paces_trace::{Event, EventId, Trace};
use rustc_hash::FxHashMap;

use super::index::{Indexed, NONE};
/// Rule 4 of [`PartialOrder`](crate::PartialOrder): the failure's causal future through
/// conditions is the failing thread's later events, a condition of another thread that reads from one of
/// them, that thread's later events, and so on. Every condition of the future that reads
/// from it (a thread joining it) is kept when its thread has a kept event before it,
/// together with the chain that leads to it from the failure. Returns the events it adds,
/// sorted, and the events of the chains (kept before or not).
pub(super) fn keep_signals(trace: &Trace, ix: &Indexed<'_>, f: usize, keep: &mut [bool]) -> Signals {
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
pub(super) fn pending_conditions(
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
pub(super) fn pending_order(ix: &Indexed<'_>, keep: &[bool], from: usize, waits: &[(u32, u32)]) -> Option<Vec<u32>> {
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
pub(super) struct Signals {
    pub(super) added: Vec<EventId>,
    pub(super) chain: Vec<u32>,
    pub(super) waits: Vec<(u32, u32)>,
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
