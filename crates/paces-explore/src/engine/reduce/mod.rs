//! The partial-order reduction: persistent sets grown over gated futures (`gates`) and the
//! cycle proviso; the argument is in docs/explore.md.

pub(super) mod gates;

use smallvec::SmallVec;

use crate::bits::Bits;

use super::{Engine, Expansion, Trans};
use gates::Gates;

impl Engine<'_> {
    /// The threads' gates and every gate variable (see the `gates` field).
    pub(super) fn gates(&self) -> &(Vec<Gates>, u64) {
        self.gates.get_or_init(|| {
            let gates: Vec<Gates> = self.c.threads.iter().map(|t| Gates::new(t, self.c.global_init.len())).collect();
            let all = gates.iter().fold(0, |m, g| m | g.all());
            (gates, all)
        })
    }

    /// Every thread's closed gate variables in `s` (see [`Gates::closed`]).
    pub(super) fn closed_gates(&self, s: &[i64], closed: &mut Vec<u64>) {
        closed.clear();
        closed.extend((0..self.lay.threads).map(|u| {
            let (g, l) = self.split(s, u);
            self.gates().0[u].closed(&self.c.threads[u], g, l)
        }));
    }

    /// The union of the gated futures of every thread but `t`, for the persistent set `{t}`
    /// (see [`Engine::reduce`]); `closed` as [`Engine::closed_gates`] gives it for `s`.
    pub(super) fn others_futures(&self, s: &[i64], t: usize, closed: &[u64]) -> (Bits, Bits) {
        let mut futures = Vec::with_capacity(self.lay.threads);
        self.gated_futures(s, 1 << t, closed, &mut futures);
        let (mut r, mut w) = (Bits::new(self.lay.globals), Bits::new(self.lay.globals));
        for (u, (fr, fw)) in futures.into_iter().enumerate() {
            if u != t {
                r.union_with(fr);
                w.union_with(fw);
            }
        }
        (r, w)
    }

    /// The gated future of every thread outside `set` (the threads inside get their whole
    /// future, unused): the gate variables frozen are those every outside thread leaves
    /// unwritten in its gated future (a greatest fixpoint), and a thread's gates on a frozen
    /// variable count when they are all false (`closed`).
    fn gated_futures<'e>(&'e self, s: &[i64], set: u64, closed: &[u64], futures: &mut Vec<(&'e Bits, &'e Bits)>) {
        let (gates, all) = self.gates();
        let mut frozen = *all;
        loop {
            futures.clear();
            let mut written = 0;
            for (u, &closed_u) in closed.iter().enumerate() {
                let mask = if set >> u & 1 == 1 { 0 } else { frozen & closed_u };
                let future = gates[u].future(&self.c.threads[u], self.pc(s, u), mask);
                if set >> u & 1 == 0 {
                    written |= future.1.low_word();
                }
                futures.push(future);
            }
            if frozen & written == 0 {
                return;
            }
            frozen &= !written;
        }
    }

    /// Keeps only the successors of a persistent set of threads (unless the cycle proviso
    /// asks for all).
    pub(super) fn reduce(&self, s: &[i64], exp: &mut Expansion, is_old: &dyn Fn(&[i64]) -> bool) {
        let n = self.lay.threads;
        let ranges = &exp.ranges;
        let enabled_opts = &exp.enabled;
        if ranges.len() != n {
            return;
        }
        let active: Vec<usize> = (0..n).filter(|&t| !ranges[t].is_empty()).collect();
        if active.len() <= 1 || n > 64 {
            return;
        }
        // Grow a persistent set from every seed by the rules in the crate docs.
        let mut closed = std::mem::take(&mut exp.closed);
        if closed.len() != n {
            self.closed_gates(s, &mut closed);
        }
        // Per thread: what its enabled next steps read and write, and what its disabled ones
        // read (rules (1) and (2) compare these with the other threads' gated futures).
        let touches: Vec<(Bits, Bits, Bits)> = (0..n)
            .map(|x| {
                let point = &self.c.threads[x].points[self.pc(s, x)];
                let (mut r, mut w, mut waits) =
                    (Bits::new(self.lay.globals), Bits::new(self.lay.globals), Bits::new(self.lay.globals));
                for (i, opt) in point.options.iter().enumerate() {
                    if enabled_opts[x][i] {
                        r.union_with(&opt.r);
                        w.union_with(&opt.w);
                    } else {
                        waits.union_with(&opt.r);
                    }
                }
                (r, w, waits)
            })
            .collect();
        let mut candidates: Vec<(usize, u64)> = Vec::new();
        let mut futures = Vec::with_capacity(n);
        for &seed in &active {
            let mut set = 1u64 << seed;
            loop {
                self.gated_futures(s, set, &closed, &mut futures);
                // What the set's next steps write, and what they read or wait on: a thread
                // outside joins when its gated future touches what they write or writes
                // what they read.
                let (mut writes, mut reads) = (Bits::new(self.lay.globals), Bits::new(self.lay.globals));
                for (r, w, waits) in touches.iter().enumerate().filter(|&(x, _)| set >> x & 1 == 1).map(|(_, t)| t) {
                    writes.union_with(w);
                    reads.union_with(r);
                    reads.union_with(waits);
                }
                let mut grown = set;
                for (u, (fut_r, fut_w)) in futures.iter().enumerate() {
                    if set >> u & 1 == 0
                        && (writes.intersects(fut_r) || writes.intersects(fut_w) || reads.intersects(fut_w))
                    {
                        grown |= 1 << u;
                    }
                }
                if grown == set {
                    break;
                }
                set = grown;
            }
            let cost: usize = (0..n).filter(|&u| set >> u & 1 == 1).map(|u| ranges[u].len()).sum();
            if cost < exp.succs.len() && !candidates.iter().any(|&(_, c)| c == set) {
                candidates.push((cost, set));
            }
        }
        exp.closed = closed;
        // A set is kept only when one of its threads that can step could not stop where it
        // stands (a thread may stop where it can finish): were all of them able to stop, a
        // deadlock with them stopped could lie beyond steps of the other threads alone.
        let holds_one_that_cannot_stop = |set: u64| {
            (0..n).any(|u| {
                set >> u & 1 == 1 && !ranges[u].is_empty() && !self.c.threads[u].points[self.pc(s, u)].can_finish
            })
        };
        candidates.retain(|&(_, set)| holds_one_that_cannot_stop(set));
        // Cheapest first (the seed order breaks ties); the first set with a new successor is
        // kept (the cycle proviso: one new successor is enough for the argument), and the
        // state is expanded fully when there is none.
        candidates.sort_by_key(|&(cost, _)| cost);
        for (_, set) in candidates {
            let in_set = |tr: &Trans| set >> tr.thread & 1 == 1;
            if self.merge_independent {
                let kept: SmallVec<[usize; 16]> = (0..exp.succs.len()).filter(|&i| in_set(&exp.succs[i])).collect();
                self.merge_kept(exp, kept.into_iter());
            }
            if exp.succs.iter().filter(|tr| in_set(tr)).any(|tr| !is_old(exp.state(tr))) {
                exp.succs.retain(in_set);
                exp.reduced = true;
                return;
            }
        }
    }
}
